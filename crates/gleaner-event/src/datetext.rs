//! Dates and times written as words, in English, Turkish, French, Spanish and German:
//! `5 décembre 2026 à 20h`, `5 Aralık 2026 Cuma 20:00`, `sábado 5 de diciembre`,
//! `Sa., 5. Dez. 2026, 20 Uhr`, `Dec 5–7`, `8pm`, `20:00–22:30`, `12/05/2026`.
//!
//! Month and weekday names are matched full or abbreviated, with or without diacritics
//! and dots. A date without a year is resolved to its next occurrence on or after a
//! reference date the caller injects (the day the page was read); without a reference it
//! is not read at all. Text without a digit never yields a date. No clock, no I/O.

use chrono::{Datelike, NaiveDate, NaiveTime};

use crate::time::{EventTime, parse_event_time};

/// The language a page is written in, when known: it only decides how an all-numeric
/// date such as `05/12/2026` is read (`en`: month first; others: day first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DateOrder {
    /// Day first (`05/12/2026` is 5 December): Europe, Turkey, Latin America.
    #[default]
    DayFirst,
    /// Month first (`12/05/2026` is 5 December): the United States, English Canada.
    MonthFirst,
}

impl DateOrder {
    /// The order for a language tag (`en`, `en-US`, `fr`, `de-DE`, `tr`, `es`).
    pub fn for_language(tag: &str) -> DateOrder {
        let tag = tag.trim().to_ascii_lowercase();
        match tag.as_str() {
            "en-gb" | "en-ie" | "en-au" | "en-nz" | "en-in" => DateOrder::DayFirst,
            t if t == "en" || t.starts_with("en-") => DateOrder::MonthFirst,
            _ => DateOrder::DayFirst,
        }
    }
}

/// A start and maybe an end read from text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextDate {
    /// The start: a date, or a date and a local time.
    pub start: EventTime,
    /// The end, when the text gives a range of days or of times.
    pub end: Option<EventTime>,
}

/// Reads a date (and a time or time range, when given) from a piece of text.
///
/// `reference` resolves dates written without a year to their next occurrence on or after
/// it; `None` leaves such dates unread. Returns `None` when no complete date is found.
pub fn parse_text_date(
    text: &str,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<TextDate> {
    if !text.bytes().any(|b| b.is_ascii_digit()) || text.len() > 4096 {
        return None;
    }
    if let Some(t) = parse_event_time(text) {
        return Some(TextDate { start: t, end: None });
    }
    let tokens = tokenize(text);
    let mut found = find_date(&tokens, reference, order, true)?;
    // Times are looked for outside the date's own tokens.
    let mut times = find_times(&tokens, &found.used);
    let daily = says_daily(&tokens);
    // Two days joined by `and` with one time (`Vendredi 9 et samedi 10 octobre — 20h30`)
    // are two performances: the date is the second day's, and the first is left to the
    // reader of earlier days, as before.
    if found.paired && times.is_some() && !daily {
        found = find_date(&tokens, reference, order, false)?;
        times = find_times(&tokens, &found.used);
    }
    // Hours kept each day of a run (`12.–13. September, jeweils 11–18 Uhr`, `täglich
    // 11–20 Uhr`) are opening hours: the run is of dates.
    let times = times.filter(|_| found.end.is_none() || !daily);
    let (start, end) = match times {
        Some((t1, t2)) => {
            let start = EventTime::Floating(found.start.and_time(t1));
            let end = match (found.end, t2) {
                (Some(d2), Some(t2)) => Some(EventTime::Floating(d2.and_time(t2))),
                (Some(d2), None) => Some(EventTime::Date(d2)),
                (None, Some(t2)) => {
                    let day = if t2 < t1 { found.start.succ_opt()? } else { found.start };
                    Some(EventTime::Floating(day.and_time(t2)))
                }
                (None, None) => None,
            };
            (start, end)
        }
        None => (EventTime::Date(found.start), found.end.map(EventTime::Date)),
    };
    Some(TextDate { start, end })
}

/// Whether the text says its hours are kept each day (`jeweils`, `täglich`, `daily`,
/// `tous les jours`, `cada día`, `her gün`).
fn says_daily(tokens: &[Token]) -> bool {
    (0..tokens.len()).any(|i| {
        matches!(
            word(tokens, i),
            Some("jeweils" | "taglich" | "daily" | "quotidiennement" | "diariamente")
        ) || matches!(
            (word(tokens, i), word(tokens, i + 1), word(tokens, i + 2)),
            (Some("tous"), Some("les"), Some("jours"))
                | (Some("cada" | "each" | "every"), Some("dia" | "day"), _)
                | (Some("her"), Some("gun"), _)
        )
    })
}

/// Reads a time of day or a range of times (`20h30`, `8 pm`, `20:00–22:30`, `20 Uhr`).
pub fn parse_text_time(text: &str) -> Option<(NaiveTime, Option<NaiveTime>)> {
    if !text.bytes().any(|b| b.is_ascii_digit()) || text.len() > 4096 {
        return None;
    }
    let tokens = tokenize(text);
    find_times(&tokens, &[])
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    /// Digits: value (saturating) and how many.
    Num(u32, usize),
    /// A word, lower-cased with diacritics removed.
    Word(String),
    /// One punctuation character (dashes folded to `-`).
    Sep(char),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    /// Whether whitespace came before it.
    spaced: bool,
}

/// Lower-cases and removes diacritics (`Aralık` → `aralik`, `März` → `marz`).
pub fn fold_diacritics(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let mapped = match c {
            'à' | 'á' | 'â' | 'ä' | 'ã' | 'å' | 'À' | 'Á' | 'Â' | 'Ä' | 'Ã' | 'Å' => {
                'a'
            }
            'ç' | 'Ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' | 'ı' | 'Ì' | 'Í' | 'Î' | 'Ï' | 'İ' => 'i',
            'ñ' | 'Ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'ö' | 'õ' | 'Ò' | 'Ó' | 'Ô' | 'Ö' | 'Õ' => 'o',
            'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
            'ş' | 'Ş' => 's',
            'ğ' | 'Ğ' => 'g',
            'ß' => {
                out.push_str("ss");
                continue;
            }
            '\u{300}'..='\u{36f}' => continue,
            c => {
                out.extend(c.to_lowercase());
                continue;
            }
        };
        out.push(mapped);
    }
    out
}

fn tokenize(text: &str) -> Vec<Token> {
    let folded = fold_diacritics(text);
    let mut tokens = Vec::new();
    let mut chars = folded.chars().peekable();
    let mut spaced = true;
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() || c == '\u{a0}' {
            spaced = true;
            chars.next();
            continue;
        }
        let tok = if c.is_ascii_digit() {
            let (mut value, mut len) = (0u32, 0usize);
            while let Some(&d) = chars.peek() {
                let Some(v) = d.to_digit(10).filter(|_| d.is_ascii_digit()) else { break };
                value = value.saturating_mul(10).saturating_add(v);
                len += 1;
                chars.next();
            }
            Tok::Num(value, len)
        } else if c.is_alphabetic() {
            let mut word = String::new();
            while let Some(&d) = chars.peek() {
                if !d.is_alphabetic() {
                    break;
                }
                word.push(d);
                chars.next();
            }
            Tok::Word(word)
        } else {
            chars.next();
            Tok::Sep(match c {
                '–' | '—' | '‒' | '−' | '~' => '-',
                other => other,
            })
        };
        tokens.push(Token { tok, spaced });
        spaced = false;
        if tokens.len() > 2000 {
            break;
        }
    }
    tokens
}

