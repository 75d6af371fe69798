//! Times stated away from an item's date (issue 24, written batches 170–209), and dates
//! that are not an event's.
//!
//! - a weekly statement (`Wednesdays at 1.10pm`, `tous les jeudis à 19h`, `jeden Freitag
//!   ab 20 Uhr`, `todos los sábados a las 22:00`, `Her cuma ve cumartesi 21.00'den
//!   itibaren`) gives its time to the date-only items of the list it introduces whose day
//!   is that weekday, when it states exactly one time for it ([`weekly_times`]);
//! - a date line's own bare time after the date (`5 MART PERŞEMBE · 21.30`), or the first
//!   time of the sentence after an inline date in a long paragraph (`Am <b>1. Mai</b> …
//!   Festbetrieb ab 13 Uhr`) starts a date-only item ([`time_after`]);
//! - an item that says the place is closed on its day, or that there is none this week
//!   (`No recital this week – the Nave is closed`, `19 Mart Perşembe kapalıyız`), or that
//!   its date opens a registration, is no event ([`says_no_event`]).

use chrono::{Datelike, NaiveDate, NaiveTime, Weekday};
use gleaner_event::datetext::{DateOrder, fold_diacritics, parse_text_date, parse_text_time};
use gleaner_event::time::parse_event_time;
use gleaner_event::{EventTime, RawEvent};
use scraper::ElementRef;

use super::roles::{before_start_only, clauses, listed_times, start_line};
use super::tables::cell_time;
use super::words::status_in;
use super::{in_chrome, text_of};

/// A time stated for one day of every week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Weekly {
    /// The weekday.
    pub(super) day: Weekday,
    /// Its start.
    pub(super) start: NaiveTime,
    /// Its end, when a range is stated (`von 7 bis 12.30 Uhr`).
    pub(super) end: Option<NaiveTime>,
}

/// Full weekday names in the five languages (folded, singular).
const DAY_NAMES: [(&str, Weekday); 36] = [
    ("monday", Weekday::Mon),
    ("tuesday", Weekday::Tue),
    ("wednesday", Weekday::Wed),
    ("thursday", Weekday::Thu),
    ("friday", Weekday::Fri),
    ("saturday", Weekday::Sat),
    ("sunday", Weekday::Sun),
    ("lundi", Weekday::Mon),
    ("mardi", Weekday::Tue),
    ("mercredi", Weekday::Wed),
    ("jeudi", Weekday::Thu),
    ("vendredi", Weekday::Fri),
    ("samedi", Weekday::Sat),
    ("dimanche", Weekday::Sun),
    ("montag", Weekday::Mon),
    ("dienstag", Weekday::Tue),
    ("mittwoch", Weekday::Wed),
    ("donnerstag", Weekday::Thu),
    ("freitag", Weekday::Fri),
    ("samstag", Weekday::Sat),
    ("sonnabend", Weekday::Sat),
    ("sonntag", Weekday::Sun),
    ("lunes", Weekday::Mon),
    ("martes", Weekday::Tue),
    ("miercoles", Weekday::Wed),
    ("jueves", Weekday::Thu),
    ("viernes", Weekday::Fri),
    ("sabado", Weekday::Sat),
    ("domingo", Weekday::Sun),
    ("pazartesi", Weekday::Mon),
    ("sali", Weekday::Tue),
    ("carsamba", Weekday::Wed),
    ("persembe", Weekday::Thu),
    ("cuma", Weekday::Fri),
    ("cumartesi", Weekday::Sat),
    ("pazar", Weekday::Sun),
];

/// Words that make the weekday after them every week's (folded): `every`, `each`, `tous
/// les`, `chaque`, `jeden`, `todos los`, `cada`, `her`; an article before a plural (`les
/// jeudis`, `los sábados`).
const EVERY_WEEK: &[&str] =
    &["every", "each", "chaque", "jeden", "jede", "jeweils", "immer", "cada", "her", "les", "los"];

/// Words before a weekday that make it not every week's (folded): ordinals and `other`
/// (`first Monday of the month`, `jeden zweiten Montag`, `un jeudi sur deux`).
const NOT_WEEKLY: &[&str] = &[
    "first",
    "second",
    "third",
    "fourth",
    "last",
    "other",
    "alternate",
    "premier",
    "deuxieme",
    "troisieme",
    "dernier",
    "erster",
    "ersten",
    "zweiten",
    "dritten",
    "letzten",
    "primer",
    "primero",
    "segundo",
    "tercer",
    "ultimo",
    "ilk",
    "son",
    "ikinci",
    "1st",
    "2nd",
    "3rd",
    "4th",
];

/// Words that join weekdays sharing a time (folded): `Tuesdays and Thursdays`, `cuma ve
/// cumartesi`.
const JOINS: &[&str] = &["and", "et", "und", "y", "e", "ve", "&", "or", "ou", "oder", "o", "veya"];

/// The weekday a word names, and whether it is written as a plural (`Wednesdays`,
/// `jeudis`, `freitags`, `sábados`, `cumaları`).
fn day_word(word: &str) -> Option<(Weekday, bool)> {
    let find = |w: &str| DAY_NAMES.iter().find(|(n, _)| *n == w).map(|(_, d)| *d);
    if let Some(d) = find(word) {
        return Some((d, false));
    }
    let plural = word
        .strip_suffix("leri")
        .or_else(|| word.strip_suffix("lari"))
        .or_else(|| word.strip_suffix('s'))?;
    find(plural).map(|d| (d, true))
}

