//! The only code in gleaner that writes SQL.
//!
//! The store keeps what gleaner must not lose or forget (SPEC §1 and §3): the gate's
//! per-site budget and robots.txt state, committed before each request is sent; owners'
//! opt-outs and overrides; the audit log; the archive of robots.txt and terms pages;
//! events with their status history and provenance; news items; validators; fetched
//! bodies and parser samples; translations. It applies retention ([`Store::purge`]) and
//! removal ([`Store::remove_site`]).
//!
//! It leaves every decision to others: the gate (in `gleaner-fetch`) decides, the
//! policy crate computes, the store keeps.
//!
//! # Layout
//! - [`Store`]: the backend-agnostic handle every caller uses;
//! - [`CrawlerState`]: the gate's state ([`GateState`]) for one crawling process (on
//!   SQLite the one holding the crawler lease; on PostgreSQL one of many workers);
//!   [`Store`] itself is the gate's [`Registry`] and [`AuditSink`];
//! - [`model`]: the values going in and out;
//! - `sql`: the dialect layer (`Db`, `Tx`, `Value`, `Row`, `Dialect`): every statement
//!   that means the same on both databases is written once, on it, in the domain
//!   modules `content`, `registry`, `events`, `audit`, `relay`, `llm`, `owners` and
//!   `workers`;
//! - `backend`: one trait per domain whose SQL differs in substance (gate state,
//!   frontier and leases, the audit batch writer, the event write, removal, and what
//!   processes sharing a database agree on), implemented by both backends; [`Store`]
//!   calls them through `Store::backend()`, so a method missing on one backend does not
//!   compile;
//! - `codec`: policy and event values as columns; `merge`: the event upsert plan;
//!   `registry`: also the registry version cache, one for both backends;
//! - `sqlite`: the SQLite backend and its migrations (`migrations/sqlite`; every applied
//!   one is a row of `schema_migrations`, and every known one without a row is applied
//!   on open, so a migration numbered below one already applied still arrives);
//! - `postgres`: the PostgreSQL backend and its migrations (`migrations/postgres`).
//!
//! # Why rusqlite and tokio-postgres behind one trait, not sqlx
//! SQLite is driven through rusqlite (bundled SQLite) on tokio's blocking pool: the gate's
//! state trait hands us a non-`'static` closure that must run inside one `BEGIN
//! IMMEDIATE` transaction, which is plain with a connection we own and awkward through
//! sqlx's pool; rusqlite also gives direct access to `secure_delete`, checkpoints and
//! `integrity_check`, and builds faster. PostgreSQL (issue 17) is driven through
//! `tokio-postgres` with a `deadpool-postgres` pool, for the same reason: a transaction
//! is a value we hold across the closure, statements are prepared once per connection,
//! and no second TLS stack or macro crate is compiled. A shared transaction body is an
//! async function over `sql::Tx`: on PostgreSQL it awaits the driver; on SQLite it runs
//! on the blocking pool and completes in one poll, since rusqlite never waits. Callers
//! only see [`Store`]; the integration tests run the same bodies on both backends
//! (`tests/it/util.rs`).
//!
//! # One budget per site across processes
//! - SQLite: one crawling process per database file (the crawler lease, an OS file
//!   lock); other processes (`gleaner optout`, the server) read and write freely, and
//!   each update is one `BEGIN IMMEDIATE` transaction.
//! - PostgreSQL: any number of workers. Each update locks the site's row (`SELECT …
//!   FOR UPDATE`) for one transaction of two round trips, so every worker sees the
//!   previous one's reservation.
//! - The global daily cap: a crawler ([`CrawlerState::lease_daily_cap`], as `gleaner
//!   run` wires it) takes it in leased blocks (`daily_cap`), so no reservation locks the
//!   shared `global_budget` row; without a lease (`gleaner fetch`) each update locks and
//!   writes that row as well. In-flight requests are counted per
//!   worker and only while the worker's lease on the database clock holds (a heartbeat
//!   renews it), so a worker that dies stops holding the in-flight cap within its lease
//!   (30 s by default, [`Store::claim_worker`]), and no worker clears another's requests.

pub mod model;

