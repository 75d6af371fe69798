//! A title cell or programme line that opens with its title in bold: the bold is the
//! title, a plain line after a `<br>` its blurb, an italic line after a `<br>` its place
//! (`<strong>Pregón de fiestas</strong>, a cargo de…<br><em>Plaza Mayor</em>`, as CMS
//! editors set a programme's or a club plan's table cells).

use gleaner_event::datetext::fold_diacritics;
use gleaner_event::text::collapse;
use scraper::{ElementRef, Node};

use super::item::title_text;
use super::words::{is_status_badge, status_in};

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
    // The rest, line by line: each line's text, whether it is all italic and whether it
    // is all small print.
    let mut lines: Vec<(String, bool, bool)> = vec![(String::new(), true, true)];
    for node in first.next_siblings() {
        match node.value() {
            Node::Element(e) if e.name() == "br" => lines.push((String::new(), true, true)),
            Node::Element(e) => {
                let el = ElementRef::wrap(node)?;
                let line = lines.last_mut()?;
                line.0.push(' ');
                line.0.push_str(&el.text().collect::<String>());
                line.1 &= matches!(e.name(), "em" | "i" | "small");
                line.2 &= e.name() == "small";
            }
            Node::Text(t) => {
                let line = lines.last_mut()?;
                if !t.trim().is_empty() {
                    line.1 = false;
                    line.2 = false;
                }
                line.0.push_str(t);
            }
            _ => {}
        }
    }
    // A line in small print that reads as a sentence is the blurb, not a place.
    let lines: Vec<(String, bool)> = lines
        .into_iter()
        .map(|(t, italic, small)| {
            let t = collapse(&t);
            let italic = italic && !(small && is_small_blurb(&t));
            (t, italic)
        })
        .collect();
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

/// Fewest words of a small-print line read as a blurb ([`is_small_blurb`]).
const SMALL_BLURB_WORDS: usize = 6;

/// Whether a line set in `<small>` under a bold title is its blurb rather than its place:
/// a sentence of six words or more (`<small>Her çiftte en az bir kadın oyuncu
/// bulunmalıdır. 24 board, Mitchell usulü.</small>`), where a place is a name (`<small>Plaza
/// Mayor</small>`).
fn is_small_blurb(line: &str) -> bool {
    line.split_whitespace().count() >= SMALL_BLURB_WORDS && line.ends_with(['.', '!', '?', '…'])
}

/// A cell's parts when it is a plain first line, a `<br>` and one italic line
/// (`Familienwanderung<br><em>Treffpunkt: Wanderheim am Sonnenbühl</em>`, as a club plan
/// notes a row's own meeting point): the first line is the title, the italic line,
/// without its `Treffpunkt:`-like label, its place.
pub(super) fn lead_line(cell: ElementRef<'_>) -> Option<LeadBold> {
    let nodes: Vec<_> = cell
        .children()
        .filter(|n| match n.value() {
            Node::Text(t) => !t.trim().is_empty(),
            Node::Element(_) => true,
            _ => false,
        })
        .collect();
    // The first line: its text and inline elements up to the `<br>` (`<s>Música celta:
    // <strong>Os Trasnos</strong></s>`, struck out beside a status note).
    let [head @ .., br, note] = nodes.as_slice() else { return None };
    let (br, note) = (ElementRef::wrap(*br)?, ElementRef::wrap(*note)?);
    let small_label =
        note.value().name() == "small" && labelled_line(&note.text().collect::<String>());
    if head.is_empty()
        || br.value().name() != "br"
        || !(matches!(note.value().name(), "em" | "i") || small_label)
        || head.iter().any(|n| {
            n.value().as_element().is_some_and(|e| matches!(e.name(), "br" | "b" | "strong"))
        })
    {
        return None;
    }
    let parts: Vec<String> = head
        .iter()
        .map(|n| match n.value() {
            Node::Text(t) => t.to_string(),
            _ => ElementRef::wrap(*n).map(title_text).unwrap_or_default(),
        })
        .collect();
    let title = collapse(&parts.join(" "));
    if !(3..=200).contains(&title.chars().count()) || is_status_badge(&title) {
        return None;
    }
    let line = collapse(&note.text().collect::<String>());
    // A status note (`SUSPENDIDO por previsión de fuerte levante.`) is no place.
    if status_in(&line).is_some() {
        return Some(LeadBold { title, blurb: None, place: None });
    }
    let line = match line.split_once(':') {
        Some((label, rest))
            if PLACE_LABELS.contains(&fold_diacritics(label.trim()).to_lowercase().as_str()) =>
        {
            rest.trim().to_owned()
        }
        // A small-print line of another label (`Şef: Mehmet Ali Aydın`) is a credit.
        _ if small_label => return Some(LeadBold { title, blurb: None, place: None }),
        _ => line,
    };
    Some(LeadBold { title, blurb: None, place: place_line(&line) })
}

/// Most words of a line's label before its colon ([`labelled_line`]).
const MAX_LABEL_WORDS: usize = 2;

/// Whether a line is a label, a colon and its value (`Şef: Mehmet Ali Aydın`, `Ort:
/// Kreativraum`, `Leitung: Anna Roth`): under a title in small print, a note on the
/// event, never a part of its name.
fn labelled_line(line: &str) -> bool {
    line.split_once(':').is_some_and(|(label, value)| {
        let words = label.split_whitespace().count();
        (1..=MAX_LABEL_WORDS).contains(&words)
            && label.chars().all(|c| c.is_alphabetic() || c.is_whitespace() || c == '.')
            && value.chars().any(char::is_alphabetic)
    })
}

