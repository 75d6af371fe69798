//! A listing written as the `<br>` lines of one paragraph (issue 24, page 340): a month's
//! programme set by a one-page site builder as `<p><b>JUE 05</b> · 21 hrs · Son jarocho ·
//! cover $80<br><b>VIE 06</b> · 22:30 hrs · …</p>`, each line opened by its day. Such a
//! paragraph is rewritten as a list of its lines (`<div class="br-lines">` holding one
//! `<div class="br-line">` per line) for the listing reader, which reads an item per line.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, is_weekday, parse_text_date};
use gleaner_event::text::collapse;
use scraper::{ElementRef, Html, Node};

use super::{MIN_ITEMS, in_chrome, sel};

/// Most paragraphs a page's rewrite looks at: each costs its children once.
const MAX_BLOCKS: usize = 5_000;

/// Most lines one paragraph is read as: a longer one is read up to there.
const MAX_LINES: usize = 500;

/// Whether a text is a day written without its month (`JUE 05`, `Sa 14`, `mer. 3`): one
/// day number of one or two digits and at most one weekday.
pub(super) fn is_day_cell(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.'))
        .filter(|w| !w.is_empty())
        .collect();
    let numbers = words.iter().filter(|w| w.bytes().all(|b| b.is_ascii_digit())).count();
    numbers == 1
        && words.len() <= 2
        && words
            .iter()
            .all(|w| w.bytes().all(|b| b.is_ascii_digit()) && w.len() <= 2 || is_weekday(w))
}

/// A line's first part, before the separator that ends it (`·`, `|`, a dash between
/// spaces): `SÁB 07` of `SÁB 07 · 19 hrs · Cata`.
fn first_part(line: &str) -> &str {
    let mut end = line.len();
    for sep in ["·", "|", " – ", " — ", " - ", "•"] {
        if let Some(at) = line.find(sep) {
            end = end.min(at);
        }
    }
    line[..end].trim()
}

/// Whether a line opens with its day: its first part is a date, or a day without its
/// month.
fn opens_with_day(line: &str, reference: Option<NaiveDate>, order: DateOrder) -> bool {
    // A bullet or pictograph before the day (`• Fri 14 February`, `📌 Sábado 28 de marzo`).
    let line = line.trim_start_matches(|c: char| !c.is_alphanumeric());
    let part = first_part(line);
    !part.is_empty()
        && part.chars().count() <= 40
        && (is_day_cell(part) || parse_text_date(part, reference, order).is_some())
}

/// The `<br>` lines of a block that holds only text and inline markup, each as its HTML
/// and its text; `None` when it holds a block of its own.
fn lines(block: ElementRef<'_>) -> Option<Vec<(String, String)>> {
    let mut out = vec![(String::new(), String::new())];
    for child in block.children() {
        match child.value() {
            Node::Element(e) if e.name() == "br" => out.push((String::new(), String::new())),
            Node::Element(e)
                if matches!(
                    e.name(),
                    "p" | "div"
                        | "ul"
                        | "ol"
                        | "li"
                        | "table"
                        | "section"
                        | "article"
                        | "h1"
                        | "h2"
                        | "h3"
                        | "h4"
                        | "h5"
                        | "h6"
                        | "dl"
                        | "blockquote"
                ) =>
            {
                return None;
            }
            _ => {
                let (html, text) = out.last_mut()?;
                match child.value() {
                    Node::Text(t) => {
                        html.push_str(&escape(t));
                        text.push_str(t);
                    }
                    Node::Element(_) => {
                        if let Some(e) = ElementRef::wrap(child) {
                            html.push_str(&e.html());
                            text.extend(e.text());
                        }
                    }
                    _ => {}
                }
            }
        }
        if out.len() > MAX_LINES {
            break;
        }
    }
    Some(out.into_iter().map(|(h, t)| (h, collapse(&t))).filter(|(_, t)| !t.is_empty()).collect())
}

