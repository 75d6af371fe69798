//! The place a page states for all its events (`All our shows are at <strong>The Corn
//! Exchange</strong>, Market Street, Hexley unless stated otherwise`, `Sauf mention
//! contraire, nos activités ont lieu à la <b>Maison de quartier</b>, avenue …`): the
//! events that name no place of their own are there.

use gleaner_event::datetext::fold_diacritics;
use scraper::ElementRef;

use super::venue::names_a_street;
use super::{in_chrome, sel, text_of};

/// Words that say what a page states holds unless an event says otherwise (its place, its
/// price, free entry), folded and lower-cased, in the five languages.
const DEFAULT_MARKERS: &[&str] = &[
    "unless stated",
    "unless otherwise",
    "unless noted",
    "sauf mention contraire",
    "sauf indication contraire",
    "sauf avis contraire",
    "wenn nicht anders angegeben",
    "sofern nicht anders angegeben",
    "falls nicht anders angegeben",
    "salvo que se indique",
    "salvo indicacion",
    "salvo aviso contrario",
    "aksi belirtilmedikce",
    "aksi belirtilmedigi",
    "unless shown",
    "soweit nicht anders angegeben",
    "unless indicated",
    "nicht anders vermerkt",
    "salvo que se especifique",
    "aksi soylenmedikce",
];

/// Whether a text says what holds for all events unless one says otherwise (`Unless
/// stated otherwise, club events are in the Parish Hall`): the page's note, never one
/// event's description.
pub(super) fn states_default(text: &str) -> bool {
    let folded = fold_diacritics(text).to_lowercase();
    marked(&folded)
}

/// Words that open and close a default marker with a few words between them (`unless an
/// entry says otherwise`, `sauf si le programme indique le contraire`, `sofern beim
/// Termin nicht anders angegeben`), folded and lower-cased.
const SPLIT_MARKERS: &[(&str, &str)] = &[
    ("unless", "otherwise"),
    ("sauf", "contraire"),
    ("salvo", "contrario"),
    ("wenn", "anders"),
    ("sofern", "anders"),
    ("falls", "anders"),
    ("soweit", "anders"),
    ("aksi", "belirtilmedikce"),
];

/// Whether a folded, lower-cased text holds a default marker (see [`DEFAULT_MARKERS`]),
/// also one whose words are apart (see [`SPLIT_MARKERS`]: at most five words between).
fn marked(folded: &str) -> bool {
    if DEFAULT_MARKERS.iter().any(|m| folded.contains(m)) {
        return true;
    }
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().enumerate().any(|(at, w)| {
        SPLIT_MARKERS
            .iter()
            .any(|(open, close)| w == open && words[at + 1..].iter().take(6).any(|n| n == close))
    })
}

/// Words right before a place's name, folded and lower-cased: prepositions and articles
/// (`played at`, `à la`, `in der`, `ist … der`, `en el`, `de la`).
const PLACING_WORDS: &[&str] = &[
    "at", "the", "a", "la", "le", "l", "au", "aux", "der", "die", "das", "dem", "den", "im", "in",
    "en", "el", "al", "del",
];

/// The place a paragraph of the page states for all events, unless they say otherwise:
/// the bold name the paragraph holds (`<strong>`, `<b>`) and the address written in it or
/// after it up to the sentence's end. The name and the address (`None` when the sentence
/// gives none); `None` without such a paragraph or when the name is long.
pub(super) fn stated_venue(doc: ElementRef<'_>) -> Option<(String, Option<String>)> {
    doc.select(&sel("p")).take(200).filter(|p| !in_menu(*p)).find_map(|p| {
        let text = text_of(p);
        let folded = fold_diacritics(&text).to_lowercase();
        if text.len() > 600 || !marked(&folded) {
            return None;
        }
        let Some(bold) = p.select(&sel("strong, b")).next() else {
            return unmarked_place(&text);
        };
        let name = text_of(bold);
        let (before, after) = text.split_once(name.as_str())?;
        // The name is in the sentence that says so (`All times local unless stated.
        // <b>Hexley Players</b>` is not).
        let sentence = fold_diacritics(before.rsplit(". ").next().unwrap_or(before));
        let sentence = sentence.to_lowercase();
        let tail = fold_diacritics(after.split(". ").next().unwrap_or(after)).to_lowercase();
        if !(marked(&sentence) || marked(&tail)) {
            return None;
        }
        // The name follows the word that places it (`at`, `à la`, `in der`, `en el`).
        let last = sentence.split_whitespace().last().unwrap_or_default();
        if !PLACING_WORDS.contains(&last.trim_end_matches(['\'', '’'])) {
            return None;
        }
        // And its address names a street or a number: a place, not a ticket office.
        place_of(&name, after).filter(|(_, address)| {
            address
                .as_deref()
                .is_some_and(|a| a.chars().any(|c| c.is_ascii_digit()) || names_a_street(a))
        })
    })
}

