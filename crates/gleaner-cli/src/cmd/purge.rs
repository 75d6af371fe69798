//! `gleaner purge`: applies retention now (the daemon does it daily): bodies, events
//! past their end, their translations, old audit rows (SPEC §3).

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_store::RetentionPolicy;

use crate::cmd::optout::{open_store, runtime};

/// Arguments of `gleaner purge`.
#[derive(Debug, Args)]
pub struct PurgeArgs {
    /// Keep audit rows this long (e.g. `400d`), instead of `retention.audit`.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    audit_after: Option<std::time::Duration>,
}

/// Runs `gleaner purge`.
pub fn run(args: &PurgeArgs, config: &Path) -> Result<()> {
    let (settings, store) = open_store(config)?;
    let mut policy = RetentionPolicy::from_settings(&settings);
    if let Some(audit) = args.audit_after {
        policy.audit = audit;
    }
    let report = runtime()?
        .block_on(store.purge(policy, SystemTime::now()))
        .with_context(|| format!("failed to purge `{}`", store.location()))?;
    let mut out = std::io::stdout().lock();
    let days = |d: std::time::Duration| d.as_secs() / 86_400;
    writeln!(out, "bodies older than {} days: {} deleted", days(policy.bodies), report.bodies)?;
    writeln!(
        out,
        "events ended more than {} days ago: {} deleted (with {} translations)",
        days(policy.events_after_end),
        report.events,
        report.translations
    )?;
    writeln!(out, "audit rows older than {} days: {} deleted", days(policy.audit), report.audit)?;
    Ok(())
}
