//! The client against the loopback test web: what the sites see (from the ledger) and
//! what the client reports. Every test is bounded in time; no traffic leaves loopback.

use std::time::{Duration, Instant};

use gleaner_fetch::{
    AddressPolicy, Client, ClientSettings, FetchError, FetchRequest, Method, RedirectChain,
    RedirectError, SsrfRefusal,
};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb, Timings};
use url::Url;

mod gate;
mod gate_paused;
mod kept;
mod robots;
mod signing;
mod transport;

const UA: &str = "TestBot/1.0 (+https://bot.example/about; bot@bot.example)";

fn settings() -> ClientSettings {
    ClientSettings {
        user_agent: UA.to_owned(),
        connect_timeout: Duration::from_secs(2),
        response_deadline: Duration::from_secs(2),
        max_body_bytes: 8 * 1024 * 1024,
        head_allowed: false,
        address_policy: AddressPolicy::allowing(vec!["127.0.0.0/8".parse().unwrap()]),
        signer: None,
        keep_idle: Some(gleaner_fetch::client::DEFAULT_KEEP_IDLE),
        max_in_flight: None,
        max_idle: None,
    }
}

pub(crate) fn client() -> Client {
    Client::new(settings()).unwrap()
}

async fn web(sites: usize) -> TestWeb {
    let timings = Timings {
        slow_first_byte: Duration::from_secs(5),
        trickle_interval: Duration::from_millis(200),
        trickle_bytes: 40,
        hang: Duration::from_secs(5),
        ..Timings::default()
    };
    let manifest =
        Manifest::uniform(sites, SiteSpec::default()).with_timings(timings).with_token("TestBot");
    TestWeb::start(manifest).await.unwrap()
}

fn url(web: &TestWeb, path: &str) -> Url {
    Url::parse(&web.url(0, path)).unwrap()
}

/// Runs a future with a hard bound, so no test can hang.
pub(crate) async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(20), f).await.expect("test step finished within 20 s")
}

#[tokio::test]
async fn requests_carry_the_fixed_identity_and_nothing_else() {
    let web = web(1).await;
    let c = client();
    let fetched = bounded(c.fetch(&FetchRequest::get(url(&web, "/about.html")))).await.unwrap();
    assert_eq!(fetched.status, 200);
    assert!(!fetched.body.is_empty());
    bounded(c.fetch(&FetchRequest::get(url(&web, "/events/1.html")))).await.unwrap();
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/about.html").unwrap();
    ledger.expect_fetched(0, "/events/1.html").unwrap();
    ledger.check_identity(UA).unwrap();
    ledger.check_methods(&["GET"]).unwrap();
    assert!(ledger.entries.iter().all(|e| e.cookie.is_none() && e.referer.is_none()));
    web.shutdown().await;
}

#[tokio::test]
async fn conditional_refetch_gets_304_and_keeps_validators() {
    let web = web(1).await;
    let c = client();
    let first = bounded(c.fetch(&FetchRequest::get(url(&web, "/about.html")))).await.unwrap();
    assert_eq!(first.status, 200);
    assert!(first.validators.etag.is_some() && first.validators.last_modified.is_some());
    let again =
        FetchRequest::get(url(&web, "/about.html")).with_validators(first.validators.clone());
    let second = bounded(c.fetch(&again)).await.unwrap();
    assert!(second.is_not_modified(), "status {}", second.status);
    assert!(second.body.is_empty(), "a 304 downloads nothing");
    assert_eq!(second.validators, first.validators, "304 refreshes (keeps) the validators");
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/about.html"), 2);
    ledger.check_conditional_refetches().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn slow_first_byte_ends_at_the_deadline() {
    let web = web(1).await;
    let started = Instant::now();
    let err = bounded(client().fetch(&FetchRequest::get(url(&web, "/slow/first-byte"))))
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Timeout { .. }), "{err}");
    assert!(err.is_retryable());
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "ended near the 2 s deadline: {:?}",
        started.elapsed()
    );
    web.ledger().expect_fetched(0, "/slow/first-byte").unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn slow_trickle_ends_at_the_deadline() {
    let web = web(1).await;
    let started = Instant::now();
    let err =
        bounded(client().fetch(&FetchRequest::get(url(&web, "/slow/trickle")))).await.unwrap_err();
    assert!(
        matches!(err, FetchError::Timeout { .. }),
        "a trickle of 40 bytes every 200 ms outlasts 2 s: {err}"
    );
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());
    web.shutdown().await;
}

