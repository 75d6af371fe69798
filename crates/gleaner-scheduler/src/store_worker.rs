//! The store's side of the worker loop ([`crate::worker`]): the store's frontier as its
//! [`WorkQueue`] ([`StoreQueue`]), and [`FencedSink`], the store sink whose event writes
//! commit only under the slot's current claim (a stale worker's results are refused)
//! and whose validators are written only after the page's events.
// A refused or failed write is reported and the loop goes on: stderr is the worker's log.
#![allow(clippy::print_stderr)]

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use gleaner_config::Settings;
use gleaner_fetch::{Gate, Validators};
use gleaner_policy::state::BoxFuture;
use gleaner_store::{CrawlerState, Store, StoreError, WorkLease};
use url::Url;

use crate::links::ListingLinks;
use crate::store_sink::StoreSink;
use crate::worker::{Claim, Job, LeaseFence, WorkQueue, WorkerOptions, WorkerReport, run_worker};
use crate::{EventSink, Found, PassContext, PassReport, Upsert};

/// What a slot's sink and queue share: the claim its results are fenced with, and the
/// validators of pages whose events may not all be stored yet.
#[derive(Default)]
struct Slot {
    lease: Option<WorkLease>,
    /// Set when an event write was refused: this claim's results are over.
    fenced_out: bool,
    /// A page's validators are written only once its events are (at the next page, or
    /// when the item completes): stored first, a crash or a takeover between the two
    /// would make the next holder's request conditional, answered 304, and its events
    /// would never be stored.
    pending: Vec<(Url, Validators)>,
}

type Held = Arc<Mutex<Slot>>;

/// A store claim as the worker loop sees it.
pub struct StoreClaim(WorkLease);

impl Claim for StoreClaim {
    fn job(&self) -> Option<Job> {
        Job::of(self.0.item.purpose, self.0.item.source.as_deref())
    }

    fn expires_at(&self) -> Instant {
        self.0.claimed_at + self.0.valid_for
    }
}

/// The store's frontier as the worker loop's queue.
pub struct StoreQueue {
    state: Arc<CrawlerState>,
    store: Store,
    held: Held,
    /// For the last page's pending validators.
    sink: StoreSink,
    worker_lease: Duration,
}

impl WorkQueue for StoreQueue {
    type Claim = StoreClaim;

    fn claim(&self, lease: Duration) -> BoxFuture<'_, Result<Option<StoreClaim>, String>> {
        Box::pin(async move {
            let claims = self
                .state
                .claim_work_alive(1, lease, self.worker_lease, SystemTime::now())
                .await
                .map_err(|e| e.to_string())?;
            Ok(claims.into_iter().next().map(StoreClaim))
        })
    }

    fn renew<'a>(
        &'a self,
        claim: &'a StoreClaim,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Option<StoreClaim>, String>> {
        Box::pin(async move {
            let renewed = self
                .state
                .renew_work(&claim.0, lease, self.worker_lease)
                .await
                .map_err(|e| e.to_string())?;
            Ok(renewed.map(StoreClaim))
        })
    }

    fn complete<'a>(&'a self, claim: &'a StoreClaim) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move {
            flush_validators(&self.sink, &self.held, None).await;
            self.state.complete_work(&claim.0, SystemTime::now()).await.map_err(|e| e.to_string())
        })
    }

    fn release<'a>(&'a self, claim: &'a StoreClaim) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async move { self.state.release_work(&claim.0).await.map_err(|e| e.to_string()) })
    }

    fn hold(&self, claim: Option<&StoreClaim>) {
        let mut slot = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let fresh = match (&slot.lease, claim) {
            (Some(old), Some(new)) => old.token != new.0.token,
            _ => true,
        };
        if fresh {
            slot.fenced_out = false;
            slot.pending.clear();
        }
        slot.lease = claim.map(|c| c.0.clone());
    }

    fn pending(&self) -> BoxFuture<'_, Result<u64, String>> {
        Box::pin(async move { self.store.pending_work().await.map_err(|e| e.to_string()) })
    }

    fn pass_done<'a>(&'a self, report: &'a PassReport) -> BoxFuture<'a, ()> {
        Box::pin(crate::daemon::record_pass(&self.store, report))
    }
}

