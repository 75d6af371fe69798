//! Each content kind parses with a standard tool: feed-rs (RSS, Atom), icalendar (.ics),
//! quick-xml (sitemaps), serde_json (APIs, tdmrep.json), and the listings link every event.

use std::io::Read as _;

use gleaner_samplecity::{Markup, Role, SeedKind, Status};
use http::HeaderMap;
use icalendar::{Calendar, CalendarComponent, Component};

use crate::support::{city, get, get_at, now, origins, path_of};

fn parse_feed(body: &[u8]) -> feed_rs::model::Feed {
    feed_rs::parser::parse(body).expect("feed parses")
}

#[test]
fn listings_paginate_and_link_every_event() {
    let city = city();
    for (i, site) in city.sites().iter().enumerate().filter(|(_, s)| s.is_venue()) {
        let listing = site.lang.listing_path();
        let first = get(&city, i, listing).text();
        assert!(first.contains(&format!("href=\"{listing}?page=2\"")), "{}", site.key);
        let second = get(&city, i, &format!("{listing}?page=2")).text();
        assert_eq!(get(&city, i, &format!("{listing}?page=9")).status, 404);
        for e in city.venue_events(i, 0) {
            let href = format!("href=\"{}\"", e.path);
            assert!(first.contains(&href) || second.contains(&href), "{} not listed", e.path);
        }
    }
}

#[test]
fn sitemaps_parse_with_quick_xml_including_the_index_and_the_gzip_one() {
    let city = city();
    let site = city.site_index("kulturhaus-plagwitz").unwrap();
    let locs = |xml: &str| -> Vec<String> {
        let mut reader = quick_xml::Reader::from_str(xml);
        let (mut out, mut in_loc) = (Vec::new(), false);
        loop {
            match reader.read_event().unwrap() {
                quick_xml::events::Event::Start(e) => in_loc = e.name().into_inner() == "loc",
                quick_xml::events::Event::Text(t) if in_loc => {
                    out.push(t.xml10_content().into_owned())
                }
                quick_xml::events::Event::End(_) => in_loc = false,
                quick_xml::events::Event::Eof => break,
                _ => {}
            }
        }
        out
    };
    let robots = get(&city, site, "/robots.txt").text();
    assert!(robots.contains("Sitemap: http://"));
    let index = get(&city, site, "/sitemap_index.xml");
    assert!(index.text().contains("<sitemapindex"));
    let children = locs(&index.text());
    assert_eq!(children.len(), 2);
    let plain = get(&city, site, path_of(&children[0])).text();
    let urls = locs(&plain);
    assert_eq!(urls.len(), 1 + city.venue_events(site, 0).len());
    let gz = get(&city, site, path_of(&children[1]));
    assert_eq!(&gz.body[..2], &[0x1f, 0x8b]);
    let mut xml = String::new();
    flate2::read::GzDecoder::new(&gz.body[..]).read_to_string(&mut xml).unwrap();
    assert_eq!(locs(&xml).len(), 2);
}

#[test]
fn venue_feeds_parse_with_feed_rs_and_link_event_pages() {
    let city = city();
    let origins = origins(&city);
    for seed in
        city.seeds(&origins).iter().filter(|s| matches!(s.kind, SeedKind::Rss | SeedKind::Atom))
    {
        let r = get(&city, seed.site, path_of(&seed.url));
        assert_eq!(r.status, 200, "{}", seed.url);
        let feed = parse_feed(&r.body);
        assert!(!feed.entries.is_empty(), "{}", seed.url);
        for entry in &feed.entries {
            let link = &entry.links[0].href;
            assert_eq!(get(&city, seed.site, path_of(link)).status, 200, "{link}");
            assert!(entry.title.is_some());
        }
        if city.site(seed.site).role == Role::Venue {
            assert_eq!(feed.entries.len(), city.venue_events(seed.site, 0).len());
        }
    }
}

#[test]
fn town_hall_news_changes_between_passes() {
    let city = city();
    let hall = city.index_of_role(Role::TownHall).unwrap();
    let n0 = parse_feed(&get_at(&city, hall, 0, "/actualites/rss.xml").body).entries.len();
    let n1 = parse_feed(&get_at(&city, hall, 1, "/actualites/atom.xml").body).entries.len();
    assert_eq!((n0, n1), (6, 7));
}