/// Full month names (diacritics removed), per month, in the five languages.
const MONTHS: [&[&str]; 12] = [
    &["january", "janvier", "enero", "januar", "janner", "ocak"],
    &["february", "fevrier", "febrero", "februar", "subat"],
    &["march", "mars", "marzo", "marz", "maerz", "mart"],
    &["april", "avril", "abril", "nisan"],
    &["may", "mai", "mayo", "mayis"],
    &["june", "juin", "junio", "juni", "haziran"],
    &["july", "juillet", "julio", "juli", "temmuz"],
    &["august", "aout", "agosto", "agustos"],
    &["september", "septembre", "septiembre", "setiembre", "eylul"],
    &["october", "octobre", "octubre", "oktober", "ekim"],
    &["november", "novembre", "noviembre", "kasim"],
    &["december", "decembre", "diciembre", "dezember", "aralik"],
];

/// Weekday names and their usual abbreviations (diacritics removed), in the five languages.
const WEEKDAYS: [&str; 70] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
    "lundi",
    "mardi",
    "mercredi",
    "jeudi",
    "vendredi",
    "samedi",
    "dimanche",
    "lun",
    "mer",
    "jeu",
    "ven",
    "sam",
    "dim",
    "lunes",
    "martes",
    "miercoles",
    "jueves",
    "viernes",
    "sabado",
    "domingo",
    "mie",
    "jue",
    "vie",
    "sab",
    "dom",
    "montag",
    "dienstag",
    "mittwoch",
    "donnerstag",
    "freitag",
    "samstag",
    "sonntag",
    "mo",
    "di",
    "mi",
    "do",
    "fr",
    "sa",
    "so",
    "pazartesi",
    "sali",
    "carsamba",
    "persembe",
    "cuma",
    "cumartesi",
    "pazar",
    "pzt",
    "cmt",
    "mar",
    "lu",
    "ma",
    "je",
    "ve",
];

/// Whether a word is a month's full name in one of the five languages (`Mars`, `Mayıs`,
/// `Dezember`).
pub fn is_month_name(word: &str) -> bool {
    let w = fold_diacritics(word.trim());
    MONTHS.iter().any(|names| names.contains(&w.as_str()))
}

/// Whether a word names a day of the week (`Thursday`, `jeu.`, `Sa`, `Cumartesi`).
pub fn is_weekday(word: &str) -> bool {
    let w = fold_diacritics(word.trim().trim_end_matches('.'));
    WEEKDAYS.contains(&w.as_str())
}

/// The day of the week a word names (`Friday`, `ven.`, `Fr`, `Cuma`), when it names one
/// unambiguously: the abbreviations that are also other words (`mar`, `do`, `sa`) give
/// `None`, except the German two-letter ones no other language reads as another day (`Mo`,
/// `Di`, `Mi`, `Fr`, `Sa`, `So`; not `Do`, Spanish `domingo`).
pub fn weekday_of(word: &str) -> Option<chrono::Weekday> {
    use chrono::Weekday::{Fri, Mon, Sat, Sun, Tue, Wed};
    let w = fold_diacritics(word.trim().trim_end_matches('.'));
    weekday_named(&w).or(match w.as_str() {
        "mo" => Some(Mon),
        "di" => Some(Tue),
        "mi" => Some(Wed),
        "fr" => Some(Fri),
        "sa" => Some(Sat),
        "so" => Some(Sun),
        _ => None,
    })
}

/// The day of the week a full weekday name (or an English three-letter one) names, in the
/// five languages; abbreviations that are also other words (`mar`, `do`, `sa`) name none.
fn weekday_named(word: &str) -> Option<chrono::Weekday> {
    use chrono::Weekday::{Fri, Mon, Sat, Sun, Thu, Tue, Wed};
    const NAMES: [(&str, chrono::Weekday); 42] = [
        ("monday", Mon),
        ("tuesday", Tue),
        ("wednesday", Wed),
        ("thursday", Thu),
        ("friday", Fri),
        ("saturday", Sat),
        ("sunday", Sun),
        ("mon", Mon),
        ("tue", Tue),
        ("wed", Wed),
        ("thu", Thu),
        ("fri", Fri),
        ("sat", Sat),
        ("sun", Sun),
        ("lundi", Mon),
        ("mardi", Tue),
        ("mercredi", Wed),
        ("jeudi", Thu),
        ("vendredi", Fri),
        ("samedi", Sat),
        ("dimanche", Sun),
        ("lunes", Mon),
        ("martes", Tue),
        ("miercoles", Wed),
        ("jueves", Thu),
        ("viernes", Fri),
        ("sabado", Sat),
        ("domingo", Sun),
        ("montag", Mon),
        ("dienstag", Tue),
        ("mittwoch", Wed),
        ("donnerstag", Thu),
        ("freitag", Fri),
        ("samstag", Sat),
        ("sonntag", Sun),
        ("pazartesi", Mon),
        ("sali", Tue),
        ("carsamba", Wed),
        ("persembe", Thu),
        ("cuma", Fri),
        ("cumartesi", Sat),
        ("pazar", Sun),
    ];
    NAMES.iter().find(|(n, _)| *n == word).map(|(_, d)| *d)
}

/// The weekday written right before token `i` (`Tuesday, February 24`, `mardi 24 février`).
fn stated_weekday(tokens: &[Token], i: usize) -> Option<chrono::Weekday> {
    let mut j = i.checked_sub(1)?;
    if matches!(sep(tokens, j), Some(',' | '.')) {
        j = j.checked_sub(1)?;
    }
    weekday_named(word(tokens, j)?)
}

/// A year-less date resolved after the reference day whose stated weekday is another day
/// is a past date (a news item's "Tuesday, February 24"), not next year's: no date.
fn weekday_agrees(tokens: &[Token], i: usize, year: Option<i32>, date: NaiveDate) -> bool {
    year.is_some() || stated_weekday(tokens, i).is_none_or(|w| w == date.weekday())
}

/// Words that are not months although they abbreviate one (`ago` is Spanish for August
/// but English for "before"; `mar` is also Tuesday in French and Spanish, handled by
/// preferring day-then-month).
const NOT_MONTHS: &[&str] = &["ago"];

/// The month a word names (full, or an abbreviation of at least three letters).
fn month_of(word: &str) -> Option<u32> {
    if word.len() < 3 || word.len() > 12 {
        return None;
    }
    for (i, names) in MONTHS.iter().enumerate() {
        if names.contains(&word) {
            return Some(i as u32 + 1);
        }
    }
    if NOT_MONTHS.contains(&word) {
        return None;
    }
    // `juil`, `sept`, `dez`, `ara`, `janv`, `fevr`: a prefix of one month only.
    let mut found = None;
    for (i, names) in MONTHS.iter().enumerate() {
        if names.iter().any(|n| n.starts_with(word)) {
            if found.is_some_and(|f| f != i as u32 + 1) {
                return None;
            }
            found = Some(i as u32 + 1);
        }
    }
    found
}

struct FoundDate {
    start: NaiveDate,
    end: Option<NaiveDate>,
    /// Token indexes the date used (times are not read from them).
    used: Vec<usize>,
    /// Whether two days joined by `and` (`12 y 13 de noviembre`) were read as one date.
    paired: bool,
}

fn num(tokens: &[Token], i: usize) -> Option<(u32, usize)> {
    match tokens.get(i)?.tok {
        Tok::Num(v, len) => Some((v, len)),
        _ => None,
    }
}

fn word(tokens: &[Token], i: usize) -> Option<&str> {
    match &tokens.get(i)?.tok {
        Tok::Word(w) => Some(w.as_str()),
        _ => None,
    }
}

