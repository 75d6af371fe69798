//! The generic fallback: a modest reading of event pages that have no structured data and
//! no site rules (issue 10).
//!
//! - title: the first `<h1>`, else `og:title`;
//! - dates: `<time datetime>` elements (one or two: a start and maybe an end; more mean a
//!   listing, read below), else the first date written in words near the title
//!   (`gleaner_event::datetext`), skipping "posted on" and "updated" lines;
//! - place: `<address>`, and blocks labelled Venue / Location / Where / Lieu / Ort / Mekan
//!   / Lugar (and Address / Adresse / Dirección / Adres);
//! - price: a block labelled Price / Tarif / Prix / Preis / Precio / Fiyat / Admission.
//!
//! When that reading finds no date, or more than two `<time>` dates, the page may be a
//! listing: `read_listing` looks for one repeated item structure (sibling rows, list
//! items, cards sharing a tag and first class) where most items carry their own date and
//! a title, and gives one event per such item (see there for its limits). An item with
//! only a time takes its day from the day heading above it (`<h3>Monday November 10</h3>`),
//! and a day cell (`Jue 9`) its month and year from the heading above its table
//! (`<h2>Abril 2026</h2>`); a field named `…location`/`…venue` gives an item's place.
//! Repeated sections that each hold a day heading and that day's items (a festival's
//! timetable by day) are one list. A link whose text is generic ("Match info", "Plus
//! d'infos", "Mehr") is never a title, only the item's link; a table row without a
//! heading or a naming link takes its title from the cell under a title-like column, else
//! its longest naming cell. A status word in an item (`POSTPONED`, `abgesagt`, `İPTAL`,
//! `SUSPENDIDO`) is its status, never part of its title; a date line that lists days
//! (`Vendredi 9 et samedi 10 octobre`) gives one event per day; a price the page labels
//! once outside the list prices the items that give none.
//!
//! A detail page without an `<address>` takes the one its Google Maps embed is titled
//! with, and without a sentence-like `<p>` the first paragraph of a `<br><br>` text block.
//!
//! It never invents: a field it cannot find stays empty, and a page without a date gives
//! no event; with a reference day (the crawl's today), neither does a page whose only
//! dates are past (a news item's publication date looks just like an event's date), nor a
//! page whose JSON-LD declares it a `NewsArticle` (the caller does not run it there) or
//! that is a signed article (`news_article`), nor a year-less date whose written weekday
//! is another day (`datetext`). What it finds is marked low confidence in the diagnostics.

use chrono::{Datelike, NaiveDate};
use gleaner_event::EventTime;
use gleaner_event::Markup;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::time::parse_event_time;
use gleaner_event::{RawEvent, RawOffer, parse_price_text};
use scraper::{ElementRef, Html, Selector};

use crate::{Candidate, Diagnostic, Format, Severity};

/// How many text blocks after the title are searched for a written date.
const NEAR_TITLE_BLOCKS: usize = 80;

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("a constant selector parses")
}

/// Reads a page's events (a listing's items, a show's performances, or one event);
/// pushes a diagnostic either way.
pub fn read(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let first = candidates.len();
    // A description list's terms and their details are items: each `<dt>` and the `<dd>`s
    // after it are wrapped in one `<div>` and the page read again.
    let paired = dl_items(doc);
    let doc = paired.as_ref().unwrap_or(doc);
    read_page(doc, reference, candidates, diagnostics);
    // Events with no place of their own are at the site's venue when the page's footer or
    // contact block gives one (a club's or theatre's own listing).
    let placeless = |r: &RawEvent| {
        r.location_name.is_none() && r.location_text.is_none() && r.address_text.is_none()
    };
    if candidates[first..].iter().any(|c| placeless(&c.raw))
        && let Some((name, address)) = site_venue(doc.root_element())
    {
        for c in candidates[first..].iter_mut().filter(|c| placeless(&c.raw)) {
            c.raw.location_name = Some(name.clone());
            c.raw.address_text = Some(address.clone());
        }
    }
    // Events with a place but no country are in the country of the site's own address when
    // its footer ends with one (`… · 09500 Medina de Pomar (Burgos) · España`) and the
    // event's place names none: a town hall lists its own town's fairs.
    if let Some(country) = site_venue(doc.root_element()).and_then(|(_, a)| site_country(&a)) {
        for c in candidates[first..].iter_mut().filter(|c| c.raw.country.is_none()) {
            let texts = [&c.raw.location_name, &c.raw.location_text, &c.raw.address_text];
            let names_one = texts.iter().filter_map(|t| t.as_deref()).any(|t| {
                t.split([',', '·', '|', '(', ')'])
                    .any(|p| gleaner_event::country_code(p.trim()).is_some())
            });
            if !names_one {
                c.raw.country = Some(country.clone());
            }
        }
    }
    // A zone the page states ("all times Central", "hora peninsular", "TSİ") fixes the
    // offsets of the local times read.
    if let Some(zone) = stated_zone(&text_of(doc.root_element()))
        && candidates.len() > first
    {
        for c in &mut candidates[first..] {
            for slot in [&mut c.raw.start, &mut c.raw.end] {
                if let Some(t) = slot.as_deref().and_then(parse_event_time) {
                    *slot = Some(t.with_default_zone(zone).to_iso());
                }
            }
        }
        diagnostics.push(Diagnostic {
            severity: Severity::Info,
            format: Format::Fallback,
            message: format!("the page states its times' zone: read as `{zone}`"),
            location: String::new(),
        });
    }
}

/// The page with each `<dl>` of three terms or more rewritten so that a `<dt>` and the
/// `<dd>`s after it sit in one `<div class="dl-item">` (a market list's name, then its
/// date, place and text); `None` when the page has no such list.
fn dl_items(doc: &Html) -> Option<Html> {
    let mut html = doc.html();
    let mut changed = false;
    for dl in doc.select(&sel("dl")).take(50) {
        let children: Vec<ElementRef<'_>> = dl.children().filter_map(ElementRef::wrap).collect();
        let terms = children.iter().filter(|c| c.value().name() == "dt").count();
        if terms < MIN_ITEMS || children.iter().any(|c| !matches!(c.value().name(), "dt" | "dd")) {
            continue;
        }
        let old = dl.html();
        let open = &old[..old.find('>')? + 1];
        let mut new = String::from(open);
        let mut in_item = false;
        for c in &children {
            if c.value().name() == "dt" {
                if in_item {
                    new.push_str("</div>");
                }
                new.push_str("<div class=\"dl-item\">");
                in_item = true;
            }
            new.push_str(&c.html());
        }
        if in_item {
            new.push_str("</div>");
        }
        new.push_str("</dl>");
        if let Some(at) = html.find(&old) {
            html.replace_range(at..at + old.len(), &new);
            changed = true;
        }
    }
    changed.then(|| Html::parse_document(&html))
}

fn read_page(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let note = |severity, message: String| Diagnostic {
        severity,
        format: Format::Fallback,
        message,
        location: String::new(),
    };
    let order = doc
        .select(&sel("html[lang]"))
        .next()
        .and_then(|h| h.value().attr("lang"))
        .map(DateOrder::for_language)
        .unwrap_or_default();
    // A news article (declared one, and signed) reports on events in running prose: its
    // dates are the story's, not events to attend.
    if let Some(why) = news_article(doc, order) {
        diagnostics.push(note(Severity::Info, format!("{why}: a news article; no event")));
        return;
    }
    // A page that repeats one dated item structure is a listing, whatever its title says.
    if listing(doc, reference, order, candidates, diagnostics) {
        return;
    }
    let h1 = doc.select(&sel("h1")).find(|h| !text_of(*h).is_empty());
    let page_url = canonical_url(doc);
    let title = h1.map(text_of).filter(|t| t.chars().count() <= 300).or_else(|| {
        doc.select(&sel("meta[property='og:title'], meta[name='og:title']"))
            .next()
            .and_then(|m| m.value().attr("content"))
            .map(collapse)
            .filter(|t| !t.is_empty())
    });
    // Dates from `<time datetime>`: one or two values (start, end), else ambiguous.
    let mut times = Vec::new();
    for t in doc.select(&sel("time[datetime]")) {
        if let Some(v) = t.value().attr("datetime").and_then(parse_event_time)
            && !times.contains(&v)
        {
            times.push(v);
        }
    }
    if times.is_empty()
        && let Some(h1) = h1
    {
        let shows = performances(doc, h1, reference, order);
        if shows.len() >= 2 {
            let n = shows.len();
            let mut base = RawEvent {
                name: title.clone(),
                url: page_url.clone(),
                markup: Markup::Text,
                ..RawEvent::default()
            };
            place_and_price(doc.root_element(), &mut base);
            base.description = description(doc, h1, order);
            for (i, show) in shows.into_iter().enumerate() {
                if reference.is_some_and(|day| show.start.date() < day) {
                    continue;
                }
                let mut raw = base.clone();
                raw.start = Some(show.start.to_iso());
                raw.end = show.end.filter(|e| *e != show.start).map(|e| e.to_iso());
                if let Some(t) = show.tickets {
                    match raw.offers.first_mut() {
                        Some(o) => o.url = Some(t),
                        None => raw.offers.push(RawOffer { url: Some(t), ..RawOffer::default() }),
                    }
                }
                candidates.push(Candidate {
                    format: Format::Fallback,
                    location: format!("performance {}", i + 1),
                    raw,
                });
            }
            diagnostics.push(note(
                Severity::Info,
                format!("low confidence: {n} performances of one show read by the generic fallback (no structured data, no site rules)"),
            ));
            return;
        }
    }
    let (start, end) = match times.len() {
        0 => match written_date(doc, h1, reference, order) {
            Some(d) => (Some(d.start), d.end),
            None => (None, None),
        },
        1 => (Some(times[0]), None),
        2 if times[1].date() >= times[0].date()
            && (times[1].date() - times[0].date()).num_days() <= 31 =>
        {
            (Some(times[0]), Some(times[1]))
        }
        n => {
            diagnostics.push(note(
                Severity::Info,
                format!("{n} different dates in `<time>` elements: a listing, not one event; no event (write site rules for it)"),
            ));
            return;
        }
    };
    let Some(start) = start else {
        diagnostics.push(note(
            Severity::Info,
            "no structured data, no site rules and no date found: no event".to_owned(),
        ));
        return;
    };
    // With a reference day, a page whose only dates are past is more likely news (its
    // publication date) than an event still to come.
    if let Some(day) = reference
        && start.date() < day
        && end.is_none_or(|e| e.date() < day)
    {
        diagnostics.push(note(
            Severity::Info,
            format!(
                "the only date found ({}) is past: a publication date? no event",
                start.to_iso()
            ),
        ));
        return;
    }
    let mut raw = RawEvent {
        name: title,
        start: Some(start.to_iso()),
        end: end.filter(|e| *e != start).map(|e| e.to_iso()),
        description: h1.and_then(|h| description(doc, h, order)),
        url: page_url,
        markup: Markup::Text,
        ..RawEvent::default()
    };
    place_and_price(doc.root_element(), &mut raw);
    diagnostics.push(note(
        Severity::Info,
        "low confidence: read by the generic fallback (no structured data, no site rules)"
            .to_owned(),
    ));
    candidates.push(Candidate { format: Format::Fallback, location: "page".into(), raw });
}

/// Words a byline opens with (`Por Lucía Arrieta · Zaragoza`), folded.
const BYLINE_WORDS: &[&str] = &["by", "por", "par", "von", "yazan", "text", "texte", "redaccion"];

