//! The time zone a page states for its times ("all times Central", "hora peninsular",
//! "TSİ"), and the one its language tag's region keeps (`fr-BE`, `de-CH`, `tr`).

/// The zone a page states for its times, when it states exactly one: "all times
/// Central", "Eastern time", "hora peninsular", "heure de Paris", "TSİ", "MEZ", "CET",
/// "UK time", "Irish time". Abbreviations that are also words (`et`, `est`) count only after "all times".
pub(super) fn stated_zone(text: &str) -> Option<chrono_tz::Tz> {
    use chrono_tz::{America, Atlantic, Europe};
    // The first 400,000 bytes, cut at a character's boundary (a `£` or an `ş` may straddle
    // the cap).
    let mut end = text.len().min(400_000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let folded = gleaner_event::datetext::fold_diacritics(&text[..end]);
    let words: Vec<&str> =
        folded.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let us = |w: &str| match w {
        "central" | "ct" | "cst" | "cdt" => Some(America::Chicago),
        "eastern" | "et" | "est" | "edt" => Some(America::New_York),
        "mountain" | "mt" | "mst" | "mdt" => Some(America::Denver),
        "pacific" | "pt" | "pst" | "pdt" => Some(America::Los_Angeles),
        _ => None,
    };
    let mut found: Option<chrono_tz::Tz> = None;
    let mut conflict = false;
    let mut note = |z: chrono_tz::Tz| match found {
        None => found = Some(z),
        Some(f) if f != z => conflict = true,
        _ => {}
    };
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or("");
        match *w {
            // "all times (are|shown|listed) (in) Central"
            "times" if i > 0 && words[i - 1] == "all" => {
                let rest: Vec<&str> = words[i + 1..]
                    .iter()
                    .copied()
                    .skip_while(|w| matches!(*w, "are" | "shown" | "listed" | "in" | "given"))
                    .take(1)
                    .collect();
                if let Some(z) = rest.first().and_then(|w| us(w)) {
                    note(z);
                }
            }
            "central" | "eastern" | "mountain" | "pacific" if next == "time" => {
                if let Some(z) = us(w) {
                    note(z);
                }
            }
            "hora" | "horario" if next == "peninsular" => note(Europe::Madrid),
            "hora" | "horario" if next == "canaria" => note(Atlantic::Canary),
            // Mexico's central time (`Horarios del centro de México`): a `horario del
            // centro` alone is a centre's opening hours.
            "hora" | "horario" | "horarios" | "tiempo" if central_mexico(&words[i + 1..]) => {
                note(America::Mexico_City)
            }
            "heure" if next == "de" && words.get(i + 2) == Some(&"paris") => note(Europe::Paris),
            "heure" if next == "francaise" => note(Europe::Paris),
            "tsi" => note(Europe::Istanbul),
            "turkiye" if next == "saati" || next == "saatiyle" => note(Europe::Istanbul),
            "mez" | "mesz" => note(Europe::Berlin),
            "cet" | "cest" => note(Europe::Paris),
            "uk" | "british" if next == "time" => note(Europe::London),
            "irish" if next == "time" => note(Europe::Dublin),

            _ => {}
        }
    }
    if conflict { None } else { found }
}

/// Whether the words after `hora` / `horario` name Mexico's central time: `del centro de
/// México` or `centro de México` (see [`stated_zone`]).
fn central_mexico(rest: &[&str]) -> bool {
    let rest = rest.strip_prefix(&["del"]).unwrap_or(rest);
    matches!(rest, ["centro", "de", "mexico", ..])
}

/// The zone of the country a page's language tag names, for its events' local times when
/// the page states none and the event names no country: the tag's region (`fr-BE`,
/// `de-CH`, `en-GB`), else the one clock a language's countries keep (`de`, `tr`: see
/// [`crate::page::language_clock`]). Only a country with one civil time counts (`en-US`,
/// `fr-CA`, `es-MX` name none); Spain's and Portugal's islands are told apart by
/// `address`, the event's place texts.
pub(super) fn language_zone(tag: &str, address: &[&str]) -> Option<chrono_tz::Tz> {
    match crate::page::language_region(tag) {
        Some(region) => gleaner_event::zone::country_zone(&region, address),
        None => crate::page::language_clock(tag),
    }
}

/// The zone of the country a site's address names by its country-code top-level domain
/// (`https://kultur.example.bel.tr/…` → Turkey, `.co.uk` → the United Kingdom), for the
/// same events as [`language_zone`]; generic domains (`.com`, `.org`, `.example`) name none.
pub(super) fn domain_zone(url: &str, address: &[&str]) -> Option<chrono_tz::Tz> {
    let host = url.split("://").nth(1)?.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let country = crate::page::domain_country(host.split(':').next()?)?;
    gleaner_event::zone::country_zone(&country, address)
}

