//! What a page says about its own address: `<link rel="canonical">` and `og:url`, read by a
//! byte scan of its tags (no DOM), for the canonical-URL rule of `crate::extract_events`
//! (issue 24: the event's own URL on the page's site, else the canonical link, else
//! `og:url`, else the page's URL).

/// Only the first this many bytes are scanned: these tags sit in the head.
const SCAN: usize = 1 << 20;

/// The page's own statements of its URL, as written (maybe relative).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PageUrls {
    /// `<link rel="canonical" href>`.
    pub canonical: Option<String>,
    /// `<meta property="og:url" content>`.
    pub og_url: Option<String>,
}

/// Reads the canonical link and `og:url` of an HTML page (the first of each).
pub(crate) fn page_urls(html: &str) -> PageUrls {
    let bytes = &html.as_bytes()[..html.len().min(SCAN)];
    let mut out = PageUrls::default();
    for lt in memchr::memchr_iter(b'<', bytes) {
        let rest = &bytes[lt + 1..];
        let name_len = rest.iter().take(5).take_while(|b| b.is_ascii_alphabetic()).count();
        let name = &rest[..name_len];
        let is_link = name.eq_ignore_ascii_case(b"link");
        let is_meta = name.eq_ignore_ascii_case(b"meta");
        if !is_link && !is_meta {
            continue;
        }
        let end = memchr::memchr(b'>', rest).unwrap_or(rest.len()).min(4096);
        let Some(tag) = html.get(lt + 1 + name_len..lt + 1 + end) else { continue };
        let attrs = attributes(tag);
        let get = |k: &str| attrs.iter().find(|(n, _)| n.eq_ignore_ascii_case(k)).map(|(_, v)| *v);
        if is_link
            && out.canonical.is_none()
            && get("rel")
                .is_some_and(|r| r.split_whitespace().any(|t| t.eq_ignore_ascii_case("canonical")))
            && let Some(href) = get("href").filter(|h| !h.trim().is_empty())
        {
            out.canonical = Some(href.trim().to_owned());
        }
        if is_meta
            && out.og_url.is_none()
            && get("property")
                .or_else(|| get("name"))
                .is_some_and(|p| p.trim().eq_ignore_ascii_case("og:url"))
            && let Some(c) = get("content").filter(|c| !c.trim().is_empty())
        {
            out.og_url = Some(c.trim().to_owned());
        }
        if out.canonical.is_some() && out.og_url.is_some() {
            break;
        }
    }
    out
}

/// The currency a bare `$` means on a page in a regional language (`fr-CA` is CAD,
/// `es-AR` ARS, `es-MX` MXN); `None` without a region, or for one that writes no `$`.
pub(crate) fn lang_dollar(lang: Option<&str>) -> Option<&'static str> {
    let (_, region) = lang?.split_once(['-', '_'])?;
    (region.len() == 2).then(|| gleaner_event::dollar_currency(region)).flatten()
}

