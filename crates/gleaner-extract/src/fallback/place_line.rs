//! An event's place written in its running text rather than in a field of its own: after
//! its time in a dotted line (`7 PM · Blue Heron Coffee, 9 Front St, Riverton`) or after a
//! placing word in a sentence (`1.30pm to 4pm at the Wattle Creek Neighbourhood House, 18
//! Station Street (we walk over …)`, `à la salle des fêtes, 3 rue …`, `en el Teatro
//! Principal, Calle Mayor 5`). Only a name followed by a street with its house number is
//! read: a wrong place is worse than none.

use gleaner_event::datetext::parse_text_time;
use scraper::ElementRef;

use super::venue::{br_line_list, names_a_street};
use super::{in_chrome, leaves, sel, text_of};

/// The place an item's text writes after its time or a placing word: the place's name and
/// its address (the numbered street and what follows it; a room between the name and the
/// street is dropped). `None` when no line or sentence of the item writes one.
pub(super) fn written_place(item: ElementRef<'_>) -> Option<(String, String)> {
    // A sentence may open with its placing word (`At the Grange Hall, 412 Alder St, …`).
    let read = |text: &str| {
        timed_place(text)
            .or_else(|| placed_in_sentence(&format!(" {text}")))
            .or_else(|| address_line(text))
    };
    // A block's `<br>` lines one by one (`Doors 7 PM · Music 8 PM<br>The Grange Hall, 412
    // Alder St, Riverton`), then its smallest blocks whole.
    let blocks = sel("p, li, div, td, dd");
    item.select(&blocks)
        .filter(|el| el.select(&blocks).all(|b| b.id() == el.id()))
        .take(100)
        .map(br_line_list)
        .filter(|lines| lines.len() >= 2)
        .find_map(|lines| lines.iter().find_map(|l| read(l)))
        .or_else(|| leaves(item).find_map(|text| read(&text)))
        .or_else(|| bold_place(item))
}

/// A bold name followed by its numbered street and town in the item's text (`…moves
/// indoors this year: <strong>Riverside Fairgrounds, Hall B</strong>, 4100 Fair Road,
/// Millbrook. Doors at 8.`): the name and the address, up to the sentence's end.
fn bold_place(item: ElementRef<'_>) -> Option<(String, String)> {
    item.select(&sel("strong, b")).take(20).find_map(|bold| {
        let name = text_of(bold);
        let parent = bold.parent().and_then(ElementRef::wrap)?;
        let text = text_of(parent);
        let (_, after) = text.split_once(name.as_str())?;
        let after = after.strip_prefix(',')?;
        let end = after.match_indices(". ").map(|(at, _)| at).find(|&at| {
            let word = after[..at].rsplit(' ').next().unwrap_or_default();
            word.chars().count() > 2
        });
        let after = &after[..end.unwrap_or(after.len())];
        if after.len() > 120 || name.is_empty() {
            return None;
        }
        // The street names itself one (`4100 Fair Road`; `20 seats` is none).
        name_and_address(&format!("{name},{}", after.trim_end_matches('.')))
            .filter(|(_, address)| names_a_street(address.split(", ").next().unwrap_or_default()))
    })
}

/// A line that is nothing but a place and its address (`The Grange Hall, 412 Alder St,
/// Riverton`): a name, a numbered street and a town, in a dozen words or fewer.
fn address_line(line: &str) -> Option<(String, String)> {
    let short = line.split_whitespace().count() <= 12 && line.matches(", ").count() >= 2;
    short.then(|| name_and_address(line.trim_end_matches('.'))).flatten()
}

/// The place a page's paragraph of its own gives its events, a placing word, a name and
/// its address and nothing more (`<h2>Représentations</h2><p>Au <strong>Théâtre de la
/// Grange</strong>, rue du Moulin 14, 4190 Hanrez-sur-Ourthe.</p>`); `None` when no
/// paragraph or more than one place is so written.
pub(super) fn page_place(doc: ElementRef<'_>) -> Option<(String, String)> {
    let mut found: Option<(String, String)> = None;
    for p in doc.select(&sel("p")).take(300) {
        if in_chrome(p) {
            continue;
        }
        let text = text_of(p);
        if text.split_whitespace().count() > 20 {
            continue;
        }
        let lower = format!(" {}", text.to_lowercase());
        let Some(word) = PLACING.iter().find(|w| lower.starts_with(**w)) else { continue };
        let Some(place) = placed_in_sentence(&format!(" {text}")) else { continue };
        // The paragraph is the place and nothing more.
        let written = format!("{}{}, {}", word.trim_start(), place.0, place.1);
        if fold_len(&written) + 1 < fold_len(text.trim_end_matches('.')) {
            continue;
        }
        match &found {
            Some(f) if *f != place => return None,
            _ => found = Some(place),
        }
    }
    found
}

