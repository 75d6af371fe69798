//! A fallback event's title without the marks a page puts around it: a status badge
//! (`ABGESAGT – Honigmarkt`, `Orkestra (İPTAL EDİLMİŞTİR)`), a booking badge read into
//! its end (`Osterbrunch Ausgebucht`, `Kapanış Konseri Biletli`) or set apart at either end
//! (`SOLD OUT – Adult Prom Night Bowl`), and dashes, bullets or
//! pictographs left at either end (`– Soirée jeux`, `🐾 Tag der offenen Tür`), and a
//! price or free entry stated after a dash or in brackets at its end (`Birding course –
//! R150 incl. notes`, `Waterbird count (free, counters welcome)`).

use gleaner_event::datetext::fold_diacritics;

use super::words::status_in;

/// A title without its marks, and the status a badge among them stated.
#[derive(Debug, PartialEq)]
pub(crate) struct Marked {
    /// The title as the event's name.
    pub(crate) title: String,
    /// The status of a status badge taken off it.
    pub(crate) status: Option<&'static str>,
}

/// Badges a page shows on a full or ticketed event (folded): never part of its name.
const BOOKING_BADGES: &[&str] =
    &["ausgebucht", "ausverkauft", "complet", "agotado", "agotadas", "tukendi", "biletli"];

/// Marks a title may open with and keep: quotes, brackets, Spanish openers, a number sign.
const KEPT_OPENERS: &[char] =
    &['«', '"', '\'', '’', '`', '„', '“', '‘', '‚', '(', '[', '¡', '¿', '#'];

/// Marks a title never ends with: dashes, separators and bullets.
const TRAILING_MARKS: &[char] = &['–', '—', '-', ':', '·', '•', '|', '/', ',', ';'];

/// The most words in a bracketed status at a title's end (`(İPTAL EDİLMİŞTİR)`).
const MAX_BRACKETED_STATUS_WORDS: usize = 3;

/// The title without the marks around it; the title unchanged when nothing would be left.
pub(crate) fn unmarked(title: &str) -> Marked {
    let mut status = None;
    let mut t = trim_marks(title).to_owned();
    if let Some((rest, st)) = crate::feeds::split_status_badge(&t)
        && has_words(&rest)
    {
        t = trim_marks(&rest).to_owned();
        status = Some(st);
    } else if let Some((rest, st)) = bracketed_status(&t) {
        t = trim_marks(rest).to_owned();
        status = Some(st);
    }
    if let Some((rest, st)) = status_remark_tail(&t) {
        t = trim_marks(rest).to_owned();
        status = status.or(Some(st));
    }
    if let Some(rest) = booking_badge_apart(&t)
        && has_words(rest)
    {
        t = trim_marks(rest).to_owned();
    }
    if let Some((rest, badge)) = t.rsplit_once(' ')
        && badge.chars().next().is_some_and(char::is_uppercase)
        && BOOKING_BADGES.contains(&fold_diacritics(badge).as_str())
        && has_words(rest)
    {
        t = trim_marks(rest).to_owned();
    }
    // A price after it: `… – R150 incl. notes (members R100)` loses both.
    for _ in 0..MAX_PRICE_TAILS {
        match price_tail(&t) {
            Some(rest) => t = trim_marks(rest).to_owned(),
            None => break,
        }
    }
    if has_words(&t) {
        Marked { title: t, status }
    } else {
        Marked { title: title.to_owned(), status: None }
    }
}

/// The most price remarks taken off one title's end.
const MAX_PRICE_TAILS: usize = 2;

/// A title ending in a price or free entry after a dash or in brackets (`… (precio
/// especial 25 €, niños 12 €)`, `… – entrée libre, collecte`): the title before it.
fn price_tail(t: &str) -> Option<&str> {
    let priced = |tail: &str| {
        gleaner_event::parse_price_text(tail).is_some_and(|p| p.currency.is_some() || p.is_free)
            || gleaner_event::says_free(tail)
    };
    let (rest, tail) = match t.strip_suffix(')').and_then(|b| b.rsplit_once(" (")) {
        Some(split) => split,
        None => [" – ", " — "].iter().find_map(|sep| t.rsplit_once(sep))?,
    };
    (has_words(rest) && priced(tail)).then_some(rest)
}

/// The fewest words of a sentence after a title's dash read as a remark on it.
const MIN_REMARK_WORDS: usize = 5;

/// A title ending in a whole sentence after a dash that states the event's status (`DJ
/// Performansı: Nehir — Sanatçının programındaki değişiklik nedeniyle bu performans iptal
/// edilmiştir.`, `Open Day – Sadly this year's open day is cancelled.`): the title before
/// it and that status. A name does not end in a sentence's full stop.
fn status_remark_tail(t: &str) -> Option<(&str, &'static str)> {
    let (rest, tail) = [" — ", " – "].iter().find_map(|sep| t.split_once(sep))?;
    let sentence = tail.ends_with('.')
        && !tail.ends_with("..")
        && tail.split_whitespace().count() >= MIN_REMARK_WORDS
        && tail.split_whitespace().any(|w| w.chars().all(char::is_lowercase));
    if !sentence || !has_words(rest) {
        return None;
    }
    Some((rest, status_in(tail)?))
}

/// Booking badges of more than one word (folded), read like [`BOOKING_BADGES`] when set
/// apart from the name by a dash, a colon or brackets.
const BOOKING_PHRASES: &[&str] = &["sold out", "fully booked"];

