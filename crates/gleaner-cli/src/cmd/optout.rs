//! `gleaner optout add|list|remove`: the owners' opt-outs kept in the store, which every
//! gleaner process reads before each request (SPEC §1, "Opt-outs, overrides, removals").
//! Also the shared [`open_store`] used by the other store commands.

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result};
use clap::Subcommand;
use gleaner_config::Settings;
use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_store::Store;

use crate::BadInput;

/// The `optout` subcommands.
#[derive(Debug, Subcommand)]
pub enum OptoutCommand {
    /// Stop fetching a domain (and its subdomains) or a URL prefix, from the next request.
    Add {
        /// `example.org` (domain and subdomains) or `https://example.org/agenda/` (prefix).
        site: String,
        /// The receipt reference shown to the owner (default: generated).
        #[arg(long)]
        reference: Option<String>,
        /// Who asked and how, for the record.
        #[arg(long)]
        note: Option<String>,
    },
    /// List the opt-outs and other owner requests.
    List,
    /// Withdraw an opt-out by its reference.
    Remove {
        /// The reference printed by `optout add` or `optout list`.
        reference: String,
    },
}

/// Reads the configuration and opens the store it names.
pub fn open_store(config: &Path) -> Result<(Settings, Store)> {
    let settings = crate::cmd::config::load(config)?;
    let store = crate::wiring::open_store(&settings)
        .with_context(|| format!("the store is configured in `{}`", config.display()))?;
    Ok((settings, store))
}

/// Parses a site argument; a bad one is bad input (exit 2).
pub fn scope(site: &str) -> Result<Scope> {
    gleaner_store::parse_scope(site).map_err(|e| BadInput(e.to_string()).into())
}

/// A single-threaded runtime for a short command.
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

/// Runs an `optout` subcommand.
pub fn run(command: OptoutCommand, config: &Path) -> Result<()> {
    let (_, store) = open_store(config)?;
    let rt = runtime()?;
    let mut out = std::io::stdout().lock();
    match command {
        OptoutCommand::Add { site, reference, note } => {
            let scope = scope(&site)?;
            let now = SystemTime::now();
            let reference = reference.unwrap_or_else(|| {
                let ms = now.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default().as_millis();
                format!("OPT-{ms}")
            });
            let entry = RegistryEntry {
                scope,
                request: OwnerRequest::OptOut,
                reference: reference.clone(),
            };
            let line = entry.to_string();
            rt.block_on(store.add_owner_request(entry, note, now))
                .with_context(|| format!("failed to record the opt-out for `{site}`"))?;
            writeln!(out, "opted out: {line}\treference {reference}")?;
            writeln!(
                out,
                "applies to the next request of every gleaner process using `{}`",
                store.location()
            )?;
        }
        OptoutCommand::List => {
            let records =
                rt.block_on(store.owner_requests()).context("failed to list the opt-outs")?;
            for r in &records {
                writeln!(
                    out,
                    "{}\t{}\t{}\t{}",
                    r.entry.reference,
                    r.entry,
                    humantime::format_rfc3339_seconds(r.created),
                    r.note.as_deref().unwrap_or("")
                )?;
            }
            if records.is_empty() {
                writeln!(out, "no opt-outs")?;
            }
        }
        OptoutCommand::Remove { reference } => {
            let removed = rt
                .block_on(store.remove_owner_request(&reference))
                .with_context(|| format!("failed to remove the opt-out `{reference}`"))?;
            if !removed {
                return Err(BadInput(format!(
                    "no opt-out with reference `{reference}`\nhint: `gleaner optout list` shows the references"
                ))
                .into());
            }
            writeln!(out, "removed opt-out `{reference}`")?;
        }
    }
    Ok(())
}
