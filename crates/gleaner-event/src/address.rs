//! Addresses written as one string, and country names or codes, read into parts.
//!
//! The rules are the ones a careful person applies to `79 Washington St., Providence, RI`
//! or `Av. Borges de Medeiros, 1524 - Lagoa, Rio de Janeiro - RJ, 22470-003, Brazil`:
//! peel the country, postal code and region off the end, then the locality; what is left is
//! the street.

use crate::regions::{is_county, is_region_name, is_tr_province};

/// An address split into parts; anything not recognised is `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AddressParts {
    pub street: Option<String>,
    pub locality: Option<String>,
    pub region: Option<String>,
    pub postal_code: Option<String>,
    pub country: Option<String>,
}

/// ISO 3166-1 alpha-2 code for a country code or name (`UK` → `GB`, `USA` → `US`).
pub fn country_code(value: &str) -> Option<String> {
    let v = value.trim().trim_end_matches('.');
    let lower = v.to_lowercase();
    let named = match lower.as_str() {
        "us" | "usa" | "u.s." | "u.s.a" | "united states" | "united states of america" => "US",
        "uk" | "gb" | "gbr" | "united kingdom" | "great britain" | "england" | "scotland"
        | "wales" => "GB",
        "ca" | "can" | "canada" => "CA",
        "br" | "bra" | "brazil" | "brasil" => "BR",
        "fr" | "fra" | "france" => "FR",
        "de" | "deu" | "germany" | "deutschland" => "DE",
        "es" | "esp" | "spain" | "españa" | "espana" => "ES",
        "it" | "ita" | "italy" | "italia" => "IT",
        "tr" | "tur" | "turkey" | "türkiye" | "turkiye" => "TR",
        "nl" | "nld" | "netherlands" | "the netherlands" | "nederland" => "NL",
        "be" | "bel" | "belgium" | "belgique" | "belgië" => "BE",
        "ch" | "che" | "switzerland" | "schweiz" | "suisse" => "CH",
        "at" | "aut" | "austria" | "österreich" => "AT",
        "ie" | "irl" | "ireland" => "IE",
        "au" | "aus" | "australia" => "AU",
        "nz" | "nzl" | "new zealand" => "NZ",
        "mx" | "mex" | "mexico" | "méxico" => "MX",
        "pt" | "prt" | "portugal" => "PT",
        "se" | "swe" | "sweden" | "sverige" => "SE",
        "no" | "nor" | "norway" | "norge" => "NO",
        "dk" | "dnk" | "denmark" | "danmark" => "DK",
        "fi" | "fin" | "finland" => "FI",
        "pl" | "pol" | "poland" | "polska" => "PL",
        "jp" | "jpn" | "japan" => "JP",
        // Full names only from here: two-letter words such as `co` or `ar` are too often
        // something else at the end of an address.
        "argentina" | "arjantin" => "AR",
        "chile" | "şili" => "CL",
        "colombia" | "colombie" | "kolumbien" | "kolombiya" => "CO",
        "peru" | "perú" | "pérou" => "PE",
        "uruguay" => "UY",
        "venezuela" => "VE",
        "ecuador" | "équateur" => "EC",
        "bolivia" | "bolivie" => "BO",
        "paraguay" => "PY",
        "costa rica" => "CR",
        "cuba" | "küba" => "CU",
        "guatemala" => "GT",
        "luxembourg" | "luxemburg" | "lüksemburg" => "LU",
        "monaco" => "MC",
        "liechtenstein" => "LI",
        "greece" | "grèce" | "grecia" | "griechenland" | "yunanistan" => "GR",
        "russia" | "russian federation" | "russie" | "rusia" | "russland" | "rusya" => "RU",
        "ukraine" | "ucrania" | "ukrayna" => "UA",
        "czech republic" | "czechia" | "tschechien" | "république tchèque" => "CZ",
        "hungary" | "hongrie" | "hungría" | "ungarn" | "macaristan" => "HU",
        "romania" | "roumanie" | "rumania" | "rumänien" | "romanya" => "RO",
        "bulgaria" | "bulgarie" | "bulgarien" | "bulgaristan" => "BG",
        "croatia" | "croatie" | "croacia" | "kroatien" | "hırvatistan" => "HR",
        "slovenia" | "slovénie" | "eslovenia" | "slowenien" => "SI",
        "morocco" | "maroc" | "marruecos" | "marokko" => "MA",
        "algeria" | "algérie" | "argelia" | "algerien" | "cezayir" => "DZ",
        "tunisia" | "tunisie" | "túnez" | "tunesien" | "tunus" => "TN",
        "senegal" | "sénégal" => "SN",
        "cyprus" | "chypre" | "chipre" | "zypern" | "kıbrıs" => "CY",
        "azerbaijan" | "azerbaïdjan" | "azerbaycan" => "AZ",
        "china" | "chine" => "CN",
        "india" | "inde" | "indien" | "hindistan" => "IN",
        "south africa" | "afrique du sud" | "sudáfrica" | "südafrika" => "ZA",
        "israel" | "israël" => "IL",
        "iceland" | "islande" | "islandia" | "izlanda" => "IS",
        // The names the five languages give the countries above.
        "allemagne" | "alemania" | "almanya" => "DE",
        "espagne" | "spanien" | "ispanya" | "i̇spanya" => "ES",
        "frankreich" | "francia" | "fransa" => "FR",
        "italie" | "italien" | "i̇talya" | "italya" => "IT",
        "suiza" | "svizzera" | "i̇sviçre" | "isviçre" => "CH",
        "autriche" | "avusturya" => "AT",
        "belgien" | "bélgica" | "belçika" => "BE",
        "irlande" | "irlanda" | "irland" => "IE",
        "pays-bas" | "países bajos" | "niederlande" | "hollanda" => "NL",
        "royaume-uni"
        | "reino unido"
        | "vereinigtes königreich"
        | "birleşik krallık"
        | "i̇ngiltere"
        | "ingiltere" => "GB",
        "états-unis" | "estados unidos" | "vereinigte staaten" | "abd" => "US",
        "méjico" | "mexique" | "mexiko" | "meksika" => "MX",
        "türkei" | "turquie" | "turquía" => "TR",
        _ => "",
    };
    if !named.is_empty() {
        return Some(named.to_owned());
    }
    None
}