/// A cell's first line when a later line, after a `<br>`, opens with a status word
/// (`Halay Gecesi<br><strong>ERTELENDİ – yeni tarih daha sonra duyurulacak</strong>`): the
/// title, without the status note under it. `None` for any other cell.
pub(super) fn before_status_line(cell: ElementRef<'_>) -> Option<String> {
    let mut lines = vec![String::new()];
    for node in cell.children() {
        match node.value() {
            Node::Element(e) if e.name() == "br" => lines.push(String::new()),
            Node::Text(t) => lines.last_mut()?.push_str(t),
            Node::Element(_) => {
                let el = ElementRef::wrap(node)?;
                let line = lines.last_mut()?;
                line.push(' ');
                line.push_str(&el.text().collect::<String>());
            }
            _ => {}
        }
    }
    let lines: Vec<String> = lines.iter().map(|l| collapse(l)).filter(|l| !l.is_empty()).collect();
    let [first, rest @ ..] = lines.as_slice() else { return None };
    let opens_with_status = |l: &String| {
        l.split(|c: char| !c.is_alphanumeric())
            .find(|w| !w.is_empty())
            .is_some_and(|w| status_in(w).is_some())
    };
    (rest.iter().any(opens_with_status) && (3..=200).contains(&first.chars().count()))
        .then(|| first.clone())
}

/// Labels of a place line (folded, lower case).
const PLACE_LABELS: &[&str] = &[
    "treffpunkt",
    "ort",
    "ausgangspunkt",
    "meeting point",
    "venue",
    "where",
    "lieu",
    "rendez-vous",
    "lugar",
    "punto de encuentro",
    "mekan",
    "bulusma noktasi",
    "yer",
];

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
    use super::{LeadBold, lead_bold, lead_line};

    #[test]
    fn a_plain_line_and_its_italic_place() {
        let doc = Html::parse_fragment(
            "<table><tr><td>Familienwanderung mit Grillen<br/><em>Treffpunkt: Wanderheim am Sonnenbühl</em></td>\
             <td>Wanderwoche<br/><em>540 € pro Person im DZ mit Halbpension, Anmeldung bis 31.03.2026</em></td>\
             <td>Frühlingswanderung</td></tr></table>",
        );
        let cells: Vec<_> = doc.select(&Selector::parse("td").unwrap()).collect();
        let plan = lead_line(cells[0]).unwrap();
        assert_eq!(plan.title, "Familienwanderung mit Grillen");
        assert_eq!(plan.place.as_deref(), Some("Wanderheim am Sonnenbühl"));
        let priced = lead_line(cells[1]).unwrap();
        assert_eq!((priced.title.as_str(), priced.place), ("Wanderwoche", None));
        assert_eq!(lead_line(cells[2]), None);
    }

    #[test]
    fn a_plain_line_and_its_small_print_label_line() {
        // Issue 24, page 246: a conductor credited in small print under the title.
        let doc = Html::parse_fragment(
            "<table><tr><td>Türk Sanat Müziği Korosu Bahar Konseri<br><small>Şef: Mehmet Ali Aydın</small></td>\
             <td>Osterbasteln<br><small>Ort: Kreativraum</small></td>\
             <td>Lesung<br><small>mit anschließendem Gespräch</small></td></tr></table>",
        );
        let cells: Vec<_> = doc.select(&Selector::parse("td").unwrap()).collect();
        let credited = lead_line(cells[0]).unwrap();
        assert_eq!(
            (credited.title.as_str(), credited.place),
            ("Türk Sanat Müziği Korosu Bahar Konseri", None)
        );
        let placed = lead_line(cells[1]).unwrap();
        assert_eq!(
            (placed.title.as_str(), placed.place.as_deref()),
            ("Osterbasteln", Some("Kreativraum"))
        );
        assert_eq!(lead_line(cells[2]), None);
    }
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
    fn a_small_print_sentence_is_the_blurb() {
        // Issue 24, pages 287 and 299: a table's title cell with its blurb in `<small>`.
        let got = read(
            "<strong>Nevruz Takım Turnuvası</strong><br><small>İki oturum, İsviçre usulü 7 maç; oturumlar arası çay ikramı.</small>",
        )
        .unwrap();
        assert_eq!(
            got.blurb.as_deref(),
            Some("İki oturum, İsviçre usulü 7 maç; oturumlar arası çay ikramı.")
        );
        assert_eq!(got.place, None);
        // A name in small print is still the place.
        let got = read("<strong>Pregón</strong><br><small>Plaza Mayor</small>").unwrap();
        assert_eq!((got.blurb, got.place.as_deref()), (None, Some("Plaza Mayor")));
    }

    #[test]
    fn a_status_line_under_the_title() {
        // Issue 24, page 269: the postponement note on its own line is no part of the title.
        let cell = |html: &str| {
            let doc = Html::parse_fragment(&format!("<table><tr><td>{html}</td></tr></table>"));
            let td = doc.select(&Selector::parse("td").unwrap()).next().unwrap();
            super::before_status_line(td)
        };
        assert_eq!(
            cell("Halay Gecesi (dernek üyeleri)<br><strong>ERTELENDİ – yeni tarih daha sonra duyurulacak</strong>")
                .as_deref(),
            Some("Halay Gecesi (dernek üyeleri)")
        );
        assert_eq!(
            cell("Concierto de primavera<br>Suspendido por lluvia").as_deref(),
            Some("Concierto de primavera")
        );
        assert_eq!(cell("Concierto de primavera<br>Con la banda municipal"), None);
        assert_eq!(cell("Concierto de primavera"), None);
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
