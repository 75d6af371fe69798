//! The gate from the site's side: every assertion is made on the test web's ledger, and
//! every "nothing bad happened" comes with a positive control.
//!
//! Tests that wait long gaps (Request-rate, slow-downs, per-purpose gaps, quiet hours,
//! Visit-time) run on paused time against the in-process web ([`web_in_process`],
//! [`paused_gate`]), judged on a ledger kept on the same clock. The others stay on real
//! sockets, among them the real-time proofs that spacing and the in-flight cap
//! (`several_purposes_and_sources_share_one_gap_and_in_flight_cap`) and Retry-After
//! (`retry_after_suspends_the_whole_site_and_is_remembered`) hold over a connection.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use chrono::{NaiveTime, TimeZone, Utc};
use chrono_tz::Europe::Paris;
use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, SystemClock, WallClock};
use gleaner_fetch::gate::registry::{MemoryRegistry, OwnerRequest, RegistryEntry, Scope};
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate, GateOutcome, GateRequest, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::budget::{PassMark, WaitReason};
use gleaner_policy::outcome::{Outcome, RefusalKind};
use gleaner_testweb::{
    Manifest, RetryAfterForm, RobotsScenario, SiteBehaviour, SiteSpec, TestWeb, check::local_clock,
};
use url::Url;

use crate::bounded;

const BASE: &str = r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[network]
allow = ["127.0.0.0/8"]

[limits]
response_deadline = "3s"
"#;

struct Setup {
    gate: Arc<Gate>,
    registry: Arc<MemoryRegistry>,
    audit: Arc<MemoryAudit>,
}

fn gate_with(extra: &str, clock: Arc<dyn WallClock>) -> Setup {
    gate_on(extra, clock, None)
}

/// A gate for a test on paused time: it reaches `web` (an in-process web, see
/// [`web_in_process`]) through its transport and reads `clock`, a [`ShiftedClock`] on
/// Tokio's clock, so the test waits its gaps on paused time and the ledger records them
/// on that clock.
fn paused_gate_with(extra: &str, clock: ShiftedClock, web: &TestWeb) -> Setup {
    gate_on(extra, Arc::new(clock), Some(web))
}

fn paused_gate(extra: &str, web: &TestWeb) -> Setup {
    paused_gate_with(extra, ShiftedClock::from_now(), web)
}

fn gate_on(extra: &str, clock: Arc<dyn WallClock>, in_process: Option<&TestWeb>) -> Setup {
    let settings =
        Arc::new(gleaner_config::parse(&format!("{BASE}\n{extra}"), "test.toml").unwrap());
    let client_settings = ClientSettings::from_settings(&settings);
    let client = match in_process {
        Some(web) => Client::with_transport(client_settings, web.transport()),
        None => Client::new(client_settings).unwrap(),
    };
    let registry = Arc::new(MemoryRegistry::default());
    let audit = Arc::new(MemoryAudit::default());
    let gate = Gate::new(
        client,
        settings,
        Arc::new(MemoryState::default()),
        registry.clone(),
        audit.clone(),
        clock,
    );
    Setup { gate: Arc::new(gate), registry, audit }
}

fn gate(extra: &str) -> Setup {
    gate_with(extra, Arc::new(SystemClock))
}

async fn web(specs: Vec<SiteSpec>) -> TestWeb {
    TestWeb::start(Manifest::new(specs).with_token("TestBot")).await.unwrap()
}

/// The sites of `specs` without sockets, on Tokio's clock (call it after time is paused).
fn web_in_process(specs: Vec<SiteSpec>) -> TestWeb {
    TestWeb::in_process(Manifest::new(specs).with_token("TestBot"))
}

fn url(web: &TestWeb, site: usize, path: &str) -> Url {
    Url::parse(&web.url(site, path)).unwrap()
}

/// Fetches a site's listing and its first `events` event pages through the gate.
async fn crawl_site(gate: &Gate, web: &TestWeb, site: usize, events: u32) -> Vec<GateOutcome> {
    let mut outcomes = Vec::new();
    let mut listing = GateRequest::new(url(web, site, "/events/"), Purpose::Listing);
    listing.pass = PassMark::Start;
    outcomes.push(gate.fetch(&listing).await);
    for n in 1..=events {
        let mut page =
            GateRequest::new(url(web, site, &format!("/events/{n}.html")), Purpose::EventPage);
        page.pass = PassMark::Continue;
        outcomes.push(gate.fetch(&page).await);
    }
    outcomes
}

