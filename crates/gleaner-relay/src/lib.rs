//! The image relay (SPEC §5; the CIXTRA-Bot seed): visitors get images of known events
//! from gleaner, so they never reach the site's server.
//!
//! - Only images registered in the store under an opaque id are relayed
//!   ([`RelayDirectory`]; `/relay/{id}` never takes a URL), and only while the source's
//!   image terms and the site's signals allow it and no takedown names it: every delivery
//!   asks the directory first, so a takedown or removal made by any process stops
//!   delivery at once and evicts the bytes here.
//! - Images are fetched on demand through the gate (purpose `image-relay`: robots.txt
//!   first, the site's budget, the registry, the audit log), with no cookies and no
//!   Referer (the client sends neither), one request at a time per host and at least
//!   `[relay] min_gap` apart; visitors wait in a bounded queue per host and get
//!   [`Delivery::Busy`] (503 with `Retry-After`) past it or past `[relay] max_wait`.
//! - Bytes are sniffed ([`sniff`]): PNG, JPEG, GIF and WebP only, never SVG; bodies over
//!   `[relay] max_image_bytes` are refused.
//! - Memory only ([`cache`]): at most `[relay] max_age` (≤ 1 h), less per Cache-Control
//!   (s-maxage or max-age minus Age), nothing for no-store or private; a stale image is
//!   revalidated with a conditional request; an LRU evicts by bytes past
//!   `[relay] memory_cap`; a failed fetch is not retried for `[relay] failure_backoff`.

pub mod cache;
pub mod directory;
pub mod sniff;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use gleaner_config::relay::RelaySettings;
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::{Fetched, Gate, GateOutcome, GateRequest};
use gleaner_policy::Purpose;
use gleaner_policy::signals::{CacheVerdict, SignalSettings, cache_control};
use url::Url;

pub use directory::{RelayDirectory, RelayTarget};
pub use sniff::{ImageType, sniff};

use cache::{Cache, Entry};

/// What the relay answers a visitor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Delivery {
    /// The image.
    Image {
        /// Its bytes.
        bytes: Bytes,
        /// Its sniffed type.
        kind: ImageType,
        /// How long the visitor's browser may keep it (zero: `no-store`).
        max_age: Duration,
    },
    /// No such id, or not (or no longer) allowed: 404.
    NotFound,
    /// The host's queue is full, or the site's budget would keep the visitor waiting
    /// too long: 503 with `Retry-After`.
    Busy {
        /// When to try again.
        retry_after: Duration,
    },
    /// Fetching failed (or failed recently and is not retried yet): 502 with
    /// `Retry-After`.
    Unavailable {
        /// When to try again.
        retry_after: Duration,
        /// Why, for the operator's logs (never shown with site content).
        why: String,
    },
}

/// Counters since the relay started (the benchmark and `/metrics` read them).
#[derive(Debug, Default)]
pub struct RelayStats {
    /// Visitor requests.
    pub requests: AtomicU64,
    /// Served from memory.
    pub hits: AtomicU64,
    /// Requests sent to sites (conditional ones included).
    pub upstream: AtomicU64,
    /// Of which conditional that the site answered 304.
    pub not_modified: AtomicU64,
    /// Visitors turned away with 503.
    pub busy: AtomicU64,
}

/// One host's line: one request at a time, a bounded number waiting.
#[derive(Debug, Default)]
struct Host {
    /// Held while a visitor's fetch is in progress; the time the last one ended.
    slot: tokio::sync::Mutex<Option<tokio::time::Instant>>,
    /// Visitors in line for the slot, the holder included.
    waiting: AtomicU32,
}

/// Decrements a host's line when a visitor leaves it.
struct InLine<'a>(&'a AtomicU32);

