//! What `gleaner worker` needs beyond the frontier's claims (issue 17, SPEC §7):
//! claims taken and renewed together with the worker's own lease, and event writes
//! committed only under the current fencing token.
//!
//! Why the worker's lease is renewed with each claim: a request started under a claim
//! counts in flight only while the worker's lease lives. Renewing the worker's lease
//! (to at least the claim's length) *before* the claim is sent, and measuring the claim
//! on the monotonic clock from just before it was sent, means that whenever
//! [`WorkLease::may_start`] says yes, the worker's lease outlives the claim, so the
//! request keeps counting until it is surely over.

use std::time::{Duration, SystemTime};

use crate::model::{EventWrite, Upserted, WorkLease};
use crate::sql::params;
use crate::{Backend, CrawlerState, Store, StoreError};

impl Store {
    /// Deletes queue items finished before `before` (the scheduler calls it with its
    /// daily retention; one row per pass would otherwise pile up). Returns how many.
    pub async fn prune_work(&self, before: SystemTime) -> Result<u64, StoreError> {
        let sql = "DELETE FROM frontier WHERE done_ms IS NOT NULL AND done_ms < $1";
        self.db().exec(sql, params![before], "deleting finished work".into()).await
    }

    /// Queued items not done yet: due later, due now, or claimed by a worker.
    pub async fn pending_work(&self) -> Result<u64, StoreError> {
        let sql = "SELECT count(*) FROM frontier WHERE done_ms IS NULL";
        let row = self.db().row(sql, params![], "counting queued work".into()).await?;
        Ok(row.map(|r| r.get::<i64>(0)).transpose()?.unwrap_or(0).max(0) as u64)
    }
}

impl CrawlerState {
    /// Renews this worker's lease to `worker_lease` (PostgreSQL; give it at least
    /// `lease`), then claims up to `limit` items due at `now` for `lease`
    /// ([`CrawlerState::claim_work`]).
    pub async fn claim_work_alive(
        &self,
        limit: u32,
        lease: Duration,
        worker_lease: Duration,
        now: SystemTime,
    ) -> Result<Vec<WorkLease>, StoreError> {
        if let Backend::Postgres(db) = &*self.store.backend {
            db.heartbeat(&self.worker, worker_lease).await?;
        }
        self.claim_work(limit, lease, now).await
    }

    /// Extends a claim by `extend` from now (database clock) while it is current and
    /// unexpired, renewing this worker's lease to `worker_lease` first; `None` when the
    /// claim was lost (it expired, or another worker holds the item now). The returned
    /// lease is measured from just before the renewal was sent.
    pub async fn renew_work(
        &self,
        lease: &WorkLease,
        extend: Duration,
        worker_lease: Duration,
    ) -> Result<Option<WorkLease>, StoreError> {
        self.store.backend().renew_work(&self.worker, lease, extend, worker_lease).await
    }

    /// [`crate::Store::upsert_event`] for a worker: committed only while `lease` is the
    /// current, unexpired claim of its item, checked in the same transaction; otherwise
    /// [`StoreError::FencedOut`] and nothing is written (a stale holder's results never
    /// overwrite the current holder's).
    pub async fn upsert_event_fenced(
        &self,
        write: &EventWrite<'_>,
        lease: &WorkLease,
    ) -> Result<Upserted, StoreError> {
        self.store.upsert_event_checked(write, Some(lease)).await
    }
}
