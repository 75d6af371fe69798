//! Round trips to PostgreSQL per stored event (issue 27: ≤ 10 per page), counted on the
//! wire by a loopback proxy between the store and the server: a `Sync` or simple
//! `Query` message the store sends while none of its earlier ones on that connection is
//! unanswered is one wait for the server; messages pipelined behind it share that wait.
//! PostgreSQL only.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
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