#[tokio::test]
async fn robots_first_and_fail_closed_for_every_robots_scenario() {
    let scenarios = vec![
        RobotsScenario::Rules,
        RobotsScenario::DisallowAll,
        RobotsScenario::Status(404),
        RobotsScenario::Status(401),
        RobotsScenario::Status(429),
        RobotsScenario::Status(500),
        RobotsScenario::Status(503),
        RobotsScenario::Reset,
        RobotsScenario::Redirect { hops: 2, cross_host: false },
        RobotsScenario::Redirect { hops: 7, cross_host: false },
        RobotsScenario::Garbage,
    ];
    let specs: Vec<SiteSpec> = scenarios.iter().cloned().map(SiteSpec::with_robots).collect();
    let web = web(specs).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let tasks: Vec<_> = (0..scenarios.len())
        .map(|site| {
            let gate = Arc::clone(&s.gate);
            let web_urls: Vec<Url> = std::iter::once(url(&web, site, "/events/"))
                .chain((1..=3).map(|n| url(&web, site, &format!("/events/{n}.html"))))
                .collect();
            tokio::spawn(async move {
                for u in web_urls {
                    gate.fetch(&GateRequest::new(u, Purpose::EventPage)).await;
                }
            })
        })
        .collect();
    for task in tasks {
        bounded(task).await.unwrap();
    }
    let ledger = web.ledger();
    // Positive control: sites whose robots.txt allows crawling were crawled.
    for (site, scenario) in scenarios.iter().enumerate() {
        if !scenario.forbids_crawling(false) {
            ledger
                .expect_fetched(site, "/events/1.html")
                .unwrap_or_else(|v| panic!("{}: {v}", scenario.name()));
        }
    }
    ledger.check_robots_first().unwrap();
    ledger.check_robots_respected(false).unwrap();
    ledger.check_min_gap(Duration::from_millis(50)).unwrap();
    ledger.check_identity("TestBot/1.0 (+https://bot.example/about)").unwrap();
    // robots.txt was read once per site, not once per request.
    for (site, scenario) in scenarios.iter().enumerate() {
        assert!(
            ledger.count(site, "/robots.txt") <= 1,
            "site {site} ({}) read robots.txt more than once",
            scenario.name()
        );
    }
    web.shutdown().await;
}

#[tokio::test]
async fn disallowed_paths_are_refused_with_the_rule() {
    let web = web(vec![SiteSpec::default()]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let outcome = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/private/secret.html"), Purpose::EventPage)),
    )
    .await;
    let GateOutcome::Refused(Refusal::Disallowed(verdict)) = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(verdict.to_string().contains("disallowed by line"), "{verdict}");
    let allowed = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/private/open.html"), Purpose::EventPage)),
    )
    .await;
    assert_eq!(allowed.fetched().map(|f| f.status), Some(200));
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/private/open.html").unwrap();
    ledger.check_disallowed().unwrap();
    assert!(
        s.audit
            .records()
            .iter()
            .any(|r| r.outcome == Outcome::Refused(RefusalKind::RobotsDisallowed)
                && r.reason.contains("disallowed"))
    );
    web.shutdown().await;
}

