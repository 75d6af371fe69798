//! Each site's crawl is its own task (issue 27): on a multi-thread runtime two sites'
//! crawls run at the same instant on two threads, and a crawl that panics is one site's
//! problem in the report, not a lost pass.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, SystemTime};

use gleaner_fetch::Validators;
use gleaner_policy::state::BoxFuture;
use gleaner_scheduler::links::ListingLinks;
use gleaner_scheduler::{EventSink, Found, MemorySink, PassContext, Upsert, run_pass};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use url::Url;

use super::context;

/// What the test sink does when an event is stored, before storing it.
type Hook = Box<dyn Fn(&Found) + Send + Sync>;

/// A [`MemorySink`] that runs a hook on each stored event first.
struct HookSink {
    inner: Arc<MemorySink>,
    hook: Hook,
}

impl EventSink for HookSink {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        (self.hook)(&found);
        self.inner.upsert(found)
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

/// A pass over `sites` test-web sites (20 ms gap) whose sink runs
/// `hook` on each event, with the in-memory sink underneath.
fn hooked(web: &TestWeb, sites: usize, hook: Hook) -> (PassContext, Arc<MemorySink>) {
    let urls: Vec<String> = (0..sites).map(|i| format!("\"{}\"", web.url(i, "/events/"))).collect();
    let config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"20ms\"\nglobal_daily_cap = 100000\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [[sources]]\nid = \"venues\"\nkind = \"listing\"\nstart_urls = [{}]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n",
        urls.join(", ")
    );
    let (mut ctx, sink) = context(&config);
    ctx.sink = Arc::new(HookSink { inner: Arc::clone(&sink), hook });
    (ctx, sink)
}

fn site_of(url: &str) -> String {
    gleaner_fetch::site_key(&Url::parse(url).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_sites_crawls_run_at_the_same_instant_on_two_threads() {
    let web = TestWeb::start(
        Manifest::uniform(2, SiteSpec { events: 8, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    // Each store blocks its thread (not just its task) until the other site's crawl is
    // storing too, at most 1 s: crawls polled by one task never meet here. Eight events a
    // site give them eight chances (a task can wait behind a blocked worker for a while).
    let inside = Arc::new((Mutex::new(0usize), Condvar::new()));
    let met = Arc::new(AtomicBool::new(false));
    let stores = Arc::new(AtomicUsize::new(0));
    // Stores on the thread that runs the pass itself (the test's own, here): none, each
    // site's crawl is a task of the runtime's workers.
    let on_pass_thread = Arc::new(AtomicUsize::new(0));
    let pass_thread = std::thread::current().id();
    let hook = {
        let (inside, met, stores) = (Arc::clone(&inside), Arc::clone(&met), Arc::clone(&stores));
        let on_pass_thread = Arc::clone(&on_pass_thread);
        Box::new(move |_: &Found| {
            stores.fetch_add(1, Ordering::Relaxed);
            if std::thread::current().id() == pass_thread {
                on_pass_thread.fetch_add(1, Ordering::Relaxed);
            }
            let (count, cvar) = &*inside;
            let mut n = count.lock().unwrap();
            *n += 1;
            if *n >= 2 {
                met.store(true, Ordering::Relaxed);
                cvar.notify_all();
            } else if !met.load(Ordering::Relaxed) {
                // `block_in_place` hands this worker's queued tasks to another thread
                // first: a plain blocking wait could hold the other site's crawl in this
                // worker's LIFO slot, which no other worker may steal (seen: every store
                // waited its whole second, 2 runs in 6). A crawl polled by the same task
                // as this one still cannot run while it waits.
                n = tokio::task::block_in_place(|| {
                    cvar.wait_timeout(n, Duration::from_secs(1)).unwrap().0
                });
            }
            *n -= 1;
        })
    };
    let (ctx, sink) = hooked(&web, 2, hook);
    let source = ctx.settings.sources[0].clone();
    let deadline = SystemTime::now() + Duration::from_secs(60);
    let report = super::bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    // Positive control: both sites' events went through the hook.
    assert_eq!(report.event_pages, 16, "{report:?}");
    assert_eq!(sink.events().len(), 16);
    assert!(stores.load(Ordering::Relaxed) >= 16);
    assert_eq!(on_pass_thread.load(Ordering::Relaxed), 0, "no crawl ran on the pass's task");
    assert!(met.load(Ordering::Relaxed), "two sites' crawls were storing at the same instant");
    web.ledger().check_min_gap(Duration::from_millis(20)).unwrap();
    web.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_crawl_that_panics_is_that_sites_problem_and_the_pass_goes_on() {
    const SITES: usize = 3;
    let web = TestWeb::start(
        Manifest::uniform(SITES, SiteSpec { events: 3, ..SiteSpec::default() })
            .with_token("TestBot"),
    )
    .await
    .unwrap();
    let broken = site_of(&web.url(0, "/"));
    let hook = {
        let broken = broken.clone();
        Box::new(move |found: &Found| {
            if gleaner_fetch::site_key(&found.page) == broken {
                panic!("test: the sink fails on {}", found.page);
            }
        })
    };
    let (ctx, sink) = hooked(&web, SITES, hook);
    let source = ctx.settings.sources[0].clone();
    let deadline = SystemTime::now() + Duration::from_secs(60);
    let report = super::bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert_eq!(report.sites, SITES as u32, "{report:?}");
    // The other sites were crawled in full (positive control: the pass did run).
    assert_eq!(sink.events().len(), 3 * (SITES - 1), "{report:?}");
    assert!(sink.events().iter().all(|f| gleaner_fetch::site_key(&f.page) != broken));
    let problem = report.site_problems.iter().find(|p| p.site == broken).expect("site 0 reported");
    assert_eq!(problem.crashed, 1, "{problem:?}");
    assert!(problem.to_string().contains("1 crawl(s) crashed"), "{problem}");
    assert_eq!(report.site_problems.len(), 1, "{:?}", report.site_problems);
    web.shutdown().await;
}
