//! The four seed profiles of `examples/profiles/`, run against the loopback test web:
//! the promises that set each bot apart, asserted from the sites' side (the ledger),
//! each with a positive control, on paused time against the in-process test web (the
//! gaps of 1–2 s are waited on Tokio's clock; what the sites saw is recorded on it). The gate and the scheduler are driven directly with the
//! profile file's settings; only what the test web needs is overridden (`[network]
//! allow` and the sources' URLs), plus, where a test is about quotas rather than
//! spacing, a shorter gap.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use chrono::{TimeZone, Utc};
use gleaner_config::Settings;
use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, WallClock};
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate, GateOutcome, GateRequest, Method, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::budget::DenyReason;
use gleaner_scheduler::checks::{DailyCap, run_link_check};
use gleaner_scheduler::{MemorySink, PassContext, run_pass};
use gleaner_testweb::ledger::LedgerEntry;
use gleaner_testweb::{Manifest, PathKind, RobotsScenario, SiteSpec, TestWeb, Timings};

/// A profile's text with the test web's addresses in place of the sources' hosts.
fn profile(name: &str, urls: &[(&str, String)]) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/profiles/").to_owned() + name;
    let mut text = std::fs::read_to_string(path).unwrap();
    for (from, to) in urls {
        assert!(text.contains(from), "{name} has `{from}`");
        text = text.replace(from, to);
    }
    text.push_str("\n[network]\nallow = [\"127.0.0.0/8\"]\n");
    text
}

/// A clock that starts at a chosen wall time, advances on Tokio's clock, and can be moved
/// forward by a test (an hour later, the next pass).
#[derive(Debug)]
struct SteppedClock {
    inner: ShiftedClock,
    offset: Mutex<Duration>,
}

impl SteppedClock {
    fn starting_at(at: SystemTime) -> Arc<SteppedClock> {
        Arc::new(SteppedClock { inner: ShiftedClock::starting_at(at), offset: Mutex::default() })
    }

    fn advance(&self, by: Duration) {
        *self.offset.lock().unwrap() += by;
    }
}

impl WallClock for SteppedClock {
    fn now(&self) -> SystemTime {
        self.inner.now() + *self.offset.lock().unwrap()
    }
}

/// A pass context on `web`, an in-process test web ([`TestWeb::in_process`]), reached
/// through its transport: with `clock` on Tokio's clock, every test here runs on paused
/// time and the ledger records the gaps on that clock.
fn context(text: &str, clock: Arc<dyn WallClock>, web: &TestWeb) -> (PassContext, Arc<MemorySink>) {
    let settings: Arc<Settings> = Arc::new(gleaner_config::parse(text, "profile.toml").unwrap());
    let sink = Arc::new(MemorySink::default());
    (context_with_sink(settings, clock, sink.clone(), web), sink)
}

fn context_with_sink(
    settings: Arc<Settings>,
    clock: Arc<dyn WallClock>,
    sink: Arc<MemorySink>,
    web: &TestWeb,
) -> PassContext {
    let client = Client::with_transport(ClientSettings::from_settings(&settings), web.transport());
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        Arc::clone(&clock),
    );
    PassContext { gate: Arc::new(gate), sink, clock, settings, stop: Arc::default() }
}

async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(40), f).await.expect("finished within 40 s")
}

fn url(web: &TestWeb, site: usize, path: &str) -> url::Url {
    url::Url::parse(&web.url(site, path)).unwrap()
}

fn paris(d: u32, h: u32, m: u32, s: u32) -> SystemTime {
    let local = chrono_tz::Europe::Paris.with_ymd_and_hms(2026, 12, d, h, m, s).unwrap();
    SystemTime::from(local.with_timezone(&Utc))
}

/// Gaps between a request's end and the next request's start at one site, for the
/// requests `pick` selects as "next" (the gate anchors spacing on the later of both).
fn gaps_before(entries: &[&LedgerEntry], pick: impl Fn(&LedgerEntry) -> bool) -> Vec<Duration> {
    entries.windows(2).filter(|w| pick(w[1])).map(|w| w[1].at.saturating_sub(w[0].end())).collect()
}

