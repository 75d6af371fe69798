//! `gleaner extract`: the stable contract (SPEC §6, issue 8).

use std::time::Duration;

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
    // The page states no status: null, not a default (issue 24).
    assert_eq!(e["status"], Value::Null);
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
    let shown: Vec<(&str, Option<&str>)> =
        printed.iter().map(|e| (e["start"].as_str().unwrap(), e["status"].as_str())).collect();
    assert_eq!(
        shown,
        [("2020-01-28T22:00:00+01:00", None), ("2020-01-29T22:00:00+01:00", Some("cancelled"))]
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
    let shown: Vec<(&str, Option<&str>)> =
        printed.iter().map(|e| (e["start"].as_str().unwrap(), e["status"].as_str())).collect();
    assert_eq!(
        shown,
        [
            ("2020-01-28T22:00:00+01:00", None),
            ("2020-01-29T22:00:00+01:00", Some("cancelled")),
            ("2020-01-30T22:00:00+01:00", None)
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

/// The rules `gleaner demo` writes for a sample-city venue without structured data.
fn sample_rules(origin: &str, lang: &str, zone: &str, currency: &str) -> String {
    format!(
        "[[site_rules]]\nsite = \"{origin}\"\nitem = \"tr.event-row, article.event-card\"\ntitle = \".event-title\"\n\
         date = \".event-date time\"\nvenue = \".event-venue span\"\naddress = \".event-address\"\nprice = \".event-price\"\n\
         link = \".event-title a\"\nimage = \"img.event-image\"\ndescription = \".event-description\"\n\
         status = {{ selector = \".event-status\", regex = \"(?:[^:]*:)?\\\\s*(.+)\" }}\nnext_page = \"a[rel=next]\"\n\
         language = \"{lang}\"\ntime_zone = \"{zone}\"\ncurrency = \"{currency}\"\n"
    )
}

#[test]
fn rules_read_a_page_without_structured_data_and_bad_rules_are_exit_2() {
    use gleaner_samplecity::{City, Markup, Origins, Request};
    let city = City::generate(7, chrono::Utc::now());
    let origins = Origins::on_port(city.len(), 8080);
    let truth = city.ground_truth(&origins, 0);
    let site = city.venues_with(Markup::Plain)[0];
    let s = city.site(site);
    let t = truth.of_site(site).next().expect("a kept event");
    let headers = http_headers();
    let path = t.url.strip_prefix(origins.origin(site)).unwrap();
    let page = temp_file(&city.respond(&origins, site, 0, &Request::get(path, &headers)).body);
    let page = page.path().to_str().unwrap().to_owned();
    let rules = temp_file(
        sample_rules(origins.origin(site), s.lang.code(), s.zone.name(), s.currency).as_bytes(),
    );
    let rules = rules.path().to_str().unwrap().to_owned();

    // Positive control: without rules or the fallback, no structured data, no event.
    let plain = gleaner(&["extract", "--url", &t.url, "--no-fallback", &page], "");
    assert_eq!(plain.code, Some(0), "{}", plain.stderr);
    assert!(events(&plain.stdout).is_empty(), "{}", plain.stdout);

    let run = gleaner(&["extract", "--url", &t.url, "--rules", &rules, &page], "");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let got = events(&run.stdout);
    assert_eq!(got.len(), 1, "{}", run.stdout);
    let e = got[0].as_object().unwrap();
    let mut keys: Vec<&str> = e.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let mut want = KEYS.to_vec();
    want.sort_unstable();
    assert_eq!(keys, want, "the same contract as without rules");
    assert_eq!(e["title"], t.title.as_str());
    let start = gleaner_event::time::parse_event_time(e["start"].as_str().unwrap()).unwrap();
    assert_eq!(start, gleaner_event::EventTime::Fixed(t.start));
    assert_eq!(e["venue_name"], t.venue.as_str());

    // The fallback (on by default) reads it too, and says it is low confidence.
    let fb = gleaner(&["extract", "--url", &t.url, &page], "");
    assert_eq!(fb.code, Some(0), "{}", fb.stderr);
    assert!(fb.stderr.contains("low confidence"), "{}", fb.stderr);
    for e in events(&fb.stdout) {
        let start = gleaner_event::time::parse_event_time(e["start"].as_str().unwrap()).unwrap();
        assert_eq!(start.date(), t.start.date_naive(), "the fallback's date is the page's");
    }

    // Bad rules: exit 2, naming the key and how to fix it.
    let bad =
        temp_file(b"[[site_rules]]\nsite = \"venue.example\"\ndate = { selector = \"time[\" }\n");
    let run =
        gleaner(&["extract", "--url", &t.url, "--rules", bad.path().to_str().unwrap(), &page], "");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("`site_rules[0].date.selector`"), "{}", run.stderr);
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    let typo =
        temp_file(b"[[site_rules]]\nsite = \"venue.example\"\ndate = \"time\"\ntitel = \"h1\"\n");
    let run =
        gleaner(&["extract", "--url", &t.url, "--rules", typo.path().to_str().unwrap(), &page], "");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("unknown field `titel`") && run.stderr.contains(":4"),
        "{}",
        run.stderr
    );
    // Rules for another site do not apply, and say so.
    let run =
        gleaner(&["extract", "--url", "https://elsewhere.example/x", "--rules", &rules, &page], "");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("no rules in"), "{}", run.stderr);
}

