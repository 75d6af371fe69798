//! Prices and booking links written in an event's text (`Karten ab 25 €`, `Entrée
//! gratuite`, `Bilet al`); also read for structured items that name no price property.

use gleaner_event::datetext::parse_text_time;
use gleaner_event::text::collapse;
use gleaner_event::{RawEvent, RawOffer, parse_price_text};
use scraper::ElementRef;

use super::booking::is_booking_text;
use super::{BLOCKS, leaves, sel, text_of};

/// Puts a price read from text into a raw event (a free price as free).
pub(crate) fn price_into(p: &gleaner_event::PriceText, raw: &mut RawEvent) {
    if p.is_free {
        raw.is_accessible_for_free = Some("true".into());
    } else {
        let offer = RawOffer {
            low_price: Some(p.min.to_string()),
            high_price: p.max.map(|m| m.to_string()),
            currency: p.currency.map(str::to_owned),
            ..RawOffer::default()
        };
        // An offer that holds only a booking link (`Bilet al`) takes the price.
        match raw.offers.iter_mut().find(|o| !o.has_price()) {
            Some(o) => {
                o.low_price = offer.low_price;
                o.high_price = offer.high_price;
                o.currency = o.currency.take().or(offer.currency);
            }
            None => raw.offers.push(offer),
        }
    }
}

/// Whether an event states no price and no free entry of its own (a booking link alone
/// is no price), so that a price the page states for all its events is its.
pub(crate) fn priceless(raw: &RawEvent) -> bool {
    !raw.has_price() && raw.is_accessible_for_free.is_none()
}

/// The price an event's own element writes in its text: the first short line with an
/// amount and a currency (`Karten ab 25 € an der Abendkasse`, `Tarif : 9 €`), else a line
/// that says it is free (`Entrée gratuite.`). For structured items (h-event, vevent) that
/// name no price property.
pub(crate) fn price_in_text(el: ElementRef<'_>) -> Option<gleaner_event::PriceText> {
    let lines: Vec<String> = leaves(el)
        .filter(|t| t.chars().count() <= 160)
        .map(|t| gleaner_event::amounts_in_words(&t).into_owned())
        .collect();
    // A free tier on a line of its own (`Adultes 15 €` then `Enfants : gratuit`).
    let tier = lines.iter().any(|t| gleaner_event::states_free_tier(t));
    // The first line that states a price or free entry, in reading order: a free line
    // before a priced one (`Accès gratuit.` for the concerts, then `Entrée : 5 €` for
    // another event further down) is the element's own statement.
    lines.iter().find_map(|t| {
        let lower = t.to_lowercase();
        let money = t.contains(['$', '€', '£', '₺'])
            || lower
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w));
        // Swiss francs written `Fr. 12.–`: an amount the francs mark (not Friday, `Fr. 14.06.`).
        let francs = || gleaner_event::priced_range(t).is_some_and(|r| r.currency == Some("CHF"));
        let own = |p: &gleaner_event::PriceText| {
            (money || francs()) && !p.is_free && !for_vendors(t) && !bracketed_aside(t)
        };
        match parse_price_text(t).filter(own) {
            Some(mut p) => {
                // A lowest amount that no currency marks, below two or more that one does,
                // is an age, a count or a day (`Für Kinder von 4 bis 12 Jahren. … € 90,–,
                // Mitglieder € 75,–`): the marked amounts' range. (One marked amount may
                // close a range written once: `5–10 €`.)
                if let Some(r) = gleaner_event::priced_range(t)
                    && !p.min.is_zero()
                    && p.min < r.min
                    && r.max.is_some_and(|m| m > r.min)
                {
                    p = r;
                }
                if tier {
                    p.min = Default::default();
                }
                Some(p)
            }
            None => gleaner_event::says_free(t).then(free),
        }
    })
}

/// Words naming those who sell at an event, not those who come to it (`Standplatz für
/// Anbietende`, `Stands para expositores`, `emplacement exposants`), folded.
const VENDORS: [&str; 17] = [
    "standplatz",
    "standgebuhr",
    "anbietende",
    "aussteller",
    "exposant",
    "exposants",
    "emplacement",
    "emplacements",
    "stallholder",
    "stallholders",
    "vendor",
    "vendors",
    "exhibitor",
    "exhibitors",
    "expositor",
    "expositores",
    "stant",
];

