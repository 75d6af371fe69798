//! A structured event's own element in the page: what its structured data leaves out
//! and its card in the same page writes.
//!
//! Listing plugins often emit lean structured data (name, dates, place, link) beside a
//! card per event that holds its picture and teaser (Contao's event list, a box office's
//! widget). The card is the largest element around a link to the event's own URL that
//! links to no other event of the page; its image and its running-text paragraph fill the
//! event's missing `image` and `description` (and through the description, its price and
//! free entry, read later as for any structured description). An event whose URL the page
//! does not link, or whose card holds the page's title (`h1`: a detail page, where the
//! card would be the whole page), is left as it is.

use std::collections::HashMap;

use scraper::{ElementRef, Html};
use url::Url;

use crate::fallback::{item_description, item_image, status_in};
use crate::{Candidate, Format};

/// How far above a link its card may be: a card is a few levels deep, and the bound keeps
/// the walk linear in the page's links.
const MAX_LEVELS: usize = 8;

/// The longest card read, in characters: longer is a section of the page, not a card.
const MAX_CARD_CHARS: usize = 4000;

/// Which event's links an element holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// Only links to the event with this index in the page's URL list.
    One(usize),
    /// Links to two events or more.
    Several,
}

/// Whether a structured event with a URL lacks its image or description: only then is
/// the page's DOM worth building for [`fill`].
pub(crate) fn wanted(candidates: &[Candidate]) -> bool {
    candidates.iter().any(|c| c.raw.url.is_some() && lacks(c))
}

fn lacks(c: &Candidate) -> bool {
    c.format != Format::Fallback && (c.raw.image.is_none() || c.raw.description.is_none())
}

/// Fills the missing image and description of the structured events in `candidates` from
/// their cards in `doc` (see the module's comment).
pub(crate) fn fill<'a>(doc: &'a Html, base: &Url, candidates: &mut [Candidate]) {
    let own = |c: &Candidate| {
        let u = base.join(c.raw.url.as_deref()?.trim()).ok()?;
        Some(without_fragment(u))
    };
    let urls: Vec<Option<Url>> = candidates.iter().map(own).collect();
    let wanted = lacks;
    if !candidates.iter().zip(&urls).any(|(c, u)| u.is_some() && wanted(c)) {
        return;
    }
    let mut index: HashMap<&Url, usize> = HashMap::new();
    for u in urls.iter().flatten() {
        let next = index.len();
        index.entry(u).or_insert(next);
    }
    // Each element above a link to an event, up to MAX_LEVELS, marked with the events it
    // links to; and each event's first link.
    // (Node ids are ego-tree's, which scraper does not re-export: their type is inferred.)
    let mut holds = HashMap::new();
    let mut first_link: HashMap<usize, ElementRef<'a>> = HashMap::new();
    let links = scraper::Selector::parse("a[href]").expect("a valid selector");
    for a in doc.select(&links) {
        let Some(href) = a.value().attr("href") else { continue };
        let Some(u) = base.join(href.trim()).ok().map(without_fragment) else { continue };
        let Some(&event) = index.get(&u) else { continue };
        first_link.entry(event).or_insert(a);
        for node in a.ancestors().take(MAX_LEVELS) {
            holds
                .entry(node.id())
                .and_modify(|h| {
                    if *h != Holds::One(event) {
                        *h = Holds::Several;
                    }
                })
                .or_insert(Holds::One(event));
        }
    }
    // The card of an event above its first link: the highest ancestor that holds links
    // to this event only, when it is no page section (`body`, `main`, an element holding
    // the page's `h1`, or more than MAX_CARD_CHARS of text).
    let h1 = scraper::Selector::parse("h1").expect("a valid selector");
    let card = |link: ElementRef<'a>, event: usize| -> Option<ElementRef<'a>> {
        let top = link
            .ancestors()
            .take(MAX_LEVELS)
            .take_while(|n| holds.get(&n.id()) == Some(&Holds::One(event)))
            .filter_map(ElementRef::wrap)
            .last()?;
        let section = matches!(top.value().name(), "body" | "html" | "main")
            || top.select(&h1).next().is_some()
            || top.text().map(|t| t.chars().count()).sum::<usize>() > MAX_CARD_CHARS;
        (!section).then_some(top)
    };
    for (c, u) in candidates.iter_mut().zip(&urls) {
        let Some(u) = u.as_ref().filter(|_| wanted(c)) else { continue };
        let event = index[u];
        let Some(card) = first_link.get(&event).and_then(|&link| card(link, event)) else {
            continue;
        };
        if c.raw.image.is_none() {
            c.raw.image = item_image(card);
        }
        if c.raw.description.is_none() {
            let title = c.raw.name.clone().unwrap_or_default();
            c.raw.description = item_description(card, &title).filter(|t| is_teaser(t));
        }
    }
}