/// The country a page's language implies for an address written the way that country
/// writes them (issue 24: "unambiguous from the address"): `<html lang>` French, German,
/// Spanish or Turkish (without a region, or with the same one) and a postcode before the
/// town (`69002 Lyon`, `28215 Bremen`) or, in Turkish, `Mah.`/`Cad.`/`Sok.` street words.
/// Another language, or a region such as `fr-CA` or `de-AT`, implies none.
/// `lang` is the page's [`page_language`], read once per page (reading it per event made
/// a page of many events quadratic).
pub(crate) fn address_country(
    lang: Option<&str>,
    raw: &gleaner_event::RawEvent,
) -> Option<&'static str> {
    let lang = lang?;
    let (primary, region) = match lang.split_once(['-', '_']) {
        Some((p, r)) => (p.to_ascii_lowercase(), Some(r.to_ascii_uppercase())),
        None => (lang.to_ascii_lowercase(), None),
    };
    let country = match primary.as_str() {
        "fr" => "FR",
        "de" => "DE",
        "es" => "ES",
        "tr" => "TR",
        _ => return None,
    };
    if region.is_some_and(|r| r != country) {
        return None;
    }
    let texts = [
        &raw.address_text,
        &raw.location_text,
        &raw.location_name,
        &raw.locality,
        &raw.postal_code,
        &raw.street,
    ];
    let mut texts = texts.into_iter().filter_map(|t| t.as_deref());
    let postcode_town = |t: &str| {
        let w: Vec<&str> = t.split_whitespace().collect();
        w.windows(2).any(|x| {
            x[0].len() == 5
                && x[0].bytes().all(|b| b.is_ascii_digit())
                && x[1].chars().next().is_some_and(char::is_alphabetic)
        })
    };
    let postal = raw.postal_code.as_deref().is_some_and(|p| {
        let p = p.trim();
        p.len() == 5 && p.bytes().all(|b| b.is_ascii_digit())
    });
    let turkish = |t: &str| {
        t.split_whitespace().any(|w| {
            matches!(
                w.trim_end_matches(','),
                "Mah."
                    | "Mahallesi"
                    | "Cad."
                    | "Caddesi"
                    | "Sok."
                    | "Sokak"
                    | "Sokağı"
                    | "Sk."
                    | "Bulvarı"
                    | "Blv."
            )
        })
    };
    let evidence = postal || texts.any(|t| postcode_town(t) || (country == "TR" && turkish(t)));
    evidence.then_some(country)
}

/// The country the page's footer ends with (`Association Les Nuits du Duché · Uzès (Gard),
/// France` → `FR`): a site's own address, whose country is that of the places it lists
/// without one. A footer ending in anything else (a phone number, a copyright) gives none.
pub(crate) fn footer_country(html: &str) -> Option<String> {
    let folded = html.to_ascii_lowercase();
    let open = folded.rfind("<footer")?;
    let body = open + folded[open..].find('>')? + 1;
    let close = folded[body..].find("</footer").map_or(html.len(), |e| body + e);
    let inner = html.get(body..close)?;
    // The footer's text, tags read as breaks.
    let mut text = String::new();
    let mut in_tag = false;
    for c in inner.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push('\n');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = gleaner_event::text::decode_entities(&text);
    let last =
        text.split([',', '·', '|', '\n', '–', '—']).map(str::trim).rfind(|p| !p.is_empty())?;
    if last.chars().any(|c| c.is_ascii_digit()) || last.split_whitespace().count() > 3 {
        return None;
    }
    gleaner_event::country_code(last)
}

/// The country a site is of, by its page's language tag's region (`fr-BE`) and its
/// address's country-code domain (`.ch`, `.co.uk`), when they do not disagree: where the
/// events it places without naming a country are. Domains sold as generic names (`.io`,
/// `.co`, `.tv`, `.me`…) name none, and `en-US`, many a CMS's default, names no country.
pub(crate) fn site_country(lang: Option<&str>, base: &url::Url) -> Option<String> {
    const GENERIC: [&str; 14] =
        ["IO", "CO", "TV", "ME", "FM", "AI", "LY", "TO", "WS", "CC", "EU", "GG", "SO", "SU"];
    // `en-US` is many a CMS's default, whatever the site's country.
    let region = lang.and_then(language_region).filter(|r| r != "US");
    let tld = base.host_str().and_then(|host| {
        domain_country(host).filter(|t| !GENERIC.contains(&t.as_str()) || under_category(host))
    });
    match (region, tld) {
        (Some(r), Some(t)) if r != t => None,
        (Some(c), _) | (None, Some(c)) => Some(c),
        (None, None) => None,
    }
}

/// Whether a host sits under its country domain's category label (`.org.co`, `.com.co`,
/// `.gov.co`, `.edu.tv`): a country's own registry, never the bare domain sold as a
/// generic name (`startup.co`).
fn under_category(host: &str) -> bool {
    const CATEGORIES: [&str; 11] =
        ["com", "org", "net", "gov", "gob", "edu", "mil", "ac", "nom", "int", "info"];
    let mut labels = host.trim_end_matches('.').rsplit('.');
    labels.next();
    labels.next().is_some_and(|l| CATEGORIES.contains(&l.to_ascii_lowercase().as_str()))
        && labels.next().is_some()
}

