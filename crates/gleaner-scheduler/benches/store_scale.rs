//! Scale on the store (issue 27 item 2): the pass of `benches/scale.rs` — one source
//! whose start URLs are many loopback test-web sites — with the store-backed gate state,
//! registry, audit and sink, wired as `gleaner run` wires them (`gate_for` in
//! gleaner-cli: `Store::claim_crawler`, the store as registry and audit sink, its clock;
//! `StoreSink` for events), on SQLite (a temporary file in WAL mode, as in production) and
//! on PostgreSQL (`GLEANER_TEST_POSTGRES_URL`, a fresh schema per run, dropped after).
//!
//! `cargo bench -p gleaner-scheduler --bench store_scale` runs 500 sites × 10 requests
//! at a 0.2 s gap and 2,000 sites × 5 at 1 s on each backend and prints, per run: wall ÷
//! the ledger's bound, CPU seconds per 1,000 requests (this process: pass, gate, store
//! driver and test web; not the PostgreSQL server's), gap violations, and the store's
//! work per request:
//! - SQLite: statements run to their end on the store's connections (`BEGIN` and `COMMIT`
//!   included), counted by SQLite's profile hook (`Store::statements_run`);
//! - PostgreSQL: round trips, counted on the wire by a loopback proxy between the store
//!   and the server: one per `Sync` or simple `Query` message the client sends (each
//!   waits for the server's answer), on every connection (pool, audit writer, listener).
//!
//! Measured on the 2-core machine, shared (load 4–7), before → after issue 27's store work
//! (one run each, 500 × 10 @ 0.2 s / 2,000 × 5 @ 1 s):
//! - SQLite: CPU 4.15 → 2.79 s / 9.80 → 5.52 s; wall ÷ bound 2.10 → 1.56 / 1.74 → 1.35;
//!   statements per request about 26 and 29 (unchanged: the win was thread hops);
//! - PostgreSQL: round trips per request 55.9 → 24.0 / 59.0 → 26.8; wall ÷ bound
//!   23.8 → 4.0 / 17.0 → 3.8; CPU 14.6 → 5.4 s / 32.7 → 12.7 s. The gate's share is
//!   about 7.5 per request (two reservations of two round trips, one state read, two
//!   registry version reads); the event write and validators make the rest.
//!
//! PostgreSQL round trips that wait for the server (messages pipelined behind an
//! unanswered one share its wait; the line under each run), 500 × 10 @ 0.2 s, before →
//! after the round-trip work of issue 27 item 2 (pipelined event write, one registry
//! read per request, single-statement writes in autocommit): 19.6 → 13.1 per request,
//! 24.6 → 16.3 per event page; messages 24.0 → 21.4 per request; wall ÷ bound
//! 7.4 → 6.7, CPU 1.54 → 1.40 s per 1,000 requests (shared machine, one run each).
//! Then (the gate decides on the robots.txt memory it last saw, checked by the
//! reservation, instead of reading the site's state per request; a new event's row,
//! status and reading in one statement with `COMMIT`), two runs each: 15.8–16.3 →
//! 13.9 waits per event page, 12.7–13.1 → 11.1 per request; messages 21.0–21.4 → 18.7
//! per request; CPU 1.41–1.60 → 1.20–1.70 s per 1,000 requests (load 4–5: noise).
//! 2,000 × 5 @ 1 s, one run each: 24.1 → 21.0 waits per event page (14.4 → 12.6 per
//! request), wall ÷ bound 7.8 → 6.0, CPU 2.05 → 1.45 s per 1,000 requests.
//! What remains per request (waits): the registry version (its second read in the
//! profile is the event write's, pipelined), the reservation and the finish (two
//! each), the validators' read, and per event page the validators' write and the event
//! write (two, or three with the candidates' readings).
//! Then (the registry version read with the reservation's locked row, not per lookup;
//! validators written with the audit writer's batch; on SQLite the planner's stability
//! setting and a 4,000-page WAL checkpoint), 500 × 10 @ 0.2 s: PostgreSQL 10.9–11.0 →
//! 8.4–8.5 waits per request (13.7 → 10.5–10.6 per event page), messages 18.3 → 15.8;
//! SQLite CPU 3.69–3.97 → 2.31–2.87 s, 23.5 statements per request (load 2–4).
//!
//! Then (issue 27, profiled: this bench on the binary's allocator, jemalloc, instead of
//! glibc's; the audit writer no longer woken per record; progress handed to the pass in
//! batches; explain steps written only for `explain`; statements rendered byte by byte),
//! 500 × 10 @ 0.2 s, interleaved runs at load 3.2–4.8: SQLite CPU 2.19–2.59 → 2.01–2.29 s
//! (6 runs each; 2.08–2.36 s for the new code on glibc), wall ÷ bound 1.32–1.59 →
//! 1.23–1.53; PostgreSQL CPU 9.05–9.86 → 8.75–9.69 s, waits 8.4 →
//! 8.3–8.4 per request (`docs/capacity.md`, "Per-request CPU, profiled").
//!
//! `cargo test --benches` runs a quick mode (20 sites × 4 at 50 ms, SQLite, and PostgreSQL
//! when configured). Knobs: `STORE_RUNS="500x10@200,2000x5@1000"`,
//! `STORE_BACKENDS="sqlite,postgres"`, `STORE_LEASE=0` (the daily cap's row locked per
//! request, as before the leased blocks).

