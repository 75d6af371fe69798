//! The PostgreSQL backend: many processes (workers) on one database share every site's
//! budget, the owners' registry and the audit log (SPEC §1 "every process and every
//! copy", §7).
//!
//! - Driver: `tokio-postgres` without TLS (a database on loopback or a trusted network)
//!   and a `deadpool-postgres` pool per process; statements are prepared once per
//!   connection and cached. Connections live on the caller's tokio runtime.
//! - Schema: `migrations/postgres`, applied on open in one transaction per version under
//!   an advisory lock, so workers starting together migrate once.
//! - The gate's state ([`Postgres::update_site`]): one short transaction per update —
//!   `SELECT … FOR UPDATE` of the site's row (inserted first when missing) with its
//!   requests in flight, pipelined with `BEGIN`; then, unless the daily cap is leased in
//!   blocks (`crate::daily_cap`), of the global budget row (always in that order, so two
//!   updates never deadlock); the caller's synchronous closure; the writes, the last one
//!   pipelined with `COMMIT`; all before the future completes: two round trips.
//!   The row locks are held for the closure's microseconds and a few statements, never
//!   across an HTTP request, and a second worker's update of the same site waits for the
//!   first one's commit instead of overwriting it.
//! - In flight: each worker's requests in flight are rows of `site_in_flight` tagged with
//!   its worker id; a site's in-flight count is the sum over workers whose lease
//!   (`workers.lease_until`, on the database clock, renewed by a heartbeat) has not
//!   expired. A worker that dies stops counting within its lease ([`WORKER_LEASE`] by
//!   default), and no live worker's requests are ever cleared by another.
//! - Registry: a version number (`meta.registry_version`, moved by a trigger that also
//!   sends `NOTIFY gleaner_registry`). The gate's lookups answer from the entries as
//!   last read while the listener heard of no change (`crate::registry`); the
//!   reservation reads the version with the site's locked row (one more column) and
//!   reserves nothing when the rules moved for its site
//!   (`StoreError::RegistryMovedForSite`); the event write checks "facts only" by
//!   reading the version inside its own transaction, pipelined.
//! - Validators are queued to the audit writer (`Store::queue_validators`) and written
//!   with its next batch, one statement pipelined beside the audit rows.
//! - Event write (`upsert_event_fenced`): `BEGIN`, the fence, the registry version, the
//!   advisory locks and the lookup pipelined in one round trip; the candidates' readings
//!   in one more when there are any; the remaining writes pipelined with `COMMIT` (a new
//!   event's row, status and reading are one statement, `insert_new_event`): two round
//!   trips for a new event, three for one read again (eight before issue 27).
//! - A single-statement write (`Db::write`) is sent alone, in autocommit.
//! - Audit: a thread with its own runtime and connection writes batches, one statement
//!   (`unnest` of arrays) per batch.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{BuildHasher, Hash, Hasher};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use gleaner_policy::Purpose;
use gleaner_policy::audit::AuditRecord;
use gleaner_policy::budget::GlobalBudget;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::{Change, SiteState};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Config, NoTls, Row};
use url::Url;

use crate::codec::{self, SiteRow};
use crate::error::StoreError;
use crate::model::{
    DocumentKind, EventWrite, RemovalReport, SiteLease, Upserted, WorkItem, WorkLease,
};
use crate::registry;
use crate::sql::{Db, Dialect, Row as SqlRow, Tx, TxBody, Value, Written, params, returned};
use crate::{events, merge};
use gleaner_policy::state::BoxFuture;

pub(crate) mod layout;
mod listen;

/// Connections per process. A worker's gate holds one for a few statements per request;
/// the rest serve the scheduler, the server and retention.
const POOL_SIZE: usize = 8;

/// How long a caller waits for a pooled connection (or a new one) before failing.
const POOL_WAIT: Duration = Duration::from_secs(30);

/// How long a worker's lease lasts on the database clock without a heartbeat, unless
/// the caller chooses ([`crate::Store::claim_worker`]). Its requests in flight stop
/// counting this long after its last heartbeat. It must outlast the longest request
/// (connect timeout + response deadline: 5 s + 15 s by default), so that a worker cut
/// off from the database mid-request is still counted until that request is surely over.
pub(crate) const WORKER_LEASE: Duration = Duration::from_secs(30);

/// Server options for every connection (unless the URL sets its own): a session idle
/// inside a transaction for this long is ended by the server, releasing its locks.
const IDLE_IN_TRANSACTION: &str = "-c idle_in_transaction_session_timeout=10s";

/// An arbitrary key for the advisory lock that serialises migrations.
const MIGRATION_LOCK: i64 = 0x0067_6c65_616e_6572;

/// The PostgreSQL backend.
pub(crate) struct Postgres {
    location: String,
    schemas: layout::PgSchemas,
    /// The connection settings (search path included), for the registry listener
    /// (boxed: it is large, and the backend enum holds this struct inline).
    config: Box<Config>,
    /// Counts `NOTIFY gleaner_registry` messages once someone listens.
    registry_changes: Mutex<Option<tokio::sync::watch::Sender<u64>>>,
    pool: Pool,
    audit: crate::audit::AuditQueue,
    robots: codec::RobotsCache,
}

impl std::fmt::Debug for Postgres {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Postgres").field("location", &self.location).finish_non_exhaustive()
    }
}

type P<'a> = &'a (dyn ToSql + Sync);

/// Parameters as the driver takes them.
fn refs(values: &[Value]) -> Vec<P<'_>> {
    values.iter().map(|v| v as P<'_>).collect()
}

/// Wraps a driver error with where and what was being done.
trait PgDoing<T> {
    fn doing(self, location: &str, doing: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T> PgDoing<T> for Result<T, tokio_postgres::Error> {
    fn doing(self, location: &str, doing: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Postgres {
            location: location.to_owned(),
            doing: doing(),
            source,
        })
    }
}

/// `postgres://user@host:port/db`, without the password, for messages, with the copy's
/// schema and namespace when they are not the default.
pub(crate) fn describe(config: &Config, schemas: &layout::PgSchemas) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config.get_user().map(|u| format!("{u}@")).unwrap_or_default();
    let db = config.get_dbname().unwrap_or("");
    let place = if schemas.is_split() {
        format!(" (copy `{}`, politeness namespace `{}`)", schemas.copy, schemas.politeness)
    } else if schemas.copy != "public" {
        format!(" (schema `{}`)", schemas.copy)
    } else {
        String::new()
    };
    format!("postgres://{user}{host}:{port}/{db}{place}")
}

/// A worker id unique across processes and machines (random per process start).
pub(crate) fn new_worker_id() -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    std::process::id().hash(&mut h);
    SystemTime::now().hash(&mut h);
    format!("{}-{:016x}", std::process::id(), h.finish())
}

