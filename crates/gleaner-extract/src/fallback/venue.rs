//! Venues and places: the site's own venue in its footer or contact block, the country
//! its address ends with, and an item's place named by its markup's class.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use scraper::ElementRef;

use super::detail::label_of;
use super::words::is_publication_line;
use super::{sel, text_of};

/// The venue a site names in its footer or contact block: one line `Name · street ·
/// postcode town [· country]` (separated by `·`, `|`, `•` or commas) whose parts after the
/// name hold a street or postcode and a town; phone numbers, e-mail addresses and `©`
/// lines are not parts. The name and the address (parts joined by `, `).
pub(super) fn site_venue(doc: ElementRef<'_>) -> Option<(String, String)> {
    let blocks = sel(
        "footer, footer address, footer p, footer div, footer li, address, [class*=contact] p, [class*=adres]",
    );
    let found = doc
        .select(&blocks)
        .filter(|el| el.select(&sel("p, div, li, address")).all(|b| b.id() == el.id()))
        .take(200)
        .find_map(|el| venue_line(&text_of(el)).or_else(|| venue_line(&br_lines(el)?)));
    // A block headed as the site's contact or address (`<h3>Kontakt</h3><p><strong>
    // Stadtbücherei Lindenau</strong><br>Marktplatz 5<br>09399 Lindenau</p>`), in a
    // sidebar as often as in the footer.
    let found = found.or_else(|| {
        doc.select(&sel("h2, h3, h4, h5, h6"))
            .filter(|h| is_contact_heading(&text_of(*h)))
            .take(10)
            .find_map(|h| {
                let block = h.next_siblings().find_map(ElementRef::wrap)?;
                matches!(block.value().name(), "p" | "address" | "div")
                    .then(|| {
                        br_lines(block)
                            .and_then(|l| venue_line(&l))
                            .or_else(|| venue_line(&text_of(block)))
                    })
                    .flatten()
            })
    });
    // A footer column headed by the venue's name, its address below (`<h2>El Desván de
    // Papel</h2><p>Calle de la Platería, 9 · 47001 Valladolid · España<br>…</p>`).
    let found = found.or_else(|| {
        doc.select(&sel("footer h2, footer h3, footer h4, footer h5")).take(20).find_map(|h| {
            let block = h.next_siblings().find_map(ElementRef::wrap)?;
            let block = if block.value().name() == "div" {
                block.children().find_map(ElementRef::wrap).unwrap_or(block)
            } else {
                block
            };
            if !matches!(block.value().name(), "p" | "address") {
                return None;
            }
            let lines = br_lines(block).unwrap_or_else(|| text_of(block));
            venue_line(&format!("{} · {lines}", text_of(h)))
        })
    });
    if found.is_some() || doc.select(&sel("footer")).next().is_some() {
        return found;
    }
    // No `<footer>` (an HTML e-mail's layout tables, a hand-made page): the page's last
    // text blocks are its footer, the last first; a block written one line per `<br>`
    // is read line by line first (`Club … · Av. Independencia 3021 · Buenos Aires<br>
    // Colectivos 7, 23 · Subte E`).
    let leaf = sel("p, td, div, li, address");
    let blocks: Vec<ElementRef<'_>> = doc
        .select(&leaf)
        .filter(|el| el.select(&leaf).all(|b| b.id() == el.id()) && !text_of(*el).is_empty())
        .collect();
    let mut last = blocks.iter().rev().take(3);
    let first = last.next()?;
    venue_line(&text_of(*first))
        .or_else(|| last.find_map(|el| lines_venue(*el).or_else(|| venue_line(&text_of(*el)))))
}

/// The venue one of a block's `<br>` lines names (see [`venue_line`]), else the one its
/// lines name together; `None` without a `<br>`.
fn lines_venue(el: ElementRef<'_>) -> Option<(String, String)> {
    let lines = br_line_list(el);
    if lines.len() < 2 {
        return None;
    }
    lines.iter().find_map(|l| venue_line(l)).or_else(|| venue_line(&lines.join(" · ")))
}

/// Headings of a site's contact or address block, folded and lower-cased.
const CONTACT_HEADINGS: &[&str] = &[
    "contact",
    "contact us",
    "find us",
    "visit us",
    "address",
    "nous trouver",
    "adresse",
    "acces",
    "kontakt",
    "anschrift",
    "so finden sie uns",
    "contacto",
    "direccion",
    "donde estamos",
    "iletisim",
    "adres",
    "adresimiz",
    "ulasim",
    // The venue's own heading (`<h3>Sede</h3>`, `<h3>Spielort</h3>`).
    "sede",
    "spielort",
    "veranstaltungsort",
    "venue",
    "our venue",
    "lieu",
    "mekan",
];

/// Whether a heading names the site's contact or address block (`Kontakt`, `Contact`,
/// `İletişim`, `Dirección:`).
fn is_contact_heading(text: &str) -> bool {
    let folded =
        gleaner_event::datetext::fold_diacritics(text.trim().trim_end_matches(':')).to_lowercase();
    CONTACT_HEADINGS.contains(&folded.trim())
}

/// An address block written one line per `<br>` (`<strong>Harlan Science Center</strong>
/// <br>410 Riverside Drive<br>Millbrook, OH 45067`) as one line whose parts are
/// separated by ` · `; `None` without a `<br>`.
fn br_lines(el: ElementRef<'_>) -> Option<String> {
    let lines = br_line_list(el);
    (lines.len() >= 2).then(|| lines.join(" · "))
}

/// A block's lines, one per `<br>`, without the empty ones.
pub(super) fn br_line_list(el: ElementRef<'_>) -> Vec<String> {
    let mut lines = vec![String::new()];
    for node in el.descendants() {
        if let Some(t) = node.value().as_text() {
            if let Some(line) = lines.last_mut() {
                line.push_str(t);
            }
        } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
            lines.push(String::new());
        }
    }
    lines.iter().map(|l| collapse(l)).filter(|l| !l.is_empty()).collect()
}

