//! Prices and booking links written in an event's text (`Karten ab 25 €`, `Entrée
//! gratuite`, `Bilet al`); also read for structured items that name no price property.

use gleaner_event::text::collapse;
use gleaner_event::{RawEvent, RawOffer, parse_price_text};
use scraper::ElementRef;

use super::words::TICKET_WORDS;
use super::{BLOCKS, leaves, sel, text_of};

/// Puts a price read from text into a raw event (a free price as free).
pub(crate) fn price_into(p: &gleaner_event::PriceText, raw: &mut RawEvent) {
    if p.is_free {
        raw.is_accessible_for_free = Some("true".into());
    } else {
        raw.offers.push(RawOffer {
            low_price: Some(p.min.to_string()),
            high_price: p.max.map(|m| m.to_string()),
            currency: p.currency.map(str::to_owned),
            ..RawOffer::default()
        });
    }
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
    lines
        .iter()
        .find_map(|t| {
            let lower = t.to_lowercase();
            let money = t.contains(['$', '€', '£', '₺'])
                || lower
                    .split(|c: char| !c.is_alphanumeric())
                    .any(|w| ["tl", "eur", "usd", "gbp", "try", "chf"].contains(&w));
            parse_price_text(t).filter(|p| money && !p.is_free)
        })
        .map(|mut p| {
            if tier {
                p.min = Default::default();
            }
            p
        })
        .or_else(|| {
            lines.iter().any(|t| gleaner_event::says_free(t)).then_some(gleaner_event::PriceText {
                min: Default::default(),
                max: Some(Default::default()),
                currency: None,
                is_free: true,
            })
        })
}

/// An event element's booking link (`Réserver`, `Vorverkauf`, `Bilet al`).
pub(crate) fn booking_link(el: ElementRef<'_>) -> Option<String> {
    el.select(&sel("a[href]"))
        .find(|a| {
            TICKET_WORDS.contains(&gleaner_event::datetext::fold_diacritics(&text_of(*a)).as_str())
        })
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
                        all.extend(l.split(". ").map(|s| s.trim().to_owned()));
                    }
                    all
                })
                .filter(|t| !t.is_empty())
                .collect::<Vec<_>>()
        })
}
