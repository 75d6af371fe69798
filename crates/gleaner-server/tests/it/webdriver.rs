//! A small WebDriver client for headless Chromium: chromedriver's HTTP API spoken over
//! a loopback socket (a few JSON calls; no WebDriver crate). Shared by the server's and
//! the CLI's browser tests (the CLI includes this file by path).
//!
//! Chromium and chromedriver are found through `GLEANER_CHROMIUM` / `GLEANER_CHROMEDRIVER`,
//! else `chromium` / `chromedriver` on the PATH. When they are missing, [`browser_paths`]
//! panics under `CI=true` (browser tests are never skipped silently in CI) and otherwise
//! prints a loud notice and returns `None`, so the test passes.
#![allow(dead_code)] // Each including test binary uses its own subset.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn find(env: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env).map(PathBuf::from) {
        return path.is_file().then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
}

/// Chromium and chromedriver, or `None` after the notice (locally) or a panic (CI).
pub fn browser_paths() -> Option<(PathBuf, PathBuf)> {
    let chromium = find("GLEANER_CHROMIUM", &["chromium", "chromium-browser", "google-chrome"]);
    let driver = find("GLEANER_CHROMEDRIVER", &["chromedriver"]);
    match (chromium, driver) {
        (Some(c), Some(d)) => Some((c, d)),
        _ => {
            let message = "browser tests need Chromium and chromedriver: install the Debian packages \
                           `chromium` and `chromium-driver` (.ci/run does), or set GLEANER_CHROMIUM \
                           and GLEANER_CHROMEDRIVER";
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{message}");
            }
            #[allow(clippy::print_stderr)] // The notice must be seen when the test is skipped.
            {
                eprintln!(
                    "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\
                     !!! SKIPPED: {message}\n\
                     !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
                );
            }
            None
        }
    }
}

/// Where screenshots go: `$CARGO_TARGET_DIR/browser-artifacts`, else the workspace's
/// `target/browser-artifacts`.
pub fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("browser-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One HTTP/1.1 exchange with chromedriver on loopback.
fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&Value>) -> Value {
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    // chromedriver may keep the connection open: read the head, then the body by its
    // Content-Length (or chunks).
    let mut raw = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let split = loop {
        if let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break split;
        }
        let n = stream.read(&mut buf).unwrap();
        assert!(n > 0, "chromedriver closed the connection early");
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse::<usize>().ok());
    let chunked = head.contains("transfer-encoding: chunked");
    loop {
        let body = &raw[split + 4..];
        let done = match length {
            Some(length) => body.len() >= length,
            None if chunked => body.windows(5).any(|w| w == b"0\r\n\r\n"),
            None => false,
        };
        if done {
            break;
        }
        let n = stream.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        raw.extend_from_slice(&buf[..n]);
    }
    let mut payload = raw[split + 4..].to_vec();
    if chunked {
        payload = dechunk(&payload);
    }
    serde_json::from_slice(&payload).unwrap_or(Value::Null)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
    out
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let clean: Vec<u8> = text.bytes().filter(|c| !matches!(c, b'=' | b'\n' | b'\r')).collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|c| u32::from(value(*c))).collect();
        let n = v.iter().enumerate().fold(0u32, |acc, (i, x)| acc | (x << (18 - 6 * i)));
        out.push((n >> 16) as u8);
        if v.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if v.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

/// Kills chromedriver when starting the session fails.
struct KillOnDrop(Option<Child>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A chromedriver process and one session; both end on drop.
pub struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    pub fn start(chromium: &Path, chromedriver: &Path) -> Browser {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let mut driver = KillOnDrop(Some(driver));
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(addr).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        let args = [
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--window-size=1100,1400".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
        ];
        let capabilities = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": { "binary": chromium.to_string_lossy(), "args": args },
            }}
        });
        let created = http(addr, "POST", "/session", Some(&capabilities));
        let session = created["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver refused the session: {created}"))
            .to_owned();
        let driver = driver.0.take().expect("the driver");
        Browser { driver, addr, session, _profile: profile }
    }

    pub fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        let answer = http(self.addr, method, &path, body.as_ref());
        assert!(
            answer["value"].get("error").is_none(),
            "WebDriver {method} {path} failed: {answer}"
        );
        answer["value"].clone()
    }

    pub fn open(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    pub fn script(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", Some(json!({ "script": script, "args": [] })))
    }

    pub fn screenshot(&self, name: &str) -> PathBuf {
        let data = self.call("GET", "/screenshot", None);
        let png = base64_decode(data.as_str().unwrap());
        assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
        let path = artifacts().join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(self.addr, "DELETE", &format!("/session/{}", self.session), None);
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