/// Whether a price line is the stallholders' fee ([`VENDORS`]), not the entry.
fn for_vendors(line: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(line).to_lowercase();
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| VENDORS.contains(&w))
}

/// Whether a line's only amounts stand in brackets after words of something else, with no
/// price word (`Déplacement en car, départ 6h15 (Fr. 20.–, inscription auprès de
/// Nadia)`): the aside's price (the bus), not the event's. `Concert (entrée 10 €)` names
/// its price.
fn bracketed_aside(line: &str) -> bool {
    if !line.contains('(') || line.len() > 600 {
        return false;
    }
    let (mut inside, mut outside, mut depth) = (String::new(), String::new(), 0usize);
    for c in line.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => inside.push(c),
            _ => outside.push(c),
        }
    }
    let folded = gleaner_event::datetext::fold_diacritics(line).to_lowercase();
    gleaner_event::priced_range(&outside).is_none()
        && gleaner_event::priced_range(&inside).is_some()
        && !folded.split(|c: char| !c.is_alphanumeric()).any(|w| PRICE_WORDS.contains(&w))
        && !gleaner_event::states_free_tier(line)
}

/// The price an item writes of its own: a cell that is only a price (`$25`, `18 €`,
/// `Free`), or a short line or part of one that is (`VVK 12 € / AK 15 €` after a `<br>`,
/// `Durée 2h10 · Tarifs de 12 à 24 €`), or a longer line that lets a group in free read
/// as its tiers (`Erwachsene Fr. 15.–, Kinder Fr. 8.–, Kinder unter 4 gratis` is 0–15);
/// else free when a longer line says so (`Entrada libre hasta completar aforo`).
pub(super) fn own_price(item: ElementRef<'_>) -> Option<gleaner_event::PriceText> {
    // An amount in words counts as written in digits (`cinco euros` as `5 €`).
    let lines: Vec<String> =
        price_lines(item).map(|t| gleaner_event::amounts_in_words(&t).into_owned()).collect();
    // A free tier on a line of its own (`Adultes 15 €` then `Enfants : gratuit`).
    let tier = lines.iter().any(|t| gleaner_event::states_free_tier(t));
    let short = |t: &&String| {
        let n = t.chars().count();
        n <= 40 || (n <= 160 && gleaner_event::states_free_tier(t))
    };
    // A run of parts that each write a price (`Inscripción $60.000 · preventa $45.000
    // hasta el 30 de abril`): their range, when they give two amounts.
    let run = leaves(item)
        .filter(|t| t.contains('·'))
        .take(20)
        .filter_map(|t| priced_parts(&t))
        .find_map(|run| parse_price_text(&run).filter(|p| p.max.is_some_and(|m| m > p.min)));
    if let Some(mut p) = run {
        if tier {
            p.min = Default::default();
        }
        return Some(p);
    }
    let read = lines.iter().filter(short).find_map(|t| {
        // Free entry and something else's price (`Eintritt frei, Kaffee und Kuchen Fr.
        // 6.–`): free.
        if gleaner_event::says_free_entry(t) && !gleaner_event::states_free_tier(t) {
            return Some(free());
        }
        let lower = t.to_lowercase();
        let money = t.contains(['$', '€', '£', '₺'])
            || lower
                .split_whitespace()
                .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w))
            // A currency written as a sign before the amount (`Fr. 20.–`, `S/ 10`, `R30`).
            || gleaner_event::priced_range(t).is_some();
        let p = parse_price_text(t)?;
        (money || p.is_free && parse_text_time(t).is_none()).then_some(p)
    });
    // Else a sentence that a price word opens (`Tickets $15 include a pint`, `Biletler tam
    // 250 TL, öğrenci 150 TL`, `Kapanış konseri biletleri: öğrenciler için 100 TL, …`).
    let read = read.or_else(|| {
        lines
            .iter()
            // One sentence at a time (`…, £2 per person, raffle. Last year you raised
            // £1,840 – let's beat it!` is two).
            .filter(|t| {
                t.chars().count() <= 160
                    && sentences_of(t).len() == 1
                    && (opens_with_price_word(t) || per_person(t) || opens_with_amount(t))
            })
            .filter(|t| gleaner_event::priced_range(t).is_some())
            .find_map(|t| parse_price_text(t).filter(|p| !p.is_free))
    });
    if let Some(mut p) = read {
        if tier && !p.is_free {
            p.min = Default::default();
        }
        return Some(p);
    }
    // Or a sentence of one (`… Teams up to six. Free to play; winners take a bar tab.`).
    (leaves(item).any(|t| gleaner_event::says_free(&t))
        || lines.iter().any(|t| gleaner_event::says_free(t)))
    .then(free)
}

