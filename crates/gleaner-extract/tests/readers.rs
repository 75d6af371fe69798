//! The feed, calendar, API and open-data readers on whole documents: our own fixtures in
//! `testdata/feeds/` (named insta snapshots of what `gleaner extract` would print), series
//! expanded in windows, and the sample city's calendar against its ground truth.

use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};
use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::ical::{self, IcalOptions};
use gleaner_extract::{ExtractOptions, FeedMode, api, feeds, opendata};
use serde_json::{Value, json};
use url::Url;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata").join(name)).unwrap()
}

fn utc(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap()
}

/// The events and diagnostics `gleaner extract` would print for a document.
fn printed(bytes: &[u8], name: &str, base: &str, opts: ExtractOptions) -> Value {
    let base = Url::parse(base).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: opts.default_tz };
    let opts = ExtractOptions { file_name: Some(name.to_owned()), ..opts };
    let out = gleaner_extract::extract_events_with(bytes, "", &ctx, &opts);
    let events: Vec<PublicEvent> = out.events.iter().map(PublicEvent::from).collect();
    let diagnostics: Vec<String> = out.diagnostics.iter().map(ToString::to_string).collect();
    json!({ "events": events, "diagnostics": diagnostics })
}

#[test]
fn feed_fixtures() {
    let cases = [
        ("feeds/events-ev-module.rss", "https://mct.example/agenda/feed.rss", FeedMode::Auto),
        ("feeds/shows-custom-fields.rss", "https://band.example/lanterns/rss", FeedMode::Auto),
        (
            "feeds/town-hall-news.atom",
            "https://sainte-savine.example/actualites/feed.atom",
            FeedMode::Auto,
        ),
    ];
    for (name, base, mode) in cases {
        let opts = ExtractOptions { feed_mode: mode, ..ExtractOptions::default() };
        let stem = name.trim_start_matches("feeds/").replace('.', "-");
        insta::assert_json_snapshot!(stem, printed(&fixture(name), name, base, opts));
    }
}

#[test]
fn feed_news_items_keep_their_links_and_dates() {
    let base = Url::parse("https://sainte-savine.example/actualites/feed.atom").unwrap();
    let feed = feeds::read(&fixture("feeds/town-hall-news.atom"), &base, FeedMode::Auto);
    assert!(feed.events.is_empty());
    let items: Vec<Value> = feed
        .news
        .iter()
        .map(|n| {
            json!({
                "id": n.id, "title": n.title, "url": n.url.as_ref().map(Url::as_str),
                "published": n.published.map(|d| d.to_rfc3339()), "image": n.image.as_ref().map(Url::as_str),
                "categories": n.categories, "summary": n.summary,
            })
        })
        .collect();
    insta::assert_json_snapshot!("town-hall-news-items", items);
    // The events mode reads the news items as events, from their publication dates.
    let as_events = feeds::read(&fixture("feeds/town-hall-news.atom"), &base, FeedMode::Events);
    assert_eq!(as_events.events.len(), 2);
    let as_news = feeds::read(&fixture("feeds/events-ev-module.rss"), &base, FeedMode::News);
    assert_eq!((as_news.events.len(), as_news.news.len()), (0, 3));
}

#[test]
fn calendar_fixture_one_event_per_vevent_and_expanded() {
    let name = "feeds/outlook-windows-zones.ics";
    let base = "https://bibliotheque.example/agenda.ics";
    let bytes = fixture(name);
    let paris = Some(chrono_tz::Europe::Paris);
    insta::assert_json_snapshot!(
        "outlook-windows-zones",
        printed(
            &bytes,
            name,
            base,
            ExtractOptions { default_tz: paris, ..ExtractOptions::default() }
        )
    );
    let window = Some((utc(2026, 11, 1), utc(2027, 1, 1)));
    insta::assert_json_snapshot!(
        "outlook-windows-zones-expanded",
        printed(
            &bytes,
            name,
            base,
            ExtractOptions { default_tz: paris, expand: window, ..ExtractOptions::default() }
        )
    );
}

#[test]
fn corpus_calendars_expanded() {
    // 33: a daily series of three with the second cancelled by an override; 31: EXDATEs
    // in UTC against a Europe/Berlin series; 32: two-weekly and weekly series.
    let cases = [
        ("33-cancelled-status.ics", utc(2020, 1, 1), utc(2020, 2, 1)),
        ("31-davx5-exdate-berlin.ics", utc(2019, 10, 1), utc(2019, 12, 1)),
        ("32-machbar-potsdam-rrule.ics", utc(2018, 1, 1), utc(2018, 3, 1)),
    ];
    for (name, from, to) in cases {
        let bytes = fixture(&format!("corpus/{name}"));
        let cal =
            ical::read(&bytes, &IcalOptions { expand: Some((from, to)), ..IcalOptions::default() });
        let rows: Vec<String> = cal
            .events
            .iter()
            .map(|e| {
                format!(
                    "{} | {} | {} | {}",
                    e.raw.start.as_deref().unwrap_or("-"),
                    e.raw.name.as_deref().unwrap_or("-"),
                    e.raw.status.as_deref().unwrap_or("-"),
                    e.identity().unwrap_or_default().chars().take(60).collect::<String>()
                )
            })
            .collect();
        let stem = format!("expanded-{}", name.trim_end_matches(".ics"));
        insta::assert_json_snapshot!(
            stem,
            json!({ "occurrences": rows, "diagnostics": cal.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>() })
        );
    }
}

