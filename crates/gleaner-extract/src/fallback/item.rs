//! One listing item: its dates, then its title (heading, link, row cell, bold text or the
//! words before its date), link, place, price, image and status, a postponement's new
//! day, and the earlier days its date line lists.

use chrono::{Datelike, NaiveDate, NaiveTime};
use gleaner_event::EventTime;
use gleaner_event::Markup;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::time::parse_event_time;
use gleaner_event::{RawEvent, parse_price_text};
use scraper::ElementRef;

use super::booking::is_booking_text;
use super::cells::{LeadBold, lead_bold, lead_line};
use super::days::{Context, day_in_month, heading_year};
use super::detail::place_and_price;
use super::headings::dated_heading_title;
use super::price::{own_price, price_into};
use super::roles::{before_start_only, labelled_time, listed_times, start_line};
use super::tables::{
    cell_time, column_title, end_on, fixture_row, row_place, row_title, spanned_cells, tour_row,
};
use super::time_led::time_led_title;
use super::trailing::{AfterTitle, after_title};
use super::venue::{classed_address, classed_place};
use super::weekly::{
    only_ends_a_run, performances_by_weekday, says_no_event, time_after, weekly_times,
};
use super::words::{
    STATUS_WORDS, is_closure_line, is_generic_link_text, is_publication_line, is_registration_text,
    is_status_badge, stated_status, status_in, strip_status_tail,
};
use super::{BLOCKS, is_icon, leaves, sel, text_of, time_values};

/// One listing item read: its event and its dates.
pub(super) struct Item {
    pub(super) raw: RawEvent,
    pub(super) start: EventTime,
    pub(super) end: Option<EventTime>,
    /// Other performances its lines list: the earlier days of its date line (`Vendredi 9
    /// et samedi 10 octobre`: the 9th) at the same time of day, and the other times of
    /// its day (`11.00 ve 14.00`: 14.00).
    pub(super) others: Vec<EventTime>,
}

