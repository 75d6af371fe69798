//! Site signals beyond robots.txt: what a site says through response headers, meta tags
//! and well-known files, each parsed exactly and turned into a decision that carries its
//! reason (SPEC §1 "Errors", "Rights signals", "Image relay"; the CIXTRA-Bot seed).
//!
//! One file per signal:
//! - [`retry_after`]: how long a 429/503 suspends a site (RFC 9110 §10.2.3);
//! - [`cache_control`]: how long the image relay may reuse a response, and the validators
//!   for conditional requests (RFC 9111);
//! - [`robots_meta`]: `X-Robots-Tag` headers and robots meta tags (Google's robots meta
//!   documentation), mapped onto what gleaner may do with a page;
//! - [`tdmrep`]: the W3C TDM Reservation Protocol (`/.well-known/tdmrep.json`, headers,
//!   meta tags);
//! - [`ai_txt`]: Spawning's `/ai.txt`;
//! - [`reservation`]: the per-profile policy (`stop-site` or `per-purpose`) that turns the
//!   reservations found by the three rights signals into decisions over uses and purposes;
//! - [`prefs`]: AI-use preferences per purpose (`Content-Usage`, `Content-Signal`) in
//!   robots.txt and headers, mapped onto gleaner's uses in one table;
//! - [`challenge`]: bot challenges, WAF block pages and login walls, which are blocks and
//!   never content.
//!
//! Everything here is pure: no I/O and no clock. Instants are [`std::time::SystemTime`]
//! values passed in by the caller, headers are `(name, value)` pairs with names compared
//! case-insensitively, and HTML meta tags arrive as already-extracted `(name, content)`
//! pairs (the extract crate reads the DOM). Fetching the well-known files is the fetch
//! crate's job; this module only reads the bytes it is given.

pub mod ai_txt;
pub mod cache_control;
pub mod challenge;
mod pattern;
pub mod prefs;
pub mod reservation;
pub mod retry_after;
pub mod robots_meta;
pub mod tdmrep;

use std::fmt;
use std::time::Duration;

pub use ai_txt::{AiTxt, AiTxtDecision};
pub use cache_control::{CacheDecision, CacheVerdict, Validators};
pub use challenge::{BlockKind, BlockReason, ChallengeVerdict};
pub use reservation::{
    OnReservation, Reservation, RightsDecision, RightsSignals, RightsUse, UseSet,
};
pub use retry_after::{RetryAfterCase, RetryAfterDecision};
pub use robots_meta::{Directive, PageAction, PageDecision, PageRestrictions};
pub use tdmrep::{TdmDecision, TdmRepFile};

/// Whether a response header carries a rights signal read by [`robots_meta`],
/// [`tdmrep`] or [`prefs`] (`X-Robots-Tag`, `Robots-Tag`, `tdm-reservation`, `tdm-policy`,
/// `Content-Usage`, `Content-Signal`), so a caller can keep just those of a response it
/// does not otherwise keep (robots.txt's).
pub fn is_rights_header(name: &str) -> bool {
    ["x-robots-tag", "robots-tag", "tdm-reservation", "tdm-policy"]
        .iter()
        .any(|h| name.eq_ignore_ascii_case(h))
        || prefs::is_pref_header(name)
}

/// The numbers the signal decisions depend on. Every politeness number lives once in the
/// resolved config; the config crate fills this from it, and [`Default`] gives the SPEC
/// defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalSettings {
    /// Suspension after a 429/503 whose `Retry-After` is missing, negative, past or
    /// garbage (SPEC §1 "Errors": 1 min).
    pub retry_after_default: Duration,
    /// Longest suspension a `Retry-After` can ask for (SPEC §1 "Errors": 2 h).
    pub retry_after_cap: Duration,
    /// Longest the image relay reuses a response from memory (SPEC §5, CIXTRA-Bot seed:
    /// "at most one hour").
    pub freshness_cap: Duration,
    /// How many bytes at the start of a body the challenge detector reads. Challenge and
    /// block pages are small and say what they are early.
    pub challenge_scan_limit: usize,
}

