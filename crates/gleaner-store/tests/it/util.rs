//! Helpers shared by the store tests, and [`each_backend`]: one test body run on a fresh
//! SQLite file and on a fresh PostgreSQL database (the `SearcherTester` idea from
//! ripgrep, the URL convention from sqlx's tests).
//!
//! PostgreSQL runs when `GLEANER_TEST_POSTGRES_URL` names a server and database to
//! connect to (for example `postgres://postgres@127.0.0.1:5432/test`): every test body
//! gets its own `gleaner_test_…` database, dropped when the body ends (the server keeps
//! its state between runs). In CI (`CI=true`) a missing variable or an unreachable
//! server fails the tests; locally, without the variable, a notice says that only SQLite
//! ran.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::NaiveDate;
use gleaner_event::time::EventTime;
use gleaner_event::{Category, Event, EventStatus, Price, Venue};
use gleaner_store::{BackendKind, Store};
use url::Url;

/// The variable naming the PostgreSQL server the tests use.
pub const POSTGRES_ENV: &str = "GLEANER_TEST_POSTGRES_URL";

/// A fresh store on one backend, and what the test needs to reach it again.
pub struct TestDb {
    /// The store under test.
    pub store: Store,
    url: String,
    place: Place,
}

enum Place {
    Sqlite { _dir: tempfile::TempDir, path: PathBuf },
    Postgres(PgDatabase),
}

impl TestDb {
    /// Which backend.
    pub fn kind(&self) -> BackendKind {
        self.store.kind()
    }

    /// The store URL (for a child process, or `Store::open`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Another handle on the same database, with its own connections: what another
    /// process would have.
    pub fn reopen(&self) -> Store {
        Store::open(&self.url).unwrap()
    }

    /// The SQLite file, for SQLite-only checks (`None` on PostgreSQL).
    pub fn sqlite_path(&self) -> Option<&Path> {
        match &self.place {
            Place::Sqlite { path, .. } => Some(path),
            Place::Postgres(_) => None,
        }
    }

    /// Every table whose rows hold `needle` in a text or binary value.
    pub async fn tables_containing(&self, needle: &str) -> Vec<String> {
        match &self.place {
            Place::Sqlite { path, .. } => sqlite_tables_containing(path, needle),
            Place::Postgres(db) => db.tables_containing(needle).await,
        }
    }

    /// A connection of its own to the PostgreSQL database (`None` on SQLite), for a test
    /// that holds a transaction open while the store works.
    pub async fn postgres_client(&self) -> Option<tokio_postgres::Client> {
        match &self.place {
            Place::Sqlite { .. } => None,
            Place::Postgres(db) => Some(db.connect().await),
        }
    }

    /// Runs one SQL query returning a single `BIGINT` (or SQLite integer) value, or none.
    pub async fn query_i64(&self, sql: &str) -> Option<i64> {
        match &self.place {
            Place::Sqlite { path, .. } => {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0)).unwrap()
            }
            Place::Postgres(db) => {
                let client = db.connect().await;
                client.query_one(sql, &[]).await.unwrap().get::<_, Option<i64>>(0)
            }
        }
    }
}

/// A fresh SQLite store in a temporary directory.
pub fn sqlite_db() -> TestDb {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.db");
    let store = Store::open_sqlite(&path).unwrap();
    TestDb {
        store,
        url: format!("sqlite://{}", path.display()),
        place: Place::Sqlite { _dir: dir, path },
    }
}

/// A fresh PostgreSQL store, or `None` when no server is configured (outside CI).
pub fn postgres_db() -> Option<TestDb> {
    let admin = postgres_url()?;
    let db = PgDatabase::create(&admin);
    let store = Store::open(&db.url).unwrap_or_else(|e| panic!("{e:#}"));
    Some(TestDb { store, url: db.url.clone(), place: Place::Postgres(db) })
}

/// A fresh, empty PostgreSQL database (no store opened in it), or `None` when no server
/// is configured (outside CI).
pub fn postgres_database() -> Option<PgDatabase> {
    Some(PgDatabase::create(&postgres_url()?))
}

/// The configured PostgreSQL URL. Fails in CI when it is missing; prints a notice
/// locally.
pub fn postgres_url() -> Option<String> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") => panic!(
            "{POSTGRES_ENV} is not set, and CI must run the store tests on PostgreSQL too\n\
             hint: `.ci/run` exports it; set it to e.g. postgres://postgres@127.0.0.1:5432/test"
        ),
        _ => {
            static NOTICE: std::sync::Once = std::sync::Once::new();
            // The notice is the point: loud, on stderr.
            #[allow(clippy::print_stderr)]
            NOTICE.call_once(|| {
                eprintln!(
                    "\n*** NOTICE: {POSTGRES_ENV} is not set: the store tests ran on SQLite ONLY.\n\
                     *** Set it (e.g. postgres://postgres@127.0.0.1:5432/test) to run them on PostgreSQL too.\n"
                );
            });
            None
        }
    }
}

/// Runs `body` on a fresh SQLite store, then on a fresh PostgreSQL database.
pub async fn each_backend<F, Fut>(body: F)
where
    F: Fn(TestDb) -> Fut,
    Fut: Future<Output = ()>,
{
    body(sqlite_db()).await;
    if let Some(db) = postgres_db() {
        body(db).await;
    }
}