/// One footer line read as a venue and its address:
/// `The Blue Lantern · 1420 W. Fullerton Ave · Chicago, IL 60614 · (773) 555-0142` →
/// (`The Blue Lantern`, `1420 W. Fullerton Ave, Chicago, IL 60614`).
fn venue_line(line: &str) -> Option<(String, String)> {
    if line.len() > 240 {
        return None;
    }
    // `Dönen Plak © 2026 · Kıbrıs Şehitleri Caddesi, …`: the copyright is no part of the
    // name; a line that is nothing else, or whose © stands elsewhere, names no venue.
    let owned;
    let line = if line.contains('©') {
        let (first, rest) = line.split_once(['·', '|', '•'])?;
        let name = without_copyright(first)?;
        owned = format!("{name} ·{rest}");
        if rest.contains('©') {
            return None;
        }
        owned.as_str()
    } else {
        line
    };
    let dotted = line.contains(['·', '|', '•']);
    let parts: Vec<&str> = if dotted {
        let mut parts: Vec<&str> =
            line.split(['·', '|', '•']).map(str::trim).filter(|p| !p.is_empty()).collect();
        // After the name, a part may join its street, town and phone with spaced dashes
        // (`12, rue des Tanneurs — 44000 Nantes — 02 40 00 00 00`).
        if let Some((name, rest)) = parts.split_first() {
            let mut split = vec![*name];
            split.extend(rest.iter().flat_map(|p| dash_parts(p)));
            parts = split;
        }
        parts
    } else {
        line.split(',').map(str::trim).filter(|p| !p.is_empty()).collect()
    };
    // A phone or licence number has seven digits or more; a US street and ZIP code have
    // as many, a house number first and the ZIP code last (`418 Larkin Avenue, Dayton,
    // OH 45402`).
    let us_street = |p: &str| {
        let words: Vec<&str> = p.split_whitespace().collect();
        let numeric: Vec<&str> =
            words.iter().copied().filter(|w| w.chars().any(|c| c.is_ascii_digit())).collect();
        let number = |w: &str, n: std::ops::RangeInclusive<usize>| {
            n.contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit())
        };
        matches!(numeric.as_slice(), [house, zip] if number(house, 1..=5) && number(zip, 5..=5))
            && words.first() == numeric.first()
            && words.last() == numeric.last()
    };
    // A street whose name is a number (`Kızılırmak Mah. 1443. Cad. No: 18, 06510 Çankaya`)
    // has as many digits too, and more letters than digits.
    // A phone's digits stand in a run of three groups or more (`02 40 00 00 00`) or in one
    // long group (`03012345678`); a street's do not.
    let phone_run = |p: &str| {
        let mut run = 0;
        p.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            let digits = !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
            run = if digits { run + 1 } else { 0 };
            run >= 3 || digits && w.len() >= 7
        })
    };
    let street_digits = |p: &str| {
        let letters = p.chars().filter(|c| c.is_alphabetic()).count();
        names_a_street(p)
            && letters >= p.chars().filter(char::is_ascii_digit).count()
            && !phone_run(p)
    };
    let is_contact = |p: &str| {
        p.contains('@')
            || p.starts_with("http")
            || p.starts_with("www.")
            || p.chars().filter(char::is_ascii_digit).count() >= 7
                && !us_street(p)
                && !street_digits(p)
    };
    // Nor is a sentence after the address (`Ayuntamiento de Burgos. Si no quiere recibir
    // este boletín, dese de baja.`).
    // Nor are opening hours (`Pazartesi–Cumartesi 10.00–20.00`, `Di.–Fr. 10–18 Uhr`).
    // Nor are the links a footer line ends with (`· Impressum · Datenschutz`).
    let parts: Vec<&str> = parts
        .into_iter()
        .filter(|p| {
            !is_contact(p) && !is_sentence(p) && parse_text_time(p).is_none() && !is_legal_link(p)
        })
        .collect();
    let (name, rest) = parts.split_first()?;
    // `Espacio Nórdico – Embajada de Finlandia en la República Argentina`: a long name
    // is its first part before a dash, the rest says what it is.
    let name = match name.split_once(" – ").or_else(|| name.split_once(" — ")) {
        Some((short, _)) if name.split_whitespace().count() > 6 => short.trim(),
        _ => name,
    };
    let words = name.split_whitespace().count();
    // A labelled part (`Präsident: Hans Lüthi`) names a person or an office, not a venue.
    if rest.is_empty()
        || !(1..=6).contains(&words)
        || name.contains(':')
        || name.chars().any(|c| c.is_ascii_digit())
        || label_of(name).is_some()
    {
        return None;
    }
    // A postcode before a town (`69002 Lyon`), a US/UK tail (`IL 60614`, `SE1 9PX`), or a
    // street with a house number (`No: 12`, `1420 W. …`, `Findorffstraße 51`, `s/n`).
    let postcode_town = |p: &str| {
        let w: Vec<&str> = p.split_whitespace().map(|w| w.trim_matches([',', ';', '.'])).collect();
        w.windows(2).any(|x| {
            (4..=5).contains(&x[0].len())
                && x[0].bytes().all(|b| b.is_ascii_digit())
                && x[1].chars().next().is_some_and(char::is_alphabetic)
        }) || w.last().is_some_and(|l| l.len() == 5 && l.bytes().all(|b| b.is_ascii_digit()))
            || p.split(',').any(ends_with_uk_postcode)
    };
    let numbered = |p: &str| {
        p.split_whitespace().any(|t| {
            let t = t.trim_end_matches([',', '.']);
            t.eq_ignore_ascii_case("s/n")
                || (t.chars().next().is_some_and(|c| c.is_ascii_digit())
                    && t.chars().filter(char::is_ascii_digit).count() <= 4)
        }) && p.chars().any(char::is_alphabetic)
    };
    // In a dotted line, one part may hold the street and the town (`Kırkambar Kitabevi ·
    // Moda Caddesi No: 48, Kadıköy / İstanbul`).
    let street_town = |p: &str| {
        p.split_once(", ").is_some_and(|(street, town)| {
            numbered(street)
                && town.chars().next().is_some_and(char::is_alphabetic)
                && !town.chars().any(|c| c.is_ascii_digit())
        })
    };
    let has_place = rest.iter().any(|p| postcode_town(p))
        || (rest.len() >= 2 && numbered(rest[0]) && rest[1].chars().any(char::is_alphabetic))
        || (dotted && street_town(rest[0]));
    if !has_place || rest.iter().any(|p| is_publication_line(p)) {
        return None;
    }
    // An organisation's line (`Kingsmere Town Football Club · The Brickfield, Station Road,
    // Kingsmere`): the place is the name that opens its address, when one does.
    if is_organisation(name)
        && let Some((place, street)) = rest[0].split_once(", ")
        && !place.chars().any(|c| c.is_ascii_digit())
        && (1..=4).contains(&place.split_whitespace().count())
        && label_of(place).is_none()
        && !names_a_street(place)
    {
        let mut address = vec![street];
        address.extend_from_slice(&rest[1..]);
        return Some((place.trim().to_owned(), address.join(", ")));
    }
    // In a line of commas, the place is the part after the organisation's name, when a
    // street follows it (`Coombe Valley Railway, Ashcombe Station, Station Road, …`).
    if !dotted
        && is_organisation(name)
        && let [place, street, ..] = rest
        && !place.chars().any(|c| c.is_ascii_digit())
        && (1..=4).contains(&place.split_whitespace().count())
        && label_of(place).is_none()
        && !names_a_street(place)
        && names_a_street(street)
    {
        return Some(((*place).to_owned(), rest[1..].join(", ")));
    }
    let rest: Vec<&str> =
        rest.iter().map(|p| if dotted { without_quarter(own_part_city(p)) } else { p }).collect();
    Some((without_legal_form(name).to_owned(), rest.join(", ")))
}