/// One item's event: `None` without a date (its own, or its day or month heading's with a
/// time of its own) or a title.
pub(super) fn read_item(
    item: ElementRef<'_>,
    context: Context<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Item> {
    let all = text_of(item);
    if all.is_empty()
        || all.len() > 2000
        || item.value().name() == "p"
            && is_prose(&all)
            && !opens_with_bold_date(item, reference, order)
    {
        return None;
    }
    // Dates: `<time datetime>` (one, or a start and an end), else one small text block.
    let times = time_values(item);
    let mut date_text = None;
    let mut later = Vec::new();
    // The day a moved item was first set for.
    let mut moved_from: Option<EventTime> = None;
    let (start, end) = match times.as_slice() {
        [] => {
            let blocks = sel(BLOCKS);
            let own = item
                .descendants()
                .filter_map(ElementRef::wrap)
                .filter(|el| el.select(&blocks).all(|b| b.id() == el.id()))
                .filter(|el| {
                    let t = text_of(*el);
                    !t.is_empty()
                        && t.len() <= 300
                        && !is_publication_line(&t)
                        && !is_closure_line(&t)
                        // Under a day heading, a line whose date only ends a run
                        // (`Venta de tiques hasta el 12 de agosto`) dates nothing.
                        && (context.day.is_none() || !only_ends_a_run(&t, reference, order))
                })
                .find_map(|el| {
                    // A time before the start (`Einlass 19 Uhr`) gives way to the start.
                    let line = start_line(&text_of(el)).into_owned();
                    let year = heading_year(context.month, reference);
                    parse_text_date(&line, year, order).map(|d| (line, d, el)).or_else(|| {
                        // `vendredi 1<sup>er</sup> mai`: inline markup splits no words.
                        let joined = inline_text(el);
                        (joined != text_of(el)).then(|| start_line(&joined).into_owned()).and_then(
                            |line| parse_text_date(&line, year, order).map(|d| (line, d, el)),
                        )
                    })
                });
            // A row without a date cell of its own: the date cell spanning down into it
            // (`<td rowspan="2">`, a show's two sessions).
            let own = own.or_else(|| {
                spanned_cells(item).into_iter().find_map(|(_, c)| {
                    let line = text_of(c);
                    parse_text_date(&line, heading_year(context.month, reference), order)
                        .map(|d| (line, d, c))
                })
            });
            let Some((mut text, mut d, leaf)) = own else {
                // No date of its own: its day heading's day, or a day cell read with its
                // month heading, with a time the item gives.
                let day =
                    context.day.or_else(|| day_in_month(item, context.month?, reference, order))?;
                let (t1, t2, later) = leaf_time(item, |_| true)?;
                let start = EventTime::Floating(day.and_time(t1));
                let end = t2.and_then(|t2| end_on(day, t1, t2));
                return finish_item(item, (start, end, later), None, true, reference, order);
            };
            // A struck date beside its new one, or a line naming the new date: the event
            // is at the new date.
            if let Some((new_text, new)) = super::moves::new_date(
                leaf,
                leaves(item),
                &d,
                heading_year(context.month, reference),
                order,
            ) {
                moved_from = Some(d.start);
                (text, d) = (new_text, new);
            }
            // A date box without a time (`Mar` `12`) beside a line that gives the same day
            // with its times (`When: 12 Mar 2026 7:00 PM – 9:00 PM`): that line dates it.
            if let EventTime::Date(day) = d.start
                && d.end.is_none()
                && moved_from.is_none()
                && names_only_day(&text, day)
                && let Some((line, fuller)) = timed_same_day(item, day, &text, reference, order)
            {
                (text, d) = (line, fuller);
            }
            // A date without a time: the time may sit in another cell (`<td>8:00 pm</td>`).
            let (mut start, mut end) = (d.start, d.end);
            if let EventTime::Date(day) = start
                && end.is_none()
                && let Some((t1, t2, others)) = leaf_time(item, |t| {
                    // A weekly statement's time is only for its weekdays.
                    let weekly = weekly_times(t);
                    start_line(t) != text
                        && parse_text_date(t, reference, order).is_none()
                        && (weekly.is_empty() || weekly.iter().any(|w| w.day == day.weekday()))
                })
            {
                start = EventTime::Floating(day.and_time(t1));
                end = t2.and_then(|t2| end_on(day, t1, t2));
                later = others;
            } else if matches!(start, EventTime::Floating(_)) && end.is_none() {
                // `7 Mart 11.00 ve 14.00`: the date line's other times.
                later = listed_times(&text).into_iter().skip(1).collect();
            }
            // Still no time: the date line's own bare time after the date (`5 MART
            // PERŞEMBE · 21.30`), or the next sentence's of the paragraph an inline date
            // sits in (`Am <b>1. Mai</b> … Festbetrieb ab 13 Uhr`).
            if let EventTime::Date(day) = start
                && end.is_none()
            {
                let block = enclosing_block(leaf, item).map(text_of);
                if let Some((t1, t2)) = time_after(&text, block.as_deref(), reference, order) {
                    start = EventTime::Floating(day.and_time(t1));
                    end = t2.and_then(|t2| end_on(day, t1, t2));
                }
            }
            date_text = Some(text);
            (start, end)
        }
        [one] => (*one, None),
        [a, b] if b.date() >= a.date() && (b.date() - a.date()).num_days() <= 31 => (*a, Some(*b)),
        _ => return None,
    };
    let mut found =
        finish_item(item, (start, end, later), date_text.clone(), false, reference, order)?;
    if let Some(from) = moved_from
        && matches!(found.raw.status.as_deref(), None | Some("postponed" | "rescheduled"))
    {
        found.raw.status = Some("rescheduled".to_owned());
        found.raw.previous_start = Some(from.to_iso());
    }
    // A times-by-weekday cell (`ven. 20h30 sam. 15h et 20h30 dim. 15h`) beside a run of
    // days: one performance per day and time; not for a called-off item. A postponed
    // item's new days are read from its postponement line (`REPORTÉ au samedi 11 et
    // dimanche 12 avril`).
    let moved = match found.raw.status.as_deref() {
        Some("postponed") => leaves(item).find_map(|t| {
            let to = moved_to(&t, found.start, reference, order)?;
            (to.date() > found.start.date()).then(|| after_postponed(&t)).flatten().map(|l| (to, l))
        }),
        // Already moved by its postponement line: its days are that line's.
        Some("rescheduled") => leaves(item).find_map(|t| {
            let rest = after_postponed(&t)?;
            parse_text_date(&rest, reference, order)
                .filter(|d| d.start.date() == found.start.date())
                .map(|_| (found.start, rest))
        }),
        _ => None,
    };
    if let Some(line) = &date_text
        && (found.raw.status.is_none() || moved.is_some())
    {
        let cells: Vec<String> = leaves(item).filter(|t| start_line(t) != *line).collect();
        let shows = match &moved {
            Some((to, rest)) => performances_by_weekday(&cells, rest, to.date(), None),
            None => performances_by_weekday(
                &cells,
                line,
                found.start.date(),
                found.end.map(|e| e.date()),
            ),
        };
        if let Some((first, rest)) = shows.split_first() {
            if moved.is_some() && found.raw.status.as_deref() == Some("postponed") {
                found.raw.status = Some("rescheduled".to_owned());
                found.raw.previous_start = Some(found.start.to_iso());
            }
            found.start = *first;
            found.end = None;
            found.raw.start = Some(first.to_iso());
            found.raw.end = None;
            found.others = rest.to_vec();
        }
    }
    Some(found)
}

/// A postponement line from its status word on (`REPORTÉ au samedi 11 et dimanche 12
/// avril`), folded.
fn after_postponed(line: &str) -> Option<String> {
    let folded = gleaner_event::datetext::fold_diacritics(line);
    let at = STATUS_WORDS
        .iter()
        .filter(|(_, s)| *s == "postponed")
        .filter_map(|(w, _)| folded.find(w))
        .min()?;
    folded.get(at..).map(str::to_owned)
}

/// The block an inline leaf (`<strong>1. Mai</strong>`) sits in, inside `item`: its
/// nearest ancestor that is a block; `None` for a leaf that is a block itself.
fn enclosing_block<'a>(leaf: ElementRef<'a>, item: ElementRef<'a>) -> Option<ElementRef<'a>> {
    let blocks = sel(BLOCKS);
    if blocks.matches(&leaf) {
        return None;
    }
    leaf.ancestors().filter_map(ElementRef::wrap).find(|a| a.id() == item.id() || blocks.matches(a))
}

/// The time of day an item's leaves give (the first leaf, among those `keep` passes,
/// that gives one: a time or range, or a cell of only a time, `21.30`), its times before
/// the start given way (`Embarque 20.00 h · Salida 20.30 h`), with the other times that
/// leaf lists (`11.00 ve 14.00`). A leaf whose every time comes before the start
/// (`Einlass 19 Uhr`) is read only when no later leaf gives a time.
fn leaf_time(
    item: ElementRef<'_>,
    keep: impl Fn(&str) -> bool,
) -> Option<(NaiveTime, Option<NaiveTime>, Vec<NaiveTime>)> {
    let mut before = None;
    let mut in_prose = None;
    for t in time_leaves(item).filter(|t| keep(t)) {
        let line = start_line(&t);
        let listed = listed_times(&line);
        let found = match listed.split_first() {
            Some((first, rest)) => Some((*first, None, rest.to_vec())),
            None => parse_text_time(&line)
                .or_else(|| cell_time(&line))
                .or_else(|| labelled_time(&line).map(|t| (t, None)))
                .map(|(t1, t2)| (t1, t2, Vec::new())),
        };
        match found {
            Some(f) if before_start_only(&line) => {
                before.get_or_insert(f);
            }
            // A time inside a sentence (`informal performance at 4.15pm for friends`)
            // gives way to a later cell of only a time (`10am – 5pm`).
            Some(f) if is_sentence(&line) => {
                in_prose.get_or_insert(f);
            }
            Some(f) => return Some(f),
            None => {}
        }
    }
    in_prose.or(before)
}

/// Whether every number a date line writes is `day`'s day, month or year (`Mar 12`, `12
/// Mar 2026`): a badge of that one day, no range (`1 – 15 Nisan`, `Del 2 de abril al 29
/// de mayo`), whose other lines may time a part of it (an opening).
fn names_only_day(line: &str, day: NaiveDate) -> bool {
    line.split(|c: char| !c.is_ascii_digit()).filter(|n| !n.is_empty()).all(|n| {
        n.parse::<i64>().is_ok_and(|n| {
            n == i64::from(day.day()) || n == i64::from(day.month()) || n == i64::from(day.year())
        })
    })
}

/// The item's next date line after `date_line` when it gives `day` with a time of day (a
/// box's `When: 12 Mar 2026 7:00 PM – 9:00 PM` beside its date badge `Mar 12`), its times
/// before the start given way; `None` when that line gives another day or a range of
/// days (`1 – 15 Nisan 2026`), or no line does.
fn timed_same_day(
    item: ElementRef<'_>,
    day: NaiveDate,
    date_line: &str,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(String, gleaner_event::datetext::TextDate)> {
    let (line, d) = leaves(item).filter(|t| t != date_line).find_map(|t| {
        let line = start_line(&t).into_owned();
        parse_text_date(&line, reference.map(|r| r.min(day)), order).map(|d| (line, d))
    })?;
    (matches!(d.start, EventTime::Floating(at) if at.date() == day)).then_some((line, d))
}

/// The texts of an item's smallest blocks, as [`leaves`] gives them, and of a block too
/// long for a leaf its opening sentence (`Beginn 13.00 Uhr, im Vereinsraum. Gespielt
/// wird …`): a paragraph of an event's text opens with its time.
fn time_leaves(item: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(super::BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| el.select(&blocks).all(|b| b.id() == el.id()))
        .map(text_of)
        .filter_map(|t| match t.len() {
            0 => None,
            1..=LEAF_LEN => Some(t),
            _ => opening_sentence(&t).map(str::to_owned),
        })
}

/// The longest text [`leaves`] keeps whole.
const LEAF_LEN: usize = 300;

/// A long text's first sentence: up to the first `.`, `!` or `?` after a letter or a
/// bracket and before a space (`14. März` and `13.00` end none); `None` when no sentence
/// ends within [`LEAF_LEN`] bytes.
fn opening_sentence(text: &str) -> Option<&str> {
    let mut prev = ' ';
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if i > LEAF_LEN {
            return None;
        }
        let next_space = chars.peek().is_some_and(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?') && next_space && (prev.is_alphabetic() || prev == ')') {
            return Some(&text[..=i]);
        }
        prev = c;
    }
    None
}

