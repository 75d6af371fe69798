//! `gleaner crawl` and `gleaner explain` through the real binary against the loopback
//! test web: robots.txt first, spacing, events stored, a second pass conditional, and a
//! suspension remembered across processes.

use std::time::Duration;

use gleaner_testweb::{Manifest, RetryAfterForm, SiteBehaviour, SiteSpec, TestWeb};

use crate::util::{Run, gleaner};

fn config(web: &TestWeb, db: &std::path::Path, sites: usize) -> String {
    let mut text = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n",
        db.display()
    );
    for site in 0..sites {
        text.push_str(&format!(
            "\n[[sources]]\nid = \"site-{site}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
            web.url(site, "/events/")
        ));
    }
    text
}

async fn run_gleaner(args: Vec<String>) -> Run {
    let task = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gleaner(&args, "")
    });
    tokio::time::timeout(Duration::from_secs(60), task).await.expect("bounded").unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn crawl_stores_events_politely_and_the_second_pass_is_conditional() {
    let web = TestWeb::start(
        Manifest::uniform(2, SiteSpec { events: 5, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config(&web, &dir.path().join("g.db"), 2)).unwrap();
    let config = config_path.to_str().unwrap().to_owned();

    let first = run_gleaner(vec!["--config".into(), config.clone(), "crawl".into()]).await;
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    assert!(first.stdout.contains("site-0") && first.stdout.contains("site-1"), "{}", first.stdout);
    let ledger = web.ledger();
    for site in 0..2 {
        let wanted: Vec<String> = (1..=5).map(|n| format!("/events/{n}.html")).collect();
        ledger
            .expect_all_fetched(&wanted.iter().map(|p| (site, p.as_str())).collect::<Vec<_>>())
            .unwrap();
    }
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(100)).unwrap();
    ledger.check_disallowed().unwrap();

    web.clear_ledger();
    let second = run_gleaner(vec![
        "--config".into(),
        config.clone(),
        "crawl".into(),
        "--source".into(),
        "site-0".into(),
    ])
    .await;
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/events/1.html").unwrap();
    assert_eq!(ledger.site(1).count(), 0, "only the chosen source was crawled");
    assert_eq!(ledger.count(0, "/robots.txt"), 0, "robots.txt is still fresh in the store");
    let event_pages: Vec<_> = ledger
        .site(0)
        .filter(|e| e.path.starts_with("/events/") && e.path.ends_with(".html"))
        .collect();
    assert!(
        !event_pages.is_empty() && event_pages.iter().all(|e| e.is_conditional()),
        "event pages refetched conditionally"
    );
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_suspension_seen_by_one_process_is_explained_and_honoured_by_the_next() {
    let throttle = SiteBehaviour::Throttle {
        status: 429,
        after: 1,
        suspend_for: Duration::from_secs(120),
        retry_after: RetryAfterForm::Seconds,
    };
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: 4, behaviour: throttle, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config_path = dir.path().join("gleaner.toml");
    let text = config(&web, &dir.path().join("g.db"), 1)
        .replace("[politeness]\n", "[politeness]\nrun_time_limit = \"5s\"\n");
    std::fs::write(&config_path, text).unwrap();
    let config = config_path.to_str().unwrap().to_owned();

    let first = run_gleaner(vec!["--config".into(), config.clone(), "crawl".into()]).await;
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    let ledger = web.ledger();
    assert!(ledger.entries.iter().any(|e| e.status == 429), "the site answered 429");
    let explain = run_gleaner(vec![
        "--config".into(),
        config.clone(),
        "explain".into(),
        web.url(0, "/events/4.html"),
    ])
    .await;
    assert_eq!(explain.code, Some(0), "{}", explain.stderr);
    assert!(explain.stdout.starts_with("not now: not before"), "{}", explain.stdout);
    assert!(explain.stdout.contains("429"), "{}", explain.stdout);

    let before = web.ledger().entries.len();
    let second = run_gleaner(vec!["--config".into(), config, "crawl".into()]).await;
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    assert_eq!(
        web.ledger().entries.len(),
        before,
        "the new process sent nothing during the suspension"
    );
    assert!(second.stdout.contains("site-0"), "{}", second.stdout);
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn terms_pages_are_archived_through_the_gate_when_they_change() {
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: 2, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let text =
        config(&web, &db, 1) + &format!("terms_url = \"{}\"\n", web.url(0, "/changing.html"));
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, text).unwrap();
    let config = config_path.to_str().unwrap().to_owned();
    let first = run_gleaner(vec!["--config".into(), config.clone(), "crawl".into()]).await;
    assert_eq!(first.code, Some(0), "{}\n{}", first.stdout, first.stderr);
    web.advance_pass();
    let second = run_gleaner(vec!["--config".into(), config, "crawl".into()]).await;
    assert_eq!(second.code, Some(0), "{}\n{}", second.stdout, second.stderr);
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/changing.html"), 2, "read once per pass");
    ledger.check_robots_first().unwrap();
    let store = gleaner_store::Store::open_sqlite(&db).unwrap();
    let scope =
        gleaner_store::parse_scope(url::Url::parse(&web.url(0, "/")).unwrap().host_str().unwrap())
            .unwrap();
    let versions = store.archive_history(&scope, gleaner_store::DocumentKind::Terms).await.unwrap();
    assert_eq!(versions.len(), 2, "the page changed between passes: two dated versions");
    web.shutdown().await;
}
