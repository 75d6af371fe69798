//! `gleaner run`: the daemon crawls its sources on schedule, serves what it found, and
//! stops cleanly on SIGTERM. Bounded in time; loopback only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gleaner_testweb::{Manifest, SiteSpec, TestWeb};

fn get(addr: &str, path: &str) -> String {
    let Ok(mut stream) = TcpStream::connect(addr) else { return String::new() };
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn run_crawls_on_schedule_serves_and_stops_on_sigterm() {
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: 3, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [server]\naddress = \"127.0.0.1:0\"\n\n\
         [[sources]]\nid = \"site-0\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
        dir.path().join("g.db").display(),
        web.url(0, "/events/")
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["--config", config_path.to_str().unwrap(), "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let addr = tokio::task::spawn_blocking(move || {
        loop {
            let line =
                rx.recv_timeout(Duration::from_secs(30)).expect("gleaner run says where it serves");
            if let Some(rest) = line.strip_prefix("gleaner: serving http://") {
                break rest.split('/').next().unwrap().to_owned();
            }
        }
    })
    .await
    .unwrap();
    let started = Instant::now();
    let events = loop {
        let body = tokio::task::spawn_blocking({
            let addr = addr.clone();
            move || get(&addr, "/api/events")
        })
        .await
        .unwrap();
        let count = serde_json::from_str::<serde_json::Value>(body.trim())
            .ok()
            .and_then(|v| v["events"].as_array().map(Vec::len))
            .unwrap_or(0);
        if count >= 3 || started.elapsed() > Duration::from_secs(30) {
            break count;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(events >= 3, "the daemon crawled and served the events ({events})");
    let ledger = web.ledger();
    ledger.expect_fetched(0, "/events/3.html").unwrap();
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(100)).unwrap();
    assert!(get(&addr, "/healthz").starts_with("ok"));

    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "gleaner run stops within 15 s of SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(status.success(), "{status:?}");
    web.shutdown().await;
}

/// The store-backed sink hands the stored events to the checks: after a crawl, the
/// daemon's first cancellation check asks each stored event's page again and marks the
/// events whose pages now answer 404 or 410 gone at source. (With no stored events
/// reaching it, the check asked nothing and marked nothing.)
#[tokio::test(flavor = "multi_thread")]
async fn run_cancellation_check_reads_the_stored_events_and_marks_vanished_pages() {
    // The daemon reads the real clock: the site's events fall on the 28 days from
    // tomorrow, so all ten are upcoming, and in the check's window, whenever this runs.
    let tomorrow = chrono::Utc::now().date_naive() + chrono::Days::new(1);
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: 10, ..SiteSpec::default() })
            .with_token("TestBot")
            .with_events_from(tomorrow),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [server]\naddress = \"127.0.0.1:0\"\n\n[checks]\nhorizon = \"31d\"\n\n\
         [[sources]]\nid = \"site-0\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
        dir.path().join("g.db").display(),
        web.url(0, "/events/")
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let config = config_path.to_str().unwrap().to_owned();
    let crawl = tokio::task::spawn_blocking({
        let config = config.clone();
        move || crate::util::gleaner(&["--config", &config, "crawl"], "")
    });
    let crawl =
        tokio::time::timeout(Duration::from_secs(60), crawl).await.expect("bounded").unwrap();
    assert_eq!(crawl.code, Some(0), "{}\n{}", crawl.stdout, crawl.stderr);
    web.ledger().expect_fetched(0, "/events/4.html").unwrap();

    // Pass 1: pages 3 and 8 answer 404, 4 and 9 answer 410, and the listing no longer
    // links them, so only the check can find out.
    web.advance_pass();
    web.clear_ledger();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["--config", &config, "run"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = tokio::task::spawn_blocking(move || {
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let Ok(line) = rx.recv_timeout(Duration::from_secs(1)) else { continue };
            if line.starts_with("gleaner: cancellation-check:") {
                return Some(line);
            }
        }
        None
    })
    .await
    .unwrap();
    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "gleaner run stops within 15 s of SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let line = line.expect("the daemon ran a cancellation check within 60 s");
    let count = |what: &str| -> u32 {
        let before = line.split(what).next().unwrap();
        before.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or(0)
    };
    assert_eq!(count(" events,"), 10, "the check saw every stored event: {line}");
    assert_eq!(count(" gone at source,"), 4, "the vanished pages are marked: {line}");
    let ledger = web.ledger();
    for n in [3, 4, 8, 9] {
        ledger.expect_fetched(0, &format!("/events/{n}.html")).unwrap();
    }
    // robots.txt is still fresh in the store from the crawl, so it is not asked again.
    ledger.check_disallowed().unwrap();
    ledger.check_min_gap(Duration::from_millis(100)).unwrap();
    web.shutdown().await;
}
