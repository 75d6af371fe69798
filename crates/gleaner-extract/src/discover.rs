//! What a site declares about its event data, for `gleaner discover` (issue 28): the
//! pure half of the operator's manual check "where does this venue's event data come
//! from?".
//!
//! This module reads documents the caller fetched and never fetches anything itself:
//! - [`read_page`]: what a static HTML page declares — `<link rel="alternate">` feeds
//!   and calendars, `.ics` and `webcal:` links, JSON URLs named in its own markup
//!   (`data-*` attributes, `<link rel="preload">`, `.json` links, string literals in inline
//!   scripts, which are read as text and never run), links that look like an event
//!   listing, links that look like event pages (with a common URL prefix or a CSS selector
//!   for them) and the next page;
//! - `assess_*`: what each source kind would yield from a fetched document ([`Finding`]),
//!   with a preview of the first events, read by the same extractors the crawl uses
//!   ([`crate::extract_events_with`], [`crate::feeds::read`], [`crate::ical::read`],
//!   [`crate::sitemap::read`], [`crate::api::read`]);
//! - [`guess_api_mapping`]: JSON pointers for a JSON endpoint whose keys look like title,
//!   start and URL;
//! - [`best`]: the ranking of source kinds, and [`Proposal`]: the ready-to-paste
//!   `[[sources]]` block ([`Proposal::to_toml`]) and the JSON form of a report.
//!
//! The orchestration (robots.txt first, the manual-check gap, at most N requests) lives
//! in `gleaner-scheduler`'s `discover` module.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::LazyLock;

use gleaner_event::{Event, NormaliseContext};
use regex::Regex;
use scraper::{ElementRef, Html, Selector};
use serde::Serialize;
use serde_json::Value;
use url::Url;

use crate::api::ApiMapping;
use crate::{ExtractOptions, FeedMode};

/// Events shown in a preview.
pub const PREVIEW_LEN: usize = 3;

/// A source kind `gleaner discover` can propose (the `kind` of a `[[sources]]` table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An iCalendar file.
    Ical,
    /// An RSS or Atom feed.
    Feed,
    /// A JSON endpoint read through a field mapping.
    JsonApi,
    /// An HTML listing linking to event pages.
    Listing,
    /// A sitemap (or index) listing event pages.
    Sitemap,
}

impl Kind {
    /// The config name (`kind = "…"`).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Ical => "ical",
            Kind::Feed => "feed",
            Kind::JsonApi => "json-api",
            Kind::Listing => "listing",
            Kind::Sitemap => "sitemap",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a page declared a URL.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case", tag = "by", content = "name")]
pub enum Declared {
    /// `<link rel="alternate" type="…">`.
    Alternate,
    /// An `<a href>` link.
    Anchor,
    /// A `webcal:` link (read over HTTP).
    Webcal,
    /// A `data-*` attribute (its name).
    DataAttribute(String),
    /// `<link rel="preload">` or `rel="prefetch"`.
    Preload,
    /// A string literal in an inline `<script>` (read as text, never run).
    InlineScript,
    /// A `Sitemap:` line of robots.txt.
    RobotsTxt,
}

impl fmt::Display for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Alternate => f.write_str("<link rel=\"alternate\">"),
            Declared::Anchor => f.write_str("a link"),
            Declared::Webcal => f.write_str("a webcal: link"),
            Declared::DataAttribute(name) => write!(f, "the `{name}` attribute"),
            Declared::Preload => f.write_str("<link rel=\"preload\">"),
            Declared::InlineScript => f.write_str("an inline script (not run)"),
            Declared::RobotsTxt => f.write_str("robots.txt"),
        }
    }
}

/// A URL a page declares, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The URL, resolved against the page.
    pub url: Url,
    /// Where the page declared it.
    pub declared: Declared,
}

/// Links that look like event pages, and how a listing source would find them.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct EventLinks {
    /// The event pages, in page order.
    pub urls: Vec<Url>,
    /// A path prefix every one of them starts with (`/events/`), when it is not `/`.
    pub prefix: Option<String>,
    /// Whether the prefix selects exactly these links on the page (nothing else under it).
    pub prefix_exact: bool,
    /// A CSS selector that selects exactly these links, when one was found.
    pub selector: Option<String>,
}

/// What one static HTML page declares.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PageFindings {
    /// RSS and Atom feeds.
    pub feeds: Vec<Link>,
    /// iCalendar files.
    pub calendars: Vec<Link>,
    /// JSON endpoints named in the markup.
    pub json: Vec<Link>,
    /// Links that look like an event listing (`/events/`, `/agenda/`, …), same site.
    pub listings: Vec<Url>,
    /// Links that look like event pages.
    pub event_links: Option<EventLinks>,
    /// The next page (`rel="next"`).
    pub next_page: Option<Url>,
}

/// Words that name an event listing in a link's path or text, in the five languages and
/// a few common CMS spellings.
const LISTING_WORDS: &[&str] = &[
    "events",
    "event",
    "agenda",
    "calendar",
    "calendrier",
    "kalender",
    "etkinlikler",
    "etkinlik",
    "veranstaltungen",
    "termine",
    "programm",
    "programme",
    "program",
    "eventos",
    "cartelera",
    "evenements",
    "événements",
    "spectacles",
    "concerts",
    "whats-on",
    "what's on",
    "sortir",
];

fn sel(text: &str) -> Selector {
    Selector::parse(text).expect("a constant selector parses")
}

static ANCHORS: LazyLock<Selector> = LazyLock::new(|| sel("a[href]"));
static LINKS: LazyLock<Selector> = LazyLock::new(|| sel("link[href]"));
static NEXT: LazyLock<Selector> =
    LazyLock::new(|| sel("a[rel~=next][href], link[rel~=next][href]"));
static SCRIPTS: LazyLock<Selector> = LazyLock::new(|| sel("script"));
static ALL: LazyLock<Selector> = LazyLock::new(|| sel("*"));
/// A quoted string that names a JSON resource: ends in `.json` (maybe with a query) or
/// has an `/api/` segment.
static JSON_LITERAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"["']((?:https?://|/)[^"'\s<>]*?(?:\.json(?:\?[^"'\s<>]*)?|/api/[^"'\s<>]*))["']"#)
        .expect("a constant regex compiles")
});