/// Why the page is a news article, when it is one: its title sits in an `<article>` with
/// a `byline` block or an author link, or it declares itself one (`og:type` `article`)
/// and a short line after its title signs and dates it ("Por Lucía Arrieta · lunes 27 de
/// julio de 2026", "By …", "Par …", "Von …", "Yazan …"). A declared article without a
/// byline may be an event page a CMS typed as an article, and "Von Henrik Ibsen" under a
/// play's title names its author, not a reporter: both are read.
fn news_article(doc: &Html, order: DateOrder) -> Option<String> {
    let og_article = doc
        .select(&sel("meta[property='og:type'][content]"))
        .filter_map(|m| m.value().attr("content"))
        .any(|t| t.trim().eq_ignore_ascii_case("article"));
    let h1 = doc.select(&sel("h1")).next()?;
    let in_article =
        h1.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "article");
    if !og_article && !in_article {
        return None;
    }
    let byline = sel("a[rel=author], .byline");
    if let Some(b) = doc.select(&byline).find(|b| !in_chrome(*b))
        && (in_article || og_article)
    {
        let what = if og_article { "`og:type` article" } else { "an `<article>`" };
        return Some(format!("{what} with a byline (`{}`)", text_of(b)));
    }
    let line = doc
        .select(&sel("p, div, span"))
        .filter(|e| e.id() > h1.id() && e.select(&sel("p, div")).next().is_none())
        .take(3)
        .map(text_of)
        .find(|t| {
            if !og_article || parse_text_date(t, None, order).is_none() {
                return false;
            }
            let folded = gleaner_event::datetext::fold_diacritics(t);
            let first = folded.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
            t.chars().count() <= 160
                && BYLINE_WORDS.contains(&first)
                && t.split_whitespace()
                    .nth(1)
                    .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
        })?;
    Some(format!("an article signed `{line}`"))
}

/// Whether `el` sits in the page's chrome (navigation, header, footer, sidebar).
fn in_chrome(el: ElementRef<'_>) -> bool {
    el.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| matches!(a.value().name(), "nav" | "footer" | "aside" | "header"))
}

/// One performance of a show: its start, maybe an end, and its booking link.
struct Performance {
    start: EventTime,
    end: Option<EventTime>,
    tickets: Option<String>,
}

/// Link texts that book a performance.
const TICKET_WORDS: [&str; 15] = [
    "book",
    "vorverkauf",
    "book now",
    "tickets",
    "buy tickets",
    "karten",
    "tickets kaufen",
    "billets",
    "billetterie",
    "reserver",
    "entradas",
    "comprar",
    "bilet",
    "bilet al",
    "biletler",
];

/// The performances a show page lists after its title: sibling lines (`<li>`, rows,
/// paragraphs) that each hold a date with a time of day and little else, two or more on
/// different starts. Lines in the page's chrome are not read.
fn performances(
    doc: &Html,
    h1: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<Performance> {
    let blocks = sel(BLOCKS);
    let lines = sel("li, p, div, tr, dd");
    let mut groups: Vec<(_, Vec<Performance>)> = Vec::new();
    for el in doc.select(&lines).take(5000) {
        if el.id() <= h1.id() || el.select(&blocks).any(|b| b.id() != el.id()) || in_chrome(el) {
            continue;
        }
        let text = text_of(el);
        if text.is_empty() || text.chars().count() > 120 || is_publication_line(&text) {
            continue;
        }
        let Some(d) = parse_text_date(&text, reference, order) else { continue };
        if !matches!(d.start, EventTime::Floating(_) | EventTime::Fixed(_)) {
            continue;
        }
        let Some(parent) = el.parent().map(|p| p.id()) else { continue };
        let tickets = el
            .select(&sel("a[href]"))
            .find(|a| {
                let t = gleaner_event::datetext::fold_diacritics(&text_of(*a));
                TICKET_WORDS.contains(&t.as_str())
            })
            .and_then(|a| a.value().attr("href"))
            .map(str::to_owned);
        let show = Performance { start: d.start, end: d.end, tickets };
        match groups.iter_mut().find(|(p, _)| *p == parent) {
            Some((_, g)) => {
                if !g.iter().any(|s| s.start == show.start) {
                    g.push(show);
                }
            }
            None => groups.push((parent, vec![show])),
        }
    }
    groups.into_iter().map(|(_, g)| g).max_by_key(Vec::len).unwrap_or_default()
}

/// The page's description: the first sentence-like paragraph after the title (at least
/// 40 characters, ending like a sentence, neither a date, a label nor a byline).
fn description(doc: &Html, h1: ElementRef<'_>, order: DateOrder) -> Option<String> {
    let sentence = |t: &String| {
        let n = t.chars().count();
        (40..=2000).contains(&n)
            && t.trim_end().ends_with(['.', '!', '?', '…'])
            && !is_publication_line(t)
            && parse_text_date(t, None, order).is_none()
            && t.split_once(':').is_none_or(|(head, _)| label_of(head).is_none())
    };
    let after = |e: &ElementRef<'_>| e.id() > h1.id() && !in_chrome(*e);
    doc.select(&sel("p")).filter(after).take(40).map(text_of).find(sentence).or_else(|| {
        // No paragraph: a text block whose paragraphs are separated by `<br><br>`
        // (a CMS "summary" field); its first paragraph.
        let blocks = sel(BLOCKS);
        doc.select(&sel("div"))
            .filter(after)
            .filter(|d| d.select(&blocks).all(|b| b.id() == d.id()))
            .take(40)
            .map(first_paragraph)
            .find(sentence)
    })
}

/// The text of an element up to its first blank line (two `<br>` in a row).
fn first_paragraph(el: ElementRef<'_>) -> String {
    let mut text = String::new();
    let mut breaks = 0;
    for node in el.descendants() {
        if let Some(t) = node.value().as_text() {
            if t.trim().is_empty() {
                continue;
            }
            if breaks >= 2 && !text.trim().is_empty() {
                break;
            }
            breaks = 0;
            text.push_str(t);
            text.push(' ');
        } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
            breaks += 1;
        }
    }
    collapse(&text)
}

/// The place, address and price a root (the page, or one listing item) labels.
fn place_and_price(root: ElementRef<'_>, raw: &mut RawEvent) {
    if let Some(address) = root.select(&sel("address")).map(text_of).find(|t| !t.is_empty()) {
        raw.address_text = Some(address);
    }
    // An embedded map titled with its address (page builders title the `<iframe>` of a
    // Google Maps embed with the address it shows).
    if raw.address_text.is_none()
        && let Some(address) = root
            .select(&sel("iframe[src]"))
            .filter(|f| {
                let src = f.value().attr("src").unwrap_or_default().to_ascii_lowercase();
                src.contains("maps.google.") || src.contains("google.com/maps")
            })
            .filter_map(|f| f.value().attr("title").or_else(|| f.value().attr("aria-label")))
            .map(collapse)
            .find(|t| t.contains(',') && t.chars().any(|c| c.is_ascii_digit()) && t.len() <= 200)
    {
        raw.address_text = Some(address);
    }
    for (label, _, value) in labelled(root) {
        match label {
            Label::Place if raw.location_text.is_none() => raw.location_text = Some(value),
            Label::Address if raw.address_text.is_none() => raw.address_text = Some(value),
            Label::Price if raw.offers.is_empty() && raw.is_accessible_for_free.is_none() => {
                if let Some(p) = parse_price_text(&value) {
                    price_into(&p, raw);
                }
            }
            _ => {}
        }
    }
}

/// Puts a price read from text into a raw event (a free price as free).
pub(crate) fn price_into(p: &gleaner_event::PriceText, raw: &mut RawEvent) {
    if p.is_free {
        raw.is_accessible_for_free = Some("true".into());
    } else {
        raw.offers.push(RawOffer {
            low_price: Some(p.min.to_string()),
            high_price: p.max.map(|m| m.to_string()),
            currency: p.currency.map(str::to_owned),
            ..RawOffer::default()
        });
    }
}

/// The price an event's own element writes in its text: the first short line with an
/// amount and a currency (`Karten ab 25 € an der Abendkasse`, `Tarif : 9 €`), else a line
/// that says it is free (`Entrée gratuite.`). For structured items (h-event, vevent) that
/// name no price property.
pub(crate) fn price_in_text(el: ElementRef<'_>) -> Option<gleaner_event::PriceText> {
    let lines: Vec<String> = leaves(el).filter(|t| t.chars().count() <= 160).collect();
    lines
        .iter()
        .find_map(|t| {
            let lower = t.to_lowercase();
            let money = t.contains(['$', '€', '£', '₺'])
                || lower
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w));
            parse_price_text(t).filter(|p| money && !p.is_free)
        })
        .or_else(|| {
            lines.iter().any(|t| gleaner_event::says_free(t)).then_some(gleaner_event::PriceText {
                min: Default::default(),
                max: Some(Default::default()),
                currency: None,
                is_free: true,
            })
        })
}

/// An event element's booking link (`Réserver`, `Vorverkauf`, `Bilet al`).
pub(crate) fn booking_link(el: ElementRef<'_>) -> Option<String> {
    el.select(&sel("a[href]"))
        .find(|a| {
            TICKET_WORDS.contains(&gleaner_event::datetext::fold_diacritics(&text_of(*a)).as_str())
        })
        .and_then(|a| a.value().attr("href"))
        .map(str::trim)
        .filter(|h| !h.is_empty() && !h.starts_with('#'))
        .map(str::to_owned)
}

/// An item's short text lines: its smallest blocks split at `<br>` and at ` · `, ` | `
/// separators, in order.
fn price_lines(item: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| el.select(&blocks).all(|b| b.id() == el.id()))
        .flat_map(|el| {
            let mut lines = vec![String::new()];
            for node in el.descendants() {
                if let Some(t) = node.value().as_text() {
                    lines.last_mut().expect("one line at least").push_str(t);
                } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
                    lines.push(String::new());
                }
            }
            lines
                .into_iter()
                .flat_map(|l| l.split(['·', '|', '•']).map(collapse).collect::<Vec<_>>())
                // And a line's sentences (`Salón de actos. Entrada: 4 €; menores, 2 €.`).
                .flat_map(|l| {
                    let mut all = vec![l.clone()];
                    if l.contains(". ") {
                        all.extend(l.split(". ").map(|s| s.trim().to_owned()));
                    }
                    all
                })
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
        })
}

/// The texts of an element's smallest blocks (cells, spans, paragraphs), in order.
fn leaves(item: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| el.select(&blocks).all(|b| b.id() == el.id()))
        .map(text_of)
        .filter(|t| !t.is_empty() && t.len() <= 300)
}

fn text_of(el: ElementRef<'_>) -> String {
    collapse(&el.text().collect::<Vec<_>>().join(" "))
}

