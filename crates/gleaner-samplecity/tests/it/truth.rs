//! The ground truth matches what the pages say: JSON-LD read with serde_json, microdata
//! and RDFa read with scraper, plain pages by their class names; dates are upcoming and in
//! each venue's zone; passes change what is true.

use chrono::Duration;
use gleaner_samplecity::{Exclusion, Markup, Status, TruthEvent};
use scraper::{Html, Selector};
use serde_json::Value;

use crate::support::{city, get_at, now, origins, path_of};

fn status_url(s: Status) -> &'static str {
    s.schema_url()
}

/// Every object in a JSON-LD document (top level, arrays, `@graph`).
fn objects(v: &Value, out: &mut Vec<Value>) {
    match v {
        Value::Array(a) => a.iter().for_each(|x| objects(x, out)),
        Value::Object(o) => {
            if let Some(g) = o.get("@graph") {
                objects(g, out);
            } else {
                out.push(v.clone());
            }
        }
        _ => {}
    }
}

fn json_ld_event(html: &str) -> Value {
    let doc = Html::parse_document(html);
    let sel = Selector::parse("script[type=\"application/ld+json\"]").unwrap();
    let mut found = Vec::new();
    for script in doc.select(&sel) {
        let v: Value = serde_json::from_str(&script.text().collect::<String>()).unwrap();
        objects(&v, &mut found);
    }
    found
        .into_iter()
        .find(|o| o.get("startDate").is_some())
        .unwrap_or_else(|| panic!("no event in JSON-LD"))
}

fn check_json_ld(t: &TruthEvent, html: &str) {
    let e = json_ld_event(html);
    assert!(e["@type"].as_str().unwrap().ends_with("Event") || e["@type"] == "Festival");
    assert_eq!(e["name"], t.title.as_str());
    assert_eq!(e["startDate"], t.start.to_rfc3339().as_str());
    assert_eq!(e["endDate"].as_str(), t.end.map(|x| x.to_rfc3339()).as_deref());
    assert_eq!(e["eventStatus"], status_url(t.status));
    assert_eq!(e["url"], t.url.as_str());
    let previous = t.previous_start.map(|x| x.to_rfc3339());
    assert_eq!(e["previousStartDate"].as_str(), previous.as_deref());
    let place = match &e["location"] {
        Value::Array(a) => a.iter().find(|p| p["@type"] == "Place").unwrap().clone(),
        p => p.clone(),
    };
    assert_eq!(place["name"], t.venue.as_str());
    assert_eq!(place["address"]["addressLocality"], t.locality.as_str());
    assert_eq!(place["address"]["addressCountry"], t.country.as_str());
    let offers = &e["offers"];
    if t.is_free {
        assert_eq!(e["isAccessibleForFree"], true);
        assert_eq!(offers["price"], "0");
    } else if offers["@type"] == "AggregateOffer" {
        assert_eq!(offers["lowPrice"].as_str(), t.price_min.as_deref());
        assert_eq!(offers["highPrice"].as_str(), t.price_max.as_deref());
    } else {
        assert_eq!(offers["price"].as_str(), t.price_min.as_deref());
        assert_eq!(t.price_min, t.price_max);
    }
    if !t.is_free {
        assert_eq!(offers["priceCurrency"].as_str(), t.currency.as_deref());
    }
}

