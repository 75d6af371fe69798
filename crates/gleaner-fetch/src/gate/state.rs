//! Gate state kept in this process's memory. The data and the trait live in
//! `gleaner_policy::state`; the store implements the same trait on a database.

use std::collections::HashMap;
use std::sync::Mutex;

pub use gleaner_policy::budget::GlobalBudget;
pub use gleaner_policy::state::{
    BoxFuture, Change, GateState, RobotsMemory, SiteState, StateError,
};

/// Gate state in this process's memory.
#[derive(Debug, Default)]
pub struct MemoryState {
    inner: Mutex<(HashMap<String, SiteState>, GlobalBudget)>,
}

impl GateState for MemoryState {
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut guard = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let (sites, global) = &mut *guard;
            // A known site (every update but its first) costs no key allocation.
            if let Some(state) = sites.get_mut(site) {
                change(state, global);
            } else {
                change(sites.entry(site.to_owned()).or_default(), global);
            }
            Ok(())
        })
    }

    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Result<Option<SiteState>, StateError>> {
        Box::pin(async move {
            let guard = self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            Ok(guard.0.get(site).cloned())
        })
    }
}
