//! Event times: date-only, floating (no zone known) or fixed to an offset, and the lenient
//! parser that reads the date-time strings found in real pages.
//!
//! Zone policy lives in [`crate::normalise`]; this module only parses and formats.

use chrono::{DateTime, FixedOffset, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;

/// When an event starts or ends, as precisely as the source says.
///
/// A date-only value stays a date (SPEC §2); a local time with no zone stays floating until
/// a default zone is applied; a time with an offset keeps that offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventTime {
    /// A calendar date with no time of day (all-day or date-only events).
    Date(NaiveDate),
    /// A local date-time whose zone the source does not give.
    Floating(NaiveDateTime),
    /// A date-time with a known UTC offset.
    Fixed(DateTime<FixedOffset>),
}

impl EventTime {
    /// ISO 8601 text: `2024-05-01`, `2024-05-01T20:00:00` or `2024-05-01T20:00:00+02:00`.
    pub fn to_iso(&self) -> String {
        match self {
            EventTime::Date(d) => d.format("%Y-%m-%d").to_string(),
            EventTime::Floating(dt) => dt.format("%Y-%m-%dT%H:%M:%S").to_string(),
            EventTime::Fixed(dt) => dt.format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        }
    }

    /// The calendar date the event falls on, as written by the source.
    pub fn date(&self) -> NaiveDate {
        match self {
            EventTime::Date(d) => *d,
            EventTime::Floating(dt) => dt.date(),
            EventTime::Fixed(dt) => dt.date_naive(),
        }
    }

    /// Pins a floating time to `zone`; dates and fixed times are returned unchanged.
    ///
    /// An ambiguous local time (the repeated hour when clocks go back) takes the earlier
    /// instant; a time inside a gap (clocks go forward) is moved forward by the gap.
    pub fn with_default_zone(self, zone: Tz) -> EventTime {
        let EventTime::Floating(local) = self else { return self };
        let resolved = match zone.from_local_datetime(&local) {
            LocalResult::Single(dt) => Some(dt),
            LocalResult::Ambiguous(early, _) => Some(early),
            LocalResult::None => (1..=3)
                .map(|h| local + chrono::Duration::minutes(30 * h))
                .find_map(|t| zone.from_local_datetime(&t).earliest()),
        };
        match resolved {
            Some(dt) => EventTime::Fixed(dt.fixed_offset()),
            None => self,
        }
    }
}

/// Parses a date or date-time leniently.
///
/// Accepts ISO 8601 and its common breakage: one-digit months and days (`2019-9-13`), a
/// space instead of `T`, missing seconds, fractional seconds, offsets with or without a
/// colon (`-0400`), `Z`, and the EventON shape `2019-9-13T10-10-00-00` (hour written twice,
/// read as 10:00 local time). Returns `None` for anything else.
pub fn parse_event_time(input: &str) -> Option<EventTime> {
    let s = input.trim();
    // `2026-03-15 19:00:00 UTC` (a plugin's `strftime`): the offset is zero.
    if let Some(head) = strip_suffix_ignore_case(s, " UTC")
        .or_else(|| strip_suffix_ignore_case(s, " GMT"))
        .filter(|h| h.contains(':') && !h.ends_with(['Z', 'z']) && !h.contains('+'))
    {
        return parse_event_time(&format!("{}Z", head.trim_end()));
    }
    // `Sun, 15 Mar 2026 19:00:00 +0100`: RFC 2822, as feeds write dates and some pages
    // copy them into `startDate`.
    if s.starts_with(|c: char| c.is_ascii_alphabetic())
        && let Ok(t) = chrono::DateTime::parse_from_rfc2822(s)
    {
        return Some(EventTime::Fixed(t));
    }
    // A zone written after the time: `[Europe/Paris]` (RFC 9557), ` Europe/Paris`, ` CET`,
    // ` TSİ`, ` heure de Paris`. An offset written beside it wins.
    if let Some((head, zone)) = split_zone(s) {
        return parse_event_time(head).map(|t| t.with_default_zone(zone));
    }
    if s.is_empty() || !s.is_ascii() {
        return None;
    }
    let (date_part, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some(s[i + 1..].trim())),
        None => (s, None),
    };
    let date = parse_date(date_part)?;
    let Some(rest) = rest.filter(|r| !r.is_empty()) else {
        return Some(EventTime::Date(date));
    };
    let (time, offset) = parse_time_and_offset(rest)?;
    let local = date.and_time(time);
    Some(match offset {
        Some(off) => EventTime::Fixed(off.from_local_datetime(&local).single()?),
        None => EventTime::Floating(local),
    })
}

