//! The relay's memory: images by URL, least recently used evicted first once the bytes
//! held pass the cap; and failed fetches, not retried before their time.
//!
//! Nothing here is ever written to disk. An entry past its freshness is kept (within the
//! cap) only so that it can be revalidated with its validators; it is never served
//! stale.

use std::collections::{BTreeMap, HashMap};
use std::time::SystemTime;

use bytes::Bytes;
use gleaner_fetch::Validators;

use crate::sniff::ImageType;

/// One cached image.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The image bytes.
    pub bytes: Bytes,
    /// Its sniffed type.
    pub kind: ImageType,
    /// Served without asking the site until then.
    pub fresh_until: SystemTime,
    /// Never kept past this, revalidated or not (the relay's `max_age` after the
    /// first fetch).
    pub expires: SystemTime,
    /// For a conditional request once stale.
    pub validators: Validators,
}

/// Bytes an entry counts for (its body and its key).
fn weight(url: &str, e: &Entry) -> u64 {
    (e.bytes.len() + url.len()) as u64
}

/// An LRU map of images bounded by bytes, and a map of failures.
#[derive(Debug)]
pub struct Cache {
    cap: u64,
    held: u64,
    tick: u64,
    entries: HashMap<String, (Entry, u64)>,
    order: BTreeMap<u64, String>,
    failures: HashMap<String, SystemTime>,
}

impl Cache {
    /// An empty cache holding at most `cap` bytes.
    pub fn new(cap: u64) -> Cache {
        Cache {
            cap,
            held: 0,
            tick: 0,
            entries: HashMap::new(),
            order: BTreeMap::new(),
            failures: HashMap::new(),
        }
    }

    /// Bytes held now (always at most the cap).
    pub fn held(&self) -> u64 {
        self.held
    }

    /// Images held now.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry for `url`, marking it recently used; entries past `expires` are dropped.
    pub fn get(&mut self, url: &str, now: SystemTime) -> Option<Entry> {
        let expired = self.entries.get(url).is_some_and(|(e, _)| e.expires <= now);
        if expired {
            self.remove(url);
            return None;
        }
        self.tick += 1;
        let tick = self.tick;
        let (entry, used) = self.entries.get_mut(url)?;
        self.order.remove(used);
        *used = tick;
        self.order.insert(tick, url.to_owned());
        Some(entry.clone())
    }

    /// Stores `entry`, evicting the least recently used until it fits. An entry larger
    /// than the whole cap is not stored.
    pub fn put(&mut self, url: &str, entry: Entry) {
        self.remove(url);
        let w = weight(url, &entry);
        if w > self.cap {
            return;
        }
        while self.held + w > self.cap {
            let Some((_, victim)) = self.order.pop_first() else { break };
            if let Some((old, _)) = self.entries.remove(&victim) {
                self.held -= weight(&victim, &old);
            }
        }
        self.tick += 1;
        self.held += w;
        self.order.insert(self.tick, url.to_owned());
        self.entries.insert(url.to_owned(), (entry, self.tick));
    }

    /// Drops `url` at once (a takedown, a use no longer allowed, a no-store answer).
    pub fn remove(&mut self, url: &str) -> bool {
        match self.entries.remove(url) {
            Some((old, used)) => {
                self.order.remove(&used);
                self.held -= weight(url, &old);
                true
            }
            None => false,
        }
    }

    /// The URLs held now.
    pub fn urls(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// Remembers that fetching `url` failed: not retried before `until`.
    pub fn fail(&mut self, url: &str, now: SystemTime, until: SystemTime) {
        self.failures.retain(|_, t| *t > now);
        self.failures.insert(url.to_owned(), until);
    }

    /// When `url` may be fetched again, if a failure holds it back at `now`.
    pub fn failed_until(&self, url: &str, now: SystemTime) -> Option<SystemTime> {
        self.failures.get(url).copied().filter(|t| *t > now)
    }

    /// Forgets a failure (a takedown clears everything about an image).
    pub fn forget_failure(&mut self, url: &str) {
        self.failures.remove(url);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn entry(n: usize, now: SystemTime) -> Entry {
        Entry {
            bytes: Bytes::from(vec![0u8; n]),
            kind: ImageType::Png,
            fresh_until: now + Duration::from_secs(60),
            expires: now + Duration::from_secs(3600),
            validators: Validators::default(),
        }
    }

    #[test]
    fn evicts_least_recently_used_by_bytes() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let mut c = Cache::new(300);
        c.put("a", entry(99, now));
        c.put("b", entry(99, now));
        c.put("c", entry(99, now));
        assert_eq!(c.len(), 3);
        assert_eq!(c.held(), 300);
        assert!(c.get("a", now).is_some(), "a used again: b is now the oldest");
        c.put("d", entry(99, now));
        assert!(c.get("b", now).is_none(), "b evicted");
        assert!(
            c.get("a", now).is_some() && c.get("c", now).is_some() && c.get("d", now).is_some()
        );
        assert!(c.held() <= 300);
        c.put("huge", entry(1000, now));
        assert!(c.get("huge", now).is_none(), "larger than the cap: not kept");
        assert_eq!(c.len(), 3, "and nothing evicted for it");
        assert!(c.remove("a"));
        assert_eq!(c.held(), 200);
    }

    #[test]
    fn expired_entries_are_dropped_and_failures_expire() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let mut c = Cache::new(1000);
        c.put("a", entry(10, now));
        assert!(c.get("a", now + Duration::from_secs(3599)).is_some());
        assert!(c.get("a", now + Duration::from_secs(3600)).is_none());
        assert_eq!(c.held(), 0);
        c.fail("x", now, now + Duration::from_secs(60));
        assert!(c.failed_until("x", now).is_some());
        assert!(c.failed_until("x", now + Duration::from_secs(60)).is_none());
    }
}
