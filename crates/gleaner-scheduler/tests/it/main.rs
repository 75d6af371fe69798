//! One pass over listing sources of the loopback test web, checked from the sites' side
//! and from what was stored.
//!
//! Passes that wait gaps, retries or time limits run on paused time against the
//! in-process web ([`paused_context`]); a pass over many sites
//! (`many_sites::one_source_with_500_start_urls_crawls_500_sites_concurrently_each_at_its_gap`)
//! and the plain passes stay on real sockets, the site's side of the proof.

mod apis;
mod checks;
mod city;
mod connections;
mod many_sites;
mod prefs;
mod promises;
mod rights;
mod site_tasks;
mod worker_loop;

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, SystemClock, WallClock};
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_scheduler::{MemorySink, PassContext, run_pass};
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};

pub(crate) fn context(config: &str) -> (PassContext, Arc<MemorySink>) {
    context_with_keys(config, |_| None)
}

/// A context whose licensed APIs' keys come from `keys` (variable name → key).
pub(crate) fn context_with_keys(
    config: &str,
    keys: impl Fn(&str) -> Option<String>,
) -> (PassContext, Arc<MemorySink>) {
    build_context(config, keys, None)
}

/// A context on paused time: the gate reaches `web` (an in-process test web,
/// [`TestWeb::in_process`]) through its transport, and the gate and the pass read a
/// [`ShiftedClock`] on Tokio's clock, so `#[tokio::test(start_paused = true)]` waits the
/// gaps out on paused time and the web's ledger sees them on the same clock.
pub(crate) fn paused_context(config: &str, web: &TestWeb) -> (PassContext, Arc<MemorySink>) {
    build_context(config, |_| None, Some(web))
}

fn build_context(
    config: &str,
    keys: impl Fn(&str) -> Option<String>,
    in_process: Option<&TestWeb>,
) -> (PassContext, Arc<MemorySink>) {
    let mut settings = gleaner_config::parse(config, "test.toml").unwrap();
    settings.load_api_keys(keys);
    let settings = Arc::new(settings);
    let client_settings = ClientSettings::from_settings(&settings);
    let (client, clock): (Client, Arc<dyn WallClock>) = match in_process {
        Some(web) => (
            Client::with_transport(client_settings, web.transport()),
            Arc::new(ShiftedClock::from_now()),
        ),
        None => (Client::new(client_settings).unwrap(), Arc::new(SystemClock)),
    };
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        Arc::clone(&clock),
    );
    let sink = Arc::new(MemorySink::default());
    (
        PassContext {
            gate: Arc::new(gate),
            sink: sink.clone(),
            clock,
            settings,
            stop: Arc::default(),
        },
        sink,
    )
}

fn config(web: &TestWeb, sites: usize) -> String {
    let mut text = String::from(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"60ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n",
    );
    for site in 0..sites {
        text.push_str(&format!(
            "\n[[sources]]\nid = \"site-{site}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\nkeep = \"full\"\n",
            web.url(site, "/events/")
        ));
    }
    text
}

pub(crate) async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), f).await.expect("finished within 30 s")
}

#[tokio::test]
async fn a_pass_reads_listings_and_event_pages_politely_and_stores_events() {
    let web = TestWeb::start(
        Manifest::uniform(2, SiteSpec { events: 6, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    let (ctx, sink) = context(&config(&web, 2));
    let deadline = SystemTime::now() + Duration::from_secs(60);
    let sources = ctx.settings.sources.clone();
    let reports = bounded(async {
        let mut handles = Vec::new();
        for source in sources {
            let ctx = ctx.clone();
            handles.push(tokio::spawn(
                async move { run_pass(&ctx, &source, deadline, &|_| {}).await },
            ));
        }
        let mut out = Vec::new();
        for h in handles {
            out.push(h.await.unwrap());
        }
        out
    })
    .await;
    for report in &reports {
        assert!(report.errors.is_empty(), "{report:?}");
        assert_eq!(report.event_pages, 6, "{report:?}");
        assert!(report.listing_pages >= 1, "{report:?}");
        assert!(report.events_new >= 6, "{report:?}");
    }
    let ledger = web.ledger();
    for site in 0..2 {
        let wanted: Vec<String> = (1..=6).map(|n| format!("/events/{n}.html")).collect();
        ledger
            .expect_all_fetched(&wanted.iter().map(|p| (site, p.as_str())).collect::<Vec<_>>())
            .unwrap();
    }
    ledger.check_robots_first().unwrap();
    ledger.check_min_gap(Duration::from_millis(60)).unwrap();
    ledger.check_disallowed().unwrap();
    ledger.check_identity("TestBot/1.0 (+https://bot.example/about)").unwrap();
    let stored = sink.events();
    assert!(stored.len() >= 12, "{} events stored", stored.len());
    assert!(stored.iter().all(|f| f.event.title.is_some() && f.event.start.is_some()));
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_second_pass_is_conditional_and_re_extracts_nothing_unchanged() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 4, ..SiteSpec::default() }).with_token("TestBot"),
    );
    let (ctx, _sink) = paused_context(&config(&web, 1), &web);
    let source = ctx.settings.sources[0].clone();
    let deadline = ctx.clock.now() + Duration::from_secs(60);
    let first = bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert_eq!(first.event_pages, 4, "{first:?}");
    let second = bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert_eq!(second.not_modified, 6, "two listing pages and four event pages: {second:?}");
    assert_eq!(second.event_pages, 0, "{second:?}");
    let ledger = web.ledger();
    ledger.check_conditional_refetches().unwrap();
    assert_eq!(ledger.count(0, "/robots.txt"), 1, "robots.txt cached between passes");
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn a_pass_past_its_time_limit_requeues_the_rest() {
    let web = TestWeb::in_process(
        Manifest::uniform(1, SiteSpec { events: 8, ..SiteSpec::default() }).with_token("TestBot"),
    );
    let text = config(&web, 1).replace("gap = \"60ms\"", "gap = \"400ms\"");
    let (ctx, _sink) = paused_context(&text, &web);
    let source = ctx.settings.sources[0].clone();
    // One gap apart: robots.txt at 0, the rights files (tdmrep.json, ai.txt, read by
    // default) at 0.4 and 0.8 s, the two listing pages at 1.2 and 1.6 s, the first event
    // page at 2.0 s. The limit was 1.5 s before the rights files; two gaps more, 2.3 s,
    // leave room for one of the eight event pages and requeue the rest.
    let report =
        bounded(run_pass(&ctx, &source, ctx.clock.now() + Duration::from_millis(2300), &|_| {}))
            .await;
    assert!(report.requeued > 0, "{report:?}");
    assert_eq!(report.failed, 0, "a time limit is not a failure: {report:?}");
    assert!(report.event_pages >= 1, "some pages were read: {report:?}");
    web.shutdown().await;
}
