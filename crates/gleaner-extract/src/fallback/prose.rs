//! Events announced in a post's running prose (issue 24): a town hall's news item, an
//! association's or a club's post that writes its coming events as sentences ("el
//! concierto extraordinario de Santa Cecilia tendrá lugar el sábado 21 de noviembre a las
//! 20.00 horas", "Nevruz Şenliği 21 Mart Cumartesi günü saat 12.00'de … yapılacak").
//!
//! Precision first: a sentence announces an event only when it gives a day and a time of
//! day, the day is not before the reference day (a report's dates are past), it is no
//! deadline, opening-hours or closure line, and it says so: an announcing word
//! ([`ANNOUNCING`]: "tendrá lugar", "aura lieu", "findet … statt", "yapılacaktır", "will
//! be held", "join us", an event noun) or its date set in bold as the paragraph's lead.
//! A sentence listing days under one time ("los domingos 12, 19 y 26 de abril y 3 de
//! mayo, a las 12.30 horas") gives one event per day. Its title is the bold phrase of the
//! sentence that is not its date, else the post's heading.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, fold_diacritics, parse_text_date, parse_text_time};
use gleaner_event::time::{EventTime, parse_event_time};
use gleaner_event::{Markup, RawEvent};
use scraper::{ElementRef, Html};

use super::news::BYLINE_WORDS;
use super::price::{paragraph_price, price_into};
use super::words::{is_closure_line, is_publication_line, status_in};
use super::{in_chrome, sel, text_of};

/// Most blocks of a page read (bounded cost).
const MAX_BLOCKS: usize = 400;
/// Longest block text read, in bytes.
const MAX_BLOCK: usize = 2_000;
/// Most events one page gives from prose.
const MAX_EVENTS: usize = 40;

/// Folded stems of event nouns (`konser` in `konserini`, `concert` in `concerts`),
/// matched at the start of a folded word.
const EVENT_NOUNS: &[&str] = &[
    "concert",
    "workshop",
    "festival",
    "concierto",
    "taller",
    "charla",
    "atelier",
    "spectacle",
    "konzert",
    "vortrag",
    "versammlung",
    "konser",
    "soylesi",
    "gosteri",
    "dinleti",
    "recital",
];

/// Whether folded `words` announce an event: an [`ANNOUNCING`] phrase or an
/// [`EVENT_NOUNS`] stem.
fn announces(words: &[&str]) -> bool {
    ANNOUNCING.iter().any(|p| has_phrase(words, p))
        || words.iter().any(|w| EVENT_NOUNS.iter().any(|n| w.starts_with(n)))
}

/// Folded words and phrases that announce an event (invitation verbs in the future or
/// present, event nouns), in the five languages; matched on whole folded words.
const ANNOUNCING: &[&str] = &[
    // en
    "will be held",
    "will take place",
    "takes place",
    "join us",
    "will perform",
    "concert",
    "performance",
    "meeting",
    // es
    "tendra lugar",
    "se celebrara",
    "se celebra",
    "ofrecera",
    "ofreceran",
    "se realizara",
    "saldra",
    "actuara",
    // fr
    "aura lieu",
    "auront lieu",
    "a lieu",
    "ont lieu",
    "se tiendra",
    "rendez-vous",
    "vous invite",
    "conference",
    // de
    "findet",
    "finden",
    "statt",
    "laden",
    "beginnt",
    // tr
    "yapilacak",
    "yapilacaktir",
    "duzenlenecek",
    "duzenlenecektir",
    "gerceklestirilecek",
    "gerceklestirilecektir",
    "sahne alacak",
    "davetlidir",
    "davet ediyoruz",
    "baslayacak",
];

/// Folded words of a sentence that gives hours or a regime change, not an event ("from
/// April 6 it opens at 9:00 am instead of 10:00 am", "horario", "geöffnet").
const NOT_AN_EVENT: &[&str] = &[
    "opens",
    "open",
    "instead",
    "hours",
    "horario",
    "abierto",
    "abre",
    "ouvert",
    "ouverture",
    "geoffnet",
    "offnungszeiten",
    "acik",
    "kayit",
    "kayitlar",
    "inscripcion",
    "inscripciones",
    "inscription",
    "inscriptions",
    "anmeldung",
    "registration",
    // An exhibition's opening day (`sergi … açılacaktır`) gives its run, read elsewhere.
    "acilacak",
    "acilacaktir",
];

/// One event announced in prose: its start and title (`None`: the post's heading).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Announced {
    /// The start: a day and a local time.
    pub start: EventTime,
    /// The bold or quoted phrase naming it, when the sentence has one.
    pub title: Option<String>,
    /// The status the sentence or its card's heading states (`iptal`, `abgesagt`).
    pub status: Option<&'static str>,
    /// The link of its card's heading, when it has one.
    pub url: Option<String>,
    /// The price or free entry its paragraph states.
    pub price: Option<gleaner_event::PriceText>,
}

/// The one heading of a card a paragraph sits in: its text (a status badge left out), its
/// link and the status the badge states.
#[derive(Debug, Clone)]
struct CardHeading {
    /// The heading's text without its status word.
    title: String,
    /// The heading's link, resolved against nothing (as the page writes it).
    url: Option<String>,
    /// The status the heading states (`ERTELENDİ`).
    status: Option<&'static str>,
}

/// The heading of the card a paragraph sits in: its parent holds exactly one `h2`–`h4`,
/// before the paragraph (a news list's card, not a sectioned article).
fn card_heading(block: ElementRef<'_>) -> Option<CardHeading> {
    let parent = block.parent().and_then(ElementRef::wrap)?;
    let mut headings = parent
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|c| matches!(c.value().name(), "h2" | "h3" | "h4"));
    let h = headings.next()?;
    if headings.next().is_some() || h.id() > block.id() {
        return None;
    }
    let text = text_of(h);
    let status = status_in(&text);
    // A status badge after the title (`… Gösterisi ERTELENDİ`) is no part of it.
    let mut words: Vec<&str> = text.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|w| status_in(w).is_some()) {
        words.pop();
    }
    let title = words.join(" ");
    if title.is_empty() || title.chars().count() > 150 {
        return None;
    }
    let url = h.select(&sel("a[href]")).next().and_then(|a| super::item::link_target(a));
    Some(CardHeading { title, url, status })
}

