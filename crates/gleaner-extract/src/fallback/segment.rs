//! A record segmenter with abstention (issue 24, batches 170–209): among sibling
//! subtrees that repeat one structure (the same tag and first class, [`MIN_ITEMS`] or
//! more), each holding its own date, each record is given roles — its title (its
//! heading less a date it opens with, else its main link, else its bold lead), its
//! start (its date and the nearest time of day), its link, picture, teaser, status, and
//! the place and price it labels — and one event is given per record, only when the
//! roles agree: every record (but one called off and left untitled) has a title and a
//! date, the titles are distinct, and the records fall on two days or more. A record
//! that is a note (`No recital this week – the Nave is closed`, `Inscriptions jusqu'au
//! 12 mars`, `Kein Konzert`) is no event.
//!
//! It reads what the listing reader leaves: cards whose date is split over blocks
//! (`<div>Mar</div><div>12</div>`), headed sections whose heading opens with their date
//! (`<h3>Jeudi 5 mars – Descente aux flambeaux</h3><p>À 18h30…</p>`), columns headed by
//! their date and time and titled by their bold lead (`<h3>Domingo 8 de marzo · 5:00
//! p.m.</h3><p><strong>Domingo familiar:</strong> …</p>`). A record the listing's own item
//! reader reads on the same day (given that day) is taken as it reads it.
//!
//! Linear time: each node is read once for each repeated group that holds it (the groups
//! of one page nest a bounded number of levels), and at most [`BUDGET`] nodes in all.

use chrono::{NaiveDate, NaiveTime, Timelike};
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, fold_diacritics, parse_text_date, parse_text_time};
use gleaner_event::time::parse_event_time;
use gleaner_event::{Markup, RawEvent, parse_price_text};
use scraper::{ElementRef, Html};

use super::days::Context;
use super::detail::place_and_price;
use super::item::{read_item, title_text};
use super::listing::child_groups;
use super::roles::{before_start_only, start_line};
use super::words::{
    is_closure_line, is_generic_link_text, is_publication_line, is_status_badge, status_in,
};
use super::{
    BLOCKS, MIN_ITEMS, in_chrome, item_description, item_image, leaves, sel, text_of, time_values,
};

/// Most nodes the segmenter reads on one page.
const BUDGET: usize = 200_000;

/// Tags never taken for records: headings and inline text.
const NOT_RECORDS: [&str; 14] =
    ["h1", "h2", "h3", "h4", "h5", "h6", "span", "a", "b", "strong", "em", "i", "time", "small"];

/// Most records of one group: a longer run of siblings is a page's list, for the listing
/// reader. The segmenter so gives at most this many events (one per record).
pub(super) const MAX_RECORDS: usize = 200;

/// Most characters of text a record holds (a longer subtree is a page section).
const RECORD_TEXT: usize = 2000;