async fn connect(config: &Config, location: &str) -> Result<tokio_postgres::Client, StoreError> {
    let (client, connection) = config
        .connect(NoTls)
        .await
        .map_err(|source| StoreError::PostgresConnect { location: location.to_owned(), source })?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(client)
}

async fn migrate(
    client: &mut tokio_postgres::Client,
    location: &str,
    schemas: &layout::PgSchemas,
) -> Result<(), StoreError> {
    let open = |source| StoreError::PostgresConnect { location: location.to_owned(), source };
    let tx = client.transaction().await.map_err(open)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(open)?;
    layout::migrate(&tx, location, schemas).await?;
    tx.commit().await.map_err(open)
}

/// Runs `f` to completion on a thread of its own with a private runtime, so a
/// synchronous caller (inside a runtime or not) can wait for async set-up work.
fn on_own_runtime<R: Send>(
    f: impl FnOnce() -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<R, StoreError>>>>
    + Send,
) -> Result<R, StoreError> {
    std::thread::scope(|scope| {
        scope
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| StoreError::Worker(format!("failed to start a runtime: {e}")))?;
                rt.block_on(f())
            })
            .join()
            .map_err(|_| StoreError::Worker("the set-up thread panicked".into()))?
    })
}

/// The audit writer's own connection, made again after an error, with its statement.
struct AuditConn {
    config: Config,
    location: String,
    client: Option<tokio_postgres::Client>,
    prepared: Option<tokio_postgres::Statement>,
    /// The validators' statement on `client`.
    prepared_validators: Option<tokio_postgres::Statement>,
}

impl crate::backend::AuditWriter for AuditConn {
    /// One statement for the records and one for the validators, pipelined (one round
    /// trip), tried again once on a fresh connection.
    fn write<'a>(
        &'a mut self,
        batch: &'a [AuditRecord],
        validators: &'a [crate::audit::ValidatorsWrite],
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            for _ in 0..2 {
                if self.client.as_ref().is_none_or(|c| c.is_closed()) {
                    self.client = connect(&self.config, &self.location).await.ok();
                    self.prepared = None;
                    self.prepared_validators = None;
                }
                let Some(c) = self.client.as_ref() else { continue };
                let (audit, validators) = tokio::join!(
                    biased;
                    write_audit(c, &mut self.prepared, batch),
                    write_validators(c, &mut self.prepared_validators, validators)
                );
                if audit.is_ok() && validators.is_ok() {
                    break;
                }
                self.client = None;
            }
        })
    }
}

/// Writes a batch of validators (one per URL) in one statement.
async fn write_validators(
    client: &tokio_postgres::Client,
    prepared: &mut Option<tokio_postgres::Statement>,
    batch: &[crate::audit::ValidatorsWrite],
) -> Result<(), tokio_postgres::Error> {
    if batch.is_empty() {
        return Ok(());
    }
    let st = match prepared {
        Some(st) => st.clone(),
        None => client.prepare(crate::content::UPSERT_VALIDATORS_BATCH).await?,
    };
    *prepared = Some(st.clone());
    let url: Vec<&str> = batch.iter().map(|v| v.url.as_str()).collect();
    let host: Vec<String> = batch.iter().map(|v| codec::host_of(&v.url)).collect();
    let etag: Vec<Option<&str>> = batch.iter().map(|v| v.etag.as_deref()).collect();
    let modified: Vec<Option<&str>> = batch.iter().map(|v| v.last_modified.as_deref()).collect();
    let at: Vec<i64> = batch.iter().map(|v| codec::to_ms(v.at)).collect();
    client.execute(&st, &[&url, &host, &etag, &modified, &at]).await.map(drop)
}

/// Writes a batch of audit records in one statement (one round trip, atomic: all or
/// none), as arrays unnested in order.
async fn write_audit(
    client: &tokio_postgres::Client,
    prepared: &mut Option<tokio_postgres::Statement>,
    batch: &[AuditRecord],
) -> Result<(), tokio_postgres::Error> {
    if batch.is_empty() {
        return Ok(());
    }
    let st = match prepared {
        Some(st) => st.clone(),
        None => client
            .prepare(
                "INSERT INTO audit_log (time_ms, site, host, url, purpose, source, status, error,
                 bytes, duration_ms, reason, outcome)
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[],
                 $6::text[], $7::bigint[], $8::text[], $9::bigint[], $10::bigint[], $11::text[],
                 $12::text[])",
            )
            .await?,
    };
    *prepared = Some(st.clone());
    let time: Vec<i64> = batch.iter().map(|r| codec::to_ms(r.time)).collect();
    let site: Vec<&str> = batch.iter().map(|r| r.site.as_str()).collect();
    let host: Vec<String> = batch.iter().map(|r| codec::host_of(&r.site)).collect();
    let url: Vec<&str> = batch.iter().map(|r| r.url.as_str()).collect();
    let purpose: Vec<&str> = batch.iter().map(|r| r.purpose.as_str()).collect();
    let source: Vec<Option<&str>> = batch.iter().map(|r| r.source.as_deref()).collect();
    let status: Vec<Option<i64>> =
        batch.iter().map(|r| r.outcome.status().map(i64::from)).collect();
    let error: Vec<Option<&str>> = batch.iter().map(|r| r.error.as_deref()).collect();
    let bytes: Vec<i64> =
        batch.iter().map(|r| i64::try_from(r.bytes).unwrap_or(i64::MAX)).collect();
    let duration: Vec<i64> = batch.iter().map(|r| codec::duration_ms(r.duration)).collect();
    let reason: Vec<&str> = batch.iter().map(|r| r.reason.as_str()).collect();
    let outcome: Vec<String> = batch.iter().map(|r| r.outcome.code().to_string()).collect();
    client
        .execute(
            &st,
            &[
                &time, &site, &host, &url, &purpose, &source, &status, &error, &bytes, &duration,
                &reason, &outcome,
            ],
        )
        .await
        .map(drop)
}

