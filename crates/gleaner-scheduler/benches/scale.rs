//! Scale (issue 27): one source whose start URLs are thousands of loopback test-web
//! sites, crawled in one pass at a 1 s gap, judged from the sites' side.
//!
//! `cargo bench -p gleaner-scheduler --bench scale` runs 2,000 sites × 5 requests and
//! 10,000 sites × 3 requests (robots.txt, one listing page, event pages) and prints, per
//! run: wall ÷ the ledger's bound (the largest site's sum of gaps; 1.0 is perfect), CPU
//! seconds per 1,000 requests, peak RSS and RSS per 1,000 sites, and gap violations.
//! `cargo test --benches` runs a quick mode (40 sites × 3 at 50 ms) in seconds.
//! Knobs: `SCALE_RUNS="2000x5,10000x3"`, `SCALE_GAP_MS=1000`, `SCALE_KEEP_IDLE_MS` and
//! `SCALE_MAX_IN_FLIGHT` and `SCALE_MAX_IDLE` (each a number or `off`),
//! `SCALE_SITES_PER_CHILD=4000`.
//!
//! The gate's state, registry and audit are the in-memory ones, and events go to the
//! in-memory sink: this measures the pass, the gate and the client, not the store.
//! The test web runs in child processes (this binary re-executed, at most
//! `SCALE_SITES_PER_CHILD` sites each, 4,000 by default: each child has its own open-file
//! limit), so the CPU and RSS printed are the crawler's alone; the children's CPU is
//! printed beside them. Their ledgers are merged and judged as one.
//!
//! Figures and what moved them: `docs/capacity.md` ("One process, many sites" and
//! "Per-request CPU, profiled"; last round, interleaved, load 3.6–8: 2,000 × 5 crawler CPU
//! 0.120–0.139 → 0.114–0.123 s per 1,000 requests, ratio 1.08–1.10 either way; 10,000 × 3
//! 0.142–0.150 → 0.118–0.131 s, peak RSS 321–323 MiB either way, ~28 MiB per 1,000 sites).
//! Where that peak is ("The peak at 10,000 sites by allocation site"): idle keep-alive
//! connections, ~28 KiB each, ~18 KiB of it fixed inside hyper; a hyper-util transport
//! with its own buffer sizes did not lower it (338–339 MiB with reqwest, 341–348 with it).

// A bench reports its figures on stdout, like criterion would.
#![allow(clippy::print_stdout)]

mod support;

/// The binary's allocator (`gleaner-cli`'s `main.rs`), so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::SystemClock;
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_scheduler::{MemorySink, PassContext, run_pass};
use gleaner_testweb::split::{cpu_seconds, status_mib};
use gleaner_testweb::{Manifest, SiteSpec, SplitWeb};

fn config(web: &SplitWeb, sites: usize, gap: Duration) -> String {
    support::config(sites, gap, |i| web.url(i, "/events/"))
}

fn context(text: &str, keep_idle: Option<Option<Duration>>) -> PassContext {
    let mut settings = gleaner_config::parse(text, "bench.toml").expect("bench config");
    // The pass reads `keep_idle` too (it asks for `Connection: close` past it).
    if let Some(keep_idle) = keep_idle {
        settings.network.keep_idle = keep_idle;
    }
    let settings = Arc::new(settings);
    let defaults = ClientSettings::from_settings(&settings);
    // `SCALE_MAX_IN_FLIGHT`: requests on the wire at once (`off` for no limit).
    let max_in_flight = match std::env::var("SCALE_MAX_IN_FLIGHT").ok().as_deref() {
        Some("off") => None,
        Some(n) => n.parse().ok().or(defaults.max_in_flight),
        None => defaults.max_in_flight,
    };
    // `SCALE_MAX_IDLE`: connections left open idle at once (`off` for no cap).
    let max_idle = match std::env::var("SCALE_MAX_IDLE").ok().as_deref() {
        Some("off") => None,
        Some(n) => n.parse().ok().or(defaults.max_idle),
        None => defaults.max_idle,
    };
    let client =
        Client::new(ClientSettings { max_in_flight, max_idle, ..defaults }).expect("client");
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        Arc::new(SystemClock),
    );
    PassContext {
        gate: Arc::new(gate),
        sink: Arc::new(MemorySink::default()),
        clock: Arc::new(SystemClock),
        settings,
        stop: Arc::default(),
    }
}

/// Per-site gaps between request starts: (median, 99th percentile, latest first request).
fn gaps(ledger: &gleaner_testweb::Ledger) -> (Duration, Duration, Duration) {
    let mut by_site: std::collections::HashMap<usize, Vec<Duration>> = Default::default();
    for e in ledger.iter() {
        by_site.entry(e.site).or_default().push(e.at);
    }
    let mut all = Vec::new();
    let mut latest_first = Duration::ZERO;
    for starts in by_site.values_mut() {
        starts.sort();
        latest_first = latest_first.max(starts[0]);
        all.extend(starts.windows(2).map(|w| w[1] - w[0]));
    }
    all.sort();
    let at = |q: f64| all.get(((all.len() as f64 - 1.0) * q) as usize).copied().unwrap_or_default();
    (at(0.5), at(0.99), latest_first)
}

