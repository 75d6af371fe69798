//! Whether a link's text books the event: a short link that names tickets
//! (`Karten online kaufen`, `Comprar boletas`, `Entradas anticipadas`) or opens with a
//! booking verb (`Reservar este pase`), or registers for it (`Register`, `Sign up here`,
//! `Zur Anmeldung`, `Kayıt ol`), and is not a page about tickets (`Ticket info`, `Tickets
//! & Preise`) or a newsletter.

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
    // Advance sales (`Prévente finale`, `Preventa online`, `Vorverkauf`, `Presale`).
    "prevente",
    "preventa",
    "vorverkauf",
    "presale",
];

/// Verbs that book whatever follows them, folded (`Reservar este pase`, `Jetzt buchen`),
/// and the verbs that enter a race or a tournament (`Inscribirme`, `Inscribir equipo`,
/// `S'inscrire`): its entry is its ticket.
const BOOKING_VERBS: &[&str] = &[
    "reservar",
    "reserver",
    "reservieren",
    "buchen",
    "comprar",
    "inscribirme",
    "inscribir",
    "inscribete",
    "inscribirse",
    "inscrire",
    "inscrivez",
];

/// Verbs and nouns that register for an event, folded: registration is the ticket of a
/// free or limited event (the labels take a registration form as the ticket link):
/// `Register on HamStudy`, `Jetzt anmelden`, `Zur Online-Anmeldung`.
/// The nouns of registration count too (`Formulario de inscripción`, `Kayıt formu`,
/// `Sporcu kaydı`, `Registration form`), and the polite and familiar imperatives
/// (`Inscríbase`, `Apúntate aquí`).
const REGISTER_WORDS: &[&str] = &[
    "register",
    "registration",
    "enrol",
    "enroll",
    "anmelden",
    "anmeldung",
    "kaydol",
    "kayit",
    "kaydi",
    // French `inscription` is left out: a club's enrolment page or a stallholder's form
    // (`bulletin d'inscription`) as often as the event's registration.
    "inscripcion",
    "inscribase",
    "apuntate",
];

/// Two-word verbs that register, folded: `Sign up here`, `Hemen kayıt ol`.
const REGISTER_PHRASES: &[&str] = &["sign up", "kayit ol"];

/// English verbs that book only when nothing but filler follows (`Book now`, `Buy
/// online`, `Enter online`), as `Book club` or `Reserve walk` name things.
const PLAIN_VERBS: &[&str] = &["book", "buy", "reserve", "enter"];

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
    // A newsletter's sign-up is no event's (`Sign up for the weekly e-news`).
    "news",
    "newsletter",
    "enews",
];

/// The longest booking link text, in words.
const MAX_WORDS: usize = 6;

/// Whether a link's text books the event it sits with, or registers for it.
pub(super) fn is_booking_text(text: &str) -> bool {
    books(text) || registers(text)
}

/// Whether a link's text registers for the event ([`REGISTER_WORDS`], `Sign up here`,
/// `Kayıt ol`) without naming tickets or a booking: on the page's own site, such a link
/// (`<a href="/events/spring-camp">Register</a>`) may be the event's own page.
pub(super) fn registers_only(text: &str) -> bool {
    registers(text) && !books(text)
}

/// Whether a short link's text registers: a registering word or phrase, and no word of
/// information or newsletters.
fn registers(text: &str) -> bool {
    let folded = fold_diacritics(text);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > MAX_WORDS || words.iter().any(|w| INFO_WORDS.contains(w)) {
        return false;
    }
    let joined = format!(" {} ", words.join(" "));
    words.iter().any(|w| REGISTER_WORDS.contains(w))
        || REGISTER_PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
}

