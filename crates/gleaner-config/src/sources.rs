//! Sources: what the operator asks gleaner to read, and when (SPEC §2; issue 12).
//!
//! A source has an id, a kind, start URLs, a way to find event pages (a CSS selector or
//! a URL prefix), a schedule that is never more frequent than the configured minimum,
//! a site class, what to keep and whether to publish. The raw TOML form is in
//! [`RawSource`]; [`resolve_sources`] validates it into [`Source`]s.

use std::collections::BTreeSet;
use std::time::Duration;

use chrono::NaiveTime;
use chrono_tz::Tz;
use serde::Deserialize;
use url::Url;

use crate::error::Problem;
use crate::units::parse_duration;

/// `[[sources]]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSource {
    /// A unique id (letters, digits, `-`, `_`).
    pub id: String,
    /// `listing`, `sitemap`, `feed`, `ical`, `json-api`, `licensed-api` or `open-data`.
    pub kind: String,
    /// Where a pass starts.
    pub start_urls: Vec<String>,
    /// CSS selector of links to event pages on a listing (`a.event-link`).
    pub event_selector: Option<String>,
    /// Only links whose URL starts with this (absolute, or a path on the listing's site).
    pub event_url_prefix: Option<String>,
    /// CSS selector of the "next page" link; `a[rel=next]` when absent.
    pub next_page_selector: Option<String>,
    /// Most listing pages read per pass.
    pub max_listing_pages: Option<u32>,
    /// Most event pages read per pass.
    pub max_event_pages: Option<u32>,
    /// How often a pass runs (`6h`); at least `min_interval`.
    pub every: Option<String>,
    /// Local times of day instead of an interval (`["07:00", "19:00"]`).
    pub at: Option<Vec<String>>,
    /// The class of the source's sites (quotas, zone).
    pub site_class: Option<String>,
    /// `facts` or `full` (adds descriptions and image addresses).
    pub keep: Option<String>,
    /// Whether its events are published as they are.
    pub publish: Option<bool>,
    /// Whether titles and descriptions are translated into English.
    pub translate: Option<bool>,
    /// When the language model reads its pages: `off` (default), `fallback`, `always`.
    pub llm: Option<String>,
    /// Zone for times the pages give without one.
    pub time_zone: Option<String>,
    /// Category when the event gives no clue.
    pub category: Option<String>,
    /// The site's public terms page, archived on change.
    pub terms_url: Option<String>,
    /// The site's press page, archived on change.
    pub press_url: Option<String>,
    /// Licensed APIs: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// What the press page says about images: `relay` or `link-only` (the default).
    pub press_image_terms: Option<String>,
    /// Licensed APIs: the query parameter the key goes in.
    pub api_key_param: Option<String>,
    /// Licensed APIs: their own limit, as a gap between requests (`200ms`).
    pub api_gap: Option<String>,
    /// JSON APIs: where each field is, as JSON pointers (`[sources.api]`).
    pub api: Option<gleaner_extract::api::ApiMapping>,
}

/// How a source is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SourceKind {
    /// HTML listing pages (with pagination) linking to event pages.
    Listing,
    /// A sitemap or sitemap index listing event pages.
    Sitemap,
    /// RSS or Atom.
    Feed,
    /// An iCalendar file.
    Ical,
    /// A JSON API with a field mapping.
    JsonApi,
    /// A licensed API (key in the environment; skips robots.txt, keeps its own limits).
    LicensedApi,
    /// Open data (JSON, CSV).
    OpenData,
}

impl SourceKind {
    /// Parses the config name.
    pub fn from_name(name: &str) -> Option<SourceKind> {
        Some(match name {
            "listing" => SourceKind::Listing,
            "sitemap" => SourceKind::Sitemap,
            "feed" => SourceKind::Feed,
            "ical" => SourceKind::Ical,
            "json-api" => SourceKind::JsonApi,
            "licensed-api" => SourceKind::LicensedApi,
            "open-data" => SourceKind::OpenData,
            _ => return None,
        })
    }

    /// The config name.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Listing => "listing",
            SourceKind::Sitemap => "sitemap",
            SourceKind::Feed => "feed",
            SourceKind::Ical => "ical",
            SourceKind::JsonApi => "json-api",
            SourceKind::LicensedApi => "licensed-api",
            SourceKind::OpenData => "open-data",
        }
    }

    /// Whether this build can read the kind yet. Kinds that cannot are refused by
    /// `gleaner config check` rather than silently skipped.
    pub fn is_supported(self) -> bool {
        matches!(
            self,
            SourceKind::Listing
                | SourceKind::Sitemap
                | SourceKind::Feed
                | SourceKind::Ical
                | SourceKind::JsonApi
        )
    }
}