/// Defines a `#[tokio::test]` whose body runs on every backend with `$db: TestDb`.
#[macro_export]
macro_rules! each_backend_test {
    ($(#[$meta:meta])* async fn $name:ident($db:ident) $body:block) => {
        $(#[$meta])*
        #[tokio::test]
        async fn $name() {
            // `let` moves the whole value in: a closure capturing only `db.store` would
            // drop the database (and its guard) before the body runs.
            $crate::util::each_backend(|$db: $crate::util::TestDb| async move {
                let $db = $db;
                $body
            })
            .await;
        }
    };
}

/// A database created for one test body and dropped after it.
pub struct PgDatabase {
    admin: String,
    name: String,
    /// Its URL.
    pub url: String,
}

/// Runs a future on a private runtime on another thread (for set-up and tear-down from
/// synchronous code, inside a runtime or not).
fn block_on_thread<R: Send>(f: impl Future<Output = R> + Send) -> R {
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
        })
        .join()
        .unwrap()
    })
}

async fn pg_connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) =
        tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap_or_else(|e| {
            panic!(
                "PostgreSQL at {POSTGRES_ENV}={url} is unreachable: {e}\n\
                 hint: start it (`.ci/run` does) or unset {POSTGRES_ENV} to test SQLite only"
            )
        });
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

impl PgDatabase {
    fn create(admin: &str) -> PgDatabase {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos();
        let name = format!(
            "gleaner_test_{}_{}_{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let admin = admin.to_owned();
        let sql = format!("CREATE DATABASE {name}");
        block_on_thread(async {
            let client = pg_connect(&admin).await;
            static SWEEP: std::sync::Once = std::sync::Once::new();
            let mut sweep = false;
            SWEEP.call_once(|| sweep = true);
            if sweep {
                drop_orphans(&client).await;
            }
            client.batch_execute(&sql).await.unwrap();
        });
        let mut url = Url::parse(&admin).unwrap();
        url.set_path(&format!("/{name}"));
        PgDatabase { admin, name, url: url.to_string() }
    }

    /// A plain client on this database.
    pub async fn connect(&self) -> tokio_postgres::Client {
        pg_connect(&self.url).await
    }

    async fn tables_containing(&self, needle: &str) -> Vec<String> {
        let client = self.connect().await;
        let tables: Vec<String> = client
            .query(
                "SELECT table_name::text FROM information_schema.tables
                 WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(tables.len() >= 15, "the whole schema is enumerated: {tables:?}");
        // bytea values appear in JSON as `\x` and lower-case hex.
        let hex: String = needle.bytes().map(|b| format!("{b:02x}")).collect();
        let mut found = Vec::new();
        for table in tables {
            let rows = client
                .query(&format!("SELECT row_to_json(t)::text FROM \"{table}\" t"), &[])
                .await
                .unwrap();
            if rows.iter().any(|r| {
                let json: String = r.get(0);
                json.contains(needle) || json.contains(&hex)
            }) {
                found.push(table);
            }
        }
        found
    }
}

/// Drops the test databases of test processes that no longer run (killed before their
/// guards could drop them), so the shared server does not fill up across sessions.
async fn drop_orphans(client: &tokio_postgres::Client) {
    let names: Vec<String> = client
        .query("SELECT datname::text FROM pg_database WHERE datname LIKE 'gleaner_test_%'", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    for name in names {
        let pid = name.trim_start_matches("gleaner_test_").split('_').next().unwrap_or("");
        let alive = !pid.is_empty() && Path::new(&format!("/proc/{pid}")).exists();
        if !alive {
            let _ =
                client.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        }
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let admin = self.admin.clone();
        block_on_thread(async move {
            let _ = pg_connect(&admin).await.batch_execute(&sql).await;
        });
    }
}

fn sqlite_tables_containing(path: &Path, needle: &str) -> Vec<String> {
    use rusqlite::types::ValueRef;
    let conn = rusqlite::Connection::open(path).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(tables.len() >= 15, "the whole schema is enumerated: {tables:?}");
    let mut found = Vec::new();
    for table in tables {
        let mut st = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = st.column_count();
        let mut rows = st.query([]).unwrap();
        'rows: while let Some(row) = rows.next().unwrap() {
            for i in 0..columns {
                let bytes: &[u8] = match row.get_ref(i).unwrap() {
                    ValueRef::Text(t) | ValueRef::Blob(t) => t,
                    _ => continue,
                };
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    found.push(table.clone());
                    break 'rows;
                }
            }
        }
    }
    found
}

/// A time `days` after 2026-01-01.
pub fn day(days: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_767_225_600 + days * 86_400)
}

/// An event on a date, with a description and an image.
pub fn event(title: &str, date: (i32, u32, u32), page: &str, description: &str) -> Event {
    Event {
        title: Some(title.to_owned()),
        start: Some(EventTime::Date(NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap())),
        end: None,
        previous_start: None,
        venue: Venue { name: Some("Town Hall".into()), ..Venue::default() },
        price: Price { min: Some("12.50".parse().unwrap()), ..Price::default() },
        ticket_url: None,
        image_url: Some(Url::parse(&format!("{page}image.jpg")).unwrap()),
        description: Some(description.to_owned()),
        status: EventStatus::Scheduled,
        status_stated: false,
        attendance: None,
        category: Category::Concert,
        url: Some(Url::parse(page).unwrap()),
    }
}
