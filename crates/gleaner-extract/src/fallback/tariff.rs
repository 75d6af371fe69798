//! A page's tariff: a section headed `Prices` / `Tarifs` / `Eintrittspreise` / `Precios` /
//! `Bilet fiyatları` whose lines price every event of the page that gives no price of its
//! own (a venue's or a show's one tariff, under its programme).

use gleaner_event::PriceText;
use gleaner_event::datetext::fold_diacritics;
use scraper::ElementRef;

use super::price::price_lines;
use super::{sel, text_of};

/// Headings that announce a tariff, diacritics folded and lower-cased.
const HEADINGS: [&str; 34] = [
    "prices",
    "price",
    "ticket prices",
    "tickets",
    "tickets & prices",
    "tickets and prices",
    "admission",
    "admission prices",
    "prix",
    "tarifs",
    "tarif",
    "prix des places",
    "billetterie",
    "preise",
    "eintritt",
    "eintrittspreise",
    "karten",
    "kartenpreise",
    "precios",
    "precio",
    "entradas",
    "tarifas",
    "precio de las entradas",
    "precios de boletos",
    "precios de entradas",
    "precio de boletos",
    "precio de entradas",
    "bilet fiyatlari",
    "fiyatlar",
    "bilet",
    "biletler",
    "giris ucreti",
    "ucretler",
    "ucret",
];

/// Whether a heading announces the page's tariff: one of [`HEADINGS`], alone or with a
/// qualifier after it in brackets, a dash or a colon (`Tarifs (toutes les villes)`,
/// `Eintrittspreise – Saison 2026`, `Prices: all concerts`).
fn is_tariff_heading(text: &str) -> bool {
    let t = fold_diacritics(text).to_lowercase();
    let head = t.split(['(', ':', '–', '—', '|']).next().unwrap_or_default();
    let head = head.split(" - ").next().unwrap_or_default();
    HEADINGS.contains(&head.trim())
}

/// The range a page's tariff section writes (the cheapest to the dearest amount next to a
/// currency, zero when a line lets a group in free), from the elements after a tariff
/// heading up to the next heading; `None` when the page has no such section, or it writes
/// no amount.
pub(super) fn page_tariff(root: ElementRef<'_>) -> Option<PriceText> {
    let headings = sel("h2, h3, h4, h5, h6");
    let heading = root
        .select(&headings)
        .take(200)
        .find(|h| is_tariff_heading(&text_of(*h)))
        .or_else(|| card_heading(root))?;
    let mut lines = Vec::new();
    for el in heading.next_siblings().filter_map(ElementRef::wrap).take(3) {
        if matches!(el.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
            break;
        }
        // A line of several tiers (`Adultes : 15 € · Enfants : 12 € · Moins de 2 ans :
        // gratuit`) is read tier by tier.
        let tiers = price_lines(el).filter(|l| l.chars().count() <= 400).flat_map(|l| {
            l.split(['·', '|', ';', '•']).map(|t| t.trim().to_owned()).collect::<Vec<_>>()
        });
        lines.extend(tiers.filter(|t| !t.is_empty()).take(40));
    }
    let mut range: Option<PriceText> = None;
    for line in &lines {
        let Some(p) = gleaner_event::priced_range(line) else { continue };
        range = Some(match range {
            None => p,
            Some(mut r) => {
                if p.min < r.min {
                    r.min = p.min;
                }
                if p.max > r.max {
                    r.max = p.max;
                }
                r.currency = r.currency.or(p.currency);
                r
            }
        });
    }
    let mut range = range?;
    if lines.iter().any(|l| gleaner_event::states_free_tier(l)) {
        range.min = Default::default();
    }
    Some(range)
}

/// Classes that mark a block as its box's heading (`card-header`, `box-title`,
/// `widget-title`, `panel-heading`), lower-cased.
const HEADER_CLASSES: [&str; 6] =
    ["card-header", "card-title", "box-title", "widget-title", "panel-heading", "panel-title"];