/// A name without the copyright written after it (`Dönen Plak © 2026` → `Dönen Plak`);
/// `None` when the copyright opens it or nothing but a name and a year is left.
fn without_copyright(part: &str) -> Option<&str> {
    let (name, after) = part.split_once('©')?;
    let year =
        after.trim().trim_start_matches(|c: char| c.is_ascii_digit() || c == '–' || c == '-');
    (year.trim().is_empty() && !name.trim().is_empty()).then(|| name.trim())
}

/// A numbered street without the quarter written in brackets after it (`Av.
/// Independencia 3021 (Boedo)` → `Av. Independencia 3021`); the part as written
/// otherwise.
fn without_quarter(part: &str) -> &str {
    let Some((street, inner)) = part.strip_suffix(')').and_then(|p| p.rsplit_once(" (")) else {
        return part;
    };
    let numbered = street
        .split_whitespace()
        .last()
        .is_some_and(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()));
    let words = inner.split_whitespace().count();
    if numbered
        && (1..=3).contains(&words)
        && inner.chars().all(|c| c.is_alphabetic() || c == ' ' || c == '-' || c == '\'')
    {
        street.trim_end()
    } else {
        part
    }
}

/// A dotted line's part cut at its spaced dashes (`12, rue des Tanneurs — 44000 Nantes`
/// → `12, rue des Tanneurs`, `44000 Nantes`); the part whole when a side would hold no
/// letter or digit.
fn dash_parts(part: &str) -> Vec<&str> {
    let pieces: Vec<&str> = part.split([' ', '\u{a0}']).collect();
    if !pieces.contains(&"—") && !pieces.contains(&"–") {
        return vec![part];
    }
    let cut: Vec<&str> = part.split(" — ").flat_map(|p| p.split(" – ")).map(str::trim).collect();
    if cut.iter().all(|p| p.chars().any(char::is_alphanumeric)) { cut } else { vec![part] }
}

/// Whether a part ends with a UK postcode (`Brackwell, Kent ME18 4QT`, `SE1 9PX`): an
/// outward code of one or two capitals and a digit or two (a letter may follow), then a
/// digit and two capitals.
fn ends_with_uk_postcode(part: &str) -> bool {
    let words: Vec<&str> = part.split_whitespace().collect();
    let [.., out, inward] = words.as_slice() else { return false };
    gleaner_event::is_uk_postcode(&format!("{out} {inward}"))
}

/// A Turkish `district / city` written as a part of its own in a dotted line (`Karaköy Caz
/// Evi · Gümrük Sok. No: 12 · Beyoğlu / İstanbul`) names the site's city, as the labels of
/// issue 24 read a site's line; after a comma in the street's part (`…, Kavaklıdere,
/// Çankaya / Ankara`) it is the event's district and is left to the address reader.
fn own_part_city(part: &str) -> &str {
    let Some((district, city)) = part.split_once(" / ") else {
        return part;
    };
    let word = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().all(|c| c.is_alphabetic() || c == ' ')
            && (1..=2).contains(&w.split_whitespace().count())
    };
    if word(district.trim()) && word(city.trim()) { city.trim() } else { part }
}

/// Labels of an organisation's office address, folded and lower-cased: `Siège :`,
/// `Sitz:`, `Geschäftsstelle:`, `Sede social:`, `Registered office:`.
const OFFICE_LABELS: &[&str] = &[
    "siege",
    "siege social",
    "sitz",
    "geschaftsstelle",
    "postanschrift",
    "postadresse",
    "verwaltung",
    "sede social",
    "oficinas",
    "registered office",
    "head office",
    "office",
    "genel mudurluk",
    "yonetim",
];

/// The page's bold name that opens with a stated place's name, longer (`Casa de la
/// Cultura` → `<strong>Casa de la Cultura de San Juan del Llano</strong>`): the place's
/// full name; `None` without one. Its address is left: a line such as `Av. Juárez No. 15,
/// Centro, San Juan del Llano, Puebla` ends with a state, not the town.
pub(super) fn named_block(doc: ElementRef<'_>, name: &str) -> Option<String> {
    let fold = |s: &str| gleaner_event::datetext::fold_diacritics(s).to_lowercase();
    let prefix = format!("{} ", fold(name));
    doc.select(&sel("strong, b")).take(200).map(text_of).find(|text| {
        fold(text).starts_with(&prefix)
            && text.split_whitespace().count() <= 10
            && !text.contains([',', ':', '.', '('])
    })
}

/// The premises that open a body's address and the address after them (`Ashcombe
/// Station, Station Road, Ashcombe` → (`Ashcombe Station`, `Station Road, Ashcombe`)): a
/// short name without a digit, followed by a street; `None` when the address opens with
/// its street.
pub(super) fn premises(address: &str) -> Option<(String, String)> {
    let (place, rest) = address.split_once(", ")?;
    let street = rest.split(", ").next().unwrap_or(rest);
    let numbered = street.split_whitespace().any(|w| w.starts_with(|c: char| c.is_ascii_digit()));
    (!place.chars().any(|c| c.is_ascii_digit())
        && (1..=4).contains(&place.split_whitespace().count())
        && label_of(place).is_none()
        && !names_a_street(place)
        && (names_a_street(street) || numbered))
        .then(|| (place.trim().to_owned(), rest.trim().to_owned()))
}

/// Whether the site's address is labelled as its office's (`Siège : 12 rue du Fil`):
/// where the organisation is run from, not where its events are held.
pub(super) fn is_office(address: &str) -> bool {
    address.split(", ").any(is_office_part)
}

