//! Every assertion helper catches a deliberately impolite client, passes a polite one
//! (with a positive control that the expected pages were fetched), and fails on a
//! ledger with no evidence.

use std::time::Duration;

use chrono::{NaiveDate, NaiveTime};
use gleaner_testweb::check::{crawl_time_lower_bound, local_clock};
use gleaner_testweb::{
    Ledger, Manifest, RetryAfterForm, RobotsScenario, Rule, SiteBehaviour, SiteSpec, TestWeb,
    Violations,
};

use crate::client::{POLITE_PATHS, UA, fast_timings, get, get_with, polite_crawl, raw_get};

const GAP: Duration = Duration::from_millis(120);
/// Timing allowance: the polite client runs on a loaded 2-core machine next to the
/// server, and the impolite requests these tests catch are 100 ms or more too early.
const SLACK: Duration = Duration::from_millis(40);

async fn web(sites: Vec<SiteSpec>) -> TestWeb {
    TestWeb::start(Manifest::new(sites).with_timings(fast_timings())).await.expect("start test web")
}

fn caught(r: Result<(), Violations>, rule: Rule) -> Violations {
    let v = r.expect_err("the check should catch the impolite client");
    assert!(v.has(rule), "expected {rule:?}, got {v}");
    v
}

/// The positive control for a polite crawl of `sites`: every allowed page was fetched.
fn expect_polite_pages(ledger: &Ledger, sites: &[usize]) {
    for &site in sites {
        ledger.expect_fetched(site, "/robots.txt").unwrap();
        for path in &POLITE_PATHS[..4] {
            ledger.expect_fetched(site, path).unwrap();
        }
    }
}

#[tokio::test]
async fn nothing_fetched_fails_every_check() {
    let web = web(Manifest::catalogue()).await;
    let l = web.ledger().with_slack(SLACK);
    let window =
        [(NaiveTime::from_hms_opt(8, 0, 0).unwrap(), NaiveTime::from_hms_opt(9, 0, 0).unwrap())];
    let start = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap().and_hms_opt(10, 0, 0).unwrap();
    let results = [
        l.check_min_gap(GAP),
        l.check_max_in_flight(1),
        l.check_robots_first(),
        l.check_robots_respected(true),
        l.check_suspensions(Duration::from_secs(60)),
        l.check_blocks(Duration::from_secs(60)),
        l.check_disallowed(),
        l.check_conditional_refetches(),
        l.check_identity(UA),
        l.check_methods(&["GET"]),
        l.check_quiet_hours(local_clock(start), &window),
    ];
    for (i, r) in results.into_iter().enumerate() {
        let v = r.expect_err("an empty ledger must not pass");
        assert!(v.has(Rule::NoEvidence), "check {i}: {v}");
    }
    assert!(l.expect_fetched(0, "/robots.txt").is_err());
    assert!(l.expect_successes(1).is_err());
    web.shutdown().await;
}

#[tokio::test]
async fn polite_crawler_passes_every_check() {
    let mut sites = vec![SiteSpec::default(); 3];
    sites[1].rules.crawl_delay = Some(0.2);
    sites.push(SiteSpec::with_robots(RobotsScenario::Status(503)));
    sites.push(SiteSpec::with_robots(RobotsScenario::DisallowAll));
    sites.push(SiteSpec::with_robots(RobotsScenario::Redirect { hops: 2, cross_host: true }));
    let web = web(sites).await;
    let all: Vec<usize> = (0..web.len()).collect();
    tokio::time::timeout(Duration::from_secs(20), polite_crawl(&web, &all, GAP, 2))
        .await
        .expect("polite crawl in time");
    let l = web.ledger().with_slack(SLACK);
    expect_polite_pages(&l, &[0, 1, 2, 5]);
    l.expect_successes(30).unwrap();
    l.check_robots_first().unwrap();
    l.check_min_gap_with_crawl_delay(GAP).unwrap();
    l.check_max_in_flight(1).unwrap();
    l.check_robots_respected(true).unwrap();
    l.check_disallowed().unwrap();
    l.check_conditional_refetches().unwrap();
    l.check_identity(UA).unwrap();
    l.check_methods(&["GET"]).unwrap();
    assert!(l.iter().any(|e| e.status == 304), "second pass was conditional");
    // Crawl-delay made site 1 slower than the others.
    let gaps: Vec<Duration> =
        l.site(1).collect::<Vec<_>>().windows(2).map(|w| w[1].at - w[0].at).collect();
    assert!(gaps[1..].iter().all(|g| *g >= Duration::from_millis(190)), "{gaps:?}");
    web.shutdown().await;
}

