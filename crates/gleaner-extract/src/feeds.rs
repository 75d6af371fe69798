//! RSS 2.0, RSS 1.0 (RDF) and Atom feeds: each item as a news item, or as an event when it
//! carries an event date or the source says its items are events.
//!
//! An item is an event ([`FeedMode::Auto`]) when it has a date other than its publication
//! date: the RSS `ev:` module (`ev:startdate`, `ev:enddate`, `ev:location`), xCal
//! (`xcal:dtstart`), Google's `gd:when`, a plain `startdate`/`eventdate`/`dtstart`-like
//! element, or a title that is itself a date with a `venue` next to it (ReverbNation's
//! show feeds), or else a date written in its title or description (`on Saturday, March
//! 14, 2026 at 10:30 am`; year-less dates after the publication day, and a date before
//! it is news). [`FeedMode::Events`] reads every item as an event; its start is then the
//! publication date when there is no other (Localist calendars put the event's day there,
//! at midnight: a midnight `pubDate` is read as a date only).
//!
//! Why not feed-rs: it drops the elements it does not model (`ev:*`, `venue`,
//! `ticket_price`), which are the event facts; the feed shapes are simple enough to read
//! from a quick-xml tree (`xml.rs`) directly. Nothing is sanitised here: texts go to
//! `normalise`, which strips tags.

use chrono::{DateTime, FixedOffset, NaiveDateTime, Timelike};
use gleaner_event::datetext::{DateOrder, TextDate, parse_text_date};
use gleaner_event::time::parse_event_time;
use gleaner_event::{EventTime, RawEvent, RawOffer};
use url::Url;

use crate::xml::{self, Element};
use crate::{Diagnostic, Format, Severity};

/// Input beyond this many bytes is not read.
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// Items beyond this many are not read.
pub const MAX_ITEMS: usize = 10_000;

/// Whether a feed's items are events, news, or decided per item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FeedMode {
    /// An item with an event date is an event, others are news.
    #[default]
    Auto,
    /// Every item is an event (the source says so).
    Events,
    /// Every item is a news item.
    News,
}

/// One event read from a feed item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeedEvent {
    /// The item's `guid` or Atom `id`, for identity.
    pub id: Option<String>,
    /// Where in the feed (`item #3`).
    pub location: String,
    /// The values, for `normalise`.
    pub raw: RawEvent,
}

/// One news item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsItem {
    /// `guid` or Atom `id`.
    pub id: Option<String>,
    /// The title, as written (may hold entities or markup).
    pub title: Option<String>,
    /// The item's link, resolved against the feed's URL.
    pub url: Option<Url>,
    /// `pubDate`, `dc:date`, Atom `published` (else `updated`).
    pub published: Option<DateTime<FixedOffset>>,
    /// The summary or content, as written.
    pub summary: Option<String>,
    /// Categories or Atom `category` terms.
    pub categories: Vec<String>,
    /// An image (enclosure, `media:content`, `media:thumbnail`), resolved.
    pub image: Option<Url>,
}

