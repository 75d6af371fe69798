//! The checks that keep events true (SPEC §4), against the loopback test web: which
//! pages a cancellation cycle asks for, what 404/410 and changed pages do to stored
//! events, and the link check's daily cap per host.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use chrono::{TimeZone, Utc};
use gleaner_event::EventStatus;
use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, WallClock};
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_scheduler::checks::{DailyCap, in_window, run_cancellation_check, run_link_check};
use gleaner_scheduler::{MemorySink, PassContext, run_pass};
use gleaner_testweb::{Manifest, Served, SiteBehaviour, SiteSpec, TestWeb};

/// 2026-12-01 00:00 in Paris: the test web's events fall on 1–28 December at +01:00.
fn december_first() -> SystemTime {
    SystemTime::from(Utc.with_ymd_and_hms(2026, 11, 30, 23, 0, 0).unwrap())
}

/// A context whose clock starts on 1 December and advances on Tokio's clock; the gate
/// reaches `web`, an in-process test web, through its transport, so every test here runs
/// on paused time.
fn context(config: &str, web: &TestWeb) -> (PassContext, Arc<MemorySink>) {
    let settings = Arc::new(gleaner_config::parse(config, "test.toml").unwrap());
    let clock: Arc<dyn WallClock> = Arc::new(ShiftedClock::starting_at(december_first()));
    let client = Client::with_transport(ClientSettings::from_settings(&settings), web.transport());
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        Arc::clone(&clock),
    );
    let sink = Arc::new(MemorySink::default());
    (
        PassContext {
            gate: Arc::new(gate),
            sink: sink.clone(),
            clock,
            settings,
            stop: Arc::default(),
        },
        sink,
    )
}

fn config(web: &TestWeb, extra: &str) -> String {
    format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"60ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n{extra}\n\
         [[sources]]\nid = \"site-0\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n",
        web.url(0, "/events/")
    )
}

async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), f).await.expect("finished within 30 s")
}

fn far() -> SystemTime {
    SystemTime::now() + Duration::from_secs(3600 * 24 * 400)
}

