//! Table tests for the budget, named by authority (`spec_…`, `seed_…`).

use super::*;
use chrono::{TimeZone, Utc};
use chrono_tz::Europe::Paris;

fn paris(d: u32, h: u32, m: u32, s: u32) -> SystemTime {
    SystemTime::from(Paris.with_ymd_and_hms(2026, 12, d, h, m, s).unwrap().with_timezone(&Utc))
}

fn rules() -> BudgetRules {
    BudgetRules {
        gap: Duration::from_secs(1),
        purpose_gaps: BTreeMap::new(),
        crawl_delay: None,
        robots_pace: crate::robots::Pace::default(),
        slowdown: 1,
        max_in_flight: 1,
        purpose_in_flight: BTreeMap::new(),
        min_pass_interval: None,
        requests_per_pass: None,
        requests_per_hour: None,
        requests_per_day: None,
        visits_per_day: None,
        quiet_hours: Vec::new(),
        time_zone: Paris,
        global_daily_cap: 1500,
        enabled: Purpose::ALL.into_iter().collect(),
    }
}

fn go(
    site: &mut SiteBudget,
    global: &mut GlobalBudget,
    rules: &BudgetRules,
    purpose: Purpose,
    pass: PassMark,
    now: SystemTime,
) {
    assert_eq!(
        decide(site, global, rules, purpose, pass, now, Duration::ZERO),
        BudgetDecision::Go,
        "at {now:?}"
    );
    reserve(site, global, rules, purpose, pass, now);
    release(site, purpose);
}

fn wait_until(d: BudgetDecision) -> Option<SystemTime> {
    match d {
        BudgetDecision::Wait { until, .. } => until,
        other => panic!("expected a wait, got {other:?}"),
    }
}

#[test]
fn spec_spacing_is_shared_by_every_purpose() {
    let mut r = rules();
    r.purpose_gaps.insert(Purpose::LinkCheck, Duration::from_secs(2));
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    go(&mut s, &mut g, &r, Purpose::EventPage, PassMark::None, paris(1, 10, 0, 0));
    // A link check right after an event page waits its own 2 s gap.
    let d =
        decide(&s, &g, &r, Purpose::LinkCheck, PassMark::None, paris(1, 10, 0, 1), Duration::ZERO);
    assert_eq!(wait_until(d), Some(paris(1, 10, 0, 2)));
    // An event page after a link check waits 1 s from that start.
    go(&mut s, &mut g, &r, Purpose::LinkCheck, PassMark::None, paris(1, 10, 0, 2));
    let d =
        decide(&s, &g, &r, Purpose::EventPage, PassMark::None, paris(1, 10, 0, 2), Duration::ZERO);
    assert_eq!(wait_until(d), Some(paris(1, 10, 0, 3)));
}

#[test]
fn spec_crawl_delay_only_makes_us_slower_and_slowdown_multiplies() {
    let mut r = rules();
    r.crawl_delay = Some(Duration::from_millis(500));
    assert_eq!(r.gap_for(Purpose::Listing), Duration::from_secs(1));
    r.crawl_delay = Some(Duration::from_secs(5));
    assert_eq!(r.gap_for(Purpose::Listing), Duration::from_secs(5));
    r.slowdown = 3;
    assert_eq!(r.gap_for(Purpose::Listing), Duration::from_secs(15));
}

#[test]
fn seed_ugybot_jitter_adds_to_the_gap() {
    let r = rules();
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::None, paris(1, 10, 0, 0));
    let d = decide(
        &s,
        &g,
        &r,
        Purpose::EventPage,
        PassMark::None,
        paris(1, 10, 0, 1),
        Duration::from_millis(300),
    );
    assert_eq!(wait_until(d), Some(paris(1, 10, 0, 1) + Duration::from_millis(300)));
}