/// Most words a line of only a time and its label has (`Beginn 20 Uhr`, `10am – 5pm`,
/// `Seans saatleri: 11.00 ve 14.00`).
const TIME_LINE_WORDS: usize = 6;

/// Whether a line that gives a time is running text rather than a time cell: more than
/// [`TIME_LINE_WORDS`] words of letters.
fn is_sentence(line: &str) -> bool {
    line.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2).count()
        > TIME_LINE_WORDS
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
    (moved.date() >= start.date()).then_some(moved)
}

/// An item's title set in bold (`<b>Club de lectura</b><br>Sala 2.`, as newsletters set
/// it under a date line): the first `<b>`/`<strong>` of two words or more that is usable
/// and no price or time, and not a label (`<b>Inscripciones abiertas</b>: talleres…`).
fn bold_title<'a>(
    item: ElementRef<'a>,
    usable: &dyn Fn(&str) -> bool,
) -> Option<(String, ElementRef<'a>)> {
    // A struck-out title beside a status word (`<del>Fiesta de la espuma</del>
    // <strong>SUSPENDIDA</strong>`) is the event's title too.
    let struck = status_in(&text_of(item)).is_some();
    let titles = if struck { "b, strong, del, s" } else { "b, strong" };
    item.select(&sel(titles)).find_map(|b| {
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
        ok.then_some((t, b))
    })
}

