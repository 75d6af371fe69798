//! The SQLite backend: one file in WAL mode, migrations applied on open, every write in
//! a `BEGIN IMMEDIATE` transaction on one writer connection per process (so a read never
//! has to be upgraded to a write and fail with `SQLITE_BUSY`), a reader connection for
//! queries, and a background thread that writes audit rows in batches.
//!
//! rusqlite is synchronous; every call runs on tokio's blocking pool, so the async
//! callers (the gate, the server) never block a runtime thread on the database.
//!
//! Durability: `synchronous = NORMAL` in WAL mode loses no committed transaction when
//! the *process* dies (kill -9, panic), which is what the crash test checks; a power
//! loss may lose the last transactions, never corrupt the file. `FULL` would add an
//! fsync per commit for that case.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use gleaner_policy::audit::AuditRecord;
use gleaner_policy::budget::GlobalBudget;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::{Change, SiteState};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::codec::{self, SiteRow};
use crate::error::{Doing, StoreError};
use crate::merge;
use crate::model::{DocumentKind, EventWrite, RemovalReport, Upserted};
use crate::sql::{Db, Dialect, Row as SqlRow, Tx, TxBody, Value, Written};
use crate::{audit, registry};
use gleaner_policy::state::BoxFuture;

/// Migration `$version` from `migrations/sqlite/$file`, with its probe.
macro_rules! migration {
    ($version:literal, $file:literal, $probe:expr) => {
        Migration {
            version: $version,
            sql: include_str!(concat!("../migrations/sqlite/", $file)),
            probe: $probe,
        }
    };
}

/// Schema migrations. Every applied one is a row of `schema_migrations`; on open, every
/// migration here without a row is applied, in order, each in its own transaction with
/// its row — so a migration that landed in the code after later ones had already been
/// applied to a database (7 after 8 and 9, on development files) is still applied.
/// `PRAGMA user_version` is kept at the highest applied version, so that a gleaner from
/// before `schema_migrations` still refuses a file newer than it knows.
const MIGRATIONS: &[Migration] = &[
    migration!(1, "0001_init.sql", Probe::Table("meta")),
    migration!(2, "0002_source_runs.sql", Probe::Table("source_runs")),
    migration!(3, "0003_listing_links.sql", Probe::Table("listing_links")),
    migration!(4, "0004_frontier.sql", Probe::Table("frontier")),
    migration!(5, "0005_site_leases.sql", Probe::Table("site_leases")),
    migration!(6, "0006_source_failures.sql", Probe::Column("source_runs", "failures")),
    migration!(7, "0007_owner_desk.sql", Probe::Table("owner_submissions")),
    migration!(8, "0008_relay.sql", Probe::Table("relay_images")),
    migration!(9, "0009_llm.sql", Probe::Table("translation_cache")),
    migration!(10, "0010_audit_outcome.sql", Probe::Column("audit_log", "outcome")),
    migration!(11, "0011_event_merge.sql", Probe::Column("event_provenance", "extractor")),
    migration!(12, "0012_owner_lapses.sql", Probe::Column("owner_requests", "lapses_ms")),
    migration!(13, "0013_kept_requests.sql", Probe::Table("kept_requests")),
];

/// One schema migration.
struct Migration {
    version: i64,
    sql: &'static str,
    /// Something the migration creates, present exactly when it was applied. Only read
    /// for a file from before `schema_migrations`, to tell which versions up to its
    /// `user_version` it really has (a migration always ran whole, in one transaction,
    /// so one object tells). A new migration needs one too.
    probe: Probe,
}

/// What tells that a migration was applied to a file from before `schema_migrations`.
enum Probe {
    /// This table exists.
    Table(&'static str),
    /// This table has this column.
    Column(&'static str, &'static str),
}

impl Probe {
    fn holds(&self, conn: &Connection) -> rusqlite::Result<bool> {
        match self {
            Probe::Table(table) => table_exists(conn, table),
            Probe::Column(table, column) => conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2)",
                params![table, column],
                |r| r.get(0),
            ),
        }
    }
}

