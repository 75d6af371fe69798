//! The worker loop (SPEC §7, issue 17): claim one work item from the shared queue, run
//! it through the gate under its lease, renew the lease while it runs, and finish it —
//! while never starting a request after the lease has run out.
//!
//! A work item is one *source pass* (or one cycle of a check): [`run_pass`] already owns
//! a pass's state (pagination, the per-pass quota, a listing's stored links), a site's
//! pages are served one gap apart whoever sends them, and parallelism comes from many
//! sites. So a claim costs one row per pass, not per page (see docs/workers.md, "Many
//! workers on one PostgreSQL database").
//!
//! The pieces, each independent of the database (the store implements [`WorkQueue`]):
//! - [`LeaseFence`]: a [`GateState`] wrapper that refuses any *reservation* (an update
//!   that adds a request in flight) once the worker's monotonic clock says the lease,
//!   minus a margin, is over. The check runs inside the reserving transaction, just
//!   before it commits, so it is the last thing before the gate sends; a refused
//!   reservation changes nothing and the gate defers the request (the pass re-queues).
//! - [`run_worker`]: the loop.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use gleaner_config::Settings;
use gleaner_policy::Purpose;
use gleaner_policy::state::{BoxFuture, Change, GateState, SiteState, StateError};

use crate::checks::{CheckReport, DailyCap, run_cancellation_check, run_link_check};
use crate::pass::{PassContext, PassReport, run_pass};

/// The gate's state for one worker slot: every update passes through, but a
/// reservation is refused unless the current lease allows a request to start.
#[derive(Debug)]
pub struct LeaseFence {
    inner: Arc<dyn GateState>,
    /// The last instant (monotonic) at which a request may start; `None`: none may.
    start_before: Mutex<Option<Instant>>,
}

impl LeaseFence {
    /// Wraps the store's gate state. No request may start until
    /// [`LeaseFence::allow_until`] is called.
    pub fn new(inner: Arc<dyn GateState>) -> LeaseFence {
        LeaseFence { inner, start_before: Mutex::new(None) }
    }

    /// Requests may start until `start_before` (already reduced by the margin); `None`
    /// stops them.
    pub fn allow_until(&self, start_before: Option<Instant>) {
        *self.start_before.lock().unwrap_or_else(|p| p.into_inner()) = start_before;
    }

    /// May a request start now?
    pub fn may_start(&self) -> bool {
        self.start_before
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|until| Instant::now() < until)
    }
}

impl GateState for LeaseFence {
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut refused = false;
            let flag = &mut refused;
            let guarded: Change<'_> = Box::new(move |state, global| {
                let before = (state.clone(), global.clone());
                change(state, global);
                // A reservation adds a request in flight; finishing one or storing
                // robots.txt never does, and is never refused.
                if state.budget.total_in_flight() > before.0.budget.total_in_flight()
                    && !self.may_start()
                {
                    (*state, *global) = before;
                    *flag = true;
                }
            });
            self.inner.update(site, guarded).await?;
            if refused {
                return Err(StateError(
                    "this worker's lease on its work item has (nearly) run out: not starting \
                     the request"
                        .to_owned(),
                ));
            }
            Ok(())
        })
    }

    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Result<Option<SiteState>, StateError>> {
        self.inner.site(site)
    }
}

/// What a work item asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Job {
    /// One pass over the configured source with this id.
    Pass(String),
    /// One cycle of the cancellation check.
    CancellationCheck,
    /// One cycle of the link check.
    LinkCheck,
}

impl Job {
    /// The job a queued item's purpose and source describe.
    pub fn of(purpose: Purpose, source: Option<&str>) -> Option<Job> {
        match (purpose, source) {
            (Purpose::CancellationCheck, _) => Some(Job::CancellationCheck),
            (Purpose::LinkCheck, _) => Some(Job::LinkCheck),
            (_, Some(source)) => Some(Job::Pass(source.to_owned())),
            (_, None) => None,
        }
    }
}

/// A claimed work item, as the worker loop sees it.
pub trait Claim: Send + Sync {
    /// What to do.
    fn job(&self) -> Option<Job>;
    /// The monotonic instant at which the claim expires (measured from before the
    /// claim was sent, so never later than the database's expiry).
    fn expires_at(&self) -> Instant;
}

