//! Listings: a page that repeats one dated item structure (rows, list items, cards,
//! sections by day), read as one event per item, with the page's own price and address
//! for the items that give none.

use chrono::{NaiveDate, NaiveTime, Timelike};
use gleaner_event::EventTime;
use gleaner_event::datetext::DateOrder;
use gleaner_event::{RawEvent, parse_price_text};
use std::collections::HashSet;
use std::hash::Hash;

use scraper::{ElementRef, Html};

use super::{MIN_ITEMS, canonical_url, in_chrome, listing_min, sel};
use crate::{Candidate, Diagnostic, Format, Severity};

use super::days::{Context, day_headings, month_headings};
use super::detail::{Label, labelled};
use super::item::{Item, read_item};
use super::price::{price_into, priceless};
use super::tables::grid_items;
use super::time_led::{is_bold_led, is_programme_step};
use super::weekly::{apply_weekly, list_intro_times};
use super::words::{is_session_filler, status_in};

/// A list's items, each with the day its day heading gives.
type DatedItems<'a> = Vec<(ElementRef<'a>, Option<NaiveDate>)>;

/// The most items of one list read: bounds the work on a page of any size (on a list of
/// repeated days the item reader's cost grows faster than the items: in a debug build
/// 2,000 cards took 73 s where 1,000 with days of their own took 6 s).
const MAX_ITEMS: usize = 500;

/// Most items the lists of one page that read as listings hold, in all: a page of thousands
/// of small lists (a paragraph of `<br>` lines each) is read up to there, as one long list
/// is up to [`MAX_ITEMS`]; each item read costs its readers' whole work.
const READ_BUDGET: usize = 4 * MAX_ITEMS;

/// The most items of a list whose programme steps are counted (`time_led`): each looks
/// at its siblings.
const MAX_STEPPED: usize = 60;

