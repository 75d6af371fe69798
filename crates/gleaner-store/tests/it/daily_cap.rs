//! The global daily cap taken in leased blocks (issue 27): processes together never
//! start more than the cap, and one killed with a block takes only that block with it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use gleaner_policy::state::GateState;
use gleaner_store::{BackendKind, CrawlerState, Store};

use crate::each_backend_test;
use crate::util::TestDb;

/// Two crawling processes' gate states on `db` (on SQLite one crawler and an occasional
/// process, the only pair one file allows), each with its own handle.
async fn two_processes(db: &TestDb, cap: u32) -> (CrawlerState, CrawlerState, Store) {
    let other = db.reopen();
    let first = db.store.claim_crawler().await.unwrap().lease_daily_cap(cap);
    let second = match db.kind() {
        BackendKind::Sqlite => other.occasional_state().await.unwrap(),
        BackendKind::Postgres => other.claim_crawler().await.unwrap(),
    };
    (first, second.lease_daily_cap(cap), other)
}

/// Asks for `attempts` requests, one site each, as the gate's budget does for the global
/// part (`budget::decide` then `budget::reserve`); returns how many may start.
async fn reserve_many(state: &CrawlerState, cap: u32, attempts: u32, tag: &str) -> u32 {
    let went = Arc::new(AtomicU32::new(0));
    for i in 0..attempts {
        let went = Arc::clone(&went);
        let site = format!("http://{tag}{i}.test");
        state
            .update(
                &site,
                Box::new(move |s, g| {
                    let today = chrono::Utc::now().date_naive();
                    if g.day == Some(today) && g.requests >= cap {
                        return;
                    }
                    if g.day != Some(today) {
                        g.day = Some(today);
                        g.requests = 0;
                    }
                    g.requests += 1;
                    s.budget.last_start = Some(std::time::SystemTime::now());
                    went.fetch_add(1, Ordering::Relaxed);
                }),
            )
            .await
            .unwrap();
    }
    went.load(Ordering::Relaxed)
}

/// What the shared row says was handed out today.
async fn handed_out(db: &TestDb) -> i64 {
    db.query_i64("SELECT requests FROM global_budget WHERE id = 1").await.unwrap()
}

each_backend_test! {
    async fn issue27_two_processes_leases_never_pass_the_daily_cap(db) {
        // A cap of 250 is leased 2 at a time; each process asks for more than all of it,
        // both at once.
        let cap = 250;
        let (first, second, _other) = two_processes(&db, cap).await;
        let (a, b) = tokio::join!(
            reserve_many(&first, cap, 200, "a"),
            reserve_many(&second, cap, 200, "b"),
        );
        assert_eq!(a + b, cap, "together exactly the cap: {a} + {b}");
        assert!(a > 0 && b > 0, "both processes crawled: {a} and {b}");
        assert_eq!(handed_out(&db).await, i64::from(cap));
        // The cap is met for both: one more is refused.
        assert_eq!(reserve_many(&first, cap, 1, "c").await, 0);
    }
}

each_backend_test! {
    async fn issue27_a_killed_process_takes_only_its_block(db) {
        // A cap of 500 is leased 5 at a time. The first process starts one request and
        // is killed (no give-back): the 4 units left in its block are lost for the day,
        // never spent twice.
        let cap = 500;
        let (first, second, _other) = two_processes(&db, cap).await;
        assert_eq!(reserve_many(&first, cap, 1, "a").await, 1);
        std::mem::forget(first);
        assert_eq!(reserve_many(&second, cap, cap, "b").await, cap - 5);
        assert_eq!(handed_out(&db).await, i64::from(cap), "never past the cap");
    }
}

each_backend_test! {
    async fn issue27_unused_units_go_back_at_the_end(db) {
        // Positive control for the killed process: one that ends cleanly gives its 4
        // unused units back, and the other can use them.
        let cap = 500;
        let (first, second, _other) = two_processes(&db, cap).await;
        assert_eq!(reserve_many(&first, cap, 1, "a").await, 1);
        first.give_back_daily_cap().await.unwrap();
        assert_eq!(handed_out(&db).await, 1);
        assert_eq!(reserve_many(&second, cap, cap, "b").await, cap - 1);
        assert_eq!(handed_out(&db).await, i64::from(cap));
    }
}
