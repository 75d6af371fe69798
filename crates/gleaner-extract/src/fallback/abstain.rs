//! Abstention: the fallback's candidates dropped when the evidence for them is weak
//! (issue 24: precision first, a wrong event is worse than none).
//!
//! The rules come from the false events the written pages and the corpus showed, each
//! kept only because it removed more false values than true ones over all of them:
//!
//! - a day heading (`Sábado de Pasión, 28 de marzo`, `Friday 20 March`) is a day's name,
//!   not an event: a candidate titled by a weekday and a few words, with only a date and
//!   nothing of its own (no description, place or link), is dropped;
//! - a page read as one date-only event while its text gives times of day in several
//!   blocks is a listing or programme the fallback could not read item by item: its
//!   one event would be the whole page's span, so none is given;
//! - a candidate titled by a note that no event is held (`No recital this week – the
//!   Nave is closed for filming`, `Kein Konzert`, `Relâche`) is dropped;
//! - so is a page read as one date-only event whose `<h2>` sections give dates of
//!   their own (two or more): the reading took one section's date for the page's title.
//!
//! Tried and not kept: dropping a date-only candidate with nothing of its own on a page
//! whose other candidates carry times (it removed one false value and four true ones: a
//! fair's all-day closing day among timed acts is such a candidate).

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::RawEvent;
use gleaner_event::datetext::{parse_text_date, parse_text_time, weekday_of};
use gleaner_event::time::parse_event_time;
use scraper::{ElementRef, Html};

use super::{BLOCKS, Reading, canonical_url, in_chrome, sel, text_of};
use crate::{Candidate, Diagnostic, Format, Severity};

/// Most words a day heading's title has (`Domingo de Resurrección`, `Sunday`).
const DAY_TITLE_WORDS: usize = 4;

/// Fewest distinct times of day in a page's blocks that make its one date-only reading a
/// listing's span rather than an event.
const LISTING_TIMES: usize = 3;

