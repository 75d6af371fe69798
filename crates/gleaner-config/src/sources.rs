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
    #[serde(default)]
    pub start_urls: Vec<String>,
    /// A file of more start URLs, one per line (`#` comments, blank lines), relative to
    /// the config file: for a source with thousands of venues. The binary reads it
    /// ([`crate::Settings::load_start_urls_files`]).
    pub start_urls_file: Option<String>,
    /// Most sites of this source crawled at once in a pass (default 1,000).
    pub max_sites_at_once: Option<u32>,
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
    /// Whether pages without structured data or site rules are read by the generic
    /// fallback (default `true`).
    pub fallback: Option<bool>,
    /// Zone for times the pages give without one.
    pub time_zone: Option<String>,
    /// Category when the event gives no clue.
    pub category: Option<String>,
    /// The site's public terms page, archived on change.
    pub terms_url: Option<String>,
    /// The site's press page, archived on change.
    pub press_url: Option<String>,
    /// What the press page says about images: `relay` or `link-only` (the default).
    pub press_image_terms: Option<String>,
    /// Licensed APIs: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// Licensed APIs: the query parameter the key goes in.
    pub api_key_param: Option<String>,
    /// Licensed APIs: their own limit, as a gap between requests (`200ms`).
    pub api_gap: Option<String>,
    /// JSON APIs: where each field is, as JSON pointers (`[sources.api]`).
    pub api: Option<gleaner_extract::api::ApiMapping>,
    /// JSON and licensed APIs: the query parameter that selects a page (`page`).
    pub page_param: Option<String>,
    /// JSON and licensed APIs: the number of the first page (0 unless the API counts from 1).
    pub first_page: Option<u32>,
    /// JSON and licensed APIs: JSON pointer to the number of pages (`/page/totalPages`);
    /// without it, pages are read until one holds no event.
    pub total_pages: Option<String>,
    /// Open data: where each record and its title, date and link are (`[sources.records]`).
    pub records: Option<gleaner_extract::opendata::RecordMapping>,
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
        true
    }

    /// Whether sources of this kind read JSON documents through an [`ApiMapping`]
    /// (`json-api`, `licensed-api`).
    ///
    /// [`ApiMapping`]: gleaner_extract::api::ApiMapping
    pub fn is_api(self) -> bool {
        matches!(self, SourceKind::JsonApi | SourceKind::LicensedApi)
    }
}

/// A licensed API's terms: robots.txt is not consulted for its own site (the licence
/// governs), its key comes from the environment, and its own rate limit sets the gap.
#[derive(Debug, Clone, PartialEq)]
pub struct LicensedApi {
    /// The environment variable holding the key (read by the binary, never by this crate).
    pub key_env: String,
    /// The query parameter the key is sent in (also redacted everywhere).
    pub key_param: String,
    /// The smallest gap between two requests to the API, from its rate limit.
    pub gap: Duration,
    /// The key, once the binary has read it ([`Settings::load_api_keys`]); `None` until then
    /// or when the variable is unset.
    ///
    /// [`Settings::load_api_keys`]: crate::Settings::load_api_keys
    pub key: Option<crate::Secret>,
}

/// How an API's pages are walked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paging {
    /// The query parameter that selects a page.
    pub param: String,
    /// The first page's number.
    pub first: u32,
    /// JSON pointer to the number of pages, when the API says it.
    pub total_pointer: Option<String>,
}

/// The default gap between requests to a licensed API when `api_gap` is not given.
pub const DEFAULT_LICENSED_API_GAP: Duration = Duration::from_secs(1);

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
    /// Where a pass starts (with those of `start_urls_file` once it is read).
    pub start_urls: Vec<Url>,
    /// The file of more start URLs, as written (relative to the config file).
    pub start_urls_file: Option<std::path::PathBuf>,
    /// Most sites crawled at once in a pass; each site keeps its own budget.
    pub max_sites_at_once: u32,
    /// Selector of event links on listings.
    pub event_selector: Option<String>,
    /// Only event links under this URL prefix.
    pub event_url_prefix: Option<String>,
    /// Selector of the next listing page.
    pub next_page_selector: String,
    /// Most listing pages per pass, at each site of the source.
    pub max_listing_pages: u32,
    /// Most event pages per pass, at each site of the source.
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
    /// Whether the generic fallback reads pages without structured data or rules.
    pub fallback: bool,
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
    /// JSON and licensed APIs: how pages are walked (`None`: one document per start URL).
    pub paging: Option<Paging>,
    /// Licensed APIs: key, key parameter and rate limit.
    pub licensed: Option<LicensedApi>,
    /// Open data: the record mapping.
    pub records: Option<gleaner_extract::opendata::RecordMapping>,
}

impl Source {
    /// Whether `url` is on one of this source's start sites (scheme, host and port).
    pub fn starts_on_site_of(&self, url: &Url) -> bool {
        let origin = url.origin();
        self.start_urls.iter().any(|u| u.origin() == origin)
    }
}

/// The smallest interval between two passes of a source unless configured (SPEC: 1 h).
pub const DEFAULT_MIN_INTERVAL: Duration = Duration::from_secs(3600);