#[tokio::test]
async fn several_purposes_and_sources_share_one_gap_and_in_flight_cap() {
    let web = web(vec![SiteSpec { events: 12, ..SiteSpec::default() }]).await;
    let s = gate("[politeness]\ngap = \"150ms\"\nmax_in_flight = 1\n");
    let purposes =
        [Purpose::EventPage, Purpose::CancellationCheck, Purpose::LinkCheck, Purpose::Listing];
    let tasks: Vec<_> = purposes
        .iter()
        .enumerate()
        .map(|(i, &purpose)| {
            let gate = Arc::clone(&s.gate);
            let urls: Vec<Url> =
                (0..3).map(|k| url(&web, 0, &format!("/events/{}.html", 1 + i * 3 + k))).collect();
            tokio::spawn(async move {
                for u in urls {
                    let mut request = GateRequest::new(u, purpose);
                    request.source = Some(format!("source-{i}"));
                    gate.fetch(&request).await;
                }
            })
        })
        .collect();
    for task in tasks {
        bounded(task).await.unwrap();
    }
    let ledger = web.ledger();
    let wanted: Vec<String> = (1..=12).map(|n| format!("/events/{n}.html")).collect();
    ledger.expect_all_fetched(&wanted.iter().map(|p| (0, p.as_str())).collect::<Vec<_>>()).unwrap();
    ledger.check_min_gap(Duration::from_millis(150)).unwrap();
    ledger.check_max_in_flight(1).unwrap();
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_per_purpose_gap_holds_after_a_request_of_another_purpose() {
    let web = web_in_process(vec![SiteSpec::default()]);
    let s = paused_gate(
        "[politeness]\ngap = \"100ms\"\n\n[politeness.purpose.link-check]\ngap = \"400ms\"\n",
        &web,
    );
    for n in 1..=3 {
        bounded(s.gate.fetch(&GateRequest::new(
            url(&web, 0, &format!("/events/{n}.html")),
            Purpose::EventPage,
        )))
        .await;
        bounded(s.gate.fetch(&GateRequest::new(url(&web, 0, "/about.html"), Purpose::LinkCheck)))
            .await;
    }
    let ledger = web.ledger();
    ledger.expect_all_fetched(&[(0, "/events/3.html"), (0, "/about.html")]).unwrap();
    ledger
        .check_spacing(|e| {
            if e.path == "/about.html" {
                Duration::from_millis(400)
            } else {
                Duration::from_millis(100)
            }
        })
        .unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn retry_after_suspends_the_whole_site_and_is_remembered() {
    let throttle = SiteBehaviour::Throttle {
        status: 429,
        after: 2,
        suspend_for: Duration::from_secs(2),
        retry_after: RetryAfterForm::Seconds,
    };
    let web = web(vec![SiteSpec { behaviour: throttle, ..SiteSpec::default() }]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let mut statuses = Vec::new();
    for n in 1..=6 {
        let purpose = if n % 2 == 0 { Purpose::CancellationCheck } else { Purpose::EventPage };
        let outcome = bounded(
            s.gate.fetch(&GateRequest::new(url(&web, 0, &format!("/events/{n}.html")), purpose)),
        )
        .await;
        statuses.push(outcome.fetched().map(|f| f.status));
    }
    assert!(statuses.contains(&Some(429)), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&Some(200)), "requests resumed after the pause: {statuses:?}");
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/events/6.html").unwrap();
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    let state =
        s.gate.state().site(&gleaner_fetch::site_key(&url(&web, 0, "/"))).await.unwrap().unwrap();
    assert!(state.budget.suspended_until.is_some(), "the suspension is stored, not just slept on");
    web.shutdown().await;
}

#[tokio::test]
async fn deferred_when_the_suspension_outlasts_the_callers_patience() {
    let throttle = SiteBehaviour::Throttle {
        status: 503,
        after: 0,
        suspend_for: Duration::from_secs(30),
        retry_after: RetryAfterForm::HttpDate,
    };
    let web = web(vec![SiteSpec { behaviour: throttle, ..SiteSpec::default() }]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let first = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage)),
    )
    .await;
    assert_eq!(first.fetched().map(|f| f.status), Some(503));
    let mut second = GateRequest::new(url(&web, 0, "/events/2.html"), Purpose::EventPage);
    second.wait_until_at_most = Some(SystemTime::now() + Duration::from_secs(1));
    let outcome = bounded(s.gate.fetch(&second)).await;
    let GateOutcome::Deferred { until: Some(until), why, .. } = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(why.contains("suspended"), "{why}");
    assert!(*until > SystemTime::now() + Duration::from_secs(20), "about 30 s from the HTTP-date");
    assert_eq!(web.ledger().count(0, "/events/2.html"), 0);
    web.shutdown().await;
}

