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