/// What a page's sentences are read against.
#[derive(Debug, Clone, Copy)]
struct Context {
    /// The first day an announced event may fall on.
    reference: NaiveDate,
    /// The post's own day, which relative days count from.
    posted: Option<NaiveDate>,
    /// How the page writes numeric dates.
    order: DateOrder,
}

/// The events a page announces in its prose paragraphs (see the module), as raw events
/// titled by their bold phrase or the page's `<h1>`; empty when it announces none.
pub(super) fn prose_events(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
    page_url: Option<&str>,
) -> Vec<RawEvent> {
    let Some(reference) = reference else { return Vec::new() };
    // A post's dates before its own publication day are its story's; its relative days
    // ("bu akşam", "tomorrow", "Saturday") count from it.
    let posted = post_day(doc, order);
    let reference = posted.map_or(reference, |d| d.max(reference));
    let ctx = Context { reference, posted, order };
    let h1 = doc.select(&sel("h1")).map(text_of).find(|t| !t.is_empty() && t.len() <= 300);
    let mut out: Vec<RawEvent> = Vec::new();
    // The events titled by the post's heading, with the section heading above each: a post
    // of several such events gives each its section's (see below).
    let mut by_post_title: Vec<(usize, Option<String>)> = Vec::new();
    for block in doc.select(&sel("p, li")).take(MAX_BLOCKS) {
        if in_chrome(block) || block.select(&sel("p, li")).nth(1).is_some() {
            continue;
        }
        let events = block_events(block, &ctx);
        // A paragraph announcing one event places it where its sentence says (`… en la
        // Parroquia San José (Av. Bernardo O'Higgins 210), …`).
        let place = (events.len() == 1).then(|| super::place_line::written_place(block)).flatten();
        for a in events {
            if a.title.is_none() {
                by_post_title.push((out.len(), section_heading(block)));
            }
            let Some(name) = a.title.or_else(|| h1.clone()) else { continue };
            let start = a.start.to_iso();
            if out.iter().any(|r| r.start.as_deref() == Some(start.as_str())) {
                continue;
            }
            let mut raw = RawEvent {
                name: Some(name),
                start: Some(start),
                status: a.status.map(str::to_owned),
                url: a.url.or_else(|| page_url.map(str::to_owned)),
                markup: Markup::Text,
                ..RawEvent::default()
            };
            if let Some(p) = &a.price {
                price_into(p, &mut raw);
            }
            if let Some((name, address)) = &place {
                raw.location_name = Some(name.clone());
                raw.address_text = Some(address.clone());
            }
            out.push(raw);
            if out.len() >= MAX_EVENTS {
                break;
            }
        }
        if out.len() >= MAX_EVENTS {
            break;
        }
    }
    // Several events of one post cannot all be the post: each that its own section heads
    // (`<h3>Bayramlaşma</h3><p>22 Mart Pazar saat 14.00'te …</p>`) takes that heading.
    if by_post_title.len() >= 2 {
        for (i, heading) in by_post_title {
            if let (Some(raw), Some(heading)) = (out.get_mut(i), heading) {
                raw.name = Some(heading);
            }
        }
    }
    out
}

/// The heading of the section a paragraph sits in: the nearest `h2`–`h4` before it among
/// its earlier siblings (or its parent's, for a list item), when short and not a date
/// line; `None` when another paragraph-level heading is not found within a few siblings.
fn section_heading(block: ElementRef<'_>) -> Option<String> {
    let start = if block.value().name() == "li" {
        block.parent().and_then(ElementRef::wrap).unwrap_or(block)
    } else {
        block
    };
    let heading = start
        .prev_siblings()
        .filter_map(ElementRef::wrap)
        .take(6)
        .find(|e| matches!(e.value().name(), "h2" | "h3" | "h4"))?;
    let text = text_of(heading);
    let mut words: Vec<&str> = text.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|w| status_in(w).is_some()) {
        words.pop();
    }
    let title = words.join(" ");
    (!title.is_empty() && title.chars().count() <= 150).then_some(title)
}

/// Class words of the block that holds a post's publication date (`entry-date`,
/// `node__meta`, `published`, `post-date`).
const POST_DATE_CLASSES: &[&str] = &["date", "meta", "publi", "posted", "entry", "fecha"];

/// The day a post was published on: its `article:published_time` or `datePublished`, a
/// `<time datetime>` in a date or meta block, else a byline or publication line just
/// under its heading (`Por Lucía Arrieta · lunes 27 de julio de 2026, 08:15`,
/// `Published February 24, 2026`).
pub(super) fn post_day(doc: &Html, order: DateOrder) -> Option<NaiveDate> {
    let meta = sel(
        "meta[property='article:published_time'][content], meta[itemprop=datePublished][content], [itemprop=datePublished][datetime]",
    );
    let stated = doc
        .select(&meta)
        .filter_map(|m| m.value().attr("content").or_else(|| m.value().attr("datetime")))
        .find_map(parse_event_time);
    if let Some(t) = stated {
        return Some(t.date());
    }
    let classed = |el: ElementRef<'_>| {
        std::iter::once(el).chain(el.ancestors().filter_map(ElementRef::wrap).take(3)).any(|a| {
            a.value().attr("class").is_some_and(|c| {
                let c = c.to_ascii_lowercase();
                POST_DATE_CLASSES.iter().any(|w| c.contains(w))
            })
        })
    };
    let timed = doc
        .select(&sel("time[datetime]"))
        .take(50)
        .filter(|t| !in_chrome(*t) && classed(*t))
        .find_map(|t| t.value().attr("datetime").and_then(parse_event_time));
    if let Some(t) = timed {
        return Some(t.date());
    }
    let h1 = doc.select(&sel("h1")).next()?;
    doc.select(&sel("p, div, span"))
        .filter(|e| e.id() > h1.id() && e.select(&sel("p, div")).next().is_none())
        .take(3)
        .map(text_of)
        .filter(|t| t.chars().count() <= 160)
        .filter(|t| {
            let folded = fold_diacritics(t);
            let first = folded.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
            is_publication_line(t) || BYLINE_WORDS.contains(&first)
        })
        .find_map(|t| parse_text_date(&t, None, order).map(|d| d.start.date()))
}