#[tokio::test]
async fn blocks_and_challenges_stop_the_site() {
    let specs = vec![
        SiteSpec {
            behaviour: SiteBehaviour::Block { status: 403, after: 1 },
            ..SiteSpec::default()
        },
        SiteSpec { behaviour: SiteBehaviour::Challenge { after: 1 }, ..SiteSpec::default() },
        SiteSpec { behaviour: SiteBehaviour::LoginWall { after: 1 }, ..SiteSpec::default() },
    ];
    let web = web(specs).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    for site in 0..3 {
        let outcomes = bounded(crawl_site(&s.gate, &web, site, 4)).await;
        assert!(
            outcomes.iter().any(|o| matches!(o, GateOutcome::Refused(Refusal::Budget(_)))),
            "site {site}: later requests refused as blocked: {outcomes:?}"
        );
    }
    let ledger = web.ledger();
    for site in 0..3 {
        ledger.expect_fetched(site, "/events/").unwrap();
    }
    ledger.check_blocks(Duration::from_secs(24 * 3600)).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn opt_out_added_mid_crawl_stops_the_next_request() {
    let web = web(vec![SiteSpec::default()]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    bounded(s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage)))
        .await;
    let host = url(&web, 0, "/").host_str().unwrap().to_owned();
    s.registry.add(RegistryEntry {
        scope: Scope::domain(&host).unwrap(),
        request: OwnerRequest::OptOut,
        reference: "OPT-1".into(),
    });
    let outcome = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/2.html"), Purpose::EventPage)),
    )
    .await;
    assert!(
        matches!(&outcome, GateOutcome::Refused(Refusal::OptedOut(r)) if r == "OPT-1"),
        "{outcome:?}"
    );
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/events/1.html").unwrap();
    assert_eq!(ledger.count(0, "/events/2.html"), 0);
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn owner_slow_down_multiplies_the_gap() {
    let web = web_in_process(vec![SiteSpec::default()]);
    let s = paused_gate("[politeness]\ngap = \"60ms\"\n", &web);
    let host = url(&web, 0, "/").host_str().unwrap().to_owned();
    s.registry.add(RegistryEntry {
        scope: Scope::domain(&host).unwrap(),
        request: OwnerRequest::SlowDown(4),
        reference: "SLOW-1".into(),
    });
    for n in 1..=3 {
        bounded(s.gate.fetch(&GateRequest::new(
            url(&web, 0, &format!("/events/{n}.html")),
            Purpose::EventPage,
        )))
        .await;
    }
    let ledger = web.ledger().filter(|e| !e.is_robots());
    ledger.expect_fetched(0, "/events/3.html").unwrap();
    ledger.check_min_gap(Duration::from_millis(240)).unwrap();
    web.shutdown().await;
}

fn paris(h: u32, m: u32, s: u32) -> SystemTime {
    SystemTime::from(Paris.with_ymd_and_hms(2026, 12, 1, h, m, s).unwrap().with_timezone(&Utc))
}