fn resolve(base: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    let (href, webcal) = match href.get(..9) {
        Some(p) if p.eq_ignore_ascii_case("webcal://") => (&href[9..], true),
        _ => (href, false),
    };
    let mut url = if webcal {
        // `webcal:` is HTTP by convention; keep the page's scheme.
        Url::parse(&format!("{}://{href}", base.scheme())).ok()?
    } else {
        base.join(href).ok()?
    };
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

fn ends_with_any(path: &str, endings: &[&str]) -> bool {
    let path = path.to_ascii_lowercase();
    endings.iter().any(|e| path.ends_with(e))
}

fn is_feed_url(url: &Url) -> bool {
    ends_with_any(
        url.path(),
        &[".rss", ".atom", "/feed", "/feed/", "/rss", "/rss/", "rss.xml", "atom.xml"],
    )
}

fn is_calendar_url(url: &Url) -> bool {
    ends_with_any(url.path(), &[".ics", ".ical", ".ifb"])
}

fn is_json_url(url: &Url) -> bool {
    ends_with_any(url.path(), &[".json"]) || url.path().to_ascii_lowercase().contains("/api/")
}

fn push(list: &mut Vec<Link>, url: Url, declared: Declared) {
    if !list.iter().any(|l| l.url == url) {
        list.push(Link { url, declared });
    }
}

/// Whether an element sits inside the page's header, navigation or footer.
fn in_chrome(element: &ElementRef<'_>) -> bool {
    element
        .ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| matches!(a.value().name(), "header" | "nav" | "footer"))
}

/// Whether a path's last segment looks like one item's page (a slug or a number), not a
/// section (`/events/`, `/terms.html`).
fn looks_like_item(url: &Url) -> bool {
    let leaf = url.path().trim_end_matches('/').rsplit('/').next().unwrap_or("");
    let stem = leaf.split('.').next().unwrap_or("");
    !stem.is_empty() && (stem.bytes().any(|b| b.is_ascii_digit()) || stem.contains('-'))
}

fn directory_of(url: &Url) -> String {
    let path = url.path().trim_end_matches('/');
    match path.rfind('/') {
        Some(i) => path[..=i].to_owned(),
        None => "/".to_owned(),
    }
}

fn looks_like_listing(url: &Url, text: &str) -> bool {
    let path = url.path().to_lowercase();
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let last = segments.last().map(|s| s.split('.').next().unwrap_or(s));
    let text = text.trim().to_lowercase();
    LISTING_WORDS
        .iter()
        .any(|w| last == Some(*w) || text == *w || text.starts_with(&format!("{w} ")))
        || LISTING_WORDS.iter().any(|w| segments.len() == 1 && segments[0] == *w)
}

/// Reads what a static HTML page declares (see the module docs). `base` is the page's
/// URL. Never fails; scripts are read as text and never run.
pub fn read_page(html: &str, base: &Url) -> PageFindings {
    let doc = Html::parse_document(html);
    let mut out = PageFindings::default();
    for link in doc.select(&LINKS) {
        let v = link.value();
        let Some(url) = v.attr("href").and_then(|h| resolve(base, h)) else { continue };
        let rel = v.attr("rel").unwrap_or("").to_ascii_lowercase();
        let ty = v.attr("type").unwrap_or("").to_ascii_lowercase();
        let rels: Vec<&str> = rel.split_ascii_whitespace().collect();
        if rels.contains(&"alternate") {
            if ty.contains("rss") || ty.contains("atom") {
                push(&mut out.feeds, url, Declared::Alternate);
            } else if ty.contains("calendar") || is_calendar_url(&url) {
                push(&mut out.calendars, url, Declared::Alternate);
            } else if (ty.contains("json") && !ty.contains("ld+json")) || is_json_url(&url) {
                push(&mut out.json, url, Declared::Alternate);
            }
        } else if rels.iter().any(|r| matches!(*r, "preload" | "prefetch"))
            && (v.attr("as").is_some_and(|a| a.eq_ignore_ascii_case("fetch"))
                || ty.contains("json")
                || is_json_url(&url))
        {
            push(&mut out.json, url, Declared::Preload);
        }
    }
    for a in doc.select(&ANCHORS) {
        let href = a.value().attr("href").unwrap_or("");
        let webcal = href.trim_start().to_ascii_lowercase().starts_with("webcal:");
        let Some(url) = resolve(base, href) else { continue };
        if webcal {
            push(&mut out.calendars, url, Declared::Webcal);
        } else if is_calendar_url(&url) {
            push(&mut out.calendars, url, Declared::Anchor);
        } else if is_feed_url(&url) {
            push(&mut out.feeds, url, Declared::Anchor);
        } else if is_json_url(&url) {
            push(&mut out.json, url, Declared::Anchor);
        } else if url.origin() == base.origin()
            && url != *base
            && !looks_like_item(&url)
            && looks_like_listing(&url, &a.text().collect::<String>())
            && !out.listings.contains(&url)
        {
            out.listings.push(url);
        }
    }
    for element in doc.select(&ALL) {
        for (name, value) in element.value().attrs() {
            if !name.starts_with("data-") {
                continue;
            }
            let value = value.trim();
            if !(value.starts_with('/') || value.starts_with("http")) {
                continue;
            }
            if let Some(url) = resolve(base, value).filter(is_json_url) {
                push(&mut out.json, url, Declared::DataAttribute(name.to_owned()));
            }
        }
    }
    for script in doc.select(&SCRIPTS) {
        if script.value().attr("type").is_some_and(|t| t.to_ascii_lowercase().contains("ld+json")) {
            continue;
        }
        // JSON and JavaScript may escape `/` as `\/`.
        let text = script.text().collect::<String>().replace("\\/", "/");
        for cap in JSON_LITERAL.captures_iter(&text) {
            if let Some(url) = resolve(base, &cap[1]) {
                push(&mut out.json, url, Declared::InlineScript);
            }
        }
    }
    out.next_page = doc
        .select(&NEXT)
        .filter_map(|e| e.value().attr("href"))
        .filter_map(|h| resolve(base, h))
        .find(|u| u != base);
    out.event_links = event_links(&doc, base, out.next_page.as_ref());
    out
}

/// Same-site links of the page body that look like items, grouped under the page's own
/// directory when enough of them are there, else under their most common directory.
fn event_links(doc: &Html, base: &Url, next: Option<&Url>) -> Option<EventLinks> {
    let is_pagination =
        |u: &Url| Some(u) == next || (u.path() == base.path() && u.query().is_some());
    let mut items: Vec<Url> = Vec::new();
    let mut others: Vec<Url> = Vec::new();
    for a in doc.select(&ANCHORS) {
        let Some(url) = a.value().attr("href").and_then(|h| resolve(base, h)) else { continue };
        if url.origin() != base.origin() || url == *base || is_pagination(&url) {
            continue;
        }
        let data = is_feed_url(&url) || is_calendar_url(&url) || is_json_url(&url);
        if !in_chrome(&a) && !data && looks_like_item(&url) {
            if !items.contains(&url) {
                items.push(url);
            }
        } else if !others.contains(&url) {
            others.push(url);
        }
    }
    let own = directory_of_page(base);
    let under = |dir: &str| -> Vec<Url> {
        items.iter().filter(|u| u.path().starts_with(dir)).cloned().collect()
    };
    let (dir, urls) = match own.as_deref().map(|d| (d.to_owned(), under(d))) {
        Some((d, urls)) if urls.len() >= 2 => (d, urls),
        _ => {
            let mut dirs: Vec<(String, usize)> = Vec::new();
            for u in &items {
                let d = directory_of(u);
                match dirs.iter_mut().find(|(x, _)| *x == d) {
                    Some((_, n)) => *n += 1,
                    None => dirs.push((d, 1)),
                }
            }
            let (d, n) = dirs.into_iter().max_by_key(|(d, n)| (*n, d.len()))?;
            if n < 2 {
                return None;
            }
            let urls = items.iter().filter(|u| directory_of(u) == d).cloned().collect();
            (d, urls)
        }
    };
    let prefix = (dir != "/").then_some(dir);
    let prefix_exact = prefix.as_ref().is_some_and(|p| {
        items.iter().chain(&others).all(|u| !u.path().starts_with(p.as_str()) || urls.contains(u))
    });
    let selector = infer_selector(doc, base, &urls);
    Some(EventLinks { urls, prefix, prefix_exact, selector })
}

