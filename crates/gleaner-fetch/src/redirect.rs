//! Redirects, hop by hop. The client never follows a redirect itself: each hop comes
//! back to the caller as a new URL, so the gate can check the target site's robots.txt,
//! opt-outs and budget before it is requested (SPEC §1, "Redirects"; UGYBot admits it
//! skips this).
//!
//! [`RedirectChain`] keeps the rules that do not depend on the target site: at most
//! `max_hops` hops, no loops, http(s) only, no userinfo, and no secret query parameter
//! carried to another host.

use std::collections::HashSet;

use url::Url;

/// Why a redirect is not followed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RedirectError {
    /// More hops than allowed.
    #[error("more than {max} redirects")]
    TooManyHops {
        /// The limit.
        max: u8,
    },
    /// The chain came back to a URL it had visited.
    #[error("redirect loop back to `{0}`")]
    Loop(String),
    /// A 3xx without a usable `Location`.
    #[error("redirect without a usable Location header")]
    MissingLocation,
    /// `Location` does not parse.
    #[error("redirect to an invalid URL `{0}`")]
    InvalidLocation(String),
    /// A scheme other than http or https.
    #[error("redirect to a `{0}` URL; only http and https are followed")]
    Scheme(String),
    /// Userinfo (`user:pass@`) in the target.
    #[error("redirect to a URL with credentials; refused")]
    Credentials,
}

/// One redirect chain, from the first request to the final response.
#[derive(Debug, Clone)]
pub struct RedirectChain {
    max_hops: u8,
    hops: u8,
    visited: HashSet<String>,
    current: Url,
    secret_params: Vec<String>,
}

impl RedirectChain {
    /// Starts a chain at `start`. `secret_params` are lower-case query parameter names
    /// that must not follow the chain to another host.
    pub fn new(start: Url, max_hops: u8, secret_params: Vec<String>) -> RedirectChain {
        let mut visited = HashSet::new();
        visited.insert(without_fragment(&start));
        RedirectChain { max_hops, hops: 0, visited, current: start, secret_params }
    }

    /// The URL of the latest hop.
    pub fn current(&self) -> &Url {
        &self.current
    }

    /// Hops followed so far.
    pub fn hops(&self) -> u8 {
        self.hops
    }

    /// Takes a `Location` header value from a 3xx response to [`Self::current`] and
    /// returns the next URL to request (through the gate), or why not.
    pub fn follow(&mut self, location: Option<&str>) -> Result<Url, RedirectError> {
        let location = location
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .ok_or(RedirectError::MissingLocation)?;
        if self.hops >= self.max_hops {
            return Err(RedirectError::TooManyHops { max: self.max_hops });
        }
        let mut next = self
            .current
            .join(location)
            .map_err(|_| RedirectError::InvalidLocation(location.to_owned()))?;
        if !matches!(next.scheme(), "http" | "https") {
            return Err(RedirectError::Scheme(next.scheme().to_owned()));
        }
        if !next.username().is_empty() || next.password().is_some() {
            return Err(RedirectError::Credentials);
        }
        next.set_fragment(None);
        if next.host_str() != self.current.host_str()
            || next.port_or_known_default() != self.current.port_or_known_default()
        {
            strip_params(&mut next, &self.secret_params);
        }
        if !self.visited.insert(without_fragment(&next)) {
            return Err(RedirectError::Loop(next.to_string()));
        }
        self.hops += 1;
        self.current = next.clone();
        Ok(next)
    }
}

fn without_fragment(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.to_string()
}

/// Removes the named query parameters (case-insensitive): secrets that must not cross
/// hosts, and a licensed API's key from what the pass keeps.
pub fn strip_params(url: &mut Url, names: &[String]) {
    if url.query().is_none() || names.is_empty() {
        return;
    }
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !names.iter().any(|n| n.eq_ignore_ascii_case(k)))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(start: &str) -> RedirectChain {
        RedirectChain::new(Url::parse(start).unwrap(), 5, vec!["apikey".into()])
    }

    #[test]
    fn relative_locations_resolve_against_the_current_hop() {
        let mut c = chain("http://a.test/x/y");
        assert_eq!(c.follow(Some("../z")).unwrap().as_str(), "http://a.test/z");
        assert_eq!(c.follow(Some("//b.test/w")).unwrap().as_str(), "http://b.test/w");
        assert_eq!(c.hops(), 2);
    }

    #[test]
    fn five_hops_then_stop() {
        let mut c = chain("http://a.test/0");
        for i in 1..=5 {
            assert!(c.follow(Some(&format!("/{i}"))).is_ok(), "hop {i}");
        }
        assert_eq!(c.follow(Some("/6")), Err(RedirectError::TooManyHops { max: 5 }));
    }

    #[test]
    fn loops_are_detected() {
        let mut c = chain("http://a.test/a");
        c.follow(Some("/b")).unwrap();
        assert!(matches!(c.follow(Some("/a#frag")), Err(RedirectError::Loop(_))));
    }

    #[test]
    fn unsafe_targets_are_refused() {
        assert_eq!(chain("http://a.test/").follow(None), Err(RedirectError::MissingLocation));
        assert_eq!(
            chain("http://a.test/").follow(Some("file:///etc/passwd")),
            Err(RedirectError::Scheme("file".into()))
        );
        assert_eq!(
            chain("http://a.test/").follow(Some("http://u:p@b.test/")),
            Err(RedirectError::Credentials)
        );
        assert!(matches!(
            chain("http://a.test/").follow(Some("http://[::1")),
            Err(RedirectError::InvalidLocation(_))
        ));
    }

    #[test]
    fn secrets_stay_on_their_host() {
        let mut c = chain("https://api.test/e?apikey=k1&city=x");
        let same = c.follow(Some("/e2?apikey=k1&city=x")).unwrap();
        assert_eq!(same.query(), Some("apikey=k1&city=x"), "same host keeps it");
        let other = c.follow(Some("https://cdn.test/e?ApiKey=k1&city=x")).unwrap();
        assert_eq!(other.query(), Some("city=x"), "another host never gets it");
    }
}