/// The shared queue of work, as the worker loop uses it (the store implements it).
/// Errors are messages for the log.
pub trait WorkQueue: Send + Sync {
    /// A claim on one item.
    type Claim: Claim;
    /// Claims one due item for `lease`; `None` when nothing is due.
    fn claim(&self, lease: Duration) -> BoxFuture<'_, Result<Option<Self::Claim>, String>>;
    /// Extends a claim by `lease`; `None` when it was lost (expired, claimed again).
    fn renew<'a>(
        &'a self,
        claim: &'a Self::Claim,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Option<Self::Claim>, String>>;
    /// Marks the item done; false when the claim was no longer current.
    fn complete<'a>(&'a self, claim: &'a Self::Claim) -> BoxFuture<'a, Result<bool, String>>;
    /// Gives the item back, due again at once; false when the claim was not current.
    fn release<'a>(&'a self, claim: &'a Self::Claim) -> BoxFuture<'a, Result<bool, String>>;
    /// Makes `claim` the one this slot's results are fenced with (`None` between items).
    fn hold(&self, claim: Option<&Self::Claim>);
    /// Items not done yet, claimed or not.
    fn pending(&self) -> BoxFuture<'_, Result<u64, String>>;
    /// Records what a pass did (failure streaks, logs).
    fn pass_done<'a>(&'a self, report: &'a PassReport) -> BoxFuture<'a, ()>;
}

/// How a worker runs.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// How long a claim lasts on the database clock (renewed every quarter of it).
    pub lease: Duration,
    /// No request starts with less than this left on the lease (give it the connect
    /// timeout plus the response deadline, so the request also ends in time).
    pub margin: Duration,
    /// How long to wait before asking again when nothing is due.
    pub idle_poll: Duration,
    /// Stop once nothing is queued or claimed (tests, one-shot runs); otherwise poll for
    /// ever.
    pub exit_when_idle: bool,
}

/// What a worker did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkerReport {
    /// Items claimed.
    pub claimed: u32,
    /// Items completed with a current claim.
    pub completed: u32,
    /// Items whose claim was lost before they were done (another worker owns them).
    pub lost: u32,
    /// Items given back because the worker was stopped.
    pub released: u32,
    /// Errors talking to the queue.
    pub errors: Vec<String>,
}

impl WorkerOptions {
    /// The options of a worker whose claims last `lease`: no request starts with less
    /// than the connect timeout plus the response deadline left. Fails with what to pass
    /// when `lease` leaves no time to start a request.
    pub fn for_lease(
        settings: &Settings,
        lease: Duration,
        exit_when_idle: bool,
    ) -> Result<WorkerOptions, String> {
        let margin = settings.limits.connect_timeout + settings.limits.response_deadline;
        if lease <= margin + margin / 4 {
            return Err(format!(
                "--lease {} leaves no time to start a request: each must start with at least the connect timeout plus the response deadline ({}) left\nhint: pass a longer --lease",
                humantime::format_duration(lease),
                humantime::format_duration(margin)
            ));
        }
        Ok(WorkerOptions { lease, margin, idle_poll: Duration::from_millis(500), exit_when_idle })
    }
}

impl WorkerReport {
    /// Adds another slot's counts (its errors are its own).
    pub fn add(&mut self, other: &WorkerReport) {
        self.claimed += other.claimed;
        self.completed += other.completed;
        self.lost += other.lost;
        self.released += other.released;
    }

    /// The one-line summary, for the worker's log.
    pub fn summary(&self) -> String {
        format!(
            "{} claimed, {} completed, {} lost to another worker, {} given back",
            self.claimed, self.completed, self.lost, self.released
        )
    }
}

/// The instant before which a request may start under a claim expiring at `expires`.
fn start_before(expires: Instant, margin: Duration) -> Option<Instant> {
    expires.checked_sub(margin)
}

