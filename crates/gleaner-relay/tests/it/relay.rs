//! The relay from the site's side: every assertion is made on the test web's ledger, and
//! every "nothing was fetched" comes with a positive control (the expected request was
//! made, the expected bytes were delivered).

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_relay::{Delivery, ImageType, Relay};
use gleaner_samplecity::Role;
use gleaner_store::Store;
use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb};
use url::Url;

const TOKEN: &str = "RelayBot";

fn config(relay: &str) -> String {
    format!(
        r#"
[bot]
token = "{TOKEN}"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[network]
allow = ["127.0.0.0/8"]

[politeness]
gap = "1s"

[politeness.purpose.image-relay]
gap = "1s"
max_in_flight = 1

[purposes]
enabled = ["robots", "image-relay", "rights-signal", "event-page", "listing", "link-check"]

[relay]
{relay}
"#
    )
}

/// A wall clock the test moves forward (freshness, failure backoff). The gate reads it
/// too; the relay's own gap is measured on the monotonic clock, so spacing stays real.
#[derive(Debug, Default)]
struct TestClock(Mutex<Duration>);

impl TestClock {
    fn advance(&self, d: Duration) {
        *self.0.lock().unwrap() += d;
    }
}

impl WallClock for TestClock {
    fn now(&self) -> SystemTime {
        SystemTime::now() + *self.0.lock().unwrap()
    }
}

struct Setup {
    web: TestWeb,
    store: Store,
    relay: Arc<Relay>,
    clock: Arc<TestClock>,
    _dir: tempfile::TempDir,
}

/// Site 0 disallows everything in robots.txt; the sample city follows.
async fn setup(relay: &str) -> Setup {
    let manifest = Manifest::new(vec![SiteSpec {
        robots: RobotsScenario::DisallowAll,
        ..SiteSpec::default()
    }])
    .with_city(7, chrono::Utc::now())
    .with_token(TOKEN);
    let web = TestWeb::start(manifest).await.unwrap();
    let settings = Arc::new(gleaner_config::parse(&config(relay), "relay.toml").unwrap());
    let clock = Arc::new(TestClock::default());
    let gate = Gate::new(
        Client::new(ClientSettings::from_settings(&settings)).unwrap(),
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        clock.clone(),
    );
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_sqlite(&dir.path().join("relay.db")).unwrap();
    let relay = Arc::new(Relay::new(
        Arc::new(gate),
        Arc::new(store.clone()),
        settings.relay,
        clock.clone(),
    ));
    Setup { web, store, relay, clock, _dir: dir }
}

/// The web index of the first city site with `role` and no refusal.
fn city_site(web: &TestWeb, role: Role) -> usize {
    let city = web.city().unwrap();
    let j = city
        .city
        .sites()
        .iter()
        .position(|s| s.role == role && s.refusal.is_none())
        .expect("the city has one");
    web.city_site(j).unwrap()
}

async fn register(s: &Setup, site: usize, path: &str) -> String {
    let url = Url::parse(&s.web.url(site, path)).unwrap();
    s.store
        .register_relay_image(&url, Some("test"), true, "terms: relay", SystemTime::now())
        .await
        .unwrap()
        .id
}

fn image(d: &Delivery) -> (ImageType, usize, Duration) {
    match d {
        Delivery::Image { bytes, kind, max_age } => (*kind, bytes.len(), *max_age),
        other => panic!("expected an image, got {other:?}"),
    }
}

/// Runs `n` visitors for `id` at once, bounded in time.
async fn visitors(relay: &Arc<Relay>, id: &str, n: usize) -> Vec<Delivery> {
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (relay, id) = (Arc::clone(relay), id.to_owned());
            tokio::spawn(async move { relay.deliver(&id).await })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(tokio::time::timeout(Duration::from_secs(30), t).await.unwrap().unwrap());
    }
    out
}