/// The directory a page's links would be prefixed by: the page's path when it is a
/// directory (`/events/`), else its parent (`/events/index.html` → `/events/`); `None`
/// for the site's root.
fn directory_of_page(base: &Url) -> Option<String> {
    let path = base.path();
    let dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    };
    (dir != "/").then(|| dir.to_owned())
}

/// A CSS selector that selects exactly `urls` among the page's links: a class of the
/// links themselves (`a.event-link`), or of one of their three nearest ancestors
/// (`.event-title a`).
fn infer_selector(doc: &Html, base: &Url, urls: &[Url]) -> Option<String> {
    let wanted: BTreeSet<&str> = urls.iter().map(Url::as_str).collect();
    let first = doc.select(&ANCHORS).find(|a| {
        a.value().attr("href").and_then(|h| resolve(base, h)).is_some_and(|u| urls.contains(&u))
    })?;
    let mut candidates: Vec<String> = first.value().classes().map(|c| format!("a.{c}")).collect();
    for ancestor in first.ancestors().filter_map(ElementRef::wrap).take(3) {
        let tag = ancestor.value().name();
        candidates.extend(ancestor.value().classes().map(|c| format!("{tag}.{c} a")));
    }
    candidates.into_iter().find(|candidate| {
        let Ok(selector) = Selector::parse(candidate) else { return false };
        let found: BTreeSet<String> = doc
            .select(&selector)
            .filter_map(|a| a.value().attr("href").and_then(|h| resolve(base, h)))
            .map(String::from)
            .collect();
        found.len() == wanted.len() && found.iter().all(|u| wanted.contains(u.as_str()))
    })
}

/// How the events of a kind would be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reading {
    /// From the document itself (a calendar, a feed's dated items, an API).
    Direct,
    /// From event pages with structured data (JSON-LD, microdata, RDFa, microformats).
    StructuredPages,
    /// From event pages by the generic fallback only (low confidence).
    FallbackPages,
    /// Event pages that were not sampled (the request budget ran out).
    UnsampledPages,
    /// Nothing usable was found.
    Nothing,
}

impl fmt::Display for Reading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reading::Direct => "events read from the document itself",
            Reading::StructuredPages => "event pages with structured data",
            Reading::FallbackPages => "event pages read by the generic fallback (low confidence)",
            Reading::UnsampledPages => "event pages (none sampled)",
            Reading::Nothing => "nothing usable",
        })
    }
}

/// One event in a preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// The title.
    pub title: Option<String>,
    /// The start, ISO 8601 as the source states it.
    pub start: Option<String>,
    /// The event's page.
    pub url: Option<Url>,
}

impl Preview {
    /// The preview of an extracted event.
    pub fn of(event: &Event) -> Preview {
        Preview {
            title: event.title.clone(),
            start: event.start.as_ref().map(|t| t.to_iso()),
            url: event.url.clone(),
        }
    }
}

/// What one source kind at one URL would yield.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The kind.
    pub kind: Kind,
    /// The source's start URL.
    pub url: Url,
    /// How the page (or robots.txt) declared it.
    pub declared: Option<Declared>,
    /// How its events would be read.
    pub reading: Reading,
    /// Events read from the document itself (and from the sampled page for page kinds).
    pub events: usize,
    /// Event pages it leads to.
    pub event_pages: usize,
    /// Whether a listing has a next page (more events than this page shows).
    pub more_pages: bool,
    /// The first events.
    pub preview: Vec<Preview>,
    /// The URL prefix of its event pages, for a listing or sitemap.
    pub event_url_prefix: Option<String>,
    /// A CSS selector of a listing's event links, when the prefix is not exact.
    pub event_selector: Option<String>,
    /// A JSON endpoint's guessed mapping.
    #[serde(serialize_with = "mapping_json")]
    pub api: Option<ApiMapping>,
    /// Notes for the operator (what was not read, and why).
    pub notes: Vec<String>,
}

impl Finding {
    fn new(kind: Kind, url: Url, declared: Option<Declared>) -> Finding {
        Finding {
            kind,
            url,
            declared,
            reading: Reading::Nothing,
            events: 0,
            event_pages: 0,
            more_pages: false,
            preview: Vec::new(),
            event_url_prefix: None,
            event_selector: None,
            api: None,
            notes: Vec::new(),
        }
    }

    /// Whether this kind would yield events at all.
    pub fn yields(&self) -> bool {
        match self.reading {
            Reading::Direct => self.events > 0,
            Reading::StructuredPages | Reading::FallbackPages | Reading::UnsampledPages => {
                self.event_pages > 0
            }
            Reading::Nothing => false,
        }
    }

    /// Lower is better: direct data first (one request a pass: a calendar, a feed of
    /// dated items, an API), then a feed linking to every event page (one document, no
    /// pagination), a listing, a sitemap, then pages only the fallback reads.
    fn rank(&self) -> u8 {
        match (self.reading, self.kind) {
            (Reading::Nothing, _) => 9,
            (Reading::Direct, Kind::Ical) => 0,
            (Reading::Direct, Kind::Feed) => 1,
            (Reading::Direct, _) => 2,
            (Reading::StructuredPages | Reading::UnsampledPages, Kind::Feed) => 3,
            (Reading::StructuredPages | Reading::UnsampledPages, Kind::Listing) => 4,
            (Reading::StructuredPages | Reading::UnsampledPages, _) => 5,
            (Reading::FallbackPages, Kind::Listing) => 6,
            (Reading::FallbackPages, _) => 7,
        }
    }

    /// One line: what it would yield.
    pub fn summary(&self) -> String {
        match self.reading {
            Reading::Direct => format!("{} events ({})", self.events, self.reading),
            Reading::Nothing => self.reading.to_string(),
            _ => format!(
                "{} event pages{} ({})",
                self.event_pages,
                if self.more_pages { " on the first page, more on the next" } else { "" },
                self.reading
            ),
        }
    }
}

