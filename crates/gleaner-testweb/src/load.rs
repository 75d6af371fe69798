//! A small HTTP/1.1 load generator, for measuring how fast the test web answers.
//!
//! It opens keep-alive connections spread over the sites (connection `j` talks to site
//! `j % sites`), sends one request at a time on each and counts complete responses. The
//! throughput bench runs it in a second process (`gleaner-testweb load`) so that the
//! server's figure is not flattered by sharing a runtime with its client. It only ever
//! connects to the loopback addresses of [`crate::site_ip`].

use std::io;
use std::net::{SocketAddr, SocketAddrV4};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::server::site_ip;

/// What to throw at the web.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadConfig {
    /// The web's port (all sites share it).
    pub port: u16,
    /// Number of sites, counted from site 0.
    pub sites: usize,
    /// Keep-alive connections, spread round-robin over the sites.
    pub connections: usize,
    /// How long to send requests.
    pub duration: Duration,
    /// The path every request asks for.
    pub path: String,
}

/// What the load generator measured.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoadReport {
    /// Complete responses received.
    pub requests: u64,
    /// Connections that failed (connect, read, write or parse errors).
    pub errors: u64,
    /// Time from the start of sending to the end of the run.
    pub elapsed: Duration,
}

impl LoadReport {
    /// Responses per second.
    pub fn per_second(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Runs the load described by `cfg` from this process and reports what it saw.
pub async fn run_load(cfg: &LoadConfig) -> LoadReport {
    let done = Arc::new(AtomicBool::new(false));
    let count = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for j in 0..cfg.connections {
        let addr = SocketAddr::V4(SocketAddrV4::new(site_ip(j % cfg.sites.max(1)), cfg.port));
        let request = format!(
            "GET {} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: gleaner-testweb-load/0.1\r\n\r\n",
            cfg.path
        );
        let (done, count, errors) = (Arc::clone(&done), Arc::clone(&count), Arc::clone(&errors));
        tasks.spawn(async move {
            if one_connection(addr, request.as_bytes(), &done, &count).await.is_err() {
                errors.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
    tokio::time::sleep(cfg.duration).await;
    done.store(true, Ordering::SeqCst);
    let elapsed = start.elapsed();
    let requests = count.load(Ordering::SeqCst);
    // Stragglers finish their current request; give them a moment, then drop them.
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    LoadReport { requests, errors: errors.load(Ordering::SeqCst), elapsed }
}

async fn one_connection(
    addr: SocketAddr,
    request: &[u8],
    done: &AtomicBool,
    count: &AtomicU64,
) -> io::Result<()> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let mut buf = Vec::with_capacity(4096);
    while !done.load(Ordering::Relaxed) {
        stream.write_all(request).await?;
        read_response(&mut stream, &mut buf).await?;
        count.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

/// Reads one response with a `Content-Length` body; `buf` keeps any bytes past it.
async fn read_response(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    loop {
        if let Some(head_end) = find(buf, b"\r\n\r\n") {
            let head = std::str::from_utf8(&buf[..head_end])
                .map_err(|_| io::Error::other("response head is not UTF-8"))?;
            let len = head
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.trim().parse::<usize>().ok())
                .ok_or_else(|| io::Error::other("response without Content-Length"))?;
            let total = head_end + 4 + len;
            while buf.len() < total {
                fill(stream, buf).await?;
            }
            buf.drain(..total);
            return Ok(());
        }
        fill(stream, buf).await?;
    }
}

async fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<()> {
    let mut chunk = [0u8; 8192];
    let n = stream.read(&mut chunk).await?;
    if n == 0 {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "server closed the connection"));
    }
    buf.extend_from_slice(&chunk[..n]);
    Ok(())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Runs `exe load …` (the `gleaner-testweb` binary) as a second process against a web
/// on `cfg.port`, and parses the report it prints as one JSON line on stdout.
pub async fn run_load_process(exe: &std::path::Path, cfg: &LoadConfig) -> io::Result<LoadReport> {
    let output = tokio::process::Command::new(exe)
        .arg("load")
        .arg("--port")
        .arg(cfg.port.to_string())
        .arg("--sites")
        .arg(cfg.sites.to_string())
        .arg("--connections")
        .arg(cfg.connections.to_string())
        .arg("--seconds")
        .arg(cfg.duration.as_secs_f64().to_string())
        .arg("--path")
        .arg(&cfg.path)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .output()
        .await?;
    if !output.status.success() {
        return Err(io::Error::other(format!("load generator failed with {}", output.status)));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or_default();
    serde_json::from_str(line).map_err(|e| io::Error::other(format!("bad load report: {e}")))
}
