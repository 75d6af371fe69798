//! Extraction: bytes + content type + base URL in, candidate events and diagnostics out.
//!
//! Layout: one module per format, sharing one [`Candidate`] shape and one [`Diagnostic`]:
//! - [`jsonld`]: `<script type="application/ld+json">` blocks, found by a byte scan (no
//!   DOM), read by a forgiving JSON reader (`lenient_json`);
//! - [`microdata`] and [`rdfa`]: read from the html5ever DOM, which is built only when the
//!   page carries `itemscope`, `typeof=` or `vocab=` at all;
//! - [`microformats`]: hCalendar / h-event class names, from the same DOM, built only when
//!   the page mentions `vevent` or `h-event`;
//! - `schema`: the schema.org reading the first three formats share;
//! - [`feeds`] (RSS/Atom), [`ical`] (iCalendar), [`sitemap`], [`api`] (JSON APIs through a
//!   field mapping) and [`opendata`] (JSON and CSV records): readers of whole documents,
//!   each with its own `read` and result type, for the crawl pipeline to call directly;
//! - [`kind_of`]: which reader a document needs, from its content type, file name and
//!   first bytes;
//! - [`rules`]: per-site CSS rules from config for pages without structured data, and
//!   [`fallback`]: a modest generic reading of event pages nobody wrote rules for yet
//!   (issue 10). With rules for the page's site ([`ExtractOptions::rules`]) they are read
//!   first; structured data next; the fallback ([`ExtractOptions::fallback`]) only when
//!   neither found anything.
//!
//! [`extract`] returns raw candidates; [`extract_events`] also normalises them (through
//! `gleaner-event`) and merges the same event seen in several formats on one page.
//! Feeds and calendars go through the same two functions ([`extract_with`] and
//! [`extract_events_with`] take the feed mode and the expansion window).
//! Parsing never fails: one bad block is a diagnostic, never a lost page. No I/O, no clock:
//! "now" and expansion windows are parameters.

pub mod api;
mod decode;
mod depth;
pub mod discover;
pub mod fallback;
pub mod feeds;
pub mod ical;
pub mod jsonld;
mod lenient_json;
mod merge;
pub mod microdata;
pub mod microformats;
mod more_events;
mod nearby;
pub mod opendata;
mod own_element;
mod page;
pub mod rdfa;
pub mod rules;
mod schema;
pub mod sitemap;
mod sniff;
mod xml;

pub use feeds::FeedMode;
pub use sniff::{DocumentKind, kind_of};

use std::fmt;

use gleaner_event::{Event, EventTime, NormaliseContext, RawEvent, normalise};
use url::Url;

/// Which reader found a candidate or raised a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// Microdata items.
    Microdata,
    /// RDFa Lite resources.
    Rdfa,
    /// JSON-LD blocks.
    JsonLd,
    /// hCalendar and h-event microformats.
    Microformats,
    /// RSS and Atom feeds.
    Feed,
    /// iCalendar.
    ICalendar,
    /// Sitemaps and sitemap indexes.
    Sitemap,
    /// JSON APIs read through a field mapping.
    Api,
    /// Open-data records (JSON, CSV).
    OpenData,
    /// The document as a whole (encoding, content type).
    Document,
    /// Site rules from config (CSS selectors).
    Rules,
    /// The generic fallback (low confidence).
    Fallback,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Microdata => "microdata",
            Format::Rdfa => "rdfa",
            Format::JsonLd => "json-ld",
            Format::Microformats => "microformats",
            Format::Feed => "feed",
            Format::ICalendar => "icalendar",
            Format::Sitemap => "sitemap",
            Format::Api => "api",
            Format::OpenData => "open-data",
            Format::Document => "document",
            Format::Rules => "rules",
            Format::Fallback => "fallback",
        })
    }
}

/// How much a diagnostic matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Something was repaired or deliberately skipped; nothing was lost.
    Info,
    /// A value or part of a block was dropped.
    Warning,
    /// A whole block could not be read.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A note about the page: what was repaired, skipped or unreadable, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How much it matters.
    pub severity: Severity,
    /// Which reader raised it.
    pub format: Format,
    /// What happened, lowercase, values in backticks.
    pub message: String,
    /// Where: `script #2 (byte 1450) /0/location`, `item /1/event/0`; empty for the whole
    /// document.
    pub location: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}: {}: {}", self.severity, self.format, self.message)
        } else {
            write!(f, "{}: {} {}: {}", self.severity, self.format, self.location, self.message)
        }
    }
}

/// One event as found, before normalisation: the source's strings and where they were.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Which reader found it.
    pub format: Format,
    /// Where in the page (block and path, or item path).
    pub location: String,
    /// The raw values.
    pub raw: RawEvent,
}

