//! Gate state, the owners' registry and the audit log through the traits the gate uses.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::registry::{OwnerRequest, Registry, RegistryEntry, Scope};
use gleaner_policy::robots::RobotsTxt;
use gleaner_policy::robots::outcome::{RobotsReason, RobotsState};
use gleaner_policy::state::{GateState, RobotsMemory};
use gleaner_store::{BackendKind, DocumentKind, Store, StoreError};
use url::Url;

use crate::each_backend_test;
use crate::util::{day, sqlite_db};

const SITE: &str = "http://a.test";

each_backend_test! {
    async fn budget_and_robots_survive_reopening_and_in_flight_is_cleared(db) {
        let now = SystemTime::now();
        let body = b"User-agent: *\nDisallow: /private/\n".to_vec();
        // The first crawler runs on a runtime of its own that then stops, as its process
        // would: on PostgreSQL its lease is left to expire (no clean release).
        let (url, kind, robots) = (db.url().to_owned(), db.kind(), body.clone());
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let store = Store::open(&url).unwrap();
                let crawler = store.claim_crawler().await.unwrap();
                let memory = RobotsMemory {
                    state: RobotsState::Rules(Arc::new(RobotsTxt::parse(&robots))),
                    reason: RobotsReason::Read { status: 200 },
                    valid_until: now + Duration::from_secs(3600),
                    failures: 0,
                    body: Some(robots.clone()),
                    rights_headers: Vec::new(),
                };
                crawler
                    .update(
                        SITE,
                        Box::new(move |s, g| {
                            s.budget.last_start = Some(now);
                            s.budget.in_flight.insert(Purpose::Listing, 1);
                            s.budget.blocked_until =
                                Some((now + Duration::from_secs(60), "HTTP 403".into()));
                            s.robots = Some(memory);
                            g.requests = 7;
                        }),
                    )
                    .await.unwrap();
                let seen = crawler.site(SITE).await.unwrap().unwrap();
                assert_eq!(seen.budget.total_in_flight(), 1, "positive control: in flight");
                match kind {
                    BackendKind::Postgres => std::mem::forget(crawler),
                    BackendKind::Sqlite => drop(crawler),
                }
            });
        })
        .join()
        .unwrap();
        let store = db.reopen();
        if db.kind() == BackendKind::Postgres {
            // Another worker sees the dead one's request in flight until its lease
            // expires on the database clock; age the lease rather than wait for it.
            let seen = store.site_state(SITE).await.unwrap().unwrap();
            assert_eq!(seen.budget.total_in_flight(), 1, "shared by every worker");
            db.query_i64(
                "WITH w AS (UPDATE workers SET lease_until = now() - interval '1 second'
                 RETURNING 1) SELECT count(*) FROM w",
            )
            .await;
            let seen = store.site_state(SITE).await.unwrap().unwrap();
            assert_eq!(seen.budget.total_in_flight(), 0, "an expired lease holds nothing");
        }
        let crawler = store.claim_crawler().await.unwrap();
        assert_eq!(crawler.reset_sites(), 1);
        let state = crawler.site(SITE).await.unwrap().unwrap();
        assert_eq!(state.budget.total_in_flight(), 0, "a dead crawler's requests are over");
        assert_eq!(state.budget.last_start, Some(now), "spacing survives");
        assert!(state.budget.blocked_until.is_some(), "blocks survive");
        let Some(RobotsMemory { state: RobotsState::Rules(rules), .. }) = &state.robots else {
            panic!("rules rebuilt from the stored bytes: {:?}", state.robots)
        };
        assert!(!rules.for_agent("TestBot").check("/private/x").allowed);
        let archived = store
            .archive_history(&Scope::domain("a.test").unwrap(), DocumentKind::Robots)
            .await
            .unwrap();
        assert_eq!(archived.len(), 1);
        assert_eq!(archived[0].body, body);
    }
}

/// SQLite only: one crawler per file. PostgreSQL workers share the database instead
/// (`workers_share_one_budget_and_see_each_others_in_flight`).
#[tokio::test]
async fn a_second_crawler_on_the_same_file_is_refused_with_a_clear_message() {
    let db = sqlite_db();
    let first = db.store.claim_crawler().await.unwrap();
    let other = db.reopen();
    let error = other.claim_crawler().await.unwrap_err();
    assert!(matches!(error, StoreError::CrawlerRunning { .. }), "{error}");
    let message = error.to_string();
    assert!(message.contains("another gleaner is already crawling"), "{message}");
    assert!(message.contains("hint:"), "{message}");
    drop(first);
    other.claim_crawler().await.expect("the lease is free once the first crawler is gone");
}

