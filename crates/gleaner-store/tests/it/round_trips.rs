//! Round trips to PostgreSQL per stored event and per request's registry check,
//! reservation and finish (issue 27: ≤ 10 per page), counted on the
//! wire by a loopback proxy between the store and the server: a `Sync` or simple
//! `Query` message the store sends while none of its earlier ones on that connection is
//! unanswered is one wait for the server; messages pipelined behind it share that wait.
//! PostgreSQL only.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gleaner_policy::Purpose;
use gleaner_policy::registry::{OwnerRequest, Registry, RegistryEntry, Scope};
use gleaner_policy::state::{GateState, SiteState};
use gleaner_store::{EventWrite, Keep, Store};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use url::Url;

use crate::util::{day, event, postgres_database};

/// Starts a proxy to `upstream` counting waits into `waits`; returns its port.
async fn proxy(upstream: (String, u16), waits: Arc<AtomicU64>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(server) = tokio::net::TcpStream::connect(upstream.clone()).await else {
                continue;
            };
            let waits = Arc::clone(&waits);
            tokio::spawn(async move {
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                let open = Arc::new(AtomicU64::new(0));
                let answered = Arc::clone(&open);
                let back = tokio::spawn(async move {
                    // Server to client: every message is typed; `Z` ends one answer.
                    loop {
                        let mut head = [0u8; 5];
                        sr.read_exact(&mut head).await?;
                        let len = u32::from_be_bytes([head[1], head[2], head[3], head[4]]);
                        let mut body = vec![0u8; (len as usize).saturating_sub(4)];
                        sr.read_exact(&mut body).await?;
                        if head[0] == b'Z' {
                            let sub = |n: u64| n.checked_sub(1);
                            let _ = answered.fetch_update(Ordering::SeqCst, Ordering::SeqCst, sub);
                        }
                        cw.write_all(&head).await?;
                        cw.write_all(&body).await?;
                    }
                    #[allow(unreachable_code)]
                    Ok::<(), std::io::Error>(())
                });
                // Client to server: the start-up message is untyped.
                let mut started = false;
                let forward = async {
                    loop {
                        let mut head = [0u8; 5];
                        let (kind, len) = if started {
                            cr.read_exact(&mut head).await?;
                            (
                                Some(head[0]),
                                u32::from_be_bytes([head[1], head[2], head[3], head[4]]),
                            )
                        } else {
                            cr.read_exact(&mut head[..4]).await?;
                            (None, u32::from_be_bytes([head[0], head[1], head[2], head[3]]))
                        };
                        let mut body = vec![0u8; (len as usize).saturating_sub(4)];
                        cr.read_exact(&mut body).await?;
                        match kind {
                            Some(b'S' | b'Q') if open.fetch_add(1, Ordering::SeqCst) == 0 => {
                                waits.fetch_add(1, Ordering::SeqCst);
                            }
                            None => started = body.get(..4) == Some(&[0, 3, 0, 0]),
                            _ => {}
                        }
                        if let Some(k) = kind {
                            sw.write_all(&[k]).await?;
                        }
                        sw.write_all(&len.to_be_bytes()).await?;
                        sw.write_all(&body).await?;
                    }
                    #[allow(unreachable_code)]
                    Ok::<(), std::io::Error>(())
                };
                let _ = forward.await;
                back.abort();
            });
        }
    });
    port
}

