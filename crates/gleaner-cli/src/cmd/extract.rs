//! `gleaner extract --url BASE_URL [--source-tz ZONE] FILE`: the events of one saved page.
//!
//! A stable contract (SPEC §6): stdout is a JSON array of events with exactly the keys
//! `title, start, end, venue_name, street, locality, country, price_min, price_max,
//! currency, is_free, ticket_url, image_url, description, status, url` (absent values are
//! `null`); date-times are ISO 8601 with an offset where one is known; `status` is one of
//! `scheduled, cancelled, postponed, rescheduled, moved_online`. Diagnostics go to stderr,
//! one per line. A missing file, a bad URL or an unknown zone is an error on stderr naming
//! it, exit 2. The work is `gleaner_extract::extract_events`; this is glue.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;
use gleaner_event::{NormaliseContext, PublicEvent};

use crate::BadInput;

/// Arguments of `gleaner extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The URL the page was read from; relative links resolve against it.
    #[arg(long, value_name = "BASE_URL")]
    url: String,
    /// The source's IANA time zone (e.g. `Europe/Istanbul`), applied to times the page gives
    /// without one. Without it, such times are printed without an offset.
    #[arg(long, value_name = "ZONE")]
    source_tz: Option<String>,
    /// The saved page: HTML, or JSON-LD when the name ends in `.json` or `.jsonld`.
    #[arg(value_name = "FILE")]
    file: PathBuf,
}

/// Runs `gleaner extract`.
pub fn run(args: &ExtractArgs) -> Result<()> {
    let base = parse_base_url(&args.url)?;
    let default_tz = args.source_tz.as_deref().map(parse_zone).transpose()?;
    let bytes = std::fs::read(&args.file).map_err(|e| {
        BadInput(format!("failed to read page file `{}`: {e}", args.file.display()))
    })?;
    let ctx = NormaliseContext { base_url: &base, default_tz };
    let out = gleaner_extract::extract_events(&bytes, content_type(&args.file), &ctx);

    let mut stderr = std::io::stderr().lock();
    for d in &out.diagnostics {
        // Diagnostics are best effort; a closed stderr must not hide the data.
        let _ = writeln!(stderr, "{d}");
    }
    let public: Vec<PublicEvent> = out.events.iter().map(PublicEvent::from).collect();
    let json = serde_json::to_string_pretty(&public).context("failed to encode events as JSON")?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "{json}").context("failed to write events to stdout")?;
    stdout.flush().context("failed to write events to stdout")?;
    Ok(())
}

fn parse_base_url(value: &str) -> Result<url::Url, BadInput> {
    let url = url::Url::parse(value)
        .map_err(|e| BadInput(format!("`{value}` is not a valid base URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadInput(format!(
            "`{value}` is not an http or https URL (the base URL is where the page was read from)"
        )));
    }
    Ok(url)
}

fn parse_zone(value: &str) -> Result<chrono_tz::Tz, BadInput> {
    value.parse::<chrono_tz::Tz>().map_err(|_| {
        BadInput(format!(
            "`{value}` is not an IANA time zone\nhint: use a name such as `Europe/Istanbul` or `America/Chicago`"
        ))
    })
}

/// The content type a file name suggests; anything unknown is read as HTML.
fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "json" | "jsonld" => "application/ld+json",
        "ics" | "ical" => "text/calendar",
        "rss" | "atom" | "xml" => "application/rss+xml",
        _ => "text/html",
    }
}
