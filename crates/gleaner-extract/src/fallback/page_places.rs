//! The addresses a page gives its places once, apart from its events: a heading or bold
//! name with its address on the next line (`<h2>Centro de Visitantes El Robledal</h2><p>Ctra.
//! de la Granja, km 3 · 40109 Valdeprados (Segovia)</p>`, `<strong>Nazım Hikmet Kültür
//! Merkezi</strong><br>Cumhuriyet Cad. No: 88, Nilüfer Vadisi / Bursa`), or a line `Name:
//! address`. An event placed by that name alone is at that address.

use gleaner_event::RawEvent;
use gleaner_event::datetext::{fold_diacritics, parse_text_time};
use scraper::ElementRef;

use super::place_line::numbered_street;
use super::venue::br_line_list;
use super::{sel, text_of};

/// The page's places named with their address: (name, address) pairs, in page order.
pub(super) fn page_places(doc: ElementRef<'_>) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut add = |name: &str, address: &str| {
        if let Some(address) = address_of(address)
            && is_place_name(name)
            && !out.iter().any(|(n, _)| n == name)
        {
            out.push((name.trim().to_owned(), address));
        }
    };
    for el in doc.select(&sel("h2, h3, h4, h5, strong, b")).take(300) {
        if el.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "table") {
            continue;
        }
        let name = text_of(el);
        if el.value().name().starts_with('h') {
            // A heading: its address is the next block's first line.
            if let Some(next) = el.next_siblings().find_map(ElementRef::wrap) {
                let lines = br_line_list(next);
                if let Some(first) = lines.first() {
                    add(&name, first);
                }
            }
        } else if let Some(block) = el.parent().and_then(ElementRef::wrap) {
            // A bold name: its address is the block's next line.
            let lines = br_line_list(block);
            if let Some(at) = lines.iter().position(|l| *l == name)
                && let Some(next) = lines.get(at + 1)
            {
                add(&name, next);
            }
        }
    }
    // `Konservatuvar Konser Salonu: Çamlıca Mah. Şehit Er Sok. No: 4, Nilüfer Vadisi`.
    for block in doc.select(&sel("p, li, div, address")).take(500) {
        if block.select(&sel("p, li, div, address")).next().is_some() {
            continue;
        }
        for line in br_line_list(block) {
            if let Some((name, address)) = line.split_once(": ") {
                add(name, address);
            }
        }
    }
    out
}

/// Whether a text is a place's name: capitalised, one to eight words, without a digit,
/// a colon or a sentence's stop.
fn is_place_name(name: &str) -> bool {
    let name = name.trim();
    (1..=8).contains(&name.split_whitespace().count())
        && name.chars().next().is_some_and(char::is_uppercase)
        && !name.chars().any(|c| c.is_ascii_digit() || matches!(c, ':' | '.' | '!' | '?'))
}

/// A line read as an address (its parts joined by `, `; phone numbers and e-mail
/// addresses left out): a street with its house number or kilometre (`Cumhuriyet Cad. No:
/// 88`, `Ctra. de la Granja, km 3`), or a postcode before a town; no time. `None`
/// otherwise.
fn address_of(line: &str) -> Option<String> {
    if line.split_whitespace().count() > 16 || parse_text_time(line).is_some() {
        return None;
    }
    let parts: Vec<&str> = line
        .split(['·', '|'])
        .map(str::trim)
        .filter(|p| {
            !p.is_empty() && !p.contains('@') && p.chars().filter(char::is_ascii_digit).count() < 7
        })
        .collect();
    let pieces: Vec<&str> = parts.iter().flat_map(|p| p.split(", ")).map(str::trim).collect();
    let kilometre = |p: &str| {
        let w: Vec<&str> = p.split_whitespace().collect();
        matches!(w.as_slice(), ["km", n] if n.chars().all(|c| c.is_ascii_digit() || c == ','))
    };
    let postcode_town = |p: &str| {
        let w: Vec<&str> = p.split_whitespace().collect();
        w.len() >= 2
            && (4..=5).contains(&w[0].len())
            && w[0].bytes().all(|b| b.is_ascii_digit())
            && w[1].chars().next().is_some_and(char::is_alphabetic)
    };
    // `Çamlıca Mah. Şehit Er Sok. No: 4`: a house number after its marker.
    let marked = |p: &str| {
        let w: Vec<&str> = p.split_whitespace().collect();
        w.windows(2).any(|x| {
            matches!(x[0], "No:" | "No." | "Nº" | "Nr." | "nº")
                && x[1].chars().next().is_some_and(|c| c.is_ascii_digit())
        })
    };
    let numbered = |p: &str| numbered_street(p) || kilometre(p) || postcode_town(p) || marked(p);
    // The name of a street opens the address, a town or postcode ends it.
    let opens = pieces.first().is_some_and(|p| p.chars().next().is_some_and(char::is_alphabetic));
    (opens && pieces.len() >= 2 && pieces.iter().any(|p| numbered(p))).then(|| parts.join(", "))
}

