//! A live and a staging copy of gleaner on one PostgreSQL database (issue 17, "copies"):
//! each in a schema of its own, both naming one politeness namespace. Crawling the same
//! sites at the same time, real worker processes of both copies keep one budget per
//! site — spacing, the in-flight cap, one robots.txt for both — while each copy stores
//! its own events.

use std::time::Duration;

use crate::workers::{GAP, PgDb, Worker, config, schedule, uniform_web};

const SITES: usize = 3;
const EVENTS: u32 = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_and_staging_copies_share_every_sites_budget_and_keep_their_own_events() {
    let Some(db) = PgDb::create() else { return };
    let web = uniform_web(SITES, EVENTS).await;
    let dir = tempfile::tempdir().unwrap();
    // Live reads all three sites; staging reads the first two (the sites they share).
    let live = dir.path().join("live.toml");
    let staging = dir.path().join("staging.toml");
    let copy = |schema: &str| format!("schema = \"{schema}\"\npoliteness_namespace = \"city\"");
    let live_sources = [("s0", 0), ("s1", 1), ("s2", 2)];
    std::fs::write(&live, config(&web, &db.url, &live_sources, &copy("live"))).unwrap();
    std::fs::write(&staging, config(&web, &db.url, &live_sources[..2], &copy("staging"))).unwrap();
    schedule(&live);
    schedule(&staging);
    assert_eq!(db.query_i64("SELECT count(*) FROM live.frontier WHERE done_ms IS NULL"), 3);
    assert_eq!(db.query_i64("SELECT count(*) FROM staging.frontier WHERE done_ms IS NULL"), 2);

    // Two workers per copy, all four at once.
    let mut workers: Vec<Worker> = (0..4)
        .map(|n| Worker::start(if n % 2 == 0 { &live } else { &staging }, dir.path(), n, true))
        .collect();
    for worker in &mut workers {
        worker.finish(Duration::from_secs(60));
    }

    let ledger = web.ledger();
    let logs: Vec<String> = workers.iter().map(Worker::log).collect();
    // Positive control: both copies fetched every event page of the sites they share
    // (their validators are their own), live alone the third site's.
    for site in 0..SITES {
        let copies = if site < 2 { 2 } else { 1 };
        for n in 1..=EVENTS {
            let path = format!("/events/{n}.html");
            let fetched = ledger.site(site).filter(|e| e.path == path).count();
            assert_eq!(
                fetched,
                copies,
                "site {site} {path} fetched once per copy reading it; workers:\n{}",
                logs.join("\n---\n")
            );
        }
        // One robots.txt per site for both copies: its state is in the namespace.
        let robots = ledger.site(site).filter(|e| e.path == "/robots.txt").count();
        assert_eq!(robots, 1, "site {site}: robots.txt read once for both copies");
    }
    // One budget per site across both copies' processes.
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_robots_first().unwrap();
    // Each copy keeps its own events; the namespace (a whole store of its own) holds none.
    let per_site = i64::from(EVENTS);
    assert_eq!(db.query_i64("SELECT count(*) FROM live.events"), 3 * per_site);
    assert_eq!(db.query_i64("SELECT count(*) FROM staging.events"), 2 * per_site);
    assert_eq!(db.query_i64("SELECT count(*) FROM city.events"), 0);
    // Both copies' requests are in the one audit log the namespace keeps.
    let audited = db.query_i64("SELECT count(*) FROM city.audit_log");
    assert_eq!(audited, ledger.len() as i64, "every request audited once, in the namespace");
    web.shutdown().await;
}