/// The zone of the site's country (see [`site_country`]) when that country keeps one
/// civil time (`de-AT` → Vienna, a `.tr` address → Istanbul; `.ca`, `es-MX` name none),
/// else the clock of its language when all its countries keep one (`de`, `tr`),
/// for the local times of events that name no country of their own; `places` are the
/// event's place texts, which tell Spain's and Portugal's islands apart.
pub(crate) fn site_zone(
    lang: Option<&str>,
    base: &url::Url,
    places: &[&str],
) -> Option<chrono_tz::Tz> {
    match site_country(lang, base) {
        Some(country) => gleaner_event::zone::country_zone(&country, places),
        None => lang.filter(|l| language_region(l).is_none()).and_then(language_clock),
    }
}

/// The one clock every country of a language keeps, for a language tag without a region:
/// German (Germany, Austria, Switzerland, Liechtenstein, Luxembourg, German-speaking
/// Belgium and South Tyrol all keep Central European Time with the same summer time) and
/// Turkish (Turkey's; Cyprus is the only other country where it is official). French,
/// Spanish and English are spoken on many clocks and name none.
pub(crate) fn language_clock(tag: &str) -> Option<chrono_tz::Tz> {
    let language = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    match language.as_str() {
        "de" => Some(chrono_tz::Europe::Berlin),
        "tr" => Some(chrono_tz::Europe::Istanbul),
        _ => None,
    }
}

/// Gives the events that name no country and no zone of their own the site's zone
/// ([`site_zone`]), for their local times.
pub(crate) fn site_zone_into<'a>(
    lang: Option<&str>,
    base: &url::Url,
    events: impl Iterator<Item = &'a mut gleaner_event::RawEvent>,
) {
    for raw in events.filter(|r| r.country.is_none() && r.zone.is_none()) {
        let places: Vec<&str> = [&raw.location_name, &raw.location_text, &raw.address_text]
            .into_iter()
            .filter_map(|t| t.as_deref())
            .collect();
        if let Some(zone) = site_zone(lang, base, &places) {
            raw.zone = Some(zone.name().to_owned());
        }
    }
}

/// The region of a language tag, upper-cased: its first two-letter subtag after the
/// language (`fr-BE` → `BE`, `sr-Latn-RS` → `RS`, `de_ch` → `CH`; `UK`, meant for `GB`,
/// read as `GB`).
pub(crate) fn language_region(tag: &str) -> Option<String> {
    tag.trim()
        .split(['-', '_'])
        .skip(1)
        .find(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_alphabetic()))
        .map(
            |r| if r.eq_ignore_ascii_case("uk") { "GB".to_owned() } else { r.to_ascii_uppercase() },
        )
}

/// The country a host's country-code top-level domain names, upper-cased (`.ch` → `CH`,
/// `.co.uk` → `GB`); `None` for a longer top-level domain (`.com`, `.example`).
pub(crate) fn domain_country(host: &str) -> Option<String> {
    let tld = host.trim_end_matches('.').rsplit('.').next()?;
    (tld.len() == 2 && tld.bytes().all(|b| b.is_ascii_alphabetic())).then(|| {
        if tld.eq_ignore_ascii_case("uk") { "GB".to_owned() } else { tld.to_ascii_uppercase() }
    })
}

