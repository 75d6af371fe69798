//! `gleaner worker` (= `gleaner run --role worker`): claims due work from the store's
//! shared queue (PostgreSQL), runs each item through the gate under its lease and
//! fences its event writes with the claim's token (SPEC §7). The queue is filled by
//! `gleaner run --role scheduler` (or `--role all`).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use gleaner_config::Settings;
use gleaner_config::sources::Keep;
use gleaner_fetch::{Client, ClientSettings, Gate, Validators};
use gleaner_policy::state::{BoxFuture, GateState};
use gleaner_scheduler::links::ListingLinks;
use gleaner_scheduler::worker::{Claim, Job, LeaseFence, WorkQueue, WorkerOptions, run_worker};
use gleaner_scheduler::{EventSink, Found, PassContext, PassReport, Upsert};
use gleaner_store::{
    BackendKind, CrawlerState, EventWrite, Store, StoreError, Upserted, WorkLease,
};
use url::Url;

use crate::BadInput;
use crate::wiring::open_store;
use gleaner_scheduler::StoreSink;

/// Arguments of `gleaner worker` (also taken by `gleaner run --role worker|all`).
#[derive(Debug, Args, Clone)]
pub struct WorkerArgs {
    /// How long a claim on a work item lasts on the database clock; renewed every
    /// quarter of it while the item runs. A dead worker's items are claimed again this
    /// long after its last renewal.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = humantime::parse_duration)]
    pub lease: Duration,
    /// Work items run at once by this process, each through its own gate and lease.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub slots: u32,
    /// Exit once nothing is queued or claimed instead of waiting for more work.
    #[arg(long)]
    pub exit_when_idle: bool,
}

impl Default for WorkerArgs {
    fn default() -> Self {
        WorkerArgs { lease: Duration::from_secs(60), slots: 1, exit_when_idle: false }
    }
}

/// How much longer than a claim the worker's own lease (which keeps its requests in
/// flight counted) is renewed for, so it always outlives the claim it is renewed with.
const WORKER_LEASE_SLACK: Duration = Duration::from_secs(10);

/// Runs `gleaner worker`.
pub fn run(args: &WorkerArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    runtime.block_on(async {
        let store = open_store(&settings)?;
        require_postgres(&store, "worker")?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut work = tokio::spawn(work(
            Arc::clone(&settings),
            store.clone(),
            args.clone(),
            Arc::clone(&stop),
        ));
        tokio::select! {
            result = &mut work => result.context("the worker stopped")??,
            () = crate::cmd::run::shutdown_signal() => {
                eprintln!(
                    "gleaner: stopping; items in flight finish their current request and are given back"
                );
                stop.store(true, Ordering::Relaxed);
                work.await.context("the worker stopped")??;
            }
        }
        store.flush_audit().await.map_err(|e| anyhow::anyhow!("{e}")).context("failed to flush the audit log")
    })
}

/// Multi-process roles share one budget through the database: SQLite allows one
/// crawling process per file.
pub fn require_postgres(store: &Store, role: &str) -> Result<()> {
    if store.kind() == BackendKind::Postgres {
        return Ok(());
    }
    Err(BadInput(format!(
        "the `{role}` role needs a PostgreSQL store, and `{}` is SQLite (one crawling process per file)\n\
         hint: set `[store] url = \"postgres://USER@HOST/DB\"` for several processes, or run `gleaner run` (role `all`) for one",
        store.location()
    ))
    .into())
}