/// Whether a text names months and nothing else (`Mars`, `Mai – juin`, `April 2026`): a
/// section's heading over its items, never one item's title.
fn names_months_only(text: &str) -> bool {
    let words: Vec<&str> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().any(|w| gleaner_event::datetext::is_month_name(w))
        && words.iter().all(|w| {
            gleaner_event::datetext::is_month_name(w)
                || (w.len() == 4 && w.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// Whether a paragraph is prose, not a listing's item: twelve words or more, and a
/// sentence's end (`Fermeture estivale du lundi 3 au samedi 22 août 2026 inclus. Fermé…`).
/// Such paragraphs repeat on any page (opening hours, fares, access) and their dates are
/// rarely events'.
fn is_prose(text: &str) -> bool {
    let t = text.trim();
    t.split_whitespace().count() >= 12 && (t.ends_with('.') || t.contains(". "))
}

/// Whether a paragraph opens with a bold line that gives a date, a line break after it
/// (`<p><strong>Mercredi 18 mars, 19 h 30 – Conférence</strong><br>avec …</p>`): an
/// event's head line over its text, as newsletters and programmes set one event per
/// paragraph, however long its text runs.
fn opens_with_bold_date(p: ElementRef<'_>, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    let mut children = p
        .children()
        .filter(|c| c.value().as_text().is_none_or(|t| !t.trim().is_empty()))
        .take(HEAD_LINE_PARTS + 1);
    let Some(bold) = children.next().and_then(ElementRef::wrap) else { return false };
    matches!(bold.value().name(), "b" | "strong")
        && children.any(|c| c.value().as_element().is_some_and(|e| e.name() == "br"))
        && parse_text_date(&text_of(bold), reference, order).is_some()
}

/// How many parts (a badge, a link) may follow a paragraph's bold head line before the
/// line break that [`opens_with_bold_date`] looks for.
const HEAD_LINE_PARTS: usize = 3;

/// Whether a linked heading that holds a date names its event all the same (`23 Nisan
/// Ulusal Egemenlik ve Çocuk Bayramı Şenliği`, a day's name, beside the item's date box
/// `23 Nisan 2026`): the item's date was read from another of its lines, and the heading
/// has words of its own beside its date (two or more).
fn names_a_dated_day(
    title: &str,
    heading: ElementRef<'_>,
    date_text: Option<&str>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> bool {
    let linked = heading.select(&sel("a[href]")).next().is_some()
        || heading.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "a");
    let Some(date_text) = date_text else { return false };
    linked
        && !date_text.contains(title)
        && start_line(&text_of(heading)) != date_text
        && (3..=300).contains(&title.chars().count())
        && !is_status_badge(title)
        && parse_text_date(title, reference, order).is_some()
        && title
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| {
                w.chars().filter(|c| c.is_alphabetic()).count() >= 2
                    && !gleaner_event::datetext::is_month_name(w)
                    && !gleaner_event::datetext::is_weekday(w)
            })
            .count()
            >= 2
}

/// An item's event once its dates are read: its title, link, place, price and image.
/// `by_heading`: the item gives only a time, its day is its heading's.
fn finish_item(
    item: ElementRef<'_>,
    (start, end, later): (EventTime, Option<EventTime>, Vec<NaiveTime>),
    date_text: Option<String>,
    by_heading: bool,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Item> {
    let all = text_of(item);
    // `No recital this week – the Nave is closed`, `19 Mart Perşembe kapalıyız`: the
    // item's day is none of an event's.
    if says_no_event(
        leaves(item).collect::<Vec<_>>().iter().map(String::as_str),
        start.date(),
        reference,
        order,
    ) {
        return None;
    }
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
            && !names_months_only(t)
            // A day without its month (`JUE 05`) dates its line; it names nothing.
            && !super::br_lines::is_day_cell(t)
    };
    let link_of = link_target;
    let heading = item
        .select(&sel("h1, h2, h3, h4, h5, h6"))
        .map(|h| (title_text(h), h))
        .find(|(t, h)| {
            usable(t) || names_a_dated_day(t, *h, date_text.as_deref(), reference, order)
        })
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
            status: stated_status(&all, &own_texts(item)).map(str::to_owned),
            ..RawEvent::default()
        };
        if let Some(p) = tour.price {
            price_into(&p, &mut raw);
        }
        if let Some(t) = tour.tickets {
            raw.set_ticket_url(t);
        }
        return Some(Item { raw, start, end, others: Vec::new() });
    }
    // A row's title cell that opens with its title in bold: its later lines are the
    // event's blurb and place.
    let mut title_cell = None;
    // A programme line's place sentence and blurb after its bold title.
    let mut after = None;
    // A heading without a link that holds the item's date beside its title (`Autumn
    // working bee – Saturday 14 March`): its words outside the date, before any link or
    // bold text. A linked heading names its event, a date in it too (`23 Nisan Halk
    // Oyunları Gösterisi`).
    let heading = heading.or_else(|| {
        item.select(&sel("h1, h2, h3, h4, h5, h6"))
            .find(|h| date_text.as_deref().is_some_and(|d| start_line(&text_of(*h)) == d))
            .filter(|h| {
                h.select(&sel("a[href]")).next().is_none()
                    && !h.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "a")
            })
            .and_then(|h| {
                // Inline markup splits no words (`28<sup>e</sup> Derby`).
                let text = match title_text(h) {
                    t if t == text_of(h) => collapse(&h.text().collect::<String>()),
                    t => t,
                };
                Some((dated_heading_title(&text, reference, order)?, None))
            })
    });
    // A paragraph's bold head line that dates it (`<strong>Samedi 23 mai, de 8 h à midi –
    // Grande vente de plantes</strong><br>…`): its words beside the date, as a heading's.
    let heading = heading.or_else(|| {
        let bold = item.children().filter_map(ElementRef::wrap).next()?;
        (item.value().name() == "p" && opens_with_bold_date(item, reference, order))
            .then(|| dated_heading_title(&text_of(bold), reference, order))
            .flatten()
            .filter(|t| usable(t))
            .map(|t| (t, None))
    });
    let (title, url) = match heading {
        Some(h) => h,
        // A league's fixture row: its home side against its away side.
        None if let Some(t) = super::tables::match_title(item) => (t, None),
        None => {
            // A table's title column titles its row before a link in another cell.
            let column = column_title(item, &usable);
            let link = item
                .select(&sel("a[href]"))
                .filter(|a| {
                    column.as_ref().is_none_or(|(_, c)| a.ancestors().any(|n| n.id() == c.id()))
                })
                .map(|a| (title_text(a), a))
                // A registration link (`Inscripción`) names no event.
                .find(|(t, _)| usable(t) && !is_registration_text(t));
            // A fixtures table's row: the team against the row's opponent.
            let fixture = match (&column, &link) {
                (None, None) => fixture_row(item),
                _ => None,
            };
            match link {
                Some((t, a)) => (t, link_of(a)),
                None if fixture.is_some() => {
                    let f = fixture.expect("a fixture");
                    title_cell =
                        Some(LeadBold { title: f.title.clone(), blurb: f.promotion, place: None });
                    (f.title, None)
                }
                None => match column.or_else(|| row_title(item, &usable)) {
                    Some((t, cell)) => {
                        title_cell = lead_bold(cell).or_else(|| lead_line(cell));
                        (t, cell.select(&sel("a[href]")).find_map(link_of))
                    }
                    // A programme line dated by its day heading that names its act in
                    // bold after its time, maybe after a label (`14.00 — Mini konser:
                    // <b>Kervan Akustik</b>`).
                    None if by_heading
                        && let Some((t, Some(b))) =
                            time_led_title(item).filter(|(t, _)| usable(t)) =>
                    {
                        after = after_title(item, b);
                        (t, None)
                    }
                    // A dotted line's part after its day and time (`JUE 05 · 21 hrs ·
                    // Son jarocho con <b>Los Tres Cedros</b> · cover $80`).
                    // Where it is the bold title, the bold's place and blurb are read below.
                    None if let Some(t) = super::dotted::dotted_title(item, reference, order)
                        .filter(|t| {
                            usable(t) && bold_title(item, &usable).is_none_or(|(b, _)| b != *t)
                        }) =>
                    {
                        (t, None)
                    }
                    None => match bold_title(item, &usable) {
                        Some((t, b)) => {
                            after = after_title(item, b);
                            (t, None)
                        }
                        // A programme line dated by its day heading, led by its time
                        // (`17.00 – Ağa karşılama töreni`): the name after the time.
                        None if by_heading
                            && let Some((t, b)) =
                                time_led_title(item).filter(|(t, _)| usable(t)) =>
                        {
                            after = b.and_then(|b| after_title(item, b));
                            (t, None)
                        }
                        None => (text_before_date(date_text.as_deref()?, reference, order)?, None),
                    },
                },
            }
        }
    };
    // No link on the title: the item's link to more about it ("Match info", "Mehr"); a
    // bare `Register` to a page of the same site is that too.
    let url = url.or_else(|| {
        item.select(&sel("a[href]"))
            .filter(|a| {
                let t = text_of(*a);
                let same_site = a.value().attr("href").is_some_and(|h| {
                    let h = h.trim_start();
                    !h.contains("//") && !h.contains(':')
                });
                is_generic_link_text(&t)
                    && (!is_booking_text(&t) || (same_site && super::booking::registers_only(&t)))
            })
            .find_map(link_of)
    });
    let status = stated_status(&all, &own_texts(item));
    // The item's booking link (`Comprar`, `Bilet al`): not an anchor on its own page.
    let page_of = |h: &str| h.split('#').next().unwrap_or_default().to_owned();
    // A row's cells spanning down into it from the row above are its own too.
    let spanned: Vec<ElementRef<'_>> = spanned_cells(item).into_iter().map(|(_, c)| c).collect();
    let tickets = std::iter::once(item)
        .chain(spanned.iter().copied())
        .flat_map(|el| el.select(&sel("a[href]")).collect::<Vec<_>>())
        .filter(|a| is_booking_text(&text_of(*a)))
        .find_map(link_of)
        .filter(|h| url.as_deref().map(page_of) != Some(page_of(h)));
    let mut raw = RawEvent {
        name: Some(strip_status_tail(&title)),
        url,
        start: Some(start.to_iso()),
        end: end.filter(|e| *e != start).map(|e| e.to_iso()),
        markup: Markup::Text,
        ..RawEvent::default()
    };
    place_and_price(item, &mut raw);
    if raw.location_text.is_none()
        && raw.address_text.is_none()
        && let Some((name, address)) = classed_address(item)
    {
        raw.location_name = Some(name);
        raw.address_text = address;
    }
    if raw.location_name.is_none() && raw.location_text.is_none() && raw.address_text.is_none() {
        raw.location_text = classed_place(item, reference, order)
            .or_else(|| row_place(item))
            .or_else(|| title_cell.as_mut().and_then(|c| c.place.take()))
            .or_else(|| after.as_mut().and_then(|a: &mut AfterTitle| a.place.take()));
    }
    // A table's town column (`Localidad`) says the town the row's event is in.
    if raw.locality.is_none() {
        raw.locality = super::tables::row_town(item);
    }
    // A place its time line or a sentence writes (`7 PM · Blue Heron Coffee, 9 Front St`).
    if raw.location_name.is_none()
        && raw.location_text.is_none()
        && raw.address_text.is_none()
        && let Some((name, address)) = super::place_line::written_place(item)
    {
        raw.location_name = Some(name);
        raw.address_text = Some(address);
    }
    raw.description = classed_summary(item)
        .or_else(|| raw.description.take())
        .or_else(|| title_cell.as_mut().and_then(|c| c.blurb.take()))
        .or_else(|| after.as_mut().and_then(|a| a.blurb.take()))
        .or_else(|| sentence_paragraph(item, &title, reference, order));
    if raw.offers.is_empty()
        && raw.is_accessible_for_free.is_none()
        && let Some(p) = own_price(item).or_else(|| spanned.iter().find_map(|c| own_price(*c)))
    {
        price_into(&p, &mut raw);
    }
    if let Some(t) = tickets {
        raw.set_ticket_url(t);
    }
    // A lazy-loaded image's `data-src` is the picture itself; its `src` a placeholder or
    // a resized copy (`…/requiem-faure.jpg?format=500w`).
    raw.image = item_image(item);
    raw.status = status.map(str::to_owned);
    // `APLAZADO al sábado 21 de marzo, a la misma hora`: postponed to a stated day is
    // rescheduled, and that day is the start (at the old time unless it gives one). When
    // that day is the item's own (`reporté au samedi 27 mars 2027` in an item dated the
    // 27th), the list already shows the new day.
    let (mut start, mut end) = (start, end);
    if status == Some("postponed")
        && let Some(moved) = leaves(item).find_map(|t| moved_to(&t, start, reference, order))
    {
        raw.status = Some("rescheduled".to_owned());
        if moved.date() > start.date() {
            raw.previous_start = Some(start.to_iso());
            raw.start = Some(moved.to_iso());
            raw.end = None;
            (start, end) = (moved, None);
        }
    }
    let mut others = match (&date_text, end) {
        (Some(text), None) => earlier_days(text, start, reference, order),
        _ => Vec::new(),
    };
    // A date line that lists days each with its month (`Fridays 20 March, 17 April, 15
    // May and 19 June`): its other days, at the start's time of day. Not a moved or
    // called-off item's (`<del>16</del> 30 Mayıs`: the struck day is no other day).
    if others.is_empty()
        && end.is_none()
        && raw.status.is_none()
        && let Some(text) = &date_text
    {
        let days = super::prose::listed_days(text, reference.unwrap_or(start.date()), order);
        if days.contains(&start.date()) {
            others.extend(days.into_iter().filter(|d| *d != start.date()).map(|d| match start {
                EventTime::Floating(at) => EventTime::Floating(d.and_time(at.time())),
                _ => EventTime::Date(d),
            }));
        }
    }
    if let EventTime::Floating(at) = start {
        others.extend(
            later
                .iter()
                .map(|t| EventTime::Floating(at.date().and_time(*t)))
                .filter(|t| *t != start),
        );
    }
    Some(Item { raw, start, end, others })
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

/// An element's text with its inline parts' texts joined as written (`1<sup>er</sup>` →
/// `1er`), white space collapsed.
fn inline_text(el: ElementRef<'_>) -> String {
    collapse(&el.text().collect::<String>())
}

/// An element's text without the status badges inside it (`Kingsmere Town v Daventry
/// United <span>POSTPONED</span>` → `Kingsmere Town v Daventry United`).
pub(super) fn title_text(el: ElementRef<'_>) -> String {
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
    collapse(&super::joined_texts(text))
}

/// The texts of an item's smallest blocks (those holding no block), whatever their
/// length.
fn own_texts(item: ElementRef<'_>) -> Vec<String> {
    let blocks = sel(BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|el| el.select(&blocks).all(|b| b.id() == el.id()))
        .map(text_of)
        .filter(|t| !t.is_empty())
        .collect()
}

/// Words that label a date line (lower-case): `Tarih: 3 Mart`, `Datum: 12.04.`, `Fecha:`.
const DATE_LABELS: &[&str] = &[
    "when", "day", "quand", "jour", "wann", "datum", "termin", "fecha", "fechas", "cuando",
    "cuándo", "día", "tarih", "tarihi", "gün", "zaman",
];

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
            // A date's label (`Tarih:`, `Datum:`, `Fecha:`, `When:`) names nothing.
            || DATE_LABELS.contains(&w.as_str())
            // A weekday before the day number is the date's (`… – Saturday 14 March`).
            || gleaner_event::datetext::is_weekday(&w)
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

/// Fewest words of an item's paragraph read as its description.
const SENTENCE_WORDS: usize = 6;

/// An item's description when its markup names none: its first own paragraph (`<p>`
/// holding no block) that reads as running text ([`is_running_text`], six words or
/// more) and is neither its title nor a date line (a card's `<h2>` title, `<p
/// class="tarih">`, then `<p>Yazar, ilk romanının …</p>`).
fn sentence_paragraph(
    item: ElementRef<'_>,
    title: &str,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<String> {
    let blocks = sel(BLOCKS);
    // A paragraph, and when it breaks lines, each of its lines: `<p><strong>Freitag, 6.
    // März, ab 19 Uhr</strong><br>Wienerlied und Tanzl …</p>` holds its date on the first.
    let texts = |p: ElementRef<'_>| {
        let mut lines = vec![String::new()];
        for node in p.descendants() {
            if let Some(t) = node.value().as_text() {
                lines.last_mut().expect("one line at least").push_str(t);
            } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
                lines.push(String::new());
            }
        }
        let whole = collapse(&lines.concat());
        // A line that opens with a short sentence is practical (`Salón de actos. Entrada:
        // 4 €`, `Sala 2. Entrada libre`), not the event's prose.
        let prose = |l: &String| {
            l.split(". ").next().is_some_and(|first| first.split_whitespace().count() >= 4)
        };
        let parts = if lines.len() > 1 {
            lines.iter().map(|l| collapse(l)).filter(prose).collect()
        } else {
            vec![]
        };
        std::iter::once(whole).chain(parts)
    };
    item.select(&sel("p"))
        .filter(|p| p.select(&blocks).all(|b| b.id() == p.id()))
        .flat_map(texts)
        .find(|t| {
            is_running_text(t, SENTENCE_WORDS)
                && !t.contains(title)
                && parse_text_date(t, reference, order).is_none()
        })
}