fn sep(tokens: &[Token], i: usize) -> Option<char> {
    match tokens.get(i)?.tok {
        Tok::Sep(c) => Some(c),
        _ => None,
    }
}

/// Skips an ordinal suffix right after a day (`5th`, `1er`, `1st`, `5.`, `1º`).
fn skip_ordinal(tokens: &[Token], mut i: usize) -> usize {
    if let Some(w) = word(tokens, i)
        && !tokens[i].spaced
        && matches!(w, "st" | "nd" | "rd" | "th" | "er" | "e" | "eme" | "o" | "a")
    {
        i += 1;
    }
    if matches!(sep(tokens, i), Some('.' | 'º' | '°')) {
        i += 1;
    }
    i
}

/// Skips filler between parts of a date (`de`, `of`, commas, dots).
fn skip_filler(tokens: &[Token], mut i: usize) -> usize {
    for _ in 0..4 {
        match &tokens.get(i).map(|t| &t.tok) {
            Some(Tok::Sep('.' | ',')) => i += 1,
            Some(Tok::Word(w)) if matches!(w.as_str(), "de" | "del" | "of" | "the") => i += 1,
            _ => break,
        }
    }
    i
}

/// A four-digit year at `i` (after filler), and the index after it.
fn year_at(tokens: &[Token], i: usize) -> Option<(i32, usize)> {
    let j = skip_filler(tokens, i);
    match num(tokens, j) {
        Some((y, 4)) if (1900..=2200).contains(&y) && sep(tokens, j + 1) != Some(':') => {
            Some((y as i32, j + 1))
        }
        _ => None,
    }
}

fn day_ok(d: u32, len: usize) -> bool {
    (1..=31).contains(&d) && len <= 2
}

fn resolve(
    year: Option<i32>,
    month: u32,
    day: u32,
    reference: Option<NaiveDate>,
) -> Option<NaiveDate> {
    match year {
        Some(y) => NaiveDate::from_ymd_opt(y, month, day),
        None => {
            let r = reference?;
            // 29 February waits for the next leap year.
            (r.year()..=r.year() + 8)
                .filter_map(|y| NaiveDate::from_ymd_opt(y, month, day))
                .find(|d| *d >= r)
        }
    }
}

fn find_date(
    tokens: &[Token],
    reference: Option<NaiveDate>,
    order: DateOrder,
    pairs: bool,
) -> Option<FoundDate> {
    // Day then month first (`mar. 5 déc.` is Tuesday 5 December, not March 5).
    for i in 0..tokens.len() {
        if let Some(f) = day_month_at(tokens, i, reference, pairs) {
            return Some(run_to_day_month(tokens, f, reference, pairs));
        }
    }
    for i in 0..tokens.len() {
        if let Some(f) = month_day_at(tokens, i, reference) {
            return Some(f);
        }
        if let Some(f) = numeric_at(tokens, i, order) {
            return Some(f);
        }
    }
    // Last, a day and month in figures without a year, when no date above was written.
    (0..tokens.len()).find_map(|i| yearless_numeric_at(tokens, i, order, reference))
}

/// A day-and-month date followed by a dash and another (`3 Ekim 2026 – 28 Şubat 2027`,
/// `14 May – 27 September 2026`) is a run to the second; a first day without a year
/// takes the second's (the year before, when that keeps it first).
fn run_to_day_month(
    tokens: &[Token],
    found: FoundDate,
    reference: Option<NaiveDate>,
    pairs: bool,
) -> FoundDate {
    let Some(&last) = found.used.last() else { return found };
    if found.end.is_some() || sep(tokens, last + 1) != Some('-') {
        return found;
    }
    let Some(to) = day_month_at(tokens, last + 2, reference, pairs).filter(|t| t.end.is_none())
    else {
        return found;
    };
    let has_year = found.used.iter().any(|&k| num(tokens, k).is_some_and(|(_, l)| l == 4));
    let start = if has_year {
        found.start
    } else {
        match found.start.with_year(to.start.year()) {
            Some(s) if s <= to.start => s,
            _ => match found.start.with_year(to.start.year() - 1) {
                Some(s) => s,
                None => return found,
            },
        }
    };
    if start >= to.start || (to.start - start).num_days() > 400 {
        return found;
    }
    let mut used = found.used;
    used.extend(last + 1..=*to.used.last().unwrap_or(&last));
    FoundDate { start, end: Some(to.start), used, paired: found.paired }
}

/// `5 décembre 2026`, `5. Dez. 2026`, `5 de diciembre`, `5–7 Dec 2026`, `1er mai`.
fn day_month_at(
    tokens: &[Token],
    i: usize,
    reference: Option<NaiveDate>,
    pairs: bool,
) -> Option<FoundDate> {
    let (d1, len) = num(tokens, i)?;
    // Not the minutes of a time or the tail of a numeric date (`20:15 mai`); a label's
    // colon before a space is fine (`Tarih: 21 Mart 2026`).
    if !day_ok(d1, len)
        || i > 0 && matches!(sep(tokens, i - 1), Some(':' | '/')) && !tokens[i].spaced
    {
        return None;
    }
    let mut j = skip_ordinal(tokens, i + 1);
    let mut d2 = None;
    let mut paired = false;
    if sep(tokens, j) == Some('-')
        && let Some((d, l)) = num(tokens, j + 1)
        && day_ok(d, l)
    {
        d2 = Some(d);
        j = skip_ordinal(tokens, j + 2);
    } else if let Some(
        joiner @ ("au" | "al" | "bis" | "to" | "until" | "y" | "and" | "et" | "und" | "ve" | "e"),
    ) = word(tokens, j)
    {
        // Two days joined by `and` (`12 y 13 de noviembre`, `Sa. 12. und So. 13. September`)
        // are a run when they follow each other, else the first of two dates.
        let conjunction = matches!(joiner, "y" | "and" | "et" | "und" | "ve" | "e");
        if conjunction && !pairs {
            return None;
        }
        // `du vendredi 11 au dimanche 13 décembre`, `del 11 al 13 de marzo`, `11. bis 13. März`.
        let mut k = j + 1;
        if word(tokens, k).is_some_and(is_weekday) {
            k += 1;
            if matches!(sep(tokens, k), Some(',' | '.')) {
                k += 1;
            }
        }
        if let Some((d, l)) = num(tokens, k)
            && day_ok(d, l)
            && d > d1
        {
            d2 = (!conjunction || d == d1 + 1).then_some(d);
            paired = conjunction;
            j = skip_ordinal(tokens, k + 1);
        }
    }
    j = skip_filler(tokens, j);
    let month = month_of(word(tokens, j)?)?;
    let mut end_index = j + 1;
    if sep(tokens, end_index) == Some('.') {
        end_index += 1;
    }
    let year = year_at(tokens, end_index);
    if let Some((_, after)) = year {
        end_index = after;
    }
    let y = year.map(|(y, _)| y);
    let start = resolve(y, month, d1, reference)?;
    if !weekday_agrees(tokens, i, y, start) {
        return None;
    }
    let end = match d2 {
        Some(d) if d > d1 => Some(NaiveDate::from_ymd_opt(start.year(), month, d)?),
        _ => None,
    };
    Some(FoundDate { start, end, used: (i..end_index).collect(), paired })
}

