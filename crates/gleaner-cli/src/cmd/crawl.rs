//! `gleaner crawl [--source ID]… [--dry-run]`: one pass over the configured sources
//! now, politely (every request through the gate, robots.txt first, the sites' budgets
//! in the store), with progress on stderr (bars on a terminal, else a line every few
//! seconds) and a summary table; `-o FILE` also writes what the pass stored or updated.

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use gleaner_config::Settings;
use gleaner_config::sources::Source;
use gleaner_scheduler::report::{self, Tally};
use gleaner_scheduler::{PassReport, Progress, run_pass};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use crate::BadInput;
use crate::cmd::export::{OutputArgs, write_output};
use crate::wiring::{Crawler, crawler, open_store};
use gleaner_server::encode::encode;
use gleaner_server::store_events::events_by_id;

/// Arguments of `gleaner crawl`.
#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Only these sources (by id); all of them when absent.
    #[arg(long = "source", value_name = "ID")]
    sources: Vec<String>,
    /// Print what would be requested first and why, and send nothing.
    #[arg(long)]
    dry_run: bool,
    /// Also write the events this pass stored or updated to FILE (`--format`, else the
    /// extension: jsonl, json, csv, ics, rss).
    #[command(flatten)]
    output: OutputArgs,
}

/// The sources selected by `--source`, or all; an unknown id is bad input.
pub fn select_sources(settings: &Settings, wanted: &[String]) -> Result<Vec<Source>> {
    if settings.sources.is_empty() {
        return Err(BadInput(
            "no sources are configured\nhint: add a [[sources]] table (see examples/gleaner.toml), or try `gleaner demo`".to_owned(),
        )
        .into());
    }
    for id in wanted {
        if !settings.sources.iter().any(|s| &s.id == id) {
            let known: Vec<&str> = settings.sources.iter().map(|s| s.id.as_str()).collect();
            return Err(BadInput(format!(
                "no source `{id}`\nhint: configured sources are {}",
                known.join(", ")
            ))
            .into());
        }
    }
    Ok(settings
        .sources
        .iter()
        .filter(|s| wanted.is_empty() || wanted.contains(&s.id))
        .cloned()
        .collect())
}

/// Runs `gleaner crawl`.
pub fn run(args: &CrawlArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let sources = select_sources(&settings, &args.sources)?;
    // A bad format or folder fails before any request is sent.
    let format = args.output.output.as_ref().map(|_| args.output.format()).transpose()?;
    args.output.check_writable()?;
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    runtime.block_on(async {
        let store = open_store(&settings)?;
        let crawler = crawler(Arc::clone(&settings), store).await?;
        if args.dry_run {
            return dry_run(&crawler, &sources).await;
        }
        let started = Instant::now();
        let reports = crawl_all(&crawler, &sources, true).await;
        crawler
            .store
            .flush_audit()
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("failed to write the audit log")?;
        print_summary(&reports, started.elapsed())?;
        if let (Some(path), Some(format)) = (&args.output.output, format) {
            let events = events_by_id(&crawler.store, &settings, &crawler.written.ids()).await;
            let events = events.map_err(|e| anyhow::anyhow!(e))?;
            write_output(Some(path), &encode(format, &settings, &events))?;
            eprintln!(
                "wrote {} event(s) stored or updated by this pass to `{}` ({format})",
                events.len(),
                path.display()
            );
        }
        Ok(())
    })
}

/// How often the progress line is written when stderr is not a terminal.
const PROGRESS_EVERY: Duration = Duration::from_secs(3);

/// Runs one pass of each source, in parallel (their sites' budgets keep them polite),
/// with progress on stderr: bars on a terminal, else one line every few seconds.
pub async fn crawl_all(
    crawler: &Crawler,
    sources: &[Source],
    show_progress: bool,
) -> Vec<PassReport> {
    let on_terminal = show_progress && std::io::stderr().is_terminal();
    let bars = MultiProgress::new();
    if !on_terminal {
        bars.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let style = ProgressStyle::with_template("{prefix:>18} [{bar:30}] {pos}/{len} {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    let tally = Arc::new(Tally::new(sources));
    let overall = bars.add(ProgressBar::no_length());
    overall.set_style(
        ProgressStyle::with_template("{spinner} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let deadline = SystemTime::now() + crawler.context.settings.politeness.run_time_limit;
    let mut handles = Vec::new();
    for (index, source) in sources.iter().cloned().enumerate() {
        let bar = bars.add(ProgressBar::new(1));
        bar.set_style(style.clone());
        bar.set_prefix(source.id.clone());
        let ctx = crawler.context.clone();
        let tally = Arc::clone(&tally);
        handles.push(tokio::spawn(async move {
            let show = |p: Progress| {
                tally.requests.fetch_add(1, Ordering::Relaxed);
                bar.set_length(u64::from(p.known.max(p.done)));
                bar.set_position(u64::from(p.done));
                bar.set_message(p.url.path().to_owned());
            };
            let report = run_pass(&ctx, &source, deadline, &show).await;
            tally.finish(index);
            bar.finish_with_message(format!(
                "{} events",
                report.events_new + report.events_updated + report.events_unchanged
            ));
            report
        }));
    }
    let joined = async {
        let mut reports = Vec::new();
        for handle in handles {
            match handle.await {
                Ok(report) => reports.push(report),
                Err(error) => eprintln!("warning: a pass stopped unexpectedly: {error}"),
            }
        }
        reports
    };
    tokio::pin!(joined);
    let every = if on_terminal { Duration::from_millis(250) } else { PROGRESS_EVERY };
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let reports = loop {
        tokio::select! {
            reports = &mut joined => break reports,
            _ = ticks.tick(), if show_progress => {
                if on_terminal {
                    overall.set_message(tally.line(&crawler.context, &crawler.written));
                    overall.tick();
                } else {
                    eprintln!("progress: {}", tally.line(&crawler.context, &crawler.written));
                }
            }
        }
    };
    if on_terminal {
        overall.finish_with_message(tally.line(&crawler.context, &crawler.written));
    } else if show_progress {
        eprintln!("progress: {}", tally.line(&crawler.context, &crawler.written));
    }
    reports
}

/// Prints the summary table of a crawl on stdout.
pub fn print_summary(reports: &[PassReport], elapsed: Duration) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(report::crawl_table(reports, elapsed).as_bytes())
}

async fn dry_run(crawler: &Crawler, sources: &[Source]) -> Result<()> {
    let text =
        report::dry_run(&crawler.context.gate, sources).await.map_err(|e| anyhow::anyhow!(e));
    let text =
        text.context("failed to read the site's state; check that the store is reachable")?;
    std::io::stdout().lock().write_all(text.as_bytes()).context("failed to write to stdout")
}
