//! A show's dates listed without titles or times (`Do., 2. Juli | Premiere` rows) in the
//! section its heading names, with one start stated for all of them (`Beginn jeweils
//! 20.30 Uhr`, `chaque soir à 20h30`, `todas las funciones a las 20.30 h`, `every night
//! at 7.30pm`, `her akşam saat 20.00'de`): one performance per date, at the row's own
//! time when it gives one (`So., 12. Juli, 17 Uhr`). Without such a statement, or with two
//! different ones, the list gives nothing: a date without its time is no start.

use chrono::{NaiveDate, NaiveTime};
use gleaner_event::datetext::{DateOrder, fold_diacritics, parse_text_date, parse_text_time};
use gleaner_event::{EventTime, Markup, RawEvent};
use scraper::{ElementRef, Html};

use super::price::{booking_link, price_in_text, price_into};
use super::roles::{clauses, start_line};
use super::words::stated_status;
use super::{MIN_ITEMS, canonical_url, in_chrome, is_icon, leaves, sel, text_of};

/// Words that state a time for every date of a list (folded).
const EACH: &[&str] = &[
    "jeweils", "each", "every", "nightly", "chaque", "tous", "toutes", "cada", "todas", "todos",
    "her",
];

/// Longest text of a date row's cell: a date and a short remark (`Premiere`,
/// `Vorstellung entfällt (Ersatz: Fr., 17. Juli)`).
const ROW_CELL_CHARS: usize = 80;

/// The performances of the page's date lists (see the module's rules).
pub(super) fn date_lists(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<RawEvent> {
    let page_url = canonical_url(doc);
    let mut out = Vec::new();
    for list in doc.select(&sel("table, ul, ol")).take(50) {
        if in_chrome(list) {
            continue;
        }
        let Some(rows) = dated_rows(list, reference, order) else { continue };
        let Some((section, title)) = section_of(list, reference, order) else { continue };
        let Some(shared) = shared_start(section, list) else { continue };
        let description = section
            .select(&sel("p"))
            .filter(|p| !p.ancestors().any(|a| a.id() == list.id()))
            .map(text_of)
            .find(|t| {
                t.split_whitespace().count() >= 12
                    && t.ends_with(['.', '!', '?'])
                    && parse_text_time(t).is_none()
            });
        let image = section
            .select(&sel("img[src]"))
            .filter(|i| !is_icon(*i))
            .filter_map(|i| i.value().attr("src"))
            .map(str::trim)
            .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
            .map(str::to_owned);
        let price = price_in_text(section);
        let tickets = booking_link(section);
        for (day, own, status) in rows {
            if reference.is_some_and(|r| day < r) {
                continue;
            }
            let start = EventTime::Floating(day.and_time(own.unwrap_or(shared)));
            let mut raw = RawEvent {
                name: Some(title.clone()),
                start: Some(start.to_iso()),
                url: page_url.clone(),
                description: description.clone(),
                image: image.clone(),
                status: status.map(str::to_owned),
                markup: Markup::Text,
                ..RawEvent::default()
            };
            if let Some(p) = &price {
                price_into(p, &mut raw);
            }
            if let Some(t) = &tickets {
                raw.set_ticket_url(t.clone());
            }
            out.push(raw);
        }
    }
    out
}

/// A dated row: its day, its own time, and the status it states.
type DatedRow = (NaiveDate, Option<NaiveTime>, Option<&'static str>);

/// A list's rows when each is a date and a short remark: no link, no heading, no long
/// cell; [`MIN_ITEMS`] dated rows or more, and few undated ones.
fn dated_rows(
    list: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Vec<DatedRow>> {
    let rows: Vec<ElementRef<'_>> = match list.value().name() {
        "table" => {
            list.select(&sel("tr")).filter(|r| r.select(&sel("td")).next().is_some()).collect()
        }
        _ => list
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| c.value().name() == "li")
            .collect(),
    };
    let mut out = Vec::new();
    for row in &rows {
        if row.select(&sel("a[href], h1, h2, h3, h4, h5, h6, table, ul, ol")).next().is_some() {
            return None;
        }
        let texts: Vec<String> = leaves(*row).collect();
        if texts.iter().any(|t| t.chars().count() > ROW_CELL_CHARS) {
            return None;
        }
        let Some((at, d)) = texts
            .iter()
            .enumerate()
            .find_map(|(i, t)| parse_text_date(&start_line(t), reference, order).map(|d| (i, d)))
        else {
            continue;
        };
        if d.end.is_some() {
            return None;
        }
        let own = match d.start {
            EventTime::Floating(t) => Some(t.time()),
            EventTime::Date(_) => texts
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != at)
                .find_map(|(_, t)| parse_text_time(&start_line(t)))
                .map(|(t, _)| t),
            EventTime::Fixed(_) => return None,
        };
        out.push((d.start.date(), own, stated_status(&text_of(*row), &texts)));
    }
    (out.len() >= MIN_ITEMS && out.len() * 5 >= rows.len() * 4).then_some(out)
}