fn check_annotated(t: &TruthEvent, html: &str, attr: &str) {
    let doc = Html::parse_document(html);
    let one = |css: &str| -> Option<String> {
        let sel = Selector::parse(css).unwrap();
        doc.select(&sel).next().map(|el| {
            el.value()
                .attr("content")
                .or_else(|| el.value().attr("href"))
                .map(str::to_owned)
                .unwrap_or_else(|| el.text().collect::<String>())
        })
    };
    let p = |name: &str| one(&format!("[{attr}=\"{name}\"]"));
    assert_eq!(p("name").as_deref(), Some(t.title.as_str()), "{}", t.url);
    assert_eq!(p("startDate"), Some(t.start.to_rfc3339()));
    assert_eq!(p("endDate"), t.end.map(|x| x.to_rfc3339()));
    assert_eq!(p("eventStatus").as_deref(), Some(status_url(t.status)));
    assert_eq!(p("previousStartDate"), t.previous_start.map(|x| x.to_rfc3339()));
    assert_eq!(p("addressLocality").as_deref(), Some(t.locality.as_str()));
    assert_eq!(p("addressCountry").as_deref(), Some(t.country.as_str()));
    let place = one(&format!("[{attr}=\"location\"] [{attr}=\"name\"]"));
    assert_eq!(place.as_deref(), Some(t.venue.as_str()));
    if t.is_free {
        assert_eq!(p("isAccessibleForFree").as_deref(), Some("true"));
    } else if let Some(low) = p("lowPrice") {
        assert_eq!(Some(low), t.price_min);
        assert_eq!(p("highPrice"), t.price_max);
    } else {
        assert_eq!(p("price"), t.price_min);
    }
    let scope = if attr == "itemprop" { "[itemscope][itemtype]" } else { "[vocab][typeof]" };
    assert!(one(scope).is_some(), "no {scope} in {}", t.url);
}

fn check_plain(t: &TruthEvent, html: &str) {
    let doc = Html::parse_document(html);
    let text = |css: &str| {
        let sel = Selector::parse(css).unwrap();
        doc.select(&sel).next().map(|e| e.text().collect::<String>())
    };
    assert_eq!(text(".event-title").as_deref(), Some(t.title.as_str()));
    let time = Selector::parse(".event-date time").unwrap();
    let dt = doc.select(&time).next().unwrap().value().attr("datetime").unwrap();
    assert_eq!(dt, t.start.to_rfc3339());
    assert!(text(".event-venue").unwrap().contains(&t.venue));
    assert!(!html.contains("application/ld+json") && !html.contains("itemprop"));
    let price = text(".event-price").unwrap();
    if t.is_free {
        assert!(
            ["Free", "Ücretsiz", "Gratuit", "Entrada libre", "Eintritt frei"]
                .iter()
                .any(|w| price.contains(w))
        );
    } else {
        let min = t.price_min.as_deref().unwrap();
        let units = min.split('.').next().unwrap();
        assert!(price.contains(units), "{price} vs {min}");
    }
}

#[test]
fn ground_truth_matches_every_page_at_every_pass() {
    let city = city();
    let origins = origins(&city);
    for pass in 0..3 {
        let truth = city.ground_truth(&origins, pass);
        let mut by_markup = std::collections::HashMap::new();
        for t in truth.events.iter().filter(|t| t.markup != Markup::ICalendar) {
            let r = get_at(&city, t.site, pass, path_of(&t.url));
            assert_eq!(r.status, 200, "{}", t.url);
            let html = r.text();
            match t.markup {
                Markup::JsonLd | Markup::JsonLdGraph | Markup::JsonLdArray => {
                    check_json_ld(t, &html)
                }
                Markup::Microdata => check_annotated(t, &html, "itemprop"),
                Markup::Rdfa => check_annotated(t, &html, "property"),
                Markup::Plain => check_plain(t, &html),
                Markup::ICalendar => unreachable!(),
            }
            *by_markup.entry(t.markup).or_insert(0) += 1;
        }
        assert_eq!(by_markup.len(), 6, "every markup is represented: {by_markup:?}");
    }
}

