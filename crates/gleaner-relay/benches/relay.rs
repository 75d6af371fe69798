//! The image relay under load: 200 concurrent visitors on cached images, over HTTP on
//! loopback (axum, the same answer as `/relay/{id}`), with a Rust client (reqwest).
//!
//! Prints requests per second and p99 latency for the relay and, as the peer measured
//! in the same run, for a handler that answers the same bytes from a static buffer (no
//! store lookup, no cache); upstream requests per 10,000 visitor requests (from the
//! relay's counter and the test web's ledger); and the bytes held against the cap.
//!
//! `cargo bench -p gleaner-relay --bench relay` (`RELAY_BENCH_REQUESTS` changes the
//! number of visitor requests, 20,000 by default).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use bytes::Bytes;
use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::SystemClock;
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_relay::{Delivery, Relay};
use gleaner_samplecity::Role;
use gleaner_store::Store;
use gleaner_testweb::{Manifest, TestWeb};
use url::Url;

const VISITORS: usize = 200;
const CONFIG: &str = r#"
[bot]
token = "BenchBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Bench"

[network]
allow = ["127.0.0.0/8"]

[politeness]
gap = "1s"

[purposes]
enabled = ["robots", "image-relay"]

[relay]
memory_cap = "1MiB"
max_image_bytes = "64KiB"
"#;

async fn relay_route(State(relay): State<Arc<Relay>>, Path(id): Path<String>) -> Response {
    match relay.deliver(&id).await {
        Delivery::Image { bytes, kind, max_age } => (
            StatusCode::OK,
            [
                (header::CONTENT_TYPE, kind.mime().to_owned()),
                (header::CACHE_CONTROL, format!("private, max-age={}", max_age.as_secs())),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            ],
            bytes,
        )
            .into_response(),
        Delivery::NotFound => StatusCode::NOT_FOUND.into_response(),
        Delivery::Busy { .. } => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Delivery::Unavailable { .. } => StatusCode::BAD_GATEWAY.into_response(),
    }
}

async fn static_route(State(bytes): State<Bytes>) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, "image/jpeg")], bytes).into_response()
}

/// Serves `app` on loopback; returns its address.
async fn serve(app: Router) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

/// `total` GETs spread over `VISITORS` concurrent visitors cycling through `urls`;
/// returns (requests per second, p99 latency, non-200 answers).
async fn load(urls: Arc<Vec<String>>, total: usize) -> (f64, Duration, usize) {
    let client = reqwest::Client::builder().pool_max_idle_per_host(VISITORS).build().unwrap();
    let per = total / VISITORS;
    let started = Instant::now();
    let tasks: Vec<_> = (0..VISITORS)
        .map(|v| {
            let (client, urls) = (client.clone(), Arc::clone(&urls));
            tokio::spawn(async move {
                let mut lat = Vec::with_capacity(per);
                let mut bad = 0;
                for i in 0..per {
                    let url = &urls[(v + i) % urls.len()];
                    let t = Instant::now();
                    match client.get(url).send().await {
                        Ok(r) if r.status() == 200 => {
                            let _ = r.bytes().await;
                        }
                        _ => bad += 1,
                    }
                    lat.push(t.elapsed());
                }
                (lat, bad)
            })
        })
        .collect();
    let mut all = Vec::with_capacity(total);
    let mut bad = 0;
    for t in tasks {
        let (lat, b) = t.await.unwrap();
        all.extend(lat);
        bad += b;
    }
    let elapsed = started.elapsed();
    all.sort();
    let p99 = all[(all.len() * 99 / 100).min(all.len() - 1)];
    (all.len() as f64 / elapsed.as_secs_f64(), p99, bad)
}

