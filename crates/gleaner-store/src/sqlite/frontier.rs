//! The frontier on SQLite: due work claimed under a lease with a fencing token. One
//! crawler holds the file, so the lease guards against a crawler restarted while its
//! predecessor's claims are still open; the clock is that process's.

use std::time::{Duration, Instant, SystemTime};

use gleaner_policy::Purpose;
use rusqlite::{OptionalExtension, params};
use url::Url;

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};
use crate::model::{SiteLease, WorkItem, WorkLease};

#[async_trait::async_trait]
impl crate::backend::FrontierBackend for Sqlite {
    /// Claims up to `limit` due items whose lease is free or expired.
    async fn claim_work(
        &self,
        worker: &str,
        limit: u32,
        lease: Duration,
        now: SystemTime,
    ) -> Result<Vec<WorkLease>, StoreError> {
        let claimed_at = Instant::now();
        let worker = worker.to_owned();
        self.write(
            || "claiming work".to_owned(),
            move |tx| {
                let doing = || "claiming work".to_owned();
                let clock = codec::to_ms(SystemTime::now());
                let until = clock.saturating_add(codec::duration_ms(lease));
                let mut st = tx
                    .prepare(
                        "SELECT id, site, url, purpose, source FROM frontier
                         WHERE done_ms IS NULL AND due_ms <= ?1
                             AND (lease_until_ms IS NULL OR lease_until_ms <= ?2)
                         ORDER BY due_ms, id LIMIT ?3",
                    )
                    .doing(doing)?;
                let rows = st
                    .query_map(params![codec::to_ms(now), clock, limit], |r| {
                        Ok((
                            r.get::<_, i64>(0)?,
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(3)?,
                            r.get::<_, Option<String>>(4)?,
                        ))
                    })
                    .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                    .doing(doing)?;
                let mut leases = Vec::new();
                for (id, site, url, purpose, source) in rows {
                    let token: i64 = tx
                        .query_row(
                            "UPDATE meta SET value = value + 1 WHERE key = 'work_fence' RETURNING value",
                            [],
                            |r| r.get(0),
                        )
                        .doing(doing)?;
                    tx.execute(
                        "UPDATE frontier SET lease_owner = ?2, lease_token = ?3, lease_until_ms = ?4
                         WHERE id = ?1",
                        params![id, worker, token, until],
                    )
                    .doing(doing)?;
                    let (Some(purpose), Ok(url)) = (Purpose::from_name(&purpose), Url::parse(&url))
                    else {
                        continue;
                    };
                    leases.push(WorkLease {
                        id,
                        item: WorkItem { site, url, purpose, source },
                        token,
                        valid_for: lease,
                        claimed_at,
                    });
                }
                Ok(leases)
            },
        )
        .await
    }

    /// Extends a current, unexpired claim by `extend` from now.
    async fn renew_work(
        &self,
        _worker: &str,
        lease: &WorkLease,
        extend: Duration,
        _worker_lease: Duration,
    ) -> Result<Option<WorkLease>, StoreError> {
        let sent = Instant::now();
        let (id, token) = (lease.id, lease.token);
        let renewed = self
            .write(
                move || format!("renewing work item {id}"),
                move |tx| {
                    let now = codec::to_ms(SystemTime::now());
                    tx.execute(
                        "UPDATE frontier SET lease_until_ms = ?4
                         WHERE id = ?1 AND lease_token = ?2 AND done_ms IS NULL
                             AND lease_until_ms > ?3",
                        params![id, token, now, now.saturating_add(codec::duration_ms(extend))],
                    )
                    .map(|n| n == 1)
                    .doing(|| format!("renewing work item {id}"))
                },
            )
            .await?;
        Ok(renewed.then(|| WorkLease { valid_for: extend, claimed_at: sent, ..lease.clone() }))
    }

    /// Leases `site` to `worker` (the rules of the PostgreSQL backend, on this clock).
    async fn claim_site(
        &self,
        worker: &str,
        site: &str,
        lease: Duration,
        grace: Duration,
    ) -> Result<Option<SiteLease>, StoreError> {
        let claimed_at = Instant::now();
        let (worker, site) = (worker.to_owned(), site.to_owned());
        let shown = site.clone();
        self.write(
            move || format!("leasing `{shown}`"),
            move |tx| {
                let doing = || format!("leasing `{site}`");
                let now = codec::to_ms(SystemTime::now());
                let fresh: i64 = tx
                    .query_row(
                        "UPDATE meta SET value = value + 1 WHERE key = 'work_fence' RETURNING value",
                        [],
                        |r| r.get(0),
                    )
                    .doing(doing)?;
                let until = now.saturating_add(codec::duration_ms(lease));
                let token: Option<i64> = tx
                    .query_row(
                        "INSERT INTO site_leases (site, worker, token, lease_until_ms)
                         VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (site) DO UPDATE SET
                             token = CASE WHEN site_leases.worker = excluded.worker
                                 AND site_leases.lease_until_ms > ?5
                                 THEN site_leases.token ELSE excluded.token END,
                             worker = excluded.worker, lease_until_ms = excluded.lease_until_ms
                         WHERE (site_leases.worker = excluded.worker AND site_leases.lease_until_ms > ?5)
                             OR site_leases.lease_until_ms + ?6 <= ?5
                         RETURNING token",
                        params![site, worker, fresh, until, now, codec::duration_ms(grace)],
                        |r| r.get(0),
                    )
                    .optional()
                    .doing(doing)?;
                Ok(token.map(|token| SiteLease { site, token, valid_for: lease, claimed_at }))
            },
        )
        .await
    }
}
