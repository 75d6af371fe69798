//! PostgreSQL only (SQLite allows one crawler per file): several worker processes crawl
//! the same test-web sites at once, each through its own gate, on one database. The
//! sites' ledger shows one budget per site shared by every process (spacing, the
//! in-flight cap, robots.txt read once), full coverage, and every event stored exactly
//! once, even though one worker is killed with SIGKILL mid-crawl.
//!
//! The workers are this test binary re-executed (`crash::crash_child`), as in the crash
//! test. They do not claim pages (frontier leases are issue 17, item 3): two workers may
//! fetch the same page, which costs a request but never breaks the budget.

use std::time::{Duration, Instant, SystemTime};

use gleaner_event::EventIdentity;
use gleaner_store::Store;
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use url::Url;

use crate::crash::{GAP, PAGES, event_for, spawn_child};

const SITES: usize = 3;
const WORKERS: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_share_every_sites_budget_and_survive_a_sigkill() {
    let Some(db) = crate::util::postgres_db() else { return };
    let started = Instant::now();
    let specs = (0..SITES).map(|_| SiteSpec { events: PAGES, ..SiteSpec::default() }).collect();
    let web = TestWeb::start(Manifest::new(specs).with_token("TestBot")).await.unwrap();
    let sites: Vec<String> = (0..SITES).map(|i| web.site_url(i)).collect();
    let sites = sites.join(" ");
    let per_worker = SITES * PAGES as usize / WORKERS;
    let mut children: Vec<_> =
        (0..WORKERS).map(|w| spawn_child(db.url(), &sites, w * per_worker, "none")).collect();

    // Kill the first worker once the crawl is well under way.
    let deadline = Instant::now() + Duration::from_secs(20);
    while (0..SITES).map(|i| web.ledger().site(i).count()).sum::<usize>() < 6 {
        assert!(Instant::now() < deadline, "the workers made progress");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    children[0].kill().unwrap(); // SIGKILL
    children[0].wait().unwrap();
    let killed_at = SystemTime::now();
    for child in &mut children[1..] {
        let deadline = Instant::now() + Duration::from_secs(40);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the surviving workers finish");
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        assert!(status.success(), "a surviving worker succeeded: {status}");
    }

    let ledger = web.ledger();
    // Positive control: the survivors crawled after the kill.
    assert!(
        (0..SITES).flat_map(|i| ledger.site(i)).any(|e| ledger.wall_time(e.at) > killed_at),
        "requests after the kill"
    );
    // One budget per site across every process.
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_robots_first().unwrap();
    for site in 0..SITES {
        assert_eq!(ledger.count(site, "/robots.txt"), 1, "site {site}: robots.txt read once");
    }
    // Full coverage, and every event stored exactly once.
    let store = Store::open(db.url()).unwrap();
    for site in 0..SITES {
        for n in 1..=PAGES {
            let path = format!("/events/{n}.html");
            ledger.expect_fetched(site, &path).unwrap();
            let url = Url::parse(&web.url(site, &path)).unwrap();
            let id = store.event_id(EventIdentity::of(&event_for(&url))).await.unwrap();
            let id = id.unwrap_or_else(|| panic!("{url} was stored"));
            let provenance = store.event(id).await.unwrap().unwrap().provenance;
            assert_eq!(provenance.len(), 1, "{url}: {provenance:?}");
        }
    }
    let far = SystemTime::UNIX_EPOCH + Duration::from_secs(4_000_000_000);
    let stored = store.events_between(SystemTime::UNIX_EPOCH, far).await.unwrap();
    assert_eq!(stored.len(), SITES * PAGES as usize, "no event lost or duplicated");
    web.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(45), "bounded: {:?}", started.elapsed());
}

mod fencing {
    //! Results committed only under the current fencing token (SPEC §7), on both
    //! backends: a worker whose claim expired and was taken over cannot store events,
    //! renew the claim or complete the item; the new holder can.