fn http_headers() -> http::HeaderMap {
    http::HeaderMap::new()
}

/// `gleaner crawl` of the sample city's five venues without structured data: with the
/// rules the demo writes, every event of the ground truth is stored with its start, venue,
/// locality and price; without rules, the fallback stores no event with a wrong date.
#[tokio::test(flavor = "multi_thread")]
async fn crawl_stores_the_plain_venues_events_with_rules_and_no_wrong_date_without() {
    use gleaner_samplecity::{Markup, SeedKind};
    use gleaner_testweb::{Manifest, TestWeb};
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let plain = city.city.venues_with(Markup::Plain);
    let truth = web.ground_truth().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = |db: &std::path::Path, with_rules: bool| {
        let mut text = format!(
            "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
             [politeness]\ngap = \"40ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n",
            db.display()
        );
        for seed in city.city.seeds(&city.origins) {
            if seed.kind != SeedKind::Listing || !plain.contains(&seed.site) {
                continue;
            }
            let s = city.city.site(seed.site);
            let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
            text.push_str(&format!(
                "\n[[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\nkeep = \"full\"\nmax_event_pages = 30\n",
                s.key, seed.url
            ));
            if with_rules {
                text.push('\n');
                text.push_str(&sample_rules(
                    city.origins.origin(seed.site),
                    s.lang.code(),
                    s.zone.name(),
                    s.currency,
                ));
            }
        }
        text
    };
    let stored = |db: std::path::PathBuf| async move {
        let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
        let year = Duration::from_secs(366 * 24 * 3600);
        let now = std::time::SystemTime::now();
        store.events_between(now - 2 * year, now + 2 * year).await.unwrap()
    };
    let wanted: Vec<_> = truth.events.iter().filter(|t| plain.contains(&t.site)).cloned().collect();
    assert!(wanted.len() >= 10, "the plain venues keep events: {}", wanted.len());

    for with_rules in [true, false] {
        let db = dir.path().join(format!("rules-{with_rules}.db"));
        let path = dir.path().join(format!("rules-{with_rules}.toml"));
        std::fs::write(&path, config(&db, with_rules)).unwrap();
        let args = ["--config".to_owned(), path.to_str().unwrap().to_owned(), "crawl".to_owned()];
        let run = tokio::time::timeout(
            Duration::from_secs(120),
            tokio::task::spawn_blocking(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                gleaner(&args, "")
            }),
        )
        .await
        .expect("bounded")
        .unwrap();
        assert_eq!(run.code, Some(0), "{}\n{}", run.stdout, run.stderr);
        let events = stored(db).await;
        let by_url = |u: &str| -> Vec<&gleaner_store::StoredEvent> {
            events
                .iter()
                .filter(|e| e.event.url.as_ref().is_some_and(|x| x.as_str() == u))
                .collect()
        };
        if with_rules {
            for t in &wanted {
                let found = by_url(&t.url);
                assert_eq!(
                    found.len(),
                    1,
                    "{}: stored once with rules ({} stored)",
                    t.url,
                    events.len()
                );
                let e = &found[0].event;
                assert_eq!(e.title.as_deref(), Some(t.title.as_str()), "{}", t.url);
                assert_eq!(e.start, Some(gleaner_event::EventTime::Fixed(t.start)), "{}", t.url);
                assert_eq!(e.venue.name.as_deref(), Some(t.venue.as_str()), "{}", t.url);
                assert_eq!(e.venue.locality.as_deref(), Some(t.locality.as_str()), "{}", t.url);
                if t.is_free {
                    assert_eq!(e.price.is_free, Some(true), "{}", t.url);
                } else {
                    let dec = |v: &Option<String>| v.as_deref().map(|s| s.parse().unwrap());
                    assert_eq!(e.price.min, dec(&t.price_min), "{}", t.url);
                    assert_eq!(e.price.max, dec(&t.price_max), "{}", t.url);
                    assert_eq!(e.price.currency.as_deref(), t.currency.as_deref(), "{}", t.url);
                }
            }
            assert_eq!(
                events.len(),
                wanted.len(),
                "no extra events (listing items are read on their pages)"
            );
        } else {
            // Positive control: the event pages were read.
            let ledger = web.ledger();
            let site = wanted[0].site;
            let path = wanted[0].url.strip_prefix(city.origins.origin(site)).unwrap();
            ledger.expect_fetched(site, path).unwrap();
            for e in &events {
                let url = e.event.url.as_ref().map(url::Url::as_str).unwrap_or_default();
                let t = wanted.iter().find(|t| t.url == url);
                let t = t.unwrap_or_else(|| panic!("the fallback stored an event from `{url}`"));
                assert_eq!(
                    e.event.start.unwrap().date(),
                    t.start.date_naive(),
                    "{url}: wrong date"
                );
            }
        }
    }
    web.ledger().check_robots_first().unwrap();
    web.shutdown().await;
}

