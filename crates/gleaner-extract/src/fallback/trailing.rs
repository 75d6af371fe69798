//! A programme line's text after its bold title, as town halls write a fiesta's acts:
//! `<strong>Campeonato de guiñote</strong>. Hogar del Jubilado. Inscripción: …` or
//! `<strong>Traca fin de fiestas</strong> y despedida con la charanga. Plaza Mayor.` —
//! a sentence that is only a proper name is the place; the words before it the blurb.

use gleaner_event::text::collapse;
use scraper::{ElementRef, Node};

/// The most words a place sentence holds (`Iglesia parroquial de San Roque`).
const MAX_WORDS: usize = 6;

/// What follows a title: the place sentence and the blurb before it.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct AfterTitle {
    /// A whole sentence of one to six words, without digits, colons or commas, whose
    /// first and last words are capitalised.
    pub(super) place: Option<String>,
    /// The text between the title and the place sentence, when there is some.
    pub(super) blurb: Option<String>,
}

/// Whether a sentence reads as a place's proper name.
fn is_place_name(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    (1..=MAX_WORDS).contains(&words.len())
        && words.first().is_some_and(capital)
        && words.last().is_some_and(capital)
        && !s.contains(|c: char| c.is_ascii_digit() || matches!(c, ':' | ',' | ';' | '!' | '?'))
        && crate::fallback::status_in(s).is_none()
        && !gleaner_event::says_free(s)
}

/// The item's text after `title` (a `<strong>` among the item's children), split into
/// its place sentence and the blurb before it; `None` when no sentence is a place name.
pub(super) fn after_title(item: ElementRef<'_>, title: ElementRef<'_>) -> Option<AfterTitle> {
    if title.parent().map(|p| p.id()) != Some(item.id()) {
        return None;
    }
    let mut text = String::new();
    for node in title.next_siblings() {
        match node.value() {
            Node::Text(t) => text.push_str(t),
            Node::Element(e) if e.name() == "br" => text.push_str(". "),
            Node::Element(_) => {
                text.extend(ElementRef::wrap(node)?.text());
            }
            _ => {}
        }
    }
    let text = collapse(&text);
    // Sentences end at `. ` and at the text's end; the first one may be empty
    // (`</strong>. Hogar del Jubilado.`).
    let mut at = 0;
    for piece in text.split_inclusive(". ") {
        let sentence = piece.trim().trim_start_matches('.').trim().trim_end_matches('.').trim();
        // The first piece ends the title's own sentence, unless the title ended it.
        let whole = at > 0 || piece.starts_with('.');
        if whole && is_place_name(sentence) {
            let blurb = text[..at].trim();
            let blurb = (blurb.split_whitespace().count() >= 2).then(|| blurb.to_owned());
            return Some(AfterTitle { place: Some(sentence.to_owned()), blurb });
        }
        at += piece.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{AfterTitle, after_title};
    use scraper::{Html, Selector};

    fn read(li: &str) -> Option<AfterTitle> {
        let doc = Html::parse_fragment(&format!("<ul><li>{li}</li></ul>"));
        let item = doc.select(&Selector::parse("li").unwrap()).next().unwrap();
        let title = item.select(&Selector::parse("strong").unwrap()).last().unwrap();
        after_title(item, title)
    }

    #[test]
    fn a_place_sentence_after_the_title() {
        let cases = [
            (
                "<strong>17.00 h</strong> – <strong>Campeonato</strong>. Hogar del Jubilado. Inscripción: 10 €.",
                ("Hogar del Jubilado", None),
            ),
            (
                "<strong>21.30 h</strong> – <strong>Traca</strong> y despedida con la charanga. Plaza Mayor.",
                ("Plaza Mayor", Some("y despedida con la charanga.")),
            ),
            (
                "<strong>12.00 h</strong> – <strong>Misa</strong> en honor a la Virgen. Iglesia parroquial de San Roque.",
                ("Iglesia parroquial de San Roque", Some("en honor a la Virgen.")),
            ),
        ];
        for (li, (place, blurb)) in cases {
            let got = read(li).unwrap_or_else(|| panic!("{li}"));
            assert_eq!(got.place.as_deref(), Some(place), "{li}");
            assert_eq!(got.blurb.as_deref(), blurb, "{li}");
        }
    }

    #[test]
    fn sentences_that_are_no_place() {
        for li in [
            "<strong>Fiesta</strong> SUSPENDIDA. Este año no se celebrará. Sentimos las molestias.",
            "<strong>Vermú</strong> por las calles del pueblo, salida desde la Plaza Mayor.",
            "<strong>Expo</strong>, fotografías antiguas. Entrada libre.",
            "<strong>Pregón</strong> desde el balcón. A continuación, chupinazo y reparto.",
        ] {
            assert_eq!(read(li), None, "{li}");
        }
    }
}