#[tokio::test(start_paused = true)]
async fn seed_ugybot_three_in_flight_jitter_before_event_pages_robots_hourly_no_images() {
    let web = TestWeb::in_process(
        Manifest::new(vec![
            SiteSpec { events: 5, ..SiteSpec::default() },
            SiteSpec::default(),
            SiteSpec::default(),
        ])
        .with_token("UGYBot")
        .with_timings(Timings {
            slow_first_byte: Duration::from_millis(2500),
            ..Timings::default()
        }),
    );
    let text = profile(
        "ugybot.toml",
        &[
            ("https://venue.example/etkinlikler/", web.url(0, "/events/")),
            ("event_url_prefix = \"/etkinlikler/\"", "event_url_prefix = \"/events/\"".into()),
            ("https://hall.example/program/", web.url(2, "/events/")),
        ],
    );
    let clock = SteppedClock::starting_at(SystemTime::now());
    let (ctx, sink) = context(&text, clock.clone(), &web);
    assert_eq!(ctx.settings.politeness.max_in_flight, 3);
    let source = ctx.settings.sources.iter().find(|s| s.id == "venue-agenda").unwrap().clone();
    let deadline = clock.now() + Duration::from_secs(3600);

    // Site 0: one pass (jitter); site 1 at the same time: six slow requests (in flight).
    let pass = run_pass(&ctx, &source, deadline, &|_| {});
    let slow = async {
        let mut tasks = tokio::task::JoinSet::new();
        for _ in 0..6 {
            let gate = Arc::clone(&ctx.gate);
            let target = url(&web, 1, "/slow/first-byte");
            tasks.spawn(async move {
                gate.fetch(&GateRequest::new(target, Purpose::Listing)).await.fetched().is_some()
            });
        }
        let mut ok = 0;
        while let Some(done) = tasks.join_next().await {
            ok += usize::from(done.unwrap());
        }
        ok
    };
    let (report, slow_ok) = bounded(async { tokio::join!(pass, slow) }).await;
    assert_eq!(report.event_pages, 5, "positive control: every event page read: {report:?}");
    assert_eq!(slow_ok, 6, "positive control: every slow request answered");
    assert!(!sink.events().is_empty());

    let ledger = web.ledger();
    let site1 = ledger.filter(|e| e.site == 1);
    site1.check_max_in_flight(3).unwrap();
    assert_eq!(
        site1.iter().map(|e| e.in_flight).max(),
        Some(3),
        "positive control: the site did see three requests open at once"
    );

    let site0: Vec<&LedgerEntry> = ledger.site(0).collect();
    let before_events = gaps_before(&site0, |e| e.kind() == PathKind::Event);
    assert_eq!(before_events.len(), 5, "positive control: five event pages");
    for gap in &before_events {
        assert!(
            *gap >= Duration::from_millis(1150) - ledger.slack
                && *gap <= Duration::from_millis(1450 + 300),
            "1 s plus 0.15–0.45 s of jitter before each event page: {before_events:?}"
        );
    }
    let (min, max) = (before_events.iter().min().unwrap(), before_events.iter().max().unwrap());
    assert!(*max - *min > Duration::from_millis(5), "the jitter is random: {before_events:?}");
    for gap in gaps_before(&site0, |e| e.kind() == PathKind::Listing) {
        assert!(gap + ledger.slack >= Duration::from_secs(1), "1 s before a listing: {gap:?}");
    }

    // robots.txt is cached for one hour, no longer.
    assert_eq!(ledger.count(0, "/robots.txt"), 1);
    let page = GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage);
    clock.advance(Duration::from_secs(59 * 60));
    assert!(bounded(ctx.gate.fetch(&page)).await.fetched().is_some());
    assert_eq!(web.ledger().count(0, "/robots.txt"), 1, "still fresh after 59 min");
    clock.advance(Duration::from_secs(2 * 60));
    assert!(bounded(ctx.gate.fetch(&page)).await.fetched().is_some());
    assert_eq!(web.ledger().count(0, "/robots.txt"), 2, "read again after an hour");

    // No images: "UGYBot … does not download images".
    for purpose in [Purpose::ImageRelay, Purpose::LinkCheck] {
        let image = GateRequest::new(url(&web, 0, "/images/poster.jpg"), purpose);
        match bounded(ctx.gate.fetch(&image)).await {
            GateOutcome::Refused(Refusal::Budget(DenyReason::PurposeNotEnabled(p))) => {
                assert_eq!(p, purpose);
            }
            other => panic!("{purpose}: {other:?}"),
        }
    }
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/images/poster.jpg"), 0);
    assert!(
        ledger.iter().all(|e| !e.path.ends_with(".jpg") && !e.path.ends_with(".png")),
        "no image was ever requested"
    );
    ledger.check_identity("UGYBot/1.0 (+https://ugy.app/bot; bot@ugy.app)").unwrap();
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

