//! The events of the venues: what is on, when, where, at what price, in which state, and
//! how that changes from one pass to the next.
//!
//! Every date derives from the injected `now`, in the venue's zone: events start 2 to 30
//! days later at a local time of day, so the demo always shows upcoming events. Pass 0 is
//! the first crawl; from pass 1 on, in every venue, event 2 is moved a week later
//! (rescheduled), event 3 is cancelled, event 4 is gone (404) and one new event appears
//! (two from pass 2 on). Rendering lives in the `pages` and `feeds` modules.

use chrono::{DateTime, Days, Duration, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;
use serde::Serialize;

use crate::venues::{Extra, Lang, Site};

/// The status an event page states (schema.org `eventStatus`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// `EventScheduled` (or no status at all).
    Scheduled,
    /// `EventCancelled`.
    Cancelled,
    /// `EventPostponed`: no new date yet.
    Postponed,
    /// `EventRescheduled`: a new date, the old one in `previousStartDate`.
    Rescheduled,
    /// `EventMovedOnline`.
    MovedOnline,
}

impl Status {
    /// The schema.org URL of this status.
    pub fn schema_url(self) -> &'static str {
        match self {
            Status::Scheduled => "https://schema.org/EventScheduled",
            Status::Cancelled => "https://schema.org/EventCancelled",
            Status::Postponed => "https://schema.org/EventPostponed",
            Status::Rescheduled => "https://schema.org/EventRescheduled",
            Status::MovedOnline => "https://schema.org/EventMovedOnline",
        }
    }

    /// The status in words, in `lang` (what plain pages print).
    pub(crate) fn word(self, lang: Lang) -> &'static str {
        use Lang::*;
        use Status::*;
        match (self, lang) {
            (Scheduled, En) => "Scheduled",
            (Scheduled, Tr) => "Planlandı",
            (Scheduled, Fr) => "Programmé",
            (Scheduled, Es) => "Programado",
            (Scheduled, De) => "Geplant",
            (Cancelled, En) => "Cancelled",
            (Cancelled, Tr) => "İptal edildi",
            (Cancelled, Fr) => "Annulé",
            (Cancelled, Es) => "Cancelado",
            (Cancelled, De) => "Abgesagt",
            (Postponed, En) => "Postponed",
            (Postponed, Tr) => "Ertelendi",
            (Postponed, Fr) => "Reporté",
            (Postponed, Es) => "Aplazado",
            (Postponed, De) => "Verschoben",
            (Rescheduled, En) => "New date",
            (Rescheduled, Tr) => "Yeni tarih",
            (Rescheduled, Fr) => "Nouvelle date",
            (Rescheduled, Es) => "Nueva fecha",
            (Rescheduled, De) => "Neuer Termin",
            (MovedOnline, En) => "Moved online",
            (MovedOnline, Tr) => "Çevrim içi",
            (MovedOnline, Fr) => "En ligne",
            (MovedOnline, Es) => "En línea",
            (MovedOnline, De) => "Online",
        }
    }
}

/// What an event costs, in minor units of the venue's currency.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Price {
    /// Free entry.
    Free,
    /// One price (`Offer`).
    Fixed(u32),
    /// A range (`AggregateOffer` with `lowPrice` and `highPrice`).
    Range(u32, u32),
}

impl Price {
    /// The lowest price in minor units (0 when free).
    pub fn min_minor(self) -> u32 {
        match self {
            Price::Free => 0,
            Price::Fixed(p) | Price::Range(p, _) => p,
        }
    }

    /// The highest price in minor units (0 when free).
    pub fn max_minor(self) -> u32 {
        match self {
            Price::Free => 0,
            Price::Fixed(p) | Price::Range(_, p) => p,
        }
    }
}

/// `12.50` for 1250 minor units: the machine form used in structured data.
pub fn decimal(minor: u32) -> String {
    format!("{}.{:02}", minor / 100, minor % 100)
}

/// The price as the venue's pages print it: "12,50 €", "150 TL", "$25.00", "Gratuit".
pub fn price_text(price: Price, lang: Lang) -> String {
    let one = |minor: u32| {
        let (units, cents) = (minor / 100, minor % 100);
        match lang {
            Lang::En => format!("${units}.{cents:02}"),
            Lang::Tr if cents == 0 => format!("{units} TL"),
            Lang::Tr => format!("{units},{cents:02} TL"),
            Lang::Es if cents == 0 => format!("{units} €"),
            Lang::Fr | Lang::Es | Lang::De => format!("{units},{cents:02} €"),
        }
    };
    match price {
        Price::Free => lang.free_word().to_owned(),
        Price::Fixed(p) => one(p),
        Price::Range(lo, hi) => format!("{} – {}", one(lo), one(hi)),
    }
}