    use std::sync::Arc;
    use std::time::{Duration, SystemTime};

    use gleaner_event::EventIdentity;
    use gleaner_policy::Purpose;
    use gleaner_store::{BackendKind, EventWrite, Keep, StoreError, WorkItem};
    use url::Url;

    use crate::crash::event_for;
    use crate::each_backend_test;

    each_backend_test! {
        async fn a_stale_holders_event_writes_are_refused_and_the_new_holders_kept(db) {
            let now = SystemTime::now();
            let item = WorkItem {
                site: "http://a.test".into(),
                url: Url::parse("gleaner:pass/agenda").unwrap(),
                purpose: Purpose::Listing,
                source: Some("agenda".into()),
            };
            assert!(db.store.enqueue_work(&item, now).await.unwrap());
            let a = Arc::new(db.store.claim_crawler().await.unwrap());
            let b = match db.kind() {
                BackendKind::Postgres => Arc::new(db.reopen().claim_crawler().await.unwrap()),
                BackendKind::Sqlite => Arc::clone(&a),
            };
            let lease = Duration::from_millis(500);
            let worker_lease = Duration::from_secs(30);
            let old = a.claim_work_alive(1, lease, worker_lease, now).await.unwrap().remove(0);
            let page = Url::parse("http://a.test/events/1.html").unwrap();
            let first = event_for(&page);
            let write = |event| EventWrite {
                event,
                source: Some("agenda"),
                fetched_url: &page,
                fetched_at: now,
                keep: Keep::Facts,
                extractor: None,
            };
            // Positive control: while the claim is current, results are stored, and the
            // claim renews.
            a.upsert_event_fenced(&write(&first), &old).await.unwrap();
            let old = a.renew_work(&old, lease, worker_lease).await.unwrap().expect("renewed in time");
            assert_eq!(db.store.pending_work().await.unwrap(), 1);

            // The claim runs out; another worker takes the item over.
            tokio::time::sleep(lease + Duration::from_millis(150)).await;
            let new = b.claim_work_alive(1, lease * 20, worker_lease, now).await.unwrap();
            assert_eq!(new.len(), 1, "an expired claim is claimed again");
            let new = &new[0];
            assert!(new.token > old.token, "with a new fencing token");

            // The old holder is fenced out: no event write, no renewal, no completion.
            let mut late = event_for(&Url::parse("http://a.test/events/2.html").unwrap());
            late.title = Some("Written by a stale worker".into());
            let refused = a.upsert_event_fenced(&write(&late), &old).await.unwrap_err();
            assert!(matches!(refused, StoreError::FencedOut { .. }), "{refused}");
            assert!(refused.to_string().contains("no longer current"), "{refused}");
            let stale = EventIdentity::of(&late);
            assert_eq!(db.store.event_id(stale).await.unwrap(), None, "nothing of it was stored");
            assert!(a.renew_work(&old, lease, worker_lease).await.unwrap().is_none());
            assert!(!a.complete_work(&old, now).await.unwrap());

            // The new holder's results count.
            b.upsert_event_fenced(&write(&late), new).await.unwrap();
            assert!(db.store.event_id(EventIdentity::of(&late)).await.unwrap().is_some());
            assert!(b.complete_work(new, now).await.unwrap());
            assert_eq!(db.store.pending_work().await.unwrap(), 0);
            // A completed item fences everybody out.
            let after = b.upsert_event_fenced(&write(&first), new).await.unwrap_err();
            assert!(matches!(after, StoreError::FencedOut { .. }), "{after}");
            // Finished items are deleted by the scheduler's daily retention.
            let pruned = db.store.prune_work(SystemTime::now() + Duration::from_secs(1)).await;
            assert_eq!(pruned.unwrap(), 1);
            assert_eq!(db.query_i64("SELECT count(*) FROM frontier").await, Some(0));
        }
    }
}