// A bench reports its figures on stdout, like criterion would.
#![allow(clippy::print_stdout)]

mod support;

/// The binary's allocator (`gleaner-cli`'s `main.rs`), as in `benches/scale.rs`, so the
/// CPU figures are the binary's (glibc's malloc was ~12 % of this bench's samples).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_scheduler::{PassContext, StoreSink, run_pass};
use gleaner_store::{PgSchemas, Store};
use gleaner_testweb::split::cpu_seconds;
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn config(web: &TestWeb, sites: usize, gap: Duration) -> String {
    support::config(sites, gap, |i| web.url(i, "/events/"))
}

/// Round trips to PostgreSQL, counted by [`proxy`].
#[derive(Default)]
struct Wire {
    round_trips: AtomicU64,
    /// Waits for the server: a `Sync` or `Query` sent while the connection had no
    /// unanswered one (messages pipelined behind an unanswered one share its wait).
    waits: AtomicU64,
    /// Statements executed, by their first words (`STORE_PROFILE=1`).
    by_statement: std::sync::Mutex<std::collections::HashMap<String, u64>>,
}

/// A message's NUL-terminated strings.
fn cstrings(body: &[u8]) -> Vec<String> {
    body.split(|b| *b == 0).map(|s| String::from_utf8_lossy(s).into_owned()).collect()
}

/// The first words of a statement, to group the profile by.
fn head_of(sql: &str) -> String {
    sql.split_whitespace().take(9).collect::<Vec<_>>().join(" ")
}

/// A loopback proxy in front of `upstream` that counts the client's `Sync` and `Query`
/// messages (each is one wait for the server); returns its address.
async fn proxy(upstream: std::net::SocketAddr, wire: Arc<Wire>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("proxy bind");
    let addr = listener.local_addr().expect("proxy address");
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(upstream).await else { continue };
            let wire = Arc::clone(&wire);
            tokio::spawn(async move {
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                let open = Arc::new(AtomicU64::new(0));
                let answers = Arc::clone(&open);
                let back =
                    tokio::spawn(async move { forward_answers(&mut sr, &mut cw, &answers).await });
                let _ = forward_counting(&mut cr, &mut sw, &wire, &open).await;
                back.abort();
            });
        }
    });
    addr
}

/// Copies the server's messages to the client, counting down `open` at each
/// `ReadyForQuery` (the answer to one `Sync` or `Query`) before passing it on.
async fn forward_answers(
    from: &mut (impl AsyncReadExt + Unpin),
    to: &mut (impl AsyncWriteExt + Unpin),
    open: &AtomicU64,
) -> std::io::Result<()> {
    loop {
        let mut head = [0u8; 5];
        from.read_exact(&mut head).await?;
        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
        let mut body = vec![0u8; (len as usize).saturating_sub(4)];
        from.read_exact(&mut body).await?;
        if head[0] == b'Z' {
            let _ = open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
        }
        to.write_all(&head).await?;
        to.write_all(&body).await?;
    }
}