#[tokio::test]
async fn spacing_catches_back_to_back_requests() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    // Site 1 is polite, site 0 is not.
    polite_crawl(&web, &[1], GAP, 1).await;
    for path in ["/robots.txt", "/", "/events/1.html"] {
        get(web.addr(0), path).await;
    }
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_min_gap(GAP), Rule::Spacing);
    assert!(v.0.iter().all(|v| v.site == Some(0)), "{v}");
    assert_eq!(v.0.len(), 2);
    let msg = v.to_string();
    assert!(msg.contains("site 0") && msg.contains("`/events/1.html`"), "{msg}");
    // The polite site alone passes, with its positive control.
    let polite = l.filter(|e| e.site == 1);
    expect_polite_pages(&polite, &[1]);
    polite.check_min_gap(GAP).unwrap();
    // Per purpose: a larger gap before event pages catches even the polite site.
    let per_purpose = polite.check_spacing(|e| match e.kind() {
        gleaner_testweb::PathKind::Event => Duration::from_millis(500),
        _ => GAP,
    });
    caught(per_purpose, Rule::Spacing);
    web.shutdown().await;
}

#[tokio::test]
async fn crawl_delay_is_part_of_the_spacing() {
    let mut spec = SiteSpec::default();
    spec.rules.crawl_delay = Some(0.3);
    let web = web(vec![spec]).await;
    let a = web.addr(0);
    get(a, "/robots.txt").await;
    for path in ["/", "/events/1.html"] {
        tokio::time::sleep(GAP + Duration::from_millis(30)).await;
        get(a, path).await;
    }
    let l = web.ledger().with_slack(SLACK);
    l.check_min_gap(GAP).unwrap();
    caught(l.check_min_gap_with_crawl_delay(GAP), Rule::Spacing);
    web.shutdown().await;
}