mod audit;
mod backend;
mod clock;
mod codec;
mod content;
mod daily_cap;
mod error;
mod events;
mod kept;
mod merge;
mod owners;
mod postgres;
mod registry;
mod sql;
mod sqlite;
mod workers;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::budget::GlobalBudget;
use gleaner_policy::registry::{OwnerRules, Registry, Scope};
use gleaner_policy::state::{BoxFuture, Change, GateState, SiteState, StateError};
use url::Url;

use crate::sql::params;

pub use error::StoreError;
pub use kept::KeptRequest;
pub use model::StoredNews;
pub use model::{
    ArchivedDocument, AuditEntry, DocumentKind, EventWrite, Keep, NewsItem, OwnerRecord,
    Provenance, PurgeReport, RemovalReport, RetentionPolicy, SiteLease, StatusChange, StoredEvent,
    Upserted, WorkItem, WorkLease,
};
pub use owners::{OwnerSubmission, SourceControl};
pub use postgres::layout::{PgSchemas, is_identifier as is_schema_name};

#[derive(Debug)]
enum Backend {
    Sqlite(sqlite::Sqlite),
    Postgres(postgres::Postgres),
}

/// Which database a [`Store`] uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// One SQLite file (the default: no setup).
    Sqlite,
    /// A PostgreSQL database shared by workers (SPEC §7).
    Postgres,
}

mod relay;
pub use relay::{RelayImage, SiteRightsFiles, Takedown};

mod llm;
pub use llm::{LlmUsage, ModelStep, PendingTranslation, TranslationPart};

/// A handle on the store. Cheap to clone; every clone shares the connections.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Arc<Backend>,
    /// The owners' registry as last read (`registry`), shared by every clone.
    registry: Arc<registry::RegistryCache>,
}

impl Store {
    fn new(backend: Backend) -> Store {
        Store { backend: Arc::new(backend), registry: Arc::default() }
    }

    /// Opens the store at a configured URL, creating and migrating it: `sqlite://PATH`,
    /// or `postgres://USER[:PASSWORD]@HOST:PORT/DATABASE` (also `postgresql://`; the
    /// database must exist).
    pub fn open(url: &str) -> Result<Store, StoreError> {
        Store::open_in(url, &PgSchemas::default())
    }

