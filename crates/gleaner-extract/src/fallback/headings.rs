//! Dated headings (issue 24, held-out pages 277 and 292): a post's section heading that
//! holds its event's date beside its title, on either side (`Autumn working bee –
//! Saturday 14 March`, `Vendredi 6 mars – Le temps des sucres`, `Samedi 14 mars, 14 h –
//! Matinée jeunesse : Les aventures de Ti-Loup`). The title is the heading's words
//! outside the date, without the weekday and the dash that join them.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, TextDate, is_weekday, parse_text_date};
use gleaner_event::text::collapse;

use super::words::is_status_badge;

/// Most words of a heading read for its title.
const MAX_WORDS: usize = 40;

/// Words that join a date to a title (`on`, `le`, `am`, `el`, `at`, `à`), lowercase.
const JOINING: &[&str] = &[
    "on", "at", "the", "le", "la", "les", "du", "de", "am", "vom", "el", "los", "a", "à", "from",
    "date", "dates",
];

/// Words that write a time's unit after its number (`14 h`, `20 Uhr`, `21 horas`),
/// lowercase.
const TIME_UNITS: &[&str] = &["h", "uhr", "horas", "hs", "heures", "am", "pm", "saat"];

/// The title a dated heading gives beside its date: its words before the date, else those
/// after it (the date read in full, its time of day too), without joining words,
/// weekdays and punctuation at the seam; `None` when the heading is only a date, a date
/// and a time, or a date and a status word.
pub(super) fn dated_heading_title(
    text: &str,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() > MAX_WORDS {
        return None;
    }
    let full = parse_text_date(text, reference, order)?;
    let reads = |w: &[&str]| parse_text_date(&w.join(" "), reference, order);
    let same = |d: Option<TextDate>| d == Some(full);
    // The date ends at the shortest prefix that reads it all (its time too), and starts
    // where the latest start still reads it.
    let mut end = (1..=words.len()).find(|&k| same(reads(&words[..k])))?;
    // A time's unit the date is read without (`14 h`, `20 Uhr`) belongs to it.
    while words.get(end).is_some_and(|w| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        TIME_UNITS.contains(&bare.as_str())
    }) {
        end += 1;
    }
    let start = (0..end).rev().find(|&j| same(reads(&words[j..end])))?;
    let head = seam_trimmed(&words[..start], true);
    let tail = seam_trimmed(&words[end..], false);
    [head, tail]
        .into_iter()
        .flatten()
        .find(|(t, joined)| {
            *joined
                && t.chars().count() >= 3
                && !is_status_badge(t)
                && parse_text_date(t, reference, order).is_none()
                && gleaner_event::time::parse_event_time(t).is_none()
        })
        .map(|(t, _)| t)
}

/// The title a sentence's dated bold phrase gives beside its date (`<strong>Samedi 14
/// mars, 9h30-12h30 – Bourse aux graines et aux plants</strong> au local …` → `Bourse aux
/// graines et aux plants`): the first bold phrase in the sentence that reads as a
/// [`dated_heading_title`].
pub(super) fn dated_bold_title(
    bolds: &[String],
    sentence: &str,
    reference: NaiveDate,
    order: DateOrder,
) -> Option<String> {
    bolds
        .iter()
        .filter(|b| sentence.contains(b.as_str()))
        .find_map(|b| dated_heading_title(b, Some(reference), order))
}

/// The words of a heading's part beside its date, without the weekdays and punctuation
/// on the date's side, and before the date (`at_end`) its joining words; `None` when
/// nothing is left. With them, whether a joining word or a mark set the part apart from
/// the date (`… – Saturday 14 March`, `Kermesse am Samstag`): without one, the date is a
/// part of the name (`23 Nisan Halk Oyunları Gösterisi`).
fn seam_trimmed(part: &[&str], at_end: bool) -> Option<(String, bool)> {
    let joins = |w: &str| {
        let bare = w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        // After the date, a title may open with an article (`Le temps des sucres`).
        bare.is_empty() || (at_end && JOINING.contains(&bare.as_str())) || is_weekday(&bare)
    };
    let seam = [',', ':', ';', '-', '–', '—', '|', '(', ')', '@', '·', '.'];
    let mut part = part;
    let mut joined = false;
    loop {
        let next = if at_end { part.split_last() } else { part.split_first() };
        match next {
            Some((w, rest)) if joins(w) => {
                joined |= !is_weekday(w.trim_matches(|c: char| !c.is_alphanumeric()));
                part = rest;
            }
            _ => break,
        }
    }
    let text = collapse(&part.join(" "));
    let trimmed = if at_end { text.trim_end_matches(seam) } else { text.trim_start_matches(seam) };
    // A mark stuck to the word at the seam (`mars,`) sets it apart too.
    joined |= trimmed.len() != text.len();
    let text = trimmed.trim();
    (!text.is_empty()).then(|| (text.to_owned(), joined))
}

