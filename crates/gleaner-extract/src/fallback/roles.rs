//! The roles of the times a line gives (issue 24): a time labelled as doors opening,
//! boarding or registration (`Einlass`, `Türöffnung`, `Embarque`, `portes`, `kapılar`,
//! `registration`) comes before the event; a line that also gives another time (`Salida
//! 20.30 h`, `Beginn 20 Uhr`, `first round 7.45pm`) starts then. And the times a line
//! lists (`11.00 ve 14.00`, `9:30 h y 20:30 h`): one performance each.

use std::borrow::Cow;

use chrono::{NaiveDate, NaiveTime};
use gleaner_event::datetext::{DateOrder, fold_diacritics, parse_text_date, parse_text_time};

use super::tables::cell_time;

/// Words that mark a time as coming before the event's start (folded): doors, boarding,
/// registration (`Anmeldung … bis 18 Uhr`) and welcome, in the five languages.
const BEFORE_START: &[&str] = &[
    "doors",
    "door",
    "gates",
    "boarding",
    "registration",
    "einlass",
    "anmeldung",
    "turoffnung",
    "saaloffnung",
    "kassenoffnung",
    "portes",
    "ouverture",
    "embarquement",
    "accueil",
    "inscription",
    "inscriptions",
    "puertas",
    "apertura",
    "embarque",
    "acreditacion",
    "inscripcion",
    "inscripciones",
    "kapilar",
    "kayit",
    "kapi",
    "binis",
    "briefing",
    // `Abrimos a las 21 h · arrancan los músicos a las 22 h`: "we open".
    "abrimos",
];

/// Where a clause's first word naming a time before the start opens, as a byte offset.
fn says_before_start(clause: &str) -> Option<usize> {
    let mut at = None;
    for (i, c) in clause.char_indices().chain(std::iter::once((clause.len(), ' '))) {
        match (c.is_alphanumeric(), at) {
            (true, None) => at = Some(i),
            (false, Some(a)) => {
                let word = fold_diacritics(&clause[a..i]);
                if BEFORE_START.contains(&word.as_str())
                    || word == "check" && checks_in(&clause[i..])
                {
                    return Some(a);
                }
                at = None;
            }
            _ => {}
        }
    }
    None
}

/// Whether the text after `check` makes it a check-in (`Check-in ab 12.30 Uhr`, `check in
/// from 6pm`, `Checkin 8:00`), the arrival before an event's start in every language.
fn checks_in(rest: &str) -> bool {
    let rest = rest.strip_prefix(['-', ' ', '\u{2011}']).unwrap_or(rest);
    let mut word = rest.split(|c: char| !c.is_alphanumeric());
    word.next().is_some_and(|w| w.eq_ignore_ascii_case("in"))
}

/// The clauses of a line: its parts between `·`, `,`, `;`, `|`, `•`, brackets and
/// sentence ends, as byte ranges.
pub(super) fn clauses(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        let cut = matches!(c, '·' | ',' | ';' | '|' | '•' | '(' | ')' | '[' | ']')
            || matches!(c, '.' | '!' | '?') && next_space;
        if cut {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, text.len()));
    out
}

/// Whether a text gives a time of day (`20.30 h`, `7pm`, `19.30'da`, a bare `21.30`).
fn has_time(text: &str) -> bool {
    parse_text_time(text).is_some()
        || text.split_whitespace().any(|w| {
            cell_time(w.split(['\'', '’']).next().unwrap_or(w).trim_end_matches('h')).is_some()
        })
}

/// The line without an arrival time that a start follows (`7.30 for 8pm`, `6.45pm for
/// 7.15pm`, as British and Irish invitations write a dinner's or a talk's time): `None`
/// when it has none.
fn arrival_for_start(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let time = |w: &str| {
        let w = w.trim_matches(|c: char| matches!(c, ',' | ';' | '(' | ')'));
        // A time's own form (`8pm`, `7.30`, `19:30`), not a count (`for 2`).
        w.bytes().next().is_some_and(|b| b.is_ascii_digit())
            && (w.contains(['.', ':']) || w.to_ascii_lowercase().ends_with('m'))
            && (parse_text_time(w).is_some() || cell_time(w).is_some())
    };
    let at = (1..words.len().saturating_sub(1)).find(|&i| {
        words[i].eq_ignore_ascii_case("for") && time(words[i - 1]) && time(words[i + 1])
    })?;
    let mut kept: Vec<&str> = words[..at - 1].to_vec();
    kept.extend_from_slice(&words[at + 1..]);
    Some(kept.join(" "))
}

