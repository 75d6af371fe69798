//! The opt-out registry and owner overrides, checked before every request (SPEC §1,
//! "Opt-outs, overrides, removals"). In memory for now; the store and the owner forms
//! will feed it, and every process will see a change before its next request.
//!
//! Matching: a domain entry covers the domain and its subdomains on a dot boundary
//! (`example.org` covers `www.example.org`, not `badexample.org`), compared after IDN →
//! punycode and case folding; a URL-prefix entry matches the normalised URL.

use std::sync::RwLock;
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
    fn lookup(&self, url: &Url) -> OwnerRules;
}

/// A registry in memory.
#[derive(Debug, Default)]
pub struct MemoryRegistry {
    entries: RwLock<Vec<RegistryEntry>>,
}

impl MemoryRegistry {
    /// Adds an entry; it applies to the next request.
    pub fn add(&self, entry: RegistryEntry) {
        self.entries.write().unwrap_or_else(|p| p.into_inner()).push(entry);
    }

    /// Removes the entries with this reference.
    pub fn remove(&self, reference: &str) {
        self.entries
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|e| e.reference != reference);
    }
}

impl Registry for MemoryRegistry {
    fn lookup(&self, url: &Url) -> OwnerRules {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        let mut rules = OwnerRules { slowdown: 1, ..OwnerRules::default() };
        for entry in entries.iter().filter(|e| e.scope.covers(url)) {
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
        let registry = MemoryRegistry::default();
        let scope = Scope::domain("example.org").unwrap();
        registry.add(RegistryEntry {
            scope: scope.clone(),
            request: OwnerRequest::SlowDown(2),
            reference: "a".into(),
        });
        registry.add(RegistryEntry {
            scope: scope.clone(),
            request: OwnerRequest::SlowDown(4),
            reference: "b".into(),
        });
        registry.add(RegistryEntry {
            scope,
            request: OwnerRequest::FactsOnly,
            reference: "c".into(),
        });
        let rules = registry.lookup(&Url::parse("https://www.example.org/").unwrap());
        assert_eq!((rules.slowdown, rules.facts_only, rules.opted_out), (4, true, None));
        registry.remove("b");
        assert_eq!(registry.lookup(&Url::parse("https://example.org/").unwrap()).slowdown, 2);
    }
}