/// Of a line in parts (`… Kairos Live. Inscripción $60.000 · preventa $45.000 hasta el 30
/// de abril.`), the first run of two or more parts that each write an amount with a
/// currency sign, from the last sentence of its first part to the first sentence of its
/// last (`Inscripción $60.000 · preventa $45.000 hasta el 30 de abril`), when that is
/// short (100 characters at most).
fn priced_parts(line: &str) -> Option<String> {
    let signed = |p: &str| p.contains(['$', '€', '£', '₺']);
    let parts: Vec<&str> = line.split('·').map(str::trim).take(12).collect();
    let from = parts.iter().position(|p| signed(p))?;
    let len = parts[from..].iter().take_while(|p| signed(p)).count();
    if len < 2 {
        return None;
    }
    let run = &parts[from..from + len];
    let first = *sentences_of(run[0]).last()?;
    let last = *sentences_of(run[len - 1]).first()?;
    let mut text = vec![first];
    text.extend(&run[1..len - 1]);
    text.push(last);
    let text = text.join(" · ");
    (text.chars().count() <= 100).then_some(text)
}

/// A line's sentences: split at `. ` before a capital letter, a quote or an opening sign
/// (`Salón de actos. Entrada: 4 €`), not inside `Fr. 20.–`, `ca. 3 km` or `Fr. 6. März`
/// (at most 40).
fn sentences_of(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in line.match_indices(". ").take(40) {
        let next = line[i + 2..].chars().next();
        // `6. März`, `1. Mai`: a German ordinal day before its month, not a sentence's end.
        const MONTHS: [&str; 12] =
            ["jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"];
        let last = line[..i].rsplit(' ').next().unwrap_or_default();
        let month = line[i + 2..].chars().take(4).collect::<String>().to_lowercase();
        let ordinal = (1..=2).contains(&last.len())
            && last.bytes().all(|b| b.is_ascii_digit())
            && MONTHS.iter().any(|m| month.starts_with(m));
        // A number after an abbreviation (`Fr. 20.–`, `ca. 65 €`, `Kat. 2`) goes on; after
        // a word it opens a sentence (`… services. 34,95 $ adulte`).
        let abbreviation =
            (1..=4).contains(&last.chars().count()) && last.chars().all(char::is_alphabetic);
        let opens = next.is_some_and(|c| {
            c.is_uppercase() || "«“\"¡¿$€£₺".contains(c) || (c.is_ascii_digit() && !abbreviation)
        });
        if !ordinal && opens {
            out.push(line[start..i].trim());
            start = i + 2;
        }
    }
    out.push(line[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// What a paragraph's sentences say its events cost: the first sentence (of at most 200
/// characters) that a price word opens and that writes an amount next to a currency
/// (`Biletler tam 250 TL, öğrenci 150 TL.`), or that says entry is free (`Giriş
/// ücretsizdir.`, `La entrada será libre hasta completar el aforo.`); a free tier is no
/// free entry.
pub(super) fn paragraph_price<'a>(
    sentences: impl Iterator<Item = &'a str>,
) -> Option<gleaner_event::PriceText> {
    sentences.take(40).filter(|s| s.chars().count() <= 200).find_map(|s| {
        if gleaner_event::states_free_tier(s) {
            return None;
        }
        if opens_with_price_word(s) && gleaner_event::priced_range(s).is_some() {
            return parse_price_text(s).filter(|p| !p.is_free);
        }
        gleaner_event::says_free(s).then(free)
    })
}

/// Whether a sentence prices something per person (`£32 per person including supper`,
/// `€ 42,– pro Person`, `CHF 48.– pro Person`, `kişi başı 300 TL`) or says what an amount
/// includes right after it (`£22 including a souvenir glass`).
fn per_person(sentence: &str) -> bool {
    const PER_PERSON: [&str; 7] = [
        "per person",
        "pro person",
        "par personne",
        "por persona",
        "kisi basi",
        "per head",
        "pro kopf",
    ];
    // Or what the amount includes (`£22 including a souvenir glass`, `€ 39,– inkl. Buffet`).
    const INCLUDING: [&str; 6] = ["including", "incl.", "inkl.", "inklusive", "incluye", "dahil"];
    let folded = gleaner_event::datetext::fold_diacritics(sentence).to_lowercase();
    PER_PERSON.iter().any(|p| folded.contains(p))
        || INCLUDING.iter().any(|w| {
            folded.match_indices(w).take(4).any(|(i, _)| {
                let before = folded[..i].trim_end();
                before.ends_with(|c: char| {
                    c.is_ascii_digit() || matches!(c, '$' | '€' | '£' | '₺' | '–' | '-')
                })
            })
        })
}

/// Whether a line opens with an amount next to its currency (`$20 members / $32
/// non-members (includes entry)`, `18 € Eintritt, Abendkasse`).
fn opens_with_amount(line: &str) -> bool {
    let head: Vec<&str> = line.split_whitespace().take(2).collect();
    let head = head.join(" ");
    head.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '$' | '€' | '£' | '₺'))
        && gleaner_event::priced_range(&head).is_some()
}

