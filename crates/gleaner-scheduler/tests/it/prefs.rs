//! AI-use preferences per purpose (issue 29, item 2) checked from the sites' side: a
//! `Content-Signal: search=no` in robots.txt keeps a site's events out of publication, a
//! `Content-Usage` header that refuses training only changes nothing. Each with a control
//! site in the same pass. The names are what the promise ledger points at.

use std::time::{Duration, SystemTime};

use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb};

use crate::{bounded, context};

const HEAD: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
     [politeness]\ngap = \"60ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n";

const SEARCH_NO: &str = "User-agent: *\nAllow: /\nContent-Signal: search=no, ai-train=no\n";

fn listing(id: &str, url: &str) -> String {
    format!(
        "\n[[sources]]\nid = \"{id}\"\nkind = \"listing\"\nstart_urls = [\"{url}\"]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n"
    )
}

async fn two_sites(
    first: SiteSpec,
    second: SiteSpec,
    rights: &str,
) -> (TestWeb, Vec<gleaner_scheduler::PassReport>, std::sync::Arc<gleaner_scheduler::MemorySink>) {
    let web =
        TestWeb::start(Manifest::new(vec![first, second]).with_token("TestBot")).await.unwrap();
    let text = format!(
        "{HEAD}\n[rights]\n{rights}\n{}{}",
        listing("first", &web.url(0, "/events/")),
        listing("second", &web.url(1, "/events/"))
    );
    let (ctx, sink) = context(&text);
    let deadline = SystemTime::now() + Duration::from_secs(30);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await);
    }
    (web, reports, sink)
}

#[tokio::test]
async fn ledger_content_signal_search_no_in_robots_txt_keeps_the_sites_events_unpublished() {
    let reserving = SiteSpec {
        events: 3,
        robots: RobotsScenario::Custom(SEARCH_NO.to_owned()),
        ..SiteSpec::default()
    };
    let control = SiteSpec { events: 3, ..SiteSpec::default() };
    let (web, reports, sink) =
        two_sites(reserving, control, "on_reservation = \"per-purpose\"").await;
    let ledger = web.ledger();
    // Per purpose: the pages are read (the preference speaks of publication, not of
    // crawling), and nothing from them is kept.
    assert!(ledger.fetched(0, "/events/1.html"), "the reserving site's pages are read");
    assert!(!sink.events().iter().any(|f| f.source == "first"), "none of its events kept");
    assert!(
        reports[0].refusals.keys().any(|k| k.contains("search=no")),
        "the report names the preference: {:?}",
        reports[0]
    );
    // Positive control: the same pass over a site without the line publishes its events.
    assert!(ledger.fetched(1, "/events/1.html"));
    assert_eq!(sink.events().iter().filter(|f| f.source == "second").count(), 3);
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

#[tokio::test]
async fn ledger_content_signal_search_no_in_robots_txt_stops_the_site_under_stop_site() {
    let reserving = SiteSpec {
        events: 3,
        robots: RobotsScenario::Custom(SEARCH_NO.to_owned()),
        ..SiteSpec::default()
    };
    let control = SiteSpec { events: 3, ..SiteSpec::default() };
    let (web, reports, sink) =
        two_sites(reserving, control, "on_reservation = \"stop-site\"").await;
    let ledger = web.ledger();
    let asked: Vec<String> = ledger.site(0).map(|e| e.target()).collect();
    assert_eq!(asked, ["/robots.txt"], "nothing after robots.txt from the reserving site");
    assert!(
        reports[0].refusals.keys().any(|k| k.contains("AI-use preference")),
        "{:?}",
        reports[0]
    );
    assert!(!sink.events().iter().any(|f| f.source == "first"));
    assert!(ledger.fetched(1, "/events/1.html"), "positive control: the other site is read");
    assert_eq!(sink.events().iter().filter(|f| f.source == "second").count(), 3);
    web.shutdown().await;
}

#[tokio::test]
async fn ledger_a_content_usage_header_refusing_training_only_keeps_events_published() {
    let training_only = SiteSpec {
        events: 3,
        page_content_usage: Some("train-ai=n, search=y".to_owned()),
        ..SiteSpec::default()
    };
    // Positive control: the same header field saying `search=n` is read and obeyed.
    let search_no = SiteSpec {
        events: 3,
        page_content_usage: Some("search=n".to_owned()),
        ..SiteSpec::default()
    };
    let (web, reports, sink) =
        two_sites(training_only, search_no, "on_reservation = \"per-purpose\"").await;
    assert_eq!(sink.events().iter().filter(|f| f.source == "first").count(), 3, "{:?}", reports[0]);
    assert!(!sink.events().iter().any(|f| f.source == "second"), "{:?}", reports[1]);
    assert!(web.ledger().fetched(1, "/events/1.html"));
    web.shutdown().await;
}