/// A text's words (folded, lower-cased) with their byte ranges in the folded text.
fn words(folded: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in folded.char_indices().chain(std::iter::once((folded.len(), ' '))) {
        match (c.is_alphanumeric() || c == '&', start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                out.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Whether the text after a weekly statement ends its sentence at `i` (`.` before a
/// space that no digit comes before, `;`, `!`, `?`).
fn sentence_end(text: &str, i: usize, c: char) -> bool {
    let next_space = text[i + c.len_utf8()..].chars().next().is_none_or(char::is_whitespace);
    let after_digit = text[..i].chars().next_back().is_some_and(|p| p.is_ascii_digit());
    matches!(c, ';' | '!' | '?') || c == '.' && next_space && !after_digit
}

/// The one time (or range) a clause after a weekly statement gives: `at 1.10pm`, `à 19h`,
/// `ab 20 Uhr`, `a las 22:00`, `akşamı 21.00'den itibaren`; `None` when it lists two
/// or more (`at 11am and 2pm`).
fn clause_time(clause: &str) -> Option<(NaiveTime, Option<NaiveTime>)> {
    // From its first digit: a label before the list (`at 11am and 2pm`) is no time.
    let times = clause.find(|c: char| c.is_ascii_digit()).map_or("", |at| &clause[at..]);
    if listed_times(times).len() >= 2 {
        return None;
    }
    parse_text_time(clause).or_else(|| {
        clause.split_whitespace().find_map(|w| {
            let bare = w.split(['\'', '’']).next().unwrap_or(w);
            cell_time(bare.trim_end_matches(['h', 'H']).trim()).or_else(|| cell_time(bare))
        })
    })
}

/// Most words between a weekly statement's weekday and its time (`akşamı`, `à partir
/// de`, `from`).
const MAX_LEAD_WORDS: usize = 4;

/// The times a text states for days of every week, at most one per weekday: a weekday
/// made weekly ([`EVERY_WEEK`], a plural), maybe joined to others, then within its
/// sentence one time. A weekday stated with two times, or twice with different ones, and
/// a statement whose sentence gives a date (`every Friday until 27 March`) give none.
pub(super) fn weekly_times(text: &str) -> Vec<Weekly> {
    let folded = fold_diacritics(text).to_lowercase();
    let ws = words(&folded);
    let word = |i: usize| ws.get(i).map(|(a, b)| &folded[*a..*b]);
    let far = NaiveDate::from_ymd_opt(1970, 1, 1);
    let mut found: Vec<Weekly> = Vec::new();
    let mut void: Vec<Weekday> = Vec::new();
    let mut i = 0;
    while i < ws.len() {
        let Some((day, plural)) = word(i).and_then(day_word) else {
            i += 1;
            continue;
        };
        let before = i.checked_sub(1).and_then(word);
        let before2 = i.checked_sub(2).and_then(word);
        let quantified = before.is_some_and(|w| EVERY_WEEK.contains(&w));
        // `les`/`los` make a plural weekly; `every`/`her` any weekday.
        // (Spanish writes `los lunes` to `los viernes` as the singular.)
        let weekly = if before == Some("les") {
            plural || before2 == Some("tous")
        } else if before == Some("los") {
            true
        } else {
            quantified || plural
        };
        let ordinal = [before, before2].into_iter().flatten().any(|w| NOT_WEEKLY.contains(&w));
        if !weekly || ordinal {
            i += 1;
            continue;
        }
        // Other weekdays joined to it share its time.
        let mut days = vec![day];
        let mut j = i + 1;
        while word(j).is_some_and(|w| JOINS.contains(&w)) {
            let k = if word(j + 1) == Some("on") { j + 2 } else { j + 1 };
            match word(k).and_then(day_word) {
                Some((d, _)) => {
                    days.push(d);
                    j = k + 1;
                }
                None => break,
            }
        }
        // The statement's sentence after its last weekday, up to the next weekday.
        let from = ws[j - 1].1;
        let mut to = folded.len();
        for (at, c) in folded[from..].char_indices() {
            if sentence_end(&folded, from + at, c) {
                to = from + at;
                break;
            }
        }
        if let Some(next) =
            ws[j..].iter().find(|(a, b)| *a < to && day_word(&folded[*a..*b]).is_some())
        {
            to = next.0;
        }
        let rest = &folded[from..to];
        i = j;
        if parse_text_date(rest, far, DateOrder::default()).is_some() {
            continue;
        }
        let line = start_line(rest);
        let Some((a, b)) =
            clauses(&line).into_iter().find(|(a, b)| clause_time(&line[*a..*b]).is_some())
        else {
            continue;
        };
        let lead = words(&line[..a]).len() + words(&line[a..b]).len();
        let clause = &line[a..b];
        if lead > MAX_LEAD_WORDS + 4 || before_start_only(clause) {
            continue;
        }
        let Some((start, end)) = clause_time(clause) else { continue };
        for day in days {
            match found.iter().position(|w| w.day == day) {
                Some(at) if found[at].start != start || found[at].end != end => {
                    found.remove(at);
                    void.push(day);
                }
                Some(_) => {}
                None if void.contains(&day) => {}
                None => found.push(Weekly { day, start, end }),
            }
        }
    }
    found
}

/// How many levels above a list its introduction is looked for.
const INTRO_LEVELS: usize = 3;

/// The weekly times a list's introduction states: the text of the elements before the
/// list (and before its parents, up to [`INTRO_LEVELS`] up) back to the heading that
/// opens its section (`<h2>Lunchtime organ recitals</h2><p>Wednesdays at
/// <strong>1.10pm</strong> …</p><table>…`), outside the page's chrome.
pub(super) fn list_intro_times(list: ElementRef<'_>) -> Vec<Weekly> {
    let mut intro = Vec::new();
    let mut at = Some(list);
    'levels: for _ in 0..INTRO_LEVELS {
        let Some(el) = at else { break };
        for sib in el.prev_siblings().filter_map(ElementRef::wrap).take(10) {
            if matches!(sib.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
                break 'levels;
            }
            if !in_chrome(sib) && !matches!(sib.value().name(), "nav" | "header" | "footer") {
                intro.push(text_of(sib));
            }
        }
        at = el.parent().and_then(ElementRef::wrap);
    }
    intro.reverse();
    weekly_times(&intro.join(". "))
}

/// Gives each date-only event on a weekday a weekly time is stated for that time.
pub(super) fn apply_weekly(events: &mut [RawEvent], weekly: &[Weekly]) {
    for raw in events.iter_mut().filter(|r| r.end.is_none()) {
        let Some(EventTime::Date(day)) = raw.start.as_deref().and_then(parse_event_time) else {
            continue;
        };
        let Some(w) = weekly.iter().find(|w| w.day == day.weekday()) else { continue };
        let start = EventTime::Floating(day.and_time(w.start));
        raw.start = Some(start.to_iso());
        raw.end =
            w.end.filter(|e| *e > w.start).map(|e| EventTime::Floating(day.and_time(e)).to_iso());
    }
}

/// The start a date-only item's date gives after itself: a clause of its own line that
/// is only a time (`5 MART PERŞEMBE · 21.30`), else, when the date is set inline in a
/// longer block, the first time of the rest of the date's sentence or of the next one
/// (`Am 1. Mai stellen wir … auf. Festbetrieb ab 13 Uhr`), unless a date comes first.
/// Times before the start give way (`Einlass 19 Uhr`).
pub(super) fn time_after(
    line: &str,
    block: Option<&str>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(NaiveTime, Option<NaiveTime>)> {
    let own = start_line(line);
    let bare: Vec<(NaiveTime, Option<NaiveTime>)> = clauses(&own)
        .into_iter()
        .skip(1)
        .map(|(a, b)| own[a..b].trim())
        .filter(|c| !c.is_empty() && parse_text_date(c, reference, order).is_none())
        .filter_map(|c| {
            // A status badge beside the time is not part of it (`21.30 İPTAL`).
            let kept: Vec<&str> = c.split_whitespace().filter(|w| status_in(w).is_none()).collect();
            let c = kept.join(" ");
            let c = c.split(['\'', '’']).next().unwrap_or(&c);
            cell_time(c.trim_end_matches(['h', 'H']).trim()).or_else(|| cell_time(c))
        })
        .collect();
    if let [one] = bare.as_slice() {
        return Some(*one);
    }
    if !bare.is_empty() {
        return None;
    }
    let block = block?;
    let at = block.find(line.trim())? + line.trim().len();
    let rest = &block[at..];
    let mut sentences = Vec::new();
    let mut from = 0;
    for (i, c) in rest.char_indices() {
        if sentence_end(rest, i, c) {
            sentences.push(&rest[from..i]);
            from = i + c.len_utf8();
            if sentences.len() == 2 {
                break;
            }
        }
    }
    if sentences.len() < 2 {
        sentences.push(&rest[from..]);
    }
    for s in sentences.into_iter().take(2) {
        if parse_text_date(s, reference, order).is_some() {
            return None;
        }
        let s = start_line(s);
        if before_start_only(&s) {
            continue;
        }
        // One time stated (a range is one): with two (`Social from 6:30 p.m., the meeting
        // starts at 7 p.m.`) which starts the event is not said.
        let timed =
            clauses(&s).into_iter().filter(|(a, b)| clause_time(&s[*a..*b]).is_some()).count();
        match parse_text_time(&s) {
            Some(t) if timed == 1 => return Some(t),
            Some(_) => return None,
            None => {}
        }
    }
    None
}

/// Words that say the place is closed (lower-cased, whole words; not folded: `fermé`
/// folded is `ferme`, a farm).
const CLOSED: &[&str] = &[
    "closed",
    "fermé",
    "fermée",
    "fermés",
    "fermées",
    "geschlossen",
    "cerrado",
    "cerrada",
    "cerrados",
    "cerramos",
    "kapalı",
    "kapali",
    "kapalıyız",
    "kapaliyiz",
    "kapalıdır",
    "kapalidir",
];

/// Phrases that say a date is none of an event's (folded): no performance this week, a
/// registration opening.
const NONE_PHRASES: &[&str] = &[
    "this week",
    "cette semaine",
    "diese woche",
    "dieser woche",
    "esta semana",
    "bu hafta",
    "registration opens",
    "registrations open",
    "ouverture des inscriptions",
    "inscriptions ouvertes",
    "anmeldestart",
    "apertura de inscripciones",
    "inscripciones abiertas",
    "kayitlar basliyor",
    "kayitlar aciliyor",
];

/// Words after which a date ends a run (folded): `until the week of April 13`, `jusqu'au
/// 27 mars`, `bis zum 3. Mai`, `hasta el 30 de abril`.
const UNTIL: &[&str] = &["until", "till", "through", "thru", "jusqu", "jusqua", "bis", "hasta"];

/// Whether a sentence gives `day` only as the end of a run: the words after an
/// [`UNTIL`] word (or the few before Turkish `kadar`/`dek`, `13 Nisan'a kadar`) read as
/// that day, and the words before it give no date.
fn ends_a_run(s: &str, day: NaiveDate, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    let ws = words(s);
    let reads_day =
        |t: &str| parse_text_date(t, reference, order).is_some_and(|d| d.start.date() == day);
    ws.iter().enumerate().any(|(i, (a, b))| {
        let w = &s[*a..*b];
        if UNTIL.contains(&w) {
            reads_day(&s[*b..]) && parse_text_date(&s[..*a], reference, order).is_none()
        } else if matches!(w, "kadar" | "dek") {
            let from = ws[i.saturating_sub(3)].0;
            reads_day(&s[from..*a]) && parse_text_date(&s[..from], reference, order).is_none()
        } else {
            false
        }
    })
}

/// Whether a line's date is only the end of a run (`Venta de tiques hasta el miércoles 12
/// de agosto`): a listing item's date is never read from it.
pub(super) fn only_ends_a_run(line: &str, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    let folded = fold_diacritics(line).to_lowercase();
    parse_text_date(&folded, reference, order)
        .is_some_and(|d| d.end.is_none() && ends_a_run(&folded, d.start.date(), reference, order))
}

/// Words that negate what follows (folded): `No recital this week`, `Pas de concert cette
/// semaine`, `Keine Probe diese Woche`, `No hay recital esta semana`, `bu hafta yok`.
const NEGATIONS: &[&str] = &["no", "pas", "kein", "keine", "ningun", "ninguna", "yok"];

/// Whether one of an item's lines says its day is none of an event's: a sentence that
/// says the place is closed ([`CLOSED`]) on the item's day, written as that one day
/// (`Arife günü 19 Mart Perşembe kapalıyız`; hours `pazartesi kapalı` or a run of days
/// say nothing of it); a sentence that says there is none this week (a negation and
/// `this week`); a sentence that opens a registration on the item's day.
pub(super) fn says_no_event<'a>(
    lines: impl IntoIterator<Item = &'a str>,
    day: NaiveDate,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> bool {
    lines.into_iter().flat_map(after_times).any(|line| {
        let lower = line.to_lowercase();
        let mut from = 0;
        let mut sentences = Vec::new();
        for (i, c) in lower.char_indices() {
            if sentence_end(&lower, i, c) {
                sentences.push(&lower[from..i]);
                from = i + c.len_utf8();
            }
        }
        sentences.push(&lower[from..]);
        sentences.into_iter().any(|s| {
            let folded = fold_diacritics(s);
            let ws: Vec<&str> = words(&folded).into_iter().map(|(a, b)| &folded[a..b]).collect();
            let on_day = || {
                parse_text_date(s, reference, order)
                    .is_some_and(|d| d.start.date() == day && d.end.is_none())
            };
            let closed = s.split(|c: char| !c.is_alphanumeric()).any(|w| CLOSED.contains(&w));
            let negated = ws.iter().any(|w| NEGATIONS.contains(w));
            let week = NONE_PHRASES[..6].iter().any(|p| folded.contains(p));
            let registration = NONE_PHRASES[6..].iter().any(|p| folded.contains(p));
            closed && on_day()
                || negated && week
                || registration && on_day()
                || ends_a_run(&folded, day, reference, order)
        })
    })
}

/// A line cut after each time that ends a sentence (`… Cumartesi saat 21.00. Arife günü
/// kapalıyız.`): the sentence after it says nothing of the time's day. A dot after a day
/// number (`2. günü`, `19. März`) ends nothing.
fn after_times(line: &str) -> Vec<&str> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    for i in 4..b.len().saturating_sub(2) {
        let time = b[i - 1].is_ascii_digit()
            && b[i - 2].is_ascii_digit()
            && matches!(b[i - 3], b'.' | b':')
            && b[i - 4].is_ascii_digit();
        if b[i] == b'.' && b[i + 1] == b' ' && time {
            let next = line[i + 2..].chars().next();
            if next.is_some_and(char::is_uppercase) {
                out.push(&line[from..=i]);
                from = i + 2;
            }
        }
    }
    out.push(&line[from..]);
    out
}

/// Weekday abbreviations a times cell writes (folded, without their dot), in the five
/// languages: `ven. 20h30`, `Sa 20 Uhr`, `sáb 22:00`, `Cmt 21.00`.
const DAY_ABBREVIATIONS: [(&str, Weekday); 37] = [
    ("mon", Weekday::Mon),
    ("tue", Weekday::Tue),
    ("tues", Weekday::Tue),
    ("wed", Weekday::Wed),
    ("thu", Weekday::Thu),
    ("thur", Weekday::Thu),
    ("thurs", Weekday::Thu),
    ("fri", Weekday::Fri),
    ("sat", Weekday::Sat),
    ("sun", Weekday::Sun),
    ("lun", Weekday::Mon),
    ("mar", Weekday::Tue),
    ("mer", Weekday::Wed),
    ("jeu", Weekday::Thu),
    ("ven", Weekday::Fri),
    ("sam", Weekday::Sat),
    ("dim", Weekday::Sun),
    ("mo", Weekday::Mon),
    ("di", Weekday::Tue),
    ("mi", Weekday::Wed),
    ("do", Weekday::Thu),
    ("fr", Weekday::Fri),
    ("sa", Weekday::Sat),
    ("so", Weekday::Sun),
    ("mie", Weekday::Wed),
    ("jue", Weekday::Thu),
    ("vie", Weekday::Fri),
    ("sab", Weekday::Sat),
    ("dom", Weekday::Sun),
    ("pzt", Weekday::Mon),
    ("sal", Weekday::Tue),
    ("car", Weekday::Wed),
    ("per", Weekday::Thu),
    ("cum", Weekday::Fri),
    ("cmt", Weekday::Sat),
    ("paz", Weekday::Sun),
    ("pts", Weekday::Mon),
];

/// A range of hours (`09.00 – 17.30`, `10–18 uhr`, `de 9h a 14h`, `10:00 to 18:00`).
static HOURS_RANGE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"\b\d{1,2}(?:[.:h]\d{2}|h)?\s*(?:uhr|h)?\s*(?:–|—|-|\ba\b|\bbis\b|\bto\b)\s*\d{1,2}(?:[.:h]\d{2})?\s*(?:uhr|h\b|pm|am)?",
    )
    .expect("a constant regex")
});