/// A transaction lock's key for a text (the same in every process: FNV-1a).
fn lock_key(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"gleaner-event\xfe".iter().chain(text.as_bytes()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

/// A site's row (`$1` the site, `$2` the worker) with its requests in flight as JSON
/// `[[purpose, all live workers', this worker's], …]`, in one round trip.
macro_rules! site_with_flights {
    () => {
        site_with_flights!("")
    };
    ($more:literal) => {
        concat!(
            "SELECT budget, robots, robots_body, failure_streak,
            (SELECT coalesce(json_agg(json_build_array(x.purpose, x.total, x.mine)), '[]')::text
             FROM (SELECT f.purpose, sum(f.count)::bigint AS total,
                     coalesce(sum(f.count) FILTER (WHERE f.worker = $2), 0)::bigint AS mine
                   FROM site_in_flight f JOIN workers w ON w.id = f.worker
                   WHERE f.site = $1 AND w.lease_until > now()
                   GROUP BY f.purpose) x)",
            $more,
            " FROM site_state WHERE site = $1"
        )
    };
}

/// [`site_with_flights`] with the registry's version (column 5, for the reservation's
/// guard: no statement of its own), the row locked for an update.
const SITE_FOR_UPDATE: &str = concat!(
    site_with_flights!(
        ", coalesce((SELECT value FROM meta WHERE key = 'registry_version'), 0)::bigint"
    ),
    " FOR UPDATE OF site_state"
);

/// The requests in flight of [`site_with_flights`]'s last column, by purpose: (all live
/// workers', this worker's).
fn flights(row: &Row) -> BTreeMap<String, (u32, i64)> {
    let flights: Vec<(String, i64, i64)> =
        serde_json::from_str(row.get::<_, &str>(4)).unwrap_or_default();
    flights
        .into_iter()
        .map(|(purpose, all, mine)| (purpose, (u32::try_from(all).unwrap_or(0), mine)))
        .collect()
}

/// A site's row saved (`$1` site, `$2` budget, `$3` failure streak, `$4` time).
const SAVE_SITE: &str = "UPDATE site_state SET budget = $2, failure_streak = $3, updated_us = $4
     WHERE site = $1";

/// [`SAVE_SITE`], and worker `$5`'s count of purpose `$6` in flight set to `$7`.
const SAVE_SITE_WITH_FLIGHT: &str = "WITH saved AS (UPDATE site_state
         SET budget = $2, failure_streak = $3, updated_us = $4 WHERE site = $1)
     INSERT INTO site_in_flight (site, worker, purpose, count) VALUES ($1, $5, $6, $7)
     ON CONFLICT (site, worker, purpose) DO UPDATE SET count = excluded.count";

/// [`SAVE_SITE`], and worker `$5`'s last request of purpose `$6` in flight ended.
const SAVE_SITE_ENDING_FLIGHT: &str = "WITH saved AS (UPDATE site_state
         SET budget = $2, failure_streak = $3, updated_us = $4 WHERE site = $1)
     DELETE FROM site_in_flight WHERE site = $1 AND worker = $5 AND purpose = $6";

/// Worker `$2`'s count of purpose `$3` in flight at site `$1` set to `$4`.
const UPSERT_FLIGHT: &str = "INSERT INTO site_in_flight (site, worker, purpose, count)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (site, worker, purpose) DO UPDATE SET count = excluded.count";

/// Worker `$2`'s requests of purpose `$3` in flight at site `$1` all ended.
const DELETE_FLIGHT: &str =
    "DELETE FROM site_in_flight WHERE site = $1 AND worker = $2 AND purpose = $3";

/// A pooled connection with a transaction open on it. Dropped before
/// [`OpenTx::done`] (an error, or a cancelled caller), it leaves the pool: the server
/// rolls the transaction back when the connection closes, and no later user of the pool
/// finds a transaction open.
struct OpenTx(Option<Conn>);

impl OpenTx {
    fn client(&self) -> &Conn {
        self.0.as_ref().expect("an open transaction has its connection")
    }

    /// The transaction ended (committed): the connection goes back to the pool.
    fn done(mut self) {
        self.0.take();
    }
}

impl Drop for OpenTx {
    fn drop(&mut self) {
        if let Some(conn) = self.0.take() {
            drop(deadpool_postgres::Object::take(conn));
        }
    }
}

/// A connection from the pool, or a transaction on one.
type Conn = deadpool_postgres::Object;

impl Postgres {
    /// Connects to the database at `url`, migrating the schemas of `schemas`, and starts
    /// the audit writer. Every connection's search path is the copy, then its namespace.
    pub(crate) fn open(url: &str, schemas: &layout::PgSchemas) -> Result<Postgres, StoreError> {
        schemas.check()?;
        let mut config = Config::from_str(url)
            .map_err(|source| StoreError::PostgresUrl { detail: source.to_string() })?;
        // A worker frozen mid-transaction (stopped, swapped out) must not hold a site's
        // row lock for ever: the server ends such a session, which rolls back. Options
        // the URL sets come first, so its own timeout is kept; the search path is ours.
        let options = match config.get_options() {
            Some(own) => format!("{own} {}", schemas.search_path_option()),
            None => format!("{IDLE_IN_TRANSACTION} {}", schemas.search_path_option()),
        };
        config.options(&options);
        let location = describe(&config, schemas);
        {
            let (config, location, schemas) = (config.clone(), location.clone(), schemas.clone());
            on_own_runtime(move || {
                Box::pin(async move {
                    let mut client = connect(&config, &location).await?;
                    migrate(&mut client, &location, &schemas).await
                })
            })?;
        }
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(POOL_WAIT))
            .create_timeout(Some(POOL_WAIT))
            .build()
            .map_err(|e| StoreError::PostgresPool {
                location: location.clone(),
                detail: e.to_string(),
            })?;
        let (client, prepared, prepared_validators) = (None, None, None);
        let writer = AuditConn {
            config: config.clone(),
            location: location.clone(),
            client,
            prepared,
            prepared_validators,
        };
        Ok(Postgres {
            location,
            schemas: schemas.clone(),
            config: Box::new(config.clone()),
            registry_changes: Mutex::new(None),
            pool,
            audit: crate::audit::AuditQueue::start(writer)?,
            robots: Default::default(),
        })
    }

    /// Where the database is (no password).
    pub(crate) fn location(&self) -> &str {
        &self.location
    }

    async fn conn(&self) -> Result<Conn, StoreError> {
        self.pool.get().await.map_err(|e| StoreError::PostgresPool {
            location: self.location.clone(),
            detail: match &e {
                deadpool_postgres::PoolError::Backend(e) => crate::error::pg_message(e),
                other => other.to_string(),
            },
        })
    }

    // ----- gate state -------------------------------------------------------------

    /// Registers this process as a worker (a lease on the database clock) and clears the
    /// in-flight requests of workers whose lease expired. Returns how many sites had
    /// such requests.
    pub(crate) async fn register_worker(
        &self,
        worker: &str,
        lease: Duration,
    ) -> Result<u64, StoreError> {
        self.heartbeat(worker, lease).await?;
        let sql = "WITH dead AS (DELETE FROM workers WHERE lease_until <= now() RETURNING id)
                   SELECT count(DISTINCT site)::bigint FROM site_in_flight
                   WHERE worker IN (SELECT id FROM dead)";
        let doing = "clearing requests left in flight by dead workers".to_owned();
        let written = (self as &dyn Db).write(sql, params![], doing).await?;
        Ok(returned::<i64>(written, "the sites cleared")?.max(0) as u64)
    }

    /// Renews a worker's lease (re-registering it if another worker cleared it).
    ///
    /// A worker whose lease lapsed (stopped, cut off) and comes back: its requests
    /// stopped counting when the lease ran out, so they are over for everyone; their rows
    /// are dropped rather than counted again (they would hold the in-flight cap of their
    /// sites for as long as the worker lives, its own requests included). The worker's
    /// row is locked first, so the lapse is judged on its latest lease: two renewals at
    /// once (the heartbeat task's and a claim's) or a renewal racing the lease's end
    /// cannot judge a stale copy "alive" and then renew a lapsed lease with its old rows.
    pub(crate) async fn heartbeat(&self, worker: &str, lease: Duration) -> Result<(), StoreError> {
        let secs = lease.as_secs_f64();
        let worker = worker.to_owned();
        let doing = format!("renewing the lease of worker `{worker}`");
        (self as &dyn Db)
            .tx(doing, move |tx| {
                Box::pin(async move {
                    let lock = "SELECT lease_until > clock_timestamp() FROM workers
                                WHERE id = $1 FOR UPDATE";
                    let row = tx.run(lock, params![worker.as_str()]).await?.rows.into_iter().next();
                    let alive = match row {
                        Some(row) => row.get::<bool>(0)?,
                        None => false,
                    };
                    if !alive {
                        let drop = "DELETE FROM site_in_flight WHERE worker = $1";
                        tx.run(drop, params![worker.as_str()]).await?;
                    }
                    let renew = "INSERT INTO workers (id, lease_until)
                                 VALUES ($1, clock_timestamp() + make_interval(secs => $2))
                                 ON CONFLICT (id) DO UPDATE SET lease_until = excluded.lease_until";
                    tx.run(renew, params![worker.as_str(), secs]).await.map(drop)
                })
            })
            .await
    }

    /// Ends a worker's lease now: its requests in flight are over.
    pub(crate) async fn release_worker(&self, worker: &str) -> Result<(), StoreError> {
        let doing = format!("releasing worker `{worker}`");
        (self as &dyn Db)
            .exec("DELETE FROM workers WHERE id = $1", params![worker], doing)
            .await
            .map(drop)
    }

    fn decode(
        &self,
        site: &str,
        row: &Row,
        in_flight: &BTreeMap<String, u32>,
    ) -> Result<Option<SiteState>, StoreError> {
        let Some(budget) = row.get::<_, Option<String>>(0) else { return Ok(None) };
        let row = SiteRow {
            budget,
            in_flight: serde_json::to_string(in_flight).unwrap_or_default(),
            robots: row.get(1),
            robots_body: row.get(2),
            failure_streak: u32::try_from(row.get::<_, i64>(3)).unwrap_or(u32::MAX),
        };
        self.robots.decode(site, row).map(Some)
    }
}

