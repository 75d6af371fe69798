//! The coordination of many workers on one PostgreSQL database (issue 17): how many
//! requests per second the claims and the shared per-site budget sustain with 1, 2 and 4
//! workers, and how many database round trips each fetched page costs.
//!
//! Each worker is a task with its own store handle (its own connection pool, as a
//! process would have), its own worker lease and its own gate. It loops: claim one
//! queued page (`FOR UPDATE SKIP LOCKED`, a fencing token), fetch it through the gate
//! (registry check, robots.txt memory, the reservation transaction, the request, the
//! finishing transaction), complete the claim. Extraction is skipped: this measures the
//! coordination, not the parsers. The pages come from the loopback test web (many sites,
//! a 1 ms gap so the budget never waits), so the limit is the database and the CPU.
//!
//! Round trips are counted by a proxy between the workers and PostgreSQL: one per
//! `Sync` or simple `Query` message the clients send (tokio-postgres pipelines a
//! statement's Bind/Execute and ends it with one Sync). The audit writer's batches go
//! through the proxy too and are counted.
//!
//! Needs `GLEANER_TEST_POSTGRES_URL` (a scratch database `gleaner_bench_workers_<pid>` is
//! created and dropped). Run with `cargo bench -p gleaner-store --bench workers`. The CI
//! machine has 2 cores shared by the workers, the test web and PostgreSQL itself: the
//! figures are a floor for real deployments, and ratios between runs on one machine are
//! what to compare.
//!
//! Issue 27 item 2 (one run each, claim per page, 1/2/4 workers), before → after the
//! round-trip work: 277/383/400 → 326/448/491 pages/s; 17.1 → 16.0 round trips
//! (messages) per page. Extraction is skipped here, so the event write's share (8 → 3
//! waits, `tests/it/round_trips.rs`) is not in these figures. Then, without the read of
//! the site's state per request (two runs each, load 4–5): claim per page 118/146/222
//! and 81/166/172 → 116/445/356 and 113/173/169 pages/s; gate only 123/202/216 and
//! 124/176/248 → 155/213/297 and 167/170/201; 16.0 → 15.0 (claim) and 14.0 → 13.0 (gate
//! only) round trips per page.

// A benchmark reports on stderr.
#![allow(clippy::print_stderr)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use gleaner_fetch::gate::clock::SystemClock;
use gleaner_fetch::{Client, ClientSettings, Gate, GateOutcome, GateRequest};
use gleaner_policy::Purpose;
use gleaner_store::{Store, WorkItem};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use url::Url;

const SITES: usize = 24;
const PAGES_PER_SITE: u32 = 40;
const LEASE: Duration = Duration::from_secs(60);

fn settings() -> gleaner_config::Settings {
    let text = r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[network]
allow = ["127.0.0.0/8"]

[politeness]
gap = "1ms"
max_in_flight = 4
global_daily_cap = 100000000

[politeness.purpose.event-page]
gap = "1ms"
jitter = ["0s", "0s"]
"#;
    gleaner_config::parse(text, "bench.toml").unwrap()
}

/// Counts the client's round trips (Sync and simple Query messages) on the way to the
/// server.
async fn proxy(listener: TcpListener, upstream: String, trips: Arc<AtomicU64>) {
    loop {
        let Ok((client, _)) = listener.accept().await else { return };
        let upstream = upstream.clone();
        let trips = Arc::clone(&trips);
        tokio::spawn(async move {
            let Ok(server) = TcpStream::connect(&upstream).await else { return };
            // Small messages both ways: without this, Nagle's algorithm and delayed
            // acknowledgements add tens of milliseconds to round trips.
            let _ = (client.set_nodelay(true), server.set_nodelay(true));
            let (mut cr, mut cw) = client.into_split();
            let (mut sr, mut sw) = server.into_split();
            let up = async move {
                // The startup message has no type byte; every later message does.
                let mut started = false;
                let mut buf = Vec::new();
                let mut chunk = [0u8; 16384];
                loop {
                    let n = match cr.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    buf.extend_from_slice(&chunk[..n]);
                    let mut at = 0;
                    loop {
                        let header = if started { 5 } else { 4 };
                        if buf.len() < at + header {
                            break;
                        }
                        let len_at = if started { at + 1 } else { at };
                        let len = u32::from_be_bytes(buf[len_at..len_at + 4].try_into().unwrap())
                            as usize;
                        let total = if started { 1 + len } else { len };
                        if buf.len() < at + total {
                            break;
                        }
                        if started && matches!(buf[at], b'S' | b'Q') {
                            trips.fetch_add(1, Ordering::Relaxed);
                        }
                        // SSL and GSS requests are answered before the real startup.
                        if !started {
                            let code = u32::from_be_bytes(buf[at + 4..at + 8].try_into().unwrap());
                            started = code == 196_608;
                        }
                        at += total;
                    }
                    if sw.write_all(&buf[..at]).await.is_err() {
                        return;
                    }
                    buf.drain(..at);
                }
            };
            let down = async move {
                let _ = tokio::io::copy(&mut sr, &mut cw).await;
            };
            tokio::join!(up, down);
        });
    }
}

async fn admin(url: &str, sql: &str) {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute(sql).await.unwrap();
}

