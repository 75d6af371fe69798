//! Programme lines led by their time (`17.00 – Ağa karşılama töreni (Belediye Meydanı)`,
//! `19:30 Uhr <strong>Großer Zapfenstreich</strong> auf dem Dorfplatz`), as festival and
//! club programmes print them under day headings: the event's name follows the time.

use gleaner_event::datetext::parse_text_time;
use gleaner_event::text::collapse;
use scraper::ElementRef;

use super::item::title_text;
use super::sel;
use super::tables::cell_time;
use super::words::is_status_badge;

/// Words that may open a line before its time (`ab 20:30 Uhr`, `from 7pm`, `dès 18h`),
/// lower-case.
const LEADS: &[&str] = &["ab", "from", "des", "dès", "desde", "saat"];

/// Words of a time itself (`Uhr`, `h`, `pm`), lower-case.
const TIME_WORDS: &[&str] = &["uhr", "h", "hs", "hrs", "am", "pm", "a.m.", "p.m.", "horas"];

/// The words of a line's leading time and what follows it: `ab 20:30 Uhr Tanz` →
/// (`ab 20:30 Uhr`, `Tanz`), `12.00 – 13.00 — DJ set:` → (`12.00 – 13.00`, `DJ set:`), the
/// dashes and colons between them dropped. `None` when the line does not open with a
/// time of day (a bare number, `2026`, is none).
pub(super) fn split_leading_time(line: &str) -> Option<(String, String)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let dash = |w: &str| w.chars().all(|c| matches!(c, '–' | '—' | '-' | ':' | '|' | '·'));
    let timeish = |w: &str| {
        let core = ["pm", "am", "uhr"].iter().find_map(|s| w.strip_suffix(s)).unwrap_or(w);
        core.chars().any(|c| c.is_ascii_digit())
            && core.chars().all(|c| c.is_ascii_digit() || matches!(c, '.' | ':' | 'h' | '–' | '-'))
    };
    let mut n = 0;
    if words.first().is_some_and(|w| LEADS.contains(&w.to_lowercase().as_str())) {
        n = 1;
    }
    let start = n;
    while let Some(w) = words.get(n) {
        let lower = w.to_lowercase();
        let bare = lower.trim_end_matches([':', ',']);
        if timeish(bare) || TIME_WORDS.contains(&bare) || (dash(w) && n > start) {
            n += 1;
        } else {
            break;
        }
    }
    // The separators after the time are no part of it.
    let mut end = n;
    while end > start && dash(words[end - 1]) {
        end -= 1;
    }
    let time = words[start..end].join(" ");
    let time = time.trim_end_matches([':', ',']);
    if !time.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    parse_text_time(time).or_else(|| cell_time(time))?;
    let rest = words[n..].join(" ");
    let rest = rest.trim_start_matches(['–', '—', '-', ':', '|', '·', ' ']);
    let led = words[..end].join(" ");
    Some((led.trim_end_matches([':', ',']).to_owned(), rest.to_owned()))
}

/// How a time-led item names its event.
enum Led<'a> {
    /// In bold after its time, maybe after a short label (`DJ set: <b>Selin Derin</b>`):
    /// the name and the bold element.
    Bold(String, ElementRef<'a>),
    /// In plain words after its time.
    Plain(String),
}

/// Most words of a label before a bold name (`Mini konser:`, `DJ set:`).
const LABEL_WORDS: usize = 4;

/// Most words of a plain programme line's name.
const PLAIN_WORDS: usize = 15;

