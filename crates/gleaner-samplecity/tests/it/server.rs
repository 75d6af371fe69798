//! The demo server: bound on `127.0.60.Y` addresses and one port, serving the city, the
//! throttling venue's 429 window ending on time, and the current pass moving on.

use std::sync::Arc;
use std::time::Duration;

use gleaner_samplecity::{City, bind_city, serve};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::{now, path_of};

/// A raw HTTP/1.1 GET (no client crate needed): status line, headers, body.
async fn fetch(url: &str) -> (u16, String, String) {
    let authority = url.strip_prefix("http://").unwrap().split('/').next().unwrap().to_owned();
    let mut stream = tokio::net::TcpStream::connect(&authority).await.unwrap();
    let req = format!(
        "GET {} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: gleaner-test\r\nConnection: close\r\n\r\n",
        path_of(url)
    );
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, head.to_lowercase(), body.to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_every_site_on_its_own_loopback_address() {
    let city = City::generate(3, now()).with_throttle_for(Duration::from_millis(400));
    let listeners = bind_city(&city).await.unwrap();
    let addrs = listeners.addrs().to_vec();
    assert_eq!(addrs.len(), city.len());
    assert!(addrs.iter().all(|a| a.port() == listeners.port()));
    assert!(
        addrs
            .iter()
            .all(|a| matches!(a.ip(), std::net::IpAddr::V4(ip) if ip.octets()[..2] == [127, 0]))
    );
    let distinct: std::collections::BTreeSet<_> = addrs.iter().map(|a| a.ip()).collect();
    assert_eq!(distinct.len(), addrs.len());
    let origins = listeners.origins();
    let urls = city.site_urls(&origins);
    let truth = city.ground_truth(&origins, 0);
    let city = Arc::new(city);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(serve(listeners, Arc::clone(&city), async {
        let _ = stopped.await;
    }));

    let (status, _, body) = fetch(&format!("{}robots.txt", urls[0])).await;
    assert_eq!(status, 200);
    assert!(body.contains("User-agent: gleaner"));

    // The throttling venue says 429 with Retry-After at first, then serves the page.
    let slow = city.site_index("sala-malasana").unwrap();
    let page = truth.of_site(slow).next().unwrap().url.clone();
    let (status, head, _) = fetch(&page).await;
    assert_eq!(status, 429);
    assert!(head.contains("retry-after: 1"), "{head}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (status, _, body) = fetch(&page).await;
    assert_eq!(status, 200);
    assert!(body.contains("application/ld+json"));

    // Every truth page answers 200 over the wire; pass 1 removes event 4.
    for t in truth.events.iter().take(40) {
        assert_eq!(fetch(&t.url).await.0, 200, "{}", t.url);
    }
    let gone = city.venue_events(0, 0).into_iter().find(|e| e.number == 4).unwrap();
    let gone_url = format!("{}{}", urls[0].trim_end_matches('/'), gone.path);
    assert_eq!(fetch(&gone_url).await.0, 200);
    city.advance_pass();
    assert_eq!(fetch(&gone_url).await.0, 404);

    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(5), server).await.unwrap().unwrap();
}