/// Runs `args.slots` worker loops until `stop` is set (or, with `exit_when_idle`, until
/// nothing is due). Every slot has its own gate, lease fence and claim.
pub async fn work(
    settings: Arc<Settings>,
    store: Store,
    args: WorkerArgs,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let state = Arc::new(
        store
            .claim_worker(args.lease + WORKER_LEASE_SLACK)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("failed to register this worker")?,
    );
    eprintln!("gleaner: worker `{}` started ({} slot(s))", state.worker_id(), args.slots);
    let link_cap = gleaner_scheduler::store_sink::link_check_cap(&settings, &store);
    let margin = settings.limits.connect_timeout + settings.limits.response_deadline;
    if args.lease <= margin + margin / 4 {
        return Err(BadInput(format!(
            "--lease {} leaves no time to start a request: each must start with at least the connect timeout plus the response deadline ({}) left\nhint: pass a longer --lease",
            humantime::format_duration(args.lease),
            humantime::format_duration(margin)
        ))
        .into());
    }
    let options = WorkerOptions {
        lease: args.lease,
        margin,
        idle_poll: Duration::from_millis(500),
        exit_when_idle: args.exit_when_idle,
    };
    let clock = store
        .clock()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to read the database clock")?;
    let llm = crate::wiring::connect_llm(&settings, &store).await?;
    let mut slots = Vec::new();
    let mut gates = Vec::new();
    for _ in 0..args.slots {
        let client = Client::new(ClientSettings::from_settings(&settings))
            .context("failed to start the HTTP client")?;
        let clock = Arc::clone(&clock);
        let inner: Arc<dyn GateState> = Arc::clone(&state) as Arc<dyn GateState>;
        let fence = Arc::new(LeaseFence::new(inner));
        let gate = Gate::new(
            client,
            Arc::clone(&settings),
            Arc::clone(&fence) as Arc<dyn GateState>,
            Arc::new(store.clone()),
            Arc::new(store.clone()),
            Arc::clone(&clock),
        );
        let held: Held = Arc::default();
        let sink = Arc::new(FencedSink {
            inner: StoreSink::with_model(store.clone(), Arc::clone(&settings), llm.clone()),
            state: Arc::clone(&state),
            held: Arc::clone(&held),
            settings: Arc::clone(&settings),
        });
        let gate = Arc::new(gate);
        gates.push(Arc::clone(&gate));
        let ctx = PassContext {
            gate,
            sink,
            clock,
            settings: Arc::clone(&settings),
            stop: Arc::clone(&stop),
        };
        let queue = StoreQueue {
            state: Arc::clone(&state),
            store: store.clone(),
            held,
            sink: StoreSink::new(store.clone(), Arc::clone(&settings)),
            worker_lease: args.lease + WORKER_LEASE_SLACK,
        };
        let (options, stop, link_cap) = (options.clone(), Arc::clone(&stop), Arc::clone(&link_cap));
        slots.push(tokio::spawn(async move {
            run_worker(&queue, &ctx, &fence, &link_cap, &options, &stop, &|line| {
                eprintln!("{line}")
            })
            .await
        }));
    }
    crate::wiring::wake_on_registry_changes(&store, gates);
    let mut done = gleaner_scheduler::worker::WorkerReport::default();
    for slot in slots {
        let report = slot.await.context("a worker slot panicked")?;
        done.claimed += report.claimed;
        done.completed += report.completed;
        done.lost += report.lost;
        done.released += report.released;
    }
    eprintln!(
        "gleaner: worker `{}`: {} claimed, {} completed, {} lost to another worker, {} given back",
        state.worker_id(),
        done.claimed,
        done.completed,
        done.lost,
        done.released
    );
    Ok(())
}

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
struct StoreQueue {
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
        Box::pin(async move {
            let failed = gleaner_scheduler::daemon::failed_visit(report);
            match self.store.record_outcome(&report.source, failed).await {
                Ok(streak) if failed => eprintln!(
                    "gleaner: source `{}`: failed visit ({streak} in a row)",
                    report.source
                ),
                Ok(_) => {}
                Err(error) => eprintln!(
                    "warning: failed to record the outcome of `{}`: {error}",
                    report.source
                ),
            }
            crate::cmd::run::log_pass(report);
        })
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
struct FencedSink {
    inner: StoreSink,
    state: Arc<CrawlerState>,
    held: Held,
    settings: Arc<Settings>,
}

impl EventSink for FencedSink {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        Box::pin(async move {
            let held = self.held.lock().unwrap_or_else(|p| p.into_inner()).lease.clone();
            let Some(lease) = held else {
                eprintln!("warning: not storing events from `{}`: no current claim", found.page);
                return Upsert::Unchanged;
            };
            let keep = match self.settings.sources.iter().find(|s| s.id == found.source) {
                Some(s) if s.keep == Keep::Full => gleaner_store::Keep::Full,
                _ => gleaner_store::Keep::Facts,
            };
            let write = EventWrite {
                event: &found.event,
                source: Some(&found.source),
                fetched_url: &found.page,
                fetched_at: found.checked_at,
                keep,
                extractor: found.extractor,
            };
            match self.state.upsert_event_fenced(&write, &lease).await {
                Ok(Upserted::Inserted(_)) => Upsert::New,
                Ok(Upserted::Updated { .. }) => Upsert::Updated,
                Ok(Upserted::Unchanged(_)) => Upsert::Unchanged,
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

    fn upsert_news<'a>(
        &'a self,
        news: gleaner_scheduler::sink::News,
        keep_summary: bool,
    ) -> BoxFuture<'a, bool> {
        self.inner.upsert_news(news, keep_summary)
    }

    fn site_rights<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Option<gleaner_scheduler::rights::RightsFiles>> {
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
        files: gleaner_scheduler::rights::RightsFiles,
    ) -> BoxFuture<'a, ()> {
        self.inner.put_site_rights(site, files)
    }

    fn language_model(&self) -> Option<Arc<gleaner_llm::Llm>> {
        self.inner.language_model()
    }
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
            settings,
        };
        let now = SystemTime::now();
        let files = gleaner_scheduler::rights::RightsFiles {
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
