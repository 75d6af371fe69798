//! The gate's waits on paused time (issue 23): nothing here leaves the process — every
//! request goes to an address the client's own guard refuses before any socket is opened
//! (`10.0.0.1`, not allowed), so the gate's budget, waits and audit run for real while
//! Tokio's clock auto-advances. What the sites see is proven in `gate.rs`, against the
//! test web: on paused time through its in-process transport, and on real time over
//! sockets for a few spacing tests; these prove the waits themselves, minutes of them,
//! in milliseconds, with no web at all.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, WallClock};
use gleaner_fetch::gate::registry::{MemoryRegistry, OwnerRequest, RegistryEntry, Scope};
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate, GateOutcome, GateRequest, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::outcome::{Outcome, RefusalKind};
use url::Url;

const CONFIG: &str = r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[politeness]
gap = "2s"
"#;

struct Setup {
    gate: Gate,
    registry: Arc<MemoryRegistry>,
    audit: Arc<MemoryAudit>,
    clock: Arc<dyn WallClock>,
}

fn setup() -> Setup {
    setup_on(Arc::new(ShiftedClock::from_now()))
}

fn setup_on(clock: Arc<dyn WallClock>) -> Setup {
    let settings = Arc::new(gleaner_config::parse(CONFIG, "paused.toml").unwrap());
    let client = Client::new(ClientSettings::from_settings(&settings)).unwrap();
    let registry = Arc::new(MemoryRegistry::default());
    let audit = Arc::new(MemoryAudit::default());
    let gate = Gate::new(
        client,
        settings,
        Arc::new(MemoryState::default()),
        registry.clone(),
        audit.clone(),
        clock.clone(),
    );
    Setup { gate, registry, audit, clock }
}

/// robots.txt of the guarded site: always allowed by the gate, so only the budget and
/// the registry decide; the client refuses it locally, after the budget was kept.
fn robots() -> GateRequest {
    GateRequest::new(Url::parse("http://10.0.0.1/robots.txt").unwrap(), Purpose::Robots)
}

fn locally_refused(outcome: &GateOutcome) -> bool {
    matches!(outcome, GateOutcome::Refused(Refusal::Local(_)))
}

#[tokio::test(start_paused = true)]
async fn the_gap_is_kept_between_requests_on_paused_time() {
    let s = setup();
    let real = Instant::now();
    for _ in 0..4 {
        let outcome =
            tokio::time::timeout(Duration::from_secs(60), s.gate.fetch(&robots())).await.unwrap();
        assert!(locally_refused(&outcome), "{outcome:?}");
    }
    let times: Vec<SystemTime> = s.audit.records().iter().map(|r| r.time).collect();
    assert_eq!(times.len(), 4, "one audit record per request");
    for pair in times.windows(2) {
        let gap = pair[1].duration_since(pair[0]).unwrap();
        assert!(gap >= Duration::from_secs(2), "the 2 s gap is kept: {gap:?}");
    }
    assert!(
        s.audit.records().iter().all(|r| r.outcome == Outcome::Refused(RefusalKind::Address)),
        "the guard's refusal is audited as one, typed: {:?}",
        s.audit.records()
    );
    assert!(
        real.elapsed() < Duration::from_secs(2),
        "6 s of gaps, not waited: {:?}",
        real.elapsed()
    );
}

/// A clock read over a slow round trip (the database's, on a busy machine): it may be
/// `off` either way.
#[derive(Debug)]
struct UncertainClock {
    clock: ShiftedClock,
    off: Duration,
}

impl WallClock for UncertainClock {
    fn now(&self) -> SystemTime {
        self.clock.now()
    }

    fn uncertainty(&self) -> Duration {
        self.off
    }
}

/// The starts of four robots.txt requests through `s`'s gate, from its audit.
async fn four_starts(s: &Setup) -> Vec<SystemTime> {
    for _ in 0..4 {
        let outcome =
            tokio::time::timeout(Duration::from_secs(60), s.gate.fetch(&robots())).await.unwrap();
        assert!(locally_refused(&outcome), "{outcome:?}");
    }
    s.audit.records().iter().map(|r| r.time).collect()
}

