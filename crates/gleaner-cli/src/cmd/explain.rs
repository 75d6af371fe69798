//! `gleaner explain URL`: would gleaner fetch this URL now, and if not, why and until
//! when? It reads the same state the crawler decides from (the store: robots.txt
//! memory, suspensions, blocks, quotas, owners' requests) and sends nothing.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_fetch::GateRequest;
use gleaner_fetch::gate::ExplainVerdict;
use gleaner_policy::Purpose;
use gleaner_scheduler::store_sink::explain_rights;
use url::Url;

use crate::BadInput;
use crate::wiring::{GateRole, gate_for, open_store};

/// Arguments of `gleaner explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The URL to explain.
    url: String,
    /// The purpose of the request (event-page, listing, feed, link-check, …).
    #[arg(long, default_value = "event-page")]
    purpose: String,
}

/// Runs `gleaner explain`.
pub fn run(args: &ExplainArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let url = Url::parse(&args.url)
        .map_err(|e| BadInput(format!("`{}` is not a valid URL: {e}", args.url)))?;
    let purpose = Purpose::from_name(&args.purpose).ok_or_else(|| {
        let names: Vec<&str> = Purpose::ALL.iter().map(|p| p.as_str()).collect();
        BadInput(format!(
            "`{}` is not a purpose\nhint: purposes are {}",
            args.purpose,
            names.join(", ")
        ))
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(async {
        let store = open_store(&settings)?;
        let gate = gate_for(&settings, &store, GateRole::ReadOnly).await?;
        let explanation = gate
            .explain(&GateRequest::new(url.clone(), purpose))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("failed to read the site's state from the store; check that the database is reachable")?;
        let mut out = std::io::stdout().lock();
        let verdict = match explanation.verdict {
            ExplainVerdict::Now => "yes: it would be requested now".to_owned(),
            ExplainVerdict::NotBefore(t) => format!(
                "not now: not before {}",
                chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339()
            ),
            ExplainVerdict::WhenARequestEnds => {
                "not now: when a request in flight to this site ends".to_owned()
            }
            ExplainVerdict::Refused => "no".to_owned(),
        };
        let rights = explain_rights(&store, &settings, &url, purpose).await;
        let verdict = if rights.stops { "no".to_owned() } else { verdict };
        writeln!(out, "{verdict}\t{url}")?;
        for step in explanation.steps.iter().chain(&rights.lines) {
            writeln!(out, "  - {step}")?;
        }
        Ok(())
    })
}