/// PostgreSQL only: two workers crawl at once; each sees the other's reservations, and
/// a worker's in-flight requests end with it.
#[tokio::test]
async fn workers_share_one_budget_and_see_each_others_in_flight() {
    let Some(db) = crate::util::postgres_db() else { return };
    let a = db.store.claim_crawler().await.unwrap();
    let other = db.reopen();
    let b = other.claim_crawler().await.expect("PostgreSQL workers do not exclude each other");
    assert_ne!(a.worker_id(), b.worker_id());
    let now = SystemTime::now();
    a.update(
        SITE,
        Box::new(move |s, _| {
            s.budget.last_start = Some(now);
            s.budget.in_flight.insert(Purpose::EventPage, 1);
        }),
    )
    .await
    .unwrap();
    b.update(
        SITE,
        Box::new(|s, _| {
            assert_eq!(s.budget.total_in_flight(), 1, "b sees a's request");
            *s.budget.in_flight.entry(Purpose::EventPage).or_default() += 1;
        }),
    )
    .await
    .unwrap();
    assert_eq!(a.site(SITE).await.unwrap().unwrap().budget.total_in_flight(), 2);
    // b's request ends: only b's share moves.
    b.update(
        SITE,
        Box::new(|s, _| {
            *s.budget.in_flight.entry(Purpose::EventPage).or_default() -= 1;
        }),
    )
    .await
    .unwrap();
    assert_eq!(a.site(SITE).await.unwrap().unwrap().budget.total_in_flight(), 1);
    // b takes another and stops (clean shutdown releases its lease at once).
    b.update(
        SITE,
        Box::new(|s, _| {
            *s.budget.in_flight.entry(Purpose::Listing).or_default() += 1;
        }),
    )
    .await
    .unwrap();
    assert_eq!(a.site(SITE).await.unwrap().unwrap().budget.total_in_flight(), 2);
    drop(b);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while a.site(SITE).await.unwrap().unwrap().budget.total_in_flight() != 1 {
        assert!(std::time::Instant::now() < deadline, "b's requests ended with it");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        a.site(SITE).await.unwrap().unwrap().budget.last_start,
        Some(now),
        "spacing is shared"
    );
}

each_backend_test! {
    async fn updates_from_two_connections_are_never_lost(db) {
        // Two crawler states on separate handles (separate connections: another process,
        // in real life) read-modify-write the same site row concurrently. On SQLite the
        // second handle only reads (one crawler per file); on PostgreSQL both are workers.
        let crawler = Arc::new(db.store.claim_crawler().await.unwrap());
        let other = db.reopen();
        let second = match db.kind() {
            BackendKind::Postgres => Some(Arc::new(other.claim_crawler().await.unwrap())),
            BackendKind::Sqlite => None,
        };
        let mut tasks = Vec::new();
        for i in 0..40 {
            let state = match (&second, i % 2) {
                (Some(second), 1) => Arc::clone(second),
                _ => Arc::clone(&crawler),
            };
            tasks.push(tokio::spawn(async move {
                state
                    .update(
                        SITE,
                        Box::new(|s, g| {
                            s.budget.day_requests += 1;
                            g.requests += 1;
                        }),
                    )
                    .await.unwrap();
                i
            }));
        }
        for _ in 0..40 {
            let r = other.owner_rules(&Url::parse("http://a.test/").unwrap()).await.unwrap();
            assert!(r.opted_out.is_none());
        }
        for t in tasks {
            t.await.unwrap();
        }
        let state = crawler.site(SITE).await.unwrap().unwrap();
        assert_eq!(state.budget.day_requests, 40);
    }
}

