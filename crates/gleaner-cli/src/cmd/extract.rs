//! `gleaner extract --url BASE_URL [--source-tz ZONE] [--as events|news] [--expand FROM..TO]
//! [--rules RULES_FILE] [--no-fallback] [--today DATE] FILE_OR_URL`: the events of one saved
//! page, feed or calendar (or of a URL, fetched politely).
//!
//! A stable contract (SPEC §6): stdout is a JSON array of events with exactly the keys
//! `title, start, end, venue_name, street, locality, country, price_min, price_max,
//! currency, is_free, ticket_url, image_url, description, status, url` (absent values are
//! `null`); date-times are ISO 8601 with an offset where one is known; `status` is one of
//! `scheduled, cancelled, postponed, rescheduled, moved_online`. Diagnostics go to stderr,
//! one per line. A missing file, a bad URL or an unknown zone is an error on stderr naming
//! it, exit 2. The work is `gleaner_extract::extract_events_with`; this is glue.
//!
//! The kind of document comes from the file name and its first bytes (`.ics` or
//! `BEGIN:VCALENDAR`, `.rss`/`.atom` or an `<rss>`/`<feed>` root). A calendar prints one
//! event per `VEVENT` (a series as its first `DTSTART`, each `RECURRENCE-ID` override
//! separately); `--expand FROM..TO` prints the occurrences starting in those days instead.
//! A feed prints the items that carry an event date; `--as events` reads every item as an
//! event, `--as news` none.
//!
//! The page may also be an http(s) URL: it is fetched once through the gate as a manual
//! check (the config's bot, robots.txt, the site's budget and the daily cap of manual
//! checks apply; a refusal is exit 3), then read with `--rules` or else the config's
//! `[[site_rules]]` for its site.
//!
//! `--rules FILE` reads a TOML file of `[[site_rules]]` tables (the same tables as in
//! `gleaner.toml`, issue 10) and applies the rules of the base URL's site. A page with
//! neither structured data nor rules is read by the generic fallback (low confidence,
//! said on stderr) unless `--no-fallback` is given. Dates written without a year are resolved after
//! `--today` (default: today's date).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use clap::Args;
use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::rules::CompiledRules;
use gleaner_extract::{ExtractOptions, FeedMode};

use crate::BadInput;

/// Arguments of `gleaner extract`.
#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The URL the page was read from; relative links resolve against it. Required for a
    /// saved file; for a URL, the address it was finally read from.
    #[arg(long, value_name = "BASE_URL")]
    url: Option<String>,
    /// The source's IANA time zone (e.g. `Europe/Istanbul`), applied to times the page gives
    /// without one. Without it, such times are printed without an offset.
    #[arg(long, value_name = "ZONE")]
    source_tz: Option<String>,
    /// Whether feed items are events or news (default: an item with an event date is an
    /// event).
    #[arg(long = "as", value_name = "KIND", value_parser = ["events", "news"])]
    as_kind: Option<String>,
    /// Expand calendar series into their occurrences from FROM to TO inclusive
    /// (`2026-12-01..2026-12-31`, days in the source's zone, else UTC).
    #[arg(long, value_name = "FROM..TO")]
    expand: Option<String>,
    /// Site rules: a TOML file of `[[site_rules]]` tables, as in `gleaner.toml`.
    #[arg(long, value_name = "RULES_FILE")]
    rules: Option<PathBuf>,
    /// Do not read pages without structured data or rules with the generic fallback
    /// (it is on by default, and says "low confidence" on stderr).
    #[arg(long)]
    no_fallback: bool,
    /// Accepted for older scripts: the fallback is on by default.
    #[arg(long, hide = true, conflicts_with = "no_fallback")]
    fallback: bool,
    /// The day the page was read (`2026-11-30`): dates without a year come after it.
    #[arg(long, value_name = "DATE")]
    today: Option<String>,
    /// The saved page: HTML, JSON-LD (`.json`, `.jsonld`), a feed (`.rss`, `.atom`, `.xml`)
    /// or a calendar (`.ics`); or an http(s) URL, fetched once through the gate as a manual
    /// check under the config.
    #[arg(value_name = "FILE_OR_URL")]
    file: PathBuf,
}