#[cfg(test)]
mod tests {
    use super::{domain_zone, language_zone, stated_zone};

    #[test]
    fn zones_domains_name() {
        let z = |u: &str| domain_zone(u, &[]).map(|z| z.name().to_owned());
        assert_eq!(
            z("https://kultur.example.bel.tr/etkinlik/").as_deref(),
            Some("Europe/Istanbul")
        );
        assert_eq!(
            z("https://www.hexleyplayers.example.co.uk/whats-on").as_deref(),
            Some("Europe/London")
        );
        assert_eq!(z("https://www.lindenau.example.de:8443/").as_deref(), Some("Europe/Berlin"));
        assert_eq!(z("https://kuklistan.example/oyun-takvimi"), None);
        assert_eq!(z("https://events.example.com/"), None);
        assert_eq!(z("https://radio.example.us/"), None);
    }

    #[test]
    fn zones_language_tags_name() {
        let z = |t: &str, a: &[&str]| language_zone(t, a).map(|z| z.name().to_owned());
        assert_eq!(z("fr-BE", &[]).as_deref(), Some("Europe/Brussels"));
        assert_eq!(z("de-ch", &[]).as_deref(), Some("Europe/Zurich"));
        assert_eq!(z("tr-TR", &[]).as_deref(), Some("Europe/Istanbul"));
        assert_eq!(z("es-ES", &["Las Palmas de Gran Canaria"]).as_deref(), Some("Atlantic/Canary"));
        // A language whose countries keep one clock names it; one spoken in countries on
        // other clocks, or a country of several zones, names none.
        assert_eq!(z("tr", &[]).as_deref(), Some("Europe/Istanbul"));
        assert_eq!(z("de", &[]).as_deref(), Some("Europe/Berlin"));
        assert_eq!(z("fr", &[]), None);
        assert_eq!(z("es", &[]), None);
        assert_eq!(z("en-US", &[]), None);
        assert_eq!(z("es-MX", &[]), None);
        assert_eq!(z("en-AU", &[]), None);
    }

    #[test]
    fn a_long_page_is_cut_at_a_character_boundary() {
        // A multi-byte character across the 400,000-byte cap panicked (found by the 8 MiB
        // fallback benchmark): the cap falls back to the character's start.
        let mut text = "a".repeat(399_999);
        text.push_str("£ all times Central");
        assert_eq!(stated_zone(&text), None);
        let text = format!("All times Central. {}", "ş".repeat(300_000));
        assert_eq!(
            stated_zone(&text).map(|z| z.name().to_owned()).as_deref(),
            Some("America/Chicago")
        );
    }

    #[test]
    fn zones_pages_state() {
        let z = |t: &str| stated_zone(t).map(|z| z.name().to_owned());
        assert_eq!(z("Two sets nightly. All times Central.").as_deref(), Some("America/Chicago"));
        assert_eq!(z("all times are in Eastern").as_deref(), Some("America/New_York"));
        assert_eq!(z("Doors 7pm Pacific Time").as_deref(), Some("America/Los_Angeles"));
        assert_eq!(z("Todos los horarios en hora peninsular.").as_deref(), Some("Europe/Madrid"));
        assert_eq!(z("20h30 (heure de Paris)").as_deref(), Some("Europe/Paris"));
        assert_eq!(z("Saat 20.30 TSİ").as_deref(), Some("Europe/Istanbul"));
        assert_eq!(z("Beginn 20 Uhr MEZ").as_deref(), Some("Europe/Berlin"));
        // Issue 24, batch 90–109: a club's fixtures say `Throw-in times are Irish time`.
        assert_eq!(z("Throw-in times are Irish time.").as_deref(), Some("Europe/Dublin"));
        assert_eq!(z("Kick-off 3pm British time").as_deref(), Some("Europe/London"));
        assert_eq!(z("Irish dancing at 8pm"), None);
        // Issue 24, page 299: a karting calendar's `Horarios del centro de México.`
        assert_eq!(z("Horarios del centro de México.").as_deref(), Some("America/Mexico_City"));
        assert_eq!(z("Todo en hora centro de Mexico").as_deref(), Some("America/Mexico_City"));
        assert_eq!(z("Horario del centro: lunes a viernes de 9 a 14 h"), None);
        // Words that only look like zones, and two zones at once, say nothing.
        assert_eq!(z("Le concert est complet et reporté"), None);
        assert_eq!(z("Central Park concert at 8pm"), None);
        assert_eq!(z("All times Central. Stream at 9 Eastern Time."), None);
    }
}
