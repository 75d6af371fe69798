//! The sites of the sample city: twenty venues in five languages and the five hosts that
//! are not venues (a town hall, a licensed ticketing API, an open-data portal, a press
//! agency and a mock language-model server).
//!
//! This module owns the fixed facts (names, addresses, languages, time zones, which
//! markup each venue uses, which sites say no). Events live in [`crate::events`].

use chrono_tz::Tz;
use serde::Serialize;

/// A language of the sample city, with the words its pages use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English (Montreal venues).
    En,
    /// Turkish (İzmir venues).
    Tr,
    /// French (Troyes venues and the town hall).
    Fr,
    /// Spanish (Madrid venues).
    Es,
    /// German (Leipzig venues).
    De,
}

impl Lang {
    /// The BCP 47 code used in `lang` attributes and `inLanguage`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Tr => "tr",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::De => "de",
        }
    }

    /// The path of the event listing on a venue of this language (ends with `/`).
    pub fn listing_path(self) -> &'static str {
        match self {
            Lang::En => "/events/",
            Lang::Tr => "/etkinlikler/",
            Lang::Fr | Lang::Es => "/agenda/",
            Lang::De => "/veranstaltungen/",
        }
    }

    /// "Events" in this language (listing titles).
    pub(crate) fn events_word(self) -> &'static str {
        match self {
            Lang::En => "What's on",
            Lang::Tr => "Etkinlikler",
            Lang::Fr => "Agenda",
            Lang::Es => "Agenda",
            Lang::De => "Veranstaltungen",
        }
    }

    /// "Next page" in this language.
    pub(crate) fn next_word(self) -> &'static str {
        match self {
            Lang::En => "Next page",
            Lang::Tr => "Sonraki sayfa",
            Lang::Fr => "Page suivante",
            Lang::Es => "Página siguiente",
            Lang::De => "Nächste Seite",
        }
    }

    /// "Free" as a price in this language.
    pub(crate) fn free_word(self) -> &'static str {
        match self {
            Lang::En => "Free admission",
            Lang::Tr => "Ücretsiz",
            Lang::Fr => "Gratuit",
            Lang::Es => "Entrada libre",
            Lang::De => "Eintritt frei",
        }
    }

    /// Labels for date, place, price and status, in this language.
    pub(crate) fn labels(self) -> [&'static str; 4] {
        match self {
            Lang::En => ["Date", "Venue", "Price", "Status"],
            Lang::Tr => ["Tarih", "Mekân", "Fiyat", "Durum"],
            Lang::Fr => ["Date", "Lieu", "Tarif", "Statut"],
            Lang::Es => ["Fecha", "Lugar", "Precio", "Estado"],
            Lang::De => ["Datum", "Ort", "Preis", "Status"],
        }
    }

    /// "Terms of use" in this language.
    pub(crate) fn terms_word(self) -> &'static str {
        match self {
            Lang::En => "Terms of use",
            Lang::Tr => "Kullanım koşulları",
            Lang::Fr => "Mentions légales",
            Lang::Es => "Aviso legal",
            Lang::De => "Nutzungsbedingungen",
        }
    }
}

/// How a venue's event pages state their facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Markup {
    /// One JSON-LD `Event` (or subtype) object.
    JsonLd,
    /// JSON-LD with an `@graph` holding the event, its place and the organiser.
    JsonLdGraph,
    /// A JSON-LD array: a `WebPage` (or `BreadcrumbList`) and the event.
    JsonLdArray,
    /// schema.org microdata only.
    Microdata,
    /// RDFa Lite only.
    Rdfa,
    /// No structured data: a table or cards with class names, for per-site rules.
    Plain,
    /// An iCalendar feed (the town hall's agenda).
    ICalendar,
}

/// What a site is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A venue with a listing, event pages, a sitemap and maybe a feed or an API.
    Venue,
    /// The town hall: news feeds (RSS and Atom), an iCalendar agenda, terms.
    TownHall,
    /// A ticketing API that wants a key in the query string and rate-limits.
    LicensedApi,
    /// An open-data portal: weather warnings and fuel prices (JSON and CSV).
    OpenData,
    /// A press agency: image terms, press images, `ai.txt`, TDMRep.
    PressAgency,
    /// A mock OpenAI-compatible chat-completions server (infrastructure, not crawled).
    LanguageModel,
}

/// How a site says no to a polite bot (the demo's refusals).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// robots.txt has `Disallow: /` in the bot's group.
    RobotsDisallowAll,
    /// Event pages answer 429 with `Retry-After` for the first part of the run
    /// ([`crate::City::throttle_for`]), then normally.
    Throttle,
    /// `/.well-known/tdmrep.json` and a `tdm-reservation: 1` header reserve every page.
    TdmReservation,
}