/// What a feed held.
#[derive(Debug, Clone, Default)]
pub struct FeedItems {
    /// The feed's own title.
    pub title: Option<String>,
    /// Items read as events.
    pub events: Vec<FeedEvent>,
    /// Items read as news.
    pub news: Vec<NewsItem>,
    /// What was repaired, skipped or refused.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads a feed. `base_url` is where it came from. Never panics.
///
/// Rejected: documents whose root is not `rss`, `rdf:RDF` or `feed` (an error diagnostic,
/// nothing read); items past [`MAX_ITEMS`]; bytes past [`MAX_BYTES`].
pub fn read(bytes: &[u8], base_url: &Url, mode: FeedMode) -> FeedItems {
    let mut out = FeedItems::default();
    let bytes = if bytes.len() > MAX_BYTES {
        out.diag(Severity::Error, format!("feed cut at {MAX_BYTES} bytes"), "");
        &bytes[..MAX_BYTES]
    } else {
        bytes
    };
    let text = xml::decode(bytes);
    let (root, error) = xml::parse(&text);
    if let Some(e) = error {
        out.diag(Severity::Warning, e, "");
    }
    let Some(root) = root else {
        out.diag(Severity::Error, "no XML element: not a feed".into(), "");
        return out;
    };
    let (channel, items): (Option<&Element>, Vec<&Element>) = match root.local().as_str() {
        "rss" => {
            let ch = root.child("channel");
            (
                ch,
                ch.map(|c| c.children.iter().filter(|e| e.local() == "item").collect())
                    .unwrap_or_default(),
            )
        }
        "rdf" => {
            (root.child("channel"), root.children.iter().filter(|e| e.local() == "item").collect())
        }
        "feed" => (Some(&root), root.children.iter().filter(|e| e.local() == "entry").collect()),
        other => {
            out.diag(
                Severity::Error,
                format!("root element `{other}` is not rss, rdf:RDF or feed"),
                "",
            );
            return out;
        }
    };
    out.title = channel.and_then(|c| c.child_text("title"));
    if items.len() > MAX_ITEMS {
        out.diag(
            Severity::Warning,
            format!("read the first {MAX_ITEMS} of {} items", items.len()),
            "",
        );
    }
    let performer = channel.and_then(|c| c.child_text("artist_name"));
    let order = channel
        .and_then(|c| c.child_text("language"))
        .or_else(|| root.attr("lang").map(str::to_owned))
        .map(|l| DateOrder::for_language(&l))
        .unwrap_or_default();
    let lang = channel
        .and_then(|c| c.child_text("language"))
        .or_else(|| root.attr("lang").map(str::to_owned));
    let place = channel
        .and_then(|c| c.child_text("description").or_else(|| c.child_text("subtitle")))
        .and_then(|d| {
            let mut p = channel_place(&d)?;
            if p.country.is_none() {
                // The place as written (`…, 21000 Dijon`) in the feed's language.
                let written = RawEvent { address_text: Some(d), ..RawEvent::default() };
                p.country =
                    crate::page::address_country(lang.as_deref(), &written).map(str::to_owned);
            }
            Some(p)
        });
    for (i, item) in items.into_iter().take(MAX_ITEMS).enumerate() {
        let loc = format!("item #{}", i + 1);
        let hints = event_hints(item, order);
        let is_event = match mode {
            FeedMode::Events => true,
            FeedMode::News => false,
            FeedMode::Auto => hints.start.is_some(),
        };
        if is_event {
            let mut raw = raw_event(item, hints, performer.as_deref());
            if let Some(p) = &place
                && raw.location_name.is_none()
                && raw.location_text.is_none()
                && raw.address_text.is_none()
                && raw.street.is_none()
                && raw.locality.is_none()
            {
                raw.location_name.clone_from(&p.venue);
                raw.street.clone_from(&p.street);
                raw.locality.clone_from(&p.locality);
                raw.country.clone_from(&p.country);
            } else if let Some(p) = &place {
                in_channel_town(&mut raw, p);
            }
            if raw.country.is_none()
                && let Some(c) = crate::page::address_country(lang.as_deref(), &raw)
            {
                // A Turkish feed's `Mah.`/`Cad.` street, a French feed's `69002 Lyon`.
                raw.country = Some(c.to_owned());
            }
            out.events.push(FeedEvent { id: id_of(item), raw, location: loc });
        } else {
            out.news.push(news_item(item, base_url));
        }
    }
    out
}

impl FeedItems {
    fn diag(&mut self, severity: Severity, message: String, location: &str) {
        self.diagnostics.push(Diagnostic {
            severity,
            format: Format::Feed,
            message,
            location: location.to_owned(),
        });
    }
}

fn id_of(item: &Element) -> Option<String> {
    item.child_text("guid")
        .or_else(|| item.child_text("id"))
        .or_else(|| item.attr("about").map(str::to_owned))
}

fn link_of(item: &Element) -> Option<String> {
    // Atom: `<link rel="alternate" href>`, or the first `link` with an href.
    let atom = item
        .children
        .iter()
        .filter(|c| c.local() == "link" && c.attr("href").is_some())
        .max_by_key(|c| matches!(c.attr("rel"), None | Some("alternate")))
        .and_then(|c| c.attr("href"))
        .map(str::to_owned);
    atom.or_else(|| item.child_text("link")).or_else(|| {
        item.child_text("guid").filter(|g| {
            g.starts_with("http")
                && item.child("guid").and_then(|e| e.attr("isPermaLink")) != Some("false")
        })
    })
}

/// The blocks of an Atom `content` (or `summary`) of `type="xhtml"`, as text: each
/// paragraph, list item or heading, and each table whole (its rows' cells in order, so a
/// `Tarih | 19 Mayıs 2026` row and a `Saat | 20:00` row read as one date and time). The
/// flag says the block is a paragraph (`p`). `None` when the item has no such content.
fn xhtml_blocks(item: &Element) -> Option<Vec<(bool, String)>> {
    let content = item.children.iter().find(|c| {
        matches!(c.local().as_str(), "content" | "summary")
            && c.attr("type").is_some_and(|t| t.trim().eq_ignore_ascii_case("xhtml"))
    })?;
    fn inline(e: &Element, out: &mut String) {
        out.push(' ');
        out.push_str(e.text.trim());
        for c in &e.children {
            inline(c, out);
        }
    }
    fn walk(e: &Element, out: &mut Vec<(bool, String)>, depth: usize) {
        let local = e.local();
        let block = matches!(
            local.as_str(),
            "p" | "li" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "table" | "dl" | "blockquote"
        );
        if block || e.children.is_empty() || depth > 32 {
            let mut t = String::new();
            inline(e, &mut t);
            let t = gleaner_event::text::clean_line(&t);
            if !t.is_empty() {
                out.push((local == "p", t));
            }
            return;
        }
        if !e.text.trim().is_empty() {
            out.push((false, gleaner_event::text::clean_line(&e.text)));
        }
        for c in &e.children {
            walk(c, out, depth + 1);
        }
    }
    let mut out = Vec::new();
    for c in &content.children {
        walk(c, &mut out, 0);
    }
    Some(out)
}

/// The first `<p>` of an HTML description that holds text, when it has two or more;
/// else the description as it is.
fn lead_paragraph(html: &str) -> String {
    let paragraphs = html_paragraphs(html);
    match paragraphs.first() {
        Some(first) if paragraphs.len() >= 2 => first.clone(),
        _ => html.to_owned(),
    }
}

/// The `<p>` elements of an HTML description that hold text, as written (with their
/// markup); none when it has no `<p>`.
fn html_paragraphs(html: &str) -> Vec<String> {
    let lower = html.to_ascii_lowercase();
    lower
        .match_indices("<p")
        .map(|(i, _)| i)
        .filter(|i| lower[i + 2..].starts_with(['>', ' ', '\t', '\n']))
        .filter_map(|i| {
            let body = i + lower[i..].find('>')? + 1;
            let end = lower[body..].find("</p>").map_or(lower.len(), |e| body + e);
            let para = &html[i..(end + 4).min(html.len())];
            let text = gleaner_event::text::clean_line(para);
            (!text.trim().is_empty()).then(|| para.to_owned())
        })
        .collect()
}

/// The place a practical line of an item's text names after a label (`Fecha: jueves 5 de
/// marzo · Hora: 19.30 h · Lugar: salón de actos del Ateneo`, `Ort: Rathausgalerie`,
/// `Venue: The Old Mill`): the value up to the next `·`, `|` or line's end.
fn labelled_place(text: &str) -> Option<String> {
    const PLACE: [&str; 10] = [
        "lugar",
        "lieu",
        "ort",
        "veranstaltungsort",
        "yer",
        "mekan",
        "venue",
        "location",
        "where",
        "adresse",
    ];
    let line = gleaner_event::text::clean_line(text);
    line.split(['·', '|', '\n']).find_map(|segment| {
        let (label, value) = segment.split_once(':')?;
        let label = label.trim().to_lowercase();
        let value = value.trim().trim_end_matches('.').trim();
        (PLACE.contains(&label.as_str())
            && !value.is_empty()
            && value.chars().count() <= 120
            && !value.contains(':'))
        .then(|| value.to_owned())
    })
}

/// Whether a paragraph is a line of labelled facts (`Fecha: jueves 5 de marzo · Hora:
/// 19.30 h · Lugar: …`, `Date: 14 May | Time: 8pm`): two parts or more, split at `·` or `|`,
/// each opening with a label of one or two words and a colon. A sentence that gives the
/// date (`Le jeudi 12 mars à 20h30, salle Jean-Vigo : L'Aurore…`) is the event's text.
fn is_practical_line(paragraph: &str) -> bool {
    let line = gleaner_event::text::clean_line(paragraph);
    let parts: Vec<&str> = line.split(['·', '|']).map(str::trim).collect();
    parts.len() >= 2
        && parts.iter().all(|p| {
            p.split_once(':').is_some_and(|(label, value)| {
                let words = label.split_whitespace().count();
                (1..=2).contains(&words) && !value.trim().is_empty()
            })
        })
}

/// The first image an item's HTML shows (`<img src>` in `content:encoded` or the
/// description, where WordPress puts the featured image), when it has no enclosure:
/// emoji, smilies and one-pixel trackers are not the event's.
fn html_image(item: &Element) -> Option<String> {
    let html = item
        .children
        .iter()
        .find(|c| c.name == "content:encoded")
        .map(|c| c.text.clone())
        .or_else(|| item.child_text("description"))?;
    let lower = html.to_ascii_lowercase();
    lower.match_indices("<img").take(20).find_map(|(i, _)| {
        let tag_end = lower[i..].find('>').map_or(lower.len(), |e| i + e);
        let tag = &html[i..tag_end];
        let tag_lower = &lower[i..tag_end];
        let at = tag_lower.find(" src=")? + 5;
        let quote = tag[at..].chars().next()?;
        let src = if quote == '"' || quote == '\'' {
            tag[at + 1..].split(quote).next()?
        } else {
            tag[at..].split_whitespace().next()?
        };
        let tiny = tag_lower.contains("width=\"1\"") || tag_lower.contains("height=\"1\"");
        let decoration = ["emoji", "smilies", "feedburner", "pixel"]
            .iter()
            .any(|w| src.to_ascii_lowercase().contains(w));
        (!src.is_empty() && !tiny && !decoration).then(|| src.trim().to_owned())
    })
}

/// An item's text for its description, price and free entry: its [`summary_of`], or,
/// when that is a description cut short (WordPress's `… […]` excerpt) beside the item's
/// full HTML content, the content. (Its date is read from the summary: an update note in
/// the content, `MISE À JOUR (23 février)`, dates no event.)
fn full_summary_of(item: &Element) -> Option<String> {
    if xhtml_blocks(item).is_none()
        && item.child_text("description").is_some_and(|d| is_excerpt(&d))
        && let Some(full) = item
            .children
            .iter()
            .find(|c| c.name == "content:encoded")
            .map(|c| c.text.trim().to_owned())
            .filter(|c| !c.is_empty())
    {
        return Some(full);
    }
    summary_of(item)
}

fn summary_of(item: &Element) -> Option<String> {
    if let Some(blocks) = xhtml_blocks(item) {
        let text = blocks.into_iter().map(|(_, t)| t).collect::<Vec<_>>().join(" ");
        return Some(text).filter(|t| !t.is_empty());
    }
    item.child_text("description")
        .or_else(|| item.child_text("summary"))
        .or_else(|| {
            item.children
                .iter()
                .find(|c| c.name == "content:encoded")
                .map(|c| c.text.trim().to_owned())
        })
        .or_else(|| item.child_text("content"))
}

/// The language a feed states for itself (RSS's `<language>fr-CA</language>`, Atom's
/// `xml:lang="en-AU"`), from its first 16 KiB: a feed names it before its items.
pub(crate) fn feed_language(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(16 * 1024)]);
    let value = if let Some(at) = head.find("<language>") {
        let rest = &head[at + "<language>".len()..];
        &rest[..rest.find('<')?]
    } else {
        let at = head.find("xml:lang=")? + "xml:lang=".len();
        let rest = head[at..].strip_prefix(['"', '\''])?;
        &rest[..rest.find(['"', '\''])?]
    };
    let value = value.trim();
    (!value.is_empty() && value.len() <= 16).then(|| value.to_owned())
}