/// A pooled connection inside a transaction (a `deadpool_postgres::Transaction`, or a
/// connection after `BEGIN`).
struct PgTx<'c, C> {
    tx: &'c C,
    location: &'c str,
    doing: String,
}

/// Runs one statement through `client` (a connection or a transaction).
async fn run_on(
    client: &impl deadpool_postgres::GenericClient,
    sql: &str,
    params: &[Value],
) -> Result<Written, tokio_postgres::Error> {
    let st = client.prepare_cached(sql).await?;
    let refs = refs(params);
    if st.columns().is_empty() {
        return Ok(Written { changed: client.execute(&st, &refs).await?, rows: Vec::new() });
    }
    let rows = client.query(&st, &refs).await?;
    let rows = rows.iter().map(SqlRow::from_postgres).collect::<Result<Vec<_>, _>>()?;
    Ok(Written { changed: rows.len() as u64, rows })
}

impl<C: deadpool_postgres::GenericClient + Sync> Tx for PgTx<'_, C> {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn run<'a>(
        &'a mut self,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Written, StoreError>> {
        Box::pin(async move {
            run_on(self.tx, sql, &params).await.doing(self.location, || self.doing.clone())
        })
    }
}

impl Db for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<SqlRow>, StoreError>> {
        Box::pin(async move {
            let conn = self.conn().await?;
            let written = run_on(&conn, sql, &params).await;
            Ok(written.doing(&self.location, || doing)?.rows)
        })
    }

    fn point_query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<SqlRow>, StoreError>> {
        self.query(sql, params, doing)
    }

    fn write<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Written, StoreError>> {
        Box::pin(async move {
            let conn = self.conn().await?;
            run_on(&conn, sql, &params).await.doing(&self.location, || doing)
        })
    }

    fn transaction(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.run_body(None, doing, body))
    }

    fn snapshot(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.run_body(Some("REPEATABLE READ READ ONLY"), doing, body))
    }
}

impl Postgres {
    /// Runs `body` in a transaction (at `level`, when given), committed when it succeeds.
    async fn run_body(
        &self,
        level: Option<&str>,
        doing: String,
        body: TxBody,
    ) -> Result<(), StoreError> {
        let mut conn = self.conn().await?;
        let tx = conn.transaction().await.doing(&self.location, || doing.clone())?;
        if let Some(level) = level {
            let set = format!("SET TRANSACTION ISOLATION LEVEL {level}");
            tx.batch_execute(&set).await.doing(&self.location, || doing.clone())?;
        }
        body(&mut PgTx { tx: &tx, location: &self.location, doing: doing.clone() }).await?;
        tx.commit().await.doing(&self.location, || doing)
    }
}