/// `Dec 5`, `December 5, 2026`, `Dec 5–7`, `Nov. 12th 2025`.
fn month_day_at(tokens: &[Token], i: usize, reference: Option<NaiveDate>) -> Option<FoundDate> {
    let month = month_of(word(tokens, i)?)?;
    let mut j = i + 1;
    if sep(tokens, j) == Some('.') {
        j += 1;
    }
    let (d1, len) = num(tokens, j)?;
    if !day_ok(d1, len) || matches!(sep(tokens, j + 1), Some(':')) {
        return None;
    }
    // `Dec 5 pm` is not a date; `Dec 5 2026` is.
    if matches!(word(tokens, j + 1), Some("pm" | "am" | "h" | "uhr")) {
        return None;
    }
    let mut k = skip_ordinal(tokens, j + 1);
    let mut d2 = None;
    if sep(tokens, k) == Some('-')
        && let Some((d, l)) = num(tokens, k + 1)
        && day_ok(d, l)
        && sep(tokens, k + 2) != Some(':')
        && !matches!(word(tokens, k + 2), Some("pm" | "am" | "h" | "uhr"))
    {
        d2 = Some(d);
        k = skip_ordinal(tokens, k + 2);
    }
    let year = year_at(tokens, k);
    if let Some((_, after)) = year {
        k = after;
    }
    let start = resolve(year.map(|(y, _)| y), month, d1, reference)?;
    if !weekday_agrees(tokens, i, year.map(|(y, _)| y), start) {
        return None;
    }
    let end = match d2 {
        Some(d) if d > d1 => Some(NaiveDate::from_ymd_opt(start.year(), month, d)?),
        _ => None,
    };
    Some(FoundDate { start, end, used: (i..k).collect(), paired: false })
}

/// `05/12/2026`, `5.12.2026`, `2026-12-05`, `12/5/26`.
fn numeric_at(tokens: &[Token], i: usize, order: DateOrder) -> Option<FoundDate> {
    let (a, la) = num(tokens, i)?;
    let s = sep(tokens, i + 1)?;
    if !matches!(s, '/' | '.' | '-') || tokens[i + 1].spaced {
        return None;
    }
    let (b, lb) = num(tokens, i + 2)?;
    if sep(tokens, i + 3) != Some(s) {
        return None;
    }
    let (c, lc) = num(tokens, i + 4)?;
    if tokens.get(i + 2).is_some_and(|t| t.spaced) || tokens.get(i + 4).is_some_and(|t| t.spaced) {
        return None;
    }
    let date = if la == 4 && lb <= 2 && lc <= 2 {
        NaiveDate::from_ymd_opt(a as i32, b, c)?
    } else if la <= 2 && lb <= 2 && (lc == 4 || (lc == 2 && s == '/')) {
        let year = if lc == 2 { 2000 + c as i32 } else { c as i32 };
        let (day, month) = day_and_month(a, b, order);
        NaiveDate::from_ymd_opt(year, month, day)?
    } else {
        return None;
    };
    // `27.11.–23.12.2026`: a run whose first day gives no year of its own; with the
    // second day's weekday after the dash (`So. 14.06. – Fr. 19.06.2026`), or a first
    // day that gives no month either (`Sa./So. 13.–14.06.2026`).
    let mut k = i;
    if k >= 1 && word(tokens, k - 1).is_some_and(is_weekday) {
        k -= 1;
    } else if k >= 2
        && sep(tokens, k - 1) == Some('.')
        && word(tokens, k - 2).is_some_and(is_weekday)
    {
        k -= 2;
    }
    if s == '.'
        && k >= 5
        && sep(tokens, k - 1) == Some('-')
        && sep(tokens, k - 2) == Some('.')
        && sep(tokens, k - 4) == Some('.')
        && !tokens[k - 4].spaced
        && !tokens[k - 3].spaced
        && let (Some((d0, l0)), Some((m0, lm0))) = (num(tokens, k - 5), num(tokens, k - 3))
        && l0 <= 2
        && lm0 <= 2
        && let Some(first) = NaiveDate::from_ymd_opt(date.year(), m0, d0)
            .filter(|f| *f < date)
            .or_else(|| NaiveDate::from_ymd_opt(date.year() - 1, m0, d0))
        && (date - first).num_days() <= 366
    {
        return Some(FoundDate {
            start: first,
            end: Some(date),
            used: (k - 5..i + 5).collect(),
            paired: false,
        });
    }
    // A first day alone before a tight dash (a spaced dash after a lone number joins no
    // days), with its dot (`Sa./So. 13.–14.06.2026`) or without (`04–05.04.2026`, a
    // tournament calendar's two days). Alone: not a time's minutes, nor a date's month or
    // year (`10.03-05.04.2026` is no run from the 3rd).
    if s == '.'
        && k == i
        && i >= 2
        && sep(tokens, i - 1) == Some('-')
        && !tokens[i - 1].spaced
        && !tokens[i].spaced
    {
        let dotted = i >= 3 && sep(tokens, i - 2) == Some('.') && !tokens[i - 2].spaced;
        let at = if dotted { i - 3 } else { i - 2 };
        let alone = at == 0
            || tokens[at].spaced
            || (!dotted && !matches!(sep(tokens, at - 1), Some('.' | '/' | ':' | '-')));
        if alone
            && let Some((d0, l0)) = num(tokens, at)
            && l0 <= 2
            && d0 < date.day()
            && let Some(first) = date.with_day(d0)
        {
            let used = (at..i + 5).collect();
            return Some(FoundDate { start: first, end: Some(date), used, paired: false });
        }
    }
    Some(FoundDate { start: date, end: None, used: (i..i + 5).collect(), paired: false })
}

/// The day and the month of two numbers written in figures (`07/03`, `3/7`): the one over
/// 12 is the day, else the page's order says.
fn day_and_month(a: u32, b: u32, order: DateOrder) -> (u32, u32) {
    if a > 12 {
        (a, b)
    } else if b > 12 {
        (b, a)
    } else {
        match order {
            DateOrder::DayFirst => (a, b),
            DateOrder::MonthFirst => (b, a),
        }
    }
}

/// Words right after a number pair that make it a time of day (`20.30 h`, `10.10 Uhr`).
const TIME_WORDS: &[&str] = &["h", "hs", "hrs", "hr", "uhr", "am", "pm", "heures", "horas"];

