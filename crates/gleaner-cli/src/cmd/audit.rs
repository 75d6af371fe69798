//! `gleaner audit SITE`: what gleaner fetched from a site, when, why, with which answer
//! and under which rule, and every archived version of its robots.txt with dates.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_store::DocumentKind;

use crate::cmd::optout::{open_store, runtime, scope};

/// Arguments of `gleaner audit`.
#[derive(Debug, Args)]
pub struct AuditArgs {
    /// `example.org` (domain and subdomains) or a URL prefix.
    site: String,
    /// Show at most this many requests (the latest).
    #[arg(long, default_value_t = 1000)]
    limit: u32,
}

/// Runs `gleaner audit`.
pub fn run(args: &AuditArgs, config: &Path) -> Result<()> {
    let scope = scope(&args.site)?;
    let (_, store) = open_store(config)?;
    let rt = runtime()?;
    let rows = rt
        .block_on(store.audit_for(&scope, args.limit))
        .with_context(|| format!("failed to read the audit log for `{}`", args.site))?;
    let versions = rt
        .block_on(store.archive_history(&scope, DocumentKind::Robots))
        .with_context(|| format!("failed to read the robots.txt archive for `{}`", args.site))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "requests to `{}` ({}):", args.site, rows.len())?;
    for r in &rows {
        let answer = r.outcome.answer(r.error.as_deref());
        let purpose = r.purpose.map_or("unknown", |p| p.as_str());
        writeln!(
            out,
            "{}\t{purpose}\t{answer}\t{} bytes\t{} ms\t{}\tsource {}\trule: {}",
            humantime::format_rfc3339_millis(r.time),
            r.bytes,
            r.duration.as_millis(),
            r.url,
            r.source.as_deref().unwrap_or("-"),
            r.reason
        )?;
    }
    writeln!(out, "robots.txt versions ({}):", versions.len())?;
    for v in &versions {
        writeln!(
            out,
            "{}\tfirst seen {}\tlast seen {}\t{} bytes",
            v.url,
            humantime::format_rfc3339_seconds(v.first_seen),
            humantime::format_rfc3339_seconds(v.last_seen),
            v.body.len()
        )?;
        for line in String::from_utf8_lossy(&v.body).lines() {
            writeln!(out, "  | {line}")?;
        }
    }
    Ok(())
}
