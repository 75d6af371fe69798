//! The image relay end to end through the real binary: `gleaner run` crawls a venue of
//! the sample city whose source records `press_image_terms = "relay"`, the events API
//! shows relay addresses instead of the venue's image addresses, `/relay/{id}` answers
//! with sniffed images and `nosniff`, the venue sees one request per cacheable image
//! however many visitors come, and `gleaner takedown` stops delivery at once with no
//! further request to the venue. Bounded in time; loopback only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gleaner_samplecity::{Markup, Role};
use gleaner_testweb::{Manifest, TestWeb};

use crate::util::gleaner;

/// One GET: (status, lower-case head, body).
fn get(addr: &str, path: &str) -> (u16, String, Vec<u8>) {
    let Ok(mut stream) = TcpStream::connect(addr) else { return (0, String::new(), Vec::new()) };
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap_or(raw.len());
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = raw.get(split + 4..).unwrap_or_default().to_vec();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head, body)
}

/// The relay ids the events API shows.
fn relay_ids(addr: &str) -> Vec<String> {
    let (_, _, body) = get(addr, "/api/events");
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let mut ids: Vec<String> = json["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["image_url"].as_str())
        .filter_map(|u| u.strip_prefix("https://bot.example/relay/"))
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn relay_end_to_end_one_request_per_image_and_takedown_stops_it() {
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("RelayBot")).await.unwrap();
    let city = &web.city().unwrap().city;
    let j = city
        .sites()
        .iter()
        .position(|s| {
            s.role == Role::Venue
                && s.refusal.is_none()
                && s.extras.is_empty()
                && s.markup == Markup::JsonLd
        })
        .unwrap();
    let venue = web.city_site(j).unwrap();
    let listing = city.site(j).lang.listing_path();
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[bot]\ntoken = \"RelayBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"100ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [server]\naddress = \"127.0.0.1:0\"\n\n\
         [purposes]\nenabled = [\"robots\", \"listing\", \"event-page\", \"image-relay\", \"rights-signal\"]\n\n\
         [[sources]]\nid = \"venue\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{listing}\"\n\
         keep = \"full\"\nmax_event_pages = 4\npress_image_terms = \"relay\"\n",
        dir.path().join("g.db").display(),
        web.url(venue, listing)
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let config_arg = config_path.to_str().unwrap().to_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["--config", &config_arg, "run"])
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

    // The API shows relay addresses (positive control: events with images were kept).
    let started = Instant::now();
    let ids = loop {
        let a = addr.clone();
        let ids = tokio::task::spawn_blocking(move || relay_ids(&a)).await.unwrap();
        if ids.len() >= 2 || started.elapsed() > Duration::from_secs(40) {
            break ids;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    };
    assert!(ids.len() >= 2, "relay addresses in the events API: {ids:?}");
    assert!(ids.iter().all(|id| id.len() == 32), "opaque ids: {ids:?}");

    // Three visitors per image.
    let a = addr.clone();
    let ids2 = ids.clone();
    let answers = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        for _ in 0..3 {
            for id in &ids2 {
                out.push(get(&a, &format!("/relay/{id}")));
            }
        }
        out
    })
    .await
    .unwrap();
    for (status, head, body) in &answers {
        assert_eq!(*status, 200, "{head}");
        assert!(
            head.contains("content-type: image/jpeg") || head.contains("content-type: image/png"),
            "{head}"
        );
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(!head.contains("set-cookie"), "{head}");
        assert!(body.starts_with(&[0xFF, 0xD8, 0xFF]) || body.starts_with(b"\x89PNG"));
    }
    let ledger = web.ledger();
    let images: Vec<_> = ledger.site(venue).filter(|e| e.path.starts_with("/img/")).collect();
    assert!(!images.is_empty(), "positive control: the venue was asked for its images");
    for e in &images {
        assert_eq!(e.referer, None);
        assert_eq!(e.cookie, None);
    }
    for path in images.iter().map(|e| e.path.clone()).collect::<std::collections::BTreeSet<_>>() {
        let n: u32 = path
            .trim_start_matches("/img/poster-")
            .split('.')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap();
        let count = images.iter().filter(|e| e.path == path).count();
        if n.is_multiple_of(3) {
            assert_eq!(count, 1, "{path} (max-age=3600): one request for three visitors");
        } else {
            assert_eq!(count, 3, "{path} (no-store or private): nothing kept, one per visitor");
        }
    }
    ledger.check_max_in_flight(1).unwrap();

    // A takedown through the binary, by relay address.
    let target = &ids[0];
    let run = gleaner(
        &[
            "--config",
            &config_arg,
            "takedown",
            &format!("https://bot.example/relay/{target}"),
            "--reason",
            "owner asked",
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("taken down: http://"), "{}", run.stdout);
    let a = addr.clone();
    let t = target.clone();
    let after = tokio::task::spawn_blocking(move || {
        (0..3).map(|_| get(&a, &format!("/relay/{t}")).0).collect::<Vec<_>>()
    })
    .await
    .unwrap();
    assert_eq!(after, vec![404, 404, 404], "delivery stops at once");
    let (status, _, _) = get(&addr, &format!("/relay/{}", ids[1]));
    assert_eq!(status, 200, "positive control: another image still relayed");
    let taken: url::Url =
        run.stdout.lines().find_map(|l| l.strip_prefix("taken down: ")).unwrap().parse().unwrap();
    let asked = |ledger: &gleaner_testweb::Ledger| {
        ledger.site(venue).filter(|e| e.path == taken.path()).count()
    };
    assert!(asked(&ledger) >= 1, "positive control: it was fetched before the takedown");
    assert_eq!(asked(&web.ledger()), asked(&ledger), "no request for it after the takedown");
    // `gleaner explain` says which signal and which record decide.
    let explain = gleaner(
        &["--config", &config_arg, "explain", taken.as_str(), "--purpose", "image-relay"],
        "",
    );
    assert!(explain.stdout.contains("rights: tdmrep.json present"), "{}", explain.stdout);
    assert!(
        explain.stdout.contains("not relayed") && explain.stdout.contains("owner asked"),
        "{}",
        explain.stdout
    );
    let list = gleaner(&["--config", &config_arg, "takedown", "--list"], "");
    assert!(list.stdout.contains("owner asked"), "{}", list.stdout);
    let bad = gleaner(&["--config", &config_arg, "takedown", "not a url"], "");
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);

    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "gleaner run stops within 15 s of SIGTERM");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    web.shutdown().await;
}