#[test]
fn spec_in_flight_caps_site_and_purpose() {
    let mut r = rules();
    r.max_in_flight = 3;
    r.gap = Duration::from_millis(1);
    r.purpose_in_flight.insert(Purpose::ImageRelay, 1);
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    let t = paris(1, 10, 0, 0);
    reserve(&mut s, &mut g, &r, Purpose::ImageRelay, PassMark::None, t);
    let d = decide(
        &s,
        &g,
        &r,
        Purpose::ImageRelay,
        PassMark::None,
        t + Duration::from_secs(5),
        Duration::ZERO,
    );
    assert_eq!(d, BudgetDecision::Wait { until: None, why: WaitReason::InFlight { cap: 1 } });
    assert_eq!(
        decide(
            &s,
            &g,
            &r,
            Purpose::EventPage,
            PassMark::None,
            t + Duration::from_secs(5),
            Duration::ZERO
        ),
        BudgetDecision::Go
    );
    reserve(&mut s, &mut g, &r, Purpose::EventPage, PassMark::None, t);
    reserve(&mut s, &mut g, &r, Purpose::EventPage, PassMark::None, t);
    let d = decide(
        &s,
        &g,
        &r,
        Purpose::Listing,
        PassMark::None,
        t + Duration::from_secs(5),
        Duration::ZERO,
    );
    assert_eq!(d, BudgetDecision::Wait { until: None, why: WaitReason::InFlight { cap: 3 } });
    release(&mut s, Purpose::EventPage);
    assert_eq!(
        decide(
            &s,
            &g,
            &r,
            Purpose::Listing,
            PassMark::None,
            t + Duration::from_secs(5),
            Duration::ZERO
        ),
        BudgetDecision::Go
    );
}

#[test]
fn seed_aubeactu_quotas_per_pass_hour_and_day() {
    let mut r = rules();
    r.requests_per_pass = Some(5);
    r.requests_per_hour = Some(12);
    r.requests_per_day = Some(60);
    r.min_pass_interval = Some(Duration::from_secs(300));
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    let mut t = paris(1, 10, 0, 0);
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::Start, t);
    for _ in 0..4 {
        t += Duration::from_secs(2);
        go(&mut s, &mut g, &r, Purpose::Listing, PassMark::Continue, t);
    }
    t += Duration::from_secs(2);
    assert_eq!(
        decide(&s, &g, &r, Purpose::Listing, PassMark::Continue, t, Duration::ZERO),
        BudgetDecision::Deny(DenyReason::PassQuota { cap: 5 })
    );
    // A new pass waits five minutes after the last one started.
    let d = decide(&s, &g, &r, Purpose::Listing, PassMark::Start, t, Duration::ZERO);
    assert_eq!(wait_until(d), Some(paris(1, 10, 5, 0)));
    // Twelve requests in a rolling hour.
    let mut t = paris(1, 10, 5, 0);
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::Start, t);
    for _ in 0..6 {
        t += Duration::from_secs(10);
        go(&mut s, &mut g, &r, Purpose::Listing, PassMark::None, t);
    }
    let d = decide(
        &s,
        &g,
        &r,
        Purpose::Listing,
        PassMark::None,
        t + Duration::from_secs(10),
        Duration::ZERO,
    );
    assert_eq!(
        wait_until(d),
        Some(paris(1, 11, 0, 0)),
        "the first of the last twelve starts leaves the window"
    );
}

#[test]
fn seed_aubeactu_daily_quota_resets_at_local_midnight() {
    let mut r = rules();
    r.requests_per_day = Some(3);
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    for h in [20, 21, 22] {
        go(&mut s, &mut g, &r, Purpose::Feed, PassMark::None, paris(1, h, 0, 0));
    }
    let d = decide(&s, &g, &r, Purpose::Feed, PassMark::None, paris(1, 23, 30, 0), Duration::ZERO);
    assert_eq!(wait_until(d), Some(paris(2, 0, 0, 0)));
    assert_eq!(
        decide(&s, &g, &r, Purpose::Feed, PassMark::None, paris(2, 0, 0, 1), Duration::ZERO),
        BudgetDecision::Go
    );
}

