//! The gate at scale, measured from the sites' side: 1,000 loopback sites × 20 pages,
//! a 0.5 s gap and 1 request in flight per site. Reports wall time ÷ the ledger's lower
//! bound (goal ≤ 1.05), CPU seconds per 1,000 requests, peak RSS, and the politeness
//! checks (zero violations, full coverage).
//!
//! Run: `cargo bench -p gleaner-fetch --bench gate` (about 15 s). Options through the
//! environment: `GATE_BENCH_SITES` (1000), `GATE_BENCH_PAGES` (20), `GATE_BENCH_GAP_MS`
//! (500). Linux only for the CPU and memory figures (read from /proc/self).
// A benchmark reports on stdout.
#![allow(clippy::print_stdout, missing_docs)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::SystemClock;
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate, GateRequest};
use gleaner_policy::Purpose;
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use url::Url;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// User and system CPU time of this process, from /proc/self/stat (clock ticks of 10 ms).
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit(')').next().unwrap_or("");
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// Peak resident set size in MiB, from /proc/self/status.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    // `cargo test --benches` runs benches with `--bench` absent; stay quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sites = env_or("GATE_BENCH_SITES", if quick { 20 } else { 1000 }) as usize;
    let pages = env_or("GATE_BENCH_PAGES", if quick { 3 } else { 20 }) as u32;
    let gap = Duration::from_millis(env_or("GATE_BENCH_GAP_MS", if quick { 50 } else { 500 }));
    let _ = rlimit::increase_nofile_limit(65_536);

    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    runtime.block_on(async move {
        let spec = SiteSpec { events: pages, ..SiteSpec::default() };
        let web = TestWeb::start(Manifest::uniform(sites, spec).with_token("BenchBot")).await.expect("test web");
        let config = format!(
            "[bot]\ntoken = \"BenchBot\"\nversion = \"1.0\"\ninfo_url = \"https://bench.example/bot\"\noperator = \"Bench\"\n\n\
             [politeness]\ngap = \"{}ms\"\nmax_in_flight = 1\nglobal_daily_cap = 1000000\n\n[network]\nallow = [\"127.0.0.0/8\"]\n",
            gap.as_millis()
        );
        let settings = Arc::new(gleaner_config::parse(&config, "bench.toml").expect("config"));
        let client = Client::new(ClientSettings::from_settings(&settings)).expect("client");
        let gate = Arc::new(Gate::new(
            client,
            settings,
            Arc::new(MemoryState::default()),
            Arc::new(MemoryRegistry::default()),
            Arc::new(MemoryAudit::default()),
            Arc::new(SystemClock),
        ));

        let cpu_before = cpu_seconds();
        let started = Instant::now();
        let tasks: Vec<_> = (0..sites)
            .map(|site| {
                let gate = Arc::clone(&gate);
                let urls: Vec<Url> = (1..=pages).map(|n| Url::parse(&web.url(site, &format!("/events/{n}.html"))).expect("url")).collect();
                tokio::spawn(async move {
                    for url in urls {
                        gate.fetch(&GateRequest::new(url, Purpose::EventPage)).await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("site task");
        }
        let wall = started.elapsed();
        let cpu = cpu_seconds() - cpu_before;

        let ledger = web.ledger();
        let requests = ledger.len();
        let bound = ledger.crawl_time_lower_bound(|e| if e.is_robots() { Duration::ZERO } else { gap });
        let wanted: Vec<(usize, String)> =
            (0..sites).flat_map(|s| (1..=pages).map(move |n| (s, format!("/events/{n}.html")))).collect();
        let wanted: Vec<(usize, &str)> = wanted.iter().map(|(s, p)| (*s, p.as_str())).collect();
        let coverage = ledger.expect_all_fetched(&wanted);
        let checks = [
            ("robots first", ledger.check_robots_first()),
            ("spacing", ledger.check_min_gap(gap)),
            ("in flight", ledger.check_max_in_flight(1)),
            ("identity", ledger.check_identity("BenchBot/1.0 (+https://bench.example/bot)")),
        ];
        println!("gate bench: {sites} sites x {pages} pages, gap {} ms, 1 in flight", gap.as_millis());
        println!("requests:            {requests} (robots.txt included)");
        println!("wall time:           {:.2} s", wall.as_secs_f64());
        println!("lower bound:         {:.2} s (from the ledger)", bound.as_secs_f64());
        println!("wall / bound:        {:.3}", wall.as_secs_f64() / bound.as_secs_f64().max(f64::EPSILON));
        println!("cpu per 1000 req:    {:.3} s", cpu / (requests as f64 / 1000.0).max(f64::EPSILON));
        println!("peak rss:            {:.1} MiB (test web included)", peak_rss_mib());
        println!("coverage:            {}", if coverage.is_ok() { "every page fetched".to_owned() } else { format!("{coverage:?}") });
        for (name, result) in checks {
            match result {
                Ok(()) => println!("check {name:<14} 0 violations"),
                Err(v) => println!("check {name:<14} {} violation(s): {}", v.0.len(), v.to_string().lines().take(3).collect::<Vec<_>>().join(" | ")),
            }
        }
        web.shutdown().await;
    });
}