fn mapping_json<S: serde::Serializer>(m: &Option<ApiMapping>, s: S) -> Result<S::Ok, S::Error> {
    match m {
        None => s.serialize_none(),
        Some(m) => {
            let map: serde_json::Map<String, Value> = mapping_pairs(m)
                .into_iter()
                .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
                .collect();
            map.serialize(s)
        }
    }
}

/// The pointers a mapping sets, in config order.
pub fn mapping_pairs(m: &ApiMapping) -> Vec<(&'static str, &str)> {
    let mut out = vec![("events", m.events.as_str())];
    let optional = [
        ("id", &m.id),
        ("title", &m.title),
        ("start", &m.start),
        ("end", &m.end),
        ("url", &m.url),
        ("description", &m.description),
        ("image", &m.image),
        ("status", &m.status),
        ("venue", &m.venue),
        ("venue_name", &m.venue_name),
        ("street", &m.street),
        ("locality", &m.locality),
        ("postal_code", &m.postal_code),
        ("country", &m.country),
        ("price", &m.price),
        ("price_min", &m.price_min),
        ("price_max", &m.price_max),
        ("currency", &m.currency),
        ("is_free", &m.is_free),
        ("ticket_url", &m.ticket_url),
        ("keywords", &m.keywords),
    ];
    out.extend(optional.into_iter().filter_map(|(k, v)| v.as_deref().map(|v| (k, v))));
    out
}

fn previews(events: &[Event]) -> Vec<Preview> {
    events.iter().take(PREVIEW_LEN).map(Preview::of).collect()
}

/// What an event page (the one sampled) says about how event pages are read.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The page.
    pub url: Url,
    /// Its events.
    pub events: Vec<Event>,
    /// Whether they came from structured data (else the fallback).
    pub structured: bool,
}

/// Reads an event page (or a listing) the way a pass would: structured data first, the
/// generic fallback when there is none. `today` is the reference day for year-less dates.
pub fn read_events_page(
    bytes: &[u8],
    content_type: &str,
    url: &Url,
    tz: Option<chrono_tz::Tz>,
    today: chrono::NaiveDate,
) -> Sample {
    let ctx = NormaliseContext { base_url: url, default_tz: tz };
    let opts = ExtractOptions {
        default_tz: tz,
        reference_date: Some(today),
        file_name: Some(url.path().to_owned()),
        ..ExtractOptions::default()
    };
    let structured = crate::extract_events_with(bytes, content_type, &ctx, &opts).events;
    if !structured.is_empty() {
        return Sample { url: url.clone(), events: structured, structured: true };
    }
    let opts = ExtractOptions { fallback: true, ..opts };
    let read = crate::extract_events_with(bytes, content_type, &ctx, &opts);
    Sample { url: url.clone(), events: read.events, structured: false }
}

fn page_reading(sample: Option<&Sample>) -> Reading {
    match sample {
        None => Reading::UnsampledPages,
        Some(s) if s.events.is_empty() => Reading::Nothing,
        Some(s) if s.structured => Reading::StructuredPages,
        Some(_) => Reading::FallbackPages,
    }
}

/// A listing page: its event links (and how to select them), its next page, and how its
/// event pages read (`sample`, `None` when no page could be read).
pub fn assess_listing(page: &PageFindings, url: &Url, sample: Option<&Sample>) -> Finding {
    let mut f = Finding::new(Kind::Listing, url.clone(), None);
    let Some(links) = &page.event_links else {
        f.notes.push("no links that look like event pages".into());
        return f;
    };
    f.event_pages = links.urls.len();
    f.more_pages = page.next_page.is_some();
    f.reading = page_reading(sample);
    if let Some(s) = sample {
        f.events = s.events.len();
        f.preview = previews(&s.events);
    }
    match (&links.prefix, links.prefix_exact, &links.selector) {
        (Some(p), true, _) => f.event_url_prefix = Some(p.clone()),
        (_, _, Some(s)) => f.event_selector = Some(s.clone()),
        (Some(p), false, None) => {
            f.event_url_prefix = Some(p.clone());
            f.notes.push(format!("other links start with `{p}` too; their pages are read as well"));
        }
        (None, _, None) => {
            f.notes.push("no common prefix or selector for the event links; every link of the site on the listing is followed".into());
        }
    }
    f
}

/// A feed: its dated items are events; items without an event date lead to their pages.
pub fn assess_feed(
    bytes: &[u8],
    url: &Url,
    declared: Option<Declared>,
    sample: Option<&Sample>,
) -> Finding {
    let mut f = Finding::new(Kind::Feed, url.clone(), declared);
    let ctx = NormaliseContext { base_url: url, default_tz: None };
    let opts = ExtractOptions {
        feed_mode: FeedMode::Auto,
        file_name: Some(url.path().to_owned()),
        ..ExtractOptions::default()
    };
    let read = crate::extract_events_with(bytes, "application/rss+xml", &ctx, &opts);
    let items = crate::feeds::read(bytes, url, FeedMode::Auto);
    let pages: Vec<&Url> = items
        .news
        .iter()
        .filter_map(|n| n.url.as_ref())
        .filter(|u| u.origin() == url.origin())
        .collect();
    if !read.events.is_empty() {
        f.reading = Reading::Direct;
        f.events = read.events.len();
        f.preview = previews(&read.events);
    } else if !pages.is_empty() {
        f.event_pages = pages.len();
        f.reading = page_reading(sample);
        if let Some(s) = sample {
            f.events = s.events.len();
            f.preview = previews(&s.events);
        }
    } else {
        f.notes.push("the feed holds no events and no links to pages on its site".into());
    }
    f
}

/// The first page a feed's undated items link to, on its own site (the page to sample).
pub fn feed_pages(bytes: &[u8], url: &Url) -> Vec<Url> {
    crate::feeds::read(bytes, url, FeedMode::Auto)
        .news
        .into_iter()
        .filter_map(|n| n.url)
        .filter(|u| u.origin() == url.origin())
        .collect()
}

/// A calendar, its series expanded into occurrences in `window` (as a pass reads it).
pub fn assess_calendar(
    bytes: &[u8],
    url: &Url,
    declared: Option<Declared>,
    window: (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>),
    tz: Option<chrono_tz::Tz>,
) -> Finding {
    let mut f = Finding::new(Kind::Ical, url.clone(), declared);
    let ctx = NormaliseContext { base_url: url, default_tz: tz };
    let opts = ExtractOptions {
        expand: Some(window),
        default_tz: tz,
        file_name: Some(url.path().to_owned()),
        ..ExtractOptions::default()
    };
    let read = crate::extract_events_with(bytes, "text/calendar", &ctx, &opts);
    if read.events.is_empty() {
        f.notes.push("the calendar holds no event in the next months".into());
    } else {
        f.reading = Reading::Direct;
        f.events = read.events.len();
        f.preview = previews(&read.events);
    }
    f
}