/// A box's heading that announces a tariff when the page writes it in no `<h2>`–`<h6>`: a
/// `<div>`, `<p>` or `<span>` whose class marks it as its box's header ([`HEADER_CLASSES`],
/// `<div class="card-header">Precios de boletos</div>` over the box's list of seats) and
/// whose text is a tariff's heading ([`is_tariff_heading`]).
fn card_heading(root: ElementRef<'_>) -> Option<ElementRef<'_>> {
    root.select(&sel("div[class], p[class], span[class]")).take(5000).find(|el| {
        let classes = el.value().attr("class").unwrap_or_default().to_lowercase();
        classes.split_whitespace().any(|c| HEADER_CLASSES.contains(&c))
            && is_tariff_heading(&text_of(*el))
    })
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    use super::page_tariff;

    fn tariff(html: &str) -> Option<(String, Option<String>, Option<&'static str>)> {
        let doc = Html::parse_document(html);
        page_tariff(doc.root_element())
            .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency))
    }

    #[test]
    fn a_tariff_section_prices_the_page() {
        let range = |a: &str, b: &str, c: &'static str| Some((a.into(), Some(b.into()), Some(c)));
        assert_eq!(
            tariff(
                "<h2>Precios</h2><table><tr><td>Luneta</td><td>$850</td></tr>\
                 <tr><td>Galería</td><td>$350</td></tr></table><h2>Dirección</h2><p>Calle 5, 10 $</p>"
            ),
            range("350", "850", "$")
        );
        assert_eq!(
            tariff(
                "<h2>Bilet fiyatları</h2><p>Tam: 250 TL · Çocuk ve öğrenci: 180 TL · 10 kişi ve \
                 üzeri gruplara %20 indirim.</p>"
            ),
            range("180", "250", "TRY")
        );
        assert_eq!(
            tariff(
                "<h3>Tarifs :</h3><ul><li>Adultes : 15 à 28 €</li><li>Moins de 2 ans : gratuit</li></ul>"
            ),
            range("0", "28", "EUR")
        );
        // A qualified heading, and one line of several tiers.
        assert_eq!(
            tariff(
                "<h2>Tarifs (toutes les villes)</h2><p>Adultes : de 15&nbsp;€ à 28&nbsp;€ selon le \
                 placement · Enfants de 2 à 12 ans : de 12&nbsp;€ à 22&nbsp;€ · Moins de 2 ans : \
                 gratuit (sur les genoux).</p>"
            ),
            range("0", "28", "EUR")
        );
        assert_eq!(
            tariff("<h3>Eintrittspreise – Saison 2026</h3><p>Erwachsene 18 € | ermäßigt 12 €</p>"),
            range("12", "18", "EUR")
        );
        // Issue 24, page 278: a sidebar box's header over its list of seats.
        assert_eq!(
            tariff(
                "<aside><div class=\"card\"><div class=\"card-header bg-x\">Precios de boletos\
                 </div><ul><li>General: $80</li><li>Palco de primera fila: $250</li>\
                 <li>Menores de 3 años: gratis (sin ocupar asiento)</li></ul></div></aside>"
            ),
            range("0", "250", "$")
        );
        // A box whose header is no tariff's, or a tariff's words in a block not marked as
        // a header.
        assert_eq!(
            tariff("<div class=\"card-header\">Abonos</div><ul><li>30 juegos: $2000</li></ul>"),
            None
        );
        assert_eq!(tariff("<div class=\"note\">Precios</div><ul><li>General: $80</li></ul>"), None);
        // A heading that is not a tariff's, or a tariff that writes no amount.
        assert_eq!(tariff("<h2>Parking prices for our car park</h2><p>£3 per hour</p>"), None);
        assert_eq!(tariff("<h2>Tickets</h2><p>On sale soon at the box office.</p>"), None);
    }
}