#[tokio::test(start_paused = true)]
async fn spec_cancellation_check_asks_each_page_in_the_window_once_and_marks_404_gone() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 15, ..SiteSpec::default() }).with_token("TestBot"),
    );
    let (ctx, sink) = context(&config(&web, ""), &web);
    let source = ctx.settings.sources[0].clone();
    let first = bounded(run_pass(&ctx, &source, far(), &|_| {})).await;
    assert_eq!(first.event_pages, 15, "positive control: every event stored: {first:?}");
    let stored = sink.events();
    let paris = chrono_tz::Europe::Paris;
    let now = ctx.clock.now();
    let due: Vec<_> = stored.iter().filter(|f| in_window(&f.event, now, paris, 7)).collect();
    let later: Vec<_> = stored.iter().filter(|f| !in_window(&f.event, now, paris, 7)).collect();
    assert!(!due.is_empty() && !later.is_empty(), "the web has events on both sides");

    web.advance_pass();
    web.clear_ledger();
    let report = bounded(run_cancellation_check(&ctx, far())).await;
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/events/"), 1, "the listing once per cycle: {report:?}");
    for f in &due {
        assert_eq!(ledger.count(0, f.page.path()), 1, "{} once", f.page);
    }
    for f in &later {
        assert_eq!(ledger.count(0, f.page.path()), 0, "{} is beyond the horizon", f.page);
    }
    assert_eq!(report.pages_checked as usize, due.len(), "{report:?}");
    assert!(ledger.iter().all(|e| e.method == "GET"), "HEAD is not enabled here");
    let stable = due.iter().filter(|f| f.page.path().ends_with("1.html")).count();
    assert!(
        ledger.iter().filter(|e| e.served == Served::NotModified).count() >= stable,
        "stable pages answer 304 to conditional requests"
    );

    let vanished: Vec<_> = due
        .iter()
        .filter(|f| {
            let n: u32 = f
                .page
                .path()
                .trim_start_matches("/events/")
                .trim_end_matches(".html")
                .parse()
                .unwrap();
            n % 5 == 3 || n % 5 == 4
        })
        .collect();
    assert!(!vanished.is_empty(), "positive control: some pages in the window vanish");
    assert_eq!(report.events_gone as usize, vanished.len(), "{report:?}");
    let after = sink.events();
    for f in &vanished {
        let now = after.iter().find(|a| a.identity == f.identity).unwrap();
        assert_eq!(now.event.status, EventStatus::GoneAtSource, "{}", f.page);
        assert!(now.event.status.public_name().is_none(), "gone at source is never published");
    }
    let history = sink.history();
    assert_eq!(
        history.iter().filter(|(_, s, _)| *s == EventStatus::GoneAtSource).count(),
        vanished.len(),
        "the status change is in the history"
    );
    assert!(
        history.iter().all(|(_, s, _)| *s != EventStatus::Cancelled),
        "a 404 is not a cancellation"
    );
    ledger.check_min_gap(Duration::from_millis(60)).unwrap();
    assert_eq!(ledger.count(0, "/robots.txt"), 0, "robots.txt still fresh, read through the gate");
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn spec_cancellation_check_obeys_retry_after_and_robots_txt() {
    let web = TestWeb::in_process(
        Manifest::uniform(
            1,
            SiteSpec {
                events: 15,
                // The first pass makes 19 page requests (robots.txt is not counted): the
                // site's rights files (`/.well-known/tdmrep.json`, `/ai.txt`, read by
                // default), two listing pages and 15 event pages. The pause starts with
                // the next request, during the cancellation check.
                behaviour: SiteBehaviour::Throttle {
                    status: 429,
                    after: 19,
                    suspend_for: Duration::from_secs(2),
                    retry_after: gleaner_testweb::RetryAfterForm::Seconds,
                },
                ..SiteSpec::default()
            },
        )
        .with_token("TestBot"),
    );
    let (ctx, _sink) = context(&config(&web, ""), &web);
    let source = ctx.settings.sources[0].clone();
    let first = bounded(run_pass(&ctx, &source, far(), &|_| {})).await;
    assert_eq!(first.event_pages, 15, "{first:?}");
    let report = bounded(run_cancellation_check(&ctx, far())).await;
    let ledger = web.ledger();
    assert!(
        ledger.iter().any(|e| e.served == Served::Throttle),
        "positive control: the site asked for a pause during the check: {report:?}"
    );
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    ledger.check_disallowed().unwrap();
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn seed_cixtra_link_check_keeps_a_daily_cap_per_host() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 6, ..SiteSpec::default() }).with_token("TestBot"),
    );
    let (ctx, _sink) =
        context(&config(&web, "\n[checks]\nlink_checks_per_host_per_day = 4\n"), &web);
    assert_eq!(ctx.settings.checks.link_checks_per_host_per_day, 4);
    let source = ctx.settings.sources[0].clone();
    bounded(run_pass(&ctx, &source, far(), &|_| {})).await;
    web.clear_ledger();
    let cap = Arc::new(DailyCap::new(ctx.settings.checks.link_checks_per_host_per_day));
    let report = bounded(run_link_check(&ctx, &cap, far())).await;
    assert_eq!(
        report.pages_checked, 4,
        "positive control: the cap's worth was checked: {report:?}"
    );
    assert_eq!(report.capped, 2, "{report:?}");
    let again = bounded(run_link_check(&ctx, &cap, far())).await;
    assert_eq!(again.pages_checked, 0, "nothing more today: {again:?}");
    let ledger = web.ledger();
    assert_eq!(ledger.iter().filter(|e| !e.is_robots()).count(), 4);
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn seed_ugybot_head_first_and_a_get_only_for_changed_pages() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 15, ..SiteSpec::default() }).with_token("TestBot"),
    );
    let extra = "\n[purposes]\nmethods = [\"GET\", \"HEAD\"]\n\n[checks]\ncancellation_method = \"head-then-get\"\n";
    let (ctx, sink) = context(&config(&web, extra), &web);
    assert!(ctx.settings.checks.cancellation_head);
    let source = ctx.settings.sources[0].clone();
    bounded(run_pass(&ctx, &source, far(), &|_| {})).await;
    let now = ctx.clock.now();
    let due: Vec<_> = sink
        .events()
        .into_iter()
        .filter(|f| in_window(&f.event, now, chrono_tz::Europe::Paris, 7))
        .collect();
    web.advance_pass();
    web.clear_ledger();
    let report = bounded(run_cancellation_check(&ctx, far())).await;
    let ledger = web.ledger();
    let number = |path: &str| -> u32 {
        path.trim_start_matches("/events/").trim_end_matches(".html").parse().unwrap_or(0)
    };
    let mut changed = 0;
    for f in &due {
        let path = f.page.path();
        let heads = ledger.iter().filter(|e| e.path == path && e.method == "HEAD").count();
        let gets = ledger.iter().filter(|e| e.path == path && e.method == "GET").count();
        assert_eq!(heads, 1, "{path}: one HEAD");
        if number(path) % 5 == 2 {
            changed += 1;
            assert_eq!(gets, 1, "{path} changed: one GET to re-extract it");
        } else {
            assert_eq!(gets, 0, "{path}: no GET when the HEAD says unchanged or gone");
        }
    }
    assert!(changed > 0, "positive control: a page in the window changed: {report:?}");
    let listing =
        |method: &str| ledger.iter().filter(|e| e.path == "/events/" && e.method == method).count();
    assert_eq!(
        (listing("HEAD"), listing("GET")),
        (1, 1),
        "the listing changed too (events vanished)"
    );
    assert_eq!(report.changed as usize, changed + 1, "{report:?}");
    assert!(report.not_modified > 0, "{report:?}");
    web.shutdown().await;
}
