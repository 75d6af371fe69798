//! Regions, states and provinces written after a town in an address (`Valdivia, Los Ríos`,
//! `Arrecife, Lanzarote`), and Turkey's provinces (`Çankaya / Ankara`).
//!
//! Sources: ISO 3166-2 subdivision names for ES, MX, AR, CL, CO, PE, DE, AT, CH, FR and TR,
//! as each country writes them, plus the Spanish island names used in addresses. Only
//! names that are not also the name of a town are listed for the comma rule: most Spanish
//! provinces, several Mexican states and every Turkish province are named after their
//! capital (`Burgos`, `Puebla`, `İzmir`), so a part so named may well be the town.

/// Regions that are never a town's name (compared case-insensitively, accents kept).
const REGIONS: &[&str] = &[
    // ES: comunidades autónomas, provinces not named after a town, islands.
    "andalucía",
    "aragón",
    "asturias",
    "principado de asturias",
    "cantabria",
    "cataluña",
    "catalunya",
    "castilla y león",
    "castilla-la mancha",
    "castilla la mancha",
    "extremadura",
    "galicia",
    "comunidad valenciana",
    "comunitat valenciana",
    "comunidad de madrid",
    "región de murcia",
    "país vasco",
    "euskadi",
    "navarra",
    "comunidad foral de navarra",
    "la rioja",
    "islas baleares",
    "illes balears",
    "canarias",
    "islas canarias",
    "bizkaia",
    "vizcaya",
    "gipuzkoa",
    "guipúzcoa",
    "álava",
    "araba",
    "lanzarote",
    "fuerteventura",
    "tenerife",
    "gran canaria",
    "la gomera",
    "el hierro",
    "mallorca",
    "menorca",
    "formentera",
    // MX: states not named after their capital.
    "baja california",
    "baja california sur",
    "coahuila",
    "chiapas",
    "chihuahua",
    "guerrero",
    "jalisco",
    "estado de méxico",
    "edomex",
    "michoacán",
    "morelos",
    "nayarit",
    "nuevo león",
    "quintana roo",
    "sinaloa",
    "sonora",
    "tabasco",
    "tamaulipas",
    "veracruz",
    "yucatán",
    // AR: provinces not named after their capital.
    "provincia de buenos aires",
    "entre ríos",
    "misiones",
    "neuquén",
    "río negro",
    "tierra del fuego",
    "chubut",
    // CL: regions.
    "arica y parinacota",
    "tarapacá",
    "atacama",
    "región de valparaíso",
    "región metropolitana",
    "libertador general bernardo o'higgins",
    "o'higgins",
    "ñuble",
    "biobío",
    "bío bío",
    "araucanía",
    "la araucanía",
    "los ríos",
    "los lagos",
    "aysén",
    "magallanes",
    // CO: departments not named after their capital.
    "antioquia",
    "atlántico",
    "boyacá",
    "caldas",
    "cundinamarca",
    "valle del cauca",
    "nariño",
    "norte de santander",
    "risaralda",
    "quindío",
    "tolima",
    "huila",
    "chocó",
    "cauca",
    // PE: regions not named after their capital.
    "la libertad",
    "san martín",
    "madre de dios",
    "ucayali",
    "junín",
    "áncash",
    "ancash",
    "lambayeque",
    "loreto",
    // DE: Länder not named after a town.
    "baden-württemberg",
    "bayern",
    "brandenburg",
    "hessen",
    "mecklenburg-vorpommern",
    "niedersachsen",
    "nordrhein-westfalen",
    "nrw",
    "rheinland-pfalz",
    "saarland",
    "sachsen",
    "sachsen-anhalt",
    "schleswig-holstein",
    "thüringen",
    // AT: Länder not named after a town.
    "burgenland",
    "kärnten",
    "niederösterreich",
    "oberösterreich",
    "steiermark",
    "tirol",
    "vorarlberg",
    // CH: cantons not named after a town.
    "graubünden",
    "grisons",
    "wallis",
    "valais",
    "aargau",
    "thurgau",
    "tessin",
    "ticino",
    "vaud",
    "waadt",
    "jura",
    // FR: régions.
    "auvergne-rhône-alpes",
    "bourgogne-franche-comté",
    "bretagne",
    "centre-val de loire",
    "corse",
    "grand est",
    "hauts-de-france",
    "île-de-france",
    "normandie",
    "nouvelle-aquitaine",
    "occitanie",
    "pays de la loire",
    "provence-alpes-côte d'azur",
];

