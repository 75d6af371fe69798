//! Events out, in every format gleaner writes: JSON Lines, JSON, CSV, iCalendar and RSS.
//!
//! One implementation for the server's routes (`/api/events`, `/events.ics`,
//! `/events.rss`) and `gleaner export` / `gleaner crawl -o`: text in memory, no I/O.
//! JSON and JSON Lines write each event in the API's shape ([`crate::ApiEvent`]'s
//! serialisation); CSV is in [`csv`], iCalendar and RSS in [`feeds`].

pub mod csv;
pub mod feeds;

use std::path::Path;

use gleaner_config::Settings;

use crate::ApiEvent;

pub use feeds::{ics, rss, safe_url};

/// An output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// One JSON object per line (`.jsonl`, `.ndjson`).
    JsonLines,
    /// One JSON array (`.json`).
    Json,
    /// Comma-separated values with a header row (`.csv`).
    Csv,
    /// iCalendar, RFC 5545 (`.ics`).
    Ical,
    /// RSS 2.0 (`.rss`, `.xml`).
    Rss,
}

impl Format {
    /// Every format, in the order `--help` lists them.
    pub const ALL: [Format; 5] =
        [Format::JsonLines, Format::Json, Format::Csv, Format::Ical, Format::Rss];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::JsonLines => "jsonl",
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Ical => "ics",
            Format::Rss => "rss",
        }
    }

    /// A format by name (ASCII case ignored; `ical` and `ndjson` are accepted too).
    pub fn from_name(name: &str) -> Option<Format> {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "ndjson" | "jsonlines" => Some(Format::JsonLines),
            "ical" | "icalendar" => Some(Format::Ical),
            _ => Format::ALL.into_iter().find(|f| f.name() == name),
        }
    }

    /// The format a file name's extension implies, if any.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "xml" => Some(Format::Rss),
            other => Format::from_name(other),
        }
    }

    /// The media type of a response in this format.
    pub fn media_type(self) -> &'static str {
        match self {
            Format::JsonLines => "application/x-ndjson",
            Format::Json => "application/json",
            Format::Csv => "text/csv; charset=utf-8; header=present",
            Format::Ical => "text/calendar; charset=utf-8",
            Format::Rss => "application/rss+xml; charset=utf-8",
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The events as one document in `format`. The settings give the calendar's and feed's
/// name and the host of the iCalendar UIDs.
pub fn encode(format: Format, settings: &Settings, events: &[ApiEvent]) -> String {
    match format {
        Format::JsonLines => json_lines(events),
        Format::Json => json(events),
        Format::Csv => csv::csv(events),
        Format::Ical => ics(settings, events),
        Format::Rss => rss(settings, events),
    }
}

/// One event per line, each in the API's shape.
pub fn json_lines(events: &[ApiEvent]) -> String {
    let mut out = String::new();
    for event in events {
        // An `ApiEvent` is strings, numbers and booleans: serialising cannot fail.
        out.push_str(&serde_json::to_string(event).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// A JSON array of events in the API's shape.
pub fn json(events: &[ApiEvent]) -> String {
    let mut out = serde_json::to_string_pretty(events).unwrap_or_else(|_| "[]".to_owned());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_name_and_extension() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("ICS"), Some(Format::Ical));
        assert_eq!(Format::from_name("yaml"), None);
        assert_eq!(Format::from_path(Path::new("out/events.ICS")), Some(Format::Ical));
        assert_eq!(Format::from_path(Path::new("feed.xml")), Some(Format::Rss));
        assert_eq!(Format::from_path(Path::new("events.ndjson")), Some(Format::JsonLines));
        assert_eq!(Format::from_path(Path::new("events")), None);
        assert_eq!(Format::from_path(Path::new("events.txt")), None);
    }
}