/// The first date written in words in the blocks after the title.
fn written_date(
    doc: &Html,
    h1: Option<ElementRef<'_>>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<gleaner_event::datetext::TextDate> {
    let blocks = sel("p, li, div, span, dd, td, h2, h3, h4, strong, em");
    let h1 = h1?;
    // Blocks that come after the title in document order, leaves first.
    let title_id = h1.id();
    let mut after = false;
    let mut seen = 0;
    let mut found: Option<gleaner_event::datetext::TextDate> = None;
    let mut found_at = 0;
    let mut last_text = String::new();
    for el in doc.select(&blocks).chain(std::iter::empty()) {
        if !after {
            // Document order: the first block that follows the title's position.
            after = el.id() > title_id && !el.ancestors().any(|a| a.id() == title_id);
            if !after {
                continue;
            }
        }
        // Small blocks only: a date and its time may sit in nested spans.
        if el.select(&blocks).nth(8).is_some() {
            continue;
        }
        seen += 1;
        if seen > NEAR_TITLE_BLOCKS {
            break;
        }
        let text = text_of(el);
        // Wrappers repeat their only child's text: one block, not several.
        if text.len() > 200
            || is_publication_line(&text)
            || is_closure_line(&text)
            || text == last_text
        {
            seen -= 1;
            continue;
        }
        last_text.clone_from(&text);
        if let Some(mut d) = found.take() {
            // A date without a time: the time may be in the next small blocks
            // (`Happening July 27, 2025`, then `10:00am`, then `- 4:00pm`).
            match (d.start, parse_text_time(&text)) {
                (EventTime::Date(day), Some((t1, t2))) => {
                    d.start = EventTime::Floating(day.and_time(t1));
                    if let Some(t2) = t2.filter(|t2| *t2 > t1) {
                        d.end = Some(EventTime::Floating(day.and_time(t2)));
                        return Some(d);
                    }
                    found = Some(d);
                    found_at = seen;
                }
                (EventTime::Floating(start), Some((t2, None)))
                    if text.trim_start().starts_with(['-', '–', '—']) && t2 > start.time() =>
                {
                    d.end = Some(EventTime::Floating(start.date().and_time(t2)));
                    return Some(d);
                }
                _ => found = Some(d),
            }
            if seen >= found_at + 3 {
                return found;
            }
            continue;
        }
        if let Some(d) = parse_text_date(&text, reference, order) {
            if d.end.is_none() {
                found = Some(d);
                found_at = seen;
                continue;
            }
            return Some(d);
        }
    }
    found
}

/// Words that say a place is closed, a deadline, or a pass valid, in the five languages (lower-cased).
const CLOSURE_WORDS: &[&str] = &[
    "closed",
    "closure",
    "fermeture",
    "fermé",
    "fermée",
    "geschlossen",
    "schließung",
    "betriebsferien",
    "cerrado",
    "cerrada",
    "cierre",
    "kapalı",
    "kapalıdır",
    // A deadline to sign up (`Plazo hasta el 20 de marzo`, `Anmeldeschluss 3. Mai`).
    "plazo",
    "deadline",
    "anmeldeschluss",
    "einsendeschluss",
    "bewerbungsschluss",
    "limite",
    "límite",
    // A call for entries (`Son başvuru: 15 Ocak 2027`): its dates are when to apply.
    "başvuru",
    // A pass's or fare's validity (`valable du 1er septembre 2026 au 30 juin 2027`).
    "valable",
    "valid",
    "gültig",
    "válido",
    "válida",
    "geçerli",
];

/// Whether a line is a closure notice, whose dates are when nothing happens (`Fermeture
/// estivale du 3 au 22 août`, `Closed 24–26 December`, `Betriebsferien`, `Cerrado por
/// vacaciones`), gives a deadline, or says how long a pass is valid: a listing's item or a page's date
/// never comes from one.
fn is_closure_line(text: &str) -> bool {
    text.to_lowercase().split(|c: char| !c.is_alphanumeric()).any(|w| CLOSURE_WORDS.contains(&w))
}

fn is_publication_line(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "posted",
        "published",
        "updated",
        "publié",
        "mis à jour",
        // A date something will be published on (`sera mis en ligne le 4 septembre`).
        "mis en ligne",
        "will be announced",
        "sera annoncé",
        "veröffentlicht",
        "aktualisiert",
        "publicado",
        "yayın",
        "güncel",
        "©",
        "copyright",
    ]
    .iter()
    .any(|w| t.contains(w))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    Place,
    Address,
    Price,
}

fn label_of(word: &str) -> Option<Label> {
    let w =
        gleaner_event::datetext::fold_diacritics(word.trim().trim_end_matches([':', '：']).trim());
    Some(match w.as_str() {
        "venue" | "location" | "where" | "place" | "lieu" | "ort" | "veranstaltungsort"
        | "mekan" | "yer" | "lugar" | "sala" => Label::Place,
        "address" | "adresse" | "direccion" | "adres" | "anschrift" => Label::Address,
        "price" | "prix" | "tarif" | "tarifs" | "preis" | "eintritt" | "precio" | "fiyat"
        | "admission" | "cost" | "fee" | "entree" | "entrada" | "tickets" | "registration"
        | "eintrittspreis" | "ucret" | "giris" | "bilet" | "billets" => Label::Price,
        _ => return None,
    })
}

/// `Label: value` blocks (in one element, or a label element followed by its value:
/// `<dt>`/`<dd>`, `<th>`/`<td>`, `<strong>Lieu</strong> text`).
fn labelled(root: ElementRef<'_>) -> Vec<(Label, ElementRef<'_>, String)> {
    let mut out = Vec::new();
    for el in root.select(&sel("p, li, div, dt, th, strong, b, span, label, h3, h4")).take(5000) {
        if el.select(&sel("p, li, div")).next().is_some() {
            continue;
        }
        let text = text_of(el);
        if text.is_empty() || text.len() > 300 {
            continue;
        }
        if let Some((head, rest)) = text.split_once(':')
            && let Some(label) = label_of(head)
        {
            let rest = rest.trim();
            if !rest.is_empty() {
                out.push((label, el, rest.to_owned()));
                continue;
            }
        }
        // A sentence that opens with a label inside a paragraph (`Tüm gösterimler AKM’de.
        // Bilet: 80 TL, öğrenci 40 TL.`): only a price, the one label a sentence states
        // whole.
        if el.value().name() == "p"
            && let Some((label, value)) = text.split(". ").skip(1).find_map(|sentence| {
                let (head, rest) = sentence.split_once(':')?;
                let label = label_of(head).filter(|l| *l == Label::Price)?;
                let rest = rest.trim().trim_end_matches('.');
                (!rest.is_empty()).then(|| (label, rest.to_owned()))
            })
        {
            out.push((label, el, value));
            continue;
        }
        if let Some(label) = label_of(&text) {
            // The value is the next element sibling (`dd`, `td`) or the parent's rest.
            let next = el.next_siblings().filter_map(ElementRef::wrap).next().map(text_of);
            let value = next.filter(|v| !v.is_empty()).or_else(|| {
                let parent = el.parent().and_then(ElementRef::wrap).map(text_of)?;
                let rest =
                    parent.strip_prefix(text.as_str())?.trim().trim_start_matches(':').trim();
                (!rest.is_empty() && rest.len() <= 200).then(|| rest.to_owned())
            });
            if let Some(v) = value {
                out.push((label, el, v));
            }
        }
    }
    out
}

/// Fewest items a listing must give (after past and duplicate items are dropped).
const MIN_ITEMS: usize = 3;

/// Elements never taken for listing items.
const NOT_ITEMS: [&str; 14] = [
    "script", "style", "br", "hr", "img", "input", "option", "meta", "link", "head", "svg",
    "noscript", "template", "iframe",
];

/// Block elements: a text unit of an item holds none of them.
const BLOCKS: &str =
    "div, p, li, td, th, tr, table, ul, ol, dl, section, article, h1, h2, h3, h4, h5, h6";

/// Status words a row or card prints (a badge, a class-free note) and the schema.org
/// status each states, compared as whole folded words. `suspendido`/`suspendu` call an
/// event off (tickets refunded): cancelled.
const STATUS_WORDS: [(&str, &str); 22] = [
    ("cancelled", "cancelled"),
    ("canceled", "cancelled"),
    ("annule", "cancelled"),
    ("annulee", "cancelled"),
    ("abgesagt", "cancelled"),
    ("entfallt", "cancelled"),
    ("iptal", "cancelled"),
    ("cancelado", "cancelled"),
    ("cancelada", "cancelled"),
    ("suspendido", "cancelled"),
    ("suspendida", "cancelled"),
    ("suspendu", "cancelled"),
    ("suspendue", "cancelled"),
    ("postponed", "postponed"),
    ("reporte", "postponed"),
    ("reportee", "postponed"),
    ("verschoben", "postponed"),
    ("ertelendi", "postponed"),
    ("aplazado", "postponed"),
    ("aplazada", "postponed"),
    ("pospuesto", "postponed"),
    ("rescheduled", "rescheduled"),
];

/// The status a text states with one status word (`POSTPONED`, `– abgesagt –`,
/// `ERTELENDİ`, `entfaellt`), or `None` when it states none or two different ones.
pub(crate) fn status_in(text: &str) -> Option<&'static str> {
    let folded = gleaner_event::datetext::fold_diacritics(text);
    let mut found = None;
    for w in folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        // German written without umlauts (`entfaellt`, a `<tr class="entfaellt">`) reads
        // as with them.
        let plain = w.replace("ae", "a").replace("oe", "o").replace("ue", "u");
        if let Some((_, status)) =
            STATUS_WORDS.iter().find(|(word, _)| *word == w || *word == plain)
        {
            if found.is_some_and(|f| f != *status) {
                return None;
            }
            found = Some(*status);
        }
    }
    found
}

/// Whether a text is only a status badge (`POSTPONED`, `– abgesagt –`): never a title
/// nor part of one.
fn is_status_badge(text: &str) -> bool {
    let words: Vec<&str> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.len() == 1 && status_in(words[0]).is_some()
}

/// Link texts that are not titles: a link to more about an item, in the five languages
/// (folded, without trailing arrows or dots).
const NOT_TITLES: &[&str] = &[
    "more",
    "en savoir",
    "read more",
    "more info",
    "more information",
    "more details",
    "details",
    "event details",
    "match info",
    "match details",
    "info",
    "find out more",
    "learn more",
    "see more",
    "view",
    "view event",
    "tickets",
    "register",
    "book",
    "en savoir plus",
    "plus",
    "plus d'infos",
    "plus d'info",
    "plus d'informations",
    "infos",
    "voir",
    "mehr",
    "mehr infos",
    "mehr erfahren",
    "weiterlesen",
    "weitere infos",
    "devami",
    "detay",
    "detaylar",
    "detayli bilgi",
    "incele",
    "leer mas",
    "ver mas",
    "mas informacion",
    "mas info",
    "informacion",
];

/// Whether a link's text is generic ("Match info", "Plus d'infos", "Más información",
/// "Mehr »"): a link to the item, never its title.
fn is_generic_link_text(text: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(text);
    let t = folded
        .trim()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .replace(['’', '`'], "'");
    let t = collapse(&t);
    NOT_TITLES.contains(&t.as_str()) || TICKET_WORDS.contains(&t.as_str())
}

/// A list's items, each with the day its day heading gives.
type DatedItems<'a> = Vec<(ElementRef<'a>, Option<NaiveDate>)>;

/// One listing item read: its event and its dates.
struct Item {
    raw: RawEvent,
    start: EventTime,
    end: Option<EventTime>,
    /// Earlier performances its date line lists (`Vendredi 9 et samedi 10 octobre`: the
    /// 9th), at the same time of day.
    earlier: Vec<EventTime>,
}