    /// Opens the store at `url` as [`Store::open`] does; on PostgreSQL, in the schemas
    /// `schemas` names (a copy sharing a politeness namespace with other copies). A
    /// SQLite store is always one whole store: other schemas are an error.
    pub fn open_in(url: &str, schemas: &PgSchemas) -> Result<Store, StoreError> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let db = postgres::Postgres::open(url, schemas)?;
            return Ok(Store::new(Backend::Postgres(db)));
        }
        if *schemas != PgSchemas::default() {
            return Err(StoreError::SchemasNeedPostgres { url: url.to_owned() });
        }
        match url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) {
            Some(path) if !path.is_empty() => Store::open_sqlite(Path::new(path)),
            _ => Err(StoreError::UnsupportedUrl { url: url.to_owned() }),
        }
    }

    /// The active backend, for the operations written once (`sql`).
    pub(crate) fn db(&self) -> &dyn sql::Db {
        match &*self.backend {
            Backend::Sqlite(db) => db,
            Backend::Postgres(db) => db,
        }
    }

    /// The active backend, for the operations each writes in its own SQL (`backend`).
    pub(crate) fn backend(&self) -> &dyn backend::Backend {
        match &*self.backend {
            Backend::Sqlite(db) => db,
            Backend::Postgres(db) => db,
        }
    }

    /// Which database this store uses.
    pub fn kind(&self) -> BackendKind {
        match &*self.backend {
            Backend::Sqlite(_) => BackendKind::Sqlite,
            Backend::Postgres(_) => BackendKind::Postgres,
        }
    }

    /// Opens (creating and migrating) a SQLite database file.
    pub fn open_sqlite(path: &Path) -> Result<Store, StoreError> {
        let db = sqlite::Sqlite::open(path)?;
        Ok(Store::new(Backend::Sqlite(db)))
    }

    /// How many SQL statements this handle's SQLite connections have run (`BEGIN` and
    /// `COMMIT` included), for the benches' statements per page; `None` on PostgreSQL,
    /// whose round trips are counted on the wire instead (`benches/store_scale.rs` in
    /// `gleaner-scheduler`).
    pub fn statements_run(&self) -> Option<u64> {
        match &*self.backend {
            Backend::Sqlite(db) => Some(db.statements_run()),
            Backend::Postgres(_) => None,
        }
    }

    /// A short description of where the data lives, for messages.
    pub fn location(&self) -> String {
        match &*self.backend {
            Backend::Sqlite(db) => db.path().display().to_string(),
            Backend::Postgres(db) => db.location().to_owned(),
        }
    }

    /// The gate's state for an occasional process (`gleaner fetch`): it shares every
    /// site's budget with the crawler, reserving before each request like the crawler
    /// does, but takes no lease and clears nothing, so it runs beside `gleaner run`. On
    /// PostgreSQL it registers a worker as [`Store::claim_crawler`] does. A manual check
    /// killed mid-request leaves its in-flight count until the next crawler starts.
    pub async fn occasional_state(&self) -> Result<CrawlerState, StoreError> {
        match &*self.backend {
            Backend::Sqlite(_) => Ok(CrawlerState {
                store: self.clone(),
                _lease: None,
                reset: 0,
                worker: format!("occasional-{}", std::process::id()),
                heartbeat: None,
                cap: None,
            }),
            Backend::Postgres(_) => self.claim_crawler().await,
        }
    }

    /// Starts crawling with this store.
    ///
    /// On SQLite this takes the crawler lease: only one process crawls with a database
    /// file at a time (a second one gets [`StoreError::CrawlerRunning`]), and requests
    /// left in flight by a crawler that died are over, so their in-flight counters are
    /// cleared. Other processes (`gleaner optout`, `remove`, the server) keep using the
    /// store freely.
    ///
    /// On PostgreSQL any number of workers crawl together: this registers a worker with
    /// a 30 s lease on the database clock, renewed five times per lease by a task on the
    /// caller's runtime while the [`CrawlerState`] lives, and clears the in-flight
    /// requests of workers whose lease expired (dead ones). See
    /// [`Store::claim_worker`] to choose the lease.
    pub async fn claim_crawler(&self) -> Result<CrawlerState, StoreError> {
        self.claim_worker(postgres::WORKER_LEASE).await
    }

    /// [`Store::claim_crawler`] with the worker lease used on PostgreSQL (ignored on
    /// SQLite). Give it at least the connect timeout plus the response deadline (and a
    /// margin): a worker cut off from the database mid-request must still count that
    /// request until it is surely over; a dead worker holds the in-flight cap of the sites
    /// it was fetching from for up to this long.
    pub async fn claim_worker(&self, lease: Duration) -> Result<CrawlerState, StoreError> {
        let path = match &*self.backend {
            Backend::Sqlite(db) => db.path().to_owned(),
            Backend::Postgres(db) => {
                let worker = postgres::new_worker_id();
                let reset = db.register_worker(&worker, lease).await?;
                let store = self.clone();
                let id = worker.clone();
                let heartbeat = tokio::spawn(async move {
                    let mut tick = tokio::time::interval(lease / 5);
                    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                    loop {
                        tick.tick().await;
                        if let Backend::Postgres(db) = &*store.backend {
                            // A missed beat is retried at the next tick; the lease
                            // outlasts several.
                            let _ = db.heartbeat(&id, lease).await;
                        }
                    }
                });
                return Ok(CrawlerState {
                    store: self.clone(),
                    _lease: None,
                    reset,
                    worker,
                    heartbeat: Some(heartbeat.abort_handle()),
                    cap: None,
                });
            }
        };
        let lock = lock_path(&path);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock)
            .map_err(|source| StoreError::Lock { path: lock.clone(), source })?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(StoreError::CrawlerRunning {
                    path: PathBuf::from(self.location()),
                    lock,
                });
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(StoreError::Lock { path: lock, source });
            }
        }
        let reset = match &*self.backend {
            Backend::Sqlite(db) => db.reset_in_flight().await?,
            Backend::Postgres(_) => 0,
        };
        Ok(CrawlerState {
            store: self.clone(),
            _lease: Some(file),
            reset,
            worker: postgres::new_worker_id(),
            heartbeat: None,
            cap: None,
        })
    }

    /// Queues due work in the shared frontier, unless the same URL and purpose is
    /// already pending; true when queued. Workers claim it with
    /// [`CrawlerState::claim_work`].
    pub async fn enqueue_work(&self, item: &WorkItem, due: SystemTime) -> Result<bool, StoreError> {
        let url = item.url.as_str();
        let sql = "INSERT INTO frontier (site, host, url, purpose, source, due_ms)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (url, purpose) WHERE done_ms IS NULL DO NOTHING";
        let host = codec::host_of(url);
        let params = params![&item.site, host, url, item.purpose.as_str(), &item.source, due];
        Ok(self.db().exec(sql, params, format!("queueing `{url}`")).await? > 0)
    }

    /// The clock every process of a deployment agrees on: on PostgreSQL the database
    /// server's, on SQLite (one process) this machine's.
    pub async fn database_time(&self) -> Result<SystemTime, StoreError> {
        self.backend().database_time().await
    }

    /// Moves whenever the owners' registry may have changed in another process: on
    /// PostgreSQL, `LISTEN gleaner_registry` (the listener starts with the first call, on
    /// the caller's runtime); `None` on SQLite, where one process owns the file and the
    /// version check before each request sees every change. The check stays the
    /// guarantee; this only wakes waiting requests sooner.
    pub fn registry_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        self.backend().registry_changes()
    }

    /// Takes one from `key`'s shared allowance of `cap` for `day` (a link check at a
    /// host): `Ok(None)` on SQLite, where one process counts in memory; on PostgreSQL
    /// `Some(false)` when every process together has used it up.
    pub async fn take_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
        cap: u32,
    ) -> Result<Option<bool>, StoreError> {
        self.backend().take_daily(key, day, cap).await
    }

    /// Gives one back to `key`'s shared allowance for `day` (PostgreSQL; nothing on
    /// SQLite).
    pub async fn give_back_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
    ) -> Result<(), StoreError> {
        self.backend().give_back_daily(key, day).await
    }

    /// A copy of a site's gate state (for `explain` and the dashboard).
    pub async fn site_state(&self, site: &str) -> Result<Option<SiteState>, StoreError> {
        self.backend().site_state(site).await
    }

    /// Waits until every audit record handed to [`AuditSink::record`] so far is written.
    pub async fn flush_audit(&self) -> Result<(), StoreError> {
        self.backend().audit().flush().await
    }

    /// Archives a terms page (or any document) version when it changed; true when a new
    /// version was stored. robots.txt versions are archived automatically when the
    /// gate stores them.
    pub async fn archive_document(
        &self,
        site: &str,
        kind: DocumentKind,
        url: &str,
        body: Vec<u8>,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let (site, url) = (site.to_owned(), url.to_owned());
        let doing = format!("archiving a document of `{site}`");
        self.db()
            .tx(doing, move |tx| {
                Box::pin(async move { audit::archive(tx, &site, kind, &url, &body, now).await })
            })
            .await
    }

    /// Stores a source's reading of an event: it joins the stored event it is the same
    /// event as (same own page, or same venue, folded title and instant; never one whose
    /// own page or ticket address differs), which becomes the merge of every source's
    /// reading (`gleaner_event::merge`), or it is a new event. A status-history row is
    /// added when the status changed; the fetch, with its reading and extractor, is added
    /// to the event's provenance.
    /// An owner's "facts only" for the page overrides `write.keep`.
    pub async fn upsert_event(&self, write: &EventWrite<'_>) -> Result<Upserted, StoreError> {
        self.upsert_event_checked(write, None).await
    }

    /// Stores `write`, fenced by `fence` when given, under an owner's "facts only" as the
    /// registry stands when it commits: decided from the registry as last read and
    /// checked in the write's transaction; once more from a fresh read when it moved.
    pub(crate) async fn upsert_event_checked(
        &self,
        write: &EventWrite<'_>,
        fence: Option<&WorkLease>,
    ) -> Result<Upserted, StoreError> {
        let mut attempt = 0;
        loop {
            let mut write = *write;
            let (facts_only, version) = self.facts_only(write.fetched_url).await?;
            if write.keep == Keep::Full && facts_only {
                write.keep = Keep::Facts;
            }
            match self.backend().upsert_event_fenced(&write, fence, version).await {
                Err(StoreError::RegistryMoved { .. }) if attempt == 0 => {
                    self.reread_registry().await;
                    attempt += 1;
                }
                result => return result,
            }
        }
    }

    /// Deletes a site's content (events, descriptions, image addresses, translations,
    /// news, bodies, samples, validators) in one transaction, records the request with
    /// its completion time, adds an opt-out and a sample exclusion. On SQLite it then
    /// checkpoints the WAL so, with `secure_delete`, the bytes are gone from the files;
    /// on PostgreSQL the rows are gone at commit and their space is reclaimed by
    /// (auto)vacuum. The audit log and the robots.txt archive stay: they record
    /// gleaner's own behaviour.
    pub async fn remove_site(
        &self,
        scope: Scope,
        reference: &str,
        now: SystemTime,
    ) -> Result<RemovalReport, StoreError> {
        // Validators queued before the removal are written first, so none outlives it.
        self.flush_audit().await?;
        self.backend().remove_site(scope, reference.to_owned(), now).await
    }

    /// The database's own consistency check (`ok` when sound): SQLite's
    /// `integrity_check`; on PostgreSQL, that the database answers with this build's
    /// schema version.
    pub async fn integrity_check(&self) -> Result<String, StoreError> {
        self.backend().integrity_check().await
    }
}

fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-crawler.lock");
    PathBuf::from(name)
}

/// Parses a site argument (`example.org` or a URL prefix) into a scope.
pub fn parse_scope(site: &str) -> Result<Scope, StoreError> {
    let scope = if site.contains("://") { Scope::url_prefix(site) } else { Scope::domain(site) };
    scope.ok_or_else(|| StoreError::BadScope(site.to_owned()))
}

impl Registry for Store {
    fn lookup<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, OwnerRules> {
        Box::pin(async move { fail_closed(self.owner_rules_for_gate(url).await) })
    }

    fn lookup_again<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, OwnerRules> {
        Box::pin(async move { fail_closed(self.owner_rules_for_gate(url).await) })
    }
}

/// Fail closed: when the registry cannot be read, nothing is fetched.
fn fail_closed(rules: Result<OwnerRules, StoreError>) -> OwnerRules {
    rules.unwrap_or_else(|error| OwnerRules {
        opted_out: Some(format!("registry unreadable: {error}")),
        slowdown: 1,
        ..OwnerRules::default()
    })
}

impl AuditSink for Store {
    /// Queues the record for the batch writer (written within milliseconds; call
    /// [`Store::flush_audit`] to wait for it).
    fn record(&self, record: AuditRecord) {
        self.backend().audit().record(record)
    }
}