/// Writes the pending validators of pages other than `except` (all with `None`), unless
/// the claim's results were refused.
async fn flush_validators(sink: &StoreSink, held: &Held, except: Option<&Url>) {
    let due: Vec<(Url, Validators)> = {
        let mut slot = held.lock().unwrap_or_else(|p| p.into_inner());
        if slot.fenced_out {
            slot.pending.clear();
            return;
        }
        let (keep, due) =
            std::mem::take(&mut slot.pending).into_iter().partition(|(u, _)| Some(u) == except);
        slot.pending = keep;
        due
    };
    for (url, validators) in due {
        sink.set_validators(&url, validators).await;
    }
}

/// The store as a worker slot's [`EventSink`]: event writes are committed only under
/// the slot's current claim (a stale worker's results are refused); everything else is
/// [`StoreSink`]'s.
pub struct FencedSink {
    inner: StoreSink,
    state: Arc<CrawlerState>,
    held: Held,
}

impl EventSink for FencedSink {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        Box::pin(async move {
            let held = self.held.lock().unwrap_or_else(|p| p.into_inner()).lease.clone();
            let Some(lease) = held else {
                eprintln!("warning: not storing events from `{}`: no current claim", found.page);
                return Upsert::Unchanged;
            };
            match self.state.upsert_event_fenced(&self.inner.write_of(&found), &lease).await {
                Ok(upserted) => crate::store_sink::upsert_of(&upserted),
                Err(error @ StoreError::FencedOut { .. }) => {
                    let mut slot = self.held.lock().unwrap_or_else(|p| p.into_inner());
                    slot.fenced_out = true;
                    slot.pending.clear();
                    eprintln!("gleaner: {error}");
                    Upsert::Unchanged
                }
                Err(error) => {
                    eprintln!("warning: failed to store an event from `{}`: {error}", found.page);
                    Upsert::Unchanged
                }
            }
        })
    }

    fn checked_unchanged<'a>(&'a self, page: &'a Url, at: SystemTime) -> BoxFuture<'a, ()> {
        self.inner.checked_unchanged(page, at)
    }

    fn validators<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Validators> {
        Box::pin(async move {
            // The pass asks before its next request: the previous page is done.
            flush_validators(&self.inner, &self.held, Some(url)).await;
            self.inner.validators(url).await
        })
    }

    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            flush_validators(&self.inner, &self.held, Some(url)).await;
            let mut slot = self.held.lock().unwrap_or_else(|p| p.into_inner());
            if !slot.fenced_out {
                slot.pending.retain(|(u, _)| u != url);
                slot.pending.push((url.clone(), validators));
            }
        })
    }

    fn listing_links<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Option<ListingLinks>> {
        Box::pin(async move {
            flush_validators(&self.inner, &self.held, Some(url)).await;
            self.inner.listing_links(url).await
        })
    }

    fn set_listing_links<'a>(&'a self, url: &'a Url, links: ListingLinks) -> BoxFuture<'a, ()> {
        self.inner.set_listing_links(url, links)
    }

    fn stored_events<'a>(&'a self, from: SystemTime, to: SystemTime) -> BoxFuture<'a, Vec<Found>> {
        self.inner.stored_events(from, to)
    }

    fn archive_terms<'a>(
        &'a self,
        page: &'a Url,
        body: Vec<u8>,
        at: SystemTime,
    ) -> BoxFuture<'a, bool> {
        self.inner.archive_terms(page, body, at)
    }

    fn upsert_news<'a>(&'a self, news: crate::News, keep_summary: bool) -> BoxFuture<'a, bool> {
        self.inner.upsert_news(news, keep_summary)
    }

    fn site_rights<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Option<crate::rights::RightsFiles>> {
        self.inner.site_rights(site)
    }

    fn set_relay_allowed<'a>(
        &'a self,
        image: &'a Url,
        source: Option<&'a str>,
        allowed: bool,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        self.inner.set_relay_allowed(image, source, allowed, reason)
    }

    fn put_site_rights<'a>(
        &'a self,
        site: &'a str,
        files: crate::rights::RightsFiles,
    ) -> BoxFuture<'a, ()> {
        self.inner.put_site_rights(site, files)
    }

    fn language_model(&self) -> Option<Arc<gleaner_llm::Llm>> {
        self.inner.language_model()
    }

    fn keep_for_next_pass<'a>(
        &'a self,
        source: &'a str,
        url: &'a Url,
        purpose: gleaner_policy::Purpose,
    ) -> BoxFuture<'a, ()> {
        self.inner.keep_for_next_pass(source, url, purpose)
    }

    fn kept_for_next_pass<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Vec<(Url, gleaner_policy::Purpose)>> {
        self.inner.kept_for_next_pass(source)
    }

    fn asked_again<'a>(&'a self, source: &'a str, url: &'a Url) -> BoxFuture<'a, ()> {
        self.inner.asked_again(source, url)
    }
}

