//! Reading robots.txt over the network: every scenario of the test web, mapped to the
//! RFC 9309 outcome, and checked from the site's side.

use std::time::{Duration, SystemTime};

use gleaner_fetch::read_robots;
use gleaner_policy::robots::outcome::{OnUnauthorized, RobotsFetchPolicy, RobotsState};
use gleaner_policy::signals::SignalSettings;
use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb, Timings};
use url::Url;

use crate::{bounded, client};

const T0: u64 = 1_800_000_000;

fn now() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(T0)
}

/// Reads robots.txt on a one-scenario web and returns the state name and the requests.
async fn read(
    scenario: RobotsScenario,
    on_unauthorized: OnUnauthorized,
) -> (String, usize, Option<Duration>, TestWeb) {
    let timings = Timings { hang: Duration::from_secs(4), ..Timings::default() };
    let manifest = Manifest::new(vec![SiteSpec::with_robots(scenario), SiteSpec::default()])
        .with_timings(timings)
        .with_token("TestBot");
    let web = TestWeb::start(manifest).await.unwrap();
    let policy = RobotsFetchPolicy { on_unauthorized, ..RobotsFetchPolicy::default() };
    let url = Url::parse(&web.url(0, "/events/")).unwrap();
    let read = bounded(read_robots(&client(), &url, &policy, &SignalSettings::default(), 0, now))
        .await
        .unwrap();
    let state = match &read.decision.state {
        RobotsState::Rules(r) => {
            if r.for_agent("TestBot").disallows_all() {
                "rules-disallow-all"
            } else {
                "rules"
            }
        }
        RobotsState::AllowAll => "allow-all",
        RobotsState::Blocked => "blocked",
        RobotsState::FetchNothing => "fetch-nothing",
    };
    let wait = read.decision.valid_until.duration_since(now()).ok();
    (state.to_owned(), read.hops.len(), wait, web)
}

#[tokio::test]
async fn rfc9309_outcomes_from_the_wire() {
    use OnUnauthorized::{AllowAll, Block};
    let cases: Vec<(RobotsScenario, OnUnauthorized, &str)> = vec![
        (RobotsScenario::Rules, AllowAll, "rules"),
        (RobotsScenario::DisallowAll, AllowAll, "rules-disallow-all"),
        (RobotsScenario::Status(404), AllowAll, "allow-all"),
        (RobotsScenario::Status(401), AllowAll, "allow-all"),
        (RobotsScenario::Status(403), Block, "blocked"),
        (RobotsScenario::Status(429), AllowAll, "fetch-nothing"),
        (RobotsScenario::Status(500), AllowAll, "fetch-nothing"),
        (RobotsScenario::Status(503), AllowAll, "fetch-nothing"),
        (RobotsScenario::Reset, AllowAll, "fetch-nothing"),
        (RobotsScenario::Redirect { hops: 5, cross_host: false }, AllowAll, "rules"),
        (RobotsScenario::Redirect { hops: 3, cross_host: true }, AllowAll, "rules"),
        (RobotsScenario::Redirect { hops: 6, cross_host: false }, AllowAll, "fetch-nothing"),
        (RobotsScenario::Large, AllowAll, "rules"),
        (RobotsScenario::Garbage, AllowAll, "rules"),
    ];
    for (scenario, on_unauthorized, expected) in cases {
        let name = scenario.name();
        let (state, _, _, web) = read(scenario, on_unauthorized).await;
        assert_eq!(state, expected, "scenario {name}");
        // Positive control: the site saw the robots.txt request, and nothing else of ours.
        let ledger = web.ledger();
        ledger.expect_fetched(0, "/robots.txt").unwrap();
        assert!(
            ledger.entries.iter().all(|e| e.is_robots()),
            "scenario {name}: only robots files were asked for"
        );
        web.shutdown().await;
    }
}

#[tokio::test]
async fn a_hanging_robots_txt_times_out_and_fails_closed() {
    let (state, hops, wait, web) = read(RobotsScenario::Timeout, OnUnauthorized::AllowAll).await;
    assert_eq!(state, "fetch-nothing");
    assert_eq!(hops, 1);
    assert_eq!(wait, Some(Duration::from_secs(60)), "re-read after the first backoff step");
    web.shutdown().await;
}

#[tokio::test]
async fn redirect_hops_are_counted_and_the_sixth_is_not_requested() {
    let (_, hops, _, web) =
        read(RobotsScenario::Redirect { hops: 6, cross_host: false }, OnUnauthorized::AllowAll)
            .await;
    assert_eq!(hops, 6, "the first request and five followed hops");
    web.shutdown().await;
}

#[tokio::test]
async fn large_file_rule_beyond_500_kib_is_seen() {
    let timings = Timings::default();
    let manifest = Manifest::new(vec![SiteSpec::with_robots(RobotsScenario::Large)])
        .with_timings(timings)
        .with_token("TestBot");
    let web = TestWeb::start(manifest).await.unwrap();
    let url = Url::parse(&web.url(0, "/")).unwrap();
    let read = bounded(read_robots(
        &client(),
        &url,
        &RobotsFetchPolicy::default(),
        &SignalSettings::default(),
        0,
        now,
    ))
    .await
    .unwrap();
    let RobotsState::Rules(rules) = &read.decision.state else {
        panic!("{:?}", read.decision.reason)
    };
    assert!(
        !rules.for_agent("TestBot").is_allowed("/late-rule/x"),
        "the rule after 550 KiB applies"
    );
    assert!(read.body.is_some_and(|b| b.len() > 500 * 1024));
    web.shutdown().await;
}
