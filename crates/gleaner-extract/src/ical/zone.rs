//! Time zones named by a calendar: IANA names, Mozilla and Outlook spellings, and the
//! `VTIMEZONE` blocks that stand for zones with no usable name.
//!
//! A `TZID` is resolved, in order: as an IANA name; as the IANA name at the end of a path
//! (`/mozilla.org/20050126_1/Europe/Berlin`); as a Windows zone name (Outlook writes
//! `W. Europe Standard Time`), from a short CLDR `windowsZones` table; from the offsets of
//! the calendar's own `VTIMEZONE` block (a standard/daylight pair is read as the common IANA
//! zone with those offsets, a lone offset as a fixed one). What is left is reported.

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDateTime, TimeZone};
use chrono_tz::Tz;

/// A zone a calendar time can be read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zone {
    /// An IANA zone, with its daylight-saving rules.
    Iana(Tz),
    /// A fixed offset (UTC, `Z` times, or a `VTIMEZONE` without rules we recognise).
    Fixed(FixedOffset),
}

impl Zone {
    /// UTC.
    pub fn utc() -> Zone {
        Zone::Fixed(FixedOffset::east_opt(0).expect("zero offset"))
    }

    /// A local wall-clock time in this zone as an instant. An ambiguous time (clocks go
    /// back) takes the earlier instant; a time in a gap (clocks go forward) moves forward
    /// by the gap, as RFC 5545 §3.3.5 asks.
    pub fn resolve(self, local: NaiveDateTime) -> Option<DateTime<FixedOffset>> {
        match self {
            Zone::Fixed(off) => off.from_local_datetime(&local).single(),
            Zone::Iana(tz) => match tz.from_local_datetime(&local) {
                LocalResult::Single(dt) => Some(dt.fixed_offset()),
                LocalResult::Ambiguous(early, _) => Some(early.fixed_offset()),
                LocalResult::None => (1..=4)
                    .map(|h| local + chrono::Duration::minutes(30 * h))
                    .find_map(|t| tz.from_local_datetime(&t).earliest())
                    .map(|dt| dt.fixed_offset()),
            },
        }
    }

    /// The wall-clock time in this zone of an instant.
    pub fn local_of(self, instant: DateTime<FixedOffset>) -> NaiveDateTime {
        match self {
            Zone::Fixed(off) => instant.with_timezone(&off).naive_local(),
            Zone::Iana(tz) => instant.with_timezone(&tz).naive_local(),
        }
    }
}

/// The country of an IANA zone whose country writes its prices with a bare `$` (ISO
/// 3166-1 alpha-2), for the dollars and pesos of a calendar's `Cost $14`:
/// `Australia/Sydney` is AU, `America/Toronto` CA, `America/Santiago` CL. `None` for
/// another zone, a fixed offset, or a zone of several such countries' names we do not
/// know.
pub fn dollar_country(zone: Zone) -> Option<&'static str> {
    const CA: [&str; 14] = [
        "Toronto",
        "Vancouver",
        "Edmonton",
        "Winnipeg",
        "Halifax",
        "St_Johns",
        "Regina",
        "Moncton",
        "Whitehorse",
        "Yellowknife",
        "Iqaluit",
        "Glace_Bay",
        "Goose_Bay",
        "Montreal",
    ];
    const US: [&str; 10] = [
        "New_York",
        "Chicago",
        "Denver",
        "Los_Angeles",
        "Phoenix",
        "Anchorage",
        "Detroit",
        "Boise",
        "Juneau",
        "Indiana/Indianapolis",
    ];
    const MX: [&str; 8] = [
        "Mexico_City",
        "Cancun",
        "Merida",
        "Monterrey",
        "Chihuahua",
        "Mazatlan",
        "Hermosillo",
        "Tijuana",
    ];
    let Zone::Iana(tz) = zone else { return None };
    let name = tz.name();
    if name.starts_with("Australia/") {
        return Some("AU");
    }
    if name.starts_with("America/Argentina/") || name == "America/Buenos_Aires" {
        return Some("AR");
    }
    if let Some(city) = name.strip_prefix("America/") {
        return Some(match city {
            c if CA.contains(&c) => "CA",
            c if US.contains(&c) => "US",
            c if MX.contains(&c) => "MX",
            "Santiago" | "Punta_Arenas" => "CL",
            "Bogota" => "CO",
            "Montevideo" => "UY",
            _ => return None,
        });
    }
    match name {
        "Pacific/Auckland" | "Pacific/Chatham" | "NZ" => Some("NZ"),
        "Pacific/Honolulu" => Some("US"),
        "Asia/Singapore" => Some("SG"),
        "Asia/Hong_Kong" => Some("HK"),
        _ => None,
    }
}