#[tokio::test(start_paused = true)]
async fn seed_aubeactu_no_request_starts_in_quiet_hours_with_an_injected_clock() {
    let web = web_in_process(vec![SiteSpec::default()]);
    let host = url(&web, 0, "/").host_str().unwrap().to_owned();
    let extra = format!(
        "[politeness]\ngap = \"50ms\"\n\n[site_classes.municipal]\ntime_zone = \"Europe/Paris\"\nquiet_hours = [\"08:00-09:00\"]\n\n[[sites]]\nhost = \"{host}\"\nclass = \"municipal\"\n"
    );
    // The crawler's clock shows 08:59:58.5 local: the first request must wait 1.5 s.
    let start = paris(8, 59, 58) + Duration::from_millis(500);
    let epoch_local = chrono::DateTime::<Utc>::from(start).with_timezone(&Paris).naive_local();
    // Measured before the clock starts, so mapped ledger times err late, never early.
    let web_epoch_offset = web.since_epoch();
    let s = paused_gate_with(&extra, ShiftedClock::starting_at(start), &web);
    for n in 1..=3 {
        bounded(s.gate.fetch(&GateRequest::new(
            url(&web, 0, &format!("/events/{n}.html")),
            Purpose::EventPage,
        )))
        .await;
    }
    let ledger = web.ledger();
    ledger
        .expect_all_fetched(&[(0, "/robots.txt"), (0, "/events/1.html"), (0, "/events/3.html")])
        .unwrap();
    // Map the ledger's monotonic arrival times to the crawler's local clock.
    let to_local =
        local_clock(epoch_local - chrono::TimeDelta::from_std(web_epoch_offset).unwrap());
    let windows =
        [(NaiveTime::from_hms_opt(8, 0, 0).unwrap(), NaiveTime::from_hms_opt(9, 0, 0).unwrap())];
    ledger.check_quiet_hours(to_local, &windows).unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn seed_aubeactu_daily_quota_with_an_injected_clock() {
    let web = web(vec![SiteSpec::default()]).await;
    let host = url(&web, 0, "/").host_str().unwrap().to_owned();
    let extra = format!(
        "[politeness]\ngap = \"50ms\"\n\n[site_classes.municipal]\ntime_zone = \"Europe/Paris\"\nrequests_per_day = 3\n\n[[sites]]\nhost = \"{host}\"\nclass = \"municipal\"\n"
    );
    let s = gate_with(&extra, Arc::new(ShiftedClock::starting_at(paris(23, 59, 58))));
    let mut outcomes = Vec::new();
    for n in 1..=4 {
        let mut request =
            GateRequest::new(url(&web, 0, &format!("/events/{n}.html")), Purpose::EventPage);
        request.wait_until_at_most = Some(paris(23, 59, 59));
        outcomes.push(bounded(s.gate.fetch(&request)).await);
    }
    // robots.txt and two pages use the 3 requests of the day; the rest waits for midnight.
    let deferred: Vec<_> =
        outcomes.iter().filter(|o| matches!(o, GateOutcome::Deferred { .. })).collect();
    assert_eq!(deferred.len(), 2, "{outcomes:?}");
    assert!(
        matches!(deferred[0], GateOutcome::Deferred { until: Some(t), .. } if *t == paris(0, 0, 0) + Duration::from_secs(86400))
    );
    let ledger = web.ledger();
    ledger.expect_all_fetched(&[(0, "/events/1.html"), (0, "/events/2.html")]).unwrap();
    assert_eq!(ledger.entries.len(), 3);
    web.shutdown().await;
}

#[tokio::test]
async fn redirects_pass_the_gate_of_the_target_site() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let (outcome, hops) = bounded(s.gate.fetch_following(&GateRequest::new(
        url(&web, 0, "/redirect/other-site"),
        Purpose::EventPage,
    )))
    .await;
    assert_eq!(outcome.fetched().map(|f| f.status), Some(200));
    assert_eq!(hops.len(), 1);
    let (outcome, _) =
        bounded(s.gate.fetch_following(&GateRequest::new(
            url(&web, 0, "/redirect/private"),
            Purpose::EventPage,
        )))
        .await;
    assert!(matches!(outcome, GateOutcome::Refused(Refusal::Disallowed(_))), "{outcome:?}");
    let ledger = web.ledger();
    ledger
        .expect_all_fetched(&[(1, "/robots.txt"), (1, "/events/1.html"), (0, "/redirect/private")])
        .unwrap();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn purposes_not_enabled_are_refused() {
    let web = web(vec![SiteSpec::default()]).await;
    let s = gate("[purposes]\nenabled = [\"robots\", \"listing\", \"event-page\"]\n");
    let outcome = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::ImageRelay)),
    )
    .await;
    assert!(matches!(outcome, GateOutcome::Refused(Refusal::Budget(_))), "{outcome:?}");
    let ok = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage)),
    )
    .await;
    assert_eq!(ok.fetched().map(|f| f.status), Some(200));
    assert_eq!(web.ledger().count(0, "/events/1.html"), 1);
    web.shutdown().await;
}

#[tokio::test]
async fn explain_says_why_and_until_when_without_sending() {
    use gleaner_fetch::gate::ExplainVerdict;
    let throttle = SiteBehaviour::Throttle {
        status: 429,
        after: 1,
        suspend_for: Duration::from_secs(30),
        retry_after: RetryAfterForm::Seconds,
    };
    let web = web(vec![SiteSpec { behaviour: throttle, ..SiteSpec::default() }]).await;
    let s = gate("[politeness]\ngap = \"50ms\"\n");
    let before =
        s.gate.explain(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage)).await;
    let before = before.unwrap();
    assert_eq!(before.verdict, ExplainVerdict::Now);
    assert!(before.steps.iter().any(|s| s.contains("not read yet")), "{before:?}");
    bounded(s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage)))
        .await;
    let outcome = bounded(
        s.gate.fetch(&GateRequest::new(url(&web, 0, "/events/2.html"), Purpose::EventPage)),
    )
    .await;
    assert_eq!(outcome.fetched().map(|f| f.status), Some(429));
    let requests_so_far = web.ledger().entries.len();
    let later =
        s.gate.explain(&GateRequest::new(url(&web, 0, "/events/3.html"), Purpose::EventPage)).await;
    let later = later.unwrap();
    assert!(
        matches!(later.verdict, ExplainVerdict::NotBefore(t) if t > SystemTime::now() + Duration::from_secs(20)),
        "{later:?}"
    );
    assert!(later.steps.iter().any(|s| s.contains("suspended") && s.contains("429")), "{later:?}");
    let private = s
        .gate
        .explain(&GateRequest::new(url(&web, 0, "/private/x.html"), Purpose::EventPage))
        .await
        .unwrap();
    assert_eq!(private.verdict, ExplainVerdict::Refused);
    assert!(private.steps.iter().any(|s| s.contains("disallowed by line")), "{private:?}");
    assert_eq!(web.ledger().entries.len(), requests_so_far, "explain sends nothing");
    web.shutdown().await;
}

