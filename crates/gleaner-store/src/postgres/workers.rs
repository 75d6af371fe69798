//! Work leases used by `gleaner worker` on PostgreSQL (issue 17): renewing a claim
//! together with the worker's own lease, and fencing result writes with the claim's
//! token. The claim itself is `Postgres::claim_work`.

use std::time::Duration;

use super::{PgDoing, Postgres};
use crate::error::StoreError;
use crate::model::WorkLease;

/// Refuses a result write unless `lease` is still the current, unexpired claim of its
/// item (database clock). `FOR SHARE` keeps the row from being claimed again (a claim
/// takes `FOR UPDATE … SKIP LOCKED`) until the caller's transaction ends, so the write
/// and the check commit together.
pub(super) async fn check_fence(
    tx: &deadpool_postgres::Transaction<'_>,
    loc: &str,
    lease: &WorkLease,
) -> Result<(), StoreError> {
    let current = tx
        .query_opt(
            "SELECT 1 FROM frontier WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL
                 AND lease_until > now() FOR SHARE",
            &[&lease.id, &lease.token],
        )
        .await
        .doing(loc, || format!("checking the claim on `{}`", lease.item.url))?;
    match current {
        Some(_) => Ok(()),
        None => Err(StoreError::FencedOut { url: lease.item.url.to_string(), token: lease.token }),
    }
}

impl Postgres {
    /// Renews the worker's own lease (see `Postgres::heartbeat`), for callers outside
    /// the heartbeat task.
    pub(crate) async fn renew_worker(
        &self,
        worker: &str,
        worker_lease: Duration,
    ) -> Result<(), StoreError> {
        self.heartbeat(worker, worker_lease).await
    }
}

impl Postgres {
    /// Takes one from `key`'s allowance of `cap` for `day` in one statement (the row's
    /// lock orders concurrent takers); false when it is used up. Counts of days before
    /// yesterday are deleted as the first count of a key's day is taken.
    pub(crate) async fn take_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
        cap: u32,
    ) -> Result<bool, StoreError> {
        if cap == 0 {
            return Ok(false);
        }
        let day_text = day.to_string();
        let taken = self
            .row(
                "INSERT INTO daily_counts (key, day, count) VALUES ($1, $2, 1)
                 ON CONFLICT (key, day) DO UPDATE SET count = daily_counts.count + 1
                 WHERE daily_counts.count < $3
                 RETURNING count",
                &[&key, &day_text, &i64::from(cap)],
                || format!("counting `{key}` on {day}"),
            )
            .await?;
        if taken.as_ref().is_some_and(|r| r.get::<_, i64>(0) == 1) {
            let old = (day - chrono::Days::new(1)).to_string();
            self.exec("DELETE FROM daily_counts WHERE day < $1", &[&old], || {
                "forgetting old daily counts".to_owned()
            })
            .await?;
        }
        Ok(taken.is_some())
    }

    /// Gives one back to `key`'s allowance for `day`.
    pub(crate) async fn give_back_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
    ) -> Result<(), StoreError> {
        self.exec(
            "UPDATE daily_counts SET count = count - 1 WHERE key = $1 AND day = $2 AND count > 0",
            &[&key, &day.to_string()],
            || format!("giving back a count of `{key}` on {day}"),
        )
        .await
        .map(|_| ())
    }
}