/// Copies the client's messages to the server, counting `S` and `Q` messages after the
/// untyped start-up messages, and those of them that wait (`open` was 0).
async fn forward_counting(
    from: &mut (impl AsyncReadExt + Unpin),
    to: &mut (impl AsyncWriteExt + Unpin),
    wire: &Wire,
    open: &AtomicU64,
) -> std::io::Result<()> {
    let mut started = false;
    let profile = std::env::var("STORE_PROFILE").is_ok_and(|v| v == "1");
    let mut prepared: std::collections::HashMap<String, String> = Default::default();
    loop {
        let mut head = [0u8; 5];
        let (kind, len) = if started {
            from.read_exact(&mut head).await?;
            (Some(head[0]), u32::from_be_bytes([head[1], head[2], head[3], head[4]]))
        } else {
            from.read_exact(&mut head[..4]).await?;
            (None, u32::from_be_bytes([head[0], head[1], head[2], head[3]]))
        };
        let mut body = vec![0u8; (len as usize).saturating_sub(4)];
        from.read_exact(&mut body).await?;
        match kind {
            Some(b'S' | b'Q') => {
                wire.round_trips.fetch_add(1, Ordering::Relaxed);
                if open.fetch_add(1, Ordering::SeqCst) == 0 {
                    wire.waits.fetch_add(1, Ordering::Relaxed);
                }
                if profile && kind == Some(b'Q') {
                    let sql = head_of(&cstrings(&body)[0]);
                    *wire.by_statement.lock().unwrap().entry(sql).or_default() += 1;
                }
            }
            Some(b'P') if profile => {
                let parts = cstrings(&body);
                prepared.insert(parts[0].clone(), head_of(&parts[1]));
            }
            Some(b'B') if profile => {
                let parts = cstrings(&body);
                let sql = prepared.get(&parts[1]).cloned().unwrap_or_else(|| parts[1].clone());
                *wire.by_statement.lock().unwrap().entry(sql).or_default() += 1;
            }
            Some(_) => {}
            // The start-up message carries protocol 3.0; an SSL or GSS request comes first.
            None => started = body.get(..4) == Some(&[0, 3, 0, 0]),
        }
        if let Some(k) = kind {
            to.write_all(&[k]).await?;
        }
        to.write_all(&len.to_be_bytes()).await?;
        to.write_all(&body).await?;
    }
}

/// Where a run's store lives, and how its work is counted.
enum Place {
    Sqlite { _dir: tempfile::TempDir },
    Postgres { admin: String, schema: String, wire: Arc<Wire> },
}

impl Place {
    fn name(&self) -> &'static str {
        match self {
            Place::Sqlite { .. } => "sqlite",
            Place::Postgres { .. } => "postgres",
        }
    }

    fn work(&self, store: &Store) -> u64 {
        match self {
            Place::Sqlite { .. } => store.statements_run().unwrap_or(0),
            Place::Postgres { wire, .. } => wire.round_trips.load(Ordering::Relaxed),
        }
    }

    fn unit(&self) -> &'static str {
        match self {
            Place::Sqlite { .. } => "statements",
            Place::Postgres { .. } => "round trips",
        }
    }

    async fn drop_schema(&self) {
        if let Place::Postgres { admin, schema, .. } = self
            && let Ok((client, conn)) = tokio_postgres::connect(admin, tokio_postgres::NoTls).await
        {
            tokio::spawn(conn);
            let _ = client.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE")).await;
        }
    }
}

/// Opens a fresh store on `backend`; `None` when PostgreSQL is not configured.
async fn open(backend: &str, run: usize) -> Option<(Store, Place)> {
    if backend == "sqlite" {
        let dir = tempfile::tempdir().expect("temporary directory");
        let store = Store::open_sqlite(&dir.path().join("gleaner.db")).expect("sqlite store");
        return Some((store, Place::Sqlite { _dir: dir }));
    }
    let admin = std::env::var("GLEANER_TEST_POSTGRES_URL").ok().filter(|u| !u.is_empty())?;
    let url = url::Url::parse(&admin).expect("GLEANER_TEST_POSTGRES_URL is a URL");
    let host = url.host_str().unwrap_or("127.0.0.1");
    let upstream = tokio::net::lookup_host((host, url.port().unwrap_or(5432)))
        .await
        .ok()?
        .find(|a| a.ip().is_loopback())
        .expect("the bench's PostgreSQL is on loopback");
    let wire = Arc::new(Wire::default());
    let local = proxy(upstream, Arc::clone(&wire)).await;
    let mut through = url.clone();
    let _ = through.set_port(Some(local.port()));
    let _ = through.set_host(Some("127.0.0.1"));
    let schema = format!("gleaner_bench_{}_{run}", std::process::id());
    let schemas = PgSchemas { copy: schema.clone(), politeness: schema.clone() };
    let (text, s) = (through.to_string(), schemas.clone());
    // Opening blocks the thread for the connection and the migrations.
    let store = tokio::task::spawn_blocking(move || Store::open_in(&text, &s))
        .await
        .expect("open task")
        .unwrap_or_else(|e| panic!("failed to open the bench's PostgreSQL store: {e}"));
    Some((store, Place::Postgres { admin, schema, wire }))
}

