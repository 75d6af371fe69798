//! A venue named with its room (`Museo de Ciencias – Sala de Talleres 2`, `VHS-Haus am
//! Markt, Raum 105`, `Maison de quartier des Capucins (cour)`): the venue is the building,
//! the room is not part of its name.

use gleaner_event::datetext::fold_diacritics;

/// Words that open a room's or a part's name inside a building, folded and lower-cased,
/// in the five languages.
const ROOM_WORDS: &[&str] = &[
    "room",
    "studio",
    "foyer",
    "lobby",
    "raum",
    "saal",
    "werkstatt",
    "cafe",
    "salle",
    "laboratoire",
    "cour",
    "hall",
    "sala",
    "auditorio",
    "explanada",
    "vestibulo",
    "aula",
    "fuaye",
    "fuayesi",
    "audimax",
    "horsaal",
    "amphitheatre",
    // A yard, garden or terrace, an entrance (`Kellerwerk – Hof`, `Cimetière (entrée
    // haute)`): a part of the place.
    "hof",
    "innenhof",
    "garten",
    "terrasse",
    "courtyard",
    "terrace",
    "garden",
    "entree",
    "entrance",
    "eingang",
    "entrada",
    "giris",
];

/// Separators between a venue and its room.
const SEPARATORS: &[&str] = &[" – ", " — ", " - ", ", "];

/// The venue without its room, when the name ends with one after a dash, a comma or in
/// brackets and the building before it is named in two words or more without a digit
/// (`VHS-Haus, Saal 1` keeps its room: `VHS-Haus` alone names no one building);
/// `None` when the name holds no room.
pub(crate) fn without_room(name: &str) -> Option<String> {
    let name = name.trim();
    if name.len() > 200 {
        return None;
    }
    let (head, tail) = if let Some(open) = name.strip_suffix(')').and_then(|n| n.rfind(" (")) {
        (&name[..open], &name[open + 2..name.len() - 1])
    } else {
        SEPARATORS
            .iter()
            .filter_map(|s| name.rfind(s).map(|at| (at, s.len())))
            .max()
            .map(|(at, len)| (&name[..at], &name[at + len..]))?
    };
    let head = head.trim();
    let folded = fold_diacritics(tail);
    let mut words = folded.split_whitespace();
    let first = words.next()?.trim_end_matches(|c: char| !c.is_alphanumeric());
    // A hall named by its size (`Büyük Salon`, `Kleiner Saal`, `Grande salle`).
    let sized = SIZES.contains(&first)
        && words.next().is_some_and(|w| ROOM_WORDS.contains(&w) || SIZED_ROOMS.contains(&w));
    let building = head.split_whitespace().count() >= 2
        && !head.chars().any(|c| c.is_ascii_digit())
        && !head.contains(['(', ')', ',']);
    (building && (ROOM_WORDS.contains(&first) || sized)).then(|| head.to_owned())
}

/// Words that size a hall, folded: `Büyük Salon`, `Kleiner Saal`, `Grande salle`.
const SIZES: &[&str] = &[
    "main", "large", "small", "great", "grosser", "grosse", "kleiner", "kleine", "grand", "grande",
    "petit", "petite", "gran", "pequena", "buyuk", "kucuk",
];

/// Room words that name a room only after a size (`Salon A` may be a venue's name).
const SIZED_ROOMS: &[&str] = &["salon", "salonu", "sahne", "buhne", "stage", "scene"];

/// Whether a place is everywhere rather than somewhere (`ganzes Quartier`, `whole
/// village`, `toute la ville`): no venue.
pub(crate) fn is_everywhere(place: &str) -> bool {
    let first = place.split_whitespace().next().unwrap_or_default();
    ["ganzes", "ganze", "gesamtes", "whole", "entire", "toute", "tout", "todo", "toda", "tüm"]
        .contains(&first)
}

/// Nouns of a space inside a school's, a club's or a campus's grounds, folded.
const SPACES: &[&str] = &[
    "salonu",
    "salon",
    "alani",
    "bahcesi",
    "odasi",
    "hall",
    "room",
    "gym",
    "gymnasium",
    "playground",
    "yard",
    "aula",
    "turnhalle",
    "sporthalle",
    "schulhof",
    "pausenhalle",
    "mensa",
    "gymnase",
    "preau",
    "cour",
    "gimnasio",
    "patio",
];

/// Words that qualify such a space without naming a place, folded.
const QUALIFIERS: &[&str] = &[
    "konferans",
    "kapali",
    "spor",
    "toren",
    "okul",
    "toplanti",
    "cok",
    "amacli",
    "main",
    "school",
    "sports",
    "sport",
    "function",
    "meeting",
    "conference",
    "assembly",
    "dining",
    "the",
    "de",
    "actos",
    "usos",
    "multiples",
    "l",
    "ecole",
    "la",
    "du",
    "college",
];

/// Whether a place is a space of the house named by common words alone (`Konferans
/// Salonu`, `Okul Bahçesi`, `Tören Alanı`, `School Hall`, `Turnhalle`, `Salón de actos`):
/// no proper name, so the site's own venue's; `Karşıyaka Spor Salonu` names a place.
pub(crate) fn is_common_space(text: &str) -> bool {
    let folded = fold_diacritics(text.trim()).to_lowercase();
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    (1..=4).contains(&words.len())
        && words.iter().any(|w| SPACES.contains(w))
        && words.iter().all(|w| SPACES.contains(w) || QUALIFIERS.contains(w))
}