/// Everything read from one document.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    /// Candidate events, in reading order (microdata, RDFa, JSON-LD, then microformats).
    pub candidates: Vec<Candidate>,
    /// Notes about the page.
    pub diagnostics: Vec<Diagnostic>,
    /// Event pages the site rules' items link to (resolved), in page order.
    pub links: Vec<Url>,
    /// The next listing page, by the site rules' `next_page` selector.
    pub next_page: Option<Url>,
}

/// Normalised, merged events from one document.
#[derive(Debug, Clone, Default)]
pub struct Events {
    /// One per distinct event on the page.
    pub events: Vec<Event>,
    /// The reader of each event (`formats[i]` read `events[i]`; the first reading when
    /// several merged), for its provenance.
    pub formats: Vec<Format>,
    /// Notes about the page and about values that could not be read.
    pub diagnostics: Vec<Diagnostic>,
    /// Event pages the site rules' items link to (resolved), in page order.
    pub links: Vec<Url>,
    /// The next listing page, by the site rules' `next_page` selector.
    pub next_page: Option<Url>,
}

/// How to read a document (feed mode, calendar window, rules, fallback, reference day).
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// Whether feed items are events, news, or decided per item.
    pub feed_mode: FeedMode,
    /// Expand calendar series into occurrences starting in `[from, to)`; `None` gives one
    /// event per `VEVENT`.
    pub expand: Option<(chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>)>,
    /// The file name, when the content type is unknown (`events.ics`).
    pub file_name: Option<String>,
    /// The source's zone, for floating calendar times.
    pub default_tz: Option<chrono_tz::Tz>,
    /// The rules of the page's site, when config has some (HTML only).
    pub rules: Option<std::sync::Arc<rules::CompiledRules>>,
    /// Read pages with no structured data and no rules with the generic fallback (on by
    /// default; `--no-fallback` and a source's `fallback = false` turn it off).
    pub fallback: bool,
    /// The day the page was read: dates written without a year are its next occurrence
    /// on or after this day; `None` leaves them unread.
    pub reference_date: Option<chrono::NaiveDate>,
}

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            feed_mode: FeedMode::default(),
            expand: None,
            file_name: None,
            default_tz: None,
            rules: None,
            fallback: true,
            reference_date: None,
        }
    }
}

/// Reads candidate events from a document.
///
/// `content_type` is the HTTP `Content-Type` (or a guess from the file name); an empty one
/// is read as HTML unless the bytes say otherwise. `base_url` is where the document came
/// from; candidates keep relative URLs as found, and [`extract_events`] resolves them.
/// Never panics, never fails.
pub fn extract(bytes: &[u8], content_type: &str, base_url: &Url) -> Extraction {
    extract_with(bytes, content_type, base_url, &ExtractOptions::default())
}