/// Postcodes as each country writes them, for [`site_country`]: five digits (`28215`), four
/// (`3550`), Dutch `1011 AB`, Portuguese `1100-148`, British `SW1A 1AA`, Irish Eircodes
/// (`D06 F2X7`), Canadian `V2L 5T3`. Source: the Universal Postal Union's addressing
/// guides per country.
static POSTCODES: std::sync::LazyLock<Vec<(&'static [&'static str], regex::Regex)>> =
    std::sync::LazyLock::new(|| {
        let re = |p: &str| regex::Regex::new(p).expect("a constant pattern compiles");
        vec![
            (
                &["DE", "FR", "ES", "IT", "TR", "MX", "FI", "HR", "UY", "PE", "MA", "GR"][..],
                re(r"\b\d{5}\b"),
            ),
            (
                &["CH", "AT", "BE", "DK", "NO", "LU", "HU", "AU", "NZ", "ZA", "SI", "CY", "AR"][..],
                re(r"\b\d{4}\b"),
            ),
            (&["NL"][..], re(r"\b\d{4} ?[A-Z]{2}\b")),
            (&["PT"][..], re(r"\b\d{4}-\d{3}\b")),
            (&["GB"][..], re(r"\b[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}\b")),
            (&["IE"][..], re(r"\b[A-Z]\d[\dW] ?[\dA-Z]{4}\b|\bDublin \d{1,2}\b")),
            (&["CA"][..], re(r"\b[A-Z]\d[A-Z] ?\d[A-Z]\d\b")),
            (&["CO"][..], re(r"\b\d{6}\b")),
            (&["CL"][..], re(r"\b\d{7}\b")),
        ]
    });

/// The country of the site (see [`site_country`]) when an event's address holds a postcode
/// written as that country writes them (`1150 Woluwe` on a `fr-BE` site, `3550 Langnau` on
/// a `.ch` one): unambiguous from the address, given the site.
pub(crate) fn site_address_country(site: &str, raw: &gleaner_event::RawEvent) -> Option<String> {
    let (_, format) = POSTCODES.iter().find(|(countries, _)| countries.contains(&site))?;
    let texts =
        [&raw.address_text, &raw.location_text, &raw.postal_code, &raw.street, &raw.locality];
    texts
        .into_iter()
        .filter_map(|t| t.as_deref())
        .any(|t| t.len() <= 500 && format.is_match(t))
        .then(|| site.to_owned())
}

/// The `lang` of the page's `<html>` element, when the first one has it.
pub(crate) fn page_language(html: &str) -> Option<&str> {
    let bytes = &html.as_bytes()[..html.len().min(SCAN)];
    let lower = memchr::memmem::find(bytes, b"<html");
    let upper = memchr::memmem::find(bytes, b"<HTML");
    let at = lower.into_iter().chain(upper).min()?;
    let rest = &html[at + 5..];
    let end = rest.find('>')?.min(4096);
    let attrs = attributes(rest.get(..end)?);
    attrs.iter().find(|(n, _)| n.eq_ignore_ascii_case("lang")).map(|(_, v)| v.trim())
}

