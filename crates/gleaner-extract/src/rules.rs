//! Site rules: CSS selectors, written in config for one site, that read events from pages
//! with no structured data (issue 10).
//!
//! [`SiteRules`] is `serde::Deserialize` so the config crate can embed it as
//! `[[site_rules]]`; `gleaner extract --rules FILE` reads the same tables from a file:
//!
//! ```toml
//! [[site_rules]]
//! site = "https://venue.example"      # or a host: "venue.example" (and its subdomains)
//! item = "article.event-card"         # one event per match; the whole page when absent or unmatched
//! title = "h2"
//! date = { selector = "time", attr = "datetime" }
//! time = { selector = ".when", regex = "(\\d+h\\d*)" }
//! venue = ".place"
//! price = ".price"
//! link = "h2 a"                        # `href` unless `attr` says otherwise
//! next_page = "a.next"
//! language = "fr"
//! time_zone = "Europe/Paris"
//! ```
//!
//! A field is a selector, or a table with `selector`, `attr` (read this attribute instead
//! of the text) and `regex` (keep its first capture group, or the whole match). Selectors
//! are evaluated inside each item. Dates and prices are read as text in five languages
//! (`gleaner_event::datetext`, `gleaner_event::parse_price_text`). An item without a date
//! gives no event.

use std::fmt;
use std::sync::Arc;

use chrono::NaiveDate;
use chrono_tz::Tz;
use gleaner_event::Markup;
use gleaner_event::datetext::{DateOrder, parse_text_date};
use gleaner_event::text::collapse;
use gleaner_event::{RawEvent, RawOffer, parse_price_text};
use regex::Regex;
use scraper::{ElementRef, Html, Selector};
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use url::Url;

use crate::{Candidate, Diagnostic, Format, Severity};

/// Items beyond this many on one page are not read.
pub const MAX_ITEMS: usize = 5_000;

/// One site's rules as written in config.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiteRules {
    /// The site: an origin (`https://venue.example`, optionally with a path prefix) or a
    /// host (`venue.example`, which also covers its subdomains).
    pub site: String,
    /// Selector of one event on a listing; absent (or matching nothing) reads the whole
    /// page as one event.
    pub item: Option<String>,
    /// Title.
    pub title: Option<FieldRule>,
    /// Date, or date and time (`5 décembre 2026 à 20h`, an ISO `datetime` attribute).
    pub date: Option<FieldRule>,
    /// Time of day or time range, when written apart from the date.
    pub time: Option<FieldRule>,
    /// End date or date-time, when written apart.
    pub end: Option<FieldRule>,
    /// Venue name.
    pub venue: Option<FieldRule>,
    /// Postal address, one string.
    pub address: Option<FieldRule>,
    /// Price line (`12,50 €`, `$10–$20`, `Entrée libre`).
    pub price: Option<FieldRule>,
    /// Link to the event's own page (`href` by default).
    pub link: Option<FieldRule>,
    /// Image (`src` by default).
    pub image: Option<FieldRule>,
    /// Description.
    pub description: Option<FieldRule>,
    /// Status in words (`Annulé`, `Abgesagt`, `Postponed`, …).
    pub status: Option<FieldRule>,
    /// Selector of the day headings of a listing grouped by day (`<h3>Monday November
    /// 10</h3>` then the day's items): the last one before an item is read with its date.
    pub date_heading: Option<String>,
    /// Selector of the "next page" link of a listing.
    pub next_page: Option<String>,
    /// Language of the pages (`en`, `en-US`, `fr`…): how `05/12/2026` is read.
    pub language: Option<String>,
    /// Zone of the times the pages give (IANA name); else the source's or site's zone.
    pub time_zone: Option<String>,
    /// ISO 4217 currency of prices written without one, or with a bare `$` (`CAD`).
    pub currency: Option<String>,
}

/// Where one field is: a selector, an attribute to read instead of the text, a regex.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldRule {
    /// CSS selector, evaluated inside the item (or the page).
    pub selector: String,
    /// Read this attribute of the first match instead of its text.
    pub attr: Option<String>,
    /// Keep the first capture group (or the whole match) of this regex; no match, no value.
    pub regex: Option<String>,
    /// Read every match, joined with `, ` (an address spread over several elements).
    pub all: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldTable {
    selector: String,
    attr: Option<String>,
    regex: Option<String>,
    #[serde(default)]
    all: bool,
}