/// The gate's state for one crawling process (see [`Store::claim_crawler`]). On SQLite
/// it holds the crawler lease, an OS file lock released when the process ends, however
/// it ends. On PostgreSQL it is a worker whose lease a heartbeat renews while this value
/// lives; dropping it ends the heartbeat, and the lease expires on the database clock.
#[derive(Debug)]
pub struct CrawlerState {
    store: Store,
    _lease: Option<File>,
    reset: u64,
    worker: String,
    heartbeat: Option<tokio::task::AbortHandle>,
    /// This process's block of the global daily cap, once [`CrawlerState::lease_daily_cap`]
    /// turned leasing on.
    cap: Option<Arc<tokio::sync::Mutex<CapLease>>>,
}

/// A block of the global daily cap held by one process (`daily_cap`).
#[derive(Debug)]
struct CapLease {
    /// The daily cap, from the settings.
    cap: u32,
    /// How many to take at a time.
    block: u32,
    /// The day the units are of.
    day: Option<chrono::NaiveDate>,
    /// Units held and not yet used.
    left: u32,
    /// The store had none left when last asked: ask again after this.
    dry_until: Option<std::time::Instant>,
}

/// How long a process whose lease came back empty waits before asking again (another
/// process may give its unused block back).
const DRY_RETRY: Duration = Duration::from_secs(10);

impl Drop for CrawlerState {
    /// Ends the heartbeat and, on a live runtime, the worker's lease at once (its
    /// requests are over: the gate that used this state is gone). Without a runtime the
    /// lease simply expires.
    fn drop(&mut self) {
        // The unused units of the daily cap go back (a process killed instead keeps
        // them for the day: the cap is met that many requests early).
        if let (Some(cap), Ok(runtime)) = (self.cap.take(), tokio::runtime::Handle::try_current()) {
            let store = self.store.clone();
            runtime.spawn(async move {
                let _ = give_back_lease(&store, &cap).await;
            });
        }
        if let Some(heartbeat) = self.heartbeat.take() {
            heartbeat.abort();
            if let (Backend::Postgres(_), Ok(runtime)) =
                (&*self.store.backend, tokio::runtime::Handle::try_current())
            {
                let store = self.store.clone();
                let worker = std::mem::take(&mut self.worker);
                runtime.spawn(async move {
                    if let Backend::Postgres(db) = &*store.backend {
                        let _ = db.release_worker(&worker).await;
                    }
                });
            }
        }
    }
}

