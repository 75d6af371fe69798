//! Where the gate keeps each site's budget and robots.txt state. The trait is the seam
//! the store implements for persistence (SQLite, PostgreSQL); [`MemoryState`] keeps it
//! in this process.
//!
//! Every change goes through [`GateState::update`], which runs a closure on the site's
//! state and the global budget atomically. The gate reserves the budget inside such an
//! update *before* sending, so a persistent implementation that commits the update
//! before returning makes a crash unable to spend the budget twice.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use gleaner_policy::budget::{GlobalBudget, SiteBudget};
use gleaner_policy::robots::outcome::{RobotsDecision, RobotsReason, RobotsState};

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
}

impl From<RobotsDecision> for RobotsMemory {
    fn from(d: RobotsDecision) -> Self {
        RobotsMemory {
            state: d.state,
            reason: d.reason,
            valid_until: d.valid_until,
            failures: d.failures,
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

/// Storage of gate state, shared by every task (and, in a persistent implementation,
/// every process).
pub trait GateState: Send + Sync + std::fmt::Debug {
    /// Applies `change` to the state of `site` and the global budget, atomically. A
    /// persistent implementation commits before the future completes: the gate sends a
    /// request only after the update that reserved its budget has completed.
    fn update<'a>(&'a self, site: &'a str, change: Change<'a>) -> BoxFuture<'a, ()>;

    /// A copy of a site's state, for `explain` and the dashboard.
    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Option<SiteState>>;
}

/// Gate state in this process's memory.
#[derive(Debug, Default)]
pub struct MemoryState {
    inner: Mutex<(HashMap<String, SiteState>, GlobalBudget)>,
}

impl GateState for MemoryState {
    fn update<'a>(&'a self, site: &'a str, change: Change<'a>) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut guard = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let (sites, global) = &mut *guard;
            change(sites.entry(site.to_owned()).or_default(), global);
        })
    }

    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Option<SiteState>> {
        Box::pin(async move {
            let guard = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            guard.0.get(site).cloned()
        })
    }
}