const US_STATES: &[&str] = &[
    "alabama",
    "alaska",
    "arizona",
    "arkansas",
    "california",
    "colorado",
    "connecticut",
    "delaware",
    "florida",
    "georgia",
    "hawaii",
    "idaho",
    "illinois",
    "indiana",
    "iowa",
    "kansas",
    "kentucky",
    "louisiana",
    "maine",
    "maryland",
    "massachusetts",
    "michigan",
    "minnesota",
    "mississippi",
    "missouri",
    "montana",
    "nebraska",
    "nevada",
    "new hampshire",
    "new jersey",
    "new mexico",
    "new york",
    "north carolina",
    "north dakota",
    "ohio",
    "oklahoma",
    "oregon",
    "pennsylvania",
    "rhode island",
    "south carolina",
    "south dakota",
    "tennessee",
    "texas",
    "utah",
    "vermont",
    "virginia",
    "washington",
    "west virginia",
    "wisconsin",
    "wyoming",
    "district of columbia",
    "british columbia",
    "ontario",
    "quebec",
    "alberta",
    "manitoba",
    "saskatchewan",
    "nova scotia",
];

fn is_region(part: &str) -> bool {
    let p = part.trim();
    (p.len() == 2 && p.chars().all(|c| c.is_ascii_uppercase()))
        || US_STATES.contains(&p.to_lowercase().as_str())
}

/// A UK postcode: `LS1 6DN`, `SW1A 1AA`, `M1 1AE` (outward code, space, inward code).
pub fn is_uk_postcode(p: &str) -> bool {
    let Some((out, inw)) = p.split_once(' ') else { return false };
    let (o, i) = (out.as_bytes(), inw.as_bytes());
    let letters = o.iter().take_while(|b| b.is_ascii_uppercase()).count();
    (2..=4).contains(&o.len())
        && (1..=2).contains(&letters)
        && o.get(letters).is_some_and(u8::is_ascii_digit)
        && o[letters..].iter().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        && i.len() == 3
        && i[0].is_ascii_digit()
        && i[1..].iter().all(u8::is_ascii_uppercase)
}

/// `London SE1 9PX` → (`London`, `SE1 9PX`).
fn uk_tail(part: &str) -> Option<(String, String)> {
    let words: Vec<&str> = part.split(' ').collect();
    let n = words.len();
    if n < 3 {
        return None;
    }
    let code = format!("{} {}", words[n - 2], words[n - 1]);
    is_uk_postcode(&code).then(|| (words[..n - 2].join(" "), code))
}

/// An Irish Eircode after its town: `Cork T23 XY12` → (`Cork`, `T23 XY12`) (a routing
/// key of a letter and two digits, or `D6W`, then four letters and digits).
fn eircode_tail(part: &str) -> Option<(String, String)> {
    let words: Vec<&str> = part.split(' ').collect();
    let [town @ .., key, id] = words.as_slice() else { return None };
    let k = key.as_bytes();
    let routing = k.len() == 3
        && k[0].is_ascii_uppercase()
        && k[1].is_ascii_digit()
        && (k[2].is_ascii_digit() || *key == "D6W");
    let unique = id.len() == 4
        && id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        && id.bytes().any(|b| b.is_ascii_uppercase());
    (routing
        && unique
        && !town.is_empty()
        && town.iter().all(|w| !w.bytes().any(|b| b.is_ascii_digit())))
    .then(|| (town.join(" "), format!("{key} {id}")))
}

/// Australia's states and territories, as addresses abbreviate them.
const AU_STATES: &[&str] = &["NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT"];

/// A town with a four-digit postcode after it, as Australia and New Zealand write it:
/// `Brunswick VIC 3056` → (`Brunswick`, `VIC`, `3056`), `Martinborough 5711` →
/// (`Martinborough`, none, `5711`). The town is words without digits. A street's number
/// is written so too (`Av. Italia 1234`): the caller reads it so only after a street, with
/// a state or the country said.
fn four_digit_tail(part: &str) -> Option<(String, Option<String>, String)> {
    let words: Vec<&str> = part.split(' ').collect();
    let [head @ .., code] = words.as_slice() else { return None };
    if code.len() != 4 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (town, state) = match head {
        [town @ .., state] if AU_STATES.contains(state) => (town, Some((*state).to_owned())),
        town => (town, None),
    };
    let wordy = |w: &&str| {
        w.chars().next().is_some_and(char::is_alphabetic) && !w.bytes().any(|b| b.is_ascii_digit())
    };
    (!town.is_empty() && town.iter().all(wordy))
        .then(|| (town.join(" "), state, (*code).to_owned()))
}