/// Sites of one source crawled at once when `max_sites_at_once` is not set.
pub const DEFAULT_SITES_AT_ONCE: u32 = 1_000;

/// Reads a start-URL file's text (`file` names it in problems): one http or https URL a
/// line, `#` starting a comment, blank lines skipped. Every bad line is reported as
/// `file:line: ...`.
pub fn parse_start_urls(text: &str, file: &str) -> Result<Vec<Url>, Vec<String>> {
    let mut urls = Vec::new();
    let mut bad = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        match Url::parse(line) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => urls.push(url),
            _ => bad.push(format!(
                "{file}:{}: `{line}` is not an http or https URL (write one full address a line, e.g. `https://venue.example/agenda/`; `#` starts a comment)",
                n + 1
            )),
        }
    }
    if bad.is_empty() { Ok(urls) } else { Err(bad) }
}

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
        if kind.is_none() {
            problems.push(
                Problem::at(key("kind"), format!("`{}` is not a source kind", s.kind))
                    .hint("use listing, sitemap, feed, ical, json-api, licensed-api or open-data"),
            );
        }
        let start_urls = url_list(problems, &key("start_urls"), &s.start_urls);
        if s.start_urls.is_empty() && s.start_urls_file.is_none() {
            problems.push(
                Problem::at(key("start_urls"), "must list at least one URL")
                    .hint("or name a file of them: `start_urls_file = \"venues.txt\"`"),
            );
        }
        if s.start_urls_file.as_ref().is_some_and(|f| f.trim().is_empty()) {
            problems.push(Problem::at(key("start_urls_file"), "names no file"));
        }
        if s.max_sites_at_once == Some(0) {
            problems.push(Problem::at(key("max_sites_at_once"), "must be at least 1"));
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
        if kind.is_some_and(SourceKind::is_api) && s.api.is_none() {
            problems.push(
                Problem::at(key("kind"), format!("a `{}` source needs its field mapping", s.kind))
                    .hint("add `[sources.api]` with JSON pointers, e.g. `events = \"/events\"`, `title = \"/title\"`, `start = \"/start\"`"),
            );
        }
        let paging = api_paging(problems, &key, s, kind);
        let licensed = licensed_api(problems, &key, s, kind);
        let records = open_data_records(problems, &key, s, kind);
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
            start_urls_file: s.start_urls_file.as_ref().map(std::path::PathBuf::from),
            max_sites_at_once: s.max_sites_at_once.unwrap_or(DEFAULT_SITES_AT_ONCE),
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
            fallback: s.fallback.unwrap_or(true),
            time_zone,
            category: s.category.clone(),
            terms_url,
            press_url,
            press_image_terms,
            api: s.api.clone(),
            paging,
            licensed,
            records,
        });
    }
    sources
}

/// Whether `name` looks like an environment variable name (`TICKETS_API_KEY`).
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Validates a JSON pointer written in config (`""` or starting with `/`).
fn check_pointer(problems: &mut Vec<Problem>, key: String, pointer: &str) {
    if !pointer.is_empty() && !pointer.starts_with('/') {
        problems.push(
            Problem::at(key, format!("`{pointer}` is not a JSON pointer"))
                .hint("JSON pointers start with `/`, e.g. `/page/totalPages`"),
        );
    }
}

fn api_paging(
    problems: &mut Vec<Problem>,
    key: &dyn Fn(&str) -> String,
    s: &RawSource,
    kind: Option<SourceKind>,
) -> Option<Paging> {
    let api = kind.is_some_and(SourceKind::is_api);
    let Some(param) = &s.page_param else {
        for (name, given) in
            [("first_page", s.first_page.is_some()), ("total_pages", s.total_pages.is_some())]
        {
            if given {
                problems.push(Problem::at(key(name), "has no effect without `page_param`").hint(
                    "name the query parameter that selects a page, e.g. `page_param = \"page\"`",
                ));
            }
        }
        return None;
    };
    if !api {
        problems.push(
            Problem::at(key("page_param"), "only `json-api` and `licensed-api` sources have pages")
                .hint("listings follow their next-page link (`next_page_selector`) instead"),
        );
        return None;
    }
    if param.is_empty() || !param.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        problems.push(Problem::at(
            key("page_param"),
            format!("`{param}` is not a query parameter name"),
        ));
    }
    if let Some(pointer) = &s.total_pages {
        check_pointer(problems, key("total_pages"), pointer);
    }
    Some(Paging {
        param: param.clone(),
        first: s.first_page.unwrap_or(0),
        total_pointer: s.total_pages.clone(),
    })
}

