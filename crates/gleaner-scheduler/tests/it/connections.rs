//! Connections a pass keeps and closes (issue 27), judged from the site's side: a
//! connection is kept between a site's requests while the next one is due within
//! `[network] keep_idle`, and closed after the site's last request, so no idle
//! connection waits at the site (and ~30 KiB in the crawler) for nothing.

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use gleaner_scheduler::run_pass;
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};

use super::{bounded, config, context};

/// The test web's connection numbers of `entries`, in order of first use.
fn connections<'a>(entries: impl Iterator<Item = &'a gleaner_testweb::LedgerEntry>) -> Vec<u64> {
    let mut seen = Vec::new();
    for e in entries {
        if !seen.contains(&e.conn) {
            seen.push(e.conn);
        }
    }
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_s_connection_is_kept_between_its_requests_and_closed_after_its_last() {
    let web = TestWeb::start(
        Manifest::uniform(1, SiteSpec { events: 2, ..SiteSpec::default() }).with_token("TestBot"),
    )
    .await
    .unwrap();
    // `keep_idle` is the default 90 s: far longer than the 60 ms gap and the test.
    let (ctx, _sink) = context(&config(&web, 1));
    assert!(ctx.settings.network.keep_idle.is_some_and(|k| k >= Duration::from_secs(60)));
    let source = ctx.settings.sources[0].clone();
    let deadline = SystemTime::now() + Duration::from_secs(30);
    let first = bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert_eq!(first.event_pages, 2, "{first:?}");
    let ledger = web.ledger();
    let pass_one: Vec<_> = ledger.iter().cloned().collect();
    assert!(pass_one.len() >= 4, "robots.txt, the listing and two event pages: {pass_one:?}");
    // Kept: every request of the pass rode the one connection robots.txt opened.
    assert_eq!(connections(pass_one.iter()).len(), 1, "one connection for the pass: {pass_one:?}");

    let second = bounded(run_pass(&ctx, &source, deadline, &|_| {})).await;
    assert!(second.not_modified > 0, "the second pass asked the site again: {second:?}");
    let ledger = web.ledger();
    let before: BTreeSet<u64> = pass_one.iter().map(|e| e.conn).collect();
    let last_seq = pass_one.iter().map(|e| e.seq).max().unwrap_or_default();
    let pass_two: Vec<_> = ledger.iter().filter(|e| e.seq > last_seq).cloned().collect();
    assert!(!pass_two.is_empty(), "the second pass reached the site");
    // Closed: the first pass's connection ended with its last answer, so the second pass
    // connects anew (a connection left idle for 90 s would have been taken again).
    let reused: Vec<_> = pass_two.iter().filter(|e| before.contains(&e.conn)).collect();
    assert!(reused.is_empty(), "the second pass reused the first's connection: {reused:?}");
    web.shutdown().await;
}