/// Opens a store off the runtime's threads (opening blocks while it migrates).
async fn open(url: &str) -> Store {
    let url = url.to_owned();
    tokio::task::spawn_blocking(move || Store::open(&url).unwrap()).await.unwrap()
}

struct Figures {
    pages: u64,
    seconds: f64,
    trips: u64,
}

/// `workers` workers fetch every queued page; returns pages, time and round trips.
async fn round(
    url: &str,
    web: &TestWeb,
    workers: usize,
    claims: bool,
    trips: &AtomicU64,
) -> Figures {
    let settings = Arc::new(settings());
    let queue = open(url).await;
    let mut pages = Vec::new();
    let now = SystemTime::now();
    for n in 1..=PAGES_PER_SITE {
        for site in 0..SITES {
            let url = Url::parse(&web.url(site, &format!("/events/{n}.html"))).unwrap();
            let item = WorkItem {
                site: gleaner_fetch::site_key(&url),
                url: url.clone(),
                purpose: Purpose::EventPage,
                source: Some("bench".into()),
            };
            if claims {
                queue.enqueue_work(&item, now).await.unwrap();
            }
            pages.push(url);
        }
    }
    let pages = Arc::new(std::sync::Mutex::new(pages));
    let before = trips.load(Ordering::Relaxed);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..workers {
        let (settings, url, pages) = (Arc::clone(&settings), url.to_owned(), Arc::clone(&pages));
        tasks.push(tokio::spawn(async move {
            let store = open(&url).await;
            let state = Arc::new(store.claim_worker(LEASE).await.unwrap());
            let gate = Gate::new(
                Client::new(ClientSettings::from_settings(&settings)).unwrap(),
                Arc::clone(&settings),
                Arc::clone(&state) as Arc<dyn gleaner_policy::state::GateState>,
                Arc::new(store.clone()),
                Arc::new(store.clone()),
                Arc::new(SystemClock),
            );
            let mut fetched = 0u64;
            loop {
                let (page, lease) = if claims {
                    let Some(lease) =
                        state.claim_work(1, LEASE, SystemTime::now()).await.unwrap().pop()
                    else {
                        break;
                    };
                    (lease.item.url.clone(), Some(lease))
                } else {
                    let Some(page) = pages.lock().unwrap().pop() else { break };
                    (page, None)
                };
                let request = GateRequest::new(page, Purpose::EventPage);
                if let GateOutcome::Fetched(f) = gate.fetch(&request).await {
                    assert_eq!(f.status, 200);
                    fetched += 1;
                }
                if let Some(lease) = lease {
                    assert!(state.complete_work(&lease, SystemTime::now()).await.unwrap());
                }
            }
            store.flush_audit().await.unwrap();
            fetched
        }));
    }
    let mut fetched = 0;
    for task in tasks {
        fetched += task.await.unwrap();
    }
    Figures {
        pages: fetched,
        seconds: started.elapsed().as_secs_f64(),
        trips: trips.load(Ordering::Relaxed) - before,
    }
}

fn main() {
    let Ok(admin_url) = std::env::var("GLEANER_TEST_POSTGRES_URL") else {
        eprintln!("workers bench: set GLEANER_TEST_POSTGRES_URL to run it");
        return;
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let name = format!("gleaner_bench_workers_{}", std::process::id());
        admin(&admin_url, &format!("CREATE DATABASE {name}")).await;
        let target = Url::parse(&admin_url).unwrap();
        let upstream = format!(
            "{}:{}",
            target.host_str().unwrap_or("127.0.0.1"),
            target.port().unwrap_or(5432)
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut proxied = target.clone();
        proxied.set_port(Some(listener.local_addr().unwrap().port())).unwrap();
        proxied.set_path(&format!("/{name}"));
        let trips = Arc::new(AtomicU64::new(0));
        // The proxy runs on a thread of its own, so it never waits for the workers.
        let listener = listener.into_std().unwrap();
        let counter = Arc::clone(&trips);
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                proxy(listener, upstream, counter).await;
            });
        });
        let spec = SiteSpec { events: PAGES_PER_SITE, ..SiteSpec::default() };
        let web = TestWeb::start(Manifest::uniform(SITES, spec).with_token("TestBot")).await.unwrap();
        // Warm up: robots.txt of every site read and remembered once.
        round(proxied.as_str(), &web, 4, false, &trips).await;
        eprintln!("workers bench: {SITES} sites x {PAGES_PER_SITE} pages, extraction skipped, 2-core machine");
        eprintln!("  mode                 workers  pages  seconds  pages/s  round trips/page  vs 1 worker");
        for claims in [true, false] {
            let mut base = None;
            for workers in [1, 2, 4] {
                let f = round(proxied.as_str(), &web, workers, claims, &trips).await;
                let rate = f.pages as f64 / f.seconds;
                let base = *base.get_or_insert(rate);
                eprintln!(
                    "  {:<20} {workers:>7}  {:>5}  {:>7.2}  {:>7.0}  {:>16.1}  {:>10.2}",
                    if claims { "claim per page" } else { "gate only (passes)" },
                    f.pages,
                    f.seconds,
                    rate,
                    f.trips as f64 / f.pages.max(1) as f64,
                    rate / base
                );
            }
        }
        web.shutdown().await;
        admin(&admin_url, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
    });
}