#[async_trait::async_trait]
impl crate::backend::GateBackend for Postgres {
    /// Applies `change` to a site's state and the global budget in one short transaction
    /// (see the module docs), committed before it returns. `worker` owns the in-flight
    /// requests the change adds or ends.
    ///
    /// Two round trips when the site's row exists: `BEGIN` is pipelined with the locking
    /// read (the row and its requests in flight in one statement), and the write (the
    /// row and this worker's in-flight count in one statement) with `COMMIT`. A write
    /// that fails makes that `COMMIT` a rollback, and the error is returned. A caller
    /// cancelled in between drops the connection instead of returning it to the pool
    /// with a transaction open (the server then rolls it back).
    async fn update_site(
        &self,
        site: &str,
        worker: &str,
        change: Change<'_>,
        leased: Option<&mut GlobalBudget>,
        guard: Option<&registry::RegistryGuard>,
    ) -> Result<registry::RegistrySeen, StoreError> {
        let loc = self.location.as_str();
        let doing = || format!("reserving the budget of `{site}`");
        let open = OpenTx(Some(self.conn().await?));
        let conn = open.client();
        let select = conn.prepare_cached(SITE_FOR_UPDATE).await.doing(loc, doing)?;
        let keys: [&(dyn ToSql + Sync); 2] = [&site, &worker];
        // `biased`: polled in order, so `BEGIN` is sent first.
        let (begun, row) =
            tokio::join!(biased; conn.batch_execute("BEGIN"), conn.query_opt(&select, &keys));
        begun.doing(loc, doing)?;
        let mut row = row.doing(loc, doing)?;
        if row.is_none() {
            let insert = conn
                .prepare_cached(
                    "INSERT INTO site_state (site, updated_us) VALUES ($1, $2)
                     ON CONFLICT (site) DO NOTHING",
                )
                .await
                .doing(loc, doing)?;
            conn.execute(&insert, &[&site, &codec::to_us(SystemTime::now())])
                .await
                .doing(loc, doing)?;
            row = conn.query_opt(&select, &[&site, &worker]).await.doing(loc, doing)?;
        }
        let row = row.ok_or_else(|| StoreError::Worker(format!("lost the row of `{site}`")))?;
        // The registry's version, read with the row (issue 27: the gate's lookup reads
        // none of its own; the guard checks it).
        let seen: Option<i64> = Some(row.get(5));
        let mut global = match &leased {
            Some(_) => GlobalBudget::default(),
            None => {
                let global = conn
                    .prepare_cached(
                        "SELECT day, requests FROM global_budget WHERE id = 1 FOR UPDATE",
                    )
                    .await
                    .doing(loc, doing)?;
                let global = conn.query_one(&global, &[]).await.doing(loc, doing)?;
                codec::decode_global(global.get(0), global.get(1))
            }
        };
        let flights = flights(&row);
        let total: BTreeMap<String, u32> =
            flights.iter().map(|(p, (all, _))| (p.clone(), *all)).collect();
        let own: BTreeMap<String, i64> =
            flights.into_iter().map(|(p, (_, mine))| (p, mine)).collect();
        let before = self.decode(site, &row, &total)?;
        let global_before = global.clone();
        let mut after = before.clone().unwrap_or_default();
        // The change is pure (policy decisions on the loaded state): no I/O while the
        // rows are locked.
        match leased {
            Some(view) => change(&mut after, view),
            None => change(&mut after, &mut global),
        }
        let registry_seen = match guard {
            None => registry::RegistrySeen::Unmoved,
            Some(guard) if registry::reserves(before.as_ref(), &after) => {
                let mut tx = PgTx { tx: conn, location: loc, doing: doing() };
                match registry::check_registry(&mut tx, site, guard, seen).await {
                    Ok(seen) => seen,
                    Err(error) => {
                        conn.batch_execute("ROLLBACK").await.doing(loc, doing)?;
                        open.done();
                        return Err(error);
                    }
                }
            }
            Some(guard) if seen == Some(guard.version) => registry::RegistrySeen::Unmoved,
            Some(_) => registry::RegistrySeen::Stale,
        };

        // The writes before the last one, which goes with `COMMIT`.
        let mut last: Option<(tokio_postgres::Statement, Vec<Box<dyn ToSql + Sync + Send>>)> = None;
        if before.as_ref() != Some(&after) {
            let now = SystemTime::now();
            let enc = codec::encode_site(&after);
            let old_robots = before.as_ref().and_then(|s| s.robots.as_ref());
            if old_robots != after.robots.as_ref() {
                let robots = conn
                    .prepare_cached(
                        "UPDATE site_state SET robots = $2, robots_body = $3 WHERE site = $1",
                    )
                    .await
                    .doing(loc, doing)?;
                conn.execute(&robots, &[&site, &enc.robots, &enc.robots_body])
                    .await
                    .doing(loc, doing)?;
                if let Some(body) = &enc.robots_body {
                    let url = format!("{site}/robots.txt");
                    let mut tx = PgTx { tx: conn, location: loc, doing: doing() };
                    let kind = DocumentKind::Robots;
                    crate::audit::archive(&mut tx, site, kind, &url, body, now).await?;
                }
            }
            // This worker's share of the in-flight requests moves by what the change did.
            let old = before.map(|s| s.budget.in_flight).unwrap_or_default();
            let purposes: std::collections::BTreeSet<Purpose> =
                old.keys().chain(after.budget.in_flight.keys()).copied().collect();
            let mut moves = Vec::new();
            for purpose in purposes {
                let delta = i64::from(after.budget.in_flight.get(&purpose).copied().unwrap_or(0))
                    - i64::from(old.get(&purpose).copied().unwrap_or(0));
                if delta != 0 {
                    let name = purpose.as_str();
                    moves.push((name, (own.get(name).copied().unwrap_or(0) + delta).max(0)));
                }
            }
            // The row's update carries the first in-flight move (the usual one: a
            // reservation adds one, a finished request ends one).
            let (sql, flight): (&str, Option<(&str, i64)>) = match moves.first() {
                None => (SAVE_SITE, None),
                Some(&(name, 0)) => (SAVE_SITE_ENDING_FLIGHT, Some((name, 0))),
                Some(&(name, mine)) => (SAVE_SITE_WITH_FLIGHT, Some((name, mine))),
            };
            for &(name, mine) in moves.iter().skip(1) {
                let (sql, params): (&str, Vec<&(dyn ToSql + Sync)>) = match mine {
                    0 => (DELETE_FLIGHT, vec![&site, &worker, &name]),
                    _ => (UPSERT_FLIGHT, vec![&site, &worker, &name, &mine]),
                };
                let st = conn.prepare_cached(sql).await.doing(loc, doing)?;
                conn.execute(&st, &params).await.doing(loc, doing)?;
            }
            let st = conn.prepare_cached(sql).await.doing(loc, doing)?;
            let mut params: Vec<Box<dyn ToSql + Sync + Send>> = vec![
                Box::new(site.to_owned()),
                Box::new(enc.budget),
                Box::new(i64::from(enc.failure_streak)),
                Box::new(codec::to_us(now)),
            ];
            if let Some((name, mine)) = flight {
                params.push(Box::new(worker.to_owned()));
                params.push(Box::new(name.to_owned()));
                if mine != 0 {
                    params.push(Box::new(mine));
                }
            }
            last = Some((st, params));
        }
        if global != global_before {
            let (day, requests) = codec::encode_global(&global);
            let st = conn
                .prepare_cached("UPDATE global_budget SET day = $1, requests = $2 WHERE id = 1")
                .await
                .doing(loc, || "saving the global budget".to_owned())?;
            if let Some((st, params)) = last.take() {
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| &**p as &(dyn ToSql + Sync)).collect();
                conn.execute(&st, &refs).await.doing(loc, doing)?;
            }
            let params: Vec<Box<dyn ToSql + Sync + Send>> = vec![Box::new(day), Box::new(requests)];
            last = Some((st, params));
        }
        let committing = || format!("committing the state of `{site}`");
        match last {
            Some((st, params)) => {
                let refs: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|p| &**p as &(dyn ToSql + Sync)).collect();
                let (written, committed) =
                    tokio::join!(biased; conn.execute(&st, &refs), conn.batch_execute("COMMIT"));
                written.doing(loc, doing)?;
                committed.doing(loc, committing)?;
            }
            None => conn.batch_execute("COMMIT").await.doing(loc, committing)?,
        }
        open.done();
        Ok(registry_seen)
    }

    async fn site_state(&self, site: &str) -> Result<Option<SiteState>, StoreError> {
        let (loc, doing) = (&self.location, || format!("reading the state of `{site}`"));
        let conn = self.conn().await?;
        let st = conn.prepare_cached(site_with_flights!()).await.doing(loc, doing)?;
        let Some(row) = conn.query_opt(&st, &[&site, &""]).await.doing(loc, doing)? else {
            return Ok(None);
        };
        let total = flights(&row).into_iter().map(|(p, (all, _))| (p, all)).collect();
        self.decode(site, &row, &total)
    }
}