/// A numeric day and month written without a year, as programmes write them (`Sáb. 07/03`,
/// `Sa., 07.03.`, `Fri 3/6` on a US page, `Do 19.3.`), resolved to their next occurrence on
/// or after `reference`. Precision first, since `24/7` and `20.30` are not dates: read
/// after a weekday the date agrees with (an abbreviation that names no single day, `mar`
/// or `do`, only with a slash or a closing dot), or alone only when dotted with its closing
/// dot (`07.03.`, German's way); never as part of a longer number or before a time word.
fn yearless_numeric_at(
    tokens: &[Token],
    i: usize,
    order: DateOrder,
    reference: Option<NaiveDate>,
) -> Option<FoundDate> {
    let (a, la) = num(tokens, i)?;
    let s = sep(tokens, i + 1)?;
    if !matches!(s, '/' | '.') || tokens[i + 1].spaced {
        return None;
    }
    let (b, lb) = num(tokens, i + 2)?;
    if la > 2 || lb > 2 || tokens[i + 2].spaced {
        return None;
    }
    // Part of a longer number (`1.07.03`, `2026/07/03`) or a full date read elsewhere.
    if i >= 1
        && sep(tokens, i - 1).is_some_and(|c| matches!(c, '.' | '/' | ':' | ',' | '-'))
        && !tokens[i].spaced
        && i >= 2
        && num(tokens, i - 2).is_some()
    {
        return None;
    }
    let closing = s == '.' && sep(tokens, i + 3) == Some('.') && !tokens[i + 3].spaced;
    let after = if closing { i + 4 } else { i + 3 };
    if let Some(next) = tokens.get(after)
        && !next.spaced
        && (num(tokens, after).is_some() || matches!(sep(tokens, after), Some(':' | '/' | '.')))
    {
        return None;
    }
    if !closing && sep(tokens, after) == Some(s) {
        return None;
    }
    if let Some(w) = word(tokens, after)
        && TIME_WORDS.contains(&w)
    {
        return None;
    }
    let (day, month) = day_and_month(a, b, order);
    if !(1..=12).contains(&month) || !day_ok(day, 2) {
        return None;
    }
    // The weekday before it (`Sáb.`, `Sa.,`, `Friday`).
    let mut k = i;
    let mut weekday = None;
    for back in [1, 2] {
        let Some(j) = i.checked_sub(back) else { break };
        if back == 2 && !matches!(sep(tokens, i - 1), Some('.' | ',')) {
            break;
        }
        if let Some(w) = word(tokens, j).filter(|w| is_weekday(w)) {
            weekday = Some(weekday_of(w).or_else(|| abbreviated_weekday(w)));
            k = j;
            break;
        }
    }
    let date = resolve(None, month, day, reference)?;
    match weekday {
        Some(Some(w)) if w != date.weekday() => return None,
        Some(Some(_)) => {}
        Some(None) if s == '/' || closing => {}
        None if closing => {}
        _ => return None,
    }
    Some(FoundDate { start: date, end: None, used: (k..after).collect(), paired: false })
}

/// The day a weekday abbreviation names when it is read as a weekday at all (`sáb`, `dim`,
/// `Cmt`, `mar`): the check of a year-less date's weekday, where a word that is also a
/// month or a common word is already known to stand for a day. `do` (Donnerstag or
/// domingo) names none.
fn abbreviated_weekday(word: &str) -> Option<chrono::Weekday> {
    use chrono::Weekday::{Fri, Mon, Sat, Sun, Thu, Tue, Wed};
    Some(match fold_diacritics(word.trim_end_matches('.')).as_str() {
        "lun" | "lu" | "pzt" => Mon,
        "mar" | "ma" | "sal" => Tue,
        "mer" | "mie" | "crs" | "car" => Wed,
        "jeu" | "jue" | "je" | "per" | "prs" => Thu,
        "ven" | "vie" | "ve" | "cum" => Fri,
        "sam" | "sab" | "cmt" => Sat,
        "dim" | "dom" | "paz" => Sun,
        _ => return None,
    })
}

/// Words that say a time is when doors open, not when the event starts.
const DOORS: [&str; 8] =
    ["doors", "door", "einlass", "portes", "ouverture", "puertas", "apertura", "kapi"];

/// The first time of day outside `used`, and the end of a range that follows it; a time
/// marked as doors opening (`Einlass 19 Uhr · Beginn 20 Uhr`) gives way to a later one.
fn find_times(tokens: &[Token], used: &[usize]) -> Option<(NaiveTime, Option<NaiveTime>)> {
    find_times_from(tokens, used, 0)
}

fn find_times_from(
    tokens: &[Token],
    used: &[usize],
    from: usize,
) -> Option<(NaiveTime, Option<NaiveTime>)> {
    let mut i = from;
    while i < tokens.len() {
        if used.contains(&i) {
            i += 1;
            continue;
        }
        if let Some((t1, mer1, next)) = time_at(tokens, i) {
            // A range: `–`, `to`, `bis`, `à`, `a`, `au`, `hasta`, `until`.
            let mut j = next;
            let joined = sep(tokens, j) == Some('-')
                || matches!(
                    word(tokens, j),
                    Some("to" | "bis" | "a" | "au" | "hasta" | "until" | "till" | "jusqu")
                );
            let mut t2 = None;
            if joined {
                j = after_circa(tokens, j + 1);
                if sep(tokens, j) == Some('\'') {
                    j += 1;
                }
                if let Some((end, mer2, _)) = time_at(tokens, j) {
                    t2 = Some((end, mer2));
                }
            }
            let start = apply_meridiem(
                t1,
                mer1.or_else(|| {
                    // `1:00 - 2:00 PM`: the end's meridiem applies to the start when it keeps
                    // the start before the end.
                    let (end, mer2) = t2?;
                    let m = mer2?;
                    let shifted = apply_meridiem(t1, Some(m))?;
                    (shifted <= apply_meridiem(end, Some(m))?).then_some(m)
                }),
            )?;
            let end = t2.and_then(|(e, m)| apply_meridiem(e, m));
            // `7–9 p.m.`, `7 to 9 pm`: a bare hour before a time with a meridiem starts it.
            if t2.is_none()
                && let Some(m) = mer1
                && let Some(bare) = bare_hour_before(tokens, used, i, 12)
                // The same half of the day when that keeps it first (`7–9 pm`), else the
                // morning (`11–1 pm`).
                && let Some(early) = [Some(m), Some(Meridiem::Am)]
                    .into_iter()
                    .filter_map(|m| apply_meridiem((bare, 0), m))
                    .find(|e| *e < start)
            {
                return Some((early, Some(start)));
            }
            // `11–17 Uhr`, `14–18 h`: a bare hour joined to an hour with its unit starts it.
            if t2.is_none()
                && mer1.is_none()
                && next > 0
                && matches!(word(tokens, next - 1), Some("uhr" | "h"))
                && let Some(bare) = bare_hour_before(tokens, used, i, 23)
                // Not a number a word introduces (`Saal 2 – 17 Uhr`), unless the word is one
                // that introduces hours (`jeweils 11–18 Uhr`, `von 8 bis 13 Uhr`).
                && (i < 3
                    || word(tokens, i - 3).is_none_or(|w| HOURS_INTRO.contains(&w)))
                && let Some(early) = NaiveTime::from_hms_opt(bare, 0, 0)
                && early < start
            {
                return Some((early, Some(start)));
            }
            let doors = (1..=2)
                .filter_map(|k| i.checked_sub(k))
                .any(|k| word(tokens, k).is_some_and(|w| DOORS.contains(&w)));
            if doors && let Some(later) = find_times_from(tokens, used, next.max(i + 1)) {
                return Some(later);
            }
            return Some((start, end));
        }
        i += 1;
    }
    None
}

/// Words after which a number is an hour of opening, not a room or a count.
const HOURS_INTRO: [&str; 12] = [
    "jeweils",
    "taglich",
    "von",
    "ab",
    "from",
    "daily",
    "open",
    "de",
    "desde",
    "entre",
    "quotidien",
    "hergun",
];

/// Whether a range joiner at `k` (`-`, `a`, `bis`, `to`, `à`) is followed by a time that says it
/// is one (`9.00 a 14.00 h`, `9.30–13.30 Uhr`): the dotted start of such a range is a time too.
fn dotted_range_end(tokens: &[Token], k: usize) -> bool {
    let joined = sep(tokens, k) == Some('-')
        || matches!(word(tokens, k), Some("a" | "bis" | "to" | "au" | "hasta" | "until"));
    if !joined {
        return false;
    }
    // The end's number, after an approximating word (`bis ca. 22 Uhr`).
    let e = after_circa(tokens, k + 1);
    let circa = e != k + 1;
    // A dotted end, an end with its meridiem (`5.30–8pm`, as British pages write an
    // evening), or an approximate end with its unit.
    let said = sep(tokens, e + 1) == Some('.') && !tokens.get(e + 1).is_some_and(|t| t.spaced)
        || matches!(word(tokens, e + 1), Some("am" | "pm"))
        || circa && matches!(word(tokens, e + 1), Some("uhr" | "h"));
    num(tokens, e).is_some() && said && time_at(tokens, e).is_some()
}