#[tokio::test]
async fn one_upstream_request_per_image_per_cache_lifetime_and_revalidation_when_stale() {
    let s = setup("queue_per_host = 100\nmax_wait = \"20s\"").await;
    let venue = city_site(&s.web, Role::Venue);
    let press = city_site(&s.web, Role::PressAgency);
    let poster = register(&s, venue, "/img/poster-3.jpg").await; // public, max-age=3600
    let png = register(&s, venue, "/img/poster-6.png").await; // public, max-age=3600
    let short = register(&s, press, "/img/photo-short.jpg").await; // public, max-age=60

    for d in visitors(&s.relay, &poster, 40).await {
        let (kind, len, max_age) = image(&d);
        assert_eq!(kind, ImageType::Jpeg);
        assert!(len > 100);
        assert!(max_age > Duration::from_secs(3000) && max_age <= Duration::from_secs(3600));
    }
    for d in visitors(&s.relay, &png, 40).await {
        assert_eq!(image(&d).0, ImageType::Png, "type sniffed from the bytes");
    }
    let ledger = s.web.ledger();
    assert_eq!(ledger.count(venue, "/img/poster-3.jpg"), 1, "80 visitors, one request per image");
    assert_eq!(ledger.count(venue, "/img/poster-6.png"), 1);
    ledger.check_robots_first().unwrap();
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_min_gap(Duration::from_secs(1)).unwrap();
    for e in ledger.site(venue) {
        assert_eq!(e.cookie, None, "no cookies");
        assert_eq!(e.referer, None, "no Referer");
    }

    // Fresh for 60 s: served from memory within it, revalidated conditionally after it.
    assert_eq!(image(&s.relay.deliver(&short).await).0, ImageType::Jpeg);
    image(&s.relay.deliver(&short).await);
    s.clock.advance(Duration::from_secs(61));
    // (The site's `Date` is real time while this clock jumped, so the 304 itself comes
    // with an Age past its lifetime: only one delivery after the jump.)
    assert_eq!(image(&s.relay.deliver(&short).await).0, ImageType::Jpeg, "stale: revalidated");
    let ledger = s.web.ledger();
    let photos: Vec<_> = ledger.site(press).filter(|e| e.path == "/img/photo-short.jpg").collect();
    assert_eq!(photos.len(), 2, "one request per freshness lifetime: {photos:?}");
    assert!(!photos[0].is_conditional() && photos[0].status == 200);
    assert!(photos[1].is_conditional() && photos[1].status == 304, "conditional revalidation");
    assert_eq!(s.relay.stats().not_modified.load(std::sync::atomic::Ordering::Relaxed), 1);

    // Past the relay's hour, nothing is reused: one new request.
    s.clock.advance(Duration::from_secs(3600));
    image(&s.relay.deliver(&poster).await);
    assert_eq!(s.web.ledger().count(venue, "/img/poster-3.jpg"), 2, "at most one hour in memory");
    s.web.shutdown().await;
}

#[tokio::test]
async fn no_store_and_private_are_not_kept_and_svg_is_refused() {
    let s = setup("").await;
    let venue = city_site(&s.web, Role::Venue);
    let no_store = register(&s, venue, "/img/poster-4.jpg").await; // no-store
    let private = register(&s, venue, "/img/poster-5.png").await; // private, max-age=600
    let svg = register(&s, venue, "/img/logo.svg").await;
    for id in [&no_store, &private] {
        assert_eq!(
            image(&s.relay.deliver(id).await).2,
            Duration::ZERO,
            "the visitor may not keep it"
        );
        image(&s.relay.deliver(id).await);
    }
    let ledger = s.web.ledger();
    assert_eq!(ledger.count(venue, "/img/poster-4.jpg"), 2, "no-store: nothing kept");
    assert_eq!(ledger.count(venue, "/img/poster-5.png"), 2, "private: nothing kept");
    assert_eq!(s.relay.memory_held(), 0);

    assert!(matches!(s.relay.deliver(&svg).await, Delivery::Unavailable { .. }), "no SVG");
    assert!(matches!(s.relay.deliver(&svg).await, Delivery::Unavailable { .. }));
    assert_eq!(
        s.web.ledger().count(venue, "/img/logo.svg"),
        1,
        "a failure is not retried for a minute"
    );
    s.clock.advance(Duration::from_secs(61));
    assert!(matches!(s.relay.deliver(&svg).await, Delivery::Unavailable { .. }));
    assert_eq!(s.web.ledger().count(venue, "/img/logo.svg"), 2, "retried after the minute");
    s.web.shutdown().await;
}