/// Phrases that make a cell's times every day's (folded).
const EVERY_DAY: &[&str] = &[
    "chaque jour",
    "tous les jours",
    "every day",
    "each day",
    "daily",
    "taglich",
    "jeweils",
    "todos los dias",
    "cada dia",
    "her gun",
];

/// Words that say a weekday has no performance (folded): `relâche le jeudi`.
const DAY_OFF: &[&str] =
    &["relache", "closed", "ruhetag", "geschlossen", "descanso", "cerrado", "kapali", "tatil"];

/// The times a cell gives by weekday (`ven. 20h30 sam. 15h et 20h30 dim. 15h`, `mer. 15h
/// ven. 20h30 relâche le jeudi`), or for every day (`15h et 18h chaque jour`, weekday
/// `None`). A weekday segment without a time is a day off only when the cell says so
/// ([`DAY_OFF`]); otherwise, or with fewer than two weekdays, the cell gives none.
pub(super) fn day_times(text: &str) -> Option<Vec<(Option<Weekday>, Vec<NaiveTime>)>> {
    let folded = fold_diacritics(text).to_lowercase();
    let times_of = |t: &str| -> Vec<NaiveTime> {
        let t = t.trim();
        let listed = listed_times(t);
        if !listed.is_empty() {
            return listed;
        }
        match parse_text_time(t) {
            Some((t1, None)) => vec![t1],
            Some(_) => Vec::new(),
            None => clause_time(t).map(|(t1, _)| vec![t1]).unwrap_or_default(),
        }
    };
    if let Some(p) = EVERY_DAY.iter().find(|p| folded.contains(*p)) {
        let rest = folded.replace(p, " ");
        // Hours kept every day (`her gün 09.00 – 17.30 arasında açıktır`, `täglich 10–18
        // Uhr`): opening hours, no performances.
        if HOURS_RANGE.is_match(&rest) {
            return None;
        }
        let times = times_of(&rest);
        let has_day = words(&rest).iter().any(|(a, b)| day_word(&rest[*a..*b]).is_some());
        return (!times.is_empty() && !has_day).then(|| vec![(None, times)]);
    }
    let day_of = |w: &str| {
        day_word(w)
            .map(|(d, _)| d)
            .or_else(|| DAY_ABBREVIATIONS.iter().find(|(a, _)| *a == w).map(|(_, d)| *d))
    };
    let ws = words(&folded);
    let mut segments: Vec<(Weekday, usize, usize)> = Vec::new();
    for (a, b) in &ws {
        if let Some(d) = day_of(&folded[*a..*b]) {
            if let Some(last) = segments.last_mut() {
                last.2 = *a;
            }
            segments.push((d, *b, folded.len()));
        } else if segments.is_empty() {
            // Text before the first weekday: not a times cell.
            return None;
        }
    }
    if segments.len() < 2 {
        return None;
    }
    let off = ws.iter().any(|(a, b)| DAY_OFF.contains(&&folded[*a..*b]));
    let mut out = Vec::new();
    for (day, a, b) in segments {
        let times = times_of(&folded[a..b]);
        if times.is_empty() && !off {
            return None;
        }
        if !times.is_empty() {
            out.push((Some(day), times));
        }
    }
    Some(out)
}