fn write<'a>(e: &'a gleaner_event::Event, page: &'a Url, at: u64) -> EventWrite<'a> {
    EventWrite {
        event: e,
        source: Some("agenda"),
        fetched_url: page,
        fetched_at: day(at),
        keep: Keep::Full,
        extractor: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_event_waits_for_postgres_twice_and_one_read_again_at_most_three_times() {
    let Some(db) = postgres_database() else { return };
    let mut url = Url::parse(&db.url).unwrap();
    let upstream = (url.host_str().unwrap().to_owned(), url.port().unwrap_or(5432));
    let waits = Arc::new(AtomicU64::new(0));
    let port = proxy(upstream, Arc::clone(&waits)).await;
    url.set_port(Some(port)).unwrap();
    let store = tokio::task::spawn_blocking({
        let url = url.to_string();
        move || Store::open(&url)
    })
    .await
    .unwrap()
    .unwrap();
    // Warm: the registry read once, the statements prepared on the connection.
    let warm_page = Url::parse("https://venue.test/events/0.html").unwrap();
    let warm = event("Warm-up concert", (2026, 12, 4), warm_page.as_str(), "First.");
    store.upsert_event(&write(&warm, &warm_page, 0)).await.unwrap();
    store.upsert_event(&write(&warm, &warm_page, 1)).await.unwrap();
    store.flush_audit().await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;

    let page = Url::parse("https://venue.test/events/1.html").unwrap();
    let e = event("Late concert", (2026, 12, 5), page.as_str(), "A concert.");
    let before = waits.load(Ordering::SeqCst);
    assert!(store.upsert_event(&write(&e, &page, 2)).await.unwrap().id() > 0);
    let new = waits.load(Ordering::SeqCst) - before;
    let before = waits.load(Ordering::SeqCst);
    store.upsert_event(&write(&e, &page, 3)).await.unwrap();
    let again = waits.load(Ordering::SeqCst) - before;
    assert!(new > 0, "positive control: the proxy counts the store's waits");
    // `BEGIN` with the fence, version, locks and lookup; the insert of the event, its
    // status and its reading with `COMMIT` (three before: the insert returned its id
    // in a round trip of its own).
    assert!(new <= 2, "a new event waited {new} times for the server");
    assert!(again <= 3, "an event read again waited {again} times for the server");

    // "Facts only" written by another process after this one cached the registry still
    // applies to the next write (its version is checked in the write's transaction).
    let cli = tokio::task::spawn_blocking({
        let url = db.url.clone();
        move || Store::open(&url)
    })
    .await
    .unwrap()
    .unwrap();
    let entry = RegistryEntry {
        scope: Scope::domain("venue.test").unwrap(),
        request: OwnerRequest::FactsOnly,
        reference: "FACTS-1".into(),
    };
    cli.add_owner_request(entry, None, day(4)).await.unwrap();
    let later = Url::parse("https://venue.test/events/2.html").unwrap();
    let e = event("Later concert", (2026, 12, 6), later.as_str(), "Kept out.");
    let id = store.upsert_event(&write(&e, &later, 5)).await.unwrap().id();
    let stored = store.event(id).await.unwrap().unwrap();
    assert_eq!(stored.event.description, None, "facts only: no description stored");
}

/// The gate's reservation of one event page: a request in flight.
fn reserve(s: &mut SiteState, _: &mut gleaner_policy::budget::GlobalBudget) {
    *s.budget.in_flight.entry(Purpose::EventPage).or_insert(0) += 1;
}

/// The gate's finish of one: the request is over.
fn finish(s: &mut SiteState, _: &mut gleaner_policy::budget::GlobalBudget) {
    if let Some(n) = s.budget.in_flight.get_mut(&Purpose::EventPage) {
        *n = n.saturating_sub(1);
    }
}

/// Opens a store through a counting proxy; returns it with the proxy's count.
async fn counted_store(db_url: &str) -> (Store, Arc<AtomicU64>) {
    let mut url = Url::parse(db_url).unwrap();
    let upstream = (url.host_str().unwrap().to_owned(), url.port().unwrap_or(5432));
    let waits = Arc::new(AtomicU64::new(0));
    let port = proxy(upstream, Arc::clone(&waits)).await;
    url.set_port(Some(port)).unwrap();
    let url = url.to_string();
    let store = tokio::task::spawn_blocking(move || Store::open(&url)).await.unwrap().unwrap();
    (store, waits)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_waits_for_postgres_twice_to_reserve_and_twice_to_finish_and_not_for_its_validators()
 {
    let Some(db) = postgres_database() else { return };
    let (store, waits) = counted_store(&db.url).await;
    // As `gleaner run` wires it: the daily cap in leased blocks.
    let crawler = store.claim_crawler().await.unwrap().lease_daily_cap(100_000);
    let site = "https://venue.test";
    // Warm: the registry read once, the site's row made, the statements prepared.
    let warm = Url::parse("https://venue.test/events/0.html").unwrap();
    assert!(store.lookup(&warm).await.opted_out.is_none());
    crawler.update(site, Box::new(reserve)).await.unwrap();
    crawler.update(site, Box::new(finish)).await.unwrap();
    store.queue_validators(&warm, Some("\"w0\"".into()), None, day(0));
    store.flush_audit().await.unwrap();
    // The registry listener is up by now; the lookup confirms the version once with it.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(store.lookup(&warm).await.opted_out.is_none());

    let page = Url::parse("https://venue.test/events/1.html").unwrap();
    let before = waits.load(Ordering::SeqCst);
    assert!(store.lookup(&page).await.opted_out.is_none());
    crawler.update(site, Box::new(reserve)).await.unwrap();
    let reserved = waits.load(Ordering::SeqCst) - before;
    let before = waits.load(Ordering::SeqCst);
    crawler.update(site, Box::new(finish)).await.unwrap();
    store.queue_validators(&page, Some("\"v1\"".into()), None, day(1));
    let finished = waits.load(Ordering::SeqCst) - before;
    assert!(reserved > 0, "positive control: the proxy counts the store's waits");
    // `BEGIN` with the locked row (and the registry's version in it); the write with
    // `COMMIT` (three before: the lookup read the version in a round trip of its own).
    assert!(reserved <= 2, "the registry check and the reservation waited {reserved} times");
    // The validators go to the batch writer: the caller does not wait for them, and
    // reads see them at once (two more before: their own write).
    assert!(finished <= 2, "the finish and the validators waited {finished} times");
    let seen = store.validators(&page).await.unwrap();
    assert_eq!(seen, Some((Some("\"v1\"".into()), None)), "queued validators are read back");
    store.flush_audit().await.unwrap();
    let other = tokio::task::spawn_blocking({
        let url = db.url.clone();
        move || Store::open(&url)
    })
    .await
    .unwrap()
    .unwrap();
    let stored = other.validators(&page).await.unwrap();
    assert_eq!(stored, Some((Some("\"v1\"".into()), None)), "written by the batch writer");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opt_out_committed_after_the_lookup_stops_the_reservation_and_one_elsewhere_does_not() {
    let Some(db) = postgres_database() else { return };
    let (store, _) = counted_store(&db.url).await;
    let crawler = store.claim_crawler().await.unwrap();
    let cli = tokio::task::spawn_blocking({
        let url = db.url.clone();
        move || Store::open(&url)
    })
    .await
    .unwrap()
    .unwrap();
    let site = "https://venue.test";
    let page = Url::parse("https://venue.test/events/1.html").unwrap();
    assert!(store.lookup(&page).await.opted_out.is_none());
    crawler.update(site, Box::new(reserve)).await.unwrap();
    crawler.update(site, Box::new(finish)).await.unwrap();

    // Another process's opt-out of another site moves the version: this site's
    // reservation still goes ahead.
    let elsewhere = RegistryEntry {
        scope: Scope::domain("elsewhere.test").unwrap(),
        request: OwnerRequest::OptOut,
        reference: "OPT-ELSEWHERE".into(),
    };
    cli.add_owner_request(elsewhere, None, day(1)).await.unwrap();
    assert!(store.lookup(&page).await.opted_out.is_none());
    crawler.update(site, Box::new(reserve)).await.expect("a change elsewhere does not stop it");
    crawler.update(site, Box::new(finish)).await.unwrap();

    // Decided before this site's opt-out commits, reserved after: nothing is reserved.
    assert!(store.lookup(&page).await.opted_out.is_none(), "decided before the opt-out");
    let entry = RegistryEntry {
        scope: Scope::domain("venue.test").unwrap(),
        request: OwnerRequest::OptOut,
        reference: "OPT-VENUE".into(),
    };
    cli.add_owner_request(entry, None, day(2)).await.unwrap();
    let refused = crawler.update(site, Box::new(reserve)).await;
    assert!(refused.is_err(), "reserved on a registry that moved for the site");
    let state = store.site_state(site).await.unwrap().unwrap_or_default();
    assert_eq!(state.budget.total_in_flight(), 0, "nothing was reserved");
    // The finish of a request already sent is never refused.
    crawler.update(site, Box::new(finish)).await.expect("a finish is recorded");
    // The next decision sees the opt-out.
    assert_eq!(store.lookup(&page).await.opted_out.as_deref(), Some("OPT-VENUE"));
}
