//! `Retry-After` on a 429 or 503: how long the whole site is suspended (RFC 9110 §10.2.3;
//! SPEC §1 "Errors").
//!
//! The field is either delta-seconds (`1*DIGIT`) or an HTTP-date in any of the three
//! RFC 9110 §5.6.7 formats (IMF-fixdate, obsolete RFC 850, asctime). A date is taken
//! relative to the response's own `Date` header when that parses, so a server whose clock
//! is off still gets the pause it asked for; otherwise relative to the moment the response
//! was received (passed in, never read from a clock here). Missing, negative, past or
//! garbage values fall back to the configured default (1 min), `0` means "normal spacing",
//! and every wait is capped (2 h). The decision says which case applied.
//!
//! Retry-After is a singleton field. When a response carries several, the longest wait
//! wins: a duplicate can only make us slower, never faster.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::{HumanDuration, SignalSettings, first_header, header_values};

/// Which reading of `Retry-After` produced the wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryAfterCase {
    /// Delta-seconds, used as given.
    DeltaSeconds {
        /// The number of seconds the server asked for.
        seconds: u64,
    },
    /// An HTTP-date in the future.
    HttpDate {
        /// True when measured from the response's `Date` header, false when measured from
        /// the moment the response was received.
        relative_to_date_header: bool,
    },
    /// `0`, or a date equal to the reference instant: no pause beyond normal spacing.
    Zero,
    /// No `Retry-After` field: the configured default applies.
    Missing,
    /// A negative number of seconds: the configured default applies.
    Negative,
    /// An HTTP-date before the reference instant: the configured default applies.
    Past {
        /// As in [`RetryAfterCase::HttpDate`].
        relative_to_date_header: bool,
    },
    /// Neither delta-seconds nor an HTTP-date: the configured default applies.
    Garbage,
    /// The server asked for longer than the configured cap; the cap applies.
    Capped {
        /// What the server asked for (saturating at the largest duration).
        asked: Duration,
    },
}

impl RetryAfterCase {
    /// True when the configured default was used because the field gave no usable wait.
    pub fn used_default(self) -> bool {
        matches!(
            self,
            RetryAfterCase::Missing
                | RetryAfterCase::Negative
                | RetryAfterCase::Past { .. }
                | RetryAfterCase::Garbage
        )
    }
}

impl fmt::Display for RetryAfterCase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn from(relative: bool) -> &'static str {
            if relative { "the response's date header" } else { "the time it was received" }
        }
        match *self {
            RetryAfterCase::DeltaSeconds { seconds } => {
                write!(f, "retry-after asked for {seconds} s")
            }
            RetryAfterCase::HttpDate { relative_to_date_header } => {
                write!(
                    f,
                    "retry-after gave a date, measured from {}",
                    from(relative_to_date_header)
                )
            }
            RetryAfterCase::Zero => {
                f.write_str("retry-after asked for no pause, normal spacing applies")
            }
            RetryAfterCase::Missing => f.write_str("no retry-after, default pause"),
            RetryAfterCase::Negative => f.write_str("negative retry-after, default pause"),
            RetryAfterCase::Past { relative_to_date_header } => write!(
                f,
                "retry-after date is in the past of {}, default pause",
                from(relative_to_date_header)
            ),
            RetryAfterCase::Garbage => f.write_str("unreadable retry-after, default pause"),
            RetryAfterCase::Capped { asked } => {
                write!(f, "retry-after asked for {} s, capped", asked.as_secs())
            }
        }
    }
}

/// How long to suspend a site after a 429/503, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryAfterDecision {
    /// The suspension, measured from the moment the response was received. Zero means
    /// the normal spacing is enough.
    pub wait: Duration,
    /// Which case applied.
    pub case: RetryAfterCase,
}

impl RetryAfterDecision {
    /// The instant the suspension ends, given when the response was received.
    pub fn resume_at(&self, received_at: SystemTime) -> SystemTime {
        received_at.checked_add(self.wait).unwrap_or(received_at)
    }
}

impl fmt::Display for RetryAfterDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pause {}: {}", HumanDuration(self.wait), self.case)
    }
}

/// Decides the suspension from the `Retry-After` and `Date` fields of a response.
///
/// `headers` are the response's header fields; `received_at` is when the response
/// arrived (the caller's clock reading).
pub fn from_headers(
    headers: &[(&str, &str)],
    received_at: SystemTime,
    settings: &SignalSettings,
) -> RetryAfterDecision {
    let date = first_header(headers, "date");
    let mut best: Option<RetryAfterDecision> = None;
    for value in header_values(headers, "retry-after") {
        let d = decide(Some(value), date, received_at, settings);
        if best.is_none_or(|b| d.wait > b.wait) {
            best = Some(d);
        }
    }
    best.unwrap_or_else(|| decide(None, date, received_at, settings))
}