#[tokio::test]
async fn huge_body_is_abandoned_not_truncated() {
    let web = web(1).await;
    let err = bounded(client().fetch(&FetchRequest::get(url(&web, "/huge")))).await.unwrap_err();
    assert!(matches!(err, FetchError::TooLarge { limit: 8_388_608, .. }), "{err}");
    let entry = web
        .ledger()
        .site(0)
        .find(|e| e.path == "/huge")
        .cloned()
        .expect("the request reached the site");
    assert!(
        entry.bytes_sent < 12 * 1024 * 1024,
        "we stopped reading before the whole 12 MiB: {}",
        entry.bytes_sent
    );
    web.shutdown().await;
}

#[tokio::test]
async fn gzip_bomb_stops_at_the_cap_of_decompressed_bytes() {
    let web = web(1).await;
    let err =
        bounded(client().fetch(&FetchRequest::get(url(&web, "/gzip-bomb")))).await.unwrap_err();
    assert!(matches!(err, FetchError::TooLarge { declared: None, .. }), "{err}");
    web.shutdown().await;
}

#[tokio::test]
async fn lying_content_length_is_an_error_not_a_short_body() {
    let web = web(1).await;
    let err =
        bounded(client().fetch(&FetchRequest::get(url(&web, "/lying-length")))).await.unwrap_err();
    assert!(matches!(err, FetchError::Body { .. } | FetchError::Connect { .. }), "{err}");
    web.shutdown().await;
}

#[tokio::test]
async fn per_request_cap_applies() {
    let web = web(1).await;
    let mut request = FetchRequest::get(url(&web, "/about.html"));
    request.max_body_bytes = Some(10);
    let err = bounded(client().fetch(&request)).await.unwrap_err();
    assert!(matches!(err, FetchError::TooLarge { limit: 10, .. }), "{err}");
    web.shutdown().await;
}

#[tokio::test]
async fn redirects_come_back_hop_by_hop() {
    let web = web(2).await;
    let c = client();
    let start = url(&web, "/redirect/chain/3");
    let mut chain = RedirectChain::new(start.clone(), 5, vec![]);
    let mut fetched = bounded(c.fetch(&FetchRequest::get(start))).await.unwrap();
    let mut hops = 0;
    while fetched.is_redirect() {
        let next = chain.follow(fetched.location()).unwrap();
        fetched = bounded(c.fetch(&FetchRequest::get(next))).await.unwrap();
        hops += 1;
        assert!(hops <= 5, "bounded");
    }
    assert_eq!(hops, 3);
    assert_eq!(fetched.status, 200);
    assert_eq!(fetched.url.path(), "/events/1.html");
    // Each hop was a separate request the site saw.
    assert!(web.ledger().site(0).filter(|e| e.path.starts_with("/redirect/chain/")).count() >= 3);
    web.shutdown().await;
}

#[tokio::test]
async fn more_than_five_hops_and_loops_are_refused() {
    let web = web(1).await;
    let c = client();
    for (path, expect_loop) in [("/redirect/chain/7", false), ("/redirect/loop", true)] {
        let start = url(&web, path);
        let mut chain = RedirectChain::new(start.clone(), 5, vec![]);
        let mut fetched = bounded(c.fetch(&FetchRequest::get(start))).await.unwrap();
        let error = loop {
            assert!(fetched.is_redirect(), "{path}: status {}", fetched.status);
            match chain.follow(fetched.location()) {
                Ok(next) => fetched = bounded(c.fetch(&FetchRequest::get(next))).await.unwrap(),
                Err(e) => break e,
            }
        };
        if expect_loop {
            assert!(matches!(error, RedirectError::Loop(_)), "{path}: {error}");
        } else {
            assert_eq!(error, RedirectError::TooManyHops { max: 5 }, "{path}");
        }
    }
    web.shutdown().await;
}

#[tokio::test]
async fn redirect_to_another_site_is_handed_back_not_followed() {
    let web = web(2).await;
    let fetched = bounded(client().fetch(&FetchRequest::get(url(&web, "/redirect/other-site"))))
        .await
        .unwrap();
    assert!(fetched.is_redirect());
    let mut chain = RedirectChain::new(fetched.url.clone(), 5, vec![]);
    let next = chain.follow(fetched.location()).unwrap();
    assert_ne!(next.host_str(), fetched.url.host_str(), "the target is another site");
    assert_eq!(web.ledger().site(1).count(), 0, "the client did not follow it by itself");
    web.shutdown().await;
}