/// The days a date line names around `start`: each day of its run (`du vendredi 6 au
/// dimanche 8 mars`), else each day whose number it writes within two weeks of the first
/// (`mercredi 18 et vendredi 20 mars`).
fn line_days(line: &str, start: NaiveDate, end: Option<NaiveDate>) -> Vec<NaiveDate> {
    if let Some(end) = end.filter(|e| *e >= start && (*e - start).num_days() <= 14) {
        return start.iter_days().take_while(|d| *d <= end).collect();
    }
    // Whole words of one or two digits (`18`, `1er`, `6.`): not a time's (`20h30`).
    let numbers: Vec<u32> = line
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')'))
        .map(|w| w.trim_end_matches('.').trim_end_matches("er"))
        .filter(|n| (1..=2).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()))
        .filter_map(|n| n.parse().ok())
        .collect();
    // And numeric dates (`Fr. 13.11.2026 und Sa. 14.11.2026`).
    let written: Vec<NaiveDate> = line
        .split_whitespace()
        .filter(|w| w.bytes().filter(u8::is_ascii_digit).count() >= 6)
        .filter_map(|w| parse_text_date(w, None, DateOrder::default()))
        .map(|d| d.start.date())
        .collect();
    start
        .iter_days()
        .take(15)
        .filter(|d| numbers.contains(&d.day()) || written.contains(d))
        .collect()
}