/// When a source's passes run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schedule {
    /// Every so often.
    Every(Duration),
    /// At these local times of day, in the source's zone.
    At(Vec<NaiveTime>),
}

/// What is kept of each event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Facts only: title, times, venue, price, tickets, status, URL.
    Facts,
    /// Facts plus description and image address.
    Full,
}

/// A validated source.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Unique id.
    pub id: String,
    /// How it is read.
    pub kind: SourceKind,
    /// Where a pass starts.
    pub start_urls: Vec<Url>,
    /// Selector of event links on listings.
    pub event_selector: Option<String>,
    /// Only event links under this URL prefix.
    pub event_url_prefix: Option<String>,
    /// Selector of the next listing page.
    pub next_page_selector: String,
    /// Most listing pages per pass.
    pub max_listing_pages: u32,
    /// Most event pages per pass.
    pub max_event_pages: u32,
    /// When passes run.
    pub schedule: Schedule,
    /// The site class name.
    pub site_class: Option<String>,
    /// What is kept.
    pub keep: Keep,
    /// Whether events are published as they are.
    pub publish: bool,
    /// Whether to translate.
    pub translate: bool,
    /// When the language model reads its pages.
    pub llm: crate::llm::LlmMode,
    /// Zone for times without one.
    pub time_zone: Option<Tz>,
    /// Default category name.
    pub category: Option<String>,
    /// Terms page.
    pub terms_url: Option<Url>,
    /// Press page.
    pub press_url: Option<Url>,
    /// The image terms the operator recorded from the press page (images are relayed
    /// only under `relay`).
    pub press_image_terms: crate::relay::ImageTerms,
    /// JSON and licensed APIs: the field mapping.
    pub api: Option<gleaner_extract::api::ApiMapping>,
}

/// The smallest interval between two passes of a source unless configured (SPEC: 1 h).
pub const DEFAULT_MIN_INTERVAL: Duration = Duration::from_secs(3600);

fn url_list(problems: &mut Vec<Problem>, key: &str, raw: &[String]) -> Vec<Url> {
    let mut out = Vec::new();
    for (i, text) in raw.iter().enumerate() {
        match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => out.push(url),
            _ => problems.push(
                Problem::at(format!("{key}[{i}]"), format!("`{text}` is not an http or https URL"))
                    .hint("write the full address, e.g. `https://venue.example/agenda/`"),
            ),
        }
    }
    out
}

fn optional_url(problems: &mut Vec<Problem>, key: &str, raw: Option<&String>) -> Option<Url> {
    let text = raw?;
    match Url::parse(text) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Some(url),
        _ => {
            problems.push(Problem::at(key, format!("`{text}` is not an http or https URL")));
            None
        }
    }
}