#[cfg(test)]
mod tests {
    use super::dated_heading_title;
    use chrono::NaiveDate;
    use gleaner_event::datetext::DateOrder;

    #[test]
    fn a_dated_headings_title_on_either_side_of_its_date() {
        let day = NaiveDate::from_ymd_opt(2026, 2, 26);
        let table: &[(&str, Option<&str>)] = &[
            ("Autumn working bee – Saturday 14 March", Some("Autumn working bee")),
            ("Vendredi 6 mars – Le temps des sucres", Some("Le temps des sucres")),
            (
                "Samedi 14 mars, 14 h – Matinée jeunesse : Les aventures de Ti-Loup",
                Some("Matinée jeunesse : Les aventures de Ti-Loup"),
            ),
            (
                "4 Mart Çarşamba – Meslek Hizmetleri Toplantısı",
                Some("Meslek Hizmetleri Toplantısı"),
            ),
            ("Kermesse am Samstag, 14. März 2026", Some("Kermesse")),
            // Only a date, a date and its time, a date and a status: no title.
            ("Saturday 14 March", None),
            ("Samedi 14 mars, 20 h 30", None),
            ("Sábado 14 de marzo – SUSPENDIDO", None),
            ("Ohne Datum", None),
            // A date with no mark or word between it and the name is part of the name.
            ("23 Nisan Halk Oyunları Gösterisi", None),
            // A time range and a dash before the name (issue 24, page 234's bold leads).
            (
                "Samedi 14 mars, 9h30-12h30 – Bourse aux graines et aux plants",
                Some("Bourse aux graines et aux plants"),
            ),
            (
                "Samedi 28 mars à 10h – Atelier taille des arbres fruitiers",
                Some("Atelier taille des arbres fruitiers"),
            ),
        ];
        for (text, want) in table {
            assert_eq!(
                dated_heading_title(text, day, DateOrder::DayFirst).as_deref(),
                *want,
                "{text}"
            );
        }
    }

    #[test]
    fn a_posts_dated_bold_leads_title_their_events() {
        // Issue 24, page 234: month sections of bold `date – name` leads, and a struck
        // item whose only bold word is its status.
        let html = "<html><body><h1>Le programme du printemps au jardin !</h1>\
            <h3>Mars</h3><ul>\
            <li><strong>Samedi 14 mars, 9h30-12h30 – Bourse aux graines et aux plants</strong> au local. Gratuit.</li>\
            <li><strong>Samedi 28 mars à 10h – Atelier taille des arbres fruitiers</strong> avec Michel.</li></ul>\
            <h3>Avril</h3><ul>\
            <li><s>Mercredi 8 avril à 18h30 – Conférence « Abeilles sauvages »</s> : <strong>annulée</strong>, l'intervenante n'étant plus disponible.</li></ul>\
            </body></html>";
        let doc = scraper::Html::parse_document(html);
        let got = crate::fallback::prose::prose_events(
            &doc,
            NaiveDate::from_ymd_opt(2026, 2, 26),
            DateOrder::DayFirst,
            None,
        );
        let names: Vec<Option<&str>> = got.iter().map(|r| r.name.as_deref()).collect();
        assert_eq!(
            names[..2],
            [Some("Bourse aux graines et aux plants"), Some("Atelier taille des arbres fruitiers")]
        );
        assert!(names.iter().all(|n| n != &Some("Annulée") && n != &Some("Mars")), "{names:?}");
    }
}