/// The events one paragraph announces, sentence by sentence.
fn block_events(block: ElementRef<'_>, ctx: &Context) -> Vec<Announced> {
    let text = text_of(block);
    if text.len() > MAX_BLOCK || is_publication_line(&text) {
        return Vec::new();
    }
    let bolds: Vec<String> = block
        .select(&sel("strong, b, u"))
        .map(text_of)
        .filter(|t| !t.is_empty() && t.chars().count() <= 120)
        .collect();
    let dated = |t: &str| day_and_time(t, ctx).is_some();
    let mut out = Vec::new();
    let heading = card_heading(block);
    let all: Vec<(&str, &str)> = sentences(&text)
        .into_iter()
        .flat_map(|whole| {
            let clauses: Vec<&str> = whole.split_inclusive(';').map(str::trim).collect();
            clauses.into_iter().map(move |c| (c, whole))
        })
        .collect();
    let titled = |b: &str| {
        !dated(b)
            && !names_a_day(b)
            && parse_text_date(b, Some(ctx.reference), ctx.order).is_none()
            && b.chars().any(char::is_alphabetic)
            && b.split_whitespace().count() <= 12
            && !super::words::is_status_badge(b)
    };
    for (k, &(sentence, whole)) in all.iter().enumerate() {
        let bold_date = bolds.iter().any(|b| sentence.contains(b.as_str()) && dated(b));
        let days = announced_days(sentence, whole, ctx, bold_date);
        if days.is_empty() {
            continue;
        }
        let title = bolds
            .iter()
            .filter(|b| sentence.contains(b.as_str()))
            .find(|b| titled(b))
            .map(|b| capitalised(b.trim_end_matches([':', ',', '.', ' '])))
            .or_else(|| heading.as_ref().map(|h| h.title.clone()))
            // A bold date line alone (`<b>📌 Sábado 28 de marzo – 21:00 hrs.</b><br>`): the
            // name the next line opens with in bold or underlined (`<u>Gran Bingo</u> en…`).
            .or_else(|| {
                let (next, _) = all.get(k + 1).filter(|_| bold_date)?;
                bolds
                    .iter()
                    .find(|b| next.starts_with(b.as_str()) && titled(b))
                    .map(|b| capitalised(b.trim_end_matches([':', ',', '.', ' '])))
            })
            .or_else(|| {
                super::headings::dated_bold_title(&bolds, sentence, ctx.reference, ctx.order)
            })
            .or_else(|| quoted(sentence));
        let status = status_in(whole).or_else(|| heading.as_ref().and_then(|h| h.status));
        let url = heading.as_ref().and_then(|h| h.url.clone());
        out.extend(days.into_iter().map(|start| Announced {
            start,
            title: title.clone(),
            status,
            url: url.clone(),
            price: None,
        }));
    }
    // What the paragraph says its events cost (`Giriş ücretsizdir`, `Biletler tam 250 TL`).
    if !out.is_empty() {
        let price = paragraph_price(sentences(&text).into_iter());
        for a in &mut out {
            a.price.clone_from(&price);
        }
    }
    // A later sentence that gives only the time it starts at ("Yürüyüş 11.00'de
    // başlayacak", "the swim starts at 7 am") moves a single event's start to it: the
    // first time was a meeting's.
    if let [one] = out.as_mut_slice()
        && let EventTime::Floating(at) = one.start
        && let Some(time) = sentences(&text).into_iter().find_map(|s| starts_at(s, ctx))
    {
        one.start = EventTime::Floating(at.date().and_time(time));
    }
    out
}

/// Folded words saying when an event begins (`starts`, `başlayacak`, `beginnt`).
const STARTS: &[&str] = &[
    "starts",
    "begins",
    "start",
    "beginnt",
    "commence",
    "commencera",
    "debute",
    "comienza",
    "empieza",
    "comenzara",
    "empezara",
    "baslayacak",
    "baslar",
    "baslayacaktir",
];

/// The time a sentence says an event starts at when it names no day of its own.
fn starts_at(sentence: &str, ctx: &Context) -> Option<chrono::NaiveTime> {
    let folded = fold_diacritics(sentence);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).collect();
    if !words.iter().any(|w| STARTS.contains(w))
        || parse_text_date(sentence, Some(ctx.reference), ctx.order).is_some()
        || names_a_day(sentence)
    {
        return None;
    }
    match parse_text_time(sentence) {
        Some((t, None)) => Some(t),
        Some(_) => None,
        None => dotted_time(sentence),
    }
}

