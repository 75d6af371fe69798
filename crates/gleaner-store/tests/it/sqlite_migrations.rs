//! SQLite only: migrations are recorded as a set in `schema_migrations`, so a migration
//! that landed in the code after later ones had been applied (7 after 8 and 9) still
//! reaches a file that has them; a file from before the table is read by its
//! `user_version` and probes; a version this build does not know is refused.

use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use gleaner_policy::outcome::{FailureKind, Outcome, RefusalKind};
use gleaner_policy::registry::Scope;
use gleaner_store::{Store, StoreError};
use rusqlite::Connection;

/// The SQL of the migrations, as the store applies them.
const SQL: &[(i64, &str)] = &[
    (1, include_str!("../../migrations/sqlite/0001_init.sql")),
    (2, include_str!("../../migrations/sqlite/0002_source_runs.sql")),
    (3, include_str!("../../migrations/sqlite/0003_listing_links.sql")),
    (4, include_str!("../../migrations/sqlite/0004_frontier.sql")),
    (5, include_str!("../../migrations/sqlite/0005_site_leases.sql")),
    (6, include_str!("../../migrations/sqlite/0006_source_failures.sql")),
    (7, include_str!("../../migrations/sqlite/0007_owner_desk.sql")),
    (8, include_str!("../../migrations/sqlite/0008_relay.sql")),
    (9, include_str!("../../migrations/sqlite/0009_llm.sql")),
    (10, include_str!("../../migrations/sqlite/0010_audit_outcome.sql")),
    (11, include_str!("../../migrations/sqlite/0011_event_merge.sql")),
    (12, include_str!("../../migrations/sqlite/0012_owner_lapses.sql")),
    (13, include_str!("../../migrations/sqlite/0013_kept_requests.sql")),
];

/// The newest version this build knows.
const KNOWN: i64 = 13;

fn recorded(path: &Path) -> Vec<(i64, i64)> {
    let conn = Connection::open(path).unwrap();
    conn.prepare("SELECT version, applied_ms FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn pragma(path: &Path, name: &str) -> i64 {
    Connection::open(path).unwrap().query_row(&format!("PRAGMA {name}"), [], |r| r.get(0)).unwrap()
}

fn table_exists(path: &Path, table: &str) -> bool {
    Connection::open(path)
        .unwrap()
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
            [table],
            |r| r.get(0),
        )
        .unwrap()
}

fn versions(rows: &[(i64, i64)]) -> Vec<i64> {
    rows.iter().map(|r| r.0).collect()
}

#[test]
fn a_fresh_file_gets_every_migration_and_a_second_open_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fresh.db");
    drop(Store::open_sqlite(&path).unwrap());
    let first = recorded(&path);
    assert_eq!(versions(&first), (1..=KNOWN).collect::<Vec<_>>());
    assert!(first.iter().all(|r| r.1 > 0), "each row has its time: {first:?}");
    assert_eq!(pragma(&path, "user_version"), KNOWN, "user_version follows the highest");
    for table in ["owner_submissions", "relay_images", "translation_cache"] {
        assert!(table_exists(&path, table), "{table}");
    }
    // `schema_version` moves with every schema change: a second open makes none, and
    // records nothing again.
    let schema = pragma(&path, "schema_version");
    std::thread::sleep(Duration::from_millis(5));
    drop(Store::open_sqlite(&path).unwrap());
    assert_eq!(recorded(&path), first, "nothing applied or recorded again");
    assert_eq!(pragma(&path, "schema_version"), schema, "no schema change");
    assert_eq!(pragma(&path, "user_version"), KNOWN);
}

/// A development file from before `schema_migrations`: 1–6, 8 and 9 applied, at
/// `user_version` 9, without migration 7's tables.
fn file_without_7(path: &Path) {
    let conn = Connection::open(path).unwrap();
    for (version, sql) in SQL.iter().filter(|m| m.0 != 7 && m.0 <= 9) {
        conn.execute_batch(sql).unwrap_or_else(|e| panic!("migration {version}: {e}"));
    }
    conn.pragma_update(None, "user_version", 9).unwrap();
    // Data written under 8 and 9, which must survive.
    conn.execute_batch(
        "INSERT INTO relay_takedowns (url, host, reason, at_ms)
             VALUES ('https://a.example/p.jpg', 'a.example', 'owner asked', 1000);
         INSERT INTO site_rights (site, read_ms, valid_until_ms, tdmrep, ai_txt)
             VALUES ('https://a.example', 1000, 2000, NULL, X'446973616C6C6F773A202A');
         INSERT INTO llm_usage (model, step, requests, failures, prompt_tokens, completion_tokens)
             VALUES ('m', 'extraction', 3, 1, 300, 40);
         INSERT INTO translation_cache (text_hash, lang, model, english, created_ms)
             VALUES ('h', 'fr', 'm', 'Concert', 1000);",
    )
    .unwrap();
}

