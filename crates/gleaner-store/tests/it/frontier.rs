//! The frontier: due work claimed under leases with fencing tokens (SPEC §7), on both
//! backends. On PostgreSQL the second claimer is another worker (its own connections);
//! on SQLite, where one crawler holds the file, it is the same crawler claiming again.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_store::{BackendKind, CrawlerState, WorkItem};
use url::Url;

use crate::each_backend_test;

fn item(n: u32) -> WorkItem {
    WorkItem {
        site: "http://a.test".into(),
        url: Url::parse(&format!("http://a.test/events/{n}.html")).unwrap(),
        purpose: Purpose::EventPage,
        source: Some("agenda".into()),
    }
}

async fn second_worker(db: &crate::util::TestDb, first: &Arc<CrawlerState>) -> Arc<CrawlerState> {
    match db.kind() {
        BackendKind::Postgres => Arc::new(db.reopen().claim_crawler().await.unwrap()),
        BackendKind::Sqlite => Arc::clone(first),
    }
}

each_backend_test! {
    async fn claims_are_exclusive_expire_and_fence_out_the_old_holder(db) {
        let now = SystemTime::now();
        for n in 1..=3 {
            assert!(db.store.enqueue_work(&item(n), now).await.unwrap(), "queued {n}");
        }
        assert!(!db.store.enqueue_work(&item(1), now).await.unwrap(), "pending once");
        let later = item(9);
        db.store.enqueue_work(&later, now + Duration::from_secs(3600)).await.unwrap();

        let a = Arc::new(db.store.claim_crawler().await.unwrap());
        let b = second_worker(&db, &a).await;
        let lease = Duration::from_millis(400);
        let first = a.claim_work(2, lease, now).await.unwrap();
        assert_eq!(first.len(), 2, "positive control: a claims two");
        let second = b.claim_work(10, lease, now).await.unwrap();
        let urls: Vec<_> = second.iter().map(|l| l.item.url.path().to_owned()).collect();
        assert_eq!(urls, ["/events/3.html"], "b gets only what a did not claim, nothing not yet due");
        assert!(first[0].may_start(Duration::ZERO));
        assert!(!first[0].may_start(lease), "no request may start that could outlive the lease");
        assert!(a.complete_work(&first[0], now).await.unwrap(), "completed with its token");

        // a's other lease expires (on the database clock); b claims the item again.
        tokio::time::sleep(lease + Duration::from_millis(100)).await;
        assert!(!first[1].may_start(Duration::ZERO), "a's own clock says its lease is over");
        let again = b.claim_work(10, lease, now).await.unwrap();
        let ids: BTreeSet<i64> = again.iter().map(|l| l.id).collect();
        assert!(ids.contains(&first[1].id), "an expired lease is claimed again: {again:?}");
        assert!(!ids.contains(&first[0].id), "done work stays done");
        let retaken = again.iter().find(|l| l.id == first[1].id).unwrap();
        assert!(retaken.token > first[1].token, "a new fencing token");
        assert!(!a.complete_work(&first[1], now).await.unwrap(), "the old holder is fenced out");
        assert!(b.complete_work(retaken, now).await.unwrap(), "the new holder's result counts");
        for lease in &again {
            if lease.id != retaken.id {
                assert!(b.release_work(lease).await.unwrap());
            }
        }
        assert_eq!(a.claim_work(10, lease, now).await.unwrap().len(), 1, "released work is due again");
    }
}

each_backend_test! {
    async fn concurrent_claims_never_hand_out_an_item_twice(db) {
        let now = SystemTime::now();
        for n in 1..=40 {
            db.store.enqueue_work(&item(n), now).await.unwrap();
        }
        let a = Arc::new(db.store.claim_crawler().await.unwrap());
        let b = second_worker(&db, &a).await;
        let mut tasks = Vec::new();
        for worker in [a, b].into_iter().cycle().take(8) {
            tasks.push(tokio::spawn(async move {
                worker.claim_work(5, Duration::from_secs(60), now).await.unwrap()
            }));
        }
        let mut ids = Vec::new();
        for task in tasks {
            ids.extend(task.await.unwrap().into_iter().map(|l| l.id));
        }
        let unique: BTreeSet<i64> = ids.iter().copied().collect();
        assert_eq!(ids.len(), 40, "every item claimed");
        assert_eq!(unique.len(), 40, "none twice");
    }
}

each_backend_test! {
    async fn a_new_site_holder_waits_out_the_old_lease_plus_the_grace(db) {
        const SITE: &str = "http://a.test";
        let (lease, grace) = (Duration::from_millis(300), Duration::from_millis(300));
        let a = db.store.claim_crawler().await.unwrap();
        let held = a.claim_site(SITE, lease, grace).await.unwrap().expect("a free site is granted");
        assert!(held.may_start(Duration::ZERO));
        let renewed = a.claim_site(SITE, lease, grace).await.unwrap().expect("the holder renews");
        assert_eq!(renewed.token, held.token, "a renewal in time keeps the token");
        // The holder goes away without releasing the site (a crash, or a restart on
        // SQLite); the next worker is a new holder.
        drop(a);
        let other = match db.kind() {
            BackendKind::Postgres => db.reopen(),
            BackendKind::Sqlite => db.store.clone(),
        };
        let b = other.claim_crawler().await.unwrap();
        assert!(b.claim_site(SITE, lease, grace).await.unwrap().is_none(), "held by a");
        tokio::time::sleep(lease + Duration::from_millis(50)).await;
        assert!(!renewed.may_start(Duration::ZERO), "a's own clock says its lease is over");
        assert!(
            b.claim_site(SITE, lease, grace).await.unwrap().is_none(),
            "a's last request may still be running until the grace has passed"
        );
        tokio::time::sleep(grace).await;
        let taken = b.claim_site(SITE, lease, grace).await.unwrap().expect("granted after the grace");
        assert!(taken.token > renewed.token, "a new fencing token");
        assert!(!b.release_site(&renewed).await.unwrap(), "a's token is no longer current");
        assert!(b.release_site(&taken).await.unwrap());
        assert!(b.claim_site(SITE, lease, grace).await.unwrap().is_some(), "released: free at once");
    }
}

each_backend_test! {
    async fn a_kept_request_is_read_by_its_source_until_forgotten(db) {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let (a, b) = (item(1).url, item(2).url);
        db.store.keep_request("agenda", &b, Purpose::EventPage, t0).await.unwrap();
        db.store.keep_request("agenda", &a, Purpose::Listing, t0).await.unwrap();
        // Kept again: one row, the newer time and purpose.
        let later = t0 + Duration::from_secs(60);
        db.store.keep_request("agenda", &a, Purpose::EventPage, later).await.unwrap();
        db.store.keep_request("other", &a, Purpose::EventPage, t0).await.unwrap();
        let kept = db.store.kept_requests("agenda").await.unwrap();
        let got: Vec<_> = kept.iter().map(|k| (k.url.clone(), k.purpose, k.kept_at)).collect();
        assert_eq!(
            got,
            [(b.clone(), Purpose::EventPage, t0), (a.clone(), Purpose::EventPage, later)],
            "oldest first"
        );
        assert!(db.store.forget_kept_request("agenda", &a).await.unwrap());
        assert!(!db.store.forget_kept_request("agenda", &a).await.unwrap(), "once");
        let left: Vec<_> = db.store.kept_requests("agenda").await.unwrap();
        assert_eq!(left.iter().map(|k| &k.url).collect::<Vec<_>>(), [&b]);
        assert_eq!(db.store.kept_requests("other").await.unwrap().len(), 1, "per source");
    }
}