/// A JSON endpoint, read through the mapping [`guess_api_mapping`] proposes.
pub fn assess_api(bytes: &[u8], url: &Url, declared: Option<Declared>) -> Finding {
    let mut f = Finding::new(Kind::JsonApi, url.clone(), declared);
    let Ok(doc) = serde_json::from_slice::<Value>(bytes) else {
        f.notes.push("not JSON".into());
        return f;
    };
    let Some(mapping) = guess_api_mapping(&doc) else {
        f.notes.push("no array of objects with a title and a start date".into());
        return f;
    };
    let read = crate::api::read(bytes, &mapping);
    let ctx = NormaliseContext { base_url: url, default_tz: None };
    let events: Vec<Event> = read
        .events
        .iter()
        .filter_map(|e| gleaner_event::normalise(&e.raw, &ctx).ok())
        .map(|n| n.event)
        .collect();
    if !events.is_empty() {
        f.reading = Reading::Direct;
        f.events = events.len();
        f.preview = previews(&events);
    } else {
        f.notes.push("the guessed mapping reads no event".into());
    }
    f.api = Some(mapping);
    f
}

/// The event pages among a sitemap's URLs: those that look like item pages under the
/// prefix the listing's event links share (`known_prefix`), else under the most common
/// directory of item-looking URLs (never `/`). Returns the prefix and the pages.
pub fn sitemap_event_pages(
    pages: &[Url],
    known_prefix: Option<&str>,
) -> (Option<String>, Vec<Url>) {
    let items: Vec<&Url> = pages.iter().filter(|u| looks_like_item(u)).collect();
    let prefix = known_prefix.map(str::to_owned).or_else(|| {
        let mut dirs: Vec<(String, usize)> = Vec::new();
        for u in &items {
            let d = directory_of(u);
            match dirs.iter_mut().find(|(x, _)| *x == d) {
                Some((_, n)) => *n += 1,
                None => dirs.push((d, 1)),
            }
        }
        dirs.into_iter().filter(|(d, _)| d != "/").max_by_key(|(_, n)| *n).map(|(d, _)| d)
    });
    let chosen = items
        .into_iter()
        .filter(|u| prefix.as_ref().is_none_or(|p| u.path().starts_with(p.as_str())))
        .cloned()
        .collect();
    (prefix, chosen)
}

/// A sitemap at `url` whose page URLs (children included) are `pages`; see
/// [`sitemap_event_pages`] for which are event pages.
pub fn assess_sitemap(
    url: &Url,
    pages: &[Url],
    known_prefix: Option<&str>,
    declared: Option<Declared>,
    sample: Option<&Sample>,
) -> Finding {
    let mut f = Finding::new(Kind::Sitemap, url.clone(), declared);
    let (prefix, events) = sitemap_event_pages(pages, known_prefix);
    f.event_pages = events.len();
    if f.event_pages == 0 {
        f.notes.push(format!("{} URLs, none that looks like an event page", pages.len()));
        return f;
    }
    f.event_url_prefix = prefix;
    f.reading = page_reading(sample);
    if let Some(s) = sample {
        f.events = s.events.len();
        f.preview = previews(&s.events);
    }
    f
}

/// The best finding: the one that yields events at the lowest rank (see
/// `Finding::rank`); the first found wins a tie.
pub fn best(findings: &[Finding]) -> Option<&Finding> {
    findings.iter().filter(|f| f.yields()).min_by_key(|f| f.rank())
}

const TITLE_KEYS: &[&str] = &["title", "name", "headline", "summary", "label"];
const START_KEYS: &[&str] = &[
    "start",
    "startDate",
    "start_date",
    "starts_at",
    "startTime",
    "start_time",
    "begin",
    "dtstart",
    "date",
    "datetime",
    "when",
];
const END_KEYS: &[&str] =
    &["end", "endDate", "end_date", "ends_at", "endTime", "end_time", "dtend"];
const URL_KEYS: &[&str] = &["url", "link", "href", "permalink", "web_url", "page"];
const ID_KEYS: &[&str] = &["id", "uid", "guid", "identifier"];
const VENUE_KEYS: &[&str] = &["venue", "location", "place"];

/// Escapes one key as a JSON pointer segment (RFC 6901).
fn segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn find_key<'a>(object: &'a serde_json::Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| {
        object
            .keys()
            .find(|have| have.eq_ignore_ascii_case(k))
            .filter(|have| !object[have.as_str()].is_null())
            .map(String::as_str)
    })
}

fn scalar_key(object: &serde_json::Map<String, Value>, keys: &[&str]) -> Option<String> {
    let key = find_key(object, keys)?;
    matches!(object[key], Value::String(_) | Value::Number(_) | Value::Bool(_))
        .then(|| format!("/{}", segment(key)))
}

fn is_event_object(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| find_key(o, TITLE_KEYS).is_some() && find_key(o, START_KEYS).is_some())
}

/// The pointer to the array of events: the document itself, or an array under one or two
/// keys (`/events`, `/data/items`) whose first element has a title and a start.
fn events_pointer(doc: &Value) -> Option<String> {
    let holds_events =
        |v: &Value| v.as_array().and_then(|a| a.first()).is_some_and(is_event_object);
    if holds_events(doc) {
        return Some(String::new());
    }
    let object = doc.as_object()?;
    for (k, v) in object {
        if holds_events(v) {
            return Some(format!("/{}", segment(k)));
        }
    }
    for (k, v) in object {
        for (k2, v2) in v.as_object().into_iter().flatten() {
            if holds_events(v2) {
                return Some(format!("/{}/{}", segment(k), segment(k2)));
            }
        }
    }
    None
}