/// Reads the page as a listing; pushes its events and a diagnostic and returns `true`
/// when it is one.
fn listing(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let Some((what, mut events, list)) = read_listing(doc, reference, order) else {
        return false;
    };
    // Items without a price of their own cost what the page says once, outside the list
    // (`Admission: adults £10, concessions £6.` above a fixtures table).
    let prices: Vec<_> = labelled(doc.root_element())
        .into_iter()
        .filter(|(label, at, _)| {
            // Outside the list, or an intro paragraph among its items (`<h1>`, `<p>Bilet:
            // 80 TL</p>`, then each day's table).
            let intro =
                at.value().name() == "p" && at.parent().is_some_and(|p| p.id() == list.id());
            *label == Label::Price
                && (intro || !at.ancestors().any(|a| a.id() == list.id()))
                && !in_chrome(*at)
        })
        .filter_map(|(_, _, value)| parse_price_text(&value))
        .collect();
    // Items that link nowhere are described on the page itself: its canonical address is
    // theirs (a newsletter's activities).
    if let Some(page_url) = canonical_url(doc) {
        for raw in events.iter_mut().filter(|r| r.url.is_none()) {
            raw.url = Some(page_url.clone());
        }
    }
    if let [price] = prices.as_slice() {
        for raw in
            events.iter_mut().filter(|r| r.offers.is_empty() && r.is_accessible_for_free.is_none())
        {
            price_into(price, raw);
        }
    }
    diagnostics.push(Diagnostic {
        severity: Severity::Info,
        format: Format::Fallback,
        message: format!(
            "low confidence: {} events read by the generic fallback from a listing ({what}; no structured data, no site rules)",
            events.len()
        ),
        location: String::new(),
    });
    for (i, raw) in events.into_iter().enumerate() {
        candidates.push(Candidate {
            format: Format::Fallback,
            location: format!("listing item {}", i + 1),
            raw,
        });
    }
    true
}

/// The page's own address: `<link rel=canonical>`, else `og:url`.
fn canonical_url(doc: &Html) -> Option<String> {
    doc.select(&sel("link[rel=canonical][href], meta[property='og:url'][content]"))
        .filter_map(|e| e.value().attr("href").or_else(|| e.value().attr("content")))
        .map(str::trim)
        .find(|u| u.starts_with("http://") || u.starts_with("https://"))
        .map(str::to_owned)
}