each_backend_test! {
    async fn an_opt_out_written_by_another_process_applies_to_the_next_lookup(db) {
        let crawler_store = db.store.clone();
        let url = Url::parse("https://www.a.test/agenda/1").unwrap();
        let before = crawler_store.lookup(&url).await;
        assert_eq!(before.opted_out, None, "positive control: not opted out yet");
        let cli = db.reopen();
        let entry = RegistryEntry {
            scope: Scope::domain("a.test").unwrap(),
            request: OwnerRequest::OptOut,
            reference: "OPT-1".into(),
        };
        cli.add_owner_request(entry, Some("by mail".into()), day(0)).await.unwrap();
        // On PostgreSQL the gate's lookup answers from the registry as last read until
        // the `LISTEN` notification arrives (milliseconds); the reservation checks the
        // version meanwhile (`round_trips::an_opt_out_committed_after_the_lookup_…`).
        let seen = |expected: Option<&'static str>| {
            let (store, url) = (crawler_store.clone(), url.clone());
            async move {
                for _ in 0..200 {
                    let now = store.lookup(&url).await.opted_out;
                    if now.as_deref() == expected || store.kind() == BackendKind::Sqlite {
                        return now;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                store.lookup(&url).await.opted_out
            }
        };
        assert_eq!(seen(Some("OPT-1")).await.as_deref(), Some("OPT-1"));
        let unrelated = Url::parse("https://bada.test/").unwrap();
        assert_eq!(crawler_store.lookup(&unrelated).await.opted_out, None, "dot boundary");
        assert!(cli.remove_owner_request("OPT-1").await.unwrap());
        assert_eq!(seen(None).await, None, "removal seen too");
    }
}

each_backend_test! {
    async fn audit_records_are_batched_and_read_back_by_site(db) {
    let store = db.store.clone();
    for (i, site) in ["http://a.test", "http://www.a.test", "http://b.test"].iter().enumerate() {
        store.record(AuditRecord {
            time: day(i as u64),
            site: (*site).to_owned(),
            url: format!("{site}/events/"),
            purpose: Purpose::Listing,
            source: Some("agenda".into()),
            outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
            error: None,
            bytes: 10,
            duration: Duration::from_millis(30),
            reason: "robots.txt: no rule disallows it".into(),
        });
    }
    store.flush_audit().await.unwrap();
    let rows = store.audit_for(&Scope::domain("a.test").unwrap(), 100).await.unwrap();
    assert_eq!(rows.len(), 2, "a.test and its subdomain, not b.test: {rows:?}");
    assert_eq!(rows[0].purpose, Some(Purpose::Listing));
    assert_eq!(rows[1].duration, Duration::from_millis(30));
}
}

each_backend_test! {
    async fn robots_archive_answers_what_the_file_said_at_a_time(db) {
    let store = db.store.clone();
    let scope = Scope::domain("a.test").unwrap();
    let url = "http://a.test/robots.txt";
    for (t, body) in [(0, "v1"), (5, "v1"), (10, "v2")] {
        store
            .archive_document(SITE, DocumentKind::Robots, url, body.as_bytes().to_vec(), day(t))
            .await
            .unwrap();
    }
    let history = store.archive_history(&scope, DocumentKind::Robots).await.unwrap();
    assert_eq!(history.len(), 2, "stored on change only");
    assert_eq!(history[0].last_seen, day(5));
    let at = |t| {
        let store = store.clone();
        let scope = scope.clone();
        async move { store.archived_at(&scope, DocumentKind::Robots, day(t)).await.unwrap() }
    };
    assert_eq!(at(7).await[0].body, b"v1");
    assert_eq!(at(12).await[0].body, b"v2");
}
}

each_backend_test! {
    async fn a_change_that_panics_releases_the_write_lock_at_once(db) {
    let store = db.store.clone();
    let crawler = Arc::new(store.claim_crawler().await.unwrap());
    let task = {
        let crawler = Arc::clone(&crawler);
        tokio::spawn(async move {
            let _ = crawler.update(SITE, Box::new(|_, _| panic!("a bug in a policy closure"))).await;
        })
    };
    assert!(task.await.is_err(), "positive control: the closure panicked mid-transaction");
    // Another connection (another process, in real life) can write right away instead of
    // waiting out the busy timeout behind an abandoned transaction.
    let other = db.reopen();
    let started = std::time::Instant::now();
    let entry = RegistryEntry {
        scope: Scope::domain("a.test").unwrap(),
        request: OwnerRequest::OptOut,
        reference: "OPT-2".into(),
    };
    other.add_owner_request(entry, None, day(0)).await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // And the crawler's own next update works.
    crawler.update(SITE, Box::new(|s, _| s.failure_streak = 1)).await.unwrap();
    assert_eq!(crawler.site(SITE).await.unwrap().unwrap().failure_streak, 1);
}
}