/// A town without the sentence written after it (`Louvain-la-Neuve. PAF libre (au
/// chapeau).` → `Louvain-la-Neuve`): cut at the first full stop that ends a word of four
/// letters or more and is followed by a space (`St. Gallen` stays whole).
fn without_sentence(town: &str) -> String {
    let ends_word = |at: usize| {
        let word = town[..at].rsplit([' ', '-']).next().unwrap_or_default();
        word.chars().count() >= 4 && word.chars().all(char::is_alphabetic)
    };
    let cut = town.match_indices(". ").map(|(at, _)| at).find(|&at| ends_word(at));
    match cut {
        Some(at) => town[..at].trim().to_owned(),
        // `…, 53229 Bonn.`: the full stop that ends the sentence.
        None if town.ends_with('.') && ends_word(town.len() - 1) => {
            town[..town.len() - 1].to_owned()
        }
        None => town.to_owned(),
    }
}

/// A town without the province, department or canton written in brackets after it
/// (`Medina de Pomar (Burgos)` → `Medina de Pomar`); the text as written when it has none
/// or is nothing but brackets.
fn without_bracketed_tail(town: &str) -> String {
    match town.strip_suffix(')').and_then(|t| t.rsplit_once(" (")) {
        Some((before, inner)) if !before.trim().is_empty() && !inner.contains('(') => {
            before.trim().to_owned()
        }
        _ => town.to_owned(),
    }
}

/// Whether a part opens with a European postal code of four or five digits and a town
/// (`8955 Wolkenstein`, `37000 León`).
fn starts_with_postcode(part: &str) -> bool {
    let mut words = part.split_whitespace();
    let code = words.next().unwrap_or_default();
    (4..=5).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_digit())
        && words.next().is_some_and(|w| w.chars().next().is_some_and(char::is_alphabetic))
}

/// Whether a street is written the Turkish way (`Moda Cad. No: 45`, `Gümrük Sok.`,
/// `Caferağa Mah.`).
fn is_turkish_street(part: &str) -> bool {
    part.split_whitespace().any(|w| {
        ["No:", "Cad.", "Sok.", "Mah.", "Cd.", "Sk.", "Caddesi", "Sokak", "Sokağı", "Mahallesi"]
            .contains(&w)
    })
}

/// The locality of a Turkish `district / province`: the district (`ilçe`), as Turkish
/// usage and the labels of issue 24 read it (`Çankaya / Ankara` → `Çankaya`,
/// `Karşıyaka/İZMİR` → `Karşıyaka`), also when the province comes first
/// (`İzmir / Karşıyaka`). The province when the district is its centre (`Merkez /
/// Kastamonu`) or when neither side is a known province. `None` without such a slash.
fn district_of(town: &str) -> Option<String> {
    let (first, second) = town.rsplit_once('/')?;
    let (first, second) = (first.trim(), second.trim());
    let word = |w: &str| {
        !w.is_empty()
            && w.chars().next().is_some_and(char::is_uppercase)
            && !w.chars().any(|c| c.is_ascii_digit())
            && w.split_whitespace().count() <= 3
    };
    if !word(first) || !word(second) {
        return None;
    }
    let district = match (is_tr_province(first), is_tr_province(second)) {
        (false, true) if first != "Merkez" => first,
        (true, false) if second != "Merkez" => second,
        (true, false) => first,
        _ => second,
    };
    Some(district.to_owned())
}

/// A Canadian postal code: `V2N 1B2`.
fn is_ca_postcode(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() == 7
        && b[3] == b' '
        && [0, 2, 5].iter().all(|&i| b[i].is_ascii_uppercase())
        && [1, 4, 6].iter().all(|&i| b[i].is_ascii_digit())
}

const CA_PROVINCES: &[&str] =
    &["BC", "AB", "SK", "MB", "ON", "QC", "NB", "NS", "PE", "NL", "YT", "NT", "NU"];

/// A house number written alone (`5`, `12B`, `s/n`).
fn is_house_number(part: &str) -> bool {
    let p = part.trim();
    let digits = p.bytes().take_while(u8::is_ascii_digit).count();
    p.eq_ignore_ascii_case("s/n")
        || (1..=3).contains(&digits)
            && p.len() - digits <= 1
            && p[digits..].chars().all(|c| c.is_ascii_alphabetic())
}

/// Whether a part is a street with its house number (`Atatürk Caddesi No: 112`,
/// `Hauptstraße 40`, `Calle Mayor nº 3`): a number of one to three digits, or one after a
/// number marker, ends it. No town is written so.
fn is_numbered_street(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let [.., before, last] = words.as_slice() else { return false };
    // `Calle 36 # 22-40`, `Cra. 27 # 45-18`: a Colombian street, the crossing's number and
    // the house's after `#`.
    if *before == "#" && words.len() >= 4 {
        let numbered = |w: &str| {
            let digits = w.chars().take_while(char::is_ascii_digit).count();
            (1..=3).contains(&digits) && w.chars().skip(digits).all(|c| c.is_ascii_alphabetic())
        };
        return last.split_once('-').is_some_and(|(a, b)| {
            numbered(a) && (1..=3).contains(&b.len()) && b.bytes().all(|c| c.is_ascii_digit())
        });
    }
    let number =
        last.trim_end_matches(|c: char| c.is_ascii_alphabetic()).trim_end_matches(['-', '/']);
    let digits =
        !number.is_empty() && number.len() <= 3 && number.bytes().all(|b| b.is_ascii_digit());
    let marker =
        ["no:", "no.", "no", "nº", "nr.", "nr", "n°"].contains(&before.to_lowercase().as_str());
    let first_is_word = words[0].chars().next().is_some_and(char::is_alphabetic);
    // `Dublin 6`: Dublin's postal districts are written after the city's name.
    let dublin = words.len() == 2 && words[0] == "Dublin";
    // `Av. Bernardo O'Higgins 210`, `Rue Saint-Jean 4`: a name's apostrophe or hyphen.
    let word = before.trim_end_matches('.');
    let named = !word.is_empty()
        && word.chars().all(|c| c.is_alphabetic() || matches!(c, '\'' | '’' | '-'));
    digits && first_is_word && !dublin && (marker || named)
}