/// The name a time-led item gives: its first bold text after the time (not a time, not a
/// status badge), a short label ending in a colon before it kept; else its words after
/// the time up to a bracket, a dash or a sentence's end.
fn led(item: ElementRef<'_>) -> Option<Led<'_>> {
    let (_, rest) = split_leading_time(&title_text(item))?;
    let bold = item.select(&sel("b, strong")).find(|b| {
        let t = title_text(*b);
        !t.is_empty()
            && !is_status_badge(&t)
            && split_leading_time(&t).is_none_or(|(_, r)| !r.is_empty())
    });
    if let Some(b) = bold {
        let before: String = item
            .descendants()
            .filter(|n| n.id() < b.id())
            .filter_map(|n| n.value().as_text().map(|t| t.to_string()))
            .collect::<Vec<_>>()
            .join(" ");
        if let Some((_, label)) = split_leading_time(&collapse(&before)) {
            let name = title_text(b);
            if label.is_empty() {
                return Some(Led::Bold(name, b));
            }
            if label.ends_with(':') && label.split_whitespace().count() <= LABEL_WORDS {
                return Some(Led::Bold(format!("{label} {name}"), b));
            }
        }
    }
    let cut = [" (", " – ", " — ", " - ", ". ", "; ", "! "]
        .iter()
        .filter_map(|s| rest.find(s))
        .min()
        .unwrap_or(rest.len());
    let name = rest[..cut].trim_end_matches(['.', ',', ';', ':', '!']).trim();
    let words = name.split_whitespace().count();
    ((1..=PLAIN_WORDS).contains(&words)).then(|| Led::Plain(name.to_owned()))
}

/// The title of a programme item led by its time and dated by its day heading (see
/// [`led`]). Where the list sets some of its items' names in bold after their times, the
/// bold ones are its events and a line without (`18:30 Uhr Antreten der Bruderschaft`)
/// is a step of the programme: `None`.
/// With the name in bold, the bold element (the place and blurb after it are read from
/// there).
pub(super) fn time_led_title(item: ElementRef<'_>) -> Option<(String, Option<ElementRef<'_>>)> {
    match led(item)? {
        Led::Bold(name, b) => Some((name, Some(b))),
        Led::Plain(name) => (!bold_sibling(item)).then_some((name, None)),
    }
}

/// Whether a list item is a step of a programme rather than an event: led by its time
/// and named in plain words, beside items named in bold (see [`time_led_title`]).
pub(super) fn is_programme_step(item: ElementRef<'_>) -> bool {
    matches!(led(item), Some(Led::Plain(_))) && bold_sibling(item)
}

/// Whether a list item is a programme line that names its act in bold after its time
/// (`14.00 — Mini konser: <strong>Kervan Akustik</strong>`).
pub(super) fn is_bold_led(item: ElementRef<'_>) -> bool {
    matches!(led(item), Some(Led::Bold(..)))
}

/// How many items on each side of an item are looked at for a bold-led sibling: a
/// programme sets its acts in bold near one another, and a list of thousands of items
/// must not cost each item all the others (4,000 day sections took 5 s, 16,000 took 20 s).
const SIBLINGS_LOOKED_AT: usize = 12;

/// Whether another item of the same tag near `item` in its list (within
/// [`SIBLINGS_LOOKED_AT`] such items each way) is led by its time and names its event in
/// bold; only items holding bold text are read.
fn bold_sibling(item: ElementRef<'_>) -> bool {
    let tag = item.value().name();
    let bold_led = |e: ElementRef<'_>| {
        e.select(&sel("b, strong")).next().is_some() && matches!(led(e), Some(Led::Bold(..)))
    };
    let before = item.prev_siblings().filter_map(ElementRef::wrap);
    let after = item.next_siblings().filter_map(ElementRef::wrap);
    let near = |it: &mut dyn Iterator<Item = ElementRef<'_>>| {
        it.filter(|e| e.value().name() == tag).take(SIBLINGS_LOOKED_AT).any(bold_led)
    };
    near(&mut before.into_iter()) || near(&mut after.into_iter())
}

#[cfg(test)]
mod tests {
    use super::{split_leading_time, time_led_title};

    #[test]
    fn a_lines_leading_time() {
        let split = |l: &str| split_leading_time(l);
        assert_eq!(split("ab 20:30 Uhr Tanz"), Some(("ab 20:30 Uhr".into(), "Tanz".into())));
        assert_eq!(
            split("12.00 – 13.00 — DJ set: Selin"),
            Some(("12.00 – 13.00".into(), "DJ set: Selin".into()))
        );
        assert_eq!(split("17.00 – Ağa karşılama"), Some(("17.00".into(), "Ağa karşılama".into())));
        assert_eq!(split("7pm: Quiz"), Some(("7pm".into(), "Quiz".into())));
        assert_eq!(split("2026 Festival"), None);
        assert_eq!(split("Konser 21.00"), None);
    }

    #[test]
    fn a_programme_lines_name_after_its_time() {
        // Issue 24, pages 288, 222, 227, 207: programmes under day headings.
        let titles = |items: &[&str]| {
            let html = format!(
                "<ul>{}</ul>",
                items.iter().map(|i| format!("<li>{i}</li>")).collect::<String>()
            );
            let doc = scraper::Html::parse_fragment(&html);
            doc.select(&super::sel("li"))
                .map(|li| time_led_title(li).map(|(t, _)| t))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            titles(&[
                "<strong>17.00</strong> – Ağa karşılama ve kazan kurma töreni (Belediye Meydanı)",
                "<strong>20.00</strong> – Mehter takımı eşliğinde fener alayı (Belediye Meydanı) <span>İPTAL</span>",
                "<strong>21.00</strong> – Halk konseri: Selda Akgül (Festival Alanı, ücretsiz)",
            ]),
            [
                Some("Ağa karşılama ve kazan kurma töreni".to_owned()),
                Some("Mehter takımı eşliğinde fener alayı".to_owned()),
                Some("Halk konseri: Selda Akgül".to_owned()),
            ]
        );
        // Bold names mark the events; a line without one is a step of the programme.
        assert_eq!(
            titles(&[
                "18:30 Uhr Antreten der Bruderschaft am Vereinslokal",
                "19:30 Uhr <strong>Großer Zapfenstreich</strong> auf dem Dorfplatz",
                "ab 20:30 Uhr <strong>Tanz</strong> mit DJ Holger – Eintritt frei",
                "<strong>12.00 – 13.00</strong> — DJ set: <strong>Selin Derin</strong> çalıyor.",
            ]),
            [
                None,
                Some("Großer Zapfenstreich".to_owned()),
                Some("Tanz".to_owned()),
                Some("DJ set: Selin Derin".to_owned()),
            ]
        );
        let doc = scraper::Html::parse_fragment(
            "<ul><li>18:30 Uhr Antreten</li><li>19:30 Uhr <b>Zapfenstreich</b></li></ul>",
        );
        let steps: Vec<bool> =
            doc.select(&super::sel("li")).map(super::is_programme_step).collect();
        assert_eq!(steps, [true, false]);
        // A line that does not open with its time is none.
        assert_eq!(titles(&["Konzert um 20 Uhr", "Lesung"]), [None, None]);
    }
}