/// One run on `backend`: `sites` sites, `requests` requests each (robots.txt, one
/// listing page, `requests - 2` event pages), `gap` between request starts at each site.
async fn run(backend: &str, index: usize, sites: usize, requests: u32, gap: Duration) {
    let events = requests.saturating_sub(2).max(1);
    let web = match TestWeb::start(
        Manifest::uniform(sites, SiteSpec { events: 2 * events, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    {
        Ok(web) => web,
        Err(error) => {
            println!("store_scale {sites} x {requests}: the test web could not bind: {error}");
            return;
        }
    };
    let Some((store, place)) = open(backend, index).await else {
        println!("store_scale {backend}: GLEANER_TEST_POSTGRES_URL is not set; skipped");
        web.shutdown().await;
        return;
    };
    let settings =
        Arc::new(gleaner_config::parse(&config(&web, sites, gap), "bench.toml").expect("config"));
    let cap = settings.politeness.global_daily_cap;
    let state = store.claim_crawler().await.expect("crawler state");
    let state = match std::env::var("STORE_LEASE").as_deref() {
        Ok("0") => state,
        _ => state.lease_daily_cap(cap),
    };
    let clock = store.clock().await.expect("store clock");
    let client = Client::new(ClientSettings::from_settings(&settings)).expect("client");
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(state),
        Arc::new(store.clone()),
        Arc::new(store.clone()),
        Arc::clone(&clock),
    );
    let ctx = PassContext {
        gate: Arc::new(gate),
        sink: Arc::new(StoreSink::new(store.clone(), Arc::clone(&settings))),
        clock,
        settings: Arc::clone(&settings),
        stop: Arc::default(),
    };
    let source = settings.sources[0].clone();
    let work0 = place.work(&store);
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let deadline = SystemTime::now() + Duration::from_secs(3600);
    let report =
        tokio::time::timeout(Duration::from_secs(900), run_pass(&ctx, &source, deadline, &|_| {}))
            .await;
    let _ = store.flush_audit().await;
    let (cpu, elapsed) = (cpu_seconds() - cpu0, t0.elapsed());
    let work = place.work(&store) - work0;
    let name = place.name();
    let Ok(report) = report else {
        println!("store_scale {name} {sites} x {requests}: did not finish in 900 s");
        web.shutdown().await;
        place.drop_schema().await;
        return;
    };
    let ledger = web.ledger();
    let bound = ledger.crawl_time_lower_bound(|_| gap);
    let wall = ledger.span();
    let violations = ledger.check_min_gap(gap).err().map_or(0, |v| v.0.len());
    let robots_first = ledger.check_robots_first().err().map_or(0, |v| v.0.len());
    let full = report.event_pages == events * sites as u32;
    let n = ledger.len().max(1) as f64;
    println!(
        "store_scale {name} {sites} sites x {requests} requests at {} ms: wall/bound {:.3} (wall {:.2} s, bound {:.2} s, pass {:.2} s), \
         {} requests, CPU {:.2} s = {:.3} s per 1,000 requests, {:.1} {} per request ({work} in all), \
         gap violations {violations}, robots-first violations {robots_first}, coverage {} ({} of {} event pages, {} failed, {} re-queued)",
        gap.as_millis(),
        wall.as_secs_f64() / bound.as_secs_f64().max(f64::EPSILON),
        wall.as_secs_f64(),
        bound.as_secs_f64(),
        elapsed.as_secs_f64(),
        ledger.len(),
        cpu,
        cpu * 1000.0 / n,
        work as f64 / n,
        place.unit(),
        if full { "full" } else { "PARTIAL" },
        report.event_pages,
        events * sites as u32,
        report.failed,
        report.requeued,
    );
    if let Place::Postgres { wire, .. } = &place {
        let waits = wire.waits.load(Ordering::Relaxed) as f64;
        println!(
            "  round trips that wait (pipelined ones share a wait): {:.1} per request, {:.1} per event page",
            waits / n,
            waits / f64::from(report.event_pages.max(1)),
        );
        let by = wire.by_statement.lock().unwrap();
        let mut top: Vec<_> = by.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1));
        for (sql, count) in top.iter().take(25) {
            println!("  {:6.2} per request  {sql}", **count as f64 / n);
        }
    }
    drop(ctx);
    web.shutdown().await;
    place.drop_schema().await;
}

fn main() {
    // `cargo test --benches` runs benches without `--bench`: stay quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = std::env::var("STORE_RUNS")
        .unwrap_or_else(|_| if quick { "20x4@50".into() } else { "500x10@200,2000x5@1000".into() });
    let backends = std::env::var("STORE_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let rt =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    let mut index = 0;
    for backend in backends.split(',').map(str::trim) {
        for spec in runs.split(',') {
            let parsed = spec.split_once('x').and_then(|(sites, rest)| {
                let (requests, gap) = rest.split_once('@').unwrap_or((rest, "1000"));
                Some((
                    sites.trim().parse().ok()?,
                    requests.trim().parse().ok()?,
                    gap.trim().parse().ok()?,
                ))
            });
            let Some((sites, requests, gap_ms)) = parsed else { continue };
            index += 1;
            rt.block_on(run(backend, index, sites, requests, Duration::from_millis(gap_ms)));
        }
    }
}
