//! How long the image relay may reuse a response from memory, and the validators for the
//! next conditional request (RFC 9111; SPEC §5 "Image relay"; the CIXTRA-Bot seed: "at
//! most one hour (less if your server's Cache-Control says so, and not at all for
//! no-store)").
//!
//! The relay serves many visitors from one copy, so it is a *shared* cache (RFC 9111
//! §1): `private` and `no-store` forbid keeping the response (§5.2.2.5, §5.2.2.7),
//! `s-maxage` wins over `max-age` and implies `proxy-revalidate` (§5.2.2.10), `max-age`
//! wins over `Expires` (§5.3), `no-cache` allows keeping it but never reusing it without
//! revalidation (§5.2.2.4), and `Vary: *` never matches a later request (§4.1). The
//! freshness lifetime has the response's current age taken off (§4.2.3, with `Age` and
//! the apparent age from `Date`) and is then capped by config (1 h). With no explicit
//! lifetime the cap itself applies: the seed promises at most an hour, not a heuristic.
//!
//! Invalid values are read as RFC 9111 asks: an invalid `Expires` (such as `0`) means
//! "already expired" (§5.3) and an invalid `max-age`/`s-maxage` makes the response stale
//! (§4.2.1). Repeated directives and fields use their first occurrence (§4.2.1).

use std::fmt;
use std::time::{Duration, SystemTime};

use super::{HumanDuration, SignalSettings, first_header, header_values, split_list};

/// Delta-seconds past this are read as this (RFC 9111 §1.2.2).
const DELTA_SECONDS_MAX: u64 = 1 << 31;

/// Why a response must not be kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoStoreReason {
    /// `Cache-Control: no-store`.
    NoStore,
    /// `Cache-Control: private` (qualified or not): a shared cache must not keep it.
    Private,
    /// `Vary: *`: a stored copy could never be reused.
    VaryStar,
}

impl fmt::Display for NoStoreReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            NoStoreReason::NoStore => "cache-control no-store",
            NoStoreReason::Private => "cache-control private",
            NoStoreReason::VaryStar => "vary *",
        })
    }
}

/// Where the freshness lifetime came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FreshnessSource {
    /// `s-maxage`, in seconds.
    SMaxAge(u64),
    /// `max-age`, in seconds.
    MaxAge(u64),
    /// `Expires` minus `Date` (or minus the receipt time when `Date` is missing).
    Expires {
        /// True when measured from the response's `Date` header.
        relative_to_date_header: bool,
    },
    /// An `Expires` that is not an HTTP-date: already expired.
    InvalidExpires,
    /// A `max-age` or `s-maxage` without a valid number: stale.
    InvalidDirective,
    /// `no-cache`: keep, but revalidate before every reuse.
    NoCache,
    /// No explicit lifetime: the configured cap applies.
    Unspecified,
}

impl fmt::Display for FreshnessSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FreshnessSource::SMaxAge(s) => write!(f, "s-maxage {s} s"),
            FreshnessSource::MaxAge(s) => write!(f, "max-age {s} s"),
            FreshnessSource::Expires { relative_to_date_header: true } => {
                f.write_str("expires, measured from the date header")
            }
            FreshnessSource::Expires { relative_to_date_header: false } => {
                f.write_str("expires, measured from the time it was received")
            }
            FreshnessSource::InvalidExpires => f.write_str("invalid expires, already stale"),
            FreshnessSource::InvalidDirective => f.write_str("invalid max-age, stale"),
            FreshnessSource::NoCache => f.write_str("cache-control no-cache"),
            FreshnessSource::Unspecified => f.write_str("no lifetime given, the configured cap"),
        }
    }
}

