//! Reading a site's robots.txt over the network and turning the outcome into a
//! [`RobotsDecision`] (RFC 9309 §2.3.1, via `gleaner_policy::robots::outcome`).
//!
//! Redirects of robots.txt itself are followed up to the policy's hop limit (5); the
//! rules read at the end of the chain apply to the *original* site. More hops, a loop,
//! a timeout, a refused connection, 429 or 5xx all mean "fetch nothing else from this
//! site until robots.txt can be read again". A 429/503 `Retry-After` delays that re-read.

use std::time::SystemTime;

use gleaner_policy::robots::outcome::{self, FetchOutcome, RobotsDecision, RobotsFetchPolicy};
use gleaner_policy::signals::{SignalSettings, retry_after};
use url::Url;

use crate::client::{Client, FetchError, FetchRequest};
use crate::redirect::{RedirectChain, RedirectError};

/// One request made while reading robots.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsHop {
    /// The URL requested.
    pub url: Url,
    /// Its status, or `None` when no response came.
    pub status: Option<u16>,
}

/// The result of reading robots.txt: the decision and the requests it took.
#[derive(Debug, Clone)]
pub struct RobotsRead {
    /// What may be fetched from the site, why, and until when.
    pub decision: RobotsDecision,
    /// Every request made, in order (the first is `/robots.txt` of the site).
    pub hops: Vec<RobotsHop>,
    /// The robots.txt bytes when it was read (for the archive).
    pub body: Option<Vec<u8>>,
}

/// The robots.txt URL of the site (scheme, host and port) of `url`.
pub fn robots_url(url: &Url) -> Url {
    let mut robots = url.clone();
    robots.set_path("/robots.txt");
    robots.set_query(None);
    robots.set_fragment(None);
    robots
}

/// What one robots.txt response means: another hop to follow, or the final outcome
/// with the `Retry-After` wait a 429/503 asked for.
pub(crate) enum RobotsStep {
    /// A redirect to follow.
    Follow(Url),
    /// The outcome, and any Retry-After wait.
    Done(FetchOutcome, Option<std::time::Duration>),
}

/// Turns one response to a robots.txt request into the next step of the chain.
pub(crate) fn robots_step(
    chain: &mut RedirectChain,
    fetched: &crate::client::Fetched,
    now: SystemTime,
    signals: &SignalSettings,
) -> RobotsStep {
    if fetched.is_redirect() {
        return match chain.follow(fetched.location()) {
            Ok(url) => RobotsStep::Follow(url),
            Err(RedirectError::TooManyHops { max }) => {
                RobotsStep::Done(FetchOutcome::TooManyRedirects { hops: max }, None)
            }
            Err(RedirectError::Loop(_)) => RobotsStep::Done(FetchOutcome::RedirectLoop, None),
            Err(_) => RobotsStep::Done(
                FetchOutcome::Response { status: fetched.status, body: Vec::new() },
                None,
            ),
        };
    }
    let retry_after = matches!(fetched.status, 429 | 503).then(|| {
        let headers: Vec<(&str, &str)> =
            fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        retry_after::from_headers(&headers, now, signals).wait
    });
    RobotsStep::Done(
        FetchOutcome::Response { status: fetched.status, body: fetched.body.to_vec() },
        retry_after,
    )
}

/// The path and query of a URL, as robots.txt rules match it.
pub fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

/// Reads robots.txt for the site of `url`, following redirects up to the policy's hop
/// limit, and decides what may be fetched. `now` reads the caller's clock (the decision's
/// validity is measured from it). An error means gleaner refused to send the request
/// itself (the SSRF guard, say): nothing was learnt about the site.
pub async fn read_robots(
    client: &Client,
    url: &Url,
    policy: &RobotsFetchPolicy,
    signals: &SignalSettings,
    previous_failures: u32,
    now: impl Fn() -> SystemTime,
) -> Result<RobotsRead, FetchError> {
    let start = robots_url(url);
    let mut chain = RedirectChain::new(start.clone(), policy.max_redirects, Vec::new());
    let mut hops = Vec::new();
    let mut next = start;
    let (outcome, retry_after) = loop {
        let result = client.fetch(&FetchRequest::get(next.clone())).await;
        let fetched = match result {
            Ok(fetched) => fetched,
            Err(error) if error.is_local_refusal() => return Err(error),
            Err(error) => {
                hops.push(RobotsHop { url: next, status: None });
                break (error.robots_outcome(), None);
            }
        };
        hops.push(RobotsHop { url: next.clone(), status: Some(fetched.status) });
        match robots_step(&mut chain, &fetched, now(), signals) {
            RobotsStep::Follow(url) => next = url,
            RobotsStep::Done(outcome, retry_after) => break (outcome, retry_after),
        }
    };
    let body = match &outcome {
        FetchOutcome::Response { status: 200..=299, body } => Some(body.clone()),
        _ => None,
    };
    let decision = outcome::decide(&outcome, policy, now(), previous_failures, retry_after);
    Ok(RobotsRead { decision, hops, body })
}