/// Whether a footer's part opens with an office label and a colon (see [`OFFICE_LABELS`]).
fn is_office_part(part: &str) -> bool {
    part.split_once(':').is_some_and(|(label, _)| {
        let folded = gleaner_event::datetext::fold_diacritics(label.trim()).to_lowercase();
        OFFICE_LABELS.contains(&folded.as_str())
    })
}

/// Words that name a body whose events are held elsewhere, folded: a fire brigade, a
/// railway, a broadcaster, a circus, a shipping line, scouts, an orchestra or a choir.
const BODY_WORDS: &[&str] = &[
    "feuerwehr",
    "pompiers",
    "bomberos",
    "itfaiye",
    "railway",
    "railroad",
    "radio",
    "fm",
    "circus",
    "cirque",
    "zirkus",
    "circo",
    "sirki",
    "naviera",
    "pfadi",
    "pfadfinder",
    "scouts",
    "orchestra",
    "orchestre",
    "orchester",
    "orquesta",
    "choir",
    "chorale",
    "chor",
    "coro",
];

/// Whether a name is a body's (see [`BODY_WORDS`]): `Freiwillige Feuerwehr Oberhaslach
/// e. V.`, `Coombe Valley Railway`, `Cirque Zanzibar`.
pub(super) fn is_body(name: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(name);
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| BODY_WORDS.contains(&w))
}

/// Whether a footer's part is one of the legal or navigation links a footer ends with
/// (`Impressum`, `Datenschutz`, `Mentions légales`, `Aviso legal`, `Privacy Policy`,
/// `KVKK`), compared folded and lower-cased.
fn is_legal_link(part: &str) -> bool {
    const LINKS: &[&str] = &[
        "impressum",
        "datenschutz",
        "datenschutzerklarung",
        "kontakt",
        "contact",
        "privacy",
        "privacy policy",
        "cookies",
        "cookie policy",
        "terms",
        "mentions legales",
        "aviso legal",
        "politica de privacidad",
        "kvkk",
        "gizlilik",
        "sitemap",
    ];
    let folded = gleaner_event::datetext::fold_diacritics(part.trim()).to_lowercase();
    LINKS.contains(&folded.as_str())
}

/// Company and association forms a footer writes after a name (`Tablao Los Alcores
/// S.L.`, `Kellerbühne Schalltüte e. V.`, `… Ltd`, `… SARL`, `… A.Ş.`), compared
/// without dots and spaces: the venue's name is the name before them.
const LEGAL_FORMS: &[&str] = &[
    "sl", "slu", "sa", "sau", "scoop", "ev", "gmbh", "ggmbh", "ug", "ag", "kg", "ltd", "limited",
    "llc", "inc", "plc", "cic", "sarl", "sas", "sasu", "scop", "as", "ltdsti", "asbl", "vzw",
];

/// A name without the legal form written after it (see [`LEGAL_FORMS`]); the name as
/// written when it ends in none.
fn without_legal_form(name: &str) -> &str {
    let squash = |s: &str| {
        gleaner_event::datetext::fold_diacritics(s)
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase()
    };
    // The last one or two words (`e. V.`, `Ltd. Şti.`), after a space or a comma.
    let words: Vec<(usize, &str)> = name.match_indices(' ').map(|(i, _)| (i, &name[i..])).collect();
    for &(at, tail) in words.iter().rev().take(2) {
        let tail = tail.trim();
        // Written as a form is: with dots (`S.L.`) or a capital (`GmbH`, `Ltd`), never a
        // lower-case word (Turkish `ev`, a house).
        let written = tail.contains('.') || tail.chars().next().is_some_and(char::is_uppercase);
        let head = name[..at].trim_end().trim_end_matches(',').trim_end();
        if written && LEGAL_FORMS.contains(&squash(tail).as_str()) && !head.is_empty() {
            return head;
        }
    }
    name
}

/// Whether a footer's part is running text (eight words or more, a full stop inside and
/// one at its end; `Gümrük Sok. No: 12` is not): never part of an address.
fn is_sentence(part: &str) -> bool {
    let p = part.trim();
    p.split_whitespace().count() >= 8 && p.contains(". ") && p.ends_with('.')
}

/// The country that ends a site's address (`…, 09500 Medina de Pomar (Burgos), España` →
/// `ES`), when its last part is a country's name or code.
pub(super) fn site_country(address: &str) -> Option<String> {
    let last = address.rsplit(',').next()?.trim();
    if last.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    gleaner_event::country_code(last)
}

/// Whether the site's own name is a municipality's (`Ayuntamiento de Valdeoliva`,
/// `T.C. Karaçam Belediyesi`, `Mairie de …`, `Gemeinde …`, `Ville de …`): a town hall
/// lists events held all over its town, not at the town hall.
pub(super) fn is_municipal(name: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(name);
    let words: Vec<&str> = folded.split(|c: char| !c.is_alphanumeric()).collect();
    MUNICIPAL_WORDS.iter().any(|w| words.contains(w))
        || words.windows(2).any(|w| w == ["administration", "communale"])
        || folded.split_whitespace().count() <= 4
            && matches!(words.as_slice(), ["ville" | "commune", "de", ..] | ["stadt", _, ..])
}

/// Words only a municipality's name holds, folded.
const MUNICIPAL_WORDS: &[&str] = &[
    "ayuntamiento",
    "ajuntament",
    "concello",
    "municipio",
    "municipalidad",
    "mairie",
    "gemeinde",
    "marktgemeinde",
    "stadtverwaltung",
    "belediyesi",
    "belediye",
];

/// The town and postal code of a site's address (`Plaza Mayor, 1, 44999 Valdeoliva
/// (Teruel)` → `Valdeoliva`, `44999`): the part that opens with a postal code of four or
/// five digits (parts split at commas, `·` and `–`), without its province in brackets; in a Turkish `district / city` the
/// city, as addresses are read everywhere else.
pub(super) fn site_town(address: &str) -> Option<(String, String)> {
    address.split([',', '·', '–']).map(str::trim).find_map(|part| {
        let (code, town) = part.split_once(' ')?;
        if !(4..=5).contains(&code.len()) || !code.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let town = town.split(" (").next().unwrap_or(town);
        let town = town.rsplit(" / ").next().unwrap_or(town).trim();
        (town.chars().next().is_some_and(char::is_alphabetic) && town.len() <= 60)
            .then(|| (town.to_owned(), code.to_owned()))
    })
}

