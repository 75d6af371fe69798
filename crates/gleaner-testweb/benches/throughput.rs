//! Throughput of the test web: 1,000 sites served here, load from a second process.
//!
//! Run with `cargo bench -p gleaner-testweb --bench throughput`. The server runs in this
//! process; the load generator is the `gleaner-testweb load` subcommand, spawned as a
//! child, with keep-alive connections spread over every site. The target is at least
//! 20,000 requests/s. Environment knobs: `TESTWEB_SITES`, `TESTWEB_CONNECTIONS`,
//! `TESTWEB_SECONDS`.

// A bench reports its figure on stdout, like criterion would.
#![allow(clippy::print_stdout)]

use std::path::Path;
use std::time::Duration;

use gleaner_testweb::load::{LoadConfig, run_load_process};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    // `cargo test --benches` runs benches with `--bench` absent; stay quick then.
    let quick = !std::env::args().any(|a| a == "--bench");
    let sites: usize = env_or("TESTWEB_SITES", 1000);
    let connections: usize = env_or("TESTWEB_CONNECTIONS", 1000);
    let seconds: f64 = env_or("TESTWEB_SECONDS", if quick { 0.5 } else { 5.0 });
    let rt =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    rt.block_on(async {
        let web = TestWeb::start(Manifest::uniform(sites, SiteSpec::default()))
            .await
            .expect("bind the test web");
        let cfg = LoadConfig {
            port: web.addr(0).port(),
            sites,
            connections,
            duration: Duration::from_secs_f64(seconds),
            path: "/bench".to_owned(),
        };
        let exe = Path::new(env!("CARGO_BIN_EXE_gleaner-testweb"));
        let report = run_load_process(exe, &cfg).await.expect("load generator");
        println!(
            "testweb throughput: {:.0} requests/s ({} responses in {:.2}s; {sites} sites, \
             {connections} keep-alive connections from a second process, {} errors; \
             ledger {} entries)",
            report.per_second(),
            report.requests,
            report.elapsed.as_secs_f64(),
            report.errors,
            web.ledger().len()
        );
        web.shutdown().await;
    });
}