/// The events of the page's best group of agreeing records (the one giving the most),
/// with a note on what was read; `None` when no group agrees.
pub(super) fn segment(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(String, Vec<RawEvent>)> {
    let mut best: Option<(String, Vec<RawEvent>)> = None;
    let mut budget = BUDGET;
    // The page's one `<h1>` titles the page: a record holding it (a newsletter's
    // `Actividades del 9 al 15 de marzo` row) is none of its events.
    let h1 = sel("h1");
    let mut h1s = doc.select(&h1);
    let page_title = match (h1s.next(), h1s.next()) {
        (Some(h), None) => Some(h),
        _ => None,
    };
    for parent in doc.root_element().descendants().filter_map(ElementRef::wrap).take(20_000) {
        if in_chrome(parent) || matches!(parent.value().name(), "nav" | "footer" | "aside") {
            continue;
        }
        for (sig, mut records) in child_groups(parent) {
            records
                .retain(|r| !page_title.is_some_and(|h| h.ancestors().any(|a| a.id() == r.id())));
            // A record is a subtree holding its date and its title: a heading alone is a
            // day's or a section's name.
            let heading_or_inline =
                records.first().is_none_or(|r| NOT_RECORDS.contains(&r.value().name()));
            if records.len() < MIN_ITEMS || records.len() > MAX_RECORDS || heading_or_inline {
                continue;
            }
            let cost: usize = records.iter().map(|r| r.descendants().count()).sum();
            if cost > budget {
                return best;
            }
            budget -= cost;
            let Some(events) = agree(&records, reference, order) else { continue };
            if best.as_ref().is_none_or(|(_, b)| events.len() > b.len()) {
                let what =
                    format!("{} repeated `{sig}` records, each with its own date", events.len());
                best = Some((what, events));
            }
        }
    }
    best
}

/// One record's roles read: its event and its start.
struct Record {
    raw: RawEvent,
    start: EventTime,
    end: Option<EventTime>,
}

/// The events of a group of records when their roles agree (see the module); past
/// records are dropped after the check.
fn agree(
    records: &[ElementRef<'_>],
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Vec<RawEvent>> {
    let mut read: Vec<Record> = Vec::new();
    let mut dated = 0;
    for r in records {
        let text = text_of(*r);
        if text.is_empty() || text.len() > RECORD_TEXT {
            return None;
        }
        if block_leaves(*r)
            .take(NOTE_LEAVES)
            .any(|t| t.chars().count() <= NOTE_CHARS && is_note(&t))
        {
            continue;
        }
        let got = read_record(*r, reference, order);
        match got {
            // A sibling without a date of its own is not one of the records (a closing
            // `Información práctica` section).
            Read::Undated => continue,
            Read::Event(rec) => read.push(*rec),
            // Called off and left untitled (`FUNCIÓN SUSPENDIDA` under its date): no event,
            // and no disagreement.
            Read::Untitled if status_in(&text).is_some() => {}
            Read::Untitled => return None,
        }
        dated += 1;
    }
    if read.len() < MIN_ITEMS || dated * 2 < records.len() {
        return None;
    }
    let mut titles: Vec<String> = read
        .iter()
        .map(|r| fold_diacritics(r.raw.name.as_deref().unwrap_or_default()).to_lowercase())
        .collect();
    titles.sort();
    titles.dedup();
    let mut days: Vec<NaiveDate> = read.iter().map(|r| r.start.date()).collect();
    days.sort();
    days.dedup();
    if titles.len() != read.len() || days.len() < 2 {
        return None;
    }
    let events: Vec<RawEvent> = read
        .into_iter()
        .filter(|r| {
            reference
                .is_none_or(|day| r.start.date() >= day || r.end.is_some_and(|e| e.date() >= day))
        })
        .map(|r| r.raw)
        .collect();
    (events.len() >= 2).then_some(events)
}

/// Words of a note that says no event is held (folded, lower-cased, as whole phrases):
/// `no recital this week`, `pas de séance`, `kein Konzert`, `no hay función`, `etkinlik
/// yok`, and a place's closure, a deadline ([`is_closure_line`]).
const NO_EVENT: &[&str] = &[
    "no recital",
    "no concert",
    "no event",
    "no service",
    "no meeting",
    "no class",
    "no session",
    "pas de seance",
    "pas de concert",
    "pas de spectacle",
    "pas de representation",
    "relache",
    "kein konzert",
    "keine veranstaltung",
    "keine vorstellung",
    "kein training",
    "no hay funcion",
    "no hay concierto",
    "sin funcion",
    "sin actividad",
    "etkinlik yok",
    "konser yok",
    "gosteri yok",
];

/// How many of a record's first blocks may make it a note (its heading, date line, title).
const NOTE_LEAVES: usize = 3;

/// Longest block read as a note (a paragraph's deadline, `Inscriptions jusqu'au 12 mars`,
/// is about its event).
const NOTE_CHARS: usize = 80;

/// Whether a record's block is a note rather than an event's: it says no event is held
/// ([`NO_EVENT`]) or is a closure notice or deadline.
fn is_note(text: &str) -> bool {
    says_no_event(text) || is_closure_line(text)
}

/// Whether a text says no event is held ([`NO_EVENT`]: `No recital this week`, `Kein
/// Konzert`, `Relâche`). A closure's name (`Remembrance Day - CLOSED`) is not such a note:
/// a library's listing gives its closed days as entries.
pub(super) fn says_no_event(text: &str) -> bool {
    let folded = fold_diacritics(text).to_lowercase();
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let joined = format!(" {} ", words.join(" "));
    NO_EVENT.iter().any(|p| joined.contains(&format!(" {p} ")))
}

/// A record's event, if it has a date and a title. The listing's item reader, given
/// the record's day, reads it when it can (on that day); else the segmenter's own roles.
fn read_record(record: ElementRef<'_>, reference: Option<NaiveDate>, order: DateOrder) -> Read {
    let Some((start, end)) = record_date(record, reference, order) else { return Read::Undated };
    let own = record_title(record, reference, order);
    if let Some(mut item) =
        read_item(record, Context { day: Some(start.date()), month: None }, reference, order)
        && (item.start.date() == start.date() || moved(&item.raw))
    {
        match &own {
            Some((title, _)) => item.raw.name = Some(title.clone()),
            None if item.raw.name.as_deref().is_some_and(|t| usable_title(t, reference, order)) => {
            }
            None => return Read::Untitled,
        }
        let mut rec = Record { raw: item.raw, start: item.start, end: item.end };
        adjust(record, &mut rec, reference, order);
        return Read::Event(Box::new(rec));
    }
    let Some((title, link)) = own else { return Read::Untitled };
    let mut raw = RawEvent {
        description: item_description(record, &title),
        name: Some(title),
        start: Some(start.to_iso()),
        end: end.filter(|e| *e != start).map(|e| e.to_iso()),
        url: link,
        image: item_image(record),
        status: status_in(&text_of(record)).map(str::to_owned),
        markup: Markup::Text,
        ..RawEvent::default()
    };
    place_and_price(record, &mut raw);
    // A place its time line or a sentence writes (`7 PM · Blue Heron Coffee, 9 Front St`).
    if raw.location_text.is_none()
        && raw.address_text.is_none()
        && let Some((name, address)) = super::place_line::written_place(record)
    {
        raw.location_name = Some(name);
        raw.address_text = Some(address);
    }
    let mut rec = Record { raw, start, end };
    adjust(record, &mut rec, reference, order);
    Read::Event(Box::new(rec))
}

/// Words that say a time in the small hours belongs to the night after the day named
/// (`Madrugada del Jueves al Viernes Santo`, `la nuit du 14 au 15`, `in the small hours`).
const NIGHT_WORDS: &[&str] = &[
    "madrugada",
    "small hours",
    "after midnight",
    "nuit du",
    "nacht zum",
    "nacht auf",
    "gece yarisi",
];

/// The last hour of a night's small hours.
const SMALL_HOURS: u32 = 6;

/// A record's start set right: a struck-out day (`<del>Samedi 28 mars</del>`) moves to
/// the first later day given after it (`Reporté au samedi 4 avril`: rescheduled), and a
/// time in the small hours of a record that says it is the night's ([`NIGHT_WORDS`]) is
/// the next day's.
fn adjust(el: ElementRef<'_>, rec: &mut Record, reference: Option<NaiveDate>, order: DateOrder) {
    // A run of days (`Spring Mixed Bonspiel — March 20–22`) starts at the first time its
    // blocks give (`draws on Friday at 6 p.m.`); its last day stays a day.
    if let (EventTime::Date(day), Some(EventTime::Date(_))) = (rec.start, rec.end)
        && let Some((t1, _)) = nearest_time(el)
    {
        rec.start = EventTime::Floating(day.and_time(t1));
        rec.raw.start = Some(rec.start.to_iso());
    }
    if rec.end.is_none()
        && let EventTime::Floating(at) = rec.start
        && let Some(t2) = stated_end(el, at.time())
    {
        let day =
            if t2 < at.time() { at.date().succ_opt().unwrap_or(at.date()) } else { at.date() };
        rec.end = Some(EventTime::Floating(day.and_time(t2)));
        rec.raw.end = rec.end.map(|e| e.to_iso());
    }
    let strikes = sel("del, s, strike");
    let struck = el.select(&strikes).find(|d| {
        parse_text_date(&text_of(*d), reference, order)
            .is_some_and(|d| d.start.date() == rec.start.date())
    });
    let mut shift = None;
    if let Some(struck) = struck {
        // The new day: the first later day given after the struck one, outside any struck
        // text (`<del>Saturday, March 14</del> → <strong>now Saturday, April 11</strong>`).
        let old = rec.start.date();
        shift = el
            .descendants()
            .filter_map(ElementRef::wrap)
            .filter(|e| e.id() > struck.id())
            .filter(|e| e.select(&strikes).next().is_none() && !strikes.matches(e))
            .filter(|e| e.ancestors().filter_map(ElementRef::wrap).all(|a| !strikes.matches(&a)))
            .map(text_of)
            .filter(|t| t.chars().count() <= NOTE_CHARS)
            .filter_map(|t| parse_text_date(&t, Some(old), order))
            .find(|d| d.start.date() > old)
            .map(|d| {
                // The new day's own time, when its line gives one (`now Saturday, April 11,
                // at 9 a.m.`).
                if let (EventTime::Floating(_), EventTime::Date(_) | EventTime::Floating(_)) =
                    (d.start, rec.start)
                {
                    rec.start = d.start;
                    rec.end = None;
                    return chrono::Duration::zero();
                }
                d.start.date() - old
            });
        if shift.is_some() {
            rec.raw.status = Some("rescheduled".to_owned());
        }
    } else if let EventTime::Floating(at) = rec.start
        && at.time().hour() < SMALL_HOURS
    {
        let folded = fold_diacritics(&text_of(el)).to_lowercase();
        if NIGHT_WORDS.iter().any(|w| folded.contains(w)) {
            shift = Some(chrono::Duration::days(1));
        }
    }
    let Some(by) = shift else { return };
    rec.start = shifted(rec.start, by);
    rec.end = rec.end.map(|e| shifted(e, by));
    rec.raw.start = Some(rec.start.to_iso());
    rec.raw.end = rec.end.filter(|e| *e != rec.start).map(|e| e.to_iso());
}

/// Words that label an end time (folded): `Recogida 23.30 h`, `Fin : 23h`, `Ende 22 Uhr`,
/// `Ends 10pm`, `Bitiş 22.00`.
const END_WORDS: &[&str] = &["recogida", "fin", "end", "ends", "ende", "bitis"];

/// Where a record's end time is stated: its start time's block, a dash block and a time
/// block (`<div>7:00 PM</div><div>–</div><div>9:00 PM</div>`), or a time labelled as the
/// end ([`END_WORDS`]: `<th>Recogida</th><td>23.30 h</td>`). A time after midnight under an
/// evening start is the next morning's.
fn stated_end(el: ElementRef<'_>, start: NaiveTime) -> Option<NaiveTime> {
    let texts: Vec<String> = leaves(el).take(60).collect();
    let folded = |t: &str| fold_diacritics(t.trim()).to_lowercase();
    for (i, t) in texts.iter().enumerate() {
        let f = folded(t);
        let f = f.trim_end_matches([':', ' ']);
        // `7:00 PM` `–` `9:00 PM`.
        if parse_text_time(t).is_some_and(|(t1, t2)| t1 == start && t2.is_none())
            && texts.get(i + 1).is_some_and(|d| matches!(d.trim(), "–" | "-" | "—"))
            && let Some((t2, None)) = texts.get(i + 2).and_then(|n| parse_text_time(n))
            && t2 > start
        {
            return Some(t2);
        }
        // `Recogida` then `23.30 h`, or `Fin : 23h`.
        let labelled = if END_WORDS.contains(&f) {
            texts.get(i + 1).and_then(|n| parse_text_time(n))
        } else {
            END_WORDS
                .iter()
                .find(|w| f.strip_prefix(**w).is_some_and(|r| r.trim_start().starts_with(':')))
                .and_then(|_| parse_text_time(t))
        };
        if let Some((t2, None)) = labelled
            && (t2 > start || t2.hour() < SMALL_HOURS)
            && t2 != start
        {
            return Some(t2);
        }
    }
    None
}

/// A local start moved by `by` (a zoned one is left as it is).
fn shifted(t: EventTime, by: chrono::Duration) -> EventTime {
    match t {
        EventTime::Floating(dt) => EventTime::Floating(dt + by),
        EventTime::Date(d) => EventTime::Date(d + by),
        other => other,
    }
}

/// What a record gave.
enum Read {
    /// No date of its own: not one of the records.
    Undated,
    /// A date but no title: the roles disagree.
    Untitled,
    /// Its event.
    Event(Box<Record>),
}

/// Whether the item reader moved an event to its new day (`Reporté au samedi 4 avril`).
fn moved(raw: &RawEvent) -> bool {
    matches!(raw.status.as_deref(), Some("rescheduled" | "postponed"))
}

/// How many of a record's first blocks may give its date: a record's own date opens it
/// (a date further down is a note's, `Los días 2 y 3 de abril se cortará el tráfico`).
const DATE_LEAVES: usize = 8;

/// Whether a record holds a list whose items give dates of their own (two or more): a
/// section of reminders (`League reminders`: `… until the week of April 13`, `The ice
/// comes out on Monday, April 20`) or a show's dates, not one event's record.
fn holds_dated_list(
    record: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> bool {
    record.select(&sel("ul, ol")).take(10).any(|list| {
        list.children()
            .filter_map(ElementRef::wrap)
            .filter(|li| li.value().name() == "li")
            .take(50)
            .filter(|li| {
                let t = text_of(*li);
                t.len() <= RECORD_TEXT && parse_text_date(&t, reference, order).is_some()
            })
            .count()
            >= 2
    })
}

/// Whether a block is prose (twelve words or more and a sentence's end): a date in it is
/// a note's (`Los días 2 y 3 de abril se cortará el tráfico…`), not the record's own.
fn is_prose(text: &str) -> bool {
    let t = text.trim();
    t.split_whitespace().count() >= 12 && (t.ends_with('.') || t.contains(". "))
}

/// The texts of a record's smallest block elements (paragraphs, cells, headings, list
/// items; not its bold or linked words), in order.
fn block_leaves(record: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(BLOCKS);
    record
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| blocks.matches(el) && el.select(&blocks).all(|b| b.id() == el.id()))
        .map(text_of)
        .filter(|t| !t.is_empty())
}

/// A record's date: its `<time datetime>` values (one, or a start and an end), else the
/// first of its blocks that gives a date, else its blocks' texts read together (a card's
/// `Mar` `12` `2026`); a bare day takes the nearest time of day its blocks give.
fn record_date(
    record: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(EventTime, Option<EventTime>)> {
    if holds_dated_list(record, reference, order) {
        return None;
    }
    let times = time_values(record);
    let (start, end) = match times.as_slice() {
        [one] => (*one, None),
        [a, b] if b.date() >= a.date() && (b.date() - a.date()).num_days() <= 31 => (*a, Some(*b)),
        [_, _, ..] => return None,
        [] => {
            let texts: Vec<String> = leaves(record)
                .take(DATE_LEAVES)
                .filter(|t| !is_publication_line(t) && !is_closure_line(t) && !is_prose(t))
                .collect();
            let own = texts.iter().find_map(|t| parse_text_date(&start_line(t), reference, order));
            let d = own.or_else(|| {
                let joined: String =
                    texts.iter().take(8).map(String::as_str).collect::<Vec<_>>().join(" ");
                let head: String = joined.chars().take(120).collect();
                parse_text_date(&head, reference, order)
            })?;
            (d.start, d.end)
        }
    };
    let EventTime::Date(day) = start else { return Some((start, end)) };
    if end.is_some() {
        return Some((start, end));
    }
    Some(match nearest_time(record) {
        Some((t1, t2)) => (
            EventTime::Floating(day.and_time(t1)),
            t2.filter(|t2| *t2 > t1).map(|t2| EventTime::Floating(day.and_time(t2))),
        ),
        None => (start, None),
    })
}

/// The first time of day a record's blocks give, a time before the start (`Einlass 19
/// Uhr`) only when no block gives another.
fn nearest_time(record: ElementRef<'_>) -> Option<(NaiveTime, Option<NaiveTime>)> {
    let mut before = None;
    for t in leaves(record).take(40) {
        let line = start_line(&t);
        if let Some(found) = parse_text_time(&line) {
            if before_start_only(&line) {
                before.get_or_insert(found);
            } else {
                return Some(found);
            }
        }
    }
    before
}

/// Separators between a heading's date and its title (`Jeudi 5 mars – Descente aux
/// flambeaux`, `12.03. | Konzert`).
const SEPARATORS: [&str; 5] = [" – ", " — ", " - ", " | ", " · "];

/// A record's title and its link: its heading (less the date part it opens or closes
/// with), else its main link's text, else its bold lead (`<strong>Domingo familiar:</strong>
/// …`).
fn record_title(
    record: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(String, Option<String>)> {
    let usable = |t: &str| usable_title(t, reference, order);
    let link_of = super::item::link_target;
    let heading_link = |h: ElementRef<'_>| {
        h.select(&sel("a[href]"))
            .next()
            .or_else(|| {
                h.ancestors().filter_map(ElementRef::wrap).find(|a| a.value().name() == "a")
            })
            .and_then(link_of)
    };
    for h in record.select(&sel("h1, h2, h3, h4, h5, h6")) {
        let t = without_new_date(&heading_text(h));
        if usable(&t) {
            return Some((t, heading_link(h)));
        }
        if let Some(rest) = undated_part(&t, reference, order).filter(|r| usable(r)) {
            return Some((rest, heading_link(h)));
        }
    }
    if let Some(t) = bold_lead(record).filter(|t| usable(t)) {
        return Some((t, None));
    }
    record
        .select(&sel("a[href]"))
        .map(|a| (title_text(a), a))
        .find(|(t, _)| usable(t))
        .map(|(t, a)| (t, link_of(a)))
}

/// A heading's text, a superscript joined to the word before it (`28<sup>e</sup> Derby` →
/// `28e Derby`).
fn heading_text(h: ElementRef<'_>) -> String {
    if h.select(&sel("sup")).next().is_none() {
        return title_text(h);
    }
    let mut out = String::new();
    for n in h.descendants() {
        let Some(t) = n.value().as_text() else { continue };
        let in_sup = n
            .ancestors()
            .take_while(|a| a.id() != h.id())
            .any(|a| a.value().as_element().is_some_and(|e| e.name() == "sup"));
        if !in_sup && !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    gleaner_event::text::collapse(&out)
}

/// Whether a text can title a record: 3 to 200 characters, no generic link text (`Plus
/// d'infos`), status badge, date, time or price (`CHF 35.–`, `ab 29,90 €`).
fn usable_title(t: &str, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    let n = t.chars().count();
    let price = n <= 30
        && parse_price_text(t).is_some()
        && (t.contains(['$', '€', '£', '₺']) || t.to_uppercase().contains("CHF"));
    (3..=200).contains(&n)
        && !price
        && !is_generic_link_text(t)
        && !is_status_badge(t)
        && status_in(t).is_none_or(|_| t.split_whitespace().count() > 3)
        && parse_text_date(t, reference, order).is_none()
        && parse_text_time(t).is_none()
        && parse_event_time(t).is_none()
}

/// A heading's note that its date changed (`Curling for Cancer Funspiel — NEW DATE`),
/// folded: no part of the title.
const NEW_DATE: &[&str] =
    &["new date", "nouvelle date", "neuer termin", "neues datum", "nueva fecha", "yeni tarih"];

/// A heading without its closing note that the date changed (`Curling for Cancer
/// Funspiel — NEW DATE` → `Curling for Cancer Funspiel`).
fn without_new_date(text: &str) -> String {
    for sep in SEPARATORS {
        if let Some((head, tail)) = text.rsplit_once(sep)
            && NEW_DATE.contains(&fold_diacritics(tail.trim()).to_lowercase().as_str())
        {
            return head.trim().to_owned();
        }
    }
    text.to_owned()
}

/// The part of a heading that is not its date (`Jeudi 5 mars – Descente aux flambeaux` →
/// `Descente aux flambeaux`): split at a separator, the one part without a date when the
/// others all give one.
fn undated_part(text: &str, reference: Option<NaiveDate>, order: DateOrder) -> Option<String> {
    let sep = SEPARATORS.iter().find(|s| text.contains(**s))?;
    let parts: Vec<&str> = text.split(sep).map(str::trim).filter(|p| !p.is_empty()).collect();
    let dated = |p: &str| {
        parse_text_date(p, reference, order).is_some()
            || parse_text_time(p).is_some()
            || NEW_DATE.contains(&fold_diacritics(p).to_lowercase().as_str())
    };
    let undated: Vec<&str> = parts.iter().copied().filter(|p| !dated(p)).collect();
    match undated.as_slice() {
        [one] if parts.len() >= 2 => Some((*one).to_owned()),
        _ => None,
    }
}

/// A record's bold lead: the first `<b>`/`<strong>` that opens its block, of two words or
/// more, without its closing colon (`<p><strong>Domingo familiar:</strong> Ángel
/// Dorado…</p>` → `Domingo familiar`).
fn bold_lead(record: ElementRef<'_>) -> Option<String> {
    record.select(&sel("b, strong")).find_map(|b| {
        let opens =
            b.prev_siblings().all(|s| s.value().as_text().is_some_and(|t| t.trim().is_empty()));
        let t = title_text(b);
        let label = t.trim_end().ends_with(':');
        let t = t.trim().trim_end_matches([':', '.', ',']).trim_end().to_owned();
        if !opens {
            return None;
        }
        // A colon after the bold text, outside it, goes on with the title (`<strong>Chœur
        // Allobroges</strong> : cantates de Bach pour l'Avent. Entrée libre.`): the bold and
        // the rest of its sentence, when short.
        let continued = b
            .next_sibling()
            .and_then(|n| n.value().as_text().map(|x| x.trim_start().starts_with(':')))
            .unwrap_or(false);
        if continued
            && !label
            && let Some(block) = b.parent().and_then(ElementRef::wrap)
        {
            let all = text_of(block);
            let sentence = first_sentence(&all);
            let rest = sentence.strip_prefix(t.as_str()).unwrap_or_default();
            let words = rest.split_whitespace().count();
            if (2..=TITLE_TAIL_WORDS + 1).contains(&words) {
                return Some(sentence.to_owned());
            }
        }
        if t.split_whitespace().count() >= 2 {
            return Some(t);
        }
        // One word as a label (`<strong>Revancha:</strong> Los Hermanos Furia vs. Relámpago
        // Azul.`): the word and the rest of its sentence.
        let block = b.parent().and_then(ElementRef::wrap)?;
        let all = text_of(block);
        let rest = all.strip_prefix(text_of(b).trim())?.trim_start();
        let sentence = first_sentence(rest);
        (label && t.chars().count() >= 4 && sentence.split_whitespace().count() >= 2)
            .then(|| format!("{t}: {sentence}"))
    })
}

/// Most words a bold title's continuation after its colon has (`: cantates de Bach pour
/// l'Avent`).
const TITLE_TAIL_WORDS: usize = 8;

/// A text's first sentence, without its full stop: up to the first `. ` after a word of
/// four letters or more (`vs.`, `Dr.` do not end one).
fn first_sentence(text: &str) -> &str {
    let mut from = 0;
    while let Some(at) = text[from..].find(". ").map(|i| from + i) {
        let word = text[..at].rsplit(' ').next().unwrap_or_default();
        if word.chars().count() >= 4 {
            return text[..at].trim_end();
        }
        from = at + 2;
    }
    text.trim_end().trim_end_matches('.').trim_end()
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use gleaner_event::datetext::DateOrder;
    use scraper::Html;

    use super::{is_note, segment, undated_part};

    /// The segmenter's titles and starts for a page read on 2026-02-26.
    fn read(html: &str) -> Vec<(String, String)> {
        let doc = Html::parse_document(html);
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let order = super::super::page_order(&doc);
        segment(&doc, day, order)
            .map(|(_, events)| {
                events
                    .into_iter()
                    .map(|e| (e.name.unwrap_or_default(), e.start.unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn cards_with_split_dates() {
        let card = |m: &str, d: &str, title: &str, time: &str| {
            format!(
                "<div class=\"event-item\"><a href=\"/e/{d}\"><div class=\"date\"><div>{m}</div>\
                 <div>{d}</div><div>2026</div></div><h3>{title}</h3><div class=\"meta\">\
                 <div>{time}</div></div></a></div>"
            )
        };
        let html = format!(
            "<html lang=en><body><main><h1>What's on</h1><div class=\"grid\">{}{}{}</div></main></body></html>",
            card("Mar", "12", "Pub Trivia", "7:00 PM"),
            card("Mar", "14", "The Juniper Line", "8:00 PM"),
            card("Mar", "15", "Food Truck Sunday", "12:00 PM"),
        );
        assert_eq!(
            read(&html),
            [
                ("Pub Trivia".to_owned(), "2026-03-12T19:00:00".to_owned()),
                ("The Juniper Line".to_owned(), "2026-03-14T20:00:00".to_owned()),
                ("Food Truck Sunday".to_owned(), "2026-03-15T12:00:00".to_owned()),
            ]
        );
    }

    #[test]
    fn columns_headed_by_their_date_titled_by_their_bold_lead() {
        let col = |h: &str, p: &str| {
            format!(
                "<div class=\"col funcion\"><h3>{h}</h3><div class=\"text\"><p>{p}</p></div></div>"
            )
        };
        let html = format!(
            "<html lang=es><body><main><h1>Cartelera</h1><div class=\"row\">{}{}{}{}</div></main></body></html>",
            col(
                "Domingo 8 de marzo · 5:00 p.m.",
                "<strong>Domingo familiar:</strong> Ángel Dorado vs. El Verdugo II."
            ),
            col(
                "Martes 10 de marzo · 8:30 p.m.",
                "<strong>FUNCIÓN SUSPENDIDA</strong> por fumigación."
            ),
            col(
                "Domingo 15 de marzo · 5:00 p.m.",
                "<strong>Gran Función de Aniversario</strong> Máscara contra Máscara."
            ),
            col(
                "Martes 17 de marzo · 8:30 p.m.",
                "<strong>Revancha de parejas:</strong> Los Hermanos Furia."
            ),
        );
        let got = read(&html);
        let titles: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(
            titles,
            ["Domingo familiar", "Gran Función de Aniversario", "Revancha de parejas"]
        );
        let p = |t: &str| Html::parse_fragment(&format!("<div><p>{t}</p></div>"));
        let lead = |t: &str| super::bold_lead(p(t).root_element());
        assert_eq!(
            lead(
                "<strong>Chœur Allobroges</strong> : cantates de Bach pour l'Avent. Entrée libre."
            )
            .as_deref(),
            Some("Chœur Allobroges : cantates de Bach pour l'Avent")
        );
        assert_eq!(got[0].1, "2026-03-08T17:00:00");
    }

    #[test]
    fn notes_are_no_events_and_repeated_titles_no_records() {
        let row = |d: &str, t: &str| format!("<li class=\"r\"><span>{d}</span> <b>{t}</b></li>");
        // A repeated title: one show's performances, not records of their own.
        let html = format!(
            "<html lang=en><body><main><h1>Recitals</h1><ul>{}{}{}</ul></main></body></html>",
            row("4 March 2026, 1.10pm", "Organ recital"),
            row("11 March 2026, 1.10pm", "Organ recital"),
            row("25 March 2026, 1.10pm", "Organ recital"),
        );
        assert!(read(&html).is_empty());
        for (text, want) in [
            ("18 March – No recital this week: the Nave is closed for filming", true),
            ("Inscriptions jusqu'au 12 mars (date limite)", true),
            ("Kein Konzert am 3. April", true),
            ("Relâche le lundi", true),
            ("Bach: St John Passion, 3 April 2026", false),
            ("Concert de printemps", false),
        ] {
            assert_eq!(is_note(text), want, "{text}");
        }
    }

    #[test]
    fn struck_days_move_and_small_hours_are_the_nights() {
        let sec = |h: &str, p: &str| format!("<div class=\"sec\"><h3>{h}</h3><p>{p}</p></div>");
        let html = format!(
            "<html lang=fr><body><main><h1>Animations</h1><div class=\"body\">{}{}{}{}</div></main></body></html>",
            sec(
                "Jeudi 5 mars – Descente aux flambeaux",
                "À <strong>18h30</strong>, descente de la piste."
            ),
            sec("Samedi 14 mars – Nuit des étoiles", "Madrugada : départ à 1h30 depuis le chalet."),
            sec(
                "<del>Samedi 28 mars</del> – Concert de fin de saison",
                "<strong>Reporté au samedi 4 avril</strong>. De 14h à 17h sur la terrasse.",
            ),
            sec(
                "Dimanche 5 avril – Chasse aux œufs",
                "À <strong>11h</strong> au Jardin des neiges."
            ),
        );
        assert_eq!(
            read(&html),
            [
                ("Descente aux flambeaux".to_owned(), "2026-03-05T18:30:00".to_owned()),
                ("Nuit des étoiles".to_owned(), "2026-03-15T01:30:00".to_owned()),
                ("Concert de fin de saison".to_owned(), "2026-04-04T14:00:00".to_owned()),
                ("Chasse aux œufs".to_owned(), "2026-04-05T11:00:00".to_owned()),
            ]
        );
    }

    #[test]
    fn a_run_of_days_starts_at_its_first_time() {
        let sec = |h: &str, p: &str| format!("<div class=\"sec\"><h3>{h}</h3><p>{p}</p></div>");
        let html = format!(
            "<html lang=en><body><main><h1>Club news</h1><div class=\"body\">{}{}{}</div></main></body></html>",
            sec(
                "Spring Mixed Bonspiel — March 20–22",
                "Draws on <strong>Friday at 6 p.m.</strong>"
            ),
            sec("Curling for Cancer — April 11", "First end at <strong>9 a.m.</strong>"),
            sec("Awards Night — April 16", "Doors at <strong>7 p.m.</strong>"),
        );
        let starts: Vec<String> = read(&html).into_iter().map(|(_, s)| s).collect();
        assert_eq!(starts, ["2026-03-20T18:00:00", "2026-04-11T09:00:00", "2026-04-16T19:00:00"]);
    }

    #[test]
    fn stated_ends() {
        let el = |h: &str| Html::parse_fragment(&format!("<div>{h}</div>"));
        let at = |h, m| chrono::NaiveTime::from_hms_opt(h, m, 0).unwrap();
        let cases = [
            ("<div>7:00 PM</div><div>–</div><div>9:00 PM</div>", at(19, 0), Some(at(21, 0))),
            ("<div>8:00 PM</div><div>–</div><p>Two sets.</p>", at(20, 0), None),
            (
                "<table><tr><th>Salida</th><td>00.00 h</td></tr><tr><th>Recogida</th><td>02.15 h</td></tr></table>",
                at(0, 0),
                Some(at(2, 15)),
            ),
            ("<p>Fin : 23h</p>", at(20, 30), Some(at(23, 0))),
            ("<p>Doors 7pm</p><p>Show 8pm</p>", at(20, 0), None),
        ];
        for (html, start, want) in cases {
            let doc = el(html);
            assert_eq!(super::stated_end(doc.root_element(), start), want, "{html}");
        }
    }

    #[test]
    fn a_section_of_dated_reminders_is_no_record() {
        let sec = |h: &str, p: &str| format!("<div class=\"sec\"><h3>{h}</h3>{p}</div>");
        let html = format!(
            "<html lang=en><body><main><h1>Spring news</h1><div class=\"body\">{}{}{}</div></main></body></html>",
            sec(
                "Learn to Curl open house",
                "<p><strong>Saturday, March 7, from 1 to 3 p.m.</strong></p>"
            ),
            sec(
                "Brier final on the big screen",
                "<p><strong>Sunday, March 8 at 7:30 p.m.</strong></p>"
            ),
            sec(
                "League reminders",
                "<ul><li>Leagues continue at 7 p.m. until April 13.</li>\
                 <li>The ice comes out on <strong>Monday, April 20</strong>.</li></ul>",
            ),
        );
        // Two records are too few once the reminders are none.
        assert!(read(&html).is_empty());
    }

    #[test]
    fn a_heading_less_its_date() {
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let fr = DateOrder::default();
        assert_eq!(
            undated_part("Jeudi 5 mars – Descente aux flambeaux", day, fr).as_deref(),
            Some("Descente aux flambeaux")
        );
        assert_eq!(undated_part("Domingo 8 de marzo · 5:00 p.m.", day, fr), None);
        assert_eq!(undated_part("Descente aux flambeaux", day, fr), None);
        assert_eq!(
            super::without_new_date("Curling for Cancer Funspiel — NEW DATE"),
            "Curling for Cancer Funspiel"
        );
    }
}
