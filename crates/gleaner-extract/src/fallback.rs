//! The generic fallback: a modest reading of event pages that have no structured data and
//! no site rules (issue 10).
//!
//! - title: the first `<h1>`, else `og:title`;
//! - dates: `<time datetime>` elements (one or two: a start and maybe an end; more mean a
//!   listing, read as nothing), else the first date written in words near the title
//!   (`gleaner_event::datetext`), skipping "posted on" and "updated" lines;
//! - place: `<address>`, and blocks labelled Venue / Location / Where / Lieu / Ort / Mekan
//!   / Lugar (and Address / Adresse / Dirección / Adres);
//! - price: a block labelled Price / Tarif / Prix / Preis / Precio / Fiyat / Admission.
//!
//! It never invents: a field it cannot find stays empty, and a page without a date gives
//! no event; with a reference day (the crawl's today), neither does a page whose only
//! dates are past (a news item's publication date looks just like an event's date). What it finds is marked low confidence in the diagnostics.

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::clean_line;
use gleaner_event::time::parse_event_time;
use gleaner_event::{RawEvent, RawOffer, parse_price_text};
use scraper::{ElementRef, Html, Selector};

use crate::{Candidate, Diagnostic, Format, Severity};

/// How many text blocks after the title are searched for a written date.
const NEAR_TITLE_BLOCKS: usize = 80;

fn sel(s: &str) -> Selector {
    Selector::parse(s).expect("a constant selector parses")
}

/// Reads at most one event from a page; pushes a diagnostic either way.
pub fn read(
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
    let h1 = doc.select(&sel("h1")).find(|h| !text_of(*h).is_empty());
    let title = h1.map(text_of).filter(|t| t.chars().count() <= 300).or_else(|| {
        doc.select(&sel("meta[property='og:title'], meta[name='og:title']"))
            .next()
            .and_then(|m| m.value().attr("content"))
            .map(clean_line)
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
        ..RawEvent::default()
    };
    if let Some(address) = doc.select(&sel("address")).map(text_of).find(|t| !t.is_empty()) {
        raw.address_text = Some(address);
    }
    for (label, value) in labelled(doc) {
        match label {
            Label::Place if raw.location_text.is_none() => raw.location_text = Some(value),
            Label::Address if raw.address_text.is_none() => raw.address_text = Some(value),
            Label::Price if raw.offers.is_empty() => {
                if let Some(p) = parse_price_text(&value) {
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
            }
            _ => {}
        }
    }
    diagnostics.push(note(
        Severity::Info,
        "low confidence: read by the generic fallback (no structured data, no site rules)"
            .to_owned(),
    ));
    candidates.push(Candidate { format: Format::Fallback, location: "page".into(), raw });
}

fn text_of(el: ElementRef<'_>) -> String {
    clean_line(&el.text().collect::<Vec<_>>().join(" "))
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
        if text.len() > 200 || is_publication_line(&text) || text == last_text {
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

fn is_publication_line(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "posted",
        "published",
        "updated",
        "publié",
        "mis à jour",
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
        | "eintrittspreis" | "ucret" | "giris" => Label::Price,
        _ => return None,
    })
}

/// `Label: value` blocks (in one element, or a label element followed by its value:
/// `<dt>`/`<dd>`, `<th>`/`<td>`, `<strong>Lieu</strong> text`).
fn labelled(doc: &Html) -> Vec<(Label, String)> {
    let mut out = Vec::new();
    for el in doc.select(&sel("p, li, div, dt, th, strong, b, span, label, h3, h4")).take(5000) {
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
                out.push((label, rest.to_owned()));
                continue;
            }
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
                out.push((label, v));
            }
        }
    }
    out
}
