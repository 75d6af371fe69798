//! A show-times grid: one show's performances as a table whose rows are a day (`Sat, Mar
//! 14`) and that day's times, each time its own element and often its own booking link
//! (`<a href="…&time=1100">11:00 AM</a>`), as cinemas and planetariums print them.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::{EventTime, Markup, RawEvent, RawOffer};
use scraper::{ElementRef, Html};

use super::days::{heading_year, month_headings};
use super::{MIN_ITEMS, in_chrome, is_icon, sel, text_of};

/// The performances of the first show-times grid on the page: a table outside the
/// chrome whose every body row opens with a cell that is only a day (no time) and holds
/// one or more elements that each open with a time of day; [`MIN_ITEMS`] performances
/// or more. The show is the caption's first part (`Voyage to the Ice Giants — show
/// times`), else the last heading before the table; its image and description come from
/// the block before the table headed with the show's name. A time's link is its booking
/// link. Year-less days are read in the year of the month heading above the table.
pub(super) fn showtimes(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Vec<RawEvent>> {
    let months = month_headings(doc);
    for table in doc.select(&sel("table")).take(50) {
        if in_chrome(table) {
            continue;
        }
        let month = months.iter().rev().find(|(at, _)| at.id() < table.id()).map(|(_, m)| m);
        let year = heading_year(month.map(String::as_str), reference);
        let Some(shows) = grid(table, year, order) else { continue };
        if shows.len() < MIN_ITEMS {
            continue;
        }
        let Some(title) = show_title(doc, table) else { continue };
        let block = show_block(table, &title);
        let image = block.and_then(|b| {
            b.select(&sel("img[src]"))
                .filter(|i| !is_icon(*i))
                .filter_map(|i| i.value().attr("src"))
                .map(str::trim)
                .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
                .map(str::to_owned)
        });
        let description = block.and_then(|b| {
            b.select(&sel("p"))
                .map(text_of)
                .find(|t| t.chars().count() >= 40 && t.ends_with(['.', '!', '?']) && *t != title)
        });
        let events = shows
            .into_iter()
            .filter(|(start, _)| reference.is_none_or(|day| start.date() >= day))
            .map(|(start, tickets)| {
                let mut raw = RawEvent {
                    name: Some(title.clone()),
                    start: Some(start.to_iso()),
                    markup: Markup::Text,
                    image: image.clone(),
                    description: description.clone(),
                    ..RawEvent::default()
                };
                if let Some(t) = tickets {
                    raw.offers.push(RawOffer { url: Some(t), ..RawOffer::default() });
                }
                raw
            })
            .collect::<Vec<_>>();
        if events.len() >= MIN_ITEMS {
            let mut events = events;
            events.extend(other_articles(doc, table, block, reference, order));
            return Some(events);
        }
    }
    None
}

/// A grid's performances: each body row a day cell then elements opening with a time;
/// `None` when a body row is not one.
fn grid(
    table: ElementRef<'_>,
    year: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Vec<(EventTime, Option<String>)>> {
    let rows: Vec<ElementRef<'_>> = table
        .select(&sel("tr"))
        .filter(|r| {
            !r.ancestors().any(|a| a.value().as_element().is_some_and(|e| e.name() == "thead"))
        })
        .filter(|r| r.select(&sel("td")).next().is_some())
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for row in rows {
        let cells: Vec<ElementRef<'_>> = row
            .children()
            .filter_map(ElementRef::wrap)
            .filter(|c| matches!(c.value().name(), "td" | "th"))
            .collect();
        let (first, rest) = cells.split_first()?;
        let day_text = text_of(*first);
        if day_text.chars().count() > 30
            || parse_text_time(&day_text).is_some()
            || !day_text.chars().any(|c| c.is_ascii_digit())
        {
            return None;
        }
        let d = parse_text_date(&day_text, year, order)?;
        let (EventTime::Date(day), None) = (d.start, d.end) else { return None };
        let mut times = 0;
        for cell in rest {
            // `10:00 – 17:00`: a day's opening hours, not two performances.
            if let Some((_, Some(_))) = parse_text_time(&text_of(*cell)) {
                return None;
            }
            for el in cell.children().filter_map(ElementRef::wrap) {
                let Some(at) = opening_time(el) else { continue };
                times += 1;
                let tickets = (el.value().name() == "a")
                    .then(|| el.value().attr("href"))
                    .flatten()
                    .map(str::trim)
                    .filter(|h| h.starts_with("http") || h.starts_with('/'))
                    .map(str::to_owned);
                out.push((EventTime::Floating(day.and_time(at)), tickets));
            }
        }
        if times == 0 {
            return None;
        }
    }
    Some(out)
}

/// The time an element's own first text opens with, when that text is only a time
/// (`1:00 PM`, `2:00 PM <small>(sensory-friendly)</small>`).
fn opening_time(el: ElementRef<'_>) -> Option<chrono::NaiveTime> {
    let first = el.children().find_map(|n| n.value().as_text().map(|t| collapse(t)))?;
    let first = first.trim();
    if first.is_empty()
        || first.chars().count() > 12
        || !first.starts_with(|c: char| c.is_ascii_digit())
    {
        return None;
    }
    match parse_text_time(first)? {
        (t, None) => Some(t),
        _ => None,
    }
}

/// The show a grid is of: its caption's first part before a dash (`Voyage to the Ice
/// Giants — show times`), else the last heading before the table.
fn show_title(doc: &Html, table: ElementRef<'_>) -> Option<String> {
    if let Some(caption) = table.select(&sel("caption")).next() {
        let text = text_of(caption);
        if let Some((head, _)) = text.split_once(" — ").or_else(|| text.split_once(" – ")) {
            let head = head.trim();
            if (3..=120).contains(&head.chars().count()) {
                return Some(head.to_owned());
            }
        }
    }
    doc.select(&sel("h2, h3, h4"))
        .rfind(|h| h.id() < table.id() && !in_chrome(*h))
        .map(text_of)
        .filter(|t| (3..=120).contains(&t.chars().count()))
}

/// The block before the table (among its earlier siblings) whose heading is the show's
/// name: the show's picture and blurb.
fn show_block<'a>(table: ElementRef<'a>, title: &str) -> Option<ElementRef<'a>> {
    table
        .prev_siblings()
        .filter_map(ElementRef::wrap)
        .take(5)
        .find(|s| s.select(&sel("h2, h3, h4")).any(|h| text_of(h) == title))
}

