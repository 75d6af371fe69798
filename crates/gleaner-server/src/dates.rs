//! Dates and times as people read them, in the event's own zone and the visitor's
//! language: "jeu. 3 déc. 2026, 20:30 (heure de Paris)", "Thu 3 Dec 2026, 20:30 (Paris
//! time)", day headings such as "Donnerstag, 3. Dezember 2026".
//!
//! A small table of weekday and month names per language, not a locale crate: the five
//! languages need 38 words each and one pattern per form (the CLDR medium and full date
//! patterns, written out here), and neither chrono's `unstable-locales` nor ICU would
//! name the zone the way a page does ("heure de Paris"), so the table stays the whole
//! story and the build stays small. The machine form stays beside every text in
//! `<time datetime>` (html.rs).
//!
//! Zones: an event time with an offset is shown in the event's zone (its source's
//! `time_zone`, else its site's) when that zone has that offset at that instant, else as
//! written with its offset ("UTC+03:00"), so a page never shows a time the venue did not
//! write. A time without a zone is shown as written, with no zone named. Stamps (first
//! seen, last checked) are instants and are always shown in the event's zone.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;
use gleaner_config::Settings;
use gleaner_event::EventTime;
use gleaner_event::time::parse_event_time;

use crate::ApiEvent;
use crate::i18n::Lang;

/// Whose wall time a shown time is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ZoneName {
    /// A named zone (`Europe/Paris` → "heure de Paris").
    Named(Tz),
    /// Only an offset is known (`UTC+03:00`).
    Offset(FixedOffset),
}

/// A date or time as shown to a visitor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// A date without a time of day.
    Date(NaiveDate),
    /// A wall time and whose it is (`None`: the source gave no zone).
    At {
        /// The wall time.
        local: NaiveDateTime,
        /// Its zone, when known.
        zone: Option<ZoneName>,
    },
}

impl Shown {
    /// The calendar day it falls on, in its own zone.
    pub fn date(&self) -> NaiveDate {
        match self {
            Shown::Date(d) => *d,
            Shown::At { local, .. } => local.date(),
        }
    }
}

