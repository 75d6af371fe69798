//! Each scenario answers as the crate docs say.

use std::time::{Duration, Instant};

use gleaner_testweb::{Manifest, RetryAfterForm, RobotsScenario, SiteBehaviour, SiteSpec, TestWeb};

use crate::client::{Resp, UA, fast_timings, get, get_with, raw_get, retry_after};

async fn web(sites: Vec<SiteSpec>) -> TestWeb {
    TestWeb::start(Manifest::new(sites).with_timings(fast_timings())).await.expect("start test web")
}

fn robots(scenario: RobotsScenario) -> SiteSpec {
    SiteSpec::with_robots(scenario)
}

#[tokio::test]
async fn robots_status_scenarios() {
    let codes = [404u16, 401, 403, 429, 500, 503];
    let web = web(codes.iter().map(|c| robots(RobotsScenario::Status(*c))).collect()).await;
    for (i, code) in codes.iter().enumerate() {
        let r = get(web.addr(i), "/robots.txt").await;
        assert_eq!(r.status, *code, "site {i}");
        let want = matches!(code, 429 | 503).then_some("1");
        assert_eq!(r.header("retry-after"), want, "site {i}");
    }
    web.shutdown().await;
}

#[tokio::test]
async fn robots_rules_disallow_all_large_and_garbage() {
    let web = web(vec![
        SiteSpec {
            rules: gleaner_testweb::RobotsRules { crawl_delay: Some(3.0), ..Default::default() },
            ..SiteSpec::default()
        },
        robots(RobotsScenario::DisallowAll),
        robots(RobotsScenario::Large),
        robots(RobotsScenario::Garbage),
    ])
    .await;
    let r = get(web.addr(0), "/robots.txt").await;
    assert_eq!(r.status, 200);
    let text = r.text();
    assert!(text.contains("User-agent: gleaner\nCrawl-delay: 3\n"), "{text}");
    assert!(text.contains("Disallow: /private/"), "{text}");
    assert!(r.header("etag").is_some() && r.header("last-modified").is_some());

    let r = get(web.addr(1), "/robots.txt").await;
    assert_eq!(r.text(), "User-agent: *\nDisallow: /\n");

    let r = get(web.addr(2), "/robots.txt").await;
    assert!(r.body.len() >= 600 * 1024, "large robots is {} bytes", r.body.len());
    let late = r.text().find("Disallow: /late-rule/").expect("late rule");
    assert!(late > 550 * 1024, "late rule at {late}");

    let r = get(web.addr(3), "/robots.txt").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.body.len(), 4096);
    assert!(std::str::from_utf8(&r.body).is_err(), "garbage should not be UTF-8");
    web.shutdown().await;
}

#[tokio::test]
async fn robots_timeout_and_reset() {
    let web = web(vec![robots(RobotsScenario::Timeout), robots(RobotsScenario::Reset)]).await;
    let t = raw_get(web.addr(0), "GET", "/robots.txt", &[], Duration::from_millis(300)).await;
    assert_eq!(t.unwrap_err().kind(), std::io::ErrorKind::TimedOut);
    let r = raw_get(web.addr(1), "GET", "/robots.txt", &[], Duration::from_secs(2)).await;
    let err = r.unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::ConnectionReset, "{err}");
    web.shutdown().await;
}

async fn follow(web: &TestWeb, site: usize, path: &str, max: usize) -> (Vec<Resp>, String) {
    let mut addr = web.addr(site);
    let mut target = path.to_owned();
    let mut seen = Vec::new();
    for _ in 0..max {
        let r = get(addr, &target).await;
        let loc = r.header("location").map(str::to_owned);
        seen.push(r);
        let Some(loc) = loc else { break };
        if let Some(rest) = loc.strip_prefix("http://") {
            let (host, p) = rest.split_at(rest.find('/').unwrap());
            addr = host.parse().unwrap();
            target = p.to_owned();
        } else {
            target = loc;
        }
    }
    (seen, format!("{addr}{target}"))
}