/// Words that open a sentence about an event's price, in the five languages, folded.
const PRICE_WORDS: [&str; 51] = [
    "tickets",
    "ticket",
    "admission",
    "entry",
    "cover",
    "price",
    "prices",
    "tarif",
    "tarifs",
    "prix",
    "entree",
    "paf",
    "billet",
    "billets",
    "eintritt",
    "karten",
    "preis",
    "preise",
    "kostenbeitrag",
    "teilnahmegebuhr",
    "entrada",
    "entradas",
    "precio",
    "precios",
    "billete",
    "billetes",
    "boleto",
    "boletos",
    "cuota",
    "bilet",
    "biletler",
    "biletleri",
    "giris",
    "fiyat",
    "fiyati",
    "ucret",
    "kosten",
    // What a place or a share costs (`Boleta $45.000`, `Inversión: $380.000 por pareja`,
    // `Adhesión $5.000`, `Coût : 15 $`, `Exam fee $15`, `katılım ücreti 600 TL`).
    "boleta",
    "boletas",
    "costo",
    "coste",
    "cout",
    "cost",
    "fee",
    "fees",
    "inversion",
    "inscripcion",
    "adhesion",
    "aporte",
    "ucreti",
    "beitrag",
];

/// Whether one of a sentence's first three words is a price word ([`PRICE_WORDS`]).
fn opens_with_price_word(sentence: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(sentence).to_lowercase();
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(3)
        .any(|w| PRICE_WORDS.contains(&w))
}

/// Free entry, as a price line reads it.
fn free() -> gleaner_event::PriceText {
    gleaner_event::PriceText {
        min: Default::default(),
        max: Some(Default::default()),
        currency: None,
        is_free: true,
    }
}

/// An event element's booking link (`Réserver`, `Vorverkauf`, `Bilet al`).
pub(crate) fn booking_link(el: ElementRef<'_>) -> Option<String> {
    el.select(&sel("a[href]"))
        .find(|a| is_booking_text(&text_of(*a)))
        .and_then(|a| a.value().attr("href"))
        .map(str::trim)
        .filter(|h| !h.is_empty() && !h.starts_with('#'))
        .map(str::to_owned)
}