/// The one `HH.MM` or `HH:MM` time a sentence writes without an hour word (`11.00'de`),
/// read only where a start word says it is a time.
fn dotted_time(sentence: &str) -> Option<chrono::NaiveTime> {
    let mut found =
        sentence.split(|c: char| !c.is_ascii_digit() && c != '.' && c != ':').filter_map(|w| {
            let (h, m) = w.split_once(['.', ':'])?;
            if h.is_empty() || h.len() > 2 || m.len() != 2 {
                return None;
            }
            chrono::NaiveTime::from_hms_opt(h.parse().ok()?, m.parse().ok()?, 0)
        });
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The starts one sentence announces: each day it gives (one, or a list under one time)
/// at its time of day, none when it is no announcement (see the module).
fn announced_days(sentence: &str, whole: &str, ctx: &Context, bold_date: bool) -> Vec<EventTime> {
    if is_closure_line(sentence) {
        return Vec::new();
    }
    let folded = fold_diacritics(whole);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    if words.iter().any(|w| NOT_AN_EVENT.contains(w)) {
        return Vec::new();
    }
    if !bold_date && !announces(&words) {
        return Vec::new();
    }
    let Some(at) = day_and_time(sentence, ctx) else { return Vec::new() };
    let time = at.time();
    let mut days = listed_days(sentence, ctx.reference, ctx.order);
    if !days.contains(&at.date()) {
        days = vec![at.date()];
    }
    days.retain(|d| *d >= ctx.reference);
    days.into_iter().map(|d| EventTime::Floating(d.and_time(time))).collect()
}

/// The one day and time of day a text gives, on or after the reference: a written date
/// (not a run of days), else a day named relative to the post's ([`relative_day`]) and a
/// time.
fn day_and_time(text: &str, ctx: &Context) -> Option<chrono::NaiveDateTime> {
    let at = match parse_text_date(text, Some(ctx.reference), ctx.order) {
        Some(found) => {
            // A run of days is a season's or a course's span, not one event.
            if found.end.is_some_and(|e| e.date() != found.start.date()) {
                return None;
            }
            match found.start {
                EventTime::Floating(at) => at,
                // `22 Mart Pazar 14.00 – 17.00`: the bare time right after the date.
                EventTime::Date(day) => day.and_time(time_after_date(text, day, ctx)?),
                EventTime::Fixed(_) => return None,
            }
        }
        // A day written with its month or number is no relative day, even when its
        // written weekday disagrees with it (a report's "domingo 26 de julio").
        None if names_a_month(text, ctx) => return None,
        None => {
            let day = relative_day(&fold_diacritics(text), ctx.posted?)?;
            let (time, _) = parse_text_time(text)?;
            day.and_time(time)
        }
    };
    (at.date() >= ctx.reference).then_some(at)
}

/// Most words of a date written before its bare time (`22 Mart Pazar`, `Samstag, 14.
/// März 2026`).
const DATE_WORDS: usize = 5;

/// The bare dotted time (`14.00`, `9:30`, the start of `14.00 – 17.00`) a text writes
/// right after its date `day`: the words before the time's first digit end with that
/// date. A time elsewhere in the sentence is not the date's.
fn time_after_date(text: &str, day: NaiveDate, ctx: &Context) -> Option<chrono::NaiveTime> {
    let bytes = text.as_bytes();
    let at = (0..bytes.len()).find(|&i| {
        bytes[i].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_digit())
            && super::tables::cell_time(time_word(&text[i..])).is_some()
    })?;
    let before: Vec<&str> = text[..at].split_whitespace().collect();
    // The last word is the date's: a weekday, a month, a day number or a year.
    let last = before.last()?.trim_end_matches([',', '·', '-', '–', '.']);
    let date_word = gleaner_event::datetext::is_weekday(last)
        || gleaner_event::datetext::is_month_name(last)
        || (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()));
    let ends_with_date = date_word
        && (1..=DATE_WORDS.min(before.len())).any(|k| {
            let tail = before[before.len() - k..].join(" ");
            parse_text_date(
                tail.trim_end_matches([',', '·', '-', '–']),
                Some(ctx.reference),
                ctx.order,
            )
            .is_some_and(|d| d.start == EventTime::Date(day) && d.end.is_none())
        });
    let (t, _) = super::tables::cell_time(time_word(&text[at..]))?;
    ends_with_date.then_some(t)
}

/// A text's first word, without a suffix after an apostrophe (`14.00'te` → `14.00`) or
/// a trailing comma.
fn time_word(text: &str) -> &str {
    let w = text.split_whitespace().next().unwrap_or_default();
    let w = w.split(['\'', '’']).next().unwrap_or(w);
    w.trim_end_matches([',', ';', ')'])
}

/// Whether a text names a month (`juillet`, `Mart`, `Dez.`).
fn names_a_month(text: &str, ctx: &Context) -> bool {
    text.split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 3)
        .take(200)
        .any(|w| parse_text_date(&format!("1 {w}"), Some(ctx.reference), ctx.order).is_some())
}

/// Whether a text names a day by a weekday or a relative word (`önümüzdeki perşembe`,
/// `tomorrow`): no title.
fn names_a_day(text: &str) -> bool {
    let folded = fold_diacritics(text);
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(50)
        .collect();
    TODAY.iter().chain(TOMORROW).any(|p| has_phrase(&words, p))
        || words.iter().any(|w| w.len() >= 4 && gleaner_event::datetext::weekday_of(w).is_some())
}

/// Folded words that make a weekday a recurring one (`every Sunday`, `chaque dimanche`).
const EVERY: &[&str] = &["every", "each", "chaque", "tous", "cada", "todos", "jeden", "her"];

/// The weekday and the one time a page states for all its dated items in a sentence of
/// its own ("Les concerts ont lieu les dimanches de juillet et d'août à 15h", "los
/// domingos a las 12.30", "every Sunday at 3 pm"): a plural or `every` weekday, one time
/// of day, no day of the month, an announcing word; `None` when no sentence or two
/// different ones say so.
pub(super) fn stated_weekly_time(doc: &Html) -> Option<(chrono::Weekday, chrono::NaiveTime)> {
    let mut found = None;
    for block in doc.select(&sel("p")).take(MAX_BLOCKS) {
        let text = text_of(block);
        if in_chrome(block) || text.len() > MAX_BLOCK {
            continue;
        }
        for sentence in sentences(&text) {
            let Some(stated) = weekly_time(sentence) else { continue };
            if found.is_some_and(|f| f != stated) {
                return None;
            }
            found = Some(stated);
        }
    }
    found
}

