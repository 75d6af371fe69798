//! The W3C TDM Reservation Protocol (TDMRep, Community Group final report, 2024): is text
//! and data mining of a resource reserved, and by which declaration? (SPEC §1 "Rights
//! signals"; the CIXTRA-Bot seed: "/.well-known/tdmrep.json and the tdm-reservation
//! header or meta tag").
//!
//! Three places declare it:
//! - `/.well-known/tdmrep.json`: a JSON array of rules `{"location", "tdm-reservation",
//!   "tdm-policy"}`. `location` is a robots.txt-style path pattern (`*`, trailing `$`);
//!   rules are tried in array order and the first whose location matches is used ("the
//!   most specific match is the first in sequence");
//! - the `tdm-reservation` and `tdm-policy` response headers;
//! - `<meta name="tdm-reservation" content="1">` and `<meta name="tdm-policy">` tags.
//!
//! `tdm-reservation` is `1` (reserved) or `0` (not reserved); any other value is a
//! protocol error and counts as unset. We also read `"1"`/`"0"` strings and JSON booleans
//! in the file, whose intent is plain. Where the three places disagree, gleaner takes the
//! reservation: a `1` anywhere wins over a `0` elsewhere, so the owner's "no" wins. A
//! reservation names every use beyond the facts ([`UseSet::CONTENT`]).

use std::fmt;

use serde_json::Value;

use super::pattern::Pattern;
use super::reservation::{Reservation, ReservationSource, UseSet};
use super::{first_header, split_list};

/// A `tdm-reservation` value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TdmReservation {
    /// `1`: TDM rights are reserved.
    Reserved,
    /// `0`: TDM rights are not reserved.
    NotReserved,
}

impl TdmReservation {
    fn from_text(s: &str) -> Option<TdmReservation> {
        match s.trim() {
            "1" => Some(TdmReservation::Reserved),
            "0" => Some(TdmReservation::NotReserved),
            _ => None,
        }
    }

    fn from_json(v: &Value) -> Option<TdmReservation> {
        match v {
            Value::Number(n) => match n.as_u64() {
                Some(1) => Some(TdmReservation::Reserved),
                Some(0) => Some(TdmReservation::NotReserved),
                _ => None,
            },
            Value::String(s) => TdmReservation::from_text(s),
            Value::Bool(true) => Some(TdmReservation::Reserved),
            Value::Bool(false) => Some(TdmReservation::NotReserved),
            _ => None,
        }
    }
}

/// One rule of `tdmrep.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdmRule {
    /// The `location` pattern as written.
    pub location: String,
    /// The `tdm-reservation` value; `None` when missing or invalid (unset).
    pub reservation: Option<TdmReservation>,
    /// The `tdm-policy` URL, if any.
    pub policy: Option<String>,
    pattern: Pattern,
}

/// Why a `tdmrep.json` body could not be read. A file that cannot be read declares
/// nothing (the protocol's "does not implement this protocol").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TdmRepError {
    /// The body is not JSON.
    #[error("tdmrep.json is not valid json: {0}")]
    NotJson(String),
    /// The body is JSON but not an array of rules.
    #[error("tdmrep.json is not an array of rules")]
    NotArray,
}

/// A parsed `/.well-known/tdmrep.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TdmRepFile {
    rules: Vec<TdmRule>,
    /// How many array entries were skipped because they were not objects with a string
    /// `location`.
    pub skipped: usize,
}

/// Strips `scheme://authority` from a location written as a full URL, which some
/// publishers do.
fn location_path(location: &str) -> &str {
    let l = location.trim();
    for scheme in ["https://", "http://"] {
        if let Some(head) = l.get(..scheme.len())
            && head.eq_ignore_ascii_case(scheme)
        {
            let rest = &l[scheme.len()..];
            return rest.find('/').map_or("/", |i| &rest[i..]);
        }
    }
    l
}