/// Runs `gleaner extract`.
pub fn run(args: &ExtractArgs, config: &Path) -> Result<()> {
    let as_url =
        args.file.to_str().filter(|s| s.starts_with("http://") || s.starts_with("https://"));
    let (bytes, base, fetched_type, settings) = match as_url {
        Some(url) => {
            let url = parse_base_url(url)?;
            let page = crate::cmd::extract_fetch::fetch_page(url, config)?;
            let base = match &args.url {
                Some(u) => parse_base_url(u)?,
                None => page.url,
            };
            (page.body, base, Some(page.content_type), Some(page.settings))
        }
        None => {
            let Some(url) = &args.url else {
                return Err(BadInput(format!(
                    "`--url BASE_URL` is needed with a saved page (`{}`)\nhint: give the address the page was read from, e.g. `--url https://venue.example/agenda/`",
                    args.file.display()
                ))
                .into());
            };
            let base = parse_base_url(url)?;
            let bytes = std::fs::read(&args.file).map_err(|e| {
                BadInput(format!("failed to read page file `{}`: {e}", args.file.display()))
            })?;
            (bytes, base, None, None)
        }
    };
    let default_tz = match args.source_tz.as_deref().map(parse_zone).transpose()? {
        Some(z) => Some(z),
        None => settings.as_ref().and_then(|s| {
            let host = base.host_str()?.to_ascii_lowercase();
            Some(s.time_zone_of(&host))
        }),
    };
    let expand = args.expand.as_deref().map(|w| parse_window(w, default_tz)).transpose()?;
    let feed_mode = match args.as_kind.as_deref() {
        Some("events") => FeedMode::Events,
        Some("news") => FeedMode::News,
        _ => FeedMode::Auto,
    };
    let ctx = NormaliseContext { base_url: &base, default_tz };
    // Rules from `--rules`; for a fetched URL, else the config's rules for its site.
    let rules = match args.rules.as_deref() {
        Some(path) => Some(load_rules(path, &base)?),
        None => settings.as_ref().and_then(|s| s.site_rules.for_url(&base)),
    };
    let reference_date = match args.today.as_deref() {
        Some(day) => NaiveDate::parse_from_str(day.trim(), "%Y-%m-%d").map_err(|_| {
            BadInput(format!("`{day}` is not a date\nhint: write `--today 2026-11-30`"))
        })?,
        None => chrono::Local::now().date_naive(),
    };
    let opts = ExtractOptions {
        feed_mode,
        expand,
        file_name: args.file.file_name().and_then(|n| n.to_str()).map(str::to_owned),
        default_tz,
        rules,
        fallback: !args.no_fallback,
        reference_date: Some(reference_date),
    };
    let content_type = fetched_type.as_deref().unwrap_or_else(|| content_type(&args.file));
    let out = gleaner_extract::extract_events_with(&bytes, content_type, &ctx, &opts);

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

/// Reads a rules file and picks the rules of `base`'s site.
fn load_rules(path: &Path, base: &url::Url) -> Result<Arc<CompiledRules>, BadInput> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| BadInput(format!("failed to read rules file `{name}`: {e}")))?;
    gleaner_config::site_rules::rules_for(&text, &name, base).map_err(BadInput)
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

/// `FROM..TO` (inclusive days) as instants: from the start of FROM to the end of TO, in
/// `zone` (UTC without one).
fn parse_window(
    value: &str,
    zone: Option<chrono_tz::Tz>,
) -> Result<(DateTime<Utc>, DateTime<Utc>), BadInput> {
    let bad = || {
        BadInput(format!(
            "`{value}` is not a window of days\nhint: write `--expand 2026-12-01..2026-12-31`"
        ))
    };
    let (from, to) = value.split_once("..").ok_or_else(bad)?;
    let day = |s: &str| NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d").map_err(|_| bad());
    let (from, to) = (day(from)?, day(to)?);
    let to = to.succ_opt().ok_or_else(bad)?;
    if to <= from {
        return Err(bad());
    }
    let start_of = |d: NaiveDate| -> Option<DateTime<Utc>> {
        let local = d.and_hms_opt(0, 0, 0)?;
        match zone {
            Some(z) => z.from_local_datetime(&local).earliest().map(|t| t.with_timezone(&Utc)),
            None => Some(Utc.from_utc_datetime(&local)),
        }
    };
    Ok((start_of(from).ok_or_else(bad)?, start_of(to).ok_or_else(bad)?))
}

/// The content type a file name suggests; anything unknown is read as HTML.
fn content_type(path: &Path) -> &'static str {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "json" | "jsonld" => "application/ld+json",
        "ics" | "ical" => "text/calendar",
        "rss" | "atom" => "application/rss+xml",
        // Feeds and sitemaps both end in `.xml`: the first bytes decide.
        "xml" | "gz" => "application/xml",
        _ => "text/html",
    }
}
