//! Site rules and the fallback on the sample city's five venues without structured data
//! (one per language): with rules every event of the ground truth is read from its page
//! with the truth's start, venue, locality and price, and the listings give the event
//! links and the next page; without rules the fallback never gives a wrong date, and reads
//! a listing's items only as the ground truth has them.

use std::sync::Arc;

use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::rules::{RuleBook, RulesFile};
use gleaner_extract::{ExtractOptions, extract_events_with};
use gleaner_samplecity::{City, Markup, Origins, Request};
use rust_decimal::Decimal;
use url::Url;

/// The rules `gleaner demo` writes for a plain venue (see `gleaner-cli` `cmd/demo.rs`).
fn rules_for(origin: &str, lang: &str, zone: &str, currency: &str) -> String {
    format!(
        "[[site_rules]]\nsite = \"{origin}\"\nitem = \"tr.event-row, article.event-card\"\ntitle = \".event-title\"\n\
         date = \".event-date time\"\nvenue = \".event-venue span\"\naddress = \".event-address\"\nprice = \".event-price\"\n\
         link = \".event-title a\"\nimage = \"img.event-image\"\ndescription = \".event-description\"\n\
         status = {{ selector = \".event-status\", regex = \"(?:[^:]*:)?\\\\s*(.+)\" }}\nnext_page = \"a[rel=next]\"\n\
         language = \"{lang}\"\ntime_zone = \"{zone}\"\ncurrency = \"{currency}\"\n"
    )
}

fn get(city: &City, origins: &Origins, site: usize, url: &str) -> String {
    let path = url.strip_prefix(origins.origin(site)).unwrap();
    let headers = http::HeaderMap::new();
    let reply = city.respond(origins, site, 0, &Request::get(path, &headers));
    assert_eq!(reply.status, 200, "{url}");
    reply.text()
}

#[test]
fn plain_venues_are_read_by_their_rules_and_never_misdated_by_the_fallback() {
    let now = chrono::Utc::now();
    let city = City::generate(7, now);
    let origins = Origins::on_port(city.len(), 8080);
    let truth = city.ground_truth(&origins, 0);
    let reference = Some(now.date_naive());
    let plain = city.venues_with(Markup::Plain);
    assert_eq!(plain.len(), 5, "five plain venues, one per language");
    let (mut read, mut fallback_read, mut listing_read) = (0, 0, 0);
    for &site in &plain {
        let s = city.site(site);
        let text = rules_for(origins.origin(site), s.lang.code(), s.zone.name(), s.currency);
        let file: RulesFile = toml::from_str(&text).unwrap();
        let book = RuleBook::compile(&file.site_rules).unwrap();
        // The listing: links to every event page listed, and the next page.
        let listing = origins.url(site, s.lang.listing_path());
        let base = Url::parse(&listing).unwrap();
        let rules = book.for_url(&base).expect("rules for the venue's site");
        let opts = ExtractOptions {
            rules: Some(Arc::clone(&rules)),
            reference_date: reference,
            ..ExtractOptions::default()
        };
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let out = extract_events_with(
            get(&city, &origins, site, &listing).as_bytes(),
            "text/html",
            &ctx,
            &opts,
        );
        assert!(!out.links.is_empty(), "{}: the listing's items link to their pages", s.key);
        assert_eq!(out.events.len(), out.links.len(), "{}: every item has a date", s.key);
        for link in &out.links {
            assert!(link.as_str().starts_with(origins.origin(site)), "{link}");
        }
        // Every kept event of the venue, read from its page.
        for t in truth.of_site(site) {
            let base = Url::parse(&t.url).unwrap();
            let ctx = NormaliseContext { base_url: &base, default_tz: None };
            let page = get(&city, &origins, site, &t.url);
            let out = extract_events_with(page.as_bytes(), "text/html", &ctx, &opts);
            assert_eq!(out.events.len(), 1, "{}: {:?}", t.url, out.diagnostics);
            let e = PublicEvent::from(&out.events[0]);
            let e = serde_json::to_value(&e).unwrap();
            assert_eq!(e["title"], t.title.as_str(), "{}", t.url);
            let start =
                gleaner_event::time::parse_event_time(e["start"].as_str().unwrap()).unwrap();
            assert_eq!(
                start,
                gleaner_event::EventTime::Fixed(t.start),
                "{} ({}): start",
                t.url,
                s.lang.code()
            );
            assert_eq!(e["venue_name"], t.venue.as_str(), "{}", t.url);
            assert_eq!(e["locality"], t.locality.as_str(), "{}: locality", t.url);
            let dec = |v: &serde_json::Value| v.as_str().map(|s| s.parse::<Decimal>().unwrap());
            let want = |v: &Option<String>| v.as_deref().map(|s| s.parse::<Decimal>().unwrap());
            if t.is_free {
                assert_eq!(e["is_free"], true, "{}", t.url);
            } else {
                assert_eq!(dec(&e["price_min"]), want(&t.price_min), "{}: price_min", t.url);
                assert_eq!(dec(&e["price_max"]), want(&t.price_max), "{}: price_max", t.url);
                assert_eq!(e["currency"].as_str(), t.currency.as_deref(), "{}", t.url);
            }
            read += 1;

            // Without rules: the fallback reads the page, and never with a wrong date.
            let fb = ExtractOptions {
                fallback: true,
                reference_date: reference,
                ..ExtractOptions::default()
            };
            let out = extract_events_with(page.as_bytes(), "text/html", &ctx, &fb);
            fallback_read += out.events.len();
            for ev in &out.events {
                let got = ev.start.unwrap().date();
                assert_eq!(got, t.start.date_naive(), "{}: fallback date", t.url);
            }
            assert!(
                out.diagnostics.iter().any(|d| d.message.contains("low confidence") || d.message.contains("no event")),
                "the fallback says what it did: {:?}",
                out.diagnostics
            );
        }
        // The listing is not one event to the fallback; its listing reader may read the
        // items, and then each exactly as the ground truth has it (its page, title and
        // start), a called-off one with its status, never as scheduled.
        let fb = ExtractOptions {
            fallback: true,
            reference_date: reference,
            ..ExtractOptions::default()
        };
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let out = extract_events_with(
            get(&city, &origins, site, &listing).as_bytes(),
            "text/html",
            &ctx,
            &fb,
        );
        for ev in &out.events {
            let url = ev.url.as_ref().map(Url::as_str);
            let t = truth
                .of_site(site)
                .find(|t| Some(t.url.as_str()) == url)
                .unwrap_or_else(|| panic!("{}: the fallback read {ev:?} from the listing", s.key));
            assert_eq!(ev.title.as_deref(), Some(t.title.as_str()), "{}: listing title", t.url);
            assert_eq!(
                ev.start,
                Some(gleaner_event::EventTime::Fixed(t.start)),
                "{}: listing start",
                t.url
            );
            // A called-off item carries the status its listing prints (issue 24).
            let called_off = match t.status {
                gleaner_samplecity::Status::Cancelled => {
                    Some(gleaner_event::EventStatus::Cancelled)
                }
                gleaner_samplecity::Status::Postponed => {
                    Some(gleaner_event::EventStatus::Postponed)
                }
                _ => None,
            };
            if let Some(status) = called_off {
                assert!(
                    ev.status_stated && ev.status == status,
                    "{}: called off, read as {:?}",
                    t.url,
                    ev.status
                );
            }
            listing_read += 1;
        }
    }
    assert!(read >= 10, "events read with rules: {read}");
    // Positive control: the fallback does read these pages (their `<time>` and `<h1>`).
    assert!(fallback_read * 2 >= read, "the fallback read {fallback_read} of {read} pages");
    // And its listing reader reads the listings' items (their `<time>` and title links).
    assert!(listing_read >= 5, "the fallback read {listing_read} listing items");
}