/// Whether a line opens with a label of one to three words and a colon (`Nouvelle date :
/// …`, `Tarifs : 15 euros`), not a time (`20:30`).
fn opens_with_label(t: &str) -> bool {
    t.split_once(':').is_some_and(|(head, _)| {
        let words = head.split_whitespace().count();
        (1..=3).contains(&words) && !head.trim_end().ends_with(|c: char| c.is_ascii_digit())
    })
}

/// Class words that name an item's summary block (`eventlist-excerpt`,
/// `event-description`, `views-field-summary`).
const SUMMARY_CLASSES: [&str; 4] = ["excerpt", "description", "summary", "teaser"];

/// An item's description when its markup names the block (a class ending in `excerpt`,
/// `description`, `summary` or `teaser`): its first paragraph that reads as running text
/// ([`is_running_text`]).
fn classed_summary(item: ElementRef<'_>) -> Option<String> {
    let block = item.descendants().filter_map(ElementRef::wrap).find(|el| {
        el.value().classes().any(|c| {
            let c = c.to_ascii_lowercase();
            SUMMARY_CLASSES.iter().any(|w| c.ends_with(w))
        })
    })?;
    let paragraphs: Vec<ElementRef<'_>> = match block.select(&sel("p")).next() {
        Some(_) => block.select(&sel("p")).collect(),
        None => vec![block],
    };
    // Inline markup splits no words: its text is joined as written (`aquí</a>.`).
    let text = |p: ElementRef<'_>| collapse(&p.text().collect::<String>());
    paragraphs.into_iter().map(text).find(|t| is_running_text(t, 0))
}