/// One item's performances from a times-by-weekday cell: for each day its date line
/// names, the cell's times for that weekday (or every day's), in order; empty without
/// such a cell or when it names no day of the line.
pub(super) fn performances_by_weekday(
    cells: &[String],
    line: &str,
    start: NaiveDate,
    end: Option<NaiveDate>,
) -> Vec<EventTime> {
    // Doors give way to the start (`jeweils Einlass 19 Uhr · Beginn 20 Uhr`).
    let Some(by_day) = cells.iter().find_map(|c| day_times(&start_line(c))) else {
        return Vec::new();
    };
    line_days(line, start, end)
        .into_iter()
        .flat_map(|d| {
            by_day
                .iter()
                .filter(|(w, _)| w.is_none_or(|w| w == d.weekday()))
                .flat_map(|(_, ts)| ts.iter().map(move |t| EventTime::Floating(d.and_time(*t))))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Weekly, says_no_event, time_after, weekly_times};
    use chrono::{NaiveDate, NaiveTime, Weekday};
    use gleaner_event::datetext::DateOrder;

    fn t(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    fn w(day: Weekday, h: u32, m: u32) -> Weekly {
        Weekly { day, start: t(h, m), end: None }
    }

    #[test]
    fn weekly_statements_in_five_languages() {
        use Weekday::{Fri, Sat, Sun, Thu, Tue, Wed};
        let cases: &[(&str, Vec<Weekly>)] = &[
            ("Wednesdays at 1.10pm, lasting about 40 minutes.", vec![w(Wed, 13, 10)]),
            ("Lunchtime organ recitals every Wednesday at 1.10pm", vec![w(Wed, 13, 10)]),
            ("Bal folk tous les jeudis à 19h au foyer.", vec![w(Thu, 19, 0)]),
            ("Offene Bühne jeden Freitag ab 20 Uhr", vec![w(Fri, 20, 0)]),
            ("Milonga todos los sábados a las 22:00", vec![w(Sat, 22, 0)]),
            (
                "Her cuma ve cumartesi akşamı 21.00'den itibaren Fasıl Heyeti masalarınızda.",
                vec![w(Fri, 21, 0), w(Sat, 21, 0)],
            ),
            ("Tuesdays and Thursdays at 9:30 a.m.", vec![w(Tue, 9, 30), w(Thu, 9, 30)]),
            ("Pazarları saat 16.00'da çocuk atölyesi", vec![w(Sun, 16, 0)]),
            // Two times for one day, or a range of days, say no one start.
            ("Tower tours: Saturdays at 11am and 2pm, April to October", vec![]),
            ("Tuesday to Saturday at 5.30pm and on Sundays at 3.30pm", vec![w(Sun, 15, 30)]),
            // Not every week: an ordinal, a singular day, a date in the sentence.
            ("Die Mannschaft übt jeden zweiten Montag um 19:00 Uhr", vec![]),
            ("first and third Wednesdays of the month at 7pm", vec![]),
            ("Thursday at 7pm in the hall", vec![]),
            ("chaque vendredi de 19h à 22h jusqu'au 27 mars", vec![]),
            // Stated twice with different times: none.
            ("Fridays at 7pm. Fridays at 9pm.", vec![]),
        ];
        for (text, want) in cases {
            let got: Vec<Weekly> =
                weekly_times(text).into_iter().map(|w| Weekly { end: None, ..w }).collect();
            assert_eq!(&got, want, "{text}");
        }
        let range = weekly_times("jeden Mittwoch und Samstag von 7 bis 12.30 Uhr");
        assert_eq!(range.len(), 2);
        assert_eq!(range[0].end, Some(t(12, 30)));
    }

    #[test]
    fn times_after_the_date() {
        let day = NaiveDate::from_ymd_opt(2026, 2, 1);
        let o = DateOrder::default();
        assert_eq!(time_after("5 MART PERŞEMBE · 21.30", None, day, o), Some((t(21, 30), None)));
        assert_eq!(time_after("samedi 14 mars | 20h30", None, day, o), Some((t(20, 30), None)));
        assert_eq!(time_after("27 MART CUMA · 21.30 İPTAL", None, day, o), Some((t(21, 30), None)));
        // Two bare times: which starts is not said.
        assert_eq!(time_after("14 mars · 15.00 · 20.30", None, day, o), None);
        let block = "Am 1. Mai stellen wir wieder den Maibaum am Dorfplatz auf. Festbetrieb ab \
                     13 Uhr, das Aufstellen beginnt gegen 15 Uhr. Später um 18 Uhr Tanz.";
        assert_eq!(time_after("1. Mai", Some(block), day, o), None);
        let one = "Am Sonntag, 14. Juni wird das HLF 20 gesegnet. Los geht es um 9:30 Uhr mit \
                   dem Festgottesdienst, anschließend Festzug. Von 11 bis 17 Uhr Tag der offenen Tür.";
        assert_eq!(time_after("Sonntag, 14. Juni", Some(one), day, o), Some((t(9, 30), None)));
        let rest = "am 1. Mai. Festbetrieb ab 13 Uhr mit Blasmusik.";
        assert_eq!(time_after("1. Mai", Some(rest), day, o), Some((t(13, 0), None)));
        // A later sentence, or one after another date, is not the date's.
        let far = "Am 1. Mai ist Fest. Es gibt Kuchen. Ab 13 Uhr Musik.";
        assert_eq!(time_after("1. Mai", Some(far), day, o), None);
        let other = "Am 1. Mai ist Fest. Anträge bis 6. März um 12 Uhr.";
        assert_eq!(time_after("1. Mai", Some(other), day, o), None);
        // Only doors: no start.
        let doors = "Le 14 mars au foyer. Ouverture des portes à 19h.";
        assert_eq!(time_after("14 mars", Some(doors), day, o), None);
    }

    #[test]
    fn days_that_are_no_event() {
        let r = NaiveDate::from_ymd_opt(2026, 2, 1);
        let o = DateOrder::default();
        let d = |m, day| NaiveDate::from_ymd_opt(2026, m, day).unwrap();
        let no = |lines: &[&str], day| says_no_event(lines.iter().copied(), day, r, o);
        assert!(no(
            &["18 March", "No recital this week – the Nave is closed for filming"],
            d(3, 18)
        ));
        assert!(no(
            &[
                "19 – 22 MART",
                "Ramazan Bayramı",
                "Arife günü 19 Mart Perşembe kapalıyız. Bayramın 1. günü açığız."
            ],
            d(3, 19)
        ));
        assert!(no(&["15 août", "Ouverture des inscriptions en ligne le 15 août."], d(8, 15)));
        assert!(no(&["12. März", "Keine Probe diese Woche"], d(3, 12)));
        // The end of a run of weekly meetings.
        assert!(no(&["Monday leagues continue at 7 p.m. until the week of April 13."], d(4, 13)));
        assert!(no(&["Her salı 19.00'da, 13 Nisan'a kadar."], d(4, 13)));
        assert!(!no(&["Exhibition from 2 April until 13 April."], d(4, 13)));
        assert!(!no(&["5 Nisan, saat 10.00'dan 17.00'ye kadar."], d(4, 5)));
        let sale = "Paella popular. Venta de tiques en el bar hasta el miércoles 12 de agosto.";
        assert!(super::only_ends_a_run(sale, r, o));
        assert!(!super::only_ends_a_run("Sábado 15 de agosto, 14.30 h", r, o));
        // Hours with a closing day, a farm, another day closed, an event this week.
        assert!(!no(
            &["1 – 15 Nisan 2026", "Ziyaret saatleri: 10.00 – 18.00 (pazartesi kapalı)"],
            d(4, 1)
        ));
        assert!(!no(&["Du lundi 4 au vendredi 8 mai", "avec les légumes de la ferme."], d(5, 4)));
        assert!(!no(&["4 March", "Organ recital. The shop is closed on 5 March."], d(3, 4)));
        assert!(!no(&["4 March", "Concert this week in the Nave"], d(3, 4)));
        // A closure said in the sentence after the event's time (issue 24, page 349).
        assert!(!no(
            &["Bayram Konseri — 21 Mart Cumartesi saat 21.00. Arife günü kapalıyız."],
            d(3, 21)
        ));
        assert!(no(&["Am 21. März 2026 geschlossen."], d(3, 21)));
    }

    /// The start of the first `div.item` of `html` read as a listing item under `day`.
    fn item_start(html: &str, day: Option<NaiveDate>) -> Option<String> {
        use crate::fallback::days::Context;
        use crate::fallback::item::read_item;
        let doc = scraper::Html::parse_fragment(html);
        let sel = scraper::Selector::parse("div.item").unwrap();
        let item = doc.select(&sel).next().unwrap();
        let reference = NaiveDate::from_ymd_opt(2026, 2, 1);
        read_item(item, Context { day, month: None }, reference, DateOrder::default())
            .map(|i| i.start.to_iso())
    }

    #[test]
    fn items_take_the_time_their_date_gives_after_it() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "<div class=item><p>5 MART PERŞEMBE · 21.30</p><h3>Müzeyyen Senar Gecesi</h3></div>",
                Some("2026-03-05T21:30:00"),
            ),
            (
                "<div class=item><h3>Fahrzeugsegnung</h3><p>Am <strong>Sonntag, 14. Juni</strong> \
                 wird unser neues HLF 20 feierlich gesegnet, mit Festzug und Musik und allem, was \
                 dazu gehört, vom Pfarrheim bis zum Feuerwehrhaus am Dorfplatz und zurück durch \
                 die Hauptstraße des Ortes. Los geht es um 9:30 Uhr mit dem Festgottesdienst in der \
                 Pfarrkirche St. Martin, anschließend Festzug zum Feuerwehrhaus. Der Eintritt ist \
                 an diesem Tag für alle Gäste frei, auch für die Kinder aus den Nachbarorten.</p></div>",
                Some("2026-06-14T09:30:00"),
            ),
            // A weekly statement's time is not another weekday's.
            (
                "<div class=item><h3>League reminders</h3><p>The ice comes out on Monday, April 20.</p>\
                 <p>Daytime seniors play Tuesdays and Thursdays at 9:30 a.m.</p></div>",
                Some("2026-04-20"),
            ),
            // A cell of only a time beats a time in a sentence before it.
            (
                "<div class=item><p>Sat 18 April</p><p><strong>Come and Sing: Fauré Requiem</strong> \
                 A day of singing for everyone; informal performance at 4.15pm for friends and \
                 family</p><p>10am – 5pm</p></div>",
                Some("2026-04-18T10:00:00"),
            ),
            // A postponed run's new days, at its weekdays' times.
            (
                "<div class=item><p><s>samedi 21 et dimanche 22 mars</s> <strong>REPORTÉ</strong> \
                 au samedi 11 et dimanche 12 avril</p><p>sam. 15h et 20h30 dim. 15h</p></div>",
                Some("2026-04-11T15:00:00"),
            ),
            // No recital this week; the place closed on its day.
            (
                "<div class=item><p>18 March</p><p>No recital this week – the Nave is closed</p></div>",
                None,
            ),
        ];
        for (html, want) in cases {
            assert_eq!(item_start(html, None).as_deref(), *want, "{html}");
        }
        // Under its day heading, a ticket sale's last day dates nothing: the heading does.
        let sale = "<div class=item><p>14.30 h</p><p><strong>Paella popular</strong>. Venta de \
                    tiques hasta el miércoles 12 de agosto.</p></div>";
        let day = NaiveDate::from_ymd_opt(2026, 8, 15);
        assert_eq!(item_start(sale, day).as_deref(), Some("2026-08-15T14:30:00"));
    }

    #[test]
    fn a_list_intro_times_its_days_on_its_weekday() {
        let html = "<section><h2>Lunchtime organ recitals</h2><p>Wednesdays at <strong>1.10pm</strong>, \
                    lasting about 40 minutes.</p><table><tbody><tr><td>4 March</td></tr></tbody></table>\
                    </section>";
        let doc = scraper::Html::parse_fragment(html);
        let tbody = doc.select(&scraper::Selector::parse("tbody").unwrap()).next().unwrap();
        let weekly = super::list_intro_times(tbody);
        assert_eq!(weekly, vec![w(Weekday::Wed, 13, 10)]);
        let mut events = vec![
            gleaner_event::RawEvent { start: Some("2026-03-04".into()), ..Default::default() },
            gleaner_event::RawEvent { start: Some("2026-03-05".into()), ..Default::default() },
            gleaner_event::RawEvent {
                start: Some("2026-03-11T19:30:00".into()),
                ..Default::default()
            },
        ];
        super::apply_weekly(&mut events, &weekly);
        let starts: Vec<_> = events.iter().map(|e| e.start.clone().unwrap()).collect();
        assert_eq!(starts, ["2026-03-04T13:10:00", "2026-03-05", "2026-03-11T19:30:00"]);
    }

    #[test]
    fn hours_kept_every_day_are_no_performances() {
        // Issue 24, page 326: a note's opening hours beside a dated item.
        assert_eq!(super::day_times("hafta içi her gün 09.00 – 17.30 arasında açıktır"), None);
        assert_eq!(super::day_times("täglich 10–18 Uhr geöffnet"), None);
        assert!(super::day_times("15h et 18h chaque jour").is_some());
    }

    #[test]
    fn times_by_weekday_cells() {
        use Weekday::{Fri, Sat, Sun, Wed};
        assert_eq!(
            super::day_times("ven. 20h30 sam. 15h et 20h30 dim. 15h"),
            Some(vec![
                (Some(Fri), vec![t(20, 30)]),
                (Some(Sat), vec![t(15, 0), t(20, 30)]),
                (Some(Sun), vec![t(15, 0)])
            ])
        );
        assert_eq!(
            super::day_times("mer. 15h ven. 20h30 relâche le jeudi"),
            Some(vec![(Some(Wed), vec![t(15, 0)]), (Some(Fri), vec![t(20, 30)])])
        );
        assert_eq!(
            super::day_times("15h et 18h chaque jour"),
            Some(vec![(None, vec![t(15, 0), t(18, 0)])])
        );
        assert_eq!(
            super::day_times("Sa 20 Uhr So 18 Uhr"),
            Some(vec![(Some(Sat), vec![t(20, 0)]), (Some(Sun), vec![t(18, 0)])])
        );
        // One weekday, a weekday without a time, prose: no times cell.
        assert_eq!(super::day_times("sam. 15h"), None);
        assert_eq!(super::day_times("ven. 20h30 sam."), None);
        assert_eq!(super::day_times("Parking du Parc du Golfe, avenue du Lac"), None);
        let d = |m, day| NaiveDate::from_ymd_opt(2026, m, day).unwrap();
        let iso = |v: Vec<gleaner_event::EventTime>| {
            v.into_iter().map(|t| t.to_iso()).collect::<Vec<_>>()
        };
        let cells = ["Vannes".to_owned(), "ven. 20h30 sam. 15h et 20h30 dim. 15h".to_owned()];
        assert_eq!(
            iso(super::performances_by_weekday(
                &cells,
                "du vendredi 6 au dimanche 8 mars",
                d(3, 6),
                Some(d(3, 8))
            )),
            [
                "2026-03-06T20:30:00",
                "2026-03-07T15:00:00",
                "2026-03-07T20:30:00",
                "2026-03-08T15:00:00"
            ]
        );
        let cells = ["mer. 15h ven. 20h30 relâche le jeudi".to_owned()];
        assert_eq!(
            iso(super::performances_by_weekday(
                &cells,
                "mercredi 18 et vendredi 20 mars",
                d(3, 18),
                None
            )),
            ["2026-03-18T15:00:00", "2026-03-20T20:30:00"]
        );
        let cells = ["jeweils Einlass 19 Uhr · Beginn 20 Uhr".to_owned()];
        assert_eq!(
            iso(super::performances_by_weekday(
                &cells,
                "Fr. 13.11.2026 und Sa. 14.11.2026",
                d(11, 13),
                None
            )),
            ["2026-11-13T20:00:00", "2026-11-14T20:00:00"]
        );
        // A time's digits name no day (`20h30`: not the 20th).
        let line = "Vendredi 12 juin 2026 à 20h30 et samedi 13 juin 2026 à 15h";
        let cells = [line.to_owned()];
        assert_eq!(
            iso(super::performances_by_weekday(&cells, line, d(6, 12), None)),
            ["2026-06-12T20:30:00", "2026-06-13T15:00:00"]
        );
    }
}
