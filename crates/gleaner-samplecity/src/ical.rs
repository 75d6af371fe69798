//! The town hall's iCalendar agenda (RFC 5545): a `VTIMEZONE`, a weekly market with an
//! `RRULE`, an `EXDATE`, a `RECURRENCE-ID` override (moved to a later hour and another
//! place) and a cancelled instance, plus a single public council meeting.
//!
//! [`instances`] lists what a correct reader expands the feed to; [`render`] writes the
//! feed from the same data, so the two cannot disagree.

use chrono::{DateTime, Datelike, Duration, Utc, Weekday};
use chrono_tz::Tz;

use crate::events::{Status, local_at, shift_days};

/// One expanded calendar instance, as a correct reader sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instance {
    /// The UID of the series.
    pub uid: String,
    /// The `RECURRENCE-ID` (original start) for instances of a recurring series.
    pub recurrence_id: Option<DateTime<Tz>>,
    /// The title (`SUMMARY`).
    pub title: &'static str,
    /// Start.
    pub start: DateTime<Tz>,
    /// End.
    pub end: DateTime<Tz>,
    /// `LOCATION`.
    pub location: &'static str,
    /// Scheduled or cancelled.
    pub status: Status,
}

const MARKET: &str = "Marché des producteurs";
const MARKET_PLACE: &str = "Place de l'Hôtel de Ville, Sainte-Aube";
const MARKET_MOVED: &str = "Halle couverte, rue du Marché, Sainte-Aube";
const COUNCIL: &str = "Conseil municipal (séance publique)";
const COUNCIL_PLACE: &str = "Salle du conseil, Hôtel de Ville, Sainte-Aube";

struct Plan {
    /// Starts of the four weekly occurrences the RRULE generates.
    occurrences: Vec<DateTime<Tz>>,
    council: DateTime<Tz>,
}

fn plan(now: DateTime<Utc>, zone: Tz) -> Plan {
    // The first Saturday at least two days ahead, 08:00 local; weekly, four times.
    let mut first = local_at(now, zone, 2, 8, 0);
    while first.weekday() != Weekday::Sat {
        first = shift_days(first, 1);
    }
    let occurrences = (0..4).map(|k| shift_days(first, 7 * k)).collect();
    Plan { occurrences, council: local_at(now, zone, 9, 18, 30) }
}

fn uid(kind: &str) -> String {
    format!("{kind}@mairie-sainte-aube.example")
}

/// The instances a correct reader expands the agenda to (the second market day is
/// excluded by `EXDATE`; the third is moved to 10:00 in the covered hall; the fourth is
/// cancelled).
pub fn instances(now: DateTime<Utc>, zone: Tz) -> Vec<Instance> {
    let p = plan(now, zone);
    let mut out = Vec::new();
    for (k, start) in p.occurrences.iter().enumerate() {
        let (start_at, location, status) = match k {
            1 => continue,
            2 => (*start + Duration::hours(2), MARKET_MOVED, Status::Scheduled),
            3 => (*start, MARKET_PLACE, Status::Cancelled),
            _ => (*start, MARKET_PLACE, Status::Scheduled),
        };
        out.push(Instance {
            uid: uid("marche-producteurs"),
            recurrence_id: Some(*start),
            title: MARKET,
            start: start_at,
            end: start_at + Duration::hours(4),
            location,
            status,
        });
    }
    out.push(Instance {
        uid: uid("conseil-municipal"),
        recurrence_id: None,
        title: COUNCIL,
        start: p.council,
        end: p.council + Duration::hours(2),
        location: COUNCIL_PLACE,
        status: Status::Scheduled,
    });
    out
}

fn local(t: DateTime<Tz>) -> String {
    t.format("%Y%m%dT%H%M%S").to_string()
}

/// Escapes a TEXT value (RFC 5545 §3.3.11).
fn text(s: &str) -> String {
    s.replace('\\', "\\\\").replace(';', "\\;").replace(',', "\\,").replace('\n', "\\n")
}

/// Folds a content line at 75 octets, never inside a UTF-8 sequence (RFC 5545 §3.1).
fn fold(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        let n = c.len_utf8();
        if width + n > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += n;
    }
    out.push_str("\r\n");
}

/// The `VTIMEZONE` of Europe/Paris (EU rules since 1996).
const PARIS_VTIMEZONE: &str = "BEGIN:VTIMEZONE\nTZID:Europe/Paris\nBEGIN:DAYLIGHT\n\
TZOFFSETFROM:+0100\nTZOFFSETTO:+0200\nTZNAME:CEST\nDTSTART:19700329T020000\n\
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU\nEND:DAYLIGHT\nBEGIN:STANDARD\nTZOFFSETFROM:+0200\n\
TZOFFSETTO:+0100\nTZNAME:CET\nDTSTART:19701025T030000\nRRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU\n\
END:STANDARD\nEND:VTIMEZONE";