/// A careful listing reader: the page repeats one item structure (children of one parent
/// sharing a tag and first class: table rows, list items, cards), most of those items
/// carry their own date (a `<time datetime>`, or a date written in one small text block
/// of the item) and a title (a heading, else a link's text, else the words before the
/// date in that block). One event per such item: its title, dates, the title's link,
/// and a place or price only when the item labels one. An item without its own date, or
/// called off, gives nothing; with a reference day past items are dropped; fewer than
/// [`MIN_ITEMS`] events, or all on one day, and the page gives nothing.
fn read_listing(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(String, Vec<RawEvent>, ElementRef<'_>)> {
    let mut best: Option<(String, Vec<RawEvent>, ElementRef<'_>)> = None;
    let months = month_headings(doc);
    // The page's one `<h1>` titles the whole page: the item that holds it (a newsletter's
    // `Actividades del 9 al 15 de marzo` row) is not one of its events.
    let h1 = sel("h1");
    let mut h1s = doc.select(&h1);
    let page_title = match (h1s.next(), h1s.next()) {
        (Some(h), None) => Some(h),
        _ => None,
    };
    let holds_title =
        |i: ElementRef<'_>| page_title.is_some_and(|h| h.ancestors().any(|a| a.id() == i.id()));
    for parent in doc.root_element().descendants().filter_map(ElementRef::wrap).take(20_000) {
        if in_chrome(parent) || matches!(parent.value().name(), "nav" | "footer" | "aside") {
            continue;
        }
        let groups = child_groups(parent);
        let days = day_headings(parent, reference, order);
        let lists_days = days.clone();
        let month =
            months.iter().rev().find(|(at, _)| at.id() < parent.id()).map(|(_, m)| m.as_str());
        let day_of = |days: &[(ElementRef<'_>, NaiveDate)], i: ElementRef<'_>| {
            days.iter().rev().find(|(at, _)| at.id() < i.id()).map(|(_, d)| *d)
        };
        let mut lists: Vec<(String, DatedItems<'_>)> = Vec::new();
        // Cards of two kinds side by side (`div.sergi` exhibitions, then `div.atolye`
        // workshops), each headed by its title, too few alone: one list of headed cards.
        for (tag, headed) in headed_cards(&groups) {
            lists.push((
                format!("{tag} (headed)"),
                headed.iter().map(|i| (*i, day_of(&days, *i))).collect(),
            ));
        }
        for (sig, items) in &groups {
            lists.push((sig.clone(), items.iter().map(|i| (*i, day_of(&days, *i))).collect()));
            // Repeated sections, each a day heading and that day's items (a festival's
            // timetable by day): their items are one list, each dated by its section.
            if items.len() < 2 {
                continue;
            }
            let mut nested: Vec<(String, DatedItems<'_>)> = Vec::new();
            for section in items {
                let days = day_headings(*section, reference, order);
                // A section without day headings of its own is dated by the one above it
                // (`<h2>Perşembe 5 Kasım</h2>` before that day's table).
                let outer = day_of(&lists_days, *section);
                // A table's rows sit in its `<tbody>`: they are its items.
                let groups = match section.value().name() {
                    "table" => section
                        .children()
                        .filter_map(ElementRef::wrap)
                        .filter(|c| c.value().name() == "tbody")
                        .flat_map(child_groups)
                        .collect(),
                    _ => child_groups(*section),
                };
                for (inner, children) in groups {
                    let key = format!("{sig} > {inner}");
                    let dated = children.iter().map(|i| (*i, day_of(&days, *i).or(outer)));
                    match nested.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, v)) => v.extend(dated),
                        None => nested.push((key, dated.collect())),
                    }
                }
            }
            lists.extend(nested);
        }
        for (sig, mut items) in lists {
            items.retain(|(i, _)| !holds_title(*i));

            if items.len() < MIN_ITEMS || items.len() > 500 {
                continue;
            }
            // An item's month heading: the last one before it outside the list's items
            // (`<h2>Marzo 2027</h2>` opening each month's section of cards), else the one
            // above the list.
            let month_of = |i: ElementRef<'_>| {
                months
                    .iter()
                    .rev()
                    .filter(|(at, _)| {
                        !items.iter().any(|(o, _)| at.ancestors().any(|a| a.id() == o.id()))
                    })
                    .find(|(at, _)| at.id() < i.id())
                    .map(|(_, m)| m.as_str())
                    .or(month)
            };
            let read: Vec<Item> = items
                .iter()
                .filter_map(|(i, day)| {
                    let item = read_item(
                        *i,
                        Context { day: *day, month: month_of(*i) },
                        reference,
                        order,
                    )?;
                    Some((*i, item))
                })
                .flat_map(|(i, item)| grid_items(i, item))
                .collect();
            // Most items carry their own date and title.
            if read.len() < MIN_ITEMS || read.len() * 2 <= items.len() {
                continue;
            }
            // A conference's timetable (`9.30 h Acreditación`, `12.00 h Pausa café`): its
            // rows are sessions of one event, not events.
            if read.iter().any(|i| i.raw.name.as_deref().is_some_and(is_session_filler)) {
                continue;
            }
            let mut events: Vec<RawEvent> = Vec::new();
            let mut days = Vec::new();
            let read = read.into_iter().flat_map(|item| {
                let mut all: Vec<Item> = item
                    .earlier
                    .iter()
                    .map(|start| {
                        let mut raw = item.raw.clone();
                        raw.start = Some(start.to_iso());
                        raw.end = None;
                        Item { raw, start: *start, end: None, earlier: Vec::new() }
                    })
                    .collect();
                all.push(item);
                all
            });
            for item in read {
                if let Some(day) = reference
                    && item.start.date() < day
                    && item.end.is_none_or(|e| e.date() < day)
                {
                    continue;
                }
                if events.iter().any(|e| {
                    e.name == item.raw.name && e.start == item.raw.start && e.url == item.raw.url
                }) {
                    continue;
                }
                if !days.contains(&item.start.date()) {
                    days.push(item.start.date());
                }
                events.push(item.raw);
            }
            if events.len() < MIN_ITEMS || days.len() < 2 {
                continue;
            }
            if best.as_ref().is_none_or(|(_, b, _)| events.len() > b.len()) {
                let what =
                    format!("{} repeated `{sig}` items, each with its own date", events.len());
                best = Some((what, events, parent));
            }
        }
    }
    best
}

/// How a conference programme's breaks and formalities are titled: a list with such a row
/// is the timetable of one event, whose sessions are not events of their own.
const SESSION_FILLERS: &[&str] = &[
    "coffee break",
    "lunch break",
    "registration",
    "pausa cafe",
    "pausa para el cafe",
    "acreditacion",
    "pause cafe",
    "pause-cafe",
    "accueil des participants",
    "kaffeepause",
    "mittagspause",
    "kahve arasi",
    "cay arasi",
    "ogle arasi",
];

/// Whether a row's title is a programme's break or formality (`Pausa café`,
/// `Registration and welcome coffee`).
fn is_session_filler(title: &str) -> bool {
    let t = gleaner_event::datetext::fold_diacritics(title.trim());
    SESSION_FILLERS.iter().any(|f| t.starts_with(f))
}

/// Groups of one tag but different classes, each smaller than [`MIN_ITEMS`], whose
/// items all hold a heading: together, by tag, when they make [`MIN_ITEMS`] or more.
fn headed_cards<'a>(
    groups: &[(String, Vec<ElementRef<'a>>)],
) -> Vec<(String, Vec<ElementRef<'a>>)> {
    let headings = sel("h2, h3, h4");
    let mut out: Vec<(String, Vec<ElementRef<'a>>, usize)> = Vec::new();
    for (_, items) in groups.iter().filter(|(_, items)| items.len() < MIN_ITEMS) {
        if !items.iter().all(|i| i.select(&headings).count() == 1) {
            continue;
        }
        let tag = items[0].value().name().to_owned();
        match out.iter_mut().find(|(t, _, _)| *t == tag) {
            Some((_, all, kinds)) => {
                all.extend(items.iter().copied());
                *kinds += 1;
            }
            None => out.push((tag, items.clone(), 1)),
        }
    }
    out.into_iter()
        .filter(|(_, all, kinds)| *kinds >= 2 && all.len() >= MIN_ITEMS)
        .map(|(tag, mut all, _)| {
            all.sort_by_key(|e| e.id());
            (tag, all)
        })
        .collect()
}

/// A parent's element children grouped by tag and first class (`tr`, `li.event`,
/// `div.card`), in order.
fn child_groups(parent: ElementRef<'_>) -> Vec<(String, Vec<ElementRef<'_>>)> {
    let mut groups: Vec<(String, Vec<ElementRef<'_>>)> = Vec::new();
    for child in parent.children().filter_map(ElementRef::wrap) {
        let name = child.value().name();
        if NOT_ITEMS.contains(&name) {
            continue;
        }
        // The first class as written, passing over a status class (`<tr class="postponed">`
        // is one of the rows).
        let first = child
            .value()
            .attr("class")
            .unwrap_or_default()
            .split_ascii_whitespace()
            .find(|c| status_in(c).is_none());
        let sig = match first {
            Some(c) => format!("{name}.{c}"),
            None => name.to_owned(),
        };
        match groups.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, items)) => items.push(child),
            None => groups.push((sig, vec![child])),
        }
    }
    groups
}

/// The day headings among a parent's children (`<h3>Monday November 10</h3>` before that
/// day's items, as agendas grouped by day print them), in order: a heading that is only a
/// date, without a time, dates the items after it up to the next one.
fn day_headings(
    parent: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<(ElementRef<'_>, NaiveDate)> {
    let mut out = Vec::new();
    for child in parent.children().filter_map(ElementRef::wrap) {
        if !matches!(child.value().name(), "h2" | "h3" | "h4" | "h5" | "h6") {
            continue;
        }
        let text = text_of(child);
        if text.chars().count() > 60 || parse_text_time(&text).is_some() {
            continue;
        }
        if let Some(d) = parse_text_date(&text, reference, order)
            && let (EventTime::Date(day), None) = (d.start, d.end)
        {
            out.push((child, day));
        }
    }
    out
}

/// The headings that name a month and its year (`<h2>Abril 2026</h2>` above a table whose
/// rows give only `Jue 9`), with their node, in document order.
fn month_headings(doc: &Html) -> Vec<(ElementRef<'_>, String)> {
    doc.select(&sel("h1, h2, h3, h4, h5, h6, caption"))
        .take(2000)
        .filter_map(|h| {
            let text = text_of(h);
            let year = text.split(|c: char| !c.is_ascii_digit()).any(|w| {
                w.len() == 4 && w.parse::<u32>().is_ok_and(|y| (1990..=2100).contains(&y))
            });
            let heading = year && text.chars().count() <= 40 && parse_text_time(&text).is_none();
            heading.then_some((h, text))
        })
        .collect()
}

/// What an item's surroundings say about its date: the day heading above it, and the
/// month heading above its list or table.
#[derive(Clone, Copy)]
struct Context<'a> {
    day: Option<NaiveDate>,
    month: Option<&'a str>,
}

/// The day a short cell gives with its month heading (`Jue 9` under `Abril 2026`): the
/// cell holds a day number and at most a weekday, and the two read as one date.
fn day_in_month(
    item: ElementRef<'_>,
    month: &str,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<NaiveDate> {
    leaves(item).find_map(|t| {
        if let Some(d) = numeric_day_in_year(&t, month) {
            return Some(d);
        }
        let words: Vec<&str> = t
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.'))
            .filter(|w| !w.is_empty())
            .collect();
        let day = words.iter().filter(|w| w.bytes().all(|b| b.is_ascii_digit())).count() == 1
            && words.iter().all(|w| {
                w.bytes().all(|b| b.is_ascii_digit()) && w.len() <= 2
                    || gleaner_event::datetext::is_weekday(w)
            })
            && words.len() <= 2;
        if !day {
            return None;
        }
        match parse_text_date(&format!("{t} {month}"), reference, order)? {
            gleaner_event::datetext::TextDate { start: EventTime::Date(d), end: None } => Some(d),
            _ => None,
        }
    })
}

/// The reference day for an item's year-less dates under a month heading that names one
/// year (`<h2>Marzo 2027</h2>` above `12 MAR vie`): that year's first day when it is
/// later than the reference, so the dates fall in the heading's year.
fn heading_year(heading: Option<&str>, reference: Option<NaiveDate>) -> Option<NaiveDate> {
    let Some(heading) = heading else { return reference };
    let mut years = heading.split(|c: char| !c.is_ascii_digit()).filter_map(|w| {
        (w.len() == 4)
            .then(|| w.parse::<i32>().ok())
            .flatten()
            .filter(|y| (1990..=2100).contains(y))
    });
    let (Some(year), None) = (years.next(), years.next()) else { return reference };
    let first = NaiveDate::from_ymd_opt(year, 1, 1);
    match reference {
        Some(r) if first.is_some_and(|f| f > r) => first,
        r => r,
    }
}

/// The day a cell gives as `Fr 09.04.` (a day and month number, each ended by a dot, and
/// at most a weekday before them) in the year its month heading names (`Spielplan April
/// 2027`): the dots tell it from a time (`19.30`), and without a year in the heading the
/// cell gives no date. A weekday that names another day rejects it.
fn numeric_day_in_year(cell: &str, heading: &str) -> Option<NaiveDate> {
    let words: Vec<&str> = cell.split_whitespace().collect();
    let (weekday, numbers) = match words.as_slice() {
        [n] => (None, *n),
        [w, n] if gleaner_event::datetext::is_weekday(w) => (Some(*w), *n),
        _ => return None,
    };
    let parts: Vec<&str> = numbers.strip_suffix('.')?.split('.').collect();
    let [d, m] = parts.as_slice() else { return None };
    if !(1..=2).contains(&d.len()) || !(1..=2).contains(&m.len()) {
        return None;
    }
    let (d, m): (u32, u32) = (d.parse().ok()?, m.parse().ok()?);
    let mut years = heading.split(|c: char| !c.is_ascii_digit()).filter_map(|w| {
        (w.len() == 4)
            .then(|| w.parse::<i32>().ok())
            .flatten()
            .filter(|y| (1990..=2100).contains(y))
    });
    let year = years.next()?;
    if years.next().is_some() {
        // `Saison 2026/2027`: which year is not said.
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year, m, d)?;
    if let Some(w) = weekday
        && gleaner_event::datetext::weekday_of(w).is_some_and(|w| w != date.weekday())
    {
        return None;
    }
    Some(date)
}

/// One item's event: `None` without a date (its own, or its day or month heading's with a
/// time of its own) or a title.
fn read_item(
    item: ElementRef<'_>,
    context: Context<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Item> {
    let all = text_of(item);
    if all.is_empty() || all.len() > 2000 || item.value().name() == "p" && is_running_text(&all) {
        return None;
    }
    // Dates: `<time datetime>` (one, or a start and an end), else one small text block.
    let mut times = Vec::new();
    for t in item.select(&sel("time[datetime]")) {
        if let Some(v) = t.value().attr("datetime").and_then(parse_event_time)
            && !times.contains(&v)
        {
            times.push(v);
        }
    }
    let mut date_text = None;
    let (start, end) = match times.as_slice() {
        [] => {
            let blocks = sel(BLOCKS);
            let own = item
                .descendants()
                .filter_map(ElementRef::wrap)
                .filter(|el| el.select(&blocks).all(|b| b.id() == el.id()))
                .map(text_of)
                .filter(|t| {
                    !t.is_empty()
                        && t.len() <= 300
                        && !is_publication_line(t)
                        && !is_closure_line(t)
                })
                .find_map(|t| {
                    parse_text_date(&t, heading_year(context.month, reference), order)
                        .map(|d| (t, d))
                });
            let Some((text, d)) = own else {
                // No date of its own: its day heading's day, or a day cell read with its
                // month heading, with a time the item gives.
                let day =
                    context.day.or_else(|| day_in_month(item, context.month?, reference, order))?;
                let (t1, t2) =
                    leaves(item).find_map(|t| parse_text_time(&t).or_else(|| cell_time(&t)))?;
                let start = EventTime::Floating(day.and_time(t1));
                let end = t2.filter(|t2| *t2 > t1).map(|t2| EventTime::Floating(day.and_time(t2)));
                return finish_item(item, start, end, None, reference, order);
            };
            // A date without a time: the time may sit in another cell (`<td>8:00 pm</td>`).
            let (mut start, mut end) = (d.start, d.end);
            if let EventTime::Date(day) = start
                && end.is_none()
                && let Some((t1, t2)) = leaves(item)
                    .filter(|t| *t != text && parse_text_date(t, reference, order).is_none())
                    .find_map(|t| parse_text_time(&t).or_else(|| cell_time(&t)))
            {
                start = EventTime::Floating(day.and_time(t1));
                end = t2.filter(|t2| *t2 > t1).map(|t2| EventTime::Floating(day.and_time(t2)));
            }
            date_text = Some(text);
            (start, end)
        }
        [one] => (*one, None),
        [a, b] if b.date() >= a.date() && (b.date() - a.date()).num_days() <= 31 => (*a, Some(*b)),
        _ => return None,
    };
    finish_item(item, start, end, date_text, reference, order)
}

/// Words that join a postponement to its new day (`aplazado al`, `reporté au`, `postponed
/// to`, `verschoben auf`).
const MOVED_TO: &[&str] = &["al", "hasta el", "au", "to", "until", "auf", "zum", "ertelendi:"];

/// The new start a postponement line states after its status word (`APLAZADO al sábado 21
/// de marzo`): a day other than `start`'s, read after it, at `start`'s time unless the
/// line gives one.
fn moved_to(
    line: &str,
    start: EventTime,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<EventTime> {
    let folded = gleaner_event::datetext::fold_diacritics(line);
    let at = STATUS_WORDS
        .iter()
        .filter(|(_, s)| *s == "postponed")
        .filter_map(|(w, _)| folded.find(w).map(|i| i + w.len()))
        .min()?;
    // Folding keeps the byte length of these words' letters only for ASCII text before
    // them; read the rest from the folded text, which dates read just as well.
    let rest = folded.get(at..)?.trim_start_matches(|c: char| c.is_alphabetic()).trim_start();
    let after = MOVED_TO
        .iter()
        .find_map(|w| rest.strip_prefix(w).filter(|r| r.starts_with(' ')).map(str::trim_start))?;
    let d =
        parse_text_date(after, Some(start.date().max(reference.unwrap_or(start.date()))), order)?;
    let moved = match (d.start, start) {
        (EventTime::Date(day), EventTime::Floating(old)) => {
            EventTime::Floating(day.and_time(old.time()))
        }
        (EventTime::Date(day), EventTime::Date(_)) => EventTime::Date(day),
        (t @ EventTime::Floating(_), _) => t,
        _ => return None,
    };
    (moved.date() > start.date()).then_some(moved)
}

/// A timetable grid's row (`Saat | Salon 1 | Salon 2`: a time, then one cell per room):
/// one event per room cell that names one (in bold, a heading or a link), at the row's
/// time, with that cell's status. Any other item is itself.
fn grid_items(row: ElementRef<'_>, item: Item) -> Vec<Item> {
    let Some(cells) = grid_cells(row) else { return vec![item] };
    cells
        .into_iter()
        .map(|(title, cell)| {
            let mut raw = item.raw.clone();
            raw.name = Some(title);
            raw.status = status_in(&text_of(cell)).map(str::to_owned);
            raw.url = cell
                .select(&sel("a[href]"))
                .filter_map(|a| a.value().attr("href"))
                .map(|h| h.trim().to_owned())
                .find(|h| !h.is_empty() && !h.starts_with('#'));
            Item { raw, start: item.start, end: item.end, earlier: item.earlier.clone() }
        })
        .collect()
}

/// The room cells of a timetable grid's row that name an event: the table's header row
/// has a first column and two or more others none of which is a title column, the row's
/// first cell is only a time, and each named cell's title is its first bold text,
/// heading or link. `None` when the row is no such row.
fn grid_cells(row: ElementRef<'_>) -> Option<Vec<(String, ElementRef<'_>)>> {
    if row.value().name() != "tr" {
        return None;
    }
    let cells: Vec<ElementRef<'_>> = row
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .collect();
    let table =
        row.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "table")?;
    let header: Vec<String> = table
        .select(&sel("tr"))
        .find(|r| r.select(&sel("th")).next().is_some())
        .filter(|r| r.id() != row.id())?
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .map(|c| gleaner_event::datetext::fold_diacritics(&text_of(c)))
        .collect();
    if cells.len() < 3
        || header.len() != cells.len()
        || header.iter().any(|h| TITLE_COLUMNS.contains(&h.as_str()) || h.is_empty())
        || cell_time(&text_of(cells[0])).is_none() && parse_text_time(&text_of(cells[0])).is_none()
    {
        return None;
    }
    let named: Vec<(String, ElementRef<'_>)> = cells[1..]
        .iter()
        .filter_map(|c| {
            let t = c
                .select(&sel("b, strong, h2, h3, h4, a[href]"))
                .map(title_text)
                .find(|t| t.chars().count() >= 2 && !is_status_badge(t))?;
            Some((t, *c))
        })
        .collect();
    (!named.is_empty()).then_some(named)
}

/// Column headings that name a tour date's city (folded).
const CITY_COLUMNS: &[&str] = &["city", "town", "stadt", "ort", "ville", "ciudad", "sehir"];

/// Column headings that name a tour date's venue (folded).
const VENUE_COLUMNS: &[&str] =
    &["venue", "spielstatte", "location", "lieu", "salle", "sala", "recinto", "mekan"];

/// Column headings of a tour date's booking cell (folded).
const TICKET_COLUMNS: &[&str] =
    &["tickets", "karten", "billets", "billetterie", "entradas", "bilet", "biletler"];

/// One row of a tour's dates: the page's show at a city's venue.
struct TourRow {
    title: String,
    venue: Option<String>,
    city: Option<String>,
    tickets: Option<String>,
    price: Option<gleaner_event::PriceText>,
    image: Option<String>,
    country: Option<String>,
}

/// A table row under a header with a city column and no title column, on a page with
/// one `<h1>`: the show is the heading, the place the row's venue and city cells, the
/// booking link the link of its tickets cell, the image the page's first one.
fn tour_row(item: ElementRef<'_>) -> Option<TourRow> {
    if item.value().name() != "tr" {
        return None;
    }
    let cells: Vec<ElementRef<'_>> = item
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .collect();
    let table =
        item.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "table")?;
    let header: Vec<String> = table
        .select(&sel("tr"))
        .find(|r| r.select(&sel("th")).next().is_some())
        .filter(|r| r.id() != item.id())?
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .map(|c| gleaner_event::datetext::fold_diacritics(&text_of(c)))
        .collect();
    if header.len() != cells.len() || header.iter().any(|h| TITLE_COLUMNS.contains(&h.as_str())) {
        return None;
    }
    let column = |names: &[&str]| header.iter().position(|h| names.contains(&h.as_str()));
    let city = column(CITY_COLUMNS)?;
    let root = item.ancestors().filter_map(ElementRef::wrap).last()?;
    let h1 = sel("h1");
    let mut h1s = root.select(&h1);
    let (Some(heading), None) = (h1s.next(), h1s.next()) else { return None };
    let title = text_of(heading);
    if title.is_empty() || title.chars().count() > 200 {
        return None;
    }
    let text = |i: usize| Some(text_of(cells[i])).filter(|t| !t.is_empty());
    let booking = column(TICKET_COLUMNS);
    let tickets = booking
        .and_then(|i| cells[i].select(&sel("a[href]")).next())
        .and_then(|a| a.value().attr("href"))
        .map(|h| h.trim().to_owned())
        .filter(|h| h.starts_with("http") || h.starts_with('/'));
    let price = booking.and_then(|i| {
        price_lines(cells[i]).find_map(|t| {
            let p = parse_price_text(&t)?;
            t.contains(['$', '€', '£', '₺']).then_some(p)
        })
    });
    let image = root
        .select(&sel("img[src]"))
        .filter(|i| !in_chrome(*i) && !is_icon(*i))
        .filter_map(|i| i.value().attr("src"))
        .map(str::trim)
        .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
        .map(str::to_owned);
    // The country of the site's own address: a tour's cities are named without one.
    let country = site_venue(root).and_then(|(_, address)| {
        let last = address.rsplit(',').next()?.trim().to_owned();
        (!last.chars().any(|c| c.is_ascii_digit())).then_some(last)
    });
    Some(TourRow {
        country,
        title,
        venue: column(VENUE_COLUMNS).and_then(text),
        city: text(city),
        tickets,
        price,
        image,
    })
}

/// An item's title set in bold (`<b>Club de lectura</b><br>Sala 2.`, as newsletters set
/// it under a date line): the first `<b>`/`<strong>` of two words or more that is usable
/// and no price or time, and not a label (`<b>Inscripciones abiertas</b>: talleres…`).
fn bold_title(item: ElementRef<'_>, usable: &dyn Fn(&str) -> bool) -> Option<String> {
    item.select(&sel("b, strong")).find_map(|b| {
        let t = title_text(b);
        let label = b
            .next_sibling()
            .and_then(|n| n.value().as_text().map(|t| t.trim_start().starts_with(':')))
            .unwrap_or(false)
            || t.trim_end().ends_with(':');
        let ok = !label
            && t.split_whitespace().count() >= 2
            && usable(&t)
            && parse_text_time(&t).is_none()
            && parse_price_text(&t).is_none_or(|_| !t.contains(['$', '€', '£', '₺']));
        ok.then_some(t)
    })
}

/// Whether a paragraph is running text, not a listing's item: twelve words or more, and a
/// sentence's end (`Fermeture estivale du lundi 3 au samedi 22 août 2026 inclus. Fermé…`).
/// Such paragraphs repeat on any page (opening hours, fares, access) and their dates are
/// rarely events'.
fn is_running_text(text: &str) -> bool {
    let t = text.trim();
    t.split_whitespace().count() >= 12 && (t.ends_with('.') || t.contains(". "))
}

/// An item's event once its dates are read: its title, link, place, price and image.
fn finish_item(
    item: ElementRef<'_>,
    start: EventTime,
    end: Option<EventTime>,
    date_text: Option<String>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Item> {
    let all = text_of(item);
    // Title: a heading, else a link's text, else the cell of a row that names the event,
    // else the words before the date. A link whose text is generic ("Match info",
    // "Plus d'infos") is never a title, and a status badge is never part of one.
    let usable = |t: &str| {
        let n = t.chars().count();
        // A price (`ab 29,90 €`, a booking link's text) is never a title.
        let price = n <= 30 && t.contains(['$', '€', '£', '₺']) && parse_price_text(t).is_some();
        (3..=300).contains(&n)
            && !price
            && !is_generic_link_text(t)
            && !is_status_badge(t)
            && parse_text_date(t, reference, order).is_none()
            && parse_event_time(t).is_none()
    };
    let link_of = |a: ElementRef<'_>| {
        a.value()
            .attr("href")
            .map(str::trim)
            .filter(|h| {
                !h.is_empty()
                    && !h.starts_with('#')
                    && !["javascript:", "mailto:", "tel:"]
                        .iter()
                        .any(|p| h.to_ascii_lowercase().starts_with(p))
            })
            .map(str::to_owned)
    };
    let heading = item
        .select(&sel("h1, h2, h3, h4, h5, h6"))
        .map(|h| (title_text(h), h))
        .find(|(t, _)| usable(t))
        .map(|(t, h)| {
            let link = h
                .select(&sel("a[href]"))
                .next()
                .or_else(|| {
                    h.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "a")
                })
                .and_then(link_of);
            (t, link)
        });
    // A tour's dates (`Datum | Stadt | Spielstätte | Beginn | Tickets`): rows without a
    // title column, each a city and a venue, are performances of the page's show.
    if let Some(tour) = tour_row(item) {
        let mut raw = RawEvent {
            name: Some(tour.title),
            start: Some(start.to_iso()),
            end: end.filter(|e| *e != start).map(|e| e.to_iso()),
            markup: Markup::Text,
            location_name: tour.venue,
            locality: tour.city,
            country: tour.country,
            image: tour.image,
            status: status_in(&all).map(str::to_owned),
            ..RawEvent::default()
        };
        if let Some(p) = tour.price {
            price_into(&p, &mut raw);
        }
        if let Some(t) = tour.tickets {
            match raw.offers.first_mut() {
                Some(o) => o.url = Some(t),
                None => raw.offers.push(RawOffer { url: Some(t), ..RawOffer::default() }),
            }
        }
        return Some(Item { raw, start, end, earlier: Vec::new() });
    }
    let (title, url) = match heading {
        Some(h) => h,
        None => {
            match item.select(&sel("a[href]")).map(|a| (title_text(a), a)).find(|(t, _)| usable(t))
            {
                Some((t, a)) => (t, link_of(a)),
                None => match row_title(item, &usable) {
                    Some((t, cell)) => (t, cell.select(&sel("a[href]")).find_map(link_of)),
                    None => match bold_title(item, &usable) {
                        Some(t) => (t, None),
                        None => (text_before_date(date_text.as_deref()?, reference, order)?, None),
                    },
                },
            }
        }
    };
    // No link on the title: the item's link to more about it ("Match info", "Mehr").
    let url = url.or_else(|| {
        item.select(&sel("a[href]"))
            .filter(|a| {
                let t = text_of(*a);
                is_generic_link_text(&t)
                    && !TICKET_WORDS
                        .contains(&gleaner_event::datetext::fold_diacritics(&t).as_str())
            })
            .find_map(link_of)
    });
    let status = status_in(&all);
    // The item's booking link (`Comprar`, `Bilet al`): not an anchor on its own page.
    let page_of = |h: &str| h.split('#').next().unwrap_or_default().to_owned();
    let tickets = item
        .select(&sel("a[href]"))
        .filter(|a| {
            TICKET_WORDS.contains(&gleaner_event::datetext::fold_diacritics(&text_of(*a)).as_str())
        })
        .find_map(link_of)
        .filter(|h| url.as_deref().map(page_of) != Some(page_of(h)));
    let mut raw = RawEvent {
        name: Some(title),
        url,
        start: Some(start.to_iso()),
        end: end.filter(|e| *e != start).map(|e| e.to_iso()),
        markup: Markup::Text,
        ..RawEvent::default()
    };
    place_and_price(item, &mut raw);
    if raw.location_text.is_none() && raw.address_text.is_none() {
        raw.location_text = classed_place(item, reference, order);
    }
    if raw.offers.is_empty() && raw.is_accessible_for_free.is_none() {
        // A cell that is only a price (`$25`, `18 €`, `Free`), or a short line or part of
        // one that is (`VVK 12 € / AK 15 €` after a `<br>`, `Durée 2h10 · Tarifs de 12 à
        // 24 €`).
        if let Some(p) = price_lines(item).filter(|t| t.chars().count() <= 40).find_map(|t| {
            let lower = t.to_lowercase();
            let money = t.contains(['$', '€', '£', '₺'])
                || lower
                    .split_whitespace()
                    .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w));
            let p = parse_price_text(&t)?;
            (money || p.is_free && parse_text_time(&t).is_none()).then_some(p)
        }) {
            price_into(&p, &mut raw);
        } else if leaves(item).any(|t| gleaner_event::says_free(&t)) {
            // A longer line that says so (`Entrada libre hasta completar aforo`).
            raw.is_accessible_for_free = Some("true".into());
        }
    }
    if let Some(t) = tickets {
        match raw.offers.first_mut() {
            Some(o) => o.url = Some(t),
            None => raw.offers.push(RawOffer { url: Some(t), ..RawOffer::default() }),
        }
    }
    raw.image = item
        .select(&sel("img[src]"))
        .filter(|i| !is_icon(*i))
        .filter_map(|i| i.value().attr("src"))
        .map(str::trim)
        .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
        .map(str::to_owned);
    raw.status = status.map(str::to_owned);
    // `APLAZADO al sábado 21 de marzo, a la misma hora`: postponed to a stated day is
    // rescheduled, and that day is the start (at the old time unless it gives one).
    let (mut start, mut end) = (start, end);
    if status == Some("postponed")
        && let Some(moved) = leaves(item).find_map(|t| moved_to(&t, start, reference, order))
    {
        raw.previous_start = Some(start.to_iso());
        raw.start = Some(moved.to_iso());
        raw.end = None;
        raw.status = Some("rescheduled".to_owned());
        (start, end) = (moved, None);
    }
    let earlier = match (&date_text, end) {
        (Some(text), None) => earlier_days(text, start, reference, order),
        _ => Vec::new(),
    };
    Some(Item { raw, start, end, earlier })
}

/// The earlier days a date line lists before its full date, at that date's time:
/// `Vendredi 9 et samedi 10 octobre 2026 — 20h30` → 9 October 2026, 20:30. The words
/// before the joining word must be only a day number and maybe a weekday, and the date
/// they make with the full date's month must read, come earlier and keep its time.
fn earlier_days(
    text: &str,
    start: EventTime,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<EventTime> {
    const JOINS: [&str; 7] = [" et ", " and ", " y ", " und ", " ve ", " & ", " e "];
    let Some((head, tail)) = JOINS.iter().find_map(|j| text.split_once(j)) else {
        return Vec::new();
    };
    let words: Vec<&str> = head.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    let day_word = |w: &str| {
        let w = w.trim_end_matches('.');
        (1..=2).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit())
    };
    let days = words.iter().filter(|w| day_word(w)).count();
    let only_day = days == 1
        && words.len() <= 2
        && words.iter().all(|w| day_word(w) || gleaner_event::datetext::is_weekday(w));
    if !only_day {
        return Vec::new();
    }
    // The full date's words after its own day number.
    let tail_words: Vec<&str> = tail.split(' ').filter(|w| !w.is_empty()).collect();
    let Some(at) = tail_words.iter().position(|w| day_word(w)) else { return Vec::new() };
    let line = format!("{head} {}", tail_words[at + 1..].join(" "));
    match parse_text_date(&line, reference, order) {
        Some(d)
            if d.start.date() < start.date()
                && d.end.is_none()
                && d.start.to_iso().get(10..) == start.to_iso().get(10..)
                && (start.date() - d.start.date()).num_days() <= 31 =>
        {
            vec![d.start]
        }
        _ => Vec::new(),
    }
}

/// An element's text without the status badges inside it (`Kingsmere Town v Daventry
/// United <span>POSTPONED</span>` → `Kingsmere Town v Daventry United`).
fn title_text(el: ElementRef<'_>) -> String {
    let badges: Vec<_> = el
        .descendants()
        .skip(1)
        .filter_map(ElementRef::wrap)
        .filter(|e| is_status_badge(&text_of(*e)))
        .map(|e| e.id())
        .collect();
    if badges.is_empty() {
        return text_of(el);
    }
    let text: Vec<&str> = el
        .descendants()
        .filter(|n| !n.ancestors().any(|a| badges.contains(&a.id())))
        .filter_map(|n| n.value().as_text().map(|t| &**t))
        .collect();
    collapse(&text.join(" "))
}

/// Column headings that name the event's cell in a table (`Fixture`, `Karşılaşma`,
/// `Spectacle`, `Veranstaltung`), folded.
const TITLE_COLUMNS: &[&str] = &[
    "event",
    "events",
    "fixture",
    "match",
    "title",
    "what",
    "show",
    "programme",
    "program",
    "performance",
    "karsilasma",
    "mac",
    "etkinlik",
    "oyun",
    "titre",
    "spectacle",
    "evenement",
    "seance",
    "film",
    "evento",
    "espectaculo",
    "titulo",
    "partido",
    "actividad",
    "veranstaltung",
    "titel",
    "was",
    "spiel",
    "begegnung",
    "konzert",
];

/// A table row's title: the cell under a column headed like a title (`Fixture`), else
/// the longest cell of two words or more that is neither a date, a time, a price nor a
/// generic link. With that cell.
fn row_title<'a>(
    item: ElementRef<'a>,
    usable: &dyn Fn(&str) -> bool,
) -> Option<(String, ElementRef<'a>)> {
    if item.value().name() != "tr" {
        return None;
    }
    let cells: Vec<ElementRef<'a>> = item
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "td" | "th"))
        .collect();
    let usable_cell = |c: &ElementRef<'a>| {
        let t = title_text(*c);
        let price = parse_price_text(&t).is_some()
            && (t.contains(['$', '€', '£', '₺']) || gleaner_event::says_free(&t));
        (usable(&t) && !price && parse_text_time(&t).is_none()).then_some((t, *c))
    };
    let table = item.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "table");
    let header: Vec<String> = table
        .and_then(|t| t.select(&sel("tr")).find(|r| r.select(&sel("th")).next().is_some()))
        .filter(|r| r.id() != item.id())
        .map(|r| {
            r.children()
                .filter_map(ElementRef::wrap)
                .filter(|c| matches!(c.value().name(), "td" | "th"))
                .map(|c| gleaner_event::datetext::fold_diacritics(&text_of(c)))
                .collect()
        })
        .unwrap_or_default();
    if header.len() == cells.len()
        && let Some(i) = header.iter().position(|h| TITLE_COLUMNS.contains(&h.as_str()))
        && let Some(found) = usable_cell(&cells[i])
    {
        return Some(found);
    }
    cells
        .iter()
        .filter_map(usable_cell)
        .filter(|(t, _)| t.split_whitespace().count() >= 2)
        .max_by_key(|(t, _)| t.chars().count())
}