/// Headings that name a schedule, not a show (folded): `Termine`, `Funciones`, `Dates`.
const SCHEDULE_HEADINGS: &[&str] = &[
    "dates",
    "performances",
    "showtimes",
    "schedule",
    "representations",
    "seances",
    "horaires",
    "termine",
    "vorstellungen",
    "spielplan",
    "spieltermine",
    "funciones",
    "fechas",
    "horarios",
    "seanslar",
    "tarihler",
    "oyun takvimi",
];

/// The section a list sits in and the show it names: the nearest ancestor holding a
/// heading before the list, and the last such heading that is neither a date nor a
/// schedule's name ([`SCHEDULE_HEADINGS`]).
fn section_of<'a>(
    list: ElementRef<'a>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(ElementRef<'a>, String)> {
    let headings = sel("h1, h2, h3, h4");
    for a in list.ancestors().filter_map(ElementRef::wrap).take(8) {
        let before: Vec<ElementRef<'a>> =
            a.select(&headings).filter(|h| h.id() < list.id()).collect();
        if before.is_empty() {
            continue;
        }
        let title = before.iter().rev().map(|h| text_of(*h)).find(|t| {
            let folded = fold_diacritics(t);
            !SCHEDULE_HEADINGS.contains(&folded.trim_end_matches(':').trim())
        })?;
        let ok = (3..=120).contains(&title.chars().count())
            && parse_text_date(&title, reference, order).is_none();
        return ok.then_some((a, title));
    }
    None
}

/// The one start a section states for all its dates outside the list: a clause holding a
/// word for each ([`EACH`]) and a time, its times before the start given way (`Beginn
/// jeweils 20.30 Uhr, Einlass ab 19.30 Uhr` → 20.30), and no date of its own. `None`
/// without one, or with two different ones.
fn shared_start(section: ElementRef<'_>, list: ElementRef<'_>) -> Option<NaiveTime> {
    let far = NaiveDate::from_ymd_opt(1970, 1, 1);
    let mut found = None;
    for el in section.select(&sel("p, li, div, span, strong")) {
        if el.ancestors().any(|a| a.id() == list.id()) || el.id() == list.id() {
            continue;
        }
        if el.select(&sel("p, li, div, table")).next().is_some() {
            continue;
        }
        let text = text_of(el);
        if text.chars().count() > 300 || parse_text_date(&text, far, DateOrder::default()).is_some()
        {
            continue;
        }
        let line = start_line(&text);
        for (a, b) in clauses(&line) {
            let clause = &line[a..b];
            let folded = fold_diacritics(clause);
            let each = folded.split(|c: char| !c.is_alphanumeric()).any(|w| EACH.contains(&w));
            let Some((t, _)) = parse_text_time(clause).filter(|_| each) else { continue };
            match found {
                None => found = Some(t),
                Some(f) if f != t => return None,
                _ => {}
            }
        }
    }
    found
}