/// How long a kept response stays fresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Freshness {
    /// How long from receipt it may be reused without asking the server again.
    pub fresh_for: Duration,
    /// The freshness lifetime the response declared (before age and cap).
    pub lifetime: Duration,
    /// The response's current age when received (RFC 9111 §4.2.3).
    pub age: Duration,
    /// Where the lifetime came from.
    pub source: FreshnessSource,
    /// True when the configured cap shortened `fresh_for`.
    pub capped: bool,
    /// True when a stale copy must never be served, even if the server is unreachable
    /// (`must-revalidate`, `proxy-revalidate`, `s-maxage` or `no-cache`).
    pub must_revalidate: bool,
}

/// Whether the relay may keep a response, and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheVerdict {
    /// Do not keep it at all.
    DoNotStore(NoStoreReason),
    /// Keep it in memory, fresh for the given time.
    Store(Freshness),
}

impl CacheVerdict {
    /// How long the response may be reused without revalidation (zero when not stored).
    pub fn fresh_for(&self) -> Duration {
        match self {
            CacheVerdict::DoNotStore(_) => Duration::ZERO,
            CacheVerdict::Store(f) => f.fresh_for,
        }
    }
}

impl fmt::Display for CacheVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheVerdict::DoNotStore(reason) => write!(f, "do not keep: {reason}"),
            CacheVerdict::Store(fr) => {
                write!(f, "keep, fresh for {}: {}", HumanDuration(fr.fresh_for), fr.source)?;
                if !fr.age.is_zero() {
                    write!(f, ", less age {}", HumanDuration(fr.age))?;
                }
                if fr.capped {
                    f.write_str(", capped")?;
                }
                if fr.must_revalidate {
                    f.write_str(", must revalidate")?;
                }
                Ok(())
            }
        }
    }
}

/// The validators of a response, sent back as `If-None-Match` / `If-Modified-Since`
/// (RFC 9110 §8.8, §13.1; SPEC §1 "Conditional requests").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// The `ETag` value as received (strong or `W/` weak), if it is a well-formed
    /// entity-tag.
    pub etag: Option<String>,
    /// The `Last-Modified` value as received, if it is a valid HTTP-date. It is kept
    /// verbatim because RFC 9110 §13.1.3 asks for the exact string to be echoed.
    pub last_modified: Option<String>,
}

impl Validators {
    /// Reads `ETag` and `Last-Modified`, keeping only well-formed values.
    pub fn from_headers(headers: &[(&str, &str)]) -> Validators {
        let etag = first_header(headers, "etag").filter(|v| is_entity_tag(v)).map(str::to_owned);
        let last_modified = first_header(headers, "last-modified")
            .filter(|v| httpdate::parse_http_date(v).is_ok())
            .map(str::to_owned);
        Validators { etag, last_modified }
    }

    /// True when there is nothing to make a request conditional with.
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }

    /// The `If-None-Match` value for the next request.
    pub fn if_none_match(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    /// The `If-Modified-Since` value for the next request.
    pub fn if_modified_since(&self) -> Option<&str> {
        self.last_modified.as_deref()
    }
}

/// `entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE` (RFC 9110 §8.8.3).
fn is_entity_tag(v: &str) -> bool {
    let v = v.strip_prefix("W/").unwrap_or(v);
    let b = v.as_bytes();
    b.len() >= 2
        && b[0] == b'"'
        && b[b.len() - 1] == b'"'
        && b[1..b.len() - 1].iter().all(|&c| c == 0x21 || (0x23..=0x7e).contains(&c) || c >= 0x80)
}

/// The relay's decision for one response: keep or not, for how long, and the validators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheDecision {
    /// Keep or not, and how fresh.
    pub verdict: CacheVerdict,
    /// What to revalidate with.
    pub validators: Validators,
}

impl fmt::Display for CacheDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.verdict.fmt(f)
    }
}

/// The `Cache-Control` directives that matter to a shared cache, first occurrence each.
#[derive(Debug, Default)]
struct Directives {
    no_store: bool,
    no_cache: bool,
    private: bool,
    must_revalidate: bool,
    proxy_revalidate: bool,
    max_age: Option<Option<u64>>,
    s_maxage: Option<Option<u64>>,
}

