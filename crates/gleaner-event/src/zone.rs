//! Which zone a local time is in, when the page does not write an offset (issue 24):
//! the zone a page states (an IANA name, or words such as "TSİ", "CET", "heure de Paris",
//! "hora peninsular"), or the one zone of the venue's country.
//!
//! Country table source: the IANA time zone database, `zone1970.tab` and `zone.tab`
//! (tzdata 2025b): a country is listed here only when every zone the database gives it
//! follows the same rules today (DE's `Europe/Busingen` follows Berlin's since 1980, IT's
//! and CH's enclaves follow their hosts), so its civil time is one all year. Spain and
//! Portugal have islands on other clocks: the Canaries and the Azores are told apart by the
//! address (Madeira keeps Lisbon's clock). Countries with several zones (US, CA, MX, BR, AU,
//! RU, …) are not listed: their local times stay floating unless the page states a zone;
//! nor are those with an island or a region on another clock (NZ's Chatham Islands, CL's
//! Easter Island and Magallanes, EC's Galápagos), nor Argentina, whose twelve database
//! zones share one clock today but differed as lately as 2009.

use chrono_tz::Tz;

/// The zone of a country's civil time when it has one all year (ISO 3166-1 alpha-2, and
/// the address for Spain and Portugal's islands).
pub fn country_zone(country: &str, address: &[&str]) -> Option<Tz> {
    let island = |names: &[&str]| {
        address.iter().any(|part| {
            let p = fold(part);
            names.iter().any(|n| p.contains(n))
        })
    };
    Some(match country.trim().to_ascii_uppercase().as_str() {
        "TR" => Tz::Europe__Istanbul,
        "FR" => Tz::Europe__Paris,
        "DE" => Tz::Europe__Berlin,
        "GB" => Tz::Europe__London,
        "IE" => Tz::Europe__Dublin,
        "IT" => Tz::Europe__Rome,
        "NL" => Tz::Europe__Amsterdam,
        "BE" => Tz::Europe__Brussels,
        "LU" => Tz::Europe__Luxembourg,
        "CH" => Tz::Europe__Zurich,
        "AT" => Tz::Europe__Vienna,
        "DK" => Tz::Europe__Copenhagen,
        "SE" => Tz::Europe__Stockholm,
        "NO" => Tz::Europe__Oslo,
        "FI" => Tz::Europe__Helsinki,
        "PL" => Tz::Europe__Warsaw,
        "CZ" => Tz::Europe__Prague,
        "SK" => Tz::Europe__Bratislava,
        "HU" => Tz::Europe__Budapest,
        "SI" => Tz::Europe__Ljubljana,
        "HR" => Tz::Europe__Zagreb,
        "RO" => Tz::Europe__Bucharest,
        "BG" => Tz::Europe__Sofia,
        "GR" => Tz::Europe__Athens,
        "IS" => Tz::Atlantic__Reykjavik,
        "MT" => Tz::Europe__Malta,
        "JP" => Tz::Asia__Tokyo,
        "KR" => Tz::Asia__Seoul,
        "IN" => Tz::Asia__Kolkata,
        "IL" => Tz::Asia__Jerusalem,
        "ZA" => Tz::Africa__Johannesburg,
        "SG" => Tz::Asia__Singapore,
        "LI" => Tz::Europe__Vaduz,
        "MC" => Tz::Europe__Monaco,
        "AD" => Tz::Europe__Andorra,
        "SM" => Tz::Europe__San_Marino,
        "CY" => Tz::Asia__Nicosia,
        "EE" => Tz::Europe__Tallinn,
        "LV" => Tz::Europe__Riga,
        "LT" => Tz::Europe__Vilnius,
        "RS" => Tz::Europe__Belgrade,
        "BA" => Tz::Europe__Sarajevo,
        "ME" => Tz::Europe__Podgorica,
        "MK" => Tz::Europe__Skopje,
        "AL" => Tz::Europe__Tirane,
        "MD" => Tz::Europe__Chisinau,
        "MA" => Tz::Africa__Casablanca,
        "TN" => Tz::Africa__Tunis,
        "SN" => Tz::Africa__Dakar,
        "CI" => Tz::Africa__Abidjan,
        "PE" => Tz::America__Lima,
        "CO" => Tz::America__Bogota,
        "UY" => Tz::America__Montevideo,
        "VE" => Tz::America__Caracas,
        "BO" => Tz::America__La_Paz,
        "PY" => Tz::America__Asuncion,
        "CR" => Tz::America__Costa_Rica,
        "GT" => Tz::America__Guatemala,
        "SV" => Tz::America__El_Salvador,
        "HN" => Tz::America__Tegucigalpa,
        "NI" => Tz::America__Managua,
        "PA" => Tz::America__Panama,
        "DO" => Tz::America__Santo_Domingo,
        "CU" => Tz::America__Havana,
        "PR" => Tz::America__Puerto_Rico,
        "ES" => {
            if island(CANARIES) {
                Tz::Atlantic__Canary
            } else {
                Tz::Europe__Madrid
            }
        }
        "PT" => {
            if island(AZORES) {
                Tz::Atlantic__Azores
            } else {
                Tz::Europe__Lisbon
            }
        }
        _ => return None,
    })
}