fn aubeactu(web: &TestWeb, gap: Option<&str>) -> String {
    let mut text = profile(
        "aubeactubot.toml",
        &[("https://mairie.example/actualites/", web.url(0, "/events/"))],
    );
    if let Some(gap) = gap {
        text = text.replacen("gap = \"2s\"", &format!("gap = \"{gap}\""), 1);
    }
    text
}

#[tokio::test(start_paused = true)]
async fn seed_aubeactu_no_request_to_a_local_authority_site_in_quiet_hours() {
    let web = TestWeb::in_process(
        Manifest::uniform(2, SiteSpec { events: 16, ..SiteSpec::default() })
            .with_token("AubeActuBot"),
    );
    // Both sites are local authority sites; the clock shows 07:59:55 in Paris.
    let text = aubeactu(&web, None).replace(
        "[site_classes.open-data]",
        &format!(
            "[[sites]]\nhost = \"{}\"\nclass = \"municipal\"\n\n[site_classes.open-data]",
            web.addr(1).ip()
        ),
    );
    let created = web.since_epoch();
    let start_wall = paris(1, 7, 59, 55);
    let clock: Arc<dyn WallClock> = Arc::new(ShiftedClock::starting_at(start_wall));
    let (ctx, _sink) = context(&text, clock.clone(), &web);
    let source = ctx.settings.sources[0].clone();
    let report =
        bounded(run_pass(&ctx, &source, clock.now() + Duration::from_secs(10), &|_| {})).await;
    assert!(report.requeued > 0, "the rest waits for 09:00: {report:?}");
    // Once past 08:00: not even robots.txt of a site not read yet.
    if let Ok(wait) = paris(1, 8, 0, 1).duration_since(clock.now()) {
        tokio::time::sleep(wait).await;
    }
    let mut fresh = GateRequest::new(url(&web, 1, "/events/"), Purpose::Listing);
    fresh.wait_until_at_most = Some(clock.now() + Duration::from_secs(3));
    let outcome = bounded(ctx.gate.fetch(&fresh)).await;
    assert!(matches!(outcome, GateOutcome::Deferred { .. }), "{outcome:?}");

    let ledger = web.ledger();
    assert!(
        ledger.count(0, "/robots.txt") == 1 && ledger.count(0, "/events/") == 1,
        "positive control: read before 08:00"
    );
    assert_eq!(
        ledger.site(1).count(),
        0,
        "robots.txt included: {outcome:?} {:?} {:?}",
        ctx.settings.class_of(&web.addr(1).ip().to_string()).name,
        ledger.site(1).collect::<Vec<_>>()
    );
    let epoch_local = (start_wall - created).duration_since(SystemTime::UNIX_EPOCH).unwrap();
    let local_at_epoch = chrono::DateTime::<Utc>::from(SystemTime::UNIX_EPOCH + epoch_local)
        .with_timezone(&chrono_tz::Europe::Paris)
        .naive_local();
    let quiet: Vec<_> = ctx.settings.site_classes["municipal"]
        .quiet_hours
        .iter()
        .map(|q| (q.start, q.end))
        .collect();
    assert_eq!(quiet.len(), 2);
    ledger.check_quiet_hours(gleaner_testweb::check::local_clock(local_at_epoch), &quiet).unwrap();
    ledger.check_min_gap(Duration::from_secs(2)).unwrap();
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn seed_aubeactu_five_per_pass_twelve_per_hour_sixty_per_day_nothing_published() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 16, ..SiteSpec::default() })
            .with_token("AubeActuBot"),
    );
    // The promise here is the quotas, not the 2 s gap: a short gap keeps the test quick.
    let text = aubeactu(&web, Some("50ms"));
    let clock = SteppedClock::starting_at(paris(1, 15, 0, 0));
    let (ctx, sink) = context(&text, clock.clone(), &web);
    let source = ctx.settings.sources[0].clone();
    let mut per_pass = Vec::new();
    let mut seen = 0;
    // 15:00, 15:05, 15:10, 15:15 (the hour is used), then every 30 min until the day's
    // 60 are used and one more pass gets nothing: at most 20 passes.
    let steps: Vec<u64> = [0, 5, 5, 5, 55].into_iter().chain(std::iter::repeat_n(30, 15)).collect();
    for step in steps {
        clock.advance(Duration::from_secs(step * 60));
        let deadline = clock.now() + Duration::from_secs(5);
        bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
        let ledger = web.ledger();
        let pages = ledger.iter().filter(|e| !e.is_robots()).count();
        per_pass.push((step, pages - seen, ledger.len()));
        seen = pages;
        if ledger.len() >= 60 && per_pass.last().is_some_and(|p| p.1 == 0) {
            break;
        }
    }
    let ledger = web.ledger();
    assert!(per_pass.iter().all(|p| p.1 <= 5), "at most 5 per pass: {per_pass:?}");
    assert_eq!(per_pass[0].1, 5, "positive control: a full pass is 5: {per_pass:?}");
    assert_eq!(per_pass[2].2, 12, "12 in the first hour, robots.txt included: {per_pass:?}");
    assert_eq!(per_pass[3].1, 0, "nothing more in that hour: {per_pass:?}");
    assert_eq!(ledger.len(), 60, "60 in the day, then nothing: {per_pass:?}");
    assert_eq!(per_pass.last().unwrap().1, 0, "{per_pass:?}");
    assert_eq!(ledger.count(0, "/robots.txt"), 1, "read once, cached 24 h");

    // "It publishes nothing itself": events went to the newsroom's pool, none to the API.
    let stored = sink.events();
    assert!(!stored.is_empty(), "positive control: the pool got events");
    for found in &stored {
        let source = ctx.settings.sources.iter().find(|s| s.id == found.source).unwrap();
        assert!(!source.publish, "`{}` is not published", found.source);
    }
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn seed_cixtra_link_checks_two_seconds_one_at_a_time_get_only_robots_403_is_a_no() {
    let web = TestWeb::in_process(
        Manifest::new(vec![
            SiteSpec { events: 4, ..SiteSpec::default() },
            SiteSpec::with_robots(RobotsScenario::Status(403)),
        ])
        .with_token("CIXTRA-Bot"),
    );
    let text = profile(
        "cixtra-bot.toml",
        &[
            ("https://venue.example/programm/", web.url(0, "/events/")),
            ("https://venue.example/presse/", web.url(0, "/about.html")),
        ],
    );
    let clock: Arc<dyn WallClock> = Arc::new(ShiftedClock::starting_at(SystemTime::now()));
    let settings: Arc<Settings> = Arc::new(gleaner_config::parse(&text, "profile.toml").unwrap());
    assert!(!settings.purposes.head_allowed);
    let sink = Arc::new(MemorySink::default());
    // Events are stored by a quick pass of a scaled copy; the link check is the profile's.
    let quick: Arc<Settings> = Arc::new(
        gleaner_config::parse(&text.replace("gap = \"2s\"", "gap = \"50ms\""), "quick.toml")
            .unwrap(),
    );
    let stocked = context_with_sink(quick, Arc::clone(&clock), sink.clone(), &web);
    let source = stocked.settings.sources[0].clone();
    let far = clock.now() + Duration::from_secs(3600);
    let stored = bounded(run_pass(&stocked, &source, far, &|_| {})).await;
    assert_eq!(stored.event_pages, 4, "{stored:?}");
    web.clear_ledger();

    let ctx = context_with_sink(settings, clock, sink, &web);
    // Two link checkers at once, two pages each: the host still sees one at a time.
    let (a, b) = (Arc::new(DailyCap::new(2)), Arc::new(DailyCap::new(2)));
    let (ra, rb) = bounded(async {
        tokio::join!(run_link_check(&ctx, &a, far), run_link_check(&ctx, &b, far))
    })
    .await;
    assert_eq!(ra.pages_checked + rb.pages_checked, 4, "positive control: {ra:?} {rb:?}");
    let checked = web.ledger().filter(|e| e.site == 0);
    assert_eq!(checked.iter().filter(|e| e.kind() == PathKind::Event).count(), 4);
    checked.check_max_in_flight(1).unwrap();
    checked.check_min_gap(Duration::from_secs(2)).unwrap();

    // GET only: a HEAD is refused before it leaves.
    let mut head = GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::LinkCheck);
    head.method = Method::Head;
    let outcome = bounded(ctx.gate.fetch(&head)).await;
    assert!(matches!(outcome, GateOutcome::Refused(Refusal::Local(_))), "{outcome:?}");

    // robots.txt answering 403 is a no.
    let outcome = bounded(
        ctx.gate.fetch(&GateRequest::new(url(&web, 1, "/events/1.html"), Purpose::EventPage)),
    )
    .await;
    assert!(
        matches!(outcome, GateOutcome::Refused(Refusal::RobotsUnreadable { .. })),
        "{outcome:?}"
    );
    let ledger = web.ledger();
    assert_eq!(ledger.count(1, "/robots.txt"), 1, "positive control: robots.txt was asked");
    assert_eq!(ledger.site(1).count(), 1, "nothing but robots.txt");
    ledger.check_methods(&["GET"]).unwrap();
    ledger.check_robots_respected(true).unwrap();
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn seed_festrobot_one_second_fails_closed_shows_last_checked_keeps_no_bodies() {
    let web = TestWeb::in_process(
        Manifest::new(vec![
            SiteSpec { events: 3, ..SiteSpec::default() },
            SiteSpec::with_robots(RobotsScenario::Status(500)),
            SiteSpec::with_robots(RobotsScenario::Reset),
            SiteSpec::with_robots(RobotsScenario::Status(404)),
        ])
        .with_token("FestroBot"),
    );
    let text = profile(
        "festrobot.toml",
        &[
            ("https://salle.example/calendrier/", web.url(0, "/events/")),
            ("https://salle.example/conditions/", web.url(0, "/about.html")),
        ],
    );
    let clock: Arc<dyn WallClock> = Arc::new(ShiftedClock::starting_at(SystemTime::now()));
    let (ctx, sink) = context(&text, clock, &web);
    let source = ctx.settings.sources[0].clone();
    let far = ctx.clock.now() + Duration::from_secs(3600);

    let unreadable = async {
        let mut outcomes = Vec::new();
        for site in 1..=3 {
            let request = GateRequest::new(url(&web, site, "/events/1.html"), Purpose::EventPage);
            outcomes.push(ctx.gate.fetch(&request).await);
        }
        outcomes
    };
    let (first, outcomes) =
        bounded(async { tokio::join!(run_pass(&ctx, &source, far, &|_| {}), unreadable) }).await;
    assert_eq!(first.event_pages, 3, "{first:?}");
    for outcome in &outcomes[..2] {
        assert!(
            matches!(outcome, GateOutcome::Refused(Refusal::RobotsUnreadable { .. })),
            "a robots.txt error is «no rastrear»: {outcome:?}"
        );
    }
    assert!(
        outcomes[2].fetched().is_some_and(|f| f.status == 200),
        "positive control: a missing robots.txt means no restrictions: {:?}",
        outcomes[2]
    );
    let before: Vec<_> = sink.events().into_iter().map(|f| (f.identity, f.checked_at)).collect();
    assert!(!before.is_empty());

    // A second visit: every page answers 304 and last-checked (shown on the event) moves.
    let second = bounded(run_pass(&ctx, &source, far, &|_| {})).await;
    assert!(second.not_modified >= 4, "{second:?}");
    let after = sink.events();
    for (identity, checked) in &before {
        let now = after.iter().find(|f| f.identity == *identity).unwrap();
        assert!(now.checked_at > *checked, "last-checked moved for {:?}", now.event.title);
    }

    let ledger = web.ledger();
    for site in 1..=2 {
        assert!(ledger.fetched(site, "/robots.txt"), "positive control: robots.txt was asked");
        assert_eq!(ledger.site(site).count(), 1, "site {site}: nothing but robots.txt");
    }
    let site0 = ledger.filter(|e| e.site == 0);
    assert!(site0.len() >= 11, "positive control: two visits");
    site0.check_min_gap(Duration::from_secs(1)).unwrap();
    ledger.check_identity("FestroBot/1.0 (+https://festro.com/crawler)").unwrap();

    // No copies kept: with FestroBot's retention a body is deleted once extracted;
    // UGYBot's 90 days keep it (the positive control).
    let dir = tempfile::tempdir().unwrap();
    let store = gleaner_store::Store::open_sqlite(&dir.path().join("f.db")).unwrap();
    let festro = gleaner_store::RetentionPolicy::from_settings(&ctx.settings);
    assert!(festro.bodies.is_zero());
    let page = url(&web, 0, "/events/1.html");
    let id = store.put_body(&page, None, b"<html>".to_vec(), SystemTime::now()).await.unwrap();
    assert!(store.body_extracted(id, &festro).await.unwrap());
    assert_eq!(store.body(id).await.unwrap(), None);
    let kept = store.put_body(&page, None, b"<html>".to_vec(), SystemTime::now()).await.unwrap();
    assert!(
        !store
            .body_extracted(kept, &gleaner_store::RetentionPolicy::from_defaults())
            .await
            .unwrap()
    );
    assert!(store.body(kept).await.unwrap().is_some());
    web.shutdown().await;
}

