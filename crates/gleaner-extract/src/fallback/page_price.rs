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

/// Whether `p` sits inside a list item, a table or a description's term or details.
pub(super) fn in_item_or_cell(p: ElementRef<'_>) -> bool {
    p.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| matches!(a.value().name(), "li" | "td" | "th" | "dd" | "table"))
}

/// Whether a paragraph stands right above a list or table of its page (one of its next
/// three element siblings is one), outside any list item or cell.
fn introduces_list(p: ElementRef<'_>) -> bool {
    let inside = in_item_or_cell(p);
    // A heading between them opens another section: the paragraph ends the one before
    // (`Eintritt: Fr. 20.–, Kinder gratis.` under a show, then `<h2>Weitere Anlässe</h2>`
    // and their table).
    !inside
        && p.next_siblings()
            .filter_map(ElementRef::wrap)
            .take(3)
            .take_while(|e| !is_heading(*e))
            .any(|e| LISTS.contains(&e.value().name()))
}

/// Whether an element is a heading (`h1`–`h6`).
fn is_heading(e: ElementRef<'_>) -> bool {
    matches!(e.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Whether a page-wide statement (`Eintritt: Fr. 20.–`) speaks for a list: the list
/// stands in the statement's section. After the statement, no heading between them ranks
/// as high as the one over the statement (an `<h2>` between two `<h2>` sections parts
/// them, an `<h3>` under an `<h2>` does not; before any heading, only an `<h1>` does);
/// before it, no heading at all (`<h2>Visiter le beffroi</h2><p>Entrée : 5 €</p>` after
/// the concerts' table is the visit's).
pub(super) fn same_section(statement: ElementRef<'_>, list: ElementRef<'_>) -> bool {
    let (first, last) =
        if statement.id() < list.id() { (statement, list) } else { (list, statement) };
    let list_first = first.id() == list.id();
    let inside = |h: ElementRef<'_>, el: ElementRef<'_>| h.ancestors().any(|x| x.id() == el.id());
    let rank = |h: ElementRef<'_>| {
        h.value().name().strip_prefix('h').and_then(|n| n.parse::<u8>().ok()).unwrap_or(6)
    };
    let root = first.ancestors().filter_map(ElementRef::wrap).last().unwrap_or(first);
    let headings: Vec<ElementRef<'_>> =
        root.select(&sel("h1, h2, h3, h4, h5, h6")).take(400).collect();
    let over = headings
        .iter()
        .take_while(|h| h.id() < first.id())
        .filter(|h| !inside(**h, first))
        .last()
        .map_or(1, |h| rank(*h));
    !headings.iter().any(|h| {
        h.id() > first.id()
            && h.id() < last.id()
            && !inside(*h, first)
            && !inside(*h, last)
            && (list_first || rank(*h) <= over)
    })
}

/// The booking link of the introduction that states the page's one tiered price
/// ([`stated_page_price`]): `Billets à l'entrée ou sur <a>notre billetterie en ligne</a>`
/// books every priced event of the list below it. `None` when no introduction states
/// that price, or none of them holds a booking link (a mail or map link is none).
pub(super) fn stated_page_booking(root: ElementRef<'_>) -> Option<String> {
    let price = stated_page_price(root)?;
    root.select(&sel("p"))
        .take(80)
        .filter(|p| !in_chrome(*p) && introduces_list(*p))
        .filter(|p| {
            let text = text_of(*p);
            text.len() <= 1200 && tiered_statements(&text).contains(&price)
        })
        .find_map(super::price::booking_link)
        .filter(|h| super::booking::is_booking_target(h))
}

/// Words that except some events from a statement about all (`sauf`, `außer`, `mit
/// Ausnahme`, `salvo`, `hariç`), folded.
const EXCEPT: [&str; 11] = [
    "except",
    "unless",
    "sauf",
    "ausser",
    "ausgenommen",
    "ausnahme",
    "salvo",
    "excepto",
    "excepcion",
    "haric",
    "disinda",
];

/// Whether the page states once, above its events, that entry is free: a paragraph
/// outside the page's chrome and its items, heading a list or table of its own section
/// (one of its next four element siblings, with no heading as high as the one over it
/// between), one of whose clauses says so (`Accès gratuit.`, `spectators are always
/// welcome and admission is free`, `Eintritt frei.`) with no amount, group or exception
/// in the paragraph. A paragraph that also writes a price, or lets only one group in free
/// (`enfants gratuit`), states no free entry for all.
pub(super) fn stated_page_free(root: ElementRef<'_>) -> bool {
    root.select(&sel("p")).take(80).any(|p| {
        if in_chrome(p) || !heads_section_list(p) || !lists_after_in_section(root, p) {
            return false;
        }
        states_free_for_all(&text_of(p))
    })
}

/// Whether a statement says entry is free for all the events it heads: one of its clauses
/// says so (`Accès gratuit.`, `admission is free`, `Todas las actividades son gratuitas`)
/// with no amount, group or exception in the statement.
pub(super) fn states_free_for_all(text: &str) -> bool {
    if text.len() > 1200
        || gleaner_event::priced_range(text).is_some()
        || gleaner_event::pay_what_you_wish(text)
    {
        return false;
    }
    !text.split(['.', ';', '!']).any(excepts) && text.split(['.', ';', '!']).any(says_entry_free)
}

/// Words that turn an exception word into a default (`unless marked otherwise`, `sauf
/// mention contraire`, `wenn nicht anders angegeben`), folded.
const OTHERWISE: [&str; 6] = ["otherwise", "contraire", "anders", "contrario", "contraria", "otra"];

/// Whether a clause excepts some events ([`EXCEPT`]), rather than stating a default that
/// holds unless an event says otherwise (`Home matches are played at the Recreation Ground
/// unless marked otherwise`).
fn excepts(clause: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(clause).to_lowercase();
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).collect();
    words.iter().any(|w| EXCEPT.contains(w))
        && !words.iter().any(|w| OTHERWISE.contains(w))
        && !bracketed_elsewhere(clause)
}