/// Whether a paragraph reads as running text, a description's: 30 to 1000 characters,
/// `min_words` words or more, ending like a sentence, and not opening with a label
/// (`Nouvelle date : …`, `Tarifs : 15 euros`).
fn is_running_text(t: &str, min_words: usize) -> bool {
    (30..=1000).contains(&t.chars().count())
        && t.split_whitespace().count() >= min_words
        && t.trim_end().ends_with(['.', '!', '?', '…'])
        && !opens_with_label(t)
}

/// An item's picture: its first image that is no icon or logo, a lazy-loaded image's
/// `data-src` before its `src` (a placeholder or a resized copy,
/// `…/requiem-faure.jpg?format=500w`); no `data:` URL, no SVG.
pub(crate) fn item_image(item: ElementRef<'_>) -> Option<String> {
    item.select(&sel("img[src]"))
        .filter(|i| !is_icon(*i))
        .filter_map(|i| {
            let lazy = i.value().attr("data-src").map(str::trim);
            lazy.filter(|s| s.starts_with("https://") || s.starts_with("http://"))
                .or_else(|| i.value().attr("src"))
        })
        .map(str::trim)
        .find(|s| !s.is_empty() && !s.starts_with("data:") && !s.ends_with(".svg"))
        .map(str::to_owned)
}