fn table_exists(conn: &Connection, table: &str) -> rusqlite::Result<bool> {
    conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
        [table],
        |r| r.get(0),
    )
}

mod frontier;

/// How long a statement waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The SQLite backend.
pub(crate) struct Sqlite {
    path: PathBuf,
    writer: Arc<tokio::sync::Mutex<Connection>>,
    reader: Arc<tokio::sync::Mutex<Connection>>,
    audit: audit::AuditQueue,
    robots: codec::RobotsCache,
    /// Statements run on this store's connections (the benches' count per page).
    statements: Arc<AtomicU64>,
}

impl std::fmt::Debug for Sqlite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sqlite").field("path", &self.path).finish_non_exhaustive()
    }
}

fn connect(path: &Path) -> Result<Connection, StoreError> {
    let open = |source| StoreError::Open { path: path.to_owned(), source };
    let conn = Connection::open(path).map_err(open)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(open)?;
    // WAL: readers never block the writer; the mode is stored in the file.
    let mode: String =
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0)).map_err(open)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(open(rusqlite::Error::InvalidParameterName(format!(
            "journal_mode is `{mode}`, not `wal`"
        ))));
    }
    // A checkpoint every 4,000 pages of WAL (16 MB) instead of SQLite's 1,000 (issue
    // 27): the gate's rows are rewritten twice per request, and a checkpoint copies a
    // page once however often it was written since the last; at 500 sites the
    // checkpoints (copies and their fsyncs) were a tenth of the crawl's CPU. Removal
    // still truncates the WAL itself (`Sqlite::checkpoint`).
    conn.execute_batch(
        "PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON; PRAGMA synchronous = NORMAL;
         PRAGMA wal_autocheckpoint = 4000;",
    )
    .map_err(open)?;
    // One plan per statement, whatever the values bound (issue 27): without it, SQLite
    // (bundled with STAT4) re-prepares the event lookup, the archive's latest version
    // and the readings of an event at every call, because a bound value might change
    // the plan; the prepared-statement cache was then no cache for them.
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .map_err(open)?;
    Ok(conn)
}

/// Counts every statement `conn` runs to its end (`BEGIN` and `COMMIT` included) in
/// `counter`, from SQLite's own profile hook.
fn count_statements(conn: &mut Connection, counter: &Arc<AtomicU64>) {
    let counter = Arc::clone(counter);
    let _ = conn.trace_v2(
        rusqlite::trace::TraceEventCodes::SQLITE_TRACE_PROFILE,
        Some(move |_: rusqlite::trace::TraceEvent<'_>| {
            counter.fetch_add(1, Ordering::Relaxed);
        }),
    );
}

