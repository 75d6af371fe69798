//! `Request-rate` and `Visit-time`: the two pacing lines of the 1996 "extended standard
//! for robot exclusion" (Sean Conner) that some sites still write. Neither is in
//! RFC 9309, so gleaner honours them only where they make it slower:
//!
//! - `Request-rate: n/T` (`T` = `Ns`, `Nm`, `Nh`, a bare number of seconds, or `Nd`),
//!   optionally followed by a UTC window `HHMM-HHMM`: at most `n` requests per `T`, so
//!   a gap of at least `T / n` between starts. The gap of every such line of the
//!   selected groups is a floor, window or not (the largest wins: only ever slower);
//! - `Visit-time: HHMM-HHMM` (UTC): requests start only inside the window. A windowed
//!   `Request-rate` is read the same way: its window is a time the site asks to be
//!   visited in. When a file states several windows, a request may start inside any of
//!   them; outside them all it waits until the next one opens. A window may wrap past
//!   midnight (`2200-0600`); its end is exclusive (`0800-1700` admits 16:59:59).
//!
//! A malformed value is ignored, as unknown lines are (RFC 9309 §2.2). Everything here
//! is pure; `now` is always an argument.

use std::fmt;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, NaiveTime, Timelike, Utc};

/// A daily window `[start, end)` in UTC, as `HHMM-HHMM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct UtcWindow {
    /// First minute inside the window.
    pub start: NaiveTime,
    /// First minute after the window (wraps past midnight when not after `start`).
    pub end: NaiveTime,
}

impl UtcWindow {
    /// Parses `HHMM-HHMM` (also `HH:MM-HH:MM`, spaces around the dash allowed). `None`
    /// for anything else, and for an empty window (`0800-0800`).
    pub fn parse(value: &str) -> Option<UtcWindow> {
        let (start, end) = value.trim().split_once('-')?;
        let (start, end) = (hhmm(start)?, hhmm(end)?);
        (start != end).then_some(UtcWindow { start, end })
    }

    /// True when the UTC time of day `time` is inside the window.
    pub fn contains(&self, time: NaiveTime) -> bool {
        if self.start < self.end {
            time >= self.start && time < self.end
        } else {
            time >= self.start || time < self.end
        }
    }

    /// The first instant at or after `t` at which the window is open.
    pub fn next_open(&self, t: SystemTime) -> SystemTime {
        let utc = DateTime::<Utc>::from(t.min(crate::budget::far_future()));
        if self.contains(utc.time()) {
            return t;
        }
        let today = utc.date_naive().and_time(self.start).and_utc();
        let opens = if today > utc { today } else { today + chrono::Duration::days(1) };
        SystemTime::from(opens)
    }
}

impl fmt::Display for UtcWindow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02}{:02}-{:02}{:02} UTC",
            self.start.hour(),
            self.start.minute(),
            self.end.hour(),
            self.end.minute()
        )
    }
}

/// `HHMM` or `HH:MM`; `2400` is not a time.
fn hhmm(value: &str) -> Option<NaiveTime> {
    let digits: String = value.trim().chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (h, m) = (digits[..2].parse().ok()?, digits[2..].parse().ok()?);
    NaiveTime::from_hms_opt(h, m, 0)
}

/// One `Request-rate` line: at most `requests` per `per`, optionally only in a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestRate {
    /// Requests allowed per period (at least 1).
    pub requests: u32,
    /// The period.
    pub per: Duration,
    /// The UTC window the line names, if any.
    pub window: Option<UtcWindow>,
    /// The line's 1-based number, for `explain` and the audit log.
    pub line: usize,
}

impl RequestRate {
    /// Parses a `Request-rate` value (`1/10s`, `3/1m 0800-1700`, `100/1h`, `1/5`).
    /// `None` when malformed or when it asks for zero requests.
    pub fn parse(value: &str, line: usize) -> Option<RequestRate> {
        let mut words = value.split_ascii_whitespace();
        let (n, period) = words.next()?.split_once('/')?;
        let requests: u32 = n.trim().parse().ok().filter(|n| *n > 0)?;
        let per = period_of(period.trim())?;
        let window = match words.next() {
            Some(w) => Some(UtcWindow::parse(w)?),
            None => None,
        };
        if words.next().is_some() {
            return None;
        }
        Some(RequestRate { requests, per, window, line })
    }