/// One site of the city.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    /// A short stable key, e.g. `izmir-sanat`.
    pub key: &'static str,
    /// The name shown on its pages (the venue name for venues).
    pub name: &'static str,
    /// What the site is for.
    pub role: Role,
    /// The language of its pages.
    pub lang: Lang,
    /// The IANA zone its times are stated in.
    #[serde(serialize_with = "tz_name")]
    pub zone: Tz,
    /// Street address.
    pub street: &'static str,
    /// Postal code.
    pub postal_code: &'static str,
    /// Town or city.
    pub locality: &'static str,
    /// ISO 3166-1 alpha-2 country code.
    pub country: &'static str,
    /// ISO 4217 currency of its prices.
    pub currency: &'static str,
    /// How its event pages state their facts.
    pub markup: Markup,
    /// How it says no, if it does.
    pub refusal: Option<Refusal>,
    /// Extras this site serves (feeds, API, noai headers …).
    pub extras: &'static [Extra],
}

/// Optional content a venue serves beyond its listing and event pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Extra {
    /// An RSS 2.0 feed of its events at `{listing}feed.rss`.
    RssEvents,
    /// An Atom feed of its events at `{listing}feed.atom`.
    AtomEvents,
    /// A JSON events API at `/api/events.json`.
    JsonApi,
    /// `X-Robots-Tag: noai, noimageai`, robots meta `noai, noimageai` and an `ai.txt`
    /// that disallows everything.
    NoAi,
    /// One event page carries `<meta name="robots" content="noindex">`.
    NoindexPage,
    /// robots.txt disallows `{listing}private/` for the bot, and one linked event lives there.
    PrivatePath,
}

fn tz_name<S: serde::Serializer>(tz: &Tz, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tz.name())
}

impl Site {
    /// Whether this site is a venue (has a listing and event pages).
    pub fn is_venue(&self) -> bool {
        self.role == Role::Venue
    }

    /// Whether the site serves `extra`.
    pub fn has(&self, extra: Extra) -> bool {
        self.extras.contains(&extra)
    }

    /// The one-line postal address, as the venue's pages write it.
    pub fn address_line(&self) -> String {
        match self.country {
            "CA" => format!("{}, {} QC {}", self.street, self.locality, self.postal_code),
            _ => format!("{}, {} {}", self.street, self.postal_code, self.locality),
        }
    }
}

#[allow(clippy::too_many_arguments)] // a table row: one argument per column reads best
const fn venue(
    key: &'static str,
    name: &'static str,
    lang: Lang,
    street: &'static str,
    postal_code: &'static str,
    markup: Markup,
    refusal: Option<Refusal>,
    extras: &'static [Extra],
) -> Site {
    let (zone, locality, country, currency) = match lang {
        Lang::En => (chrono_tz::America::Montreal, "Montréal", "CA", "CAD"),
        Lang::Tr => (chrono_tz::Europe::Istanbul, "İzmir", "TR", "TRY"),
        Lang::Fr => (chrono_tz::Europe::Paris, "Troyes", "FR", "EUR"),
        Lang::Es => (chrono_tz::Europe::Madrid, "Madrid", "ES", "EUR"),
        Lang::De => (chrono_tz::Europe::Berlin, "Leipzig", "DE", "EUR"),
    };
    Site {
        key,
        name,
        role: Role::Venue,
        lang,
        zone,
        street,
        postal_code,
        locality,
        country,
        currency,
        markup,
        refusal,
        extras,
    }
}

const fn host(key: &'static str, name: &'static str, role: Role, lang: Lang) -> Site {
    let (zone, locality, country, currency) = match lang {
        Lang::En => (chrono_tz::America::Montreal, "Montréal", "CA", "CAD"),
        _ => (chrono_tz::Europe::Paris, "Troyes", "FR", "EUR"),
    };
    Site {
        key,
        name,
        role,
        lang,
        zone,
        street: "1 place de l'Hôtel de Ville",
        postal_code: "10000",
        locality,
        country,
        currency,
        markup: Markup::Plain,
        refusal: None,
        extras: &[],
    }
}