/// Runs the worker loop until `stop` is set (or, with `exit_when_idle`, until nothing
/// is due). `fence` must be the gate state of `ctx.gate`, and `ctx.sink` must fence its
/// writes with the claim [`WorkQueue::hold`] was last given.
pub async fn run_worker<Q: WorkQueue>(
    queue: &Q,
    ctx: &PassContext,
    fence: &LeaseFence,
    link_cap: &Arc<DailyCap>,
    options: &WorkerOptions,
    stop: &AtomicBool,
    log: &(dyn Fn(String) + Sync),
) -> WorkerReport {
    let mut report = WorkerReport::default();
    let renew_every = (options.lease / 4).max(Duration::from_millis(100));
    while !stop.load(Ordering::Relaxed) {
        let claim = match queue.claim(options.lease).await {
            Ok(Some(claim)) => claim,
            // Items claimed by a worker that died come back when its lease expires.
            Ok(None) if options.exit_when_idle && queue.pending().await == Ok(0) => break,
            Ok(None) => {
                tokio::time::sleep(options.idle_poll).await;
                continue;
            }
            Err(error) => {
                log(format!("warning: failed to claim work: {error}"));
                report.errors.push(error);
                tokio::time::sleep(options.idle_poll).await;
                continue;
            }
        };
        report.claimed += 1;
        let Some(job) = claim.job() else {
            log("warning: an unreadable work item was dropped".to_owned());
            let _ = queue.complete(&claim).await;
            continue;
        };
        let source = match &job {
            Job::Pass(id) => match ctx.settings.sources.iter().find(|s| &s.id == id) {
                Some(source) => Some(source.clone()),
                None => {
                    log(format!(
                        "warning: source `{id}` is queued but not in this worker's config; \
                         dropping it (run every role with the same config)"
                    ));
                    let _ = queue.complete(&claim).await;
                    continue;
                }
            },
            _ => None,
        };
        queue.hold(Some(&claim));
        fence.allow_until(start_before(claim.expires_at(), options.margin));
        let deadline = ctx.clock.now() + ctx.settings.politeness.run_time_limit;
        let work = async {
            match (&job, &source) {
                (Job::Pass(_), Some(source)) => {
                    Outcome::Pass(run_pass(ctx, source, deadline, &|_| {}).await)
                }
                (Job::LinkCheck, _) => {
                    Outcome::Check(run_link_check(ctx, link_cap, deadline).await)
                }
                _ => Outcome::Check(run_cancellation_check(ctx, deadline).await),
            }
        };
        tokio::pin!(work);
        let mut current = claim;
        let mut lost = false;
        let outcome = loop {
            tokio::select! {
                outcome = &mut work => break outcome,
                () = tokio::time::sleep(renew_every), if !lost => {}
            }
            // The work keeps running while the renewal is in flight: the renewal waits
            // for the row lock a fenced event write of this very pass holds, and that
            // write commits only while the pass is polled (awaiting the renewal alone
            // stalled the write until the server ended its idle transaction).
            let renewed = {
                let renewal = queue.renew(&current, options.lease);
                tokio::pin!(renewal);
                tokio::select! {
                    renewed = &mut renewal => Ok(renewed),
                    outcome = &mut work => Err(outcome),
                }
            };
            match renewed {
                Err(outcome) => break outcome,
                Ok(Ok(Some(renewed))) => {
                    fence.allow_until(start_before(renewed.expires_at(), options.margin));
                    queue.hold(Some(&renewed));
                    current = renewed;
                }
                Ok(Ok(None)) => {
                    // Lost: no further request starts; the pass winds down.
                    fence.allow_until(None);
                    lost = true;
                }
                // The old claim still holds until it expires; try again.
                Ok(Err(error)) => log(format!("warning: failed to renew a claim: {error}")),
            }
        };
        fence.allow_until(None);
        if let Outcome::Pass(pass) = &outcome {
            queue.pass_done(pass).await;
        }
        let finished = if stop.load(Ordering::Relaxed) {
            let released = queue.release(&current).await;
            if released == Ok(true) {
                report.released += 1;
            }
            released
        } else {
            let completed = queue.complete(&current).await;
            if completed == Ok(true) {
                report.completed += 1;
            }
            completed
        };
        queue.hold(None);
        match finished {
            Ok(true) => {}
            Ok(false) => {
                report.lost += 1;
                log(format!(
                    "gleaner: lost the claim on {job:?} before it was done; another worker owns it"
                ));
            }
            Err(error) => {
                log(format!("warning: failed to finish a work item: {error}"));
                report.errors.push(error);
            }
        }
        if let Outcome::Check(check) = &outcome {
            log(format!(
                "gleaner: {job:?}: {} events, {} pages, {} gone at source, {} re-queued",
                check.events, check.pages_checked, check.events_gone, check.requeued
            ));
        }
    }
    report
}

enum Outcome {
    Pass(PassReport),
    Check(CheckReport),
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_fetch::gate::state::MemoryState;

    fn reserve(s: &mut SiteState, _: &mut gleaner_policy::budget::GlobalBudget) {
        *s.budget.in_flight.entry(Purpose::EventPage).or_default() += 1;
    }

    fn finish(s: &mut SiteState, _: &mut gleaner_policy::budget::GlobalBudget) {
        *s.budget.in_flight.entry(Purpose::EventPage).or_default() -= 1;
    }

    async fn in_flight(fence: &LeaseFence) -> u32 {
        fence.site("http://a.test").await.ok().flatten().map_or(0, |s| s.budget.total_in_flight())
    }

    #[tokio::test]
    async fn spec7_no_reservation_after_the_lease_but_requests_still_finish() {
        let fence = LeaseFence::new(Arc::new(MemoryState::default()));
        let site = "http://a.test";
        assert!(fence.update(site, Box::new(reserve)).await.is_err(), "no claim, no request");
        assert_eq!(in_flight(&fence).await, 0, "a refused reservation changes nothing");

        fence.allow_until(Some(Instant::now() + Duration::from_secs(60)));
        fence.update(site, Box::new(reserve)).await.unwrap();
        assert_eq!(in_flight(&fence).await, 1, "positive control: reserved under the claim");

        fence.allow_until(Instant::now().checked_sub(Duration::from_millis(1)));
        let refused = fence.update(site, Box::new(reserve)).await.unwrap_err();
        assert!(refused.to_string().contains("lease"), "{refused}");
        assert_eq!(in_flight(&fence).await, 1);
        fence.update(site, Box::new(finish)).await.unwrap();
        assert_eq!(in_flight(&fence).await, 0, "a request under way still finishes");
        fence
            .update(site, Box::new(|s, _| s.failure_streak += 1))
            .await
            .expect("other updates pass");
    }
}
