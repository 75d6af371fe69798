//! `kill -9` in the middle of `gleaner crawl`: the restarted crawl keeps the site's
//! spacing across the kill, honours a Retry-After seen before it, and the store holds
//! every event exactly once. Judged from the test web's ledger and the store.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use gleaner_testweb::{Manifest, RetryAfterForm, SiteBehaviour, SiteSpec, TestWeb};
use url::Url;

#[tokio::test(flavor = "multi_thread")]
async fn sigkill_mid_crawl_loses_nothing_and_forgets_no_pause() {
    let throttle = SiteBehaviour::Throttle {
        status: 503,
        after: 3,
        suspend_for: Duration::from_secs(3),
        retry_after: RetryAfterForm::Seconds,
    };
    let web = TestWeb::start(
        Manifest::new(vec![
            SiteSpec { events: 8, behaviour: throttle, ..SiteSpec::default() },
            SiteSpec { events: 8, ..SiteSpec::default() },
        ])
        .with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let mut config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"300ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n",
        db.display()
    );
    for site in 0..2 {
        config.push_str(&format!(
            "\n[[sources]]\nid = \"site-{site}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
            web.url(site, "/events/")
        ));
    }
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let crawl = move || {
        Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .args(["--config", config_path.to_str().unwrap(), "crawl"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };

    // First run: killed once site 0 has answered 503 (its suspension is then stored).
    let mut first = crawl();
    let started = Instant::now();
    loop {
        if web.ledger().entries.iter().any(|e| e.site == 0 && e.status == 503) {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "site 0 answered 503 within 20 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Let the answer be recorded, then kill without warning.
    tokio::time::sleep(Duration::from_millis(150)).await;
    first.kill().unwrap();
    first.wait().unwrap();
    let killed_at = web.ledger().entries.len();

    // Second run, at once: it must wait out the pause and the gap, then finish.
    let second = tokio::task::spawn_blocking(move || {
        let mut child = crawl();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the second crawl finished within 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .unwrap();
    assert!(second.success(), "{second:?}");

    let ledger = web.ledger();
    assert!(ledger.entries.len() > killed_at, "the second run made requests");
    for site in 0..2 {
        let wanted: Vec<String> = (1..=8).map(|n| format!("/events/{n}.html")).collect();
        ledger
            .expect_all_fetched(&wanted.iter().map(|p| (site, p.as_str())).collect::<Vec<_>>())
            .unwrap();
    }
    ledger.check_min_gap(Duration::from_millis(300)).unwrap();
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    ledger.check_robots_first().unwrap();

    let store = gleaner_store::Store::open_sqlite(&db).unwrap();
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
    let now = SystemTime::now();
    let events = store
        .events_between(
            now - Duration::from_secs(86_400 * 365),
            now + Duration::from_secs(86_400 * 800),
        )
        .await
        .unwrap();
    let mut pages: Vec<String> =
        events.iter().filter_map(|e| e.event.url.as_ref().map(Url::to_string)).collect();
    let stored = pages.len();
    pages.sort();
    pages.dedup();
    assert_eq!(pages.len(), stored, "no event stored twice");
    assert!(stored >= 16, "every event of both sites is stored ({stored})");
    web.shutdown().await;
}

/// Issue 25 item 1: a URL that answered 503 is kept in the store from that answer, so a
/// crawl killed (`kill -9`) while it waits out the pause leaves it there, and the next
/// crawl asks it first once the pause is over (positive control: the other pages).
#[tokio::test(flavor = "multi_thread")]
async fn ledger_a_503_whose_retry_a_kill_9_cut_is_asked_first_by_the_next_crawl() {
    const PAUSE: Duration = Duration::from_secs(3);
    let throttle = SiteBehaviour::Throttle {
        status: 503,
        after: 4,
        suspend_for: PAUSE,
        retry_after: RetryAfterForm::Seconds,
    };
    let web = TestWeb::start(
        Manifest::new(vec![SiteSpec { events: 4, behaviour: throttle, ..SiteSpec::default() }])
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [[sources]]\nid = \"site-0\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
        db.display(),
        web.url(0, "/events/")
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let crawl = move || {
        Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .args(["--config", config_path.to_str().unwrap(), "crawl"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };

    // First run: killed while it waits out the pause the 503 asked for.
    let mut first = crawl();
    let started = Instant::now();
    let asked = loop {
        if let Some(e) = web.ledger().entries.iter().find(|e| e.status == 503) {
            break e.clone();
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the site answered 503 within 20 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    first.kill().unwrap();
    first.wait().unwrap();
    let cut = web.ledger().entries.iter().map(|e| e.seq).max().unwrap();
    assert_eq!(cut, asked.seq, "nothing asked after the 503 before the kill");
    let store = gleaner_store::Store::open_sqlite(&db).unwrap();
    let kept = store.kept_requests("site-0").await.unwrap();
    assert_eq!(kept.iter().map(|k| k.url.path()).collect::<Vec<_>>(), [asked.path.as_str()]);
    drop(store);

    // Second run, at once: it waits out the pause, then asks the kept URL first.
    let second = tokio::task::spawn_blocking(move || {
        let mut child = crawl();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the second crawl finished within 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .unwrap();
    assert!(second.success(), "{second:?}");
    let ledger = web.ledger();
    let pages: Vec<_> = ledger
        .entries
        .iter()
        .filter(|e| e.seq > cut && !e.is_robots() && e.path.starts_with("/events/"))
        .collect();
    assert_eq!(
        pages.first().map(|e| e.target()),
        Some(asked.target()),
        "the kept URL first: {:?}",
        pages.iter().map(|e| e.target()).collect::<Vec<_>>()
    );
    assert!(pages[0].at >= asked.at + PAUSE, "not before the pause ended: {:?}", pages[0]);
    ledger.check_suspensions(Duration::from_secs(60)).unwrap();
    ledger.check_robots_first().unwrap();
    let wanted: Vec<String> = (1..=4).map(|n| format!("/events/{n}.html")).collect();
    ledger.expect_all_fetched(&wanted.iter().map(|p| (0, p.as_str())).collect::<Vec<_>>()).unwrap();
    let store = gleaner_store::Store::open_sqlite(&db).unwrap();
    assert!(store.kept_requests("site-0").await.unwrap().is_empty(), "forgotten once asked");
    web.shutdown().await;
}

/// Issue 25: a paged API killed between its first and second page. The next crawl asks
/// page 0 conditionally (304), goes on with the page 0 led to, and stores its events.
#[tokio::test(flavor = "multi_thread")]
async fn ledger_a_paged_api_killed_between_pages_resumes_after_a_304_on_page_0() {
    use gleaner_samplecity::SeedKind;
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().unwrap();
    let key = city.city.api_key().to_owned();
    let seeds = city.city.seeds(&city.origins);
    let api = seeds.iter().find(|s| s.kind == SeedKind::LicensedApi).unwrap();
    let (api_url, api_site) = (api.url.clone(), api.site);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    // Pages of the API 1.5 s apart, so the kill lands between page 0 and page 1.
    let config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{db}\"\n\n\
         [[sources]]\nid = \"ticketing\"\nkind = \"licensed-api\"\nstart_urls = [\"{api_url}\"]\nkeep = \"full\"\n\
         api_key_env = \"TEST_TICKETING_KEY\"\napi_gap = \"1500ms\"\npage_param = \"page\"\ntotal_pages = \"/page/totalPages\"\n\
         [sources.api]\nevents = \"/_embedded/events\"\nid = \"/id\"\ntitle = \"/name\"\nurl = \"/url\"\n\
         start = \"/dates/start/dateTime\"\nvenue = \"/_embedded/venues/0\"\nvenue_name = \"/name\"\nlocality = \"/city/name\"\n",
        db = db.display()
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let crawl = move || {
        Command::new(env!("CARGO_BIN_EXE_gleaner"))
            .args(["--config", config_path.to_str().unwrap(), "crawl"])
            .env("TEST_TICKETING_KEY", &key)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let page_of = |e: &gleaner_testweb::LedgerEntry| {
        e.query.as_deref().and_then(|q| {
            q.split('&').find_map(|kv| kv.strip_prefix("page=")).and_then(|n| n.parse::<u32>().ok())
        })
    };

    let mut first = crawl();
    let started = Instant::now();
    while !web.ledger().site(api_site).any(|e| page_of(e) == Some(0) && e.status == 200) {
        assert!(started.elapsed() < Duration::from_secs(20), "page 0 answered within 20 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Its events and validators are stored well within the API's gap; then kill -9.
    tokio::time::sleep(Duration::from_millis(500)).await;
    first.kill().unwrap();
    first.wait().unwrap();
    let before: Vec<_> = web.ledger().site(api_site).filter_map(page_of).collect();
    assert_eq!(before, [0], "killed between page 0 and page 1");
    let killed_at = web.ledger().entries.len();

    let second = tokio::task::spawn_blocking(move || {
        let mut child = crawl();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the second crawl finished within 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    })
    .await
    .unwrap();
    assert!(second.success(), "{second:?}");
    let ledger = web.ledger();
    let after: Vec<_> = ledger.entries[killed_at..].iter().filter(|e| e.site == api_site).collect();
    let first_again = after.first().expect("the second crawl asked the API");
    assert_eq!(page_of(first_again), Some(0));
    assert!(first_again.is_conditional(), "page 0 asked conditionally: {first_again:?}");
    assert_eq!(first_again.status, 304, "{first_again:?}");
    let page_1 = after.iter().find(|e| page_of(e) == Some(1)).expect("page 1 asked after the 304");
    assert_eq!(page_1.status, 200, "{page_1:?}");

    let store = gleaner_store::Store::open_sqlite(&db).unwrap();
    let now = SystemTime::now();
    let events = store
        .events_between(
            now - Duration::from_secs(86_400 * 365),
            now + Duration::from_secs(86_400 * 800),
        )
        .await
        .unwrap();
    assert!(
        events.len() > gleaner_samplecity::api::API_PAGE_SIZE,
        "the events of page 1 are stored too: {} events",
        events.len()
    );
    web.shutdown().await;
}
