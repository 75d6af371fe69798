//! The sample city served by the test web: the same content as the demo, with the ledger
//! around every request, the ground truth on the web's own addresses, and scenarios that
//! still apply on city sites.

use std::time::Duration;

use chrono::{TimeZone, Utc};
use gleaner_samplecity::{Exclusion, Role};
use gleaner_testweb::{Manifest, RobotsScenario, Served, SiteContent, TestWeb};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::client::get;

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 12, 10, 0, 0).unwrap()
}

/// The path and query of an absolute URL on the web.
fn target(url: &str) -> &str {
    let rest = url.strip_prefix("http://").unwrap();
    &rest[rest.find('/').unwrap()..]
}

#[tokio::test]
async fn city_pages_ground_truth_and_ledger_agree() {
    let manifest = Manifest::city(7, now()).with_city_throttle(Duration::from_millis(300));
    let web = TestWeb::start(manifest).await.unwrap();
    let truth = web.ground_truth().unwrap();
    assert!(truth.events.len() > 100);
    for i in 0..web.len() {
        assert_eq!(get(web.addr(i), "/robots.txt").await.status, 200);
    }
    // The throttling venue answers 429 with Retry-After at first.
    let city = web.city().unwrap();
    let slow = city.city.site_index("sala-malasana").unwrap();
    let slow_page = truth.of_site(slow).next().unwrap().url.clone();
    let first = get(web.addr(slow), target(&slow_page)).await;
    assert_eq!(first.status, 429);
    assert!(first.header("retry-after").is_some());
    tokio::time::sleep(Duration::from_millis(400)).await;
    for t in truth.events.iter().filter(|t| t.uid.is_none()) {
        let r = get(web.addr(t.site), target(&t.url)).await;
        assert_eq!(r.status, 200, "{}", t.url);
        assert!(r.text().contains(&t.title.replace('\'', "&#39;")), "{}", t.url);
    }
    let ledger = web.ledger();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    let throttled: Vec<_> =
        ledger.entries.iter().filter(|e| e.served == Served::Throttle).collect();
    assert_eq!(throttled.len(), 1);
    assert_eq!(throttled[0].retry_after, Some(Duration::from_secs(1)));

    // Positive control: fetching a page robots.txt disallows is caught by the ledger.
    let private =
        truth.excluded.iter().find(|x| x.reason == Exclusion::RobotsDisallowPath).unwrap();
    assert_eq!(get(web.addr(private.site), target(&private.url)).await.status, 200);
    assert!(web.ledger().check_disallowed().is_err());

    // The next pass: event 4 of every venue is gone, and the ledger says so.
    web.advance_pass();
    let next = web.ground_truth().unwrap();
    let gone: Vec<_> =
        truth.events.iter().filter(|t| t.uid.is_none() && next.by_url(&t.url).is_none()).collect();
    assert!(!gone.is_empty());
    let r = get(web.addr(gone[0].site), target(&gone[0].url)).await;
    assert_eq!(r.status, 404);
    assert_eq!(web.ledger().entries.last().unwrap().served, Served::Gone);
    web.shutdown().await;
}

#[tokio::test]
async fn city_sites_mix_with_synthetic_ones_and_keep_scenarios() {
    let mut manifest = Manifest::generate(3, 1).with_city(7, now()).with_token("FestroBot");
    let first_city = manifest.city_site(0).unwrap();
    assert_eq!(first_city, 3);
    // A robots.txt scenario set on a city site still plays.
    manifest.sites[first_city + 1].robots = RobotsScenario::Status(503);
    let json = serde_json::to_string(&manifest).unwrap();
    let back: Manifest = serde_json::from_str(&json).unwrap();
    assert_eq!(back, manifest);
    let web = TestWeb::start(manifest).await.unwrap();
    assert_eq!(web.spec(first_city).content, SiteContent::City(0));
    assert_eq!(get(web.addr(0), "/events/1.html").await.status, 200);
    let robots = get(web.addr(first_city), "/robots.txt").await.text();
    assert!(robots.contains("User-agent: FestroBot"), "{robots}");
    assert!(robots.contains("Sitemap: http://"), "{robots}");
    let no = web.city_site(web.city().unwrap().city.site_index("schaubude-lindenau").unwrap());
    let robots = get(web.addr(no.unwrap()), "/robots.txt").await.text();
    assert!(robots.contains("User-agent: FestroBot\nDisallow: /\n"), "{robots}");
    assert_eq!(get(web.addr(first_city + 1), "/robots.txt").await.status, 503);
    // Absolute URLs in city content name the web's own addresses.
    let truth = web.ground_truth().unwrap();
    let t = truth.of_site(0).next().unwrap();
    assert!(
        t.url.starts_with(&web.url(first_city, "/")),
        "{} vs {}",
        t.url,
        web.url(first_city, "/")
    );
    web.shutdown().await;
}

#[tokio::test]
async fn the_language_model_mock_reads_a_posted_body() {
    let web = TestWeb::start(Manifest::city(7, now())).await.unwrap();
    let city = &web.city().unwrap().city;
    let llm = web.city_site(city.index_of_role(Role::LanguageModel).unwrap()).unwrap();
    let title = city.venue_events(0, 0)[0].title.clone();
    let body = serde_json::json!({
        "model": "m",
        "messages": [{"role": "user", "content": format!("Page: {title}")}],
    })
    .to_string();
    let addr = web.addr(llm);
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains("chat.completion"));
    assert!(text.contains(&title), "{text}");
    web.shutdown().await;
}