/// Whether a feed item's description is an excerpt cut short: it ends with an ellipsis,
/// bare or bracketed (`… mit recycelten Materialien. […]`, `Read more...`, `[&hellip;]`).
fn is_excerpt(description: &str) -> bool {
    let text = gleaner_event::text::clean_line(description);
    let t = text.trim_end();
    ["[…]", "[...]", "[&hellip;]", "…", "..."].iter().any(|e| t.ends_with(e))
}

fn image_of(item: &Element) -> Option<String> {
    for c in item.descendants() {
        let local = c.local();
        let is_image_type = c.attr("type").is_some_and(|t| t.starts_with("image/"))
            || c.attr("medium") == Some("image");
        let url = c.attr("url").or_else(|| c.attr("href"));
        match local.as_str() {
            "enclosure" | "content" if is_image_type => return url.map(str::to_owned),
            "thumbnail" => return url.map(str::to_owned),
            "link" if is_image_type && c.attr("rel") == Some("enclosure") => {
                return url.map(str::to_owned);
            }
            "image" if c.prefix() == "itunes" => return url.map(str::to_owned),
            _ => {}
        }
    }
    None
}

fn published_of(item: &Element) -> Option<DateTime<FixedOffset>> {
    ["pubdate", "published", "date", "issued", "updated", "modified"]
        .iter()
        .find_map(|n| item.child_text(n))
        .and_then(|t| parse_feed_date(&t))
}

/// RFC 822/2822 (`pubDate`), RFC 3339 (Atom), and the lenient ISO shapes.
fn parse_feed_date(s: &str) -> Option<DateTime<FixedOffset>> {
    let s = s.trim();
    if let Ok(d) = DateTime::parse_from_rfc2822(s) {
        return Some(d);
    }
    if let Ok(d) = DateTime::parse_from_rfc3339(s) {
        return Some(d);
    }
    // Named zones RFC 2822 parsers refuse (`CEST`, `PDT` are read by chrono; `UT`, `Z` too).
    match parse_event_time(s)? {
        EventTime::Fixed(d) => Some(d),
        _ => None,
    }
}

fn news_item(item: &Element, base: &Url) -> NewsItem {
    let resolve = |v: Option<String>| {
        v.and_then(|u| base.join(u.trim()).ok()).filter(|u| matches!(u.scheme(), "http" | "https"))
    };
    NewsItem {
        id: id_of(item),
        title: item.child_text("title"),
        url: resolve(link_of(item)),
        published: published_of(item),
        summary: summary_of(item),
        categories: item
            .children
            .iter()
            .filter(|c| c.local() == "category" || c.local() == "subject")
            .filter_map(|c| {
                let t = c.text.trim();
                if t.is_empty() { c.attr("term").map(str::to_owned) } else { Some(t.to_owned()) }
            })
            .collect(),
        image: resolve(image_of(item)),
    }
}

/// What an item says about an event beyond RSS's own fields.
#[derive(Default)]
struct Hints {
    start: Option<String>,
    end: Option<String>,
    /// The title was the date (ReverbNation).
    title_is_date: bool,
    location: Option<String>,
    venue: Option<String>,
    address: Option<String>,
    price: Option<String>,
    tickets: Option<String>,
    status: Option<String>,
    /// The start was read from the item's text (no date field): its price and status are
    /// read from that text too.
    date_in_text: bool,
    /// Which text the start was read from: 0 the title, 1… the summary (or the xhtml
    /// content's blocks, in order).
    date_text: usize,
    /// The date was read from an HTML description whose lead paragraph is a practical line
    /// that states it (`Fecha: jueves 5 de marzo · Hora: 19.30 h`), and another follows.
    lead_dated: bool,
}

const START_NAMES: [&str; 8] = [
    "startdate",
    "start_date",
    "eventdate",
    "event_date",
    "dtstart",
    "starttime",
    "start_time",
    "begin",
];
const END_NAMES: [&str; 6] = ["enddate", "end_date", "dtend", "endtime", "end_time", "end"];

fn event_hints(item: &Element, order: DateOrder) -> Hints {
    let mut h = Hints::default();
    for c in &item.children {
        let local = c.local();
        let prefix = c.prefix();
        let text = c.text.trim();
        if matches!(prefix.as_str(), "dc" | "dcterms" | "atom" | "content") {
            continue;
        }
        if START_NAMES.contains(&local.as_str()) && !text.is_empty() && h.start.is_none() {
            h.start = Some(text.to_owned());
        } else if END_NAMES.contains(&local.as_str()) && !text.is_empty() && h.end.is_none() {
            h.end = Some(text.to_owned());
        } else if local == "when" {
            // gd:when startTime="…" endTime="…"
            h.start = h.start.take().or_else(|| c.attr("startTime").map(str::to_owned));
            h.end = h.end.take().or_else(|| c.attr("endTime").map(str::to_owned));
        } else if local == "location" && !text.is_empty() && h.location.is_none() {
            h.location = Some(text.to_owned()).filter(|t| !t.is_empty());
        } else if local == "venue" && !text.is_empty() {
            h.venue = Some(text.to_owned());
        } else if local == "address" && !text.is_empty() {
            h.address = Some(text.to_owned());
        } else if matches!(local.as_str(), "ticket_price" | "show_price" | "price")
            && !text.is_empty()
        {
            h.price = h.price.take().or_else(|| Some(text.to_owned()));
        } else if matches!(local.as_str(), "tickets_url" | "ticket_url" | "tickets")
            && !text.is_empty()
        {
            h.tickets = Some(text.to_owned());
        } else if local == "status" || local == "eventstatus" {
            h.status = Some(text.to_owned()).filter(|t| !t.is_empty());
        }
    }
    if h.start.is_none()
        && h.venue.is_some()
        && let Some(t) = item.child_text("title").and_then(|t| date_title(&t))
    {
        h.start = Some(t.format("%Y-%m-%dT%H:%M:%S").to_string());
        h.title_is_date = true;
    }
    if h.start.is_none()
        && let Some((d, at)) = written_date(item, order)
    {
        h.date_text = at;
        h.start = Some(d.start.to_iso());
        h.end = d.end.filter(|e| *e != d.start).map(|e| e.to_iso());
        h.date_in_text = true;
        let paragraphs = summary_of(item).map(|t| html_paragraphs(&t)).unwrap_or_default();
        let published = published_of(item).map(|p| p.date_naive());
        h.lead_dated = xhtml_blocks(item).is_none()
            && paragraphs.len() >= 2
            && is_practical_line(&paragraphs[0])
            && parse_text_date(&gleaner_event::text::clean_line(&paragraphs[0]), published, order)
                .is_some_and(|l| l.start.date() == d.start.date());
        if h.location.is_none() && h.venue.is_none() && h.address.is_none() {
            // `Lugar: salón de actos del Ateneo` on the item's practical line.
            let texts = if paragraphs.is_empty() {
                summary_of(item).into_iter().collect()
            } else {
                paragraphs
            };
            h.location = texts.iter().find_map(|t| labelled_place(t));
        }
    }
    h
}