#[tokio::test]
async fn ssrf_guard_refuses_loopback_when_not_allowed_and_nothing_is_sent() {
    let web = web(1).await;
    let strict =
        Client::new(ClientSettings { address_policy: AddressPolicy::public_only(), ..settings() })
            .unwrap();
    let err =
        bounded(strict.fetch(&FetchRequest::get(url(&web, "/about.html")))).await.unwrap_err();
    assert!(matches!(err, FetchError::Refused(SsrfRefusal { .. })), "{err}");
    assert!(err.to_string().contains("loopback"), "{err}");
    // A name that resolves to loopback is refused by the resolver, before connecting.
    let port = web.addr(0).port();
    let by_name = Url::parse(&format!("http://localhost:{port}/about.html")).unwrap();
    let err = bounded(strict.fetch(&FetchRequest::get(by_name))).await.unwrap_err();
    assert!(matches!(err, FetchError::Refused(_)), "{err}");
    assert_eq!(web.ledger().entries.len(), 0, "nothing reached the site");
    // Positive control: the same request with loopback allowed reaches the site.
    bounded(client().fetch(&FetchRequest::get(url(&web, "/about.html")))).await.unwrap();
    web.ledger().expect_fetched(0, "/about.html").unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn ssrf_forms_of_private_addresses_are_refused_before_any_connection() {
    let c =
        Client::new(ClientSettings { address_policy: AddressPolicy::public_only(), ..settings() })
            .unwrap();
    for target in [
        "http://0x7f.1/",
        "http://2130706433/",
        "http://[::ffff:127.0.0.1]/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://[fd00::1]/",
        "http://100.64.1.1/",
    ] {
        let err =
            bounded(c.fetch(&FetchRequest::get(Url::parse(target).unwrap()))).await.unwrap_err();
        assert!(matches!(err, FetchError::Refused(_)), "{target}: {err}");
    }
}

#[tokio::test]
async fn head_needs_the_profile_and_credentials_are_refused() {
    let web = web(1).await;
    let mut head = FetchRequest::get(url(&web, "/about.html"));
    head.method = Method::Head;
    assert_eq!(bounded(client().fetch(&head)).await.unwrap_err(), FetchError::HeadNotAllowed);
    let with_head = Client::new(ClientSettings { head_allowed: true, ..settings() }).unwrap();
    let fetched = bounded(with_head.fetch(&head)).await.unwrap();
    assert_eq!(fetched.status, 200);
    assert!(fetched.body.is_empty());
    let creds =
        Url::parse(&web.url(0, "/about.html").replace("http://", "http://user:pw@")).unwrap();
    assert!(matches!(
        bounded(client().fetch(&FetchRequest::get(creds))).await,
        Err(FetchError::InvalidUrl { .. })
    ));
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/about.html"), 1, "only the allowed HEAD was sent");
    web.shutdown().await;
}

#[tokio::test]
async fn robots_failures_map_to_fail_closed_outcomes() {
    use gleaner_policy::robots::outcome::{FetchOutcome, RobotsFetchPolicy, RobotsState, decide};
    let web = web(1).await;
    let err = bounded(client().fetch(&FetchRequest::get(url(&web, "/slow/first-byte"))))
        .await
        .unwrap_err();
    let decision = decide(
        &err.robots_outcome(),
        &RobotsFetchPolicy::default(),
        std::time::SystemTime::UNIX_EPOCH,
        0,
        None,
    );
    assert_eq!(decision.state, RobotsState::FetchNothing);
    assert_eq!(err.robots_outcome(), FetchOutcome::Timeout);
    web.shutdown().await;
}

/// Issue 27: `max_in_flight` bounds the requests on the wire over all sites, so a pass's
/// start-up burst (every site's robots.txt at once) holds that many connections at most.
#[tokio::test]
async fn issue27_max_in_flight_holds_requests_to_other_sites_until_a_turn_is_free() {
    let timings = Timings { slow_first_byte: Duration::from_millis(300), ..Timings::default() };
    let manifest =
        Manifest::uniform(3, SiteSpec::default()).with_timings(timings).with_token("TestBot");
    let web = TestWeb::start(manifest).await.unwrap();
    let slow = |i: usize| FetchRequest::get(Url::parse(&web.url(i, "/slow/first-byte")).unwrap());
    for (limit, expect_overlap) in [(None, true), (Some(1), false)] {
        web.clear_ledger();
        let c = Client::new(ClientSettings { max_in_flight: limit, ..settings() }).unwrap();
        let (a, b, d) = (slow(0), slow(1), slow(2));
        let (ra, rb, rd) =
            bounded(async { tokio::join!(c.fetch(&a), c.fetch(&b), c.fetch(&d)) }).await;
        assert!(ra.is_ok() && rb.is_ok() && rd.is_ok());
        let ledger = web.ledger();
        assert_eq!(ledger.len(), 3);
        let mut spans: Vec<(Duration, Duration)> = ledger.iter().map(|e| (e.at, e.end())).collect();
        spans.sort();
        let overlap = spans.windows(2).any(|w| w[1].0 < w[0].1);
        // Without a limit the three sites are asked at once (the positive control); with
        // one turn each request arrives after the previous answer ended.
        assert_eq!(overlap, expect_overlap, "limit {limit:?}: {spans:?}");
    }
    web.shutdown().await;
}