impl crate::backend::AuditBackend for Postgres {
    fn audit(&self) -> &crate::audit::AuditQueue {
        &self.audit
    }
}

#[async_trait::async_trait]
impl crate::backend::EventsBackend for Postgres {
    /// [`Postgres::upsert_event`], committed only while `fence` (a work lease) is
    /// current: checked and held (`FOR SHARE`) in the same transaction (SPEC §7). The
    /// reading joins the stored event it is the same event as (`crate::merge`).
    async fn upsert_event_fenced(
        &self,
        write: &EventWrite<'_>,
        fence: Option<&WorkLease>,
        registry: i64,
    ) -> Result<Upserted, StoreError> {
        let incoming = merge::incoming(write);
        let lookup = merge::lookup(&incoming);
        let reading = merge::reading_columns(&incoming);
        let identity = lookup.identity.clone();
        let now = codec::to_ms(write.fetched_at);
        let loc = self.location.as_str();
        let doing = || format!("storing event `{identity}`");
        // Serialise writers that could store the same event (two workers reading it from
        // two sources): each takes the transaction locks of its identity, own page and
        // title, in one order, before looking, so the second one sees the first's row.
        let mut keys: Vec<i64> =
            [Some(&lookup.identity), lookup.url.as_ref(), lookup.title_key.as_ref()]
                .into_iter()
                .flatten()
                .map(|k| lock_key(k))
                .collect();
        keys.sort_unstable();
        keys.dedup();
        let open = OpenTx(Some(self.conn().await?));
        let tx = open.client();
        let version = tx.prepare_cached(registry::VERSION).await.doing(loc, doing)?;
        let lock = tx.prepare_cached(LOCK_KEYS).await.doing(loc, doing)?;
        let find = format!("{} FOR UPDATE", events::FIND_EVENTS);
        let find = tx.prepare_cached(&find).await.doing(loc, doing)?;
        let lookup_values = events::lookup_params(&lookup);
        let lookup_params = refs(&lookup_values);
        // One round trip: `BEGIN`, the fence, the registry's version, every lock (taken
        // in the array's sorted order) and the lookup, pipelined in that order on one
        // connection.
        // The fence: `lease` is still the current, unexpired claim of its item (database
        // clock), held `FOR SHARE` (a claim takes `FOR UPDATE … SKIP LOCKED`) until this
        // transaction ends, so the write and the check commit together.
        let fenced = async {
            let Some(lease) = fence else { return Ok(()) };
            let doing = || format!("checking the claim on `{}`", lease.item.url);
            let check = tx.prepare_cached(CHECK_FENCE).await.doing(loc, doing)?;
            match tx.query_opt(&check, &[&lease.id, &lease.token]).await.doing(loc, doing)? {
                Some(_) => Ok(()),
                None => Err(events::fenced_out(lease)),
            }
        };
        let lock_params: [&(dyn ToSql + Sync); 1] = [&keys];
        let (begun, fenced, seen, locked, found) = tokio::join!(
            biased;
            tx.batch_execute("BEGIN"),
            fenced,
            tx.query_opt(&version, &[]),
            tx.execute(&lock, &lock_params),
            tx.query(&find, &lookup_params)
        );
        begun.doing(loc, doing)?;
        fenced?;
        let seen: i64 = seen.doing(loc, doing)?.map_or(0, |r| r.get(0));
        if seen != registry {
            return Err(StoreError::RegistryMoved { expected: registry, seen });
        }
        locked.doing(loc, doing)?;
        let found = found.doing(loc, doing)?;
        // The readings of every candidate in one statement.
        let ids: Vec<i64> = found.iter().map(|r| r.get(0)).collect();
        let mut readings: HashMap<i64, Vec<merge::StoredReading>> = HashMap::new();
        if !ids.is_empty() {
            let st = tx.prepare_cached(READINGS_OF_EVENTS).await.doing(loc, doing)?;
            for r in tx.query(&st, &[&ids]).await.doing(loc, doing)? {
                let reading =
                    events::reading_from_row(&SqlRow::from_postgres(&r).doing(loc, doing)?);
                readings.entry(r.get(7)).or_default().push(reading?);
            }
        }
        let mut rows = Vec::with_capacity(found.len());
        for r in &found {
            let mut row = events::candidate_from_row(&SqlRow::from_postgres(r).doing(loc, doing)?)?;
            row.readings = readings.remove(&row.id).unwrap_or_default();
            rows.push(row);
        }
        let plan = merge::plan(&incoming, &identity, &rows)?;
        let c = merge::columns(&plan, write.fetched_at);
        let columns = events::event_params(&c, now);
        let (id, outcome, changed_row) = match plan.target {
            merge::Target::New(row_identity) => {
                // A new event: its row, its first status and its reading in one
                // statement, pipelined with `COMMIT` (one round trip; a failed insert
                // makes the `COMMIT` a rollback, and its error is returned).
                let st = tx.prepare_cached(&insert_new_event()).await.doing(loc, doing)?;
                let r = &reading;
                let tail = params![c.stated, &r.source, &r.fetch_url, r.extractor, &r.facts];
                let tail = [tail, params![&r.description, &r.image]].concat();
                let values = [params![row_identity], columns, tail].concat();
                let params = refs(&values);
                let (inserted, committed) = tokio::join!(
                    biased;
                    tx.query_one(&st, &params),
                    tx.batch_execute("COMMIT")
                );
                let id: i64 = inserted.doing(loc, doing)?.get(0);
                committed.doing(loc, doing)?;
                open.done();
                return Ok(Upserted::Inserted(id));
            }
            merge::Target::Existing(i) => {
                let row = &rows[i];
                let id = row.id;
                if row.facts == c.facts
                    && row.description == c.description
                    && row.image_url == c.image
                {
                    (id, Upserted::Unchanged(id), Some(false))
                } else {
                    let changed = row.status != c.status;
                    (id, Upserted::Updated { id, status_changed: changed }, Some(true))
                }
            }
        };
        // The writes that remain, pipelined with `COMMIT`: one round trip. A write that
        // fails makes the `COMMIT` a rollback, and its error is returned.
        let d = Dialect::Postgres;
        let touch = tx.prepare_cached(&events::touch_event(d)).await.doing(loc, doing)?;
        let update = tx.prepare_cached(&events::update_event(d)).await.doing(loc, doing)?;
        let status = tx.prepare_cached(events::INSERT_STATUS).await.doing(loc, doing)?;
        let provenance =
            tx.prepare_cached(&events::upsert_provenance(d)).await.doing(loc, doing)?;
        let row_write = async {
            match changed_row {
                None => Ok(0),
                Some(false) => {
                    tx.execute(&touch, &[&id, &now, &c.last_day_end, &c.title_key]).await
                }
                Some(true) => tx.execute(&update, &refs(&[params![id], columns].concat())).await,
            }
        };
        let status_write = async {
            match outcome {
                Upserted::Inserted(_) | Upserted::Updated { status_changed: true, .. } => {
                    tx.execute(&status, &[&id, &c.status, &c.stated, &now]).await
                }
                _ => Ok(0),
            }
        };
        let provenance_values = events::reading_params(id, &reading, now);
        let provenance_params = refs(&provenance_values);
        let provenance_write = tx.execute(&provenance, &provenance_params);
        let (row_written, status_written, provenance_written, committed) = tokio::join!(
            biased;
            row_write,
            status_write,
            provenance_write,
            tx.batch_execute("COMMIT")
        );
        row_written.doing(loc, doing)?;
        status_written.doing(loc, doing)?;
        provenance_written.doing(loc, doing)?;
        committed.doing(loc, doing)?;
        open.done();
        Ok(outcome)
    }
}

