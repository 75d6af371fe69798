//! Word lists and their predicates, in the five languages: status words, closure and
//! publication lines, ticket words, link texts that are never titles, and a programme's
//! breaks.

use gleaner_event::text::collapse;

/// Link texts that book a performance (folded): a booking link's word is never a title.
pub(super) const TICKET_WORDS: &[&str] = &[
    "book",
    "book now",
    "book tickets",
    "tickets",
    "buy tickets",
    "get tickets",
    "vorverkauf",
    "karten",
    "tickets kaufen",
    "karten kaufen",
    "buchen",
    "jetzt buchen",
    "reservieren",
    "billets",
    "billetterie",
    "reserver",
    "reservation",
    "entradas",
    "comprar",
    "comprar entradas",
    "boletos",
    "comprar boletos",
    "reservar",
    "reservas",
    "bilet",
    "bilet al",
    "biletler",
    "rezervasyon",
];

/// Words that say a place is closed, a deadline, or a pass valid, in the five languages (lower-cased).
const CLOSURE_WORDS: &[&str] = &[
    "closed",
    "closure",
    "fermeture",
    "fermé",
    "fermée",
    "geschlossen",
    "schließung",
    "betriebsferien",
    "cerrado",
    "cerrada",
    "cierre",
    "kapalı",
    "kapalıdır",
    // A deadline to sign up (`Plazo hasta el 20 de marzo`, `Anmeldeschluss 3. Mai`).
    "plazo",
    "deadline",
    "anmeldeschluss",
    "einsendeschluss",
    "bewerbungsschluss",
    "limite",
    "límite",
    // A call for entries (`Son başvuru: 15 Ocak 2027`): its dates are when to apply.
    "başvuru",
    // A pass's or fare's validity (`valable du 1er septembre 2026 au 30 juin 2027`).
    "valable",
    "valid",
    "gültig",
    "válido",
    "válida",
    "geçerli",
];

/// Whether a line is a closure notice, whose dates are when nothing happens (`Fermeture
/// estivale du 3 au 22 août`, `Closed 24–26 December`, `Betriebsferien`, `Cerrado por
/// vacaciones`), gives a deadline, or says how long a pass is valid: a listing's item or a page's date
/// never comes from one.
/// A closing event (`Noche de cierre`, `concierto de cierre`: "de" before the word) is
/// no closure.
pub(super) fn is_closure_line(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.iter().enumerate().any(|(i, w)| {
        CLOSURE_WORDS.contains(w) && !(*w == "cierre" && i > 0 && words[i - 1] == "de")
    })
}

