//! The gate: every outbound request asks it first (SPEC §1).
//!
//! For each request the gate, in order:
//! 1. consults the owners' registry (opt-out, pause, slow-down) — a "no" wins at once;
//! 2. makes sure the site's robots.txt is known, reading it *through the gate itself*
//!    (purpose `robots`, same budget) when it is missing or expired; while it cannot be
//!    read, nothing else is requested from the site; a disallowed path is refused with
//!    the rule and line that said so. The gate decides on the robots.txt memory it last
//!    saw for the site (no read of the state per request); the reservation (3.) checks
//!    that the state it locks still holds that memory, and when another process read
//!    robots.txt again meanwhile it reserves nothing and the request is decided again;
//! 3. waits for the site's budget ([`gleaner_policy::budget`]): spacing shared by every
//!    purpose, in-flight caps, quotas, quiet hours, suspensions, blocks; waiting
//!    requests of one site are served by purpose priority (a visitor's image before a
//!    background link check), then first come first served; the budget is reserved in
//!    the state *before* the request is sent;
//! 4. sends it with the [`Client`], releases the in-flight slot, and turns the answer
//!    into state: 429/503 suspend the whole site per `Retry-After`; 401/403 and
//!    challenge pages store a block; failures count toward the site's streak;
//! 5. writes one audit record per request, sent or refused, with the reason.
//!
//! Redirects are not followed here: a 3xx comes back to the caller, whose next hop is a
//! new request through the gate (robots.txt of the target site, its budget, the
//! registry); [`Gate::fetch_following`] does that loop.

mod agent_cache;
pub mod audit;
pub mod clock;
mod decide;
pub mod registry;
pub mod state;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// How recent the caller's registry check must be for the reservation right after it to
/// skip its own (no wait in between): an opt-out committed in that window stops the
/// site's next request instead.
const REGISTRY_FRESH: Duration = Duration::from_millis(100);

use gleaner_config::Settings;
use gleaner_config::settings::{PurposePoliteness, SiteClass};
use gleaner_policy::Purpose;
use gleaner_policy::budget::{self, BudgetDecision, BudgetRules, DenyReason, PassMark, WaitReason};
use gleaner_policy::robots::Verdict;
use gleaner_policy::robots::outcome::{self, FetchOutcome, RobotsState};
use gleaner_policy::signals::{challenge, retry_after};
use tokio::sync::Notify;
use url::Url;

use crate::client::{Client, FetchError, FetchRequest, Fetched, Method, Validators};
use crate::redirect::{RedirectChain, RedirectError};
use crate::robots::{RobotsStep, robots_step, robots_url};
use audit::{AuditRecord, AuditSink};
use clock::WallClock;
use decide::{Decision, Stage, Steps};
use gleaner_policy::outcome::{Outcome, RefusalKind};
use registry::Registry;
use state::{GateState, RobotsMemory, StateError};

/// One request asked of the gate.
#[derive(Debug, Clone)]
pub struct GateRequest {
    /// What to fetch.
    pub url: Url,
    /// Why.
    pub purpose: Purpose,
    /// The configured source asking, for the audit log.
    pub source: Option<String>,
    /// Whether it starts or continues a pass over the site.
    pub pass: PassMark,
    /// Validators for a conditional request.
    pub validators: Validators,
    /// GET, or HEAD where the profile allows it.
    pub method: Method,
    /// Give up waiting for the budget after this (wall) time and report
    /// [`GateOutcome::Deferred`]; `None` waits as long as needed.
    pub wait_until_at_most: Option<SystemTime>,
    /// Close the site's connection after the answer ([`FetchRequest::close_after`]):
    /// the caller knows its next request to the site is not soon. A robots.txt read
    /// the gate makes first keeps the connection for this request.
    pub close_after: bool,
}

impl GateRequest {
    /// A GET of `url` for `purpose`, outside any pass, waiting as long as needed.
    pub fn new(url: Url, purpose: Purpose) -> GateRequest {
        GateRequest {
            url,
            purpose,
            source: None,
            pass: PassMark::None,
            validators: Validators::default(),
            method: Method::Get,
            wait_until_at_most: None,
            close_after: false,
        }
    }
}

/// The answer of [`Gate::explain`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplainVerdict {
    /// It would be sent now.
    Now,
    /// Not before this time.
    NotBefore(SystemTime),
    /// When a request in flight to the site ends.
    WhenARequestEnds,
    /// Not at all as things stand.
    Refused,
}

/// Would a request be sent now, and the steps of the decision, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explanation {
    /// The answer.
    pub verdict: ExplainVerdict,
    /// Each check and what it said.
    pub steps: Vec<String>,
}

/// Why the gate refused a request without sending it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An owner opted out (the registry reference).
    OptedOut(String),
    /// robots.txt disallows the path.
    Disallowed(Verdict),
    /// robots.txt could not be read, or refused us with 401/403: nothing else until then.
    RobotsUnreadable {
        /// When robots.txt will be read again.
        until: SystemTime,
        /// Why.
        reason: String,
    },
    /// The budget refused (a block, a disabled purpose, a used-up pass).
    Budget(DenyReason),
    /// gleaner itself would not send it (SSRF guard, URL, method).
    Local(FetchError),
}