/// `gleaner extract URL`: the page is fetched once through the gate (robots.txt first) and
/// read with the config's `[[site_rules]]` for its site; a site that says no is exit 3.
#[tokio::test(flavor = "multi_thread")]
async fn a_url_is_fetched_politely_and_read_with_the_configs_rules() {
    use gleaner_samplecity::{Markup, Refusal};
    use gleaner_testweb::{Manifest, TestWeb};
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let truth = web.ground_truth().unwrap();
    let site = city.city.venues_with(Markup::Plain)[1];
    let s = city.city.site(site);
    let t = truth.of_site(site).next().expect("a kept event").clone();
    let refusing = (0..city.city.len())
        .find(|&i| city.city.site(i).refusal == Some(Refusal::RobotsDisallowAll))
        .expect("a venue that disallows the bot");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gleaner.toml");
    std::fs::write(
        &config,
        format!(
            "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
             [network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n{}",
            dir.path().join("g.db").display(),
            sample_rules(city.origins.origin(site), s.lang.code(), s.zone.name(), s.currency)
        ),
    )
    .unwrap();
    let config = config.to_str().unwrap().to_owned();
    let run_blocking = |args: Vec<String>| {
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            gleaner(&args, "")
        })
    };
    let run = tokio::time::timeout(
        Duration::from_secs(60),
        run_blocking(vec!["--config".into(), config.clone(), "extract".into(), t.url.clone()]),
    )
    .await
    .expect("bounded")
    .unwrap();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let got = events(&run.stdout);
    assert_eq!(got.len(), 1, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(got[0]["title"], t.title.as_str());
    let start = gleaner_event::time::parse_event_time(got[0]["start"].as_str().unwrap()).unwrap();
    assert_eq!(start, gleaner_event::EventTime::Fixed(t.start));
    let ledger = web.ledger();
    ledger.check_robots_first().unwrap();
    let path = t.url.strip_prefix(city.origins.origin(site)).unwrap();
    assert_eq!(ledger.count(site, path), 1, "the page is fetched once");

    // A site whose robots.txt says no: exit 3, the page never requested.
    let page = city.origins.url(refusing, "/");
    let run = tokio::time::timeout(
        Duration::from_secs(60),
        run_blocking(vec!["--config".into(), config, "extract".into(), page]),
    )
    .await
    .expect("bounded")
    .unwrap();
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    assert_eq!(web.ledger().count(refusing, "/"), 0, "{}", run.stderr);
    assert!(
        web.ledger().count(refusing, "/robots.txt") >= 1,
        "positive control: robots.txt was asked"
    );
    web.shutdown().await;
}

#[test]
fn config_check_names_the_line_key_and_fix_of_bad_site_rules() {
    let bot = "[bot]\ntoken = \"X\"\ninfo_url = \"https://x.example/bot\"\noperator = \"X\"\n";
    let good =
        format!("{bot}\n{}", sample_rules("https://venue.example", "fr", "Europe/Paris", "EUR"));
    let file = temp_file(good.as_bytes());
    let run = gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(0), "positive control: the demo's rules are valid: {}", run.stderr);
    let bad = format!(
        "{bot}\n[[site_rules]]\nsite = \"venue.example\"\nitem = \"div[\"\ndate = {{ selector = \"time\", regex = \"(\" }}\n"
    );
    let file = temp_file(bad.as_bytes());
    let run = gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(":8:8: `site_rules[0].item`: `div[` is not a CSS selector"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`site_rules[0].date.regex`"), "{}", run.stderr);
    assert!(run.stderr.contains("hint:"), "{}", run.stderr);
    let typo = format!(
        "{bot}\n[[site_rules]]\nsite = \"venue.example\"\ndate = \"time\"\nvenu = \".venue\"\n"
    );
    let file = temp_file(typo.as_bytes());
    let run = gleaner(&["config", "check", file.path().to_str().unwrap()], "");
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains(":9:") && run.stderr.contains("unknown field `venu`"),
        "{}",
        run.stderr
    );
}
