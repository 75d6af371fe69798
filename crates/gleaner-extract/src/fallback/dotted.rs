//! A line of dotted parts (issue 24, page 340): `JUE 05 · 21 hrs · Son jarocho con
//! <b>Los Tres Cedros</b> · cover $80`, `Fri 14 Feb | 9pm | Swing night | £8`, as one-page
//! sites and newsletters write a programme's lines. The part after the day and the time
//! names the event: all of it, unless it opens with its name in bold and goes on after it
//! (`<b>Noche de trova</b>: micrófono abierto`), where the bold is the name.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use scraper::ElementRef;

use super::br_lines::is_day_cell;
use super::item::title_text;
use super::sel;
use super::time_led::split_leading_time;

/// The separators between a line's parts.
const SEPARATORS: &[&str] = &[" · ", " | ", " • "];

/// Most words a part is read as a name with.
const NAME_WORDS: usize = 12;

/// Whether a part is a day, with or without its month (`JUE 05`, `Fri 14 Feb`).
fn is_day(part: &str, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    is_day_cell(part)
        || part.chars().count() <= 40 && parse_text_date(part, reference, order).is_some()
}

/// Whether a part is a time of day and nothing else (`21 hrs`, `9pm`, `19.30 – 22 h`).
fn is_time(part: &str) -> bool {
    split_leading_time(part).is_some_and(|(_, rest)| rest.is_empty())
        || parse_text_time(part).is_some() && part.split_whitespace().count() <= 4
}

/// The name a dotted line gives after its day and its time; `None` when the item is no
/// such line.
pub(super) fn dotted_title(
    item: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<String> {
    let text = title_text(item);
    let sep = SEPARATORS.iter().find(|s| text.contains(*s))?;
    let parts: Vec<&str> = text.split(sep).map(str::trim).collect();
    let [day, time, name, ..] = parts.as_slice() else { return None };
    if !is_day(day, reference, order) || !is_time(time) || name.is_empty() {
        return None;
    }
    // A name in bold that opens the part and is followed by more words.
    let bold = item
        .select(&sel("b, strong"))
        .map(|b| collapse(&title_text(b)))
        .find(|b| !b.is_empty() && name.starts_with(b.as_str()) && !is_day_cell(b));
    if let Some(b) = bold
        && b.len() < name.len()
    {
        return Some(b);
    }
    let words = name.split_whitespace().count();
    (words <= NAME_WORDS).then(|| name.trim_end_matches(['.', ',', ';', ':']).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use scraper::Html;

    fn title(html: &str) -> Option<String> {
        let doc = Html::parse_fragment(html);
        let item = doc.select(&sel("li")).next().unwrap();
        dotted_title(item, NaiveDate::from_ymd_opt(2031, 1, 10), DateOrder::DayFirst)
    }

    #[test]
    fn the_part_after_the_day_and_time_names_the_event() {
        assert_eq!(
            title("<ul><li><b>VIE 07</b> · 20 hrs · Concierto de <b>La Rueda</b> · $50</li></ul>")
                .as_deref(),
            Some("Concierto de La Rueda")
        );
        assert_eq!(
            title("<ul><li>Sat 22 Feb | 8pm | <strong>Quiz night</strong>: teams of four | £2</li></ul>")
                .as_deref(),
            Some("Quiz night")
        );
        assert_eq!(
            title("<ul><li>SAM 08 · 21h · <s>Bal folk</s> · ANNULÉ</li></ul>").as_deref(),
            Some("Bal folk")
        );
        // No time after the day: a note, not a programme line.
        assert_eq!(title("<ul><li><b>DOM 09</b> · cerrado por descanso</li></ul>"), None);
        // No dotted parts.
        assert_eq!(title("<ul><li>Sat 22 Feb, 8pm: Quiz night</li></ul>"), None);
    }
}