/// Brings the file to this build's schema: records which migrations it has (filling in
/// `schema_migrations` from `user_version` and the probes for a file from before it),
/// refuses a file with a version this build does not know, then applies each missing
/// migration in its own transaction with its row. Every transaction is `IMMEDIATE` and
/// re-reads what is recorded, so two processes opening one file at once apply nothing
/// twice.
fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let known = MIGRATIONS.last().map_or(0, |m| m.version);
    let open = |source| StoreError::Open { path: path.to_owned(), source };
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(open)?;
    let user_version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(open)?;
    if !table_exists(&tx, "schema_migrations").map_err(open)? {
        if user_version > known {
            return Err(StoreError::TooNew { path: path.to_owned(), found: user_version, known });
        }
        tx.execute_batch(
            "CREATE TABLE schema_migrations (
                 version    INTEGER PRIMARY KEY,
                 applied_ms INTEGER NOT NULL
             ) STRICT;",
        )
        .map_err(open)?;
        // A file from before the table: `user_version` was the highest version applied,
        // and migrations were applied in number order, so a version at or below it was
        // applied unless it landed in the code later (7); the probes tell which.
        let now = codec::to_ms(SystemTime::now());
        for m in MIGRATIONS.iter().filter(|m| m.version <= user_version) {
            if m.probe.holds(&tx).map_err(open)? {
                tx.execute(
                    "INSERT INTO schema_migrations (version, applied_ms) VALUES (?1, ?2)",
                    params![m.version, now],
                )
                .map_err(open)?;
            }
        }
    }
    let recorded = recorded_migrations(&tx).map_err(open)?;
    let unknown = recorded.iter().copied().filter(|v| !MIGRATIONS.iter().any(|m| m.version == *v));
    if let Some(found) = unknown.chain([user_version].into_iter().filter(|v| *v > known)).max() {
        return Err(StoreError::TooNew { path: path.to_owned(), found, known });
    }
    tx.commit().map_err(open)?;

    for m in MIGRATIONS.iter().filter(|m| !recorded.contains(&m.version)) {
        let err =
            |source| StoreError::Migrate { path: path.to_owned(), version: m.version, source };
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(open)?;
        // Another process may have applied it since the set was read.
        if recorded_migrations(&tx).map_err(err)?.contains(&m.version) {
            continue;
        }
        tx.execute_batch(m.sql).map_err(err)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_ms) VALUES (?1, ?2)",
            params![m.version, codec::to_ms(SystemTime::now())],
        )
        .map_err(err)?;
        let highest: i64 = tx
            .query_row("SELECT max(version) FROM schema_migrations", [], |r| r.get(0))
            .map_err(err)?;
        tx.pragma_update(None, "user_version", highest).map_err(err)?;
        tx.commit().map_err(err)?;
    }
    Ok(())
}

/// The versions `schema_migrations` records, in order.
fn recorded_migrations(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare("SELECT version FROM schema_migrations ORDER BY version")?
        .query_map([], |r| r.get(0))?
        .collect()
}

/// The writer, its transaction still open rolled back when dropped (a commit leaves none).
struct EndsOnDrop<'a>(tokio::sync::MutexGuard<'a, Connection>);

impl Drop for EndsOnDrop<'_> {
    fn drop(&mut self) {
        recover(&self.0);
    }
}

/// A transaction left open by a cancelled caller is rolled back before the next use.
fn recover(conn: &Connection) {
    if !conn.is_autocommit() {
        let _ = conn.execute_batch("ROLLBACK");
    }
}

async fn blocking<R: Send + 'static>(
    f: impl FnOnce() -> Result<R, StoreError> + Send + 'static,
) -> Result<R, StoreError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| StoreError::Worker(e.to_string()))?
}

fn load_site(
    conn: &Connection,
    site: &str,
    cache: &codec::RobotsCache,
) -> Result<Option<SiteState>, StoreError> {
    let row = conn
        .prepare_cached(
            "SELECT budget, in_flight, robots, robots_body, failure_streak FROM site_state WHERE site = ?1",
        )
        .and_then(|mut st| {
            st.query_row([site], |r| {
                Ok(SiteRow {
                    budget: r.get(0)?,
                    in_flight: r.get(1)?,
                    robots: r.get(2)?,
                    robots_body: r.get(3)?,
                    failure_streak: r.get(4)?,
                })
            })
            .optional()
        })
        .doing(|| format!("reading the state of `{site}`"))?;
    let Some(row) = row else { return Ok(None) };
    cache.decode(site, row).map(Some)
}

fn load_global(conn: &Connection) -> Result<GlobalBudget, StoreError> {
    conn.prepare_cached("SELECT day, requests FROM global_budget WHERE id = 1")
        .and_then(|mut st| st.query_row([], |r| Ok(codec::decode_global(r.get(0)?, r.get(1)?))))
        .doing(|| "reading the global budget".to_owned())
}

