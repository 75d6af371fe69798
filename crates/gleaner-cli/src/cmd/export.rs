//! `gleaner export [-o FILE] [--format F] [filters…] [--news]`: the store's events out,
//! as JSON Lines, JSON, CSV, iCalendar or RSS, through the server's encoders
//! (`gleaner_server::encode`), so a file and a route never disagree.
//!
//! Events are the ones `/api/events` publishes (sources with `publish = false` stay out,
//! `keep = "facts"` drops descriptions and images), with its filters, on every date
//! unless `--from`/`--to` say otherwise; `--news` writes the newsroom pool instead. A
//! file is written beside its final name and renamed into place, so a crash or a full
//! disk never leaves half a file under that name. [`write_output`] and
//! [`OutputFormat`] are shared with `gleaner crawl -o`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use chrono::NaiveDate;
use clap::Args;
use gleaner_config::Settings;
use gleaner_config::sources::Keep;
use gleaner_server::ApiEvent;
use gleaner_server::api::{EventQuery, visible};
use gleaner_server::encode::{Format, encode};
use gleaner_store::Store;

use crate::BadInput;
use crate::wiring::open_store;
use gleaner_server::store_events::{api_event, news_item};

/// Arguments of `gleaner export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    output: OutputArgs,
    /// Events starting on or after this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    from: Option<String>,
    /// Events starting on or before this day.
    #[arg(long, value_name = "YYYY-MM-DD")]
    to: Option<String>,
    /// Only this source (its id in the config).
    #[arg(long, value_name = "ID")]
    source: Option<String>,
    /// Only events read from this site (a host, or a domain above it).
    #[arg(long, value_name = "DOMAIN")]
    site: Option<String>,
    /// Only events with this status: scheduled, cancelled, postponed, rescheduled,
    /// moved_online.
    #[arg(long, value_name = "STATUS")]
    status: Option<String>,
    /// Only this category (concert, theatre, …).
    #[arg(long, value_name = "NAME")]
    category: Option<String>,
    /// Only events in this town.
    #[arg(long, value_name = "TOWN")]
    locality: Option<String>,
    /// Only events whose title and description are in this language (ISO 639-1,
    /// detected as the translation step does).
    #[arg(long, value_name = "CODE")]
    lang: Option<String>,
    /// The newsroom pool (items of sources with `publish = false`) instead of events.
    #[arg(long)]
    news: bool,
}

/// `-o FILE` and `--format`, shared by `gleaner export` and `gleaner crawl`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Write to FILE instead of stdout (a temporary file beside it, renamed when complete).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// jsonl, json, csv, ics or rss; by default from FILE's extension, jsonl on stdout.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<String>,
}

impl OutputArgs {
    /// The format asked for, or the one the file's extension implies; bad input names
    /// the file or the format.
    pub fn format(&self) -> Result<Format> {
        let names = || Format::ALL.map(Format::name).join(", ");
        if let Some(name) = &self.format {
            return Format::from_name(name).ok_or_else(|| {
                BadInput(format!("unknown format `{name}`\nhint: gleaner writes {}", names()))
                    .into()
            });
        }
        match &self.output {
            None => Ok(Format::JsonLines),
            Some(path) => Format::from_path(path).ok_or_else(|| {
                BadInput(format!(
                    "cannot tell the format of `{}` from its extension\nhint: name it .jsonl, .json, .csv, .ics or .rss, or pass --format ({})",
                    path.display(),
                    names()
                ))
                .into()
            }),
        }
    }

    /// Checks before any work that the output file's folder exists and is a folder, so
    /// a crawl does not run for nothing.
    pub fn check_writable(&self) -> Result<()> {
        let Some(path) = &self.output else { return Ok(()) };
        if path.is_dir() {
            return Err(BadInput(format!("`{}` is a folder, not a file", path.display())).into());
        }
        let folder = folder_of(path);
        if !folder.is_dir() {
            return Err(BadInput(format!(
                "cannot write `{}`: the folder `{}` does not exist\nhint: create it first, or pick another path",
                path.display(),
                folder.display()
            ))
            .into());
        }
        Ok(())
    }
}

fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// Writes `text` to stdout, or to `path` through a temporary file in the same folder
/// that is renamed over it once complete and synced.
pub fn write_output(path: Option<&Path>, text: &str) -> Result<()> {
    let Some(path) = path else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).context("failed to write to stdout")?;
        return out.flush().context("failed to write to stdout");
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = folder_of(path).join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temp, path)
    })();
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temp);
        let what = format!("failed to write `{}`: {error}", path.display());
        return Err(match error.kind() {
            std::io::ErrorKind::NotFound
            | std::io::ErrorKind::PermissionDenied
            | std::io::ErrorKind::IsADirectory
            | std::io::ErrorKind::ReadOnlyFilesystem => BadInput(format!(
                "{what}\nhint: check that the folder exists and that you may write there"
            ))
            .into(),
            _ => anyhow::anyhow!(what),
        });
    }
    Ok(())
}

fn day(option: &str, value: &Option<String>) -> Result<Option<NaiveDate>> {
    match value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => NaiveDate::parse_from_str(v, "%Y-%m-%d").map(Some).map_err(|_| {
            BadInput(format!("--{option} `{v}` is not a day\nhint: write it as YYYY-MM-DD")).into()
        }),
    }
}

