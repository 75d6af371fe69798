//! What a robots.txt fetch means: the RFC 9309 §2.3.1 outcome mapping as a pure state
//! machine.
//!
//! The fetcher reports what happened ([`FetchOutcome`]); [`decide`] turns it into a
//! [`RobotsDecision`]: use these [`RobotsState::Rules`], [`RobotsState::AllowAll`],
//! [`RobotsState::Blocked`] (a profile that treats 401/403 as a "no"), or
//! [`RobotsState::FetchNothing`] until robots.txt can be read again. Every decision
//! carries its [`RobotsReason`] and the instant until which it holds.
//!
//! Redirects are followed hop by hop by the fetcher: [`follow_redirect`] says whether
//! one more hop is allowed. Rules read at the end of a chain apply to the authority of
//! the *original* URL (RFC 9309 §2.3.1.2); more than [`RobotsFetchPolicy::max_redirects`]
//! hops means unreachable, which fails closed.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::parse::RobotsTxt;

/// What to do when robots.txt answers 401 or 403.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnUnauthorized {
    /// RFC 9309 §2.3.1.3: "unavailable", so everything is allowed (UGYBot, AubeActuBot).
    #[default]
    AllowAll,
    /// The profile reads a 401/403 on robots.txt as a "no" (CIXTRA-Bot, FestroBot).
    Block,
}

/// The robots.txt settings of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsFetchPolicy {
    /// How long a successfully read robots.txt (or an "allow all") is trusted.
    pub ttl: Duration,
    /// 401/403 handling.
    pub on_unauthorized: OnUnauthorized,
    /// Most redirect hops followed for robots.txt itself (RFC 9309: at least five).
    pub max_redirects: u8,
    /// First wait before robots.txt is read again after it could not be read.
    pub retry_base: Duration,
    /// Longest wait between re-reads of an unreadable robots.txt.
    pub retry_max: Duration,
    /// How long a 401/403 block holds when `on_unauthorized` is `Block`.
    pub block_duration: Duration,
}

impl Default for RobotsFetchPolicy {
    /// The strictest seed's numbers: a 1 h cache (UGYBot), 5 hops, re-reads after 1 min
    /// doubling up to 1 h, a 24 h block.
    fn default() -> Self {
        RobotsFetchPolicy {
            ttl: Duration::from_secs(3600),
            on_unauthorized: OnUnauthorized::AllowAll,
            max_redirects: 5,
            retry_base: Duration::from_secs(60),
            retry_max: Duration::from_secs(3600),
            block_duration: Duration::from_secs(24 * 3600),
        }
    }
}

/// What happened when the fetcher asked for robots.txt, after following redirects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchOutcome {
    /// A response with this status and body. 3xx here means a redirect that could not be
    /// followed (no usable `Location`).
    Response {
        /// HTTP status code.
        status: u16,
        /// The body (only read for 2xx).
        body: Vec<u8>,
    },
    /// More redirect hops than the policy allows.
    TooManyRedirects {
        /// Hops followed before giving up.
        hops: u8,
    },
    /// The redirect chain came back to a URL it had already visited.
    RedirectLoop,
    /// No complete response within the deadline.
    Timeout,
    /// DNS failure, refused or reset connection, TLS failure.
    ConnectionFailed,
    /// The body was larger than the fetcher's cap and was not read (it is not parsed:
    /// a truncated robots.txt could drop a Disallow).
    TooLarge,
}

/// What gleaner may do on a site, as far as robots.txt is concerned.
#[derive(Debug, Clone, PartialEq)]
pub enum RobotsState {
    /// Obey these rules.
    Rules(Arc<RobotsTxt>),
    /// No restrictions (robots.txt missing or unavailable per RFC 9309 §2.3.1.3).
    AllowAll,
    /// The site refused robots.txt with 401/403 and the profile reads that as a "no".
    Blocked,
    /// robots.txt could not be read: fetch nothing else from the site (RFC 9309
    /// §2.3.1.4, "unreachable" → complete disallow).
    FetchNothing,
}

/// Why [`decide`] chose its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsReason {
    /// 2xx: the file was read.
    Read {
        /// HTTP status.
        status: u16,
    },
    /// 401/403 and the profile treats it as "unavailable".
    UnauthorizedAllowAll {
        /// HTTP status.
        status: u16,
    },
    /// 401/403 and the profile treats it as a block.
    UnauthorizedBlock {
        /// HTTP status.
        status: u16,
    },
    /// Another 4xx (404, 410, …): unavailable, allow all.
    Unavailable {
        /// HTTP status.
        status: u16,
    },
    /// 429: too many requests; unreachable.
    TooManyRequests,
    /// 5xx: server error; unreachable.
    ServerError {
        /// HTTP status.
        status: u16,
    },
    /// A 3xx that could not be followed, or another unexpected status.
    UnexpectedStatus {
        /// HTTP status.
        status: u16,
    },
    /// Too many redirect hops.
    TooManyRedirects {
        /// Hops followed.
        hops: u8,
    },
    /// A redirect loop.
    RedirectLoop,
    /// Timed out.
    Timeout,
    /// Could not connect.
    ConnectionFailed,
    /// Body over the size cap.
    TooLarge,
}