impl Drop for InLine<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The image relay. Share it behind an `Arc`.
#[derive(Debug)]
pub struct Relay {
    gate: Arc<Gate>,
    directory: Arc<dyn RelayDirectory>,
    settings: RelaySettings,
    signals: SignalSettings,
    clock: Arc<dyn WallClock>,
    cache: Mutex<Cache>,
    hosts: Mutex<HashMap<String, Arc<Host>>>,
    stats: RelayStats,
}

impl Relay {
    /// A relay fetching through `gate`, relaying what `directory` allows, with `settings`
    /// (`[relay]`); `clock` decides freshness (the gate keeps its own for spacing).
    pub fn new(
        gate: Arc<Gate>,
        directory: Arc<dyn RelayDirectory>,
        settings: RelaySettings,
        clock: Arc<dyn WallClock>,
    ) -> Relay {
        let signals =
            SignalSettings { freshness_cap: settings.max_age, ..SignalSettings::default() };
        Relay {
            gate,
            directory,
            settings,
            signals,
            clock,
            cache: Mutex::new(Cache::new(settings.memory_cap)),
            hosts: Mutex::new(HashMap::new()),
            stats: RelayStats::default(),
        }
    }

    /// The counters.
    pub fn stats(&self) -> &RelayStats {
        &self.stats
    }

    /// Bytes of images held in memory now (never more than `[relay] memory_cap`).
    pub fn memory_held(&self) -> u64 {
        self.cache().held()
    }