fn licensed_api(
    problems: &mut Vec<Problem>,
    key: &dyn Fn(&str) -> String,
    s: &RawSource,
    kind: Option<SourceKind>,
) -> Option<LicensedApi> {
    if kind != Some(SourceKind::LicensedApi) {
        for (name, given) in [
            ("api_key_env", s.api_key_env.is_some()),
            ("api_key_param", s.api_key_param.is_some()),
            ("api_gap", s.api_gap.is_some()),
        ] {
            if given {
                problems.push(
                    Problem::at(key(name), "only `licensed-api` sources have a key and their own rate limit")
                        .hint("set `kind = \"licensed-api\"` for an API used under a licence, or remove the key"),
                );
            }
        }
        return None;
    }
    let key_env = match &s.api_key_env {
        Some(name) if is_env_name(name) => Some(name.clone()),
        Some(name) => {
            problems.push(
                Problem::at(
                    key("api_key_env"),
                    format!("`{name}` is not an environment variable name"),
                )
                .hint("name the variable, not the key: e.g. `api_key_env = \"TICKETS_API_KEY\"`"),
            );
            None
        }
        None => {
            problems.push(
                Problem::at(key("kind"), "a `licensed-api` source needs `api_key_env`")
                    .hint("name the environment variable holding the key, e.g. `api_key_env = \"TICKETS_API_KEY\"`; keys never go in the config file"),
            );
            None
        }
    };
    let key_param = s.api_key_param.clone().unwrap_or_else(|| "apikey".to_owned());
    if key_param.is_empty()
        || !key_param.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        problems.push(Problem::at(
            key("api_key_param"),
            format!("`{key_param}` is not a query parameter name"),
        ));
    }
    let gap = match s.api_gap.as_deref().map(parse_duration) {
        None => DEFAULT_LICENSED_API_GAP,
        Some(Ok(gap)) => gap,
        Some(Err(e)) => {
            problems.push(
                Problem::at(key("api_gap"), e)
                    .hint("write the API's limit as a gap, e.g. `6s` for 10 calls a minute"),
            );
            DEFAULT_LICENSED_API_GAP
        }
    };
    Some(LicensedApi {
        key_env: key_env?,
        key_param: key_param.to_ascii_lowercase(),
        gap,
        key: None,
    })
}

fn open_data_records(
    problems: &mut Vec<Problem>,
    key: &dyn Fn(&str) -> String,
    s: &RawSource,
    kind: Option<SourceKind>,
) -> Option<gleaner_extract::opendata::RecordMapping> {
    match (&s.records, kind) {
        (Some(records), Some(SourceKind::OpenData)) => {
            check_pointer(problems, key("records.records"), &records.records);
            if records.title.is_empty() {
                problems.push(
                    Problem::at(key("records.title"), "names no field")
                        .hint("list the fields that make a record's title, e.g. `title = [\"phenomenon\", \"level\"]`"),
                );
            }
            Some(records.clone())
        }
        (None, Some(SourceKind::OpenData)) => {
            problems.push(
                Problem::at(key("kind"), "an `open-data` source needs its record mapping")
                    .hint("add `[sources.records]` with `records` (JSON pointer to the array, `\"\"` for CSV), `title = [fields]`, `date` and `link`"),
            );
            None
        }
        (Some(_), _) => {
            problems.push(
                Problem::at(key("records"), "only `open-data` sources have a record mapping")
                    .hint("use `[sources.api]` for event APIs"),
            );
            None
        }
        (None, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOT: &str =
        "[bot]\ntoken = \"TestBot\"\ninfo_url = \"https://bot.example/\"\noperator = \"T\"\n";

    #[test]
    fn start_urls_file_lines_comments_and_blanks() {
        let text = "# venues\nhttps://a.example/agenda/\n\n  http://b.example/  # the second\n";
        let urls = parse_start_urls(text, "venues.txt").unwrap();
        let urls: Vec<&str> = urls.iter().map(Url::as_str).collect();
        assert_eq!(urls, ["https://a.example/agenda/", "http://b.example/"]);
    }

    #[test]
    fn start_urls_file_bad_line_names_file_and_line() {
        let bad = parse_start_urls("https://a.example/\nnot a url\nftp://c.example/\n", "v.txt")
            .unwrap_err();
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert!(bad[0].starts_with("v.txt:2: `not a url`"), "{bad:?}");
        assert!(bad[1].starts_with("v.txt:3: `ftp://c.example/`"), "{bad:?}");
    }

    #[test]
    fn a_source_may_name_only_a_file_and_the_binary_loads_it() {
        let config = format!(
            "{BOT}[[sources]]\nid = \"venues\"\nkind = \"listing\"\nstart_urls_file = \"venues.txt\"\nsite_class = \"default\"\nmax_sites_at_once = 8\n"
        );
        let mut settings = crate::parse(&config, "t.toml").unwrap();
        assert_eq!(settings.sources[0].max_sites_at_once, 8);
        let problems = settings.load_start_urls_files(|path| {
            assert_eq!(path, std::path::Path::new("venues.txt"));
            Ok("https://a.example/\nhttps://b.example/\n".to_owned())
        });
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(settings.sources[0].start_urls.len(), 2);
        let problems = settings.load_start_urls_files(|_| Ok("https://a.example/\nnope\n".into()));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("venues.txt:2:"), "{problems:?}");
        let missing =
            crate::parse(&format!("{BOT}[[sources]]\nid = \"v\"\nkind = \"listing\"\n"), "t.toml")
                .unwrap_err();
        assert!(missing.to_string().contains("start_urls_file"), "{missing}");
    }
}