/// Two gates on one shared state are two processes on one database: one reads
/// robots.txt while the other waits for the budget, and the waiting one uses that
/// reading instead of sending its own.
#[tokio::test]
async fn two_processes_on_one_state_read_robots_txt_once() {
    let web = web(vec![SiteSpec { events: 4, ..SiteSpec::default() }]).await;
    let settings = Arc::new(
        gleaner_config::parse(&format!("{BASE}\n[politeness]\ngap = \"200ms\"\n"), "t.toml")
            .unwrap(),
    );
    let state = Arc::new(MemoryState::default());
    let processes: Vec<Arc<Gate>> = (0..2)
        .map(|_| {
            Arc::new(Gate::new(
                Client::new(ClientSettings::from_settings(&settings)).unwrap(),
                Arc::clone(&settings),
                Arc::clone(&state) as Arc<dyn gleaner_policy::state::GateState>,
                Arc::new(MemoryRegistry::default()),
                Arc::new(MemoryAudit::default()),
                Arc::new(SystemClock),
            ))
        })
        .collect();
    let tasks: Vec<_> = processes
        .iter()
        .enumerate()
        .map(|(n, gate)| {
            let (gate, page) = (Arc::clone(gate), url(&web, 0, &format!("/events/{}.html", n + 1)));
            tokio::spawn(
                async move { gate.fetch(&GateRequest::new(page, Purpose::EventPage)).await },
            )
        })
        .collect();
    for task in tasks {
        let outcome = bounded(task).await.unwrap();
        assert!(outcome.fetched().is_some_and(|f| f.status == 200), "{outcome:?}");
    }
    let ledger = web.ledger();
    // Positive control: both pages were fetched; robots.txt once, first; one gap.
    assert!(ledger.fetched(0, "/events/1.html") && ledger.fetched(0, "/events/2.html"));
    assert_eq!(ledger.count(0, "/robots.txt"), 1, "robots.txt read by one process only");
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(200)).unwrap();
    web.shutdown().await;
}

fn rules_with(request_rate: Option<(u32, u32)>, visit_time: Option<(u16, u16)>) -> SiteSpec {
    let rules = gleaner_testweb::RobotsRules { request_rate, visit_time, ..Default::default() };
    SiteSpec { rules, ..SiteSpec::default() }
}

