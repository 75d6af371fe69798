//! The `gleaner-testweb` binary: serve a test web by hand, or measure its throughput.
//!
//! - `serve --sites N --seed S`: prints each site's root URL on stdout (one per line) and
//!   serves until Ctrl-C, optionally writing the ledger as JSON lines at exit;
//! - `load …`: the load generator half of the throughput bench (a second process);
//! - `bench --sites N --connections C --seconds T`: serves N sites here and runs `load`
//!   as a child process against them, then prints requests per second.

// This is a command-line tool: stdout carries its data (URLs, reports) and stderr its
// progress messages.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use gleaner_testweb::load::{LoadConfig, run_load, run_load_process};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb, Timings};

#[derive(Parser, Debug)]
#[command(name = "gleaner-testweb", version, about = "Loopback test web for gleaner")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve a generated test web and print its site URLs.
    Serve {
        /// Number of sites.
        #[arg(long, default_value_t = 200)]
        sites: usize,
        /// Seed for the manifest and content.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Product token named in the generated robots.txt files.
        #[arg(long, default_value = gleaner_testweb::DEFAULT_TOKEN)]
        token: String,
        /// Delay of `/slow/first-byte`, in milliseconds.
        #[arg(long, default_value_t = 20_000)]
        slow_first_byte_ms: u64,
        /// Print each site's scenario after its URL (tab-separated).
        #[arg(long)]
        describe: bool,
        /// Write the ledger as JSON lines to this file when stopped.
        #[arg(long)]
        ledger: Option<PathBuf>,
        /// Append the sample city's sites (dates relative to now), after the `--sites` ones.
        #[arg(long)]
        city: bool,
        /// Serve this manifest (JSON, as `Manifest` serialises) instead of generating one;
        /// `--sites`, `--seed`, `--token` and `--slow-first-byte-ms` are then ignored.
        #[arg(long)]
        manifest: Option<PathBuf>,
    },
    /// Send keep-alive load to a running web (the second process of `bench`).
    Load {
        /// The web's port.
        #[arg(long)]
        port: u16,
        /// Number of sites (from site 0).
        #[arg(long, default_value_t = 1000)]
        sites: usize,
        /// Keep-alive connections.
        #[arg(long, default_value_t = 1000)]
        connections: usize,
        /// Seconds of load.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Path to request.
        #[arg(long, default_value = "/bench")]
        path: String,
    },
    /// Serve N sites and measure requests per second from a second process.
    Bench {
        /// Number of sites.
        #[arg(long, default_value_t = 1000)]
        sites: usize,
        /// Keep-alive connections.
        #[arg(long, default_value_t = 1000)]
        connections: usize,
        /// Seconds of load.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Path to request.
        #[arg(long, default_value = "/bench")]
        path: String,
    },
}

fn main() -> Result<()> {
    // Started by a `SplitWeb` to serve one slice of a larger web.
    let args: Vec<String> = std::env::args().collect();
    if let Some(code) = gleaner_testweb::split::child_main(&args) {
        std::process::exit(code);
    }
    let cli = Cli::parse();
    match cli.command {
        Command::Load { port, sites, connections, seconds, path } => {
            let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            let cfg = LoadConfig {
                port,
                sites,
                connections,
                duration: Duration::from_secs_f64(seconds),
                path,
            };
            let report = rt.block_on(run_load(&cfg));
            println!("{}", serde_json::to_string(&report)?);
            Ok(())
        }
        command => {
            let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
            rt.block_on(run(command))
        }
    }
}

async fn run(command: Command) -> Result<()> {
    match command {
        Command::Serve {
            sites,
            seed,
            token,
            slow_first_byte_ms,
            describe,
            ledger,
            city,
            manifest,
        } => {
            let manifest = match manifest {
                Some(path) => {
                    let text = std::fs::read_to_string(&path)
                        .with_context(|| format!("failed to read `{}`", path.display()))?;
                    serde_json::from_str::<Manifest>(&text).with_context(|| {
                        format!("failed to parse the manifest `{}`", path.display())
                    })?
                }
                None => Manifest::generate(sites, seed).with_token(&token).with_timings(Timings {
                    slow_first_byte: Duration::from_millis(slow_first_byte_ms),
                    ..Timings::default()
                }),
            };
            let manifest =
                if city { manifest.with_city(seed, chrono::Utc::now()) } else { manifest };
            let sites = manifest.sites.len();
            let web = TestWeb::start(manifest)
                .await
                .with_context(|| format!("failed to bind {sites} sites on loopback"))?;
            for i in 0..web.len() {
                if describe {
                    println!("{}\t{}", web.site_url(i), describe_site(web.spec(i)));
                } else {
                    println!("{}", web.site_url(i));
                }
            }
            eprintln!("serving {} sites; press Ctrl-C to stop", web.len());
            tokio::signal::ctrl_c().await.context("failed to wait for Ctrl-C")?;
            if let Some(path) = ledger {
                std::fs::write(&path, web.ledger().to_json_lines()).with_context(|| {
                    format!("failed to write the ledger to `{}`", path.display())
                })?;
            }
            web.shutdown().await;
            Ok(())
        }
        Command::Bench { sites, connections, seconds, path } => {
            let web = TestWeb::start(Manifest::uniform(sites, SiteSpec::default()))
                .await
                .with_context(|| format!("failed to bind {sites} sites on loopback"))?;
            let exe = std::env::current_exe().context("failed to find this executable")?;
            let cfg = LoadConfig {
                port: web.addr(0).port(),
                sites,
                connections,
                duration: Duration::from_secs_f64(seconds),
                path,
            };
            let report =
                run_load_process(&exe, &cfg).await.context("failed to run the load generator")?;
            let ledger = web.ledger();
            println!(
                "{:.0} requests/s ({} responses in {:.2}s, {} sites, {} connections, {} \
                 connection errors; ledger holds {} entries)",
                report.per_second(),
                report.requests,
                report.elapsed.as_secs_f64(),
                sites,
                connections,
                report.errors,
                ledger.len()
            );
            web.shutdown().await;
            Ok(())
        }
        Command::Load { .. } => unreachable!("handled in main"),
    }
}

fn describe_site(spec: &SiteSpec) -> String {
    let behaviour = match &spec.behaviour {
        gleaner_testweb::SiteBehaviour::Normal => "normal".to_owned(),
        gleaner_testweb::SiteBehaviour::Throttle { status, after, .. } => {
            format!("throttle-{status}-after-{after}")
        }
        gleaner_testweb::SiteBehaviour::Block { status, after } => {
            format!("block-{status}-after-{after}")
        }
        gleaner_testweb::SiteBehaviour::Challenge { after } => format!("challenge-after-{after}"),
        gleaner_testweb::SiteBehaviour::LoginWall { after } => format!("login-wall-after-{after}"),
    };
    let delay = spec.rules.crawl_delay.map_or(String::new(), |d| format!("\tcrawl-delay-{d}"));
    let content = match spec.content {
        gleaner_testweb::SiteContent::Synthetic => String::new(),
        gleaner_testweb::SiteContent::City(j) => format!("\tcity-{j}"),
    };
    format!("robots-{}\t{behaviour}{delay}{content}", spec.robots.name())
}