fn save_site(
    conn: &mut Connection,
    site: &str,
    before: &Option<SiteState>,
    after: &SiteState,
    now: SystemTime,
) -> Result<(), StoreError> {
    let row = codec::encode_site(after);
    let doing = || format!("saving the state of `{site}`");
    conn.prepare_cached(
        "INSERT INTO site_state (site, budget, in_flight, failure_streak, updated_us)
         VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (site) DO UPDATE SET budget = excluded.budget, in_flight = excluded.in_flight,
             failure_streak = excluded.failure_streak, updated_us = excluded.updated_us",
    )
    .and_then(|mut st| {
        st.execute(params![site, row.budget, row.in_flight, row.failure_streak, codec::to_us(now)])
    })
    .doing(doing)?;
    let old_robots = before.as_ref().and_then(|s| s.robots.as_ref());
    if old_robots != after.robots.as_ref() {
        conn.prepare_cached("UPDATE site_state SET robots = ?2, robots_body = ?3 WHERE site = ?1")
            .and_then(|mut st| st.execute(params![site, row.robots, row.robots_body]))
            .doing(doing)?;
        if let Some(body) = &row.robots_body {
            let url = format!("{site}/robots.txt");
            let mut tx = SqliteTx { conn, doing: doing() };
            now_or_never(audit::archive(&mut tx, site, DocumentKind::Robots, &url, body, now))?;
        }
    }
    Ok(())
}

/// The audit writer's own connection.
struct AuditConn(Connection);

impl crate::backend::AuditWriter for AuditConn {
    /// One `BEGIN IMMEDIATE` transaction per batch, tried again once after the busy
    /// timeout.
    fn write<'a>(
        &'a mut self,
        batch: &'a [AuditRecord],
        validators: &'a [audit::ValidatorsWrite],
    ) -> BoxFuture<'a, ()> {
        if write_audit(&mut self.0, batch, validators).is_err() {
            let _ = write_audit(&mut self.0, batch, validators);
        }
        Box::pin(std::future::ready(()))
    }
}

fn write_audit(
    conn: &mut Connection,
    batch: &[AuditRecord],
    validators: &[audit::ValidatorsWrite],
) -> rusqlite::Result<()> {
    recover(conn);
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if !validators.is_empty() {
        let mut st = tx.prepare_cached(crate::content::UPSERT_VALIDATORS_SQLITE)?;
        for v in validators {
            let at = codec::to_ms(v.at);
            st.execute(params![v.url, codec::host_of(&v.url), v.etag, v.last_modified, at])?;
        }
    }
    {
        let mut st = tx.prepare_cached(
            "INSERT INTO audit_log (time_ms, site, host, url, purpose, source, status, error,
                 bytes, duration_ms, reason, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )?;
        for r in batch {
            st.execute(params![
                codec::to_ms(r.time),
                r.site,
                codec::host_of(&r.site),
                r.url,
                r.purpose.as_str(),
                r.source,
                r.outcome.status(),
                r.error,
                i64::try_from(r.bytes).unwrap_or(i64::MAX),
                codec::duration_ms(r.duration),
                r.reason,
                r.outcome.code(),
            ])?;
        }
    }
    tx.commit()
}

impl Sqlite {
    /// Opens (creating and migrating) the database at `path`.
    pub(crate) fn open(path: &Path) -> Result<Sqlite, StoreError> {
        let mut writer = connect(path)?;
        migrate(&mut writer, path)?;
        let mut reader = connect(path)?;
        let mut audit_conn = connect(path)?;
        let statements = Arc::new(AtomicU64::new(0));
        for conn in [&mut writer, &mut reader, &mut audit_conn] {
            count_statements(conn, &statements);
        }
        Ok(Sqlite {
            path: path.to_owned(),
            writer: Arc::new(tokio::sync::Mutex::new(writer)),
            reader: Arc::new(tokio::sync::Mutex::new(reader)),
            audit: audit::AuditQueue::start(AuditConn(audit_conn))?,
            robots: Default::default(),
            statements,
        })
    }

    /// How many statements this store's connections have run so far.
    pub(crate) fn statements_run(&self) -> u64 {
        self.statements.load(Ordering::Relaxed)
    }