#[test]
fn the_agenda_parses_with_the_icalendar_crate() {
    let city = city();
    let hall = city.index_of_role(Role::TownHall).unwrap();
    let r = get(&city, hall, "/agenda.ics");
    assert!(r.header_value("content-type").unwrap().starts_with("text/calendar"));
    let text = r.text();
    assert!(text.contains("\r\n"));
    for needle in [
        "BEGIN:VTIMEZONE",
        "RRULE:FREQ=WEEKLY",
        "EXDATE;TZID=",
        "RECURRENCE-ID;TZID=",
        "STATUS:CANCELLED",
    ] {
        assert!(text.contains(needle), "{needle}");
    }
    let cal: Calendar = text.parse().expect("icalendar parses");
    let events: Vec<_> = cal
        .components
        .iter()
        .filter_map(|c| match c {
            CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(events.len(), 4);
    assert!(events.iter().all(|e| e.get_uid().is_some() && e.get_start().is_some()));
    assert!(events.iter().any(|e| e.get_summary() == Some("Marché des producteurs")));
    let truth = city.ground_truth(&origins(&city), 0);
    let instances: Vec<_> = truth.events.iter().filter(|t| t.markup == Markup::ICalendar).collect();
    assert_eq!(instances.len(), 4, "3 market days (one of 4 excluded) + the council");
    assert_eq!(instances.iter().filter(|t| t.status == Status::Cancelled).count(), 1);
}

#[test]
fn apis_answer_json_the_licensed_one_wants_a_key_and_rate_limits() {
    let city = city();
    let o = origins(&city);
    let venue = city.site_index("mile-end-hall").unwrap();
    let v: serde_json::Value =
        serde_json::from_slice(&get(&city, venue, "/api/events.json").body).unwrap();
    let truth = city.ground_truth(&o, 0);
    for item in v["events"].as_array().unwrap() {
        let t = truth.by_url(item["url"].as_str().unwrap()).expect("API events are true");
        assert_eq!(item["start"], t.start.to_rfc3339().as_str());
        assert_eq!(item["title"], t.title.as_str());
    }

    let api = city.index_of_role(Role::LicensedApi).unwrap();
    assert_eq!(get(&city, api, "/v1/events.json").status, 401);
    assert_eq!(get(&city, api, "/v1/events.json?apikey=wrong").status, 401);
    let ok = get(&city, api, &format!("/v1/events.json?apikey={}&page=0", city.api_key()));
    assert_eq!(ok.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&ok.body).unwrap();
    assert!(v["page"]["totalElements"].as_u64().unwrap() > 10);
    assert_eq!(v["_embedded"]["events"].as_array().unwrap().len(), 10);
    let headers = HeaderMap::new();
    let path = format!("/v1/events.json?apikey={}", city.api_key());
    let mut req = gleaner_samplecity::Request::get(&path, &headers);
    req.moment.api_calls = city.api_limit() + 1;
    let limited = city.respond(&o, api, 0, &req);
    assert_eq!(limited.status, 429);
    assert_eq!(limited.header_value("retry-after"), Some("60"));

    let data = city.index_of_role(Role::OpenData).unwrap();
    let w: serde_json::Value =
        serde_json::from_slice(&get(&city, data, "/api/vigilance.json").body).unwrap();
    assert_eq!(w["warnings"].as_array().unwrap().len(), 2);
    let fuel: serde_json::Value =
        serde_json::from_slice(&get(&city, data, "/api/carburants.json").body).unwrap();
    let csv = get(&city, data, "/api/carburants.csv").text();
    assert_eq!(csv.lines().count() - 1, fuel["prices"].as_array().unwrap().len());
    assert!(csv.lines().all(|l| l.split(';').count() == 6));
}

#[test]
fn rights_files_and_headers() {
    let city = city();
    let no = city.site_index("schaubude-lindenau").unwrap();
    let robots = get(&city, no, "/robots.txt").text();
    assert!(robots.contains("User-agent: gleaner\nDisallow: /\n"), "{robots}");
    let named = City2::token_city();
    assert!(get(&named, no, "/robots.txt").text().contains("User-agent: FestroBot\n"));

    let tdm = city.site_index("mediatheque-aube").unwrap();
    let r = get(&city, tdm, "/");
    assert_eq!(r.header_value("tdm-reservation"), Some("1"));
    let file: serde_json::Value =
        serde_json::from_slice(&get(&city, tdm, "/.well-known/tdmrep.json").body).unwrap();
    assert_eq!(file[0]["tdm-reservation"], 1);

    let noai = city.site_index("griffintown-gallery").unwrap();
    let r = get(&city, noai, "/");
    assert_eq!(r.header_value("x-robots-tag"), Some("noai, noimageai"));
    assert!(r.text().contains("content=\"noai, noimageai\""));
    assert!(get(&city, noai, "/ai.txt").text().contains("Disallow: /"));

    let press = city.index_of_role(Role::PressAgency).unwrap();
    let page = get(&city, press, "/presse/").text();
    assert!(page.contains("Conditions d'utilisation des images"));
    assert!(get(&city, press, "/conditions.html").status == 200);
    let file: serde_json::Value =
        serde_json::from_slice(&get(&city, press, "/.well-known/tdmrep.json").body).unwrap();
    assert_eq!(file.as_array().unwrap().len(), 2);
    assert_eq!(get(&city, 0, "/ai.txt").status, 404);
}

struct City2;
impl City2 {
    fn token_city() -> gleaner_samplecity::City {
        gleaner_samplecity::City::generate(7, now()).with_token("FestroBot")
    }
}

#[test]
fn validators_answer_304_and_content_is_deterministic() {
    let city = city();
    let a = get(&city, 0, "/etkinlikler/");
    let etag = a.header_value("etag").unwrap().to_owned();
    assert!(a.header_value("last-modified").is_some());
    let mut headers = HeaderMap::new();
    headers.insert("if-none-match", etag.parse().unwrap());
    let req = gleaner_samplecity::Request::get("/etkinlikler/", &headers);
    let r = city.respond(&origins(&city), 0, 0, &req);
    assert_eq!(r.status, 304);
    assert!(r.body.is_empty());
    let again = gleaner_samplecity::City::generate(7, now());
    assert_eq!(get(&again, 0, "/etkinlikler/").body, a.body);
}

#[test]
fn the_language_model_mock_answers_with_scripted_json() {
    let city = city();
    let o = origins(&city);
    let llm = city.index_of_role(Role::LanguageModel).unwrap();
    let e = &city.venue_events(0, 0)[0];
    let body = serde_json::json!({
        "model": "any",
        "messages": [
            {"role": "system", "content": "Extract events as JSON."},
            {"role": "user", "content": format!("<html><h1>{}</h1></html>", e.title)},
        ]
    })
    .to_string();
    let headers = HeaderMap::new();
    let req = gleaner_samplecity::Request {
        method: "POST",
        path: "/v1/chat/completions",
        query: None,
        headers: &headers,
        body: body.as_bytes(),
        moment: Default::default(),
    };
    let r = city.respond(&o, llm, 0, &req);
    assert_eq!(r.status, 200);
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    let content: serde_json::Value =
        serde_json::from_str(v["choices"][0]["message"]["content"].as_str().unwrap()).unwrap();
    assert!(content["events"].as_array().unwrap().iter().any(|x| x["title"] == e.title.as_str()));
    let bad = gleaner_samplecity::Request { body: b"nope", ..req };
    assert_eq!(city.respond(&o, llm, 0, &bad).status, 400);
}

#[test]
fn seeds_cover_every_crawlable_site_and_answer() {
    let city = city();
    let o = origins(&city);
    let seeds = city.seeds(&o);
    for seed in &seeds {
        let path = path_of(&seed.url);
        let r = if seed.kind == SeedKind::LicensedApi {
            get(&city, seed.site, &format!("{path}?apikey={}", city.api_key()))
        } else {
            get(&city, seed.site, path)
        };
        assert_eq!(r.status, 200, "{}", seed.url);
    }
    let sites: std::collections::BTreeSet<_> = seeds.iter().map(|s| s.site).collect();
    assert_eq!(sites.len(), city.len() - 1, "all but the language model");
    assert_eq!(city.sites().iter().filter(|s| s.is_venue()).count(), 20);
}

/// Every same-site URL a crawler finds from the seeds, following `href`s and sitemap
/// `<loc>`s (images left out).
fn reachable(city: &gleaner_samplecity::City, site: usize) -> std::collections::BTreeSet<String> {
    let o = origins(city);
    let origin = o.origin(site).to_owned();
    let mut todo: Vec<String> = city
        .seeds(&o)
        .into_iter()
        .filter(|s| s.site == site)
        .map(|s| path_of(&s.url).to_owned())
        .collect();
    todo.push("/".to_owned());
    let mut seen = std::collections::BTreeSet::new();
    while let Some(path) = todo.pop() {
        if path.starts_with("/img/") || !seen.insert(path.clone()) {
            continue;
        }
        let r = get(city, site, &path);
        let mut body = r.text();
        if path.ends_with(".gz") {
            body.clear();
            flate2::read::GzDecoder::new(&r.body[..]).read_to_string(&mut body).unwrap();
        }
        for (open, close) in [("href=\"", "\""), ("<loc>", "</loc>"), ("<link>", "</link>")] {
            for piece in body.split(open).skip(1) {
                let link = piece.split(close).next().unwrap();
                let link = link.strip_prefix(&origin).unwrap_or(link);
                if link.starts_with('/') && !link.starts_with("//") {
                    todo.push(link.replace("&amp;", "&"));
                }
            }
        }
    }
    seen
}

#[test]
fn every_site_is_small_enough_to_crawl_in_a_minute_politely() {
    let city = city();
    for (i, site) in city.sites().iter().enumerate() {
        let pages = reachable(&city, i);
        assert!(pages.len() <= 30, "{} has {} pages: {pages:?}", site.key, pages.len());
        if site.is_venue() {
            for e in city.venue_events(i, 0) {
                assert!(pages.contains(&e.path), "{} unreachable", e.path);
            }
        }
    }
}