/// Two workers whose clocks err in opposite directions by `off` each would come `2 × off`
/// closer than the gap: a clock that may be `off` records each start and end that much
/// later and waits that much longer, so its own requests are `gap + 2 × off` apart, and
/// another worker's, whatever their readings' errors, at least the gap.
#[tokio::test(start_paused = true)]
async fn a_clock_that_may_be_off_widens_the_gap_by_its_error() {
    let off = Duration::from_millis(300);
    let s = setup_on(Arc::new(UncertainClock { clock: ShiftedClock::from_now(), off }));
    let starts = four_starts(&s).await;
    for pair in starts.windows(2) {
        let gap = pair[1].duration_since(pair[0]).unwrap();
        assert!(gap >= Duration::from_secs(2) + 2 * off, "gap and twice the error: {gap:?}");
    }
    // Positive control: an exact clock keeps the gap and no more.
    let exact = setup();
    let starts = four_starts(&exact).await;
    for pair in starts.windows(2) {
        let gap = pair[1].duration_since(pair[0]).unwrap();
        assert!(gap < Duration::from_secs(2) + off, "an exact clock adds nothing: {gap:?}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_owners_pause_is_waited_out_when_the_caller_waits_that_long() {
    let s = setup();
    let until = s.clock.now() + Duration::from_secs(30 * 60);
    s.registry.add(RegistryEntry {
        scope: Scope::domain("10.0.0.1").unwrap(),
        request: OwnerRequest::PauseUntil(until),
        reference: "PAUSE-1".into(),
    });
    // A caller that waits less is deferred to the pause's end (positive control).
    let mut impatient = robots();
    impatient.wait_until_at_most = Some(s.clock.now() + Duration::from_secs(60));
    let outcome = s.gate.fetch(&impatient).await;
    assert!(
        matches!(outcome, GateOutcome::Deferred { until: Some(t), .. } if t == until),
        "{outcome:?}"
    );
    assert!(s.audit.records().is_empty(), "deferred: nothing sent or refused yet");
    // One that waits longer: the gate waits the half hour out, then sends.
    let real = Instant::now();
    let mut patient = robots();
    patient.wait_until_at_most = Some(s.clock.now() + Duration::from_secs(3600));
    let outcome =
        tokio::time::timeout(Duration::from_secs(3600), s.gate.fetch(&patient)).await.unwrap();
    assert!(locally_refused(&outcome), "{outcome:?}");
    let records = s.audit.records();
    assert_eq!(records.len(), 1, "{records:?}");
    assert!(records[0].time >= until, "not before the pause ends: {records:?}");
    assert!(real.elapsed() < Duration::from_secs(2), "{:?}", real.elapsed());
}

#[tokio::test(start_paused = true)]
async fn an_opt_out_refuses_at_once_with_its_kind() {
    let s = setup();
    s.registry.add(RegistryEntry {
        scope: Scope::domain("10.0.0.1").unwrap(),
        request: OwnerRequest::OptOut,
        reference: "OPT-1".into(),
    });
    let page = GateRequest::new(Url::parse("http://10.0.0.1/x.html").unwrap(), Purpose::EventPage);
    let outcome = s.gate.fetch(&page).await;
    assert!(matches!(outcome, GateOutcome::Refused(Refusal::OptedOut(_))), "{outcome:?}");
    let records = s.audit.records();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].outcome, Outcome::Refused(RefusalKind::OptedOut));
    assert_eq!(records[0].outcome.code(), "refused:opt-out");
    let explained = s.gate.explain(&page).await.unwrap();
    assert_eq!(explained.verdict, gleaner_fetch::gate::ExplainVerdict::Refused);
    assert!(explained.steps[0].contains("opted out (request `OPT-1`)"), "{explained:?}");
}