#[tokio::test]
async fn a_takedown_stops_delivery_and_evicts_at_once() {
    let s = setup("").await;
    let venue = city_site(&s.web, Role::Venue);
    let id = register(&s, venue, "/img/poster-9.jpg").await;
    image(&s.relay.deliver(&id).await);
    assert!(s.relay.memory_held() > 0, "positive control: held in memory");
    let url = s.web.url(venue, "/img/poster-9.jpg");
    // Another process's takedown: only the store knows.
    assert!(s.store.take_down(&url, "owner asked", SystemTime::now()).await.unwrap());
    assert_eq!(s.relay.sweep().await, 1, "evicted by the sweep");
    assert_eq!(s.relay.memory_held(), 0);
    for _ in 0..5 {
        assert_eq!(s.relay.deliver(&id).await, Delivery::NotFound);
    }
    assert_eq!(s.web.ledger().count(venue, "/img/poster-9.jpg"), 1, "none after the takedown");
    assert_eq!(s.relay.deliver("not-an-id").await, Delivery::NotFound);
    assert_eq!(
        s.relay.deliver(&s.web.url(venue, "/img/poster-3.jpg")).await,
        Delivery::NotFound,
        "never a URL"
    );
    s.web.shutdown().await;
}

#[tokio::test]
async fn a_site_whose_robots_txt_disallows_all_is_asked_for_nothing_else() {
    let s = setup("").await;
    let venue = city_site(&s.web, Role::Venue);
    let blocked = register(&s, 0, "/img/poster-3.jpg").await;
    let control = register(&s, venue, "/img/poster-3.jpg").await;
    image(&s.relay.deliver(&control).await);
    assert!(matches!(s.relay.deliver(&blocked).await, Delivery::Unavailable { .. }));
    let ledger = s.web.ledger();
    assert!(ledger.fetched(venue, "/img/poster-3.jpg"), "positive control");
    assert!(ledger.fetched(0, "/robots.txt"), "robots.txt read");
    assert_eq!(ledger.site(0).filter(|e| !e.is_robots()).count(), 0, "nothing but robots.txt");
    s.web.shutdown().await;
}

#[tokio::test]
async fn a_full_queue_fails_fast_and_never_two_requests_at_once() {
    let s = setup("queue_per_host = 2\nmax_wait = \"20s\"").await;
    let venue = city_site(&s.web, Role::Venue);
    let mut ids = Vec::new();
    for n in [3, 6, 9, 12, 15, 18] {
        ids.push(register(&s, venue, &format!("/img/poster-{n}.jpg")).await);
    }
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| {
            let (relay, id) = (Arc::clone(&s.relay), id.clone());
            tokio::spawn(async move { relay.deliver(&id).await })
        })
        .collect();
    let mut served = 0;
    let mut busy = 0;
    for t in tasks {
        match tokio::time::timeout(Duration::from_secs(30), t).await.unwrap().unwrap() {
            Delivery::Image { .. } => served += 1,
            Delivery::Busy { retry_after } => {
                assert!(retry_after >= Duration::from_secs(1));
                busy += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(served, 3, "one in flight and two waiting");
    assert_eq!(busy, 3, "the rest told to come back at once");
    let ledger = s.web.ledger();
    assert_eq!(ledger.site(venue).filter(|e| e.path.starts_with("/img/")).count(), 3);
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_min_gap(Duration::from_secs(1)).unwrap();
    s.web.shutdown().await;
}