mod props {
    use gleaner_event::NormaliseContext;
    use gleaner_extract::ExtractOptions;
    use gleaner_extract::rules::{FieldRule, SiteRules};
    use proptest::prelude::*;
    use url::Url;

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("<article>".to_owned()),
            Just("</article>".to_owned()),
            Just("<tr><td>".to_owned()),
            Just("<h1>".to_owned()),
            Just("<h3>Monday November 10</h3>".to_owned()),
            Just("<time datetime=\"2026-12-05T20:00\">".to_owned()),
            Just("</time>".to_owned()),
            Just("<p class=\"date\">5 décembre 2026 à 20h</p>".to_owned()),
            Just("<span class=\"price\">12,50 €</span>".to_owned()),
            Just("<a href=\"/e/1\">".to_owned()),
            Just("<a rel=next href=\"?page=2\">".to_owned()),
            Just("<address>1 rue X, 75001 Paris</address>".to_owned()),
            Just("<p>Lieu : Salle</p>".to_owned()),
            "[ -~]{0,12}",
            "\\PC{0,6}",
        ]
    }

    proptest! {
        /// Rules and the fallback never panic on any page, and never date an event from a
        /// page without a digit.
        #[test]
        fn rules_and_fallback_never_panic(parts in proptest::collection::vec(fragment(), 0..40)) {
            let page = parts.concat();
            let field = |s: &str| Some(FieldRule { selector: s.to_owned(), ..FieldRule::default() });
            let rules = SiteRules {
                site: "fuzz.example".into(),
                item: Some("article, tr".into()),
                title: field("h1, a"),
                date: field("time, .date, td"),
                time: Some(FieldRule { selector: "p".into(), regex: Some("(\\d+[:h]\\d*)".into()), ..FieldRule::default() }),
                price: field(".price"),
                link: field("a"),
                date_heading: Some("h3".into()),
                next_page: Some("a[rel=next]".into()),
                ..SiteRules::default()
            }
            .compile()
            .unwrap();
            let base = Url::parse("https://fuzz.example/agenda/").unwrap();
            let ctx = NormaliseContext { base_url: &base, default_tz: None };
            let reference = chrono::NaiveDate::from_ymd_opt(2026, 11, 30);
            let opts = ExtractOptions { rules: Some(std::sync::Arc::new(rules)), reference_date: reference, ..ExtractOptions::default() };
            let out = gleaner_extract::extract_events_with(page.as_bytes(), "text/html", &ctx, &opts);
            let fb = ExtractOptions { fallback: true, reference_date: reference, ..ExtractOptions::default() };
            let fallback = gleaner_extract::extract_events_with(page.as_bytes(), "text/html", &ctx, &fb);
            if !page.bytes().any(|b| b.is_ascii_digit()) {
                prop_assert!(out.events.iter().chain(&fallback.events).all(|e| e.start.is_none()));
            }
        }
    }
}