impl fmt::Display for RobotsReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RobotsReason::Read { status } => write!(f, "robots.txt read (HTTP {status})"),
            RobotsReason::UnauthorizedAllowAll { status } => write!(
                f,
                "robots.txt answered HTTP {status}: treated as unavailable, everything allowed (RFC 9309 section 2.3.1.3)"
            ),
            RobotsReason::UnauthorizedBlock { status } => {
                write!(f, "robots.txt answered HTTP {status}: this profile reads that as a block")
            }
            RobotsReason::Unavailable { status } => write!(
                f,
                "robots.txt answered HTTP {status}: unavailable, everything allowed (RFC 9309 section 2.3.1.3)"
            ),
            RobotsReason::TooManyRequests => {
                write!(f, "robots.txt answered HTTP 429: fetching nothing until it can be read")
            }
            RobotsReason::ServerError { status } => write!(
                f,
                "robots.txt answered HTTP {status}: fetching nothing until it can be read (RFC 9309 section 2.3.1.4)"
            ),
            RobotsReason::UnexpectedStatus { status } => write!(
                f,
                "robots.txt answered HTTP {status}: unreachable, fetching nothing until it can be read"
            ),
            RobotsReason::TooManyRedirects { hops } => write!(
                f,
                "robots.txt redirected more than {hops} times: unreachable, fetching nothing until it can be read"
            ),
            RobotsReason::RedirectLoop => write!(
                f,
                "robots.txt redirects in a loop: unreachable, fetching nothing until it can be read"
            ),
            RobotsReason::Timeout => {
                write!(f, "robots.txt timed out: fetching nothing until it can be read")
            }
            RobotsReason::ConnectionFailed => write!(
                f,
                "could not connect to read robots.txt: fetching nothing until it can be read"
            ),
            RobotsReason::TooLarge => write!(
                f,
                "robots.txt was larger than the size cap: fetching nothing until it can be read"
            ),
        }
    }
}

/// The result of [`decide`]: a state, why, and until when it holds. After `valid_until`
/// robots.txt must be read again before anything else is fetched.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotsDecision {
    /// What may be fetched.
    pub state: RobotsState,
    /// Why.
    pub reason: RobotsReason,
    /// When robots.txt must be (re-)read.
    pub valid_until: SystemTime,
    /// Consecutive failures to read robots.txt, this one included (0 after a success);
    /// the caller stores it and passes it back to the next [`decide`].
    pub failures: u32,
}

impl RobotsDecision {
    /// True when nothing but robots.txt may be fetched from the site right now.
    pub fn fetches_nothing(&self) -> bool {
        matches!(self.state, RobotsState::FetchNothing | RobotsState::Blocked)
    }
}

/// Whether the fetcher may follow one more redirect for robots.txt, having followed
/// `hops_done` already.
pub fn follow_redirect(policy: &RobotsFetchPolicy, hops_done: u8) -> bool {
    hops_done < policy.max_redirects
}

/// Maps a robots.txt fetch outcome to a decision (RFC 9309 §2.3.1, SPEC §1).
///
/// `previous_failures` is the stored count of consecutive failures before this fetch;
/// `retry_after` is a `Retry-After` wait already decided by the signals module, if the
/// response carried one: a re-read never happens before it.
pub fn decide(
    outcome: &FetchOutcome,
    policy: &RobotsFetchPolicy,
    now: SystemTime,
    previous_failures: u32,
    retry_after: Option<Duration>,
) -> RobotsDecision {
    let success = |state, reason| RobotsDecision {
        state,
        reason,
        valid_until: now + policy.ttl,
        failures: 0,
    };
    let unreachable = |reason| {
        let failures = previous_failures.saturating_add(1);
        let backoff = backoff(policy, failures).max(retry_after.unwrap_or_default());
        RobotsDecision {
            state: RobotsState::FetchNothing,
            reason,
            valid_until: now + backoff,
            failures,
        }
    };
    match outcome {
        FetchOutcome::Response { status, body } => match *status {
            200..=299 => success(
                RobotsState::Rules(Arc::new(RobotsTxt::parse(body))),
                RobotsReason::Read { status: *status },
            ),
            401 | 403 => match policy.on_unauthorized {
                OnUnauthorized::AllowAll => success(
                    RobotsState::AllowAll,
                    RobotsReason::UnauthorizedAllowAll { status: *status },
                ),
                OnUnauthorized::Block => RobotsDecision {
                    state: RobotsState::Blocked,
                    reason: RobotsReason::UnauthorizedBlock { status: *status },
                    valid_until: now + policy.block_duration,
                    failures: 0,
                },
            },
            429 => unreachable(RobotsReason::TooManyRequests),
            400..=499 => {
                success(RobotsState::AllowAll, RobotsReason::Unavailable { status: *status })
            }
            500..=599 => unreachable(RobotsReason::ServerError { status: *status }),
            other => unreachable(RobotsReason::UnexpectedStatus { status: other }),
        },
        FetchOutcome::TooManyRedirects { hops } => {
            unreachable(RobotsReason::TooManyRedirects { hops: *hops })
        }
        FetchOutcome::RedirectLoop => unreachable(RobotsReason::RedirectLoop),
        FetchOutcome::Timeout => unreachable(RobotsReason::Timeout),
        FetchOutcome::ConnectionFailed => unreachable(RobotsReason::ConnectionFailed),
        FetchOutcome::TooLarge => unreachable(RobotsReason::TooLarge),
    }
}