/// One worker slot over the store: the queue it claims from and the sink its pass
/// writes through, sharing the slot's current claim. `llm` is the language-model step
/// for sources that use it; `worker_lease` how long the worker's own lease is renewed
/// for with each claim.
pub fn store_slot(
    store: &Store,
    state: &Arc<CrawlerState>,
    settings: &Arc<Settings>,
    llm: Option<Arc<gleaner_llm::Llm>>,
    worker_lease: Duration,
) -> (StoreQueue, FencedSink) {
    let held: Held = Arc::default();
    let sink = FencedSink {
        inner: StoreSink::with_model(store.clone(), Arc::clone(settings), llm),
        state: Arc::clone(state),
        held: Arc::clone(&held),
    };
    let queue = StoreQueue {
        state: Arc::clone(state),
        store: store.clone(),
        held,
        sink: StoreSink::new(store.clone(), Arc::clone(settings)),
        worker_lease,
    };
    (queue, sink)
}

/// Runs one worker loop per gate in `gates` (each over its own lease fence of `state`)
/// until `stop` is set or, with `options.exit_when_idle`, nothing is due; returns what
/// all slots did (an error when one panicked). `worker_lease` is how long the worker's own lease is renewed for with
/// each claim.
#[allow(clippy::too_many_arguments)] // the parts of a worker, each built by the binary
pub async fn run_slots(
    store: &Store,
    state: &Arc<CrawlerState>,
    settings: &Arc<Settings>,
    llm: Option<Arc<gleaner_llm::Llm>>,
    gates: Vec<(Arc<Gate>, Arc<LeaseFence>)>,
    options: &WorkerOptions,
    worker_lease: Duration,
    stop: &Arc<AtomicBool>,
) -> Result<WorkerReport, String> {
    let link_cap = crate::store_sink::link_check_cap(settings, store);
    let mut slots = Vec::new();
    for (gate, fence) in gates {
        let (queue, sink) = store_slot(store, state, settings, llm.clone(), worker_lease);
        let ctx = PassContext {
            clock: Arc::clone(gate.clock()),
            gate,
            sink: Arc::new(sink),
            settings: Arc::clone(settings),
            stop: Arc::clone(stop),
        };
        let (options, stop, link_cap) = (options.clone(), Arc::clone(stop), Arc::clone(&link_cap));
        slots.push(tokio::spawn(async move {
            let log = |line| eprintln!("{line}");
            run_worker(&queue, &ctx, &fence, &link_cap, &options, &stop, &log).await
        }));
    }
    let mut done = WorkerReport::default();
    for slot in slots {
        done.add(&slot.await.map_err(|e| format!("a worker slot panicked: {e}"))?);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fenced sink is the store sink for everything but event writes: the trait's
    /// defaults (which keep nothing) must never answer for it.
    #[tokio::test]
    async fn the_fenced_sink_keeps_rights_files_and_relay_decisions_in_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_sqlite(&dir.path().join("w.db")).unwrap();
        let text = "[bot]\ntoken = \"T\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n";
        let settings = Arc::new(gleaner_config::parse(text, "t.toml").unwrap());
        let sink = FencedSink {
            inner: StoreSink::new(store.clone(), Arc::clone(&settings)),
            state: Arc::new(store.occasional_state().await.unwrap()),
            held: Arc::default(),
        };
        let now = SystemTime::now();
        let files = crate::rights::RightsFiles {
            read_at: now,
            valid_until: now + Duration::from_secs(3600),
            tdmrep: Some(b"[]".to_vec()),
            ai_txt: None,
        };
        sink.put_site_rights("https://a.example", files).await;
        let kept = sink.site_rights("https://a.example").await.expect("stored through the sink");
        assert_eq!(kept.tdmrep.as_deref(), Some(&b"[]"[..]));
        let image = Url::parse("https://a.example/poster.jpg").unwrap();
        sink.set_relay_allowed(&image, Some("s"), false, "test".into()).await;
        let kept = store.relay_image_by_url(image.as_str()).await.unwrap();
        assert!(kept.is_some_and(|i| !i.allowed), "the relay decision is in the store");
    }
}