/// Validates the `[[sources]]` list. `classes` are the known site class names;
/// `min_interval` is the shortest schedule allowed.
pub fn resolve_sources(
    raw: &[RawSource],
    classes: &BTreeSet<String>,
    min_interval: Duration,
    problems: &mut Vec<Problem>,
) -> Vec<Source> {
    let mut ids = BTreeSet::new();
    let mut sources = Vec::new();
    for (i, s) in raw.iter().enumerate() {
        let key = |field: &str| format!("sources[{i}].{field}");
        let before = problems.len();
        if s.id.is_empty()
            || !s.id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            problems.push(
                Problem::at(key("id"), format!("`{}` is not a source id", s.id))
                    .hint("use letters, digits, `-` and `_`"),
            );
        } else if !ids.insert(s.id.clone()) {
            problems.push(Problem::at(key("id"), format!("`{}` is used by two sources", s.id)));
        }
        let kind = SourceKind::from_name(&s.kind);
        match kind {
            None => problems.push(
                Problem::at(key("kind"), format!("`{}` is not a source kind", s.kind))
                    .hint("use listing, sitemap, feed, ical, json-api, licensed-api or open-data"),
            ),
            Some(k) if !k.is_supported() => problems.push(
                Problem::at(
                    key("kind"),
                    format!("`{}` sources are not supported by this version yet", s.kind),
                )
                .hint("this version reads `listing`, `sitemap`, `feed`, `ical` and `json-api` sources"),
            ),
            Some(_) => {}
        }
        let start_urls = url_list(problems, &key("start_urls"), &s.start_urls);
        if s.start_urls.is_empty() {
            problems.push(Problem::at(key("start_urls"), "must list at least one URL"));
        }
        let schedule = match (&s.every, &s.at) {
            (Some(_), Some(_)) => {
                problems.push(Problem::at(key("every"), "give `every` or `at`, not both"));
                Schedule::Every(min_interval)
            }
            (Some(text), None) => match parse_duration(text) {
                Ok(d) if d < min_interval => {
                    problems.push(
                        Problem::at(
                            key("every"),
                            format!(
                                "`{text}` is more often than the minimum of {}",
                                humantime::format_duration(min_interval)
                            ),
                        )
                        .hint("a polite bot visits a source at most once an hour by default"),
                    );
                    Schedule::Every(min_interval)
                }
                Ok(d) => Schedule::Every(d),
                Err(e) => {
                    problems.push(Problem::at(key("every"), e));
                    Schedule::Every(min_interval)
                }
            },
            (None, Some(times)) => {
                let mut parsed = Vec::new();
                for (j, t) in times.iter().enumerate() {
                    match NaiveTime::parse_from_str(t.trim(), "%H:%M") {
                        Ok(time) => parsed.push(time),
                        Err(_) => problems.push(
                            Problem::at(
                                format!("{}[{j}]", key("at")),
                                format!("`{t}` is not a time of day"),
                            )
                            .hint("write `HH:MM`"),
                        ),
                    }
                }
                parsed.sort();
                Schedule::At(parsed)
            }
            (None, None) => Schedule::Every(min_interval.max(Duration::from_secs(6 * 3600))),
        };
        if let Some(class) = &s.site_class
            && !classes.contains(class)
        {
            problems.push(
                Problem::at(key("site_class"), format!("no site class `{class}`"))
                    .hint(format!("define `[site_classes.{class}]`")),
            );
        }
        let keep = match s.keep.as_deref() {
            None | Some("facts") => Keep::Facts,
            Some("full") => Keep::Full,
            Some(other) => {
                problems
                    .push(Problem::at(key("keep"), format!("`{other}` is not `facts` or `full`")));
                Keep::Facts
            }
        };
        let time_zone = s.time_zone.as_ref().and_then(|name| match name.parse::<Tz>() {
            Ok(tz) => Some(tz),
            Err(_) => {
                problems.push(Problem::at(
                    key("time_zone"),
                    format!("`{name}` is not an IANA time zone"),
                ));
                None
            }
        });
        if let Some(selector) = &s.event_selector
            && selector.trim().is_empty()
        {
            problems.push(Problem::at(key("event_selector"), "is empty"));
        }
        if kind == Some(SourceKind::JsonApi) && s.api.is_none() {
            problems.push(
                Problem::at(key("kind"), "a `json-api` source needs its field mapping")
                    .hint("add `[sources.api]` with JSON pointers, e.g. `events = \"/events\"`, `title = \"/title\"`, `start = \"/start\"`"),
            );
        }
        let terms_url = optional_url(problems, &key("terms_url"), s.terms_url.as_ref());
        let press_url = optional_url(problems, &key("press_url"), s.press_url.as_ref());
        let press_image_terms = crate::relay::ImageTerms::resolve(
            &key("press_image_terms"),
            s.press_image_terms.as_deref(),
            problems,
        );
        if problems.len() > before {
            continue;
        }
        sources.push(Source {
            id: s.id.clone(),
            kind: kind.unwrap_or(SourceKind::Listing),
            start_urls,
            event_selector: s.event_selector.clone(),
            event_url_prefix: s.event_url_prefix.clone(),
            next_page_selector: s
                .next_page_selector
                .clone()
                .unwrap_or_else(|| "a[rel=next], link[rel=next]".to_owned()),
            max_listing_pages: s.max_listing_pages.unwrap_or(5),
            max_event_pages: s.max_event_pages.unwrap_or(50),
            schedule,
            site_class: s.site_class.clone(),
            keep,
            publish: s.publish.unwrap_or(true),
            translate: s.translate.unwrap_or(false),
            llm: crate::llm::mode(&key("llm"), s.llm.as_deref(), problems),
            time_zone,
            category: s.category.clone(),
            terms_url,
            press_url,
            press_image_terms,
            api: s.api.clone(),
        });
    }
    sources
}