fn parse_delta(v: &str) -> Option<u64> {
    let v = v.trim();
    let v = v.strip_prefix('"').and_then(|s| s.strip_suffix('"')).unwrap_or(v);
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(
        v.bytes()
            .fold(0u64, |a, b| a.saturating_mul(10).saturating_add(u64::from(b - b'0')))
            .min(DELTA_SECONDS_MAX),
    )
}

fn parse_directives(headers: &[(&str, &str)]) -> Directives {
    let mut d = Directives::default();
    for value in header_values(headers, "cache-control") {
        for item in split_list(value) {
            let (name, arg) = match item.split_once('=') {
                Some((n, a)) => (n.trim(), Some(a)),
                None => (item, None),
            };
            let name = name.to_ascii_lowercase();
            match name.as_str() {
                "no-store" => d.no_store = true,
                "no-cache" => d.no_cache = true,
                "private" => d.private = true,
                "must-revalidate" => d.must_revalidate = true,
                "proxy-revalidate" => d.proxy_revalidate = true,
                "max-age" if d.max_age.is_none() => d.max_age = Some(arg.and_then(parse_delta)),
                "s-maxage" if d.s_maxage.is_none() => d.s_maxage = Some(arg.and_then(parse_delta)),
                _ => {}
            }
        }
    }
    d
}