/// The place a feed's channel description names as where its events are: `Gigs and talks
/// at the Spanish Arch Arts Centre, 4 Long Walk, Galway, Ireland.`, `Events, talks and news
/// from Dunmore Botanic Garden, Kinnoull Road, Perth, Scotland.` — the text after the last
/// ` at ` (` à `, ` from `), read as a `LOCATION` is; only when it gives a venue and a street
/// or town.
fn channel_place(description: &str) -> Option<crate::ical::LocationParts> {
    let line = gleaner_event::text::clean_line(description);
    let at = [" at ", " à ", " from "]
        .iter()
        .filter_map(|w| line.rsplit_once(w))
        .max_by_key(|(b, _)| b.len());
    // Without ` at `, a description that is only a place (`Nilüfer Kültür Merkezi, Özlüce
    // Mah. Kültür Cad. No: 5, Nilüfer / Bursa`) names it: venue, street and town all.
    let whole = at.is_none();
    let after = at.map_or(line.as_str(), |(_, a)| a);
    let after = after.trim().trim_end_matches('.').trim();
    let after = after.strip_prefix("the ").unwrap_or(after);
    if !after.contains(',') || after.chars().count() > 160 {
        return None;
    }
    let parts = crate::ical::split_location(after);
    let named = if whole {
        parts.street.is_some() && parts.locality.is_some()
    } else {
        parts.street.is_some() || parts.locality.is_some()
    };
    (parts.venue.is_some() && named).then_some(parts)
}

/// An item that names its venue but no town (`Lugar: Café del Ateneo`, `Lugar: Iglesia de
/// San Juan el Real, plaza de San Juan s/n`) is in the town of the place its channel names:
/// its town and country, and its street too when the venue is a part of the channel's
/// (a word of the channel venue's name in it: `Café del Ateneo` of `Ateneo de Calatayud`).
fn in_channel_town(raw: &mut RawEvent, channel: &crate::ical::LocationParts) {
    let Some(venue) = raw.location_name.as_deref() else { return };
    if raw.locality.is_some() || raw.address_text.is_some() || raw.location_text.is_some() {
        return;
    }
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 4 && w.starts_with(char::is_uppercase))
            .map(str::to_lowercase)
            .collect()
    };
    let own = words(venue);
    let part_of = channel.venue.as_deref().is_some_and(|c| {
        let town = channel.locality.as_deref().map(str::to_lowercase).unwrap_or_default();
        words(c).iter().any(|w| *w != town && own.contains(w))
    });
    if raw.street.is_none() && part_of {
        raw.street.clone_from(&channel.street);
    }
    raw.locality.clone_from(&channel.locality);
    if raw.country.is_none() {
        raw.country.clone_from(&channel.country);
    }
}

/// What an item's text says of its price and status when its date was read from that
/// text: the first sentence with an amount and a currency (`Tarif plein 8 €, réduit 5 €.`,
/// `Teilnahme 8 €`), and a status word (`Annulé`, `abgesagt`).
fn text_facts(text: &str, raw: &mut RawEvent) {
    let line = gleaner_event::text::clean_line(text);
    if raw.status.is_none() {
        raw.status = crate::fallback::status_in(&line).map(str::to_owned);
    }
    price_from_text(&line, raw);
}

/// The price a text states in its first short sentence with an amount and a currency
/// (`Tickets £12 / £8 concessions on the door.`, `Entrada: 3 €.`), when the event has no
/// offer and no free flag yet.
pub(crate) fn price_from_text(line: &str, raw: &mut RawEvent) {
    let line = gleaner_event::text::clean_line(line);
    if raw.offers.is_empty() && raw.is_accessible_for_free.is_none() {
        let money = |t: &str| has_money(t);
        let parts: Vec<String> = line
            .split(". ")
            .flat_map(|s| s.split("; "))
            .take(60)
            .map(|s| s.trim().trim_end_matches('.'))
            .map(|s| if s.chars().count() <= 80 { s.to_owned() } else { priced_run(s, &money) })
            .collect();
        let read = parts.iter().enumerate().find_map(|(i, s)| {
            let p = (s.chars().count() <= 80 && money(s))
                .then(|| gleaner_event::parse_price_text(s))??;
            let p = marked_over_unmarked(s, p);
            // A group's cheaper price in the next part (`… 600 TL (yemekler dahil);
            // öğrenci takımlarına 300 TL`, `Adhesión $12.000 con cena; niños $6.000`).
            let tier = parts
                .get(i + 1)
                .filter(|n| n.chars().count() <= 80 && money(n) && names_a_tier(n))
                .and_then(|n| gleaner_event::parse_price_text(&format!("{s}; {n}")))
                .filter(|t| t.min < p.min && !t.is_free);
            Some(tier.unwrap_or(p))
        });
        if let Some(p) = read.filter(|p| !p.is_free) {
            let mut p = p;
            if !p.min.is_zero() && free_tier_beside(&line, &money) {
                p.max = p.max.or(Some(p.min));
                p.min -= p.min;
            }
            crate::fallback::price_into(&p, raw);
        }
    }
}

/// A part's amounts that its currency marks, over a reading that took an unmarked number
/// as the lowest (`Two games of 12 ends … Members $20`: a count) or stopped at the first of a list (`Members $20, visitors $25`), so that its
/// highest amount falls short of theirs: their range. A range closed by one sign
/// (`Karten 12–35 €`), a floor (`from $10`), a free tier and free entry stay as read.
fn marked_over_unmarked(part: &str, read: gleaner_event::PriceText) -> gleaner_event::PriceText {
    let Some(max) = read.max else { return read };
    if read.is_free || gleaner_event::states_free_tier(part) {
        return read;
    }
    match gleaner_event::priced_range(part) {
        Some(r) if !r.is_free && r.max > Some(max) => r,
        _ => read,
    }
}