/// One event of a venue, as its pages state it at one pass.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// Index of the venue's site.
    pub site: usize,
    /// The event's number within its venue, stable across passes (from 1).
    pub number: u32,
    /// The page path, e.g. `/agenda/concert-3.html`.
    pub path: String,
    /// The title.
    pub title: String,
    /// The schema.org type (`Event` or a subtype such as `MusicEvent`).
    pub schema_type: &'static str,
    /// A one-sentence description in the venue's language.
    pub description: String,
    /// Start, in the venue's zone.
    pub start: DateTime<Tz>,
    /// End, in the venue's zone.
    pub end: Option<DateTime<Tz>>,
    /// The start before a reschedule.
    pub previous_start: Option<DateTime<Tz>>,
    /// The price.
    pub price: Price,
    /// The status the page states.
    pub status: Status,
    /// Path of the event's poster image on the venue's host.
    pub image: String,
    /// The page carries `<meta name="robots" content="noindex">`.
    pub noindex: bool,
    /// The page lives under a path robots.txt disallows for the bot.
    pub private: bool,
}

/// (title, schema type, description, price kind) per language; a venue takes them in turn.
type Template = (&'static str, &'static str, &'static str);

const EN: [Template; 8] = [
    (
        "Late Night Jazz Session",
        "MusicEvent",
        "A quartet from the Mile End scene plays standards until midnight.",
    ),
    (
        "Indie Folk Showcase",
        "MusicEvent",
        "Three songwriters share the stage for an acoustic evening.",
    ),
    ("Stand-up Comedy Open Mic", "ComedyEvent", "New comics try ten minutes of fresh material."),
    ("Family Puppet Matinee", "ChildrensEvent", "A puppet show for children aged four and up."),
    (
        "Winter Light Photography Exhibition",
        "ExhibitionEvent",
        "Twenty photographers show the city in its shortest days.",
    ),
    (
        "Neighbourhood Food Festival",
        "FoodEvent",
        "Local kitchens and bakers fill the hall with tasting stalls.",
    ),
    (
        "Chamber Orchestra Evening",
        "MusicEvent",
        "Strings play Haydn and a premiere by a Montreal composer.",
    ),
    (
        "Community Theatre: Our Town",
        "TheaterEvent",
        "The playhouse company stages Thornton Wilder's classic.",
    ),
];
const TR: [Template; 8] = [
    ("Caz Gecesi: Kordon Kuarteti", "MusicEvent", "Kordon Kuarteti caz standartlarını yorumluyor."),
    ("Türk Halk Müziği Konseri", "MusicEvent", "Bağlama ve ses için Ege türküleri."),
    (
        "Çocuklar için Karagöz",
        "ChildrensEvent",
        "Geleneksel gölge oyunu, dört yaş ve üzeri çocuklar için.",
    ),
    (
        "Fotoğraf Sergisi: Körfezde Işık",
        "ExhibitionEvent",
        "İzmirli fotoğrafçılardan körfez manzaraları.",
    ),
    (
        "Tiyatro: Keşanlı Ali Destanı",
        "TheaterEvent",
        "Şehir oyuncularından klasik bir müzikli oyun.",
    ),
    ("Şiir Dinletisi", "LiteraryEvent", "Genç şairler yeni şiirlerini okuyor."),
    ("Ege Mutfağı Festivali", "FoodEvent", "Zeytinyağlılar ve yerel tatlar bir arada."),
    ("Senfonik Akşam", "MusicEvent", "Oda orkestrası Dvořák ve Saygun çalıyor."),
];
const FR: [Template; 8] = [
    (
        "Concert : Quatuor de Champagne",
        "MusicEvent",
        "Le quatuor joue Debussy et Ravel dans la grande salle.",
    ),
    (
        "Théâtre : Le Misanthrope",
        "TheaterEvent",
        "La troupe des Halles reprend la comédie de Molière.",
    ),
    (
        "Exposition : Vitraux de l'Aube",
        "ExhibitionEvent",
        "Photographies et maquettes des vitraux du département.",
    ),
    ("Heure du conte", "ChildrensEvent", "Des histoires pour les enfants de 3 à 7 ans."),
    ("Bal folk", "DanceEvent", "Musiciens traditionnels et initiation aux danses pour débutants."),
    (
        "Rencontre avec une autrice",
        "LiteraryEvent",
        "Lecture et dédicace du dernier roman de l'autrice.",
    ),
    (
        "Marché des producteurs de nuit",
        "FoodEvent",
        "Fromages de Chaource, cidre et pains au feu de bois.",
    ),
    ("Ciné-club : classiques du muet", "ScreeningEvent", "Projection accompagnée au piano."),
];
const ES: [Template; 8] = [
    ("Noche de flamenco", "MusicEvent", "Cante y baile con artistas del barrio."),
    (
        "Teatro: La casa de Bernarda Alba",
        "TheaterEvent",
        "Una nueva puesta en escena del clásico de Lorca.",
    ),
    (
        "Exposición: Madrid en blanco y negro",
        "ExhibitionEvent",
        "Fotografías de archivo de los años cincuenta.",
    ),
    (
        "Cuentacuentos en familia",
        "ChildrensEvent",
        "Cuentos para niñas y niños a partir de cuatro años.",
    ),
    ("Jam session de jazz", "MusicEvent", "Músicos invitados y escenario abierto."),
    ("Mercado de diseño local", "SaleEvent", "Artesanía y diseño de creadores de Madrid."),
    ("Club de lectura", "LiteraryEvent", "Conversación sobre la novela del mes."),
    ("Cine de verano en invierno", "ScreeningEvent", "Proyección de clásicos con palomitas."),
];
const DE: [Template; 8] = [
    (
        "Kammerkonzert: Bach und Mendelssohn",
        "MusicEvent",
        "Das Leipziger Streichtrio spielt im kleinen Saal.",
    ),
    ("Lesung: Neue Leipziger Stimmen", "LiteraryEvent", "Drei Autorinnen lesen aus ihren Debüts."),
    (
        "Ausstellung: Industriekultur im Westen",
        "ExhibitionEvent",
        "Fotografien aus Plagwitz und Lindenau.",
    ),
    ("Kindertheater: Der Räuber Hotzenplotz", "ChildrensEvent", "Für Kinder ab fünf Jahren."),
    ("Poetry Slam", "LiteraryEvent", "Zehn Slammer, fünf Minuten, ein Publikum als Jury."),
    ("Swing-Tanzabend", "DanceEvent", "Live-Band und Schnupperkurs für Anfänger."),
    ("Flohmarkt im Hof", "SaleEvent", "Trödel, Bücher und Kaffee im Innenhof."),
    ("Orgelnacht", "MusicEvent", "Improvisationen bei Kerzenlicht."),
];

fn templates(lang: Lang) -> &'static [Template; 8] {
    match lang {
        Lang::En => &EN,
        Lang::Tr => &TR,
        Lang::Fr => &FR,
        Lang::Es => &ES,
        Lang::De => &DE,
    }
}