/// Reads a `TZID` that names a zone by itself (IANA, a path ending in one, or Windows).
pub fn by_name(tzid: &str) -> Option<Zone> {
    let name = tzid.trim().trim_matches('"').trim();
    if name.eq_ignore_ascii_case("utc") || name.eq_ignore_ascii_case("gmt") || name == "Z" {
        return Some(Zone::utc());
    }
    if let Ok(tz) = name.parse::<Tz>() {
        return Some(Zone::Iana(tz));
    }
    // `/mozilla.org/20050126_1/Europe/Berlin`, `/softwarestudio.org/Olson_20011030_5/America/New_York`.
    let segments: Vec<&str> = name.split('/').filter(|s| !s.is_empty()).collect();
    for take in [3, 2] {
        if segments.len() >= take {
            let tail = segments[segments.len() - take..].join("/");
            if let Ok(tz) = tail.parse::<Tz>() {
                return Some(Zone::Iana(tz));
            }
        }
    }
    windows(name).and_then(|n| n.parse::<Tz>().ok()).map(Zone::Iana)
}

/// The IANA zone of a Windows zone name (CLDR `windowsZones.xml`, territory `001`), for
/// the zones an event calendar is likely to use.
fn windows(name: &str) -> Option<&'static str> {
    let n = name.trim().trim_end_matches(" Time").trim();
    let n = n.strip_suffix(" Standard").or_else(|| n.strip_suffix(" Daylight")).unwrap_or(n);
    Some(match n {
        "W. Europe" => "Europe/Berlin",
        "Romance" => "Europe/Paris",
        "Central Europe" => "Europe/Budapest",
        "Central European" => "Europe/Warsaw",
        "GMT" => "Europe/London",
        "Greenwich" => "Atlantic/Reykjavik",
        "E. Europe" => "Europe/Chisinau",
        "FLE" => "Europe/Kiev",
        "GTB" => "Europe/Bucharest",
        "Turkey" => "Europe/Istanbul",
        "Russian" => "Europe/Moscow",
        "Israel" => "Asia/Jerusalem",
        "Eastern" => "America/New_York",
        "Central" => "America/Chicago",
        "Mountain" => "America/Denver",
        "US Mountain" => "America/Phoenix",
        "Pacific" => "America/Los_Angeles",
        "Alaskan" => "America/Anchorage",
        "Hawaiian" => "Pacific/Honolulu",
        "Atlantic" => "America/Halifax",
        "E. South America" => "America/Sao_Paulo",
        "Tokyo" => "Asia/Tokyo",
        "China" => "Asia/Shanghai",
        "India" => "Asia/Kolkata",
        "AUS Eastern" => "Australia/Sydney",
        "New Zealand" => "Pacific/Auckland",
        "UTC" | "Coordinated Universal" => "UTC",
        _ => return None,
    })
}