/// Whether an image is an icon rather than the event's picture: drawn smaller than 100
/// pixels either way (`width="37" height="43"`), or named an icon or logo by its file.
fn is_icon(img: ElementRef<'_>) -> bool {
    let small = ["width", "height"].iter().any(|a| {
        img.value().attr(a).and_then(|v| v.trim().parse::<u32>().ok()).is_some_and(|n| n < 100)
    });
    let file = img.value().attr("src").unwrap_or_default().to_ascii_lowercase();
    let file = file.split(['?', '#']).next().unwrap_or_default();
    let name = file.rsplit('/').next().unwrap_or_default();
    small || name.contains("icon") || name.contains("logo")
}

/// An item's place when its markup names the field (`class="views-field-field-location"`,
/// `event-venue`, `tribe-venue`): the short text of the first element with a class ending in
/// `location` or `venue`, when it is neither a date nor a time.
fn classed_place(
    item: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<String> {
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|el| {
            el.value().classes().any(|c| {
                let c = c.to_ascii_lowercase();
                // `event-location`, `venue`, and the words in the other languages
                // (`lugar`, `lieu`, `mekan`; not `ort`, which names rooms as often).
                c.ends_with("location")
                    || c.ends_with("venue")
                    || ["lugar", "lieu", "veranstaltungsort", "mekan"].contains(&c.as_str())
            })
        })
        // `Teatro Isabel la Católica · Granada`: a venue and its town.
        .map(|el| text_of(el).replace(" · ", ", "))
        .find(|t| {
            (2..=80).contains(&t.chars().count())
                && parse_text_date(t, reference, order).is_none()
                && parse_text_time(t).is_none()
        })
}