/// Words that name an organisation (a club, a society), not a place, folded.
const ORGANISATION_WORDS: &[&str] = &[
    "club",
    "fc",
    "afc",
    "society",
    "association",
    "verein",
    "ev",
    "kulturverein",
    "sportverein",
    "kulubu",
    "dernegi",
    "asociacion",
    "amicale",
    "federation",
    "trust",
];

/// Street words, folded: a part holding one is a street, not a place's name.
const STREET_WORDS: &[&str] = &[
    "road",
    "rd",
    "lane",
    "street",
    "st",
    "avenue",
    "ave",
    "way",
    "drive",
    "close",
    "square",
    "rue",
    "boulevard",
    "bd",
    "chemin",
    "allee",
    "quai",
    "place",
    "cours",
    "strasse",
    "str",
    "weg",
    "platz",
    "gasse",
    "calle",
    "avenida",
    "av",
    "plaza",
    "paseo",
    "camino",
    "cadde",
    "cad",
    "caddesi",
    "sokak",
    "sok",
    "bulvari",
    "mahallesi",
];

/// Whether a part of an address names a street (`Boathouse Lane`, `Mühlenweg`).
pub(super) fn names_a_street(part: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(part);
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| {
        STREET_WORDS.contains(&w)
            || ["strasse", "weg", "platz", "gasse", "allee"]
                .iter()
                .any(|s| w.len() > s.len() + 2 && w.ends_with(s))
    })
}

/// Whether a venue line's name is an organisation's (`Kingsmere Town Football Club`,
/// `Kulturverein Alte Mühle e.V.`).
fn is_organisation(name: &str) -> bool {
    let folded = gleaner_event::datetext::fold_diacritics(name).replace("e.v.", "ev");
    folded.split(|c: char| !c.is_alphanumeric()).any(|w| ORGANISATION_WORDS.contains(&w))
        || is_body(name)
}

/// An item's place when its markup names the field (`class="views-field-field-location"`,
/// `event-venue`, `tribe-venue`): the short text of the first element with a class ending in
/// `location` or `venue`, when it is neither a date nor a time.
pub(super) fn classed_place(
    item: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<String> {
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(|el| {
            el.value().classes().any(|c| {
                let c = c.to_ascii_lowercase();
                // `event-location`, `venue`, and the words in the other languages
                // (`lugar`, `lieu`, `mekan`; not `ort`, which names rooms as often).
                c.ends_with("location")
                    || c.ends_with("venue")
                    || ["lugar", "lieu", "veranstaltungsort", "mekan"].contains(&c.as_str())
            })
        })
        // A line led by a location icon (`<li><i class="icon-konum"></i> Kent
        // Kitaplığı</li>`, Font Awesome's `fa-map-marker`): the icon's line.
        .chain(
            item.descendants()
                .filter_map(ElementRef::wrap)
                .filter(|el| is_place_icon(*el))
                .filter_map(|icon| icon.parent().and_then(ElementRef::wrap)),
        )
        // `Teatro Isabel la Católica · Granada`: a venue and its town; without the hall
        // after a dash (`Nazım Hikmet Kültür Merkezi – Büyük Salon`).
        .map(|el| town_first(&without_hall(&text_of(el)).replace(" · ", ", ")))
        .find(|t| {
            (2..=80).contains(&t.chars().count())
                && parse_text_date(t, reference, order).is_none()
                && parse_text_time(t).is_none()
        })
}

/// A place written town first, as French listings do (`Montreuil-sur-Loir (49140) –
/// Salle des fêtes, rue des Écoles`), rewritten in an address's order with the town last
/// (`Salle des fêtes, rue des Écoles, Montreuil-sur-Loir`); other places as written.
fn town_first(place: &str) -> String {
    let Some((head, rest)) = place.split_once(" – ").or_else(|| place.split_once(" - ")) else {
        return place.to_owned();
    };
    let Some((town, code)) = head.strip_suffix(')').and_then(|h| h.rsplit_once(" (")) else {
        return place.to_owned();
    };
    let postcode = (2..=5).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_digit());
    let town = town.trim();
    if !postcode || town.is_empty() || town.contains(',') || rest.trim().is_empty() {
        return place.to_owned();
    }
    format!("{}, {town}", rest.trim())
}

/// A place without the hall or room written after a dash (`Kulturhaus – Großer Saal`,
/// `Karaçam Kültür Merkezi – Küçük Salon`): the venue is the building.
fn without_hall(place: &str) -> String {
    const ROOMS: &[&str] = &[
        "salon",
        "saal",
        "salle",
        "sala",
        "hall",
        "room",
        "stage",
        "sahne",
        "studio",
        "auditorium",
        "auditorio",
        "foyer",
    ];
    if let Some((venue, room)) = place.rsplit_once(" – ").or_else(|| place.rsplit_once(" - ")) {
        let folded = gleaner_event::datetext::fold_diacritics(room).to_lowercase();
        let is_room = folded.split_whitespace().count() <= 3
            && folded.split_whitespace().any(|w| ROOMS.contains(&w));
        if is_room && !venue.contains(',') && venue.split_whitespace().count() >= 2 {
            return venue.trim().to_owned();
        }
    }
    place.to_owned()
}

/// Whether an element is an empty icon that marks a place (`<i class="fa
/// fa-map-marker">`, `icon-location`, `bi-geo-alt`, Turkish `icon-konum`) and opens its
/// line.
fn is_place_icon(el: ElementRef<'_>) -> bool {
    const ICONS: &[&str] = &["map-marker", "location", "map-pin", "geo-alt", "konum", "ubicacion"];
    // Nothing but blank text before it in its line.
    let first = el.parent().and_then(|p| {
        p.children().find(|n| n.value().as_text().is_none_or(|t| !t.trim().is_empty()))
    });
    matches!(el.value().name(), "i" | "span" | "svg")
        && text_of(el).is_empty()
        && first.is_some_and(|f| f.id() == el.id())
        && el.value().classes().any(|c| {
            let c = c.to_ascii_lowercase();
            ICONS.iter().any(|w| c.contains(w))
        })
}