/// A work item's claim `($1, $2)`, current and unexpired, held until the transaction ends.
const CHECK_FENCE: &str = "SELECT 1 FROM frontier WHERE id = $1 AND lease_token = $2
     AND done_ms IS NULL AND lease_until > now() FOR SHARE";

/// Takes the transaction locks `$1`, in the array's order.
const LOCK_KEYS: &str = "SELECT pg_advisory_xact_lock(k) FROM unnest($1::bigint[]) AS k";

/// The provenance rows of the events `$1`, each event's oldest first; column 7 is the
/// event's id.
const READINGS_OF_EVENTS: &str =
    "SELECT source, fetch_url, fetched_ms, extractor, facts, description, image_url, event_id
     FROM event_provenance WHERE event_id = ANY($1) ORDER BY event_id, fetched_ms, id";

/// A new event ([`events::INSERT_EVENT`]), its first status (`$8`, stated `$17`, at
/// `$15`) and this fetch's reading (`$18`…`$23`: source, page, extractor, facts,
/// description, image) in one statement; returns its id.
fn insert_new_event() -> String {
    format!(
        "WITH new AS ({}),
         status AS (INSERT INTO event_status (event_id, status, stated, at_ms)
             SELECT id, $8, $17, $15 FROM new),
         reading AS (INSERT INTO event_provenance (event_id, source, fetch_url, fetched_ms,
                 extractor, facts, description, image_url)
             SELECT id, $18, $19, $15, $20, $21, $22, $23 FROM new)
         SELECT id FROM new",
        events::INSERT_EVENT
    )
}

#[async_trait::async_trait]
impl crate::backend::RetentionBackend for Postgres {
    /// Removes a site's content (`crate::registry`) from this copy and from every copy
    /// sharing its politeness namespace, in one transaction.
    async fn remove_site(
        &self,
        scope: Scope,
        reference: String,
        now: SystemTime,
    ) -> Result<RemovalReport, StoreError> {
        let doing = format!("removing `{}`", registry::scope_columns(&scope).1);
        let loc = self.location.as_str();
        let mut conn = self.conn().await?;
        let pg = conn.transaction().await.doing(loc, || doing.clone())?;
        let copies = layout::copies(&pg).await.doing(loc, || doing.clone())?;
        let mut tx = PgTx { tx: &pg, location: loc, doing };
        let request_id = registry::open_removal(&mut tx, &scope, &reference, now).await?;
        // Every copy sharing this namespace keeps its own content: delete it from each
        // (its tables first on the search path), this copy's under plain table names.
        let mut deleted = Vec::new();
        for copy in copies.iter().filter(|c| **c != self.schemas.copy) {
            let path = format!("SET LOCAL search_path TO {copy}, {}", self.schemas.politeness);
            tx.tx.batch_execute(&path).await.doing(loc, || tx.doing.clone())?;
            for (table, n) in registry::delete_site_content(&mut tx, &scope).await? {
                deleted.push((format!("{copy}.{table}"), n));
            }
        }
        let own = format!("SET LOCAL search_path TO {}", layout::search_list(&self.schemas));
        tx.tx.batch_execute(&own).await.doing(loc, || tx.doing.clone())?;
        deleted.splice(0..0, registry::delete_site_content(&mut tx, &scope).await?);
        let report = registry::close_removal(&mut tx, &scope, request_id, deleted, now).await?;
        let doing = tx.doing;
        pg.commit().await.doing(loc, || doing)?;
        Ok(report)
    }

    /// PostgreSQL keeps its own files consistent; this checks that the database answers
    /// and that the copy's schema and its namespace carry every migration this build
    /// knows for their role (`ok` when so).
    async fn integrity_check(&self) -> Result<String, StoreError> {
        let mut problems = Vec::new();
        let places = if self.schemas.is_split() {
            vec![
                (&self.schemas.copy, layout::Role::Copy),
                (&self.schemas.politeness, layout::Role::All),
            ]
        } else {
            vec![(&self.schemas.copy, layout::Role::All)]
        };
        for (schema, role) in places {
            let sql = format!("SELECT version FROM {schema}.schema_migrations");
            let rows = (self as &dyn Db).query(&sql, params![], "checking the database".into());
            let found =
                rows.await?.iter().map(|r| r.get(0)).collect::<Result<BTreeSet<i64>, _>>()?;
            let expected = role.expected();
            if found != expected {
                problems.push(format!(
                    "schema `{schema}` has migrations {found:?}, expected {expected:?}"
                ));
            }
        }
        Ok(if problems.is_empty() { "ok".to_owned() } else { problems.join("; ") })
    }
}