/// Words that name a group's or an early price, folded (`niños`, `öğrenci`, `members`,
/// `ermäßigt`, `erken kayıt`, `prévente`).
const TIER_WORDS: [&str; 34] = [
    "child",
    "children",
    "kids",
    "kinder",
    "enfant",
    "enfants",
    "nino",
    "ninos",
    "menores",
    "cocuk",
    "student",
    "students",
    "etudiant",
    "etudiants",
    "estudiante",
    "estudiantes",
    "ogrenci",
    "schuler",
    "member",
    "members",
    "membre",
    "membres",
    "socios",
    "mitglieder",
    "uye",
    "reduced",
    "concession",
    "concessions",
    "ermassigt",
    "reduit",
    "early",
    "erken",
    "prevente",
    "preventa",
];

/// Whether a text names a group's or an early price ([`TIER_WORDS`], or a word they open:
/// `öğrenci takımlarına`, `kayıtlarda`).
fn names_a_tier(text: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(text).to_lowercase();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .any(|w| TIER_WORDS.iter().any(|t| w.starts_with(t)))
}

/// Whether a text writes money: a currency sign (`$`, `€`, `£`, `₺`) or code (`TL`, `EUR`).
pub(crate) fn has_money(t: &str) -> bool {
    t.contains(['$', '€', '£', '₺'])
        || t.to_lowercase()
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w))
}

/// Whether a sentence of a text without an amount lets a group in free (`Precio: 15 €.
/// Socios de la cooperativa, gratis.`, `Inscripción gratuita para colegiados. No
/// colegiados: 20 €.`, `… 150 TL; dernek üyelerine ücretsizdir.`): the price the text
/// states is then the others', and the lowest is zero. `Estacionamiento gratuito` names no
/// group.
fn free_tier_beside(line: &str, money: &dyn Fn(&str) -> bool) -> bool {
    line.split(". ")
        .flat_map(|s| s.split("; "))
        .filter(|s| s.chars().count() <= 200 && !money(s))
        .any(gleaner_event::states_free_tier)
}

/// Of a long line in parts (`Entradas: 8 € · socios del Ateneo 5 € · venta anticipada en
/// taquilla una hora antes`), the run of parts with an amount, from the first: `Entradas:
/// 8 € · socios del Ateneo 5 €`. A long sentence that opens its prices with a colon
/// (`Esta edición es con entrada: general $3.000, menores de 12 gratis`) gives what follows
/// the colon, when that is short. Empty when no part has one.
fn priced_run(line: &str, money: &dyn Fn(&str) -> bool) -> String {
    let run = line
        .split(" · ")
        .map(str::trim)
        .skip_while(|p| !money(p))
        .take_while(|p| money(p))
        .collect::<Vec<_>>()
        .join(" · ");
    if run.chars().count() <= 80 {
        return run;
    }
    run.split(": ")
        .skip(1)
        .take(4)
        .map(str::trim)
        .find(|p| p.chars().count() <= 80 && money(p))
        .map_or(run.clone(), str::to_owned)
}

/// An event date written in the item's title or description text (`Join us on Saturday,
/// March 14, 2026 at 10:30 am`, `14 Mart 2026 Cumartesi saat 20.00'de`). Year-less dates
/// are read after the publication day; a date before it is what the item reports on, not
/// an event (news), so it gives nothing.
///
/// Precision first: only one day with a time of day counts (`at 10:30 am`); a period
/// (`Du 1er au 12 décembre`, `from 3 to 7 May`, `jusqu'au 12`, `until`) is what news
/// about works or closures says, so it gives nothing.
fn written_date(item: &Element, order: DateOrder) -> Option<(TextDate, usize)> {
    static PERIOD: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:du|from|vom|von|desde|del|dal)\s+(?:\p{L}+\.?,?\s+)?\d{1,2}(?:er|st|nd|rd|th|\.)?(?:\s+(?:de\s+)?\p{L}+\.?)?\s+(?:au|to|bis|al|hasta|-|–)\s|\b(?:jusqu|until|bis zum|hasta el|tarihine kadar|'[ae] kadar|tarihleri arasında)\b",
        )
        .expect("a constant regex")
    });
    let published = published_of(item).map(|d| d.date_naive());
    let is_period = |t: &str| PERIOD.is_match(t) || has_day_range(t);
    let title = item.child_text("title");
    let scan = |rest: Vec<String>| -> Option<(TextDate, usize)> {
        let texts = title
            .clone()
            .into_iter()
            .map(|t| (0, t))
            .chain(rest.into_iter().enumerate().map(|(i, t)| (i + 1, t)));
        // A day without a time (`19 Mayıs Gençlik Konseri`) is the event's when a later text
        // gives that day with its time (`Tarih 19 Mayıs 2026 · Saat 20:00`).
        let mut untimed_day = None;
        for (at, text) in texts {
            let text = gleaner_event::text::clean_line(&text);
            let Some(d) = parse_text_date(&text, published, order) else { continue };
            let timed = matches!(d.start, EventTime::Floating(_) | EventTime::Fixed(_));
            let one_day = d.end.is_none_or(|e| e.date() == d.start.date());
            let period = is_period(&text);
            let ok = timed && one_day && !period && published.is_none_or(|p| d.start.date() >= p);
            let bare_day = !timed && d.end.is_none() && !period;
            match untimed_day {
                None if ok => return Some((d, at)),
                None if bare_day => untimed_day = Some(d.start.date()),
                None => return None,
                Some(day) if bare_day && d.start.date() == day => {}
                Some(day) => return (ok && d.start.date() == day).then_some((d, at)),
            }
        }
        None
    };
    match xhtml_blocks(item) {
        Some(blocks) => scan(blocks.into_iter().map(|(_, t)| t).collect()),
        None => {
            let summary = summary_of(item);
            scan(summary.clone().into_iter().collect())
                .or_else(|| {
                    // An HTML description read whole may hold a period or a deadline in a later
                    // paragraph (`Inscripciones hasta el 24 de abril`); its paragraphs are read
                    // one by one, as an xhtml content's blocks are.
                    let paragraphs = html_paragraphs(summary.as_deref()?);
                    (paragraphs.len() >= 2).then(|| scan(paragraphs)).flatten()
                })
                .or_else(|| {
                    // A cut excerpt (`… le samedi 16 mai! […]`) beside the full post in
                    // `content:encoded`: the post's paragraphs give the time.
                    let content = item
                        .children
                        .iter()
                        .find(|c| c.name == "content:encoded")
                        .map(|c| c.text.trim().to_owned())
                        .filter(|c| !c.is_empty() && Some(c) != summary.as_ref())?;
                    let paragraphs = html_paragraphs(&content);
                    scan(if paragraphs.is_empty() { vec![content] } else { paragraphs })
                })
        }
    }
}

/// Whether a text gives a run of days as `29 Mayıs – 12 Haziran`, `3 juin – 14 juin` (an
/// exhibition's, a closure's): a day and a word, a dash, a day and a word that is not a
/// clock's (`19 Uhr – 22 Uhr` is one evening).
fn has_day_range(text: &str) -> bool {
    static RANGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b\d{1,2}(?:er|st|nd|rd|th|\.)?\s+\p{L}+\.?\s*[–—-]\s*\d{1,2}(?:er|st|nd|rd|th|\.)?\s+(\p{L}{3,})",
        )
        .expect("a constant regex")
    });
    RANGE.captures_iter(text).any(|c| !c[1].eq_ignore_ascii_case("uhr"))
}