/// The recurring weekday and time one sentence states (see [`stated_weekly_time`]).
fn weekly_time(sentence: &str) -> Option<(chrono::Weekday, chrono::NaiveTime)> {
    let statement = weekly_statement(sentence);
    let sentence = statement.as_str();
    if !sentence.bytes().any(|b| b.is_ascii_digit())
        || parse_text_date(sentence, Some(NaiveDate::MIN), DateOrder::DayFirst).is_some()
    {
        return None;
    }
    let folded = fold_diacritics(sentence);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).take(100).collect();
    if !announces(&words) || words.iter().any(|w| NOT_AN_EVENT.contains(w)) {
        return None;
    }
    let weekday_of = gleaner_event::datetext::weekday_of;
    let mut days = words.iter().enumerate().filter_map(|(i, w)| {
        if w.len() < 4 {
            return None;
        }
        // French writes a habit with the singular article (`ont lieu le vendredi à 19 h
        // 30`): a weekday after `le` and before no day number is every such day.
        // So does Spanish with the plural one (`son los viernes a las 22.00 h`).
        let habitual = i.checked_sub(1).is_some_and(|j| matches!(words[j], "le" | "los"))
            && words.get(i + 1).is_none_or(|n| !n.bytes().all(|b| b.is_ascii_digit()));
        let every = habitual || i.checked_sub(1).is_some_and(|j| EVERY.contains(&words[j]));
        match weekday_of(w) {
            Some(d) if every => Some(d),
            Some(_) => None,
            None => w.strip_suffix('s').and_then(weekday_of),
        }
    });
    let day = days.next()?;
    if days.any(|d| d != day) {
        return None;
    }
    match parse_text_time(sentence)? {
        (t, None) => Some((day, t)),
        _ => None,
    }
}

/// Words that open an exception to a statement for all events (`…, sauf la matinée du
/// samedi`, `except the Saturday matinée`), folded: what follows is not the statement.
const EXCEPT_WORDS: &[&str] = &["sauf", "except", "excepto", "salvo", "ausser", "haric", "disinda"];

/// The part of a sentence that states a weekly time: without its asides in brackets
/// (`(ouverture des portes à 19 h)`) and without the exception after `sauf`, `except`,
/// `excepto`, `außer` (which names another weekday).
fn weekly_statement(sentence: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in sentence.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    // The first exception word, found word by word on the text as written.
    let mut at = 0;
    for word in out.split(|c: char| !c.is_alphanumeric()) {
        let folded = fold_diacritics(word).to_lowercase();
        if EXCEPT_WORDS.contains(&folded.as_str()) {
            return out[..at].trim_end().trim_end_matches(',').to_owned();
        }
        at += word.len() + out[at + word.len()..].chars().next().map_or(0, char::len_utf8);
    }
    out
}

/// Folded words naming the post's own day (`tonight`, `ce soir`, `bu akşam`).
const TODAY: &[&str] = &[
    "tonight",
    "today",
    "this evening",
    "ce soir",
    "aujourd'hui",
    "esta noche",
    "esta tarde",
    "hoy",
    "heute",
    "heute abend",
    "bu aksam",
    "bu gece",
    "bugun",
];

/// Folded words naming the day after the post's (`tomorrow`, `demain`, `yarın`).
const TOMORROW: &[&str] = &["tomorrow", "demain", "yarin", "morgen"];

/// Folded words that make a weekday a past one (`last Saturday`, `geçen Cumartesi`).
const PAST_WEEKDAY: &[&str] = &["last", "dernier", "passe", "pasado", "letzten", "letzte", "gecen"];

/// The day a text names relative to the post's day `posted`: today's words, tomorrow's,
/// else a full weekday name (not a past one) as its next occurrence within the week.
fn relative_day(folded: &str, posted: NaiveDate) -> Option<NaiveDate> {
    use chrono::Datelike;
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .take(200)
        .collect();
    if TODAY.iter().any(|p| has_phrase(&words, p)) {
        return Some(posted);
    }
    if TOMORROW.iter().any(|p| has_phrase(&words, p)) {
        return posted.succ_opt();
    }
    let mut named = words.iter().enumerate().filter_map(|(i, w)| {
        let day = (w.len() >= 4).then(|| gleaner_event::datetext::weekday_of(w)).flatten()?;
        let past = i.checked_sub(1).is_some_and(|j| PAST_WEEKDAY.contains(&words[j]))
            || words
                .get(i + 1)
                .is_some_and(|n| PAST_WEEKDAY.contains(n) || n.chars().all(|c| c.is_ascii_digit()));
        Some((day, past))
    });
    let (day, past) = named.next()?;
    if past || named.next().is_some() {
        return None;
    }
    let ahead = (7 + day.num_days_from_monday() - posted.weekday().num_days_from_monday()) % 7;
    posted.checked_add_days(chrono::Days::new(u64::from(ahead)))
}

/// A phrase the sentence quotes (`“Cimri”`, `« Les Fourberies »`), as a title.
fn quoted(sentence: &str) -> Option<String> {
    let (open, close) =
        [('“', '”'), ('«', '»'), ('„', '“')].into_iter().find(|(o, _)| sentence.contains(*o))?;
    let rest = &sentence[sentence.find(open)? + open.len_utf8()..];
    let inner = rest[..rest.find(close)?].trim();
    (inner.chars().any(char::is_alphabetic) && inner.chars().count() <= 100)
        .then(|| inner.to_owned())
}