/// Guesses a `json-api` mapping: the array of events, and pointers for the keys that look
/// like title, start, end, URL, id, venue and price (one level of nesting for venue and
/// price). `None` when no array of objects with a title and a start is found.
pub fn guess_api_mapping(doc: &Value) -> Option<ApiMapping> {
    let events = events_pointer(doc)?;
    let first = doc.pointer(&events)?.as_array()?.first()?.as_object()?;
    let mut m = ApiMapping {
        events,
        id: scalar_key(first, ID_KEYS),
        title: scalar_key(first, TITLE_KEYS),
        start: scalar_key(first, START_KEYS),
        end: scalar_key(first, END_KEYS),
        url: scalar_key(first, URL_KEYS),
        description: scalar_key(first, &["description", "summary", "text", "body"]),
        image: scalar_key(first, &["image", "image_url", "imageUrl", "picture", "thumbnail"]),
        status: scalar_key(first, &["status", "eventStatus", "state"]),
        ticket_url: scalar_key(first, &["ticket_url", "tickets", "ticketUrl", "booking_url"]),
        ..ApiMapping::default()
    };
    if m.description == m.title {
        m.description = None;
    }
    if let Some(key) = find_key(first, VENUE_KEYS) {
        match &first[key] {
            Value::Object(venue) => {
                m.venue = Some(format!("/{}", segment(key)));
                m.venue_name = scalar_key(venue, &["name", "title"]);
                m.street = scalar_key(venue, &["street", "address", "streetAddress", "address1"]);
                m.locality = scalar_key(venue, &["city", "locality", "town", "addressLocality"]);
                m.postal_code =
                    scalar_key(venue, &["postal_code", "postalCode", "zip", "zipcode", "postcode"]);
                m.country = scalar_key(venue, &["country", "addressCountry", "country_code"]);
            }
            Value::String(_) => m.venue_name = Some(format!("/{}", segment(key))),
            _ => {}
        }
    }
    if let Some(key) = find_key(first, &["price", "prices", "offers", "pricing"]) {
        let at = |inner: &str| format!("/{}{inner}", segment(key));
        match &first[key] {
            Value::Object(price) => {
                m.price_min = scalar_key(price, &["min", "low", "min_price", "lowPrice", "from"])
                    .map(|p| at(&p));
                m.price_max = scalar_key(price, &["max", "high", "max_price", "highPrice", "to"])
                    .map(|p| at(&p));
                m.currency = scalar_key(price, &["currency", "priceCurrency"]).map(|p| at(&p));
                m.is_free =
                    scalar_key(price, &["free", "is_free", "isFree", "isAccessibleForFree"])
                        .map(|p| at(&p));
                if m.price_min.is_none() {
                    m.price = scalar_key(price, &["amount", "value", "price"]).map(|p| at(&p));
                }
            }
            Value::String(_) | Value::Number(_) => m.price = Some(at("")),
            _ => {}
        }
    }
    if m.is_free.is_none() {
        m.is_free = scalar_key(first, &["is_free", "free", "isAccessibleForFree"]);
    }
    if m.currency.is_none() {
        m.currency = scalar_key(first, &["currency", "priceCurrency"]);
    }
    Some(m)
}

/// A ready-to-paste `[[sources]]` table for one finding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    /// The source id (letters, digits, `-`).
    pub id: String,
    /// The kind.
    pub kind: Kind,
    /// Where a pass starts.
    pub start_url: Url,
    /// A listing's event link selector.
    pub event_selector: Option<String>,
    /// The event pages' URL prefix (listing, sitemap).
    pub event_url_prefix: Option<String>,
    /// A JSON endpoint's mapping.
    #[serde(serialize_with = "mapping_json")]
    pub api: Option<ApiMapping>,
}

/// A source id made of the host's labels and the kind (`venue-example-listing`).
pub fn source_id(url: &Url, kind: Kind) -> String {
    let host = url.host_str().unwrap_or("site");
    let host = host.strip_prefix("www.").unwrap_or(host);
    let mut id: String = host
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    if let Some(port) = url.port() {
        id.push_str(&format!("-{port}"));
    }
    let id = id.split('-').filter(|s| !s.is_empty()).collect::<Vec<_>>().join("-");
    format!("{id}-{}", kind.name())
}

/// A TOML basic string. JSON's escapes (`\"`, `\\`, `\n`, `\u00XX`) are all valid TOML
/// basic-string escapes, so serde_json writes it.
fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

impl Proposal {
    /// The proposal for `finding`.
    pub fn of(finding: &Finding) -> Proposal {
        Proposal {
            id: source_id(&finding.url, finding.kind),
            kind: finding.kind,
            start_url: finding.url.clone(),
            event_selector: finding.event_selector.clone(),
            event_url_prefix: finding.event_url_prefix.clone(),
            api: finding.api.clone(),
        }
    }

    /// The `[[sources]]` table, with `[sources.api]` for a JSON endpoint.
    pub fn to_toml(&self) -> String {
        let mut out = format!(
            "[[sources]]\nid = {}\nkind = {}\nstart_urls = [{}]\n",
            toml_string(&self.id),
            toml_string(self.kind.name()),
            toml_string(self.start_url.as_str())
        );
        if let Some(s) = &self.event_selector {
            out.push_str(&format!("event_selector = {}\n", toml_string(s)));
        }
        if let Some(p) = &self.event_url_prefix {
            out.push_str(&format!("event_url_prefix = {}\n", toml_string(p)));
        }
        if let Some(m) = &self.api {
            out.push_str("\n[sources.api]\n");
            for (k, v) in mapping_pairs(m) {
                out.push_str(&format!("{k} = {}\n", toml_string(v)));
            }
        }
        out
    }
}

/// A document that was found but not read, and why (the budget, robots.txt, another site).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRead {
    /// The URL.
    pub url: Url,
    /// Why it was not read.
    pub why: String,
}

/// Everything one `gleaner discover` found, ready to print.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// The URL the operator gave.
    pub start: Url,
    /// Requests the site saw (robots.txt and rights files included).
    pub requests: u32,
    /// The most requests allowed.
    pub max_requests: u32,
    /// What the start page (or the listing it led to) declares.
    pub declared: Option<PageFindings>,
    /// Sitemaps named by robots.txt.
    pub sitemaps: Vec<Url>,
    /// What each source kind would yield.
    pub findings: Vec<Finding>,
    /// What was found and not read.
    pub not_read: Vec<NotRead>,
    /// The block to paste for the best kind.
    pub proposal: Option<Proposal>,
}

impl Report {
    /// Fills [`Report::proposal`] from the best finding.
    pub fn propose(&mut self) {
        self.proposal = best(&self.findings).map(Proposal::of);
    }

