//! The store's error type: what failed, on which file or site, and what to do next.

use std::path::PathBuf;

/// Something the store could not do.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store URL is neither `sqlite://PATH` nor `postgres://…`.
    #[error(
        "unsupported store URL `{url}`\nhint: use `sqlite://PATH` or `postgres://USER@HOST:PORT/DATABASE`"
    )]
    UnsupportedUrl {
        /// The URL as configured.
        url: String,
    },
    /// The database file could not be opened or prepared.
    #[error("failed to open the store `{}`: {source}", path.display())]
    Open {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// A migration failed.
    #[error("failed to migrate the store `{}` to schema version {version}: {source}", path.display())]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// The version being applied.
        version: i64,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// The database was written by a newer gleaner.
    #[error(
        "the store `{}` has schema version {found}, newer than this gleaner knows ({known})\nhint: upgrade gleaner",
        path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// Its version.
        found: i64,
        /// The newest this build knows.
        known: i64,
    },
    /// A `postgres://` URL that does not parse.
    #[error(
        "invalid PostgreSQL store URL: {detail}\nhint: write `postgres://USER[:PASSWORD]@HOST:PORT/DATABASE`"
    )]
    PostgresUrl {
        /// What was wrong (never the URL itself: it may hold a password).
        detail: String,
    },
    /// The PostgreSQL server could not be reached, or refused the connection.
    #[error(
        "failed to connect to the store `{location}`: {}\nhint: check that PostgreSQL is running, that the database exists and that `store.url` names it",
        pg_message(source)
    )]
    PostgresConnect {
        /// The database (`postgres://user@host:port/db`, no password).
        location: String,
        /// Why.
        #[source]
        source: tokio_postgres::Error,
    },
    /// A PostgreSQL migration failed.
    #[error(
        "failed to migrate the store `{location}` to schema version {version}: {}",
        pg_message(source)
    )]
    PostgresMigrate {
        /// The database.
        location: String,
        /// The version being applied.
        version: i64,
        /// Why.
        #[source]
        source: tokio_postgres::Error,
    },
    /// The PostgreSQL database was migrated by a newer gleaner.
    #[error(
        "the store `{location}` has schema version {found}, newer than this gleaner knows ({known})\nhint: upgrade gleaner on every worker sharing this database"
    )]
    TooNewPostgres {
        /// The database.
        location: String,
        /// Its version.
        found: i64,
        /// The newest this build knows.
        known: i64,
    },
    /// A configured schema name is not a plain SQL identifier.
    #[error(
        "`{name}` cannot be a schema name\nhint: use lower-case letters, digits and `_`, starting with a letter (for example `staging`)"
    )]
    BadSchema {
        /// The name.
        name: String,
    },
    /// A schema is already used for something else (a whole store, a namespace, a copy).
    #[error(
        "the schema `{schema}` of `{location}` holds a {found} store, and this configuration uses it as a {wanted} store\nhint: a copy needs a schema of its own (`store.schema`) and names the whole store whose budgets it shares in `store.politeness_namespace`; a whole store cannot become a copy, nor a copy a whole store"
    )]
    SchemaRole {
        /// The database.
        location: String,
        /// The schema.
        schema: String,
        /// What it holds.
        found: String,
        /// What this configuration wants it to hold.
        wanted: &'static str,
    },
    /// Schemas (copies, namespaces) were asked of a SQLite store.
    #[error(
        "`{url}` is a SQLite store, which is always one whole store\nhint: copies sharing a politeness namespace need PostgreSQL: set `store.url = \"postgres://…\"`, or remove `store.schema` and `store.politeness_namespace`"
    )]
    SchemasNeedPostgres {
        /// The store URL.
        url: String,
    },
    /// No pooled connection could be had in time.
    #[error(
        "no connection to the store `{location}`: {detail}\nhint: check that PostgreSQL is running and accepts more connections"
    )]
    PostgresPool {
        /// The database.
        location: String,
        /// Why.
        detail: String,
    },
    /// A PostgreSQL statement failed.
    #[error("store query failed on `{location}` while {doing}: {}", pg_message(source))]
    Postgres {
        /// The database.
        location: String,
        /// What was being done (for example "reserving the budget of `https://a.test`").
        doing: String,
        /// Why.
        #[source]
        source: tokio_postgres::Error,
    },
    /// Another process holds the crawler lease on this database.
    #[error(
        "another gleaner is already crawling with the store `{}` (lock `{}` is held)\nhint: stop the other crawler, or give this one its own `store.url`",
        path.display(),
        lock.display()
    )]
    CrawlerRunning {
        /// The database file.
        path: PathBuf,
        /// The lock file.
        lock: PathBuf,
    },
    /// The crawler lock file could not be created.
    #[error("failed to create the crawler lock `{}`: {source}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A statement failed.
    #[error("store query failed while {doing}: {source}")]
    Query {
        /// What was being done (for example "removing `example.org`").
        doing: String,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored value could not be read back.
    #[error("corrupt value in the store ({what}): {detail}")]
    Corrupt {
        /// Which table and column.
        what: String,
        /// What was wrong.
        detail: String,
    },
    /// Not a domain or URL prefix.
    #[error(
        "`{0}` is neither a domain nor a URL\nhint: write `example.org` or `https://example.org/agenda/`"
    )]
    BadScope(String),
    /// The removal could not make the deleted bytes disappear from the files.
    #[error(
        "removed `{site}`, but the WAL checkpoint could not finish because another process is reading\nhint: run `gleaner remove` again once the crawler is idle"
    )]
    CheckpointBusy {
        /// The site.
        site: String,
    },
    /// A background task died.
    #[error("store worker stopped: {0}")]
    Worker(String),
    /// A worker's claim on a work item is no longer current (its lease expired, or
    /// another worker claimed the item since): its results are refused (SPEC §7).
    #[error(
        "not storing results for `{url}`: this worker's claim (fencing token {token}) is no longer current\nhint: another worker owns the item now; nothing to do"
    )]
    FencedOut {
        /// The claimed item's URL.
        url: String,
        /// The stale token.
        token: i64,
    },
    /// The owners' registry changed after the caller decided what to keep of an event
    /// (an owner's "facts only"): nothing was written.
    #[error(
        "not storing an event: the owners' registry changed (version {seen}, expected {expected}) while it was being stored\nhint: store it again; the new registry then applies"
    )]
    RegistryMoved {
        /// The version the caller decided at.
        expected: i64,
        /// The version the write found.
        seen: i64,
    },

    /// A reservation found the owners' registry changed for its site since the request
    /// was decided (issue 27: the reservation checks the version the gate's lookup
    /// answered from); nothing was reserved.
    #[error(
        "not reserving a request to `{site}`: the owners' registry changed for this site (version {seen}, the request was decided at {expected})\nhint: nothing was sent; the request is decided again on the new registry when it is asked again"
    )]
    RegistryMovedForSite {
        /// The site of the request.
        site: String,
        /// The version the request was decided at.
        expected: i64,
        /// The version the reservation found.
        seen: i64,
    },
}