/// A title with a booking badge set apart at its start or end (`SOLD OUT – Adult Prom Night
/// Bowl`, `Ausverkauft: Tanz in den Mai`, `Fondue-Abend (ausgebucht)`): the name without it.
fn booking_badge_apart(t: &str) -> Option<&str> {
    let badge = |w: &str| {
        let w = fold_diacritics(w.trim().trim_end_matches('!')).to_lowercase();
        BOOKING_BADGES.contains(&w.as_str()) || BOOKING_PHRASES.contains(&w.as_str())
    };
    for sep in [" – ", " — ", " - ", ": "] {
        if let Some((head, rest)) = t.split_once(sep)
            && badge(head)
        {
            return Some(rest);
        }
        if let Some((rest, tail)) = t.rsplit_once(sep)
            && badge(tail)
        {
            return Some(rest);
        }
    }
    let (rest, inner) = t.strip_suffix(')')?.rsplit_once(" (")?;
    badge(inner).then_some(rest)
}

/// A title ending in a short bracketed status (`… (İPTAL EDİLMİŞTİR)`): the rest and the
/// status.
fn bracketed_status(t: &str) -> Option<(&str, &'static str)> {
    let (rest, inner) = t.strip_suffix(')')?.rsplit_once(" (")?;
    let words = inner.split_whitespace().count();
    if !(1..=MAX_BRACKETED_STATUS_WORDS).contains(&words) || !has_words(rest) {
        return None;
    }
    Some((rest, status_in(inner)?))
}

/// The text without dashes, bullets and pictographs at its start and dashes and
/// separators at its end.
fn trim_marks(t: &str) -> &str {
    t.trim_start_matches(|c: char| {
        c.is_whitespace() || !(c.is_alphanumeric() || KEPT_OPENERS.contains(&c))
    })
    .trim_end_matches(|c: char| c.is_whitespace() || TRAILING_MARKS.contains(&c))
}

/// Whether a text has a word of two letters or more.
fn has_words(t: &str) -> bool {
    t.split(|c: char| !c.is_alphanumeric()).any(|w| w.chars().count() >= 2)
}

#[cfg(test)]
mod tests {
    use super::{Marked, unmarked};

    #[test]
    fn titles_without_their_marks() {
        let same = |t: &str| Marked { title: t.to_owned(), status: None };
        let with = |t: &str, s| Marked { title: t.to_owned(), status: Some(s) };
        for (title, want) in [
            (
                "ABGESAGT – Honigmarkt auf dem Dorfplatz",
                with("Honigmarkt auf dem Dorfplatz", "cancelled"),
            ),
            ("CANCELLED – Ice Races Spectator Trip", with("Ice Races Spectator Trip", "cancelled")),
            (
                "Gençlik Senfoni Orkestrası (İPTAL EDİLMİŞTİR)",
                with("Gençlik Senfoni Orkestrası", "cancelled"),
            ),
            (
                "Osterbrunch im Restaurant Quelle Ausgebucht",
                same("Osterbrunch im Restaurant Quelle"),
            ),
            ("Kapanış Konseri: Kardelen Yıldız Biletli", same("Kapanış Konseri: Kardelen Yıldız")),
            ("– Soirée jeux de société à la grange", same("Soirée jeux de société à la grange")),
            ("Soirée jeux de rôle —", same("Soirée jeux de rôle")),
            ("🐾 Tag der offenen Tür", same("Tag der offenen Tür")),
            (
                "Beginners' birding course – R150 incl. notes (members R100)",
                same("Beginners' birding course"),
            ),
            (
                "CWAC waterbird count, Settlers Dam (free, counters welcome)",
                same("CWAC waterbird count, Settlers Dam"),
            ),
            ("Noche de habaneras (precio especial 25 €, niños 12 €)", same("Noche de habaneras")),
            (
                "Répétition générale publique – entrée libre, collecte",
                same("Répétition générale publique"),
            ),
            ("’80s Adult Night (18+)", same("’80s Adult Night (18+)")),
            ("Concert – 20 ans du chœur", same("Concert – 20 ans du chœur")),
            ("Petits fermiers (4–6 ans)", same("Petits fermiers (4–6 ans)")),
            // Kept: quotes and openers, a sold-out word inside the name, a long remark.
            (
                "«Violeta en el corazón» – espectáculo",
                same("«Violeta en el corazón» – espectáculo"),
            ),
            ("¡Máscara contra Máscara!", same("¡Máscara contra Máscara!")),
            ("#88 Python İstanbul", same("#88 Python İstanbul")),
            ("Complet ou presque", same("Complet ou presque")),
            ("SOLD OUT – Adult Prom Night Bowl (21+)", same("Adult Prom Night Bowl (21+)")),
            ("Ausverkauft: Tanz in den Mai", same("Tanz in den Mai")),
            ("Fondue-Abend im Käsekeller (ausgebucht)", same("Fondue-Abend im Käsekeller")),
            ("Soirée cabaret – COMPLET", same("Soirée cabaret")),
            ("Sold Out Stories – a reading", same("Sold Out Stories – a reading")),
            (
                "DJ Performansı: Nehir — Sanatçının programındaki değişiklik nedeniyle bu performans iptal edilmiştir.",
                with("DJ Performansı: Nehir", "cancelled"),
            ),
            ("Open Day – Sadly this year's open day is cancelled.", with("Open Day", "cancelled")),
            (
                "Lecture – The author reads from her new book.",
                same("Lecture – The author reads from her new book."),
            ),
            ("Quiz – sadly cancelled tonight.", same("Quiz – sadly cancelled tonight.")),
            (
                "Big Day (POSTPONED by one week to avoid the long weekend)",
                same("Big Day (POSTPONED by one week to avoid the long weekend)"),
            ),
            ("CANCELLED", same("CANCELLED")),
            ("—", same("—")),
        ] {
            assert_eq!(unmarked(title), want, "{title}");
        }
    }
}