impl<'de> Deserialize<'de> for FieldRule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FieldRule, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FieldRule;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a CSS selector, or a table with `selector`, `attr` and `regex`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FieldRule, E> {
                Ok(FieldRule { selector: v.to_owned(), ..FieldRule::default() })
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<FieldRule, A::Error> {
                let t = FieldTable::deserialize(de::value::MapAccessDeserializer::new(map))?;
                Ok(FieldRule { selector: t.selector, attr: t.attr, regex: t.regex, all: t.all })
            }
        }
        d.deserialize_any(V)
    }
}

/// A problem in one site's rules: the key (`title.regex`), what is wrong, how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleProblem {
    /// The key inside the rules table (`item`, `date.selector`, `price.regex`).
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

#[derive(Debug)]
struct CompiledField {
    selector: Selector,
    attr: Option<String>,
    regex: Option<Regex>,
    all: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum SiteMatch {
    /// A host and its subdomains, any port.
    Host(String),
    /// An exact host and port, and a path prefix.
    Origin { host: String, port: Option<u16>, path: String },
}

/// Validated, compiled rules for one site, ready to apply to pages.
#[derive(Debug)]
pub struct CompiledRules {
    rules: SiteRules,
    site: SiteMatch,
    item: Option<Selector>,
    fields: Vec<(Field, CompiledField)>,
    next_page: Option<Selector>,
    date_heading: Option<Selector>,
    zone: Option<Tz>,
    order: DateOrder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Date,
    Time,
    End,
    Venue,
    Address,
    Price,
    Link,
    Image,
    Description,
    Status,
}

impl SiteRules {
    fn fields(&self) -> [(Field, &'static str, Option<&FieldRule>); 11] {
        [
            (Field::Title, "title", self.title.as_ref()),
            (Field::Date, "date", self.date.as_ref()),
            (Field::Time, "time", self.time.as_ref()),
            (Field::End, "end", self.end.as_ref()),
            (Field::Venue, "venue", self.venue.as_ref()),
            (Field::Address, "address", self.address.as_ref()),
            (Field::Price, "price", self.price.as_ref()),
            (Field::Link, "link", self.link.as_ref()),
            (Field::Image, "image", self.image.as_ref()),
            (Field::Description, "description", self.description.as_ref()),
            (Field::Status, "status", self.status.as_ref()),
        ]
    }

    /// Checks and compiles the rules: every selector parses, every regex compiles, the
    /// site is an origin or a host, the zone is an IANA name, and a date is read.
    pub fn compile(&self) -> Result<CompiledRules, Vec<RuleProblem>> {
        let mut problems = Vec::new();
        let site = site_match(&self.site).ok_or_else(|| RuleProblem {
            key: "site".into(),
            message: format!("`{}` is not a site", self.site),
            hint: Some(
                "write an origin such as `https://venue.example` or a host such as `venue.example`"
                    .into(),
            ),
        });
        let site = match site {
            Ok(s) => Some(s),
            Err(p) => {
                problems.push(p);
                None
            }
        };
        let mut selector = |key: String, text: &str| -> Option<Selector> {
            match Selector::parse(text) {
                Ok(s) if !text.trim().is_empty() => Some(s),
                Ok(_) => {
                    problems.push(RuleProblem { key, message: "is empty".into(), hint: None });
                    None
                }
                Err(e) => {
                    problems.push(RuleProblem {
                        key,
                        message: format!("`{text}` is not a CSS selector: {e}"),
                        hint: Some(
                            "write a CSS selector such as `article.event h2` or `time[datetime]`"
                                .into(),
                        ),
                    });
                    None
                }
            }
        };
        let item = self.item.as_deref().and_then(|s| selector("item".into(), s));
        let next_page = self.next_page.as_deref().and_then(|s| selector("next_page".into(), s));
        let date_heading =
            self.date_heading.as_deref().and_then(|s| selector("date_heading".into(), s));
        let mut fields = Vec::new();
        let mut regex_problems = Vec::new();
        for (field, name, rule) in self.fields() {
            let Some(rule) = rule else { continue };
            let sel = selector(format!("{name}.selector"), &rule.selector);
            let regex = match rule.regex.as_deref() {
                None => None,
                Some(text) => {
                    match regex::RegexBuilder::new(text).size_limit(1 << 20).build() {
                        Ok(r) => Some(r),
                        Err(e) => {
                            let first =
                                e.to_string().lines().last().unwrap_or_default().trim().to_owned();
                            regex_problems.push(RuleProblem {
                            key: format!("{name}.regex"),
                            message: format!("`{text}` is not a regular expression: {first}"),
                            hint: Some("use Rust regex syntax; a capture group `(…)` keeps just that part".into()),
                        });
                            None
                        }
                    }
                }
            };
            if let Some(selector) = sel {
                fields.push((
                    field,
                    CompiledField { selector, attr: rule.attr.clone(), regex, all: rule.all },
                ));
            }
        }
        problems.extend(regex_problems);
        if self.date.is_none() && self.date_heading.is_none() {
            problems.push(RuleProblem {
                key: "date".into(),
                message: "missing: an event needs a date".into(),
                hint: Some("add `date = \"…\"`, e.g. `date = { selector = \"time\", attr = \"datetime\" }`".into()),
            });
        }
        let zone = match self.time_zone.as_deref() {
            None => None,
            Some(name) => match name.parse::<Tz>() {
                Ok(z) => Some(z),
                Err(_) => {
                    problems.push(RuleProblem {
                        key: "time_zone".into(),
                        message: format!("`{name}` is not an IANA time zone"),
                        hint: Some("e.g. `Europe/Paris`, `America/Montreal`".into()),
                    });
                    None
                }
            },
        };
        if let Some(c) = &self.currency
            && !(c.len() == 3 && c.chars().all(|ch| ch.is_ascii_uppercase()))
        {
            problems.push(RuleProblem {
                key: "currency".into(),
                message: format!("`{c}` is not an ISO 4217 code"),
                hint: Some("three capital letters, e.g. `EUR`, `CAD`, `TRY`".into()),
            });
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(CompiledRules {
            rules: self.clone(),
            site: site.expect("no problems means the site parsed"),
            item,
            fields,
            next_page,
            date_heading,
            zone,
            order: self.language.as_deref().map(DateOrder::for_language).unwrap_or_default(),
        })
    }
}

fn site_match(text: &str) -> Option<SiteMatch> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if t.contains("://") {
        let url = Url::parse(t).ok()?;
        if !matches!(url.scheme(), "http" | "https") {
            return None;
        }
        return Some(SiteMatch::Origin {
            host: url.host_str()?.to_ascii_lowercase(),
            port: url.port_or_known_default(),
            path: url.path().to_owned(),
        });
    }
    let host = t.trim_end_matches('/').to_ascii_lowercase();
    if host.contains(['/', ' ', '?', '#']) {
        return None;
    }
    Url::parse(&format!("http://{host}/")).ok()?;
    Some(SiteMatch::Host(host))
}

impl CompiledRules {
    /// The rules as written.
    pub fn rules(&self) -> &SiteRules {
        &self.rules
    }