/// The words before a date in one line (`Finance Committee on 2018-06-21 - (8:30 a.m.)`
/// → `Finance Committee`), without a connecting word or punctuation at their end.
fn text_before_date(text: &str, reference: Option<NaiveDate>, order: DateOrder) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() > 40 {
        return None;
    }
    let reads = |w: &[&str]| parse_text_date(&w.join(" "), reference, order).is_some();
    // The date ends at the shortest prefix that reads one, and starts where the latest
    // start still reads it.
    let end = (1..=words.len()).find(|&k| reads(&words[..k]))?;
    let start = (0..end).rev().find(|&j| reads(&words[j..end]))?;
    let mut head = &words[..start];
    while let Some((last, rest)) = head.split_last() {
        let w = last.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        if w.is_empty()
            || ["on", "at", "le", "am", "el", "the", "vom", "du", "from", "dates", "date"]
                .contains(&w.as_str())
        {
            head = rest;
        } else {
            break;
        }
    }
    let title = collapse(&head.join(" "));
    let title = title.trim_end_matches([',', ':', ';', '-', '–', '—', '|', '(', '@', '·']).trim();
    // A weekday is part of the date, not a title (`Thursday 5 March 2026, 7.30pm`).
    let only_days = title
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .all(gleaner_event::datetext::is_weekday);
    (title.chars().count() >= 3 && !only_days).then(|| title.to_owned())
}

/// The zone a page states for its times, when it states exactly one: "all times
/// Central", "Eastern time", "hora peninsular", "heure de Paris", "TSİ", "MEZ", "CET",
/// "UK time", "Irish time". Abbreviations that are also words (`et`, `est`) count only after "all times".
pub(crate) fn stated_zone(text: &str) -> Option<chrono_tz::Tz> {
    use chrono_tz::{America, Atlantic, Europe};
    let folded = gleaner_event::datetext::fold_diacritics(&text[..text.len().min(400_000)]);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let us = |w: &str| match w {
        "central" | "ct" | "cst" | "cdt" => Some(America::Chicago),
        "eastern" | "et" | "est" | "edt" => Some(America::New_York),
        "mountain" | "mt" | "mst" | "mdt" => Some(America::Denver),
        "pacific" | "pt" | "pst" | "pdt" => Some(America::Los_Angeles),
        _ => None,
    };
    let mut found: Option<chrono_tz::Tz> = None;
    let mut conflict = false;
    let mut note = |z: chrono_tz::Tz| match found {
        None => found = Some(z),
        Some(f) if f != z => conflict = true,
        _ => {}
    };
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or("");
        match *w {
            // "all times (are|shown|listed) (in) Central"
            "times" if i > 0 && words[i - 1] == "all" => {
                let rest: Vec<&str> = words[i + 1..]
                    .iter()
                    .copied()
                    .skip_while(|w| matches!(*w, "are" | "shown" | "listed" | "in" | "given"))
                    .take(1)
                    .collect();
                if let Some(z) = rest.first().and_then(|w| us(w)) {
                    note(z);
                }
            }
            "central" | "eastern" | "mountain" | "pacific" if next == "time" => {
                if let Some(z) = us(w) {
                    note(z);
                }
            }
            "hora" | "horario" if next == "peninsular" => note(Europe::Madrid),
            "hora" | "horario" if next == "canaria" => note(Atlantic::Canary),
            "heure" if next == "de" && words.get(i + 2) == Some(&"paris") => note(Europe::Paris),
            "heure" if next == "francaise" => note(Europe::Paris),
            "tsi" => note(Europe::Istanbul),
            "turkiye" if next == "saati" || next == "saatiyle" => note(Europe::Istanbul),
            "mez" | "mesz" => note(Europe::Berlin),
            "cet" | "cest" => note(Europe::Paris),
            "uk" | "british" if next == "time" => note(Europe::London),
            "irish" if next == "time" => note(Europe::Dublin),

            _ => {}
        }
    }
    if conflict { None } else { found }
}