/// The days a sentence lists before one month name ("12, 19 y 26 de abril y 3 de mayo",
/// "5, 12 et 19 juillet", "8., 15. und 22. März"), in order; empty when it lists fewer
/// than two.
pub(super) fn listed_days(
    sentence: &str,
    reference: NaiveDate,
    order: DateOrder,
) -> Vec<NaiveDate> {
    let mut days = Vec::new();
    let mut pending: Vec<u32> = Vec::new();
    for word in sentence.split(|c: char| c.is_whitespace() || c == ',').take(200) {
        let w = word.trim_matches(|c: char| c == '.' || c == '(' || c == ')');
        if w.is_empty() {
            continue;
        }
        if let Ok(n) = w.parse::<u32>() {
            if (1..=31).contains(&n) && w.len() <= 2 {
                pending.push(n);
            } else {
                pending.clear();
            }
            continue;
        }
        let f = fold_diacritics(w);
        if matches!(f.as_str(), "y" | "et" | "and" | "und" | "ve" | "de" | "e") {
            continue;
        }
        if pending.is_empty() {
            // Other words after the list's days end it (`24 Nisan Cuma saat 22.00'de …
            // başlayacak, 26 Nisan Pazar akşamı dönüş`: a return, not a second day).
            if !days.is_empty() && !gleaner_event::datetext::is_weekday(&f) {
                break;
            }
            continue;
        }
        // A month name: each pending day in that month.
        let month_day = |d: u32| parse_text_date(&format!("{d} {w}"), Some(reference), order);
        if month_day(1).is_some() {
            for d in pending.drain(..) {
                if let Some(t) = month_day(d) {
                    days.push(t.start.date());
                }
            }
        } else if gleaner_event::datetext::is_weekday(&f) {
            continue;
        } else {
            pending.clear();
        }
    }
    if days.len() < 2 { Vec::new() } else { days }
}

/// Whether folded `words` hold `phrase` (one or more folded words) as whole words.
fn has_phrase(words: &[&str], phrase: &str) -> bool {
    let parts: Vec<&str> = phrase.split(' ').collect();
    words.windows(parts.len()).any(|w| w == parts.as_slice())
}

/// The sentences of a paragraph: split after `.`, `!` or `?` and a space before an
/// upper-case letter or a quote, not after a short abbreviation (`Dr.`, `No.`, `Cad.`).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        if !matches!(c, '.' | '!' | '?') {
            continue;
        }
        let (Some(&(_, space)), Some(&(_, next))) = (chars.get(i + 1), chars.get(i + 2)) else {
            continue;
        };
        if !space.is_whitespace() || !(next.is_uppercase() || "«“\"".contains(next)) {
            continue;
        }
        let before = &text[start..at];
        let last = before.rsplit(' ').next().unwrap_or_default();
        if c == '.'
            && last.chars().count() <= 3
            && last.chars().next().is_some_and(char::is_uppercase)
        {
            continue;
        }
        out.push(text[start..=at].trim());
        start = at + c.len_utf8();
    }
    let rest = text[start..].trim();
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