/// An item's place when its markup names an address block (a class ending in `address`,
/// as Squarespace's `eventlist-meta-address`): the block's own leading text is the
/// venue's name, its line elements (`<span class="…address-line">`) the address, joined
/// by `, `; a map link's text (`(map)`) is neither.
pub(super) fn classed_address(item: ElementRef<'_>) -> Option<(String, Option<String>)> {
    let block = item.descendants().filter_map(ElementRef::wrap).find(|el| {
        el.value().classes().any(|c| c.to_ascii_lowercase().ends_with("address"))
            && el.value().name() != "a"
    })?;
    let name = collapse(
        &block
            .children()
            .take_while(|n| n.value().is_text())
            .filter_map(|n| n.value().as_text().map(|t| &**t))
            .collect::<String>(),
    );
    if !(2..=80).contains(&name.chars().count())
        || name.chars().any(|c| c.is_ascii_digit())
        || name.contains('@')
    {
        return None;
    }
    let lines: Vec<String> = block
        .children()
        .filter_map(ElementRef::wrap)
        .filter(|el| el.value().name() != "a")
        .map(text_of)
        .filter(|t| !t.is_empty())
        .collect();
    let address = (!lines.is_empty() && lines.len() <= 5).then(|| lines.join(", "));
    Some((name, address))
}

#[cfg(test)]
mod hall_tests {
    use super::{classed_place, without_hall};
    use gleaner_event::datetext::DateOrder;
    use scraper::{Html, Selector};

    #[test]
    fn a_line_led_by_a_location_icon() {
        let doc = Html::parse_fragment(
            "<div class=\"kart\"><ul><li><i class=\"icon-saat\"></i> Saat 20.00</li>\
             <li><i class=\"icon-konum\"></i> Nazım Hikmet Kültür Merkezi – Büyük Salon</li></ul></div>\
             <div class=\"card\"><p><i class=\"fa fa-map-marker\"></i> Salle Pleyel</p></div>\
             <div class=\"card\"><p>Texte <i class=\"fa fa-map-marker\"></i></p></div>",
        );
        let items: Vec<_> = doc.select(&Selector::parse("div").unwrap()).collect();
        let place = |i: usize| classed_place(items[i], None, DateOrder::DayFirst);
        assert_eq!(place(0).as_deref(), Some("Nazım Hikmet Kültür Merkezi"));
        assert_eq!(place(1).as_deref(), Some("Salle Pleyel"));
        // An icon that does not open its line marks nothing.
        assert_eq!(place(2), None);
    }

    #[test]
    fn a_town_written_first() {
        use super::town_first;
        // Issue 24, batch 150–159: a French directory's `Town (postcode) – place`.
        assert_eq!(
            town_first("Montreuil-sur-Loir (49140) – Salle des fêtes, rue des Écoles"),
            "Salle des fêtes, rue des Écoles, Montreuil-sur-Loir"
        );
        assert_eq!(
            town_first("Saint-Florent-des-Vignes (49410) – place de l’Église"),
            "place de l’Église, Saint-Florent-des-Vignes"
        );
        // Brackets that hold no postcode, and no dash: as written.
        assert_eq!(
            town_first("Salle Pleyel (Paris) – Grande salle"),
            "Salle Pleyel (Paris) – Grande salle"
        );
        assert_eq!(town_first("Le Périscope, Lyon"), "Le Périscope, Lyon");
    }

    #[test]
    fn a_hall_after_the_venue() {
        assert_eq!(
            without_hall("Nazım Hikmet Kültür Merkezi – Büyük Salon"),
            "Nazım Hikmet Kültür Merkezi"
        );
        assert_eq!(without_hall("Kulturhaus Mitte - Großer Saal"), "Kulturhaus Mitte");
        // A dash that is not before a hall keeps the place whole.
        assert_eq!(without_hall("Parc – Jardin des Plantes"), "Parc – Jardin des Plantes");
    }
}

#[cfg(test)]
mod site_tests {
    use super::site_venue;
    use scraper::Html;

    fn site(html: &str) -> Option<(String, String)> {
        site_venue(Html::parse_document(html).root_element())
    }

    fn pair(a: &str, b: &str) -> Option<(String, String)> {
        Some((a.to_owned(), b.to_owned()))
    }

    #[test]
    fn a_street_named_by_its_number() {
        // A Turkish street named by a number, and a postcode: many digits, no phone.
        assert_eq!(
            site(
                "<body><p>Takvim</p><footer><p><strong>Özel Deneme Koleji</strong> · Yıldız \
                 Mah. 1520. Sok. No: 7, 06550 Çankaya / Ankara · Tel: 0312 555 00 00</p>\
                 </footer></body>"
            ),
            pair("Özel Deneme Koleji", "Yıldız Mah. 1520. Sok. No: 7, 06550 Çankaya / Ankara")
        );
        // A street part that runs on into a phone number still has the phone's digits.
        let found = site(
            "<body><p>Agenda</p><footer><p>Ludothèque Le Pion — association loi 1901<br>8, rue \
             des Lices — 35000 Rennes — 02 99 00 00 00</p></footer></body>",
        );
        assert!(found.as_ref().is_none_or(|(_, a)| !a.contains("02 99")), "{found:?}");
    }

    #[test]
    fn a_uk_postcode_before_the_country() {
        // A footer block's `<br>` lines: the name, the address ending `…, UK`, the phone.
        assert_eq!(
            site(
                "<body><p>Diary</p><footer><p><strong>Millbrook Chapel</strong><br>4 Mill \
                 Lane, Millbrook, York YO10 5DD, UK<br>Office: 01904 555 0101</p></footer>\
                 </body>"
            ),
            pair("Millbrook Chapel", "4 Mill Lane, Millbrook, York YO10 5DD, UK")
        );
    }

    #[test]
    fn a_page_without_footer_ends_with_its_venue() {
        // Issue 24, page 219: the venue's line is the next-to-last block, its second
        // `<br>` line the buses that stop there.
        assert_eq!(
            site(
                "<body><p>Agenda</p><p>Club Social y Deportivo Los Andes · Av. Independencia                  3021 · Ciudad de Buenos Aires · Argentina<br>Colectivos 7, 23, 75, 115 · Subte                  E, estación Boedo</p><p>Última actualización: 20/02/2026 · visitas: 184213</p>                 </body>"
            ),
            pair(
                "Club Social y Deportivo Los Andes",
                "Av. Independencia 3021, Ciudad de Buenos Aires, Argentina"
            )
        );
    }