/// Whether a link's text names tickets or books ([`TICKET_NOUNS`], [`BOOKING_VERBS`]).
fn books(text: &str) -> bool {
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

/// Link schemes that reach a person or a script, not a booking page.
const UNBOOKABLE_SCHEMES: &[&str] = &["mailto:", "tel:", "sms:", "javascript:", "geo:"];

/// Hosts and paths of map services, folded: a map shows the way, it sells no ticket.
const MAP_MARKERS: &[&str] = &[
    "maps.google.",
    "google.com/maps",
    "maps.app.goo.gl",
    "goo.gl/maps",
    "openstreetmap.org",
    "maps.apple.com",
    "bing.com/maps",
    "waze.com",
];

/// A link wrapped in a redirector's click tracking (Google's `/url?q=…`, Facebook's
/// `l.php?u=…`, Outlook's safe links `?url=…`): the link it leads to; `None` for a link
/// that is no such redirect.
pub(crate) fn unwrapped(href: &str) -> Option<String> {
    let url = url::Url::parse(href.trim()).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let key = if host.split('.').any(|p| p == "google") && url.path() == "/url" {
        "q"
    } else if (host == "l.facebook.com" || host == "lm.facebook.com") && url.path() == "/l.php" {
        "u"
    } else if host.ends_with(".safelinks.protection.outlook.com") {
        "url"
    } else {
        return None;
    };
    let (_, target) = url.query_pairs().find(|(k, _)| k == key)?;
    let target = url::Url::parse(&target).ok()?;
    matches!(target.scheme(), "http" | "https").then(|| target.to_string())
}

/// Paths of a site's log-in page, folded: `Anmelden` in a site's bar logs its members
/// in, it registers no one for an event.
const LOGIN_MARKERS: &[&str] = &["/login", "/log-in", "/signin", "/sign-in"];

/// Whether a link may be a ticket link: not a mail, phone or script link, not a map, not
/// a log-in page.
pub(crate) fn is_booking_target(href: &str) -> bool {
    let h = href.trim().to_ascii_lowercase();
    !h.is_empty()
        && !UNBOOKABLE_SCHEMES.iter().any(|s| h.starts_with(s))
        && !MAP_MARKERS.iter().any(|m| h.contains(m))
        && !LOGIN_MARKERS.iter().any(|m| h.contains(m))
}

#[cfg(test)]
mod tests {
    use super::{is_booking_target, is_booking_text, registers_only};

    #[test]
    fn booking_targets() {
        for (href, booking) in [
            ("https://tickets.example/show/12", true),
            ("/billetterie/vannes", true),
            ("mailto:box@theatre.example", false),
            ("TEL:+44 1632 960000", false),
            ("https://www.google.com/maps/place/Corn+Exchange", false),
            ("https://maps.app.goo.gl/abc", false),
            ("https://www.openstreetmap.org/?mlat=1", false),
            ("https://www.club.example/login?next=/", false),
            ("", false),
        ] {
            assert_eq!(is_booking_target(href), booking, "{href}");
        }
    }

    #[test]
    fn redirect_wrapped_links() {
        for (href, want) in [
            (
                "https://www.google.com/url?q=https%3A%2F%2Ftickets.example.com%2Fe%2F7&sa=D&usg=x",
                Some("https://tickets.example.com/e/7"),
            ),
            (
                "https://l.facebook.com/l.php?u=https%3A%2F%2Fshop.example.org%2Fbuy%3Fid%3D3&h=AT0",
                Some("https://shop.example.org/buy?id=3"),
            ),
            (
                "https://eur01.safelinks.protection.outlook.com/?url=https%3A%2F%2Fforms.example.net%2Fr&data=1",
                Some("https://forms.example.net/r"),
            ),
            // Not a redirect, or one to no web page.
            ("https://www.google.com/maps/place/x", None),
            ("https://tickets.example.com/url?q=https%3A%2F%2Fa.example", None),
            ("https://www.google.com/url?q=javascript%3Aalert(1)", None),
        ] {
            assert_eq!(super::unwrapped(href).as_deref(), want, "{href}");
        }
    }

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
            ("Inscribirme", true),
            ("Inscribir equipo", true),
            ("S'inscrire", true),
            ("register on HamStudy", true),
            ("Register", true),
            ("sign up here", true),
            ("Enter online", true),
            ("Anmelden", true),
            ("Zur Online-Anmeldung", true),
            ("Hemen kayıt ol", true),
            ("Prévente finale", true),
            ("Vorverkauf", true),
            // Registration's nouns and imperatives.
            ("Formulario de inscripción", true),
            ("Inscríbase", true),
            ("Apúntate aquí", true),
            ("Kayıt formu", true),
            ("Sporcu kaydı", true),
            ("Registration form", true),
            ("Registros públicos", false),
            ("Registration info", false),
            ("Sign up for the weekly e-news", false),
            ("Newsletter: sign up", false),
            ("Enter the archive", false),
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
        assert!(registers_only("Register"));
        assert!(!registers_only("Register and buy tickets"));
        assert!(!registers_only("Tickets"));
    }
}