/// [`extract`] with the feed mode, calendar window and file name.
pub fn extract_with(
    bytes: &[u8],
    content_type: &str,
    base_url: &Url,
    opts: &ExtractOptions,
) -> Extraction {
    let mut out = Extraction::default();
    let kind = kind_of(bytes, content_type, opts.file_name.as_deref());
    match kind {
        DocumentKind::ICalendar => {
            let cal = ical::read(
                bytes,
                &ical::IcalOptions {
                    default_tz: opts.default_tz,
                    expand: opts.expand,
                    ..ical::IcalOptions::default()
                },
            );
            out.diagnostics = cal.diagnostics;
            out.candidates = cal
                .events
                .into_iter()
                .enumerate()
                .map(|(i, e)| Candidate {
                    format: Format::ICalendar,
                    location: match e.identity() {
                        Some(id) => format!("vevent {id}"),
                        None => format!("event #{}", i + 1),
                    },
                    raw: e.raw,
                })
                .collect();
            free_from_text(&mut out.candidates, gleaner_event::says_free_entry);
            return out;
        }
        DocumentKind::Feed => {
            let feed = feeds::read(bytes, base_url, opts.feed_mode);
            out.diagnostics = feed.diagnostics;
            if !feed.news.is_empty() {
                out.diagnostics.push(Diagnostic {
                    severity: Severity::Info,
                    format: Format::Feed,
                    message: format!(
                        "{} items without an event date read as news (use the events mode if the source lists events)",
                        feed.news.len()
                    ),
                    location: String::new(),
                });
            }
            out.candidates = feed
                .events
                .into_iter()
                .map(|e| Candidate { format: Format::Feed, location: e.location, raw: e.raw })
                .collect();
            free_from_text(&mut out.candidates, gleaner_event::says_free);
            // A bare `$` of an item that names no country is the dollar or peso of the
            // region the feed's language names (`<language>fr-CA</language>`: CAD).
            if let Some(code) = page::lang_dollar(feeds::feed_language(bytes).as_deref()) {
                for c in out.candidates.iter_mut().filter(|c| c.raw.country.is_none()) {
                    for o in &mut c.raw.offers {
                        if o.currency.as_deref() == Some(gleaner_event::DOLLAR_SIGN) {
                            o.currency = Some(code.to_owned());
                        }
                    }
                }
            }
            return out;
        }
        DocumentKind::Sitemap => {
            let map = sitemap::read(bytes, base_url, &sitemap::SitemapCaps::default());
            out.diagnostics = map.diagnostics;
            out.diagnostics.push(Diagnostic {
                severity: Severity::Info,
                format: Format::Sitemap,
                message: format!(
                    "a sitemap holds links, not events: {} urls, {} child sitemaps",
                    map.urls.len(),
                    map.children.len()
                ),
                location: String::new(),
            });
            return out;
        }
        DocumentKind::Csv => {
            out.diagnostics.push(Diagnostic {
                severity: Severity::Info,
                format: Format::OpenData,
                message: "CSV is read as open-data records, not events".into(),
                location: String::new(),
            });
            return out;
        }
        DocumentKind::Html | DocumentKind::JsonLd => {}
    }
    // Candidates keep URLs as found; the base is part of the signature so per-site rules
    // (CSS selectors keyed by site) can join this function without an API change.
    let (text, note) = decode::decode(bytes, content_type);
    out.diagnostics.extend(note);
    if kind == DocumentKind::JsonLd {
        jsonld::read_block(&text, "document", &mut out.candidates, &mut out.diagnostics);
        return out;
    }
    // Site rules first: a site that needed rules is read by them.
    let mut dom: Option<scraper::Html> = None;
    if let Some(rules) = &opts.rules {
        let doc = dom.get_or_insert_with(|| parse_dom(&text));
        let read = rules.apply(doc, base_url, opts.reference_date);
        out.links = read.links;
        out.next_page = read.next_page;
        out.diagnostics.extend(read.diagnostics);
        if !read.candidates.is_empty() {
            out.candidates = read.candidates;
            return out;
        }
    }
    let mut jsonld_candidates = Vec::new();
    jsonld::read_html(&text, &mut jsonld_candidates, &mut out.diagnostics);
    // Building the DOM costs far more than everything else, so build it only when
    // an attribute names an event type (most pages with microdata only describe
    // the site, `WebPage` or `BreadcrumbList`; `typeof` alone is JavaScript).
    let bytes = text.as_bytes();
    let has_microdata = names_event_type(bytes, b"itemtype");
    let has_rdfa = names_event_type(bytes, b"typeof");
    let has_microformats = memchr::memmem::find(bytes, b"vevent").is_some()
        || memchr::memmem::find(bytes, b"h-event").is_some();
    let mut microformat_candidates = Vec::new();
    if has_microdata || has_rdfa || has_microformats {
        let doc = dom.get_or_insert_with(|| parse_dom(&text));
        if has_microdata {
            microdata::read(doc, &mut out.candidates, &mut out.diagnostics);
        }
        if has_rdfa {
            rdfa::read(doc, &mut out.candidates, &mut out.diagnostics);
        }
        if has_microformats {
            microformats::read(doc, &mut microformat_candidates);
        }
    }
    out.candidates.extend(jsonld_candidates);
    out.candidates.extend(microformat_candidates);
    if !out.candidates.is_empty() {
        zone_into(&text, &mut out.candidates);
    }
    if own_element::wanted(&out.candidates) {
        let doc = dom.get_or_insert_with(|| parse_dom(&text));
        own_element::fill(doc, base_url, &mut out.candidates);
    }
    // A page whose structured data gives fewer events than it links (an event's page with
    // its "more events" block, a list whose plugin marks up only the featured event): the
    // fallback's events that link to their own page and are not the structured ones.
    if !out.candidates.is_empty()
        && opts.fallback
        && opts.rules.is_none()
        && more_events::worth_reading(&text, base_url, &out.candidates)
        && news_article_type(&text).is_none()
    {
        let doc = dom.get_or_insert_with(|| parse_dom(&text));
        let more =
            more_events::others_linked(doc, &text, base_url, opts.reference_date, &out.candidates);
        out.candidates.extend(more);
    }
    if out.candidates.is_empty() && opts.fallback && opts.rules.is_none() {
        if let Some(kind) = news_article_type(&text) {
            // A page that says it is news reports dates; it describes no event of its own,
            // unless its paragraphs announce coming ones (`fallback::read_news`).
            let doc = dom.get_or_insert_with(|| parse_dom(&text));
            fallback::read_news(
                doc,
                opts.reference_date,
                &mut out.candidates,
                &mut out.diagnostics,
            );
            out.diagnostics.push(Diagnostic {
                severity: Severity::Info,
                format: Format::Fallback,
                message: format!(
                    "the page declares itself a {kind}: the fallback reads no events from \
                     news (add site rules if its articles do announce events)"
                ),
                location: String::new(),
            });
        } else {
            let doc = dom.get_or_insert_with(|| parse_dom(&text));
            fallback::read(doc, opts.reference_date, &mut out.candidates, &mut out.diagnostics);
        }
    }
    free_from_text(&mut out.candidates, gleaner_event::says_free);
    price_from_description(&mut out.candidates);
    // Marked-up events with no price and no free entry of their own are free when a
    // paragraph right above them says entry is free for all (the fallback's events have
    // their own rule).
    let marked_priceless =
        |c: &Candidate| c.format != Format::Fallback && fallback::priceless(&c.raw);
    if let Some(doc) = dom.as_ref()
        && (has_microdata || has_rdfa || has_microformats)
        && out.candidates.iter().any(marked_priceless)
    {
        if fallback::stated_free_over_marked_events(doc.root_element()) {
            for c in out.candidates.iter_mut().filter(|c| marked_priceless(c)) {
                c.raw.is_accessible_for_free = Some("true".into());
            }
        } else if let Some(price) = fallback::stated_price_over_marked_events(doc.root_element()) {
            // Or cost what it says (`Eintritt 10 €, ermäßigt 6 €` above the concerts).
            for c in out.candidates.iter_mut().filter(|c| marked_priceless(c)) {
                fallback::price_into(&price, &mut c.raw);
            }
        }
    }
    status_from_names(&mut out.candidates);
    // A link wrapped in a redirector's click tracking is the link it leads to.
    for c in &mut out.candidates {
        let links = c.raw.offers.iter_mut().map(|o| &mut o.url).chain([&mut c.raw.url]);
        for link in links {
            if let Some(target) = link.as_deref().and_then(fallback::booking::unwrapped) {
                *link = Some(target);
            }
        }
    }
    // A mail, phone or map link is no ticket link, whoever read it.
    for o in out.candidates.iter_mut().flat_map(|c| c.raw.offers.iter_mut()) {
        if o.url.as_deref().is_some_and(|u| !fallback::booking::is_booking_target(u)) {
            o.url = None;
        }
    }
    // An address written the way the page's language's country writes them is in that
    // country (and so on its clock).
    let lang = page::page_language(&text);
    for c in &mut out.candidates {
        if c.raw.country.is_none()
            && let Some(country) = page::address_country(lang, &c.raw)
        {
            c.raw.country = Some(country.to_owned());
        }
    }
    same_town_same_country(&mut out.candidates);
    // A venue named with its room (`Museo X – Sala 2`, `VHS-Haus am Markt, Raum 105`) is
    // the building; a place written alone with its room (`… – Büyük Salon`) too.
    for c in &mut out.candidates {
        if let Some(venue) = c.raw.location_name.as_deref().and_then(fallback::room::without_room) {
            c.raw.location_name = Some(venue);
        }
        if let Some(venue) = c.raw.location_text.as_deref().and_then(fallback::room::without_room)
            && c.raw.location_text.as_deref().is_some_and(|t| !t.contains(','))
        {
            c.raw.location_text = Some(venue);
        }
        // A place that is everywhere (`ganzes Quartier`) is no venue.
        for place in [&mut c.raw.location_name, &mut c.raw.location_text] {
            if place.as_deref().is_some_and(fallback::room::is_everywhere) {
                *place = None;
            }
        }
    }
    same_venue_same_address(&mut out.candidates);
    // A structured event with a place but no country is in the country the site's footer
    // ends with (the fallback applies the same rule to what it reads).
    let placed = |r: &RawEvent| {
        [&r.locality, &r.street, &r.location_text, &r.address_text].iter().any(|v| v.is_some())
    };
    if out
        .candidates
        .iter()
        .any(|c| c.format != Format::Fallback && c.raw.country.is_none() && placed(&c.raw))
        && let Some(country) = page::footer_country(&text)
    {
        for c in &mut out.candidates {
            if c.format != Format::Fallback && c.raw.country.is_none() && placed(&c.raw) {
                c.raw.country = Some(country.clone());
            }
        }
    }
    // An event that names no country and no zone has its local times on the site's
    // clock, when the site's country keeps one civil time. The fallback's events are
    // placed by the address the page states for itself (its canonical link or `og:url`,
    // as the fallback's own rule reads it: a `.tr` canonical under `lang="en-GB"` names
    // no one clock), else by the address it was fetched from (a newsletter states none).
    // A time already fixed keeps its offset.
    let stated = page::page_urls(&text);
    let stated = stated
        .canonical
        .or(stated.og_url)
        .and_then(|u| base_url.join(&gleaner_event::text::decode_entities(&u)).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"));
    let (fallback, structured): (Vec<_>, Vec<_>) =
        out.candidates.iter_mut().partition(|c| c.format == Format::Fallback);
    page::site_zone_into(lang, base_url, structured.into_iter().map(|c| &mut c.raw));
    let site = stated.as_ref().unwrap_or(base_url);
    page::site_zone_into(lang, site, fallback.into_iter().map(|c| &mut c.raw));
    // Else an event with an address is in the site's country, as the page's language
    // tag's region and its country-code domain name it (agreeing when both do): `1150
    // Woluwe` on a `fr-BE` site, `Schulstraße 12, Gmunden` on a `de-AT` one; a venue's
    // name alone (`Bob Harkins Branch`) says no country. (Once only an address with a
    // postcode written the country's way; an address in the site's own country is by far
    // the common case: country recall on unseen pages was 0.48.)
    let addressed = |r: &RawEvent| {
        [&r.locality, &r.street, &r.address_text].iter().any(|v| v.is_some())
            || r.location_text.as_deref().is_some_and(|t| t.contains(','))
    };
    if out.candidates.iter().any(|c| c.raw.country.is_none() && placed(&c.raw))
        && let Some(site) = page::site_country(lang, base_url)
    {
        for c in out.candidates.iter_mut().filter(|c| c.raw.country.is_none()) {
            c.raw.country = page::site_address_country(&site, &c.raw)
                .or_else(|| addressed(&c.raw).then(|| site.clone()));
        }
    }
    // A bare `$` of an event that names no country is the dollar or peso of the region
    // the page's language names (`lang="es-AR"`: pesos).
    if let Some(code) = page::lang_dollar(lang) {
        for c in out.candidates.iter_mut().filter(|c| c.raw.country.is_none()) {
            for o in &mut c.raw.offers {
                if o.currency.as_deref() == Some(gleaner_event::DOLLAR_SIGN) {
                    o.currency = Some(code.to_owned());
                }
            }
        }
    }
    out
}

/// One page's events at the same named venue are at the same address: an event that names
/// its venue and gives no address takes the one address another event of the page gives
/// for that name (a seminar list marks the hall's address up on one talk, not the next). A
/// name given two different addresses on one page gives none.
fn same_venue_same_address(candidates: &mut [Candidate]) {
    type Address = (Option<String>, Option<String>, Option<String>, Option<String>, Option<String>);
    let fold = |s: &str| gleaner_event::datetext::fold_diacritics(s.trim()).to_lowercase();
    let address_of = |r: &RawEvent| -> Address {
        (
            r.street.clone(),
            r.locality.clone(),
            r.region.clone(),
            r.postal_code.clone(),
            r.country.clone(),
        )
    };
    let addressed = |r: &RawEvent| r.street.is_some() || r.locality.is_some();
    let mut known: std::collections::HashMap<String, Option<Address>> =
        std::collections::HashMap::new();
    for c in candidates.iter().filter(|c| addressed(&c.raw)) {
        let Some(name) = c.raw.location_name.as_deref() else { continue };
        let address = address_of(&c.raw);
        known
            .entry(fold(name))
            .and_modify(|k| {
                if k.as_ref().is_some_and(|k| *k != address) {
                    *k = None;
                }
            })
            .or_insert(Some(address));
    }
    for c in candidates.iter_mut() {
        let raw = &mut c.raw;
        if addressed(raw) || raw.address_text.is_some() || raw.location_text.is_some() {
            continue;
        }
        let Some(name) = raw.location_name.as_deref() else { continue };
        if let Some(Some((street, locality, region, postal, country))) = known.get(&fold(name)) {
            raw.street.clone_from(street);
            raw.locality.clone_from(locality);
            raw.region.clone_from(region);
            raw.postal_code.clone_from(postal);
            raw.country = raw.country.take().or_else(|| country.clone());
        }
    }
}

/// One page's events in the same town are in the same country: an event whose address
/// gives only the town takes the country another event of the page gives for that town
/// (a commune's agenda writes the postcode on one event and not the next). A town named
/// in two countries on one page gives none.
fn same_town_same_country(candidates: &mut [Candidate]) {
    let fold = |s: &str| gleaner_event::datetext::fold_diacritics(s.trim());
    // Town → its one country, or `None` when the page names it in two.
    let mut known: std::collections::HashMap<String, Option<String>> =
        std::collections::HashMap::new();
    for c in candidates.iter() {
        if let (Some(town), Some(country)) = (&c.raw.locality, &c.raw.country) {
            let country = country.trim().to_ascii_uppercase();
            known
                .entry(fold(town))
                .and_modify(|k| {
                    if k.as_ref().is_some_and(|k| *k != country) {
                        *k = None;
                    }
                })
                .or_insert(Some(country));
        }
    }
    if known.is_empty() {
        return;
    }
    for c in candidates.iter_mut().filter(|c| c.raw.country.is_none()) {
        let Some(town) = c.raw.locality.as_deref().map(fold) else { continue };
        if let Some(Some(k)) = known.get(&town) {
            c.raw.country = Some(k.clone());
        }
    }
}

/// Events with no price and no `isAccessibleForFree` whose description says entry is free
/// (`Gratuit, sur inscription`, `Giriş ücretsiz`, `free admission`) are free. A calendar's
/// description is its organiser's notes, so there `says` is [`gleaner_event::says_free_entry`]:
/// only a statement about entry (`Eintritt frei`, `entrée libre`) counts, not a bare
/// `kostenlos` about something else.
fn free_from_text(candidates: &mut [Candidate], says: fn(&str) -> bool) {
    for c in candidates {
        let raw = &mut c.raw;
        let priced = raw.has_price();
        if raw.is_accessible_for_free.is_none()
            && !priced
            && raw
                .description
                .as_deref()
                .is_some_and(|d| says(&gleaner_event::text::line_of(d, raw.markup)))
        {
            raw.is_accessible_for_free = Some("true".to_owned());
        }
    }
}

/// Structured data without a price, whose description writes one (`$18 adv / $22 dos`,
/// `Eintritt 12 €`): the description's price, as feeds and calendars read it; an offer
/// that gave only a link or an availability takes it.
fn price_from_description(candidates: &mut [Candidate]) {
    for c in candidates.iter_mut().filter(|c| c.format != Format::Fallback) {
        let raw = &mut c.raw;
        let priced = raw.has_price();
        let Some(d) = raw.description.clone().filter(|_| !priced) else { continue };
        let line = gleaner_event::text::line_of(&d, raw.markup);
        let mut offers = std::mem::take(&mut raw.offers);
        feeds::price_from_text(&line, raw);
        if let Some(read) = raw.offers.pop() {
            match offers.first_mut() {
                Some(o) => {
                    o.low_price = read.low_price;
                    o.high_price = read.high_price;
                    o.currency = o.currency.take().or(read.currency);
                }
                None => offers.push(read),
            }
        }
        raw.offers = offers;
    }
}

/// Structured data whose name carries a status badge (`ABGESAGT – Honigmarkt`,
/// `Quiz (postponed)`) and that states no status: the badge's status. The name stays as
/// written (the corpus labels `CANCELLED - Typhoon …` so).
fn status_from_names(candidates: &mut [Candidate]) {
    for c in candidates.iter_mut().filter(|c| c.format != Format::Fallback) {
        let raw = &mut c.raw;
        let stated = raw.status.as_deref().is_some_and(|s| !s.trim().is_empty());
        if !stated
            && let Some((_, status)) = raw.name.as_deref().and_then(feeds::split_status_badge)
        {
            raw.status = Some(status.to_owned());
        }
    }
}

/// The schema.org news type (`NewsArticle` and its subtypes) a page's JSON-LD declares
/// the page to be, if any.
fn news_article_type(html: &str) -> Option<String> {
    fn walk(v: &serde_json::Value, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match v {
            serde_json::Value::Array(a) => a.iter().find_map(|x| walk(x, depth + 1)),
            serde_json::Value::Object(m) => {
                let types = match m.get("@type") {
                    Some(serde_json::Value::String(t)) => vec![t.as_str()],
                    Some(serde_json::Value::Array(a)) => {
                        a.iter().filter_map(serde_json::Value::as_str).collect()
                    }
                    _ => Vec::new(),
                };
                types
                    .into_iter()
                    .map(|t| t.rsplit(['/', ':']).next().unwrap_or(t))
                    .find(|t| t.ends_with("NewsArticle"))
                    .map(str::to_owned)
                    .or_else(|| m.get("@graph").and_then(|g| walk(g, depth + 1)))
            }
            _ => None,
        }
    }
    jsonld::blocks(html)
        .iter()
        .find_map(|b| lenient_json::parse(b.text).values.iter().find_map(|v| walk(v, 0)))
}

/// The page's DOM, its nesting bounded first (see `depth`).
fn parse_dom(text: &str) -> scraper::Html {
    scraper::Html::parse_document(&depth::limit_depth(text))
}

/// Whether some `attr=` attribute in the page names a schema.org event type.
fn names_event_type(bytes: &[u8], attr: &[u8]) -> bool {
    let finder = memchr::memmem::Finder::new(attr);
    finder.find_iter(bytes).any(|at| {
        let rest = &bytes[at + attr.len()..];
        let rest = &rest[..rest.len().min(256)];
        let value = rest.iter().position(|&b| b == b'>').map_or(rest, |end| &rest[..end]);
        let value = value.trim_ascii_start();
        value.first() == Some(&b'=')
            && [&b"Event"[..], b"Festival", b"Hackathon", b"CourseInstance"]
                .iter()
                .any(|t| memchr::memmem::find(value, t).is_some())
    })
}

/// Reads, normalises and merges the events of a document.
///
/// The same event found in several formats on the page (same title and start, compatible
/// venue) becomes one: the first reading (microdata, RDFa, JSON-LD, microformats) wins each
/// field, later ones fill its gaps.
pub fn extract_events(bytes: &[u8], content_type: &str, ctx: &NormaliseContext<'_>) -> Events {
    let opts = ExtractOptions { default_tz: ctx.default_tz, ..ExtractOptions::default() };
    extract_events_with(bytes, content_type, ctx, &opts)
}

/// [`extract_events`] with the feed mode, calendar window and file name.
///
/// Events of a feed or calendar are never merged with each other: each item or `VEVENT`
/// (or occurrence) is its own event, as the source lists it.
pub fn extract_events_with(
    bytes: &[u8],
    content_type: &str,
    ctx: &NormaliseContext<'_>,
    opts: &ExtractOptions,
) -> Events {
    let Extraction { candidates, mut diagnostics, links, next_page } =
        extract_with(bytes, content_type, ctx.base_url, opts);
    let merge = candidates.iter().all(|c| !matches!(c.format, Format::Feed | Format::ICalendar));
    let mut events: Vec<Event> = Vec::new();
    let mut index = merge::Index::default();
    let mut formats: Vec<Format> = Vec::new();
    for c in candidates {
        match normalise(&c.raw, ctx) {
            Ok(n) => {
                for w in n.warnings {
                    diagnostics.push(Diagnostic {
                        severity: Severity::Warning,
                        format: c.format,
                        message: w.to_string(),
                        location: c.location.clone(),
                    });
                }
                match merge.then(|| index.find(&events, &n.event)).flatten() {
                    Some(i) => {
                        let had_venue = events[i].venue.name.is_some();
                        let was_dated = matches!(events[i].start, Some(EventTime::Date(_)));
                        merge_into(&mut events[i], n.event);
                        if !had_venue {
                            index.venue_filled(&events, i);
                        }
                        if was_dated && !matches!(events[i].start, Some(EventTime::Date(_))) {
                            // A date-only reading took its time from the other: found by it too.
                            index.insert(&events[i], i);
                        }
                    }
                    None => {
                        if merge {
                            index.insert(&n.event, events.len());
                        }
                        events.push(n.event);
                        formats.push(c.format);
                    }
                }
            }
            Err(e) => diagnostics.push(Diagnostic {
                severity: Severity::Warning,
                format: c.format,
                message: format!("skipped: {e}"),
                location: c.location,
            }),
        }
    }
    if merge
        && matches!(kind_of(bytes, content_type, opts.file_name.as_deref()), DocumentKind::Html)
    {
        canonical_urls(&mut events, bytes, content_type, ctx.base_url);
    }
    for e in &mut events {
        // Merging can bring back an `image` that is the event's own page (see normalise).
        if e.image_url.is_some() && e.image_url == e.url {
            e.image_url = None;
        }
    }
    Events { events, formats, diagnostics, links, next_page }
}

/// The events' canonical URLs (issue 24): an event's own URL on the page's site stands;
/// the one event of a page takes, in order, the page's `<link rel="canonical">`, its
/// `og:url`, the page's URL — unless the page is a site's home page (then none) or a
/// vocabulary's documentation (then the example's own URL). An own URL on another site (a
/// ticket shop, a registration form) is otherwise not the event's page.
/// Events of a page of several keep their own URLs or none (a listing's address is no one
/// event's page), except a widget's: when every event's own URL is on another site (an
/// Eventbrite or OpenAgenda embed, a tour-dates widget) and no two start alike, the page
/// is each one's page, as for one event; their starts keep them apart in the store.
fn canonical_urls(events: &mut [Event], bytes: &[u8], content_type: &str, base: &Url) {
    if events.len() > 1 {
        performances_take_the_show_page(events, bytes, content_type, base);
        widget_events_take_the_page(events, bytes, content_type, base);
        return;
    }
    let [event] = events else { return };
    if event.url.as_ref().is_some_and(|u| gleaner_event::same_site(base, u)) {
        return;
    }
    event.url =
        stated_page_url(bytes, content_type, base, false).or_else(|| match page_kind(base) {
            PageKind::Page => Some(base.clone()),
            // An example's own URL is the only page it names.
            PageKind::Vocabulary => event.url.take(),
            PageKind::Home => None,
        });
}

/// Several performances of one show on its page (every event has the same title and a
/// timed start of its own, none an own URL on the site): the page's stated canonical link
/// (or `og:url`) is each performance's page. Their different starts keep them apart in the
/// store; a listing of different events, or of undated ones, keeps none.
fn performances_take_the_show_page(
    events: &mut [Event],
    bytes: &[u8],
    content_type: &str,
    base: &Url,
) {
    let fold = gleaner_event::identity_parts::fold;
    let Some(title) = events[0].title.as_deref().map(fold) else { return };
    let mut starts = std::collections::HashSet::new();
    let performances = events.iter().all(|e| {
        e.title.as_deref().map(fold).as_deref() == Some(title.as_str())
            && matches!(e.start, Some(EventTime::Fixed(_) | EventTime::Floating(_)))
            && starts.insert(e.start.map(|s| s.to_iso()))
            && !e.url.as_ref().is_some_and(|u| gleaner_event::same_site(base, u))
    });
    if !performances {
        return;
    }
    if let Some(page) = stated_page_url(bytes, content_type, base, true) {
        for e in events.iter_mut() {
            e.url = Some(page.clone());
        }
    }
}

/// The events of an embedded widget, each with its own URL on another site and a start of
/// its own (no two alike), take the page's canonical link, else its `og:url`, else its URL
/// (none on a home page; a vocabulary's examples keep theirs).
fn widget_events_take_the_page(events: &mut [Event], bytes: &[u8], content_type: &str, base: &Url) {
    let mut starts = std::collections::HashSet::new();
    let widget = events.iter().all(|e| {
        e.url.as_ref().is_some_and(|u| !gleaner_event::same_site(base, u))
            && e.start.is_some()
            && starts.insert(e.start.map(|s| s.to_iso()))
    });
    if !widget || !matches!(page_kind(base), PageKind::Page) {
        return;
    }
    let page = stated_page_url(bytes, content_type, base, true).unwrap_or_else(|| base.clone());
    for e in events.iter_mut() {
        e.url = Some(page.clone());
    }
}

/// The URL a page states for itself: its canonical link, else its `og:url`, resolved
/// against `base` (http(s) only; only on the page's site when `same_site`).
fn stated_page_url(bytes: &[u8], content_type: &str, base: &Url, same_site: bool) -> Option<Url> {
    let (text, _) = decode::decode(bytes, content_type);
    let stated = page::page_urls(&text);
    let resolve = |v: &str| {
        base.join(&gleaner_event::text::decode_entities(v)).ok().filter(|u| {
            matches!(u.scheme(), "http" | "https")
                && (!same_site || gleaner_event::same_site(base, u))
        })
    };
    stated
        .canonical
        .as_deref()
        .and_then(resolve)
        .or_else(|| stated.og_url.as_deref().and_then(resolve))
}

/// What a page's own URL can be to the one event it describes.
enum PageKind {
    /// A page of its own: the event's page when nothing better is stated.
    Page,
    /// A site's root (`/`): a home page, no one event's page.
    Home,
    /// A vocabulary's documentation (schema.org's examples): the examples' own URLs stand.
    Vocabulary,
}

fn page_kind(url: &Url) -> PageKind {
    const VOCABULARIES: [&str; 4] = ["schema.org", "microformats.org", "w3.org", "json-ld.org"];
    let host = url.host_str().unwrap_or_default().trim_start_matches("www.");
    if VOCABULARIES.contains(&host) {
        PageKind::Vocabulary
    } else if url.path() == "/" && url.query().is_none() {
        PageKind::Home
    } else {
        PageKind::Page
    }
}

fn merge_into(e: &mut Event, other: Event) {
    fn fill<T>(a: &mut Option<T>, b: Option<T>) {
        if a.is_none() {
            *a = b;
        }
    }
    // A time with an offset is more precise than the same wall-clock time without one.
    fn better(a: &mut Option<EventTime>, b: Option<EventTime>) {
        match (&a, &b) {
            (None, _)
            | (Some(EventTime::Floating(_) | EventTime::Date(_)), Some(EventTime::Fixed(_)))
            | (Some(EventTime::Date(_)), Some(EventTime::Floating(_))) => *a = b,
            _ => {}
        }
    }
    better(&mut e.start, other.start);
    better(&mut e.end, other.end);
    fill(&mut e.previous_start, other.previous_start);
    let (v, o) = (&mut e.venue, other.venue);
    fill(&mut v.name, o.name);
    fill(&mut v.street, o.street);
    fill(&mut v.locality, o.locality);
    fill(&mut v.region, o.region);
    fill(&mut v.postal_code, o.postal_code);
    fill(&mut v.country, o.country);
    let (p, o) = (&mut e.price, other.price);
    fill(&mut p.min, o.min);
    fill(&mut p.max, o.max);
    fill(&mut p.currency, o.currency);
    fill(&mut p.is_free, o.is_free);
    fill(&mut e.ticket_url, other.ticket_url);
    fill(&mut e.image_url, other.image_url);
    fill(&mut e.description, other.description);
    fill(&mut e.attendance, other.attendance);
    fill(&mut e.url, other.url);
    if !e.status_stated && other.status_stated {
        e.status = other.status;
        e.status_stated = true;
    }
    if e.category == gleaner_event::Category::Other {
        e.category = other.category;
    }
}

/// A zone the page states holds for the local times of its structured data; a zone stated
/// only inside one event's own description (`Free to watch. 7 PM Central.`) holds for that
/// event alone.
fn zone_into(text: &str, candidates: &mut [Candidate]) {
    let page = page::zone_mentions(text);
    if page.is_empty() {
        return;
    }
    let own: Vec<Vec<(String, chrono_tz::Tz)>> = candidates
        .iter()
        .map(|c| c.raw.description.as_deref().map(page::zone_mentions).unwrap_or_default())
        .collect();
    let inside = own.iter().map(Vec::len).sum::<usize>();
    let page_wide = if page.len() > inside { page::one_zone(&page) } else { None };
    for (c, own) in candidates.iter_mut().zip(&own) {
        if let Some(zone) = page::one_zone(own).or_else(|| page_wide.clone()) {
            c.raw.zone.get_or_insert(zone);
        }
    }
}