pub(super) fn is_publication_line(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "posted",
        "published",
        "updated",
        "publié",
        "mis à jour",
        // A date something will be published on (`sera mis en ligne le 4 septembre`).
        "mis en ligne",
        "will be announced",
        "sera annoncé",
        "veröffentlicht",
        "aktualisiert",
        "publicado",
        "yayın",
        "güncel",
        "©",
        "copyright",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// Status words a row or card prints (a badge, a class-free note) and the schema.org
/// status each states, compared as whole folded words. `suspendido`/`suspendu` call an
/// event off (tickets refunded): cancelled.
pub(super) const STATUS_WORDS: [(&str, &str); 29] = [
    ("cancelled", "cancelled"),
    ("canceled", "cancelled"),
    ("annule", "cancelled"),
    ("annulee", "cancelled"),
    ("abgesagt", "cancelled"),
    ("entfallt", "cancelled"),
    ("iptal", "cancelled"),
    ("cancelado", "cancelled"),
    ("cancelada", "cancelled"),
    ("suspendido", "cancelled"),
    ("suspendida", "cancelled"),
    ("suspendu", "cancelled"),
    ("suspendue", "cancelled"),
    ("postponed", "postponed"),
    ("reporte", "postponed"),
    ("reportee", "postponed"),
    ("verschoben", "postponed"),
    ("ertelendi", "postponed"),
    ("aplazado", "postponed"),
    ("aplazada", "postponed"),
    ("pospuesto", "postponed"),
    ("pospuesta", "postponed"),
    // Latin America's word for it (`POSTERGADA. … Nueva fecha a confirmar`).
    ("postergado", "postponed"),
    ("postergada", "postponed"),
    // Turkish's written past (`etkinlik ertelenmiştir`, `iptal edilmiştir`).
    ("ertelenmistir", "postponed"),
    ("ertelenmisti", "postponed"),
    ("rescheduled", "rescheduled"),
    ("reprogramado", "rescheduled"),
    ("reprogramada", "rescheduled"),
];

/// Most words between `fällt` and its `aus` (`fällt in dieser Session leider aus`).
const SEPARABLE_WORDS: usize = 5;

/// The status a text states with one status word (`POSTPONED`, `– abgesagt –`,
/// `ERTELENDİ`, `entfaellt`, `fällt aus`), or `None` when it states none or two different ones.
pub(crate) fn status_in(text: &str) -> Option<&'static str> {
    let folded = gleaner_event::datetext::fold_diacritics(text);
    let mut found = None;
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    // German's separable `fällt aus` (`– fällt aus`, `fällt leider aus`, `fällt in dieser
    // Session leider aus, da …`) calls it off: `aus` closing the clause a few words after
    // `fällt` (not `fällt aus dem Rahmen`).
    let separable =
        folded.split(['.', ',', ';', ':', '!', '?', '(', ')', '–', '—', '-']).any(|clause| {
            let w: Vec<&str> =
                clause.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
            w.last() == Some(&"aus")
                && w.iter()
                    .rposition(|x| matches!(*x, "fallt" | "faellt"))
                    .is_some_and(|i| w.len() - 1 - i <= SEPARABLE_WORDS)
        });
    if separable
        || words.windows(2).any(|w| matches!(w[0], "fallt" | "faellt") && w[1] == "aus")
        || words
            .windows(3)
            .any(|w| matches!(w[0], "fallt" | "faellt") && w[1] == "leider" && w[2] == "aus")
    {
        found = Some("cancelled");
    }
    for w in words {
        // German written without umlauts (`entfaellt`, a `<tr class="entfaellt">`) reads
        // as with them.
        let plain = w.replace("ae", "a").replace("oe", "o").replace("ue", "u");
        if let Some((_, status)) =
            STATUS_WORDS.iter().find(|(word, _)| *word == w || *word == plain)
        {
            if found.is_some_and(|f| f != *status) {
                return None;
            }
            found = Some(*status);
        }
    }
    found
}

/// Phrases that make a sentence a condition (folded): `En cas de pluie, le bal est
/// reporté au 21 juin`, `Bei Regen wird verschoben`, `Si llueve, se aplaza`, `Yağmur
/// durumunda ertelenir` say what would happen, not what has.
const CONDITIONS: &[&str] = &[
    "in case of",
    "in the event of",
    "if it rains",
    "if the weather",
    "should it rain",
    "en cas de",
    "s il pleut",
    "bei regen",
    "bei schlechtwetter",
    "bei schlechtem wetter",
    "bei schlechter witterung",
    "falls es regnet",
    "en caso de",
    "si llueve",
    "si hay lluvia",
    "yagmur",
    "yagis",
    "olumsuz hava",
    "durumunda",
    "halinde",
];

/// Whether a sentence is a condition: it holds one of [`CONDITIONS`].
fn is_condition(sentence: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(sentence);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let phrase = format!(" {} ", words.join(" "));
    CONDITIONS.iter().any(|c| phrase.contains(&format!(" {c} ")))
}

/// The status an item states (`status_in` of its text `all`) outside its conditional
/// sentences: when a sentence of its blocks `texts` is a condition ([`CONDITIONS`]), the
/// status of its other sentences.
pub(super) fn stated_status(all: &str, texts: &[String]) -> Option<&'static str> {
    if !is_condition(all) {
        return status_in(all);
    }
    let mut kept = String::new();
    for text in texts {
        for sentence in sentences(text) {
            if !is_condition(sentence) {
                kept.push_str(sentence);
            }
        }
        kept.push_str(" . ");
    }
    status_in(&kept)
}

