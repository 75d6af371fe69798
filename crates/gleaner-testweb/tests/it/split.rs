//! One web split over child processes (issue 27): each slice binds its own addresses in
//! its own process, and the ledgers come back as one.

use std::path::Path;
use std::time::Duration;

use gleaner_testweb::{Manifest, SiteSpec, SplitWeb, site_ip};

use crate::client::get;

#[tokio::test]
async fn issue27_split_web_serves_slices_in_child_processes_and_merges_their_ledgers() {
    let exe = Path::new(env!("CARGO_BIN_EXE_gleaner-testweb"));
    let web = SplitWeb::start(exe, Manifest::uniform(5, SiteSpec::default()), 2).unwrap();
    assert_eq!((web.len(), web.children()), (5, 3));
    for i in 0..5 {
        // Site `i` is on its own address in the whole web, whichever child serves it.
        assert_eq!(web.addr(i).ip(), site_ip(i));
        assert_eq!(get(web.addr(i), "/robots.txt").await.status, 200);
    }
    assert_eq!(get(web.addr(4), "/events/").await.status, 200);
    let (ledger, usage) = web.stop(Duration::from_secs(10)).unwrap();
    assert_eq!(usage.children, 3);
    assert_eq!(ledger.len(), 6, "{}", ledger.to_json_lines());
    // Positive control: the last child's site is site 4 of the whole web, not its own 0.
    ledger.expect_fetched(4, "/events/").unwrap();
    for i in 0..5 {
        assert_eq!(ledger.count(i, "/robots.txt"), 1, "site {i}");
    }
    ledger.check_robots_first().unwrap();
    let seqs: Vec<u64> = ledger.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (0..6).collect::<Vec<_>>());
    assert!(ledger.windows(2).all(|w| w[0].at <= w[1].at), "merged in arrival order");
}
