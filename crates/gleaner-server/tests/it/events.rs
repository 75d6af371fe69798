//! Events: the JSON API with filters and pages, `keep` and `publish` applied from the
//! settings, the HTML list and view, iCalendar and RSS parsed back, the newsroom behind
//! the operator token, metrics, and fixed error codes.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use gleaner_event::PublicEvent;
use gleaner_server::ApiEvent;
use icalendar::{Component, EventLike};

use crate::{CONFIG, event, get, request, sample_events};

fn json(body: &str) -> serde_json::Value {
    serde_json::from_str(body).unwrap()
}

fn titles(value: &serde_json::Value) -> Vec<String> {
    value["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn events_api_filters_and_pages() {
    let (status, body) = get(CONFIG, "/api/events", sample_events()).await;
    assert_eq!(status, StatusCode::OK);
    let all = json(&body);
    // The newsroom item (publish = false) is never public.
    assert_eq!(titles(&all), ["Concert d'hiver", "Marché de Noël", "Théâtre"]);
    assert_eq!(all["total"], 3);
    assert_eq!(all["events"][0]["id"], 1);
    assert_eq!(all["events"][0]["source_url"], "https://salle.example/e/1");
    assert_eq!(all["events"][0]["last_checked"], "2026-11-30T12:00:00Z");
    for (query, expected) in [
        ("from=2026-12-06", vec!["Marché de Noël", "Théâtre"]),
        ("to=2026-12-12", vec!["Concert d'hiver", "Marché de Noël"]),
        ("from=2026-12-06&to=2026-12-12", vec!["Marché de Noël"]),
        ("locality=troyes", vec!["Concert d'hiver", "Théâtre"]),
        ("source=mairie", vec!["Marché de Noël"]),
        ("category=concert&locality=Bar-sur-Aube", vec!["Marché de Noël"]),
        ("category=theatre", vec![]),
    ] {
        let (_, body) = get(CONFIG, &format!("/api/events?{query}"), sample_events()).await;
        assert_eq!(titles(&json(&body)), expected, "{query}");
    }
    let (_, body) = get(CONFIG, "/api/events?per_page=2", sample_events()).await;
    let first = json(&body);
    assert_eq!(titles(&first), ["Concert d'hiver", "Marché de Noël"]);
    assert_eq!(first["next"], "/api/events?page=2&per_page=2");
    let (_, body) = get(CONFIG, "/api/events?per_page=2&page=2", sample_events()).await;
    let second = json(&body);
    assert_eq!(titles(&second), ["Théâtre"]);
    assert!(second["next"].is_null());
    for bad in ["from=tomorrow", "page=0", "per_page=-1", "to=2026-13-01"] {
        let (status, body) = get(CONFIG, &format!("/api/events?{bad}"), sample_events()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
        // A fixed message: nothing from the request is echoed.
        assert_eq!(
            json(&body),
            serde_json::json!({"code": "bad_query", "message": "a query parameter could not be read; dates are YYYY-MM-DD, page and per_page are positive numbers"})
        );
    }
}

#[tokio::test]
async fn keep_facts_and_publish_are_applied_everywhere() {
    // "salle" keeps full, "mairie" facts only: the store may still hold a description
    // from before the switch; the server drops it.
    let (_, body) = get(CONFIG, "/api/events", sample_events()).await;
    let all = json(&body);
    assert_eq!(all["events"][0]["description"], "A long description");
    assert!(all["events"][1]["description"].is_null() && all["events"][1]["image_url"].is_null());
    let (_, ics) = get(CONFIG, "/events.ics", sample_events()).await;
    assert_eq!(ics.matches("DESCRIPTION:").count(), 2, "{ics}");
    assert!(!ics.contains("Conseil municipal"));
    let (_, rss) = get(CONFIG, "/events.rss", sample_events()).await;
    assert!(!rss.contains("Conseil municipal"));
    let (_, page) = get(CONFIG, "/events/2", sample_events()).await;
    assert!(!page.contains("A long description"));
    let (status, _) = get(CONFIG, "/events/100", sample_events()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = get(CONFIG, "/api/events/100", sample_events()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Switch "salle" to facts only: its descriptions disappear at once.
    let facts = CONFIG.replacen("keep = \"full\"", "keep = \"facts\"", 1);
    let (_, body) = get(&facts, "/api/events", sample_events()).await;
    assert!(!body.contains("A long description"));
}

#[tokio::test]
async fn newsroom_needs_the_operator_token() {
    let (status, headers, body) =
        request(CONFIG, Request::get("/api/news").body(Body::empty()).unwrap(), sample_events())
            .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers[header::WWW_AUTHENTICATE], "Bearer");
    assert_eq!(json(&body)["code"], "unauthorized");
    let wrong = Request::get("/api/news").header(header::AUTHORIZATION, "Bearer nope");
    let (status, _, _) = request(CONFIG, wrong.body(Body::empty()).unwrap(), sample_events()).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let right = Request::get("/api/news").header(header::AUTHORIZATION, "Bearer s3cret");
    let (status, headers, body) =
        request(CONFIG, right.body(Body::empty()).unwrap(), sample_events()).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers[header::CACHE_CONTROL], "private, no-store");
    let items = json(&body);
    assert_eq!(items["items"][0]["title"], "Conseil municipal");
    // keep defaults to facts: no description even in the private pool.
    assert!(items["items"][0]["description"].is_null());
}

#[tokio::test]
async fn ical_feed_parses_back_with_stable_uids_escaping_folding_and_zones() {
    let mut events = sample_events();
    let long = "Nuit blanche; concerts, lectures \\ et « surprises » — ".repeat(4);
    events[0].facts.title = Some(long.trim().to_owned());
    events[0].facts.end = Some("2026-12-05T23:00:00+01:00".into());
    events[1].facts.end = Some("2026-12-14".into());
    let (status, headers, ics) =
        request(CONFIG, Request::get("/events.ics").body(Body::empty()).unwrap(), events.clone())
            .await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("text/calendar"));
    // Every physical line is at most 75 octets and ends with CRLF.
    assert!(ics.ends_with("\r\n"));
    for line in ics.split("\r\n") {
        assert!(line.len() <= 75, "{line:?}");
        assert!(!line.contains('\n'));
    }
    assert!(ics.contains("\r\n "), "a long SUMMARY is folded");
    assert!(ics.contains("DTSTART:20261205T190000Z"), "{ics}");
    assert!(ics.contains("DTSTART;VALUE=DATE:20261212"));
    assert!(ics.contains("DTSTART:20261220T183000\r\n"), "floating stays floating");
    let calendar: icalendar::Calendar = ics.parse().unwrap();
    let parsed: Vec<&icalendar::Event> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            icalendar::CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(parsed.len(), 3);
    assert_eq!(parsed[0].get_uid(), Some("event-1@aube.example"));
    assert_eq!(parsed[0].get_summary(), Some(long.trim()), "unescaped and unfolded");
    assert!(parsed[0].property_value("DTSTAMP").is_some());
    assert_eq!(parsed[1].get_location(), Some("Salle des fêtes, Bar-sur-Aube"));
    // The same events give the same UIDs and bytes on the next request.
    let (_, again) = get(CONFIG, "/events.ics", events).await;
    assert_eq!(again, ics);
}

#[tokio::test]
async fn rss_feed_parses_back() {
    let mut events = sample_events();
    events[0].facts.title = Some("Rock & <b>roll</b>".into());
    let (status, headers, rss) =
        request(CONFIG, Request::get("/events.rss").body(Body::empty()).unwrap(), events).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers[header::CONTENT_TYPE].to_str().unwrap().starts_with("application/rss+xml"));
    let feed = feed_rs::parser::parse(rss.as_bytes()).unwrap();
    assert_eq!(feed.entries.len(), 3);
    assert_eq!(feed.entries[0].title.as_ref().unwrap().content, "Rock & <b>roll</b>");
    assert_eq!(feed.entries[0].links[0].href, "https://salle.example/e/1");
    assert_eq!(feed.entries[0].id, "event-1@aube.example");
}