#[async_trait::async_trait]
impl crate::backend::FrontierBackend for Postgres {
    /// Claims up to `limit` due items in one statement: rows another worker is claiming
    /// are skipped, not waited for (`SKIP LOCKED`); the lease and the time left are
    /// taken from the database clock.
    async fn claim_work(
        &self,
        worker: &str,
        limit: u32,
        lease: Duration,
        now: SystemTime,
    ) -> Result<Vec<WorkLease>, StoreError> {
        let claimed_at = std::time::Instant::now();
        let rows = (self as &dyn Db)
            .write(
                "WITH picked AS (
                     SELECT id FROM frontier
                     WHERE done_ms IS NULL AND due_ms <= $4
                         AND (lease_until IS NULL OR lease_until <= now())
                     ORDER BY due_ms, id LIMIT $2 FOR UPDATE SKIP LOCKED)
                 UPDATE frontier f SET lease_owner = $1, lease_token = nextval('work_fence'),
                     lease_until = now() + make_interval(secs => $3)
                 FROM picked WHERE f.id = picked.id
                 RETURNING f.id, f.site, f.url, f.purpose, f.source, f.lease_token,
                     extract(epoch FROM f.lease_until - now())::float8",
                params![worker, limit, lease.as_secs_f64(), now],
                format!("claiming work for worker `{worker}`"),
            )
            .await?;
        let mut leases = Vec::new();
        for r in &rows.rows {
            let purpose = Purpose::from_name(&r.get::<String>(3)?);
            let (Some(purpose), Ok(url)) = (purpose, Url::parse(&r.get::<String>(2)?)) else {
                continue;
            };
            let item = WorkItem { site: r.get(1)?, url, purpose, source: r.get(4)? };
            let (id, token, valid_for) = (r.get(0)?, r.get(5)?, secs_left(r, 6)?);
            leases.push(WorkLease { id, item, token, valid_for, claimed_at });
        }
        leases.sort_by_key(|l| l.id);
        Ok(leases)
    }

    /// Extends `lease` by `extend` from now (database clock) when it is still current and
    /// unexpired; the worker's own lease is renewed first, to `worker_lease`, so the
    /// requests it starts under the renewed claim keep counting in flight.
    async fn renew_work(
        &self,
        worker: &str,
        lease: &WorkLease,
        extend: Duration,
        worker_lease: Duration,
    ) -> Result<Option<WorkLease>, StoreError> {
        let sent = Instant::now();
        self.heartbeat(worker, worker_lease).await?;
        let written = (self as &dyn Db)
            .write(
                "UPDATE frontier SET lease_until = now() + make_interval(secs => $3)
                 WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL AND lease_until > now()
                 RETURNING extract(epoch FROM lease_until - now())::float8",
                params![lease.id, lease.token, extend.as_secs_f64()],
                format!("renewing the claim on `{}`", lease.item.url),
            )
            .await?;
        let Some(r) = written.rows.first() else { return Ok(None) };
        Ok(Some(WorkLease { valid_for: secs_left(r, 0)?, claimed_at: sent, ..lease.clone() }))
    }

    /// Leases `site` to `worker`: granted when the site is free, when the worker renews
    /// its unexpired lease (same token), or when the old lease plus `grace` has passed
    /// on the database clock (new token). `None` while another worker holds it.
    async fn claim_site(
        &self,
        worker: &str,
        site: &str,
        lease: Duration,
        grace: Duration,
    ) -> Result<Option<SiteLease>, StoreError> {
        let claimed_at = std::time::Instant::now();
        let written = (self as &dyn Db)
            .write(
                "INSERT INTO site_leases (site, worker, token, lease_until)
                 VALUES ($1, $2, nextval('site_lease_fence'), now() + make_interval(secs => $3))
                 ON CONFLICT (site) DO UPDATE SET
                     token = CASE WHEN site_leases.worker = excluded.worker
                         AND site_leases.lease_until > now()
                         THEN site_leases.token ELSE excluded.token END,
                     worker = excluded.worker, lease_until = excluded.lease_until
                 WHERE (site_leases.worker = excluded.worker AND site_leases.lease_until > now())
                     OR site_leases.lease_until + make_interval(secs => $4) <= now()
                 RETURNING token, extract(epoch FROM lease_until - now())::float8",
                params![site, worker, lease.as_secs_f64(), grace.as_secs_f64()],
                format!("leasing `{site}` to worker `{worker}`"),
            )
            .await?;
        let Some(r) = written.rows.first() else { return Ok(None) };
        let (site, token, valid_for) = (site.to_owned(), r.get(0)?, secs_left(r, 1)?);
        Ok(Some(SiteLease { site, token, valid_for, claimed_at }))
    }
}

/// Column `i` of `r`, seconds left on the database clock, as a duration (none when past).
fn secs_left(r: &SqlRow, i: usize) -> Result<Duration, StoreError> {
    Ok(Duration::try_from_secs_f64(r.get::<f64>(i)?.max(0.0)).unwrap_or_default())
}

#[async_trait::async_trait]
impl crate::backend::SharedBackend for Postgres {
    fn registry_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        Some(self.registry_changes())
    }

    /// The database server's clock (`clock_timestamp()`, which moves within a
    /// transaction, unlike `now()`).
    async fn database_time(&self) -> Result<SystemTime, StoreError> {
        let sql = "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint";
        let row = (self as &dyn Db).row(sql, params![], "reading the database clock".into());
        let row = row
            .await?
            .ok_or_else(|| StoreError::Worker("the database clock gave no row".into()))?;
        let micros: i64 = row.get(0)?;
        Ok(SystemTime::UNIX_EPOCH + Duration::from_micros(micros.max(0) as u64))
    }

    /// Takes one from `key`'s allowance of `cap` for `day` in one statement (the row's
    /// lock orders concurrent takers); false when it is used up. Counts of days before
    /// yesterday are deleted as the first count of a key's day is taken.
    async fn take_daily(
        &self,
        key: &str,
        day: chrono::NaiveDate,
        cap: u32,
    ) -> Result<Option<bool>, StoreError> {
        if cap == 0 {
            return Ok(Some(false));
        }
        let db: &dyn Db = self;
        let taken = db
            .write(
                "INSERT INTO daily_counts (key, day, count) VALUES ($1, $2, 1)
                 ON CONFLICT (key, day) DO UPDATE SET count = daily_counts.count + 1
                 WHERE daily_counts.count < $3
                 RETURNING count",
                params![key, day.to_string(), cap],
                format!("counting `{key}` on {day}"),
            )
            .await?;
        let count = taken.rows.first().map(|r| r.get::<i64>(0)).transpose()?;
        if count == Some(1) {
            let old = (day - chrono::Days::new(1)).to_string();
            let sql = "DELETE FROM daily_counts WHERE day < $1";
            db.exec(sql, params![old], "forgetting old daily counts".into()).await?;
        }
        Ok(Some(count.is_some()))
    }

    /// Gives one back to `key`'s allowance for `day`.
    async fn give_back_daily(&self, key: &str, day: chrono::NaiveDate) -> Result<(), StoreError> {
        let sql =
            "UPDATE daily_counts SET count = count - 1 WHERE key = $1 AND day = $2 AND count > 0";
        let doing = format!("giving back a count of `{key}` on {day}");
        (self as &dyn Db).exec(sql, params![key, day.to_string()], doing).await.map(drop)
    }
}