/// A text's sentences: each ends at a `.`, `!`, `?` or `;` before white space or the
/// text's end, and not after a digit (`21. Juni`, `Sa., 4.`).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut from, mut prev) = (0, ' ');
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let before_space = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
        if matches!(c, '.' | '!' | '?' | ';') && before_space && !prev.is_ascii_digit() {
            out.push(&text[from..i + c.len_utf8()]);
            from = i + c.len_utf8();
        }
        prev = c;
    }
    out.push(&text[from..]);
    out
}

/// Whether a text is only a status badge (`POSTPONED`, `– abgesagt –`): never a title
/// nor part of one.
pub(crate) fn is_status_badge(text: &str) -> bool {
    if strip_status_tail(&format!("x – {text}")) == "x" {
        return true;
    }
    let words: Vec<&str> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    words.len() == 1 && status_in(words[0]).is_some()
}

/// Link texts that are not titles: a link to more about an item, in the five languages
/// (folded, without trailing arrows or dots).
const NOT_TITLES: &[&str] = &[
    "more",
    "en savoir",
    "read more",
    "more info",
    "more information",
    "more details",
    "details",
    "event details",
    "match info",
    "match details",
    "info",
    "find out more",
    "learn more",
    "see more",
    "view",
    "view event",
    "tickets",
    "register",
    "book",
    "en savoir plus",
    "plus",
    "plus d'infos",
    "plus d'info",
    "plus d'informations",
    "infos",
    "voir",
    "mehr",
    "mehr infos",
    "mehr erfahren",
    "weiterlesen",
    "weitere infos",
    "devami",
    "detay",
    "detaylar",
    "detayli bilgi",
    "incele",
    "leer mas",
    "ver mas",
    "mas informacion",
    "mas info",
    "informacion",
];

/// Whether a link's text is generic ("Match info", "Plus d'infos", "Más información",
/// "Mehr »"): a link to the item, never its title.
pub(super) fn is_generic_link_text(text: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(text);
    let t = folded
        .trim()
        .trim_end_matches(|c: char| !c.is_alphanumeric())
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .replace(['’', '`'], "'");
    let t = collapse(&t);
    NOT_TITLES.contains(&t.as_str()) || TICKET_WORDS.contains(&t.as_str())
}

/// Whether a title names a school or public holiday (`Ramazan Bayramı tatili`,
/// `Osterferien`, `Vacances de printemps`, `Vacaciones de Semana Santa`, `Spring
/// holidays`, `Half term`): days off, no event. A holiday's workshop (`Stage de
/// vacances`, `Ferienkurs`) is one.
pub(super) fn is_holiday_title(title: &str) -> bool {
    let head = title.split(['(', '[']).next().unwrap_or(title);
    let folded = gleaner_event::datetext::fold_diacritics(head);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else { return false };
    matches!(*first, "vacances" | "vacaciones")
        || last.ends_with("ferien")
        || matches!(*last, "tatil" | "tatili" | "holidays")
        || folded.trim().ends_with("half term")
}

/// A registration link's words (folded): `Inscripción`, `Anmeldung`, `Register`, `Kayıt`.
const REGISTRATION_WORDS: &[&str] = &[
    "inscripcion",
    "inscripciones",
    "inscribete",
    "inscription",
    "inscriptions",
    "anmeldung",
    "anmelden",
    "registration",
    "register",
    "sign up",
    "kayit",
    "kayit ol",
];

/// Whether a link's text only asks for registration (`Inscripción`, `Anmeldung`): a link
/// to a registration form, never the event's title.
pub(super) fn is_registration_text(text: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(text);
    let t = collapse(folded.trim_matches(|c: char| !c.is_alphanumeric()));
    REGISTRATION_WORDS.contains(&t.as_str())
}

/// How a conference programme's breaks and formalities are titled: a list with such a row
/// is the timetable of one event, whose sessions are not events of their own.
const SESSION_FILLERS: &[&str] = &[
    "coffee break",
    "lunch break",
    "registration",
    "pausa cafe",
    "pausa para el cafe",
    "acreditacion",
    "pause cafe",
    "pause-cafe",
    "accueil des participants",
    "kaffeepause",
    "mittagspause",
    "kahve arasi",
    "cay arasi",
    "ogle arasi",
];