/// Whether an element is in the page's menus or banners (`<nav>`, `<header>`, `<aside>`):
/// a footer is not, for a site writes its note for all events there as often as above
/// them (`All our shows are at <strong>The Corn Exchange</strong>, Market Street, Hexley
/// unless stated otherwise`, issue 24, page 161).
fn in_menu(el: ElementRef<'_>) -> bool {
    in_chrome(el)
        && el
            .ancestors()
            .filter_map(ElementRef::wrap)
            .any(|a| matches!(a.value().name(), "nav" | "aside" | "header"))
}

/// Phrases that place what follows, with a space on either side, folded and
/// lower-cased: the place's name comes after them.
const PLACING_PHRASES: &[&str] = &[
    " are in ",
    " are at ",
    " is at ",
    " held at ",
    " held in ",
    " ont lieu a ",
    " ont lieu au ",
    " finden in ",
    " finden im ",
    " se celebran en ",
    " tienen lugar en ",
    " se realizan en ",
    " depart from ",
    " angegeben, im ",
    " angegeben, in der ",
];

/// Lower-case articles a place's name may open with (`the Parish Hall`): not part of it.
const ARTICLES: &[&str] = &["the ", "la ", "le ", "l'", "l’", "der ", "dem ", "el "];

/// What follows the placing phrase (`are held in`, `ont lieu à`, `se realizan en`…) in the
/// sentence of `text` that holds a default marker (`unless stated otherwise`, `sauf
/// mention contraire`…), as written: the phrase is found in the folded sentence and the
/// sentence cut at the same character; where folding changed the length, the cut would be
/// elsewhere, and there is none.
fn after_placing_phrase(text: &str) -> Option<String> {
    let sentence = text.split(". ").find(|s| {
        let folded = fold_diacritics(s).to_lowercase();
        marked(&folded)
    })?;
    let folded = fold_diacritics(sentence).to_lowercase();
    let (at, phrase) = PLACING_PHRASES
        .iter()
        .filter_map(|p| folded.find(p).map(|at| (at, *p)))
        .min_by_key(|(at, _)| *at)?;
    let chars = folded[..at + phrase.len()].chars().count();
    let rest: String = sentence.chars().skip(chars).collect();
    folded.ends_with(&fold_diacritics(&rest).to_lowercase()).then_some(rest)
}

/// The place a sentence without a bold name states for all events (`Unless stated
/// otherwise, club events are in the Parish Hall, 22 Upper Rathmines Road, Dublin 6.`):
/// what follows its placing phrase in the sentence that holds the marker, without a
/// leading lower-case article.
fn unmarked_place(text: &str) -> Option<(String, Option<String>)> {
    let rest = after_placing_phrase(text)?;
    // After an article the name is written in lower case (`à l'église Saint-Pierre`):
    // capitalised as a name; without one it must be capitalised already.
    let (rest, article) = match ARTICLES.iter().find_map(|a| rest.strip_prefix(a)) {
        Some(r) => (r, true),
        None => (rest.as_str(), false),
    };
    let rest = [" unless ", ", sauf ", " sauf ", ", salvo ", " salvo ", ", wenn "]
        .iter()
        .fold(rest, |r, end| r.split(end).next().unwrap_or(r))
        .trim()
        .trim_end_matches('.');
    let (name, address) = rest.split_once(", ")?;
    // A name holds no bracket (`la librería (calle de la Platería, 9)` is a description).
    // A lower-case name of one word is a common noun (`à la cave`), not a place's name.
    let capital = name.chars().next().is_some_and(char::is_uppercase);
    let named = capital || article && name.split_whitespace().count() >= 2;
    if !named || rest.contains(['(', ')']) {
        return None;
    }
    let mut chars = name.chars();
    let name: String = chars.next().into_iter().flat_map(char::to_uppercase).chain(chars).collect();
    place_of(&name, &format!(", {address}")).filter(|(_, address)| {
        address
            .as_deref()
            .is_some_and(|a| a.chars().any(|c| c.is_ascii_digit()) || names_a_street(a))
    })
}