/// The page's other events beside a grid: each `<article>` outside the chrome, the grid
/// and the show's block, with one heading (its title) and one short line that gives a
/// date with a time (`Friday, March 20, 2026 · 8:00 – 10:00 PM`); its first other
/// sentence-like paragraph is its description, and it is free when a line says so.
fn other_articles(
    doc: &Html,
    table: ElementRef<'_>,
    block: Option<ElementRef<'_>>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<RawEvent> {
    let holds = |a: ElementRef<'_>, e: ElementRef<'_>| e.ancestors().any(|x| x.id() == a.id());
    let mut out = Vec::new();
    for article in doc.select(&sel("article")).take(50) {
        if in_chrome(article)
            || holds(article, table)
            || block.is_some_and(|b| b.id() == article.id() || holds(article, b))
        {
            continue;
        }
        let headings: Vec<String> = article.select(&sel("h2, h3, h4")).map(text_of).collect();
        let [title] = headings.as_slice() else { continue };
        let lines: Vec<String> = article.select(&sel("p")).map(text_of).collect();
        let dated: Vec<(usize, gleaner_event::datetext::TextDate)> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.chars().count() <= 80)
            .filter_map(|(i, l)| parse_text_date(l, reference, order).map(|d| (i, d)))
            .collect();
        let [(at, d)] = dated.as_slice() else { continue };
        if matches!(d.start, EventTime::Date(_))
            || reference.is_some_and(|day| d.start.date() < day)
            || !(3..=200).contains(&title.chars().count())
        {
            continue;
        }
        let description = lines
            .iter()
            .enumerate()
            .find(|(i, t)| i != at && t.chars().count() >= 40 && t.ends_with(['.', '!', '?']))
            .map(|(_, t)| t.clone());
        let free = lines.iter().any(|l| gleaner_event::says_free(l));
        out.push(RawEvent {
            name: Some(title.clone()),
            start: Some(d.start.to_iso()),
            end: d.end.filter(|e| *e != d.start).map(|e| e.to_iso()),
            markup: Markup::Text,
            description,
            is_accessible_for_free: free.then(|| "true".to_owned()),
            ..RawEvent::default()
        });
    }
    out
}
