//! The opt-out registry and owner overrides, checked before every request (SPEC §1,
//! "Opt-outs, overrides, removals"): the entries, how they match a URL, and the
//! [`Registry`] trait the gate asks. An in-memory registry lives in `gleaner-fetch`; the
//! store keeps one every process reads before each request.
//!
//! Matching: a domain entry covers the domain and its subdomains on a dot boundary
//! (`example.org` covers `www.example.org`, not `badexample.org`), compared after IDN →
//! punycode and case folding; a URL-prefix entry matches the normalised URL.

use std::time::SystemTime;

use url::Url;

/// What an owner asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnerRequest {
    /// Never fetch anything here again.
    OptOut,
    /// Multiply every gap by this factor.
    SlowDown(u32),
    /// Fetch nothing until then.
    PauseUntil(SystemTime),
    /// Keep facts only (no descriptions, images or translations).
    FactsOnly,
}

/// Where an owner's request applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// A domain and its subdomains (stored as lower-case punycode).
    Domain(String),
    /// URLs starting with this normalised prefix.
    UrlPrefix(String),
}

impl Scope {
    /// A domain scope, normalised (IDN to punycode, lower case, no trailing dot).
    /// Returns `None` when `domain` is not a host name.
    pub fn domain(domain: &str) -> Option<Scope> {
        let trimmed = domain.trim().trim_end_matches('.');
        let url = Url::parse(&format!("http://{trimmed}/")).ok()?;
        url.host_str().filter(|h| !h.is_empty()).map(|h| Scope::Domain(h.to_owned()))
    }

    /// A URL-prefix scope, normalised as a URL. Returns `None` when it does not parse.
    pub fn url_prefix(prefix: &str) -> Option<Scope> {
        Url::parse(prefix.trim()).ok().map(|u| Scope::UrlPrefix(u.to_string()))
    }

    /// Does this scope cover `url`?
    pub fn covers(&self, url: &Url) -> bool {
        match self {
            Scope::Domain(domain) => {
                let Some(host) = url.host_str() else { return false };
                let host = host.trim_end_matches('.');
                host == domain
                    || host.strip_suffix(domain.as_str()).is_some_and(|rest| rest.ends_with('.'))
            }
            Scope::UrlPrefix(prefix) => url.as_str().starts_with(prefix.as_str()),
        }
    }
}

/// One entry of the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegistryEntry {
    /// Where it applies.
    pub scope: Scope,
    /// What was asked.
    pub request: OwnerRequest,
    /// The receipt reference shown to the owner and in `explain`.
    pub reference: String,
}

impl std::fmt::Display for RegistryEntry {
    /// `domain example.org<TAB>opt-out`, as `gleaner optout list` shows it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.scope {
            Scope::Domain(d) => write!(f, "domain {d}\t")?,
            Scope::UrlPrefix(p) => write!(f, "prefix {p}\t")?,
        }
        match &self.request {
            OwnerRequest::OptOut => f.write_str("opt-out"),
            OwnerRequest::SlowDown(factor) => write!(f, "slow-down x{factor}"),
            OwnerRequest::PauseUntil(t) => {
                let t = chrono::DateTime::<chrono::Utc>::from(*t);
                write!(f, "pause until {}", t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            }
            OwnerRequest::FactsOnly => f.write_str("facts only"),
        }
    }
}

/// What applies to one URL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnerRules {
    /// The opt-out that covers it, if any (its reference).
    pub opted_out: Option<String>,
    /// The largest slow-down factor that covers it (1 = none).
    pub slowdown: u32,
    /// The latest pause that covers it.
    pub paused_until: Option<(SystemTime, String)>,
    /// Whether only facts may be kept.
    pub facts_only: bool,
}

/// Looks up owners' requests for a URL.
pub trait Registry: Send + Sync + std::fmt::Debug {
    /// Everything that applies to `url`.
    fn lookup<'a>(&'a self, url: &'a Url) -> crate::state::BoxFuture<'a, OwnerRules>;

    /// [`Registry::lookup`] again for a request that looked once and then waited, right
    /// before it is reserved: a registry told of every change (PostgreSQL `LISTEN`) may
    /// answer from what it last read while it heard of none. The same as `lookup` unless
    /// overridden.
    fn lookup_again<'a>(&'a self, url: &'a Url) -> crate::state::BoxFuture<'a, OwnerRules> {
        self.lookup(url)
    }
}

/// What a set of entries says about `url`: the opt-out, the strongest slow-down, the
/// latest pause, facts-only.
pub fn rules_for<'e>(
    entries: impl IntoIterator<Item = &'e RegistryEntry>,
    url: &Url,
) -> OwnerRules {
    let mut rules = OwnerRules { slowdown: 1, ..OwnerRules::default() };
    for entry in entries.into_iter().filter(|e| e.scope.covers(url)) {
        match &entry.request {
            OwnerRequest::OptOut => rules.opted_out = Some(entry.reference.clone()),
            OwnerRequest::SlowDown(factor) => rules.slowdown = rules.slowdown.max(*factor),
            OwnerRequest::PauseUntil(until) => {
                if rules.paused_until.as_ref().is_none_or(|(t, _)| until > t) {
                    rules.paused_until = Some((*until, entry.reference.clone()));
                }
            }
            OwnerRequest::FactsOnly => rules.facts_only = true,
        }
    }
    rules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers(scope: Option<Scope>, url: &str) -> bool {
        scope.expect("scope parses").covers(&Url::parse(url).unwrap())
    }

    #[test]
    fn spec_domains_cover_subdomains_on_a_dot_boundary() {
        assert!(covers(Scope::domain("example.org"), "https://example.org/x"));
        assert!(covers(Scope::domain("example.org"), "https://www.example.org/x"));
        assert!(covers(Scope::domain("Example.ORG."), "https://a.b.example.org/"));
        assert!(!covers(Scope::domain("example.org"), "https://badexample.org/"));
        assert!(!covers(Scope::domain("example.org"), "https://example.org.evil.test/"));
    }

    #[test]
    fn spec_idn_and_case_are_folded() {
        assert!(covers(Scope::domain("bücher.example"), "https://www.xn--bcher-kva.example/"));
        assert!(covers(Scope::domain("XN--BCHER-KVA.example"), "https://bücher.example/"));
    }

    #[test]
    fn spec_url_prefixes_match_normalised_urls() {
        assert!(covers(
            Scope::url_prefix("HTTPS://Example.org/agenda"),
            "https://example.org/agenda/1"
        ));
        assert!(!covers(
            Scope::url_prefix("https://example.org/agenda"),
            "https://example.org/news"
        ));
    }

    #[test]
    fn strongest_request_wins() {
        let scope = Scope::domain("example.org").unwrap();
        let entry = |request, reference: &str| RegistryEntry {
            scope: scope.clone(),
            request,
            reference: reference.into(),
        };
        let mut entries = vec![
            entry(OwnerRequest::SlowDown(2), "a"),
            entry(OwnerRequest::SlowDown(4), "b"),
            entry(OwnerRequest::FactsOnly, "c"),
        ];
        let rules = rules_for(&entries, &Url::parse("https://www.example.org/").unwrap());
        assert_eq!((rules.slowdown, rules.facts_only, rules.opted_out), (4, true, None));
        entries.retain(|e| e.reference != "b");
        assert_eq!(rules_for(&entries, &Url::parse("https://example.org/").unwrap()).slowdown, 2);
    }
}