#[tokio::test]
async fn in_flight_limit_catches_parallel_requests() {
    let web = web(vec![SiteSpec::default()]).await;
    let mut tasks = tokio::task::JoinSet::new();
    for path in ["/slow/first-byte", "/events/1.html", "/events/2.html"] {
        let a = web.addr(0);
        tasks.spawn(async move { get(a, path).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    while tasks.join_next().await.is_some() {}
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_max_in_flight(1), Rule::InFlight);
    assert!(v.to_string().contains("2 requests open"), "{v}");
    l.check_max_in_flight(3).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn robots_first_catches_a_page_before_robots() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    get(web.addr(0), "/events/1.html").await;
    get(web.addr(0), "/robots.txt").await;
    get(web.addr(1), "/robots.txt").await;
    get(web.addr(1), "/events/1.html").await;
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_robots_first(), Rule::RobotsFirst);
    assert_eq!(v.0.len(), 1);
    assert_eq!((v.0[0].site, v.0[0].target.as_deref()), (Some(0), Some("/events/1.html")));
    let good = l.filter(|e| e.site == 1);
    good.expect_fetched(1, "/events/1.html").unwrap();
    good.check_robots_first().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn robots_failures_and_disallow_all_catch_any_other_request() {
    let scenarios = [
        RobotsScenario::Status(503),
        RobotsScenario::Status(429),
        RobotsScenario::Status(500),
        RobotsScenario::DisallowAll,
        RobotsScenario::Redirect { hops: 6, cross_host: false },
        RobotsScenario::Status(401),
        RobotsScenario::Status(404),
    ];
    let web = web(scenarios.iter().cloned().map(SiteSpec::with_robots).collect()).await;
    for i in 0..web.len() {
        get(web.addr(i), "/robots.txt").await;
        get(web.addr(i), "/events/1.html").await;
    }
    let l = web.ledger().with_slack(SLACK);
    // Under RFC 9309, 401 allows all; 404 always allows all.
    let v = caught(l.check_robots_respected(false), Rule::RobotsRespected);
    let sites: Vec<usize> = v.0.iter().filter_map(|v| v.site).collect();
    assert_eq!(sites, [0, 1, 2, 3, 4]);
    assert!(v.to_string().contains("`status-503`"), "{v}");
    // Under a profile where 401/403 is a block, site 5 is caught too.
    let v = caught(l.check_robots_respected(true), Rule::RobotsRespected);
    assert!(v.0.iter().any(|v| v.site == Some(5)));
    // A client that only asked for robots.txt passes, and is seen to have asked.
    let polite = l.filter(|e| e.is_robots());
    polite.expect_fetched(0, "/robots.txt").unwrap();
    polite.check_robots_respected(true).unwrap();
    web.shutdown().await;
}

fn throttled(form: RetryAfterForm) -> SiteSpec {
    SiteSpec::with_behaviour(SiteBehaviour::Throttle {
        status: 429,
        after: 1,
        suspend_for: Duration::from_millis(800),
        retry_after: form,
    })
}

#[tokio::test]
async fn suspensions_catch_requests_before_retry_after() {
    let web = web(vec![
        throttled(RetryAfterForm::Seconds),
        throttled(RetryAfterForm::HttpDate),
        throttled(RetryAfterForm::Seconds),
    ])
    .await;
    // Sites 0 and 1: the impolite client retries at once, then keeps going.
    for site in [0, 1] {
        let a = web.addr(site);
        get(a, "/robots.txt").await;
        assert_eq!(get(a, "/events/1.html").await.status, 200);
        assert_eq!(get(a, "/events/2.html").await.status, 429);
        tokio::time::sleep(Duration::from_millis(100)).await;
        get(a, "/events/2.html").await;
    }
    // Site 2: the polite crawler waits for Retry-After (1 s) and gets everything.
    polite_crawl(&web, &[2], GAP, 1).await;
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_suspensions(Duration::from_secs(60)), Rule::Suspension);
    let sites: Vec<usize> = v.0.iter().filter_map(|v| v.site).collect();
    assert_eq!(sites, [0, 1], "{v}");
    assert!(v.to_string().contains("during the pause"), "{v}");
    let polite = l.filter(|e| e.site == 2);
    expect_polite_pages(&polite, &[2]);
    assert!(polite.iter().any(|e| e.status == 429));
    polite.check_suspensions(Duration::from_secs(60)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn suspension_without_retry_after_uses_the_default() {
    let web = web(vec![throttled(RetryAfterForm::Missing)]).await;
    let a = web.addr(0);
    get(a, "/events/1.html").await;
    get(a, "/events/2.html").await;
    tokio::time::sleep(Duration::from_millis(900)).await;
    // The server is open again, but the client did not know for how long to wait.
    assert_eq!(get(a, "/events/2.html").await.status, 200);
    let l = web.ledger().with_slack(SLACK);
    caught(l.check_suspensions(Duration::from_secs(60)), Rule::Suspension);
    l.check_suspensions(Duration::from_millis(500)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn blocks_catch_requests_after_a_refusal() {
    let web = web(vec![
        SiteSpec::with_behaviour(SiteBehaviour::Block { status: 403, after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::Challenge { after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::LoginWall { after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::Block { status: 401, after: 1 }),
    ])
    .await;
    for site in 0..3 {
        for path in ["/robots.txt", "/events/1.html", "/events/2.html", "/events/3.html"] {
            get(web.addr(site), path).await;
        }
    }
    polite_crawl(&web, &[3], GAP, 1).await;
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_blocks(Duration::from_secs(3600)), Rule::Block);
    let sites: Vec<usize> = v.0.iter().filter_map(|v| v.site).collect();
    assert_eq!(sites, [0, 1, 2], "{v}");
    let polite = l.filter(|e| e.site == 3);
    polite.expect_all_fetched(&[(3, "/robots.txt"), (3, "/")]).unwrap();
    assert!(polite.iter().any(|e| e.status == 401), "the polite crawler met the block");
    polite.check_blocks(Duration::from_secs(3600)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn disallowed_paths_are_caught_including_through_redirects() {
    let web = web(vec![
        SiteSpec::default(),
        SiteSpec::with_robots(RobotsScenario::Large),
        SiteSpec::default(),
    ])
    .await;
    get(web.addr(0), "/robots.txt").await;
    // Following a redirect into a disallowed path is fetching that path.
    let r = get(web.addr(0), "/redirect/private").await;
    get(web.addr(0), r.header("location").unwrap()).await;
    get(web.addr(0), "/events/hidden.html").await;
    get(web.addr(0), "/private/open.html").await; // allowed: Allow is longer
    get(web.addr(1), "/late-rule/x.html").await;
    polite_crawl(&web, &[2], GAP, 1).await;
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_disallowed(), Rule::Disallowed);
    let targets: Vec<&str> = v.0.iter().filter_map(|v| v.target.as_deref()).collect();
    assert_eq!(targets, ["/private/secret.html", "/events/hidden.html", "/late-rule/x.html"]);
    let polite = l.filter(|e| e.site == 2);
    expect_polite_pages(&polite, &[2]);
    polite.check_disallowed().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn refetches_without_validators_are_caught() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    let a = web.addr(0);
    get(a, "/events/1.html").await;
    get(a, "/events/1.html").await;
    let b = web.addr(1);
    let r = get(b, "/events/1.html").await;
    let tag = r.header("etag").unwrap().to_owned();
    assert_eq!(get_with(b, "/events/1.html", &[("If-None-Match", &tag)]).await.status, 304);
    let lm = r.header("last-modified").unwrap().to_owned();
    assert_eq!(get_with(b, "/events/1.html", &[("If-Modified-Since", &lm)]).await.status, 304);
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_conditional_refetches(), Rule::Unconditional);
    assert_eq!(v.0.len(), 1);
    assert_eq!(v.0[0].site, Some(0));
    let good = l.filter(|e| e.site == 1);
    assert_eq!(good.count(1, "/events/1.html"), 3);
    good.check_conditional_refetches().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn identity_catches_wrong_agents_cookies_and_referers() {
    let web = web(vec![SiteSpec::default()]).await;
    let a = web.addr(0);
    let t = Duration::from_secs(2);
    raw_get(a, "GET", "/", &[("User-Agent", UA)], t).await.unwrap();
    raw_get(a, "GET", "/a", &[("User-Agent", "Mozilla/5.0")], t).await.unwrap();
    raw_get(a, "GET", "/b", &[], t).await.unwrap();
    raw_get(a, "GET", "/c", &[("User-Agent", UA), ("Cookie", "x=1")], t).await.unwrap();
    raw_get(a, "GET", "/d", &[("User-Agent", UA), ("Referer", "http://127.0.0.1/")], t)
        .await
        .unwrap();
    raw_get(a, "HEAD", "/e", &[("User-Agent", UA)], t).await.unwrap();
    let l = web.ledger().with_slack(SLACK);
    let v = caught(l.check_identity(UA), Rule::Identity);
    let targets: Vec<&str> = v.0.iter().filter_map(|v| v.target.as_deref()).collect();
    assert_eq!(targets, ["/a", "/b", "/c", "/d"]);
    let v = caught(l.check_methods(&["GET"]), Rule::Method);
    assert_eq!(v.0.len(), 1);
    l.check_methods(&["GET", "HEAD"]).unwrap();
    let good = l.filter(|e| e.path == "/" || e.path == "/e");
    good.expect_fetched(0, "/").unwrap();
    good.check_identity(UA).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn quiet_hours_catch_requests_inside_a_window() {
    let web = web(vec![SiteSpec::default()]).await;
    for path in ["/robots.txt", "/", "/events/1.html"] {
        get(web.addr(0), path).await;
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    let l = web.ledger().with_slack(SLACK);
    let day = NaiveDate::from_ymd_opt(2026, 11, 30).unwrap();
    let windows = [
        (NaiveTime::from_hms_opt(8, 0, 0).unwrap(), NaiveTime::from_hms_opt(9, 0, 0).unwrap()),
        (NaiveTime::from_hms_opt(14, 0, 0).unwrap(), NaiveTime::from_hms_opt(15, 0, 0).unwrap()),
    ];
    // The crawler's clock said 07:59:59.950 at the epoch: later requests fall after 08:00.
    let early = day.and_hms_milli_opt(7, 59, 59, 950).unwrap();
    let v = caught(l.check_quiet_hours(local_clock(early), &windows), Rule::QuietHours);
    assert!(v.to_string().contains("inside quiet hours [08:00:00, 09:00:00)"), "{v}");
    // At 14:59:59 every request is still inside [14:00, 15:00); from 15:00 none is.
    let end = day.and_hms_milli_opt(14, 59, 59, 0).unwrap();
    let r = l.check_quiet_hours(local_clock(end), &windows);
    assert!(r.is_err(), "the first requests are still inside [14:00, 15:00)");
    let after = day.and_hms_opt(15, 0, 0).unwrap();
    l.expect_fetched(0, "/events/1.html").unwrap();
    l.check_quiet_hours(local_clock(after), &windows).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn lower_bound_of_crawl_time() {
    assert_eq!(
        crawl_time_lower_bound(&[5, 3, 1, 0], Duration::from_secs(2)),
        Duration::from_secs(8)
    );
    assert_eq!(crawl_time_lower_bound(&[], Duration::from_secs(2)), Duration::ZERO);
    let mut slow = SiteSpec::default();
    slow.rules.crawl_delay = Some(0.2);
    let web = web(vec![SiteSpec::default(), slow]).await;
    polite_crawl(&web, &[0, 1], GAP, 1).await;
    let l = web.ledger().with_slack(SLACK);
    expect_polite_pages(&l, &[0, 1]);
    let gap_for = |e: &gleaner_testweb::LedgerEntry| {
        let delay = l.spec(e.site).crawl_delay().unwrap_or_default();
        if e.is_robots() { GAP } else { GAP.max(delay) }
    };
    // Site 1: robots.txt, then 4 pages, each 200 ms (its Crawl-delay) after the last start.
    let bound = l.crawl_time_lower_bound(gap_for);
    assert_eq!(bound, Duration::from_millis(200 * 4));
    let ratio = l.spacing_ratio(gap_for).unwrap();
    assert!((0.9..2.5).contains(&ratio), "wall time ÷ bound = {ratio}");
    web.shutdown().await;
}
