//! A price the page states once for all its events, in a paragraph right above their
//! list or table, that lets one group in free (`Members free, visitors R30 per outing`,
//! `Socios: entrada gratuita. No socios: 10 €.`, `Prix des places : CHF 25.– · AVS CHF
//! 15.– · gratuit jusqu'à 16 ans`): zero up to the dearest amount, for the events that
//! give no price of their own.

use gleaner_event::PriceText;
use scraper::ElementRef;

use super::{in_chrome, sel, text_of};

/// Elements that hold a page's events below their introduction.
const LISTS: [&str; 5] = ["table", "ul", "ol", "dl", "figure"];

/// The one tiered price the page's introductions state (see the module); `None` when
/// none does, or two state different ones (`Members free, visitors R30` for outings and
/// `Visitors R20, members free` for talks).
pub(super) fn stated_page_price(root: ElementRef<'_>) -> Option<PriceText> {
    let mut found: Option<PriceText> = None;
    for p in root.select(&sel("p")).take(80) {
        if in_chrome(p) || !introduces_list(p) {
            continue;
        }
        let text = text_of(p);
        if text.len() > 1200 {
            continue;
        }
        for price in tiered_statements(&text) {
            match &found {
                Some(f) if *f != price => return None,
                _ => found = Some(price),
            }
        }
    }
    found
}

/// Whether a paragraph stands right above a list or table of its page (one of its next
/// three element siblings is one), outside any list item or cell.
fn introduces_list(p: ElementRef<'_>) -> bool {
    let inside = p
        .ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| matches!(a.value().name(), "li" | "td" | "th" | "dd" | "table"));
    !inside
        && p.next_siblings()
            .filter_map(ElementRef::wrap)
            .take(3)
            .any(|e| LISTS.contains(&e.value().name()))
}

/// The tiered prices a paragraph's sentences state: a sentence that lets a group in free
/// and writes an amount next to a currency, or one that lets a group in free followed by
/// a short one that writes the others' price (`Socios: entrada gratuita. No socios:
/// 10 €.`).
fn tiered_statements(text: &str) -> Vec<PriceText> {
    let sentences: Vec<&str> =
        text.split(". ").map(str::trim).filter(|s| !s.is_empty()).take(20).collect();
    let mut out = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        if s.chars().count() > 240 || !gleaner_event::states_free_tier(s) {
            continue;
        }
        let read = if gleaner_event::priced_range(s).is_some() {
            gleaner_event::parse_price_text(s)
        } else {
            sentences
                .get(i + 1)
                .filter(|next| next.chars().count() <= 60)
                .and_then(|next| gleaner_event::parse_price_text(&format!("{s}. {next}")))
        };
        if let Some(p) = read.filter(|p| p.min.is_zero() && p.max.is_some_and(|m| !m.is_zero())) {
            out.push(p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    use super::stated_page_price;

    fn stated(html: &str) -> Option<(String, Option<String>, Option<&'static str>)> {
        let doc = Html::parse_document(html);
        stated_page_price(doc.root_element())
            .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency))
    }

    #[test]
    fn a_tiered_price_stated_above_the_list() {
        let range = |a: &str, b: &str, c: &'static str| Some((a.into(), Some(b.into()), Some(c)));
        let cases = [
            (
                "<p>Queridos socios: ya tenemos el cartel. <strong>Socios: entrada gratuita. No \
                 socios: 10 €.</strong> Habrá ambigú.</p><ul><li>6 de marzo – Recital</li></ul>",
                range("0", "10", "EUR"),
            ),
            (
                "<h2>Concerts</h2><p>Prix des places (sauf mention) : CHF 25.– · AVS, étudiants \
                 CHF 15.– · gratuit jusqu'à 16 ans. Billets à l'entrée.</p><table><tr><td>x</td></tr></table>",
                range("0", "25", "CHF"),
            ),
            (
                "<p>Las puertas abren una hora antes. Entradas: Tribuna General S/ 10.00 · Tribuna \
                 Principal S/ 25.00 · Niños menores de 12 años acompañados: ingreso libre. \
                 Estacionamiento S/ 8.00.</p><table><tr><td>x</td></tr></table>",
                range("0", "25.00", "PEN"),
            ),
            // Two introductions that state different prices: none.
            (
                "<p>Members free, visitors R30 per outing.</p><p>Talks: visitors R20, members \
                 free.</p><figure><table><tr><td>x</td></tr></table></figure>",
                None,
            ),
            // Not above a list, or in an event's own item.
            ("<p>Free for members; non-members £5.</p><div>Open day</div>", None),
            ("<ul><li><p>Free for members; non-members £5.</p><ul><li>x</li></ul></li></ul>", None),
            // A price without a free tier is the labelled price's business, not this one's.
            ("<p>Entrada: 10 €.</p><ul><li>x</li></ul>", None),
        ];
        for (html, want) in cases {
            assert_eq!(stated(html), want, "{html}");
        }
    }
}
