//! Many `gleaner worker` processes on one PostgreSQL database crawl the loopback test
//! web (SPEC §7, issue 17): one budget per site across processes, full coverage, every
//! event stored once, a killed worker's work taken over only after its lease, a stalled
//! worker starting nothing after its lease, a Retry-After seen by one stopping all, and
//! an opt-out added mid-crawl stopping every worker at once.
//!
//! PostgreSQL: `GLEANER_TEST_POSTGRES_URL` (e.g. `postgres://postgres@127.0.0.1:5432/test`);
//! each test gets its own database. With `CI=true` a missing variable fails the tests;
//! locally they are skipped with a notice.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gleaner_testweb::{Manifest, RetryAfterForm, SiteBehaviour, SiteSpec, TestWeb};

use crate::util::gleaner;

const POSTGRES_ENV: &str = "GLEANER_TEST_POSTGRES_URL";
/// The spacing the tests configure (scaled down from 1 s).
pub(crate) const GAP: Duration = Duration::from_millis(150);
/// Claims last this long (the margin is connect timeout + response deadline = 2 s).
pub(crate) const LEASE: &str = "4s";
const LEASE_DURATION: Duration = Duration::from_secs(4);

/// A database of its own for one test, dropped at the end.
pub(crate) struct PgDb {
    admin: String,
    name: String,
    pub(crate) url: String,
}

fn pg_admin() -> Option<String> {
    match std::env::var(POSTGRES_ENV) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var("CI").is_ok_and(|v| v == "true" || v == "1") => {
            panic!("{POSTGRES_ENV} is not set, and CI must run the multi-worker tests")
        }
        _ => {
            #[allow(clippy::print_stderr)]
            {
                eprintln!("NOTICE: {POSTGRES_ENV} is not set: the multi-worker tests did not run");
            }
            None
        }
    }
}

pub(crate) fn block_on<R: Send>(f: impl std::future::Future<Output = R> + Send) -> R {
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
        })
        .join()
        .unwrap()
    })
}

pub(crate) async fn sql(url: &str, statement: &str) -> Vec<tokio_postgres::Row> {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("PostgreSQL at {url} is unreachable: {e}"));
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client.query(statement, &[]).await.unwrap()
}

impl PgDb {
    pub(crate) fn create() -> Option<PgDb> {
        let admin = pg_admin()?;
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().subsec_nanos();
        let name = format!("gleaner_workers_{}_{nanos}", std::process::id());
        block_on(sql(&admin, &format!("CREATE DATABASE {name}")));
        let mut url = url::Url::parse(&admin).unwrap();
        url.set_path(&format!("/{name}"));
        Some(PgDb { admin, name, url: url.to_string() })
    }

    pub(crate) fn query_i64(&self, statement: &str) -> i64 {
        block_on(sql(&self.url, statement)).first().map_or(0, |r| r.get(0))
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        block_on(sql(&self.admin, &statement));
    }
}

/// A config crawling `sources` (id, site index, event pages) with test-scale spacing and
/// limits, on `db`.
pub(crate) fn config(web: &TestWeb, db: &str, sources: &[(&str, usize)], extra: &str) -> String {
    let mut text = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"{}ms\"\nmax_in_flight = 1\nretry_after_default = \"2s\"\n\n\
         [politeness.purpose.event-page]\ngap = \"{}ms\"\njitter = [\"0s\", \"0s\"]\n\n\
         [limits]\nconnect_timeout = \"1s\"\nresponse_deadline = \"1s\"\n\n\
         [purposes]\nenabled = [\"robots\", \"listing\", \"event-page\"]\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"{db}\"\n{extra}\n",
        GAP.as_millis(),
        GAP.as_millis()
    );
    for (id, site) in sources {
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{id}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
            web.url(*site, "/events/")
        ));
    }
    text
}

pub(crate) struct Worker {
    child: Child,
    log: PathBuf,
}

impl Worker {
    pub(crate) fn start(config: &Path, dir: &Path, n: usize, exit_when_idle: bool) -> Worker {
        Worker::start_with_env(config, dir, n, exit_when_idle, &[])
    }