    /// The report as TOML: what was found as comments, then the `[[sources]]` block, so
    /// the whole text can be pasted into a config.
    pub fn to_toml(&self) -> String {
        let mut out = format!(
            "# gleaner discover {} ({} of at most {} requests)\n",
            self.start, self.requests, self.max_requests
        );
        let list = |out: &mut String, what: &str, links: &[Link]| {
            for l in links {
                out.push_str(&format!("#   {what}: {} (declared by {})\n", l.url, l.declared));
            }
        };
        if let Some(page) = &self.declared {
            out.push_str("#\n# declared by the page:\n");
            list(&mut out, "feed", &page.feeds);
            list(&mut out, "calendar", &page.calendars);
            list(&mut out, "json", &page.json);
            for u in &page.listings {
                out.push_str(&format!("#   listing: {u}\n"));
            }
            if let Some(links) = &page.event_links {
                out.push_str(&format!("#   event links: {}", links.urls.len()));
                if let Some(p) = &links.prefix {
                    out.push_str(&format!(", all under `{p}`"));
                }
                if let Some(s) = &links.selector {
                    out.push_str(&format!(", selected by `{s}`"));
                }
                out.push('\n');
            }
            if let Some(next) = &page.next_page {
                out.push_str(&format!("#   next page: {next}\n"));
            }
        }
        for s in &self.sitemaps {
            out.push_str(&format!("#   sitemap: {s} (declared by robots.txt)\n"));
        }
        out.push_str("#\n# what each source kind would yield:\n");
        if self.findings.is_empty() {
            out.push_str(
                "#   nothing: no feed, calendar, JSON endpoint, listing or sitemap was read\n",
            );
        }
        for f in &self.findings {
            out.push_str(&format!("#   {:<8} {}: {}\n", f.kind.name(), f.url, f.summary()));
            for p in &f.preview {
                out.push_str(&format!(
                    "#            - {} | {}{}\n",
                    p.start.as_deref().unwrap_or("(no start)"),
                    p.title.as_deref().unwrap_or("(no title)"),
                    p.url.as_ref().map(|u| format!(" | {u}")).unwrap_or_default()
                ));
            }
            for n in &f.notes {
                out.push_str(&format!("#            note: {n}\n"));
            }
        }
        if !self.not_read.is_empty() {
            out.push_str("#\n# not read:\n");
            for n in &self.not_read {
                out.push_str(&format!("#   {}: {}\n", n.url, n.why));
            }
        }
        out.push_str("#\n");
        match &self.proposal {
            Some(p) => {
                out.push_str(&format!(
                    "# proposed source (the best kind found: {}):\n\n{}",
                    p.kind,
                    p.to_toml()
                ));
            }
            None => out.push_str(
                "# no source to propose: nothing read yields events\n# hint: try the page that lists the events, or raise --max-requests\n",
            ),
        }
        out
    }