/// The public statuses `--status` takes.
const STATUSES: [&str; 5] = ["scheduled", "cancelled", "postponed", "rescheduled", "moved_online"];

impl ExportArgs {
    fn query(&self) -> Result<EventQuery> {
        if let Some(status) = &self.status
            && !STATUSES.contains(&status.as_str())
        {
            return Err(BadInput(format!(
                "unknown status `{status}`\nhint: statuses are {}",
                STATUSES.join(", ")
            ))
            .into());
        }
        if let Some(lang) = &self.lang
            && !(2..=3).contains(&lang.len())
        {
            return Err(BadInput(format!(
                "--lang `{lang}` is not a language code\nhint: use ISO 639-1, such as fr or tr"
            ))
            .into());
        }
        let (from, to) = (day("from", &self.from)?, day("to", &self.to)?);
        if let (Some(from), Some(to)) = (from, to)
            && to < from
        {
            return Err(BadInput(format!("--to {to} is before --from {from}")).into());
        }
        fn text(v: &Option<String>) -> Option<&str> {
            v.as_deref().map(str::trim).filter(|v| !v.is_empty())
        }
        Ok(EventQuery {
            from,
            to,
            category: text(&self.category).map(str::to_owned),
            locality: text(&self.locality).map(str::to_owned),
            source: text(&self.source).map(str::to_owned),
            site: text(&self.site).map(|s| s.trim_end_matches('.').to_ascii_lowercase()),
            status: text(&self.status).map(str::to_owned),
            lang: text(&self.lang).map(str::to_ascii_lowercase),
            page: 1,
            per_page: usize::MAX,
        })
    }
}

/// Runs `gleaner export`.
pub fn run(args: &ExportArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let format = args.output.format()?;
    let query = args.query()?;
    if let Some(source) = &query.source
        && !settings.sources.iter().any(|s| &s.id == source)
    {
        let known: Vec<&str> = settings.sources.iter().map(|s| s.id.as_str()).collect();
        return Err(BadInput(format!(
            "no source `{source}`\nhint: configured sources are {}",
            known.join(", ")
        ))
        .into());
    }
    args.output.check_writable()?;
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    let events = runtime.block_on(async {
        let store = open_store(&settings)?;
        if args.news {
            news(&store, &settings, &query).await
        } else {
            events(&store, &settings, &query).await
        }
    })?;
    write_output(args.output.output.as_deref(), &encode(format, &settings, &events))?;
    if let Some(path) = &args.output.output {
        eprintln!(
            "wrote {} {} to `{}` ({format})",
            events.len(),
            if args.news { "news item(s)" } else { "event(s)" },
            path.display()
        );
    }
    Ok(())
}

/// The published events of the store that pass the filters, soonest first.
async fn events(store: &Store, settings: &Settings, query: &EventQuery) -> Result<Vec<ApiEvent>> {
    // Day bounds are widened by the widest UTC offsets (−12 h, +14 h); `matches` then
    // compares the day as the event writes it.
    let now = SystemTime::now();
    let century = Duration::from_secs(100 * 366 * 24 * 3600);
    let at = |d: NaiveDate, shift_hours: i64| {
        let t =
            d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp() + shift_hours * 3600;
        SystemTime::UNIX_EPOCH + Duration::from_secs(t.max(0) as u64)
    };
    let from = query.from.map_or(SystemTime::UNIX_EPOCH, |d| at(d, -14));
    let to = query.to.map_or(now + century, |d| at(d, 24 + 12));
    let stored = store
        .events_between(from, to)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to read the events from the store")?;
    Ok(stored
        .iter()
        .filter(|e| e.event.status != gleaner_event::EventStatus::GoneAtSource)
        .map(api_event)
        .filter_map(|e| visible(settings, e))
        .filter(|e| query.matches(e))
        .collect())
}

/// The newsroom pool's items that pass the filters; summaries only where the source
/// keeps them in full.
async fn news(store: &Store, settings: &Settings, query: &EventQuery) -> Result<Vec<ApiEvent>> {
    let items = store
        .news(1_000_000)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to read the news items from the store")?;
    Ok(items
        .iter()
        .map(news_item)
        .map(|mut e| {
            let keep = settings.sources.iter().find(|s| s.id == e.source).map(|s| s.keep);
            if keep != Some(Keep::Full) {
                e.facts.description = None;
                e.facts.image_url = None;
            }
            e
        })
        .filter(|e| query.matches(e))
        .collect())
}

/// The events a crawl stored for the first time or updated (`gleaner crawl -o`), as
/// they are now, published ones only, in id order.
pub async fn stored_events(
    store: &Store,
    settings: &Settings,
    ids: &[i64],
) -> Result<Vec<ApiEvent>> {
    let mut events = Vec::with_capacity(ids.len());
    for id in ids {
        let stored = store
            .event(*id)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .with_context(|| format!("failed to read event {id} from the store"))?;
        if let Some(event) = stored
            .filter(|e| e.event.status != gleaner_event::EventStatus::GoneAtSource)
            .map(|e| api_event(&e))
            .and_then(|e| visible(settings, e))
        {
            events.push(event);
        }
    }
    Ok(events)
}