    /// The database file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` on the reader connection.
    async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let conn = Arc::clone(&self.reader).lock_owned().await;
        blocking(move || {
            recover(&conn);
            f(&conn)
        })
        .await
    }

    // ----- gate state -------------------------------------------------------------

    /// Requests that were in flight when their process died are over: clears every
    /// in-flight counter. Only the holder of the crawler lease calls this.
    pub(crate) async fn reset_in_flight(&self) -> Result<u64, StoreError> {
        let sql = "UPDATE site_state SET in_flight = '{}' WHERE in_flight != '{}'";
        let doing = "clearing requests left in flight by a previous crawler".to_owned();
        (self as &dyn Db).exec(sql, Vec::new(), doing).await
    }

    // ----- retention and removal --------------------------------------------------------

    /// Copies the WAL into the database file and truncates it, so deleted (and, with
    /// `secure_delete`, zeroed) pages are the only copies left.
    async fn checkpoint(&self, site: String) -> Result<(), StoreError> {
        let conn = Arc::clone(&self.writer).lock_owned().await;
        blocking(move || {
            recover(&conn);
            let (busy, _, _): (i64, i64, i64) = conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })
                .doing(|| "checkpointing the WAL".to_owned())?;
            if busy != 0 {
                return Err(StoreError::CheckpointBusy { site });
            }
            Ok(())
        })
        .await
    }
}

/// Runs one statement (`$N` placeholders) on `conn`.
fn run_sql(conn: &Connection, sql: &str, params: &[Value]) -> rusqlite::Result<Written> {
    let mut st = conn.prepare_cached(&Dialect::Sqlite.render(sql))?;
    let params = rusqlite::params_from_iter(params);
    if st.column_count() == 0 {
        return Ok(Written { changed: st.execute(params)? as u64, rows: Vec::new() });
    }
    let readonly = st.readonly();
    let rows = st.query_map(params, SqlRow::from_sqlite)?.collect::<rusqlite::Result<Vec<_>>>()?;
    let changed = if readonly { 0 } else { conn.changes() };
    Ok(Written { changed, rows })
}

/// Polls a future once: the statements of a SQLite transaction run synchronously, so
/// its body is complete after one poll.
fn now_or_never<T>(
    fut: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let mut fut = std::pin::pin!(fut);
    match fut.as_mut().poll(&mut std::task::Context::from_waker(std::task::Waker::noop())) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => {
            Err(StoreError::Worker("a SQLite statement waited in a transaction".into()))
        }
    }
}

/// A connection inside a transaction.
struct SqliteTx<'c> {
    conn: &'c mut Connection,
    doing: String,
}

impl Tx for SqliteTx<'_> {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn run<'a>(
        &'a mut self,
        sql: &'a str,
        params: Vec<Value>,
    ) -> BoxFuture<'a, Result<Written, StoreError>> {
        Box::pin(std::future::ready(run_sql(self.conn, sql, &params).doing(|| self.doing.clone())))
    }
}

impl Db for Sqlite {
    fn dialect(&self) -> Dialect {
        Dialect::Sqlite
    }

    fn query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<SqlRow>, StoreError>> {
        let sql = sql.to_owned();
        Box::pin(
            self.read(move |conn| run_sql(conn, &sql, &params).map(|w| w.rows).doing(|| doing)),
        )
    }

    fn write<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Written, StoreError>> {
        Box::pin(async move {
            let db: &dyn Db = self;
            let sql = sql.to_owned();
            db.tx(doing, move |tx| Box::pin(async move { tx.run(&sql, params).await })).await
        })
    }

    fn point_query<'a>(
        &'a self,
        sql: &'a str,
        params: Vec<Value>,
        doing: String,
    ) -> BoxFuture<'a, Result<Vec<SqlRow>, StoreError>> {
        Box::pin(async move {
            let conn = self.reader.lock().await;
            recover(&conn);
            run_sql(&conn, sql, &params).map(|w| w.rows).doing(|| doing)
        })
    }

    fn transaction(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>> {
        let conn = Arc::clone(&self.writer).lock_owned();
        Box::pin(async move { run_body(conn.await, "BEGIN IMMEDIATE", doing, body).await })
    }

    fn snapshot(&self, doing: String, body: TxBody) -> BoxFuture<'_, Result<(), StoreError>> {
        let conn = Arc::clone(&self.reader).lock_owned();
        Box::pin(async move { run_body(conn.await, "BEGIN", doing, body).await })
    }
}

