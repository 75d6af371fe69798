//! The time zone a page states for its times ("all times Central", "hora peninsular",
//! "TSİ").

/// The zone a page states for its times, when it states exactly one: "all times
/// Central", "Eastern time", "hora peninsular", "heure de Paris", "TSİ", "MEZ", "CET",
/// "UK time", "Irish time". Abbreviations that are also words (`et`, `est`) count only after "all times".
pub(super) fn stated_zone(text: &str) -> Option<chrono_tz::Tz> {
    use chrono_tz::{America, Atlantic, Europe};
    let folded = gleaner_event::datetext::fold_diacritics(&text[..text.len().min(400_000)]);
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

#[cfg(test)]
mod tests {
    use super::stated_zone;

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
        // Words that only look like zones, and two zones at once, say nothing.
        assert_eq!(z("Le concert est complet et reporté"), None);
        assert_eq!(z("Central Park concert at 8pm"), None);
        assert_eq!(z("All times Central. Stream at 9 Eastern Time."), None);
    }
}
