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

use anyhow::{Context, Result};
use clap::Args;
use gleaner_server::api::EventQuery;
use gleaner_server::encode::{Format, encode};

use crate::BadInput;
use crate::wiring::open_store;
use gleaner_server::store_events::{exported_events, exported_news};

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

impl ExportArgs {
    /// The filters, checked strictly (bad input names the option).
    fn query(&self) -> Result<EventQuery> {
        let filters = [
            ("from", &self.from),
            ("to", &self.to),
            ("source", &self.source),
            ("site", &self.site),
            ("status", &self.status),
            ("category", &self.category),
            ("locality", &self.locality),
            ("lang", &self.lang),
        ];
        let given = filters.into_iter().filter_map(|(k, v)| Some((k.to_owned(), v.clone()?)));
        EventQuery::strict(&given.collect()).map_err(|e| BadInput(e).into())
    }
}

/// Runs `gleaner export`.
pub fn run(args: &ExportArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let format = args.output.format()?;
    let query = args.query()?;
    if let Some(source) = &query.source {
        crate::cmd::crawl::select_sources(&settings, std::slice::from_ref(source))?;
    }
    args.output.check_writable()?;
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    let events = runtime.block_on(async {
        let store = open_store(&settings)?;
        let events = if args.news {
            exported_news(&store, &settings, &query).await
        } else {
            exported_events(&store, &settings, &query).await
        };
        events.map_err(|e| anyhow::anyhow!(e))
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