    /// Whether a page at `url` belongs to this site.
    pub fn applies_to(&self, url: &Url) -> bool {
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else { return false };
        match &self.site {
            SiteMatch::Host(h) => {
                let bare = h.split(':').next().unwrap_or(h);
                let port_ok = match h.split_once(':') {
                    Some((_, p)) => {
                        url.port_or_known_default().map(|x| x.to_string()).as_deref() == Some(p)
                    }
                    None => true,
                };
                port_ok && (host == bare || host.ends_with(&format!(".{bare}")))
            }
            SiteMatch::Origin { host: h, port, path } => {
                host == *h
                    && url.port_or_known_default() == *port
                    && url.path().starts_with(path.as_str())
            }
        }
    }

    /// The zone the rules give for the site's times.
    pub fn time_zone(&self) -> Option<Tz> {
        self.zone
    }

    /// Reads a parsed page: candidates (one per item with a date), links to event pages
    /// (the items' links, resolved) and the next listing page.
    pub fn apply(&self, doc: &Html, base: &Url, reference: Option<NaiveDate>) -> RulesOutput {
        let mut out = RulesOutput::default();
        let root = doc.root_element();
        let items: Vec<ElementRef<'_>> = match &self.item {
            Some(sel) => doc.select(sel).take(MAX_ITEMS).collect(),
            None => Vec::new(),
        };
        let listing = !items.is_empty();
        let headings: Vec<_> = match &self.date_heading {
            Some(sel) if listing => doc
                .select(sel)
                .take(MAX_ITEMS)
                .map(|h| (h.id(), collapse(&h.text().collect::<Vec<_>>().join(" "))))
                .collect(),
            _ => Vec::new(),
        };
        let scopes = if listing { items } else { vec![root] };
        for (n, scope) in scopes.into_iter().enumerate() {
            let location = if listing { format!("item #{}", n + 1) } else { "page".to_owned() };
            let value = |field: Field| -> Option<String> {
                let (_, f) = self.fields.iter().find(|(k, _)| *k == field)?;
                read_field(scope, f, field)
            };
            let link = value(Field::Link);
            if listing
                && let Some(href) = &link
                && let Some(url) = resolve(base, href)
                && !out.links.contains(&url)
            {
                out.links.push(url);
            }
            let heading = headings.iter().rev().find(|(id, _)| *id < scope.id()).map(|(_, t)| t);
            let date_text = match (heading, value(Field::Date)) {
                (Some(h), Some(d)) => Some(format!("{h} {d}")),
                (Some(h), None) => Some(h.clone()),
                (None, d) => d,
            };
            let time_text = value(Field::Time);
            let combined = match (&date_text, &time_text) {
                (Some(d), Some(t)) => Some(format!("{d} {t}")),
                (Some(d), None) => Some(d.clone()),
                _ => None,
            };
            let parsed =
                combined.as_deref().and_then(|t| parse_text_date(t, reference, self.order));
            let Some(parsed) = parsed else {
                out.diagnostics.push(Diagnostic {
                    severity: if date_text.is_some() { Severity::Warning } else { Severity::Info },
                    format: Format::Rules,
                    message: match &date_text {
                        Some(t) => format!("no date read from `{}`; no event", shorten(t)),
                        None => "the date selector matched nothing; no event".to_owned(),
                    },
                    location,
                });
                continue;
            };
            let end = parsed.end.or_else(|| {
                value(Field::End)
                    .and_then(|t| parse_text_date(&t, reference, self.order))
                    .map(|d| d.start)
            });
            let zoned = |t: gleaner_event::EventTime| match self.zone {
                Some(z) => t.with_default_zone(z),
                None => t,
            };
            let mut raw = RawEvent {
                markup: Markup::Text,
                name: value(Field::Title),
                start: Some(zoned(parsed.start).to_iso()),
                end: end.map(|e| zoned(e).to_iso()),
                location_name: value(Field::Venue),
                address_text: value(Field::Address),
                url: link,
                image: value(Field::Image),
                description: value(Field::Description),
                status: value(Field::Status).and_then(|s| status_token(&s)).map(str::to_owned),
                ..RawEvent::default()
            };
            let price_text = value(Field::Price);
            if let Some(price) = price_text.as_deref().and_then(parse_price_text) {
                // A bare `$` is the site's dollar, whatever it is.
                let currency = match (&self.rules.currency, price.currency) {
                    (Some(c), None) => Some(c.clone()),
                    (Some(c), Some(_))
                        if price_text.as_deref().is_some_and(|t| t.contains('$')) =>
                    {
                        Some(c.clone())
                    }
                    (_, parsed) => parsed.map(str::to_owned),
                };
                // Free entry states no price range, only that it is free.
                if price.is_free {
                    raw.is_accessible_for_free = Some("true".into());
                } else {
                    raw.offers.push(RawOffer {
                        low_price: Some(price.min.to_string()),
                        high_price: price.max.map(|m| m.to_string()),
                        currency,
                        ..RawOffer::default()
                    });
                }
            }
            out.candidates.push(Candidate { format: Format::Rules, location, raw });
        }
        if let Some(sel) = &self.next_page
            && let Some(el) = doc.select(sel).next()
            && let Some(href) = el.value().attr("href")
        {
            out.next_page = resolve(base, href);
        }
        out
    }
}

/// What the rules read from one page.
#[derive(Debug, Clone, Default)]
pub struct RulesOutput {
    /// One candidate per item (or the page) with a date.
    pub candidates: Vec<Candidate>,
    /// Links of the items, resolved, in page order.
    pub links: Vec<Url>,
    /// The next listing page.
    pub next_page: Option<Url>,
    /// Items skipped and why.
    pub diagnostics: Vec<Diagnostic>,
}

fn shorten(s: &str) -> String {
    let mut out: String = s.chars().take(80).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

fn resolve(base: &Url, href: &str) -> Option<Url> {
    let mut url = base.join(href.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

fn read_field(scope: ElementRef<'_>, f: &CompiledField, field: Field) -> Option<String> {
    if f.all {
        let parts: Vec<String> =
            scope.select(&f.selector).take(50).filter_map(|el| read_one(el, f, field)).collect();
        return (!parts.is_empty()).then(|| parts.join(", "));
    }
    // An item that is itself the match (`link = "a"` on `a.card` items) counts too.
    let el = if f.selector.matches(&scope) { scope } else { scope.select(&f.selector).next()? };
    read_one(el, f, field)
}

fn read_one(el: ElementRef<'_>, f: &CompiledField, field: Field) -> Option<String> {
    let default_attr = match field {
        Field::Link => Some("href"),
        Field::Image => Some("src"),
        _ => None,
    };
    let raw = match f.attr.as_deref().or(default_attr) {
        Some(attr) => el.value().attr(attr)?.to_owned(),
        None => {
            let text: Vec<&str> = el.text().collect();
            let joined = if field == Field::Description { text.join("\n") } else { text.join(" ") };
            if field == Field::Description {
                gleaner_event::text::block_of(&joined, Markup::Text)
            } else {
                collapse(&joined)
            }
        }
    };
    let value = match &f.regex {
        None => raw,
        Some(re) => {
            let caps = re.captures(&raw)?;
            caps.get(1).or_else(|| caps.get(0))?.as_str().to_owned()
        }
    };
    let value = value.trim().to_owned();
    (!value.is_empty()).then_some(value)
}

/// A status written in words, in the five languages, as a schema.org token.
pub fn status_token(text: &str) -> Option<&'static str> {
    let t = gleaner_event::datetext::fold_diacritics(text);
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has(&["cancel", "annul", "iptal", "abgesagt", "ausgefallen", "suspendid"]) {
        Some("EventCancelled")
    } else if has(&["postpon", "report", "ertelen", "aplazad", "verschoben", "pospuest"]) {
        Some("EventPostponed")
    } else if has(&[
        "new date",
        "nouvelle date",
        "nueva fecha",
        "neuer termin",
        "yeni tarih",
        "reschedul",
    ]) {
        Some("EventRescheduled")
    } else if has(&["online", "en ligne", "en linea", "cevrim ici", "virtual"]) {
        Some("EventMovedOnline")
    } else if has(&["schedul", "programm", "planland", "geplant"]) {
        Some("EventScheduled")
    } else {
        None
    }
}

/// Compiled rules for every site, looked up by page URL.
#[derive(Debug, Clone, Default)]
pub struct RuleBook {
    sites: Vec<Arc<CompiledRules>>,
}

impl PartialEq for RuleBook {
    fn eq(&self, other: &RuleBook) -> bool {
        self.sites.len() == other.sites.len()
            && self.sites.iter().zip(&other.sites).all(|(a, b)| a.rules == b.rules)
    }
}

impl RuleBook {
    /// Compiles every site's rules; problems are keyed `[i].key` by position.
    pub fn compile(rules: &[SiteRules]) -> Result<RuleBook, Vec<(usize, RuleProblem)>> {
        let mut sites = Vec::new();
        let mut problems = Vec::new();
        for (i, r) in rules.iter().enumerate() {
            match r.compile() {
                Ok(c) => sites.push(Arc::new(c)),
                Err(ps) => problems.extend(ps.into_iter().map(|p| (i, p))),
            }
        }
        if problems.is_empty() { Ok(RuleBook { sites }) } else { Err(problems) }
    }

    /// The rules of the site `url` is on; the most specific (longest site) wins.
    pub fn for_url(&self, url: &Url) -> Option<Arc<CompiledRules>> {
        self.sites.iter().filter(|r| r.applies_to(url)).max_by_key(|r| r.rules.site.len()).cloned()
    }

    /// Whether no site has rules.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// Number of sites with rules.
    pub fn len(&self) -> usize {
        self.sites.len()
    }
}

/// A TOML file of `[[site_rules]]` tables, as `gleaner extract --rules FILE` reads it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RulesFile {
    /// The sites' rules.
    #[serde(default)]
    pub site_rules: Vec<SiteRules>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sites_match_by_origin_or_host() {
        let r = |site: &str| {
            SiteRules {
                site: site.into(),
                date: Some(FieldRule { selector: "time".into(), ..FieldRule::default() }),
                ..SiteRules::default()
            }
            .compile()
            .unwrap()
        };
        let u = |s: &str| Url::parse(s).unwrap();
        assert!(r("https://venue.example").applies_to(&u("https://venue.example/agenda/1")));
        assert!(!r("https://venue.example").applies_to(&u("http://venue.example/agenda/1")));
        assert!(r("http://127.0.60.3:8080").applies_to(&u("http://127.0.60.3:8080/x")));
        assert!(!r("http://127.0.60.3:8080").applies_to(&u("http://127.0.60.3:8081/x")));
        assert!(r("venue.example").applies_to(&u("https://www.venue.example/")));
        assert!(!r("venue.example").applies_to(&u("https://othervenue.example/")));
        assert!(r("https://x.example/agenda/").applies_to(&u("https://x.example/agenda/a")));
        assert!(!r("https://x.example/agenda/").applies_to(&u("https://x.example/news/a")));
    }

    #[test]
    fn bad_selectors_regexes_and_zones_are_problems() {
        let rules = SiteRules {
            site: "not a site".into(),
            item: Some("div[".into()),
            title: Some(FieldRule {
                selector: "h1".into(),
                regex: Some("(".into()),
                ..FieldRule::default()
            }),
            time_zone: Some("Mars/Olympus".into()),
            ..SiteRules::default()
        };
        let keys: Vec<String> = rules.compile().unwrap_err().into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["site", "item", "title.regex", "date", "time_zone"]);
    }

    #[test]
    fn fields_deserialize_from_a_string_or_a_table() {
        let f: RulesFile = toml::from_str(
            "[[site_rules]]\nsite = \"a.example\"\ndate = { selector = \"time\", attr = \"datetime\" }\ntitle = \"h1\"\n",
        )
        .unwrap();
        let r = &f.site_rules[0];
        assert_eq!(r.title.as_ref().unwrap().selector, "h1");
        assert_eq!(r.date.as_ref().unwrap().attr.as_deref(), Some("datetime"));
        let err = toml::from_str::<RulesFile>(
            "[[site_rules]]\nsite = \"a.example\"\ndate = { selector = \"time\", atr = \"x\" }\n",
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown field `atr`"), "{err}");
    }

    #[test]
    fn status_words() {
        for (w, t) in [
            ("Annulé", "EventCancelled"),
            ("İptal edildi", "EventCancelled"),
            ("Abgesagt", "EventCancelled"),
            ("Reporté", "EventPostponed"),
            ("Aplazado", "EventPostponed"),
            ("Neuer Termin", "EventRescheduled"),
            ("En línea", "EventMovedOnline"),
            ("Çevrim içi", "EventMovedOnline"),
        ] {
            assert_eq!(status_token(w), Some(t), "{w}");
        }
        assert_eq!(status_token("Complet"), None);
    }
}
