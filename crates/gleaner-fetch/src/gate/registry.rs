//! The owners' registry kept in this process's memory. Entries, matching and the trait
//! live in `gleaner_policy::registry`.

use std::sync::RwLock;

use url::Url;

pub use gleaner_policy::registry::{
    OwnerRequest, OwnerRules, Registry, RegistryEntry, Scope, rules_for,
};
use gleaner_policy::state::BoxFuture;

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
    fn lookup<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, OwnerRules> {
        let entries = self.entries.read().unwrap_or_else(|p| p.into_inner());
        let rules = rules_for(entries.iter(), url);
        Box::pin(async move { rules })
    }
}
