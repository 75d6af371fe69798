//! A listing row's moved date (issue 24): a date cell that strikes its old date and gives
//! the new one (`<s>09.05.2026</s><br><strong>16.05.2026</strong>`), and a line that
//! names the new date (`Nueva fecha: sáb 23 may`, `Moved to Sunday 24 May, same time`,
//! `Verlegt auf Samstag, 9. Mai`). The event is at the new date, rescheduled.

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, TextDate, fold_diacritics, parse_text_date};
use gleaner_event::text::collapse;
use scraper::ElementRef;

/// Phrases that introduce an event's new date, folded: a new-date label or a verb of
/// moving with its preposition, in the five languages.
const NEW_DATE_PHRASES: &[&str] = &[
    "new date",
    "moved to",
    "now on",
    "nueva fecha",
    "pasa al",
    "se traslada al",
    "trasladado al",
    "trasladada al",
    "nouvelle date",
    "deplace au",
    "deplacee au",
    "neuer termin",
    "neues datum",
    "verlegt auf",
    "verlegt zum",
    "yeni tarih",
    "yeni tarihi",
];

/// The text after a phrase that introduces a new date ([`NEW_DATE_PHRASES`]), folded,
/// its label's colon dropped (`Nueva fecha: sáb 23 may` → `sab 23 may`).
fn after_new_date_phrase(line: &str) -> Option<String> {
    let folded = fold_diacritics(line);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let joined = format!(" {} ", words.join(" "));
    let phrase = NEW_DATE_PHRASES.iter().find(|p| joined.contains(&format!(" {p} ")))?;
    // The phrase's place in the folded line: its words may be joined by other spaces.
    let mut at = 0;
    for w in phrase.split(' ') {
        at = folded[at..].find(w).map(|i| at + i + w.len())?;
    }
    let rest = folded[at..].trim_start_matches([':', ' ', '\u{a0}', '-', '–']);
    (!rest.is_empty()).then(|| rest.to_owned())
}

/// A cell's text without its struck parts (`<s>`, `<del>`, `<strike>`), when it has some:
/// `<s>09.05.2026</s><br><strong>16.05.2026</strong>` → `16.05.2026`.
fn unstruck_text(cell: ElementRef<'_>) -> Option<String> {
    let struck = |e: Option<ElementRef<'_>>| {
        e.is_some_and(|e| matches!(e.value().name(), "s" | "del" | "strike"))
    };
    if !cell.descendants().any(|n| struck(ElementRef::wrap(n))) {
        return None;
    }
    let kept: Vec<&str> = cell
        .descendants()
        .filter(|n| !n.ancestors().any(|a| struck(ElementRef::wrap(a))))
        .filter_map(|n| n.value().as_text().map(|t| &**t))
        .collect();
    Some(collapse(&kept.join(" ")))
}

/// The new date of an item whose date line `leaf` reads `old`: the date its date cell
/// gives outside its struck date, else the date after a new-date phrase in one of its
/// `lines`; with the text it was read from. A new day without a time keeps the old
/// time (`Reportée au jeudi 4 juin, même heure`). `None` when it gives no other day.
pub(super) fn new_date(
    leaf: ElementRef<'_>,
    lines: impl Iterator<Item = String>,
    old: &TextDate,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<(String, TextDate)> {
    let other = |text: String| {
        let mut d = parse_text_date(&text, reference, order)
            .filter(|d| d.start.date() != old.start.date())?;
        if let (EventTime::Date(day), EventTime::Floating(at), None) = (d.start, old.start, d.end) {
            d.start = EventTime::Floating(day.and_time(at.time()));
        }
        Some((text, d))
    };
    unstruck_text(leaf)
        .and_then(other)
        .or_else(|| lines.filter_map(|l| after_new_date_phrase(&l)).find_map(other))
}

#[cfg(test)]
mod tests {
    use chrono::NaiveDate;
    use gleaner_event::datetext::{DateOrder, parse_text_date};
    use scraper::{Html, Selector};

    /// The new day read in a date cell and an item's lines, as `YYYY-MM-DD`.
    fn moved(cell: &str, lines: &[&str]) -> Option<String> {
        let doc = Html::parse_fragment(&format!("<table><tr><td>{cell}</td></tr></table>"));
        let td = doc.select(&Selector::parse("td").unwrap()).next().unwrap();
        let reference = NaiveDate::from_ymd_opt(2026, 2, 1);
        let text = super::super::text_of(td);
        let old = parse_text_date(&text, reference, DateOrder::default()).unwrap();
        let lines = lines.iter().map(|l| (*l).to_owned());
        super::new_date(td, lines, &old, reference, DateOrder::default())
            .map(|(_, d)| d.start.date().to_string())
    }

    #[test]
    fn a_struck_date_and_the_new_one() {
        // Issue 24, pages 287 and 299.
        let day = |d: &str| Some(d.to_owned());
        assert_eq!(
            moved("<s>09.05.2026</s><br><strong>16.05.2026</strong>", &[]),
            day("2026-05-16")
        );
        assert_eq!(
            moved("<del>Sáb 9 may</del><br><span>Nueva fecha: sáb 23 may</span>", &[]),
            day("2026-05-23")
        );
        // Struck without a new date: postponed or cancelled, not moved.
        assert_eq!(moved("<s>4 Nisan 2026 Cumartesi</s>", &[]), None);
        assert_eq!(moved("<del>Mié 15 abr</del><br><span>REPROGRAMADO</span>", &[]), None);
        // Issue 24, page 163: the new day keeps the struck day's time.
        let doc = Html::parse_fragment(
            "<p><del>Jeudi 28 mai 2026 à 18h</del> <strong>Reportée au jeudi 4 juin 2026, même heure</strong></p>",
        );
        let p = doc.select(&Selector::parse("p").unwrap()).next().unwrap();
        let old = parse_text_date("Jeudi 28 mai 2026 à 18h", None, DateOrder::default()).unwrap();
        let (_, new) =
            super::new_date(p, std::iter::empty(), &old, None, DateOrder::default()).unwrap();
        assert_eq!(new.start.to_iso(), "2026-06-04T18:00:00");
    }

    #[test]
    fn a_line_that_names_the_new_date() {
        // Issue 24, page 251: the notes column moves the fixture.
        let day = |d: &str| Some(d.to_owned());
        assert_eq!(
            moved("Sat 23 May", &["Moved to Sunday 24 May, same time – clash with the fête"]),
            day("2026-05-24")
        );
        assert_eq!(moved("Sa 9. Mai", &["Verlegt auf Samstag, 16. Mai"]), day("2026-05-16"));
        assert_eq!(moved("9 Mayıs 2026", &["Yeni tarih: 16 Mayıs 2026"]), day("2026-05-16"));
        // No date after the phrase; a line that mentions another day without one.
        assert_eq!(moved("4 Nisan 2026", &["ERTELENDİ – yeni tarih daha sonra duyurulacak"]), None);
        assert_eq!(moved("Sat 23 May", &["Teas from 3pm; next home game Sunday 31 May"]), None);
        assert_eq!(moved("Sat 23 May", &["Moved to the main hall"]), None);
    }
}