/// A small deterministic generator (SplitMix64): content depends only on the seed.
#[derive(Clone, Debug)]
pub(crate) struct Mix(u64);

impl Mix {
    pub(crate) fn new(seed: u64, salt: u64) -> Self {
        Mix(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + (self.next() % u64::from(hi - lo + 1)) as u32
    }
}

/// The local instant `days` after the local date of `now` in `zone`, at `hh:mm`.
///
/// A time that falls in a spring-forward gap moves one hour later; an ambiguous one
/// takes the earlier offset.
pub(crate) fn local_at(now: DateTime<Utc>, zone: Tz, days: u64, hh: u32, mm: u32) -> DateTime<Tz> {
    let date = now.with_timezone(&zone).date_naive() + Days::new(days);
    let naive = date.and_time(NaiveTime::from_hms_opt(hh, mm, 0).unwrap_or_default());
    zone.from_local_datetime(&naive)
        .earliest()
        .or_else(|| zone.from_local_datetime(&(naive + Duration::hours(1))).earliest())
        .unwrap_or_else(|| zone.from_utc_datetime(&naive))
}

/// The same local wall-clock time `days` later (across a DST change the offset changes).
pub(crate) fn shift_days(t: DateTime<Tz>, days: u64) -> DateTime<Tz> {
    let naive = t.naive_local() + Days::new(days);
    let zone = t.timezone();
    zone.from_local_datetime(&naive).earliest().unwrap_or(t + Duration::days(days as i64))
}

/// Base events (pass 0) of one venue, numbered from 1, plus the two that appear later.
///
/// Returns `(base count, all events)`: events numbered above the base count appear at
/// passes 1 and 2.
pub(crate) fn venue_events(
    seed: u64,
    now: DateTime<Utc>,
    index: usize,
    site: &Site,
) -> (u32, Vec<Event>) {
    let mut mix = Mix::new(seed, index as u64 + 1);
    let base = 6 + (index as u32 % 2);
    let templates = templates(site.lang);
    let hours = [(19, 30), (20, 0), (21, 0), (18, 0), (11, 0), (20, 30)];
    let mut out = Vec::new();
    for number in 1..=base + 2 {
        let (title, schema_type, description) =
            templates[(index + number as usize * 3) % templates.len()];
        let day = u64::from(mix.range(2, 28));
        let (hh, mm) = hours[mix.range(0, hours.len() as u32 - 1) as usize];
        let (hh, mm) = if schema_type == "ChildrensEvent" { (11, 0) } else { (hh, mm) };
        let start = local_at(now, site.zone, day, hh, mm);
        let end = if schema_type == "ExhibitionEvent" {
            // Exhibitions run ten days at the same local hour: across a DST change when
            // one falls inside, so the two offsets differ.
            Some(shift_days(local_at(now, site.zone, day, 18, 0), 10))
        } else {
            Some(start + Duration::minutes(120))
        };
        let unit = match site.currency {
            "TRY" => 5000,
            "CAD" => 500,
            _ => 50,
        };
        let price = match mix.range(0, 5) {
            0 => Price::Free,
            1 | 2 => Price::Range(unit * mix.range(10, 20), unit * mix.range(24, 40)),
            _ => Price::Fixed(unit * mix.range(12, 40)),
        };
        let status = match (number, index % 5) {
            (5, 0) => Status::Postponed,
            (5, 1) => Status::MovedOnline,
            (5, 2) => Status::Rescheduled,
            (5, 3) => Status::Cancelled,
            _ => Status::Scheduled,
        };
        // A rescheduled event names the date it had before (a day earlier, same hour).
        let previous_start =
            (status == Status::Rescheduled).then(|| local_at(now, site.zone, day - 1, hh, mm));
        let private = site.has(Extra::PrivatePath) && number == base;
        let slug = slugify(title);
        let dir = if private {
            format!("{}private/", site.lang.listing_path())
        } else {
            site.lang.listing_path().to_owned()
        };
        let image_ext = if number % 2 == 0 { "png" } else { "jpg" };
        out.push(Event {
            site: index,
            number,
            path: format!("{dir}{slug}-{number}.html"),
            title: title.to_owned(),
            schema_type,
            description: description.to_owned(),
            start,
            end,
            previous_start,
            price,
            status,
            image: format!("/img/poster-{number}.{image_ext}"),
            noindex: site.has(Extra::NoindexPage) && number == 1,
            private,
        });
    }
    (base, out)
}

/// The events of one venue as its pages state them at `pass` (see the module docs).
pub(crate) fn at_pass(base: u32, all: &[Event], pass: u32) -> Vec<Event> {
    let added = pass.min(2);
    all.iter()
        .filter(|e| e.number <= base + added)
        .filter(|e| !(pass >= 1 && e.number == 4))
        .map(|e| {
            let mut e = e.clone();
            if pass >= 1 && e.number == 2 && e.status == Status::Scheduled {
                e.previous_start = Some(e.start);
                e.start = shift_days(e.start, 7);
                e.end = e.end.map(|end| shift_days(end, 7));
                e.status = Status::Rescheduled;
            }
            if pass >= 1 && e.number == 3 {
                e.status = Status::Cancelled;
            }
            e
        })
        .collect()
}

/// `Caz Gecesi: Kordon Kuarteti` → `caz-gecesi-kordon-kuarteti` (ASCII, for paths).
pub(crate) fn slugify(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        let c = match c {
            'ç' => 'c',
            'ğ' => 'g',
            'ı' | 'í' | 'î' | 'ï' => 'i',
            'ö' | 'ó' | 'ô' => 'o',
            'ş' => 's',
            'ü' | 'ú' | 'û' | 'ù' => 'u',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'á' | 'à' | 'â' | 'ä' => 'a',
            'ñ' => 'n',
            'ß' => 's',
            'ř' => 'r',
            c => c,
        };
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slugify("Caz Gecesi: Kordon Kuarteti"), "caz-gecesi-kordon-kuarteti");
        assert_eq!(slugify("Théâtre : Le Misanthrope"), "theatre-le-misanthrope");
        assert_eq!(slugify("Der Räuber Hotzenplotz"), "der-rauber-hotzenplotz");
    }

    #[test]
    fn prices_are_written_the_local_way() {
        assert_eq!(price_text(Price::Fixed(1250), Lang::Fr), "12,50 €");
        assert_eq!(price_text(Price::Fixed(15000), Lang::Tr), "150 TL");
        assert_eq!(price_text(Price::Free, Lang::Tr), "Ücretsiz");
        assert_eq!(price_text(Price::Free, Lang::Es), "Entrada libre");
        assert_eq!(price_text(Price::Free, Lang::De), "Eintritt frei");
        assert_eq!(price_text(Price::Free, Lang::Fr), "Gratuit");
        assert_eq!(price_text(Price::Fixed(2500), Lang::En), "$25.00");
    }

    #[test]
    fn spring_forward_gap_moves_later() {
        // 2026-03-29 02:30 does not exist in Paris.
        let now = Utc.with_ymd_and_hms(2026, 3, 27, 12, 0, 0).unwrap();
        let t = local_at(now, chrono_tz::Europe::Paris, 2, 2, 30);
        assert_eq!(t.to_rfc3339(), "2026-03-29T03:30:00+02:00");
    }
}
