//! The owners' forms and the operator dashboard through the real `gleaner run`: the
//! dashboard refuses to start without a token (and starts with one); an opt-out sent
//! through the public form stops the next pass's requests to the site, after a first
//! pass made them (positive control), and a "run now" from the dashboard starts that
//! next pass.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

const TOKEN_ENV: &str = "GLEANER_TEST_OWNERS_DASHBOARD_TOKEN";
const TOKEN: &str = "dashboard-token-0123456789abcdef";

/// A loopback site (robots.txt, a listing, an event page) counting every request.
fn site() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
            let body = match path.as_str() {
                "/robots.txt" => "User-agent: *\nAllow: /\n".to_owned(),
                "/agenda/" => "<!doctype html><html><body><a href=\"/agenda/a.html\">A</a></body></html>".to_owned(),
                _ => "<!doctype html><html><head><script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Event\",\"name\":\"Bal\",\"startDate\":\"2031-05-01T20:00:00+02:00\",\"location\":{\"@type\":\"Place\",\"name\":\"Salle\"}}</script></head><body>Bal</body></html>".to_owned(),
            };
            let kind =
                if path == "/robots.txt" { "text/plain" } else { "text/html; charset=utf-8" };
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, hits)
}

fn config(dir: &std::path::Path, port: u16) -> std::path::PathBuf {
    let text = format!(
        "[bot]\ntoken = \"DeskTestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.test.example/about\"\n\
         contact = \"bot@test.example\"\noperator = \"Test operator\"\n\n\
         [politeness]\ngap = \"100ms\"\nmax_in_flight = 1\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [server]\ndashboard_address = \"127.0.0.1:0\"\ndashboard_token_env = \"{TOKEN_ENV}\"\n\n\
         [dashboard]\nenabled = true\n\n\
         [store]\nurl = \"sqlite://{db}\"\n\n\
         [[sources]]\nid = \"salle\"\nkind = \"listing\"\nstart_urls = [\"http://127.0.0.1:{port}/agenda/\"]\n\
         event_url_prefix = \"/agenda/\"\nkeep = \"facts\"\nevery = \"1h\"\n",
        db = dir.join("t.db").display()
    );
    let path = dir.join("gleaner.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// An HTTP/1.1 exchange: status, the `Set-Cookie` values, body.
fn http(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<String>, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap_or((&response, ""));
    let code = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let cookies = head
        .lines()
        .filter_map(|l| l.strip_prefix("set-cookie: ").or_else(|| l.strip_prefix("Set-Cookie: ")))
        .map(|v| v.split(';').next().unwrap_or_default().to_owned())
        .collect();
    (code, cookies, body.to_owned())
}

fn csrf(html: &str) -> String {
    let at = html.find("name=\"csrf\" value=\"").expect("a form token") + 19;
    html[at..].split('"').next().unwrap().to_owned()
}

fn start(config: &std::path::Path, token: Option<&str>) -> (Child, mpsc::Receiver<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gleaner"));
    command.args(["run", "--listen", "127.0.0.1:0", "--config"]).arg(config);
    command.env_remove(TOKEN_ENV);
    if let Some(token) = token {
        command.env(TOKEN_ENV, token);
    }
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (child, rx)
}

/// Reads lines (at most `secs` seconds) until one contains `needle`; returns it.
fn line_with(rx: &mpsc::Receiver<String>, needle: &str, secs: u64) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let line = rx
            .recv_timeout(left)
            .unwrap_or_else(|_| panic!("no line with `{needle}` within {secs} s"));
        if line.contains(needle) {
            return line;
        }
    }
}

fn address(line: &str) -> String {
    line.split("http://").nth(1).unwrap().split('/').next().unwrap().to_owned()
}

fn stop(mut child: Child) {
    let _ = Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn run_refuses_a_dashboard_without_a_token_and_starts_it_with_one() {
    let dir = tempfile::tempdir().unwrap();
    let (port, _) = site();
    let config = config(dir.path(), port);
    let (mut child, rx) = start(&config, None);
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "gleaner run should have stopped");
        std::thread::sleep(Duration::from_millis(50));
    };
    let stderr: Vec<String> = rx.try_iter().collect();
    assert_eq!(status.code(), Some(2), "{stderr:?}");
    let text = stderr.join("\n");
    assert!(text.contains("the dashboard needs an operator token"), "{text}");
    assert!(text.contains(TOKEN_ENV), "says which variable to set: {text}");

    // Positive control: with the token, the dashboard answers on loopback.
    let (child, rx) = start(&config, Some(TOKEN));
    let dashboard = address(&line_with(&rx, "operator dashboard on", 60));
    assert!(dashboard.starts_with("127.0.0.1:"), "{dashboard}");
    let (code, _, body) = http(&dashboard, "GET", "/login", &[], "");
    assert_eq!(code, 200);
    assert!(body.contains("Operator token"));
    let (code, _, _) = http(&dashboard, "GET", "/", &[], "");
    assert_eq!(code, 303, "signed out: sent to the login page");
    stop(child);
}

#[test]
fn an_opt_out_through_the_form_stops_the_next_pass_started_from_the_dashboard() {
    let dir = tempfile::tempdir().unwrap();
    let (port, hits) = site();
    let config = config(dir.path(), port);
    let (child, rx) = start(&config, Some(TOKEN));
    let public = address(&line_with(&rx, "serving http://", 60));
    let dashboard = address(&line_with(&rx, "operator dashboard on", 60));
    line_with(&rx, "gleaner: source `salle`:", 120);
    let before = hits.load(Ordering::SeqCst);
    assert!(before >= 3, "the first pass read robots.txt, the listing and the event: {before}");

    // The owner opts out through the public form.
    let (code, cookies, page) = http(&public, "GET", "/owners", &[], "");
    assert_eq!(code, 200);
    let cookie = cookies.join("; ");
    let form = format!("csrf={}&scope=127.0.0.1", csrf(&page));
    let (code, _, receipt) = http(
        &public,
        "POST",
        "/owners/opt-out",
        &[("Cookie", &cookie), ("Content-Type", "application/x-www-form-urlencoded")],
        &form,
    );
    assert_eq!(code, 200, "{receipt}");
    // Issue 26: applied at once (the next pass sends nothing), unverified until proven.
    assert!(receipt.contains("<td id=\"status\">unverified</td>"), "{receipt}");

    // The operator asks for a pass now.
    let bearer = format!("Bearer {TOKEN}");
    let (code, cookies, page) = http(&dashboard, "GET", "/", &[("Authorization", &bearer)], "");
    assert_eq!(code, 200, "{page}");
    let cookie = if cookies.is_empty() { cookie } else { cookies.join("; ") };
    let form = format!("csrf={}", csrf(&page));
    let (code, _, _) = http(
        &dashboard,
        "POST",
        "/sources/salle/run",
        &[
            ("Authorization", &bearer),
            ("Cookie", &cookie),
            ("Content-Type", "application/x-www-form-urlencoded"),
        ],
        &form,
    );
    assert_eq!(code, 303);
    // "Run now" rings the scheduler, which otherwise looks again once a minute: the
    // requested pass runs well within that, and sends nothing.
    let report = line_with(&rx, "gleaner: source `salle`:", 30);
    assert!(report.contains("refused"), "{report}");
    assert_eq!(hits.load(Ordering::SeqCst), before, "no request after the opt-out: {report}");
    stop(child);
}