#[test]
fn seed_festrobot_visits_per_day() {
    let mut r = rules();
    r.visits_per_day = Some(2);
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::Start, paris(1, 9, 0, 0));
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::Start, paris(1, 15, 0, 0));
    let d =
        decide(&s, &g, &r, Purpose::Listing, PassMark::Start, paris(1, 20, 0, 0), Duration::ZERO);
    assert_eq!(
        d,
        BudgetDecision::Wait {
            until: Some(paris(2, 0, 0, 0)),
            why: WaitReason::VisitsPerDay { cap: 2 }
        }
    );
}

#[test]
fn seed_aubeactu_no_request_starts_in_quiet_hours() {
    let mut r = rules();
    r.quiet_hours = vec![
        (NaiveTime::from_hms_opt(8, 0, 0).unwrap(), NaiveTime::from_hms_opt(9, 0, 0).unwrap()),
        (NaiveTime::from_hms_opt(14, 0, 0).unwrap(), NaiveTime::from_hms_opt(15, 0, 0).unwrap()),
    ];
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    let d = decide(&s, &g, &r, Purpose::Robots, PassMark::None, paris(1, 8, 30, 0), Duration::ZERO);
    assert_eq!(
        d,
        BudgetDecision::Wait { until: Some(paris(1, 9, 0, 0)), why: WaitReason::QuietHours }
    );
    // Spacing that would push a start into the window moves it to the window's end.
    go(&mut s, &mut g, &r, Purpose::Listing, PassMark::None, paris(1, 13, 59, 59));
    let d =
        decide(&s, &g, &r, Purpose::Listing, PassMark::None, paris(1, 13, 59, 59), Duration::ZERO);
    assert_eq!(wait_until(d), Some(paris(1, 15, 0, 0)));
}

#[test]
fn spec_suspension_holds_every_purpose_and_block_refuses() {
    let r = rules();
    let g = GlobalBudget::default();
    let s = SiteBudget {
        suspended_until: Some((paris(1, 11, 0, 0), "HTTP 429".into())),
        ..SiteBudget::default()
    };
    for p in [Purpose::Robots, Purpose::ImageRelay, Purpose::CancellationCheck] {
        assert_eq!(
            wait_until(decide(&s, &g, &r, p, PassMark::None, paris(1, 10, 0, 0), Duration::ZERO)),
            Some(paris(1, 11, 0, 0))
        );
    }
    assert_eq!(
        decide(&s, &g, &r, Purpose::Listing, PassMark::None, paris(1, 11, 0, 0), Duration::ZERO),
        BudgetDecision::Go
    );
    let s = SiteBudget {
        blocked_until: Some((paris(2, 10, 0, 0), "HTTP 403".into())),
        ..SiteBudget::default()
    };
    assert!(matches!(
        decide(&s, &g, &r, Purpose::Listing, PassMark::None, paris(1, 10, 0, 0), Duration::ZERO),
        BudgetDecision::Deny(DenyReason::Blocked { .. })
    ));
}

#[test]
fn spec_purposes_not_enabled_are_refused() {
    let mut r = rules();
    r.enabled.remove(&Purpose::ImageRelay);
    let d = decide(
        &SiteBudget::default(),
        &GlobalBudget::default(),
        &r,
        Purpose::ImageRelay,
        PassMark::None,
        paris(1, 10, 0, 0),
        Duration::ZERO,
    );
    assert_eq!(d, BudgetDecision::Deny(DenyReason::PurposeNotEnabled(Purpose::ImageRelay)));
}

#[test]
fn spec_global_daily_cap() {
    let mut r = rules();
    r.global_daily_cap = 2;
    r.gap = Duration::from_millis(1);
    let mut g = GlobalBudget::default();
    let (mut a, mut b) = (SiteBudget::default(), SiteBudget::default());
    go(&mut a, &mut g, &r, Purpose::Feed, PassMark::None, paris(1, 10, 0, 0));
    go(&mut b, &mut g, &r, Purpose::Feed, PassMark::None, paris(1, 10, 0, 1));
    let fresh = SiteBudget::default();
    let d =
        decide(&fresh, &g, &r, Purpose::Feed, PassMark::None, paris(1, 10, 0, 2), Duration::ZERO);
    assert!(
        matches!(d, BudgetDecision::Wait { why: WaitReason::GlobalDailyCap { cap: 2 }, .. }),
        "{d:?}"
    );
}