/// Every site of the sample city, in site order (site `i` is `sites()[i]`).
///
/// All names are invented; none is a real venue's.
pub fn sites() -> Vec<Site> {
    use Extra::*;
    use Lang::*;
    use Markup::*;
    let mut town_hall = host("mairie-sainte-aube", "Ville de Sainte-Aube", Role::TownHall, Fr);
    town_hall.markup = ICalendar;
    vec![
        venue(
            "izmir-sanat",
            "İzmir Sanat Evi",
            Tr,
            "Cumhuriyet Bulvarı No: 142, Alsancak",
            "35220",
            JsonLd,
            None,
            &[],
        ),
        venue(
            "kordon-kultur",
            "Kordon Kültür Merkezi",
            Tr,
            "Atatürk Caddesi No: 88, Konak",
            "35250",
            JsonLdGraph,
            None,
            &[PrivatePath],
        ),
        venue(
            "bornova-sahne",
            "Bornova Açık Sahne",
            Tr,
            "Kazımdirik Mahallesi 372. Sokak No: 5",
            "35100",
            Microdata,
            None,
            &[],
        ),
        venue(
            "karsiyaka-kitaplik",
            "Karşıyaka Halk Kitaplığı",
            Tr,
            "Cemal Gürsel Caddesi No: 410",
            "35600",
            Plain,
            None,
            &[],
        ),
        venue(
            "theatre-des-halles",
            "Théâtre des Halles de Troyes",
            Fr,
            "12 rue de la Monnaie",
            "10000",
            JsonLdArray,
            None,
            &[],
        ),
        venue(
            "espace-seine",
            "Espace culturel de la Seine",
            Fr,
            "4 quai Dampierre",
            "10000",
            Rdfa,
            None,
            &[],
        ),
        venue(
            "mediatheque-aube",
            "Médiathèque du Grand Aube",
            Fr,
            "7 rue des Filles-Dieu",
            "10000",
            JsonLd,
            Some(Refusal::TdmReservation),
            &[],
        ),
        venue(
            "cabaret-vauluisant",
            "Cabaret du Vauluisant",
            Fr,
            "21 rue de Vauluisant",
            "10000",
            Plain,
            None,
            &[],
        ),
        venue(
            "teatro-lavapies",
            "Teatro Pequeño de Lavapiés",
            Es,
            "Calle del Ave María 31",
            "28012",
            JsonLdGraph,
            None,
            &[],
        ),
        venue(
            "sala-malasana",
            "Sala Malasaña Sonora",
            Es,
            "Calle de San Vicente Ferrer 40",
            "28004",
            JsonLd,
            Some(Refusal::Throttle),
            &[],
        ),
        venue(
            "centro-arganzuela",
            "Centro Cultural Arganzuela",
            Es,
            "Paseo de la Chopera 10",
            "28045",
            Microdata,
            None,
            &[RssEvents],
        ),
        venue(
            "casa-chamberi",
            "Casa de Vecinos de Chamberí",
            Es,
            "Calle de Fuencarral 120",
            "28010",
            Plain,
            None,
            &[],
        ),
        venue(
            "kulturhaus-plagwitz",
            "Kulturhaus Plagwitz",
            De,
            "Karl-Heine-Straße 61",
            "04229",
            JsonLd,
            None,
            &[AtomEvents],
        ),
        venue(
            "bastei-keller",
            "Basteikeller am Ring",
            De,
            "Universitätsstraße 9",
            "04109",
            Rdfa,
            None,
            &[],
        ),
        venue(
            "schaubude-lindenau",
            "Schaubude Lindenau",
            De,
            "Georg-Schwarz-Straße 20",
            "04177",
            JsonLdArray,
            Some(Refusal::RobotsDisallowAll),
            &[],
        ),
        venue(
            "stadtteilbibliothek-gohlis",
            "Stadtteilbibliothek Gohlis",
            De,
            "Georg-Schumann-Straße 105",
            "04155",
            Plain,
            None,
            &[],
        ),
        venue(
            "mile-end-hall",
            "Mile End Music Hall",
            En,
            "5540 Saint-Laurent Boulevard",
            "H2T 1S1",
            JsonLd,
            None,
            &[JsonApi, NoindexPage],
        ),
        venue(
            "griffintown-gallery",
            "Griffintown Gallery",
            En,
            "1200 Notre-Dame Street West",
            "H3C 1K5",
            JsonLdGraph,
            None,
            &[NoAi],
        ),
        venue(
            "plateau-playhouse",
            "Plateau Community Playhouse",
            En,
            "4520 Papineau Avenue",
            "H2H 1V4",
            Microdata,
            None,
            &[],
        ),
        venue(
            "old-port-market",
            "Old Port Market Hall",
            En,
            "333 de la Commune Street East",
            "H2Y 1J1",
            Plain,
            None,
            &[],
        ),
        town_hall,
        host("billetterie-api", "Billetterie Régionale (API)", Role::LicensedApi, Fr),
        host("donnees-aube", "Données ouvertes de l'Aube", Role::OpenData, Fr),
        host("agence-presse-locale", "Agence Presse Locale", Role::PressAgency, Fr),
        host("llm-mock", "Mock language model", Role::LanguageModel, En),
    ]
}
