//! `gleaner extract`: the stable contract (SPEC §6, issue 8).

use serde_json::Value;

use crate::util::{gleaner, temp_file};

const KEYS: [&str; 16] = [
    "title",
    "start",
    "end",
    "venue_name",
    "street",
    "locality",
    "country",
    "price_min",
    "price_max",
    "currency",
    "is_free",
    "ticket_url",
    "image_url",
    "description",
    "status",
    "url",
];

fn corpus(name: &str) -> String {
    format!("{}/../gleaner-extract/testdata/corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn events(stdout: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(stdout)
        .expect("stdout is JSON")
        .as_array()
        .expect("an array")
        .clone()
}

#[test]
fn prints_a_json_array_with_exactly_the_contract_keys() {
    let page = corpus("14-jsonld-bbking-rescheduled-offers.html");
    let run = gleaner(&["extract", "--url", "https://schema.org/Event", &page], "");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let events = events(&run.stdout);
    assert_eq!(events.len(), 1);
    let e = events[0].as_object().unwrap();
    let mut keys: Vec<&str> = e.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = KEYS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want);
    assert_eq!(e["title"], "B.B. King with Jonathon \"Boogie\" Long");
    assert_eq!(e["start"], "2014-04-12T19:30:00");
    assert_eq!(e["price_min"], "63.25");
    assert_eq!(e["price_max"], "299.00");
    assert_eq!(e["currency"], "USD");
    assert_eq!(e["status"], "rescheduled");
    assert_eq!(e["description"], Value::Null);
}

#[test]
fn source_tz_gives_local_times_an_offset_and_keeps_dates() {
    let html = br#"<script type="application/ld+json">{"@type":"Event","name":"Gece","startDate":"2026-07-01T21:00","endDate":"2026-07-02","location":"Zorlu PSM"}</script>"#;
    let file = temp_file(html);
    let path = file.path().to_str().unwrap();
    let run = gleaner(
        &["extract", "--url", "https://example.org/", "--source-tz", "Europe/Istanbul", path],
        "",
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let e = &events(&run.stdout)[0];
    assert_eq!(e["start"], "2026-07-01T21:00:00+03:00");
    assert_eq!(e["end"], "2026-07-02");
    assert_eq!(e["venue_name"], "Zorlu PSM");
    assert_eq!(e["status"], "scheduled");
}

#[test]
fn a_page_without_events_prints_an_empty_array_and_diagnostics_on_stderr() {
    let page = corpus("09-negative-broken-jsonld-newsarticle.html");
    let run = gleaner(&["extract", "--url", "https://money.udn.com/", &page], "");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(events(&run.stdout).len(), 0);
    assert!(run.stderr.contains("json-ld"), "{}", run.stderr);
}

#[test]
fn accepts_the_global_config_option() {
    let page = corpus("16-jsonld-vam-exhibitionevent.html");
    let run = gleaner(
        &[
            "--config",
            "/nonexistent/gleaner.toml",
            "extract",
            "--url",
            "https://schema.org/",
            &page,
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(events(&run.stdout)[0]["start"], "2015-06-13");
}

#[test]
fn bad_input_is_exit_2_naming_it_without_a_panic() {
    let page = corpus("16-jsonld-vam-exhibitionevent.html");
    let cases: [(&[&str], &str); 4] = [
        (
            &["extract", "--url", "https://a.example/", "/nonexistent/page.html"],
            "/nonexistent/page.html",
        ),
        (&["extract", "--url", "not a url", &page], "not a url"),
        (&["extract", "--url", "ftp://a.example/", &page], "ftp://a.example/"),
        (
            &["extract", "--url", "https://a.example/", "--source-tz", "Mars/Olympus", &page],
            "Mars/Olympus",
        ),
    ];
    for (args, named) in cases {
        let run = gleaner(args, "");
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(named), "{args:?}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
}

fn fixture(name: &str) -> String {
    format!("{}/../gleaner-extract/testdata/feeds/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_calendar_prints_one_event_per_vevent_and_its_occurrences_with_expand() {
    let cal = corpus("33-cancelled-status.ics");
    let run = gleaner(&["extract", "--url", "https://calendar.example/", &cal], "");
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let printed = events(&run.stdout);
    let shown: Vec<(&str, &str)> = printed
        .iter()
        .map(|e| (e["start"].as_str().unwrap(), e["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        shown,
        [("2020-01-28T22:00:00+01:00", "scheduled"), ("2020-01-29T22:00:00+01:00", "cancelled")]
    );

    let run = gleaner(
        &[
            "extract",
            "--url",
            "https://calendar.example/",
            "--expand",
            "2020-01-01..2020-01-31",
            &cal,
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let printed = events(&run.stdout);
    let shown: Vec<(&str, &str)> = printed
        .iter()
        .map(|e| (e["start"].as_str().unwrap(), e["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        shown,
        [
            ("2020-01-28T22:00:00+01:00", "scheduled"),
            ("2020-01-29T22:00:00+01:00", "cancelled"),
            ("2020-01-30T22:00:00+01:00", "scheduled")
        ]
    );
}

#[test]
fn a_feed_prints_items_with_event_dates_and_as_decides_the_rest() {
    let feed = fixture("events-ev-module.rss");
    let count = |extra: &[&str]| {
        let mut args = vec!["extract", "--url", "https://mct.example/agenda/feed.rss"];
        args.extend_from_slice(extra);
        args.push(&feed);
        let run = gleaner(&args, "");
        assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
        events(&run.stdout).len()
    };
    assert_eq!(count(&[]), 2);
    assert_eq!(count(&["--as", "events"]), 3);
    assert_eq!(count(&["--as", "news"]), 0);
    let run = gleaner(&["extract", "--url", "https://mct.example/", &feed], "");
    let first = &events(&run.stdout)[0];
    assert_eq!(first["venue_name"], "Théâtre de la Madeleine");
    assert_eq!(first["start"], "2026-12-05T20:30:00+01:00");
}

#[test]
fn a_bad_expand_window_is_exit_2_naming_it() {
    let cal = corpus("33-cancelled-status.ics");
    for window in ["2020-01-31..2020-01-01", "january", "2020-01-01..later"] {
        let run = gleaner(
            &["extract", "--url", "https://calendar.example/", "--expand", window, &cal],
            "",
        );
        assert_eq!(run.code, Some(2), "{window}: {}", run.stderr);
        assert!(run.stderr.contains(window), "{}", run.stderr);
        assert!(run.stdout.is_empty());
    }
}