    /// The least gap between two request starts this line asks for: `per / requests`.
    pub fn gap(&self) -> Duration {
        self.per / self.requests
    }
}

/// `10s`, `10m`, `1h`, `1d`, or a bare number of seconds; fractions allowed (`0.5m`).
/// Capped at one day: a longer period is read as one day (still slower than anything
/// the budget would otherwise do, and never an overflow).
fn period_of(text: &str) -> Option<Duration> {
    let (number, unit) = match text.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => (&text[..i], c.to_ascii_lowercase()),
        _ => (text, 's'),
    };
    let seconds_per = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86_400.0,
        _ => return None,
    };
    let number: f64 = number.trim().parse().ok()?;
    let seconds = number * seconds_per;
    (seconds.is_finite() && seconds > 0.0).then(|| Duration::from_secs_f64(seconds.min(86_400.0)))
}

/// One `Visit-time` line: requests start only inside its UTC window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VisitTime {
    /// The window.
    pub window: UtcWindow,
    /// The line's 1-based number.
    pub line: usize,
}

impl VisitTime {
    /// Parses a `Visit-time` value (`0800-1700`). `None` when malformed.
    pub fn parse(value: &str, line: usize) -> Option<VisitTime> {
        Some(VisitTime { window: UtcWindow::parse(value)?, line })
    }
}

/// What a site's pacing lines ask of one agent: the rate floors and the windows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pace {
    /// Every `Request-rate` of the selected groups, in file order.
    pub request_rates: Vec<RequestRate>,
    /// Every `Visit-time` of the selected groups, in file order.
    pub visit_times: Vec<VisitTime>,
}

/// A window the site asks requests to start in, and the line that stated it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowLine {
    /// The window.
    pub window: UtcWindow,
    /// The 1-based line number.
    pub line: usize,
    /// True for `Visit-time`, false for a windowed `Request-rate`.
    pub visit_time: bool,
}

impl fmt::Display for WindowLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.visit_time { "visit-time" } else { "request-rate" };
        write!(f, "line {} `{key}` window {}", self.line, self.window)
    }
}

impl Pace {
    /// True when the site states no pacing line.
    pub fn is_empty(&self) -> bool {
        self.request_rates.is_empty() && self.visit_times.is_empty()
    }

    /// The largest `per / n` gap of every `Request-rate`, and its line.
    pub fn rate_gap(&self) -> Option<(Duration, usize)> {
        self.request_rates.iter().map(|r| (r.gap(), r.line)).fold(None, |best, (gap, line)| {
            match best {
                Some((b, _)) if b >= gap => best,
                _ => Some((gap, line)),
            }
        })
    }

    /// Every window the site asks requests to start in (`Visit-time` lines first).
    pub fn windows(&self) -> Vec<WindowLine> {
        let visits = self.visit_times.iter().map(|v| WindowLine {
            window: v.window,
            line: v.line,
            visit_time: true,
        });
        let rates = self.request_rates.iter().filter_map(|r| {
            Some(WindowLine { window: r.window?, line: r.line, visit_time: false })
        });
        visits.chain(rates).collect()
    }

