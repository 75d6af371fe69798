//! Work leases used by `gleaner worker` on PostgreSQL (issue 17): renewing a claim
//! together with the worker's own lease, and fencing result writes with the claim's
//! token. The claim itself is `Postgres::claim_work`.

use std::time::{Duration, Instant};

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
    /// Extends `lease` by `extend` from now (database clock) when it is still current and
    /// unexpired; the worker's own lease is renewed first, to `worker_lease`, so the
    /// requests it starts under the renewed claim keep counting in flight.
    pub(crate) async fn renew_work(
        &self,
        worker: &str,
        lease: &WorkLease,
        extend: Duration,
        worker_lease: Duration,
    ) -> Result<Option<WorkLease>, StoreError> {
        let sent = Instant::now();
        self.heartbeat(worker, worker_lease).await?;
        let row = self
            .row(
                "UPDATE frontier SET lease_until = now() + make_interval(secs => $3)
                 WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL AND lease_until > now()
                 RETURNING extract(epoch FROM lease_until - now())::float8",
                &[&lease.id, &lease.token, &extend.as_secs_f64()],
                || format!("renewing the claim on `{}`", lease.item.url),
            )
            .await?;
        Ok(row.map(|r| WorkLease {
            valid_for: Duration::try_from_secs_f64(r.get::<_, f64>(0).max(0.0)).unwrap_or_default(),
            claimed_at: sent,
            ..lease.clone()
        }))
    }

    /// Renews the worker's own lease (see `Postgres::heartbeat`), for callers outside
    /// the heartbeat task.
    pub(crate) async fn renew_worker(
        &self,
        worker: &str,
        worker_lease: Duration,
    ) -> Result<(), StoreError> {
        self.heartbeat(worker, worker_lease).await
    }

    /// Deletes items done before `before` (milliseconds since the epoch).
    pub(crate) async fn prune_work(&self, before: i64) -> Result<u64, StoreError> {
        self.exec(
            "DELETE FROM frontier WHERE done_ms IS NOT NULL AND done_ms < $1",
            &[&before],
            || "deleting finished work".to_owned(),
        )
        .await
    }

    /// Items not done yet (due later, due now, or claimed).
    pub(crate) async fn pending_work(&self) -> Result<u64, StoreError> {
        let row = self
            .row("SELECT count(*) FROM frontier WHERE done_ms IS NULL", &[], || {
                "counting queued work".to_owned()
            })
            .await?;
        Ok(row.map_or(0, |r| r.get::<_, i64>(0)).max(0) as u64)
    }
}
