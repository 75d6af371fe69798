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
    // Last checked in the event's zone, in words, the instant kept for machines.
    assert!(view.contains(
        "<span id=\"last-checked\"><time datetime=\"2026-11-30T12:00:00Z\">Mon 30 Nov 2026, 13:00 (Paris time)</time></span>"
    ));
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

/// Issue 23: a refusal's `reason` label is its kind's stable code, read from the typed
/// outcome, never guessed from the reason's prose (the old label for a quota refusal
/// worded "this pass used its 3 requests" was `other`).
#[test]
fn refusals_are_labelled_by_their_kind() {
    use gleaner_policy::outcome::RefusalKind;
    use gleaner_server::metrics::{ServerCounters, render};
    let settings = gleaner_config::parse(CONFIG, "gleaner.toml").unwrap();
    let mut crawl = gleaner_server::CrawlMetrics::default();
    crawl.refusals.insert(RefusalKind::RobotsDisallowed, 2);
    crawl.refusals.insert(RefusalKind::Quota, 1);
    let body = render(&settings, Some(&crawl), None, &ServerCounters::default());
    assert!(body.contains("gleaner_refusals_total{reason=\"robots-disallowed\"} 2"), "{body}");
    assert!(body.contains("gleaner_refusals_total{reason=\"quota\"} 1"), "{body}");
    let codes: std::collections::BTreeSet<&str> =
        RefusalKind::ALL.iter().map(|k| k.code()).collect();
    assert_eq!(codes.len(), RefusalKind::ALL.len(), "one code per kind");
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
    let plain = gleaner_server::html::view(&settings, gleaner_server::i18n::Lang::En, &detail);
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
    let html = gleaner_server::html::view(&settings, gleaner_server::i18n::Lang::En, &detail);
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

async fn page_in(path: &str, accept_language: &str) -> (axum::http::HeaderMap, String) {
    let request =
        Request::get(path).header(header::ACCEPT_LANGUAGE, accept_language).body(Body::empty());
    let (status, headers, body) = request_with(request.unwrap()).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (headers, body)
}

async fn request_with(r: Request<Body>) -> (StatusCode, axum::http::HeaderMap, String) {
    request(CONFIG, r, sample_events()).await
}

#[tokio::test]
async fn event_pages_show_dates_in_the_events_zone_in_the_visitors_language_by_day() {
    let (headers, list) = page_in("/events", "fr-CH, fr;q=0.9, en;q=0.8").await;
    assert_eq!(headers[header::VARY], "Accept-Language");
    // One heading per day, in order, the machine date kept in `<time datetime>`.
    let headings: Vec<&str> =
        list.lines().filter(|l| l.starts_with("<tr class=\"day\">")).collect();
    assert_eq!(
        headings,
        [
            "<tr class=\"day\"><th colspan=\"6\"><time datetime=\"2026-12-05\">samedi 5 décembre 2026</time></th></tr>",
            "<tr class=\"day\"><th colspan=\"6\"><time datetime=\"2026-12-12\">samedi 12 décembre 2026</time></th></tr>",
            "<tr class=\"day\"><th colspan=\"6\"><time datetime=\"2026-12-20\">dimanche 20 décembre 2026</time></th></tr>",
        ]
    );
    assert!(
        list.contains("<time datetime=\"2026-12-05T20:00:00+01:00\">20:00 (heure de Paris)</time>")
    );
    // A time the source gave without a zone is shown as written, no zone named.
    assert!(list.contains("<time datetime=\"2026-12-20T18:30:00\">18:30</time>"));
    // Sites by domain, not the configured source ids.
    assert!(list.contains("<td class=\"site\">salle.example</td>"));
    assert!(list.contains("<td class=\"site\">mairie.example</td>"));
    assert!(!list.contains("2026-12-05T20:00:00+01:00<"), "no machine date as text");
    assert!(list.contains(
        "<time datetime=\"2026-11-30T12:00:00Z\">lun. 30 nov. 2026, 13:00 (heure de Paris)</time>"
    ));

    for (lang, when) in [
        ("en-GB", "Sat 5 Dec 2026, 20:00 (Paris time)"),
        ("fr", "sam. 5 déc. 2026, 20:00 (heure de Paris)"),
        ("es", "sáb, 5 dic 2026, 20:00 (hora de París)"),
        ("de-AT", "Sa., 5. Dez. 2026, 20:00 (Ortszeit Paris)"),
        ("tr", "5 Ara 2026 Cmt, 20:00 (Paris saati)"),
    ] {
        let (_, view) = page_in("/events/1", lang).await;
        assert!(
            view.contains(&format!("<time datetime=\"2026-12-05T20:00:00+01:00\">{when}</time>")),
            "{lang}: {view}"
        );
    }
    let (_, view) = page_in("/events/2", "de").await;
    assert!(view.contains("<time datetime=\"2026-12-12\">Sa., 12. Dez. 2026</time>"), "{view}");
    assert!(view.contains("<tr><th>Site</th><td>mairie.example</td></tr>"), "{view}");
}

#[tokio::test]
async fn the_filters_of_the_api_take_site_status_and_language() {
    let mut events = sample_events();
    events[1].facts.status = Some("cancelled");
    events[0].facts.title = Some("Grand concert d'hiver de l'orchestre".into());
    events[0].facts.description =
        Some("Un grand concert de musique classique avec l'orchestre de la ville, ce soir.".into());
    events[2].facts.title = Some("Winter theatre night".into());
    events[2].facts.description =
        Some("A long evening of theatre with the town's company, followed by a party.".into());
    for (query, want) in [
        ("site=salle.example", vec![1, 3]),
        ("site=example", vec![1, 2, 3]),
        ("site=alle.example", vec![]),
        ("status=cancelled", vec![2]),
        ("lang=fr", vec![1]),
        ("lang=en", vec![3]),
    ] {
        let (status, body) = get(CONFIG, &format!("/api/events?{query}"), events.clone()).await;
        assert_eq!(status, StatusCode::OK);
        let ids: Vec<i64> = json(&body)["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_i64().unwrap())
            .collect();
        assert_eq!(ids, want, "{query}");
    }
}
/// Issue 24 item 5 and issue 28: the event view says, per fetch, which source read the
/// event, with which extractor, and which fields it gave; only a fetch stored before
/// extractors were recorded says "not recorded".
#[test]
fn the_event_view_shows_each_sources_extractor_and_fields() {
    use gleaner_server::{EventDetail, FetchRecord};
    let settings = gleaner_config::parse(CONFIG, "t.toml").unwrap();
    let fetch = |source: &str, url: &str, extractor: Option<&str>, fields: &[&str]| FetchRecord {
        source: Some(source.into()),
        url: url.into(),
        fetched_at: "2026-11-30T12:00:00Z".into(),
        extractor: extractor.map(Into::into),
        fields: fields.iter().map(|f| (*f).to_owned()).collect(),
        ..FetchRecord::default()
    };
    let detail = EventDetail {
        event: event(7, "Caz gecesi", "2026-12-05T20:30:00+03:00", "venue", "İzmir"),
        provenance: vec![
            fetch("venue", "https://venue.example/e/7", Some("json-ld"), &["start", "venue"]),
            fetch("ticketing", "https://tickets.example/v1?page=0", Some("api"), &["price"]),
            fetch("<b>old</b>", "https://venue.example/", None, &[]),
        ],
        ..EventDetail::default()
    };
    let html = gleaner_server::html::view(&settings, gleaner_server::i18n::Lang::En, &detail);
    let rows: Vec<&str> = html.lines().filter(|l| l.starts_with("<tr class=\"fetch\">")).collect();
    assert_eq!(rows.len(), 3, "{html}");
    assert!(rows[0].contains("<td class=\"source\">venue</td>"), "{}", rows[0]);
    assert!(rows[0].contains("<td class=\"extractor\">json-ld</td>"));
    assert!(rows[0].contains("<td class=\"fields\">start, venue</td>"));
    assert!(rows[1].contains("<td class=\"source\">ticketing</td>"));
    assert!(rows[1].contains("<td class=\"extractor\">api</td><td class=\"fields\">price</td>"));
    // Positive control for the wording, and escaping of what a source is called.
    assert!(rows[2].contains("<td class=\"extractor\">not recorded</td>"), "{}", rows[2]);
    assert!(rows[2].contains("&lt;b&gt;old&lt;/b&gt;"));
    assert_eq!(html.matches("not recorded").count(), 1);
}