/// Gives a lease's unused units back to the store.
async fn give_back_lease(
    store: &Store,
    cap: &tokio::sync::Mutex<CapLease>,
) -> Result<(), StoreError> {
    let mut lease = cap.lock().await;
    let (day, unused) = (lease.day, std::mem::take(&mut lease.left));
    match day {
        Some(day) => daily_cap::give_back(store.db(), day, unused).await,
        None => Ok(()),
    }
}

impl CrawlerState {
    /// Takes the global daily cap (`[politeness] global_daily_cap`, `cap`) in leased
    /// blocks instead of locking its row for every request: a hundredth of the cap at a
    /// time (1 to 100), spent in memory, the unused rest given back by
    /// [`CrawlerState::give_back_daily_cap`] or when this value is dropped. Processes
    /// together never start more than `cap` requests a day; a process that dies with a
    /// block takes its unused units with it for that day.
    pub fn lease_daily_cap(mut self, cap: u32) -> CrawlerState {
        self.cap = Some(Arc::new(tokio::sync::Mutex::new(CapLease {
            cap,
            block: daily_cap::block_for(cap),
            day: None,
            left: 0,
            dry_until: None,
        })));
        self
    }

    /// Gives the unused units of this process's block of the daily cap back now (the end
    /// of a pass); the next reservation leases a new block.
    pub async fn give_back_daily_cap(&self) -> Result<(), StoreError> {
        match &self.cap {
            Some(cap) => give_back_lease(&self.store, cap).await,
            None => Ok(()),
        }
    }

    /// Takes one unit of the leased daily cap for `day`, leasing a new block when none is
    /// left; false when the day's allowance is used up.
    /// Also returns the cap.
    async fn take_unit(
        &self,
        cap: &tokio::sync::Mutex<CapLease>,
        day: chrono::NaiveDate,
    ) -> (bool, u32) {
        let mut lease = cap.lock().await;
        if lease.day != Some(day) {
            // A new day: what is left of yesterday's block is of no use any more.
            lease.day = Some(day);
            lease.left = 0;
            lease.dry_until = None;
        }
        if lease.left == 0 && lease.dry_until.is_none_or(|t| t <= std::time::Instant::now()) {
            let (limit, block) = (lease.cap, lease.block);
            match daily_cap::lease(self.store.db(), day, limit, block).await {
                Ok(0) | Err(_) => {
                    lease.dry_until = Some(std::time::Instant::now() + DRY_RETRY);
                }
                Ok(granted) => {
                    lease.left = granted;
                    lease.dry_until = None;
                }
            }
        }
        if lease.left == 0 {
            return (false, lease.cap);
        }
        lease.left -= 1;
        (true, lease.cap)
    }

