//! The ledger records what the site saw, field by field.

use std::time::Duration;

use gleaner_testweb::{Manifest, RobotsScenario, Served, SiteSpec, TestWeb};

use crate::client::{UA, fast_timings, get, raw_get};

#[tokio::test]
async fn entries_carry_request_and_answer_fields() {
    let web =
        TestWeb::start(Manifest::uniform(2, SiteSpec::default()).with_timings(fast_timings()))
            .await
            .unwrap();
    let a = web.addr(1);
    let headers = [
        ("User-Agent", "Mozilla/5.0 (pretending)"),
        ("Cookie", "session=1"),
        ("Referer", "http://127.0.0.1/"),
        ("If-None-Match", "\"nope\""),
        ("If-Modified-Since", "Thu, 01 Jan 2026 00:00:00 GMT"),
    ];
    let r = raw_get(a, "GET", "/events/?page=2", &headers, Duration::from_secs(2)).await.unwrap();
    assert_eq!(r.status, 200);
    let r = raw_get(a, "HEAD", "/events/1.html", &[("User-Agent", UA)], Duration::from_secs(2))
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    tokio::time::sleep(Duration::from_millis(50)).await;

    let ledger = web.ledger();
    assert_eq!(ledger.len(), 2);
    let e = &ledger[0];
    assert_eq!((e.seq, e.site, e.method.as_str()), (0, 1, "GET"));
    assert_eq!(e.path, "/events/");
    assert_eq!(e.query.as_deref(), Some("page=2"));
    assert_eq!(e.target(), "/events/?page=2");
    assert_eq!(e.host.as_deref(), Some(web.authority(1).as_str()));
    assert_eq!(e.user_agent.as_deref(), Some("Mozilla/5.0 (pretending)"));
    assert_eq!(e.cookie.as_deref(), Some("session=1"));
    assert_eq!(e.referer.as_deref(), Some("http://127.0.0.1/"));
    assert_eq!(e.if_none_match.as_deref(), Some("\"nope\""));
    assert!(e.if_modified_since.is_some() && e.is_conditional());
    assert_eq!((e.status, e.served, e.in_flight), (200, Served::Page, 1));
    assert!(e.validators_sent);
    assert!(e.bytes_sent > 100, "{}", e.bytes_sent);
    assert!(!e.hung_up);
    assert!(e.finished.unwrap() >= e.at);
    let h = &ledger[1];
    assert_eq!(h.method, "HEAD");
    assert!(!h.hung_up, "{h:?}");
    assert!(h.at > e.at && h.seq == 1);
    assert!(ledger.to_json_lines().lines().count() == 2);
    web.shutdown().await;
}

#[tokio::test]
async fn in_flight_counts_open_requests_per_site() {
    let web =
        TestWeb::start(Manifest::uniform(2, SiteSpec::default()).with_timings(fast_timings()))
            .await
            .unwrap();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..3 {
        let a = web.addr(0);
        tasks.spawn(async move {
            tokio::time::sleep(Duration::from_millis(30 * i)).await;
            get(a, "/slow/first-byte").await
        });
    }
    // Another site's request does not count at site 0.
    get(web.addr(1), "/").await;
    while let Some(r) = tasks.join_next().await {
        assert_eq!(r.unwrap().status, 200);
    }
    let ledger = web.ledger();
    let mut counts: Vec<usize> = ledger.site(0).map(|e| e.in_flight).collect();
    counts.sort_unstable();
    assert_eq!(counts, [1, 2, 3]);
    assert_eq!(ledger.site(1).next().unwrap().in_flight, 1);
    web.shutdown().await;
}

#[tokio::test]
async fn early_hang_ups_are_recorded() {
    let web = TestWeb::start(
        Manifest::new(vec![SiteSpec::default(), SiteSpec::with_robots(RobotsScenario::Timeout)])
            .with_timings(fast_timings()),
    )
    .await
    .unwrap();
    // Give up on a trickle after 120 ms (about 3 of its 20 bytes).
    let r = raw_get(
        web.addr(0),
        "GET",
        "/slow/trickle",
        &[("User-Agent", UA)],
        Duration::from_millis(120),
    )
    .await;
    assert!(r.is_err());
    // Give up on a robots.txt that never answers.
    let r = raw_get(
        web.addr(1),
        "GET",
        "/robots.txt",
        &[("User-Agent", UA)],
        Duration::from_millis(120),
    )
    .await;
    assert!(r.is_err());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let ledger = web.ledger();
        let trickle = ledger.site(0).next().unwrap().clone();
        let hang = ledger.site(1).next().unwrap().clone();
        if let (Some(_), Some(hang_end)) = (trickle.finished, hang.finished) {
            assert!(trickle.hung_up, "{trickle:?}");
            assert!(trickle.bytes_sent < 20, "{trickle:?}");
            assert_eq!(hang.served, Served::Fault);
            assert_eq!(hang.status, 0);
            assert!(hang.hung_up, "{hang:?}");
            assert!(hang_end < hang.at + Duration::from_secs(1), "{hang:?}");
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "entries never completed: {trickle:?} {hang:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // A full answer is not a hang-up.
    get(web.addr(0), "/huge").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let huge = web.ledger().site(0).find(|e| e.path == "/huge").unwrap().clone();
    assert!(!huge.hung_up);
    assert_eq!(huge.bytes_sent, 12 * 1024 * 1024);
    web.shutdown().await;
}

#[tokio::test]
async fn arrival_times_are_monotonic_and_in_order() {
    let web = TestWeb::start(Manifest::uniform(1, SiteSpec::default())).await.unwrap();
    for _ in 0..5 {
        get(web.addr(0), "/").await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let ledger = web.ledger();
    let at: Vec<Duration> = ledger.iter().map(|e| e.at).collect();
    assert!(at.windows(2).all(|w| w[1] >= w[0] + Duration::from_millis(19)), "{at:?}");
    assert!(ledger.span() >= Duration::from_millis(80));
    web.clear_ledger();
    assert!(web.ledger().is_empty());
    web.shutdown().await;
}
