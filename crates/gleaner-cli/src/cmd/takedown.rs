//! `gleaner takedown URL`: stops the image relay from delivering an image, in every
//! process at once (each delivery reads the store; running relays also drop the bytes
//! from memory within seconds), and for good: the next crawl does not bring it back.
//! `--list` prints every takedown.

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use anyhow::{Context, Result};
use clap::Args;

use crate::BadInput;
use crate::cmd::optout::{open_store, runtime};

/// Arguments of `gleaner takedown`.
#[derive(Debug, Args)]
pub struct TakedownArgs {
    /// The image's address at its site, or its relay address (`…/relay/ID`).
    #[arg(required_unless_present = "list")]
    url: Option<String>,
    /// Why (kept with the takedown).
    #[arg(long, default_value = "operator takedown")]
    reason: String,
    /// List every takedown instead.
    #[arg(long, conflicts_with = "url")]
    list: bool,
}

/// Runs `gleaner takedown`.
pub fn run(args: &TakedownArgs, config: &Path) -> Result<()> {
    let (_settings, store) = open_store(config)?;
    let rt = runtime()?;
    let mut out = std::io::stdout().lock();
    if args.list {
        let all = rt.block_on(store.takedowns()).context("failed to read the takedowns")?;
        if all.is_empty() {
            writeln!(out, "no takedowns")?;
        }
        for t in all {
            let at = chrono::DateTime::<chrono::Utc>::from(t.at).to_rfc3339();
            writeln!(out, "{at}  {}  ({})", t.url, t.reason)?;
        }
        return Ok(());
    }
    let given = args.url.as_deref().unwrap_or_default().trim();
    let parsed = url::Url::parse(given).map_err(|e| {
        BadInput(format!(
            "`{given}` is not a URL: {e}\nhint: give the image's full address (`https://…/poster.jpg`) or its relay address (`…/relay/ID`)"
        ))
    })?;
    // A relay address names the image by id: take down the image behind it.
    let target = match parsed.path().strip_prefix("/relay/") {
        Some(id) => match rt.block_on(store.relay_image(id)).context("failed to read the relay")? {
            Some(image) => image.url,
            None => {
                return Err(BadInput(format!(
                    "no image is relayed under `{given}`\nhint: `gleaner takedown --list` shows the takedowns made so far"
                ))
                .into());
            }
        },
        None => parsed.to_string(),
    };
    let known = rt
        .block_on(store.take_down(&target, &args.reason, SystemTime::now()))
        .with_context(|| format!("failed to take down `{target}`"))?;
    writeln!(out, "taken down: {target}")?;
    if known {
        writeln!(out, "the relay stops delivering it now and evicts it from memory")?;
    } else {
        writeln!(out, "not relayed so far; it never will be")?;
    }
    Ok(())
}