/// Text escaped for HTML.
fn escape(t: &str) -> String {
    t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A line's HTML with its opening day set in an element of its own when it is plain
/// text (`JUE 05 · 21 hrs · …` → `<span>JUE 05</span> · 21 hrs · …`), as a day cell is
/// read.
fn day_apart(html: &str, text: &str) -> String {
    let trimmed = html.trim_start();
    let part = first_part(text);
    if is_day_cell(part) && trimmed.starts_with(&escape(part)) {
        format!("<span>{}</span>{}", escape(part), &trimmed[escape(part).len()..])
    } else {
        html.to_owned()
    }
}

/// The page with each paragraph of [`MIN_ITEMS`] or more `<br>` lines that open with
/// their day, most of its lines, rewritten as a list of its lines; `None` when it has none.
pub(super) fn br_line_items(
    doc: &Html,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<Html> {
    let mut swaps: Vec<(String, String)> = Vec::new();
    for block in doc.select(&sel("p, div")).take(MAX_BLOCKS) {
        // A block's own `<br>`s: fewer than a list's lines leave it as written.
        let brs = block
            .children()
            .filter(|c| c.value().as_element().is_some_and(|e| e.name() == "br"))
            .take(MIN_ITEMS - 1)
            .count();
        if brs < MIN_ITEMS - 1 || in_chrome(block) {
            continue;
        }
        let Some(lines) = lines(block) else { continue };
        let dated = lines.iter().filter(|(_, t)| opens_with_day(t, reference, order)).count();
        if dated < MIN_ITEMS || dated * 2 <= lines.len() {
            continue;
        }
        let mut new = String::from("<div class=\"br-lines\">");
        for (html, text) in &lines {
            new.push_str("<div class=\"br-line\">");
            new.push_str(&day_apart(html, text));
            new.push_str("</div>");
        }
        new.push_str("</div>");
        swaps.push((block.html(), new));
    }
    if swaps.is_empty() {
        return None;
    }
    // The blocks come in the page's order and hold no blocks: each is found after the
    // one before, so the page is searched once.
    let html = doc.html();
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    for (old, new) in &swaps {
        let Some(found) = html[at..].find(old.as_str()) else { break };
        out.push_str(&html[at..at + found]);
        out.push_str(new);
        at += found + old.len();
    }
    out.push_str(&html[at..]);
    Some(Html::parse_document(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(html: &str) -> Vec<(String, String)> {
        super::super::titles_and_starts(html)
    }

    #[test]
    fn a_paragraph_of_lines_each_opened_by_its_day() {
        let got = read(
            "<html lang=\"es\"><body><h1>El Patio</h1><h2>Programa · febrero 2031</h2>\
             <p><b>LUN 03</b> · 20 hrs · <b>Taller de grabado</b> · $200<br>\
             MIÉ 05 · 21 hrs · <b>Cine al aire libre</b> · entrada libre<br>\
             <b>VIE 07</b> · 19 hrs · <b>Lectura de poesía</b><br>\
             Reservas por teléfono.</p></body></html>",
        );
        assert_eq!(
            got,
            [
                ("Taller de grabado".to_owned(), "2031-02-03T20:00:00".to_owned()),
                ("Cine al aire libre".to_owned(), "2031-02-05T21:00:00".to_owned()),
                ("Lectura de poesía".to_owned(), "2031-02-07T19:00:00".to_owned()),
            ]
        );
    }

    #[test]
    fn lines_with_their_full_dates() {
        let got = read(
            "<html lang=\"en\"><body><h1>Club nights</h1>\
             <p>Fri 14 February · 9pm · <strong>Swing night</strong><br>\
             • Sat 22 February · 8pm · <strong>Quiz with Dot</strong><br>\
             Fri 28 February · 9pm · <strong>Northern soul</strong></p></body></html>",
        );
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[1], ("Quiz with Dot".to_owned(), "2031-02-22T20:00:00".to_owned()));
    }

    #[test]
    fn an_address_block_is_no_list() {
        assert!(is_day_cell("JUE 05"));
        assert!(is_day_cell("Sa. 14"));
        assert!(!is_day_cell("Calle 5 Norte"));
        let doc = Html::parse_document(
            "<p>Calle Real 12<br>28001 Madrid<br>Tel. 915 000 000<br>Lun 10 – 14 h</p>",
        );
        assert!(
            br_line_items(&doc, NaiveDate::from_ymd_opt(2031, 1, 10), DateOrder::DayFirst)
                .is_none()
        );
    }
}