impl Refusal {
    /// The kind of refusal, for the audit log, `/metrics` and reports.
    pub fn kind(&self) -> RefusalKind {
        match self {
            Refusal::OptedOut(_) => RefusalKind::OptedOut,
            Refusal::Disallowed(_) => RefusalKind::RobotsDisallowed,
            Refusal::RobotsUnreadable { .. } => RefusalKind::RobotsUnreadable,
            Refusal::Budget(reason) => reason.kind(),
            Refusal::Local(_) => RefusalKind::Address,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::OptedOut(reference) => {
                write!(f, "the owner opted out (request `{reference}`)")
            }
            Refusal::Disallowed(verdict) => write!(f, "robots.txt: {verdict}"),
            Refusal::RobotsUnreadable { reason, .. } => write!(f, "{reason}"),
            Refusal::Budget(reason) => write!(f, "{reason}"),
            Refusal::Local(error) => write!(f, "{error}"),
        }
    }
}

/// What happened to a request.
#[derive(Debug, Clone)]
pub enum GateOutcome {
    /// Sent; this is the response (any status, 3xx included).
    Fetched(Fetched),
    /// Not sent, and not to be sent as things stand.
    Refused(Refusal),
    /// Not sent yet: it could start at `until` (or when a request ends), later than the
    /// caller was willing to wait. Re-queue it; it is not a failure.
    Deferred {
        /// Earliest start, when known.
        until: Option<SystemTime>,
        /// The budget's reason as a value, when the budget deferred it (the global daily
        /// cap, a quota, the site's gap, quiet hours, the site's robots.txt visit
        /// windows…; see [`WaitReason::code`]), for the pass report.
        hold: Option<WaitReason>,
        /// Why, in words.
        why: String,
    },
    /// Sent, but no response came (timeout, connection, body errors).
    Failed(FetchError),
}

impl GateOutcome {
    /// The response, when one came.
    pub fn fetched(&self) -> Option<&Fetched> {
        match self {
            GateOutcome::Fetched(f) => Some(f),
            _ => None,
        }
    }
}

/// In-process coordination for one site: who is waiting, and a bell rung whenever the
/// site's state changes.
#[derive(Debug, Default)]
struct SiteLocal {
    changed: Notify,
    /// The bot's compiled robots.txt rules, with the file they came from.
    agent_rules: agent_cache::AgentCache,
    waiting: Mutex<BTreeSet<(u8, u64)>>,
    robots_refresh: tokio::sync::Mutex<()>,
    /// The site's robots.txt memory as the state last gave it (without its bytes), so a
    /// request decides without reading the state first (issue 27: a round trip per
    /// request on PostgreSQL). The reservation checks it against the state it locks
    /// ([`robots_stamp`]): when another process read robots.txt again meanwhile, nothing
    /// is reserved and the request decides again on the new memory.
    robots: Mutex<Option<RobotsMemory>>,
}

/// What identifies one reading of a site's robots.txt in the state: when it expires
/// (each reading sets it anew), and its failure count.
fn robots_stamp(memory: Option<&RobotsMemory>) -> Option<(SystemTime, u32)> {
    memory.map(|m| (m.valid_until, m.failures))
}

/// `memory` without its bytes, for [`SiteLocal::robots`] (the compiled rules are cached
/// by the file's `Arc`, so the bytes are not needed to decide).
fn without_body(memory: Option<&RobotsMemory>) -> Option<RobotsMemory> {
    memory.map(|m| RobotsMemory { body: None, ..m.clone() })
}

/// Serving order between purposes waiting at one site (lower first).
fn priority(purpose: Purpose) -> u8 {
    match purpose {
        Purpose::ImageRelay => 0,
        Purpose::Robots => 1,
        Purpose::OwnerVerification => 2,
        Purpose::ManualCheck => 3,
        Purpose::CancellationCheck => 4,
        Purpose::EventPage => 5,
        Purpose::Listing | Purpose::Feed | Purpose::Api | Purpose::Sitemap => 6,
        Purpose::RightsSignal => 7,
        Purpose::TermsPage => 8,
        Purpose::LinkCheck => 9,
    }
}