/// Issue 26 item 6: no setting can panic the budget. Before, `gap =
/// "18446744073709551615s"` overflowed `last + gap`, and a slow-down of it overflowed the
/// duration; a pass interval, an hour quota and quiet hours all add to times too.
#[test]
fn issue26_huge_settings_saturate_instead_of_panicking() {
    let mut r = rules();
    r.gap = Duration::from_secs(u64::MAX);
    r.purpose_gaps.insert(Purpose::LinkCheck, Duration::MAX);
    r.crawl_delay = Some(Duration::MAX);
    r.slowdown = u32::MAX;
    r.min_pass_interval = Some(Duration::MAX);
    r.requests_per_hour = Some(1);
    r.quiet_hours = vec![(
        chrono::NaiveTime::from_hms_opt(0, 0, 0).unwrap(),
        chrono::NaiveTime::from_hms_opt(23, 59, 0).unwrap(),
    )];
    let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
    let now = paris(1, 10, 0, 0);
    reserve(&mut s, &mut g, &r, Purpose::EventPage, PassMark::Start, now);
    release(&mut s, Purpose::EventPage);
    for (purpose, pass) in [
        (Purpose::EventPage, PassMark::None),
        (Purpose::LinkCheck, PassMark::None),
        (Purpose::Listing, PassMark::Start),
    ] {
        let decision = decide(&s, &g, &r, purpose, pass, now, Duration::MAX);
        let until = wait_until(decision).expect("a wait with an end");
        assert!(until > now && until <= far_future(), "{purpose:?}: {until:?}");
    }
    // A time already at the end of the calendar stays there.
    assert_eq!(later_by(far_future(), Duration::MAX), far_future());
    // A time past the calendar (about year 36 800) has a local date: the calendar's last.
    let beyond = SystemTime::UNIX_EPOCH + Duration::from_secs(1 << 40);
    assert!(chrono::Datelike::year(&local_date(beyond, Paris)) >= 9999);
}

fn pace(robots: &str) -> crate::robots::Pace {
    crate::robots::RobotsTxt::parse(robots.as_bytes()).for_agent("bot").pace().clone()
}

fn utc(h: u32, m: u32, s: u32) -> SystemTime {
    SystemTime::from(Utc.with_ymd_and_hms(2026, 12, 1, h, m, s).unwrap())
}