/// A zone from the offsets of a `VTIMEZONE` block: `standard` and `daylight` are the
/// `TZOFFSETTO` of its most recent `STANDARD` and `DAYLIGHT` parts, in seconds, and
/// `southern` says its daylight time begins later in the year than its standard time (as
/// south of the equator: October to April).
///
/// A pair is read as the most common IANA zone with those offsets on that side of the
/// equator (the European, North American, Australian, New Zealand and South American
/// rules); a lone offset, or a pair we do not know, as the standard offset.
pub fn from_offsets(standard: Option<i32>, daylight: Option<i32>, southern: bool) -> Option<Zone> {
    let known = match (standard, daylight, southern) {
        (Some(0), Some(3600), false) => Some("Europe/London"),
        (Some(3600), Some(7200), false) => Some("Europe/Berlin"),
        (Some(7200), Some(10800), false) => Some("Europe/Helsinki"),
        (Some(-12600), Some(-9000), false) => Some("America/St_Johns"),
        (Some(-14400), Some(-10800), false) => Some("America/Halifax"),
        (Some(-18000), Some(-14400), false) => Some("America/New_York"),
        (Some(-21600), Some(-18000), false) => Some("America/Chicago"),
        (Some(-25200), Some(-21600), false) => Some("America/Denver"),
        (Some(-28800), Some(-25200), false) => Some("America/Los_Angeles"),
        (Some(-32400), Some(-28800), false) => Some("America/Anchorage"),
        (Some(34200), Some(37800), true) => Some("Australia/Adelaide"),
        (Some(36000), Some(39600), true) => Some("Australia/Sydney"),
        (Some(43200), Some(46800), true) => Some("Pacific/Auckland"),
        (Some(-10800), Some(-7200), true) => Some("America/Sao_Paulo"),
        (Some(-14400), Some(-10800), true) => Some("America/Santiago"),
        _ => None,
    };
    if let Some(tz) = known.and_then(|n| n.parse::<Tz>().ok()) {
        return Some(Zone::Iana(tz));
    }
    standard.or(daylight).and_then(FixedOffset::east_opt).map(Zone::Fixed)
}

/// Reads a UTC offset as written in `TZOFFSETTO` (`+0100`, `-053000`), in seconds.
pub fn parse_offset(s: &str) -> Option<i32> {
    let s = s.trim();
    let (sign, digits) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => return None,
    };
    if !(digits.len() == 4 || digits.len() == 6) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = digits[2..4].parse().ok()?;
    let sec: i32 = if digits.len() == 6 { digits[4..].parse().ok()? } else { 0 };
    if h > 18 || m > 59 || sec > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60 + sec))
}

#[cfg(test)]
mod tests {
    #[test]
    fn zones_of_dollar_countries() {
        let country = |n: &str| super::by_name(n).and_then(super::dollar_country);
        assert_eq!(country("Australia/Perth"), Some("AU"));
        assert_eq!(country("America/Vancouver"), Some("CA"));
        assert_eq!(country("America/Argentina/Cordoba"), Some("AR"));
        assert_eq!(country("Pacific/Auckland"), Some("NZ"));
        assert_eq!(country("Europe/Berlin"), None);
        assert_eq!(country("UTC"), None);
        assert_eq!(country("America/Lima"), None);
    }

    use super::*;

    #[test]
    fn names() {
        let berlin = Some(Zone::Iana(chrono_tz::Europe::Berlin));
        assert_eq!(by_name("Europe/Berlin"), berlin);
        assert_eq!(by_name("/mozilla.org/20050126_1/Europe/Berlin"), berlin);
        assert_eq!(by_name("W. Europe Standard Time"), berlin);
        assert_eq!(by_name("\"Europe/Berlin\""), berlin);
        assert_eq!(by_name("UTC"), Some(Zone::utc()));
        assert_eq!(by_name("Customized Time Zone"), None);
        assert_eq!(from_offsets(Some(3600), Some(7200), false), berlin);
        assert_eq!(
            from_offsets(Some(19800), None, false),
            Some(Zone::Fixed(FixedOffset::east_opt(19800).unwrap()))
        );
        assert_eq!(parse_offset("-0500"), Some(-18000));
    }

    #[test]
    fn the_side_of_the_equator_picks_the_zone_of_an_offset_pair() {
        // Daylight from October: the Australian east coast, New Zealand, Chile.
        let zone = |s, d, south| from_offsets(Some(s), Some(d), south);
        assert_eq!(zone(36000, 39600, true), Some(Zone::Iana(chrono_tz::Australia::Sydney)));
        assert_eq!(zone(43200, 46800, true), Some(Zone::Iana(chrono_tz::Pacific::Auckland)));
        assert_eq!(zone(-14400, -10800, true), Some(Zone::Iana(chrono_tz::America::Santiago)));
        assert_eq!(zone(-14400, -10800, false), Some(Zone::Iana(chrono_tz::America::Halifax)));
        // A northern pair with southern months is no zone we know: its standard offset.
        assert_eq!(zone(3600, 7200, true), Some(Zone::Fixed(FixedOffset::east_opt(3600).unwrap())));
        assert_eq!(parse_offset("0500"), None);
    }
}