    #[test]
    fn a_page_without_footer_ends_with_its_venue_then_its_copyright() {
        // Issue 24, page 247: the venue's line, then a copyright line.
        assert_eq!(
            site(
                "<body><p>Aşk ile, Yönetim Kurulu</p><div class=\"td-footer-wrap\"><p><strong>\
                 Yeşilvadi Cemevi Kültür Derneği</strong> · Tuzluçayır Mah. 312. Sok. No: 5, \
                 Mamak / Ankara · 0312 555 61 61</p><p>© 2026 Tüm hakları saklıdır.</p></div>\
                 </body>"
            ),
            pair(
                "Yeşilvadi Cemevi Kültür Derneği",
                "Tuzluçayır Mah. 312. Sok. No: 5, Mamak / Ankara"
            )
        );
    }

    #[test]
    fn a_bold_name_opened_by_a_stated_place() {
        // Issue 24, page 238: `… en la Casa de la Cultura salvo que se indique otro lugar`.
        let html = "<div><p><strong>Casa de la Cultura de San Juan del Llano</strong> · Av. \
                    Juárez No. 15, Centro, San Juan del Llano, Puebla</p></div>";
        let doc = Html::parse_document(html);
        assert_eq!(
            super::named_block(doc.root_element(), "Casa de la Cultura").as_deref(),
            Some("Casa de la Cultura de San Juan del Llano")
        );
        assert_eq!(super::named_block(doc.root_element(), "Casa de Campo"), None);
    }

    #[test]
    fn the_venue_heading_and_a_footer_column_named_by_the_venue() {
        // Issue 24, batches 170–209: a `Sede` / `Spielort` block, one line or several.
        assert_eq!(
            site(
                "<aside><h3>Sede</h3><p><strong>Teatro Xicoténcatl</strong><br>Calle Donceles \
                 36, Centro Histórico<br>Ciudad de México</p></aside>"
            ),
            pair("Teatro Xicoténcatl", "Calle Donceles 36, Centro Histórico, Ciudad de México")
        );
        assert_eq!(
            site(
                "<main><h3>Spielort</h3><p>Burghof der Burg Wolkenstein, Burgweg 4, 8955 \
                 Wolkenstein, Steiermark</p></main>"
            ),
            pair("Burghof der Burg Wolkenstein", "Burgweg 4, 8955 Wolkenstein, Steiermark")
        );
        // A footer column whose heading is the venue's name.
        assert_eq!(
            site(
                "<footer><div><h2>El Desván de Papel</h2><div><p>Calle de la Platería, 9 · \
                 47001 Valladolid · España<br>983 00 00 00 · hola@desvan.example</p></div></div>\
                 </footer>"
            ),
            pair("El Desván de Papel", "Calle de la Platería, 9, 47001 Valladolid, España")
        );
        // An address block named by its class (Turkish `adres`).
        assert_eq!(
            site(
                "<div class=\"adres\"><b>Kuklistan Sahnesi</b><br>Tunalı Hilmi Cad. No: 88/B, \
                 Kavaklıdere, Çankaya / Ankara<br>Tel: 0312 000 00 00</div>"
            ),
            pair("Kuklistan Sahnesi", "Tunalı Hilmi Cad. No: 88/B, Kavaklıdere, Çankaya / Ankara")
        );
    }
}

#[cfg(test)]
mod tests {

    use super::{is_body, is_municipal, is_office, own_part_city, premises, site_town, venue_line};

    #[test]
    fn own_part_district_and_city() {
        for (part, read) in [
            ("Beyoğlu / İstanbul", "İstanbul"),
            ("Karaçam / Eskişehir", "Eskişehir"),
            ("Moda Cad. No: 48, Kadıköy / İstanbul", "Moda Cad. No: 48, Kadıköy / İstanbul"),
            ("Rock / Pop", "Pop"),
            ("Europe/Istanbul", "Europe/Istanbul"),
        ] {
            assert_eq!(own_part_city(part), read, "{part}");
        }
    }

    #[test]
    fn town_halls_and_their_towns() {
        assert!(is_municipal("Ayuntamiento de Valdeoliva"));
        assert!(is_municipal("T.C. Karaçam Belediyesi"));
        assert!(is_municipal("Mairie de Saint-Véran"));
        assert!(!is_municipal("Wanderfreunde Kirchbühl e.V."));
        assert!(!is_municipal("Teatro Municipal de Ourense"));
        // Issue 24, pages 90–229: a town's name after `Stadt`, a hyphenated town.
        assert!(is_municipal("Stadt Wangen im Allgäu"));
        assert!(is_municipal("Ville de Bressoux-sur-Sambre"));
        assert!(is_municipal("Administration communale de Bressoux-sur-Sambre"));
        assert!(!is_municipal("Salle communale"));
        assert!(!is_municipal("Stadthalle Beuel"));
        let town = |a| site_town(a).map(|(t, _)| t);
        assert_eq!(
            town("Plaza Mayor, 1, 44999 Valdeoliva (Teruel)").as_deref(),
            Some("Valdeoliva")
        );
        assert_eq!(
            town("Hükümet Meydanı No: 1, 26000 Karaçam / Eskişehir, Türkiye").as_deref(),
            Some("Eskişehir")
        );
        assert_eq!(town("Plaza Mayor, 1"), None);
    }

    #[test]
    fn bodies_whose_events_are_elsewhere() {
        // Issue 24, pages 90–249: a fire brigade, a circus's office, a club's office.
        assert!(is_body("Freiwillige Feuerwehr Oberhaslach"));
        assert!(is_body("Coombe Valley Railway"));
        assert!(is_body("KVLR Radio"));
        assert!(!is_body("Kellerbühne Schalltüte"));
        assert!(!is_body("Teatro Romea"));
        assert_eq!(
            premises("Pfadiheim Waldegg, Waldeggstrasse 40, 8610 Uster, Schweiz"),
            Some(("Pfadiheim Waldegg".into(), "Waldeggstrasse 40, 8610 Uster, Schweiz".into()))
        );
        assert_eq!(
            premises("Ashcombe Station, Station Road, Ashcombe, Devon TQ9 7ZX"),
            Some(("Ashcombe Station".into(), "Station Road, Ashcombe, Devon TQ9 7ZX".into()))
        );
        assert_eq!(premises("Am Gerätehaus 2, 84169 Oberhaslach"), None);
        assert!(is_office("Siège : 12 rue du Fil, 56300 Pontivy"));
        assert!(is_office("Geschäftsstelle: Schillstraße 20, 06844 Dessau"));
        assert!(!is_office("Am Gerätehaus 2, 84169 Oberhaslach"));
        assert!(!is_office("Plaza Julián Romea, s/n, 30001 Murcia"));
    }

