//! Where the gate keeps each site's budget and robots.txt state: the data, and the
//! [`GateState`] trait that the store implements for persistence (SQLite, PostgreSQL).
//! The trait only describes storage; implementations live in I/O crates (an in-memory
//! one in `gleaner-fetch`, database ones in `gleaner-store`).
//!
//! Every change goes through [`GateState::update`], which runs a closure on the site's
//! state and the global budget atomically. The gate reserves the budget inside such an
//! update *before* sending, so a persistent implementation that commits the update
//! before returning makes a crash unable to spend the budget twice.

use std::time::SystemTime;

use crate::budget::{GlobalBudget, SiteBudget};
use crate::robots::outcome::{RobotsDecision, RobotsReason, RobotsState};

/// What is remembered about a site's robots.txt.
#[derive(Debug, Clone, PartialEq)]
pub struct RobotsMemory {
    /// The last decision (rules, allow all, blocked, fetch nothing).
    pub state: RobotsState,
    /// Why.
    pub reason: RobotsReason,
    /// When robots.txt must be read again.
    pub valid_until: SystemTime,
    /// Consecutive failures to read it.
    pub failures: u32,
    /// The robots.txt bytes when it was read (to persist and re-parse the rules, and for
    /// the archive).
    pub body: Option<Vec<u8>>,
    /// The rights headers its responses carried (`X-Robots-Tag`, `tdm-reservation`,
    /// `tdm-policy`; see [`crate::signals::is_rights_header`]), as (name, value): a
    /// reservation stated on robots.txt applies like one on any page (SPEC §1, "Rights
    /// signals").
    pub rights_headers: Vec<(String, String)>,
}

impl RobotsMemory {
    /// Remembers a decision and the bytes it was made from.
    pub fn new(decision: RobotsDecision, body: Option<Vec<u8>>) -> RobotsMemory {
        RobotsMemory {
            state: decision.state,
            reason: decision.reason,
            valid_until: decision.valid_until,
            failures: decision.failures,
            body,
            rights_headers: Vec::new(),
        }
    }
}

/// Everything the gate remembers about one site.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteState {
    /// The politeness budget.
    pub budget: SiteBudget,
    /// robots.txt, once read.
    pub robots: Option<RobotsMemory>,
    /// Consecutive failed requests (for failure streaks).
    pub failure_streak: u32,
}

/// A boxed future, so the trait stays object-safe.
pub type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// A change to one site's state and the global budget, applied atomically.
pub type Change<'a> = Box<dyn FnOnce(&mut SiteState, &mut GlobalBudget) + Send + 'a>;

/// Why an update of the gate state did not happen: the database could not be written,
/// or a guard refused a reservation (a worker whose lease ran out). The gate sends
/// nothing whose reservation failed; it defers the request instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateError(pub String);

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StateError {}

/// Storage of gate state, shared by every task (and, in a persistent implementation,
/// every process).
pub trait GateState: Send + Sync + std::fmt::Debug {
    /// Applies `change` to the state of `site` and the global budget, atomically. A
    /// persistent implementation commits before the future completes: the gate sends a
    /// request only after the update that reserved its budget has completed. An error
    /// means nothing was changed (the transaction was rolled back or never began).
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<(), StateError>>;

    /// A copy of a site's state (`None` when nothing is known of it yet). An error when
    /// it cannot be read: the gate then defers the request rather than decide blind.
    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Result<Option<SiteState>, StateError>>;
}