/// An item's short text lines: its smallest blocks split at `<br>` and at ` · `, ` | `
/// separators, in order.
pub(super) fn price_lines(item: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| el.select(&blocks).all(|b| b.id() == el.id()))
        .flat_map(|el| {
            let mut lines = vec![String::new()];
            for node in el.descendants() {
                if let Some(t) = node.value().as_text() {
                    lines.last_mut().expect("one line at least").push_str(t);
                } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
                    lines.push(String::new());
                }
            }
            lines
                .into_iter()
                .flat_map(|l| l.split(['·', '|', '•']).map(collapse).collect::<Vec<_>>())
                // And a line's sentences (`Salón de actos. Entrada: 4 €; menores, 2 €.`).
                .flat_map(|l| {
                    let mut all = vec![l.clone()];
                    if l.contains(". ") {
                        all.extend(sentences_of(&l).into_iter().map(str::to_owned));
                    }
                    all
                })
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
        })
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    use super::own_price;

    /// The first `<div>`'s own price: min, max, currency, free.
    fn own(html: &str) -> Option<(String, Option<String>, Option<&'static str>, bool)> {
        let doc = Html::parse_fragment(html);
        let div = doc.select(&super::sel("div")).next().expect("a div");
        own_price(div)
            .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency, p.is_free))
    }

    /// The price a section's text states, in reading order: min, max, free.
    fn in_text(html: &str) -> Option<(String, Option<String>, bool)> {
        let doc = Html::parse_fragment(html);
        let div = doc.select(&super::sel("div")).next().expect("a div");
        super::price_in_text(div)
            .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.is_free))
    }

    #[test]
    fn a_run_of_priced_parts_and_cost_words() {
        let range =
            |a: &str, b: &str, c: &'static str| Some((a.into(), Some(b.into()), Some(c), false));
        assert_eq!(
            own(
                "<div><p>Talleres y conciertos todo el día. Cuota 25 € · socios 18 € hasta el 1 de \
                 mayo · Plazas limitadas</p></div>"
            ),
            range("18", "25", "EUR")
        );
        assert_eq!(
            own("<div><p>Un fin de semana en la sierra con guías. Inversión: 210 € con el \
                 alojamiento y las comidas en la casa rural.</p></div>"),
            range("210", "210", "EUR")
        );
        assert_eq!(
            own(
                "<div><p>On se retrouve au chalet. Coût de la sortie : 12 € les adultes et 6 € les enfants.</p></div>"
            ),
            range("6", "12", "EUR")
        );
    }

    #[test]
    fn the_first_price_statement_in_reading_order() {
        let free = Some(("0".to_owned(), Some("0".to_owned()), true));
        // Free entry stated before another event's price further down.
        assert_eq!(
            in_text(
                "<div><p>Les concerts ont lieu les dimanches à 15h. Accès gratuit.</p>\
                 <table><tr><td>5 juillet</td></tr></table>\
                 <p>Carillon aux chandelles à 21h30. Entrée : 5 € (gratuit pour les moins de 12 ans).</p></div>"
            ),
            free
        );
        // A priced line first, a free tier on a later line.
        assert_eq!(
            in_text("<div><p>Adultes 15 €</p><p>Enfants : gratuit</p></div>"),
            Some(("0".to_owned(), Some("15".to_owned()), false))
        );
        assert_eq!(
            in_text("<div><p>Tarif : 9 €</p><p>Entrée libre au bar.</p></div>").map(|p| p.0),
            Some("9".to_owned())
        );
        assert_eq!(in_text("<div><p>Kostenlose Parkplätze.</p></div>"), None);
        // Ages, counts and days before the marked amounts.
        assert_eq!(
            in_text(
                "<div><p>Für Kinder von 6 bis 10 Jahren. Drei Vormittage. € 60,–, Mitglieder € 45,–.</p></div>"
            ),
            Some(("45".to_owned(), Some("60".to_owned()), false))
        );
        // A range closed by its one currency sign stays.
        assert_eq!(
            in_text("<div><p>Eintritt 5–10 €</p></div>"),
            Some(("5".to_owned(), Some("10".to_owned()), false))
        );
    }

    #[test]
    fn swiss_francs_written_fr() {
        let some = |min: &str, max: &str| Some((min.to_owned(), Some(max.to_owned()), false));
        assert_eq!(
            in_text("<div><p>Kaffee und Kuchen. Erwachsene Fr. 12.–, Kinder Fr. 5.–</p></div>"),
            some("5", "12")
        );
        // Friday, not francs.
        assert_eq!(in_text("<div><p>Fr. 14.06. Offene Bühne</p></div>"), None);
    }

    #[test]
    fn a_bracketed_asides_price_is_not_the_events() {
        assert_eq!(
            in_text("<div><p>Coach to the final, leaving 6.15am (£20, book with Sam).</p></div>"),
            None
        );
        let ten = Some(("10".to_owned(), Some("10".to_owned()), false));
        assert_eq!(in_text("<div><p>Concert de Noël (entrée 10 €).</p></div>"), ten);
        assert_eq!(in_text("<div><p>Carol concert, £10 (tea included).</p></div>"), ten);
    }

    #[test]
    fn the_stallholders_fee_is_no_entry_price() {
        for html in [
            "<div><p>Flohmarkt mit 40 Ständen.</p><p>Standplatz für Anbietende: 15 €</p></div>",
            "<div><p>Brocante : emplacement exposants 3 m, 12 €.</p></div>",
            "<div><p>Craft fair. Stallholders £20 per table.</p></div>",
        ] {
            assert_eq!(in_text(html), None, "{html}");
        }
        assert_eq!(
            in_text("<div><p>Entrée libre.</p><p>Emplacement exposants : 12 €</p></div>"),
            Some(("0".to_owned(), Some("0".to_owned()), true))
        );
    }

    #[test]
    fn a_lines_sentences() {
        assert_eq!(
            super::sentences_of("Türöffnung 18.30 Uhr. Eintritt Fr. 20.–, Kinder bis 16 Fr. 10.–"),
            ["Türöffnung 18.30 Uhr", "Eintritt Fr. 20.–, Kinder bis 16 Fr. 10.–"]
        );
        assert_eq!(
            super::sentences_of("Salón de actos. Entrada: 4 €; menores, 2 €."),
            ["Salón de actos", "Entrada: 4 €; menores, 2 €."]
        );
        assert_eq!(super::sentences_of("Fr. 6. März. Konzert"), ["Fr. 6. März", "Konzert"]);
        assert_eq!(
            super::sentences_of("Entre les deux services. 34,95 $ adulte, 17,50 $ enfant."),
            ["Entre les deux services", "34,95 $ adulte, 17,50 $ enfant."]
        );
        assert_eq!(
            super::sentences_of("DJ Marisol from 6. Tickets $15"),
            ["DJ Marisol from 6", "Tickets $15"]
        );
    }

    #[test]
    fn a_paragraphs_price() {
        let read = |t: &str| {
            super::paragraph_price(t.split(". "))
                .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency, p.is_free))
        };
        let free = Some(("0".to_owned(), Some("0".to_owned()), None, true));
        assert_eq!(
            read(
                "Sema ayinleri cumartesi 20.00'de. Giriş ücretsizdir, kapılar 19.30'da açılacaktır"
            ),
            free
        );
        assert_eq!(
            read("Cimri bu akşam 20.30'da sahnede. Biletler tam 250 TL, öğrenci 150 TL."),
            Some(("150".to_owned(), Some("250".to_owned()), Some("TRY"), false))
        );
        assert_eq!(read("La entrada será libre hasta completar el aforo."), free);
        // A free tier, or a price that no price word opens, says nothing.
        assert_eq!(read("Katılım ücreti 150 TL, lise öğrencileri ücretsiz."), None);
        assert_eq!(read("Ahmet Ürkmez — Körfez (LP, 1.850 TL) satışta."), None);
    }

    #[test]
    fn a_booking_link_alone_is_no_price() {
        let mut raw = gleaner_event::RawEvent::default();
        raw.set_ticket_url("https://tickets.example/1".into());
        assert!(super::priceless(&raw));
        let p = gleaner_event::parse_price_text("Tam: 250 TL").expect("a price");
        super::price_into(&p, &mut raw);
        assert!(!super::priceless(&raw));
        assert_eq!(raw.offers.len(), 1);
        assert_eq!(raw.offers[0].url.as_deref(), Some("https://tickets.example/1"));
        assert_eq!(raw.offers[0].low_price.as_deref(), Some("250"));
        let free = gleaner_event::RawEvent {
            is_accessible_for_free: Some("true".into()),
            ..Default::default()
        };
        assert!(!super::priceless(&free));
    }

    #[test]
    fn an_items_own_price() {
        let priced =
            |a: &str, b: &str, c: &'static str| Some((a.into(), Some(b.into()), Some(c), false));
        let cases = [
            ("<div><p>Konzert</p><p>18 €</p></div>", priced("18", "18", "EUR")),
            // A longer line with a free tier reads as its tiers.
            (
                "<div><p>Pfadi-Zmorge</p><p>Erwachsene Fr. 15.–, Kinder Fr. 8.–, Kinder unter 4 gratis</p></div>",
                priced("0", "15", "CHF"),
            ),
            (
                "<div><p>Eintritt Fr. 20.–, Kinder bis 16 Jahre gratis.</p></div>",
                priced("0", "20", "CHF"),
            ),
            (
                "<div><p>Verkostungsglas € 8,– (gilt an beiden Tagen), Kinder frei.</p></div>",
                priced("0", "8", "EUR"),
            ),
            ("<div><p>Visitors R20</p></div>", priced("20", "20", "ZAR")),
            (
                "<div><p>Eintritt frei, Kaffee und Kuchen Fr. 6.–</p></div>",
                Some(("0".into(), Some("0".into()), None, true)),
            ),
            ("<div><p>Fr. 6. März</p><p>Konzert</p></div>", None),
            ("<div><p>Entrée : Fr. 12.–</p></div>", priced("12", "12", "CHF")),
            (
                "<div><p>Entrada libre hasta completar aforo.</p></div>",
                Some(("0".into(), Some("0".into()), None, true)),
            ),
            // A sentence that a price word opens.
            (
                "<div><p>First pours of our spring IPA. Tickets $15 include a pint and a logo glass.</p></div>",
                priced("15", "15", "$"),
            ),
            (
                "<div><p>Molière'in komedisi bu akşam sahnede. Biletler tam 250 TL, öğrenci 150 TL.</p></div>",
                priced("150", "250", "TRY"),
            ),
            (
                "<div><p>Kapanış konseri biletleri: öğrenciler için 100 TL, diğer katılımcılar için 250 TL.</p></div>",
                priced("100", "250", "TRY"),
            ),
            (
                "<div><p>A leisurely evening run up the valley. £32 per person including the supper and a pint.</p></div>",
                priced("32", "32", "GBP"),
            ),
            (
                "<div><p>Bouldering league</p><p>$20 members / $32 non-members (includes entry)</p></div>",
                priced("20", "32", "$"),
            ),
            (
                "<div><p>Teams of up to six, £2 per person, raffle. Last year you raised £1,840 – let's beat it!</p></div>",
                priced("2", "2", "GBP"),
            ),
            (
                "<div><p>Türöffnung 18.30 Uhr mit Festwirtschaft. Eintritt Fr. 20.–, Kinder bis 16 Fr. 10.–</p></div>",
                priced("10", "20", "CHF"),
            ),
            (
                "<div><p>Ten ales on the bar car. Over-18s only, £22 including a souvenir glass.</p></div>",
                priced("22", "22", "GBP"),
            ),
            // A sentence about something else's price.
            (
                "<div><p>Five days of skating and crafts. Early drop-off from 8:00 AM for $5 a day.</p></div>",
                None,
            ),
            (
                "<div><p>Six rounds. Teams up to six. Free to play; winners take home a $50 bar tab.</p></div>",
                Some(("0".into(), Some("0".into()), None, true)),
            ),
            // A long line with no tier says no price.
            (
                "<div><p>Der Verein feiert sein 40-jähriges Bestehen, die Kasse öffnet um 18 Uhr, Getränke ab 4 €.</p></div>",
                None,
            ),
        ];
        for (html, want) in cases {
            assert_eq!(own(html), want, "{html}");
        }
    }
}