    #[test]
    fn site_venue_lines() {
        let v = |l: &str| venue_line(l);
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        assert_eq!(
            v("The Blue Lantern · 1420 W. Fullerton Ave · Chicago, IL 60614 · (773) 555-0142"),
            pair("The Blue Lantern", "1420 W. Fullerton Ave, Chicago, IL 60614")
        );
        assert_eq!(
            v("Le Périscope, 13 rue Delandine, 69002 Lyon"),
            pair("Le Périscope", "13 rue Delandine, 69002 Lyon")
        );
        assert_eq!(
            v("Teatro Romea · Plaza Julián Romea, s/n · 30001 Murcia · España"),
            pair("Teatro Romea", "Plaza Julián Romea, s/n, 30001 Murcia, España")
        );
        // An organisation's line: the place is the name that opens its address.
        assert_eq!(
            v(
                "Kingsmere Town Football Club · The Brickfield, Station Road, Kingsmere NN14 7QT · England"
            ),
            pair("The Brickfield", "Station Road, Kingsmere NN14 7QT, England")
        );
        assert_eq!(
            v("Kulturverein Alte Mühle e.V. · Mühlenweg 3 · 37574 Einbeck"),
            pair("Kulturverein Alte Mühle", "Mühlenweg 3, 37574 Einbeck")
        );
        // Issue 24, batch 110–129: a footer written one line per `<br>`, a US street and
        // ZIP code in one part (as many digits as a phone number).
        assert_eq!(
            v(
                "The Laughing Pint Comedy Room · 418 Larkin Avenue, Dayton, OH 45402 · (937) 555-0142"
            ),
            pair("The Laughing Pint Comedy Room", "418 Larkin Avenue, Dayton, OH 45402")
        );
        assert_eq!(
            v(
                "Mairie de Vernay-sur-Cher · 1 place de la Mairie · 41140 Vernay-sur-Cher · Tél. 02 54 55 00 00"
            ),
            pair("Mairie de Vernay-sur-Cher", "1 place de la Mairie, 41140 Vernay-sur-Cher")
        );
        assert_eq!(
            v("Peña Flamenca · Calle Mayor 4 · 11004 Cádiz"),
            pair("Peña Flamenca", "Calle Mayor 4, 11004 Cádiz")
        );
        assert_eq!(
            v("Sporting Club · Boathouse Lane, Riverside · 37574 Einbeck"),
            pair("Sporting Club", "Boathouse Lane, Riverside, 37574 Einbeck")
        );
        // A long name is its part before a dash.
        assert_eq!(
            v(
                "Espacio Nórdico – Embajada de Finlandia en la República Argentina · Av. Santa Fe 846, piso 5 · C1059ABP Buenos Aires"
            ),
            pair("Espacio Nórdico", "Av. Santa Fe 846, piso 5, C1059ABP Buenos Aires")
        );
        // Legal links after the address are no part of it.
        assert_eq!(
            v(
                "Kellerbühne Schalltüte e. V. · Am Gerätehaus 2 · 84169 Oberhaslach · Impressum · Datenschutz"
            ),
            pair("Kellerbühne Schalltüte", "Am Gerätehaus 2, 84169 Oberhaslach")
        );
        // Issue 24, pages 190–249: a body that holds no events of its own is no venue,
        // unless a place opens its address; a Belgian association's form is no part of
        // the name.
        assert_eq!(
            v("Talbahn Verein, Bahnhof Ashdorf, Bahnhofstraße 2, 84169 Ashdorf"),
            pair("Bahnhof Ashdorf", "Bahnhofstraße 2, 84169 Ashdorf")
        );
        assert_eq!(
            v("Teatro Romea, Calle Mayor 4, 30001 Murcia"),
            pair("Teatro Romea", "Calle Mayor 4, 30001 Murcia")
        );
        assert_eq!(
            v("La Ferme du Hêtre Rouge ASBL · Rue de la Ferme 21 · 5310 Éghezée"),
            pair("La Ferme du Hêtre Rouge", "Rue de la Ferme 21, 5310 Éghezée")
        );
        // Issue 24, pages 214, 219, 271, 292: a street, town and phone joined by spaced
        // dashes, the name's description after an em dash; a quarter in brackets after
        // the house number; a UK postcode after the county; a four-digit postcode before
        // a comma.
        assert_eq!(
            v(
                "Ludothèque Le Dé Bleu — association loi 1901 · 12, rue des Tanneurs — 44000 Nantes — 02 40 00 00 00"
            ),
            pair("Ludothèque Le Dé Bleu", "12, rue des Tanneurs, 44000 Nantes")
        );
        assert_eq!(
            v("Club Los Andes · Av. Independencia 3021 (Boedo) · Buenos Aires · Argentina"),
            pair("Club Los Andes", "Av. Independencia 3021, Buenos Aires, Argentina")
        );
        assert_eq!(
            v("Brackwell Leisure Centre, Station Road, Brackwell, Kent ME18 4QT"),
            pair("Brackwell Leisure Centre", "Station Road, Brackwell, Kent ME18 4QT")
        );
        assert_eq!(
            v(
                "Wattle Creek Community Orchard · Cnr Banksia Road & Lyrebird Lane · Wattle Creek VIC 3799, Australia"
            ),
            pair(
                "Wattle Creek Community Orchard",
                "Cnr Banksia Road & Lyrebird Lane, Wattle Creek VIC 3799, Australia"
            )
        );
        // Issue 24, page 207: the copyright after the name.
        assert_eq!(
            v("Dönen Plak © 2026 · Kıbrıs Şehitleri Caddesi, 1402 Sokak No: 7, Alsancak"),
            pair("Dönen Plak", "Kıbrıs Şehitleri Caddesi, 1402 Sokak No: 7, Alsancak")
        );
        for not in [
            "© 2026 Kulturhaus · Hauptstraße 4 · 84169 Ashdorf",
            "Präsident: Hans Lüthi · Dorfstrasse 14 · 3552 Bärau",
            "© 2026 Eastside Community Center",
            "Riverside Playhouse is a registered charity no. 1234567. © 2026",
            "Teatro Cervantes · Ayuntamiento de Málaga · © 2026",
            "Veröffentlicht am 2. Februar 2026 · Lindenpark",
            "Impressum · Datenschutz · Kontakt",
        ] {
            assert_eq!(v(not), None, "{not}");
        }
    }
}