/// Place names of the Canary Islands (folded).
const CANARIES: &[&str] = &[
    "canarias",
    "canary",
    "laspalmas",
    "santacruzdetenerife",
    "tenerife",
    "grancanaria",
    "lanzarote",
    "fuerteventura",
    "lapalma",
    "lagomera",
    "elhierro",
    "arrecife",
    "pertodelrosario",
    "puertodelrosario",
];

/// Place names of the Azores (folded).
const AZORES: &[&str] =
    &["acores", "açores", "azores", "pontadelgada", "angradoheroismo", "horta", "terceira"];

fn fold(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' => 'a',
            'é' | 'ê' => 'e',
            'í' => 'i',
            'ó' | 'ô' | 'õ' => 'o',
            'ú' => 'u',
            other => other,
        })
        .filter(|c| *c != '\u{307}')
        .collect()
}

/// A zone stated in words or by name: an IANA name (`Europe/Istanbul`), or an abbreviation
/// or phrase in one of the five languages (`TSİ`, `CET`, `MESZ`, `heure de Paris`,
/// `hora peninsular`, `UK time`). Case and surrounding punctuation do not matter.
pub fn stated_zone(words: &str) -> Option<Tz> {
    let w = words.trim().trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '_');
    if w.contains('/')
        && let Ok(tz) = w.parse::<Tz>()
    {
        return Some(tz);
    }
    let lower = w.to_lowercase().replace('\u{307}', "");
    ZONE_WORDS.iter().find(|(word, _)| *word == lower).map(|(_, tz)| *tz)
}