/// Fewest words (of two letters or more, so amounts and dates do not count) of a card's
/// teaser: shorter lines beside lean structured data are practical notes (`Participation
/// 25 €, matériel fourni. Sur inscription.`, `Entradas de 15 a 50 €, a la venta desde el
/// 23 de noviembre.`), which the labels do not take for descriptions.
const TEASER_WORDS: usize = 12;

/// Whether a card's paragraph is a teaser: prose of [`TEASER_WORDS`] words or more that is
/// no status note (`Das Konzert entfällt wegen Bauarbeiten an der Orgel.`).
fn is_teaser(t: &str) -> bool {
    let words =
        t.split_whitespace().filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2);
    words.count() >= TEASER_WORDS && status_in(t).is_none()
}

fn without_fragment(mut u: Url) -> Url {
    u.set_fragment(None);
    u
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_event::RawEvent;

    fn structured(name: &str, url: &str) -> Candidate {
        Candidate {
            format: Format::JsonLd,
            location: String::new(),
            raw: RawEvent { name: Some(name.into()), url: Some(url.into()), ..RawEvent::default() },
        }
    }

    const LIST: &str = r#"<html><body><h1>Termine</h1><div class="list">
      <div class="event"><h3><a href="details/kurs.html">Anfängerkurs Imkern</a></h3>
        <img src="bilder/kurs.jpg" width="240" height="160">
        <p>Der Kurs begleitet Sie durch ein ganzes Bienenjahr, mit Theorie am Abend und Praxis am Bienenvolk.</p>
        <p><a href="details/kurs.html#more">Weiterlesen</a></p></div>
      <div class="event"><h3><a href="details/markt.html">Honigmarkt im Dorf</a></h3>
        <p>Der Markt findet auf dem Dorfplatz statt, mit Honig, Wachs und Met von zwölf Imkereien.</p>
        <p>Participation 25 €, matériel fourni. Sur inscription.</p>
        <p>Entradas de 15 a 50 €, a la venta desde el 23 de noviembre.</p></div>
      <div class="event"><h3><a href="details/orgel.html">Orgelkonzert</a></h3>
        <p>Das Konzert entfällt wegen Bauarbeiten an der Orgel, die Karten werden erstattet.</p></div>
    </div></body></html>"#;

    #[test]
    fn a_lean_structured_event_takes_its_cards_picture_and_teaser() {
        let base = Url::parse("https://verein.example.de/termine.html").unwrap();
        let doc = Html::parse_document(LIST);
        let mut cands = vec![
            structured("Anfängerkurs Imkern", "https://verein.example.de/details/kurs.html"),
            structured("Honigmarkt im Dorf", "details/markt.html"),
            structured("Orgelkonzert", "details/orgel.html"),
        ];
        fill(&doc, &base, &mut cands);
        assert_eq!(cands[0].raw.image.as_deref(), Some("bilder/kurs.jpg"));
        assert_eq!(
            cands[0].raw.description.as_deref(),
            Some(
                "Der Kurs begleitet Sie durch ein ganzes Bienenjahr, mit Theorie am Abend und \
                 Praxis am Bienenvolk."
            )
        );
        assert_eq!(cands[1].raw.image, None);
        assert_eq!(
            cands[1].raw.description.as_deref(),
            Some(
                "Der Markt findet auf dem Dorfplatz statt, mit Honig, Wachs und Met von zwölf Imkereien."
            )
        );
        // A status note is no teaser, however long.
        assert_eq!(cands[2].raw.description, None);
    }

    #[test]
    fn what_structured_data_says_stays_and_pages_without_cards_give_nothing() {
        let base = Url::parse("https://verein.example.de/termine.html").unwrap();
        let doc = Html::parse_document(LIST);
        let mut said = structured("Kurs", "details/kurs.html");
        said.raw.description = Some("Six dates from March.".into());
        // Not linked from the page; a fallback event is not structured data.
        let unlinked = structured("Fest", "details/fest.html");
        let mut fallback = structured("Honigmarkt im Dorf", "details/markt.html");
        fallback.format = Format::Fallback;
        let mut cands = vec![said, unlinked, fallback];
        fill(&doc, &base, &mut cands);
        assert_eq!(cands[0].raw.description.as_deref(), Some("Six dates from March."));
        assert_eq!(cands[0].raw.image.as_deref(), Some("bilder/kurs.jpg"));
        assert_eq!(cands[1].raw.description, None);
        assert_eq!(cands[2].raw.description, None);
    }

    #[test]
    fn a_detail_page_is_no_card() {
        // The only event links to itself from a page whose title is the event's: the
        // "card" would be the whole page.
        let base = Url::parse("https://verein.example.de/details/kurs.html").unwrap();
        let doc = Html::parse_document(
            r#"<html><body><div><h1>Kurs</h1><p>Ein Kurs für alle, die Bienen halten wollen, mit sechs Terminen von März bis August.</p>
            <a href="kurs.html">Kurs</a></div></body></html>"#,
        );
        let mut cands = vec![structured("Kurs", "kurs.html")];
        fill(&doc, &base, &mut cands);
        assert_eq!(cands[0].raw.description, None);
    }
}