/// Whether an address's only part is a street without its number (`Mill Lane`, `rue des
/// Écoles`, `Calle Real`, `Bahnhofstraße`): two to four words ending with an English street
/// word or opened by a Romance one, or one German street compound.
fn is_lone_street(part: &str) -> bool {
    const LAST: &[&str] = &[
        "road",
        "rd",
        "street",
        "lane",
        "avenue",
        "ave",
        "drive",
        "boulevard",
        "blvd",
        "square",
        "close",
        "crescent",
        "terrace",
    ];
    const FIRST: &[&str] =
        &["rue", "calle", "avenida", "paseo", "chemin", "carrer", "boulevard", "avenue", "allée"];
    let lower = part.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    match words.as_slice() {
        [one] => ["straße", "strasse"].iter().any(|s| one.len() > s.len() + 2 && one.ends_with(s)),
        [first, .., last] if words.len() <= 4 => {
            LAST.contains(&last.trim_end_matches('.')) || FIRST.contains(first)
        }
        _ => false,
    }
}

fn is_postal(part: &str) -> bool {
    let p = part.trim();
    if is_uk_postcode(p) || is_ca_postcode(p) {
        return true;
    }
    let digits = p.chars().filter(char::is_ascii_digit).count();
    !p.is_empty()
        && p.len() <= 10
        && digits >= 3
        && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == ' ')
        && !p.contains("  ")
        && p.split(' ').count() <= 2
        && p.chars().filter(|c| c.is_alphabetic()).count() <= 3
}

/// `35600 İzmir`, `04155 Leipzig` (a postal code before the town, as in Europe and
/// Turkey) and `Montréal QC H2T 1S1` (Canada): the town, the postal code, the region.
fn european_or_canadian_tail(part: &str) -> (String, Option<String>, Option<String>) {
    let words: Vec<&str> = part.split(' ').collect();
    if words.len() >= 2
        && (4..=5).contains(&words[0].len())
        && words[0].bytes().all(|b| b.is_ascii_digit())
        && words[1].chars().next().is_some_and(char::is_alphabetic)
    {
        return (words[1..].join(" "), Some(words[0].to_owned()), None);
    }
    // `A-3652 Kirchberg`, `D-79098 Freiburg`, `CH-8001 Zürich`: a postal code after its
    // country's letters, as older European addresses write it.
    if words.len() >= 2
        && let Some((country, code)) = words[0].split_once('-')
        && (1..=2).contains(&country.len())
        && country.bytes().all(|b| b.is_ascii_uppercase())
        && (4..=5).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_digit())
        && words[1].chars().next().is_some_and(char::is_alphabetic)
    {
        return (words[1..].join(" "), Some(code.to_owned()), None);
    }
    // `C1059ABP Ciudad Autónoma de Buenos Aires`: Argentina's postal code (a letter, four
    // digits, three letters) before the town.
    let cpa = |w: &str| {
        let b = w.as_bytes();
        b.len() == 8
            && b[0].is_ascii_uppercase()
            && b[1..5].iter().all(u8::is_ascii_digit)
            && b[5..].iter().all(u8::is_ascii_uppercase)
    };
    if words.len() >= 2 && cpa(words[0]) && words[1].chars().next().is_some_and(char::is_alphabetic)
    {
        return (words[1..].join(" "), Some(words[0].to_owned()), None);
    }
    let n = words.len();
    let ca = |w: &str, letter_first: bool| {
        let b = w.as_bytes();
        b.len() == 3
            && b.iter().enumerate().all(|(i, c)| {
                if (i % 2 == 0) == letter_first {
                    c.is_ascii_uppercase()
                } else {
                    c.is_ascii_digit()
                }
            })
    };
    if n >= 3 && ca(words[0], true) && ca(words[1], false) {
        return (words[2..].join(" "), Some(format!("{} {}", words[0], words[1])), None);
    }
    if n >= 4 {
        let code = format!("{} {}", words[n - 2], words[n - 1]);
        if ca(words[n - 2], true) && ca(words[n - 1], false) && is_region(words[n - 3]) {
            return (words[..n - 3].join(" "), Some(code), Some(words[n - 3].to_owned()));
        }
    }
    (part.to_owned(), None, None)
}