/// Reads the page as a listing; pushes its events and a diagnostic and returns `true`
/// when it is one.
pub(super) fn listing(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let Some((what, mut events, list)) = read_listing(doc, reference, order) else {
        return false;
    };
    // `Wednesdays at 1.10pm` above a list of days: the time of its date-only items on
    // that weekday.
    apply_weekly(&mut events, &list_intro_times(list));
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
                // Another section's price (a show's above `<h2>Weitere Anlässe</h2>`) is
                // not the list's; nor is an intro's that a heading as high as its own
                // parts from the list's end (a show's `Eintritt: Fr. 20.–` in a content
                // `<div>` whose later `<h2>Weitere Anlässe</h2>` table is the list).
                && if intro {
                    intro_reaches_end(*at, list)
                } else {
                    super::page_price::same_section(*at, list)
                }
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
        for raw in events.iter_mut().filter(|r| priceless(r)) {
            price_into(price, raw);
        }
    } else if prices.is_empty() && intro_says_all_free(doc, list) {
        for raw in events.iter_mut().filter(|r| priceless(r)) {
            raw.is_accessible_for_free = Some("true".into());
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

/// Whether an intro paragraph among a list's children speaks for the whole list: its
/// section runs on to the list's last child (no heading as high as the one over it comes
/// between; see [`super::page_price::same_section`]).
fn intro_reaches_end(intro: ElementRef<'_>, list: ElementRef<'_>) -> bool {
    let last = list.children().filter_map(ElementRef::wrap).last();
    last.is_none_or(|l| l.id() == intro.id() || super::page_price::same_section(intro, l))
}

/// Words that make a statement about every event of a page (`Alle Veranstaltungen sind
/// kostenlos`, `Tüm etkinliklerimize katılım ücretsizdir`, `Toutes nos animations sont
/// gratuites`), folded.
const EVERY: &[&str] = &[
    "all",
    "every",
    "tous",
    "toutes",
    "alle",
    "allen",
    "samtliche",
    "todos",
    "todas",
    "tum",
    "butun",
];

/// Whether a paragraph before the list or among its items (outside the page's chrome) says in one sentence
/// that every event is free: a free word (`says_free`) and a word for all of them
/// ([`EVERY`]). A sentence about one event, or with an exception (`sauf`, `except`,
/// `außer`, `salvo`, `hariç`), says nothing of the others.
fn intro_says_all_free(doc: &Html, list: ElementRef<'_>) -> bool {
    const EXCEPT: &[&str] = &[
        "except",
        "unless",
        "sauf",
        "ausser",
        "ausgenommen",
        "salvo",
        "excepto",
        "haric",
        "disinda",
    ];
    doc.select(&sel("p"))
        .filter(|p| {
            let among_items = p.parent().is_some_and(|parent| parent.id() == list.id());
            (p.id() < list.id() || among_items) && !in_chrome(*p)
        })
        .take(20)
        .map(super::text_of)
        .any(|t| {
            t.split(['.', ';', '!']).any(|s| {
                let folded = gleaner_event::datetext::fold_diacritics(s).to_lowercase();
                let words: Vec<&str> = folded
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .collect();
                // `tüm etkinliklerimize`: the word may open a longer one only in Turkish,
                // which writes its quantifier apart too; compare whole words.
                // `Etkinliklerimiz aksi belirtilmedikçe ücretsizdir`: "unless stated
                // otherwise" speaks of every event too.
                (words.iter().any(|w| EVERY.contains(w))
                    || super::default_venue::states_default(&folded))
                    && (!words.iter().any(|w| EXCEPT.contains(w))
                        || super::default_venue::states_default(&folded))
                    && gleaner_event::says_free(s)
            })
        })
}

/// The last of `marks` (headings in document order) that comes before `at` in the page:
/// a binary search, as the pages of thousands of headings need.
fn last_before<'a, 'b, T>(
    marks: &'b [(ElementRef<'a>, T)],
    at: ElementRef<'_>,
) -> Option<&'b (ElementRef<'a>, T)> {
    let n = marks.partition_point(|(m, _)| m.id() < at.id());
    n.checked_sub(1).map(|k| &marks[k])
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
    let mut best: Option<(String, Vec<RawEvent>, ElementRef<'_>, Vec<ElementRef<'_>>)> = None;
    let mut others: Vec<(String, Vec<RawEvent>, ElementRef<'_>, Vec<ElementRef<'_>>)> = Vec::new();
    let mut months = month_headings(doc);
    months.sort_by_key(|(h, _)| h.id());
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
    let mut budget = READ_BUDGET;
    'parents: for parent in
        doc.root_element().descendants().filter_map(ElementRef::wrap).take(20_000)
    {
        if in_chrome(parent) || matches!(parent.value().name(), "nav" | "footer" | "aside") {
            continue;
        }
        let groups = child_groups(parent);
        let mut days = day_headings(parent, reference, order);
        days.sort_by_key(|(h, _)| h.id());
        let lists_days = days.clone();
        let month = last_before(&months, parent).map(|(_, m)| m.as_str());
        let day_of = |days: &[(ElementRef<'_>, NaiveDate)], i: ElementRef<'_>| {
            last_before(days, i).map(|(_, d)| *d)
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
                    _ => with_panel_groups(*section),
                };
                // A section's lists hold its items (`<h2>5 Mayıs Salı</h2>` and that day's
                // `<ul>` of timed lines): their list items are one more list.
                let listed: Vec<(String, Vec<ElementRef<'_>>)> = groups
                    .iter()
                    .filter(|(_, lists)| {
                        lists.iter().all(|l| matches!(l.value().name(), "ul" | "ol"))
                    })
                    .map(|(inner, lists)| {
                        let items = lists
                            .iter()
                            .flat_map(|l| l.children().filter_map(ElementRef::wrap))
                            .filter(|c| c.value().name() == "li")
                            .collect();
                        (format!("{inner} > li"), items)
                    })
                    .collect();
                for (inner, children) in groups.into_iter().chain(listed) {
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

            if items.len() < listing_min() {
                continue;
            }
            // A post's section headings are read with their sections (`sections`), whose
            // paragraphs give their times and texts.
            if super::sections::heads_sections(&items.iter().map(|(i, _)| *i).collect::<Vec<_>>()) {
                continue;
            }
            // A very long list is read up to its first `MAX_ITEMS` items (the soonest, as
            // listings go): skipping it would leave the page to be read as one event.
            items.truncate(MAX_ITEMS);
            // An item's month heading: the last one before it outside the list's items
            // (`<h2>Marzo 2027</h2>` opening each month's section of cards), else the one
            // above the list.
            // Each heading's ancestors are walked once (the headings inside an item are
            // the item's own), and each item finds its heading by a binary search: a page
            // of thousands of headings and items costs their sum, not their product.
            let inside: std::collections::HashSet<_> = items.iter().map(|(o, _)| o.id()).collect();
            let outside: Vec<(ElementRef<'_>, String)> = months
                .iter()
                .filter(|(at, _)| !at.ancestors().any(|a| inside.contains(&a.id())))
                .cloned()
                .collect();
            let month_of =
                |i: ElementRef<'_>| last_before(&outside, i).map(|(_, m)| m.as_str()).or(month);
            let mut night = Night::default();
            let read: Vec<Item> = items
                .iter()
                .filter_map(|(i, day)| {
                    let mut item = read_item(
                        *i,
                        Context { day: *day, month: month_of(*i) },
                        reference,
                        order,
                    )?;
                    if let Some(day) = day {
                        night.roll(*day, &mut item);
                    }
                    Some((*i, item))
                })
                .flat_map(|(i, item)| grid_items(i, item))
                .collect();
            // Most items carry their own date and title; a programme's steps (its lines
            // without a bold name beside lines with one) are no items.
            let steps = if read.len() * 2 <= items.len() && items.len() <= MAX_STEPPED {
                items.iter().filter(|(i, _)| is_programme_step(*i)).count()
            } else {
                0
            };
            if read.len() < listing_min() || read.len() * 2 <= items.len() - steps {
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
                    .others
                    .iter()
                    .map(|start| {
                        let mut raw = item.raw.clone();
                        raw.start = Some(start.to_iso());
                        raw.end = None;
                        Item { raw, start: *start, end: None, others: Vec::new() }
                    })
                    .collect();
                all.push(item);
                // Earlier days before the item, its later times after it.
                all.sort_by_key(|i| i.start.to_iso());
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
            // All on one day: one event's timetable, unless the items are a day's
            // programme under its heading, each act named in bold after its time
            // (`<h2>18 Nisan programı</h2>`, `14.00 — Mini konser: <b>Kervan Akustik</b>`).
            // A matchday's fixtures (`Heim | – | Gast` rows) are matches of their own too.
            let programme = || {
                items.iter().filter(|(i, d)| d.is_some() && is_bold_led(*i)).count() >= events.len()
                    || items.iter().all(|(i, _)| super::tables::match_title(*i).is_some())
            };
            if events.len() < listing_min() || days.len() < 2 && !programme() {
                continue;
            }
            // Of two lists that give as many events, the one whose events carry their times
            // (a concerts table beside a recitals table dated by day only).
            // Of two as long and as timed, the finer: a day's lines (`ul > li`) rather
            // than the sections that each hold several of them, whose one event mixes
            // their lines.
            // A list read as a listing spends the page's budget by its items.
            if items.len() > budget {
                break 'parents;
            }
            budget -= items.len();
            let ids: Vec<_> = items.iter().map(|(i, _)| *i).collect();
            let rank = |events: &[RawEvent]| (events.len(), timed(events));
            let better = best.as_ref().is_none_or(|(_, b, _, coarse)| {
                rank(&events) > rank(b) || rank(&events) == rank(b) && holds_groups(coarse, &ids)
            });
            let what = format!("{} repeated `{sig}` items, each with its own date", events.len());
            if better {
                if let Some(previous) = best.take() {
                    others.push(previous);
                }
                best = Some((what, events, parent, ids));
            } else {
                others.push((what, events, parent, ids));
            }
        }
    }
    let (mut what, mut events, list, ids) = best?;
    // Other lists of the page that read as listings on their own, each event at its time
    // of day, and share no item with those taken (a club's fixtures table, then its
    // socials list): their events too, the longest first. A list of bare days beside
    // them is left (its time may be stated for the other list only).
    others.sort_by_cached_key(|(_, e, _, _)| std::cmp::Reverse((e.len(), timed(e))));
    // The items taken and what holds them, and the events kept, in sets: a page of
    // thousands of small lists (a `<br>` paragraph each) checks each list against them in
    // the length of its own items, not of all taken before it.
    let mut taken = Taken { items: HashSet::new(), holders: HashSet::new() };
    for i in ids {
        taken.insert(i.id(), i.ancestors().map(|a| a.id()));
    }
    let mut kept: HashSet<(Option<String>, Option<String>)> =
        events.iter().map(|e| (e.name.clone(), e.start.clone())).collect();
    for (other_what, other_events, _, other_ids) in others {
        if timed(&other_events) < other_events.len()
            || other_ids.iter().any(|o| taken.overlaps(&o.id(), o.ancestors().map(|a| a.id())))
        {
            continue;
        }
        what.push_str(&format!("; {other_what}"));
        for e in other_events {
            if kept.insert((e.name.clone(), e.start.clone())) {
                events.push(e);
            }
        }
        for i in other_ids {
            taken.insert(i.id(), i.ancestors().map(|a| a.id()));
        }
    }
    Some((what, events, list))
}

/// The items of the lists taken, and every element that holds one of them (by node id).
struct Taken<K> {
    items: HashSet<K>,
    holders: HashSet<K>,
}

impl<K: Hash + Eq> Taken<K> {
    /// An item, and the chain of elements above it (nearest first).
    fn insert(&mut self, item: K, above: impl Iterator<Item = K>) {
        self.items.insert(item);
        for a in above {
            // The chain above an element already in is in already.
            if !self.holders.insert(a) {
                break;
            }
        }
    }

    /// Whether an item is one taken, holds one, or is held by one.
    fn overlaps(&self, item: &K, mut above: impl Iterator<Item = K>) -> bool {
        self.items.contains(item)
            || self.holders.contains(item)
            || above.any(|a| self.items.contains(&a))
    }
}

/// Whether the items of one list (`coarse`) are groups of another's (`fine`): every fine
/// item sits inside a coarse one, and some coarse item holds two or more.
fn holds_groups(coarse: &[ElementRef<'_>], fine: &[ElementRef<'_>]) -> bool {
    let holder = |f: &ElementRef<'_>| {
        f.ancestors().find(|a| coarse.iter().any(|c| c.id() == a.id())).map(|a| a.id())
    };
    let held: Vec<_> = fine.iter().map(holder).collect();
    held.iter().all(Option::is_some) && held.iter().enumerate().any(|(i, h)| held[..i].contains(h))
}

/// How many events start at a time of day (not a bare date).
fn timed(events: &[RawEvent]) -> usize {
    events
        .iter()
        .filter(|e| {
            e.start
                .as_deref()
                .and_then(gleaner_event::time::parse_event_time)
                .is_some_and(|t| !matches!(t, EventTime::Date(_)))
        })
        .count()
}

/// A day's programme read in order: its times rise through the evening, and a time in
/// the small hours after a later one (`23.30 h` then `00.30 h`, as fiestas programmes
/// print the night's last acts under the day they close) is the next day's.
#[derive(Default)]
struct Night {
    /// The heading day, the last time read under it, and whether it has passed midnight.
    last: Option<(NaiveDate, NaiveTime, bool)>,
}

/// The last hour a day's programme may run on to after midnight.
const SMALL_HOURS: u32 = 6;

impl Night {
    /// Moves `item` to the next day when it is such a time under `day`'s heading.
    fn roll(&mut self, day: NaiveDate, item: &mut Item) {
        let EventTime::Floating(at) = item.start else { return };
        if at.date() != day {
            return;
        }
        let time = at.time();
        let small = time.hour() < SMALL_HOURS;
        let rolled = match self.last {
            Some((d, last, rolled)) if d == day => small && (rolled || time < last),
            _ => false,
        };
        self.last = Some((day, time, rolled));
        if !rolled {
            return;
        }
        item.start = next_day(item.start);
        item.end = item.end.map(next_day);
        item.raw.start = Some(item.start.to_iso());
        item.raw.end = item.end.filter(|e| *e != item.start).map(|e| e.to_iso());
    }
}

/// The same local time a day later.
fn next_day(t: EventTime) -> EventTime {
    match t {
        EventTime::Floating(dt) => EventTime::Floating(dt + chrono::Duration::days(1)),
        other => other,
    }
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

/// A section's [`child_groups`], and those of its one body block (`div` alone of its
/// kind: an accordion's panel under its month title, a card's body), keyed under it: a
/// month's events sit one level down.
fn with_panel_groups(section: ElementRef<'_>) -> Vec<(String, Vec<ElementRef<'_>>)> {
    let mut groups = child_groups(section);
    let panels: Vec<_> = groups
        .iter()
        .filter_map(|(sig, items)| match items.as_slice() {
            [one] if one.value().name() == "div" => Some((sig.clone(), *one)),
            _ => None,
        })
        .collect();
    for (sig, panel) in panels {
        groups.extend(
            child_groups(panel)
                .into_iter()
                .map(|(inner, items)| (format!("{sig} > {inner}"), items)),
        );
    }
    groups
}

/// A parent's element children grouped by tag and first class (`tr`, `li.event`,
/// `div.card`), in order.
pub(super) fn child_groups(parent: ElementRef<'_>) -> Vec<(String, Vec<ElementRef<'_>>)> {
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
        // A table's rows are one list whatever their class: a row's class marks its state
        // or a highlight (`<tr class="gecmis">`, `reprogramado`, `juego-inaugural`).
        let sig = match first {
            Some(c) if name != "tr" => format!("{name}.{c}"),
            _ => name.to_owned(),
        };
        match groups.iter_mut().find(|(s, _)| *s == sig) {
            Some((_, items)) => items.push(child),
            None => groups.push((sig, vec![child])),
        }
    }
    groups
}

/// Elements never taken for listing items.
const NOT_ITEMS: [&str; 14] = [
    "script", "style", "br", "hr", "img", "input", "option", "meta", "link", "head", "svg",
    "noscript", "template", "iframe",
];

#[cfg(test)]
mod tests {
    #[test]
    fn a_months_events_in_its_accordion_panel() {
        // Issue 24, page 357: an accordion of months, each month's events the paragraphs
        // of its panel (one or two a month), each opening with its bold date line.
        let month = |name: &str, events: &[&str]| {
            let ps: String = events
                .iter()
                .map(|e| format!("<p><strong>{e}</strong><br>Details at the door.</p>"))
                .collect();
            format!(
                "<div class=\"acc-item\"><h4 class=\"acc-title\">{name}</h4><div class=\"acc-panel\">{ps}</div></div>"
            )
        };
        let html = format!(
            "<html lang=\"en\"><body><h1>Our year</h1><div class=\"acc\">{}{}{}</div></body></html>",
            month(
                "March 2031",
                &["Friday 21 March, 7.30pm – Bulb talk", "Friday 28 March, 7pm – Seed swap"]
            ),
            month("April 2031", &["Friday 11 April, 7.30pm – Pruning roses"]),
            month(
                "May 2031",
                &["Friday 9 May, 7.30pm – Pond life", "Friday 16 May, 10am – Plant sale"]
            ),
        );
        let got = super::super::titles_and_starts(&html);
        let want: Vec<(String, String)> = [
            ("Bulb talk", "2031-03-21T19:30:00"),
            ("Seed swap", "2031-03-28T19:00:00"),
            ("Pruning roses", "2031-04-11T19:30:00"),
            ("Pond life", "2031-05-09T19:30:00"),
            ("Plant sale", "2031-05-16T10:00:00"),
        ]
        .iter()
        .map(|(n, s)| ((*n).to_owned(), (*s).to_owned()))
        .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn an_introduction_that_says_every_event_is_free() {
        let says = |intro: &str| {
            let doc = scraper::Html::parse_document(&format!(
                "<main><p>{intro}</p><ul><li>1 May: walk</li><li>2 May: talk</li></ul></main>"
            ));
            let list = doc.select(&super::sel("ul")).next().expect("a list");
            super::intro_says_all_free(&doc, list)
        };
        for yes in [
            "Tous les concerts sont gratuits.",
            "Gäste sind bei allen Tageswanderungen herzlich willkommen, die Teilnahme ist kostenlos.",
            "Etkinliklerimiz aksi belirtilmedikçe ücretsizdir.",
        ] {
            assert!(says(yes), "{yes}");
        }
        for no in [
            "Die Teilnahme ist kostenlos.",
            "Alle Wanderungen mit Einkehr, außer der Nikolauswanderung kostenlos.",
            "Unless stated otherwise, walks start at 10 am.",
        ] {
            assert!(!says(no), "{no}");
        }
    }

    #[test]
    fn an_intro_among_the_items_speaks_for_its_section_only() {
        let reaches = |html: &str| {
            let doc = scraper::Html::parse_document(html);
            let list = doc.select(&super::sel("#content")).next().expect("the list");
            let intro = doc.select(&super::sel("p.price")).next().expect("the intro");
            super::intro_reaches_end(intro, list)
        };
        let table = "<table><tr><td>x</td></tr></table>";
        // Page 80: the page's price under its `<h1>`, then each day's `<h2>` and table.
        assert!(reaches(&format!(
            "<div id=content><h1>Program</h1><p class=price>Bilet: 80 TL</p><h2>Perşembe</h2>\
             {table}<h2>Cuma</h2>{table}</div>"
        )));
        // Page 184: a show's price under its `<h2>`, then `<h2>Weitere Anlässe</h2>` and
        // the table the listing reads.
        assert!(!reaches(&format!(
            "<div id=content><h1>Agenda</h1><h2>Jodlerabend</h2>{table}<p class=price>Eintritt: \
             Fr. 20.–</p><h2>Weitere Anlässe</h2>{table}<p>Stand: 15. Februar</p></div>"
        )));
    }

    use super::Night;

    #[test]
    fn a_table_row_of_another_class_is_one_of_the_rows() {
        // Issue 24, pages 278 and 299: a highlighted or moved row (`<tr
        // class="reprogramado">`) is read with the others, titled by the title column
        // before a booking link, at its new date.
        let row = |class: &str, date: &str, title: &str| {
            format!(
                "<tr{class}><td>{date}</td><td><strong>{title}</strong></td><td>9:00 h</td>\
                 <td><a href=\"/reservar/?e={title}\">Inscribirme</a></td></tr>"
            )
        };
        let html = format!(
            "<html lang=es><body><main><h1>Calendario</h1><table><thead><tr><th>Fecha</th>\
             <th>Evento</th><th>Horario</th><th></th></tr></thead><tbody>{}{}{}{}</tbody>\
             </table></main></body></html>",
            row(" class=\"inaugural\"", "Sáb 14 mar", "Gran Premio"),
            row("", "Dom 29 mar", "Fecha Uno"),
            row(
                " class=\"reprogramado\"",
                "<del>Sáb 9 may</del><br>Nueva fecha: sáb 23 may",
                "Fecha Dos"
            ),
            row("", "Sáb 13 jun", "Gran Premio de Verano"),
        );
        let doc = scraper::Html::parse_document(&html);
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let (_, events, _) = super::read_listing(&doc, day, Default::default()).unwrap();
        let read: Vec<_> = events
            .iter()
            .map(|e| (e.name.as_deref().unwrap(), e.start.as_deref().unwrap(), e.status.as_deref()))
            .collect();
        assert_eq!(
            read,
            [
                ("Gran Premio", "2026-03-14T09:00:00", None),
                ("Fecha Uno", "2026-03-29T09:00:00", None),
                ("Fecha Dos", "2026-05-23T09:00:00", Some("rescheduled")),
                ("Gran Premio de Verano", "2026-06-13T09:00:00", None),
            ]
        );
    }

    #[test]
    fn of_two_lists_as_long_the_timed_one() {
        let row = |d: &str, t: &str| format!("<tr><td>{d}</td><td><b>{t}</b></td></tr>");
        let html = format!(
            "<html lang=en><body><main><h1>Music</h1><section><h2>Recitals</h2><table>{}{}{}</table></section>\
             <section><h2>Concerts</h2><table>{}{}{}</table></section></main></body></html>",
            row("4 March 2026", "Bach, Whitlock, Howells"),
            row("11 March 2026", "Buxtehude, Franck, Alain"),
            row("25 March 2026", "Stanford, Mendelssohn, Parry"),
            row("14 March 2026, 7.30pm", "Haydn: The Creation"),
            row("3 April 2026, 6pm", "Bach: St John Passion"),
            row("18 April 2026, 10am", "Come and Sing: Fauré Requiem"),
        );
        let doc = scraper::Html::parse_document(&html);
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let (_, events, _) = super::read_listing(&doc, day, Default::default()).unwrap();
        let titles: Vec<_> = events.iter().filter_map(|e| e.name.as_deref()).collect();
        assert_eq!(
            titles,
            ["Haydn: The Creation", "Bach: St John Passion", "Come and Sing: Fauré Requiem"]
        );
    }
    #[test]
    fn a_second_timed_list_of_the_page_is_read_too() {
        // Issue 24, page 251: a fixtures table, then a socials list; its events are
        // timed. A list of bare days beside them is not taken (see the test above).
        let row = |d: &str, t: &str| format!("<tr><td>{d}</td><td><b>{t}</b></td></tr>");
        let social = |t: &str, d: &str| {
            format!("<li><h4>{t}</h4><p><strong>{d}</strong> – Pavilion bar.</p></li>")
        };
        let html = format!(
            "<html lang=en><body><main><h1>Fixtures</h1><table>{}{}{}</table><h3>Socials</h3>\
             <ul>{}{}{}</ul></main></body></html>",
            row("25 April 2026, 1.30pm", "Much Hadham CC"),
            row("9 May 2026, 1.30pm", "Sawbridgeworth 2nd XI"),
            row("13 June 2026, 1.30pm", "Standon & Puckeridge"),
            social("Quiz Night", "Friday 20 March, 7.30pm"),
            social("Annual Dinner", "Saturday 10 October, 7pm"),
            social("Cricket Day", "Sunday 19 July, from 11am"),
        );
        let doc = scraper::Html::parse_document(&html);
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let (_, events, _) = super::read_listing(&doc, day, Default::default()).unwrap();
        let mut starts: Vec<_> = events.iter().filter_map(|e| e.start.as_deref()).collect();
        starts.sort_unstable();
        assert_eq!(
            starts,
            [
                "2026-03-20T19:30:00",
                "2026-04-25T13:30:00",
                "2026-05-09T13:30:00",
                "2026-06-13T13:30:00",
                "2026-07-19T11:00:00",
                "2026-10-10T19:00:00",
            ]
        );
    }

    #[test]
    fn a_days_programme_of_acts_named_in_bold() {
        // Issue 24, page 207: one day under its heading, each act named in bold after its
        // time (a label before the name kept); the line without a bold name is a step.
        let html = "<html lang=tr><body><main><h1>Plak Günü</h1><h2>18 Nisan programı</h2><ul>\
            <li><strong>10.00</strong> — Kepenkler açılıyor, özel baskılar satışta.</li>\
            <li><strong>12.00 – 13.00</strong> — DJ set: <strong>Selin Derin</strong> çalıyor.</li>\
            <li><strong>14.00</strong> — Mini konser: <strong>Kervan Akustik</strong> çalıyor.</li>\
            <li><strong>16.00</strong> — İmza: <strong>Ahmet Ürkmez</strong> imzalıyor.</li>\
            </ul><h2>Özel baskılar</h2><p>Liste 9 Nisan'da açıklanacak.</p>\
            <h2>Saatler</h2><p>Pazar kapalı.</p></main></body></html>";
        let doc = scraper::Html::parse_document(html);
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let (mut candidates, mut notes) = (Vec::new(), Vec::new());
        crate::fallback::read_news(&doc, day, &mut candidates, &mut notes);
        let read: Vec<_> = candidates
            .iter()
            .map(|c| (c.raw.name.as_deref().unwrap(), c.raw.start.as_deref().unwrap()))
            .collect();
        assert_eq!(
            read,
            [
                ("DJ set: Selin Derin", "2026-04-18T12:00:00+03:00"),
                ("Mini konser: Kervan Akustik", "2026-04-18T14:00:00+03:00"),
                ("İmza: Ahmet Ürkmez", "2026-04-18T16:00:00+03:00"),
            ]
        );
    }

    use crate::fallback::item::Item;
    use chrono::NaiveDate;
    use gleaner_event::{EventTime, RawEvent};

    fn at(day: u32, h: u32, m: u32) -> Item {
        let d = NaiveDate::from_ymd_opt(2026, 8, day).unwrap();
        let start = EventTime::Floating(d.and_hms_opt(h, m, 0).unwrap());
        Item { raw: RawEvent::default(), start, end: None, others: Vec::new() }
    }

    #[test]
    fn small_hours_after_the_evening_are_the_next_day() {
        let day = NaiveDate::from_ymd_opt(2026, 8, 14).unwrap();
        let mut night = Night::default();
        let starts: Vec<String> = [at(14, 20, 0), at(14, 0, 30), at(14, 2, 0)]
            .into_iter()
            .map(|mut i| {
                night.roll(day, &mut i);
                i.start.to_iso()
            })
            .collect();
        assert_eq!(starts, ["2026-08-14T20:00:00", "2026-08-15T00:30:00", "2026-08-15T02:00:00"]);
        // A morning programme that opens early keeps its day; a new day starts afresh.
        let mut night = Night::default();
        let mut first = at(14, 1, 0);
        night.roll(day, &mut first);
        assert_eq!(first.start.to_iso(), "2026-08-14T01:00:00");
        let next = NaiveDate::from_ymd_opt(2026, 8, 15).unwrap();
        let mut other = at(15, 0, 30);
        night.roll(next, &mut other);
        assert_eq!(other.start.to_iso(), "2026-08-15T00:30:00");
    }
}
