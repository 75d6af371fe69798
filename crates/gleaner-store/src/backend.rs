//! What each backend writes in its own SQL, one trait per domain, so the compiler keeps
//! SQLite and PostgreSQL in step: a method added to a trait does not build until both
//! backends have it. Everything that means the same on both is written once on
//! [`crate::sql::Db`] instead (`content`, `registry`, `events`, `audit`, `relay`, `llm`,
//! `owners`); what stays here differs in substance: the gate's locking (`BEGIN
//! IMMEDIATE` against `SELECT … FOR UPDATE` with per-worker in-flight counts), leases
//! (the process clock against `FOR UPDATE SKIP LOCKED` on the database clock), the audit
//! batch writers, the event write's fence and locks, and removal (`secure_delete` and a
//! WAL checkpoint against every copy sharing a namespace).

use std::time::{Duration, SystemTime};

use async_trait::async_trait;
use gleaner_policy::audit::AuditRecord;
use gleaner_policy::budget::GlobalBudget;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::{BoxFuture, Change, SiteState};

use crate::StoreError;
use crate::model::{EventWrite, RemovalReport, SiteLease, Upserted, WorkLease};
use crate::registry::{RegistryGuard, RegistrySeen};

/// The gate's state: a site's budget and robots.txt, read and changed under a lock.
#[async_trait]
pub(crate) trait GateBackend {
    /// Applies `change` to a site's state and the global budget for `worker`, committed
    /// before it returns (SQLite has one crawling process and ignores `worker`). With
    /// `leased`, the change sees that view of the global budget (this process's leased
    /// block of the daily cap, `crate::daily_cap`) and the shared row is neither locked
    /// nor written. With `guard`, a change that reserves a request commits only while
    /// the registry's rules for the site are those the request was decided on
    /// (`crate::registry::check_registry`, [`StoreError::RegistryMovedForSite`]
    /// otherwise); what the update saw of the registry is returned for its cache.
    async fn update_site(
        &self,
        site: &str,
        worker: &str,
        change: Change<'_>,
        leased: Option<&mut GlobalBudget>,
        guard: Option<&RegistryGuard>,
    ) -> Result<RegistrySeen, StoreError>;

    /// A copy of a site's gate state.
    async fn site_state(&self, site: &str) -> Result<Option<SiteState>, StoreError>;
}

/// Claims on the frontier and the site leases (SPEC §7), on each backend's clock;
/// queueing and releasing are written once (`Store::enqueue_work`, `CrawlerState`).
#[async_trait]
pub(crate) trait FrontierBackend {
    /// Claims up to `limit` items due at `now` for `worker`, each for `lease`.
    async fn claim_work(
        &self,
        worker: &str,
        limit: u32,
        lease: Duration,
        now: SystemTime,
    ) -> Result<Vec<WorkLease>, StoreError>;

    /// Extends a current claim by `extend`, renewing `worker`'s lease to `worker_lease`
    /// first (PostgreSQL); `None` when the claim was lost.
    async fn renew_work(
        &self,
        worker: &str,
        lease: &WorkLease,
        extend: Duration,
        worker_lease: Duration,
    ) -> Result<Option<WorkLease>, StoreError>;

    /// Leases `site` to `worker`; `None` while another worker holds it.
    async fn claim_site(
        &self,
        worker: &str,
        site: &str,
        lease: Duration,
        grace: Duration,
    ) -> Result<Option<SiteLease>, StoreError>;
}

/// The audit log: each backend's batch writer behind the one queue.
pub(crate) trait AuditBackend {
    /// The queue to this backend's [`AuditWriter`].
    fn audit(&self) -> &crate::audit::AuditQueue;
}

/// The audit log's batch writer, run on a thread of its own by [`crate::audit::AuditQueue`].
pub(crate) trait AuditWriter: Send + 'static {
    /// Writes one batch of records and validators (at most one per URL), all or none.
    /// A failure must not stop the crawl: the writer tries again as it sees fit, then
    /// drops the batch.
    fn write<'a>(
        &'a mut self,
        batch: &'a [AuditRecord],
        validators: &'a [crate::audit::ValidatorsWrite],
    ) -> BoxFuture<'a, ()>;
}

/// Storing a source's reading of an event.
#[async_trait]
pub(crate) trait EventsBackend {
    /// Stores a reading (`crate::merge`), only while `fence` is current when given, and
    /// only while the registry is at `registry` (the version `write.keep` was decided
    /// at; [`StoreError::RegistryMoved`] otherwise), read in the same transaction.
    async fn upsert_event_fenced(
        &self,
        write: &EventWrite<'_>,
        fence: Option<&WorkLease>,
        registry: i64,
    ) -> Result<Upserted, StoreError>;
}

/// Removal and the database's own check.
#[async_trait]
pub(crate) trait RetentionBackend {
    /// Deletes a site's content and records the removal.
    async fn remove_site(
        &self,
        scope: Scope,
        reference: String,
        now: SystemTime,
    ) -> Result<RemovalReport, StoreError>;

    /// The database's consistency check (`ok` when sound).
    async fn integrity_check(&self) -> Result<String, StoreError>;
}

/// What the processes sharing one database agree on. SQLite has one crawling process,
/// which keeps these in memory or on the machine's clock.
#[async_trait]
pub(crate) trait SharedBackend {
    /// The clock every process agrees on.
    async fn database_time(&self) -> Result<SystemTime, StoreError>;

    /// Moves whenever the owners' registry may have changed in another process.
    fn registry_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>>;

    /// Takes one from `key`'s shared allowance of `cap` for `day`; `None` when every
    /// process counts for itself.
    async fn take_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
        cap: u32,
    ) -> Result<Option<bool>, StoreError>;

    /// Gives one back to `key`'s shared allowance for `day`.
    async fn give_back_daily(&self, key: &str, day: chrono::NaiveDate) -> Result<(), StoreError>;
}

/// A whole backend: every domain's trait, and [`crate::sql::Db`] for the shared half.
pub(crate) trait Backend:
    crate::sql::Db
    + GateBackend
    + FrontierBackend
    + AuditBackend
    + EventsBackend
    + RetentionBackend
    + SharedBackend
{
}

impl<T> Backend for T where
    T: crate::sql::Db
        + GateBackend
        + FrontierBackend
        + AuditBackend
        + EventsBackend
        + RetentionBackend
        + SharedBackend
{
}