/// A title that starts with the event's date, then a dash or a bar (`Sat 14 March 2026,
/// 8pm – Sean-nós Singing Night`): the name after it.
fn after_date_prefix(title: &str, day: chrono::NaiveDate) -> Option<String> {
    let line = gleaner_event::text::clean_line(title);
    let (date, rest) = [" – ", " — ", " - ", " | "]
        .iter()
        .filter_map(|s| line.split_once(s))
        .min_by_key(|(d, _)| d.len())?;
    let rest = rest.trim();
    // The part before the dash is the event's own date, written short (a weekday, day,
    // month, year and time at most), so a name with a date in it is never cut.
    let d = parse_text_date(date, None, DateOrder::default())?;
    let words = date.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).count();
    (!rest.is_empty() && d.start.date() == day && words <= 6).then(|| rest.to_owned())
}

/// Badges that say an event has moved to a new date (folded).
const NEW_DATE_BADGES: &[&str] =
    &["new date", "nouvelle date", "neuer termin", "neues datum", "nueva fecha", "yeni tarih"];

/// A title that carries a status badge before or after the name (`Abgesagt: Chorkonzert`,
/// `Keloğlan ile Dev – ERTELENDİ`, `Jazz Night (cancelled)`, `[POSTPONED] Quiz`): the
/// name without it, and the status (`cancelled`, `postponed`, …). `None` when the title
/// has no such badge or is the badge alone.
pub(crate) fn split_status_badge(title: &str) -> Option<(String, &'static str)> {
    let t = title.trim();
    let badge = |w: &str| {
        let w = w.trim().trim_matches(|c: char| "()[]!.*:–—-".contains(c)).trim();
        if w.is_empty() || w.split_whitespace().count() != 1 {
            return None;
        }
        crate::fallback::status_in(w)
    };
    let mut found: Option<(String, &'static str)> = None;
    // Before: `Abgesagt: …`, `ABGESAGT – …`, `[Abgesagt] …`.
    for sep in [": ", " – ", " — ", " - ", "] ", ") "] {
        if let Some((head, rest)) = t.split_once(sep)
            && let Some(st) = badge(&format!("{head}{}", sep.trim()))
            && !rest.trim().is_empty()
        {
            found = Some((rest.trim().to_owned(), st));
            break;
        }
    }
    // A moved event's badge of two words (`– NEW DATE`, `(nueva fecha)`): rescheduled.
    let new_date = |w: &str| {
        let w = gleaner_event::datetext::fold_diacritics(
            w.trim().trim_matches(|c: char| "()[]!.*:–—-".contains(c)).trim(),
        );
        NEW_DATE_BADGES.contains(&w.as_str()).then_some("rescheduled")
    };
    // After: `… – ERTELENDİ`, `… (abgesagt)`, `…: cancelled`.
    if found.is_none() {
        for sep in [" – ", " — ", " - ", " (", " [", ": "] {
            if let Some((rest, tail)) = t.rsplit_once(sep)
                && let Some(st) = badge(tail).or_else(|| new_date(tail))
                && !rest.trim().is_empty()
            {
                found = Some((rest.trim().to_owned(), st));
                break;
            }
        }
    }
    // A badge in capitals with no mark at all: `Gece Sürüşü ERTELENDİ`, `CANCELLED Quiz
    // night`, when the rest of the title is not in capitals too.
    let shouted =
        |w: &str| w.chars().any(char::is_alphabetic) && !w.chars().any(char::is_lowercase);
    if found.is_none() {
        let cut = [t.rsplit_once(' '), t.split_once(' ').map(|(w, r)| (r, w))];
        for (rest, word) in cut.into_iter().flatten() {
            if shouted(word)
                && rest.chars().any(char::is_lowercase)
                && let Some(st) = badge(word)
            {
                found = Some((rest.trim().to_owned(), st));
                break;
            }
        }
    }
    found
}

/// A title that is a show date: `Sat Nov 15 08  07:30 PM` (two-digit year).
fn date_title(t: &str) -> Option<NaiveDateTime> {
    let t = t.split_whitespace().collect::<Vec<_>>().join(" ");
    for f in
        ["%a %b %d %y %I:%M %p", "%a %b %d %Y %I:%M %p", "%a %b %d %y %H:%M", "%a %b %d %Y %H:%M"]
    {
        if let Ok(d) = NaiveDateTime::parse_from_str(&t, f) {
            return Some(d);
        }
    }
    None
}

fn event_time(s: &str) -> Option<String> {
    if parse_event_time(s).is_some() {
        return Some(s.trim().to_owned());
    }
    let d = parse_feed_date(s)?;
    Some(d.format("%Y-%m-%dT%H:%M:%S%:z").to_string())
}

fn raw_event(item: &Element, h: Hints, performer: Option<&str>) -> RawEvent {
    let mut title = item.child_text("title");
    if h.title_is_date {
        // The name is the act: the item's performer, else the feed's artist.
        title = item
            .children
            .iter()
            .filter(|c| c.local() == "artist")
            .find_map(|c| c.child_text("artist"))
            .or_else(|| performer.map(str::to_owned));
    }
    let mut start = h.start.as_deref().and_then(event_time);
    if start.is_none() {
        // Read as an event because the source says so: the publication date is the day.
        start = published_of(item).map(|d| {
            if d.time().num_seconds_from_midnight() == 0 {
                d.format("%Y-%m-%d").to_string()
            } else {
                d.format("%Y-%m-%dT%H:%M:%S%:z").to_string()
            }
        });
    }
    let blocks = xhtml_blocks(item);
    let mut description = match &blocks {
        // The lead paragraph, unless it is where the date was read (the announcement).
        Some(b) => b
            .first()
            .filter(|(is_p, _)| *is_p && !(h.date_in_text && h.date_text == 1))
            .map(|(_, t)| t.clone()),
        // Of an HTML description, its lead paragraph: the practical lines after it
        // (`Thursday 19 March, 7.30pm, Lecture Theatre`, `Tickets £5`) are read as facts.
        // A lead that is a practical line stating the date (`Fecha: … · Hora: … · Lugar:
        // …`) is no text of the event's: the next paragraph is.
        None => full_summary_of(item).map(|s| match html_paragraphs(&s) {
            p if h.lead_dated && p.len() >= 2 => p[1].clone(),
            _ => lead_paragraph(&s),
        }),
    };
    if let (Some(v), Some(d)) = (&h.venue, &description) {
        // `Venue in Town, ST - the note`: keep the note.
        if d.starts_with(v.as_str()) {
            description = d
                .split_once(" - ")
                .map(|(_, rest)| rest.trim().to_owned())
                .filter(|r| !r.is_empty());
        }
    }
    let mut raw = RawEvent {
        types: vec!["Event".to_owned()],
        name: title,
        description,
        url: link_of(item),
        image: image_of(item).or_else(|| html_image(item)),
        start,
        end: h.end.as_deref().and_then(event_time),
        status: h.status,
        keywords: item
            .children
            .iter()
            .filter(|c| c.local() == "category")
            .map(|c| c.text.trim().to_owned())
            .collect(),
        location_name: h.venue,
        address_text: h.address,
        ..RawEvent::default()
    };
    if let Some(location) = h.location {
        // `ev:location` is one line: `Venue, 1 Street, 10000 Town`.
        let parts = crate::ical::split_location(&location);
        if raw.location_name.is_none() {
            raw.location_name = parts.venue;
        }
        raw.street = parts.street;
        raw.locality = parts.locality;
        raw.country = parts.country;
    }
    if let Some((name, status)) = raw.name.as_deref().and_then(split_status_badge) {
        raw.name = Some(name);
        raw.status.get_or_insert_with(|| status.to_owned());
    }
    // A feed item's title without a booking or status badge (`Atelier purées (COMPLET)`,
    // `Soirée jeux – ANNULÉE`), as the fallback's titles.
    if let Some(name) = raw.name.as_deref() {
        let marked = crate::fallback::title_marks::unmarked(name);
        raw.name = Some(marked.title);
        if let Some(status) = marked.status {
            raw.status.get_or_insert_with(|| status.to_owned());
        }
    }
    if h.date_in_text
        && let Some(name) = raw.name.as_deref()
        && let Some(day) = raw.start.as_deref().and_then(parse_event_time).map(|t| t.date())
        && let Some(rest) = after_date_prefix(name, day)
    {
        raw.name = Some(rest);
    }
    if h.date_in_text
        && h.price.is_none()
        && let Some(text) = full_summary_of(item)
    {
        text_facts(&text, &mut raw);
    }
    if (blocks.is_some() || h.date_in_text)
        && raw.offers.is_empty()
        && raw.is_accessible_for_free.is_none()
        && full_summary_of(item).is_some_and(|t| gleaner_event::says_free(&t))
    {
        // The xhtml content's table or notes say so (`Giriş | Ücretsiz`), not only the
        // lead paragraph the description keeps.
        raw.is_accessible_for_free = Some("true".to_owned());
    }
    if h.price.is_some() || h.tickets.is_some() {
        let free = h.price.as_deref().is_some_and(|p| p.trim().eq_ignore_ascii_case("free"));
        if free {
            raw.is_accessible_for_free = Some("true".to_owned());
        }
        raw.offers.push(RawOffer {
            price: h.price.map(|p| if free { "0".to_owned() } else { p }),
            url: h.tickets,
            ..RawOffer::default()
        });
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_date_badge_is_no_part_of_the_title() {
        // Issue 24, page 332: `SUMMARY:Cross Country Carnival – NEW DATE`.
        assert_eq!(
            split_status_badge("Cross Country Carnival – NEW DATE"),
            Some(("Cross Country Carnival".to_owned(), "rescheduled"))
        );
        assert_eq!(
            split_status_badge("Kermesse (nouvelle date)"),
            Some(("Kermesse".to_owned(), "rescheduled"))
        );
        assert_eq!(split_status_badge("Save the New Date"), None);
    }

    #[test]
    fn a_cut_excerpts_time_is_read_from_the_full_post() {
        // Issue 24, page 337: the description is an excerpt without the time, the
        // `content:encoded` post gives it.
        let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\" \
            xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"><channel><title>Activités</title>\
            <item><title>Fête au parc</title><link>https://x.example/a</link>\
            <pubDate>Tue, 24 Feb 2026 15:12:38 +0000</pubDate>\
            <description>On vous attend au parc le samedi 16 mai! Jeux et musique. [&#8230;]</description>\
            <content:encoded><![CDATA[<p>On vous attend au parc le <strong>samedi 16 mai, de 10 h à 15 h</strong>!</p>\
            <p>Gratuit, pour toute la famille.</p>]]></content:encoded></item>\
            </channel></rss>";
        let base = url::Url::parse("https://x.example/feed/").unwrap();
        let got = crate::extract(rss.as_bytes(), "application/rss+xml", &base);
        let starts: Vec<_> = got.candidates.iter().filter_map(|c| c.raw.start.clone()).collect();
        assert_eq!(starts, ["2026-05-16T10:00:00"]);
    }

    #[test]
    fn a_feed_items_title_drops_its_booking_badge() {
        // Issue 24, page 337: `Atelier de purées pour bébé (COMPLET)` in a category feed.
        let rss = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Activités</title>\
            <item><title>Atelier cuisine (COMPLET)</title><link>https://x.example/a</link>\
            <description>Samedi 14 mars 2026, 9 h 30, à la maison.</description></item>\
            </channel></rss>";
        let base = url::Url::parse("https://x.example/feed/").unwrap();
        let got = crate::extract(rss.as_bytes(), "application/rss+xml", &base);
        let names: Vec<_> = got.candidates.iter().filter_map(|c| c.raw.name.clone()).collect();
        assert_eq!(names, ["Atelier cuisine"]);
    }

    #[test]
    fn an_html_description_keeps_its_lead_paragraph() {
        let two = "<p>Dr Isla Munro follows three collectors.</p>\n<p>Thursday 19 March, 7.30pm.</p><P>Tickets £5.</P>";
        assert_eq!(lead_paragraph(two), "<p>Dr Isla Munro follows three collectors.</p>");
        // An empty first paragraph gives way to the next.
        let empty = "<p class=\"x\"> </p><p>Lastik tamiri.</p><p>150 TL</p>";
        assert_eq!(lead_paragraph(empty), "<p>Lastik tamiri.</p>");
        // One paragraph, or none, is the description as it is.
        for one in ["<p>One only.</p>", "Plain text, no markup.", "<pre>a</pre><p>b</p>"] {
            assert_eq!(lead_paragraph(one), one);
        }
    }

    #[test]
    fn practical_lines_name_the_place_and_the_price() {
        assert_eq!(
            labelled_place("<p><strong>Fecha:</strong> jueves 5 de marzo · <strong>Hora:</strong> 19.30 h · <strong>Lugar:</strong> salón de actos del Ateneo</p>")
                .as_deref(),
            Some("salón de actos del Ateneo")
        );
        assert_eq!(labelled_place("Ort: Rathausgalerie.").as_deref(), Some("Rathausgalerie"));
        assert_eq!(labelled_place("Hora: 19.30 h"), None);
        assert!(is_practical_line(
            "<p><strong>Fecha:</strong> jueves 5 de marzo de 2026 · <strong>Hora:</strong> 19.30 h</p>"
        ));
        assert!(!is_practical_line(
            "<p>Le jeudi 12 mars 2026 à 20h30, salle Jean-Vigo : L'Aurore (1927).</p>"
        ));
        let mut raw = RawEvent::default();
        price_from_text(
            "Entradas: 8 € · socios del Ateneo 5 € · venta anticipada en entradas.example.es y en taquilla una hora antes.",
            &mut raw,
        );
        assert!(raw.has_price());
        let lowest = |text: &str| {
            let mut raw = RawEvent::default();
            price_from_text(text, &mut raw);
            raw.offers.first().and_then(|o| o.low_price.clone().or(o.price.clone()))
        };
        assert_eq!(
            lowest("Precio: 15 €. Socios de la cooperativa y sus acompañantes, gratis.").as_deref(),
            Some("0")
        );
        assert_eq!(
            lowest("Inscripción gratuita para colegiados. No colegiados: 20 €.").as_deref(),
            Some("0")
        );
        assert_eq!(
            lowest("Adhesión $12.000 con cena. Estacionamiento gratuito.").as_deref(),
            Some("12000")
        );
        // A group's cheaper price in the next part.
        assert_eq!(
            lowest("Katılım ücreti 400 TL (malzeme dahil); öğrencilere 250 TL.").as_deref(),
            Some("250")
        );
        assert_eq!(lowest("Cena $15.000 con vino; niños $8.000.").as_deref(), Some("8000"));
        assert_eq!(lowest("Entrada 10 €; parking 3 €.").as_deref(), Some("10"));
        // A time or a count is no amount beside the marked ones; a list of marked amounts
        // is their range.
        assert_eq!(
            lowest("Two games of 12 ends. Members $20, visitors $25, lunch included.").as_deref(),
            Some("20")
        );
        assert_eq!(lowest("Karten 12–35 €, im Gemeindebüro.").as_deref(), Some("12"));
        let range = |text: &str| {
            let mut raw = RawEvent::default();
            price_from_text(text, &mut raw);
            raw.offers.first().map(|o| (o.low_price.clone(), o.high_price.clone()))
        };
        assert_eq!(
            range("Doors 6pm. Members £8, guests £12, supper included."),
            Some((Some("8".to_owned()), Some("12".to_owned())))
        );
        // A long sentence whose prices follow a colon.
        assert_eq!(
            lowest(
                "Cette année la soirée se tient dans la grande salle, avec une formule unique : \
                 adultes 12 €, gratuit pour les moins de 10 ans (goûter compris)."
            )
            .as_deref(),
            Some("0")
        );
    }

    #[test]
    fn html_items_paragraphs_and_images() {
        let html = "<p><img src=\"https://x.example/wp-content/uploads/a.jpg\" alt=\"\" /></p>\n<p>Fecha: 5 de marzo</p><p>El texto.</p>";
        assert_eq!(html_paragraphs(html).len(), 2);
        let (root, _) = xml::parse(&format!(
            "<item><title>T</title><content:encoded><![CDATA[{html}]]></content:encoded></item>"
        ));
        assert_eq!(
            root.and_then(|r| html_image(&r)).as_deref(),
            Some("https://x.example/wp-content/uploads/a.jpg")
        );
    }

    #[test]
    fn a_feeds_language() {
        assert_eq!(
            feed_language(b"<rss><channel><title>M</title><language>fr-CA</language>").as_deref(),
            Some("fr-CA")
        );
        assert_eq!(
            feed_language(b"<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:lang=\"en-AU\">")
                .as_deref(),
            Some("en-AU")
        );
        assert_eq!(feed_language(b"<rss><channel><title>M</title>"), None);
    }

    #[test]
    fn an_excerpt_gives_way_to_the_full_content() {
        let (root, _) = xml::parse(
            "<item><title>Atelier</title>\
             <description><![CDATA[Le samedi 7 mars, on bricole des nichoirs. […]]]></description>\
             <content:encoded><![CDATA[<p>Le samedi 7 mars, on bricole des nichoirs en bois \
             de palette.</p><p>Coût : 5 € par famille.</p>]]></content:encoded></item>",
        );
        let item = root.unwrap();
        let summary = full_summary_of(&item).unwrap();
        assert!(summary.contains("5 € par famille"), "{summary}");
        assert!(!summary_of(&item).unwrap().contains("5 € par famille"));
        // A description that is whole stays the summary.
        let (root, _) = xml::parse(
            "<item><title>Atelier</title><description>On bricole des nichoirs.</description>\
             <content:encoded><![CDATA[<p>Autre texte.</p>]]></content:encoded></item>",
        );
        assert_eq!(full_summary_of(&root.unwrap()).as_deref(), Some("On bricole des nichoirs."));
        assert!(is_excerpt("Read all about it [&hellip;]"));
        assert!(!is_excerpt("Entrée libre."));
    }

    #[test]
    fn a_deadline_in_a_later_paragraph_leaves_the_date_line_read() {
        let (root, _) = xml::parse(
            "<item><title>Excursión a Teruel</title><pubDate>Tue, 10 Feb 2026 11:20:00 +0000</pubDate>\
             <description><![CDATA[<p>Fecha: sábado 9 de mayo de 2026 · Salida: 8.00 h</p>\
             <p>Inscripciones en secretaría hasta el 24 de abril.</p>]]></description></item>",
        );
        let item = root.unwrap();
        let (d, at) = written_date(&item, DateOrder::default()).unwrap();
        assert_eq!((d.start.to_iso().as_str(), at), ("2026-05-09T08:00:00", 1));
    }

    #[test]
    fn a_venue_of_the_channels_place_takes_its_street() {
        let channel = crate::ical::split_location(
            "Ateneo de Calatayud · Calle Dato 12, 50300 Calatayud (Zaragoza)",
        );
        let mut raw =
            RawEvent { location_name: Some("Café del Ateneo".to_owned()), ..RawEvent::default() };
        in_channel_town(&mut raw, &channel);
        assert_eq!(
            (raw.street.as_deref(), raw.locality.as_deref()),
            (Some("Calle Dato 12"), Some("Calatayud"))
        );
        let mut raw = RawEvent {
            location_name: Some("Iglesia de San Juan".to_owned()),
            street: Some("plaza de San Juan s/n".to_owned()),
            ..RawEvent::default()
        };
        in_channel_town(&mut raw, &channel);
        assert_eq!(
            (raw.street.as_deref(), raw.locality.as_deref()),
            (Some("plaza de San Juan s/n"), Some("Calatayud"))
        );
    }

    #[test]
    fn status_badges_in_capitals_without_a_mark() {
        assert_eq!(
            split_status_badge("Gece Sürüşü ERTELENDİ"),
            Some(("Gece Sürüşü".to_owned(), "postponed"))
        );
        assert_eq!(
            split_status_badge("CANCELLED Quiz night"),
            Some(("Quiz night".to_owned(), "cancelled"))
        );
        // A title all in capitals, or a status word in lower case, is the name.
        assert_eq!(split_status_badge("CONCERT ANNULÉ"), None);
        assert_eq!(split_status_badge("The show cancelled"), None);
    }

    #[test]
    fn a_channel_from_a_place_with_its_country() {
        let p = channel_place(
            "Events, talks and news from Dunmore Botanic Garden, Kinnoull Road, Perth, Scotland.",
        )
        .unwrap();
        assert_eq!(
            (p.venue.as_deref(), p.street.as_deref(), p.locality.as_deref()),
            (Some("Dunmore Botanic Garden"), Some("Kinnoull Road"), Some("Perth"))
        );
    }

    #[test]
    fn dates() {
        assert_eq!(
            parse_feed_date("Sun, 05 Jan 2020 00:00:00 -0800").map(|d| d.to_rfc3339()).as_deref(),
            Some("2020-01-05T00:00:00-08:00")
        );
        assert_eq!(
            date_title("Sat Nov 15 08  07:30 PM").map(|d| d.to_string()).as_deref(),
            Some("2008-11-15 19:30:00")
        );
        assert!(has_day_range("Sergi 29 Mayıs – 12 Haziran 2026 tarihleri arasında"));
        assert!(has_day_range("du 3 juin – 14 juin 2027"));
        assert!(!has_day_range("Samstag 19 Uhr – 22 Uhr"));
        assert!(!has_day_range("Sat 14 March 2026, 8 pm – Harp Night"));
    }
}