    /// The settings in force.
    pub fn settings(&self) -> &RelaySettings {
        &self.settings
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn host(&self, url: &Url) -> Arc<Host> {
        let key = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(hosts.entry(key).or_default())
    }

    /// Drops an image from memory at once (a takedown in this process).
    pub fn evict(&self, url: &str) -> bool {
        let mut cache = self.cache();
        cache.forget_failure(url);
        cache.remove(url)
    }

    /// Evicts every held image the directory no longer allows (a takedown, a removal or
    /// a link check made by another process). Returns how many were evicted.
    pub async fn sweep(&self) -> usize {
        let urls = self.cache().urls();
        if urls.is_empty() {
            return 0;
        }
        let Ok(allowed) = self.directory.deliverable_urls(&urls).await else { return 0 };
        urls.iter().filter(|u| !allowed.contains(*u)).filter(|u| self.evict(u)).count()
    }

    /// Answers a visitor's request for `/relay/{id}`.
    pub async fn deliver(&self, id: &str) -> Delivery {
        self.stats.requests.fetch_add(1, Ordering::Relaxed);
        let target = match self.directory.lookup(id).await {
            Ok(Some(t)) => t,
            Ok(None) => return Delivery::NotFound,
            Err(why) => {
                return Delivery::Unavailable { retry_after: Duration::from_secs(5), why };
            }
        };
        let key = target.url.as_str();
        if !target.deliverable {
            self.evict(key);
            return Delivery::NotFound;
        }
        if let Some(d) = self.cached_answer(key) {
            return d;
        }
        let host = self.host(&target.url);
        let ahead = host.waiting.fetch_add(1, Ordering::AcqRel);
        let _in_line = InLine(&host.waiting);
        if ahead > self.settings.queue_per_host {
            return self.busy(self.settings.min_gap * ahead);
        }
        let Ok(mut slot) = tokio::time::timeout(self.settings.max_wait, host.slot.lock()).await
        else {
            return self.busy(self.settings.min_gap * ahead.max(1));
        };
        // Whoever held the slot may have fetched this very image.
        if let Some(d) = self.cached_answer(key) {
            return d;
        }
        if let Some(last) = *slot {
            tokio::time::sleep_until(last + self.settings.min_gap).await;
        }
        let now = self.clock.now();
        let stale = self.cache().get(key, now);
        let mut request = GateRequest::new(target.url.clone(), Purpose::ImageRelay);
        if let Some(e) = &stale {
            request.validators = e.validators.clone();
        }
        request.wait_until_at_most = Some(now + self.settings.max_wait);
        let outcome = self.gate.fetch(&request).await;
        if matches!(outcome, GateOutcome::Fetched(_) | GateOutcome::Failed(_)) {
            self.stats.upstream.fetch_add(1, Ordering::Relaxed);
            *slot = Some(tokio::time::Instant::now());
        }
        drop(slot);
        match outcome {
            GateOutcome::Fetched(fetched) => self.answer(key, fetched, stale),
            GateOutcome::Deferred { until, .. } => {
                let wait = until
                    .and_then(|t| t.duration_since(self.clock.now()).ok())
                    .unwrap_or(self.settings.min_gap);
                self.busy(wait)
            }
            GateOutcome::Refused(refusal) => self.failed(key, format!("not fetched: {refusal}")),
            GateOutcome::Failed(error) => self.failed(key, format!("fetch failed: {error}")),
        }
    }

    fn busy(&self, retry_after: Duration) -> Delivery {
        self.stats.busy.fetch_add(1, Ordering::Relaxed);
        Delivery::Busy { retry_after: retry_after.max(Duration::from_secs(1)) }
    }

    /// A fresh image from memory, or a failure not to be retried yet.
    fn cached_answer(&self, key: &str) -> Option<Delivery> {
        let now = self.clock.now();
        let mut cache = self.cache();
        if let Some(e) = cache.get(key, now).filter(|e| e.fresh_until > now) {
            self.stats.hits.fetch_add(1, Ordering::Relaxed);
            let max_age = e.fresh_until.duration_since(now).unwrap_or_default();
            return Some(Delivery::Image { bytes: e.bytes, kind: e.kind, max_age });
        }
        let until = cache.failed_until(key, now)?;
        Some(Delivery::Unavailable {
            retry_after: until.duration_since(now).unwrap_or_default(),
            why: "a recent fetch failed; not retried yet".to_owned(),
        })
    }

    fn failed(&self, key: &str, why: String) -> Delivery {
        let now = self.clock.now();
        let mut cache = self.cache();
        cache.remove(key);
        cache.fail(key, now, now + self.settings.failure_backoff);
        Delivery::Unavailable { retry_after: self.settings.failure_backoff, why }
    }

    /// Turns the site's answer into a delivery, keeping what Cache-Control allows.
    fn answer(&self, key: &str, fetched: Fetched, stale: Option<Entry>) -> Delivery {
        let now = self.clock.now();
        let headers: Vec<(&str, &str)> =
            fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        let verdict = cache_control::decide(&headers, now, &self.signals).verdict;
        let (bytes, kind, expires, validators) = match (fetched.status, stale) {
            (304, Some(old)) => {
                self.stats.not_modified.fetch_add(1, Ordering::Relaxed);
                let validators =
                    if fetched.validators.is_empty() { old.validators } else { fetched.validators };
                (old.bytes, old.kind, old.expires, validators)
            }
            (200, _) => {
                if fetched.body.len() as u64 > self.settings.max_image_bytes {
                    return self.failed(
                        key,
                        format!(
                            "larger than [relay] max_image_bytes ({} bytes)",
                            fetched.body.len()
                        ),
                    );
                }
                let Some(kind) = sniff(&fetched.body) else {
                    return self.failed(key, "not a PNG, JPEG, GIF or WebP image".to_owned());
                };
                (fetched.body, kind, now + self.settings.max_age, fetched.validators)
            }
            (status, _) => return self.failed(key, format!("the site answered {status}")),
        };
        let mut cache = self.cache();
        cache.forget_failure(key);
        match verdict {
            CacheVerdict::DoNotStore(_) => {
                cache.remove(key);
                Delivery::Image { bytes, kind, max_age: Duration::ZERO }
            }
            CacheVerdict::Store(f) => {
                let fresh_until = (now + f.fresh_for).min(expires);
                cache.put(
                    key,
                    Entry { bytes: bytes.clone(), kind, fresh_until, expires, validators },
                );
                let max_age = fresh_until.duration_since(now).unwrap_or_default();
                Delivery::Image { bytes, kind, max_age }
            }
        }
    }
}