/// Decides the suspension from one `Retry-After` value and the response's `Date` value.
pub fn decide(
    retry_after: Option<&str>,
    date: Option<&str>,
    received_at: SystemTime,
    settings: &SignalSettings,
) -> RetryAfterDecision {
    let default = |case| RetryAfterDecision { wait: settings.retry_after_default, case };
    let Some(value) = retry_after.map(str::trim) else {
        return default(RetryAfterCase::Missing);
    };
    let asked = match parse(value) {
        Parsed::Seconds(0) => {
            return RetryAfterDecision { wait: Duration::ZERO, case: RetryAfterCase::Zero };
        }
        Parsed::Seconds(s) => (Duration::from_secs(s), RetryAfterCase::DeltaSeconds { seconds: s }),
        Parsed::Negative => return default(RetryAfterCase::Negative),
        Parsed::Garbage => return default(RetryAfterCase::Garbage),
        Parsed::Date(at) => {
            let date_header = date.and_then(|d| httpdate::parse_http_date(d.trim()).ok());
            let relative = date_header.is_some();
            let reference = date_header.unwrap_or(received_at);
            match at.duration_since(reference) {
                Ok(d) if d.is_zero() => {
                    return RetryAfterDecision { wait: Duration::ZERO, case: RetryAfterCase::Zero };
                }
                Ok(d) => (d, RetryAfterCase::HttpDate { relative_to_date_header: relative }),
                Err(_) => {
                    return default(RetryAfterCase::Past { relative_to_date_header: relative });
                }
            }
        }
    };
    let (wait, case) = asked;
    if wait > settings.retry_after_cap {
        RetryAfterDecision {
            wait: settings.retry_after_cap,
            case: RetryAfterCase::Capped { asked: wait },
        }
    } else {
        RetryAfterDecision { wait, case }
    }
}

enum Parsed {
    Seconds(u64),
    Negative,
    Date(SystemTime),
    Garbage,
}