/// The place a page states for all events by its name alone, without an address (`All
/// special events depart from <strong>Ashcombe Station</strong> unless shown otherwise`,
/// `Todas las actividades se realizan en la Casa de la Cultura salvo que se indique otro
/// lugar`): a capitalised name of two to seven words without a digit, without a room in
/// brackets after it; `None` when the page states none, or states one with its address
/// (see [`stated_venue`]).
pub(super) fn stated_name(doc: ElementRef<'_>) -> Option<String> {
    doc.select(&sel("p")).take(200).filter(|p| !in_chrome(*p)).find_map(|p| {
        let text = text_of(p);
        let folded = fold_diacritics(&text).to_lowercase();
        if text.len() > 600 || !marked(&folded) {
            return None;
        }
        let name = match p.select(&sel("strong, b")).next() {
            Some(bold) => {
                let name = text_of(bold);
                let (before, after) = text.split_once(name.as_str())?;
                let sentence = fold_diacritics(before.rsplit(". ").next().unwrap_or(before));
                let sentence = sentence.to_lowercase();
                let tail = fold_diacritics(after.split(". ").next().unwrap_or(after));
                let tail = tail.to_lowercase();
                let last = sentence.split_whitespace().last().unwrap_or_default();
                let says = marked(&sentence) || marked(&tail);
                // After a placing word (`à la`) or phrase (`depart from`).
                let placed = PLACING_WORDS.contains(&last.trim_end_matches(['\'', '’']))
                    || PLACING_PHRASES.iter().any(|p| format!(" {sentence}").ends_with(p));
                (says && placed).then_some(name)?
            }
            None => unmarked_name(&text)?,
        };
        let name = name.split(" (").next().unwrap_or(&name).trim().trim_end_matches('.');
        let words = name.split_whitespace().count()
            - usize::from(name.split_whitespace().next().is_some_and(|w| {
                ["the", "la", "le", "el", "der", "die", "das"].contains(&w.to_lowercase().as_str())
            }));
        let capital = name.chars().next().is_some_and(char::is_uppercase)
            || name.split_whitespace().skip(1).any(|w| w.starts_with(char::is_uppercase));
        ((2..=7).contains(&words)
            && capital
            && !name.chars().any(|c| c.is_ascii_digit() || matches!(c, ',' | ':' | ';')))
        .then(|| name.to_owned())
    })
}

/// The name after a sentence's placing phrase, up to the marker, a comma or its end,
/// without a leading article (`… se realizan en la Casa de la Cultura salvo que …` →
/// `Casa de la Cultura`).
fn unmarked_name(text: &str) -> Option<String> {
    let rest = after_placing_phrase(text)?;
    let rest = ARTICLES.iter().find_map(|a| rest.strip_prefix(a)).unwrap_or(&rest);
    let ends = [" unless ", " sauf ", " salvo ", ", wenn ", ", ", " (", " statt"];
    let name = ends.iter().fold(rest, |r, end| r.split(end).next().unwrap_or(r));
    Some(name.trim().trim_end_matches('.').to_owned())
}