/// Whether a short text names only a room of the house (`Studio`, `Foyer`, `Großes
/// Haus`, `Sala 2`): a theatre's stage, no place of its own.
pub(crate) fn is_room(text: &str) -> bool {
    let folded = fold_diacritics(text.trim());
    let words: Vec<&str> = folded.split_whitespace().collect();
    // `Sitzungssaal`, `Gruppenraum`: German compounds of a room word.
    let room = |w: &str| {
        ROOM_WORDS.contains(&w)
            || w == "haus"
            || ["saal", "raum"].iter().any(|r| w.len() > r.len() + 3 && w.ends_with(r))
    };
    let number = |w: &str| w.chars().all(|c| c.is_ascii_digit() || c == '.');
    match words[..] {
        [one] => room(one),
        [first, second] => {
            room(first) && number(second)
                || room(second) && ["es", "e", "er"].iter().any(|e| first.ends_with(e))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::{is_room, without_room};

    #[test]
    fn a_yard_or_an_entrance_is_a_part_of_the_place() {
        assert_eq!(without_room("Kulturkeller Nord – Hof").as_deref(), Some("Kulturkeller Nord"));
        assert_eq!(
            without_room("Parc des Tilleuls (entrée nord)").as_deref(),
            Some("Parc des Tilleuls")
        );
        assert_eq!(without_room("Kulturkeller Nord – Löwenhof"), None);
    }

    #[test]
    fn spaces_named_by_common_words() {
        for space in [
            "Konferans Salonu",
            "Okul Bahçesi",
            "Tören Alanı",
            "Kapalı Spor Salonu",
            "School Hall",
            "Main Gym",
            "Turnhalle",
            "Salón de actos",
            "Cour de l'école",
        ] {
            assert!(super::is_common_space(space), "{space}");
        }
        for place in [
            "Karşıyaka Spor Salonu",
            "Corn Exchange Hall",
            "Salle des fêtes",
            "Stadthalle Beuel",
            "Plaza Mayor",
        ] {
            assert!(!super::is_common_space(place), "{place}");
        }
    }

    #[test]
    fn places_that_are_everywhere() {
        use super::is_everywhere;
        assert!(is_everywhere("ganzes Quartier"));
        assert!(is_everywhere("ganzes Gemeindegebiet"));
        assert!(!is_everywhere("Ganzer Hof"));
        assert!(!is_everywhere("Pfadiheim Waldegg"));
    }

    #[test]
    fn rooms_of_the_house() {
        for room in [
            "Studio",
            "Foyer",
            "Großes Haus",
            "Kleines Haus",
            "Sala 2",
            "Saal",
            "Sitzungssaal 1.12",
            "Großer Sitzungssaal",
        ] {
            assert!(is_room(room), "{room}");
        }
        for place in ["Stadthofsaal Uster", "Pfadiheim Waldegg", "Ana Sahne", "Gemeindehaus"] {
            assert!(!is_room(place), "{place}");
        }
    }

    #[test]
    fn a_room_after_the_venue() {
        // Issue 24, pages 107, 117, 144, 221, 235.
        let cases = [
            ("Museo de Ciencias de Tlalpan – Sala de Talleres 2", "Museo de Ciencias de Tlalpan"),
            ("Museo de Ciencias de Tlalpan – Explanada del museo", "Museo de Ciencias de Tlalpan"),
            ("Museo de Ciencias de Tlalpan – Vestíbulo principal", "Museo de Ciencias de Tlalpan"),
            ("Stadtteilzentrum Gröpelingen, Café", "Stadtteilzentrum Gröpelingen"),
            ("VHS-Haus am Markt, Raum 105", "VHS-Haus am Markt"),
            ("Maison de quartier des Capucins (cour)", "Maison de quartier des Capucins"),
            ("Nazım Hikmet Kültür Merkezi – Büyük Salon", "Nazım Hikmet Kültür Merkezi"),
            ("Stadthalle Beuel, Kleiner Saal", "Stadthalle Beuel"),
            (
                "Bibliothèque centrale Gérard-Lavoie – laboratoire informatique",
                "Bibliothèque centrale Gérard-Lavoie",
            ),
        ];
        for (name, venue) in cases {
            assert_eq!(without_room(name).as_deref(), Some(venue), "{name}");
        }
    }

    #[test]
    fn no_room_to_take_off() {
        for name in [
            // A one-word building, an address with its room, a venue alone.
            "VHS-Haus, Saal 1",
            "121 N LaSalle 10th Floor, Room 1006C",
            "Salle des fêtes",
            "Teatro Municipal Cervantes",
            "Körfez Kongre ve Sergi Merkezi – Salon A",
            // What follows is no room.
            "Casa de Cultura, Plaza Mayor",
            "Théâtre de la Ville – Paris",
            "",
        ] {
            assert_eq!(without_room(name), None, "{name}");
        }
    }
}