/// A worker (a 30 s lease) with one request in flight on `site`.
async fn worker_with_a_request(
    db: &crate::util::TestDb,
    site: &str,
) -> gleaner_store::CrawlerState {
    use gleaner_policy::Purpose;
    use gleaner_policy::state::GateState;
    let worker = db.store.claim_worker(Duration::from_secs(30)).await.unwrap();
    worker
        .update(
            site,
            Box::new(|s, _| *s.budget.in_flight.entry(Purpose::EventPage).or_default() += 1),
        )
        .await
        .unwrap();
    worker
}

/// A worker whose lease lapsed (stopped past its lease) and comes back does not bring
/// its old requests back into the in-flight count: they stopped counting when the lease
/// ran out, and counting them again would hold the site's cap while the worker lives.
#[tokio::test]
async fn a_worker_back_from_a_lapsed_lease_does_not_revive_its_requests() {
    use gleaner_policy::Purpose;
    use gleaner_policy::state::GateState;
    let Some(db) = crate::util::postgres_db() else { return };
    let site = "http://a.test";
    let worker = worker_with_a_request(&db, site).await;
    let in_flight =
        || async { db.store.site_state(site).await.unwrap().unwrap().budget.total_in_flight() };
    assert_eq!(in_flight().await, 1, "positive control: counted while the lease holds");
    db.query_i64(
        "WITH w AS (UPDATE workers SET lease_until = now() - interval '1 second' RETURNING 1)
         SELECT count(*) FROM w",
    )
    .await;
    assert_eq!(in_flight().await, 0, "not counted once the lease lapsed");
    // The worker wakes up and renews its lease (as it does before every claim).
    let claims = worker
        .claim_work_alive(1, Duration::from_secs(5), Duration::from_secs(30), SystemTime::now())
        .await
        .unwrap();
    assert!(claims.is_empty());
    assert_eq!(in_flight().await, 0, "its old request is not counted again");
    worker
        .update(
            site,
            Box::new(|s, _| *s.budget.in_flight.entry(Purpose::EventPage).or_default() += 1),
        )
        .await
        .unwrap();
    assert_eq!(in_flight().await, 1, "a new request counts");
}

/// A renewal sent while the lease's end is being written (here: a transaction that
/// lapses it, held open) judges the lease it finds once that is written, not the copy it
/// saw when it started: it drops the lapsed worker's old requests. Judging the stale
/// copy "alive" renewed the lease with the old rows kept, and they held the site's cap
/// again (CI saw it once, the background heartbeat racing the test above).
#[tokio::test]
async fn a_renewal_racing_the_lapse_judges_the_latest_lease() {
    let Some(db) = crate::util::postgres_db() else { return };
    let site = "http://a.test";
    let worker = worker_with_a_request(&db, site).await;
    let in_flight =
        || async { db.store.site_state(site).await.unwrap().unwrap().budget.total_in_flight() };
    assert_eq!(in_flight().await, 1, "positive control: counted while the lease holds");
    let mut client = db.postgres_client().await.expect("a PostgreSQL database");
    let lapse = client.transaction().await.unwrap();
    lapse
        .execute("UPDATE workers SET lease_until = now() - interval '1 second'", &[])
        .await
        .unwrap();
    let renewal = worker.claim_work_alive(
        1,
        Duration::from_secs(5),
        Duration::from_secs(30),
        SystemTime::now(),
    );
    let commit = async {
        // Long enough for the renewal to be waiting on the worker's row.
        tokio::time::sleep(Duration::from_millis(300)).await;
        lapse.commit().await.unwrap();
    };
    let (claims, ()) =
        tokio::time::timeout(Duration::from_secs(20), async { tokio::join!(renewal, commit) })
            .await
            .expect("the renewal finishes once the lapse is written");
    assert!(claims.unwrap().is_empty());
    assert_eq!(in_flight().await, 0, "the lapsed worker's old request is not counted again");
}