    /// [`Worker::start`] with extra environment variables.
    fn start_with_env(
        config: &Path,
        dir: &Path,
        n: usize,
        exit_when_idle: bool,
        env: &[(&str, &str)],
    ) -> Worker {
        let log = dir.join(format!("worker-{n}.log"));
        let mut args = vec!["--config", config.to_str().unwrap(), "worker", "--lease", LEASE];
        if exit_when_idle {
            args.push("--exit-when-idle");
        }
        let child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .args(&args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("gleaner worker starts");
        Worker { child, log }
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Waits (bounded) for the worker to exit by itself, successfully.
    pub(crate) fn finish(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the worker finished in time:\n{}", self.log());
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(status.success(), "the worker succeeded ({status}):\n{}", self.log());
    }

    fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{name}");
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `gleaner run --role scheduler --once`: queues every due source.
pub(crate) fn schedule(config: &Path) {
    let run = gleaner(
        &["--config", config.to_str().unwrap(), "run", "--role", "scheduler", "--once"],
        "",
    );
    assert_eq!(run.code, Some(0), "the scheduler queued the work: {}", run.stderr);
}

/// Waits (bounded) until `ready` holds.
pub(crate) async fn wait_for(what: &str, within: Duration, ready: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !ready() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The test web with `sites` uniform sites of `events` event pages each.
pub(crate) async fn uniform_web(sites: usize, events: u32) -> TestWeb {
    let spec = SiteSpec { events, ..SiteSpec::default() };
    TestWeb::start(Manifest::uniform(sites, spec).with_token("TestBot")).await.unwrap()
}

/// `gleaner optout add PREFIX --reference REFERENCE` with `config`, off the runtime;
/// the opt-out is committed when it returns.
async fn opt_out(config: &Path, prefix: String, reference: &'static str) {
    let config = config.to_str().unwrap().to_owned();
    let added = tokio::task::spawn_blocking(move || {
        gleaner(&["--config", &config, "optout", "add", &prefix, "--reference", reference], "")
    })
    .await
    .unwrap();
    assert_eq!(added.code, Some(0), "{}", added.stderr);
}

pub(crate) fn event_pages(web: &TestWeb, site: usize) -> usize {
    web.ledger()
        .site(site)
        .filter(|e| e.path.starts_with("/events/") && e.path.ends_with(".html"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_workers_share_every_budget_and_a_killed_ones_work_waits_for_its_lease() {
    let Some(db) = PgDb::create() else { return };
    const SITES: usize = 5;
    const EVENTS: u32 = 6;
    let web = uniform_web(SITES, EVENTS).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    // Two sources read site 0, so two workers crawl it at once through one budget.
    let sources = [("s0", 0), ("s0-again", 0), ("s1", 1), ("s2", 2), ("s3", 3), ("s4", 4)];
    std::fs::write(&path, config(&web, &db.url, &sources, "")).unwrap();
    schedule(&path);
    assert_eq!(db.query_i64("SELECT count(*) FROM frontier WHERE done_ms IS NULL"), 6);

    let mut workers: Vec<Worker> =
        (0..4).map(|n| Worker::start(&path, dir.path(), n, true)).collect();
    // Kill a worker crawling a site no other source reads, mid-pass.
    let open_claims = "SELECT count(*) FROM frontier WHERE done_ms IS NULL AND lease_until > now()";
    wait_for("every worker to hold a claim", Duration::from_secs(20), || {
        db.query_i64(open_claims) >= 4 && web.ledger().site(1).count() >= 2
    })
    .await;
    let claims: Vec<(String, String)> = block_on(sql(
        &db.url,
        "SELECT lease_owner, source FROM frontier WHERE done_ms IS NULL AND lease_until > now()",
    ))
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect();
    let (victim, source) = workers
        .iter()
        .enumerate()
        .find_map(|(n, w)| {
            let log = w.log();
            claims
                .iter()
                .find(|(owner, source)| {
                    !source.starts_with("s0") && log.contains(&format!("worker `{owner}`"))
                })
                .map(|(_, source)| (n, source.clone()))
        })
        .expect("a worker holds a claim on a site of its own");
    let site: usize = source[1..].parse().unwrap();
    workers[victim].child.kill().unwrap(); // SIGKILL
    workers[victim].child.wait().unwrap();
    let killed = Instant::now() - web.epoch();
    let mut survivors: Vec<Worker> =
        workers.drain(..).enumerate().filter(|(n, _)| *n != victim).map(|(_, w)| w).collect();
    for worker in &mut survivors {
        worker.finish(Duration::from_secs(50));
    }

    let ledger = web.ledger();
    // Positive control: the survivors crawled after the kill, and everything is done.
    assert!((0..SITES).any(|s| ledger.site(s).any(|e| e.at > killed)), "requests after the kill");
    assert_eq!(
        db.query_i64("SELECT count(*) FROM frontier WHERE done_ms IS NULL"),
        0,
        "all work done"
    );
    // One budget per site across every process: spacing, the in-flight cap, robots first.
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_robots_first().unwrap();
    // Full coverage.
    for site in 0..SITES {
        for n in 1..=EVENTS {
            ledger.expect_fetched(site, &format!("/events/{n}.html")).unwrap();
        }
    }
    // No event lost or duplicated: one row per event page.
    let events = db.query_i64("SELECT count(*) FROM events");
    assert_eq!(events, (SITES as u32 * EVENTS) as i64, "every event stored exactly once");
    // A dead worker's work waits for its lease: its site went quiet until the claim
    // (renewed at most a quarter-lease before the kill) had run out, then another
    // worker took the pass over.
    let first_after = ledger.site(site).filter(|e| e.at > killed).map(|e| e.at).min();
    let first_after = first_after.expect("the victim's pass was taken over");
    assert!(
        first_after - killed >= LEASE_DURATION * 3 / 4 - Duration::from_millis(200),
        "site {site} (source {source}) was quiet for {:?} after the kill, less than the lease",
        first_after - killed
    );
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_worker_starts_nothing_once_its_lease_has_run_out() {
    let Some(db) = PgDb::create() else { return };
    let web = uniform_web(1, 14).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    std::fs::write(&path, config(&web, &db.url, &[("only", 0)], "")).unwrap();
    schedule(&path);
    let mut stalled = Worker::start(&path, dir.path(), 0, true);
    wait_for("the first worker to crawl", Duration::from_secs(20), || event_pages(&web, 0) >= 2)
        .await;
    stalled.signal("STOP");
    let stopped = Instant::now() - web.epoch();
    // A second worker takes the item over once the claim has expired, and finishes it.
    let mut other = Worker::start(&path, dir.path(), 1, true);
    other.finish(Duration::from_secs(40));
    assert_eq!(db.query_i64("SELECT count(*) FROM frontier WHERE done_ms IS NULL"), 0);
    let resumed = Instant::now() - web.epoch();
    stalled.signal("CONT");
    stalled.finish(Duration::from_secs(20));

    let ledger = web.ledger();
    // Positive controls: the stalled worker crawled before, the other one after.
    assert!(ledger.site(0).any(|e| e.at < stopped && e.path.starts_with("/events/")));
    assert!(ledger.site(0).any(|e| e.at > stopped && e.path.starts_with("/events/")));
    for n in 1..=14 {
        ledger.expect_fetched(0, &format!("/events/{n}.html")).unwrap();
    }
    // Its claim had run out while it was stopped: after resuming it sent nothing.
    let late: Vec<_> = ledger.site(0).filter(|e| e.at > resumed).map(|e| e.target()).collect();
    assert!(late.is_empty(), "requests after the stalled worker resumed: {late:?}");
    assert!(
        stalled.log().contains("lost the claim"),
        "the stalled worker knew it lost its claim:\n{}",
        stalled.log()
    );
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    assert_eq!(db.query_i64("SELECT count(*) FROM events"), 14, "no event lost or duplicated");
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_after_seen_by_one_worker_stops_them_all() {
    let Some(db) = PgDb::create() else { return };
    let throttled = SiteSpec {
        events: 8,
        behaviour: SiteBehaviour::Throttle {
            status: 429,
            after: 4,
            suspend_for: Duration::from_secs(2),
            retry_after: RetryAfterForm::Seconds,
        },
        ..SiteSpec::default()
    };
    let web = TestWeb::start(Manifest::new(vec![throttled]).with_token("TestBot")).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    // Four sources on the one site: four workers at it at once.
    let sources = [("a", 0), ("b", 0), ("c", 0), ("d", 0)];
    std::fs::write(&path, config(&web, &db.url, &sources, "")).unwrap();
    schedule(&path);
    let mut workers: Vec<Worker> =
        (0..4).map(|n| Worker::start(&path, dir.path(), n, true)).collect();
    for worker in &mut workers {
        worker.finish(Duration::from_secs(50));
    }
    let ledger = web.ledger();
    // Evidence (inside the check): a 429 was answered; nobody asked during the pause.
    ledger.check_suspensions(Duration::from_secs(2)).unwrap();
    let throttled_at = ledger.site(0).find(|e| e.status == 429).map(|e| e.end()).unwrap();
    assert!(
        ledger.site(0).any(|e| e.at > throttled_at + Duration::from_secs(2) && e.status == 200),
        "positive control: the crawl resumed after the pause"
    );
    for n in 1..=8 {
        ledger.expect_fetched(0, &format!("/events/{n}.html")).unwrap();
    }
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opt_out_added_mid_crawl_stops_every_worker_at_once() {
    let Some(db) = PgDb::create() else { return };
    let web = uniform_web(2, 12).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    let sources = [("a0", 0), ("b0", 0), ("c0", 0), ("a1", 1)];
    std::fs::write(&path, config(&web, &db.url, &sources, "")).unwrap();
    schedule(&path);
    let mut workers: Vec<Worker> =
        (0..4).map(|n| Worker::start(&path, dir.path(), n, true)).collect();
    wait_for("site 0 to be crawled by several workers", Duration::from_secs(20), || {
        event_pages(&web, 0) >= 3
    })
    .await;
    opt_out(&path, web.url(0, "/"), "OPT-T").await;
    let committed = Instant::now() - web.epoch();
    for worker in &mut workers {
        worker.finish(Duration::from_secs(50));
    }
    let ledger = web.ledger();
    // The bound (docs/workers.md): the registry is read again right before each
    // reservation, so at most a request reserved just before the commit still starts,
    // a reservation's round trip later (a generous 500 ms here).
    let late: Vec<_> = ledger
        .site(0)
        .filter(|e| e.at > committed + Duration::from_millis(500))
        .map(|e| e.target())
        .collect();
    assert!(late.is_empty(), "requests to the opted-out site after the bound: {late:?}");
    // Positive controls: site 0 was being crawled, and the other site was finished.
    let pages: std::collections::HashSet<String> =
        ledger.site(0).filter(|e| e.path.starts_with("/events/")).map(|e| e.path.clone()).collect();
    assert!(pages.len() >= 2 && pages.len() < 12, "stopped mid-crawl: {pages:?}");
    for n in 1..=12 {
        if let Err(missing) = ledger.expect_fetched(1, &format!("/events/{n}.html")) {
            let logs: Vec<String> = workers.iter().map(Worker::log).collect();
            panic!("{missing:?}\nworkers:\n{}", logs.join("\n---\n"));
        }
    }
    ledger.check_min_gap(GAP).unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opt_out_wakes_a_worker_waiting_out_a_long_gap_at_once() {
    let Some(db) = PgDb::create() else { return };
    let web = uniform_web(1, 6).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    // A long gap, as a site's Crawl-delay would ask: after the listing, the next request
    // waits 6 s.
    const LONG_GAP: Duration = Duration::from_secs(6);
    let text = config(&web, &db.url, &[("only", 0)], "")
        .replace(&format!("\"{}ms\"", GAP.as_millis()), &format!("\"{}s\"", LONG_GAP.as_secs()));
    std::fs::write(&path, text).unwrap();
    schedule(&path);
    let mut worker = Worker::start(&path, dir.path(), 0, true);
    wait_for("the listing page", Duration::from_secs(20), || {
        web.ledger().site(0).any(|e| e.path == "/events/")
    })
    .await;
    let listing_at = Instant::now();
    opt_out(&path, web.url(0, "/"), "OPT-W").await;
    let committed = Instant::now();
    assert!(committed - listing_at < LONG_GAP / 2, "the opt-out came early in the wait");
    // `NOTIFY gleaner_registry` wakes the waiting request, which finds the opt-out and
    // ends the pass; without it the worker would sleep out the rest of the gap.
    worker.finish(LONG_GAP / 3);
    let ledger = web.ledger();
    // Positive control: robots.txt and the listing were read; nothing after.
    assert!(ledger.fetched(0, "/robots.txt") && ledger.fetched(0, "/events/"));
    assert_eq!(event_pages(&web, 0), 0, "no event page after the opt-out");
    let log = worker.log();
    assert!(log.contains(" refused") && !log.contains(" 0 refused"), "{log}");
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_whose_own_clock_is_seconds_off_still_keeps_every_gap() {
    let Some(db) = PgDb::create() else { return };
    const EVENTS: u32 = 8;
    let web = uniform_web(1, EVENTS).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    // Two sources on one site: the two workers take turns on one budget.
    std::fs::write(&path, config(&web, &db.url, &[("a", 0), ("b", 0)], "")).unwrap();
    schedule(&path);
    // One worker's wall clock is 3 s fast: with budget times from its own clock it would
    // start right after the other's requests. Gates on PostgreSQL read the database clock.
    let mut workers = vec![
        Worker::start(&path, dir.path(), 0, true),
        Worker::start_with_env(
            &path,
            dir.path(),
            1,
            true,
            &[("GLEANER_TEST_WALL_CLOCK_SKEW_MS", "3000")],
        ),
    ];
    for worker in &mut workers {
        worker.finish(Duration::from_secs(40));
    }
    let ledger = web.ledger();
    // Positive control: both passes read every event page (each source its own pass).
    for n in 1..=EVENTS {
        assert_eq!(ledger.count(0, &format!("/events/{n}.html")), 2, "page {n}, once per source");
    }
    assert!(!workers[1].log().contains(" 0 completed"), "the skewed worker crawled too");
    ledger.check_min_gap(GAP).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    assert_eq!(db.query_i64("SELECT count(*) FROM events"), i64::from(EVENTS));
    web.shutdown().await;
}

#[test]
fn multi_process_roles_on_sqlite_are_refused_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    let text = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n[store]\nurl = \"sqlite://{}\"\n",
        dir.path().join("g.db").display()
    );
    std::fs::write(&path, text).unwrap();
    let config = path.to_str().unwrap();
    for args in [
        vec!["--config", config, "worker"],
        vec!["--config", config, "run", "--role", "worker"],
        vec!["--config", config, "run", "--role", "scheduler", "--once"],
    ] {
        let run = gleaner(&args, "");
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("needs a PostgreSQL store"), "{}", run.stderr);
        assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_stopped_with_sigterm_gives_its_item_back() {
    let Some(db) = PgDb::create() else { return };
    let web = uniform_web(1, 14).await;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("gleaner.toml");
    std::fs::write(&path, config(&web, &db.url, &[("only", 0)], "")).unwrap();
    schedule(&path);
    let mut worker = Worker::start(&path, dir.path(), 0, false);
    wait_for("the worker to crawl", Duration::from_secs(20), || event_pages(&web, 0) >= 2).await;
    worker.signal("TERM");
    worker.finish(Duration::from_secs(20));
    let log = worker.log();
    assert!(log.contains("1 given back"), "{log}");
    // Positive control and the point: stopped mid-pass, and the item is due again at once
    // for the next worker instead of waiting out the lease.
    assert!(event_pages(&web, 0) < 14, "stopped mid-pass");
    assert_eq!(
        db.query_i64("SELECT count(*) FROM frontier WHERE done_ms IS NULL AND lease_until IS NULL"),
        1
    );
    web.shutdown().await;
}