/// The venue a site names in its footer or contact block: one line `Name · street ·
/// postcode town [· country]` (separated by `·`, `|`, `•` or commas) whose parts after the
/// name hold a street or postcode and a town; phone numbers, e-mail addresses and `©`
/// lines are not parts. The name and the address (parts joined by `, `).
/// The country that ends a site's address (`…, 09500 Medina de Pomar (Burgos), España` →
/// `ES`), when its last part is a country's name or code.
fn site_country(address: &str) -> Option<String> {
    let last = address.rsplit(',').next()?.trim();
    if last.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    gleaner_event::country_code(last)
}

fn site_venue(doc: ElementRef<'_>) -> Option<(String, String)> {
    let blocks =
        sel("footer, footer address, footer p, footer div, footer li, address, [class*=contact] p");
    let found = doc
        .select(&blocks)
        .filter(|el| el.select(&sel("p, div, li, address")).all(|b| b.id() == el.id()))
        .take(200)
        .find_map(|el| venue_line(&text_of(el)));
    if found.is_some() || doc.select(&sel("footer")).next().is_some() {
        return found;
    }
    // No `<footer>` (an HTML e-mail's layout tables): the page's last text block is its
    // footer.
    let leaf = sel("p, td, div, li, address");
    let last = doc
        .select(&leaf)
        .filter(|el| el.select(&leaf).all(|b| b.id() == el.id()) && !text_of(*el).is_empty())
        .last()?;
    venue_line(&text_of(last))
}

/// `The Blue Lantern · 1420 W. Fullerton Ave · Chicago, IL 60614 · (773) 555-0142` →
/// (`The Blue Lantern`, `1420 W. Fullerton Ave, Chicago, IL 60614`).
/// Whether a footer's part is running text (eight words or more, a full stop inside and
/// one at its end; `Gümrük Sok. No: 12` is not): never part of an address.
fn is_sentence(part: &str) -> bool {
    let p = part.trim();
    p.split_whitespace().count() >= 8 && p.contains(". ") && p.ends_with('.')
}

fn venue_line(line: &str) -> Option<(String, String)> {
    if line.len() > 240 || line.contains('©') {
        return None;
    }
    let dotted = line.contains(['·', '|', '•']);
    let parts: Vec<&str> = if dotted {
        line.split(['·', '|', '•']).map(str::trim).filter(|p| !p.is_empty()).collect()
    } else {
        line.split(',').map(str::trim).filter(|p| !p.is_empty()).collect()
    };
    let is_contact = |p: &str| {
        p.contains('@')
            || p.starts_with("http")
            || p.starts_with("www.")
            || p.chars().filter(char::is_ascii_digit).count() >= 7
    };
    // Nor is a sentence after the address (`Ayuntamiento de Burgos. Si no quiere recibir
    // este boletín, dese de baja.`).
    let parts: Vec<&str> =
        parts.into_iter().filter(|p| !is_contact(p) && !is_sentence(p)).collect();
    let (name, rest) = parts.split_first()?;
    let words = name.split_whitespace().count();
    if rest.is_empty()
        || !(1..=6).contains(&words)
        || name.chars().any(|c| c.is_ascii_digit())
        || label_of(name).is_some()
    {
        return None;
    }
    // A postcode before a town (`69002 Lyon`), a US/UK tail (`IL 60614`, `SE1 9PX`), or a
    // street with a house number (`No: 12`, `1420 W. …`, `Findorffstraße 51`, `s/n`).
    let postcode_town = |p: &str| {
        let w: Vec<&str> = p.split_whitespace().collect();
        w.windows(2).any(|x| {
            (4..=5).contains(&x[0].len())
                && x[0].bytes().all(|b| b.is_ascii_digit())
                && x[1].chars().next().is_some_and(char::is_alphabetic)
        }) || w.last().is_some_and(|l| l.len() == 5 && l.bytes().all(|b| b.is_ascii_digit()))
    };
    let numbered = |p: &str| {
        p.split_whitespace().any(|t| {
            let t = t.trim_end_matches([',', '.']);
            t.eq_ignore_ascii_case("s/n")
                || (t.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && t.chars().filter(char::is_ascii_digit).count() <= 4)
        }) && p.chars().any(char::is_alphabetic)
    };
    let has_place = rest.iter().any(|p| postcode_town(p))
        || (rest.len() >= 2 && numbered(rest[0]) && rest[1].chars().any(char::is_alphabetic));
    if !has_place || rest.iter().any(|p| is_publication_line(p)) {
        return None;
    }
    // An organisation's line (`Kingsmere Town Football Club · The Brickfield, Station Road,
    // Kingsmere`): the place is the name that opens its address, when one does.
    if is_organisation(name)
        && let Some((place, street)) = rest[0].split_once(", ")
        && !place.chars().any(|c| c.is_ascii_digit())
        && (1..=4).contains(&place.split_whitespace().count())
        && label_of(place).is_none()
        && !names_a_street(place)
    {
        let mut address = vec![street];
        address.extend_from_slice(&rest[1..]);
        return Some((place.trim().to_owned(), address.join(", ")));
    }
    Some(((*name).to_owned(), rest.join(", ")))
}

/// Words that name an organisation (a club, a society), not a place, folded.
const ORGANISATION_WORDS: &[&str] = &[
    "club",
    "fc",
    "afc",
    "society",
    "association",
    "verein",
    "ev",
    "kulturverein",
    "sportverein",
    "kulubu",
    "dernegi",
    "asociacion",
    "amicale",
    "federation",
    "trust",
];

/// Street words, folded: a part holding one is a street, not a place's name.
const STREET_WORDS: &[&str] = &[
    "road",
    "rd",
    "lane",
    "street",
    "st",
    "avenue",
    "ave",
    "way",
    "drive",
    "close",
    "square",
    "rue",
    "boulevard",
    "bd",
    "chemin",
    "allee",
    "quai",
    "place",
    "cours",
    "strasse",
    "str",
    "weg",
    "platz",
    "gasse",
    "calle",
    "avenida",
    "plaza",
    "paseo",
    "camino",
    "cadde",
    "cad",
    "caddesi",
    "sokak",
    "sok",
    "bulvari",
    "mahallesi",
];

/// Whether a part of an address names a street (`Boathouse Lane`, `Mühlenweg`).
fn names_a_street(part: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(part);
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| {
        STREET_WORDS.contains(&w)
            || ["strasse", "weg", "platz", "gasse", "allee"]
                .iter()
                .any(|s| w.len() > s.len() + 2 && w.ends_with(s))
    })
}

/// Whether a venue line's name is an organisation's (`Kingsmere Town Football Club`,
/// `Kulturverein Alte Mühle e.V.`).
fn is_organisation(name: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(name).replace("e.v.", "ev");
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| ORGANISATION_WORDS.contains(&w))
}

/// A cell that holds only a time of day written with a dot or an `h` (`21.30`, `20h30`):
/// beside a date cell it can be nothing else, although alone it could be a date.
fn cell_time(text: &str) -> Option<(chrono::NaiveTime, Option<chrono::NaiveTime>)> {
    let (h, m) = text.trim().split_once(['.', 'h', 'H'])?;
    let ok =
        |p: &str, n: usize| (1..=n).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit());
    if !ok(h, 2) || m.len() != 2 || !ok(m, 2) {
        return None;
    }
    Some((chrono::NaiveTime::from_hms_opt(h.parse().ok()?, m.parse().ok()?, 0)?, None))
}

#[cfg(test)]
mod tests {
    use super::{cell_time, stated_zone, venue_line};

    #[test]
    fn zones_pages_state() {
        let z = |t: &str| stated_zone(t).map(|z| z.name().to_owned());
        assert_eq!(z("Two sets nightly. All times Central.").as_deref(), Some("America/Chicago"));
        assert_eq!(z("all times are in Eastern").as_deref(), Some("America/New_York"));
        assert_eq!(z("Doors 7pm Pacific Time").as_deref(), Some("America/Los_Angeles"));
        assert_eq!(z("Todos los horarios en hora peninsular.").as_deref(), Some("Europe/Madrid"));
        assert_eq!(z("20h30 (heure de Paris)").as_deref(), Some("Europe/Paris"));
        assert_eq!(z("Saat 20.30 TSİ").as_deref(), Some("Europe/Istanbul"));
        assert_eq!(z("Beginn 20 Uhr MEZ").as_deref(), Some("Europe/Berlin"));
        // Issue 24, batch 90–109: a club's fixtures say `Throw-in times are Irish time`.
        assert_eq!(z("Throw-in times are Irish time.").as_deref(), Some("Europe/Dublin"));
        assert_eq!(z("Kick-off 3pm British time").as_deref(), Some("Europe/London"));
        assert_eq!(z("Irish dancing at 8pm"), None);
        // Words that only look like zones, and two zones at once, say nothing.
        assert_eq!(z("Le concert est complet et reporté"), None);
        assert_eq!(z("Central Park concert at 8pm"), None);
        assert_eq!(z("All times Central. Stream at 9 Eastern Time."), None);
    }

    #[test]
    fn site_venue_lines() {
        let v = |l: &str| venue_line(l);
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        assert_eq!(
            v("The Blue Lantern · 1420 W. Fullerton Ave · Chicago, IL 60614 · (773) 555-0142"),
            pair("The Blue Lantern", "1420 W. Fullerton Ave, Chicago, IL 60614")
        );
        assert_eq!(
            v("Le Périscope, 13 rue Delandine, 69002 Lyon"),
            pair("Le Périscope", "13 rue Delandine, 69002 Lyon")
        );
        assert_eq!(
            v("Teatro Romea · Plaza Julián Romea, s/n · 30001 Murcia · España"),
            pair("Teatro Romea", "Plaza Julián Romea, s/n, 30001 Murcia, España")
        );
        // An organisation's line: the place is the name that opens its address.
        assert_eq!(
            v(
                "Kingsmere Town Football Club · The Brickfield, Station Road, Kingsmere NN14 7QT · England"
            ),
            pair("The Brickfield", "Station Road, Kingsmere NN14 7QT, England")
        );
        assert_eq!(
            v("Kulturverein Alte Mühle e.V. · Mühlenweg 3 · 37574 Einbeck"),
            pair("Kulturverein Alte Mühle e.V.", "Mühlenweg 3, 37574 Einbeck")
        );
        assert_eq!(
            v("Peña Flamenca · Calle Mayor 4 · 11004 Cádiz"),
            pair("Peña Flamenca", "Calle Mayor 4, 11004 Cádiz")
        );
        assert_eq!(
            v("Sporting Club · Boathouse Lane, Riverside · 37574 Einbeck"),
            pair("Sporting Club", "Boathouse Lane, Riverside, 37574 Einbeck")
        );
        for not in [
            "© 2026 Eastside Community Center",
            "Riverside Playhouse is a registered charity no. 1234567. © 2026",
            "Teatro Cervantes · Ayuntamiento de Málaga · © 2026",
            "Veröffentlicht am 2. Februar 2026 · Lindenpark",
            "Impressum · Datenschutz · Kontakt",
        ] {
            assert_eq!(v(not), None, "{not}");
        }
    }

    #[test]
    fn cell_times() {
        let t = |h, m| Some((chrono::NaiveTime::from_hms_opt(h, m, 0).unwrap(), None));
        assert_eq!(cell_time("21.30"), t(21, 30));
        assert_eq!(cell_time("20h30"), t(20, 30));
        assert_eq!(cell_time("24.30"), None);
        assert_eq!(cell_time("3.2026"), None);
        assert_eq!(cell_time("12.03.2026"), None);
    }
}