/// Drops the weak candidates among `candidates[first..]`, which the page's `reading`
/// gave (see the module's rules), and notes each drop in `diagnostics`.
pub(super) fn abstain(
    doc: &Html,
    reading: Reading,
    reference: Option<NaiveDate>,
    first: usize,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    if candidates.len() <= first {
        return;
    }
    let page = canonical_url(doc);
    let bare = |r: &RawEvent| date_only(r) && !has_own(r, page.as_deref());
    let mut dropped: Vec<(String, &'static str)> = Vec::new();
    let mut i = first;
    let mut listing_span = None;
    while i < candidates.len() {
        let raw = &candidates[i].raw;
        let why = if bare(raw) && is_day_title(raw.name.as_deref()) {
            Some("a day heading, not an event")
        } else if raw.name.as_deref().is_some_and(super::segment::says_no_event) {
            Some("a note that no event is held, not an event")
        } else if raw.name.as_deref().is_some_and(super::words::is_holiday_title) {
            Some("a holiday, not an event")
        } else if reading == Reading::OneEvent && date_only(raw) {
            if *listing_span.get_or_insert_with(|| distinct_times(doc) >= LISTING_TIMES) {
                Some(
                    "one date-only reading of a page that gives times in several blocks: a listing's span",
                )
            } else if dated_sections(doc, reference) >= DATED_SECTIONS {
                Some(
                    "one date-only reading of a page whose headed sections give dates of their own: which section's is it?",
                )
            } else {
                None
            }
        } else {
            None
        };
        match why {
            Some(why) => {
                let c = candidates.remove(i);
                dropped.push((c.raw.name.unwrap_or_default(), why));
            }
            None => i += 1,
        }
    }
    for (name, why) in dropped {
        diagnostics.push(Diagnostic {
            severity: Severity::Info,
            format: Format::Fallback,
            message: format!("`{name}` dropped: {why}; no event"),
            location: String::new(),
        });
    }
}

/// Fewest headed sections with dates of their own that make a page's one date-only
/// reading ambiguous.
const DATED_SECTIONS: usize = 2;

/// How many `<h2>` sections outside the page's chrome give a date in their blocks (the
/// heading's later siblings up to the next `<h1>`/`<h2>`): an observatory's nights, each
/// under its name, read as one event titled by the page's `<h1>` would take the first
/// night's date.
fn dated_sections(doc: &Html, reference: Option<NaiveDate>) -> usize {
    let order = super::page_order(doc);
    doc.select(&sel("h2"))
        .take(50)
        .filter(|h| !in_chrome(*h))
        .filter(|h| {
            h.next_siblings()
                .filter_map(ElementRef::wrap)
                .take_while(|s| !matches!(s.value().name(), "h1" | "h2"))
                .take(20)
                .any(|s| {
                    let t = text_of(s);
                    t.len() <= 2000 && parse_text_date(&t, reference, order).is_some()
                })
        })
        .count()
}

/// Whether an event's start is a bare date (no time of day), or missing.
fn date_only(raw: &RawEvent) -> bool {
    raw.start.as_deref().and_then(parse_event_time).is_none_or(|t| matches!(t, EventTime::Date(_)))
}

/// Whether an event carries anything of its own beyond a title and a date: a
/// description, a place, or a link other than the page's.
fn has_own(raw: &RawEvent, page: Option<&str>) -> bool {
    raw.description.is_some()
        || raw.location_name.is_some()
        || raw.location_text.is_some()
        || raw.address_text.is_some()
        || raw.url.as_deref().is_some_and(|u| Some(u) != page)
}

/// Whether a title is a day's name: a weekday, then at most a few words (`Viernes Santo`,
/// `Domingo de Ramos`, `Saturday`).
fn is_day_title(title: Option<&str>) -> bool {
    let Some(title) = title else { return false };
    let words: Vec<&str> = title.split_whitespace().collect();
    words.len() <= DAY_TITLE_WORDS
        && words.first().is_some_and(|w| {
            let w = w.trim_end_matches([',', ':']);
            w.chars().count() >= 3 && weekday_of(w).is_some()
        })
}

/// How many distinct times of day the page's main blocks (outside its chrome) give.
fn distinct_times(doc: &Html) -> usize {
    let blocks = sel(BLOCKS);
    let mut times = Vec::new();
    for el in doc.root_element().descendants().filter_map(ElementRef::wrap).take(5000) {
        if !el.value().name().eq_ignore_ascii_case("body")
            && el.select(&blocks).all(|b| b.id() == el.id())
            && blocks.matches(&el)
            && !in_chrome(el)
            && let Some((t, _)) = parse_text_time(&text_of(el))
            && !times.contains(&t)
        {
            times.push(t);
        }
    }
    times.len()
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use scraper::Html;

    use super::is_day_title;

    /// The fallback's candidates' titles and starts for a page read on 2026-03-01.
    fn read(html: &str) -> Vec<(Option<String>, Option<String>)> {
        let doc = Html::parse_document(html);
        let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
        let day = NaiveDate::from_ymd_opt(2026, 3, 1);
        super::super::read(&doc, day, &mut candidates, &mut diagnostics);
        candidates.into_iter().map(|c| (c.raw.name, c.raw.start)).collect()
    }

    #[test]
    fn day_titles() {
        let cases = [
            ("Sábado de Pasión", true),
            ("Domingo de Resurrección", true),
            ("Viernes Santo", true),
            ("Saturday", true),
            ("Freitag, 13. März", true),
            ("Friday Night Jazz at the Old Mill Quay", false),
            ("So You Think You Can Dance", false),
            ("Samstagsmarkt am Rathaus", false),
            ("Procesión del Silencio", false),
        ];
        for (title, want) in cases {
            assert_eq!(is_day_title(Some(title)), want, "{title}");
        }
    }

    #[test]
    fn day_headings_are_not_events() {
        let section = |day: &str, title: &str, time: &str| {
            format!(
                "<h2>{day}</h2><h3>{title}</h3><table><tr><th>Salida</th><td>{time}, Iglesia \
                 de Santa María</td></tr><tr><th>Recogida</th><td>23.30 h</td></tr></table>"
            )
        };
        let html = format!(
            "<html lang=es><body><main><h1>Semana Santa 2026: horarios</h1>{}{}{}{}</main></body></html>",
            section("Sábado de Pasión, 28 de marzo", "Vía Crucis", "21.00 h"),
            section("Domingo de Ramos, 29 de marzo", "Procesión de la Borriquita", "12.00 h"),
            section("Jueves Santo, 2 de abril", "Procesión del Silencio", "00.00 h"),
            section("Viernes Santo, 3 de abril", "Procesión del Santo Entierro", "20.00 h"),
        );
        let events = read(&html);
        assert!(
            events.iter().all(|(t, _)| !t.as_deref().is_some_and(|t| is_day_title(Some(t)))),
            "day headings read as events: {events:?}"
        );
    }

    #[test]
    fn a_note_that_no_event_is_held_is_not_an_event() {
        let row = |d: &str, who: &str| format!("<tr><td>{d}</td><td><b>{who}</b></td></tr>");
        let html = format!(
            "<html lang=en><body><main><h1>Organ recitals</h1><table>{}{}{}{}</table></main></body></html>",
            row("4 March 2026", "Recital: James Holloway"),
            row("11 March 2026", "Recital: Sarah Penhaligon"),
            row("18 March 2026", "No recital this week – the Nave is closed for filming"),
            row("25 March 2026", "Recital: Daniel Okafor"),
        );
        let events = read(&html);
        assert_eq!(events.len(), 3, "{events:?}");
        assert!(!events.iter().any(|(t, _)| t.as_deref().is_some_and(|t| t.starts_with("No "))));
    }

    #[test]
    fn a_week_of_showtimes_is_not_one_event() {
        let row = |film: &str, when: &str| format!("<li><strong>{film}</strong> {when}</li>");
        let html = format!(
            "<html lang=fr><body><main><h1>Cinéma Le Sélect</h1>\
             <h2>Semaine du mercredi 18 au mardi 24 novembre 2026</h2><ul>{}{}{}</ul>\
             <p>Tarif : 8 €</p></main></body></html>",
            row("Les Saisonniers", "mer. 20h30, ven. 18h15"),
            row("The Lighthouse Keepers", "jeu. 20h45"),
            row("Hautes Terres", "dim. 16h00"),
        );
        let events = read(&html);
        assert!(
            !events.iter().any(|(t, _)| t.as_deref() == Some("Cinéma Le Sélect")),
            "the week's span read as one event: {events:?}"
        );
    }
}