/// Whether every exception of a clause is in brackets after a part of it that says
/// nothing of free entry: `Der Eintritt ist frei, eine Anmeldung ist nicht nötig
/// (Ausnahme: Sternwarte)` excepts the registration, not the entry.
fn bracketed_elsewhere(clause: &str) -> bool {
    let has_except = |t: &str| {
        let folded = gleaner_event::datetext::fold_diacritics(t).to_lowercase();
        folded.split(|c: char| !c.is_alphanumeric()).any(|w| EXCEPT.contains(&w))
    };
    let parts: Vec<&str> = clause.split([',', '–', '—']).take(12).collect();
    parts.iter().filter(|p| has_except(p)).all(|part| {
        part.split_once('(').is_some_and(|(before, inside)| {
            !has_except(before)
                && has_except(inside)
                && !gleaner_event::says_free_entry(before)
                && !gleaner_event::says_free(before)
        })
    })
}

/// Whether one clause says entry is free: in so many words (`admission is free`,
/// `Eintritt frei`), or a short clause of a free word (`Accès gratuit`, `Free`), and no
/// group's tier (`enfants gratuit`).
fn says_entry_free(clause: &str) -> bool {
    let words = clause.split_whitespace().count();
    (gleaner_event::says_free_entry(clause)
        || (words <= 3 && gleaner_event::says_free(clause))
        || all_free(clause))
        && !gleaner_event::states_free_tier(clause)
}

/// Words that say a statement is about every event (`Todas las actividades`, `Tous les
/// ateliers`, `Alle Veranstaltungen`, `Tüm etkinliklerimiz`), folded.
const ALL: [&str; 9] = ["all", "todas", "todos", "tous", "toutes", "alle", "allen", "tum", "butun"];

/// Whether a short clause (ten words at most) says every event is free: a word for all
/// ([`ALL`]) and a free word (`Todas las actividades son gratuitas`, `Alle Angebote sind
/// kostenlos`, `All library programs are free and open to everyone`).
fn all_free(clause: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(clause).to_lowercase();
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let free =
        || gleaner_event::says_free(clause) || words.windows(2).any(|w| w == ["are", "free"]);
    (words.len() <= 10 && words.first().is_some_and(|w| ALL.contains(w)) && free())
        || (words.len() <= 14 && states_default(&folded) && free())
}

/// Phrases that make a statement the default for every event, folded (`Unless otherwise
/// stated, our events are free`, `Wenn nichts anderes steht, sind unsere Anlässe gratis`,
/// `Sauf indication contraire, …`, `Aksi belirtilmedikçe …`).
const DEFAULTS: [&str; 10] = [
    "unless otherwise",
    "unless stated",
    "unless noted",
    "sauf mention contraire",
    "sauf indication contraire",
    "wenn nichts anderes",
    "wenn nicht anders",
    "sofern nicht anders",
    "salvo indicacion contraria",
    "aksi belirtilmedikce",
];

/// Whether a folded clause opens a default ([`DEFAULTS`]).
fn states_default(folded: &str) -> bool {
    DEFAULTS.iter().any(|d| folded.contains(d))
}