/// Decides whether and for how long the relay may keep a response, from its header
/// fields and the moment it was received.
pub fn decide(
    headers: &[(&str, &str)],
    received_at: SystemTime,
    settings: &SignalSettings,
) -> CacheDecision {
    let validators = Validators::from_headers(headers);
    let d = parse_directives(headers);
    let no_store = if d.no_store {
        Some(NoStoreReason::NoStore)
    } else if d.private {
        Some(NoStoreReason::Private)
    } else if header_values(headers, "vary").any(|v| split_list(v).contains(&"*")) {
        Some(NoStoreReason::VaryStar)
    } else {
        None
    };
    if let Some(reason) = no_store {
        return CacheDecision { verdict: CacheVerdict::DoNotStore(reason), validators };
    }

    let date = first_header(headers, "date").and_then(|v| httpdate::parse_http_date(v).ok());
    let date_value = date.unwrap_or(received_at);

    // RFC 9111 §4.2.3, with the response delay unknown (taken as zero).
    let age_value = first_header(headers, "age").and_then(parse_delta).unwrap_or(0);
    let apparent_age = received_at.duration_since(date_value).unwrap_or(Duration::ZERO);
    let age = apparent_age.max(Duration::from_secs(age_value));

    let (lifetime, source) = if d.no_cache {
        (Duration::ZERO, FreshnessSource::NoCache)
    } else if let Some(s) = d.s_maxage {
        match s {
            Some(secs) => (Duration::from_secs(secs), FreshnessSource::SMaxAge(secs)),
            None => (Duration::ZERO, FreshnessSource::InvalidDirective),
        }
    } else if let Some(m) = d.max_age {
        match m {
            Some(secs) => (Duration::from_secs(secs), FreshnessSource::MaxAge(secs)),
            None => (Duration::ZERO, FreshnessSource::InvalidDirective),
        }
    } else if let Some(expires) = first_header(headers, "expires") {
        match httpdate::parse_http_date(expires) {
            Ok(at) => (
                at.duration_since(date_value).unwrap_or(Duration::ZERO),
                FreshnessSource::Expires { relative_to_date_header: date.is_some() },
            ),
            Err(_) => (Duration::ZERO, FreshnessSource::InvalidExpires),
        }
    } else {
        (settings.freshness_cap, FreshnessSource::Unspecified)
    };

    let remaining = lifetime.saturating_sub(age);
    let capped = remaining > settings.freshness_cap;
    let freshness = Freshness {
        fresh_for: remaining.min(settings.freshness_cap),
        lifetime,
        age,
        source,
        capped,
        must_revalidate: d.must_revalidate
            || d.proxy_revalidate
            || d.no_cache
            || d.s_maxage.is_some(),
    };
    CacheDecision { verdict: CacheVerdict::Store(freshness), validators }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATE: &str = "Mon, 30 Nov 2026 01:00:00 GMT";

    fn at_date() -> SystemTime {
        httpdate::parse_http_date(DATE).unwrap()
    }

    /// One case: response headers, seconds after `Date` it was received, expected
    /// verdict as (fresh_for secs, source) or a no-store reason.
    #[track_caller]
    fn check(
        headers: &[(&str, &str)],
        received_after: u64,
        expect: Result<(u64, FreshnessSource), NoStoreReason>,
    ) {
        let d = decide(
            headers,
            at_date() + Duration::from_secs(received_after),
            &SignalSettings::default(),
        );
        match (d.verdict, expect) {
            (CacheVerdict::DoNotStore(r), Err(e)) => assert_eq!(r, e, "{headers:?}"),
            (CacheVerdict::Store(f), Ok((secs, source))) => {
                assert_eq!((f.fresh_for.as_secs(), f.source), (secs, source), "{headers:?}");
            }
            (got, want) => panic!("{headers:?}: got {got:?}, want {want:?}"),
        }
    }

    use FreshnessSource::*;

    #[test]
    fn rfc9111_no_store_private_vary() {
        check(&[("Cache-Control", "no-store")], 0, Err(NoStoreReason::NoStore));
        check(&[("cache-control", "max-age=600, NO-STORE")], 0, Err(NoStoreReason::NoStore));
        check(&[("Cache-Control", "private, max-age=600")], 0, Err(NoStoreReason::Private));
        check(
            &[("Cache-Control", r#"private="Set-Cookie", max-age=600"#)],
            0,
            Err(NoStoreReason::Private),
        );
        check(
            &[("Cache-Control", "public"), ("Cache-Control", "no-store")],
            0,
            Err(NoStoreReason::NoStore),
        );
        check(
            &[("Cache-Control", "max-age=60"), ("Vary", "Accept, *")],
            0,
            Err(NoStoreReason::VaryStar),
        );
    }

    #[test]
    fn rfc9111_max_age_and_s_maxage() {
        check(&[("Cache-Control", "max-age=600"), ("Date", DATE)], 0, Ok((600, MaxAge(600))));
        check(
            &[("Cache-Control", "public, max-age=600, s-maxage=300"), ("Date", DATE)],
            0,
            Ok((300, SMaxAge(300))),
        );
        check(&[("Cache-Control", "max-age=\"120\"")], 0, Ok((120, MaxAge(120))));
        check(&[("Cache-Control", "max-age=0")], 0, Ok((0, MaxAge(0))));
        check(&[("Cache-Control", "max-age=60, max-age=6000")], 0, Ok((60, MaxAge(60))));
    }

    #[test]
    fn rfc9111_age_is_subtracted() {
        check(
            &[("Cache-Control", "max-age=600"), ("Age", "100"), ("Date", DATE)],
            0,
            Ok((500, MaxAge(600))),
        );
        // Apparent age from Date wins when larger than Age.
        check(
            &[("Cache-Control", "max-age=600"), ("Age", "100"), ("Date", DATE)],
            250,
            Ok((350, MaxAge(600))),
        );
        check(&[("Cache-Control", "max-age=600"), ("Age", "900")], 0, Ok((0, MaxAge(600))));
        check(&[("Cache-Control", "max-age=600"), ("Age", "junk")], 0, Ok((600, MaxAge(600))));
    }

    #[test]
    fn rfc9111_expires() {
        let exp = Expires { relative_to_date_header: true };
        check(&[("Date", DATE), ("Expires", "Mon, 30 Nov 2026 01:10:00 GMT")], 0, Ok((600, exp)));
        check(&[("Date", DATE), ("Expires", "Monday, 30-Nov-26 01:10:00 GMT")], 0, Ok((600, exp)));
        check(&[("Date", DATE), ("Expires", "Mon, 30 Nov 2026 00:00:00 GMT")], 0, Ok((0, exp)));
        check(&[("Expires", "0")], 0, Ok((0, InvalidExpires)));
        check(&[("Expires", "-1")], 0, Ok((0, InvalidExpires)));
        // max-age wins over Expires.
        check(
            &[("Date", DATE), ("Expires", "0"), ("Cache-Control", "max-age=60")],
            0,
            Ok((60, MaxAge(60))),
        );
    }

    #[test]
    fn rfc9111_no_cache_and_invalid() {
        check(&[("Cache-Control", "no-cache")], 0, Ok((0, NoCache)));
        check(&[("Cache-Control", "no-cache, max-age=600")], 0, Ok((0, NoCache)));
        check(&[("Cache-Control", "max-age=abc")], 0, Ok((0, InvalidDirective)));
        check(&[("Cache-Control", "max-age=-1")], 0, Ok((0, InvalidDirective)));
        check(&[("Cache-Control", "max-age")], 0, Ok((0, InvalidDirective)));
    }

    #[test]
    fn seed_cixtra_at_most_one_hour() {
        check(&[], 0, Ok((3600, Unspecified)));
        check(
            &[("Cache-Control", "public, max-age=31536000, immutable")],
            0,
            Ok((3600, MaxAge(31_536_000))),
        );
        check(
            &[("Cache-Control", "max-age=99999999999999999999")],
            0,
            Ok((3600, MaxAge(DELTA_SECONDS_MAX))),
        );
        let d =
            decide(&[("Cache-Control", "max-age=86400")], at_date(), &SignalSettings::default());
        let CacheVerdict::Store(f) = d.verdict else { panic!() };
        assert!(f.capped);
        assert_eq!(d.to_string(), "keep, fresh for 1 h: max-age 86400 s, capped");
    }

    #[test]
    fn rfc9111_must_revalidate_flags() {
        let flag =
            |h: &[(&str, &str)]| match decide(h, at_date(), &SignalSettings::default()).verdict {
                CacheVerdict::Store(f) => f.must_revalidate,
                CacheVerdict::DoNotStore(_) => panic!(),
            };
        assert!(flag(&[("Cache-Control", "max-age=60, must-revalidate")]));
        assert!(flag(&[("Cache-Control", "proxy-revalidate")]));
        assert!(flag(&[("Cache-Control", "s-maxage=60")]));
        assert!(!flag(&[("Cache-Control", "max-age=60")]));
    }

    #[test]
    fn rfc9110_validators() {
        let v = Validators::from_headers(&[
            ("ETag", "\"abc\""),
            ("Last-Modified", "Sun, 29 Nov 2026 10:00:00 GMT"),
        ]);
        assert_eq!(v.if_none_match(), Some("\"abc\""));
        assert_eq!(v.if_modified_since(), Some("Sun, 29 Nov 2026 10:00:00 GMT"));
        assert_eq!(
            Validators::from_headers(&[("etag", "W/\"x-1\"")]).etag.as_deref(),
            Some("W/\"x-1\"")
        );
        assert_eq!(Validators::from_headers(&[("etag", "abc")]).etag, None);
        assert_eq!(Validators::from_headers(&[("etag", "\"a\"b\"")]).etag, None);
        assert!(Validators::from_headers(&[("Last-Modified", "yesterday")]).is_empty());
        let d = decide(
            &[("Cache-Control", "no-store"), ("ETag", "\"v1\"")],
            at_date(),
            &SignalSettings::default(),
        );
        assert_eq!(d.validators.etag.as_deref(), Some("\"v1\""));
        assert_eq!(d.to_string(), "do not keep: cache-control no-store");
    }
}
