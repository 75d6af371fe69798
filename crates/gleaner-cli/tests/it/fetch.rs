//! `gleaner fetch URL` against the loopback test web: robots.txt first, spacing, the
//! "no" of a site, and redirects to another site checked against that site's robots.txt.

use std::time::Duration;

use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb};

use crate::util::{Run, gleaner, temp_file};

const CONFIG: &str = r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[politeness.purpose.manual-check]
gap = "300ms"

[network]
allow = ["127.0.0.0/8"]
"#;

/// Runs `gleaner fetch` with the test config and a store in `dir`.
async fn fetch_in(dir: &std::path::Path, extra: &str, url: String) -> Run {
    let config =
        format!("{CONFIG}\n[store]\nurl = \"sqlite://{}\"\n{extra}", dir.join("g.db").display());
    let path = dir.join("gleaner.toml");
    std::fs::write(&path, config).unwrap();
    let path = path.to_str().unwrap().to_owned();
    let task =
        tokio::task::spawn_blocking(move || gleaner(&["--config", &path, "fetch", &url], ""));
    tokio::time::timeout(Duration::from_secs(30), task).await.expect("bounded").unwrap()
}

async fn run_fetch(url: String) -> Run {
    let dir = tempfile::tempdir().unwrap();
    fetch_in(dir.path(), "", url).await
}

async fn web(specs: Vec<SiteSpec>) -> TestWeb {
    TestWeb::start(Manifest::new(specs).with_token("TestBot")).await.unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn allowed_page_is_fetched_after_robots_txt_and_a_gap() {
    let web = web(vec![SiteSpec::default()]).await;
    let run = run_fetch(web.url(0, "/events/1.html")).await;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("-> HTTP 200"), "{}", run.stdout);
    let ledger = web.ledger();
    ledger.expect_all_fetched(&[(0, "/robots.txt"), (0, "/events/1.html")]).unwrap();
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(300)).unwrap();
    ledger.check_identity("TestBot/1.0 (+https://bot.example/about)").unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn disallowed_page_is_refused_with_exit_3_and_never_requested() {
    let web = web(vec![SiteSpec::default()]).await;
    let run = run_fetch(web.url(0, "/private/secret.html")).await;
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("disallowed by line"), "{}", run.stdout);
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/robots.txt").unwrap();
    assert_eq!(ledger.count(0, "/private/secret.html"), 0);
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn failing_robots_txt_means_nothing_else_is_fetched() {
    let web = web(vec![SiteSpec::with_robots(RobotsScenario::Status(503))]).await;
    let run = run_fetch(web.url(0, "/events/1.html")).await;
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("HTTP 503"), "{}", run.stdout);
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/robots.txt").unwrap();
    ledger.check_robots_respected(false).unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn redirect_to_another_site_reads_that_sites_robots_txt_first() {
    let web = web(vec![SiteSpec::default(), SiteSpec::default()]).await;
    let run = run_fetch(web.url(0, "/redirect/other-site")).await;
    assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("redirect: hop 1"), "{}", run.stdout);
    let ledger = web.ledger();
    ledger
        .expect_all_fetched(&[
            (0, "/robots.txt"),
            (0, "/redirect/other-site"),
            (1, "/robots.txt"),
            (1, "/events/1.html"),
        ])
        .unwrap();
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn refused_address_is_an_error_not_a_request() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let run = tokio::task::spawn_blocking(move || {
        let text = CONFIG.replace("allow = [\"127.0.0.0/8\"]", "allow = []")
            + &format!("\n[store]\nurl = \"sqlite://{}\"\n", db.display());
        let config = temp_file(text.as_bytes());
        gleaner(&["--config", config.path().to_str().unwrap(), "fetch", "http://127.0.0.1:9/"], "")
    })
    .await
    .unwrap();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("SSRF guard"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn manual_checks_share_the_budget_across_processes_and_stop_at_the_daily_cap() {
    let web = web(vec![SiteSpec::default()]).await;
    let dir = tempfile::tempdir().unwrap();
    let extra = "\n[purposes]\nmanual_checks_per_site_per_day = 2\n";
    let first = fetch_in(dir.path(), extra, web.url(0, "/events/1.html")).await;
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    let second = fetch_in(dir.path(), extra, web.url(0, "/events/2.html")).await;
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    let third = fetch_in(dir.path(), extra, web.url(0, "/events/3.html")).await;
    assert_eq!(third.code, Some(3), "{}\n{}", third.stdout, third.stderr);
    assert!(third.stderr.contains("2 manual checks"), "{}", third.stderr);
    let ledger = web.ledger();
    ledger.expect_all_fetched(&[(0, "/events/1.html"), (0, "/events/2.html")]).unwrap();
    assert_eq!(ledger.count(0, "/events/3.html"), 0, "the third check was not sent");
    assert_eq!(
        ledger.count(0, "/robots.txt"),
        1,
        "robots.txt is remembered in the store between checks"
    );
    ledger.check_min_gap(Duration::from_millis(300)).unwrap();
    web.shutdown().await;
}

/// CIXTRA-Bot's promise, by hand too: under `stop-site` (the default), a site whose
/// `tdmrep.json` reserves its rights is not fetched by `gleaner fetch`; an open site is.
#[tokio::test(flavor = "multi_thread")]
async fn a_site_reserving_its_rights_is_not_fetched_by_hand_either() {
    use gleaner_samplecity::{Refusal, Role};
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = &web.city().unwrap().city;
    let pick = |reserved: bool| {
        let j = city
            .sites()
            .iter()
            .position(|s| {
                s.role == Role::Venue
                    && if reserved {
                        s.refusal == Some(Refusal::TdmReservation)
                    } else {
                        s.refusal.is_none() && s.extras.is_empty()
                    }
            })
            .unwrap();
        (web.city_site(j).unwrap(), city.site(j).lang.listing_path())
    };
    let dir = tempfile::tempdir().unwrap();
    let (open, open_listing) = pick(false);
    let run = fetch_in(dir.path(), "", web.url(open, open_listing)).await;
    assert_eq!(run.code, Some(0), "positive control: {}\n{}", run.stdout, run.stderr);
    let (reserved, listing) = pick(true);
    let run = fetch_in(dir.path(), "", web.url(reserved, listing)).await;
    assert_eq!(run.code, Some(3), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("site stopped on reservation"), "{}", run.stderr);
    let ledger = web.ledger();
    assert!(ledger.fetched(open, open_listing), "the open site's page was fetched");
    assert!(ledger.fetched(reserved, "/.well-known/tdmrep.json"), "its rights file was read");
    assert_eq!(ledger.count(reserved, listing), 0, "the reserved site's page was not");
    ledger.check_robots_first().unwrap();
    web.shutdown().await;
}