impl Default for SignalSettings {
    fn default() -> Self {
        SignalSettings {
            retry_after_default: Duration::from_secs(60),
            retry_after_cap: Duration::from_secs(2 * 60 * 60),
            freshness_cap: Duration::from_secs(60 * 60),
            challenge_scan_limit: 64 * 1024,
        }
    }
}

/// Iterates over the values of every header field called `name` (ASCII case-insensitive),
/// in order, with surrounding whitespace trimmed.
pub(crate) fn header_values<'h>(
    headers: &'h [(&'h str, &'h str)],
    name: &'h str,
) -> impl Iterator<Item = &'h str> + 'h {
    headers.iter().filter(move |(n, _)| n.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim())
}

/// The first value of header field `name`, if any.
pub(crate) fn first_header<'h>(
    headers: &'h [(&'h str, &'h str)],
    name: &'h str,
) -> Option<&'h str> {
    header_values(headers, name).next()
}

/// Splits an HTTP list (RFC 9110 §5.6.1) on commas that are not inside a quoted string,
/// trimming each element and dropping empty ones.
pub(crate) fn split_list(value: &str) -> Vec<&str> {
    let bytes = value.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_quotes = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if in_quotes => i += 1,
            b'"' => in_quotes = !in_quotes,
            b',' if !in_quotes => {
                push_trimmed(&mut out, &value[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    push_trimmed(&mut out, &value[start.min(value.len())..]);
    out
}

fn push_trimmed<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let s = s.trim();
    if !s.is_empty() {
        out.push(s);
    }
}

/// Writes a duration the way the audit log and `gleaner explain` print it: `45 s`,
/// `2 min`, `1 h`, or whole seconds when it is not a round number.
pub(crate) struct HumanDuration(pub Duration);

impl fmt::Display for HumanDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0.as_secs();
        if secs >= 3600 && secs.is_multiple_of(3600) {
            write!(f, "{} h", secs / 3600)
        } else if secs >= 60 && secs.is_multiple_of(60) {
            write!(f, "{} min", secs / 60)
        } else {
            write!(f, "{secs} s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_split(input: &str, expect: &[&str]) {
        assert_eq!(split_list(input), expect, "input {input:?}");
    }

    #[test]
    fn rfc9110_list_split() {
        check_split("a, b,c", &["a", "b", "c"]);
        check_split(" , ,a,, ", &["a"]);
        check_split(
            r#"private="set-cookie, x", max-age=5"#,
            &[r#"private="set-cookie, x""#, "max-age=5"],
        );
        check_split(r#"a="x\", y", b"#, &[r#"a="x\", y""#, "b"]);
        check_split(r#"a="unterminated, b"#, &[r#"a="unterminated, b"#]);
        check_split("", &[]);
    }

    #[test]
    fn header_lookup_is_case_insensitive() {
        let h = [("Retry-After", " 5 "), ("retry-after", "6"), ("Date", "x")];
        assert_eq!(header_values(&h, "RETRY-AFTER").collect::<Vec<_>>(), ["5", "6"]);
        assert_eq!(first_header(&h, "date"), Some("x"));
        assert_eq!(first_header(&h, "age"), None);
    }

    #[test]
    fn human_durations() {
        assert_eq!(HumanDuration(Duration::from_secs(45)).to_string(), "45 s");
        assert_eq!(HumanDuration(Duration::from_secs(120)).to_string(), "2 min");
        assert_eq!(HumanDuration(Duration::from_secs(7200)).to_string(), "2 h");
        assert_eq!(HumanDuration(Duration::from_secs(90)).to_string(), "90 s");
        assert_eq!(HumanDuration(Duration::ZERO).to_string(), "0 s");
    }

    #[test]
    fn spec_defaults() {
        let s = SignalSettings::default();
        assert_eq!(s.retry_after_default, Duration::from_secs(60));
        assert_eq!(s.retry_after_cap, Duration::from_secs(7200));
        assert_eq!(s.freshness_cap, Duration::from_secs(3600));
    }
}