fn rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[allow(clippy::print_stdout, reason = "a bench reports on stdout")]
fn main() {
    let total: usize = std::env::var("RELAY_BENCH_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
        .max(VISITORS);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async move {
        let web = TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("BenchBot"))
            .await
            .unwrap();
        let settings = Arc::new(gleaner_config::parse(CONFIG, "bench.toml").unwrap());
        let clock = Arc::new(SystemClock);
        let gate = Gate::new(
            Client::new(ClientSettings::from_settings(&settings)).unwrap(),
            Arc::clone(&settings),
            Arc::new(MemoryState::default()),
            Arc::new(MemoryRegistry::default()),
            Arc::new(MemoryAudit::default()),
            clock.clone(),
        );
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_sqlite(&dir.path().join("bench.db")).unwrap();
        let relay = Arc::new(Relay::new(
            Arc::new(gate),
            Arc::new(store.clone()),
            settings.relay,
            clock,
        ));
        // Twenty images (max-age 3600) on ten venues.
        let city = &web.city().unwrap().city;
        let venues: Vec<usize> = city
            .sites()
            .iter()
            .enumerate()
            .filter(|(_, s)| s.role == Role::Venue && s.refusal.is_none())
            .map(|(j, _)| web.city_site(j).unwrap())
            .take(10)
            .collect();
        let mut ids = Vec::new();
        for &v in &venues {
            for n in [3, 6] {
                let url = Url::parse(&web.url(v, &format!("/img/poster-{n}.jpg"))).unwrap();
                let image = store
                    .register_relay_image(&url, Some("bench"), true, "bench", SystemTime::now())
                    .await
                    .unwrap();
                ids.push(image.id);
            }
        }
        let relay_addr = serve(
            Router::new().route("/relay/{id}", get(relay_route)).with_state(Arc::clone(&relay)),
        )
        .await;
        let peer_addr = serve(
            Router::new()
                .route("/static/{id}", get(static_route))
                .with_state(Bytes::from_static(gleaner_samplecity::images::POSTER_JPEG)),
        )
        .await;
        let relay_urls: Arc<Vec<String>> =
            Arc::new(ids.iter().map(|id| format!("http://{relay_addr}/relay/{id}")).collect());
        let peer_urls: Arc<Vec<String>> =
            Arc::new(ids.iter().map(|id| format!("http://{peer_addr}/static/{id}")).collect());

        // Warm-up: the first visitors of each image (the site sees one request each).
        let rss_before = rss_kib();
        let (_, _, bad) = load(Arc::clone(&relay_urls), VISITORS * 2).await;
        let upstream_warm = relay.stats().upstream.load(std::sync::atomic::Ordering::Relaxed);
        let (peer_rps, peer_p99, _) = load(Arc::clone(&peer_urls), total).await;
        let (rps, p99, bad_run) = load(Arc::clone(&relay_urls), total).await;
        let upstream = relay.stats().upstream.load(std::sync::atomic::Ordering::Relaxed);
        let visitor_requests = relay.stats().requests.load(std::sync::atomic::Ordering::Relaxed);
        let ledger = web.ledger();
        let site_images = ledger.entries.iter().filter(|e| e.path.starts_with("/img/")).count();
        let per_10k = upstream as f64 * 10_000.0 / visitor_requests as f64;
        println!("relay bench: {VISITORS} concurrent visitors, {total} requests on 20 cached images");
        println!("  warm-up: {} requests, {bad} not 200 (busy while the first fetches ran)", VISITORS * 2);
        println!("  relay:  {rps:>9.0} req/s, p99 {:>7.2} ms, {bad_run} not 200", p99.as_secs_f64() * 1e3);
        println!("  static: {peer_rps:>9.0} req/s, p99 {:>7.2} ms (peer: same bytes from a buffer)", peer_p99.as_secs_f64() * 1e3);
        println!("  ratio relay/static: {:.2} of the throughput, {:.2}x the p99", rps / peer_rps, p99.as_secs_f64() / peer_p99.as_secs_f64());
        println!(
            "  upstream: {upstream} requests ({upstream_warm} during warm-up) for {visitor_requests} visitor requests = {per_10k:.1} per 10,000; the sites' ledger saw {site_images} image requests"
        );
        println!(
            "  memory: {} bytes of images held, cap {} bytes ({:.3} of the cap); process RSS {:?} KiB before the load, {:?} KiB after",
            relay.memory_held(),
            settings.relay.memory_cap,
            relay.memory_held() as f64 / settings.relay.memory_cap as f64,
            rss_before,
            rss_kib()
        );
        web.shutdown().await;
    });
}
