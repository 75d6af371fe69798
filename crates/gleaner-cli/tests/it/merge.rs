//! Issue 24 item 5 through the real `gleaner demo`: the sample city's ticketing API sells
//! the events of four venues whose pages the demo also reads (same URL, the same instant
//! in UTC, so another wall-clock time); the demo stores each of those events once, with
//! the API's reading merged into the venue page's event, and records the extractor of
//! every reading. Bounded in time; loopback only.

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use gleaner_event::merge::Extractor;

#[tokio::test(flavor = "multi_thread")]
async fn issue24_the_demo_stores_each_sample_city_event_once_with_every_source() {
    let dir = tempfile::tempdir().unwrap();
    let demo = dir.path().join("demo");
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(["demo", "--no-serve", "--listen", "127.0.0.1:0", "--gap", "100ms", "--dir"])
        .arg(&demo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(240);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the demo crawls the sample city within four minutes");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(status.success(), "{status:?}\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));

    let store =
        gleaner_store::Store::open(&format!("sqlite://{}", demo.join("gleaner.db").display()))
            .unwrap();
    let year = Duration::from_secs(366 * 24 * 3600);
    let now = SystemTime::now();
    let listed = store.events_between(now - year, now + 2 * year).await.unwrap();
    let mut events = Vec::new();
    for e in &listed {
        events.push(store.event(e.id).await.unwrap().expect("a listed event"));
    }
    assert!(events.len() >= 30, "the demo stored events: {}", events.len());

    // No event twice: never two with the same page and the same instant, nor the same
    // folded title at the same instant.
    let mut by_page: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    let mut by_title: BTreeMap<(String, String), Vec<i64>> = BTreeMap::new();
    for e in &events {
        let Some(start) = e.event.start else { continue };
        let instant = match start {
            gleaner_event::EventTime::Fixed(t) => t.with_timezone(&chrono::Utc).to_rfc3339(),
            other => other.to_iso(),
        };
        if let Some(url) = &e.event.url {
            by_page.entry((url.to_string(), instant.clone())).or_default().push(e.id);
        }
        let title = gleaner_event::identity_parts::fold(e.event.title.as_deref().unwrap_or(""));
        by_title.entry((title, instant)).or_default().push(e.id);
    }
    let twice: Vec<_> = by_page.iter().chain(&by_title).filter(|(_, ids)| ids.len() > 1).collect();
    assert!(twice.is_empty(), "events stored more than once: {twice:#?}");

    // The ticketing API's copies are merged into the venues' events: each event it sells
    // whose page the demo read carries both sources, with their extractors.
    let sources = |e: &gleaner_store::StoredEvent| -> Vec<String> {
        e.provenance.iter().filter_map(|p| p.source.clone()).collect()
    };
    let sold: Vec<_> =
        events.iter().filter(|e| sources(e).iter().any(|s| s == "ticketing")).collect();
    let merged: Vec<_> =
        sold.iter().filter(|e| sources(e).iter().any(|s| s != "ticketing")).collect();
    assert!(merged.len() >= 8, "the API's copies joined the venues' events: {}", merged.len());
    for e in &merged {
        let api = e.provenance.iter().find(|p| p.source.as_deref() == Some("ticketing")).unwrap();
        assert_eq!(api.extractor, Some(Extractor::Api), "{:?}", e.provenance);
        let own = e.event.url.as_ref().map(url::Url::as_str);
        let page = e.provenance.iter().find(|p| Some(p.fetch_url.as_str()) == own).unwrap();
        assert!(
            matches!(page.extractor, Some(Extractor::JsonLd | Extractor::Microdata)),
            "the venue's page is read as structured data: {:?}",
            e.provenance
        );
        assert_eq!(e.source.as_deref(), page.source.as_deref(), "the venue's page leads");
        // The page's own time with its offset is kept (the API gives UTC).
        let start = e.event.start.unwrap().to_iso();
        assert!(!start.ends_with("+00:00"), "the venue's zone, not the API's UTC: {start}");
    }
    // An event only the API knows is one whose page the demo does not keep (a noindex
    // page): no venue event has its page.
    for e in sold.iter().filter(|e| sources(e).iter().all(|s| s == "ticketing")) {
        let page = e.event.url.as_ref().map(url::Url::as_str);
        assert!(
            !events
                .iter()
                .any(|o| o.id != e.id && o.event.url.as_ref().map(url::Url::as_str) == page),
            "the API's copy of `{page:?}` stands beside the page's event"
        );
    }

    // Issue 26 item 5: the ticketing API gives its event addresses with the caller's key
    // in the query; no stored byte of the demo holds the key (the database and its
    // journal), and the API's copies still join the venues' events (checked above).
    let key = gleaner_samplecity::DEFAULT_API_KEY.as_bytes();
    for entry in std::fs::read_dir(&demo).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !bytes.windows(key.len()).any(|w| w == key),
                "the licensed API's key is stored in {}",
                path.display()
            );
        }
    }
    let keyed: Vec<_> = events
        .iter()
        .filter(|e| e.event.url.as_ref().is_some_and(|u| u.as_str().contains("apikey")))
        .collect();
    assert!(keyed.is_empty(), "event addresses keep the key: {keyed:?}");

    // Every fetch of every event names its extractor ("not recorded" never appears).
    let unrecorded: Vec<_> = events
        .iter()
        .flat_map(|e| e.provenance.iter().filter(|p| p.extractor.is_none()).map(|p| &p.fetch_url))
        .collect();
    assert!(unrecorded.is_empty(), "fetches without an extractor: {unrecorded:?}");
}
