//! `gleaner demo` smoke test: it crawls the sample city, serves `/bot` and
//! `/api/events`, and stops cleanly on SIGINT. Bounded in time; loopback only.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A plain HTTP/1.1 GET on loopback, returning status line and body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut stream = TcpStream::connect(addr).expect("the demo server accepts connections");
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    (head.lines().next().unwrap_or("").to_owned(), body.to_owned())
}

#[test]
fn demo_crawls_serves_and_stops_on_sigint() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["demo", "--listen", "127.0.0.1:0", "--gap", "150ms", "--dir"])
        .arg(dir.path().join("demo"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let started = Instant::now();
    let mut lines = Vec::new();
    let events_url = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the demo prints its URLs within two minutes");
        lines.push(line.clone());
        if let Some(url) = line.strip_prefix("events:") {
            break url.trim().to_owned();
        }
    };
    assert!(started.elapsed() < Duration::from_secs(120));
    let addr = events_url.trim_start_matches("http://").split('/').next().unwrap().to_owned();
    let summary = lines.join("\n");
    assert!(summary.contains("izmir-sanat"), "the summary lists the sources:\n{summary}");
    assert!(
        summary.contains("disallowed by robots.txt"),
        "a venue that says no is respected:\n{summary}"
    );

    let (status, about) = get(&addr, "/bot");
    assert!(status.contains("200"), "{status}");
    assert!(about.contains("gleaner/"), "the about page shows the User-Agent");
    // Every request was signed: the demo publishes its key directory on its own host.
    let (status, directory) = get(&addr, "/.well-known/http-message-signatures-directory");
    assert!(status.contains("200"), "{status}");
    let jwks: serde_json::Value = serde_json::from_str(directory.trim()).unwrap();
    assert_eq!(jwks["keys"][0]["crv"], "Ed25519", "{jwks}");
    let (status, events) = get(&addr, "/api/events");
    assert!(status.contains("200"), "{status}");
    let json: serde_json::Value =
        serde_json::from_str(events.trim()).expect("the events API answers JSON");
    let events = json["events"].as_array().expect("an events array");
    assert!(events.len() >= 30, "the demo found events: {}", events.len());
    assert!(
        events
            .iter()
            .all(|e| e["source_url"].as_str().is_some_and(|u| u.starts_with("http://127.0.60.")))
    );

    // Issue 26 item 5: the ticketing API's event addresses carry the caller's key; no
    // public route shows it.
    for route in ["/events", "/events.rss", "/events.ics", "/api/events"] {
        let (status, body) = get(&addr, route);
        assert!(status.contains("200"), "{route}: {status}");
        assert!(
            !body.contains(gleaner_samplecity::DEFAULT_API_KEY),
            "{route} publishes the licensed API's key"
        );
    }

    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the demo stops within 20 s of SIGINT");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{status:?}");
}