/// Whether a row's title is a programme's break or formality (`Pausa café`,
/// `Registration and welcome coffee`).
pub(super) fn is_session_filler(title: &str) -> bool {
    let t = gleaner_event::datetext::fold_diacritics(title.trim());
    SESSION_FILLERS.iter().any(|f| t.starts_with(f))
}

/// A title without the status written after it (`Zu den Märzenbechern – fällt aus`,
/// `Fiesta de la espuma: SUSPENDIDA`): the status is the event's, never its title's.
pub(super) fn strip_status_tail(title: &str) -> String {
    for sep in [" – ", " — ", " - ", ": ", " · "] {
        if let Some((head, tail)) = title.rsplit_once(sep) {
            let words: Vec<String> = gleaner_event::datetext::fold_diacritics(tail)
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect();
            let only_status = status_in(tail).is_some()
                && (1..=3).contains(&words.len())
                && words.iter().all(|w| {
                    STATUS_WORDS.iter().any(|(s, _)| s == w)
                        || ["fallt", "faellt", "aus", "leider"].contains(&w.as_str())
                });
            if only_status && !head.trim().is_empty() {
                return head.trim().to_owned();
            }
        }
    }
    title.to_owned()
}

#[cfg(test)]
mod status_word_tests {
    use super::status_in;

    #[test]
    fn a_rescheduled_badge() {
        // Issue 24, page 278: `REPROGRAMADO` beside a struck date.
        assert_eq!(status_in("Mié 15 abr REPROGRAMADO"), Some("rescheduled"));
        assert_eq!(status_in("Fecha reprogramada"), Some("rescheduled"));
        assert_eq!(status_in("Programa de mano"), None);
    }

    #[test]
    fn postponed_in_other_words() {
        assert_eq!(status_in("POSTERGADA. Nueva fecha a confirmar."), Some("postponed"));
        assert_eq!(status_in("Función postergado por lluvia"), Some("postponed"));
        assert_eq!(status_in("Konser hava koşulları nedeniyle ertelenmiştir."), Some("postponed"));
        assert_eq!(status_in("Charla pospuesta"), Some("postponed"));
    }
}

#[cfg(test)]
mod registration_tests {
    use super::{is_holiday_title, is_registration_text};

    #[test]
    fn holidays_are_no_events() {
        // Issue 24, page 348: a school calendar's holiday rows.
        for (t, holiday) in [
            ("Ramazan Bayramı tatili (19 Mart arife, yarım gün)", true),
            ("Osterferien", true),
            ("Vacances de printemps", true),
            ("Vacaciones de Semana Santa", true),
            ("Spring holidays", true),
            ("Stage de vacances", false),
            ("Ferienkurs Malen", false),
            ("Holiday Dinner & Awards Night", false),
        ] {
            assert_eq!(is_holiday_title(t), holiday, "{t}");
        }
    }

    #[test]
    fn registration_links_in_five_languages() {
        for t in ["Inscripción", "Anmeldung »", "Register", "Kayıt ol", "Inscription"] {
            assert!(is_registration_text(t), "{t}");
        }
        for t in ["Registration opens for the Spring Relay", "Trail de los Molinos"] {
            assert!(!is_registration_text(t), "{t}");
        }
    }
}

#[cfg(test)]
mod closure_tests {
    use super::is_closure_line;

    #[test]
    fn a_closing_night_is_no_closure() {
        // Issue 24, page 258: `Noche de cierre` is the carnival's last night.
        for (line, closure) in [
            ("Vie 06/03 – Noche de cierre y fallo del jurado", false),
            ("Concierto de cierre de temporada", false),
            ("Cierre por vacaciones del 1 al 15 de agosto", true),
            ("Cerrado el 1 de mayo", true),
            ("Fermeture estivale du 3 au 22 août", true),
        ] {
            assert_eq!(is_closure_line(line), closure, "{line}");
        }
    }
}