/// Gives the events placed by a name alone the address the page gives that name; a room
/// written after the name (`Nazım Hikmet Kültür Merkezi – Büyük Salon`) keeps it the
/// same place.
pub(super) fn place_at_page_address(places: &[(String, String)], raw: &mut RawEvent) {
    if raw.address_text.is_some() {
        return;
    }
    let place = match (&raw.location_name, &raw.location_text) {
        (Some(name), _) => name,
        (None, Some(text)) if !text.contains(',') => text,
        _ => return,
    };
    let fold = |s: &str| fold_diacritics(s.trim()).to_lowercase();
    let place = fold(place);
    let found = places.iter().find(|(name, _)| {
        let name = fold(name);
        place.strip_prefix(&name).is_some_and(|rest| {
            rest.is_empty() || [" – ", " - ", " — ", ", ", " ("].iter().any(|s| rest.starts_with(s))
        })
    });
    if let Some((_, address)) = found {
        raw.address_text = Some(address.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::{page_places, place_at_page_address};
    use gleaner_event::RawEvent;
    use scraper::Html;

    fn places(html: &str) -> Vec<(String, String)> {
        page_places(Html::parse_document(html).root_element())
    }

    fn pair(a: &str, b: &str) -> (String, String) {
        (a.to_owned(), b.to_owned())
    }

    #[test]
    fn places_named_with_their_address() {
        // Issue 24, pages 220 and 246: a heading, a bold name and a labelled line.
        assert_eq!(
            places(
                "<h2>Centro de Visitantes El Robledal</h2><p>Ctra. de la Granja, km 3 · 40109 \
                 Valdeprados (Segovia)<br>Tel. 921 00 00 00</p>"
            ),
            vec![pair(
                "Centro de Visitantes El Robledal",
                "Ctra. de la Granja, km 3, 40109 Valdeprados (Segovia)"
            )]
        );
        assert_eq!(
            places(
                "<footer><p><strong>Nazım Hikmet Kültür Merkezi</strong><br>Cumhuriyet Cad. No: \
                 88, Nilüfer Vadisi / Bursa</p><p>Konservatuvar Konser Salonu: Çamlıca Mah. \
                 Şehit Er Sok. No: 4, Nilüfer Vadisi / Bursa</p></footer>"
            ),
            vec![
                pair(
                    "Nazım Hikmet Kültür Merkezi",
                    "Cumhuriyet Cad. No: 88, Nilüfer Vadisi / Bursa"
                ),
                pair(
                    "Konservatuvar Konser Salonu",
                    "Çamlıca Mah. Şehit Er Sok. No: 4, Nilüfer Vadisi / Bursa"
                ),
            ]
        );
        // A heading over a sentence, a time or a date is no place with its address.
        assert!(
            places("<h2>Horario</h2><p>De martes a domingo, de 19.00 a 0.00 h.</p>").is_empty()
        );
        assert!(places("<h3>Freitag, 29. Mai</h3><p>18:30 Uhr Antreten</p>").is_empty());
        assert!(places("<p>Preise: Erwachsene 12, Kinder 6</p>").is_empty());
    }

    #[test]
    fn an_event_named_by_its_place_takes_its_address() {
        let places = vec![pair("Nazım Hikmet Kültür Merkezi", "Cumhuriyet Cad. No: 88")];
        let mut raw = RawEvent {
            location_text: Some("Nazım Hikmet Kültür Merkezi – Büyük Salon".into()),
            ..RawEvent::default()
        };
        place_at_page_address(&places, &mut raw);
        assert_eq!(raw.address_text.as_deref(), Some("Cumhuriyet Cad. No: 88"));
        let mut other =
            RawEvent { location_text: Some("Nazım Hikmet Parkı".into()), ..RawEvent::default() };
        place_at_page_address(&places, &mut other);
        assert_eq!(other.address_text, None);
    }
}