/// Turkey's 81 provinces (`il`), as written in mixed case.
const TR_PROVINCES: &[&str] = &[
    "Adana",
    "Adıyaman",
    "Afyonkarahisar",
    "Ağrı",
    "Aksaray",
    "Amasya",
    "Ankara",
    "Antalya",
    "Ardahan",
    "Artvin",
    "Aydın",
    "Balıkesir",
    "Bartın",
    "Batman",
    "Bayburt",
    "Bilecik",
    "Bingöl",
    "Bitlis",
    "Bolu",
    "Burdur",
    "Bursa",
    "Çanakkale",
    "Çankırı",
    "Çorum",
    "Denizli",
    "Diyarbakır",
    "Düzce",
    "Edirne",
    "Elazığ",
    "Erzincan",
    "Erzurum",
    "Eskişehir",
    "Gaziantep",
    "Giresun",
    "Gümüşhane",
    "Hakkari",
    "Hatay",
    "Iğdır",
    "Isparta",
    "İstanbul",
    "İzmir",
    "Kahramanmaraş",
    "Karabük",
    "Karaman",
    "Kars",
    "Kastamonu",
    "Kayseri",
    "Kilis",
    "Kırıkkale",
    "Kırklareli",
    "Kırşehir",
    "Kocaeli",
    "Konya",
    "Kütahya",
    "Malatya",
    "Manisa",
    "Mardin",
    "Mersin",
    "Muğla",
    "Muş",
    "Nevşehir",
    "Niğde",
    "Ordu",
    "Osmaniye",
    "Rize",
    "Sakarya",
    "Samsun",
    "Şanlıurfa",
    "Siirt",
    "Sinop",
    "Şırnak",
    "Sivas",
    "Tekirdağ",
    "Tokat",
    "Trabzon",
    "Tunceli",
    "Uşak",
    "Van",
    "Yalova",
    "Yozgat",
    "Zonguldak",
];

/// Counties of Great Britain that no town of theirs is named after, as addresses write
/// them before a postcode (`Station Road, Brackwell, Kent ME18 4QT`). Lower case.
const GB_COUNTIES: &[&str] = &[
    "kent",
    "surrey",
    "essex",
    "sussex",
    "east sussex",
    "west sussex",
    "hampshire",
    "hants",
    "dorset",
    "devon",
    "cornwall",
    "somerset",
    "wiltshire",
    "berkshire",
    "berks",
    "buckinghamshire",
    "bucks",
    "oxfordshire",
    "oxon",
    "hertfordshire",
    "herts",
    "bedfordshire",
    "beds",
    "cambridgeshire",
    "cambs",
    "norfolk",
    "suffolk",
    "lincolnshire",
    "lincs",
    "nottinghamshire",
    "notts",
    "derbyshire",
    "leicestershire",
    "leics",
    "northamptonshire",
    "northants",
    "warwickshire",
    "worcestershire",
    "gloucestershire",
    "glos",
    "herefordshire",
    "shropshire",
    "staffordshire",
    "staffs",
    "cheshire",
    "lancashire",
    "lancs",
    "merseyside",
    "cumbria",
    "northumberland",
    "north yorkshire",
    "west yorkshire",
    "south yorkshire",
    "east yorkshire",
    "east riding of yorkshire",
    "tyne and wear",
    "greater manchester",
    "west midlands",
    "isle of wight",
    "county durham",
    "rutland",
    "gwynedd",
    "powys",
    "ceredigion",
    "pembrokeshire",
    "carmarthenshire",
    "monmouthshire",
    "aberdeenshire",
    "fife",
    "perthshire",
    "argyll and bute",
];

/// Whether a part of an address names a county of Great Britain (`Kent`, `West Sussex`,
/// see [`GB_COUNTIES`]) or of Ireland (`Co. Clare`, `Co Kerry`).
pub(crate) fn is_county(part: &str) -> bool {
    let p = part.trim().to_lowercase();
    let irish = p.strip_prefix("co. ").or_else(|| p.strip_prefix("co ")).is_some_and(|name| {
        let words: Vec<&str> = name.split_whitespace().collect();
        words.len() == 1 && words[0].chars().all(char::is_alphabetic)
    });
    irish || GB_COUNTIES.contains(&p.as_str())
}

/// Whether a part of an address names a region, state or province that no town shares
/// (`Los Ríos`, `Lanzarote`, `Steiermark`), or a British or Irish county (`Kent`, `Co.
/// Clare`).
pub(crate) fn is_region_name(part: &str) -> bool {
    let p = part.trim().trim_end_matches('.').to_lowercase();
    REGIONS.contains(&p.as_str()) || is_county(part)
}

/// A Turkish name folded for comparison: upper case with `İ` and `I` alike, so
/// `İZMİR`, `İzmir` and `IZMIR` match.
fn tr_fold(s: &str) -> String {
    s.trim().to_uppercase().replace('İ', "I")
}

/// Whether a name is one of Turkey's provinces, in any case (`İzmir`, `İZMİR`).
pub(crate) fn is_tr_province(name: &str) -> bool {
    let folded = tr_fold(name);
    TR_PROVINCES.iter().any(|p| tr_fold(p) == folded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_provinces() {
        for (name, region) in [
            ("Los Ríos", true),
            ("Lanzarote", true),
            ("steiermark", true),
            ("Valdivia", false),
            ("Burgos", false),
            ("", false),
        ] {
            assert_eq!(is_region_name(name), region, "{name}");
        }
        for (name, province) in
            [("İzmir", true), ("İZMİR", true), ("Eskişehir", true), ("Çankaya", false)]
        {
            assert_eq!(is_tr_province(name), province, "{name}");
        }
    }
}