    /// The report as pretty JSON, with the proposed block as TOML text too.
    pub fn to_json(&self) -> String {
        let mut value = serde_json::to_value(self).unwrap_or(Value::Null);
        if let (Some(p), Some(obj)) = (&self.proposal, value.as_object_mut()) {
            obj.insert("proposal_toml".into(), Value::String(p.to_toml()));
        }
        serde_json::to_string_pretty(&value).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    const PAGE: &str = r#"<!doctype html><html><head>
        <link rel="alternate" type="application/rss+xml" href="/events/feed.rss">
        <link rel="alternate" type="text/calendar" href="/cal/all.ics">
        <link rel="preload" as="fetch" href="/wp-json/tribe/events/v1/events">
        <link rel="next" href="/events/?page=2">
        </head><body>
        <header><a href="/">Home</a> <a href="/events/">Events</a> <a href="/about-us-2.html">About</a></header>
        <a href="webcal://venue.test/cal/club.ics">Subscribe</a>
        <div id="app" data-endpoint="/api/v2/shows"></div>
        <script>window.cfg = {"feed":"https:\/\/venue.test\/data\/events.json"};</script>
        <script type="application/ld+json">{"url":"/api/not-this"}</script>
        <div class="cards">
          <article class="card"><h2 class="event-title"><a href="/events/jazz-night-3.html">Jazz</a></h2></article>
          <article class="card"><h2 class="event-title"><a href="/events/folk-7.html">Folk</a></h2></article>
          <article class="card"><h2 class="event-title"><a href="/events/folk-7.html#tickets">Folk</a></h2></article>
        </div>
        <a href="/events/?page=2" rel="next">Next</a>
        <a href="mailto:x@venue.test">mail</a>
        </body></html>"#;

    #[test]
    fn a_page_declares_feeds_calendars_and_json_without_running_scripts() {
        let found = read_page(PAGE, &url("https://venue.test/events/"));
        let urls = |links: &[Link]| links.iter().map(|l| l.url.to_string()).collect::<Vec<_>>();
        assert_eq!(urls(&found.feeds), ["https://venue.test/events/feed.rss"]);
        assert_eq!(found.feeds[0].declared, Declared::Alternate);
        assert_eq!(
            urls(&found.calendars),
            ["https://venue.test/cal/all.ics", "https://venue.test/cal/club.ics"]
        );
        assert_eq!(found.calendars[1].declared, Declared::Webcal);
        assert_eq!(
            urls(&found.json),
            [
                "https://venue.test/wp-json/tribe/events/v1/events",
                "https://venue.test/api/v2/shows",
                "https://venue.test/data/events.json"
            ]
        );
        assert_eq!(found.json[0].declared, Declared::Preload);
        assert_eq!(found.json[1].declared, Declared::DataAttribute("data-endpoint".into()));
        assert_eq!(found.json[2].declared, Declared::InlineScript);
        assert_eq!(found.next_page, Some(url("https://venue.test/events/?page=2")));
    }

    #[test]
    fn event_links_get_their_prefix_and_a_selector() {
        let found = read_page(PAGE, &url("https://venue.test/events/"));
        let links = found.event_links.expect("event links");
        assert_eq!(
            links.urls,
            [
                url("https://venue.test/events/jazz-night-3.html"),
                url("https://venue.test/events/folk-7.html")
            ]
        );
        assert_eq!(links.prefix.as_deref(), Some("/events/"));
        assert!(links.prefix_exact, "the feed, the listing and its next page are not events");
        assert_eq!(links.selector.as_deref(), Some("h2.event-title a"));
    }

    #[test]
    fn a_stray_link_under_the_prefix_makes_the_selector_the_proposal() {
        let page = PAGE.replace(
            "<a href=\"mailto",
            "<p class=\"promo\"><a href=\"/events/archive.html\">Archive</a></p><a href=\"mailto",
        );
        let base = url("https://venue.test/events/");
        let found = read_page(&page, &base);
        let links = found.event_links.clone().unwrap();
        assert_eq!(links.urls.len(), 2, "{links:?}");
        assert!(!links.prefix_exact, "the archive is under the prefix too");
        let finding = assess_listing(&found, &base, None);
        assert_eq!(finding.event_selector.as_deref(), Some("h2.event-title a"));
        assert_eq!(finding.event_url_prefix, None);
        // Without a selector either, the prefix is proposed with a note.
        let bare = page.replace(" class=\"event-title\"", "").replace(" class=\"card\"", "");
        let bare = bare.replace(" class=\"cards\"", "");
        let finding = assess_listing(&read_page(&bare, &base), &base, None);
        assert_eq!(finding.event_url_prefix.as_deref(), Some("/events/"));
        assert_eq!(finding.notes.len(), 1, "{:?}", finding.notes);
    }

    #[test]
    fn a_home_page_without_items_is_not_a_listing_but_links_to_one() {
        let home = r#"<html><body><header><a href="/">V</a></header>
            <ul><li><a href="/agenda/">Agenda</a></li><li><a href="/terms.html">Terms</a></li></ul></body></html>"#;
        let found = read_page(home, &url("http://v.test/"));
        assert_eq!(found.event_links, None);
        assert_eq!(found.listings, [url("http://v.test/agenda/")]);
    }

    #[test]
    fn an_api_mapping_is_guessed_from_the_keys() {
        let doc = serde_json::json!({
            "venue": "Hall", "count": 1,
            "events": [{
                "id": "h-1", "title": "Jazz", "start": "2026-12-03T20:00:00-05:00", "end": null,
                "venue": {"name": "Hall", "address": "1 Main St", "city": "Montréal", "postal_code": "H2T", "country": "CA"},
                "price": {"free": false, "min": "10.00", "max": "20.00", "currency": "CAD"},
                "status": "scheduled", "url": "https://hall.test/events/jazz-1.html", "image": "https://hall.test/i.png"
            }]
        });
        let m = guess_api_mapping(&doc).expect("a mapping");
        assert_eq!(m.events, "/events");
        assert_eq!(m.title.as_deref(), Some("/title"));
        assert_eq!(m.start.as_deref(), Some("/start"));
        assert_eq!(m.end, None, "a null end is no pointer");
        assert_eq!(m.url.as_deref(), Some("/url"));
        assert_eq!(m.venue.as_deref(), Some("/venue"));
        assert_eq!(m.locality.as_deref(), Some("/city"));
        assert_eq!(m.price_min.as_deref(), Some("/price/min"));
        assert_eq!(m.currency.as_deref(), Some("/price/currency"));
        assert_eq!(m.is_free.as_deref(), Some("/price/free"));
        let finding =
            assess_api(doc.to_string().as_bytes(), &url("https://hall.test/api/events.json"), None);
        assert_eq!((finding.reading, finding.events), (Reading::Direct, 1));
        assert_eq!(finding.preview[0].title.as_deref(), Some("Jazz"));
        assert_eq!(guess_api_mapping(&serde_json::json!({"items": [{"a": 1}]})), None);
        let root = serde_json::json!([{"name": "A", "startDate": "2026-01-01"}]);
        assert_eq!(guess_api_mapping(&root).unwrap().events, "");
    }

    #[test]
    fn the_ranking_prefers_direct_data_then_feeds_then_listings_then_sitemaps() {
        let f = |kind, reading, n| Finding {
            reading,
            events: n,
            event_pages: n,
            ..Finding::new(kind, url("http://v.test/"), None)
        };
        let all = vec![
            f(Kind::Sitemap, Reading::StructuredPages, 9),
            f(Kind::Listing, Reading::StructuredPages, 4),
            f(Kind::Feed, Reading::StructuredPages, 9),
            f(Kind::JsonApi, Reading::Direct, 0),
        ];
        assert_eq!(best(&all).unwrap().kind, Kind::Feed, "an API reading no event is no source");
        assert_eq!(best(&all[..2]).unwrap().kind, Kind::Listing);
        assert_eq!(best(&all[..1]).unwrap().kind, Kind::Sitemap);
        let mut with_ical = all.clone();
        with_ical.push(f(Kind::Ical, Reading::Direct, 3));
        assert_eq!(best(&with_ical).unwrap().kind, Kind::Ical);
        assert_eq!(best(&[f(Kind::Listing, Reading::Nothing, 4)]), None);
    }

    #[test]
    fn the_proposal_is_valid_toml_with_escaped_values() {
        let mut finding =
            Finding::new(Kind::JsonApi, url("http://127.0.60.17:8080/api/events.json"), None);
        finding.api = guess_api_mapping(
            &serde_json::json!({"a\"/b": [{"name": "A", "start": "2026-01-01"}]}),
        );
        finding.event_selector = Some("a[href$=\".html\"]".into());
        finding.reading = Reading::Direct;
        finding.events = 1;
        let p = Proposal::of(&finding);
        assert_eq!(p.id, "127-0-60-17-8080-json-api");
        let text = p.to_toml();
        let value: toml::Value = toml::from_str(&text).expect(&text);
        let source = &value["sources"][0];
        assert_eq!(source["kind"].as_str(), Some("json-api"));
        assert_eq!(source["api"]["events"].as_str(), Some("/a\"~1b"), "{text}");
        assert_eq!(source["api"]["title"].as_str(), Some("/name"));
        assert_eq!(source["event_selector"].as_str(), Some("a[href$=\".html\"]"));
        assert_eq!(
            source["start_urls"][0].as_str(),
            Some("http://127.0.60.17:8080/api/events.json")
        );
    }

    /// Every venue of the sample city, from its home page and listing as the city serves
    /// them: feed venues declare their feed, the API venue its endpoint, every venue a
    /// listing whose event links share the listing's path.
    #[test]
    fn sample_city_pages_declare_their_sources() {
        use gleaner_samplecity::{City, Extra, Origins, Request};
        let city = City::generate(7, chrono::Utc::now());
        let origins = Origins::on_port(city.len(), 8080);
        let headers = http::HeaderMap::new();
        let get = |site: usize, path: &str| {
            let reply = city.respond(&origins, site, 0, &Request::get(path, &headers));
            assert_eq!(reply.status, 200, "{path}");
            reply.text()
        };
        let mut venues = 0;
        for (i, s) in city.sites().iter().enumerate().filter(|(_, s)| s.is_venue()) {
            venues += 1;
            let home_url = url(&origins.url(i, "/"));
            let home = read_page(&get(i, "/"), &home_url);
            let listing = s.lang.listing_path();
            assert_eq!(home.listings, [url(&origins.url(i, listing))], "{}", s.key);
            assert_eq!(home.event_links, None, "{}: the home page is no listing", s.key);
            let feeds = s.has(Extra::RssEvents) || s.has(Extra::AtomEvents);
            assert_eq!(home.feeds.len(), usize::from(feeds), "{}", s.key);
            assert_eq!(home.json.len(), usize::from(s.has(Extra::JsonApi)), "{}", s.key);
            let page = read_page(&get(i, listing), &url(&origins.url(i, listing)));
            let links = page.event_links.expect("a listing");
            assert!(links.urls.len() >= 2, "{}", s.key);
            assert_eq!(links.prefix.as_deref(), Some(listing), "{}", s.key);
            assert!(page.next_page.is_some(), "{}: more than one listing page", s.key);
        }
        assert_eq!(venues, 20);
        // The API venue's endpoint reads through the guessed mapping.
        let api = city.sites().iter().position(|s| s.has(Extra::JsonApi)).unwrap();
        let finding = assess_api(
            get(api, "/api/events.json").as_bytes(),
            &url(&origins.url(api, "/api/events.json")),
            None,
        );
        assert_eq!(finding.reading, Reading::Direct);
        assert!(finding.events >= 3, "{finding:?}");
        assert!(finding.preview.iter().all(|p| p.url.is_some() && p.start.is_some()));
    }
}