/// The wait before re-reading an unreadable robots.txt after `failures` consecutive
/// failures: `retry_base` doubled per failure, capped at `retry_max`.
pub fn backoff(policy: &RobotsFetchPolicy, failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(20);
    policy.retry_base.saturating_mul(1 << doublings).min(policy.retry_max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Duration = Duration::from_secs(1_800_000_000);

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + T0 + Duration::from_secs(secs)
    }

    fn response(status: u16, body: &str) -> FetchOutcome {
        FetchOutcome::Response { status, body: body.as_bytes().to_vec() }
    }

    /// One table row: outcome, policy, expected state kind and expected wait.
    fn check(outcome: FetchOutcome, on_unauthorized: OnUnauthorized, kind: &str, wait_secs: u64) {
        let policy = RobotsFetchPolicy { on_unauthorized, ..RobotsFetchPolicy::default() };
        let d = decide(&outcome, &policy, at(0), 0, None);
        let got = match d.state {
            RobotsState::Rules(_) => "rules",
            RobotsState::AllowAll => "allow-all",
            RobotsState::Blocked => "blocked",
            RobotsState::FetchNothing => "fetch-nothing",
        };
        assert_eq!(got, kind, "{outcome:?}: {}", d.reason);
        assert_eq!(d.valid_until, at(wait_secs), "{outcome:?}");
    }

    use OnUnauthorized::{AllowAll, Block};

    #[test]
    fn rfc9309_outcome_table() {
        check(response(200, "User-agent: *\nDisallow: /"), AllowAll, "rules", 3600);
        check(response(204, ""), AllowAll, "rules", 3600);
        check(response(404, ""), AllowAll, "allow-all", 3600);
        check(response(410, ""), AllowAll, "allow-all", 3600);
        check(response(401, ""), AllowAll, "allow-all", 3600);
        check(response(403, ""), AllowAll, "allow-all", 3600);
        check(response(429, ""), AllowAll, "fetch-nothing", 60);
        check(response(500, ""), AllowAll, "fetch-nothing", 60);
        check(response(503, ""), AllowAll, "fetch-nothing", 60);
        check(response(302, ""), AllowAll, "fetch-nothing", 60);
        check(FetchOutcome::TooManyRedirects { hops: 5 }, AllowAll, "fetch-nothing", 60);
        check(FetchOutcome::RedirectLoop, AllowAll, "fetch-nothing", 60);
        check(FetchOutcome::Timeout, AllowAll, "fetch-nothing", 60);
        check(FetchOutcome::ConnectionFailed, AllowAll, "fetch-nothing", 60);
        check(FetchOutcome::TooLarge, AllowAll, "fetch-nothing", 60);
    }

    #[test]
    fn seed_cixtra_and_festro_read_401_403_as_a_block() {
        check(response(401, ""), Block, "blocked", 24 * 3600);
        check(response(403, ""), Block, "blocked", 24 * 3600);
        // Other 4xx are still "unavailable" for them.
        check(response(404, ""), Block, "allow-all", 3600);
    }

    #[test]
    fn rfc9309_five_redirect_hops_are_followed_not_six() {
        let policy = RobotsFetchPolicy::default();
        assert!(follow_redirect(&policy, 0));
        assert!(follow_redirect(&policy, 4));
        assert!(!follow_redirect(&policy, 5));
    }

    #[test]
    fn failures_back_off_and_reset_on_success() {
        let policy = RobotsFetchPolicy::default();
        let d1 = decide(&FetchOutcome::Timeout, &policy, at(0), 0, None);
        assert_eq!((d1.failures, d1.valid_until), (1, at(60)));
        let d2 = decide(&FetchOutcome::Timeout, &policy, at(60), d1.failures, None);
        assert_eq!((d2.failures, d2.valid_until), (2, at(60 + 120)));
        let d9 = decide(&FetchOutcome::Timeout, &policy, at(0), 30, None);
        assert_eq!(d9.valid_until, at(3600), "capped at retry_max");
        let ok = decide(&response(404, ""), &policy, at(0), 9, None);
        assert_eq!(ok.failures, 0);
    }

    #[test]
    fn retry_after_delays_the_reread() {
        let policy = RobotsFetchPolicy::default();
        let d = decide(&response(503, ""), &policy, at(0), 0, Some(Duration::from_secs(900)));
        assert_eq!(d.valid_until, at(900));
        assert!(d.fetches_nothing());
        assert!(d.reason.to_string().contains("503"));
    }
}
