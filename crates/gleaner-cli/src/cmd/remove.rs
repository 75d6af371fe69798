//! `gleaner remove SITE`: deletes a site's content (events, descriptions, image
//! addresses, translations, news, bodies, samples) in one transaction, with the bytes
//! gone from the files, records the request and opts the site out (SPEC §1, §3). The
//! audit log and the robots.txt archive stay: they record what gleaner did.

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result};
use clap::Args;

use crate::cmd::optout::{open_store, runtime, scope};

/// Arguments of `gleaner remove`.
#[derive(Debug, Args)]
pub struct RemoveArgs {
    /// `example.org` (domain and subdomains) or a URL prefix.
    site: String,
    /// The owner's request reference, for the record (default: generated).
    #[arg(long)]
    reference: Option<String>,
}

/// Runs `gleaner remove`.
pub fn run(args: &RemoveArgs, config: &Path) -> Result<()> {
    let scope = scope(&args.site)?;
    let (_, store) = open_store(config)?;
    let now = SystemTime::now();
    let reference = args.reference.clone().unwrap_or_else(|| {
        let ms = now.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_millis();
        format!("REMOVAL-{ms}")
    });
    let report = runtime()?
        .block_on(store.remove_site(scope, &reference, now))
        .with_context(|| format!("failed to remove `{}`", args.site))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "removed `{}` (request {}, reference {reference})",
        args.site, report.request_id
    )?;
    for (table, rows) in &report.deleted {
        writeln!(out, "  {table}: {rows} deleted")?;
    }
    writeln!(out, "opted out: reference {} (`gleaner optout list`)", report.opt_out)?;
    writeln!(
        out,
        "kept: the audit log and the robots.txt archive (records of gleaner's own requests)"
    )?;
    Ok(())
}