/// (robots.txt, configured gap s, crawl-delay s, expected gap s, line named)
type GapCase = (&'static str, u64, Option<u64>, u64, Option<usize>);

#[test]
fn extended_standard_request_rate_is_a_floor_on_the_gap() {
    let cases: &[GapCase] = &[
        ("user-agent: *\nrequest-rate: 1/10s\n", 1, None, 10, Some(2)),
        ("user-agent: *\nrequest-rate: 1/10s\n", 30, None, 30, None),
        ("user-agent: *\nrequest-rate: 1/10s\n", 1, Some(20), 20, None),
        ("user-agent: *\nrequest-rate: 6/1m\n", 1, None, 10, Some(2)),
        ("user-agent: *\nrequest-rate: 1/5s\nrequest-rate: 1/1m 0900-1100\n", 1, None, 60, Some(3)),
        ("user-agent: *\nrequest-rate: 100/1s\n", 2, None, 2, None),
        ("user-agent: other\nrequest-rate: 1/1h\n", 1, None, 1, None),
        ("user-agent: *\nrequest-rate: garbage\n", 1, None, 1, None),
    ];
    for &(robots, gap, delay, want, line) in cases {
        let mut r = rules();
        r.gap = Duration::from_secs(gap);
        r.crawl_delay = delay.map(Duration::from_secs);
        r.robots_pace = pace(robots);
        assert_eq!(r.gap_for(Purpose::EventPage), Duration::from_secs(want), "{robots}");
        assert_eq!(r.rate_line_for(Purpose::EventPage), line, "{robots}");
        let (mut s, mut g) = (SiteBudget::default(), GlobalBudget::default());
        go(&mut s, &mut g, &r, Purpose::EventPage, PassMark::None, utc(10, 0, 0));
        let soon = utc(10, 0, 0) + Duration::from_millis(500);
        let d = decide(&s, &g, &r, Purpose::EventPage, PassMark::None, soon, Duration::ZERO);
        let BudgetDecision::Wait { until, why } = d else { panic!("{robots}: {d:?}") };
        assert_eq!(until, Some(utc(10, 0, 0) + Duration::from_secs(want)), "{robots}");
        assert_eq!(why.code() == "robots-request-rate", line.is_some(), "{robots}: {why}");
        if let Some(line) = line {
            assert!(why.to_string().contains(&format!("line {line}")), "{why}");
        }
    }
}

#[test]
fn extended_standard_visit_time_defers_to_the_window() {
    // (robots.txt, now, expected earliest start or None for "go now", line named)
    let day = Duration::from_secs(86_400);
    let cases: &[(&str, SystemTime, Option<SystemTime>, usize)] = &[
        ("user-agent: *\nvisit-time: 0800-1700\n", utc(7, 0, 0), Some(utc(8, 0, 0)), 2),
        ("user-agent: *\nvisit-time: 0800-1700\n", utc(8, 0, 0), None, 2),
        ("user-agent: *\nvisit-time: 0800-1700\n", utc(16, 59, 59), None, 2),
        ("user-agent: *\nvisit-time: 0800-1700\n", utc(17, 0, 0), Some(utc(8, 0, 0) + day), 2),
        ("user-agent: *\nvisit-time: 2200-0600\n", utc(5, 0, 0), None, 2),
        ("user-agent: *\nvisit-time: 2200-0600\n", utc(12, 0, 0), Some(utc(22, 0, 0)), 2),
        // A windowed Request-rate is a window too; several windows unite.
        ("user-agent: *\nrequest-rate: 1/10s 1300-1400\n", utc(12, 0, 0), Some(utc(13, 0, 0)), 2),
        (
            "user-agent: *\nvisit-time: 0600-0700\nvisit-time: 1800-1900\n",
            utc(12, 0, 0),
            Some(utc(18, 0, 0)),
            3,
        ),
        // Another bot's window does not bind us.
        ("user-agent: other\nvisit-time: 0000-0100\n", utc(12, 0, 0), None, 0),
    ];
    for &(robots, now, want, line) in cases {
        let mut r = rules();
        r.robots_pace = pace(robots);
        let d = decide(
            &SiteBudget::default(),
            &GlobalBudget::default(),
            &r,
            Purpose::EventPage,
            PassMark::None,
            now,
            Duration::ZERO,
        );
        match want {
            None => assert_eq!(d, BudgetDecision::Go, "{robots} at {now:?}"),
            Some(at) => {
                let BudgetDecision::Wait { until, why } = d else { panic!("{robots}: {d:?}") };
                assert_eq!(until, Some(at), "{robots}");
                let WaitReason::OutsideVisitTime { next } = &why else { panic!("{why:?}") };
                assert_eq!(next.line, line, "{robots}");
                assert_eq!(why.code(), "robots-visit-time");
            }
        }
    }
}

#[test]
fn visit_time_and_quiet_hours_both_hold() {
    // Our quiet hours cover the start of the site's window: the request waits for both.
    let mut r = rules();
    r.time_zone = Tz::UTC;
    r.quiet_hours = vec![(
        NaiveTime::from_hms_opt(8, 0, 0).unwrap(),
        NaiveTime::from_hms_opt(9, 0, 0).unwrap(),
    )];
    r.robots_pace = pace("user-agent: *\nvisit-time: 0800-1000\n");
    let d = decide(
        &SiteBudget::default(),
        &GlobalBudget::default(),
        &r,
        Purpose::EventPage,
        PassMark::None,
        utc(7, 0, 0),
        Duration::ZERO,
    );
    assert_eq!(wait_until(d), Some(utc(9, 0, 0)));
}
