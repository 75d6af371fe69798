//! Promises of the about page checked from the sites' side (issue 25): retries after a
//! 429 or a 5xx, and a rights reservation stated only on robots.txt. The names of these
//! tests are what the promise ledger (`gleaner-server`'s `promises.rs`) points at.

use std::time::{Duration, SystemTime};

use gleaner_testweb::{Manifest, RetryAfterForm, Served, SiteBehaviour, SiteSpec, TestWeb};

use crate::{bounded, context, paused_context};

const HEAD: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
     [politeness]\ngap = \"60ms\"\nmax_retries = 2\n\n[network]\nallow = [\"127.0.0.0/8\"]\n";

fn listing(id: &str, url: &str) -> String {
    format!(
        "\n[[sources]]\nid = \"{id}\"\nkind = \"listing\"\nstart_urls = [\"{url}\"]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n"
    )
}

#[tokio::test(start_paused = true)]
async fn ledger_a_429_page_is_asked_again_after_retry_after_and_every_event_is_stored() {
    const RETRY_AFTER: Duration = Duration::from_secs(2);
    // Five page requests are served (the two rights files, the two listing pages, the
    // first event page); the sixth answers 429 with `Retry-After: 2`.
    let throttle = SiteBehaviour::Throttle {
        status: 429,
        after: 5,
        suspend_for: RETRY_AFTER,
        retry_after: RetryAfterForm::Seconds,
    };
    let web = TestWeb::in_process(
        Manifest::new(vec![SiteSpec { events: 6, behaviour: throttle, ..SiteSpec::default() }])
            .with_token("TestBot"),
    );
    let (ctx, sink) =
        paused_context(&format!("{HEAD}{}", listing("site-0", &web.url(0, "/events/"))), &web);
    let source = ctx.settings.sources[0].clone();
    let deadline = ctx.clock.now() + Duration::from_secs(30);
    let report = bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await;

    let ledger = web.ledger();
    let throttled: Vec<_> = ledger.site(0).filter(|e| e.status == 429).collect();
    assert_eq!(throttled.len(), 1, "the site asked for one pause: {throttled:?}");
    let asked = throttled[0];
    let again: Vec<_> =
        ledger.site(0).filter(|e| e.target() == asked.target() && e.seq > asked.seq).collect();
    assert_eq!(again.len(), 1, "{} asked again once: {again:?}", asked.target());
    assert_eq!(again[0].status, 200, "and answered: {:?}", again[0]);
    // Never before the pause ended: not this page, not any other.
    for entry in ledger.site(0).filter(|e| e.seq > asked.seq) {
        assert!(
            entry.at >= asked.at + RETRY_AFTER,
            "{} asked {:?} after the 429, inside its Retry-After of {RETRY_AFTER:?}",
            entry.target(),
            entry.at - asked.at
        );
    }
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    ledger.check_min_gap(Duration::from_millis(60)).unwrap();
    // Every event page answered 200 once (positive control: the pages around the 429).
    for n in 1..=6 {
        let path = format!("/events/{n}.html");
        let ok = ledger.site(0).filter(|e| e.path == path && e.served == Served::Page).count();
        assert_eq!(ok, 1, "{path} read once");
        assert!(
            sink.events().iter().any(|f| f.page.path() == path),
            "the event of {path} is stored"
        );
    }
    assert_eq!((report.retried, report.given_up), (1, 0), "{report:?}");
    assert_eq!(report.event_pages, 6, "{report:?}");
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn ledger_a_5xx_is_asked_again_max_retries_times_then_given_up() {
    let web = TestWeb::in_process(Manifest::uniform(1, SiteSpec::default()).with_token("TestBot"));
    let text = format!(
        "{HEAD}{}{}",
        listing("broken", &web.url(0, "/status/500")),
        listing("fine", &web.url(0, "/events/"))
    );
    let (ctx, _sink) = paused_context(&text, &web);
    let deadline = ctx.clock.now() + Duration::from_secs(30);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await);
    }
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/status/500"), 3, "one request and max_retries = 2 retries");
    assert_eq!((reports[0].retried, reports[0].given_up), (2, 1), "{:?}", reports[0]);
    // Positive control: a page that answers is asked once and never retried.
    assert_eq!(ledger.count(0, "/events/1.html"), 1);
    assert_eq!((reports[1].retried, reports[1].given_up), (0, 0), "{:?}", reports[1]);
    ledger.check_min_gap(Duration::from_millis(60)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn ledger_a_noai_header_on_robots_txt_alone_stops_the_site_before_any_page() {
    let web = TestWeb::start(
        Manifest::new(vec![
            SiteSpec {
                events: 3,
                robots_x_robots_tag: Some("noai".to_owned()),
                ..SiteSpec::default()
            },
            SiteSpec { events: 3, ..SiteSpec::default() },
        ])
        .with_token("TestBot"),
    )
    .await
    .unwrap();
    let text = format!(
        "{HEAD}\n[rights]\non_reservation = \"stop-site\"\n{}{}",
        listing("reserving", &web.url(0, "/events/")),
        listing("open", &web.url(1, "/events/"))
    );
    let (ctx, sink) = context(&text);
    let deadline = SystemTime::now() + Duration::from_secs(30);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await);
    }
    let ledger = web.ledger();
    let asked: Vec<String> = ledger.site(0).map(|e| e.target()).collect();
    assert_eq!(asked, ["/robots.txt"], "nothing after robots.txt from the reserving site");
    assert!(
        reports[0].refusals.keys().any(|k| k.contains("robots.txt headers")),
        "{:?}",
        reports[0]
    );
    assert!(!sink.events().iter().any(|f| f.source == "reserving"));
    // Positive control: the same pass over a site without the header reads its pages.
    assert!(ledger.fetched(1, "/events/"), "the open site's listing");
    assert!(ledger.fetched(1, "/events/1.html"), "and its event pages");
    assert!(sink.events().iter().any(|f| f.source == "open"));
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