fn strip_suffix_ignore_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(cut) && s[cut..].eq_ignore_ascii_case(suffix)).then(|| &s[..cut])
}

/// A time of day alone (`21:30`, `9:30:15`), as some pages write an `endDate` that ends
/// the same day as the start.
pub fn parse_time_of_day(input: &str) -> Option<NaiveTime> {
    let s = input.trim();
    if !s.contains(':') || s.contains(['-', '+', 'T', ' ']) {
        return None;
    }
    match parse_time_and_offset(s)? {
        (t, None) => Some(t),
        _ => None,
    }
}

/// Splits a trailing zone name or zone words off a date-time.
fn split_zone(s: &str) -> Option<(&str, Tz)> {
    if let Some(inner) = s.strip_suffix(']')
        && let Some((head, zone)) = inner.rsplit_once('[')
    {
        return Some((head.trim(), crate::zone::stated_zone(zone)?));
    }
    // Up to three words from the end ("heure de Paris"), after a time of day.
    let mut cut = s.len();
    for _ in 0..3 {
        cut = s[..cut].trim_end().rfind(' ')?;
        let (head, tail) = (s[..cut].trim_end(), &s[cut..]);
        if head.contains(':')
            && let Some(tz) = crate::zone::stated_zone(tail)
        {
            return Some((head, tz));
        }
    }
    None
}

fn parse_date(s: &str) -> Option<NaiveDate> {
    // ISO 8601 basic format (`20260418`, as hCalendar's `abbr title` and iCalendar write it).
    if s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit()) {
        return NaiveDate::from_ymd_opt(
            s[..4].parse().ok()?,
            s[4..6].parse().ok()?,
            s[6..].parse().ok()?,
        );
    }
    if s.contains(['/', '.']) {
        return parse_written_date(s);
    }
    let mut it = s.split('-');
    let y: i32 = num(it.next()?, 4, 4)?;
    let m: u32 = num(it.next()?, 1, 2)?;
    let d: u32 = num(it.next()?, 1, 2)?;
    if it.next().is_some() {
        return None;
    }
    NaiveDate::from_ymd_opt(y, m, d)
}

/// A date written with slashes or dots, as plugins put it into `startDate`: `2026/03/15`,
/// `15.03.2026` (dots are day-first wherever they are used), and `15/03/2026` or
/// `03/15/2026` only when one of the two numbers cannot be a month. `03/04/2026` is
/// either of two days, so it gives none: a wrong date is worse than none.
fn parse_written_date(s: &str) -> Option<NaiveDate> {
    let sep = if s.contains('/') { '/' } else { '.' };
    let parts: Vec<&str> = s.split(sep).collect();
    let [a, b, c] = parts[..] else { return None };
    if a.len() == 4 {
        return NaiveDate::from_ymd_opt(num(a, 4, 4)?, num(b, 1, 2)?, num(c, 1, 2)?);
    }
    let (x, y, year): (u32, u32, i32) = (num(a, 1, 2)?, num(b, 1, 2)?, num(c, 4, 4)?);
    let (day, month) = if sep == '.' || (x > 12 && y <= 12) || x == y {
        (x, y)
    } else if y > 12 && x <= 12 {
        (y, x)
    } else {
        return None;
    };
    NaiveDate::from_ymd_opt(year, month, day)
}