/// Zone words and the zone they mean. `CET` and `MEZ` written all year mean the Central
/// European clock, summer time included (as people use them); `GMT` and `UTC` alone are
/// not here, since `GMT+3` and "UTC" on a page are offsets, read by the offset parser.
const ZONE_WORDS: &[(&str, Tz)] = &[
    ("tsi", Tz::Europe__Istanbul),
    ("tsİ", Tz::Europe__Istanbul),
    ("trt", Tz::Europe__Istanbul),
    ("türkiye saati", Tz::Europe__Istanbul),
    ("turkiye saati", Tz::Europe__Istanbul),
    ("istanbul saati", Tz::Europe__Istanbul),
    ("cet", Tz::CET),
    ("cest", Tz::CET),
    ("mez", Tz::CET),
    ("mesz", Tz::CET),
    ("heure de paris", Tz::Europe__Paris),
    ("heure française", Tz::Europe__Paris),
    ("heure francaise", Tz::Europe__Paris),
    ("heure de france", Tz::Europe__Paris),
    ("hora peninsular", Tz::Europe__Madrid),
    ("hora de madrid", Tz::Europe__Madrid),
    ("hora española", Tz::Europe__Madrid),
    ("hora canaria", Tz::Atlantic__Canary),
    ("deutsche zeit", Tz::Europe__Berlin),
    ("uk time", Tz::Europe__London),
    ("london time", Tz::Europe__London),
    ("bst", Tz::Europe__London),
    ("eet", Tz::EET),
    ("eest", Tz::EET),
    ("wet", Tz::WET),
    ("west", Tz::WET),
    // The four clocks of the contiguous United States, as pages write them beside a
    // time: `7 PM ET`, `6:00 p.m. Central`, `Pacific Time`. Each means its clock,
    // daylight time included (`EST` written in July means the Eastern clock).
    ("et", Tz::America__New_York),
    ("est", Tz::America__New_York),
    ("edt", Tz::America__New_York),
    ("eastern", Tz::America__New_York),
    ("eastern time", Tz::America__New_York),
    ("ct", Tz::America__Chicago),
    ("cst", Tz::America__Chicago),
    ("cdt", Tz::America__Chicago),
    ("central", Tz::America__Chicago),
    ("central time", Tz::America__Chicago),
    ("mt", Tz::America__Denver),
    ("mst", Tz::America__Denver),
    ("mdt", Tz::America__Denver),
    ("mountain", Tz::America__Denver),
    ("mountain time", Tz::America__Denver),
    ("pt", Tz::America__Los_Angeles),
    ("pst", Tz::America__Los_Angeles),
    ("pdt", Tz::America__Los_Angeles),
    ("pacific", Tz::America__Los_Angeles),
    ("pacific time", Tz::America__Los_Angeles),
];

/// The zone words [`stated_zone`] knows, for scanning a page's text.
pub fn zone_words() -> impl Iterator<Item = &'static str> {
    ZONE_WORDS.iter().map(|(w, _)| *w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countries_with_one_clock_and_islands() {
        assert_eq!(country_zone("TR", &[]), Some(Tz::Europe__Istanbul));
        assert_eq!(country_zone("es", &["Madrid"]), Some(Tz::Europe__Madrid));
        assert_eq!(country_zone("ES", &["Las Palmas de Gran Canaria"]), Some(Tz::Atlantic__Canary));
        assert_eq!(country_zone("PT", &["Ponta Delgada", "Açores"]), Some(Tz::Atlantic__Azores));
        assert_eq!(country_zone("PT", &["Funchal"]), Some(Tz::Europe__Lisbon));
        // One clock in Latin America's Spanish-speaking countries too (issue 24: a Lima
        // racecourse, a Montevideo carnival stage); not where an island or a region keeps
        // another, nor Argentina (see the table's note).
        assert_eq!(country_zone("PE", &[]), Some(Tz::America__Lima));
        assert_eq!(country_zone("UY", &[]), Some(Tz::America__Montevideo));
        assert_eq!(country_zone("CO", &[]), Some(Tz::America__Bogota));
        for multi in ["CL", "EC", "NZ", "AR", "MX"] {
            assert_eq!(country_zone(multi, &[]), None, "{multi}");
        }
        assert_eq!(country_zone("US", &["Denver"]), None);
        assert_eq!(country_zone("", &[]), None);
    }

    #[test]
    fn stated_zones_in_five_languages() {
        for (w, tz) in [
            ("TSİ", Tz::Europe__Istanbul),
            ("(TSI)", Tz::Europe__Istanbul),
            ("Türkiye saati", Tz::Europe__Istanbul),
            ("CET", Tz::CET),
            ("MESZ", Tz::CET),
            ("heure de Paris", Tz::Europe__Paris),
            ("hora peninsular", Tz::Europe__Madrid),
            ("Europe/Berlin", Tz::Europe__Berlin),
            ("UK time", Tz::Europe__London),
            ("ET", Tz::America__New_York),
            ("Central Time", Tz::America__Chicago),
            ("PDT", Tz::America__Los_Angeles),
        ] {
            assert_eq!(stated_zone(w), Some(tz), "{w}");
        }
        assert_eq!(stated_zone("soon"), None);
        assert_eq!(stated_zone("Mars/Olympus"), None);
    }
}
