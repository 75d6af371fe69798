//! A site's address that is a post-office box (`P.O. Box 318`, `Postfach 31`, `BP 42`,
//! `Case postale 12`, `Apartado 55`, `Casilla 120`, `Posta Kutusu 8`): where the
//! organisation takes its mail, never where its events are held. Its town still is.

use gleaner_event::datetext::fold_diacritics;

/// Labels that open a post-office box's number, folded and lower-cased, without dots.
const BOX_LABELS: &[&str] = &[
    "po box",
    "p o box",
    "post office box",
    "postfach",
    "bp",
    "b p",
    "boite postale",
    "case postale",
    "apartado",
    "apartado de correos",
    "apartado postal",
    "casilla",
    "casilla de correo",
    "posta kutusu",
    "pk",
];

/// Whether one part of an address is a post-office box: a box label, then its number
/// (`P.O. Box 318`, `Postfach 10 02 31`, `B.P. 42`, `Apdo. 55` is not read).
pub(super) fn is_po_box(part: &str) -> bool {
    let folded = fold_diacritics(part.trim()).to_lowercase().replace('.', " ");
    let words: Vec<&str> = folded.split_whitespace().collect();
    let Some(first_digit) = words.iter().position(|w| w.starts_with(|c: char| c.is_ascii_digit()))
    else {
        return false;
    };
    let label = words[..first_digit].join(" ");
    let number = words[first_digit..].iter().all(|w| w.chars().all(|c| c.is_ascii_digit()));
    number && words.len() - first_digit <= 3 && BOX_LABELS.contains(&label.as_str())
}

/// A site's address without its post-office box (`P.O. Box 318, Port Avery, OH 44871` →
/// `Port Avery, OH 44871`): the town its events are in; `None` when the address holds no
/// box, or nothing after it.
pub(super) fn town_of_box_address(address: &str) -> Option<String> {
    let parts: Vec<&str> = address.split(", ").map(str::trim).collect();
    let at = parts.iter().position(|p| is_po_box(p))?;
    let rest = &parts[at + 1..];
    (!rest.is_empty()).then(|| rest.join(", "))
}

/// The town and postal code of a box address's rest written postal code first (`1373
/// Chavornay`, `8499 Talwil ZH`, `3999 Talwil, Schweiz`), without a Swiss canton's code
/// after the town; `None` for other ways of writing it (`Millbrook, OH 44999`).
pub(super) fn coded_town(rest: &str) -> Option<(String, String)> {
    let (town, code) = super::venue::site_town(rest)?;
    let town = match town.rsplit_once(' ') {
        Some((name, canton))
            if code.len() == 4
                && canton.len() == 2
                && canton.bytes().all(|b| b.is_ascii_uppercase()) =>
        {
            name.to_owned()
        }
        _ => town,
    };
    Some((town, code))
}

#[cfg(test)]
mod tests {
    use super::{is_po_box, town_of_box_address};

    #[test]
    fn boxes_in_the_five_languages() {
        for part in [
            "P.O. Box 318",
            "PO Box 12",
            "Postfach 31",
            "Postfach 10 02 31",
            "BP 42",
            "B.P. 7",
            "Case postale 120",
            "Apartado de correos 55",
            "Casilla 120",
            "Posta Kutusu 8",
        ] {
            assert!(is_po_box(part), "{part}");
        }
        for part in ["Box Hill Road 3", "Postgasse 4", "12 Market Street", "BP Station", "Bp"] {
            assert!(!is_po_box(part), "{part}");
        }
    }

    #[test]
    fn a_box_address_keeps_its_town() {
        assert_eq!(
            town_of_box_address("P.O. Box 318, Millbrook, OH 44999").as_deref(),
            Some("Millbrook, OH 44999")
        );
        assert_eq!(town_of_box_address("Postfach 12, 3999 Talwil").as_deref(), Some("3999 Talwil"));
        assert_eq!(town_of_box_address("12 Market Street, Millbrook"), None);
        let coded = |s: &str| super::coded_town(s);
        assert_eq!(coded("1373 Talwil"), Some(("Talwil".to_owned(), "1373".to_owned())));
        assert_eq!(
            coded("8499 Talwil ZH, Schweiz"),
            Some(("Talwil".to_owned(), "8499".to_owned()))
        );
        assert_eq!(coded("Millbrook, OH 44999"), None);
        assert_eq!(town_of_box_address("Millbrook, PO Box 9"), None);
    }

    #[test]
    fn a_box_in_the_footer_is_no_venue() {
        let html = "<html lang=\"en\"><body><main><h1>Club calendar</h1>\
            <div class=\"ev\"><h3>Spring Swap Meet</h3><p>Saturday, April 18, 2026, 9 AM</p></div>\
            <div class=\"ev\"><h3>Summer Picnic</h3><p>Saturday, June 20, 2026, 1 PM</p></div>\
            <div class=\"ev\"><h3>Autumn Talk</h3><p>Thursday, October 8, 2026, 7 PM</p></div>\
            </main><footer><p>Millbrook Rowing Club · P.O. Box 318 · Millbrook, OH 44999</p>\
            </footer></body></html>";
        let doc = scraper::Html::parse_document(html);
        let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
        let day = chrono::NaiveDate::from_ymd_opt(2026, 3, 1);
        super::super::read(&doc, day, &mut candidates, &mut diagnostics);
        assert_eq!(candidates.len(), 3);
        for c in candidates {
            assert_eq!(c.raw.location_name, None);
            assert_eq!(c.raw.address_text.as_deref(), Some("Millbrook, OH 44999"));
        }
    }

    #[test]
    fn a_stated_street_takes_the_box_town() {
        let html = "<html lang=\"en\"><body><main><h1>Club calendar</h1>\
            <p>Unless a listing says otherwise, we meet at the <strong>Grange Hall</strong>, \
            40 S. Elm Street. Visitors welcome.</p>\
            <div class=\"ev\"><h3>Spring Swap Meet</h3><p>Saturday, April 18, 2026, 9 AM</p></div>\
            <div class=\"ev\"><h3>Summer Picnic</h3><p>Saturday, June 20, 2026, 1 PM</p></div>\
            <div class=\"ev\"><h3>Autumn Talk</h3><p>Thursday, October 8, 2026, 7 PM</p></div>\
            </main><footer><p>Millbrook Rowing Club · P.O. Box 318 · Millbrook, OH 44999</p>\
            </footer></body></html>";
        let doc = scraper::Html::parse_document(html);
        let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
        let day = chrono::NaiveDate::from_ymd_opt(2026, 3, 1);
        super::super::read(&doc, day, &mut candidates, &mut diagnostics);
        assert_eq!(candidates.len(), 3);
        for c in candidates {
            assert_eq!(c.raw.location_name.as_deref(), Some("Grange Hall"));
            assert_eq!(
                c.raw.address_text.as_deref(),
                Some("40 S. Elm Street, Millbrook, OH 44999")
            );
        }
    }
}