/// A site asking `Request-rate: 1/10s` sees no two requests closer than 10 s (robots.txt,
/// then two pages: about 20 s on the real ledger); a site beside it without the line
/// gets its pages at the configured 50 ms (positive control), and `explain` names the line.
#[tokio::test(start_paused = true)]
async fn extended_standard_request_rate_holds_from_the_sites_side() {
    let web = web_in_process(vec![rules_with(Some((1, 10)), None), SiteSpec::default()]);
    let s = paused_gate("[politeness]\ngap = \"50ms\"\n", &web);
    let pages = |site: usize| {
        let gate = Arc::clone(&s.gate);
        let urls: Vec<Url> =
            (1..=2).map(|n| url(&web, site, &format!("/events/{n}.html"))).collect();
        async move {
            for u in urls {
                let outcome = gate.fetch(&GateRequest::new(u, Purpose::EventPage)).await;
                assert_eq!(outcome.fetched().map(|f| f.status), Some(200), "{outcome:?}");
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(40), async {
        tokio::join!(pages(0), pages(1));
    })
    .await
    .expect("both sites crawled within 40 s");
    let ledger = web.ledger();
    ledger
        .expect_all_fetched(&[(0, "/robots.txt"), (0, "/events/2.html"), (1, "/events/2.html")])
        .unwrap();
    ledger.check_request_rate().unwrap();
    ledger.check_min_gap(Duration::from_millis(50)).unwrap();
    // The control site was not held to the rate: its two pages came well within 10 s.
    let control: Vec<_> = ledger.entries.iter().filter(|e| e.site == 1).collect();
    let span = control.last().unwrap().at - control.first().unwrap().at;
    assert!(span < Duration::from_secs(5), "control site took {span:?}");
    let explained = s
        .gate
        .explain(&GateRequest::new(url(&web, 0, "/events/3.html"), Purpose::EventPage))
        .await
        .unwrap();
    assert!(explained.steps.iter().any(|s| s.contains("line 6 `request-rate`")), "{explained:?}");
    web.shutdown().await;
}

fn utc_at(h: u32, m: u32) -> SystemTime {
    SystemTime::from(Utc.with_ymd_and_hms(2026, 12, 1, h, m, 0).unwrap())
}

/// The crawler's clock shows 12:00 UTC. A site whose `Visit-time: 0200-0300` excludes
/// now is asked for robots.txt alone and the pages are deferred to 02:00 with the line;
/// a site whose `Visit-time: 1100-1300` includes now gets its pages (positive control).
#[tokio::test(start_paused = true)]
async fn extended_standard_visit_time_from_the_sites_side() {
    use gleaner_fetch::gate::ExplainVerdict;
    let web = web_in_process(vec![
        rules_with(None, Some((2 * 60, 3 * 60))),
        rules_with(None, Some((11 * 60, 13 * 60))),
    ]);
    let start = utc_at(12, 0);
    let web_epoch_offset = web.since_epoch();
    let s =
        paused_gate_with("[politeness]\ngap = \"50ms\"\n", ShiftedClock::starting_at(start), &web);
    for site in [0, 1] {
        for n in 1..=2 {
            let mut page =
                GateRequest::new(url(&web, site, &format!("/events/{n}.html")), Purpose::EventPage);
            page.wait_until_at_most = Some(start + Duration::from_secs(10));
            let outcome = bounded(s.gate.fetch(&page)).await;
            if site == 0 {
                let opens = utc_at(2, 0) + Duration::from_secs(86_400);
                let GateOutcome::Deferred { until, hold: Some(wait), .. } = &outcome else {
                    panic!("{outcome:?}")
                };
                assert_eq!(*until, Some(opens));
                assert_eq!(wait.code(), "robots-visit-time");
                assert!(
                    matches!(wait, WaitReason::OutsideVisitTime { next } if next.line == 6 && next.visit_time),
                    "{wait:?}"
                );
            } else {
                assert_eq!(outcome.fetched().map(|f| f.status), Some(200), "{outcome:?}");
            }
        }
    }
    let ledger = web.ledger();
    ledger
        .expect_all_fetched(&[(0, "/robots.txt"), (1, "/events/1.html"), (1, "/events/2.html")])
        .unwrap();
    assert_eq!(ledger.entries.iter().filter(|e| e.site == 0).count(), 1, "robots.txt alone");
    let epoch_utc = chrono::DateTime::<Utc>::from(start).naive_utc()
        - chrono::TimeDelta::from_std(web_epoch_offset).unwrap();
    ledger.check_visit_time(local_clock(epoch_utc)).unwrap();
    let explained = s
        .gate
        .explain(&GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage))
        .await
        .unwrap();
    assert!(matches!(explained.verdict, ExplainVerdict::NotBefore(_)), "{explained:?}");
    assert!(
        explained.steps.iter().any(|s| s.contains("line 6 `visit-time` window 0200-0300 UTC")),
        "{explained:?}"
    );
    web.shutdown().await;
}

/// A [`MemoryState`] that counts its reads (`GateState::site`), as a database would
/// count round trips.
#[derive(Debug, Default)]
struct CountingState {
    inner: MemoryState,
    reads: std::sync::atomic::AtomicUsize,
}

impl gleaner_policy::state::GateState for CountingState {
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: gleaner_policy::state::Change<'a>,
    ) -> gleaner_policy::state::BoxFuture<'a, Result<(), gleaner_policy::state::StateError>> {
        self.inner.update(site, change)
    }

    fn site<'a>(
        &'a self,
        site: &'a str,
    ) -> gleaner_policy::state::BoxFuture<
        'a,
        Result<Option<gleaner_policy::state::SiteState>, gleaner_policy::state::StateError>,
    > {
        self.reads.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.inner.site(site)
    }
}