#[test]
fn truth_dates_are_upcoming_in_each_venue_zone_and_one_crosses_dst() {
    let city = city();
    let truth = city.ground_truth(&origins(&city), 0);
    assert!(truth.events.len() >= 100, "{}", truth.events.len());
    let mut crossing = 0;
    for t in &truth.events {
        let days = (t.start.to_utc() - now()).num_hours() as f64 / 24.0;
        assert!((1.5..=31.0).contains(&days), "{} starts {days} days ahead", t.title);
        let zone: chrono_tz::Tz = t.time_zone.parse().unwrap();
        assert_eq!(
            t.start.with_timezone(&zone).fixed_offset(),
            t.start,
            "offset of {} in {zone}",
            t.title
        );
        if let Some(end) = t.end {
            assert!(end > t.start);
            if end.offset() != t.start.offset() {
                crossing += 1;
            }
        }
    }
    assert!(crossing > 0, "no event crosses a DST change at this now");
    let zones: std::collections::BTreeSet<_> =
        truth.events.iter().map(|t| t.time_zone.as_str()).collect();
    assert_eq!(
        zones.into_iter().collect::<Vec<_>>(),
        ["America/Montreal", "Europe/Berlin", "Europe/Istanbul", "Europe/Madrid", "Europe/Paris"]
    );
    let statuses: std::collections::BTreeSet<_> =
        truth.events.iter().map(|t| format!("{:?}", t.status)).collect();
    for s in ["Scheduled", "Cancelled", "Postponed", "Rescheduled", "MovedOnline"] {
        assert!(statuses.contains(s), "{s} missing from {statuses:?}");
    }
}

#[test]
fn refusing_sites_and_pages_are_excluded_from_the_truth() {
    let city = city();
    let origins = origins(&city);
    let truth = city.ground_truth(&origins, 0);
    let reasons: std::collections::BTreeSet<_> = truth.excluded.iter().map(|e| e.reason).collect();
    assert!(reasons.contains(&Exclusion::RobotsDisallowAll));
    assert!(reasons.contains(&Exclusion::TdmReservation));
    assert!(reasons.contains(&Exclusion::RobotsDisallowPath));
    assert!(reasons.contains(&Exclusion::Noindex));
    for x in &truth.excluded {
        assert!(truth.by_url(&x.url).is_none());
        let html = get_at(&city, x.site, 0, path_of(&x.url)).text();
        match x.reason {
            Exclusion::Noindex => {
                assert!(html.contains("<meta name=\"robots\" content=\"noindex\">"))
            }
            Exclusion::TdmReservation => assert!(html.contains("tdm-reservation")),
            Exclusion::RobotsDisallowAll | Exclusion::RobotsDisallowPath => {
                let robots = get_at(&city, x.site, 0, "/robots.txt").text();
                let plan = gleaner_samplecity::rights::robots_plan(city.site(x.site));
                assert!(!plan.allows(path_of(&x.url)), "{robots}");
            }
        }
    }
    // The throttling venue is in the truth: a polite crawler waits and gets its events.
    let throttle = city.site_index("sala-malasana").unwrap();
    assert!(truth.of_site(throttle).count() >= 6);
}

#[test]
fn passes_move_cancel_remove_and_add_events() {
    let city = city();
    let origins = origins(&city);
    let site = city.site_index("izmir-sanat").unwrap();
    let e0 = city.venue_events(site, 0);
    let e1 = city.venue_events(site, 1);
    let find =
        |es: &[gleaner_samplecity::Event], n: u32| es.iter().find(|e| e.number == n).cloned();
    let moved = find(&e1, 2).unwrap();
    assert_eq!(moved.status, Status::Rescheduled);
    assert_eq!(moved.previous_start, Some(find(&e0, 2).unwrap().start));
    let before = find(&e0, 2).unwrap().start;
    assert_eq!(moved.start.naive_local(), before.naive_local() + Duration::days(7));
    assert_eq!(find(&e1, 3).unwrap().status, Status::Cancelled);
    let gone = find(&e0, 4).unwrap();
    assert!(find(&e1, 4).is_none());
    assert_eq!(get_at(&city, site, 1, &gone.path).status, 404);
    assert_eq!(get_at(&city, site, 0, &gone.path).status, 200);
    assert_eq!(e1.len(), e0.len(), "one gone, one added");
    assert_eq!(city.venue_events(site, 2).len(), e0.len() + 1);
    let html = get_at(&city, site, 1, &moved.path).text();
    assert!(html.contains("previousStartDate"));
    let t0 = city.ground_truth(&origins, 0);
    let t1 = city.ground_truth(&origins, 1);
    assert_ne!(t0.events, t1.events);
}