/// One run: `sites` sites, `requests` requests each (robots.txt, one listing page and
/// `requests - 2` event pages; rights files are not read), `gap` between request starts
/// at each site.
async fn run(sites: usize, requests: u32, gap: Duration) {
    let events = requests.saturating_sub(2).max(1);
    // The listing comes in two pages; only the first is read, listing half the events.
    let per_child =
        std::env::var("SCALE_SITES_PER_CHILD").ok().and_then(|v| v.parse().ok()).unwrap_or(4000);
    let manifest = Manifest::uniform(sites, SiteSpec { events: 2 * events, ..SiteSpec::default() })
        .with_token("TestBot");
    let exe = std::env::current_exe().expect("this bench's executable");
    let web = match SplitWeb::start(&exe, manifest, per_child) {
        Ok(web) => web,
        Err(error) => {
            println!("scale {sites} x {requests}: the test web did not start: {error}");
            return;
        }
    };
    // `SCALE_KEEP_IDLE_MS`: how long an idle connection is kept (`off` closes each after
    // its answer; the default is `[network] keep_idle`'s, 90 s).
    let keep_idle = match std::env::var("SCALE_KEEP_IDLE_MS").ok().as_deref() {
        Some("off") => Some(None),
        Some(ms) => ms.parse().ok().map(|ms| Some(Duration::from_millis(ms))),
        None => None,
    };
    let ctx = context(&config(&web, sites, gap), keep_idle);
    let keep_idle = keep_idle.unwrap_or(ctx.settings.network.keep_idle);
    let source = &ctx.settings.sources[0];
    let rss_before = status_mib("VmRSS:");
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    let deadline = SystemTime::now() + Duration::from_secs(3600);
    let report =
        tokio::time::timeout(Duration::from_secs(600), run_pass(&ctx, source, deadline, &|_| {}))
            .await;
    let (cpu, elapsed) = (cpu_seconds() - cpu0, t0.elapsed());
    let rss_after = status_mib("VmRSS:");
    let peak_rss = status_mib("VmHWM:");
    let children = web.children();
    let stopped = web.stop(Duration::from_secs(30));
    let Ok(report) = report else {
        println!("scale {sites} x {requests}: did not finish in 600 s");
        return;
    };
    let (ledger, usage) = match stopped {
        Ok(stopped) => stopped,
        Err(error) => {
            println!("scale {sites} x {requests}: the test web's ledger is lost: {error}");
            return;
        }
    };
    let bound = ledger.crawl_time_lower_bound(|_| gap);
    let wall = ledger.span();
    let (median, p99, latest_first) = gaps(&ledger);
    let violations = ledger.check_min_gap(gap).err().map_or(0, |v| v.0.len());
    let robots_first = ledger.check_robots_first().err().map_or(0, |v| v.0.len());
    let full = report.event_pages == events * sites as u32;
    println!(
        "scale {sites} sites x {requests} requests at {} ms, idle connections kept {}: wall/bound {:.3} (wall {:.2} s, bound {:.2} s, pass {:.2} s), \
         {} requests, crawler CPU {:.2} s = {:.3} s per 1,000 requests, crawler peak RSS {:.0} MiB, RSS {:.0} -> {:.0} MiB \
         ({:.1} MiB per 1,000 sites during the pass), test web in {children} processes: CPU {:.2} s, peak RSS {:.0} MiB each at most, gap violations {violations}, robots-first violations {robots_first}, \
         coverage {} ({} of {} event pages at {} sites, {} failed, {} retried, {} given up, {} re-queued); per-site gap median {:.3} s, p99 {:.3} s; \
         last site's first request at {:.2} s; refused {:?}",
        gap.as_millis(),
        keep_idle.map_or("never".to_owned(), |d| format!("{} ms", d.as_millis())),
        wall.as_secs_f64() / bound.as_secs_f64().max(f64::EPSILON),
        wall.as_secs_f64(),
        bound.as_secs_f64(),
        elapsed.as_secs_f64(),
        ledger.len(),
        cpu,
        cpu * 1000.0 / (ledger.len().max(1) as f64),
        peak_rss,
        rss_before,
        rss_after,
        (rss_after - rss_before) * 1000.0 / sites as f64,
        usage.cpu_seconds,
        usage.max_peak_rss_mib,
        if full { "full" } else { "PARTIAL" },
        report.event_pages,
        events * sites as u32,
        report.sites,
        report.failed,
        report.retried,
        report.given_up,
        report.requeued,
        median.as_secs_f64(),
        p99.as_secs_f64(),
        latest_first.as_secs_f64(),
        report.refusals,
    );
}

fn main() {
    // Re-executed as one of the test web's child processes.
    let args: Vec<String> = std::env::args().collect();
    if let Some(code) = gleaner_testweb::split::child_main(&args) {
        std::process::exit(code);
    }
    // `cargo test --benches` runs benches without `--bench`: stay quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = std::env::var("SCALE_RUNS")
        .unwrap_or_else(|_| if quick { "40x3".into() } else { "2000x5,10000x3".into() });
    let gap_ms: u64 = std::env::var("SCALE_GAP_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick { 50 } else { 1000 });
    let rt =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    for spec in runs.split(',') {
        let Some((sites, requests)) = spec.split_once('x') else { continue };
        let (Ok(sites), Ok(requests)) = (sites.trim().parse(), requests.trim().parse()) else {
            continue;
        };
        rt.block_on(run(sites, requests, Duration::from_millis(gap_ms)));
    }
}