fn num<T: std::str::FromStr>(s: &str, min: usize, max: usize) -> Option<T> {
    if s.len() < min || s.len() > max || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_time_and_offset(s: &str) -> Option<(NaiveTime, Option<FixedOffset>)> {
    // EventON writes `10-10-00-00` for 10:00 (hour, hour again, minutes, zero).
    let dashed: Vec<&str> = s.split('-').collect();
    if dashed.len() == 4 && dashed.iter().all(|p| num::<u32>(p, 1, 2).is_some()) {
        let h: u32 = dashed[0].parse().ok()?;
        let m: u32 = dashed[2].parse().ok()?;
        if dashed[0] == dashed[1] {
            return Some((NaiveTime::from_hms_opt(h, m, 0)?, None));
        }
    }
    // Split the clock from the zone designator.
    let zone_at = s.find(['Z', 'z', '+', '-']);
    let (clock, zone) = match zone_at {
        Some(i) => (s[..i].trim(), Some(s[i..].trim())),
        None => (s, None),
    };
    let (clock, _frac) = match clock.split_once(['.', ',']) {
        Some((c, f)) if f.bytes().all(|b| b.is_ascii_digit()) => (c, f),
        Some(_) => return None,
        None => (clock, ""),
    };
    // Basic format: `2000`, `203000`.
    let basic: String;
    let clock = if !clock.contains(':')
        && matches!(clock.len(), 4 | 6)
        && clock.bytes().all(|b| b.is_ascii_digit())
    {
        basic = clock
            .as_bytes()
            .chunks(2)
            .map(|c| String::from_utf8_lossy(c))
            .collect::<Vec<_>>()
            .join(":");
        basic.as_str()
    } else {
        clock
    };
    let mut parts = clock.split(':');
    let h: u32 = num(parts.next()?, 1, 2)?;
    let m: u32 = match parts.next() {
        Some(p) => num(p, 2, 2)?,
        None => 0,
    };
    let sec: u32 = match parts.next() {
        Some(p) => num(p, 2, 2)?,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    let time = if h == 24 && m == 0 && sec == 0 {
        NaiveTime::from_hms_opt(23, 59, 59)?
    } else {
        NaiveTime::from_hms_opt(h, m, sec.min(59))?
    };
    let offset = match zone {
        None => None,
        Some(z) => Some(parse_offset(z)?),
    };
    Some((time, offset))
}

fn parse_offset(z: &str) -> Option<FixedOffset> {
    if z.eq_ignore_ascii_case("z") {
        return FixedOffset::east_opt(0);
    }
    let sign = match z.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    // `+1:00`: an hour of one digit before the colon, as EventON writes its offsets.
    if let Some((h, m)) = z[1..].split_once(':') {
        let (h, m): (i32, i32) = (num(h, 1, 2)?, num(m, 2, 2)?);
        if h > 18 || m > 59 {
            return None;
        }
        return FixedOffset::east_opt(sign * (h * 3600 + m * 60));
    }
    let digits = &z[1..];
    let (h, m): (i32, i32) = match digits.len() {
        1 | 2 => (num(digits, 1, 2)?, 0),
        4 => (num(&digits[..2], 2, 2)?, num(&digits[2..], 2, 2)?),
        _ => return None,
    };
    if h > 18 || m > 59 {
        return None;
    }
    FixedOffset::east_opt(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(s: &str) -> Option<String> {
        parse_event_time(s).map(|t| t.to_iso())
    }

    #[test]
    fn basic_format_as_hcalendar_titles_write_it() {
        assert_eq!(iso("20260418T2000").as_deref(), Some("2026-04-18T20:00:00"));
        assert_eq!(iso("20260418T203015").as_deref(), Some("2026-04-18T20:30:15"));
        assert_eq!(iso("20260418T2000+0200").as_deref(), Some("2026-04-18T20:00:00+02:00"));
        assert_eq!(iso("20260418").as_deref(), Some("2026-04-18"));
        assert_eq!(iso("20260418T20").as_deref(), Some("2026-04-18T20:00:00"));
        assert_eq!(iso("2026041T2000"), None);
    }

    #[test]
    fn lenient_shapes() {
        let cases = [
            ("2015-06-13", Some("2015-06-13")),
            ("2016-04-21T20:00", Some("2016-04-21T20:00:00")),
            ("2015-10-31T19:30:00-0400", Some("2015-10-31T19:30:00-04:00")),
            ("2020-07-24T16:00Z", Some("2020-07-24T16:00:00+00:00")),
            ("2025-07-21T19:00-05:00", Some("2025-07-21T19:00:00-05:00")),
            ("2019-9-13T10:00", Some("2019-09-13T10:00:00")),
            ("2019-9-13T10-10-00-00", Some("2019-09-13T10:00:00")),
            ("2019-9-13T23-23-50-00", Some("2019-09-13T23:50:00")),
            ("2026-3-12T19:00+0:00", Some("2026-03-12T19:00:00+00:00")),
            ("2026-4-1T19:30+1:00", Some("2026-04-01T19:30:00+01:00")),
            ("2026-4-1T19:30-5:00", Some("2026-04-01T19:30:00-05:00")),
            ("2026-4-1T19:30+1:0", None),
            ("2014-04-12 19:30:00.000+01:00", Some("2014-04-12T19:30:00+01:00")),
            ("2026-07-01T21:00 TSİ", Some("2026-07-01T21:00:00+03:00")),
            ("2026-01-10T20:30 CET", Some("2026-01-10T20:30:00+01:00")),
            ("2026-07-10T20:30 CET", Some("2026-07-10T20:30:00+02:00")),
            ("2026-07-10T20:30 heure de Paris", Some("2026-07-10T20:30:00+02:00")),
            ("2026-07-10T20:30[Europe/Madrid]", Some("2026-07-10T20:30:00+02:00")),
            ("2026-07-10T20:30+01:00 CET", Some("2026-07-10T20:30:00+01:00")),
            ("2026-07-10 soon CET", None),
            ("2014-13-12", None),
            ("15/03/2026 21:00", Some("2026-03-15T21:00:00")),
            ("03/15/2026", Some("2026-03-15")),
            ("2026/03/15", Some("2026-03-15")),
            ("21.03.2026", Some("2026-03-21")),
            ("04/04/2026", Some("2026-04-04")),
            ("03/04/2026", None),
            ("13/13/2026", None),
            ("1.2", None),
            ("2026-03-15 19:00:00 UTC", Some("2026-03-15T19:00:00+00:00")),
            ("2026-03-15T19:00 gmt", Some("2026-03-15T19:00:00+00:00")),
            ("Sun, 15 Mar 2026 19:00:00 +0100", Some("2026-03-15T19:00:00+01:00")),
            ("Sun, 15 Mar 2026", None),
            ("tomorrow", None),
            ("", None),
        ];
        for (input, want) in cases {
            assert_eq!(iso(input).as_deref(), want, "input `{input}`");
        }
    }

    #[test]
    fn default_zone_handles_dst() {
        let zone: Tz = "Europe/Paris".parse().unwrap();
        let t = parse_event_time("2026-03-29T02:30").unwrap().with_default_zone(zone);
        assert_eq!(t.to_iso(), "2026-03-29T03:00:00+02:00");
        let t = parse_event_time("2026-10-25T02:30").unwrap().with_default_zone(zone);
        assert_eq!(t.to_iso(), "2026-10-25T02:30:00+02:00");
        let t = parse_event_time("2026-10-25").unwrap().with_default_zone(zone);
        assert_eq!(t.to_iso(), "2026-10-25");
    }
}