impl TdmRepFile {
    /// Parses the body of `/.well-known/tdmrep.json` (a UTF-8 BOM is tolerated).
    pub fn parse(body: &[u8]) -> Result<TdmRepFile, TdmRepError> {
        let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
        let value: Value =
            serde_json::from_slice(body).map_err(|e| TdmRepError::NotJson(e.to_string()))?;
        let Value::Array(items) = value else {
            return Err(TdmRepError::NotArray);
        };
        let mut file = TdmRepFile::default();
        for item in &items {
            let Some(location) = item.get("location").and_then(Value::as_str) else {
                file.skipped += 1;
                continue;
            };
            let reservation = item.get("tdm-reservation").and_then(TdmReservation::from_json);
            let policy = item
                .get("tdm-policy")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_owned);
            file.rules.push(TdmRule {
                location: location.to_owned(),
                reservation,
                policy,
                pattern: Pattern::new(location_path(location), false),
            });
        }
        Ok(file)
    }

    /// The rules, in file order.
    pub fn rules(&self) -> &[TdmRule] {
        &self.rules
    }

    /// The first rule whose location matches `path` (a URL path with its query), with
    /// its index.
    pub fn lookup(&self, path: &str) -> Option<(usize, &TdmRule)> {
        self.rules.iter().enumerate().find(|(_, r)| r.pattern.matches(path))
    }

    /// The first rule that reserves anything, for stop-site profiles ("publish a TDM
    /// reservation" stops the whole site).
    pub fn first_reservation(&self) -> Option<Reservation> {
        self.rules
            .iter()
            .enumerate()
            .find(|(_, r)| r.reservation == Some(TdmReservation::Reserved))
            .map(|(i, r)| Reservation {
                source: ReservationSource::TdmRepFile { rule: i, location: r.location.clone() },
                uses: UseSet::CONTENT,
                policy: r.policy.clone(),
            })
    }
}

/// A declaration from a header or meta tag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TdmDeclaration {
    /// The `tdm-reservation` value.
    pub reservation: TdmReservation,
    /// The `tdm-policy` URL, if any.
    pub policy: Option<String>,
}

/// Reads the `tdm-reservation` and `tdm-policy` response headers. `None` when the
/// reservation is absent or invalid (unset).
pub fn from_headers(headers: &[(&str, &str)]) -> Option<TdmDeclaration> {
    let raw = first_header(headers, "tdm-reservation")?;
    // Tolerate a repeated field folded into a list: any `1` reserves.
    let values: Vec<TdmReservation> =
        split_list(raw).into_iter().filter_map(TdmReservation::from_text).collect();
    let reservation = if values.contains(&TdmReservation::Reserved) {
        TdmReservation::Reserved
    } else {
        *values.first()?
    };
    let policy = first_header(headers, "tdm-policy").filter(|p| !p.is_empty()).map(str::to_owned);
    Some(TdmDeclaration { reservation, policy })
}

/// Reads `<meta name="tdm-reservation">` and `<meta name="tdm-policy">` from extracted
/// `(name, content)` pairs. `None` when the reservation is absent or invalid.
pub fn from_meta(meta: &[(&str, &str)]) -> Option<TdmDeclaration> {
    let find = |n: &str| {
        meta.iter().find(|(name, _)| name.trim().eq_ignore_ascii_case(n)).map(|(_, c)| c.trim())
    };
    let reservation = TdmReservation::from_text(find("tdm-reservation")?)?;
    let policy = find("tdm-policy").filter(|p| !p.is_empty()).map(str::to_owned);
    Some(TdmDeclaration { reservation, policy })
}

/// Which declaration decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TdmSource {
    /// A rule of `tdmrep.json`.
    File {
        /// The rule's index in the array (0-based).
        rule: usize,
        /// The rule's location as written.
        location: String,
    },
    /// The response headers.
    Header,
    /// The HTML meta tags.
    Meta,
}

impl fmt::Display for TdmSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdmSource::File { rule, location } => {
                write!(f, "tdmrep.json rule {} (location `{location}`)", rule + 1)
            }
            TdmSource::Header => f.write_str("the tdm-reservation header"),
            TdmSource::Meta => f.write_str("the tdm-reservation meta tag"),
        }
    }
}

/// Is TDM reserved for one resource, and by what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TdmDecision {
    /// Reserved by this declaration.
    Reserved {
        /// Which declaration.
        by: TdmSource,
        /// Its `tdm-policy`, if any.
        policy: Option<String>,
    },
    /// Explicitly not reserved (`0`) by this declaration.
    NotReserved {
        /// Which declaration.
        by: TdmSource,
    },
    /// Nothing declared for this resource.
    Unset,
}

