//! `[relay]`: the image relay's numbers (SPEC §5, the CIXTRA-Bot seed), and the image
//! terms an operator records per source from its press page.
//!
//! The relay keeps images in memory only, for at most one hour (less per the response's
//! Cache-Control), one request at a time per host, at least one second apart, with a
//! bounded wait queue that fails fast. Every number here is checked against those
//! promises: a config cannot loosen them.

use std::time::Duration;

use serde::Deserialize;

use crate::Problem;
use crate::units::{parse_duration, parse_size};

/// `[relay]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRelay {
    /// Longest an image is kept in memory (at most `1h`).
    pub max_age: Option<String>,
    /// Memory for cached images, all hosts together (`64MiB`).
    pub memory_cap: Option<String>,
    /// Largest image relayed (`5MiB`); larger ones are refused.
    pub max_image_bytes: Option<String>,
    /// Visitors waiting per host beyond the one request in flight; more get a 503.
    pub queue_per_host: Option<u32>,
    /// How long a visitor waits for the site's budget before a 503 (`5s`).
    pub max_wait: Option<String>,
    /// How long a failed fetch is not retried (at least `1m`).
    pub failure_backoff: Option<String>,
    /// Least time between two relay requests to one host (at least `1s`).
    pub min_gap: Option<String>,
}

/// The resolved relay settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelaySettings {
    /// Longest an image is kept in memory (≤ 1 h).
    pub max_age: Duration,
    /// Memory for cached images, in bytes (LRU eviction beyond it).
    pub memory_cap: u64,
    /// Largest image relayed, in bytes.
    pub max_image_bytes: u64,
    /// Visitors that may wait per host beyond the request in flight.
    pub queue_per_host: u32,
    /// How long a visitor waits for the site's budget before a 503.
    pub max_wait: Duration,
    /// How long a failed fetch is not retried (≥ 1 min).
    pub failure_backoff: Duration,
    /// Least time between two relay requests to one host (≥ 1 s).
    pub min_gap: Duration,
}

impl Default for RelaySettings {
    fn default() -> Self {
        RelaySettings {
            max_age: Duration::from_secs(3600),
            memory_cap: 64 * 1024 * 1024,
            max_image_bytes: 5 * 1024 * 1024,
            queue_per_host: 8,
            max_wait: Duration::from_secs(5),
            failure_backoff: Duration::from_secs(60),
            min_gap: Duration::from_secs(1),
        }
    }
}

/// What a source's press page says about its images, as the operator recorded it
/// (`press_image_terms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ImageTerms {
    /// Images may be linked, never fetched or relayed (the default: nothing is relayed
    /// unless the operator recorded that the terms allow it).
    #[default]
    LinkOnly,
    /// Images may be shown through the relay.
    Relay,
}

impl ImageTerms {
    /// The name used in config files and on the about page.
    pub const fn as_str(self) -> &'static str {
        match self {
            ImageTerms::LinkOnly => "link-only",
            ImageTerms::Relay => "relay",
        }
    }

    /// Parses `press_image_terms` at `key`, reporting a bad value.
    pub fn resolve(key: &str, value: Option<&str>, problems: &mut Vec<Problem>) -> ImageTerms {
        match value {
            None | Some("link-only") => ImageTerms::LinkOnly,
            Some("relay") => ImageTerms::Relay,
            Some(other) => {
                problems.push(
                    Problem::at(key, format!("`{other}` is not `relay` or `link-only`")).hint(
                        "write what the source's press page says: `relay` when its images may be shown, else `link-only`",
                    ),
                );
                ImageTerms::LinkOnly
            }
        }
    }
}

fn duration(key: &str, v: Option<&String>, default: Duration, p: &mut Vec<Problem>) -> Duration {
    match v.map(|t| parse_duration(t)) {
        None => default,
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            p.push(Problem::at(key, e));
            default
        }
    }
}

fn size(key: &str, v: Option<&String>, default: u64, p: &mut Vec<Problem>) -> u64 {
    match v.map(|t| parse_size(t)) {
        None => default,
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            p.push(Problem::at(key, e));
            default
        }
    }
}

/// Resolves `[relay]`, checking the SPEC's bounds.
pub fn resolve(raw: &RawRelay, problems: &mut Vec<Problem>) -> RelaySettings {
    let d = RelaySettings::default();
    let s = RelaySettings {
        max_age: duration("relay.max_age", raw.max_age.as_ref(), d.max_age, problems),
        memory_cap: size("relay.memory_cap", raw.memory_cap.as_ref(), d.memory_cap, problems),
        max_image_bytes: size(
            "relay.max_image_bytes",
            raw.max_image_bytes.as_ref(),
            d.max_image_bytes,
            problems,
        ),
        queue_per_host: raw.queue_per_host.unwrap_or(d.queue_per_host),
        max_wait: duration("relay.max_wait", raw.max_wait.as_ref(), d.max_wait, problems),
        failure_backoff: duration(
            "relay.failure_backoff",
            raw.failure_backoff.as_ref(),
            d.failure_backoff,
            problems,
        ),
        min_gap: duration("relay.min_gap", raw.min_gap.as_ref(), d.min_gap, problems),
    };
    if s.max_age > Duration::from_secs(3600) {
        problems.push(
            Problem::at("relay.max_age", "must be at most 1h")
                .hint("SPEC §5: the relay keeps an image in memory for at most one hour"),
        );
    }
    if s.failure_backoff < Duration::from_secs(60) {
        problems.push(
            Problem::at("relay.failure_backoff", "must be at least 1m")
                .hint("SPEC §5: a failed fetch is not retried for one minute"),
        );
    }
    if s.min_gap < Duration::from_secs(1) {
        problems.push(
            Problem::at("relay.min_gap", "must be at least 1s")
                .hint("SPEC §1: relay requests to one host are at least one second apart"),
        );
    }
    if s.max_image_bytes == 0 || s.memory_cap < s.max_image_bytes {
        problems.push(
            Problem::at("relay.memory_cap", "must be at least `relay.max_image_bytes`")
                .hint("the cache must hold at least one image of the largest size relayed"),
        );
    }
    s
}
