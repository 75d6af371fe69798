//! Day and month headings: the dates a list's headings give the items under them
//! (`<h3>Monday November 10</h3>`, `<h2>Abril 2026</h2>` above `Jue 9`).

use chrono::{Datelike, NaiveDate};
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use scraper::{ElementRef, Html};

use super::{leaves, sel, text_of};

/// The day headings among a parent's children (`<h3>Monday November 10</h3>` before that
/// day's items, as agendas grouped by day print them), in order: a heading that is only a
/// date, without a time, dates the items after it up to the next one.
pub(super) fn day_headings(
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
pub(super) fn month_headings(doc: &Html) -> Vec<(ElementRef<'_>, String)> {
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
pub(super) struct Context<'a> {
    pub(super) day: Option<NaiveDate>,
    pub(super) month: Option<&'a str>,
}

/// The day a short cell gives with its month heading (`Jue 9` under `Abril 2026`): the
/// cell holds a day number and at most a weekday, and the two read as one date.
pub(super) fn day_in_month(
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
        // A heading that names its list before its month (`Cartelera · marzo 2026`,
        // `Programme – mars 2026`) gives the month after its separator.
        [month, month_part(month)].into_iter().find_map(|m| {
            match parse_text_date(&format!("{t} {m}"), reference, order)? {
                gleaner_event::datetext::TextDate { start: EventTime::Date(d), end: None } => {
                    Some(d)
                }
                _ => None,
            }
        })
    })
}

/// A heading's words after its last separator (`marzo 2026` of `Cartelera · marzo 2026`);
/// the whole heading when it has none.
fn month_part(heading: &str) -> &str {
    heading
        .rfind(['·', '|', '–', '—', ':'])
        .map(|at| heading[at..].trim_start_matches(['·', '|', '–', '—', ':']).trim())
        .unwrap_or(heading)
}

/// The reference day for an item's year-less dates under a month heading that names one
/// year (`<h2>Marzo 2027</h2>` above `12 MAR vie`): that year's first day when it is
/// later than the reference, so the dates fall in the heading's year.
pub(super) fn heading_year(
    heading: Option<&str>,
    reference: Option<NaiveDate>,
) -> Option<NaiveDate> {
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