/// An item's description: its summary block's running text when the markup names one,
/// else its first own paragraph that reads as running text and is neither its `title`
/// nor a date line.
pub(crate) fn item_description(item: ElementRef<'_>, title: &str) -> Option<String> {
    classed_summary(item).or_else(|| sentence_paragraph(item, title, None, DateOrder::default()))
}

/// A link's target when it leads to a page: not empty, not a fragment of this one, not
/// a script, mail or phone link.
pub(super) fn link_target(a: ElementRef<'_>) -> Option<String> {
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
}

#[cfg(test)]
mod tests {
    use super::{names_months_only, text_before_date};
    use chrono::NaiveDate;
    use gleaner_event::datetext::DateOrder;

    #[test]
    fn a_date_line_that_lists_days_with_their_months() {
        // Issue 24, pages 212 and 220: one item, several days at one time.
        let read = |lines: &str| {
            let html =
                format!("<section class=\"e\"><h2>Fish &amp; Chip Special</h2>{lines}</section>");
            let doc = scraper::Html::parse_fragment(&html);
            let item = doc.select(&super::sel("section.e")).next().expect("an item");
            let context = super::Context { day: None, month: None };
            let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
            super::read_item(item, context, day, Default::default()).map(|i| {
                let mut all: Vec<String> = i.others.iter().map(|t| t.to_iso()).collect();
                all.insert(0, i.start.to_iso());
                all
            })
        };
        assert_eq!(
            read("<p>Fridays 20 March, 17 April, 15 May and 19 June</p><p>Depart 7pm.</p>"),
            Some(vec![
                "2026-03-20T19:00:00".to_owned(),
                "2026-04-17T19:00:00".to_owned(),
                "2026-05-15T19:00:00".to_owned(),
                "2026-06-19T19:00:00".to_owned(),
            ])
        );
        // A moved item's struck day is no other day.
        assert_eq!(
            read("<p><del>16</del> 30 Mayıs 2026 Cumartesi ERTELENDİ</p><p>Saat 20.00</p>"),
            Some(vec!["2026-05-30T20:00:00".to_owned()])
        );
    }

    #[test]
    fn a_paragraph_headed_by_its_bold_date_line() {
        // Issue 24, page 357: one event per paragraph, its bold head line dating and
        // titling it over a text long enough to read as prose.
        let read = |p: &str| {
            let doc = scraper::Html::parse_fragment(p);
            let item = doc.select(&super::sel("p")).next().expect("a paragraph");
            let context = super::Context { day: None, month: None };
            let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
            super::read_item(item, context, day, Default::default())
                .map(|i| (i.raw.name.unwrap_or_default(), i.start.to_iso()))
        };
        let text = "with our county recorder, who will show how to tell the common moths apart \
            and bring a trap to open on the lawn.";
        assert_eq!(
            read(&format!(
                "<p><strong>Friday 20 March, 7.30pm – Moths of the parish</strong><br>{text}</p>"
            )),
            Some(("Moths of the parish".to_owned(), "2026-03-20T19:30:00".to_owned()))
        );
        // Prose that only mentions a date in bold is no event.
        assert_eq!(
            read(&format!(
                "<p>Our recorder, <strong>who joined on 20 March</strong>, will show how to \
                 tell the moths apart.<br>{text}</p>"
            )),
            None
        );
    }