/// The line without its times before the start, when it also gives another time:
/// `Embarque 20.00 h · Salida 20.30 h` → `· Salida 20.30 h`, `Thursday 2nd April,
/// registration from 7.30pm, first round 7.45pm` → `Thursday 2nd April, , first round
/// 7.45pm`. A clause is cut from its role word on, unless a date follows that word (the
/// clause may be an event's own, `Apertura de la muestra: 2 de abril, 19 h`). A line
/// whose every time comes before the start is kept whole: its start is not said.
pub(super) fn start_line(text: &str) -> Cow<'_, str> {
    if !text.bytes().any(|b| b.is_ascii_digit()) {
        return Cow::Borrowed(text);
    }
    // `6.45pm for 7.15pm`: arrive at the first time, the event starts at the second.
    if let Some(line) = arrival_for_start(text) {
        return Cow::Owned(start_line(&line).into_owned());
    }
    let far = NaiveDate::from_ymd_opt(1970, 1, 1);
    let mut cuts = Vec::new();
    let mut other_time = false;
    for (a, b) in clauses(text) {
        let clause = &text[a..b];
        if !has_time(clause) {
            continue;
        }
        match says_before_start(clause) {
            Some(at)
                if has_time(&clause[at..])
                    && parse_text_date(&clause[at..], far, DateOrder::default()).is_none() =>
            {
                // Two times in one clause (`Briefing 18:30 h Arranque 19:30 h`, a cell's
                // lines joined): the role word's own time gives way, the other is the start.
                match first_time_end(&clause[at..]) {
                    Some(end) if has_time(&clause[at + end..]) => {
                        cuts.push((a + at, a + at + end));
                        other_time = true;
                    }
                    _ => cuts.push((a + at, b)),
                }
            }
            _ => other_time = true,
        }
    }
    if cuts.is_empty() || !other_time {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for (a, b) in cuts {
        out.push_str(&text[from..a]);
        from = b;
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// Where the first time of a clause that opens with a role word ends, as a byte offset
/// (`Briefing 18:30 h Arranque 19:30 h` → after `18:30 h`): after the fewest words that
/// give a time, and the unit word after them (`h`, `Uhr`, `pm`).
fn first_time_end(clause: &str) -> Option<usize> {
    let words: Vec<(usize, &str)> = clause
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - clause.as_ptr() as usize, w))
        .collect();
    let k = (0..words.len()).find(|&k| {
        let (at, w) = words[k];
        has_time(&clause[..at + w.len()])
    })?;
    let mut end = words[k].0 + words[k].1.len();
    if let Some((at, w)) = words.get(k + 1)
        && TIME_WORDS.contains(&fold_diacritics(w).as_str())
    {
        end = at + w.len();
    }
    Some(end)
}

/// Whether a line gives times and every one comes before the start (`Einlass 19 Uhr`,
/// `Türöffnung und Nachtessen ab 18.30 Uhr`).
pub(super) fn before_start_only(text: &str) -> bool {
    let timed: Vec<(usize, usize)> =
        clauses(text).into_iter().filter(|(a, b)| has_time(&text[*a..*b])).collect();
    !timed.is_empty()
        && timed.iter().all(|(a, b)| {
            let clause = &text[*a..*b];
            says_before_start(clause).is_some_and(|at| has_time(&clause[at..]))
        })
}

/// Words of a label that introduces a time of day (folded): `Saat: 11.00`, `Seans
/// saatleri: 14.00`, `Uhrzeit: 19.30`, `Horaire : 20.30`, `Hora: 20.30`, `Time: 19.30`.
const TIME_LABELS: &[&str] = &[
    "time", "times", "start", "uhrzeit", "zeit", "beginn", "horaire", "horaires", "heure", "hora",
    "horario", "saat", "saati", "saatleri", "seans",
];

/// The time a labelled line gives with a dot (`Seans saatleri: 11.00`, `Uhrzeit: 19.30`):
/// alone `11.00` could be a date, after a time's label ([`TIME_LABELS`]) it is a time.
pub(super) fn labelled_time(text: &str) -> Option<NaiveTime> {
    let (label, rest) = text.rsplit_once(':')?;
    let folded = fold_diacritics(label);
    let labelled = folded.split(|c: char| !c.is_alphanumeric()).any(|w| TIME_LABELS.contains(&w));
    let rest = rest.trim().trim_end_matches(['h', 'H']).trim();
    labelled.then(|| cell_time(rest)).flatten().map(|(t, _)| t)
}

/// Words that join the times of a list (folded).
const TIME_JOINS: &[&str] = &["and", "et", "y", "und", "ve", "&", "e"];

/// Words a bare time may carry (folded): its unit, a meridiem, `saat`.
const TIME_WORDS: &[&str] =
    &["h", "uhr", "am", "pm", "a", "m", "p", "saat", "saatlerinde", "heures", "hrs", "hs"];