/// Splits a one-string address into parts.
pub(crate) fn split_address(text: &str) -> AddressParts {
    let mut parts: Vec<String> = text
        .split([',', '\n', ';'])
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    let mut out = AddressParts::default();
    if let Some(last) = parts.last()
        && let Some(code) = country_code(last)
        && (parts.len() > 1 || last.len() > 2)
    {
        out.country = Some(code);
        parts.pop();
    }
    // `09002 Burgos (España)`: the country in brackets after the town.
    if out.country.is_none()
        && let Some(last) = parts.last_mut()
        && let Some((before, inner)) = last.strip_suffix(')').and_then(|l| l.rsplit_once('('))
        && !before.trim().is_empty()
        && let Some(code) = country_code(inner.trim())
    {
        out.country = Some(code);
        *last = before.trim().to_owned();
    }
    if let Some(last) = parts.last()
        && is_postal(last)
        && parts.len() > 1
    {
        out.postal_code = Some(last.clone());
        parts.pop();
    }
    if let Some(last) = parts.last().cloned()
        && parts.len() > 1
    {
        // `IL 60604`: region and postal code in one part.
        let words: Vec<&str> = last.split(' ').collect();
        if words.len() == 2 && is_region(words[0]) && is_postal(words[1]) {
            out.region = Some(words[0].to_owned());
            out.postal_code.get_or_insert_with(|| words[1].to_owned());
            parts.pop();
        } else if words.len() == 3
            && CA_PROVINCES.contains(&words[0])
            && is_ca_postcode(&format!("{} {}", words[1], words[2]))
        {
            // `BC V2N 1B2`: a Canadian province and postal code in one part.
            out.region = Some(words[0].to_owned());
            out.postal_code.get_or_insert_with(|| format!("{} {}", words[1], words[2]));
            parts.pop();
        } else if is_region(&last) {
            out.region = Some(last);
            parts.pop();
        }
    }
    // `Burgweg 4, 8955 Wolkenstein, Steiermark`, `37000 León, Gto.`: a state or province
    // after the postal code and town (words only, or one abbreviated word).
    if out.region.is_none()
        && parts.len() >= 2
        && let [.., town, last] = parts.as_slice()
        && !last.chars().any(|c| c.is_ascii_digit())
        && last.split_whitespace().count() <= 3
        && starts_with_postcode(town)
        && !crate::normalise::names_a_street(town)
        && (parts.len() >= 3 || last.ends_with('.'))
    {
        out.region = parts.pop();
    }
    // `Valdivia, Los Ríos`, `Arrecife, Lanzarote`: a region no town shares the name of,
    // after a town (words only, no street), is the region; the town is the part before.
    if out.region.is_none()
        && parts.len() >= 2
        && let [.., town, last] = parts.as_slice()
        && is_region_name(last)
        && !town.chars().any(|c| c.is_ascii_digit())
        && !crate::normalise::names_a_street(town)
        && !is_turkish_street(town)
    {
        out.region = parts.pop();
    }
    // `1435 The Alameda, San Jose, SJ, CR`: a second code after the region is no town
    // either (a town is never two or three capitals); the town is the part before.
    if parts.len() > 2
        && let Some(last) = parts.last()
        && (2..=3).contains(&last.len())
        && last.bytes().all(|b| b.is_ascii_uppercase())
    {
        let code = parts.pop();
        if out.region.is_none() {
            out.region = code;
        }
    }
    let mut district_town = false;
    if let Some(last) = parts.last().cloned() {
        let looks_like_street = last.chars().next().is_some_and(|c| c.is_ascii_digit());
        // `Casa de Cultura, calle Real, 5`: a house number after its street, as Spanish
        // and Italian addresses write it, is no town.
        // `45, rue des Saules`: a street after its house number, as Québec and France
        // write it, is no town either.
        let numbered_before = parts.len() == 2
            && is_house_number(&parts[0])
            && crate::normalise::names_a_street(&last);
        if (parts.len() > 1 || !looks_like_street)
            && !is_house_number(&last)
            && !is_numbered_street(&last)
            && !numbered_before
            && (parts.len() > 1 || !is_lone_street(&last))
        {
            // `Rio de Janeiro - RJ`: a locality with its region after a dash.
            let (locality, region) = match last.rsplit_once(" - ") {
                Some((l, r)) if is_region(r) => (l.to_owned(), Some(r.to_owned())),
                _ => (last, None),
            };
            // `Chicago IL 60602` style tails are left whole: too ambiguous to split.
            let (locality, postal, region2) = european_or_canadian_tail(&locality);
            // `London SE1 9PX`: a town with a UK postcode after it; `Cork T23 XY12` an
            // Irish Eircode; `Brunswick VIC 3056`, `Martinborough 5711` an Australian or
            // New Zealand one.
            let (locality, postal) = match uk_tail(&locality).or_else(|| eircode_tail(&locality)) {
                Some((town, code)) => (town, Some(code)),
                None => match four_digit_tail(&locality).filter(|(_, state, _)| {
                    state.is_some() || matches!(out.country.as_deref(), Some("AU" | "NZ"))
                }) {
                    Some((town, state, code)) if parts.len() > 1 => {
                        out.region = out.region.take().or(state);
                        (town, Some(code))
                    }
                    _ => (locality, postal),
                },
            };
            // `Station Road, Brackwell, Kent ME18 4QT`: a county before the postcode is the
            // region; the town is the part before it, when that is no street.
            let locality = match parts.len().checked_sub(2).map(|i| parts[i].clone()) {
                Some(town)
                    if postal.as_deref().is_some_and(is_uk_postcode)
                        && is_county(&locality)
                        && !town.chars().any(|c| c.is_ascii_digit())
                        && !crate::normalise::names_a_street(&town) =>
                {
                    parts.pop();
                    out.region.get_or_insert(locality);
                    town
                }
                _ => locality,
            };
            // `Medina de Pomar (Burgos)`, `Quimper (29)`, `Val-Chérin (VS)`: the province,
            // department or canton in brackets after the town is not part of it.
            let locality = without_bracketed_tail(&without_sentence(&locality));
            if postal.as_deref().is_some_and(is_uk_postcode) {
                out.country.get_or_insert_with(|| "GB".to_owned());
            }
            // `Karşıyaka / İzmir`: a district, then its province (Turkish addresses); see
            // [`district_of`].
            let locality = match district_of(&locality) {
                Some(district) => {
                    district_town = true;
                    district
                }
                None => locality,
            };
            if out.postal_code.is_none() {
                out.postal_code = postal;
            }
            if out.region.is_none() {
                out.region = region2;
            }
            out.locality = Some(locality);
            if out.region.is_none() {
                out.region = region;
            }
            parts.pop();
        }
    }
    // `Caferağa Mah. Moda Cad. No: 45, Kadıköy, İstanbul`: a Turkish district after the
    // numbered street is neither street nor town (the city came last). A quarter before a
    // `district / city` (`…, Kavaklıdere, Çankaya / Ankara`) or in another country's
    // address (`Calle Donceles 36, Centro Histórico`) is the street's.
    if parts.len() >= 2 && !district_town {
        let last = &parts[parts.len() - 1];
        let numbered = |p: &str| p.chars().any(|c| c.is_ascii_digit()) || p.contains("s/n");
        if out.locality.is_some()
            && is_turkish_street(&parts[parts.len() - 2])
            && !numbered(last)
            && last.split_whitespace().count() <= 2
            && numbered(&parts[parts.len() - 2])
        {
            parts.pop();
        }
    }
    // `33 Ladywell Road, Ashcombe, Leeds LS17 6QR`: a UK suburb between the numbered
    // street and the post town is neither.
    if parts.len() == 2
        && out.postal_code.as_deref().is_some_and(is_uk_postcode)
        && parts[0].starts_with(|c: char| c.is_ascii_digit())
        && crate::normalise::names_a_street(&parts[0])
        && !parts[1].chars().any(|c| c.is_ascii_digit())
        && parts[1].split_whitespace().count() <= 3
        && parts[1].starts_with(char::is_uppercase)
        && !crate::normalise::names_a_street(&parts[1])
    {
        parts.pop();
    }
    if !parts.is_empty() {
        out.street = Some(parts.join(", "));
    }
    // A UK postcode written as a part of its own says the country too.
    if out.country.is_none() && out.postal_code.as_deref().is_some_and(is_uk_postcode) {
        out.country = Some("GB".to_owned());
    }
    // A Canadian postal code with a province code says the country.
    if out.country.is_none()
        && out.postal_code.as_deref().is_some_and(is_ca_postcode)
        && out.region.as_deref().is_some_and(|r| CA_PROVINCES.contains(&r))
    {
        out.country = Some("CA".to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(s: &str) -> [Option<String>; 5] {
        let a = split_address(s);
        [a.street, a.locality, a.region, a.postal_code, a.country]
    }

    fn o(s: &str) -> Option<String> {
        Some(s.to_owned())
    }

    #[test]
    fn countries_by_their_full_names_in_the_five_languages() {
        assert_eq!(split("Av. Corrientes 1530, C1042 Buenos Aires, Argentina")[4], o("AR"));
        for (name, code) in [
            ("Russia", "RU"),
            ("Chile", "CL"),
            ("Allemagne", "DE"),
            ("İspanya", "ES"),
            ("Royaume-Uni", "GB"),
        ] {
            assert_eq!(country_code(name).as_deref(), Some(code), "{name}");
        }
        // Two letters name only the countries of the first table.
        assert_eq!(country_code("Co"), None);
        assert_eq!(country_code("ar"), None);
    }

    #[test]
    fn a_uk_suburb_is_not_the_street() {
        assert_eq!(
            split("4 Mill Lane, Heworth, York YO31 7AB, UK")[..2],
            [o("4 Mill Lane"), o("York")]
        );
        // A street without a number, or a second street, stays whole.
        assert_eq!(
            split("Canal Wharf, Gaol Ferry Steps, Bristol BS1 6WP")[0],
            o("Canal Wharf, Gaol Ferry Steps")
        );
        assert_eq!(
            split("4 Mill Lane, Church Street, York YO31 7AB")[0],
            o("4 Mill Lane, Church Street")
        );
    }

    #[test]
    fn a_postal_code_after_country_letters() {
        assert_eq!(
            split("Kirchgasse 2, A-4020 Linz")[..4],
            [o("Kirchgasse 2"), o("Linz"), None, o("4020")]
        );
        assert_eq!(
            split("Hauptstraße 1, D-79098 Freiburg im Breisgau")[1],
            o("Freiburg im Breisgau")
        );
        // A hyphenated name is no postal code.
        assert_eq!(split("Hauptstraße 1, Saint-Malo")[1], o("Saint-Malo"));
    }

    #[test]
    fn a_street_named_with_an_apostrophe() {
        assert_eq!(
            split("Av. Bernardo O'Higgins 210")[..2],
            [o("Av. Bernardo O'Higgins 210"), None]
        );
        assert_eq!(split("Rue Saint-Jean 4")[..2], [o("Rue Saint-Jean 4"), None]);
    }

    #[test]
    fn a_street_alone_is_no_town() {
        // A street written without a house number or town (`Mill Lane`), and a Colombian
        // street with its crossing and house numbers (`Calle 12 # 4-56`), are streets.
        assert_eq!(split("Mill Lane")[..2], [o("Mill Lane"), None]);
        assert_eq!(split("Calle 12 # 4-56")[..2], [o("Calle 12 # 4-56"), None]);
        assert_eq!(
            split("Carrera 15 # 20B-31, Pereira")[..2],
            [o("Carrera 15 # 20B-31"), o("Pereira")]
        );
        // A town alone, or one whose name opens with `St`, stays the town.
        assert_eq!(split("St Ives")[..2], [None, o("St Ives")]);
        assert_eq!(split("Hexley")[..2], [None, o("Hexley")]);
        assert_eq!(split("Port Avery")[..2], [None, o("Port Avery")]);
    }

    #[test]
    fn a_numbered_street_last_is_no_town() {
        // A venue and its street, the town left to the page (issue 24, batch 110–129).
        assert_eq!(split("Kent Kitaplığı, Atatürk Caddesi No: 112")[1], None);
        assert_eq!(split("Parkplatz an der Festhalle, Hauptstraße 40")[1], None);
        assert_eq!(split("Vereinsheim, Am Sportplatz 3")[0], o("Vereinsheim, Am Sportplatz 3"));
        // Towns still end an address.
        assert_eq!(split("Hauptstraße 40, Rauhenstetten")[1], o("Rauhenstetten"));
        assert_eq!(split("221B Baker Street, London W1")[1], o("London W1"));
    }

    #[test]
    fn a_country_in_brackets_after_the_town() {
        assert_eq!(
            split("Calle Madrid 24, 09002 Burgos (España)"),
            [o("Calle Madrid 24"), o("Burgos"), None, o("09002"), o("ES")]
        );
        // Brackets that name no country are the town's province or quarter, not the town.
        assert_eq!(split("Hauptstr. 3, 04155 Leipzig (Gohlis)")[1], o("Leipzig"));
    }

    #[test]
    fn a_house_number_after_its_street_is_no_town() {
        let [street, locality, ..] = split("Casa de Cultura, calle Real, 5");
        assert_eq!(street, o("Casa de Cultura, calle Real, 5"));
        assert_eq!(locality, None);
        assert_eq!(split("calle Mayor, 12B")[1], None);
        assert_eq!(split("Teatro Principal, Burgos")[1], o("Burgos"));
    }

    #[test]
    fn postcodes_after_the_town_and_provinces_in_brackets() {
        // Issue 24, batches 90–209: the tails each country writes after its towns.
        assert_eq!(
            split("41 Dawson Street, Brunswick VIC 3056, Australia"),
            [o("41 Dawson Street"), o("Brunswick"), o("VIC"), o("3056"), o("AU")]
        );
        assert_eq!(
            split("48 Puruatanga Road, Martinborough 5711, New Zealand"),
            [o("48 Puruatanga Road"), o("Martinborough"), None, o("5711"), o("NZ")]
        );
        assert_eq!(
            split("Ballyhooly Road, Cork T23 XY12, Ireland"),
            [o("Ballyhooly Road"), o("Cork"), None, o("T23 XY12"), o("IE")]
        );
        assert_eq!(
            split("Av. Santa Fe 846, piso 5, C1059ABP Ciudad Autónoma de Buenos Aires, Argentina"),
            [
                o("Av. Santa Fe 846, piso 5"),
                o("Ciudad Autónoma de Buenos Aires"),
                None,
                o("C1059ABP"),
                o("AR")
            ]
        );
        assert_eq!(split("Plaza Somovilla, Medina de Pomar (Burgos)")[1], o("Medina de Pomar"));
        assert_eq!(
            split("Route de la Télécabine 3, 1999 Val-Chérin (VS), Suisse")[1],
            o("Val-Chérin")
        );
        assert_eq!(split("place de la Gare, Quimper (29)")[1], o("Quimper"));
        // A sentence after the town is no part of it.
        assert_eq!(
            split("rue des Wallons 2, Louvain-la-Neuve. PAF libre (au chapeau).")[1],
            o("Louvain-la-Neuve")
        );
        assert_eq!(split("Marktgasse 3, St. Gallen")[1], o("St. Gallen"));
        // Dublin's postal districts.
        assert_eq!(split("22 Upper Rathmines Road, Dublin 6")[1], o("Dublin 6"));
        // A street's four-digit number is no postcode.
        assert_eq!(split("Av. Italia 1234, Providencia")[0], o("Av. Italia 1234"));
    }

    #[test]
    fn turkish_districts_and_regions_after_the_town() {
        // Issue 24: in a `district / province` a quarter before it stays in the street.
        assert_eq!(
            split("Tunalı Hilmi Cad. No: 88/B, Kavaklıdere, Çankaya / Ankara"),
            [o("Tunalı Hilmi Cad. No: 88/B, Kavaklıdere"), o("Çankaya"), None, None, None]
        );
        // The district (`ilçe`) is the locality, on either side of the slash and in any
        // case; the province only for its central district or when neither is known.
        for (address, locality) in [
            ("Zeytinli Köyü Yolu, Edremit/Balıkesir, Türkiye", "Edremit"),
            ("Atatürk Mah. 1745 Sok. No: 8, Karşıyaka/İZMİR", "Karşıyaka"),
            ("Atatürk Mah. 1745 Sok. No: 8, İzmir / Karşıyaka", "Karşıyaka"),
            ("Hisarardı Mah. Mevlevihane Sok. No: 3, Merkez / Kastamonu", "Kastamonu"),
            ("Okul Sok. No: 3, Yenimahalle / Kızılcahamamköy", "Kızılcahamamköy"),
        ] {
            assert_eq!(split(address)[1], o(locality), "{address}");
        }
        // A region no town shares the name of, after the town, is the region.
        for (address, locality, region) in [
            ("Camino a Niebla 1200, Valdivia, Los Ríos", "Valdivia", "Los Ríos"),
            ("Calle Real 5, Arrecife, Lanzarote", "Arrecife", "Lanzarote"),
            ("Burgweg 4, Wolkenstein, Steiermark", "Wolkenstein", "Steiermark"),
            ("Calle Donceles 36, Centro Histórico, Ciudad de México", "Ciudad de México", ""),
        ] {
            let parts = split(address);
            assert_eq!(parts[1], o(locality), "{address}");
            assert_eq!(parts[2], Some(region.to_owned()).filter(|r| !r.is_empty()), "{address}");
        }
        // A comma-written district before its city is dropped (Turkish streets only).
        assert_eq!(
            split("Harbiye Mah. Cumhuriyet Cad. No: 8, Şişli, İstanbul")[0],
            o("Harbiye Mah. Cumhuriyet Cad. No: 8")
        );
        assert_eq!(
            split("Calle Donceles 36, Centro Histórico, Ciudad de México")[0],
            o("Calle Donceles 36, Centro Histórico")
        );
        // A second code after the region is no town.
        assert_eq!(
            split("1435 The Alameda, San Jose, SJ, CR"),
            [o("1435 The Alameda"), o("San Jose"), o("CR"), None, None]
        );
        // A US house number is no postcode: the town is last.
        assert_eq!(
            split("Big Woods Lake Boat Ramp, 4800 Wild Horse Rd., Cedar Falls")[1],
            o("Cedar Falls")
        );
        // A region after the postcode and town.
        assert_eq!(
            split("Burgweg 4, 8955 Wolkenstein, Steiermark"),
            [o("Burgweg 4"), o("Wolkenstein"), o("Steiermark"), o("8955"), None]
        );
        assert_eq!(
            split("Calle Juárez 310, Zona Centro, 37000 León, Gto., México"),
            [o("Calle Juárez 310, Zona Centro"), o("León"), o("Gto."), o("37000"), o("MX")]
        );
    }

    #[test]
    fn a_house_number_before_its_street() {
        // Issue 24, page 235: a Québec address without its town.
        assert_eq!(split("45, rue des Saules"), [o("45, rue des Saules"), None, None, None, None]);
        assert_eq!(
            split("12, rue des Tanneurs, 44000 Nantes"),
            [o("12, rue des Tanneurs"), o("Nantes"), None, o("44000"), None]
        );
    }

    #[test]
    fn a_county_before_a_uk_postcode_or_after_the_town() {
        // Issue 24, page 271: the county, not the town, stands before the postcode.
        assert_eq!(
            split("Station Road, Brackwell, Kent ME18 4QT"),
            [o("Station Road"), o("Brackwell"), o("Kent"), o("ME18 4QT"), o("GB")]
        );
        assert_eq!(
            split("Station Road, Brackwell, Kent, ME18 4QT"),
            [o("Station Road"), o("Brackwell"), o("Kent"), o("ME18 4QT"), o("GB")]
        );
        assert_eq!(
            split("Pier Road, Kilbrannagh, Co. Clare, Ireland"),
            [o("Pier Road"), o("Kilbrannagh"), o("Co. Clare"), None, o("IE")]
        );
        // A town before its postcode stays the town.
        assert_eq!(
            split("12 High Street, Hexley HX1 2AB"),
            [o("12 High Street"), o("Hexley"), None, o("HX1 2AB"), o("GB")]
        );
    }

    #[test]
    fn one_string_addresses() {
        assert_eq!(
            split("79 Washington St., Providence, RI"),
            [o("79 Washington St."), o("Providence"), o("RI"), None, None]
        );
        assert_eq!(split("Lynn, MA, 01901"), [None, o("Lynn"), o("MA"), o("01901"), None]);
        assert_eq!(split("Memphis, TN, US"), [None, o("Memphis"), o("TN"), None, o("US")]);
        assert_eq!(split("London, UK"), [None, o("London"), None, None, o("GB")]);
        assert_eq!(
            split("2187 Ospika Blvd S, Prince George, BC V2N 1B2"),
            [o("2187 Ospika Blvd S"), o("Prince George"), o("BC"), o("V2N 1B2"), o("CA")]
        );
        assert_eq!(
            split("220 S. Michigan Ave, Chicago, Illinois, USA"),
            [o("220 S. Michigan Ave"), o("Chicago"), o("Illinois"), None, o("US")]
        );
        assert_eq!(
            split("Av. Borges de Medeiros, 1524 - Lagoa, Rio de Janeiro - RJ, 22470-003, Brazil"),
            [
                o("Av. Borges de Medeiros, 1524 - Lagoa"),
                o("Rio de Janeiro"),
                o("RJ"),
                o("22470-003"),
                o("BR")
            ]
        );
        assert_eq!(split("1623 W. Howard St."), [o("1623 W. Howard St."), None, None, None, None]);
        assert_eq!(
            split("Cemal Gürsel Caddesi No: 410, 35600 İzmir"),
            [o("Cemal Gürsel Caddesi No: 410"), o("İzmir"), None, o("35600"), None]
        );
        assert_eq!(
            split("4520 Papineau Avenue, Montréal QC H2H 1V4"),
            [o("4520 Papineau Avenue"), o("Montréal"), o("QC"), o("H2H 1V4"), o("CA")]
        );
        assert_eq!(
            split("2187 Ospika Blvd S, Prince George, BC, V2N 1B2"),
            [o("2187 Ospika Blvd S"), o("Prince George"), o("BC"), o("V2N 1B2"), o("CA")]
        );
        assert_eq!(
            split("14 Wharf Road, London SE1 9PX"),
            [o("14 Wharf Road"), o("London"), None, o("SE1 9PX"), o("GB")]
        );
        assert_eq!(
            split("Caferağa Mah. Moda Cad. No: 45, Kadıköy, İstanbul"),
            [o("Caferağa Mah. Moda Cad. No: 45"), o("İstanbul"), None, None, None]
        );
        assert_eq!(
            split("Gümrük Sok. No: 12, Beyoğlu / İstanbul"),
            [o("Gümrük Sok. No: 12"), o("Beyoğlu"), None, None, None]
        );
        assert_eq!(
            split("Plaza Julián Romea, s/n, 30001 Murcia, España"),
            [o("Plaza Julián Romea, s/n"), o("Murcia"), None, o("30001"), o("ES")]
        );
        assert_eq!(
            split("12 Call Lane, Leeds, LS1 6DN, UK"),
            [o("12 Call Lane"), o("Leeds"), None, o("LS1 6DN"), o("GB")]
        );
    }
}