#[tokio::test]
async fn a_file_at_9_without_7_gets_7_on_open_and_keeps_the_data_of_8_and_9() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dev.db");
    file_without_7(&path);
    assert!(!table_exists(&path, "owner_submissions"), "positive control: 7 is missing");
    assert!(!table_exists(&path, "schema_migrations"));

    let store = Store::open_sqlite(&path).unwrap();
    for table in ["owner_submissions", "server_secrets", "source_controls"] {
        assert!(table_exists(&path, table), "{table} from migration 7");
    }
    assert_eq!(versions(&recorded(&path)), (1..=KNOWN).collect::<Vec<_>>());
    assert_eq!(pragma(&path, "user_version"), KNOWN);

    // 8 and 9's data, through the store.
    let takedowns = store.takedowns().await.unwrap();
    assert_eq!(takedowns.len(), 1, "{takedowns:?}");
    assert_eq!(takedowns[0].url, "https://a.example/p.jpg");
    let rights = store.site_rights("https://a.example").await.unwrap().expect("rights kept");
    assert_eq!(rights.ai_txt.as_deref(), Some(&b"Disallow: *"[..]));
    assert_eq!(rights.valid_until, UNIX_EPOCH + Duration::from_millis(2000));
    let usage = store.llm_usage().await.unwrap();
    assert_eq!(usage.len(), 1, "{usage:?}");
    assert_eq!((usage[0].requests, usage[0].prompt_tokens), (3, 300));
    let conn = Connection::open(&path).unwrap();
    let english: String =
        conn.query_row("SELECT english FROM translation_cache", [], |r| r.get(0)).unwrap();
    assert_eq!(english, "Concert");

    // 7's tables work through the store.
    let secret = store.secret_or_insert("csrf", b"key".to_vec()).await.unwrap();
    assert_eq!(secret, b"key");
    assert!(!store.source_control("site-0").await.unwrap().paused);
    drop(store);

    // And the next open finds nothing to do.
    let schema = pragma(&path, "schema_version");
    let before = recorded(&path);
    drop(Store::open_sqlite(&path).unwrap());
    assert_eq!(recorded(&path), before);
    assert_eq!(pragma(&path, "schema_version"), schema);
}

#[test]
fn a_file_from_before_the_table_with_every_migration_is_recorded_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let conn = Connection::open(&path).unwrap();
        for (_, sql) in SQL {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", KNOWN).unwrap();
    }
    let schema = pragma(&path, "schema_version");
    drop(Store::open_sqlite(&path).unwrap());
    assert_eq!(versions(&recorded(&path)), (1..=KNOWN).collect::<Vec<_>>());
    assert_eq!(
        pragma(&path, "schema_version"),
        schema + 1,
        "only `schema_migrations` was created: no migration ran again"
    );
}

fn too_new(result: Result<Store, StoreError>) -> (i64, i64) {
    match result {
        Err(StoreError::TooNew { found, known, .. }) => (found, known),
        Err(other) => panic!("expected TooNew, got {other}"),
        Ok(_) => panic!("expected TooNew, the file opened"),
    }
}

#[test]
fn a_file_with_a_version_this_build_does_not_know_is_refused() {
    let dir = tempfile::tempdir().unwrap();

    // Recorded in the table by a newer gleaner.
    let path = dir.path().join("newer.db");
    drop(Store::open_sqlite(&path).unwrap());
    Connection::open(&path)
        .unwrap()
        .execute("INSERT INTO schema_migrations (version, applied_ms) VALUES (?1, 1)", [KNOWN + 1])
        .unwrap();
    let err = Store::open_sqlite(&path);
    let message = err.as_ref().map(|_| String::new()).unwrap_or_else(|e| e.to_string());
    assert_eq!(too_new(err), (KNOWN + 1, KNOWN));
    assert!(message.contains("newer than this gleaner knows"), "{message}");

    // A file from before the table, at a higher `user_version`.
    let path = dir.path().join("newer-old.db");
    Connection::open(&path).unwrap().pragma_update(None, "user_version", KNOWN + 3).unwrap();
    assert_eq!(too_new(Store::open_sqlite(&path)), (KNOWN + 3, KNOWN));
    assert!(!table_exists(&path, "schema_migrations"), "a refused file is not written to");
}

/// Issue 23: audit rows written before outcomes had codes (a refusal was the text
/// `not sent` with a free-text reason) read back as typed outcomes after migration 10,
/// which codes them once; new rows carry their code.
#[tokio::test]
async fn audit_rows_from_before_outcome_codes_read_back_typed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("at9.db");
    {
        let conn = Connection::open(&path).unwrap();
        for (_, sql) in SQL.iter().filter(|m| m.0 <= 9) {
            conn.execute_batch(sql).unwrap();
        }
        conn.pragma_update(None, "user_version", 9).unwrap();
        let rows: [(i64, Option<i64>, Option<&str>, &str); 5] = [
            (1, Some(200), None, "robots.txt: no rule disallows it"),
            (2, None, Some("`http://a.test/x` did not answer in full within 3s"), "budget"),
            (3, None, Some("not sent"), "robots.txt: disallowed by line 2 `Disallow: /p`"),
            (4, None, Some("not sent"), "the owner opted out (request `OPT-1`)"),
            (5, None, Some("not sent"), "this pass used its 3 requests; the rest waits"),
        ];
        for (ms, status, error, reason) in rows {
            conn.execute(
                "INSERT INTO audit_log (time_ms, site, host, url, purpose, source, status, error,
                     bytes, duration_ms, reason)
                 VALUES (?1, 'http://a.test', 'a.test', 'http://a.test/x', 'event-page', NULL,
                     ?2, ?3, 0, 0, ?4)",
                rusqlite::params![ms, status, error, reason],
            )
            .unwrap();
        }
    }
    let store = Store::open_sqlite(&path).unwrap();
    let rows = store.audit_for(&Scope::domain("a.test").unwrap(), 10).await.unwrap();
    let outcomes: Vec<Outcome> = rows.iter().map(|r| r.outcome).collect();
    assert_eq!(
        outcomes,
        [
            Outcome::Sent { status: 200 },
            Outcome::Failed(FailureKind::Other),
            Outcome::Refused(RefusalKind::RobotsDisallowed),
            Outcome::Refused(RefusalKind::OptedOut),
            Outcome::Refused(RefusalKind::Quota),
        ]
    );
}