#[test]
fn sample_city_calendar_matches_its_ground_truth() {
    let zone = chrono_tz::Europe::Paris;
    for now in [utc(2026, 11, 30), utc(2027, 3, 20), utc(2027, 10, 20)] {
        let text = gleaner_samplecity::ical::render(now, zone, "http://127.0.0.1:8080");
        let want = gleaner_samplecity::ical::instances(now, zone);
        let cal = ical::read(
            text.as_bytes(),
            &IcalOptions {
                default_tz: Some(zone),
                expand: Some((now, now + chrono::Duration::days(60))),
                ..IcalOptions::default()
            },
        );
        let mut got: Vec<(String, String, String, bool)> = cal
            .events
            .iter()
            .map(|e| {
                (
                    e.uid.clone().unwrap_or_default(),
                    e.raw.start.clone().unwrap_or_default(),
                    e.raw.end.clone().unwrap_or_default(),
                    e.raw.status.as_deref() == Some("EventCancelled"),
                )
            })
            .collect();
        let mut expected: Vec<(String, String, String, bool)> = want
            .iter()
            .map(|i| {
                (
                    i.uid.clone(),
                    i.start.format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
                    i.end.format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
                    i.status == gleaner_samplecity::Status::Cancelled,
                )
            })
            .collect();
        got.sort();
        expected.sort();
        assert_eq!(got, expected, "now {now}\n{text}\n{:?}", cal.diagnostics);
    }
}

#[test]
fn api_mapping_with_nested_venue() {
    let doc = r#"{"venue":"Le Silo","count":2,"events":[
        {"id":"silo-1","title":"Nuit électro","start":"2026-12-04T22:00:00+01:00","end":null,
         "venue":{"name":"Le Silo","address":"3 Quai Dampierre","postal_code":"10000","city":"Troyes","country":"FR"},
         "price":{"free":false,"min":"8.00","max":"15.00","currency":"EUR"},"status":"cancelled",
         "url":"https://silo.example/agenda/nuit-electro","tags":["electro","dj"]},
        {"id":"silo-2","title":"Scène ouverte","start":"2026-12-10T20:00:00+01:00",
         "venue":{"name":"Le Silo"},"price":{"free":true},"status":"scheduled"},
        {"id":"silo-3"}]}"#
        .as_bytes();
    let mapping: api::ApiMapping = serde_json::from_value(json!({
        "events": "/events", "id": "/id", "title": "/title", "start": "/start", "end": "/end",
        "url": "/url", "status": "/status", "keywords": "/tags",
        "venue": "/venue", "venue_name": "/name", "street": "/address", "postal_code": "/postal_code",
        "locality": "/city", "country": "/country",
        "price_min": "/price/min", "price_max": "/price/max", "currency": "/price/currency", "is_free": "/price/free"
    }))
    .unwrap();
    let out = api::read(doc, &mapping);
    let base = Url::parse("https://silo.example/api/events.json").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let events: Vec<Value> = out
        .events
        .iter()
        .map(|e| {
            let n = gleaner_event::normalise(&e.raw, &ctx).unwrap().event;
            json!({ "id": e.id, "event": PublicEvent::from(&n) })
        })
        .collect();
    let diagnostics: Vec<String> = out.diagnostics.iter().map(ToString::to_string).collect();
    insta::assert_json_snapshot!(
        "api-nested-venue",
        json!({ "events": events, "diagnostics": diagnostics })
    );
    // Unknown keys in the mapping are refused, so a typo in the config is an error.
    assert!(serde_json::from_value::<api::ApiMapping>(json!({ "titel": "/t" })).is_err());
    let bad = api::read(
        b"{\"events\": 3}",
        &api::ApiMapping { events: "/events".into(), ..Default::default() },
    );
    assert!(bad.events.is_empty() && bad.diagnostics.len() == 1);
}

#[test]
fn open_data_json_and_csv_records() {
    let json_doc = br#"{"dataset":"vigilance-meteo-aube","warnings":[
        {"department":"10","phenomenon":"neige-verglas","level":"orange","start":"2026-11-30T06:00:00+01:00"},
        {"department":"10","phenomenon":"vent-violent","level":"jaune","start":"2026-11-30T06:00:00+01:00"}]}"#;
    let src = Url::parse("https://data.example/vigilance.json").unwrap();
    let mapping = opendata::RecordMapping {
        records: "/warnings".into(),
        title: vec!["phenomenon".into(), "level".into()],
        date: Some("start".into()),
        ..Default::default()
    };
    let r = opendata::read_json(json_doc, &mapping, &src);
    assert_eq!(r.records.len(), 2);
    assert_eq!(r.records[0].title.as_deref(), Some("neige-verglas – orange"));
    assert_eq!(r.records[0].date.map(|d| d.to_iso()).as_deref(), Some("2026-11-30T06:00:00+01:00"));
    assert_eq!(r.records[0].link, src);

    let csv = "station_id;name;town;fuel;price_eur_per_litre;updated\n\
               10000001;Station du Pont-Neuf;Troyes;Gazole;1.849;2026-11-30T08:00:00+00:00\n\
               10000002;Relais de la Seine;Sainte-Savine;E85;0.899;2026-11-30T08:00:00+00:00\n";
    let mapping = opendata::RecordMapping {
        id: Some("station_id".into()),
        title: vec!["name".into(), "fuel".into()],
        date: Some("updated".into()),
        ..Default::default()
    };
    let src = Url::parse("https://data.example/carburants.csv").unwrap();
    let r = opendata::read_csv(csv.as_bytes(), &mapping, &src);
    assert_eq!(r.records.len(), 2);
    assert_eq!(r.records[1].title.as_deref(), Some("Relais de la Seine – E85"));
    assert_eq!(r.records[1].fields[4], ("price_eur_per_litre".to_owned(), "0.899".to_owned()));
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
}