/// A title with its first letter in upper case (`procesión del Santo Entierro` →
/// `Procesión del Santo Entierro`).
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn ctx() -> Context {
        Context { reference: day(2026, 2, 26), posted: None, order: DateOrder::DayFirst }
    }

    fn starts(s: &str) -> Vec<String> {
        announced_days(s, s, &ctx(), false).into_iter().map(|t| t.to_iso()).collect()
    }

    #[test]
    fn sentences_that_announce_and_those_that_do_not() {
        // (sentence, starts announced)
        let table: &[(&str, &[&str])] = &[
            (
                "el concierto extraordinario de Santa Cecilia tendrá lugar el sábado 21 de noviembre a las 20.00 horas en el Auditorio Municipal",
                &["2026-11-21T20:00:00"],
            ),
            (
                "La Banda Municipal ofrecerá sus conciertos en el templete los domingos 12, 19 y 26 de abril y 3 de mayo, a las 12.30 horas.",
                &[
                    "2026-04-12T12:30:00",
                    "2026-04-19T12:30:00",
                    "2026-04-26T12:30:00",
                    "2026-05-03T12:30:00",
                ],
            ),
            (
                "Nevruz Şenliği 21 Mart Cumartesi günü saat 12.00'de cemevimizin bahçesinde yapılacak.",
                &["2026-03-21T12:00:00"],
            ),
            (
                "La conférence aura lieu le mercredi 8 avril à 18h30 à la salle des fêtes.",
                &["2026-04-08T18:30:00"],
            ),
            (
                "Das Konzert findet am 14. März 2026 um 19.30 Uhr in der Stadthalle statt.",
                &["2026-03-14T19:30:00"],
            ),
            // A report: the day is past.
            ("The council voted 6–1 on Tuesday, February 24, at 7 pm to approve the plan.", &[]),
            // Hours from a day on: no event.
            ("from April 6 it opens at 9:00 am instead of 10:00 am, Monday through Saturday.", &[]),
            // No announcing word: no event.
            ("On March 14 at 10 am the road will be closed to traffic.", &[]),
            // No time of day: no event.
            ("Construction of the new hall will take place on Monday, June 1, 2026.", &[]),
            // A deadline.
            ("Las inscripciones para el taller se cierran el 13 de marzo a las 14.00 horas.", &[]),
            // Issue 24, page 307: a bare dotted time right after its date.
            (
                "Ramazan Bayramı'nın üçüncü günü, 22 Mart Pazar 14.00 – 17.00 saatleri arasında lokalimizde bayramlaşma programı düzenlenecektir.",
                &["2026-03-22T14:00:00"],
            ),
            // A bare number elsewhere is no time of the date.
            ("Die Versammlung findet am 14. März im Raum 12.05 statt.", &[]),
            // A trip's return day is no second event.
            (
                "Geleneksel Çanakkale gezimiz bu yıl 24 Nisan Cuma saat 22.00'de Akçaova Otogarı'ndan hareketle başlayacak, 26 Nisan Pazar akşamı dönüş yapılacaktır.",
                &["2026-04-24T22:00:00"],
            ),
        ];
        for (sentence, want) in table {
            assert_eq!(starts(sentence), *want, "{sentence}");
        }
    }

    #[test]
    fn an_announcing_paragraph_places_its_event() {
        let html = "<h1>Programa de aniversario</h1><p><b>📌 Sábado 21 de marzo – 15:00 hrs.</b>\
            <br/><u>Cena de gala</u> en el Club Social Los Robles (Av. del Mar 120), con baile \
            y orquesta.</p>";
        let doc = Html::parse_document(html);
        let events = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].location_name.as_deref(), Some("Club Social Los Robles"));
        assert_eq!(events[0].address_text.as_deref(), Some("Av. del Mar 120"));
    }

    #[test]
    fn a_bold_lead_date_announces() {
        let s = "28 Mart Cumartesi, saat 20.00, Mamak Belediyesi Kültür Merkezi.";
        let got = announced_days(s, s, &ctx(), true);
        assert_eq!(got.len(), 1);
        assert!(starts(s).is_empty());
    }

    #[test]
    fn a_post_reports_what_came_before_its_own_day() {
        // (page, the post's day)
        let table: &[(&str, Option<NaiveDate>)] = &[
            (
                "<h1>Balance</h1><p>Por Lucía Arrieta · lunes 27 de julio de 2026, 08:15</p><p>El festival bajó el telón el domingo 26 de julio a las 23.45 h.</p>",
                Some(day(2026, 7, 27)),
            ),
            (
                "<h1>Haber</h1><div class=\"td-post-meta\"><time class=\"entry-date\" datetime=\"2026-02-25T09:30:12+03:00\">25 Şubat</time></div>",
                Some(day(2026, 2, 25)),
            ),
            ("<h1>Concert</h1><p>Samedi 4 avril à 20h30</p>", None),
        ];
        for (html, want) in table {
            let doc = Html::parse_document(html);
            assert_eq!(post_day(&doc, DateOrder::DayFirst), *want, "{html}");
        }
        let doc = Html::parse_document(table[0].0);
        assert!(prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None).is_empty());
    }

    #[test]
    fn days_named_relative_to_the_posts_day() {
        // Posted on Friday 27 February 2026. (sentence, start)
        let c = Context { posted: Some(day(2026, 2, 27)), ..ctx() };
        let table: &[(&str, Option<&str>)] = &[
            ("“Cimri” bu akşam saat 20.30'da sahnede; konser.", Some("2026-02-27T20:30:00")),
            ("“Pinokyo” yarın saat 15.00'te konser", Some("2026-02-28T15:00:00")),
            ("Join us on Sunday at 10:30 am at the clubhouse.", Some("2026-03-01T10:30:00")),
            ("Le concert de samedi dernier à 20h a réuni 300 personnes.", None),
            ("Join us at 10:30 am.", None),
        ];
        for (sentence, want) in table {
            let got = announced_days(sentence, sentence, &c, false).first().map(|t| t.to_iso());
            assert_eq!(got.as_deref(), *want, "{sentence}");
        }
        // Without the post's day, no relative day is read.
        assert!(announced_days(table[0].0, table[0].0, &ctx(), false).is_empty());
    }

    #[test]
    fn a_later_start_time_moves_the_start_and_a_day_is_no_title() {
        let html = "<h1>Haber</h1><div class=\"meta\"><time datetime=\"2026-02-27\">27.02.2026</time></div><p>Kulüp, <strong>Pazar günü saat 10.30'da</strong> Kent Ormanı girişinde buluşarak bir yürüyüş düzenliyor. Yürüyüş 11.00'de başlayacak.</p>";
        let doc = Html::parse_document(html);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].start.as_deref(), Some("2026-03-01T11:00:00"));
        assert_eq!(got[0].name.as_deref(), Some("Haber"));
        assert!(names_a_day("önümüzdeki perşembe"));
        assert_eq!(
            dotted_time("Yürüyüş 11.00'de başlayacak."),
            chrono::NaiveTime::from_hms_opt(11, 0, 0)
        );
        assert_eq!(dotted_time("1.200 kişi, 11.00 ve 12.30"), None);
        assert!(!names_a_day("Nevruz Şenliği"));
    }

    #[test]
    fn a_time_stated_for_every_weekday() {
        use chrono::{NaiveTime, Weekday};
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        // (sentence, weekday and time stated for all)
        let table: &[(&str, Option<(Weekday, NaiveTime)>)] = &[
            (
                "Les concerts ont lieu les dimanches de juillet et d'août à 15h et durent une heure.",
                Some((Weekday::Sun, at(15, 0))),
            ),
            (
                "Los conciertos se celebran los domingos a las 12.30 horas.",
                Some((Weekday::Sun, at(12, 30))),
            ),
            ("Join us every Saturday at 8 pm for the concert.", Some((Weekday::Sat, at(20, 0)))),
            // Issue 24, page 239: a weekday whose plural is its singular, and recitals.
            (
                "Todos los recitales son los viernes a las 22.00 h en nuestra sede (calle Ancha, 12).",
                Some((Weekday::Fri, at(22, 0))),
            ),
            // One Friday is no habit.
            ("El recital es el viernes a las 22.00 h.", None),
            // A dated sentence is one event's, not all.
            ("Le concert a lieu le dimanche 5 juillet à 15h.", None),
            // Opening hours.
            ("Le beffroi est ouvert les dimanches de 10h à 17h.", None),
            // No announcing word.
            ("Les dimanches à 15h, la place est piétonne.", None),
        ];
        for (sentence, want) in table {
            assert_eq!(weekly_time(sentence), *want, "{sentence}");
        }
    }

    #[test]
    fn a_weekly_time_stated_with_an_aside_or_an_exception() {
        // Issue 24 (page 277): `le vendredi` without a day number is every Friday; the
        // doors' time in brackets and the exception after `sauf` state nothing.
        use chrono::{NaiveTime, Weekday};
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        let table: &[(&str, Option<(Weekday, NaiveTime)>)] = &[
            (
                "Toutes les projections ont lieu le vendredi à 19 h 30 (ouverture des portes à 19 h), sauf la matinée jeunesse du samedi.",
                Some((Weekday::Fri, at(19, 30))),
            ),
            (
                "Concerts take place every Sunday at 3 pm, except the matinée on Saturday.",
                Some((Weekday::Sun, at(15, 0))),
            ),
            // A weekday with its day number is one date.
            ("Le concert a lieu le vendredi 6 mars à 20 h.", None),
        ];
        for (sentence, want) in table {
            assert_eq!(weekly_time(sentence), *want, "{sentence}");
        }
        assert_eq!(
            weekly_statement("Le club (fermé en août) ouvre, sauf le lundi."),
            "Le club  ouvre"
        );
    }

    #[test]
    fn several_events_of_one_post_take_their_sections_headings() {
        // Issue 24 (a held-out news post, page 307): a post of sections, each an `<h3>`
        // and a paragraph announcing its event, gives each event its section's heading;
        // a post of one such event keeps the post's title.
        let html = "<h1>Mart ve Nisan Etkinliklerimiz</h1><h3>Anma Töreni</h3><p>Tören 18 Mart Çarşamba günü saat 10.00'da şehitlikte yapılacaktır.</p><h3>Bayramlaşma</h3><p>Bayramlaşma 22 Mart Pazar günü saat 14.00'te dernek lokalinde yapılacaktır.</p>";
        let doc = Html::parse_document(html);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        let names: Vec<_> = got.iter().map(|r| r.name.as_deref()).collect();
        assert_eq!(names, [Some("Anma Töreni"), Some("Bayramlaşma")]);
        let one = "<h1>Bahar Konseri</h1><h3>Geçen ay</h3><p>Şubat ayında üç gezi yaptık.</p><h3>Program</h3><p>Konser 18 Mart Çarşamba günü saat 20.00'de yapılacaktır.</p>";
        let doc = Html::parse_document(one);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        assert_eq!(
            got.iter().map(|r| r.name.as_deref()).collect::<Vec<_>>(),
            [Some("Bahar Konseri")]
        );
    }

    #[test]
    fn a_cards_one_heading_titles_and_links_its_paragraph() {
        let html = "<h1>Duyurular</h1><div class=\"kart\"><div>12 Şubat 2026</div><div><h2><a href=\"/duyuru/halk-oyunlari\">23 Nisan Halk Oyunları Gösterisi <span>ERTELENDİ</span></a></h2><p>22 Nisan Çarşamba saat 15.00'te meydanda yapılması planlanan gösterisi ileri bir tarihe alınmıştır.</p></div></div><div><h2><a href=\"/duyuru/koro\">Koro Bahar Konseri</a></h2><p>Koro “Ege'den Türküler” konserini 27 Mart Cuma akşamı saat 20.00'de sunacaktır.</p></div>";
        let doc = Html::parse_document(html);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        let got: Vec<_> = got
            .iter()
            .map(|r| (r.name.as_deref(), r.start.as_deref(), r.url.as_deref(), r.status.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    Some("23 Nisan Halk Oyunları Gösterisi"),
                    Some("2026-04-22T15:00:00"),
                    Some("/duyuru/halk-oyunlari"),
                    Some("postponed")
                ),
                (
                    Some("Koro Bahar Konseri"),
                    Some("2026-03-27T20:00:00"),
                    Some("/duyuru/koro"),
                    None
                ),
            ]
        );
    }

    #[test]
    fn a_quoted_phrase_titles_a_sentence() {
        assert_eq!(quoted("Molière'in komedisi “Cimri”, bu akşam").as_deref(), Some("Cimri"));
        assert_eq!(quoted("no quote here"), None);
    }

    #[test]
    fn sentences_split_after_stops_not_abbreviations() {
        let got =
            sentences("Konuşmacı: Doç. Dr. Zeynep Karaca. Söyleşi ücretsizdir; saat 14.00'te.");
        assert_eq!(
            got,
            ["Konuşmacı: Doç. Dr. Zeynep Karaca.", "Söyleşi ücretsizdir; saat 14.00'te."]
        );
    }

    #[test]
    fn a_bold_date_line_titled_by_the_next_lines_lead() {
        // Issue 24, page 320: `<b>📌 Sábado 28 de marzo – 21:00 hrs.</b><br><u>Gran Bingo
        // Bailable</u> en el Gimnasio…`, as a blog post lists its programme.
        let html = "<html><body><h1>Aniversario</h1>\
            <p><b>Viernes 6 de marzo – 20:00 hrs.</b><br><u>Peña folclórica</u> en la sede del club, con empanadas.</p>\
            <p><b>Sábado 14 de marzo – 10:00 hrs.</b><br><strong>Corrida familiar</strong> desde la plaza.</p></body></html>";
        let doc = Html::parse_document(html);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        let names: Vec<_> = got.iter().map(|e| e.name.as_deref().unwrap_or_default()).collect();
        assert_eq!(names, ["Peña folclórica", "Corrida familiar"]);
        assert_eq!(got[0].start.as_deref(), Some("2026-03-06T20:00:00"));
    }

    #[test]
    fn a_paragraph_titles_its_event_by_its_bold_phrase() {
        let html = "<html><body><h1>Noticias</h1><p>Antes del ciclo, la banda participará en la <strong>procesión del Santo Entierro</strong>, que saldrá el Viernes Santo, 3 de abril, a las 21.00 horas de la parroquia.</p><p>El 24 de febrero a las 20.00 horas se celebró la gala.</p></body></html>";
        let doc = Html::parse_document(html);
        let got = prose_events(&doc, Some(day(2026, 2, 26)), DateOrder::DayFirst, None);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].name.as_deref(), Some("Procesión del Santo Entierro"));
        assert_eq!(got[0].start.as_deref(), Some("2026-04-03T21:00:00"));
    }
}