/// draft-illyes-repext: a page answering `Robots-Tag: TestBot: noindex` is read but its
/// events are not published; the same header scoped to another bot changes nothing
/// (positive control: that site's events are published).
#[tokio::test]
async fn ledger_a_robots_tag_noindex_for_our_token_keeps_the_events_unpublished() {
    let web = TestWeb::start(
        Manifest::new(vec![
            SiteSpec {
                events: 2,
                page_robots_tag: Some("TestBot: noindex".to_owned()),
                ..SiteSpec::default()
            },
            SiteSpec {
                events: 2,
                page_robots_tag: Some("otherbot: noindex".to_owned()),
                ..SiteSpec::default()
            },
        ])
        .with_token("TestBot"),
    )
    .await
    .unwrap();
    let text = format!(
        "{HEAD}{}{}",
        listing("ours", &web.url(0, "/events/")),
        listing("theirs", &web.url(1, "/events/"))
    );
    let (ctx, sink) = context(&text);
    let deadline = SystemTime::now() + Duration::from_secs(30);
    for source in ctx.settings.sources.clone() {
        bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await;
    }
    let ledger = web.ledger();
    assert!(ledger.fetched(0, "/events/1.html"), "the page is read");
    assert!(!sink.events().iter().any(|f| f.source == "ours"), "but not published");
    assert!(ledger.fetched(1, "/events/1.html"));
    assert!(sink.events().iter().any(|f| f.source == "theirs"), "another bot's noindex");
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

/// A pass over `config` whose sink is a store in `dir` (SQLite), as `gleaner crawl`
/// wires it; the gate's state stays in memory between the passes of one test.
fn store_context(
    config: &str,
    dir: &std::path::Path,
    web: &TestWeb,
) -> (gleaner_scheduler::PassContext, gleaner_store::Store) {
    use std::sync::Arc;
    let (memory, _) = paused_context(config, web);
    let store = gleaner_store::Store::open_sqlite(&dir.join("g.db")).unwrap();
    let sink =
        gleaner_scheduler::store_sink::StoreSink::new(store.clone(), Arc::clone(&memory.settings));
    (gleaner_scheduler::PassContext { sink: Arc::new(sink), ..memory }, store)
}

#[tokio::test(start_paused = true)]
async fn ledger_a_429_retry_cut_by_the_time_limit_is_kept_and_asked_first_in_the_next_pass() {
    const RETRY_AFTER: Duration = Duration::from_secs(3);
    // As above: the sixth page request (`/events/2.html`) answers 429, `Retry-After: 3`.
    let throttle = SiteBehaviour::Throttle {
        status: 429,
        after: 5,
        suspend_for: RETRY_AFTER,
        retry_after: RetryAfterForm::Seconds,
    };
    let web = TestWeb::in_process(
        Manifest::new(vec![SiteSpec { events: 6, behaviour: throttle, ..SiteSpec::default() }])
            .with_token("TestBot"),
    );
    let dir = tempfile::tempdir().unwrap();
    let text = format!("{HEAD}{}", listing("site-0", &web.url(0, "/events/")));
    let (ctx, store) = store_context(&text, dir.path(), &web);
    let source = ctx.settings.sources[0].clone();

    // Pass 1: its time limit (1 s) ends inside the pause the site asked for.
    let deadline = ctx.clock.now() + Duration::from_secs(1);
    let first = bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await;
    let ledger = web.ledger();
    let throttled: Vec<_> = ledger.site(0).filter(|e| e.status == 429).collect();
    assert_eq!(throttled.len(), 1, "one pause asked for: {throttled:?}");
    let asked = throttled[0].clone();
    let cut = ledger.site(0).map(|e| e.seq).max().unwrap();
    assert_eq!(cut, asked.seq, "nothing asked after the 429 in pass 1");
    assert_eq!((first.retried, first.kept), (1, 1), "{first:?}");
    assert!(first.left_for_next_pass().contains("1 kept for next pass"), "{first:?}");
    // Committed before pass 1 ended: a crawler started afresh on the file reads it.
    drop((ctx.sink, store));
    let store = gleaner_store::Store::open_sqlite(&dir.path().join("g.db")).unwrap();
    let kept = store.kept_requests("site-0").await.unwrap();
    assert_eq!(kept.iter().map(|k| k.url.path()).collect::<Vec<_>>(), [asked.path.as_str()]);
    let sink = gleaner_scheduler::store_sink::StoreSink::new(store.clone(), ctx.settings.clone());
    let ctx = gleaner_scheduler::PassContext { sink: std::sync::Arc::new(sink), ..ctx };

    // Pass 2, started at once: the gate waits out the pause, then the kept page goes first.
    let deadline = ctx.clock.now() + Duration::from_secs(30);
    let second = bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await;
    let ledger = web.ledger();
    let pages: Vec<_> = ledger
        .site(0)
        .filter(|e| e.seq > cut && !e.is_robots() && e.path.starts_with("/events/"))
        .collect();
    assert_eq!(
        pages.first().map(|e| e.target()),
        Some(asked.target()),
        "the kept page is asked first in pass 2: {:?}",
        pages.iter().map(|e| e.target()).collect::<Vec<_>>()
    );
    assert_eq!(pages[0].status, 200, "and answered: {:?}", pages[0]);
    assert!(pages[0].at >= asked.at + RETRY_AFTER, "never before Retry-After: {:?}", pages[0]);
    for entry in ledger.site(0).filter(|e| e.seq > asked.seq) {
        assert!(entry.at >= asked.at + RETRY_AFTER, "{} asked inside the pause", entry.target());
    }
    assert_eq!(ledger.count(0, &asked.path), 2, "the 429, then once in pass 2");
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    ledger.check_min_gap(Duration::from_millis(60)).unwrap();
    // Its event is stored, and so are the others' (positive control: the pages pass 1
    // never reached are read in pass 2 after the kept one).
    let year = Duration::from_secs(366 * 24 * 3600);
    let now = ctx.clock.now();
    let stored = ctx.sink.stored_events(now - year, now + 3 * year).await;
    for n in 1..=6 {
        let path = format!("/events/{n}.html");
        assert!(stored.iter().any(|f| f.page.path() == path), "the event of {path} is stored");
        let ok = ledger.site(0).filter(|e| e.path == path && e.status == 200).count();
        assert!(ok >= 1, "{path} answered");
    }
    assert!(store.kept_requests("site-0").await.unwrap().is_empty(), "forgotten once asked");
    assert_eq!(second.kept, 0, "{second:?}");
    web.shutdown().await;
}
