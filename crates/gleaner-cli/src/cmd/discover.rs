//! `gleaner discover URL`: where does this site's event data come from? A handful of
//! manual-check requests through the gate (robots.txt first, the manual-check gap, the
//! daily cap per site, audited; see `gleaner_scheduler::discover`), then what each
//! source kind would yield and a ready-to-paste `[[sources]]` block.
//!
//! Exit codes: 0 when the site was read (whether or not a source was found), 3 when
//! robots.txt, a rights reservation, an owner or the daily cap said no (the rule is
//! printed), 2 for bad input, 1 for other failures.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use gleaner_scheduler::discover::{
    DEFAULT_MAX_REQUESTS, DiscoverOptions, RequestCounter, discover,
};
use url::Url;

use crate::BadInput;
use crate::cmd::fetch::Refused;
use crate::wiring::{GateRole, gate_for, open_store};

/// How the report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Findings as comments, then the `[[sources]]` block (the whole output pastes into a
    /// config).
    Toml,
    /// One JSON object.
    Json,
}

/// Arguments of `gleaner discover`.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// The site's page to start from (its home page, events page, feed or sitemap).
    url: String,
    /// The most requests the site sees, robots.txt and rights files included.
    #[arg(long, default_value_t = DEFAULT_MAX_REQUESTS, value_name = "N")]
    max_requests: u32,
    /// `toml` (default) or `json`.
    #[arg(long, value_enum, default_value_t = Format::Toml)]
    format: Format,
}

/// Runs `gleaner discover`.
pub fn run(args: &DiscoverArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let url = Url::parse(&args.url)
        .map_err(|e| BadInput(format!("`{}` is not a valid URL: {e}", args.url)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadInput(format!("`{}` is not an http or https URL", args.url)).into());
    }
    if args.max_requests == 0 {
        return Err(BadInput("`--max-requests` must be at least 1".into()).into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(check(settings, url, args))
}

async fn check(
    settings: Arc<gleaner_config::Settings>,
    url: Url,
    args: &DiscoverArgs,
) -> Result<()> {
    let store = open_store(&settings)?;
    let counter = Arc::new(RequestCounter::new(Arc::new(store.clone())));
    let gate = gate_for(&settings, &store, GateRole::Discover(Arc::clone(&counter))).await?;
    let sink = gleaner_scheduler::StoreSink::new(store.clone(), Arc::clone(&settings));
    let opts = DiscoverOptions {
        max_requests: args.max_requests,
        manual_checks_today: gleaner_scheduler::manual::checks_today(&store, &settings, &url).await,
    };
    let result = discover(&gate, &sink, &settings, &counter, url, opts).await;
    store
        .flush_audit()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to write the audit log")?;
    let report = match result {
        Ok(report) => report,
        Err(e) if e.is_site_refusal() => {
            println!("refused:  {e}");
            return Err(Refused(e.to_string()).into());
        }
        Err(e) => return Err(anyhow::Error::new(e)),
    };
    let text = match args.format {
        Format::Toml => report.to_toml(),
        Format::Json => report.to_json(),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", text.trim_end())?;
    Ok(())
}