    /// When `t` is outside every stated window, the instant the next one opens and the
    /// line that states it; `None` when a request may start at `t` (inside a window, or
    /// no window stated).
    pub fn closed_until(&self, t: SystemTime) -> Option<(SystemTime, WindowLine)> {
        let windows = self.windows();
        let time = DateTime::<Utc>::from(t.min(crate::budget::far_future())).time();
        if windows.is_empty() || windows.iter().any(|w| w.window.contains(time)) {
            return None;
        }
        windows.into_iter().map(|w| (w.window.next_open(t), w)).min_by_key(|(at, _)| *at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn utc(h: u32, m: u32, s: u32) -> SystemTime {
        SystemTime::from(Utc.with_ymd_and_hms(2026, 12, 1, h, m, s).unwrap())
    }

    type RateCase = (&'static str, Option<(u32, u64, Option<u32>)>);

    fn hm(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    #[test]
    fn extended_standard_request_rate_values() {
        // (value, (requests, period in seconds, window's start hour))
        let cases: &[RateCase] = &[
            ("1/10s", Some((1, 10, None))),
            ("1/5", Some((1, 5, None))),
            ("3/1m", Some((3, 60, None))),
            ("100/1h", Some((100, 3600, None))),
            ("1/10m 1300-1659", Some((1, 600, Some(13)))),
            ("1/1d", Some((1, 86_400, None))),
            ("1/30d", Some((1, 86_400, None))),
            ("0/10s", None),
            ("1/0s", None),
            ("-1/10s", None),
            ("1/10x", None),
            ("1/10s 25:00-26:00", None),
            ("1/10s 0800-1700 extra", None),
            ("ten/10s", None),
            ("", None),
        ];
        for &(value, want) in cases {
            let got = RequestRate::parse(value, 7)
                .map(|r| (r.requests, r.per.as_secs(), r.window.map(|w| w.start.hour())));
            assert_eq!(got, want, "`{value}`");
        }
        let rate = RequestRate::parse("3/1m", 2).unwrap();
        assert_eq!(rate.gap(), Duration::from_secs(20));
        assert_eq!(RequestRate::parse("2/0.5m", 1).unwrap().gap(), Duration::from_secs(15));
    }

    #[test]
    fn extended_standard_visit_time_values() {
        let w = VisitTime::parse("0800-1700", 3).unwrap().window;
        assert_eq!((w.start, w.end), (hm(8, 0), hm(17, 0)));
        assert_eq!(VisitTime::parse("08:00 - 17:00", 3).unwrap().window, w);
        for bad in ["0800", "0800-0800", "2400-0100", "8-17", "0860-0900", "abcd-efgh"] {
            assert_eq!(VisitTime::parse(bad, 1), None, "`{bad}`");
        }
        assert_eq!(w.to_string(), "0800-1700 UTC");
    }

    #[test]
    fn windows_are_half_open_and_may_wrap_midnight() {
        let day = UtcWindow::parse("0800-1700").unwrap();
        assert!(!day.contains(hm(7, 59)));
        assert!(day.contains(hm(8, 0)));
        assert!(day.contains(NaiveTime::from_hms_opt(16, 59, 59).unwrap()));
        assert!(!day.contains(hm(17, 0)));
        let night = UtcWindow::parse("2200-0600").unwrap();
        assert!(night.contains(hm(23, 0)) && night.contains(hm(5, 59)));
        assert!(!night.contains(hm(6, 0)) && !night.contains(hm(21, 59)));
        assert_eq!(day.next_open(utc(7, 0, 0)), utc(8, 0, 0));
        assert_eq!(day.next_open(utc(9, 0, 0)), utc(9, 0, 0));
        assert_eq!(day.next_open(utc(17, 0, 0)), utc(8, 0, 0) + Duration::from_secs(86_400));
        assert_eq!(night.next_open(utc(12, 0, 0)), utc(22, 0, 0));
    }

    #[test]
    fn the_largest_rate_gap_wins_and_windows_unite() {
        let pace = Pace {
            request_rates: vec![
                RequestRate::parse("1/5s", 2).unwrap(),
                RequestRate::parse("1/10s 1300-1400", 3).unwrap(),
                RequestRate::parse("6/1m", 4).unwrap(),
            ],
            visit_times: vec![VisitTime::parse("0600-0800", 5).unwrap()],
        };
        assert_eq!(pace.rate_gap(), Some((Duration::from_secs(10), 3)));
        assert_eq!(pace.closed_until(utc(6, 30, 0)), None);
        assert_eq!(pace.closed_until(utc(13, 30, 0)), None);
        let (opens, by) = pace.closed_until(utc(9, 0, 0)).unwrap();
        assert_eq!((opens, by.line, by.visit_time), (utc(13, 0, 0), 3, false));
        let (opens, by) = pace.closed_until(utc(15, 0, 0)).unwrap();
        assert_eq!(opens, utc(6, 0, 0) + Duration::from_secs(86_400));
        assert_eq!((by.line, by.visit_time), (5, true));
        assert_eq!(Pace::default().closed_until(utc(3, 0, 0)), None);
        assert_eq!(Pace::default().rate_gap(), None);
    }
}