/// The place in a bold name and the text after it: `Stadthalle Beuel` + `, Siegburger
/// Straße 40, 53229 Bonn statt.` → (`Stadthalle Beuel`, `Siegburger Straße 40, 53229
/// Bonn`); `Páirc Naomh Bríd, Ballyhooly Road, Cork` + ` unless stated.` → (`Páirc
/// Naomh Bríd`, `Ballyhooly Road, Cork`).
fn place_of(bold: &str, after: &str) -> Option<(String, Option<String>)> {
    // The address after the name runs to the sentence's end, or to the marker or verb
    // that closes it (` unless stated`, German ` statt`).
    let tail = after
        .trim_start()
        .strip_prefix(',')
        .map(|t| {
            let ends = [" unless ", " statt", ";", " ("];
            let end = ends.iter().filter_map(|e| t.find(e)).chain(sentence_end(t)).min();
            let end = end.unwrap_or(t.len());
            t[..end].trim().trim_end_matches('.').trim()
        })
        .unwrap_or_default();
    let whole = if tail.is_empty() { bold.to_owned() } else { format!("{bold}, {tail}") };
    let whole = whole.trim().trim_end_matches('.');
    let (name, address) = match whole.split_once(", ") {
        Some((name, address)) => (name.trim(), Some(address.trim())),
        None => (whole, None),
    };
    let name = without_room_of(name);
    let words = name.split_whitespace().count();
    if !(1..=7).contains(&words) || name.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    // An address is short and holds no sentence.
    let address = address.filter(|a| a.len() <= 120 && sentence_end(a).is_none());
    Some((name.to_owned(), address.map(str::to_owned)))
}

/// Whether a place's name is a short form of a stated place's (`Stand des Esserts` of
/// `stand de tir intercommunal des Esserts`, `Mill Hall` of `The Old Mill Hall`): two words
/// or more, no digit, each found in the long name in the same order, the same first word
/// (or the long name's after its article) and the same last word, and shorter.
pub(super) fn shortens(short: &str, long: &str) -> bool {
    let fold = |s: &str| fold_diacritics(s).to_lowercase();
    let (short, long) = (fold(short), fold(long));
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (s, mut l) = (words(&short), words(&long));
    if l.first()
        .is_some_and(|w| ["the", "la", "le", "l", "el", "der", "die", "das"].contains(&w.as_str()))
    {
        l.remove(0);
    }
    if s.len() < 2 || s.len() >= l.len() || short.chars().any(|c| c.is_ascii_digit()) {
        return false;
    }
    let mut rest = l.iter();
    let in_order = s.iter().all(|w| rest.any(|x| x == w));
    in_order && s.first() == l.first() && s.last() == l.last()
}

/// Where a text's first sentence ends: its first `. ` that follows no initial or short
/// abbreviation (`220 N. Main Street`, `St. Mary's`, `Av. Central` go on).
fn sentence_end(text: &str) -> Option<usize> {
    text.match_indices(". ").map(|(at, _)| at).find(|&at| {
        let word = text[..at].rsplit([' ', ',']).next().unwrap_or_default();
        let short =
            word.chars().count() <= 2 && word.chars().next().is_some_and(char::is_uppercase);
        !short && !["St", "Ave", "Av", "Rd", "Mt", "Ft", "Nr", "No"].contains(&word)
    })
}