fn parse(value: &str) -> Parsed {
    if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // Saturate: a number too large for u64 is capped like any other long wait.
        let secs = value
            .bytes()
            .fold(0u64, |acc, b| acc.saturating_mul(10).saturating_add(u64::from(b - b'0')));
        return Parsed::Seconds(secs);
    }
    if let Some(rest) = value.strip_prefix('-')
        && !rest.is_empty()
        && rest.bytes().all(|b| b.is_ascii_digit())
    {
        return Parsed::Negative;
    }
    match httpdate::parse_http_date(value) {
        Ok(at) => Parsed::Date(at),
        Err(_) => Parsed::Garbage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Date:` of the responses in these tests; our clock reads 10 s later unless a test
    /// says otherwise, to show that dates are measured from the header.
    const DATE: &str = "Sun, 06 Nov 1994 08:49:37 GMT";

    fn date_instant() -> SystemTime {
        httpdate::parse_http_date(DATE).unwrap()
    }

    #[track_caller]
    fn check(retry_after: Option<&str>, date: Option<&str>, wait_secs: u64, case: RetryAfterCase) {
        let received_at = date_instant() + Duration::from_secs(10);
        let d = decide(retry_after, date, received_at, &SignalSettings::default());
        assert_eq!(
            d,
            RetryAfterDecision { wait: Duration::from_secs(wait_secs), case },
            "{retry_after:?}"
        );
    }

    use RetryAfterCase::*;

    #[test]
    fn rfc9110_delta_seconds() {
        check(Some("120"), Some(DATE), 120, DeltaSeconds { seconds: 120 });
        check(Some(" 5 "), None, 5, DeltaSeconds { seconds: 5 });
        check(Some("007"), None, 7, DeltaSeconds { seconds: 7 });
        check(Some("7200"), None, 7200, DeltaSeconds { seconds: 7200 });
    }

    #[test]
    fn rfc9110_zero_is_normal_spacing() {
        check(Some("0"), None, 0, Zero);
        check(Some("000"), None, 0, Zero);
        check(Some(DATE), Some(DATE), 0, Zero);
    }

    #[test]
    fn rfc9110_http_date_three_formats_relative_to_date_header() {
        let rel = HttpDate { relative_to_date_header: true };
        check(Some("Sun, 06 Nov 1994 08:51:37 GMT"), Some(DATE), 120, rel);
        check(Some("Sunday, 06-Nov-94 08:51:37 GMT"), Some(DATE), 120, rel);
        check(Some("Sun Nov  6 08:51:37 1994"), Some(DATE), 120, rel);
        // The Date header itself may use an obsolete format too.
        check(Some("Sun, 06 Nov 1994 08:51:37 GMT"), Some("Sun Nov  6 08:49:37 1994"), 120, rel);
    }

    #[test]
    fn rfc9110_http_date_without_date_header_uses_receipt_time() {
        let own = HttpDate { relative_to_date_header: false };
        // Received 10 s after DATE, so 110 s remain.
        check(Some("Sun, 06 Nov 1994 08:51:37 GMT"), None, 110, own);
        check(Some("Sun, 06 Nov 1994 08:51:37 GMT"), Some("yesterday"), 110, own);
    }

    #[test]
    fn rfc9110_past_date_takes_default() {
        check(
            Some("Sun, 06 Nov 1994 08:00:00 GMT"),
            Some(DATE),
            60,
            Past { relative_to_date_header: true },
        );
        check(
            Some("Sun, 06 Nov 1994 08:49:40 GMT"),
            None,
            60,
            Past { relative_to_date_header: false },
        );
    }

    #[test]
    fn spec_missing_negative_garbage_take_default() {
        check(None, Some(DATE), 60, Missing);
        check(Some("-5"), None, 60, Negative);
        check(Some(""), None, 60, Garbage);
        check(Some("-"), None, 60, Garbage);
        check(Some("soon"), None, 60, Garbage);
        check(Some("1.5"), None, 60, Garbage);
        check(Some("+30"), None, 60, Garbage);
        check(Some("30s"), None, 60, Garbage);
        check(Some("1e3"), None, 60, Garbage);
        check(Some("Sun, 31 Feb 1994 08:49:37 GMT"), None, 60, Garbage);
        check(Some("2026-11-30T12:00:00Z"), None, 60, Garbage);
    }

    #[test]
    fn spec_capped_at_two_hours() {
        check(Some("7201"), None, 7200, Capped { asked: Duration::from_secs(7201) });
        check(
            Some("99999999999999999999999"),
            None,
            7200,
            Capped { asked: Duration::from_secs(u64::MAX) },
        );
        check(
            Some("Mon, 07 Nov 1994 08:49:37 GMT"),
            Some(DATE),
            7200,
            Capped { asked: Duration::from_secs(86400) },
        );
    }

    #[test]
    fn seed_ugybot_several_fields_longest_wins() {
        let received_at = date_instant();
        let s = SignalSettings::default();
        let h = [
            ("Retry-After", "30"),
            ("date", DATE),
            ("RETRY-AFTER", "600"),
            ("Retry-After", "junk"),
        ];
        let d = from_headers(&h, received_at, &s);
        assert_eq!(
            d,
            RetryAfterDecision {
                wait: Duration::from_secs(600),
                case: DeltaSeconds { seconds: 600 }
            }
        );
        assert_eq!(d.resume_at(received_at), received_at + Duration::from_secs(600));
        let none = from_headers(&[("Date", DATE)], received_at, &s);
        assert_eq!(none.case, Missing);
        assert_eq!(none.wait, s.retry_after_default);
    }

    #[test]
    fn spec_settings_are_honoured() {
        let s = SignalSettings {
            retry_after_default: Duration::from_secs(5),
            retry_after_cap: Duration::from_secs(100),
            ..SignalSettings::default()
        };
        let t = date_instant();
        assert_eq!(decide(None, None, t, &s).wait, Duration::from_secs(5));
        assert_eq!(decide(Some("101"), None, t, &s).wait, Duration::from_secs(100));
    }

    #[test]
    fn reasons_read_as_plain_english() {
        let t = date_instant();
        let s = SignalSettings::default();
        assert_eq!(
            decide(Some("120"), None, t, &s).to_string(),
            "pause 2 min: retry-after asked for 120 s"
        );
        assert_eq!(
            decide(None, None, t, &s).to_string(),
            "pause 1 min: no retry-after, default pause"
        );
        assert_eq!(
            decide(Some("86400"), None, t, &s).to_string(),
            "pause 2 h: retry-after asked for 86400 s, capped"
        );
        assert_eq!(
            decide(Some("Sun, 06 Nov 1994 08:51:37 GMT"), Some(DATE), t, &s).to_string(),
            "pause 2 min: retry-after gave a date, measured from the response's date header"
        );
        assert!(RetryAfterCase::Garbage.used_default());
        assert!(!RetryAfterCase::Zero.used_default());
    }
}
