//! One source, many sites (issue 27, item 1): a source's start URLs on many sites are
//! crawled concurrently, one frontier per site, each site's gap held — judged from the
//! sites' side on the test web's ledger.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use gleaner_scheduler::run_pass;
use gleaner_testweb::{Ledger, Manifest, SiteSpec, TestWeb};

use super::context;

/// One `[[sources]]` table whose start URLs are the listings of `sites` sites.
fn one_source(web: &TestWeb, sites: usize, gap: &str, extra: &str) -> String {
    let urls: Vec<String> = (0..sites).map(|i| format!("\"{}\"", web.url(i, "/events/"))).collect();
    format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"{gap}\"\nglobal_daily_cap = 100000\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [[sources]]\nid = \"venues\"\nkind = \"listing\"\nstart_urls = [{}]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n{extra}",
        urls.join(", ")
    )
}

/// The most sites whose crawls (first request to last answer) overlap at one instant.
fn most_sites_at_once(ledger: &Ledger) -> usize {
    let mut spans: BTreeMap<usize, (Duration, Duration)> = BTreeMap::new();
    for e in ledger.iter() {
        let span = spans.entry(e.site).or_insert((e.at, e.end()));
        span.0 = span.0.min(e.at);
        span.1 = span.1.max(e.end());
    }
    let mut edges: Vec<(Duration, i32)> =
        spans.values().flat_map(|(a, b)| [(*a, 1), (*b, -1)]).collect();
    edges.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in edges {
        now += step;
        most = most.max(now);
    }
    usize::try_from(most).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_source_with_500_start_urls_crawls_500_sites_concurrently_each_at_its_gap() {
    const SITES: usize = 500;
    let gap = Duration::from_millis(300);
    let web = TestWeb::start(
        Manifest::uniform(SITES, SiteSpec { events: 2, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let (ctx, _sink) = context(&one_source(&web, SITES, "300ms", ""));
    let source = ctx.settings.sources[0].clone();
    assert_eq!(source.start_urls.len(), SITES);
    let deadline = SystemTime::now() + Duration::from_secs(120);
    let report =
        tokio::time::timeout(Duration::from_secs(120), run_pass(&ctx, &source, deadline, &|_| {}))
            .await
            .expect("the pass ended within 120 s");
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    assert_eq!(report.sites, SITES as u32, "{report:?}");
    assert_eq!(report.event_pages, 2 * SITES as u32, "two event pages at every site");
    assert!(
        report.site_problems.is_empty(),
        "{:?}",
        &report.site_problems[..3.min(report.site_problems.len())]
    );
    let ledger = web.ledger();
    // Positive controls: every site's pages were asked for, so the checks below judge a
    // real crawl; and the gap check does catch a gap longer than the one kept.
    let wanted: Vec<(usize, &str)> =
        (0..SITES).flat_map(|s| [(s, "/events/1.html"), (s, "/events/2.html")]).collect();
    ledger.expect_all_fetched(&wanted).unwrap();
    assert!(ledger.check_min_gap(gap * 20).is_err(), "the gap check sees this crawl's gaps");
    // Each site's gap is held, robots.txt first, nothing disallowed.
    ledger.check_min_gap(gap).unwrap();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    // Concurrently: the wall time is far below the serial sum of the sites' bounds (one
    // request at a time would take the sum; the old pass walked them so).
    let per_site: Vec<u32> = (0..SITES).map(|s| ledger.site(s).count() as u32).collect();
    let serial: Duration = per_site.iter().map(|n| gap * n.saturating_sub(1)).sum();
    let wall = ledger.span();
    assert!(
        wall * 10 < serial,
        "wall {wall:?} should be far below the serial sum {serial:?} of {SITES} sites"
    );
    assert!(most_sites_at_once(&ledger) > SITES / 2, "most sites were crawled at once");
    web.shutdown().await;
}

#[tokio::test]
async fn max_sites_at_once_bounds_the_sites_crawled_together() {
    const SITES: usize = 6;
    let web = TestWeb::start(
        Manifest::uniform(SITES, SiteSpec { events: 1, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let (ctx, _sink) = context(&one_source(&web, SITES, "50ms", "max_sites_at_once = 2\n"));
    let source = ctx.settings.sources[0].clone();
    let deadline = SystemTime::now() + Duration::from_secs(60);
    let report = super::bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert_eq!(report.event_pages, SITES as u32, "{report:?}");
    let ledger = web.ledger();
    // Positive control: more than one site at once (concurrent), yet never more than 2.
    let most = most_sites_at_once(&ledger);
    assert_eq!(most, 2, "sites crawled together");
    ledger.check_min_gap(Duration::from_millis(50)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn a_pass_stopped_by_the_global_daily_cap_says_so_with_the_count_left() {
    const SITES: usize = 5;
    let web = TestWeb::start(
        Manifest::uniform(SITES, SiteSpec { events: 2, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let config = one_source(&web, SITES, "20ms", "")
        .replace("global_daily_cap = 100000", "global_daily_cap = 8");
    let (ctx, _sink) = context(&config);
    let source = ctx.settings.sources[0].clone();
    let deadline = SystemTime::now() + Duration::from_secs(60);
    let report = super::bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    let ledger = web.ledger();
    // Positive control: requests were sent; the cap held from the sites' side.
    assert!(!ledger.is_empty());
    assert!(ledger.len() <= 8, "{} requests over a cap of 8", ledger.len());
    let held = &report.held[&gleaner_scheduler::HoldKind::GlobalDailyCap];
    assert!(held.requests > 0 && held.sites > 0, "{report:?}");
    let lines = report.hold_lines();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("global daily cap (8 requests) was reached"), "{lines:?}");
    assert!(lines[0].contains(&format!("{} requests at", held.requests)), "{lines:?}");
    web.shutdown().await;
}