/// A place named by its room first (`Community Room of the Millbrook Library`, `the Back
/// Room at the Swan`): the building after the room; other names as written.
fn without_room_of(name: &str) -> &str {
    [" room of the ", " room at the ", " hall of the ", " room of ", " room at "]
        .iter()
        .find_map(|joint| {
            let at = name.to_lowercase().find(joint)?;
            // Lower-casing kept the offsets (no letter before changed its length).
            let building = name.get(at + joint.len()..)?;
            (name.is_char_boundary(at)
                && name[..at].split_whitespace().count() <= 3
                && building.split_whitespace().count() >= 2
                && building.chars().next().is_some_and(char::is_uppercase))
            .then_some(building)
        })
        .unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::stated_venue;
    use scraper::Html;

    fn venue(html: &str) -> Option<(String, Option<String>)> {
        stated_venue(Html::parse_document(html).root_element())
    }

    fn pair(name: &str, address: &str) -> Option<(String, Option<String>)> {
        Some((name.to_owned(), Some(address.to_owned())))
    }

    #[test]
    fn a_short_name_of_the_stated_place() {
        use super::shortens;
        assert!(shortens("Stand des Esserts", "stand de tir intercommunal des Esserts"));
        assert!(shortens("Old Mill Hall", "The Old Mill Community Hall"));
        // Another place, a room, or the whole name are no short form.
        assert!(!shortens("Stand des Rochettes", "stand de tir intercommunal des Esserts"));
        assert!(!shortens("Esserts", "stand de tir intercommunal des Esserts"));
        assert!(!shortens("Old Mill Hall", "Old Mill Hall"));
        assert!(!shortens("Hall 2", "The Old Mill Community Hall"));
    }

    #[test]
    fn a_marker_whose_words_are_apart() {
        // `unless an entry says otherwise`: the marker's words with others between them.
        assert_eq!(
            venue(
                "<p>Unless a listing says otherwise, our evenings are held at the <strong>Old \
                 Schoolhouse</strong>, 14 Church Lane, Ashby.</p>"
            ),
            pair("Old Schoolhouse", "14 Church Lane, Ashby")
        );
        // A room named before its building: the building.
        assert_eq!(
            venue(
                "<p>Unless a listing says otherwise, we meet in the <strong>Reading Room of \
                 the Ashby Town Library</strong>, 2 High Street (side door).</p>"
            ),
            pair("Ashby Town Library", "2 High Street")
        );
        // An initial in the street is no sentence's end.
        assert_eq!(
            venue(
                "<p>Unless a listing says otherwise, we meet at the <strong>Grange Hall</strong>, \
                 40 S. Elm Street. Doors open at 7.</p>"
            ),
            pair("Grange Hall", "40 S. Elm Street")
        );
        assert!(super::states_default("Sofern beim Termin nicht anders vermerkt, gilt: …"));
        // Words too far apart, or in the wrong order, are no marker.
        assert!(!super::states_default(
            "Unless you book early you may miss out; seats at the back are otherwise fine."
        ));
        assert!(!super::states_default("Otherwise, unless it rains, we meet outside."));
    }

    #[test]
    fn a_place_stated_for_all_events() {
        // Issue 24, batches 90–189: the sentence in four languages.
        assert_eq!(
            venue(
                "<p>All our shows are at <strong>The Corn Exchange</strong>, Market Street, \
                 Hexley, Shropshire SY9 4AB unless stated otherwise.</p>"
            ),
            pair("The Corn Exchange", "Market Street, Hexley, Shropshire SY9 4AB")
        );
        // Issue 24, page 161: the same sentence in the site's footer.
        assert_eq!(
            venue(
                "<footer><div><p>All our shows are at <strong>The Corn Exchange</strong>, Market                  Street, Hexley, Shropshire SY9 4AB unless stated otherwise.</p></div></footer>"
            ),
            pair("The Corn Exchange", "Market Street, Hexley, Shropshire SY9 4AB")
        );
        assert_eq!(
            venue(
                "<p>Saison 2025-2026. Sauf mention contraire, nos activités ont lieu à la \
                 <b>Maison de quartier du Chant d'Oiseau</b>, avenue du Chant d'Oiseau 40, \
                 1150 Woluwe-Saint-Pierre. PAF = participation aux frais.</p>"
            ),
            pair(
                "Maison de quartier du Chant d'Oiseau",
                "avenue du Chant d'Oiseau 40, 1150 Woluwe-Saint-Pierre"
            )
        );
        assert_eq!(
            venue(
                "<p>Die Sitzungen finden, wenn nicht anders angegeben, in der <strong>Stadthalle \
                 Beuel</strong>, Siegburger Straße 40, 53229 Bonn statt.</p>"
            ),
            pair("Stadthalle Beuel", "Siegburger Straße 40, 53229 Bonn")
        );
        assert_eq!(
            venue(
                "<p>All home games are played at <strong>Páirc Naomh Bríd, Ballyhooly Road, \
                 Cork</strong> unless stated. Throw-in times are Irish time.</p>"
            ),
            pair("Páirc Naomh Bríd", "Ballyhooly Road, Cork")
        );
        assert_eq!(
            venue(
                "<p>Treffpunkt für alle Wanderungen ist, wenn nicht anders angegeben, der \
                 <strong>Parkplatz an der Festhalle, Hauptstraße 40, Rauhenstetten</strong>. \
                 Die Abfahrtszeiten geben wir bekannt.</p>"
            ),
            pair("Parkplatz an der Festhalle", "Hauptstraße 40, Rauhenstetten")
        );
    }

    #[test]
    fn a_place_stated_without_a_bold_name() {
        assert_eq!(
            venue(
                "<p>Unless stated otherwise, club events are in the Parish Hall, 22 Upper \
                 Rathmines Road, Dublin 6. All times are Irish time.</p>"
            ),
            pair("Parish Hall", "22 Upper Rathmines Road, Dublin 6")
        );
        assert_eq!(
            venue(
                "<p>Tous les concerts ont lieu à l'église Saint-Pierre, 2 rue de l'Église, 74320 \
                 Sévrier, sauf mention contraire.</p>"
            ),
            pair("Église Saint-Pierre", "2 rue de l'Église, 74320 Sévrier")
        );
        assert_eq!(venue("<p>Unless stated otherwise, all times are Irish time.</p>"), None);
        assert_eq!(
            venue(
                "<p>Toutes les manifestations ont lieu à la cave, Route du Vignoble 12, 1963 Vétroz, sauf mention contraire.</p>"
            ),
            None
        );
        assert_eq!(
            venue(
                "<p>Las presentaciones se celebran en la librería (calle de la Platería, 9) \
                 salvo que se indique otro lugar.</p>"
            ),
            None
        );
    }

    fn name(html: &str) -> Option<String> {
        super::stated_name(Html::parse_document(html).root_element())
    }

    #[test]
    fn a_place_stated_by_its_name_alone() {
        // Issue 24, pages 176, 212, 238: a name without an address.
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            name(
                "<p>All special events depart from <strong>Ashcombe Station</strong> unless \
                 shown otherwise.</p>"
            ),
            some("Ashcombe Station")
        );
        assert_eq!(
            name(
                "<p>Todas las actividades se realizan en la Casa de la Cultura salvo que se \
                 indique otro lugar.</p>"
            ),
            some("Casa de la Cultura")
        );
        assert_eq!(
            name(
                "<p>Les projections ont lieu à la <strong>salle Georges-Beaulieu (local \
                 D-120)</strong> du Cégep, sauf indication contraire.</p>"
            ),
            some("salle Georges-Beaulieu")
        );
        // A one-word name, a room, a page without the marker: none.
        assert_eq!(name("<p>Unless stated, all at <b>The Hall</b>, Hexley.</p>"), None);
        assert_eq!(name("<p>All events take place in the Nave unless stated.</p>"), None);
        assert_eq!(name("<p>All special events depart from <b>Ashcombe Station</b>.</p>"), None);
        assert_eq!(name("<p>Unless noted, events are all-ages.</p>"), None);
    }

    #[test]
    fn a_note_for_all_events() {
        // Issue 24, pages 163 and 171: the page's note is no event's description.
        for (text, note) in [
            ("Unless stated otherwise, club events are in the Parish Hall.", true),
            ("Sauf mention contraire, les auditions ont lieu à l'auditorium.", true),
            ("Aksi belirtilmedikçe tüm etkinlikler ücretsizdir.", true),
            ("Les classes d'éveil dansent Vivaldi revisité.", false),
        ] {
            assert_eq!(super::states_default(text), note, "{text}");
        }
    }

    #[test]
    fn no_stated_place() {
        // A bold word in a paragraph without the marker, and a marker in a menu.
        assert_eq!(venue("<p>Our <b>Spring Fair</b> is at the Corn Exchange.</p>"), None);
        assert_eq!(
            venue("<nav><p>Unless stated, at <b>The Hall</b>, Main Street.</p></nav>"),
            None
        );
        assert_eq!(venue("<p>All times local unless stated. <b>Hexley Players</b></p>"), None);
        // A name no placing word leads, or without a street or number.
        assert_eq!(
            venue("<p>Unless stated, tickets from <b>Hexley Books</b>, Market Street.</p>"),
            None
        );
        assert_eq!(venue("<p>Unless stated, all at <b>The Hall</b>, Hexley.</p>"), None);
    }
}
