//! A title cell or programme line that opens with its title in bold: the bold is the
//! title, a plain line after a `<br>` its blurb, an italic line after a `<br>` its place
//! (`<strong>Pregón de fiestas</strong>, a cargo de…<br><em>Plaza Mayor</em>`, as CMS
//! editors set a programme's or a club plan's table cells).

use gleaner_event::text::collapse;
use scraper::{ElementRef, Node};

use super::item::title_text;
use super::words::is_status_badge;

/// What a cell that leads with its bold title gives.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct LeadBold {
    /// The bold text the cell opens with.
    pub(super) title: String,
    /// The first plain line after a `<br>` of six words or more (a sentence, not a
    /// credit line such as `Dir. Ece Yalçın, 111′`).
    pub(super) blurb: Option<String>,
    /// The first line after a `<br>` that is all italic: a place, up to its first
    /// sentence's end and without a parenthesised remark.
    pub(super) place: Option<String>,
}

/// The cell's parts when its first content is a `<b>`/`<strong>` (not a status badge)
/// and more text follows it; `None` otherwise.
pub(super) fn lead_bold(cell: ElementRef<'_>) -> Option<LeadBold> {
    let mut nodes = cell.children().filter(|n| match n.value() {
        Node::Text(t) => !t.trim().is_empty(),
        Node::Element(_) => true,
        _ => false,
    });
    let first = ElementRef::wrap(nodes.next()?)?;
    if !matches!(first.value().name(), "b" | "strong") {
        return None;
    }
    let title = title_text(first);
    let n = title.chars().count();
    if !(3..=200).contains(&n) || is_status_badge(&title) {
        return None;
    }
    // The rest, line by line: each line's text and whether it is all italic.
    let mut lines: Vec<(String, bool)> = vec![(String::new(), true)];
    for node in first.next_siblings() {
        match node.value() {
            Node::Element(e) if e.name() == "br" => lines.push((String::new(), true)),
            Node::Element(e) => {
                let el = ElementRef::wrap(node)?;
                let line = lines.last_mut()?;
                line.0.push(' ');
                line.0.push_str(&el.text().collect::<String>());
                line.1 &= matches!(e.name(), "em" | "i" | "small");
            }
            Node::Text(t) => {
                let line = lines.last_mut()?;
                if !t.trim().is_empty() {
                    line.1 = false;
                }
                line.0.push_str(t);
            }
            _ => {}
        }
    }
    let lines: Vec<(String, bool)> =
        lines.into_iter().map(|(t, italic)| (collapse(&t), italic)).collect();
    if lines.iter().all(|(t, _)| t.is_empty()) {
        return None;
    }
    let later = || lines.iter().skip(1).filter(|(t, _)| !t.is_empty());
    let blurb = later()
        .find(|(t, italic)| !italic && t.split_whitespace().count() >= 6)
        .map(|(t, _)| t.clone());
    let place = later().find(|(_, italic)| *italic).and_then(|(t, _)| place_line(t));
    Some(LeadBold { title, blurb, place })
}

/// A place line's place: up to its first sentence's end, without a parenthesised
/// remark (`Cerro del Castillo (se verá mejor desde la Plaza Mayor)`), at most eight
/// words.
fn place_line(line: &str) -> Option<String> {
    let head = line.split(". ").next().unwrap_or(line);
    let head = match head.find(" (") {
        Some(at) => &head[..at],
        None => head,
    };
    let head = head.trim().trim_end_matches(['.', ',', ';']).trim();
    let words = head.split_whitespace().count();
    ((1..=8).contains(&words) && head.chars().next().is_some_and(char::is_uppercase))
        .then(|| head.to_owned())
}

#[cfg(test)]
mod tests {
    use super::{LeadBold, lead_bold};
    use scraper::{Html, Selector};

    fn read(cell: &str) -> Option<LeadBold> {
        let doc = Html::parse_fragment(&format!("<table><tr><td>{cell}</td></tr></table>"));
        let td = doc.select(&Selector::parse("td").unwrap()).next().unwrap();
        lead_bold(td)
    }

    #[test]
    fn a_programme_cell() {
        let got = read(
            "<strong>Pregón de fiestas</strong>, a cargo de la periodista, desde el balcón.<br><em>Plaza Mayor</em>",
        )
        .unwrap();
        assert_eq!(got.title, "Pregón de fiestas");
        assert_eq!(got.blurb, None);
        assert_eq!(got.place.as_deref(), Some("Plaza Mayor"));
        let got = read(
            "<strong>Exposición</strong>. Retratos.<br><em>Casa de Cultura, calle Real, 5. Horario: de 19.00 a 21.30 h.</em>",
        )
        .unwrap();
        assert_eq!(got.place.as_deref(), Some("Casa de Cultura, calle Real, 5"));
        let got = read(
            "<strong>Fuegos</strong><br><em>Cerro del Castillo (se verá mejor desde la Plaza Mayor)</em>",
        )
        .unwrap();
        assert_eq!(got.place.as_deref(), Some("Cerro del Castillo"));
    }

    #[test]
    fn a_plan_cell() {
        let got = read(
            "<strong>Zur Burgruine Wildeck</strong><br>Wegen des Dorffests am 12. Juli um eine Woche verschoben.",
        )
        .unwrap();
        assert_eq!(got.title, "Zur Burgruine Wildeck");
        assert_eq!(
            got.blurb.as_deref(),
            Some("Wegen des Dorffests am 12. Juli um eine Woche verschoben.")
        );
        assert_eq!(got.place, None);
    }

    #[test]
    fn cells_that_do_not_lead_with_a_title() {
        assert_eq!(read("Concert <strong>Jazz Trio</strong>"), None);
        assert_eq!(read("<strong>Jazz Trio</strong>"), None);
        assert_eq!(read("<strong>SUSPENDIDA</strong> por la lluvia"), None);
    }
}