    #[test]
    fn a_date_badge_beside_its_timed_line() {
        // Issue 24, page 353: a card's date badge (`Mar` `12`) gives the day only; the
        // card's own line gives it with its times, and the end's time is no start.
        let read = |body: &str| {
            let html = format!(
                "<div class=\"card\"><div class=\"badge\"><span>Mar</span> <span>12</span></div>\
                 <h4><a href=\"/e/1\">Fossil evening</a></h4>{body}</div>"
            );
            let doc = scraper::Html::parse_fragment(&html);
            let item = doc.select(&super::sel("div.card")).next().expect("an item");
            let context = super::Context { day: None, month: None };
            let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
            super::read_item(item, context, day, Default::default())
                .map(|i| (i.start.to_iso(), i.end.map(|e| e.to_iso())))
        };
        assert_eq!(
            read(
                "<ul><li><label>When:</label><div><span>12 Mar 2026 7:00 PM</span> – <span>9:00 PM</span></div></li></ul>"
            ),
            Some(("2026-03-12T19:00:00".to_owned(), Some("2026-03-12T21:00:00".to_owned())))
        );
        // A range of days after the badge: an opening's time is no start of the run.
        assert_eq!(
            read("<ul><li>12 – 29 March 2026</li></ul><p>Opening drinks on 12 March at 5pm.</p>"),
            read("<ul><li>12 – 29 March 2026</li></ul><p>Opening drinks on the first day.</p>")
        );
    }

    #[test]
    fn a_long_paragraph_opens_with_its_time() {
        // Issue 24, page 365: the time opens a paragraph too long to be read whole.
        let read = |text: &str| {
            let html = format!(
                "<section class=\"e\"><h3>Saturday 14 March – Chess open</h3><p>{text}</p></section>"
            );
            let doc = scraper::Html::parse_fragment(&html);
            let item = doc.select(&super::sel("section.e")).next().expect("an item");
            let context = super::Context { day: None, month: None };
            let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
            super::read_item(item, context, day, Default::default()).map(|i| i.start.to_iso())
        };
        let long = "Seven rounds of rapid play in the upstairs room, with boards and clocks provided \
            by the club, prizes for the best junior, the best veteran and the best newcomer, tea \
            and cake at the half-way break and a short talk on the openings of the year by our \
            county champion before the last round.";
        let table: &[(String, &str)] = &[
            (format!("Round one at 10.30am. {long}"), "2026-03-14T10:30:00"),
            // A time past the opening sentence of a long text is not read.
            (format!("{long} Last year the prizes were given at 6pm."), "2026-03-14"),
            // A short text is read whole, as before.
            ("Upstairs. Round one at 10.30am.".to_owned(), "2026-03-14T10:30:00"),
        ];
        for (text, want) in table {
            assert_eq!(read(text).as_deref(), Some(*want), "{text}");
        }
    }

    #[test]
    fn a_date_whose_ordinal_is_set_in_superscript() {
        // Issue 24, pages 152 and 197: `1<sup>er</sup> mai`.
        let doc = scraper::Html::parse_fragment(
            "<div class=\"e\"><div class=\"d\"><span>vendredi</span> <span>1<sup>er</sup></span> \
             <span>mai 2026</span></div><h3><a href=\"/a/1\">Vide-greniers du comité</a></h3></div>",
        );
        let item = doc.select(&super::sel("div.e")).next().expect("an item");
        let context = super::Context { day: None, month: None };
        let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
        let read = super::read_item(item, context, day, Default::default()).expect("an event");
        assert_eq!(read.raw.start.as_deref(), Some("2026-05-01"));
    }

    #[test]
    fn a_linked_heading_that_names_a_dated_day() {
        // Issue 24, pages 306 and 128: a national day's festival titled by its date,
        // beside the item's date box.
        let title = |heading: &str| {
            let html = format!(
                "<div class=\"e\"><div class=\"tarih\"><span>23</span> <span>Nisan 2026</span> \
                 <span>Perşembe</span></div><h4>{heading}</h4><p>Saat 11.00</p></div>"
            );
            let doc = scraper::Html::parse_fragment(&html);
            let item = doc.select(&super::sel("div.e")).next().expect("an item");
            let context = super::Context { day: None, month: None };
            let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
            super::read_item(item, context, day, Default::default())
                .and_then(|i| i.raw.name.clone().zip(i.raw.start.clone()))
        };
        let festival = "23 Nisan Ulusal Egemenlik ve Çocuk Bayramı Şenliği";
        assert_eq!(
            title(&format!("<a href=\"/e/23-nisan\">{festival}</a>")),
            Some((festival.to_owned(), "2026-04-23T11:00:00".to_owned()))
        );
        // Unlinked, or only a date: no title.
        assert_eq!(title(festival), None);
        assert_eq!(title("<a href=\"/e/x\">23 Nisan Perşembe</a>"), None);
    }

    #[test]
    fn a_date_label_is_no_title() {
        // Issue 24, page 326: `<li><strong>Tarih:</strong> 3 Mart 2026</li>` lines.
        let r = NaiveDate::from_ymd_opt(2031, 1, 10);
        let o = DateOrder::DayFirst;
        assert_eq!(text_before_date("Tarih: 3 Mart 2031, Pazartesi", r, o), None);
        assert_eq!(text_before_date("Datum: 12. April 2031", r, o), None);
        assert_eq!(text_before_date("When: Saturday 12 April 2031", r, o), None);
        assert_eq!(
            text_before_date("Frühlingsfest: 12. April 2031", r, o).as_deref(),
            Some("Frühlingsfest")
        );
    }

    #[test]
    fn month_headings_are_no_titles() {
        // Issue 24, page 234: a post's month sections (`Mars`, `Mai – juin`).
        for (text, months) in [
            ("Mars", true),
            ("Mai – juin", true),
            ("April 2026", true),
            ("Mayıs", true),
            ("Fête de mai", false),
            ("Mars Attacks", false),
            ("2026", false),
        ] {
            assert_eq!(names_months_only(text), months, "{text}");
        }
    }
}