/// The `name=value` pairs of a tag's text (quoted with `"` or `'`, or bare).
fn attributes(tag: &str) -> Vec<(&str, &str)> {
    let b = tag.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && !matches!(b[i], b'=' | b'/') {
            i += 1;
        }
        let name = &tag[start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'=' {
            i += 1;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let (vs, ve) = match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let vs = i + 1;
                    let ve = memchr::memchr(q, &b[vs..]).map_or(b.len(), |e| vs + e);
                    i = (ve + 1).min(b.len());
                    (vs, ve)
                }
                _ => {
                    let vs = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    (vs, i)
                }
            };
            if let Some(v) = tag.get(vs..ve) {
                out.push((name, v));
            }
        } else if name.is_empty() {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_regional_language_names_its_dollar() {
        for (lang, want) in [
            (Some("fr-CA"), Some("CAD")),
            (Some("es-AR"), Some("ARS")),
            (Some("es_MX"), Some("MXN")),
            (Some("en-US"), Some("USD")),
            (Some("es-ES"), None),
            (Some("fr"), None),
            (Some("es-419"), None),
            (None, None),
        ] {
            assert_eq!(super::lang_dollar(lang), want, "{lang:?}");
        }
    }

    use super::*;

    #[test]
    fn the_sites_country_for_an_address_written_its_way() {
        let url = |u: &str| url::Url::parse(u).unwrap();
        let site = |lang: Option<&str>, u: &str| site_country(lang, &url(u));
        assert_eq!(site(Some("fr-BE"), "https://sabots.example/agenda").as_deref(), Some("BE"));
        assert_eq!(site(Some("de"), "https://jk.example.ch/agenda").as_deref(), Some("CH"));
        assert_eq!(site(None, "https://club.example.co.uk/").as_deref(), Some("GB"));
        // `en-US` is a CMS default; generic and disagreeing hints name none.
        assert_eq!(site(Some("en-US"), "https://club.example/"), None);
        assert_eq!(site(None, "https://startup.example.io/"), None);
        // Issue 24, page 361: a generic-sold domain under its country's category label is
        // the country's.
        assert_eq!(site(Some("es"), "https://www.camara.example.org.co/").as_deref(), Some("CO"));
        assert_eq!(site(None, "https://www.alcaldia.example.gov.co/").as_deref(), Some("CO"));
        assert_eq!(site(Some("es"), "https://startup.co/"), None);
        assert_eq!(site(None, "https://shop.example.co/"), None);
        assert_eq!(site(Some("de-AT"), "https://verein.example.de/"), None);
        let at = |street: &str| gleaner_event::RawEvent {
            address_text: Some(street.to_owned()),
            ..Default::default()
        };
        let country = |site: &str, a: &str| site_address_country(site, &at(a));
        assert_eq!(country("BE", "Rue de la Station 4, 1150 Woluwe").as_deref(), Some("BE"));
        assert_eq!(country("CH", "Dorfstrasse 12, 3550 Langnau").as_deref(), Some("CH"));
        assert_eq!(country("GB", "21 High Street, Tetbury GL8 8AA").as_deref(), Some("GB"));
        assert_eq!(
            country("CA", "888 Canada Games Way, Prince George, BC V2L 5T6").as_deref(),
            Some("CA")
        );
        // No postcode, or another country's form: the address does not say.
        assert_eq!(country("BE", "Salle des fêtes, Woluwe"), None);
        assert_eq!(country("GB", "Dorfstrasse 12, 3550 Langnau"), None);
    }

    #[test]
    fn the_country_a_footer_ends_with() {
        let page = |footer: &str| format!("<html><body><main>x</main><footer>{footer}</footer>");
        assert_eq!(
            footer_country(&page("Association Les Nuits · Uzès (Gard), France")).as_deref(),
            Some("FR")
        );
        assert_eq!(
            footer_country(&page(
                "<p>Kulturamt</p><p>Markt 1, 04109 Leipzig</p><p>Deutschland</p>"
            ))
            .as_deref(),
            Some("DE")
        );
        assert_eq!(footer_country(&page("© 2026 Teatro · Tel. 91 000 00 00")), None);
        assert_eq!(footer_country(&page("Made with love in Spain")), None);
        assert_eq!(footer_country("<html><body>France</body></html>"), None);
    }

    #[test]
    fn canonical_and_og_url_in_any_attribute_order_and_quoting() {
        let html = r#"<html><head><meta content="https://a.example/og" property="og:url">
<LINK HREF='/events/1' REL="alternate canonical"><link rel=canonical href=/second></head>"#;
        assert_eq!(
            page_urls(html),
            PageUrls {
                canonical: Some("/events/1".into()),
                og_url: Some("https://a.example/og".into())
            }
        );
        assert_eq!(page_urls("<p>no links</p><linked>"), PageUrls::default());
    }
}

/// The one zone `mentions` name (several spellings of one clock count as one).
pub(crate) fn one_zone(mentions: &[(String, chrono_tz::Tz)]) -> Option<String> {
    let mut found: Option<&(String, chrono_tz::Tz)> = None;
    for m in mentions {
        match found {
            None => found = Some(m),
            // `CET` and `Europe/Paris` on one page are one clock.
            Some((_, seen)) if same_clock(*seen, m.1) => {}
            Some(_) => return None,
        }
    }
    found.map(|(words, _)| words.clone())
}

