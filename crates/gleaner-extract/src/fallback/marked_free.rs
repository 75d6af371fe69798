//! Free entry, or a price, stated once above a page's marked-up events: a paragraph right above the
//! microdata, RDFa or microformat items of a list (`Sauf mention contraire, les
//! manifestations … sont ouvertes au public, entrée libre.`, `Pazarlarımız 09.00–18.00
//! arası açıktır; giriş ücretsizdir.`), that the items themselves do not repeat. The
//! statement may sit in a wrapper of its own (a CMS text block, a view's header) whose
//! next sibling holds the items.

use scraper::ElementRef;

use super::page_price::{in_item_or_cell, same_section, states_free_for_all};
use super::{in_chrome, sel, text_of};

/// Elements marked up as one event: microdata or RDFa typed as an event, an h-event or a
/// vevent.
const MARKED: &str = "[itemtype*=\"Event\"], [typeof*=\"Event\"], .h-event, .vevent";

/// How many wrappers a statement may climb out of (a paragraph, in a text block, in its
/// component) to stand beside the items' container.
const WRAPPERS: usize = 3;

/// Whether a paragraph outside the page's chrome and its items says entry is free for
/// all ([`states_free_for_all`]) and heads the page's marked-up events: one of the next
/// four element siblings of the paragraph or of a wrapper it closes is, or holds, an
/// event item, and every event item follows the paragraph in its section (a statement
/// between two sections' items speaks for neither).
pub(crate) fn stated_free_over_marked_events(root: ElementRef<'_>) -> bool {
    statements_over_marked(root).iter().any(|t| states_free_for_all(t))
}

/// The price a paragraph heading the page's marked-up events states for them, as
/// [`stated_free_over_marked_events`] finds it: a sentence that a price word opens and
/// that writes an amount with its currency (`Jeden Freitag im Juni. Eintritt 10 €,
/// ermäßigt 6 €, Karten an der Abendkasse.`); no free tier, no free entry.
pub(crate) fn stated_price_over_marked_events(
    root: ElementRef<'_>,
) -> Option<gleaner_event::PriceText> {
    statements_over_marked(root)
        .iter()
        .find_map(|t| super::price::paragraph_price(t.split(". ")).filter(|p| !p.is_free))
}

/// The texts of the paragraphs outside the page's chrome and its items that head its
/// marked-up events ([`heads_marked`]), every event item following them in their section.
fn statements_over_marked(root: ElementRef<'_>) -> Vec<String> {
    let marked = sel(MARKED);
    let mut items = root.select(&marked).take(400);
    let Some(first) = items.next() else { return Vec::new() };
    let last = items.last().unwrap_or(first);
    root.select(&sel("p"))
        .take(80)
        .filter(|p| {
            p.id() < first.id()
                && !in_chrome(*p)
                && !in_item_or_cell(*p)
                && heads_marked(*p, first)
                && same_section(*p, last)
        })
        .map(text_of)
        .filter(|t| t.len() <= 1200)
        .collect()
}

/// Whether a paragraph, or one of the wrappers it ends ([`WRAPPERS`] at most), has the
/// page's first event item (which follows it) among its next four element siblings, or
/// one that holds it: a walk up the item's ancestors, not a search of the siblings'
/// subtrees, so a page's size does not multiply the paragraphs read.
fn heads_marked(p: ElementRef<'_>, first: ElementRef<'_>) -> bool {
    let holds_first =
        |e: ElementRef<'_>| e.id() == first.id() || first.ancestors().any(|a| a.id() == e.id());
    let mut at = p;
    for _ in 0..=WRAPPERS {
        let mut next = at.next_siblings().filter_map(ElementRef::wrap).take(4).peekable();
        if next.peek().is_some() {
            return next.any(holds_first);
        }
        match at.parent().and_then(ElementRef::wrap) {
            Some(parent) if !matches!(parent.value().name(), "body" | "html") => at = parent,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    fn free(html: &str) -> bool {
        let doc = Html::parse_document(html);
        super::stated_free_over_marked_events(doc.root_element())
    }

    #[test]
    fn a_price_stated_above_marked_events() {
        let price = |html: &str| {
            let doc = Html::parse_document(html);
            super::stated_price_over_marked_events(doc.root_element())
                .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string())))
        };
        let items = "<div><div class=\"vevent\"><span class=\"summary\">A</span></div>\
                     <div class=\"vevent\"><span class=\"summary\">B</span></div></div>";
        assert_eq!(
            price(&format!("<p>Jeden Samstag im Mai. Eintritt 12 €, ermäßigt 8 €.</p>{items}")),
            Some(("8".into(), Some("12".into())))
        );
        // Something else's price, a free tier, or a price below the items: none.
        assert_eq!(price(&format!("<p>Parken am Rathaus 3 €.</p>{items}")), None);
        assert_eq!(price(&format!("<p>Eintritt 12 €, Kinder frei.</p>{items}")), None);
        assert_eq!(price(&format!("{items}<p>Eintritt 12 €.</p>")), None);
    }

    #[test]
    fn free_entry_stated_above_marked_events() {
        let items = "<div class=\"list\"><article typeof=\"Event\"><h3 property=\"name\">A</h3>\
                     </article><article typeof=\"Event\"><h3 property=\"name\">B</h3></article></div>";
        let micro = "<ul><li itemscope itemtype=\"https://schema.org/Event\">A</li>\
                     <li itemscope itemtype=\"https://schema.org/Event\">B</li></ul>";
        let cases = [
            // Right above the items' container, or in wrappers beside it.
            (format!("<h1>Agenda</h1><p>Eintritt frei.</p>{items}"), true),
            (
                format!(
                    "<h1>Agenda</h1><div class=\"t\"><div class=\"c\"><p>Les visites ont lieu \
                     le samedi, entrée libre.</p></div></div><div>{micro}</div>"
                ),
                true,
            ),
            (
                format!(
                    "<div class=\"head\"><p>Kermeslerimiz 10.00'da açılır; giriş ücretsizdir.\
                     </p></div><div class=\"content\">{items}</div>"
                ),
                true,
            ),
            // All events free, in so many words.
            (format!("<p>Todas las actividades son gratuitas.</p>{items}"), true),
            (
                format!(
                    "<p>Sauf mention contraire, les conférences sont en entrée libre.</p>{micro}"
                ),
                true,
            ),
            (format!("<p>Salvo que se indique otra cosa, la entrada es libre.</p>{micro}"), true),
            // A price, a group's tier, an exception: not free for all.
            (format!("<p>Entrée libre. Concert du 21 août : 5 €.</p>{items}"), false),
            (format!("<p>Gratuit pour les moins de 12 ans.</p>{items}"), false),
            (format!("<p>Admission is free, except for the gala.</p>{micro}"), false),
            // Not above the items: below them, far from them, or in the chrome.
            (format!("{items}<p>Eintritt frei.</p>"), false),
            (
                format!(
                    "<p>Eintritt frei.</p><div>a</div><div>b</div><div>c</div><div>d</div>{items}"
                ),
                false,
            ),
            (format!("<header><p>Admission is free.</p></header>{items}"), false),
            // Another section's statement.
            (format!("<h2>Museum</h2><p>Admission is free.</p><h2>Events</h2>{items}"), false),
            // Inside an item: the item's own business.
            (
                "<ul><li itemscope itemtype=\"https://schema.org/Event\"><p>Entrée libre.</p>\
                 <div>x</div></li></ul>"
                    .to_owned(),
                false,
            ),
        ];
        for (html, want) in cases {
            assert_eq!(free(&html), want, "{html}");
        }
    }
}
