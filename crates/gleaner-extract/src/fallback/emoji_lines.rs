//! Lines opened by a pictograph that says what they give (`📅 Viernes 17 de abril`,
//! `🕘 Abrimos a las 21 h · arrancan los músicos a las 22 h`, `📍 Club El Ceibo, Av.
//! Belgrano 1450`, `🎟️ Anticipadas: $6.000`), as social-media-style event pages write
//! their facts, one to a `<br>` line.

use scraper::{ElementRef, Node};

use super::{sel, text_of};

/// What a pictograph says its line gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    /// 📅 📆 🗓: the day.
    Date,
    /// 🕐…🕧, ⏰, ⌚: the time.
    Time,
    /// 📍: the place.
    Place,
    /// 🎟 🎫 💲 💵 💶 💷 💰: the price.
    Price,
}

/// The mark a pictograph is, if any.
fn mark_of(c: char) -> Option<Mark> {
    Some(match c {
        '📅' | '📆' | '🗓' => Mark::Date,
        '\u{1F550}'..='\u{1F567}' | '⏰' | '⌚' => Mark::Time,
        '📍' => Mark::Place,
        '🎟' | '🎫' | '💲' | '💵' | '💶' | '💷' | '💰' => Mark::Price,
        _ => return None,
    })
}

/// A line's mark and its text after the pictograph (variation selectors, spaces and a
/// colon dropped): `🎟️ Anticipadas: $6.000` → (`Price`, `Anticipadas: $6.000`).
pub(super) fn marked(line: &str) -> Option<(Mark, String)> {
    let line = line.trim_start();
    let first = line.chars().next()?;
    let mark = mark_of(first)?;
    let rest = line[first.len_utf8()..]
        .trim_start_matches(['\u{FE0F}', '\u{200D}', ' ', '\u{a0}', ':'])
        .trim();
    (!rest.is_empty()).then(|| (mark, rest.to_owned()))
}

/// The marked lines under `root`, in order: each smallest block's (`p`, `li`, `div`
/// holding no other) lines, split at its `<br>`s.
pub(super) fn marked_lines(root: ElementRef<'_>) -> Vec<(Mark, ElementRef<'_>, String)> {
    let blocks = sel("p, li, div, dd, td");
    let mut out = Vec::new();
    for el in root.select(&blocks).take(5000) {
        if el.select(&blocks).any(|b| b.id() != el.id()) {
            continue;
        }
        // Cheap test first: most blocks hold no pictograph at all.
        if !text_of(el).chars().any(|c| mark_of(c).is_some()) {
            continue;
        }
        for line in br_lines(el) {
            if let Some((mark, rest)) = marked(&line) {
                out.push((mark, el, rest));
            }
        }
    }
    out
}

/// An element's text split at its `<br>`s, each line's white space collapsed.
fn br_lines(el: ElementRef<'_>) -> Vec<String> {
    br_lines_bold(el).into_iter().map(|(line, _)| line).collect()
}

/// [`br_lines`], each with the bold text (`<strong>`, `<b>`) the line opens with after
/// its pictograph, if any.
fn br_lines_bold(el: ElementRef<'_>) -> Vec<(String, Option<String>)> {
    let mut lines: Vec<(String, Option<String>)> = vec![(String::new(), None)];
    for node in el.descendants() {
        match node.value() {
            Node::Text(t) => {
                let Some((line, lead)) = lines.last_mut() else { continue };
                let opening = line.chars().all(|c| !c.is_alphanumeric());
                let bold = node
                    .ancestors()
                    .filter_map(ElementRef::wrap)
                    .any(|a| a.id() != el.id() && matches!(a.value().name(), "strong" | "b"));
                if opening && t.chars().any(char::is_alphanumeric) && bold {
                    *lead = Some(gleaner_event::text::collapse(t));
                } else if let Some(l) = lead.as_mut()
                    && bold
                    && !line.is_empty()
                    && line.ends_with(l.as_str())
                {
                    l.push_str(t);
                    *l = gleaner_event::text::collapse(l);
                }
                line.push_str(t);
            }
            Node::Element(e) if e.name() == "br" => lines.push((String::new(), None)),
            _ => {}
        }
    }
    lines
        .into_iter()
        .map(|(l, b)| (gleaner_event::text::collapse(&l), b))
        .filter(|(l, _)| !l.is_empty())
        .collect()
}

/// The place a marked place line names: its opening bold name and the address after it
/// (`📍 <strong>Club El Ceibo</strong>, Av. Belgrano 1450, Villa del Rosario`), else the
/// whole line as one place text and no address.
pub(super) fn marked_places(root: ElementRef<'_>) -> Vec<(ElementRef<'_>, String, Option<String>)> {
    let mut out = Vec::new();
    for (mark, el, line) in marked_lines(root) {
        if mark != Mark::Place {
            continue;
        }
        let lead = br_lines_bold(el)
            .into_iter()
            .find(|(l, _)| marked(l).is_some_and(|(_, rest)| rest == line))
            .and_then(|(_, b)| b);
        let split = lead.as_deref().and_then(|name| {
            let rest = line.strip_prefix(name)?.trim_start_matches([',', ' ', '–', '-', '·']);
            (!rest.is_empty()).then(|| (name.to_owned(), rest.to_owned()))
        });
        match split {
            Some((name, address)) => out.push((el, name, Some(address))),
            None => out.push((el, line, None)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Mark, marked_lines, marked_places};

    #[test]
    fn a_marked_place_opened_by_its_bold_name() {
        let doc = scraper::Html::parse_fragment(
            "<p>📅 Viernes 17 de abril<br>📍 <strong>Club Social y Deportivo El Ceibo</strong>, \
             Av. Belgrano 1450, Villa del Rosario<br>📍 Plaza Mayor</p>",
        );
        let got: Vec<(String, Option<String>)> =
            marked_places(doc.root_element()).into_iter().map(|(_, n, a)| (n, a)).collect();
        assert_eq!(
            got,
            [
                (
                    "Club Social y Deportivo El Ceibo".to_owned(),
                    Some("Av. Belgrano 1450, Villa del Rosario".to_owned())
                ),
                ("Plaza Mayor".to_owned(), None),
            ]
        );
    }

    #[test]
    fn lines_opened_by_a_pictograph() {
        // Issue 24, page 300: an event page's facts, one to a line.
        let doc = scraper::Html::parse_fragment(
            "<p>📅 <strong>Viernes 17 de abril</strong><br>\n🕘 Abrimos a las 21 h<br>\
             📍 <strong>Club El Ceibo</strong>, Av. Belgrano 1450<br>🎟️ Anticipadas: $6.000</p>\
             <p>Vuelve la peña 🎉 más grande.</p>",
        );
        let got: Vec<(Mark, String)> =
            marked_lines(doc.root_element()).into_iter().map(|(m, _, t)| (m, t)).collect();
        assert_eq!(
            got,
            [
                (Mark::Date, "Viernes 17 de abril".to_owned()),
                (Mark::Time, "Abrimos a las 21 h".to_owned()),
                (Mark::Place, "Club El Ceibo, Av. Belgrano 1450".to_owned()),
                (Mark::Price, "Anticipadas: $6.000".to_owned()),
            ]
        );
    }
}