/// Words that make a range's end approximate (`bis ca. 22 Uhr`, `to approx. 10pm`,
/// `jusqu'à env. 23h`, `hasta aprox. las 2`), folded.
const CIRCA: &[&str] = &["ca", "circa", "approx", "env", "environ", "aprox", "yaklasik", "gegen"];

/// The index after an approximating word (and its dot) at `j`, else `j`.
fn after_circa(tokens: &[Token], j: usize) -> usize {
    match word(tokens, j) {
        Some(w) if CIRCA.contains(&w) => {
            if sep(tokens, j + 1) == Some('.') {
                j + 2
            } else {
                j + 1
            }
        }
        _ => j,
    }
}

/// The bare hour (`7` in `7–9 p.m.`, `7 to 9 pm`, `11` in `11–17 Uhr`) joined by a dash or
/// `to` to the time at `i`, at most `max` (12 beside a meridiem, 23 beside `Uhr` or `h`):
/// not a time of its own and not the tail of a date or number.
fn bare_hour_before(tokens: &[Token], used: &[usize], i: usize, max: u32) -> Option<u32> {
    let joined = i >= 2
        && (sep(tokens, i - 1) == Some('-')
            || matches!(word(tokens, i - 1), Some("to" | "until" | "till" | "bis" | "a")));
    if !joined || used.contains(&(i - 2)) {
        return None;
    }
    let (h, len) = num(tokens, i - 2)?;
    let tail = i >= 3
        && (matches!(sep(tokens, i - 3), Some('/' | '.' | ',' | ':' | '-'))
            && !tokens[i - 2].spaced
            || num(tokens, i - 3).is_some());
    ((1..=max).contains(&h) && len <= 2 && !tail).then_some(h)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Meridiem {
    Am,
    Pm,
}

/// Hours and minutes (raw, before am/pm), the meridiem if written, the next index.
fn time_at(tokens: &[Token], i: usize) -> Option<((u32, u32), Option<Meridiem>, usize)> {
    let (h, lh) = num(tokens, i)?;
    if lh > 2 || h > 24 {
        return None;
    }
    // Not the tail of a date or of a number (`2026`, `12.50`, `5/12`).
    if i > 0 && matches!(sep(tokens, i - 1), Some('/' | ',' | '.')) && !tokens[i].spaced {
        return None;
    }
    let mut j = i + 1;
    let mut minutes = None;
    let mut explicit = false;
    match (&tokens.get(j).map(|t| &t.tok), tokens.get(j).is_some_and(|t| t.spaced)) {
        (Some(Tok::Sep(':')), false) => {
            let (m, lm) = num(tokens, j + 1)?;
            if lm != 2 || m > 59 {
                return None;
            }
            minutes = Some(m);
            explicit = true;
            j += 2;
            // Seconds.
            if sep(tokens, j) == Some(':') && num(tokens, j + 1).is_some_and(|(_, l)| l == 2) {
                j += 2;
            }
        }
        (Some(Tok::Sep('.')), false) => {
            // `20.30 Uhr`, `saat 20.00`: only with a word that says it is a time.
            let (m, lm) = num(tokens, j + 1)?;
            let before = i.checked_sub(1).and_then(|b| match sep(tokens, b) {
                Some(':') => b.checked_sub(1).and_then(|b| word(tokens, b)),
                _ => word(tokens, b),
            });
            let after = word(tokens, j + 2);
            // A price (`£12.50`) is no time.
            let price = i > 0 && matches!(sep(tokens, i - 1), Some('£' | '$' | '€' | '₺'));
            if lm != 2
                || price
                || m > 59
                || !(matches!(after, Some("uhr" | "h" | "am" | "pm"))
                    || matches!(before, Some("saat" | "um" | "ab" | "a" | "las" | "at"))
                    || dotted_range_end(tokens, j + 2))
            {
                return None;
            }
            minutes = Some(m);
            explicit = true;
            j += 2;
        }
        (Some(Tok::Word(w)), _) if w == "h" => {
            // `20h`, `20h30`, `20 h 30`.
            explicit = true;
            j += 1;
            if let Some((m, 2)) = num(tokens, j)
                && m <= 59
            {
                minutes = Some(m);
                j += 1;
            }
        }
        (Some(Tok::Word(w)), _) if w == "hs" || w == "hrs" => {
            explicit = true;
            j += 1;
        }
        _ => {}
    }
    // `20 Uhr`, `8 pm`, `8 p.m.`, `8pm`.
    let mut meridiem = None;
    match word(tokens, j) {
        Some("uhr") => {
            explicit = true;
            j += 1;
        }
        Some("am") => {
            meridiem = Some(Meridiem::Am);
            j += 1;
        }
        Some("pm") => {
            meridiem = Some(Meridiem::Pm);
            j += 1;
        }
        // `12 noon`, `12 midday`.
        Some("noon" | "midday") if h == 12 && minutes.is_none() => {
            meridiem = Some(Meridiem::Pm);
            j += 1;
        }
        Some(w @ ("a" | "p"))
            if sep(tokens, j + 1) == Some('.') && word(tokens, j + 2) == Some("m") =>
        {
            meridiem = Some(if w == "a" { Meridiem::Am } else { Meridiem::Pm });
            j += 3;
            if sep(tokens, j) == Some('.') {
                j += 1;
            }
        }
        _ => {}
    }
    if meridiem.is_some() {
        if h == 0 || h > 12 {
            return None;
        }
        explicit = true;
    }
    if !explicit {
        return None;
    }
    let m = minutes.unwrap_or(0);
    if h == 24 && m > 0 {
        return None;
    }
    Some(((h, m), meridiem, j))
}

fn apply_meridiem((h, m): (u32, u32), meridiem: Option<Meridiem>) -> Option<NaiveTime> {
    let h = match meridiem {
        None => h,
        Some(Meridiem::Am) => h % 12,
        Some(Meridiem::Pm) => h % 12 + 12,
    };
    if h == 24 {
        return NaiveTime::from_hms_opt(23, 59, 59);
    }
    NaiveTime::from_hms_opt(h, m, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(text: &str) -> Option<String> {
        let reference = NaiveDate::from_ymd_opt(2026, 11, 30);
        let order = DateOrder::DayFirst;
        parse_text_date(text, reference, order).map(|d| match d.end {
            Some(e) => format!("{}/{}", d.start.to_iso(), e.to_iso()),
            None => d.start.to_iso(),
        })
    }

    #[test]
    fn numeric_days_without_a_year() {
        // Issue 24: programmes write the day and month only (`Sáb. 07/03`, `Fr. 06.03.`),
        // read after the reference day (2026-11-30 here) when a weekday agrees or, German
        // style, with the closing dot.
        let cases = [
            ("Sáb. 05/12", Some("2026-12-05")),
            ("Sa., 05.12. 20 Uhr", Some("2026-12-05T20:00:00")),
            ("05.12. 20:30", Some("2026-12-05T20:30:00")),
            ("Cmt 05/12 saat 21.00", Some("2026-12-05T21:00:00")),
            ("sam. 5/12 à 20h30", Some("2026-12-05T20:30:00")),
            // A weekday that disagrees (a past date), no weekday and no closing dot, a
            // time, a rate or a score: no date.
            ("Dom. 05/12", None),
            ("05/12", None),
            ("Sa 20.30 Uhr", None),
            ("open 24/7", None),
            ("Sa 10.10 Uhr", None),
            ("Version 2.1 und 3.4", None),
        ];
        for (text, want) in cases {
            assert_eq!(iso(text).as_deref(), want, "`{text}`");
        }
        // A US page writes the month first.
        let us = parse_text_date(
            "Sat 12/5 8pm",
            NaiveDate::from_ymd_opt(2026, 11, 30),
            DateOrder::MonthFirst,
        )
        .map(|d| d.start.to_iso());
        assert_eq!(us.as_deref(), Some("2026-12-05T20:00:00"));
    }

    #[test]
    fn a_year_less_date_whose_weekday_disagrees_is_past_not_next_year() {
        // Read on 2026-11-30: 10 November 2027 is a Wednesday, so "Monday, November 10"
        // is a past page's date (2025), not 2027's.
        for text in
            ["Monday, November 10 1:00 - 2:00 PM", "lundi 10 novembre", "Montag, 10. November"]
        {
            assert_eq!(iso(text), None, "`{text}`");
        }
        // The weekday that agrees, or a stated year, keeps the date.
        assert_eq!(iso("mercredi 10 novembre").as_deref(), Some("2027-11-10"));
        assert_eq!(iso("Monday, November 10, 2025").as_deref(), Some("2025-11-10"));
    }

    #[test]
    fn every_form_in_the_issue_and_more() {
        let cases = [
            // The issue's forms.
            ("5 décembre 2026 à 20h", "2026-12-05T20:00:00"),
            ("5 Aralık 2026 Cuma 20:00", "2026-12-05T20:00:00"),
            ("sábado 5 de diciembre", "2026-12-05"),
            ("Sa., 5. Dez. 2026, 20 Uhr", "2026-12-05T20:00:00"),
            ("Dec 5–7", "2026-12-05/2026-12-07"),
            ("5 décembre 2026, 20:00–22:30", "2026-12-05T20:00:00/2026-12-05T22:30:00"),
            ("December 5, 2026 8pm", "2026-12-05T20:00:00"),
            // Two days joined by `and` (issue 24, batch 90–109): a run when consecutive,
            // else the first; hours kept each day of a run leave a run of dates.
            ("Gijón, 12 y 13 de noviembre de 2026", "2026-11-12/2026-11-13"),
            ("Sa. 12. und So. 13. September 2026", "2026-09-12/2026-09-13"),
            ("5 et 12 décembre 2026", "2026-12-05"),
            ("3 Ekim 2026 – 28 Şubat 2027", "2026-10-03/2027-02-28"),
            ("14 May – 27 September 2026", "2026-05-14/2026-09-27"),
            ("17 Ekim – 29 Kasım 2026", "2026-10-17/2026-11-29"),
            ("4 June 2026, 6.30pm – 8.30pm", "2026-06-04T18:30:00/2026-06-04T20:30:00"),
            ("27.11.–23.12.2026, täglich 11–20 Uhr", "2026-11-27/2026-12-23"),
            ("28.12.–6.1.2027", "2026-12-28/2027-01-06"),
            ("27.11.–23.12.2026, 19 Uhr", "2026-11-27T19:00:00/2026-12-23"),
            ("Vendredi 9 et samedi 10 octobre 2026 — 20h30", "2026-10-10T20:30:00"),
            ("12 ve 13 Aralık 2026", "2026-12-12/2026-12-13"),
            ("Sa. 12. und So. 13. September 2026, jeweils 11–18 Uhr", "2026-09-12/2026-09-13"),
            ("Del 8 al 10 de mayo de 2026, cada día de 11:00 a 23:00", "2026-05-08/2026-05-10"),
            (
                "Del 8 al 10 de mayo de 2026, de 11:00 a 23:00",
                "2026-05-08T11:00:00/2026-05-10T23:00:00",
            ),
            // English.
            ("Saturday, December 5, 2026 at 8:30 PM", "2026-12-05T20:30:00"),
            ("Sat Dec 5 2026 8 p.m.", "2026-12-05T20:00:00"),
            ("5th December 2026", "2026-12-05"),
            ("Nov. 12, 2025 1:00pm - 2:00pm", "2025-11-12T13:00:00/2025-11-12T14:00:00"),
            ("Wednesday, November 10 1:00 - 2:00 PM", "2027-11-10T13:00:00/2027-11-10T14:00:00"),
            ("Jan 3", "2027-01-03"),
            ("June 21, 2018", "2018-06-21"),
            ("10:00 am - 4:00 pm July 27, 2025", "2025-07-27T10:00:00/2025-07-27T16:00:00"),
            // French.
            ("samedi 5 décembre 2026 à 20h30", "2026-12-05T20:30:00"),
            ("sam. 5 déc. 2026 20 h", "2026-12-05T20:00:00"),
            ("mar. 8 dec 2026", "2026-12-08"),
            ("1er mai 2027", "2027-05-01"),
            ("5-7 decembre 2026", "2026-12-05/2026-12-07"),
            ("le 14 juillet 2027 de 21h à 23h", "2027-07-14T21:00:00/2027-07-14T23:00:00"),
            ("3 fevrier 2027", "2027-02-03"),
            ("12 août 2027", "2027-08-12"),
            // Turkish.
            ("5 Aralik 2026 Cumartesi saat 20.00", "2026-12-05T20:00:00"),
            ("14 Şubat 2027", "2027-02-14"),
            ("3 Mayıs 2027 19:30", "2027-05-03T19:30:00"),
            ("12 Eylül 2027 Pazar", "2027-09-12"),
            ("20 Ağu 2027", "2027-08-20"),
            ("Tarih: 21 Mart 2026 Cumartesi", "2026-03-21"),
            // Spanish.
            ("sábado, 5 de diciembre de 2026, 20:00 h", "2026-12-05T20:00:00"),
            ("vie 11 dic 2026 21:30", "2026-12-11T21:30:00"),
            ("1 de enero de 2027", "2027-01-01"),
            ("mar 8 dic", "2026-12-08"),
            // German.
            ("Samstag, 5. Dezember 2026, 20:00 Uhr", "2026-12-05T20:00:00"),
            ("5. März 2027, 19.30 Uhr", "2027-03-05T19:30:00"),
            ("Fr., 11. Dez. 2026, 20 Uhr bis 22 Uhr", "2026-12-11T20:00:00/2026-12-11T22:00:00"),
            ("Mi 3. Feb 2027", "2027-02-03"),
            // Numeric.
            ("05.12.2026 20:00", "2026-12-05T20:00:00"),
            ("05/12/2026", "2026-12-05"),
            ("2026-12-05 20:00", "2026-12-05T20:00:00"),
            ("2026-12-05T20:00:00+01:00", "2026-12-05T20:00:00+01:00"),
            // Year-less, resolved after the reference (2026-11-30).
            ("5 novembre", "2027-11-05"),
            ("30 November", "2026-11-30"),
            ("29 février", "2028-02-29"),
            // Across midnight.
            ("5 December 2026 22:00–01:00", "2026-12-05T22:00:00/2026-12-06T01:00:00"),
            // A day range in words, weekdays between.
            ("Du vendredi 11 au dimanche 13 décembre 2026", "2026-12-11/2026-12-13"),
            ("del 11 al 13 de diciembre de 2026", "2026-12-11/2026-12-13"),
            ("11. bis 13. Dezember 2026", "2026-12-11/2026-12-13"),
        ];
        for (text, want) in cases {
            assert_eq!(iso(text).as_deref(), Some(want), "`{text}`");
        }
    }

    #[test]
    fn dotted_runs_with_weekdays_or_a_day_alone() {
        // Issue 24, batch 110–129: a club plan's runs of days.
        assert_eq!(iso("So. 14.06. – Fr. 19.06.2026").as_deref(), Some("2026-06-14/2026-06-19"));
        assert_eq!(iso("Sa./So. 13.–14.06.2026").as_deref(), Some("2026-06-13/2026-06-14"));
        assert_eq!(iso("27.11.–23.12.2026").as_deref(), Some("2026-11-27/2026-12-23"));
        // A version number or a score before a date is no run.
        assert_eq!(iso("Version 2. – 14.06.2026").as_deref(), Some("2026-06-14"));
        // Issue 24 (page 287): the first day without its dot, tight against the dash.
        assert_eq!(iso("04–05.04.2026").as_deref(), Some("2026-04-04/2026-04-05"));
        assert_eq!(iso("Sa–So 11-12.07.2026").as_deref(), Some("2026-07-11/2026-07-12"));
        // A time's minutes, a date's month or a spaced number before it join no run.
        assert_eq!(iso("10.03-05.04.2026").as_deref(), Some("2026-04-05"));
        assert_eq!(iso("Saal 3 - 05.04.2026").as_deref(), Some("2026-04-05"));
    }

    #[test]
    fn month_first_order_for_english() {
        let r = parse_text_date("12/05/2026", None, DateOrder::MonthFirst).unwrap();
        assert_eq!(r.start.to_iso(), "2026-12-05");
        assert_eq!(DateOrder::for_language("en-US"), DateOrder::MonthFirst);
        assert_eq!(DateOrder::for_language("fr"), DateOrder::DayFirst);
        let r = parse_text_date("25/12/2026", None, DateOrder::MonthFirst).unwrap();
        assert_eq!(r.start.to_iso(), "2026-12-25", "a first part over 12 is the day");
    }

    #[test]
    fn never_a_date_from_nothing() {
        for text in [
            "",
            "Free entry",
            "December",
            "Samstag",
            "sábado de diciembre",
            "12,50 €",
            "150 TL",
            "Call 555-1234",
            "Room 12",
            "8pm",
            "35 décembre 2026",
            "31 February 2027",
            "2 years ago",
            "mayo",
        ] {
            assert_eq!(iso(text), None, "`{text}`");
        }
        assert_eq!(
            parse_text_date("5 décembre", None, DateOrder::DayFirst),
            None,
            "no year, no ref"
        );
    }

    #[test]
    fn times() {
        let t = |s: &str| {
            parse_text_time(s).map(|(a, b)| {
                (a.format("%H:%M").to_string(), b.map(|b| b.format("%H:%M").to_string()))
            })
        };
        assert_eq!(t("20h"), Some(("20:00".into(), None)));
        assert_eq!(t("20h30"), Some(("20:30".into(), None)));
        assert_eq!(t("8pm"), Some(("20:00".into(), None)));
        assert_eq!(t("8:15 a.m."), Some(("08:15".into(), None)));
        assert_eq!(t("12 pm"), Some(("12:00".into(), None)));
        assert_eq!(t("12am"), Some(("00:00".into(), None)));
        assert_eq!(t("20:00–22:30"), Some(("20:00".into(), Some("22:30".into()))));
        assert_eq!(t("20 Uhr"), Some(("20:00".into(), None)));
        assert_eq!(t("11:00 - 1:00 PM"), Some(("11:00".into(), Some("13:00".into()))));
        assert_eq!(t("Einlass 19 Uhr · Beginn 20 Uhr"), Some(("20:00".into(), None)));
        assert_eq!(t("Doors 7pm / Show 8:30pm"), Some(("20:30".into(), None)));
        assert_eq!(t("Doors 7pm"), Some(("19:00".into(), None)), "doors alone is still a time");
        assert_eq!(t("saat 20.30"), Some(("20:30".into(), None)));
        assert_eq!(t("20h30"), Some(("20:30".into(), None)));
        assert_eq!(t("20:30 Uhr"), Some(("20:30".into(), None)));
        assert_eq!(t("20.30 h"), Some(("20:30".into(), None)));
        assert_eq!(t("7.30pm"), Some(("19:30".into(), None)));
        assert_eq!(t("Saat: 20.30"), Some(("20:30".into(), None)));
        assert_eq!(t("12.50"), None, "a bare dotted number is not a time");
        assert_eq!(t("12,50 €"), None);
        assert_eq!(t("Room 12"), None);
        assert_eq!(t("25:00"), None);
        // A bare hour joined to a time with a meridiem starts the range.
        assert_eq!(t("7–9 p.m. CT"), Some(("19:00".into(), Some("21:00".into()))));
        assert_eq!(t("7 to 9 pm"), Some(("19:00".into(), Some("21:00".into()))));
        assert_eq!(t("11–1 pm"), Some(("11:00".into(), Some("13:00".into()))));
        // Noon (issue 24, page 313) and an approximate end (page 342).
        assert_eq!(t("12 noon – 4pm"), Some(("12:00".into(), Some("16:00".into()))));
        assert_eq!(t("20.30 bis ca. 22 Uhr"), Some(("20:30".into(), Some("22:00".into()))));
        assert_eq!(t("19:00 – ca. 21:30"), Some(("19:00".into(), Some("21:30".into()))));
        // A dotted start joined to an end with its meridiem (issue 24, page 331).
        assert_eq!(t("5.30–8pm"), Some(("17:30".into(), Some("20:00".into()))));
        assert_eq!(t("10.30 to 11.45am"), Some(("10:30".into(), Some("11:45".into()))));
        assert_eq!(t("£12.50 – 8pm"), Some(("20:00".into(), None)), "a price is no start");
        // And a bare hour joined to an hour with `Uhr` or `h` (issue 24, written page 66).
        assert_eq!(t("So, 12.04.2026, 11–17 Uhr"), Some(("11:00".into(), Some("17:00".into()))));
        assert_eq!(t("14-18 h"), Some(("14:00".into(), Some("18:00".into()))));
        assert_eq!(t("de 14h à 18h"), Some(("14:00".into(), Some("18:00".into()))));
        assert_eq!(t("Saal 2 – 17 Uhr"), Some(("17:00".into(), None)), "a room, not an hour");
        // Spanish and Turkish forms of a festival timetable (page 62).
        assert_eq!(t("21:00 h"), Some(("21:00".into(), None)));
        assert_eq!(t("23.00 h"), Some(("23:00".into(), None)));
        assert_eq!(t("a las 21:00"), Some(("21:00".into(), None)));
        assert_eq!(t("saat 19:00"), Some(("19:00".into(), None)));
        // Issue 24, batch 90–109: a dotted start joined to a dotted end with its unit, and a
        // bare hour after a word that introduces opening hours or joined by `bis`/`a`.
        assert_eq!(t("de 9.00 a 14.00 h"), Some(("09:00".into(), Some("14:00".into()))));
        assert_eq!(t("9.30–13.30 Uhr"), Some(("09:30".into(), Some("13:30".into()))));
        assert_eq!(t("12.50 - 14.00"), None, "prices, not times");
        assert_eq!(t("jeweils 11–18 Uhr"), Some(("11:00".into(), Some("18:00".into()))));
        assert_eq!(
            t("Samstag, 10.10.2026, 8 bis 13 Uhr"),
            Some(("08:00".into(), Some("13:00".into())))
        );
        assert_eq!(t("de 9 a 14 h"), Some(("09:00".into(), Some("14:00".into()))));
        assert_eq!(t("Saal 2 bis 17 Uhr"), Some(("17:00".into(), None)), "a room, not an hour");
    }
}
