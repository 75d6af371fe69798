//! The frontier on SQLite: due work claimed under a lease with a fencing token. One
//! crawler holds the file, so the lease guards against a crawler restarted while its
//! predecessor's claims are still open; the clock is that process's.

use std::time::{Duration, Instant, SystemTime};

use gleaner_policy::Purpose;
use url::Url;

use super::Sqlite;
use crate::codec;
use crate::error::StoreError;
use crate::model::{SiteLease, WorkItem, WorkLease};
use crate::sql::{Db, params, returned};

/// Takes the next fencing token (shared by work items and site leases).
const NEXT_FENCE: &str =
    "UPDATE meta SET value = value + 1 WHERE key = 'work_fence' RETURNING value";

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
        let db: &dyn Db = self;
        db.tx("claiming work".into(), move |tx| {
            Box::pin(async move {
                let clock = SystemTime::now();
                let until = codec::to_ms(clock).saturating_add(codec::duration_ms(lease));
                let rows = tx
                    .rows(
                        "SELECT id, site, url, purpose, source FROM frontier
                         WHERE done_ms IS NULL AND due_ms <= $1
                             AND (lease_until_ms IS NULL OR lease_until_ms <= $2)
                         ORDER BY due_ms, id LIMIT $3",
                        params![now, clock, limit],
                    )
                    .await?;
                let mut leases = Vec::new();
                for r in rows {
                    let id: i64 = r.get(0)?;
                    let token: i64 = returned(tx.run(NEXT_FENCE, params![]).await?, "a token")?;
                    let sql = "UPDATE frontier SET lease_owner = $2, lease_token = $3,
                                   lease_until_ms = $4 WHERE id = $1";
                    tx.exec(sql, params![id, &worker, token, until]).await?;
                    let purpose = Purpose::from_name(&r.get::<String>(3)?);
                    let (Some(purpose), Ok(url)) = (purpose, Url::parse(&r.get::<String>(2)?))
                    else {
                        continue;
                    };
                    let item = WorkItem { site: r.get(1)?, url, purpose, source: r.get(4)? };
                    leases.push(WorkLease { id, item, token, valid_for: lease, claimed_at });
                }
                Ok(leases)
            })
        })
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
        let db: &dyn Db = self;
        let renewed = db
            .tx(format!("renewing work item {id}"), move |tx| {
                Box::pin(async move {
                    let now = codec::to_ms(SystemTime::now());
                    let until = now.saturating_add(codec::duration_ms(extend));
                    let sql = "UPDATE frontier SET lease_until_ms = $4
                               WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL
                                   AND lease_until_ms > $3";
                    Ok(tx.exec(sql, params![id, token, now, until]).await? == 1)
                })
            })
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
        let db: &dyn Db = self;
        db.tx(format!("leasing `{site}`"), move |tx| {
            Box::pin(async move {
                let now = codec::to_ms(SystemTime::now());
                let fresh: i64 = returned(tx.run(NEXT_FENCE, params![]).await?, "a token")?;
                let until = now.saturating_add(codec::duration_ms(lease));
                let row = tx
                    .row(
                        "INSERT INTO site_leases (site, worker, token, lease_until_ms)
                         VALUES ($1, $2, $3, $4)
                         ON CONFLICT (site) DO UPDATE SET
                             token = CASE WHEN site_leases.worker = excluded.worker
                                 AND site_leases.lease_until_ms > $5
                                 THEN site_leases.token ELSE excluded.token END,
                             worker = excluded.worker, lease_until_ms = excluded.lease_until_ms
                         WHERE (site_leases.worker = excluded.worker AND site_leases.lease_until_ms > $5)
                             OR site_leases.lease_until_ms + $6 <= $5
                         RETURNING token",
                        params![&site, worker, fresh, until, now, codec::duration_ms(grace)],
                    )
                    .await?;
                let token: Option<i64> = row.map(|r| r.get(0)).transpose()?;
                Ok(token.map(|token| SiteLease { site, token, valid_for: lease, claimed_at }))
            })
        })
        .await
    }
}