/// Every zone `html` states (the first 1,000), as written and as the zone it names: an IANA name
/// (`Europe/Istanbul`, in a widget's settings or the text) or zone words (`TSİ`, `CET`,
/// `heure de Paris`, `hora peninsular`, `Eastern Time`, …). Abbreviations must be written
/// in capitals (the French "cet" is a word), and the US ones that are also state codes or
/// words (`CT`, `PT`, `ET`, `EST`, `Central`, `Pacific`) count only right after a time of
/// day (`7 PM CT`, `9am Pacific`, `18:00 ET`); two different zones on one page state none ([`one_zone`]).
pub(crate) fn zone_mentions(html: &str) -> Vec<(String, chrono_tz::Tz)> {
    static ZONES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b(?:Europe|America|Asia|Africa|Atlantic|Australia|Pacific)/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?\b|\b(?:TSİ|TSI|CEST|CET|MESZ|MEZ|BST|EEST|EET)\b|(?i:\b(?:türkiye saati|heure de paris|heure française|heure de france|hora peninsular|hora de madrid|hora canaria|uk time|london time)\b)|\b(?:Eastern|Central|Mountain|Pacific) Time\b|(?:\b\d{1,2}(?::\d{2})?\s*(?i:[ap]\.?m\b\.?)|\b\d{1,2}:\d{2})\s*(ET|CT|MT|PT|EST|EDT|CST|CDT|MST|MDT|PST|PDT|Eastern|Central|Mountain|Pacific)\b",
        )
        .expect("the zone pattern is valid")
    });
    ZONES
        .captures_iter(html)
        .take(1000)
        .filter_map(|c| {
            let m = c.get(1).or_else(|| c.get(0))?;
            let tz = gleaner_event::zone::stated_zone(m.as_str())?;
            Some((m.as_str().to_owned(), tz))
        })
        .collect()
}

/// Whether two zones keep the same civil time in 2026 (a winter and a summer instant).
fn same_clock(a: chrono_tz::Tz, b: chrono_tz::Tz) -> bool {
    use chrono::{Offset, TimeZone};
    [1_767_225_600_i64, 1_783_000_000].iter().all(|&t| {
        let (Some(x), Some(y)) = (
            a.timestamp_opt(t, 0).single().map(|d| d.offset().fix()),
            b.timestamp_opt(t, 0).single().map(|d| d.offset().fix()),
        ) else {
            return false;
        };
        x == y
    })
}

#[cfg(test)]
mod zone_tests {
    use super::*;

    fn stated_zone(html: &str) -> Option<String> {
        one_zone(&zone_mentions(html))
    }

    #[test]
    fn a_page_states_one_zone_or_none() {
        assert_eq!(stated_zone("<p>Saat 21:00 (TSİ)</p>").as_deref(), Some("TSİ"));
        assert_eq!(
            stated_zone("<p>20h30, heure de Paris</p><script>tz='Europe/Paris'</script>")
                .as_deref(),
            Some("heure de Paris")
        );
        assert_eq!(stated_zone("<p>cet été, à Lyon</p>"), None);
        assert_eq!(stated_zone("<p>20:00 CET or 19:00 BST</p>"), None);
        assert_eq!(stated_zone("<p>no zone here</p>"), None);
        assert_eq!(stated_zone("<p>Tue, 6:00 PM CT</p>").as_deref(), Some("CT"));
        assert_eq!(stated_zone("<p>1:00 p.m. Eastern Time</p>").as_deref(), Some("Eastern"));
        assert_eq!(stated_zone("<p>Central Time</p>").as_deref(), Some("Central Time"));
        assert_eq!(stated_zone("<p>Hartford, CT 06103</p>"), None);
        assert_eq!(stated_zone("<h2>SAMEDI 20 ET DIMANCHE 21</h2><p>C'EST GRATUIT</p>"), None);
        assert_eq!(stated_zone("<p>7pm ET or 4pm PT</p>"), None);
    }
}
