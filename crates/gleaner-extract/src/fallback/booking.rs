//! Whether a link's text books the event: a short link that names tickets
//! (`Karten online kaufen`, `Comprar boletas`, `Entradas anticipadas`) or opens with a
//! booking verb (`Reservar este pase`), and is not a page about tickets (`Ticket info`,
//! `Tickets & Preise`).

use gleaner_event::datetext::fold_diacritics;

use super::words::TICKET_WORDS;

/// Words that name tickets or a box office, folded.
const TICKET_NOUNS: &[&str] = &[
    "tickets",
    "ticket",
    "karten",
    "eintrittskarten",
    "billets",
    "billet",
    "billetterie",
    "entradas",
    "boletos",
    "boletas",
    "bilet",
    "biletler",
    "biletleri",
    "biletini",
    "biletinizi",
];

/// Verbs that book whatever follows them, folded (`Reservar este pase`, `Jetzt buchen`).
const BOOKING_VERBS: &[&str] = &["reservar", "reserver", "reservieren", "buchen", "comprar"];

/// English verbs that book only when nothing but filler follows (`Book now`, `Buy
/// online`), as `Book club` or `Reserve walk` name things.
const PLAIN_VERBS: &[&str] = &["book", "buy", "reserve"];

/// Words that may follow a plain verb in a booking link, folded.
const FILLERS: &[&str] = &[
    "now", "online", "here", "your", "a", "an", "the", "seat", "seats", "place", "places", "spot",
    "today",
];

/// Words of a link to a page about tickets or prices, or to a table, rather than a
/// booking, folded.
const INFO_WORDS: &[&str] = &[
    "info",
    "infos",
    "information",
    "informations",
    "informationen",
    "informacion",
    "details",
    "preise",
    "prices",
    "pricing",
    "tarifs",
    "precios",
    "faq",
    "conditions",
    "agb",
    "bilgi",
    "fiyatlar",
    "hinweise",
    // A table at the bar or restaurant is no ticket (`Reservar mesa`).
    "mesa",
    "table",
    "tisch",
    "masa",
];

/// The longest booking link text, in words.
const MAX_WORDS: usize = 6;

/// Whether a link's text books the event it sits with.
pub(super) fn is_booking_text(text: &str) -> bool {
    let folded = fold_diacritics(text);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > MAX_WORDS {
        return false;
    }
    if TICKET_WORDS.contains(&words.join(" ").as_str()) {
        return true;
    }
    if words.iter().any(|w| INFO_WORDS.contains(w)) {
        return false;
    }
    words.iter().any(|w| TICKET_NOUNS.contains(w))
        || words.iter().any(|w| BOOKING_VERBS.contains(w))
        || (PLAIN_VERBS.contains(&words[0]) && words[1..].iter().all(|w| FILLERS.contains(w)))
}

#[cfg(test)]
mod tests {
    use super::is_booking_text;

    #[test]
    fn booking_link_texts() {
        for (text, booking) in [
            ("Tickets", true),
            ("Réserver", true),
            ("Karten online kaufen", true),
            ("Comprar boletas", true),
            ("Entradas anticipadas", true),
            ("Reservar este pase", true),
            ("Buy tickets from the Bruisers", true),
            ("Festival tickets", true),
            ("Book now", true),
            ("Jetzt buchen", true),
            ("Bilet satın al", true),
            ("Ticket info", false),
            ("Tickets & Preise", false),
            ("Book club", false),
            ("Reservar mesa", false),
            ("Book a table", false),
            ("Reserve walk", false),
            ("More info", false),
            ("Details", false),
            ("Tickets are sold by the festival only at the gate", false),
            ("", false),
        ] {
            assert_eq!(is_booking_text(text), booking, "{text}");
        }
    }
}