impl StoreError {
    /// True when trying again later may succeed (the database was busy).
    pub fn is_retryable(&self) -> bool {
        let busy = |e: &rusqlite::Error| {
            matches!(
                e.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            )
        };
        match self {
            StoreError::Query { source, .. } | StoreError::Open { source, .. } => busy(source),
            StoreError::CheckpointBusy { .. } | StoreError::CrawlerRunning { .. } => true,
            StoreError::PostgresPool { .. } | StoreError::PostgresConnect { .. } => true,
            StoreError::Postgres { source, .. } => {
                use tokio_postgres::error::SqlState;
                source.is_closed()
                    || source.code().is_some_and(|c| {
                        *c == SqlState::T_R_SERIALIZATION_FAILURE
                            || *c == SqlState::T_R_DEADLOCK_DETECTED
                            || *c == SqlState::LOCK_NOT_AVAILABLE
                    })
            }
            _ => false,
        }
    }
}

/// Wraps a rusqlite error with what was being done.
pub(crate) trait Doing<T> {
    /// Adds the context.
    fn doing(self, doing: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T> Doing<T> for Result<T, rusqlite::Error> {
    fn doing(self, doing: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Query { doing: doing(), source })
    }
}

/// A PostgreSQL error in one line: the server's message and code when it sent one (the
/// driver's own `Display` says only "db error"), else the driver's description.
pub(crate) fn pg_message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut text = format!("{} ({})", db.message(), db.code().code());
            if let Some(detail) = db.detail() {
                text.push_str(&format!("; {detail}"));
            }
            text
        }
        None => match std::error::Error::source(e) {
            Some(cause) => format!("{e}: {cause}"),
            None => e.to_string(),
        },
    }
}