/// A text's length in characters, without its spaces.
fn fold_len(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

/// A place written `Name – address` (`Succursale des Saules – 45, rue des Saules`, `Aréna
/// Jacques-Plante (hall d'entrée) – 300, rue de l'Aréna`): the name, without a note in
/// brackets, and the address, which opens with its house number or is a numbered street.
pub(super) fn dashed_place(text: &str) -> Option<(String, String)> {
    let (name, address) = text.split_once(" – ").or_else(|| text.split_once(" — "))?;
    let name = name.split(" (").next().unwrap_or(name).trim();
    let address = address.trim();
    let first = address.split(", ").next().unwrap_or(address);
    let house_first = first.chars().all(|c| c.is_ascii_digit())
        && !first.is_empty()
        && address.split(", ").nth(1).is_some_and(names_a_street);
    let words = name.split_whitespace().count();
    ((house_first || numbered_street(first))
        && parse_text_time(address).is_none()
        && (1..=6).contains(&words)
        && name.chars().next().is_some_and(char::is_uppercase)
        && !name.chars().any(|c| c.is_ascii_digit()))
    .then(|| (name.to_owned(), address.to_owned()))
}

/// The place after a time in a line of parts separated by `·` or `|` (`10 AM – 3 PM ·
/// Riverton Public Library, Community Room, 75 Oak Ave`), also after the date parts that
/// lead it (`Friday 6th March | 8pm | The Old Forge, 3 Mill Lane`); a place after a time
/// may name its street without a number (`Corn Hall, Market Square, Dunmore`).
fn timed_place(line: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = line.split(['·', '|']).map(str::trim).collect();
    // The time is one of the line's first three parts; those before it are short dated
    // parts (`Friday 6th March`).
    let short = |p: &&str| p.split_whitespace().count() <= 8;
    let dated = |p: &&str| {
        short(p) && p.chars().any(|c| c.is_ascii_digit()) && p.chars().any(char::is_alphabetic)
    };
    let Some(at) = parts.iter().take(3).position(|p| short(p) && parse_text_time(p).is_some())
    else {
        // A day without a time (`15 y 16 de mayo · Coliseo del Sur, Carrera 33 # 30-15`):
        // the place must give its numbered street.
        return match parts.as_slice() {
            [day, place, ..] if dated(day) => name_and_address(place),
            _ => None,
        };
    };
    if !parts[..at].iter().all(dated) {
        return None;
    }
    let place = parts.get(at + 1)?;
    name_and_address(place).or_else(|| named_street_place(place))
}

/// A place written `Name, street[, town]` whose street has a street word but no number
/// (`The Harbour Loft, Dock Road`, `Corn Hall, Market Square, Dunmore`): the name and the
/// address, in three parts or fewer.
fn named_street_place(place: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = place.trim_end_matches('.').split(", ").map(str::trim).collect();
    let [name, street, rest @ ..] = parts.as_slice() else { return None };
    let words = name.split_whitespace().count();
    let town = |p: &&str| {
        p.split_whitespace().count() <= 3 && p.chars().next().is_some_and(char::is_uppercase)
    };
    ((1..=6).contains(&words)
        && rest.len() <= 1
        && rest.iter().all(town)
        && name.chars().next().is_some_and(char::is_uppercase)
        && !name.chars().any(|c| c.is_ascii_digit())
        && !names_a_street(name)
        && (2..=4).contains(&street.split_whitespace().count())
        && street.chars().next().is_some_and(char::is_uppercase)
        && names_a_street(street)
        && parse_text_time(place).is_none())
    .then(|| ((*name).to_owned(), parts[1..].join(", ")))
}

/// Words that open a room's name before its venue's (`Salón Azul, Hotel Las Palmas`),
/// folded and lower-cased.
const ROOM_OPENERS: &[&str] =
    &["room", "hall", "salon", "salonu", "sala", "salle", "saal", "raum", "aula", "auditorio"];

/// A place's first part when it names a room of the venue after it (`Salón Azul`): two or
/// three words opened by a room word.
fn opens_with_room(part: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(part).to_lowercase();
    let words: Vec<&str> = folded.split_whitespace().collect();
    (2..=3).contains(&words.len()) && ROOM_OPENERS.contains(&words[0])
}

/// Words that place what follows them in a sentence, lower-cased, with the article they
/// take (`at the`, `à la`, `en el`, `im`, `in der`).
const PLACING: &[&str] = &[
    " at the ", " at ", " à la ", " à l'", " à l’", " au ", " en el ", " en la ", " im ",
    " in der ", " in the ",
];

/// The place after a placing word in a sentence, up to the sentence's end or a bracket
/// (`… at the Wattle Creek Neighbourhood House, 18 Station Street (we walk …)`).
fn placed_in_sentence(text: &str) -> Option<(String, String)> {
    let lower = text.to_lowercase();
    // Lower-casing keeps the byte offsets of the placing words only where no letter
    // changes its length before them.
    if lower.len() != text.len() {
        return None;
    }
    PLACING.iter().find_map(|word| {
        lower.match_indices(word).find_map(|(at, _)| {
            // An article written with a capital inside the sentence (`in The Harbour Bar`)
            // is part of the name.
            let skip = match *word {
                " at the " | " in the " if text[at + 4..].starts_with("The ") => 4,
                _ => word.len(),
            };
            let rest = &text[at + skip..];
            let rest = rest.split(';').next().unwrap_or(rest);
            // An address in brackets right after the name (`en el Teatro Municipal (Calle
            // Mayor 5).`); else the place ends at a bracket (`(we walk over …)`).
            if let Some((name, inner)) = rest.split_once(" (")
                && !name.contains(',')
                && let Some((inner, _)) = inner.split_once(')')
            {
                return name_and_address(&format!("{name} ({inner})"));
            }
            let rest = rest.split(" (").next().unwrap_or(rest);
            let rest = rest.split(". ").next().unwrap_or(rest).trim_end_matches('.');
            // A street without its number ends the sentence too (`… in the Harbour Bar, Main
            // Street, Carrigmore.`).
            name_and_address(rest).or_else(|| named_street_place(rest))
        })
    })
}

/// A place written `Name, [room,] numbered street[, town]` or `Name (numbered street[,
/// town])`: the name (capitalised, one to six words, no digit, no street word) and the
/// address from the numbered street on.
fn name_and_address(place: &str) -> Option<(String, String)> {
    // `Mamak Belediyesi Kültür Merkezi (Tıp Fakültesi Cad. No: 40)`, `Teatro Municipal
    // (Calle Mayor 5)`: the address in brackets after the name.
    // A room named before the venue (`Salón Azul, Hotel Las Palmas (Calle 12 # 4-56)`):
    // the venue is the building.
    let place = match place.split_once(", ") {
        Some((room, rest)) if opens_with_room(room) && rest.contains(" (") => rest,
        _ => place,
    };
    let bracketed;
    let place = match place.split_once(" (") {
        Some((name, rest)) if !name.contains(',') => {
            let inner = rest.split(')').next().unwrap_or(rest);
            bracketed = format!("{name}, {inner}");
            bracketed.as_str()
        }
        _ => place,
    };
    let parts: Vec<&str> = place.split(", ").map(str::trim).collect();
    // A date and time written with commas (`Samstag, 11. April, 17 Uhr`) is no place.
    if parts.iter().any(|p| parse_text_time(p).is_some()) {
        return None;
    }
    let (name, rest) = parts.split_first()?;
    let words = name.split_whitespace().count();
    if !(1..=6).contains(&words)
        || !name.chars().next().is_some_and(char::is_uppercase)
        || name.chars().any(|c| c.is_ascii_digit())
        || names_a_street(name)
    {
        return None;
    }
    // The street is the first or second part after the name (a room may stand between).
    let at = rest.iter().take(2).position(|p| numbered_street(p))?;
    let address = &rest[at..];
    // What follows the street is its town and postcode: short capitalised parts.
    let town = |p: &&str| {
        p.split_whitespace().count() <= 4
            && p.chars().next().is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
    };
    if !address[1..].iter().all(town) {
        return None;
    }
    Some((without_lower_tail(name).to_owned(), address.join(", ")))
}

/// A capitalised name without the common words in lower case after it (`Marina Grille
/// banquet room`, `Riverside Park pavilion` → `Marina Grille`, `Riverside Park`): the
/// part of the place, not its name. Names with words in lower case inside (`Salle des
/// fêtes`, `Maison de quartier`) are kept.
fn without_lower_tail(name: &str) -> &str {
    let words: Vec<&str> = name.split_whitespace().collect();
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    let head = words.iter().take_while(|w| capital(w)).count();
    let tail = &words[head..];
    let lower = |w: &&str| w.chars().all(|c| c.is_ascii_lowercase());
    if head >= 2 && (1..=2).contains(&tail.len()) && tail.iter().all(lower) {
        let last = words[head - 1];
        let end = name.find(last).map_or(name.len(), |at| at + last.len());
        return name[..end].trim();
    }
    name
}

/// Whether a part is a street with its house number: the number first (`9 Front St`, `118
/// N Main St`, `12 rue des Tanneurs`) or after a street's name (`Hauptstraße 40`, `Calle
/// Mayor 5`, `Moda Cad. No: 12`).
pub(super) fn numbered_street(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let number = |w: &str| {
        let digits = w.chars().take_while(char::is_ascii_digit).count();
        let tail: Vec<char> = w.chars().skip(digits).collect();
        (1..=5).contains(&digits) && (tail.is_empty() || tail.len() == 1 && tail[0].is_alphabetic())
    };
    let lettered = |w: &&str| w.chars().next().is_some_and(char::is_alphabetic);
    match words.as_slice() {
        [first, rest @ ..] if number(first) => {
            !rest.is_empty()
                && rest.iter().all(lettered)
                && rest.len() <= 5
                && rest.iter().any(|w| w.chars().count() >= 3)
        }
        [street @ .., last] if number(last) => {
            !street.is_empty() && street.len() <= 5 && names_a_street(&street.join(" "))
        }
        _ => colombian_street(&words),
    }
}

/// Words that open a Colombian street's name, folded and lower-cased without their dot.
const COLOMBIAN_STREETS: &[&str] = &[
    "calle",
    "cl",
    "carrera",
    "cra",
    "cr",
    "kr",
    "avenida",
    "av",
    "diagonal",
    "dg",
    "transversal",
    "tv",
];

/// Whether words write a Colombian address, a street, its number, `#` and the crossing's
/// number with the house's (`Calle 36 # 22-40`, `Cra. 27 # 45-18`, `Carrera 33 # 30A-15`).
fn colombian_street(words: &[&str]) -> bool {
    let numbered = |w: &str| {
        let digits = w.chars().take_while(char::is_ascii_digit).count();
        (1..=3).contains(&digits) && w.chars().skip(digits).all(|c| c.is_ascii_alphabetic())
    };
    let house = |w: &str| {
        w.split_once('-').is_some_and(|(a, b)| {
            numbered(a) && (1..=3).contains(&b.len()) && b.bytes().all(|c| c.is_ascii_digit())
        })
    };
    let street = |w: &str| {
        let folded = w.trim_end_matches('.').to_lowercase();
        COLOMBIAN_STREETS.contains(&folded.as_str())
    };
    matches!(words, [s, n, "#", h] if street(s) && numbered(n) && house(h))
}

#[cfg(test)]
mod tests {
    use super::{name_and_address, placed_in_sentence, timed_place};

    fn pair(a: &str, b: &str) -> Option<(String, String)> {
        Some((a.to_owned(), b.to_owned()))
    }

    #[test]
    fn a_place_after_the_time() {
        // Issue 24, page 230: a card's time line names the place.
        assert_eq!(
            timed_place("7 PM · Blue Heron Coffee, 9 Front St, Riverton"),
            pair("Blue Heron Coffee", "9 Front St, Riverton")
        );
        assert_eq!(
            timed_place("10 AM – 3 PM · Riverton Public Library, Community Room, 75 Oak Ave"),
            pair("Riverton Public Library", "75 Oak Ave")
        );
        assert_eq!(
            timed_place(
                "Two shows: 2 PM matinee & 7:30 PM · Liberty Theatre, 118 N Main St, Riverton"
            ),
            pair("Liberty Theatre", "118 N Main St, Riverton")
        );
        // A place without a numbered street, or no time before it, is not read.
        assert_eq!(timed_place("6:00–7:00 PM · KVLR Studio B"), None);
        assert_eq!(timed_place("Noon – 6 PM · Mill Street outside the station"), None);
        assert_eq!(timed_place("Blue Heron Coffee · 9 Front St, Riverton"), None);
    }

    #[test]
    fn a_place_after_a_date_and_time_line() {
        // The place after the date and time parts of a separated line, not only after a
        // first part that is a time.
        assert_eq!(
            timed_place("Friday 6th March | 8pm | The Old Forge, 3 Mill Lane"),
            pair("The Old Forge", "3 Mill Lane")
        );
        assert_eq!(
            timed_place("Saturday 14 March · 7.30pm · Corn Hall, Market Square, Dunmore"),
            pair("Corn Hall", "Market Square, Dunmore")
        );
        // A room before the venue, the address in brackets after it.
        assert_eq!(
            timed_place(
                "Viernes 6 de marzo, 7:00 p. m. · Salón Azul, Hotel Las Palmas (Calle 12 # 4-56)"
            ),
            pair("Hotel Las Palmas", "Calle 12 # 4-56")
        );
        // A Colombian address (`Carrera 15 # 20B-31`) is a numbered street.
        assert_eq!(
            timed_place("9:00 a. m. · Teatro del Parque, Carrera 15 # 20B-31, Pereira"),
            pair("Teatro del Parque", "Carrera 15 # 20B-31, Pereira")
        );
        // Parts after the place, or a street without a street word, are not read.
        assert_eq!(timed_place("Friday 6th March | 8pm | The Old Forge, Upstairs"), None);
        // After a day without a time, only a place with its numbered street.
        assert_eq!(
            timed_place("Friday 6th March | The Old Forge, 3 Mill Lane"),
            pair("The Old Forge", "3 Mill Lane")
        );
        assert_eq!(timed_place("Friday 6th March | Corn Hall, Market Square, Dunmore"), None);
        assert_eq!(timed_place("8pm | Tickets, Bar | The Old Forge, 3 Mill Lane"), None);
    }

    #[test]
    fn a_bold_place_in_running_text() {
        let item = |html: &str| {
            let doc = scraper::Html::parse_fragment(html);
            let div = doc.select(&super::sel("div")).next().unwrap();
            super::written_place(div)
        };
        // A bold name, its numbered street and its town in a sentence.
        assert_eq!(
            item(
                "<div><h3>Swap Meet</h3><p>This year we move indoors: <strong>Riverside \
                 Fairgrounds, Hall B</strong>, 4100 Fair Road, Millbrook. Doors at 8; food \
                 trucks on site, tables for vendors, parking in the north lot.</p></div>"
            ),
            pair("Riverside Fairgrounds", "4100 Fair Road, Millbrook")
        );
        // A sentence that opens with its placing word.
        assert_eq!(
            item(
                "<div><h3>Dinner</h3><p>At the <b>Quayside Grill</b>, 55 Harbor Street, \
                 Millbrook. Buffet $28 per person.</p></div>"
            ),
            pair("Quayside Grill", "55 Harbor Street, Millbrook")
        );
        // A bold word that no address follows is no place.
        assert_eq!(
            item(
                "<div><h3>Talk</h3><p>Entry is <strong>free</strong>, 20 seats, Millbrook \
                 Road members first. Tea and biscuits served from half past seven on.</p></div>"
            ),
            None
        );
    }

    #[test]
    fn a_part_of_the_place_after_its_name() {
        assert_eq!(
            placed_in_sentence(
                " Dinner at the Quayside Grill banquet room, 55 Harbor Street, Millbrook."
            ),
            pair("Quayside Grill", "55 Harbor Street, Millbrook")
        );
        assert_eq!(
            placed_in_sentence(" Fête à la Salle des fêtes, 3 rue Haute, Millac."),
            pair("Salle des fêtes", "3 rue Haute, Millac")
        );
    }

    #[test]
    fn a_line_below_the_times() {
        // Issue 24, page 230: the place on the `<br>` line after the times.
        let html = "<div><h3>Spring Pledge Drive</h3><p>Doors 7 PM · Music 8 PM<br>The \
                    Grange Hall, 412 Alder St, Riverton</p><p>Three local bands.</p></div>";
        let doc = scraper::Html::parse_fragment(html);
        let item = doc.select(&super::sel("div")).next().unwrap();
        assert_eq!(super::written_place(item), pair("The Grange Hall", "412 Alder St, Riverton"));
    }

    #[test]
    fn a_paragraph_that_places_the_page() {
        // Issue 24, page 295: the performances' place in a paragraph above their list.
        let page =
            |html: &str| super::page_place(scraper::Html::parse_document(html).root_element());
        assert_eq!(
            page(
                "<h2>Représentations</h2><p>Au <strong>Théâtre de la Grange</strong>, rue du \
                 Moulin 14, 4190 Hanrez-sur-Ourthe.</p><ul><li>Mercredi 13 mai à 15h00</li></ul>"
            ),
            pair("Théâtre de la Grange", "rue du Moulin 14, 4190 Hanrez-sur-Ourthe")
        );
        // A sentence that says more, or two places, place no page.
        assert_eq!(
            page("<p>Au Théâtre de la Grange, rue du Moulin 14, nous jouons le samedi.</p>"),
            None
        );
        assert_eq!(
            page(
                "<p>At the Grange Hall, 412 Alder St, Riverton.</p><p>At the Liberty Theatre, \
                 118 N Main St, Riverton.</p>"
            ),
            None
        );
    }

    #[test]
    fn a_name_and_its_address_after_a_dash() {
        // Issue 24, page 235: a library's branch and its address.
        assert_eq!(
            super::dashed_place("Succursale des Saules – 45, rue des Saules"),
            pair("Succursale des Saules", "45, rue des Saules")
        );
        assert_eq!(
            super::dashed_place("Aréna Jacques-Plante (hall d'entrée) – 300, rue de l'Aréna"),
            pair("Aréna Jacques-Plante", "300, rue de l'Aréna")
        );
        assert_eq!(super::dashed_place("Bibliothèque centrale – salle Desjardins"), None);
        assert_eq!(super::dashed_place("Concert – 20 h, entrée libre"), None);
    }

    #[test]
    fn a_line_of_its_own() {
        // Issue 24, page 230: the card's place on a line below its times.
        assert_eq!(
            super::address_line("The Grange Hall, 412 Alder St, Riverton"),
            pair("The Grange Hall", "412 Alder St, Riverton")
        );
        assert_eq!(super::address_line("Doors 7 PM, Music 8 PM, 21+"), None);
        assert_eq!(super::address_line("The Grange Hall, 412 Alder St"), None);
        assert_eq!(super::address_line("Samstag, 11. April, 17 Uhr"), None);
        assert_eq!(super::address_line("Mittwoch, 15. April, Käserei"), None);
    }

    #[test]
    fn a_place_after_a_placing_word() {
        // Issue 24, page 292: the workshop's own place in its sentence.
        assert_eq!(
            placed_in_sentence(
                "1.30pm to 4pm at the Wattle Creek Neighbourhood House, 18 Station Street (we \
                 walk over to the orchard for the pruning part)."
            ),
            pair("Wattle Creek Neighbourhood House", "18 Station Street")
        );
        assert_eq!(
            placed_in_sentence("Concert im Gasthaus Zur Post, Dorfstraße 3, 84169 Ashdorf."),
            pair("Gasthaus Zur Post", "Dorfstraße 3, 84169 Ashdorf")
        );
        assert_eq!(
            placed_in_sentence("Función en el Teatro Principal, Calle Mayor 5. Entrada libre."),
            pair("Teatro Principal", "Calle Mayor 5")
        );
        // Issue 24, page 247: the address in brackets after the name.
        assert_eq!(
            timed_place(
                "28 Mart Cumartesi, saat 20.00 · Mamak Belediyesi Kültür Merkezi (Tıp Fakültesi \
                 Cad. No: 40). Bağlama kursumuz"
            ),
            pair("Mamak Belediyesi Kültür Merkezi", "Tıp Fakültesi Cad. No: 40")
        );
        assert_eq!(
            name_and_address("Mamak Belediyesi Kültür Merkezi (Tıp Fakültesi Cad. No: 40)"),
            pair("Mamak Belediyesi Kültür Merkezi", "Tıp Fakültesi Cad. No: 40")
        );
        assert_eq!(
            placed_in_sentence("Concierto en el Teatro Municipal (Calle Mayor 5). Entrada libre."),
            pair("Teatro Municipal", "Calle Mayor 5")
        );
        // A street without a number, then the town, at the sentence's end.
        assert_eq!(
            placed_in_sentence(" Quiz night upstairs in the Anchor Bar, Quay Street, Ballyre."),
            pair("Anchor Bar", "Quay Street, Ballyre")
        );
        // `The` written with a capital is the name's.
        assert_eq!(
            placed_in_sentence(" Quiz night upstairs in The Anchor Bar, Quay Street, Ballyre."),
            pair("The Anchor Bar", "Quay Street, Ballyre")
        );
        assert_eq!(
            placed_in_sentence(" We meet at the Old Mill, Station Road closes at six."),
            None
        );
        // A time or a sentence after the comma is no address.
        assert_eq!(placed_in_sentence("Doors at 7, 30 minutes before the show."), None);
        assert_eq!(placed_in_sentence("Meet at the Old Mill, then we walk 5 km."), None);
        assert_eq!(name_and_address("Market Street, 12 Hill Road"), None);
    }
}