#[tokio::test]
async fn robots_redirect_chains() {
    let web = web(vec![
        robots(RobotsScenario::Redirect { hops: 5, cross_host: false }),
        robots(RobotsScenario::Redirect { hops: 7, cross_host: false }),
        robots(RobotsScenario::Redirect { hops: 2, cross_host: true }),
    ])
    .await;
    let (chain, _) = follow(&web, 0, "/robots.txt", 10).await;
    assert_eq!(chain.len(), 6, "5 redirects then the file");
    assert!(chain[..5].iter().all(|r| r.status == 301));
    assert_eq!(chain[5].status, 200);
    assert!(chain[5].text().contains("User-agent: gleaner"));

    let (chain, _) = follow(&web, 1, "/robots.txt", 10).await;
    assert_eq!(chain.iter().filter(|r| r.status == 301).count(), 7);

    let (chain, end) = follow(&web, 2, "/robots.txt", 10).await;
    assert_eq!(chain.len(), 3);
    assert!(end.starts_with(&web.authority(0)), "cross-host chain ends on site 0: {end}");
    assert!(chain[2].text().contains("site 2"), "rules of the original site");
    web.shutdown().await;
}

#[tokio::test]
async fn validators_and_304() {
    let web = web(vec![SiteSpec::default()]).await;
    let a = web.addr(0);
    for path in ["/", "/events/", "/events/1.html", "/about.html", "/robots.txt", "/malformed.html"]
    {
        let r = get(a, path).await;
        assert_eq!(r.status, 200, "{path}");
        let etag = r.header("etag").expect("etag").to_owned();
        let lm = r.header("last-modified").expect("last-modified").to_owned();
        let r = get_with(a, path, &[("If-None-Match", &etag)]).await;
        assert_eq!(r.status, 304, "{path} If-None-Match");
        assert!(r.body.is_empty());
        assert_eq!(r.header("etag"), Some(etag.as_str()));
        let r = get_with(a, path, &[("If-Modified-Since", &lm)]).await;
        assert_eq!(r.status, 304, "{path} If-Modified-Since");
        let r =
            get_with(a, path, &[("If-None-Match", "\"stale\""), ("If-Modified-Since", &lm)]).await;
        assert_eq!(r.status, 200, "{path}: If-None-Match wins over If-Modified-Since");
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let ledger = web.ledger();
    assert_eq!(ledger.iter().filter(|e| e.status == 304).count(), 12);
    for e in ledger.iter() {
        assert!(!e.hung_up && e.finished.is_some(), "{e:?}");
        assert!(e.validators_sent, "{e:?}");
    }
    web.shutdown().await;
}

#[tokio::test]
async fn pages_change_vanish_and_move_between_passes() {
    let web = web(vec![SiteSpec::default()]).await;
    let a = web.addr(0);
    let before: Vec<Resp> = futures_get(
        a,
        &["/events/1.html", "/events/2.html", "/events/3.html", "/events/4.html", "/events/5.html"],
    )
    .await;
    assert!(before.iter().all(|r| r.status == 200));
    let listing = get(a, "/events/").await.text() + &get(a, "/events/?page=2").await.text();
    assert!(listing.contains("/events/3.html") && listing.contains("rel=\"next\""));

    assert_eq!(web.advance_pass(), 1);
    let after = futures_get(
        a,
        &["/events/1.html", "/events/2.html", "/events/3.html", "/events/4.html", "/events/5.html"],
    )
    .await;
    assert_eq!(after[0].body, before[0].body, "event 1 is stable");
    assert_eq!(after[1].status, 200);
    assert_ne!(after[1].body, before[1].body, "event 2 changes");
    assert_ne!(after[1].header("etag"), before[1].header("etag"));
    assert_eq!(after[2].status, 404);
    assert_eq!(after[3].status, 410);
    assert_eq!(after[4].status, 301);
    assert_eq!(after[4].header("location"), Some("/events/moved/5.html"));
    assert_eq!(get(a, "/events/moved/5.html").await.status, 200);
    // The old validator of a changed page no longer matches.
    let tag = before[1].header("etag").unwrap().to_owned();
    assert_eq!(get_with(a, "/events/2.html", &[("If-None-Match", &tag)]).await.status, 200);
    let listing = get(a, "/events/").await.text() + &get(a, "/events/?page=2").await.text();
    assert!(!listing.contains("/events/3.html") && listing.contains("/events/moved/5.html"));
    web.shutdown().await;
}

async fn futures_get(a: std::net::SocketAddr, paths: &[&str]) -> Vec<Resp> {
    let mut out = Vec::new();
    for p in paths {
        out.push(get(a, p).await);
    }
    out
}

#[tokio::test]
async fn throttle_with_retry_after_seconds_and_http_date() {
    let throttle = |status, form| {
        SiteSpec::with_behaviour(SiteBehaviour::Throttle {
            status,
            after: 2,
            suspend_for: Duration::from_secs(1),
            retry_after: form,
        })
    };
    let web = web(vec![
        throttle(429, RetryAfterForm::Seconds),
        throttle(503, RetryAfterForm::HttpDate),
        throttle(429, RetryAfterForm::Missing),
    ])
    .await;
    for site in 0..3 {
        let a = web.addr(site);
        assert_eq!(get(a, "/events/1.html").await.status, 200);
        assert_eq!(get(a, "/events/2.html").await.status, 200);
        let r = get(a, "/events/3.html").await;
        assert!(matches!(r.status, 429 | 503), "site {site}: {}", r.status);
        // robots.txt stays readable during a throttle.
        assert_eq!(get(a, "/robots.txt").await.status, 200);
        match site {
            0 => assert_eq!(r.header("retry-after"), Some("1")),
            1 => assert_eq!(retry_after(&r), Duration::from_secs(1), "{:?}", r.headers),
            _ => assert_eq!(r.header("retry-after"), None),
        }
    }
    tokio::time::sleep(Duration::from_millis(1100)).await;
    for site in 0..3 {
        assert_eq!(
            get(web.addr(site), "/events/3.html").await.status,
            200,
            "site {site} after the pause"
        );
    }
    let ledger = web.ledger();
    let t = ledger.iter().find(|e| e.site == 1 && e.status == 503).unwrap();
    assert_eq!(t.retry_after, Some(Duration::from_secs(1)));
    web.shutdown().await;
}

#[tokio::test]
async fn blocks_challenges_and_login_walls() {
    let web = web(vec![
        SiteSpec::with_behaviour(SiteBehaviour::Block { status: 401, after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::Block { status: 403, after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::Challenge { after: 1 }),
        SiteSpec::with_behaviour(SiteBehaviour::LoginWall { after: 1 }),
        SiteSpec::default(),
    ])
    .await;
    for site in 0..4 {
        assert_eq!(get(web.addr(site), "/events/1.html").await.status, 200);
    }
    assert_eq!(get(web.addr(0), "/events/2.html").await.status, 401);
    assert_eq!(get(web.addr(1), "/events/2.html").await.status, 403);
    let c = get(web.addr(2), "/events/2.html").await;
    assert_eq!((c.status, c.header("cf-mitigated")), (403, Some("challenge")));
    let l = get(web.addr(3), "/events/2.html").await;
    assert_eq!(l.status, 200);
    assert!(l.text().contains("type=\"password\""));
    // The per-path versions exist on every site.
    let c = get(web.addr(4), "/challenge").await;
    assert_eq!((c.status, c.header("cf-mitigated")), (403, Some("challenge")));
    assert!(get(web.addr(4), "/login").await.text().contains("Please sign in"));
    web.shutdown().await;
}

#[tokio::test]
async fn slow_huge_lying_and_bomb_bodies() {
    let web = web(vec![SiteSpec::default()]).await;
    let a = web.addr(0);
    let t = Instant::now();
    let r = get(a, "/slow/first-byte").await;
    assert_eq!(r.status, 200);
    assert!(t.elapsed() >= Duration::from_millis(300), "{:?}", t.elapsed());

    let t = Instant::now();
    let r = get(a, "/slow/trickle").await;
    assert_eq!(r.body.len(), 20);
    assert!(t.elapsed() >= Duration::from_millis(19 * 50), "{:?}", t.elapsed());

    let r = get(a, "/huge").await;
    assert_eq!(r.body.len(), 12 * 1024 * 1024);
    assert_eq!(r.header("content-length"), Some("12582912"));

    let r = get(a, "/lying-length").await;
    assert_eq!(r.header("content-length"), Some("1000000"));
    assert_eq!(r.body.len(), 1000, "the body stops short and the connection closes");

    let r = get(a, "/gzip-bomb").await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert!(r.body.len() < 512 * 1024, "compressed {} bytes", r.body.len());
    // Decode just past gleaner's 8 MiB cap: the bomb is far from done there.
    let mut d = flate2::read::GzDecoder::new(&r.body[..]);
    let mut buf = vec![0u8; 9 << 20];
    std::io::Read::read_exact(&mut d, &mut buf).expect("more than 9 MiB inside");

    let r = get(a, "/malformed.html").await;
    assert!(r.text().contains("Survivor"));
    web.shutdown().await;
}

#[tokio::test]
async fn page_redirects() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    let a = web.addr(0);
    let r = get(a, "/redirect/private").await;
    assert_eq!((r.status, r.header("location")), (302, Some("/private/secret.html")));
    let r = get(a, "/redirect/other-site").await;
    assert_eq!(r.header("location"), Some(web.url(1, "/events/1.html").as_str()));
    let (chain, _) = follow(&web, 0, "/redirect/loop", 6).await;
    assert!(chain.iter().all(|r| r.status == 302), "a loop never ends");
    let (chain, end) = follow(&web, 0, "/redirect/chain/6", 10).await;
    assert_eq!(chain.len(), 7);
    assert!(end.ends_with("/events/1.html"));
    let r = get(a, "/status/410").await;
    assert_eq!(r.status, 410);
    let r = get(a, "/status/429?retry_after=7").await;
    assert_eq!((r.status, r.header("retry-after")), (429, Some("7")));
    web.shutdown().await;
}

#[tokio::test]
async fn two_thousand_sites_in_one_process() {
    let web = TestWeb::start(Manifest::generate(2000, 1)).await.expect("2,000 sites");
    assert_eq!(web.len(), 2000);
    let port = web.addr(0).port();
    let mut hosts = std::collections::HashSet::new();
    for i in 0..2000 {
        let a = web.addr(i);
        assert_eq!(a.port(), port);
        assert!(a.ip().is_loopback());
        hosts.insert(a.ip());
    }
    assert_eq!(hosts.len(), 2000, "every site is a distinct host");
    // Touch a spread of sites, including the last one.
    let mut tasks = tokio::task::JoinSet::new();
    for i in (0..2000).step_by(40).chain([1999]) {
        let a = web.addr(i);
        tasks.spawn(async move {
            raw_get(a, "GET", "/", &[("User-Agent", UA)], Duration::from_secs(5)).await
        });
    }
    while let Some(r) = tasks.join_next().await {
        assert!(r.unwrap().is_ok());
    }
    let ledger = web.ledger();
    assert_eq!(ledger.sites_touched().len(), 51);
    assert_eq!(ledger.manifest.sites.len(), 2000);
    web.shutdown().await;
}

#[test]
fn generated_manifests_are_deterministic() {
    let a = Manifest::generate(300, 7);
    assert_eq!(a, Manifest::generate(300, 7));
    assert_ne!(a, Manifest::generate(300, 8));
    assert_eq!(a.sites[..Manifest::catalogue().len()], Manifest::catalogue()[..]);
}

#[tokio::test]
async fn binary_serves_two_thousand_sites_and_prints_their_urls() {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_gleaner-testweb"))
        .args(["serve", "--sites", "2000", "--seed", "1", "--describe"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn gleaner-testweb serve");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let mut urls = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), async {
        while urls.len() < 2000 {
            let line = lines.next_line().await.unwrap().expect("2,000 lines");
            urls.push(line.split('\t').next().unwrap().to_owned());
        }
    })
    .await
    .expect("URLs printed in time");
    assert!(urls[0].starts_with("http://127.0.1.1:"));
    assert!(urls[1999].starts_with("http://127.0.8.250:"));
    let last: std::net::SocketAddr =
        urls[1999].trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
    // The first page request of any scenario answers 200.
    assert_eq!(get(last, "/").await.status, 200);
    child.kill().await.unwrap();
}