/// Runs `body` on `conn` inside a transaction opened with `begin`, committed when it
/// succeeds and rolled back otherwise.
async fn run_body(
    mut conn: tokio::sync::OwnedMutexGuard<Connection>,
    begin: &'static str,
    doing: String,
    body: TxBody,
) -> Result<(), StoreError> {
    blocking(move || {
        recover(&conn);
        conn.execute_batch(begin).doing(|| doing.clone())?;
        let mut tx = SqliteTx { conn: &mut conn, doing };
        match now_or_never(body(&mut tx)) {
            Ok(()) => tx.conn.execute_batch("COMMIT").doing(|| tx.doing.clone()),
            Err(error) => {
                let _ = tx.conn.execute_batch("ROLLBACK");
                Err(error)
            }
        }
    })
    .await
}

#[async_trait::async_trait]
impl crate::backend::GateBackend for Sqlite {
    /// Applies `change` to a site's state and the global budget, committed before it
    /// returns. The read and the write happen in one `BEGIN IMMEDIATE` transaction, so
    /// another process's update to the same site waits instead of being lost.
    ///
    /// It runs on the calling thread, not the blocking pool (issue 27: at 500 sites the
    /// two hops per update cost more CPU in thread wake-ups than the SQL itself): a few
    /// statements on one row and a WAL append, microseconds; the thread blocks longer
    /// only while another process holds the write lock (up to the busy timeout) or
    /// when a commit runs SQLite's automatic checkpoint (every ~1,000 pages of WAL).
    /// Nothing is awaited between `BEGIN` and `COMMIT`, so a cancelled caller never
    /// leaves the transaction open.
    async fn update_site(
        &self,
        site: &str,
        _worker: &str,
        change: Change<'_>,
        leased: Option<&mut GlobalBudget>,
        guard: Option<&registry::RegistryGuard>,
    ) -> Result<registry::RegistrySeen, StoreError> {
        // A change that panics unwinds through here: the transaction ends at once, not
        // at the writer's next use, so other processes do not wait behind it.
        let mut ends = EndsOnDrop(self.writer.lock().await);
        let conn: &mut Connection = &mut ends.0;
        recover(conn);
        conn.execute_batch("BEGIN IMMEDIATE")
            .doing(|| format!("reserving the budget of `{site}`"))?;
        let result = || {
            let before = load_site(conn, site, &self.robots)?;
            let mut after = before.clone().unwrap_or_default();
            // The change is pure (policy decisions on the loaded state): no I/O while the
            // transaction is open.
            let now = SystemTime::now();
            match leased {
                Some(view) => change(&mut after, view),
                None => {
                    let mut global = load_global(conn)?;
                    let global_before = global.clone();
                    change(&mut after, &mut global);
                    if global != global_before {
                        let (day, requests) = codec::encode_global(&global);
                        conn.prepare_cached(
                            "UPDATE global_budget SET day = ?1, requests = ?2 WHERE id = 1",
                        )
                        .and_then(|mut st| st.execute(params![day, requests]))
                        .doing(|| "saving the global budget".to_owned())?;
                    }
                }
            }
            // The store reads the registry before each request on SQLite and passes no
            // guard; one given is checked all the same.
            let seen = match guard {
                Some(guard) if registry::reserves(before.as_ref(), &after) => {
                    let mut tx =
                        SqliteTx { conn, doing: format!("reserving the budget of `{site}`") };
                    now_or_never(registry::check_registry(&mut tx, site, guard, None))?
                }
                _ => registry::RegistrySeen::Unmoved,
            };
            if before.as_ref() != Some(&after) {
                save_site(conn, site, &before, &after, now)?;
            }
            conn.execute_batch("COMMIT")
                .doing(|| format!("committing the state of `{site}`"))
                .map(|()| seen)
        };
        let result = result();
        if result.is_err() {
            recover(&ends.0);
        }
        result
    }