#[tokio::test]
async fn html_list_and_view_escape_crawled_text_and_show_provenance() {
    let mut events = sample_events();
    events[0].facts.title = Some("<script>window.__xss=1</script>Fête".into());
    events[0].facts.ticket_url = Some("javascript:alert(1)".into());
    events[0].source_url = "javascript:alert(2)".into();
    let (status, list) = get(CONFIG, "/events", events.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!list.contains("<script>window"));
    assert!(list.contains("&lt;script&gt;window.__xss=1&lt;/script&gt;Fête"));
    assert!(list.contains("<a href=\"/events/2\">Marché de Noël</a>"));
    let (status, view) = get(CONFIG, "/events/1", events).await;
    assert_eq!(status, StatusCode::OK);
    assert!(!view.contains("<script>window") && !view.contains("href=\"javascript"));
    assert!(view.contains("How this event got here"));
    assert!(view.contains("<span id=\"last-checked\">2026-11-30T12:00:00Z</span>"));
    let (_, view) = get(CONFIG, "/events/3", sample_events()).await;
    assert!(view.contains("href=\"https://salle.example/e/3\""), "the link back");
    let (_, headers, _) =
        request(CONFIG, Request::get("/events/1").body(Body::empty()).unwrap(), vec![]).await;
    assert!(
        headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .starts_with("default-src 'none'")
    );
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    // Issue 26 item 8: for browsers that ignore `frame-ancestors`.
    assert_eq!(headers[header::X_FRAME_OPTIONS], "DENY");
    let (status, body) = get(CONFIG, "/events/nope", sample_events()).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(json(&body)["code"], "not_found");
    let (status, body) = get(CONFIG, "/no/such/page", vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(json(&body)["code"], "not_found");
}

#[tokio::test]
async fn metrics_and_health() {
    let (status, body) =
        get(CONFIG, "/metrics", vec![event(1, "x", "2026-12-01", "salle", "T")]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("gleaner_info{token=\"AubeActuBot\",version=\"2.1\"} 1"), "{body}");
    assert!(body.contains("# TYPE gleaner_requests_total counter"));
    assert!(body.contains("# TYPE gleaner_refusals_total counter"));
    assert!(body.contains("gleaner_suspended_sites 0"));
    assert!(body.contains("gleaner_blocked_sites 0"));
    assert!(body.contains("gleaner_store_up 1"));
    let (status, body) = get(CONFIG, "/healthz", vec![]).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
    let _ = ApiEvent { facts: PublicEvent::default(), ..ApiEvent::default() };
}

#[test]
fn refusal_reasons_map_to_a_fixed_label_set() {
    use gleaner_server::metrics::refusal_reason;
    for (text, label) in [
        ("the owner opted out (request `R-1`)", "opt-out"),
        ("robots.txt: disallowed by `Disallow: /private`", "robots-disallowed"),
        ("robots.txt answered 503; nothing else until it can be read", "robots-unreadable"),
        ("site blocked until 2026-12-01 after a 403", "blocked"),
        ("suspended by Retry-After until 12:00", "suspended"),
        ("quiet hours 08:00-09:00 in Europe/Paris", "quiet-hours"),
        ("purpose `image-relay` is not enabled", "purpose-disabled"),
        ("60 requests per day used", "quota"),
        ("the address 10.0.0.1 is private", "address"),
        ("something new", "other"),
    ] {
        assert_eq!(refusal_reason(text), label, "{text}");
    }
}

/// Issue 18: the event view and its JSON keep the original and show the English
/// translation beside it, marked as a machine translation, with the model's part.
#[test]
fn the_event_view_shows_the_translation_beside_the_original_and_the_models_part() {
    use gleaner_server::{EventDetail, ModelRecord, Translation};
    let settings = gleaner_config::parse(CONFIG, "t.toml").unwrap();
    let mut detail = EventDetail {
        event: event(7, "Büyük caz gecesi", "2026-12-05T20:30:00+03:00", "venue", "İzmir"),
        ..EventDetail::default()
    };
    let plain = gleaner_server::html::view(&settings, &detail);
    assert!(!plain.contains("Machine translation"), "positive control: no translation, no section");
    detail.translation = Some(Translation {
        lang: "en".into(),
        title: Some("Great <jazz> night".into()),
        description: None,
    });
    detail.models = vec![ModelRecord {
        step: "translation".into(),
        model: "qwen2.5-7b-instruct".into(),
        prompt_version: "translate-v1".into(),
    }];
    let html = gleaner_server::html::view(&settings, &detail);
    assert!(html.contains("Büyük caz gecesi"), "the original stays");
    assert!(
        html.contains("<section id=\"translation\" lang=\"en\"><h2>Machine translation (en)</h2>")
    );
    assert!(html.contains("Great &lt;jazz&gt; night"), "escaped");
    assert!(html.contains("translation: qwen2.5-7b-instruct (prompt translate-v1)"));
    let json = serde_json::to_value(&detail).unwrap();
    assert_eq!(json["title"], "Büyük caz gecesi");
    assert_eq!(json["translation"]["title"], "Great <jazz> night");
    assert_eq!(json["models"][0]["model"], "qwen2.5-7b-instruct");
    let without = serde_json::to_value(EventDetail::default()).unwrap();
    assert!(without.get("translation").is_none() && without.get("models").is_none());
}
