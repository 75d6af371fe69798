//! The worker loop against a queue that behaves like the PostgreSQL one in the way that
//! matters: a claim's renewal waits for the row lock each fenced event write holds
//! (`FOR SHARE` against `UPDATE`) until that write commits. A loop that awaits the
//! renewal without polling the pass deadlocks there (on PostgreSQL the server ended the
//! idle transaction after 10 s and the write was lost); this loop must store every event.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime};

use gleaner_fetch::Validators;
use gleaner_policy::state::BoxFuture;
use gleaner_scheduler::checks::DailyCap;
use gleaner_scheduler::links::ListingLinks;
use gleaner_scheduler::worker::{Claim, Job, LeaseFence, WorkQueue, WorkerOptions, run_worker};
use gleaner_scheduler::{EventSink, Found, MemorySink, PassReport, Upsert};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use tokio::sync::RwLock;
use url::Url;

use crate::{config, context};

/// The claim's row: event writes share it, a renewal needs it alone.
type Row = Arc<RwLock<()>>;

struct TestClaim {
    expires: Instant,
}

impl Claim for TestClaim {
    fn job(&self) -> Option<Job> {
        Some(Job::Pass("site-0".into()))
    }
    fn expires_at(&self) -> Instant {
        self.expires
    }
}

struct LockingQueue {
    row: Row,
    claimed: AtomicBool,
    done: AtomicBool,
    renewals: AtomicU32,
}

impl WorkQueue for LockingQueue {
    type Claim = TestClaim;

    fn claim(&self, lease: Duration) -> BoxFuture<'_, Result<Option<TestClaim>, String>> {
        Box::pin(async move {
            Ok((!self.claimed.swap(true, Ordering::SeqCst))
                .then(|| TestClaim { expires: Instant::now() + lease }))
        })
    }

    fn renew<'a>(
        &'a self,
        _: &'a TestClaim,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Option<TestClaim>, String>> {
        Box::pin(async move {
            // `UPDATE frontier …` waits for every `FOR SHARE` holder to commit.
            let _row = self.row.write().await;
            self.renewals.fetch_add(1, Ordering::SeqCst);
            Ok(Some(TestClaim { expires: Instant::now() + lease }))
        })
    }

    fn complete<'a>(&'a self, _: &'a TestClaim) -> BoxFuture<'a, Result<bool, String>> {
        self.done.store(true, Ordering::SeqCst);
        Box::pin(async { Ok(true) })
    }

    fn release<'a>(&'a self, _: &'a TestClaim) -> BoxFuture<'a, Result<bool, String>> {
        Box::pin(async { Ok(true) })
    }

    fn hold(&self, _: Option<&TestClaim>) {}

    fn pending(&self) -> BoxFuture<'_, Result<u64, String>> {
        Box::pin(async move { Ok(u64::from(!self.done.load(Ordering::SeqCst))) })
    }

    fn pass_done<'a>(&'a self, _: &'a PassReport) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// A sink whose event writes hold the claim's row across a round trip, as a fenced
/// write's transaction does between its `FOR SHARE` and its `COMMIT`.
struct FencedWrites {
    inner: Arc<MemorySink>,
    row: Row,
}

impl EventSink for FencedWrites {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        Box::pin(async move {
            let _share = self.row.read().await;
            tokio::time::sleep(Duration::from_millis(60)).await;
            self.inner.upsert(found).await
        })
    }
    fn checked_unchanged<'a>(&'a self, page: &'a Url, at: SystemTime) -> BoxFuture<'a, ()> {
        self.inner.checked_unchanged(page, at)
    }
    fn validators<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Validators> {
        self.inner.validators(url)
    }
    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()> {
        self.inner.set_validators(url, validators)
    }
    fn listing_links<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Option<ListingLinks>> {
        self.inner.listing_links(url)
    }
    fn set_listing_links<'a>(&'a self, url: &'a Url, links: ListingLinks) -> BoxFuture<'a, ()> {
        self.inner.set_listing_links(url, links)
    }
    fn stored_events<'a>(&'a self, from: SystemTime, to: SystemTime) -> BoxFuture<'a, Vec<Found>> {
        self.inner.stored_events(from, to)
    }
}

#[tokio::test]
async fn a_renewal_waiting_for_the_passs_own_write_does_not_stall_the_pass() {
    const EVENTS: u32 = 6;
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: EVENTS, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let (mut ctx, memory) = context(&config(&web, 1));
    let row: Row = Arc::default();
    ctx.sink = Arc::new(FencedWrites { inner: Arc::clone(&memory), row: Arc::clone(&row) });
    let queue = LockingQueue {
        row,
        claimed: AtomicBool::new(false),
        done: AtomicBool::new(false),
        renewals: AtomicU32::new(0),
    };
    // Renewals every 100 ms (a quarter of the lease) while writes hold the row 60 ms:
    // they collide many times in a pass of ~1 s.
    let options = WorkerOptions {
        lease: Duration::from_millis(400),
        margin: Duration::from_millis(50),
        idle_poll: Duration::from_millis(20),
        exit_when_idle: true,
    };
    let fence = LeaseFence::new(ctx.gate.state().clone());
    let cap = Arc::new(DailyCap::new(10));
    let stop = AtomicBool::new(false);
    let report = tokio::time::timeout(
        Duration::from_secs(20),
        run_worker(&queue, &ctx, &fence, &cap, &options, &stop, &|_| {}),
    )
    .await
    .expect("the worker finished: a renewal never waits for a write it does not let run");
    assert_eq!(report.completed, 1, "{report:?}");
    assert!(queue.renewals.load(Ordering::SeqCst) >= 3, "positive control: renewals happened");
    assert_eq!(memory.events().len(), EVENTS as usize, "every event stored");
    web.shutdown().await;
}