impl TdmDecision {
    /// True when TDM is reserved.
    pub fn is_reserved(&self) -> bool {
        matches!(self, TdmDecision::Reserved { .. })
    }

    /// The reservation for [`super::reservation::decide_use`], when reserved.
    pub fn reservation(&self) -> Option<Reservation> {
        let TdmDecision::Reserved { by, policy } = self else {
            return None;
        };
        let source = match by {
            TdmSource::File { rule, location } => {
                ReservationSource::TdmRepFile { rule: *rule, location: location.clone() }
            }
            TdmSource::Header => ReservationSource::TdmRepHeader,
            TdmSource::Meta => ReservationSource::TdmRepMeta,
        };
        Some(Reservation { source, uses: UseSet::CONTENT, policy: policy.clone() })
    }
}

impl fmt::Display for TdmDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TdmDecision::Reserved { by, policy: Some(p) } => {
                write!(f, "tdm reserved by {by}, policy `{p}`")
            }
            TdmDecision::Reserved { by, policy: None } => write!(f, "tdm reserved by {by}"),
            TdmDecision::NotReserved { by } => write!(f, "tdm not reserved, per {by}"),
            TdmDecision::Unset => f.write_str("no tdm declaration"),
        }
    }
}

/// Decides for the resource at `path` (URL path with query) from the site's file (if it
/// was read), the response headers and the page's meta tags (if it was fetched).
pub fn decide(
    file: Option<&TdmRepFile>,
    headers: Option<&TdmDeclaration>,
    meta: Option<&TdmDeclaration>,
    path: &str,
) -> TdmDecision {
    let from_file = file.and_then(|f| f.lookup(path)).and_then(|(i, r)| {
        let by = TdmSource::File { rule: i, location: r.location.clone() };
        r.reservation.map(|res| (by, res, r.policy.clone()))
    });
    let candidates = from_file
        .into_iter()
        .chain(headers.map(|d| (TdmSource::Header, d.reservation, d.policy.clone())))
        .chain(meta.map(|d| (TdmSource::Meta, d.reservation, d.policy.clone())));
    let mut first_not_reserved = None;
    for (by, res, policy) in candidates {
        match res {
            TdmReservation::Reserved => return TdmDecision::Reserved { by, policy },
            TdmReservation::NotReserved => {
                first_not_reserved.get_or_insert(by);
            }
        }
    }
    match first_not_reserved {
        Some(by) => TdmDecision::NotReserved { by },
        None => TdmDecision::Unset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file in the style of the TDMRep report's examples.
    const FILE: &str = r#"[
      { "location": "/images/*.jpg$", "tdm-reservation": 1, "tdm-policy": "https://provider.example/policies/images" },
      { "location": "/press/", "tdm-reservation": 0 },
      { "location": "/blog/*", "tdm-reservation": 2 },
      { "location": "/", "tdm-reservation": 1 }
    ]"#;

    fn file() -> TdmRepFile {
        TdmRepFile::parse(FILE.as_bytes()).unwrap()
    }

    /// One case: path, headers and meta pairs, and the expected decision as text.
    #[track_caller]
    fn check(
        file: Option<&TdmRepFile>,
        headers: &[(&str, &str)],
        meta: &[(&str, &str)],
        path: &str,
        expect: &str,
    ) {
        let d = decide(file, from_headers(headers).as_ref(), from_meta(meta).as_ref(), path);
        assert_eq!(d.to_string(), expect, "{path}");
    }

    #[test]
    fn tdmrep_file_first_match_in_sequence() {
        let f = file();
        check(
            Some(&f),
            &[],
            &[],
            "/images/poster.jpg",
            "tdm reserved by tdmrep.json rule 1 (location `/images/*.jpg$`), policy `https://provider.example/policies/images`",
        );
        check(
            Some(&f),
            &[],
            &[],
            "/press/kit.html",
            "tdm not reserved, per tdmrep.json rule 2 (location `/press/`)",
        );
        check(
            Some(&f),
            &[],
            &[],
            "/events/42",
            "tdm reserved by tdmrep.json rule 4 (location `/`)",
        );
        // An invalid value (2) in the first matching rule is unset, not a reservation.
        check(Some(&f), &[], &[], "/blog/post", "no tdm declaration");
        check(
            Some(&f),
            &[],
            &[],
            "/images/poster.jpg?w=200",
            "tdm reserved by tdmrep.json rule 4 (location `/`)",
        );
        check(None, &[], &[], "/events/42", "no tdm declaration");
    }

    #[test]
    fn tdmrep_headers_and_meta() {
        check(
            None,
            &[("TDM-Reservation", "1")],
            &[],
            "/",
            "tdm reserved by the tdm-reservation header",
        );
        check(
            None,
            &[("tdm-reservation", " 1 "), ("tdm-policy", "https://provider.example/p")],
            &[],
            "/",
            "tdm reserved by the tdm-reservation header, policy `https://provider.example/p`",
        );
        check(
            None,
            &[("tdm-reservation", "0")],
            &[],
            "/",
            "tdm not reserved, per the tdm-reservation header",
        );
        check(None, &[("tdm-reservation", "yes")], &[], "/", "no tdm declaration");
        check(
            None,
            &[("tdm-reservation", "0, 1")],
            &[],
            "/",
            "tdm reserved by the tdm-reservation header",
        );
        check(
            None,
            &[],
            &[("tdm-reservation", "1")],
            "/",
            "tdm reserved by the tdm-reservation meta tag",
        );
        check(
            None,
            &[],
            &[("TDM-Reservation", "0"), ("tdm-policy", "x")],
            "/",
            "tdm not reserved, per the tdm-reservation meta tag",
        );
        check(None, &[], &[("robots", "1")], "/", "no tdm declaration");
    }

    #[test]
    fn seed_cixtra_a_reservation_anywhere_wins() {
        let f = TdmRepFile::parse(br#"[{"location": "/", "tdm-reservation": 0}]"#).unwrap();
        check(
            Some(&f),
            &[("tdm-reservation", "1")],
            &[],
            "/e",
            "tdm reserved by the tdm-reservation header",
        );
        check(
            Some(&f),
            &[("tdm-reservation", "0")],
            &[("tdm-reservation", "1")],
            "/e",
            "tdm reserved by the tdm-reservation meta tag",
        );
        let r = decide(None, from_headers(&[("tdm-reservation", "1")]).as_ref(), None, "/")
            .reservation()
            .unwrap();
        assert_eq!(r.uses, UseSet::CONTENT);
        assert_eq!(r.source, ReservationSource::TdmRepHeader);
        assert_eq!(
            file().first_reservation().unwrap().source,
            ReservationSource::TdmRepFile { rule: 0, location: "/images/*.jpg$".into() }
        );
        assert_eq!(TdmRepFile::parse(b"[]").unwrap().first_reservation(), None);
    }

    #[test]
    fn tdmrep_file_leniency_and_errors() {
        let f = TdmRepFile::parse(
            "\u{feff}[{\"location\": \"https://example.org/img/*\", \"tdm-reservation\": \"1\"}, \
             {\"tdm-reservation\": 1}, 7, {\"location\": \"/x\", \"tdm-reservation\": true}]"
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(f.rules().len(), 2);
        assert_eq!(f.skipped, 2);
        assert!(decide(Some(&f), None, None, "/img/a.png").is_reserved());
        assert!(decide(Some(&f), None, None, "/x").is_reserved());
        assert!(!decide(Some(&f), None, None, "/y").is_reserved());
        assert!(matches!(TdmRepFile::parse(b"{\"location\": \"/\"}"), Err(TdmRepError::NotArray)));
        assert!(matches!(TdmRepFile::parse(b"<html>"), Err(TdmRepError::NotJson(_))));
        assert!(matches!(TdmRepFile::parse(b""), Err(TdmRepError::NotJson(_))));
        assert!(!decide(None, None, None, "/").is_reserved());
        assert_eq!(TdmDecision::Unset.reservation(), None);
        // Found by the property test: a multi-byte character where a scheme could end.
        let f = TdmRepFile::parse(
            "[{\"location\": \"abcdef\u{e9}\", \"tdm-reservation\": 1}]".as_bytes(),
        )
        .unwrap();
        assert_eq!(f.rules().len(), 1);
    }
}