#[test]
fn spec_config_check_adds_up_each_profiles_day_and_keeps_its_promises() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/profiles/");
    let cases = [
        ("ugybot.toml", "venue.example (class `default`): 724 requests, 8 visits"),
        (
            "ugybot.toml",
            "api.ticketing.example (class `default`): 10 requests, 2 visits: 2 passes (10 requests), 0 cancellation cycles (0 requests), 0 link checks, 0 robots.txt",
        ),
        ("aubeactubot.toml", "mairie.example (class `municipal`): 41 requests, 8 visits"),
        ("cixtra-bot.toml", "venue.example (class `default`): 213 requests, 3 visits"),
        ("festrobot.toml", "salle.example (class `default`): 214 requests, 4 visits"),
    ];
    for (name, line) in cases {
        // UGYBot's licensed ticketing API reads its key from the environment, as an
        // operator's would be set.
        let run = crate::util::gleaner_with_env(
            &["config", "check", &format!("{dir}{name}")],
            "",
            &[("UGYBOT_TICKETING_KEY", "test-key")],
        );
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert!(run.stdout.contains(line), "{name}: {}", run.stdout);
        assert!(!run.stderr.contains("warning:"), "{name} keeps its promises: {}", run.stderr);
    }
}

#[test]
fn seed_aubeactu_config_check_warns_of_a_four_hourly_check_on_a_site_capped_at_60() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/profiles/");
    let text = std::fs::read_to_string(format!("{dir}aubeactubot.toml"))
        .unwrap()
        .replace(
            "\"manual-check\", \"owner-verification\"]",
            "\"manual-check\", \"owner-verification\", \"cancellation-check\"]",
        )
        .replace("max_event_pages = 4 ", "max_event_pages = 12 ");
    let file = crate::util::temp_file(text.as_bytes());
    let run = crate::util::gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(0), "warnings are not errors: {}", run.stderr);
    assert!(
        run.stderr.contains("warning: a cancellation check every 4h alone implies up to 78 requests a day to `mairie.example`, more than its class `municipal` allows (60 a day)"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("allows per pass (5)"), "{}", run.stderr);
    assert!(run.stderr.contains("hint: "), "{}", run.stderr);
    assert!(
        run.stdout.contains("cancellation check: every 4h, today to +7 days"),
        "{}",
        run.stdout
    );
}