/// The fewest items (rows, list items, terms) of a list that may hold a page's events.
const MIN_LIST_ITEMS: usize = 3;

/// Whether there is a list or table of [`MIN_LIST_ITEMS`] items or more after a paragraph,
/// outside the page's chrome, and every such one stands in the paragraph's section ([`same_section`]): a
/// statement above the recitals' table does not speak for the concerts' table under the
/// next `<h2>`, nor an item's summary above its own short list of facts for the other
/// items.
fn lists_after_in_section(root: ElementRef<'_>, p: ElementRef<'_>) -> bool {
    let items = sel("tr, li, dt");
    let lists = sel("table, ul, ol, dl");
    let big = |l: &ElementRef<'_>| l.select(&items).take(MIN_LIST_ITEMS).count() == MIN_LIST_ITEMS;
    let mut after = root
        .select(&lists)
        .filter(|l| l.id() > p.id() && !in_chrome(*l))
        .filter(big)
        .take(200)
        .peekable();
    after.peek().is_some() && after.all(|list| same_section(p, list))
}

/// Whether a paragraph heads a list or table of its section: outside any list item or
/// cell, one of its next four element siblings is one, in the paragraph's section
/// ([`same_section`]: an `<h3>` under the `<h2>` over it does not part them).
fn heads_section_list(p: ElementRef<'_>) -> bool {
    let inside = in_item_or_cell(p);
    !inside
        && p.next_siblings()
            .filter_map(ElementRef::wrap)
            .take(4)
            .find(|e| LISTS.contains(&e.value().name()))
            .is_some_and(|list| same_section(p, list))
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
            // A heading between the paragraph and the table: the paragraph closes the
            // section above it.
            (
                "<h2>Jodlerabend</h2><p>Eintritt: Fr. 20.–, Kinder bis 16 Jahre gratis.</p>\
                 <h2>Weitere Anlässe</h2><table><tr><td>x</td></tr></table>",
                None,
            ),
        ];
        for (html, want) in cases {
            assert_eq!(stated(html), want, "{html}");
        }
    }

    #[test]
    fn free_entry_stated_above_the_list() {
        let free = |html: &str| {
            let doc = Html::parse_document(html);
            super::stated_page_free(doc.root_element())
        };
        let table = "<table><tr><td>5 juillet</td></tr><tr><td>12 juillet</td></tr>\
                     <tr><td>19 juillet</td></tr></table>";
        for (html, want) in [
            // Issue 24, page 216: a short clause at the end of the programme's intro.
            (
                format!("<p>Les concerts ont lieu le dimanche à 15h. Accès gratuit.</p>{table}"),
                true,
            ),
            // Page 251: a clause of a longer sentence, above a notice and a sub-heading.
            (
                format!(
                    "<h2>Fixtures 2026</h2><p>Home matches are played at the Recreation Ground \
                     unless marked otherwise; \
                     spectators are always welcome and admission is free.</p><div>Subs due</div>\
                     <h3>1st XI</h3>{table}"
                ),
                true,
            ),
            ("<p>Eintritt frei.</p><ul><li>x</li><li>y</li><li>z</li></ul>".to_owned(), true),
            // Every event free, in a short clause; a default with its exception.
            (
                format!("<p>Lleve su documento. Todas las actividades son gratuitas.</p>{table}"),
                true,
            ),
            (format!("<p>All our talks are free.</p>{table}"), true),
            (format!("<p>All library programs are free and open to everyone.</p>{table}"), true),
            (format!("<p>Our shows are free for all members.</p>{table}"), false),
            (format!("<p>Salvo que se indique otra cosa, la entrada es libre.</p>{table}"), true),
            // A default for every event, however its events are named.
            (
                format!(
                    "<p>Alle sind willkommen. Wenn nichts anderes steht, sind unsere Treffen                      gratis.</p>{table}"
                ),
                true,
            ),
            (format!("<p>Unless otherwise stated, our walks are free.</p>{table}"), true),
            (format!("<p>Our walks are free.</p>{table}"), false),
            (format!("<p>All welcome, free parking.</p>{table}"), false),
            // A group's tier, a price, an exception, or a hat alone: not free for all.
            (format!("<p>Gratuit pour les moins de 12 ans.</p>{table}"), false),
            (format!("<p>Entrée libre. Concert du 21 août : 5 €.</p>{table}"), false),
            (
                format!(
                    "<p>Der Eintritt ist an allen Tagen frei – mit Ausnahme des Balls.</p>{table}"
                ),
                false,
            ),
            (format!("<p>Der Eintritt ist frei (Ausnahme: Silvesterball).</p>{table}"), false),
            // An exception in brackets after another part of the clause is that part's.
            (
                format!(
                    "<p>Der Eintritt ist frei, eine Anmeldung ist nicht nötig (Ausnahme: \
                     Kochkurs).</p>{table}"
                ),
                true,
            ),
            (format!("<p>Participation libre, au chapeau.</p>{table}"), false),
            // Free entry with a hat is free, by the labels' decisions.
            (format!("<p>Entrée libre, chapeau à la sortie.</p>{table}"), true),
            // Not above a list, above another section's, in the chrome, or in an item.
            ("<p>Eintritt frei.</p><div>Open day</div>".to_owned(), false),
            (format!("<h2>Fête</h2><p>Entrée libre.</p><h2>Programme</h2>{table}"), false),
            (format!("<header><p>Admission is free.</p>{table}</header>"), false),
            (format!("<ul><li><p>Admission is free.</p>{table}</li></ul>"), false),
            // Page 192: the recitals' statement, and the concerts' table in the next
            // section.
            (
                format!("<h2>Recitals</h2><p>Admission free.</p>{table}<h2>Concerts</h2>{table}"),
                false,
            ),
            // Page 306: an item's own summary above its short list of facts.
            (
                "<div><h4>Konferans</h4><p>Katılım ücretsizdir.</p><ul><li>Saat 19.00</li>\
                 <li>Salon</li></ul></div><div><h4>Atölye</h4><p>150 TL</p><ul><li>Saat 10.00\
                 </li><li>Salon</li></ul></div>"
                    .to_owned(),
                false,
            ),
            // A free word about something else in a long clause.
            (
                format!("<p>Parking is free for visitors to the club all season long.</p>{table}"),
                false,
            ),
        ] {
            assert_eq!(free(&html), want, "{html}");
        }
    }

    #[test]
    fn a_statement_and_a_list_in_one_section() {
        let same = |html: &str| {
            let doc = Html::parse_document(html);
            let p = doc.select(&super::sel("p")).next().expect("a p");
            let list = doc.select(&super::sel("table, ul")).next().expect("a list");
            super::same_section(p, list)
        };
        // A show's price, then another section's table.
        assert!(!same(
            "<h2>Jodlerabend</h2><p>Eintritt: Fr. 20.–</p><h2>Weitere Anlässe</h2><table><tr><td>x</td></tr></table>"
        ));
        // A table, then another section's price.
        assert!(!same(
            "<h2>Programme</h2><table><tr><td>x</td></tr></table><h2>Concerts exceptionnels</h2><p>Entrée : 5 €</p>"
        ));
        // A sub-heading between them, or none.
        assert!(same(
            "<h1>Fixtures</h1><p>Admission £10</p><h2>April</h2><table><tr><td>x</td></tr></table>"
        ));
        assert!(same("<h2>Fixtures</h2><table><tr><td>x</td></tr></table><p>Admission £10</p>"));
        // Under the page's title, a later section's price is that section's.
        assert!(!same(
            "<h1>Concerts</h1><table><tr><td>x</td></tr></table><h2>Visiter le beffroi</h2><p>Entrée : 5 €</p>"
        ));
        assert!(same("<p>Admission £10</p><h2>April</h2><ul><li>x</li></ul>"));
    }

    #[test]
    fn the_booking_link_of_the_stated_price() {
        let booking = |html: &str| {
            let doc = Html::parse_document(html);
            super::stated_page_booking(doc.root_element())
        };
        assert_eq!(
            booking(
                "<p>Prix des places : CHF 25.– · AVS CHF 15.– · gratuit jusqu'à 16 ans. Billets à \
                 l'entrée ou sur <a href=\"https://billetterie.example.ch/oj\">notre billetterie \
                 en ligne</a></p><table><tr><td>x</td></tr></table>"
            )
            .as_deref(),
            Some("https://billetterie.example.ch/oj")
        );
        // No booking words, a mail link, or no stated price: none.
        assert_eq!(
            booking(
                "<p>Members free, visitors R30. <a href=\"/about\">About us</a></p><ul><li>x</li></ul>"
            ),
            None
        );
        assert_eq!(
            booking(
                "<p>Members free, visitors R30. <a href=\"mailto:a@b.example\">Book</a></p><ul><li>x</li></ul>"
            ),
            None
        );
        assert_eq!(
            booking("<p>Entrada: 10 €. <a href=\"/t\">Comprar entradas</a></p><ul><li>x</li></ul>"),
            None
        );
    }
}