    /// On the calling thread, as [`Sqlite::update_site`]: one row by key.
    async fn site_state(&self, site: &str) -> Result<Option<SiteState>, StoreError> {
        let conn = self.reader.lock().await;
        recover(&conn);
        load_site(&conn, site, &self.robots)
    }
}

impl crate::backend::AuditBackend for Sqlite {
    fn audit(&self) -> &audit::AuditQueue {
        &self.audit
    }
}

#[async_trait::async_trait]
impl crate::backend::EventsBackend for Sqlite {
    /// [`Sqlite::upsert_event`], committed only while `fence` (a work lease) is current,
    /// checked in the same transaction. The reading joins the stored event it is the same
    /// event as (`crate::merge`), which becomes the merge of all its readings.
    async fn upsert_event_fenced(
        &self,
        write: &EventWrite<'_>,
        fence: Option<&crate::model::WorkLease>,
        registry: i64,
    ) -> Result<Upserted, StoreError> {
        let fence = fence.cloned();
        let incoming = merge::incoming(write);
        let lookup = merge::lookup(&incoming);
        let fetched_at = write.fetched_at;
        let db: &dyn Db = self;
        let doing = format!("storing event `{}`", lookup.identity);
        db.tx(doing, move |tx| {
            Box::pin(async move {
                // The claim must be current and unexpired on this process's clock; the
                // writer's `BEGIN IMMEDIATE` keeps anyone from claiming the item before
                // the write commits.
                if let Some(lease) = fence {
                    let sql = "SELECT 1 FROM frontier WHERE id = $1 AND lease_token = $2
                         AND done_ms IS NULL AND lease_until_ms > $3";
                    let params = crate::sql::params![lease.id, lease.token, SystemTime::now()];
                    if tx.row(sql, params).await?.is_none() {
                        return Err(crate::events::fenced_out(&lease));
                    }
                }
                crate::events::write_event(tx, incoming, lookup, fetched_at, registry).await
            })
        })
        .await
    }
}

#[async_trait::async_trait]
impl crate::backend::RetentionBackend for Sqlite {
    /// Removes a site's content in one transaction (`crate::registry`), then
    /// checkpoints the WAL so, with `secure_delete`, the bytes are gone from the files.
    async fn remove_site(
        &self,
        scope: Scope,
        reference: String,
        now: SystemTime,
    ) -> Result<RemovalReport, StoreError> {
        let site = registry::scope_columns(&scope).1.to_owned();
        let db: &dyn Db = self;
        let report = db
            .tx(format!("removing `{site}`"), move |tx| {
                Box::pin(async move {
                    let id = registry::open_removal(tx, &scope, &reference, now).await?;
                    let deleted = registry::delete_site_content(tx, &scope).await?;
                    registry::close_removal(tx, &scope, id, deleted, now).await
                })
            })
            .await?;
        self.checkpoint(site).await?;
        Ok(report)
    }

    async fn integrity_check(&self) -> Result<String, StoreError> {
        self.read(|conn| {
            conn.query_row("PRAGMA integrity_check", [], |r| r.get(0))
                .doing(|| "checking the database".to_owned())
        })
        .await
    }
}

#[async_trait::async_trait]
impl crate::backend::SharedBackend for Sqlite {
    /// One process owns the file: this machine's clock.
    async fn database_time(&self) -> Result<SystemTime, StoreError> {
        Ok(SystemTime::now())
    }

    /// `None`: one process owns the file and the version check before each request
    /// sees every change.
    fn registry_changes(&self) -> Option<tokio::sync::watch::Receiver<u64>> {
        None
    }

    /// `None`: the one crawling process counts in memory.
    async fn take_daily(
        &self,
        _key: &str,
        _day: chrono::NaiveDate,
        _cap: u32,
    ) -> Result<Option<bool>, StoreError> {
        Ok(None)
    }

    /// Nothing to give back: nothing was taken.
    async fn give_back_daily(&self, _key: &str, _day: chrono::NaiveDate) -> Result<(), StoreError> {
        Ok(())
    }
}