#[tokio::test(start_paused = true)]
async fn seed_cixtra_a_tdmrep_reservation_or_noai_stops_the_site() {
    use gleaner_samplecity::{Extra, Refusal, Role};
    let web = TestWeb::in_process(Manifest::city(7, Utc::now()).with_token("CIXTRA-Bot"));
    let city = &web.city().unwrap().city;
    let pick = |want: &dyn Fn(&gleaner_samplecity::Site) -> bool| {
        let j = city.sites().iter().position(|s| s.role == Role::Venue && want(s)).unwrap();
        (web.city_site(j).unwrap(), city.site(j).lang.listing_path())
    };
    let (tdm, tdm_listing) = pick(&|s| s.refusal == Some(Refusal::TdmReservation));
    let (noai, noai_listing) = pick(&|s| s.has(Extra::NoAi) && s.refusal.is_none());
    let (open, open_listing) = pick(&|s| {
        s.refusal.is_none() && s.extras.is_empty() && s.markup == gleaner_samplecity::Markup::JsonLd
    });
    let mut text = profile(
        "cixtra-bot.toml",
        &[
            ("https://venue.example/programm/", web.url(tdm, tdm_listing)),
            ("https://venue.example/presse/", web.url(tdm, "/terms.html")),
        ],
    )
    .replace("gap = \"2s\"", "gap = \"50ms\"");
    for (id, site, listing) in [("noai", noai, noai_listing), ("open", open, open_listing)] {
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{id}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{listing}\"\nkeep = \"full\"\nmax_event_pages = 2\n",
            web.url(site, listing)
        ));
    }
    let clock: Arc<dyn WallClock> = Arc::new(ShiftedClock::starting_at(SystemTime::now()));
    let (ctx, sink) = context(&text, clock, &web);
    let far = ctx.clock.now() + Duration::from_secs(3600);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(run_pass(&ctx, &source, far, &|_| {})).await);
    }
    // Positive control: the open venue was read and its events kept.
    assert!(reports[2].event_pages >= 1, "{:?}", reports[2]);
    assert!(
        sink.events().iter().any(|f| f.source == "open"),
        "{:?} {:?}",
        reports[2],
        web.ledger().site(open).map(|e| (&e.path, e.status)).collect::<Vec<_>>()
    );
    let ledger = web.ledger();
    assert!(ledger.fetched(open, "/.well-known/tdmrep.json"), "rights files read first");
    for (site, report) in [(tdm, &reports[0]), (noai, &reports[1])] {
        assert!(
            ledger.fetched(site, "/.well-known/tdmrep.json") && ledger.fetched(site, "/ai.txt")
        );
        let asked: Vec<&str> = ledger.site(site).map(|e| e.path.as_str()).collect();
        assert!(
            asked
                .iter()
                .all(|p| ["/robots.txt", "/.well-known/tdmrep.json", "/ai.txt"].contains(p)),
            "a reserved site is asked for robots.txt and its rights files only: {asked:?}"
        );
        assert!(
            report.refusals.keys().any(|k| k.contains("rights reserved")),
            "the pass says why: {report:?}"
        );
        assert_eq!(report.event_pages + report.listing_pages, 0);
    }
    assert!(!sink.events().iter().any(|f| f.source == "noai" || f.source == "venue-programme"));
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}