/// The zone an event is shown in: its source's `time_zone`, else its site's.
pub fn zone_of(settings: &Settings, event: &ApiEvent) -> Tz {
    if let Some(zone) =
        settings.sources.iter().find(|s| s.id == event.source).and_then(|s| s.time_zone)
    {
        return zone;
    }
    let host = url::Url::parse(&event.source_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
        .unwrap_or_default();
    settings.time_zone_of(&host)
}

/// An event time (ISO 8601 as the API writes it) as shown in `zone`; `None` when the
/// text is not a date.
pub fn event_time(iso: &str, zone: Tz) -> Option<Shown> {
    Some(match parse_event_time(iso)? {
        EventTime::Date(d) => Shown::Date(d),
        EventTime::Floating(local) => Shown::At { local, zone: None },
        EventTime::Fixed(written) => {
            let in_zone = written.with_timezone(&zone);
            if in_zone.offset().fix() == *written.offset() {
                Shown::At { local: in_zone.naive_local(), zone: Some(ZoneName::Named(zone)) }
            } else {
                Shown::At {
                    local: written.naive_local(),
                    zone: Some(ZoneName::Offset(*written.offset())),
                }
            }
        }
    })
}

/// An instant (RFC 3339) as shown in `zone`.
pub fn instant(rfc3339: &str, zone: Tz) -> Option<Shown> {
    let t = DateTime::parse_from_rfc3339(rfc3339).ok()?;
    Some(Shown::At {
        local: zone.from_utc_datetime(&t.naive_utc()).naive_local(),
        zone: Some(ZoneName::Named(zone)),
    })
}

struct Words {
    weekdays: [&'static str; 7],
    weekdays_full: [&'static str; 7],
    months: [&'static str; 12],
    months_full: [&'static str; 12],
    no_date: &'static str,
}

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &EN,
        Lang::Tr => &TR,
        Lang::Fr => &FR,
        Lang::Es => &ES,
        Lang::De => &DE,
    }
}

/// "Thu 3 Dec 2026", "jeu. 3 déc. 2026", "Do., 3. Dez. 2026", "3 Ara 2026 Per".
pub fn date_short(lang: Lang, d: NaiveDate) -> String {
    let w = words(lang);
    let (wd, day, mon, y) = (
        w.weekdays[d.weekday().num_days_from_monday() as usize],
        d.day(),
        w.months[d.month0() as usize],
        d.year(),
    );
    match lang {
        Lang::En | Lang::Fr => format!("{wd} {day} {mon} {y}"),
        Lang::Es => format!("{wd}, {day} {mon} {y}"),
        Lang::De => format!("{wd}, {day}. {mon} {y}"),
        Lang::Tr => format!("{day} {mon} {y} {wd}"),
    }
}

/// The day heading: "Thursday 3 December 2026", "jueves, 3 de diciembre de 2026".
pub fn date_long(lang: Lang, d: NaiveDate) -> String {
    let w = words(lang);
    let (wd, day, mon, y) = (
        w.weekdays_full[d.weekday().num_days_from_monday() as usize],
        d.day(),
        w.months_full[d.month0() as usize],
        d.year(),
    );
    match lang {
        Lang::En | Lang::Fr => format!("{wd} {day} {mon} {y}"),
        Lang::Es => format!("{wd}, {day} de {mon} de {y}"),
        Lang::De => format!("{wd}, {day}. {mon} {y}"),
        Lang::Tr => format!("{day} {mon} {y} {wd}"),
    }
}

/// "date not given", in the language.
pub fn no_date(lang: Lang) -> &'static str {
    words(lang).no_date
}

/// The city a zone is named after, in the language where it differs.
fn city(lang: Lang, zone: Tz) -> String {
    let name = zone.name();
    let exonym = match (name, lang) {
        ("Europe/Paris", Lang::Es) => Some("París"),
        ("Europe/Istanbul", Lang::Tr) => Some("İstanbul"),
        ("Europe/Istanbul", Lang::Es) => Some("Estambul"),
        ("America/Montreal", Lang::Fr) => Some("Montréal"),
        ("Europe/London", Lang::Fr) => Some("Londres"),
        ("Europe/London", Lang::Es) => Some("Londres"),
        ("Europe/London", Lang::Tr) => Some("Londra"),
        _ => None,
    };
    match exonym {
        Some(e) => e.to_owned(),
        None => name.rsplit('/').next().unwrap_or(name).replace('_', " "),
    }
}

/// The zone as a page names it: "Paris time", "heure de Paris", "İstanbul saati", "UTC".
pub fn zone_label(lang: Lang, zone: ZoneName) -> String {
    let named = match zone {
        ZoneName::Named(Tz::UTC | Tz::Etc__UTC) => return "UTC".to_owned(),
        ZoneName::Named(tz) => tz,
        ZoneName::Offset(offset) if offset.local_minus_utc() == 0 => return "UTC".to_owned(),
        ZoneName::Offset(offset) => {
            let secs = offset.local_minus_utc();
            let sign = if secs < 0 { '−' } else { '+' };
            let secs = secs.unsigned_abs();
            return format!("UTC{sign}{:02}:{:02}", secs / 3600, secs % 3600 / 60);
        }
    };
    let city = city(lang, named);
    match lang {
        Lang::En => format!("{city} time"),
        Lang::Fr if city.starts_with(['A', 'E', 'I', 'O', 'U', 'Y', 'É', 'İ']) => {
            format!("heure d’{city}")
        }
        Lang::Fr => format!("heure de {city}"),
        Lang::Es => format!("hora de {city}"),
        Lang::De => format!("Ortszeit {city}"),
        Lang::Tr => format!("{city} saati"),
    }
}

fn clock(t: &NaiveDateTime) -> String {
    t.format("%H:%M").to_string()
}

/// A date or time in full: "jeu. 3 déc. 2026, 20:30 (heure de Paris)".
pub fn full(lang: Lang, shown: &Shown) -> String {
    match shown {
        Shown::Date(d) => date_short(lang, *d),
        Shown::At { local, zone } => {
            let mut text = format!("{}, {}", date_short(lang, local.date()), clock(local));
            if let Some(zone) = zone {
                text.push_str(&format!(" ({})", zone_label(lang, *zone)));
            }
            text
        }
    }
}

/// From start to end: "Thu 3 Dec 2026, 20:30–23:00 (Paris time)", or across days
/// "Thu 3 Dec 2026, 20:30 – Fri 4 Dec 2026, 01:00 (Paris time)"; the start alone when
/// the end is missing, unreadable or not after it.
pub fn span(lang: Lang, start: &Shown, end: Option<&Shown>) -> String {
    match (start, end) {
        (Shown::Date(a), Some(Shown::Date(b))) if b > a => {
            format!("{} – {}", date_short(lang, *a), date_short(lang, *b))
        }
        (Shown::At { local: a, zone: za }, Some(Shown::At { local: b, zone: zb }))
            if za == zb && b > a =>
        {
            let zone = za.map(|z| format!(" ({})", zone_label(lang, z))).unwrap_or_default();
            if a.date() == b.date() {
                format!("{}, {}–{}{zone}", date_short(lang, a.date()), clock(a), clock(b))
            } else {
                format!(
                    "{}, {} – {}, {}{zone}",
                    date_short(lang, a.date()),
                    clock(a),
                    date_short(lang, b.date()),
                    clock(b)
                )
            }
        }
        (Shown::At { local: a, .. }, Some(end @ Shown::At { local: b, .. })) if b > a => {
            format!("{} – {}", full(lang, start), full(lang, end))
        }
        _ => full(lang, start),
    }
}

/// The time of day within its day heading: "20:30–23:00 (heure de Paris)"; for a date
/// without a time, the date (and its end day) as [`span`] writes it.
pub fn within_day(lang: Lang, start: &Shown, end: Option<&Shown>) -> String {
    match (start, end) {
        (Shown::At { local: a, zone: za }, end) => {
            let mut text = clock(a);
            if let Some(Shown::At { local: b, zone: zb }) = end
                && zb == za
                && b > a
            {
                if b.date() == a.date() {
                    text.push_str(&format!("–{}", clock(b)));
                } else {
                    text.push_str(&format!(" – {}, {}", date_short(lang, b.date()), clock(b)));
                }
            }
            if let Some(zone) = za {
                text.push_str(&format!(" ({})", zone_label(lang, *zone)));
            }
            text
        }
        (Shown::Date(_), _) => span(lang, start, end),
    }
}

static EN: Words = Words {
    weekdays: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
    weekdays_full: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
    months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    months_full: [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    no_date: "date not given",
};

static TR: Words = Words {
    weekdays: ["Pzt", "Sal", "Çar", "Per", "Cum", "Cmt", "Paz"],
    weekdays_full: ["Pazartesi", "Salı", "Çarşamba", "Perşembe", "Cuma", "Cumartesi", "Pazar"],
    months: ["Oca", "Şub", "Mar", "Nis", "May", "Haz", "Tem", "Ağu", "Eyl", "Eki", "Kas", "Ara"],
    months_full: [
        "Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim",
        "Kasım", "Aralık",
    ],
    no_date: "tarih belirtilmemiş",
};

static FR: Words = Words {
    weekdays: ["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."],
    weekdays_full: ["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
    months: [
        "janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.",
        "déc.",
    ],
    months_full: [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    no_date: "date non indiquée",
};

static ES: Words = Words {
    weekdays: ["lun", "mar", "mié", "jue", "vie", "sáb", "dom"],
    weekdays_full: ["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
    months: ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sept", "oct", "nov", "dic"],
    months_full: [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    no_date: "fecha no indicada",
};

static DE: Words = Words {
    weekdays: ["Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa.", "So."],
    weekdays_full: [
        "Montag",
        "Dienstag",
        "Mittwoch",
        "Donnerstag",
        "Freitag",
        "Samstag",
        "Sonntag",
    ],
    months: [
        "Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.",
        "Dez.",
    ],
    months_full: [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ],
    no_date: "Datum nicht angegeben",
};

#[cfg(test)]
mod tests {
    use super::*;

    fn at(iso: &str, zone: Tz) -> Shown {
        event_time(iso, zone).unwrap()
    }

    #[test]
    fn five_languages_in_the_events_zone() {
        let paris = chrono_tz::Europe::Paris;
        let t = at("2026-12-03T20:30:00+01:00", paris);
        for (lang, want) in [
            (Lang::En, "Thu 3 Dec 2026, 20:30 (Paris time)"),
            (Lang::Fr, "jeu. 3 déc. 2026, 20:30 (heure de Paris)"),
            (Lang::Es, "jue, 3 dic 2026, 20:30 (hora de París)"),
            (Lang::De, "Do., 3. Dez. 2026, 20:30 (Ortszeit Paris)"),
            (Lang::Tr, "3 Ara 2026 Per, 20:30 (Paris saati)"),
        ] {
            assert_eq!(full(lang, &t), want);
        }
        assert_eq!(date_long(Lang::Es, t.date()), "jueves, 3 de diciembre de 2026");
        assert_eq!(date_long(Lang::De, t.date()), "Donnerstag, 3. Dezember 2026");
        assert_eq!(date_long(Lang::Tr, t.date()), "3 Aralık 2026 Perşembe");
    }

    #[test]
    fn an_offset_the_zone_does_not_have_is_shown_as_written() {
        // New York's 11:00 read by a source configured for Paris: not moved to 17:00.
        let t = at("2026-12-03T11:00:00-05:00", chrono_tz::Europe::Paris);
        assert_eq!(full(Lang::En, &t), "Thu 3 Dec 2026, 11:00 (UTC−05:00)");
        let t = at("2026-12-03T11:00:00-05:00", chrono_tz::America::New_York);
        assert_eq!(full(Lang::En, &t), "Thu 3 Dec 2026, 11:00 (New York time)");
        // Summer time is the zone's own offset too.
        let t = at("2026-07-01T09:00:00+03:00", chrono_tz::Europe::Istanbul);
        assert_eq!(full(Lang::Tr, &t), "1 Tem 2026 Çar, 09:00 (İstanbul saati)");
        assert_eq!(full(Lang::Fr, &t), "mer. 1 juil. 2026, 09:00 (heure d’Istanbul)");
        let floating = at("2026-12-20T18:30:00", chrono_tz::Europe::Paris);
        assert_eq!(full(Lang::En, &floating), "Sun 20 Dec 2026, 18:30");
        assert_eq!(full(Lang::En, &at("2026-12-12", chrono_tz::UTC)), "Sat 12 Dec 2026");
    }

    #[test]
    fn spans_and_stamps() {
        let paris = chrono_tz::Europe::Paris;
        let a = at("2026-12-05T20:00:00+01:00", paris);
        let b = at("2026-12-05T23:00:00+01:00", paris);
        let c = at("2026-12-06T01:00:00+01:00", paris);
        assert_eq!(span(Lang::En, &a, Some(&b)), "Sat 5 Dec 2026, 20:00–23:00 (Paris time)");
        assert_eq!(
            span(Lang::En, &a, Some(&c)),
            "Sat 5 Dec 2026, 20:00 – Sun 6 Dec 2026, 01:00 (Paris time)"
        );
        assert_eq!(within_day(Lang::Fr, &a, Some(&b)), "20:00–23:00 (heure de Paris)");
        assert_eq!(span(Lang::En, &a, Some(&a)), full(Lang::En, &a), "an end not after");
        let days = (at("2026-12-12", paris), at("2026-12-14", paris));
        assert_eq!(
            span(Lang::De, &days.0, Some(&days.1)),
            "Sa., 12. Dez. 2026 – Mo., 14. Dez. 2026"
        );
        let stamp = instant("2026-11-30T12:00:00Z", paris).unwrap();
        assert_eq!(full(Lang::En, &stamp), "Mon 30 Nov 2026, 13:00 (Paris time)");
        assert_eq!(
            full(Lang::En, &instant("2026-11-30T12:00:00Z", Tz::UTC).unwrap()),
            "Mon 30 Nov 2026, 12:00 (UTC)"
        );
        assert!(event_time("soon", paris).is_none());
    }
}