fn gate_on(state: Arc<dyn gleaner_policy::state::GateState>, gap: &str) -> Gate {
    let settings = Arc::new(
        gleaner_config::parse(&format!("{BASE}\n[politeness]\ngap = \"{gap}\"\n"), "t.toml")
            .unwrap(),
    );
    Gate::new(
        Client::new(ClientSettings::from_settings(&settings)).unwrap(),
        Arc::clone(&settings),
        state,
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        Arc::new(SystemClock),
    )
}

/// Issue 27: a request to a site whose robots.txt this gate knows decides without
/// reading the site's state first (a round trip per request on PostgreSQL); the
/// reservation checks the memory in the state it locks instead.
#[tokio::test]
async fn issue27_requests_on_known_robots_txt_read_no_site_state() {
    let web = web(vec![SiteSpec { events: 4, ..SiteSpec::default() }]).await;
    let state = Arc::new(CountingState::default());
    let gate = gate_on(Arc::clone(&state) as _, "20ms");
    let listing = GateRequest::new(url(&web, 0, "/events/"), Purpose::Listing);
    assert!(bounded(gate.fetch(&listing)).await.fetched().is_some_and(|f| f.status == 200));
    let before = state.reads.load(std::sync::atomic::Ordering::SeqCst);
    for n in 1..=4 {
        let page = GateRequest::new(url(&web, 0, &format!("/events/{n}.html")), Purpose::EventPage);
        let outcome = bounded(gate.fetch(&page)).await;
        assert!(outcome.fetched().is_some_and(|f| f.status == 200), "{outcome:?}");
    }
    let reads = state.reads.load(std::sync::atomic::Ordering::SeqCst) - before;
    // Positive control: every page was fetched, after robots.txt, with the gap held.
    let ledger = web.ledger();
    assert!((1..=4).all(|n| ledger.fetched(0, &format!("/events/{n}.html"))));
    assert_eq!(ledger.count(0, "/robots.txt"), 1);
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(20)).unwrap();
    assert_eq!(reads, 0, "four requests on known robots.txt read the site's state {reads} times");
    web.shutdown().await;
}

/// Issue 27: robots.txt read again by another process (new rules in the shared state)
/// applies to this gate's next request although it remembered the old file: the
/// reservation sees the other memory, reserves nothing, and the request is decided on
/// the new rules (here refused, and never sent).
#[tokio::test]
async fn issue27_robots_txt_changed_by_another_process_applies_to_the_next_request() {
    use gleaner_policy::robots::RobotsTxt;
    use gleaner_policy::robots::outcome::RobotsState;
    let web = web(vec![SiteSpec { events: 4, ..SiteSpec::default() }]).await;
    let state = Arc::new(MemoryState::default());
    let gate = gate_on(Arc::clone(&state) as _, "20ms");
    let one = GateRequest::new(url(&web, 0, "/events/1.html"), Purpose::EventPage);
    assert!(bounded(gate.fetch(&one)).await.fetched().is_some_and(|f| f.status == 200));
    // Another process's reading: everything disallowed, valid a little longer.
    let site = gleaner_fetch::site_key(&one.url);
    let disallow = Box::new(|s: &mut gleaner_policy::state::SiteState, _: &mut _| {
        let memory = s.robots.as_mut().expect("robots.txt was read");
        let body = b"User-agent: *\nDisallow: /\n";
        memory.state = RobotsState::Rules(Arc::new(RobotsTxt::parse(body)));
        memory.body = Some(body.to_vec());
        memory.valid_until += Duration::from_secs(1);
    });
    gleaner_policy::state::GateState::update(&*state, &site, disallow).await.unwrap();
    let two = GateRequest::new(url(&web, 0, "/events/2.html"), Purpose::EventPage);
    let outcome = bounded(gate.fetch(&two)).await;
    assert!(matches!(outcome, GateOutcome::Refused(Refusal::Disallowed(_))), "{outcome:?}");
    let ledger = web.ledger();
    assert!(ledger.fetched(0, "/events/1.html"), "positive control: the first page was sent");
    assert!(!ledger.fetched(0, "/events/2.html"), "a page the new rules disallow was sent");
    web.shutdown().await;
}