    /// Puts back a unit that [`CrawlerState::take_unit`] took and the change did not use.
    async fn return_unit(&self, cap: &tokio::sync::Mutex<CapLease>, day: chrono::NaiveDate) {
        let mut lease = cap.lock().await;
        if lease.day == Some(day) {
            lease.left += 1;
        }
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// How many sites had requests left in flight by a previous crawler (SQLite) or by
    /// workers whose lease expired (PostgreSQL), cleared when this one started.
    pub fn reset_sites(&self) -> u64 {
        self.reset
    }

    /// This worker's id, new for every claim (on SQLite too, so a restarted crawler is
    /// a new holder of its predecessor's site leases).
    pub fn worker_id(&self) -> &str {
        &self.worker
    }

    /// Claims up to `limit` items due at `now` for `lease` (SPEC §7): on PostgreSQL in
    /// one short statement (`FOR UPDATE SKIP LOCKED`, so workers never wait on each
    /// other's claims), the lease measured on the database clock, each claim with a new
    /// fencing token. Before each request, check [`WorkLease::may_start`]; finish with
    /// [`CrawlerState::complete_work`] or [`CrawlerState::release_work`].
    pub async fn claim_work(
        &self,
        limit: u32,
        lease: Duration,
        now: SystemTime,
    ) -> Result<Vec<WorkLease>, StoreError> {
        self.store.backend().claim_work(&self.worker, limit, lease, now).await
    }

    /// Marks a claimed item done; false when the lease's token is no longer current (it
    /// expired and another worker claimed the item): that worker's result counts, not
    /// this one's.
    pub async fn complete_work(
        &self,
        lease: &WorkLease,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let sql = format!(
            "UPDATE frontier SET done_ms = $3, {} = NULL
             WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL",
            self.store.db().dialect().lease_until()
        );
        let doing = format!("completing `{}`", lease.item.url);
        Ok(self.store.db().exec(&sql, params![lease.id, lease.token, now], doing).await? == 1)
    }

    /// Leases `site` to this worker for `lease` (SPEC §7): granted when the site is free,
    /// when this worker renews its unexpired lease (same token), or once the previous
    /// holder's lease plus `grace` has passed on the database clock — give it the
    /// response deadline, so the old holder's last request is over before this one's
    /// first. `None` while another worker holds the site.
    pub async fn claim_site(
        &self,
        site: &str,
        lease: Duration,
        grace: Duration,
    ) -> Result<Option<SiteLease>, StoreError> {
        self.store.backend().claim_site(&self.worker, site, lease, grace).await
    }

    /// Gives a site back before its lease ends (its requests are over), so the next
    /// holder need not wait; false when the token is no longer current.
    pub async fn release_site(&self, lease: &SiteLease) -> Result<bool, StoreError> {
        let sql = "DELETE FROM site_leases WHERE site = $1 AND token = $2";
        let doing = format!("releasing `{}`", lease.site);
        Ok(self.store.db().exec(sql, params![&lease.site, lease.token], doing).await? == 1)
    }

    /// Gives a claimed item back to the frontier, due at once; false when fenced out.
    pub async fn release_work(&self, lease: &WorkLease) -> Result<bool, StoreError> {
        let sql = format!(
            "UPDATE frontier SET lease_owner = NULL, {} = NULL
             WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL",
            self.store.db().dialect().lease_until()
        );
        let doing = format!("releasing `{}`", lease.item.url);
        Ok(self.store.db().exec(&sql, params![lease.id, lease.token], doing).await? == 1)
    }
}

impl GateState for CrawlerState {
    /// Commits before completing. When the database cannot be written the update fails
    /// (rolled back), and the gate defers the request rather than send one whose
    /// reservation was not recorded.
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let failed =
                |error| StateError(format!("failed to record the budget of `{site}`: {error}"));
            // The registry's rules the request was decided on, checked by a reservation.
            let (guard, heard) = self.store.registry_guard(site);
            let checked = async |result: Result<registry::RegistrySeen, StoreError>| {
                if let Some(guard) = &guard {
                    self.store.registry_checked(guard, heard, &result).await;
                }
                result.map(drop)
            };
            let Some(cap) = &self.cap else {
                let backend = self.store.backend();
                let result = backend.update_site(site, &self.worker, change, None, guard.as_ref());
                return checked(result.await).await.map_err(failed);
            };
            // With a leased block, the change sees the block, not the shared row: one unit
            // held means "under the cap", none means "the cap is met".
            let day = chrono::Utc::now().date_naive();
            let (held, limit) = self.take_unit(cap, day).await;
            let before = GlobalBudget { day: Some(day), requests: if held { 0 } else { limit } };
            let mut view = before.clone();
            let result = self
                .store
                .backend()
                .update_site(site, &self.worker, change, Some(&mut view), guard.as_ref())
                .await;
            let result = checked(result).await;
            let used = result.is_ok() && view != before;
            if held && !used {
                self.return_unit(cap, day).await;
            }
            if used && !held {
                // The change counted a request under a day the block is not of (its clock
                // is past midnight before this one): it is counted on the shared row.
                let _ =
                    daily_cap::lease(self.store.db(), view.day.unwrap_or(day), u32::MAX, 1).await;
            }
            result.map_err(failed)
        })
    }

    /// An error when the database cannot be read: the gate defers the request.
    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Result<Option<SiteState>, StateError>> {
        Box::pin(async move {
            self.store.site_state(site).await.map_err(|error| {
                StateError(format!("failed to read the state of `{site}`: {error}"))
            })
        })
    }
}