/// The budget key of a URL: its origin (scheme, host and port).
pub fn site_key(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// What a reservation checks in the state it locks, beside the budget.
struct Reserve {
    /// Reserve nothing when the site's robots.txt is already known and fresh (a
    /// robots.txt request: another process read it while this one waited).
    unless_robots_known: bool,
    /// Reserve only when the state's robots.txt memory is still this one
    /// ([`robots_stamp`] of the memory the request was decided on; `Some(None)`: none
    /// was known); `None`: whatever it is.
    robots: Option<Option<(SystemTime, u32)>>,
}

/// How many times [`Gate::fetch`] decides again when robots.txt changed under it.
const ROBOTS_CHANGED_TRIES: usize = 3;

/// Whether `request` is decided on the site's robots.txt (not robots.txt itself, nor a
/// licensed API read under its licence).
fn needs_robots_of(gate: &Gate, request: &GateRequest) -> bool {
    request.purpose != Purpose::Robots && gate.licensed(request).is_none()
}

/// How a request passed the budget.
struct Permit {
    reason: String,
}

/// What waiting for a site's budget came to, when it did not refuse or defer.
enum Acquired {
    /// Reserved: the request may be sent.
    Permit(Permit),
    /// Nothing reserved: the site's robots.txt was already known and fresh (asked with
    /// `unless_robots_known`).
    RobotsKnown,
    /// Nothing reserved: the state's robots.txt memory is not the one the request was
    /// decided on (another process read it again); decide again.
    RobotsChanged,
}

/// The gate. Cheap to share behind an `Arc`; every task of every source uses one.
#[derive(Debug)]
pub struct Gate {
    client: Client,
    settings: Arc<Settings>,
    state: Arc<dyn GateState>,
    registry: Arc<dyn Registry>,
    audit: Arc<dyn AuditSink>,
    clock: Arc<dyn WallClock>,
    local: Mutex<HashMap<String, Arc<SiteLocal>>>,
    /// The distinct robots.txt files of all sites, parsed and compiled once each.
    rules_book: agent_cache::RulesBook,
    tickets: AtomicU64,
}

impl Gate {
    /// A gate over these parts.
    pub fn new(
        client: Client,
        settings: Arc<Settings>,
        state: Arc<dyn GateState>,
        registry: Arc<dyn Registry>,
        audit: Arc<dyn AuditSink>,
        clock: Arc<dyn WallClock>,
    ) -> Gate {
        Gate {
            client,
            settings,
            state,
            registry,
            audit,
            clock,
            local: Mutex::new(HashMap::new()),
            rules_book: agent_cache::RulesBook::default(),
            tickets: AtomicU64::new(0),
        }
    }

    /// The state store (for `explain` and tests).
    pub fn state(&self) -> &Arc<dyn GateState> {
        &self.state
    }

    /// The wall clock this gate decides on (the database's, for processes sharing one).
    pub fn clock(&self) -> &Arc<dyn WallClock> {
        &self.clock
    }

    /// Wakes every request of this gate waiting for a site's budget, so each checks the
    /// registry and the site's state again now rather than when its wait ends (called
    /// when another process changed the registry: an opt-out stops a request waiting
    /// out a long gap at once).
    pub fn wake_all(&self) {
        let map = self.local.lock().unwrap_or_else(|p| p.into_inner());
        for local in map.values() {
            local.changed.notify_waiters();
        }
    }

    /// Requests of this gate waiting for a site's budget right now (the gap, the
    /// in-flight cap, a suspension they may wait out), for progress output.
    pub fn waiting(&self) -> usize {
        let map = self.local.lock().unwrap_or_else(|p| p.into_inner());
        map.values()
            .map(|local| local.waiting.lock().unwrap_or_else(|p| p.into_inner()).len())
            .sum()
    }

    fn local(&self, site: &str) -> Arc<SiteLocal> {
        let mut map = self.local.lock().unwrap_or_else(|p| p.into_inner());
        // A known site (every call but its first) costs no key allocation.
        if let Some(local) = map.get(site) {
            return Arc::clone(local);
        }
        Arc::clone(map.entry(site.to_owned()).or_default())
    }

    fn class_of(&self, url: &Url) -> &SiteClass {
        self.settings.class_of(&url.host_str().unwrap_or_default().to_ascii_lowercase())
    }

    fn budget_rules(&self, url: &Url, crawl_delay: Option<Duration>, slowdown: u32) -> BudgetRules {
        let class = self.class_of(url);
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let politeness = &self.settings.politeness;
        let per = |pick: fn(&PurposePoliteness) -> Option<u32>| -> BTreeMap<Purpose, u32> {
            politeness.purpose.iter().filter_map(|(p, s)| pick(s).map(|v| (*p, v))).collect()
        };
        BudgetRules {
            gap: class.gap,
            // A purpose gap never makes a class's gap shorter.
            purpose_gaps: politeness
                .purpose
                .iter()
                .filter_map(|(p, s)| s.gap.map(|g| (*p, g.max(class.gap))))
                .collect(),
            crawl_delay,
            robots_pace: gleaner_policy::robots::Pace::default(),
            slowdown,
            max_in_flight: class.max_in_flight,
            purpose_in_flight: per(|s| s.max_in_flight),
            min_pass_interval: class.min_pass_interval,
            requests_per_pass: class.requests_per_pass,
            requests_per_hour: class.requests_per_hour,
            requests_per_day: class.requests_per_day,
            visits_per_day: class.visits_per_day,
            quiet_hours: class.quiet_hours.iter().map(|q| (q.start, q.end)).collect(),
            time_zone: self.settings.time_zone_of(&host),
            global_daily_cap: politeness.global_daily_cap,
            enabled: self.settings.purposes.enabled.clone(),
        }
    }

    fn jitter(&self, purpose: Purpose) -> Duration {
        match self.settings.politeness.purpose.get(&purpose).and_then(|p| p.jitter) {
            Some((min, max)) if max > min => {
                let spread = (max - min).as_nanos() as u64;
                min + Duration::from_nanos(rand::random_range(0..=spread))
            }
            Some((min, _)) => min,
            None => Duration::ZERO,
        }
    }

    fn audit_refusal(&self, request: &GateRequest, site: &str, refusal: &Refusal) {
        self.audit_refused(request, site, refusal.kind(), refusal.to_string());
    }

    fn audit_refused(&self, request: &GateRequest, site: &str, kind: RefusalKind, reason: String) {
        self.audit.record(AuditRecord {
            time: self.clock.now(),
            site: site.to_owned(),
            url: self.redact(&request.url),
            purpose: request.purpose,
            source: request.source.clone(),
            outcome: Outcome::Refused(kind),
            error: None,
            bytes: 0,
            duration: Duration::ZERO,
            reason,
        });
    }

    /// The source and gap when `request` reads a licensed API on its own site (SPEC §1:
    /// the one case where robots.txt is not consulted). Only `Api` requests of a
    /// `licensed-api` source qualify; a redirect to another site does not.
    fn licensed(&self, request: &GateRequest) -> Option<(String, Duration)> {
        if request.purpose != Purpose::Api {
            return None;
        }
        let source = request.source.as_deref()?;
        let licensed = self.settings.licensed_api_for(source, &request.url)?;
        Some((source.to_owned(), licensed.gap))
    }

    /// Records in the audit log a request its caller decided not to send because the
    /// site reserved its rights (a reservation that stops the site), with the reason, so
    /// the log says which signal decided.
    pub fn record_refusal(&self, request: &GateRequest, reason: String) {
        let site = site_key(&request.url);
        self.audit_refused(request, &site, RefusalKind::RightsReserved, reason);
    }

    fn redact(&self, url: &Url) -> String {
        gleaner_config::redact_url(url, &self.settings.network.secret_query_params, &[])
    }

    /// Would this request be sent now, and if not, why and until when? Takes the same
    /// decision as [`Gate::fetch`] from the same state (registry, robots.txt memory, the
    /// site's budget) and sends nothing: `gleaner explain`. An error when the site's
    /// state cannot be read.
    pub async fn explain(&self, request: &GateRequest) -> Result<Explanation, StateError> {
        let site = site_key(&request.url);
        let now = self.clock.now();
        let owner = self.registry.lookup(&request.url).await;
        let state = self.state.site(&site).await?.unwrap_or_default();
        let robots = state.robots.as_ref().filter(|m| m.valid_until > now);
        let Decision { mut steps, stage } =
            self.decide(&site, request, &owner, robots, now, Steps::kept(true));
        let rules = match stage {
            Stage::Refused(Refusal::RobotsUnreadable { until, .. })
            | Stage::Paused { until, .. } => {
                return Ok(Explanation { verdict: ExplainVerdict::NotBefore(until), steps });
            }
            Stage::Refused(_) => {
                return Ok(Explanation { verdict: ExplainVerdict::Refused, steps });
            }
            Stage::RobotsUnknown(rules) | Stage::Budget { rules, .. } => rules,
        };
        let mut global = gleaner_policy::budget::GlobalBudget::default();
        let decided = &mut global;
        // Unreadable state explains from an empty global budget; `fetch` would defer.
        let _ = self.state.update(&site, Box::new(move |_, g| *decided = g.clone())).await;
        let verdict = match budget::decide(
            &state.budget,
            &global,
            &rules,
            request.purpose,
            request.pass,
            now,
            Duration::ZERO,
        ) {
            BudgetDecision::Go => {
                steps.push("budget: may start now".to_owned());
                ExplainVerdict::Now
            }
            BudgetDecision::Wait { until, why } => {
                steps.push(format!("budget: wait: {why}"));
                match until {
                    Some(t) => ExplainVerdict::NotBefore(t),
                    None => ExplainVerdict::WhenARequestEnds,
                }
            }
            BudgetDecision::Deny(why) => {
                steps.push(format!("budget: refused: {why}"));
                ExplainVerdict::Refused
            }
        };
        Ok(Explanation { verdict, steps })
    }

    /// Asks for one request and, when allowed, sends it. Never follows redirects.
    pub async fn fetch(&self, request: &GateRequest) -> GateOutcome {
        let site = site_key(&request.url);
        // A reservation that finds another robots.txt memory than the decision's reserves
        // nothing, and the request is decided again; bounded, in case the file keeps
        // changing under it.
        for _ in 0..ROBOTS_CHANGED_TRIES {
            if let Some(outcome) = self.fetch_once(&site, request).await {
                return outcome;
            }
        }
        GateOutcome::Deferred {
            hold: None,
            until: None,
            why: "robots.txt kept changing while the request was decided".into(),
        }
    }

    /// [`Gate::fetch`] on the robots.txt memory known now; `None` when the reservation
    /// found another one in the state (nothing was reserved or sent).
    async fn fetch_once(&self, site: &str, request: &GateRequest) -> Option<GateOutcome> {
        let mut waited_for_pause = false;
        let mut decided_on;
        let (rules, allowed_by, checked_at) = loop {
            let checked_at = self.clock.now();
            let owner = self.registry.lookup(&request.url).await;
            let needs_robots = needs_robots_of(self, request);
            let robots = match needs_robots {
                true => match self.fresh_robots(site).await {
                    Ok(robots) => robots,
                    Err(error) => return Some(state_unreadable(&error)),
                },
                false => None,
            };
            decided_on = robots_stamp(robots.as_ref());
            let now = self.clock.now();
            let mut decision =
                self.decide(site, request, &owner, robots.as_ref(), now, Steps::kept(false));
            if let Stage::RobotsUnknown(_) = decision.stage {
                match Box::pin(self.refresh_robots(site, request)).await {
                    Ok(memory) => {
                        decided_on = robots_stamp(Some(&memory));
                        let (memory, now) = (Some(&memory), self.clock.now());
                        decision =
                            self.decide(site, request, &owner, memory, now, Steps::kept(false));
                    }
                    Err(outcome) => {
                        if let GateOutcome::Refused(refusal) = &outcome {
                            self.audit_refusal(request, site, refusal);
                        }
                        return Some(outcome);
                    }
                }
            }
            match decision.stage {
                Stage::Refused(refusal) => {
                    self.audit_refusal(request, site, &refusal);
                    return Some(GateOutcome::Refused(refusal));
                }
                Stage::Paused { until, why } => {
                    // Still paused after waiting once (the pause was extended): re-queue.
                    if waited_for_pause
                        || request.wait_until_at_most.is_none_or(|limit| until > limit)
                    {
                        return Some(GateOutcome::Deferred { hold: None, until: Some(until), why });
                    }
                    // Within what the caller waits: wait the pause out, then decide again.
                    self.sleep_until(until).await;
                    waited_for_pause = true;
                }
                Stage::Budget { rules, allowed_by } => break (rules, allowed_by, checked_at),
                Stage::RobotsUnknown(_) => {
                    return Some(GateOutcome::Deferred {
                        hold: None,
                        until: None,
                        why: "robots.txt was read but is not known yet".into(),
                    });
                }
            }
        };
        // A request that consulted robots.txt reserves only on the memory it was decided
        // on; one that did not (robots.txt itself, a licensed API) on any.
        let robots = needs_robots_of(self, request).then_some(decided_on);
        let acquired = self.acquire_unless_robots_known(
            site,
            &rules,
            request,
            Reserve { unless_robots_known: false, robots },
            Some(checked_at),
        );
        let permit = match acquired.await {
            Ok(Acquired::Permit(permit)) => permit,
            Ok(Acquired::RobotsChanged) => return None,
            Ok(Acquired::RobotsKnown) => {
                return Some(GateOutcome::Deferred {
                    hold: None,
                    until: None,
                    why: "nothing reserved".into(),
                });
            }
            Err(outcome) => {
                if let GateOutcome::Refused(refusal) = &outcome {
                    self.audit_refusal(request, site, refusal);
                }
                return Some(outcome);
            }
        };
        // Boxed, as in `read_robots`: the wait above holds only the small state.
        Some(Box::pin(self.send(site, request, format!("{allowed_by}; {}", permit.reason))).await)
    }

    /// Follows redirects through the gate, each hop a new request (robots.txt and
    /// budget of the target site, the registry), up to the configured hop limit.
    pub async fn fetch_following(&self, request: &GateRequest) -> (GateOutcome, Vec<Url>) {
        let mut chain = RedirectChain::new(
            request.url.clone(),
            self.settings.limits.max_redirects,
            self.settings.network.secret_query_params.clone(),
        );
        let mut hops = Vec::new();
        let mut current = request.clone();
        loop {
            let outcome = self.fetch(&current).await;
            let Some(fetched) = outcome.fetched().filter(|f| f.is_redirect()) else {
                return (outcome, hops);
            };
            match chain.follow(fetched.location()) {
                Ok(next) => {
                    hops.push(next.clone());
                    current.url = next;
                    current.validators = Validators::default();
                    if current.pass == PassMark::Start {
                        current.pass = PassMark::Continue;
                    }
                }
                Err(error) => {
                    let refusal = Refusal::Local(FetchError::InvalidUrl {
                        url: self.redact(&current.url),
                        reason: redirect_reason(&error),
                    });
                    return (GateOutcome::Refused(refusal), hops);
                }
            }
        }
    }

    /// Reads the site's robots.txt through the gate (one reader per site in this
    /// process; another that finished first is used instead).
    async fn refresh_robots(
        &self,
        site: &str,
        request: &GateRequest,
    ) -> Result<RobotsMemory, GateOutcome> {
        let local = self.local(site);
        let _refreshing = local.robots_refresh.lock().await;
        match self.fresh_robots(site).await {
            Ok(Some(memory)) => Ok(memory),
            Ok(None) => self.read_robots(&request.url, site, request).await,
            Err(error) => Err(state_unreadable(&error)),
        }
    }

    /// The rights headers (`X-Robots-Tag`, `tdm-reservation`, `tdm-policy`) the site's
    /// robots.txt answered with, reading robots.txt first (through the gate, the same
    /// budget) when it is unknown or expired, so a caller can stop at a reservation stated
    /// there before asking for any page. `None` when nothing is known now (the owner opted
    /// out or paused, or robots.txt could not be read before `wait_until_at_most`): the
    /// page request itself then gets that answer.
    pub async fn robots_rights_headers(
        &self,
        request: &GateRequest,
    ) -> Option<Vec<(String, String)>> {
        Some(self.robots_memory(request).await?.rights_headers)
    }

    /// The `Content-Usage` and `Content-Signal` rules of the robots.txt group selected
    /// for our token on `request`'s site (AI-use preferences), read like
    /// [`Gate::robots_rights_headers`]: through the gate when not known. Empty when the
    /// file states none or is not a file of rules; `None` when it could not be read.
    pub async fn robots_preferences(
        &self,
        request: &GateRequest,
    ) -> Option<Vec<gleaner_policy::signals::prefs::PrefRule>> {
        let memory = self.robots_memory(request).await?;
        Some(match &memory.state {
            RobotsState::Rules(robots) => self
                .local(&site_key(&request.url))
                .agent_rules
                .rules(&self.rules_book, robots, memory.body.as_deref(), &self.settings.bot.token)
                .preferences()
                .to_vec(),
            _ => Vec::new(),
        })
    }

    /// The site's robots.txt memory, read through the gate when missing or expired;
    /// `None` when the owner opted out or paused the site, or it could not be read.
    async fn robots_memory(&self, request: &GateRequest) -> Option<RobotsMemory> {
        let site = site_key(&request.url);
        let owner = self.registry.lookup(&request.url).await;
        let paused = owner.paused_until.is_some_and(|(until, _)| until > self.clock.now());
        if owner.opted_out.is_some() || paused {
            return None;
        }
        if let Some(memory) = self.fresh_robots(&site).await.ok().flatten() {
            return Some(memory);
        }
        let local = self.local(&site);
        let _refreshing = local.robots_refresh.lock().await;
        match self.fresh_robots(&site).await.ok().flatten() {
            Some(memory) => Some(memory),
            None => self.read_robots(&request.url, &site, request).await.ok(),
        }
    }

    /// The site's robots.txt memory, when known and not expired: as last seen by this
    /// gate while it has not expired (the reservation checks that it is still the
    /// state's), else read from the state.
    async fn fresh_robots(&self, site: &str) -> Result<Option<RobotsMemory>, StateError> {
        let now = self.clock.now();
        let local = self.local(site);
        let seen = local.robots.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(memory) = seen.filter(|m| m.valid_until > now) {
            return Ok(Some(memory));
        }
        let robots = self.state.site(site).await?.and_then(|s| s.robots);
        *local.robots.lock().unwrap_or_else(|p| p.into_inner()) = without_body(robots.as_ref());
        Ok(robots.filter(|m| m.valid_until > now))
    }

    /// Forgets the robots.txt memory this gate last saw for `site`, or replaces it with
    /// `memory` (what the state holds now).
    fn saw_robots(&self, site: &str, memory: Option<&RobotsMemory>) {
        *self.local(site).robots.lock().unwrap_or_else(|p| p.into_inner()) = without_body(memory);
    }

    /// Reads robots.txt hop by hop, each hop through the budget of its own site.
    async fn read_robots(
        &self,
        url: &Url,
        site: &str,
        parent: &GateRequest,
    ) -> Result<RobotsMemory, GateOutcome> {
        let class = self.class_of(url);
        let policy = class.robots.clone();
        let previous_failures = match self.state.site(site).await {
            Ok(state) => state.and_then(|s| s.robots).map_or(0, |m| m.failures),
            Err(error) => return Err(state_unreadable(&error)),
        };
        let start = robots_url(url);
        let mut chain = RedirectChain::new(start.clone(), policy.max_redirects, Vec::new());
        let mut next = start;
        // Rights signals on any hop's answer apply to the site (issue 25).
        let mut rights_headers = Vec::new();
        let (outcome, retry) = loop {
            let hop_site = site_key(&next);
            let mut hop = GateRequest::new(next.clone(), Purpose::Robots);
            hop.source = parent.source.clone();
            hop.wait_until_at_most = parent.wait_until_at_most;
            let checked_at = self.clock.now();
            let owner = self.registry.lookup(&next).await;
            let rules = self.budget_rules(&next, None, owner.slowdown.max(1));
            // Not opted out as of this lookup: the reservation right after it need not ask
            // again (an opted-out hop is refused there, by a lookup of its own).
            let checked_at = owner.opted_out.is_none().then_some(checked_at);
            // Another process may read this site's robots.txt while this one waits for
            // the budget: then its reading is used, and nothing is sent twice.
            let known_robots_ends_it = hop_site == site;
            let reserve = Reserve { unless_robots_known: known_robots_ends_it, robots: None };
            let acquired =
                self.acquire_unless_robots_known(&hop_site, &rules, &hop, reserve, checked_at);
            let Acquired::Permit(permit) = acquired.await? else {
                return match self.fresh_robots(site).await {
                    Ok(Some(memory)) => Ok(memory),
                    Ok(None) => Err(GateOutcome::Deferred {
                        hold: None,
                        until: None,
                        why: "robots.txt was being read by another process".into(),
                    }),
                    Err(error) => Err(state_unreadable(&error)),
                };
            };
            // Boxed: the client's future is large, and a request waiting for its budget
            // (every idle site of a big pass) should not carry its space (issue 27).
            match Box::pin(self.send(&hop_site, &hop, permit.reason)).await {
                GateOutcome::Fetched(fetched) => {
                    rights_headers.extend(
                        fetched
                            .headers
                            .iter()
                            .filter(|(name, _)| gleaner_policy::signals::is_rights_header(name))
                            .cloned(),
                    );
                    let signals = self.settings.signal_settings();
                    match robots_step(&mut chain, &fetched, self.clock.now(), &signals) {
                        RobotsStep::Follow(url) => next = url,
                        RobotsStep::Done(outcome, retry) => break (outcome, retry),
                    }
                }
                GateOutcome::Failed(error) => break (error.robots_outcome(), None),
                other => return Err(other),
            }
        };
        let mut decision =
            outcome::decide(&outcome, &policy, self.clock.now(), previous_failures, retry);
        let body = match (&outcome, &mut decision.state) {
            (FetchOutcome::Response { body, .. }, RobotsState::Rules(file)) => {
                // Sites serving the same bytes keep one parse (issue 27).
                let token = &self.settings.bot.token;
                *file = self.local(site).agent_rules.adopt(&self.rules_book, file, body, token);
                Some(body.clone())
            }
            _ => None,
        };
        let mut memory = RobotsMemory::new(decision, body);
        memory.rights_headers = rights_headers;
        let stored = memory.clone();
        if let Err(error) =
            self.state.update(site, Box::new(move |s, _| s.robots = Some(stored))).await
        {
            // Not remembered: ask again later rather than decide on unrecorded rules.
            return Err(GateOutcome::Deferred {
                hold: None,
                until: None,
                why: format!("robots.txt read but not recorded: {error}"),
            });
        }
        self.saw_robots(site, Some(&memory));
        self.local(site).changed.notify_waiters();
        Ok(memory)
    }

    /// Waits for the site's budget and reserves it. Waiting requests of a site are
    /// served by purpose priority, then in arrival order. `checked_at`: when the caller
    /// found the request not opted out (see [`REGISTRY_FRESH`]). What `reserve` asks of
    /// the state at the moment of reserving: see [`Reserve`].
    async fn acquire_unless_robots_known(
        &self,
        site: &str,
        rules: &BudgetRules,
        request: &GateRequest,
        reserve: Reserve,
        checked_at: Option<SystemTime>,
    ) -> Result<Acquired, GateOutcome> {
        let Reserve { unless_robots_known, robots: decided_on } = reserve;
        // The caller's registry check stands for the first attempt when it is that recent
        // and nothing waited since; any later attempt checks again.
        let mut fresh = checked_at.is_some_and(|at| {
            self.clock.now().duration_since(at).is_ok_and(|d| d < REGISTRY_FRESH)
        });
        let local = self.local(site);
        let ticket = (priority(request.purpose), self.tickets.fetch_add(1, Ordering::Relaxed));
        local.waiting.lock().unwrap_or_else(|p| p.into_inner()).insert(ticket);
        let jitter = self.jitter(request.purpose);
        let result = loop {
            let registry_fresh = std::mem::replace(&mut fresh, false);
            let changed = local.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let first = local.waiting.lock().unwrap_or_else(|p| p.into_inner()).first().copied();
            if first != Some(ticket) {
                // Someone ahead; the bell rings when they go. The timeout guards against
                // a waiter that vanished without ringing.
                let _ = tokio::time::timeout(Duration::from_millis(200), changed).await;
                continue;
            }
            // The registry again, right before reserving: an opt-out committed while this
            // request waited (another process's `gleaner optout`) stops it here, so no
            // request starts later than one reservation after the opt-out commits.
            // Skipped on a first attempt the caller checked moments ago (issue 27: one
            // registry read per request, not two).
            if !registry_fresh
                && let Some(reference) = self.registry.lookup_again(&request.url).await.opted_out
            {
                break Err(GateOutcome::Refused(Refusal::OptedOut(reference)));
            }
            let now = self.clock.now();
            // The clock may be this far off the one other workers read (the database's,
            // read over a round trip): the start is recorded that much later and the gap
            // waited that much longer, so no two workers' requests come closer than the
            // gap, however their readings err (`WallClock::uncertainty`).
            let off = self.clock.uncertainty();
            let mut decision = BudgetDecision::Go;
            let mut robots_known = false;
            let mut changed_robots = None;
            let (purpose, pass) = (request.purpose, request.pass);
            let (decided, known) = (&mut decision, &mut robots_known);
            let changed_to = &mut changed_robots;
            let updated = self
                .state
                .update(
                    site,
                    Box::new(move |s, global| {
                        if unless_robots_known
                            && s.robots.as_ref().is_some_and(|m| m.valid_until > now)
                        {
                            *known = true;
                            *changed_to = Some(without_body(s.robots.as_ref()));
                            return;
                        }
                        if let Some(stamp) = decided_on
                            && robots_stamp(s.robots.as_ref()) != stamp
                        {
                            *changed_to = Some(without_body(s.robots.as_ref()));
                            return;
                        }
                        *decided = budget::decide(
                            &s.budget,
                            global,
                            rules,
                            purpose,
                            pass,
                            now,
                            jitter + off,
                        );
                        if *decided == BudgetDecision::Go {
                            let late = now + off;
                            budget::reserve(&mut s.budget, global, rules, purpose, pass, late);
                        }
                    }),
                )
                .await;
            if let Err(error) = updated {
                // Nothing was reserved (the database is unreachable, or a worker's lease
                // ran out): nothing is sent; the caller re-queues it.
                break Err(GateOutcome::Deferred {
                    hold: None,
                    until: None,
                    why: format!("budget not reserved: {error}"),
                });
            }
            if let Some(memory) = changed_robots {
                self.saw_robots(site, memory.as_ref());
                if robots_known {
                    break Ok(Acquired::RobotsKnown);
                }
                break Ok(Acquired::RobotsChanged);
            }
            match decision {
                BudgetDecision::Go => {
                    break Ok(Acquired::Permit(Permit {
                        reason: format!(
                            "budget: gap {} ms kept",
                            (rules.gap_for(request.purpose) + jitter).as_millis()
                        ),
                    }));
                }
                BudgetDecision::Deny(reason) => {
                    break Err(GateOutcome::Refused(Refusal::Budget(reason)));
                }
                BudgetDecision::Wait { until, why } => {
                    if let (Some(until), Some(limit)) = (until, request.wait_until_at_most)
                        && until > limit
                    {
                        break Err(GateOutcome::Deferred {
                            until: Some(until),
                            hold: Some(why.clone()),
                            why: why.to_string(),
                        });
                    }
                    if until.is_none()
                        && request.wait_until_at_most.is_some_and(|limit| limit <= now)
                    {
                        break Err(GateOutcome::Deferred {
                            until: None,
                            hold: Some(why.clone()),
                            why: why.to_string(),
                        });
                    }
                    let wait = match (until, &why) {
                        (Some(until), _) => until.duration_since(now).unwrap_or_default(),
                        (None, WaitReason::InFlight { .. }) => Duration::from_secs(1),
                        (None, _) => Duration::from_millis(200),
                    };
                    let _ = tokio::time::timeout(wait, changed).await;
                }
            }
        };
        local.waiting.lock().unwrap_or_else(|p| p.into_inner()).remove(&ticket);
        local.changed.notify_waiters();
        result
    }

    async fn sleep_until(&self, until: SystemTime) {
        if let Ok(wait) = until.duration_since(self.clock.now()) {
            tokio::time::sleep(wait).await;
        }
    }

    /// Sends a request whose budget is reserved, then records what the answer means.
    async fn send(&self, site: &str, request: &GateRequest, reason: String) -> GateOutcome {
        let class = self.class_of(&request.url);
        let fetch = FetchRequest {
            url: request.url.clone(),
            method: request.method,
            validators: request.validators.clone(),
            max_body_bytes: Some(class.limits.max_body_bytes),
            response_deadline: Some(class.limits.response_deadline),
            close_after: request.close_after,
        };
        let started = self.clock.now();
        let result = self.client.fetch(&fetch).await;
        let ended = self.clock.now();
        // The end is recorded as late as the clock may be off (see the budget's
        // reservation above).
        let now = ended + self.clock.uncertainty();
        let signals = self.settings.signal_settings();
        let block_for = self.settings.politeness.block_duration;
        let purpose = request.purpose;
        let effect = response_effect(&result, purpose, now, block_for, &signals);
        let note = effect.note.clone();
        // When this cannot be recorded the request still counts in flight until the
        // store gives up on it (a worker's lease); the audit record below says what
        // happened either way.
        let _ = self
            .state
            .update(
                site,
                Box::new(move |s, _| {
                    budget::finish(&mut s.budget, purpose, now);
                    if let Some(block) = effect.block {
                        s.budget.blocked_until = Some(block);
                    }
                    if let Some(suspension) = effect.suspend {
                        s.budget.suspended_until = Some(suspension);
                    }
                    if effect.failed {
                        s.failure_streak += 1;
                    } else if effect.succeeded {
                        s.failure_streak = 0;
                    }
                }),
            )
            .await;
        self.local(site).changed.notify_waiters();
        let (outcome, error, bytes) = match &result {
            Ok(f) => (Outcome::Sent { status: f.status }, None, f.body.len() as u64),
            Err(e) if e.is_local_refusal() => {
                (Outcome::Refused(RefusalKind::Address), Some(e.to_string()), 0)
            }
            Err(e) => (Outcome::Failed(e.failure_kind()), Some(e.to_string()), 0),
        };
        self.audit.record(AuditRecord {
            time: started,
            site: site.to_owned(),
            url: self.redact(&request.url),
            purpose,
            source: request.source.clone(),
            outcome,
            error,
            bytes,
            duration: ended.duration_since(started).unwrap_or_default(),
            reason: match note {
                Some(note) => format!("{reason}; {note}"),
                None => reason,
            },
        });
        match result {
            Ok(fetched) => GateOutcome::Fetched(fetched),
            Err(error) if error.is_local_refusal() => GateOutcome::Refused(Refusal::Local(error)),
            Err(error) => GateOutcome::Failed(error),
        }
    }
}

/// What a response means for the site's state, decided before the state is touched.
struct Effect {
    block: Option<(SystemTime, String)>,
    suspend: Option<(SystemTime, String)>,
    failed: bool,
    succeeded: bool,
    note: Option<String>,
}

/// 401/403 on a page and challenge pages store a block; 429/503 suspend the whole site
/// per `Retry-After`; a capped suspension counts toward the failure streak.
fn response_effect(
    result: &Result<Fetched, FetchError>,
    purpose: Purpose,
    now: SystemTime,
    block_for: Duration,
    signals: &gleaner_policy::signals::SignalSettings,
) -> Effect {
    let mut effect =
        Effect { block: None, suspend: None, failed: false, succeeded: false, note: None };
    let fetched = match result {
        Ok(fetched) => fetched,
        Err(_) => {
            effect.failed = true;
            return effect;
        }
    };
    let headers: Vec<(&str, &str)> =
        fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let verdict = challenge::classify(fetched.status, &headers, &fetched.body, signals);
    if verdict.is_block() || (matches!(fetched.status, 401 | 403) && purpose != Purpose::Robots) {
        let why = if verdict.is_block() {
            verdict.to_string()
        } else {
            format!("HTTP {} on a page", fetched.status)
        };
        effect.note = Some(format!("site blocked for {} h: {why}", block_for.as_secs() / 3600));
        effect.block = Some((now + block_for, why));
        effect.failed = true;
    } else if matches!(fetched.status, 429 | 503) {
        let decision = retry_after::from_headers(&headers, now, signals);
        if !decision.wait.is_zero() {
            effect.suspend =
                Some((now + decision.wait, format!("HTTP {}: {decision}", fetched.status)));
        }
        effect.failed = matches!(decision.case, retry_after::RetryAfterCase::Capped { .. });
        effect.note = Some(format!("site suspended: {decision}"));
    } else if fetched.status < 500 {
        effect.succeeded = true;
    } else {
        effect.failed = true;
    }
    effect
}

/// The outcome when the site's state cannot be read: nothing is sent; the caller
/// re-queues the request.
fn state_unreadable(error: &StateError) -> GateOutcome {
    GateOutcome::Deferred {
        hold: None,
        until: None,
        why: format!("the site's state could not be read: {error}"),
    }
}

fn redirect_reason(error: &RedirectError) -> String {
    format!("not following the redirect: {error}")
}