/// The times a clause lists and nothing else but a label (`11.00 ve 14.00`, `9:30 h y
/// 20:30 h`, `14h et 16h30`, `Seans saatleri: 11.00 ve 14.00`), two or more, in order; empty for any other clause. A range (`de 14h
/// à 17h`, `11–18 Uhr`) is no list.
pub(super) fn listed_times(text: &str) -> Vec<NaiveTime> {
    for (a, b) in clauses(text) {
        // Without a label before them (`Seans saatleri: 11.00 ve 14.00`).
        let clause = &text[a..b];
        let clause = clause.rsplit_once(": ").map_or(clause, |(_, rest)| rest);
        let folded = fold_diacritics(clause);
        let words: Vec<&str> = folded.split_whitespace().collect();
        if !words.iter().any(|w| TIME_JOINS.contains(w)) {
            continue;
        }
        let mut times = Vec::new();
        let mut ok = true;
        for part in words.split(|w| TIME_JOINS.contains(w)) {
            let part = part.join(" ");
            let letters_ok = part
                .split(|c: char| !c.is_alphabetic())
                .filter(|w| !w.is_empty())
                .all(|w| TIME_WORDS.contains(&w));
            let bare = part.split(['\'', '’']).next().unwrap_or(&part).trim();
            let time = match parse_text_time(&part) {
                Some((t, None)) => Some(t),
                Some(_) => None,
                None => cell_time(bare.trim_end_matches(['h', 'H']).trim())
                    .or_else(|| cell_time(bare))
                    .map(|(t, _)| t),
            };
            match time.filter(|_| letters_ok && !part.contains(['-', '–'])) {
                Some(t) if !times.contains(&t) => times.push(t),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && times.len() >= 2 {
            return times;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::{listed_times, start_line};
    use chrono::NaiveTime;
    use gleaner_event::datetext::parse_text_time;

    #[test]
    fn an_arrival_time_for_the_start() {
        // Issue 24, pages 331 and 333: `6.45pm for 7.15pm`, `7.30 for 8pm`.
        let start = |l: &str| parse_text_time(&start_line(l)).map(|(t, _)| t);
        let at = |h, m| NaiveTime::from_hms_opt(h, m, 0);
        assert_eq!(start("Thursday 2nd April · 6.45pm for 7.15pm"), at(19, 15));
        assert_eq!(start("Friday 6th March, 7.30 for 8pm, Main Hall"), at(20, 0));
        assert_eq!(start("Saturday 7 March, 7pm, tables for 6"), at(19, 0));
    }

    #[test]
    fn times_before_the_start_give_way() {
        assert_eq!(
            start_line("Embarque 20.00 h · Salida 20.30 h · Regreso 22.30 h"),
            "· Salida 20.30 h · Regreso 22.30 h"
        );
        assert_eq!(start_line("Türöffnung 18.30 Uhr, Beginn 20 Uhr"), ", Beginn 20 Uhr");
        assert_eq!(
            start_line("Gates open 5pm · Music 6pm – 8.30pm · The Lawn"),
            "· Music 6pm – 8.30pm · The Lawn"
        );
        assert_eq!(
            start_line("Thursday 2nd April, registration from 7.30pm, first round 7.45pm"),
            "Thursday 2nd April, , first round 7.45pm"
        );
        assert_eq!(
            start_line("samedi 7 mars, portes 19h, concert 20h"),
            "samedi 7 mars, , concert 20h"
        );
        // A cell's two lines joined: the role word's time gives way to the other.
        assert_eq!(start_line("Briefing 18:30 h Arranque 19:30 h"), " Arranque 19:30 h");
        assert_eq!(start_line("Briefing 19:15 h 20:00 a 23:00 h"), " 20:00 a 23:00 h");
        assert_eq!(start_line("Einlass 19 Uhr Beginn 20 Uhr"), " Beginn 20 Uhr");
        // Issue 24, page 300: "we open" is the doors.
        assert_eq!(
            start_line("Abrimos a las 21 h · arrancan los músicos a las 22 h"),
            "· arrancan los músicos a las 22 h"
        );
        // Issue 24, page 365: a check-in gives way to the start, in any language.
        assert_eq!(
            start_line("Beginn 13.00 Uhr (Check-in ab 12.30 Uhr), im Vereinsraum"),
            "Beginn 13.00 Uhr (), im Vereinsraum"
        );
        assert_eq!(start_line("Check in from 6.30pm, quiz 7pm"), ", quiz 7pm");
        // A check of something else is no arrival.
        assert_eq!(start_line("Check inside the hall at 7pm"), "Check inside the hall at 7pm");
        // Only doors: the start is not said; a role word before a date is the event's.
        assert_eq!(start_line("Einlass 19 Uhr"), "Einlass 19 Uhr");
        assert_eq!(
            start_line("Apertura de la muestra: 2 de abril, 19 h · visita 20 h"),
            "Apertura de la muestra: 2 de abril, 19 h · visita 20 h"
        );
    }

    #[test]
    fn listed_times_are_performances() {
        let t = |h, m| NaiveTime::from_hms_opt(h, m, 0).unwrap();
        assert_eq!(listed_times("11.00 ve 14.00"), [t(11, 0), t(14, 0)]);
        assert_eq!(listed_times("Domingo 8 de marzo · 9:30 h y 20:30 h"), [t(9, 30), t(20, 30)]);
        assert_eq!(listed_times("14h et 16h30"), [t(14, 0), t(16, 30)]);
        assert_eq!(listed_times("Seans saatleri: 11.00 ve 14.00"), [t(11, 0), t(14, 0)]);
        assert_eq!(super::labelled_time("Seans saati: 11.00"), Some(t(11, 0)));
        assert_eq!(super::labelled_time("Dauer: 2.30"), None);
        assert!(listed_times("de 14h à 17h").is_empty());
        assert!(listed_times("Salle 2 et 3").is_empty());
        assert!(listed_times("20h30").is_empty());
    }
}
