//! The public face through the real binary: `gleaner page`, and `gleaner run` crawling a
//! loopback site whose event title carries a `<script>` tag, then serving it — the API,
//! iCalendar, RSS, metrics from the audit log, "how this event got here" with the
//! robots.txt version, and, in headless Chromium, a page where nothing crawled runs.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{gleaner, temp_file};

#[path = "../../../gleaner-server/tests/it/webdriver.rs"]
mod webdriver;

fn profile(name: &str) -> String {
    format!("{}/../../examples/profiles/{name}.toml", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn page_prints_the_about_page_in_each_language_and_format() {
    let ugy = profile("ugybot");
    let run = gleaner(&["page", "--config", &ugy, "--lang", "tr", "--format", "md"], "");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("# UGYBot hakkında\n"), "{}", run.stdout);
    assert!(run.stdout.contains("UGYBot/1.0 (+https://ugy.app/bot; bot@ugy.app)"));
    let run = gleaner(&["page", "--config", &ugy, "--lang", "de"], "");
    assert_eq!(run.code, Some(0));
    assert!(run.stdout.starts_with("<!doctype html>\n<html lang=\"de\">"));
    assert!(run.stdout.contains("<h1>Über UGYBot</h1>"));
    let run = gleaner(&["page", "--config", &ugy, "--lang", "it"], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("unknown language `it`"), "{}", run.stderr);
    // The numbers come from the file: change one, the page changes.
    let text =
        std::fs::read_to_string(&ugy).unwrap().replace("max_in_flight = 3", "max_in_flight = 2");
    let file = temp_file(text.as_bytes());
    let run = gleaner(&["page", "--config", file.path().to_str().unwrap(), "--lang", "fr"], "");
    assert!(run.stdout.contains("<tr data-key=\"max_in_flight\"><th>Requêtes ouvertes en même temps vers un site</th><td>2</td></tr>"), "{}", run.stdout);
}

/// A loopback site: robots.txt, one listing, one event page.
fn serve_site(start: &str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let start = start.to_owned();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let (status, kind, body) = match path.as_str() {
                "/robots.txt" => ("200 OK", "text/plain", "User-agent: *\nAllow: /\n".to_owned()),
                "/agenda/" => (
                    "200 OK",
                    "text/html; charset=utf-8",
                    "<!doctype html><html><body><h1>Agenda</h1>\
                     <a href=\"/agenda/nuit.html\">Nuit</a></body></html>"
                        .to_owned(),
                ),
                "/agenda/nuit.html" => (
                    "200 OK",
                    "text/html; charset=utf-8",
                    format!(
                        "<!doctype html><html><head><title>x</title>\
                         <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
                         \"@type\":\"MusicEvent\",\"name\":\"<script>window.__xss=1<\\/script>Nuit du jazz & blues <3 \\\"live\\\"\",\
                         \"startDate\":\"{start}\",\"description\":\"<img src=x onerror=window.__xss=2>\",\
                         \"location\":{{\"@type\":\"Place\",\"name\":\"Salle A\",\"address\":\
                         {{\"@type\":\"PostalAddress\",\"addressLocality\":\"Troyes\"}}}}}}</script>\
                         </head><body><h1>Nuit du jazz</h1></body></html>"
                    ),
                ),
                _ => ("404 Not Found", "text/plain", "not found".to_owned()),
            };
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

/// A plain HTTP/1.1 GET on loopback: status code and body.
fn get(addr: &str, path: &str, token: Option<&str>) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let auth = token.map(|t| format!("Authorization: Bearer {t}\r\n")).unwrap_or_default();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n")
        .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let code = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (code, body.to_owned())
}

#[test]
fn run_crawls_a_script_title_and_serves_it_safely() {
    let start = (chrono::Utc::now() + chrono::Duration::days(20))
        .format("%Y-%m-%dT20:00:00+01:00")
        .to_string();
    let port = serve_site(&start);
    let dir = tempfile::tempdir().unwrap();
    let config = format!(
        "[bot]\ntoken = \"PageTestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.test.example/about\"\n\
         contact = \"bot@test.example\"\noperator = \"Test operator\"\n\n\
         [politeness]\ngap = \"100ms\"\nmax_in_flight = 1\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [server]\ndashboard_token_env = \"GLEANER_TEST_OPERATOR_TOKEN\"\n\n\
         [store]\nurl = \"sqlite://{db}\"\n\n\
         [[sources]]\nid = \"salle\"\nkind = \"listing\"\nstart_urls = [\"http://127.0.0.1:{port}/agenda/\"]\n\
         event_url_prefix = \"/agenda/\"\nkeep = \"facts\"\nevery = \"1h\"\ntime_zone = \"Europe/Paris\"\n",
        db = dir.path().join("t.db").display()
    );
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, config).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["run", "--listen", "127.0.0.1:0", "--config"])
        .arg(&config_path)
        .env("GLEANER_TEST_OPERATOR_TOKEN", "op-token")
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
    let addr = loop {
        let line =
            rx.recv_timeout(Duration::from_secs(60)).expect("gleaner run prints its address");
        if let Some(rest) = line.split("serving http://").nth(1) {
            break rest.split('/').next().unwrap().to_owned();
        }
    };
    let stop = |mut child: std::process::Child| {
        let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() {
            if Instant::now() > deadline {
                let _ = child.kill();
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };

    // Wait for the pass to store the event.
    let deadline = Instant::now() + Duration::from_secs(60);
    let events = loop {
        let (code, body) = get(&addr, "/api/events", None);
        assert_eq!(code, 200, "{body}");
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        if json["total"].as_u64().unwrap_or(0) > 0 {
            break json;
        }
        assert!(Instant::now() < deadline, "the event is crawled within a minute");
        std::thread::sleep(Duration::from_millis(300));
    };
    let event = &events["events"][0];
    let id = event["id"].as_i64().unwrap();
    let title = event["title"].as_str().unwrap().to_owned();
    // The extractor strips tags from titles; `<`, `&` and quotes survive to the server.
    assert!(title.contains("Nuit du jazz & blues <3 \"live\""), "{title}");
    assert!(event["description"].is_null(), "keep = \"facts\" drops the description");

    let (code, html) = get(&addr, &format!("/events/{id}"), None);
    assert_eq!(code, 200);
    assert!(!html.contains("<script>window") && !html.contains("<img src=x"));
    // The markup-like text that survives extraction is shown as text.
    assert!(html.contains("Nuit du jazz &amp; blues &lt;3 &quot;live&quot;"), "{html}");
    assert!(html.contains("How this event got here"));
    assert!(
        html.contains(&format!("http://127.0.0.1:{port}/robots.txt")),
        "robots.txt version: {html}"
    );
    let (_, detail) = get(&addr, &format!("/api/events/{id}"), None);
    let detail: serde_json::Value = serde_json::from_str(&detail).unwrap();
    assert!(detail["provenance"][0]["robots_version"].is_string(), "{detail}");

    let (code, ics) = get(&addr, "/events.ics", None);
    assert_eq!(code, 200);
    assert!(ics.contains(&format!("UID:event-{id}@bot.test.example")), "{ics}");
    let (code, rss) = get(&addr, "/events.rss", None);
    assert_eq!(code, 200);
    assert!(rss.contains("Nuit du jazz") && !rss.contains("<script>"));
    let (code, metrics) = get(&addr, "/metrics", None);
    assert_eq!(code, 200);
    assert!(
        metrics.contains("gleaner_requests_total{purpose=\"robots\",status=\"200\"}"),
        "{metrics}"
    );
    assert!(
        metrics.contains("gleaner_requests_total{purpose=\"event-page\",status=\"200\"} 1"),
        "{metrics}"
    );
    assert!(metrics.contains("gleaner_events{visibility=\"published\"} 1"), "{metrics}");
    assert!(metrics.contains("gleaner_queue_depth 0"), "{metrics}");
    let (code, _) = get(&addr, "/api/news", None);
    assert_eq!(code, 401);
    let (code, news) = get(&addr, "/api/news", Some("op-token"));
    assert_eq!(code, 200, "{news}");
    for lang in ["en", "tr", "fr", "es", "de"] {
        let (code, page) = get(&addr, &format!("/bot/{lang}"), None);
        assert_eq!(code, 200);
        assert!(
            page.contains("PageTestBot/1.0 (+https://bot.test.example/about; bot@test.example)")
        );
    }

    if let Some((chromium, chromedriver)) = webdriver::browser_paths() {
        let browser = webdriver::Browser::start(&chromium, &chromedriver);
        browser.open(&format!("http://{addr}/events/{id}"));
        std::thread::sleep(Duration::from_millis(300));
        let seen = browser.script(
            "return [typeof window.__xss, document.querySelector('#title').textContent, \
             document.querySelectorAll('script').length];",
        );
        assert_eq!(seen[0], "undefined", "nothing crawled ran: {seen}");
        assert_eq!(seen[1], title.as_str());
        assert_eq!(seen[2], 0);
        browser.screenshot("crawled-event-view");
        browser.open(&format!("http://{addr}/events"));
        assert_eq!(browser.script("return typeof window.__xss;"), "undefined");
        browser.screenshot("crawled-events-list");
    }
    stop(child);
}