/// The agenda as `text/calendar` (CRLF line ends, folded lines).
pub fn render(now: DateTime<Utc>, zone: Tz, origin: &str) -> String {
    let p = plan(now, zone);
    let tz = zone.name();
    let stamp = now.format("%Y%m%dT%H%M%SZ").to_string();
    let first = p.occurrences[0];
    let mut lines: Vec<String> = vec![
        "BEGIN:VCALENDAR".into(),
        "VERSION:2.0".into(),
        "PRODID:-//Ville de Sainte-Aube//Agenda municipal//FR".into(),
        "CALSCALE:GREGORIAN".into(),
        "X-WR-CALNAME:Agenda de la ville de Sainte-Aube".into(),
        format!("X-WR-TIMEZONE:{tz}"),
    ];
    lines.extend(PARIS_VTIMEZONE.lines().map(str::to_owned));
    let event = |lines: &mut Vec<String>, body: Vec<String>| {
        lines.push("BEGIN:VEVENT".into());
        lines.extend(body);
        lines.push("END:VEVENT".into());
    };
    let description = text(
        "Producteurs locaux : fromages de Chaource, miel, légumes de saison, cidre du Pays d'Othe. \
         Parking gratuit place Saint-Pierre; accès bus lignes 1, 4 et 6.",
    );
    event(
        &mut lines,
        vec![
            format!("UID:{}", uid("marche-producteurs")),
            format!("DTSTAMP:{stamp}"),
            format!("DTSTART;TZID={tz}:{}", local(first)),
            format!("DTEND;TZID={tz}:{}", local(first + Duration::hours(4))),
            "RRULE:FREQ=WEEKLY;COUNT=4".into(),
            format!("EXDATE;TZID={tz}:{}", local(p.occurrences[1])),
            format!("SUMMARY:{}", text(MARKET)),
            format!("LOCATION:{}", text(MARKET_PLACE)),
            format!("DESCRIPTION:{description}"),
            format!("URL:{origin}/agenda.ics"),
            "STATUS:CONFIRMED".into(),
        ],
    );
    let moved = p.occurrences[2];
    event(
        &mut lines,
        vec![
            format!("UID:{}", uid("marche-producteurs")),
            format!("DTSTAMP:{stamp}"),
            format!("RECURRENCE-ID;TZID={tz}:{}", local(moved)),
            format!("DTSTART;TZID={tz}:{}", local(moved + Duration::hours(2))),
            format!("DTEND;TZID={tz}:{}", local(moved + Duration::hours(6))),
            format!("SUMMARY:{}", text(MARKET)),
            format!("LOCATION:{}", text(MARKET_MOVED)),
            "DESCRIPTION:Exceptionnellement sous la halle couverte\\, à partir de 10 h.".into(),
            "SEQUENCE:1".into(),
            "STATUS:CONFIRMED".into(),
        ],
    );
    let cancelled = p.occurrences[3];
    event(
        &mut lines,
        vec![
            format!("UID:{}", uid("marche-producteurs")),
            format!("DTSTAMP:{stamp}"),
            format!("RECURRENCE-ID;TZID={tz}:{}", local(cancelled)),
            format!("DTSTART;TZID={tz}:{}", local(cancelled)),
            format!("DTEND;TZID={tz}:{}", local(cancelled + Duration::hours(4))),
            format!("SUMMARY:{}", text(MARKET)),
            format!("LOCATION:{}", text(MARKET_PLACE)),
            "SEQUENCE:1".into(),
            "STATUS:CANCELLED".into(),
        ],
    );
    event(
        &mut lines,
        vec![
            format!("UID:{}", uid("conseil-municipal")),
            format!("DTSTAMP:{stamp}"),
            format!("DTSTART;TZID={tz}:{}", local(p.council)),
            format!("DTEND;TZID={tz}:{}", local(p.council + Duration::hours(2))),
            format!("SUMMARY:{}", text(COUNCIL)),
            format!("LOCATION:{}", text(COUNCIL_PLACE)),
            "DESCRIPTION:Ordre du jour : budget primitif\\, rénovation de la médiathèque\\, \
             questions diverses. Entrée libre dans la limite des places disponibles."
                .into(),
            "CATEGORIES:Vie municipale".into(),
            "STATUS:CONFIRMED".into(),
        ],
    );
    lines.push("END:VCALENDAR".into());
    let mut out = String::new();
    for line in &lines {
        fold(line, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc5545_lines_fold_at_75_octets_between_characters() {
        let mut out = String::new();
        fold(&format!("DESCRIPTION:{}", "é".repeat(60)), &mut out);
        for line in out.split("\r\n") {
            assert!(line.len() <= 75, "{line:?}");
        }
        let unfolded = out.replace("\r\n ", "");
        assert_eq!(unfolded.trim_end(), format!("DESCRIPTION:{}", "é".repeat(60)));
    }
}
