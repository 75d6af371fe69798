//! The language model end to end through the real `gleaner crawl` (issue 18), against the
//! sample city's mock provider on loopback: the plain venues' pages (no structured data)
//! read with `llm = "fallback"`, every stored fact checked against the ground truth,
//! the model and prompt version in each event's provenance, titles translated into
//! English beside the originals, tokens counted, and `gleaner remove` taking the
//! translation cache rows with the site's events.

use std::path::Path;
use std::time::{Duration, SystemTime};

use gleaner_samplecity::{Lang, Markup, Role, SeedKind};
use gleaner_testweb::{Manifest, TestWeb};

use crate::util::{Run, gleaner};

async fn run(args: Vec<String>) -> Run {
    tokio::time::timeout(
        Duration::from_secs(180),
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            gleaner(&args, "")
        }),
    )
    .await
    .expect("bounded")
    .unwrap()
}

/// Every text cell of every table of a SQLite file that contains `needle`, as
/// `table: value`.
fn cells_containing(db: &Path, needle: &str) -> Vec<String> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut found = Vec::new();
    for table in tables {
        let mut st = conn.prepare(&format!("SELECT * FROM \"{table}\"")).unwrap();
        let columns = st.column_count();
        let mut rows = st.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for c in 0..columns {
                if let Ok(Some(text)) = row.get::<_, Option<String>>(c)
                    && text.contains(needle)
                {
                    found.push(format!("{table}: {text}"));
                }
            }
        }
    }
    found
}

fn count(db: &Path, sql: &str) -> i64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn crawl_reads_plain_pages_with_the_model_translates_and_removal_takes_the_cache() {
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let plain = city.city.venues_with(Markup::Plain);
    let model_site = (0..city.city.sites().len())
        .find(|&i| city.city.site(i).role == Role::LanguageModel)
        .expect("the city has a mock language model");
    let truth = web.ground_truth().unwrap();
    let wanted: Vec<_> = truth.events.iter().filter(|t| plain.contains(&t.site)).cloned().collect();
    assert!(wanted.len() >= 10, "the plain venues keep events: {}", wanted.len());

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let mut config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [[infrastructure]]\nname = \"city-llm\"\nurl = \"{}/v1/\"\nallow = [\"127.0.0.0/8\"]\ntimeout = \"20s\"\n\n\
         [llm]\nendpoint = \"city-llm\"\nmodel = \"sample-city-mock\"\nrequests_per_minute = 6000\n",
        db.display(),
        city.origins.origin(model_site)
    );
    for seed in city.city.seeds(&city.origins) {
        if seed.kind != SeedKind::Listing || !plain.contains(&seed.site) {
            continue;
        }
        let s = city.city.site(seed.site);
        let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
        config.push_str(&format!(
            "\n[[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\n\
             keep = \"full\"\nmax_event_pages = 30\nllm = \"fallback\"\ntranslate = true\ntime_zone = \"{}\"\n",
            s.key,
            seed.url,
            s.zone.name()
        ));
    }
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, &config).unwrap();
    let config_arg = config_path.to_str().unwrap().to_owned();

    let crawl = run(vec!["--config".into(), config_arg.clone(), "crawl".into()]).await;
    assert_eq!(crawl.code, Some(0), "{}\n{}", crawl.stdout, crawl.stderr);

    // Positive control: the model was asked, on its own host, with POSTs only; the
    // provider is infrastructure, so no robots.txt was read there.
    let ledger = web.ledger();
    let asked: Vec<_> = ledger.site(model_site).collect();
    assert!(!asked.is_empty(), "the mock model got no request\n{}", crawl.stderr);
    assert!(asked.iter().all(|e| e.method == "POST" && e.path == "/v1/chat/completions"));

    let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
    let year = Duration::from_secs(366 * 24 * 3600);
    let now = SystemTime::now();
    let events = store.events_between(now - 2 * year, now + 2 * year).await.unwrap();
    // Every stored fact is the page's: no invented event, date, place or price.
    for e in &events {
        let url = e.event.url.as_ref().map(url::Url::as_str).unwrap_or_default();
        let t = wanted
            .iter()
            .find(|t| t.url == url)
            .unwrap_or_else(|| panic!("an event not on any plain venue's page: `{url}`"));
        assert_eq!(e.event.title.as_deref(), Some(t.title.as_str()), "{url}");
        let start = e.event.start.expect("a start");
        assert_eq!(start.date(), t.start.date_naive(), "{url}: wrong date");
        if let gleaner_event::EventTime::Fixed(dt) = start {
            assert_eq!(dt, t.start, "{url}: a stated time is the page's");
        }
        if let Some(venue) = &e.event.venue.name {
            assert_eq!(venue, &t.venue, "{url}");
        }
        if e.event.price.min.is_some() {
            let dec = |v: &Option<String>| v.as_deref().map(|s| s.parse().unwrap());
            assert_eq!(e.event.price.min, dec(&t.price_min), "{url}");
            assert_eq!(e.event.price.currency.as_deref(), t.currency.as_deref(), "{url}");
        }
    }
    // One event per page: a less precise copy the model gave too is not stored.
    for e in &events {
        let url = e.event.url.as_ref();
        assert_eq!(events.iter().filter(|o| o.event.url.as_ref() == url).count(), 1, "{url:?}");
    }
    // Most of the plain venues' events were found by the model (the rest are listed).
    assert!(
        events.len() * 2 >= wanted.len(),
        "{} of {} events stored\n{}",
        events.len(),
        wanted.len(),
        crawl.stderr
    );

    // Provenance, translation side by side with the original.
    let mut translated = 0;
    for e in &events {
        let steps = store.model_steps(e.id).await.unwrap();
        let extraction = steps.iter().find(|s| s.step == "extraction").expect("model provenance");
        assert_eq!(
            (extraction.model.as_str(), extraction.prompt_version.as_str()),
            ("sample-city-mock", "extract-v1")
        );
        let translation =
            steps.iter().find(|s| s.step == "translation").expect("a translation step");
        let site = wanted
            .iter()
            .find(|t| Some(t.url.as_str()) == e.event.url.as_ref().map(url::Url::as_str))
            .unwrap()
            .site;
        let title = e.event.title.clone().unwrap();
        match store.translation(e.id, "en").await.unwrap() {
            Some((Some(english), _)) => {
                assert_ne!(city.city.site(site).lang, Lang::En, "{title}");
                assert_eq!(english, format!("(English) {title}"));
                assert_eq!(translation.prompt_version, "translate-v1");
                translated += 1;
            }
            _ => assert_eq!(translation.model, "none", "{title}: {translation:?}"),
        }
    }
    assert!(translated > 0, "some titles were translated");
    let usage = store.llm_usage().await.unwrap();
    let extraction = usage.iter().find(|u| u.step == "extraction").unwrap();
    assert!(
        extraction.requests > 0 && extraction.prompt_tokens > 0 && extraction.completion_tokens > 0
    );
    assert!(usage.iter().any(|u| u.step == "translation" && u.requests > 0));

    // `gleaner remove` of one translated venue: no row anywhere holds its translations,
    // and the cache rows of the other venues stay (positive control).
    let mut removed_site = None;
    for e in &events {
        if store.translation(e.id, "en").await.unwrap().is_some() {
            let url = e.event.url.as_ref().map(url::Url::as_str);
            removed_site = wanted.iter().find(|t| Some(t.url.as_str()) == url).map(|t| t.site);
            break;
        }
    }
    let removed_site = removed_site.expect("a translated venue");
    let origin = city.origins.origin(removed_site).to_owned();
    let removed_titles: Vec<String> = events
        .iter()
        .filter(|e| e.event.url.as_ref().is_some_and(|u| u.as_str().starts_with(&origin)))
        .filter_map(|e| e.event.title.clone())
        .collect();
    for title in &removed_titles {
        assert!(
            !cells_containing(&db, &format!("(English) {title}")).is_empty(),
            "{title} translated before"
        );
    }
    drop(store);
    let remove =
        run(vec!["--config".into(), config_arg.clone(), "remove".into(), format!("{origin}/")])
            .await;
    assert_eq!(remove.code, Some(0), "{}\n{}", remove.stdout, remove.stderr);
    for title in &removed_titles {
        assert_eq!(
            cells_containing(&db, &format!("(English) {title}")),
            Vec::<String>::new(),
            "{title}"
        );
    }
    let kept = count(&db, "SELECT count(*) FROM translation_cache");
    assert!(kept > 0, "other venues keep their translations");
    let unused = "SELECT count(*) FROM translation_cache WHERE id NOT IN (SELECT cache_id FROM translation_uses)";
    assert_eq!(count(&db, unused), 0, "no unused cache row");
    web.shutdown().await;
}

/// Scripted misbehaviour of the city's mock model, chosen by the configured model name,
/// end to end: an answer that is not JSON stores nothing; an answer with every date a day
/// late and every price at 999 EUR stores only what the page states (a shifted date that
/// lands on another occurrence the page lists is the page's own date); the crawl says
/// why without failing; a model that always answers 429 is retried once after its
/// Retry-After and then left for a later pass; the honest mock (the positive control)
/// stores the page's events.
#[tokio::test(flavor = "multi_thread")]
async fn a_malformed_inventive_or_busy_model_stores_nothing_the_page_does_not_state() {
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let plain = city.city.venues_with(Markup::Plain);
    let model_site = (0..city.city.sites().len())
        .find(|&i| city.city.site(i).role == Role::LanguageModel)
        .unwrap();
    let seed = city
        .city
        .seeds(&city.origins)
        .into_iter()
        .find(|s| s.kind == SeedKind::Listing && plain.contains(&s.site))
        .unwrap();
    let site = city.city.site(seed.site);
    let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
    let truth = web.ground_truth().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (model, stores, says) in [
        ("mock-malformed", false, "does not fit the event schema"),
        ("mock-inventive", true, "is not in the page text"),
        ("mock-busy", false, "answered HTTP 429"),
        ("sample-city-mock", true, ""),
    ] {
        let db = dir.path().join(format!("{model}.db"));
        let config = format!(
            "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
             [politeness]\ngap = \"40ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
             [[infrastructure]]\nname = \"city-llm\"\nurl = \"{}/v1/\"\nallow = [\"127.0.0.0/8\"]\n\n\
             [llm]\nendpoint = \"city-llm\"\nmodel = \"{model}\"\nrequests_per_minute = 6000\nmax_retries = 1\n\n\
             [[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\n\
             max_event_pages = 4\nllm = \"fallback\"\ntime_zone = \"{}\"\n",
            db.display(),
            city.origins.origin(model_site),
            site.key,
            seed.url,
            site.zone.name()
        );
        let path = dir.path().join(format!("{model}.toml"));
        std::fs::write(&path, config).unwrap();
        web.clear_ledger();
        let crawl =
            run(vec!["--config".into(), path.to_str().unwrap().into(), "crawl".into()]).await;
        assert_eq!(crawl.code, Some(0), "{model}: {}\n{}", crawl.stdout, crawl.stderr);
        let ledger = web.ledger();
        let asked = ledger.site(model_site).count();
        assert!(asked > 0, "{model}: the model was asked");
        if model == "mock-busy" {
            // Each page: the request and one retry after the Retry-After, then given up.
            let pages = ledger
                .site(seed.site)
                .filter(|e| e.path.starts_with(&prefix) && e.path.ends_with(".html"))
                .count();
            assert_eq!(asked, 2 * pages, "{model}");
        }
        let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
        let year = Duration::from_secs(366 * 24 * 3600);
        let now = SystemTime::now();
        let events = store.events_between(now - 2 * year, now + 2 * year).await.unwrap();
        assert_eq!(!events.is_empty(), stores, "{model}: {events:?}\n{}", crawl.stderr);
        assert!(crawl.stderr.contains(says), "{model}: `{says}` not in\n{}", crawl.stderr);
        for e in &events {
            let url = e.event.url.as_ref().map(url::Url::as_str).unwrap_or_default();
            let t = truth.events.iter().find(|t| t.url == url).expect("an event of the page");
            assert_eq!(e.event.start.unwrap().date(), t.start.date_naive(), "{model}: {url}");
            assert!(e.event.venue.name.as_ref().is_none_or(|v| *v == t.venue), "{model}: {url}");
            assert_ne!(e.event.price.currency.as_deref(), Some("EUR"), "{model}: {url}");
        }
    }
    web.shutdown().await;
}

/// A site reserving AI use (`tdm-reservation: 1` on every page) read under
/// `on_reservation = "per-purpose"`: its pages are read for facts but never sent to the
/// model, and `gleaner audit` says why; a plain venue in the same crawl is (positive
/// control).
#[tokio::test(flavor = "multi_thread")]
async fn a_page_reserving_ai_use_is_never_sent_and_the_audit_log_says_why() {
    use gleaner_samplecity::Refusal;
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let n = city.city.sites().len();
    let model_site = (0..n).find(|&i| city.city.site(i).role == Role::LanguageModel).unwrap();
    let reserved = (0..n)
        .find(|&i| city.city.site(i).refusal == Some(Refusal::TdmReservation))
        .expect("a venue reserving TDM");
    let plain = city.city.venues_with(Markup::Plain)[0];
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let mut config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[rights]\non_reservation = \"per-purpose\"\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [[infrastructure]]\nname = \"city-llm\"\nurl = \"{}/v1/\"\nallow = [\"127.0.0.0/8\"]\n\n\
         [llm]\nendpoint = \"city-llm\"\nmodel = \"sample-city-mock\"\nrequests_per_minute = 6000\n",
        db.display(),
        city.origins.origin(model_site)
    );
    for seed in city.city.seeds(&city.origins) {
        if seed.kind != SeedKind::Listing || (seed.site != reserved && seed.site != plain) {
            continue;
        }
        let s = city.city.site(seed.site);
        let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
        config.push_str(&format!(
            "\n[[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\n\
             max_event_pages = 3\nllm = \"always\"\ntranslate = true\ntime_zone = \"{}\"\n",
            s.key,
            seed.url,
            s.zone.name()
        ));
    }
    let path = dir.path().join("gleaner.toml");
    std::fs::write(&path, &config).unwrap();
    let config_arg = path.to_str().unwrap().to_owned();
    let crawl = run(vec!["--config".into(), config_arg.clone(), "crawl".into()]).await;
    assert_eq!(crawl.code, Some(0), "{}\n{}", crawl.stdout, crawl.stderr);
    let ledger = web.ledger();
    let reserved_pages = ledger.site(reserved).filter(|e| e.path.ends_with(".html")).count();
    assert!(reserved_pages > 0, "the reserved site's pages were read for facts");
    assert!(ledger.site(model_site).count() > 0, "positive control: the model was asked");

    let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
    let year = Duration::from_secs(366 * 24 * 3600);
    let now = SystemTime::now();
    let origin = city.origins.origin(reserved).to_owned();
    let mut reserved_events = 0;
    for e in store.events_between(now - 2 * year, now + 2 * year).await.unwrap() {
        let on_reserved = e.event.url.as_ref().is_some_and(|u| u.as_str().starts_with(&origin));
        let steps = store.model_steps(e.id).await.unwrap();
        if on_reserved {
            reserved_events += 1;
            assert!(steps.iter().all(|s| s.model == "none"), "{steps:?}");
            assert!(store.translation(e.id, "en").await.unwrap().is_none());
        } else {
            assert!(steps.iter().any(|s| s.model == "sample-city-mock"), "positive control");
        }
    }
    assert!(reserved_events > 0, "the reserved site's events are kept (facts)");
    drop(store);
    let audit = run(vec!["--config".into(), config_arg, "audit".into(), origin.clone()]).await;
    assert_eq!(audit.code, Some(0), "{}", audit.stderr);
    assert!(
        audit.stdout.contains("TDMRep reservation on the page")
            && audit.stdout.contains("not sent to the language model"),
        "{}",
        audit.stdout
    );
    web.shutdown().await;
}

#[tokio::test]
async fn a_content_signal_ai_input_no_in_robots_txt_keeps_the_site_from_the_model() {
    // Issue 29: `Content-Signal: ai-input=no` in robots.txt (AI Preferences' closest
    // label is `ai-use`) keeps every page of the site from the language model; the
    // same crawl over another plain venue without the line sends its pages.
    let mut manifest = Manifest::city(7, chrono::Utc::now()).with_token("TestBot");
    let probe = TestWeb::start(manifest.clone()).await.unwrap();
    let (plains, model_site) = {
        let city = probe.city().expect("a city web");
        let n = city.city.sites().len();
        let model = (0..n).find(|&i| city.city.site(i).role == Role::LanguageModel).unwrap();
        (city.city.venues_with(Markup::Plain), model)
    };
    probe.shutdown().await;
    assert!(plains.len() >= 2, "two plain venues: {plains:?}");
    let (refusing, control) = (plains[0], plains[1]);
    manifest.sites[refusing].robots = gleaner_testweb::RobotsScenario::Custom(
        "User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-input=no, ai-train=no\n"
            .to_owned(),
    );
    let web = TestWeb::start(manifest).await.unwrap();
    let city = web.city().expect("a city web");
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let mut config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[rights]\non_reservation = \"per-purpose\"\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n\n\
         [[infrastructure]]\nname = \"city-llm\"\nurl = \"{}/v1/\"\nallow = [\"127.0.0.0/8\"]\n\n\
         [llm]\nendpoint = \"city-llm\"\nmodel = \"sample-city-mock\"\nrequests_per_minute = 6000\n",
        db.display(),
        city.origins.origin(model_site)
    );
    for seed in city.city.seeds(&city.origins) {
        if seed.kind != SeedKind::Listing || (seed.site != refusing && seed.site != control) {
            continue;
        }
        let s = city.city.site(seed.site);
        let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
        config.push_str(&format!(
            "\n[[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\n\
             max_event_pages = 3\nllm = \"always\"\ntranslate = true\ntime_zone = \"{}\"\n",
            s.key,
            seed.url,
            s.zone.name()
        ));
    }
    let path = dir.path().join("gleaner.toml");
    std::fs::write(&path, &config).unwrap();
    let config_arg = path.to_str().unwrap().to_owned();
    let crawl = run(vec!["--config".into(), config_arg.clone(), "crawl".into()]).await;
    assert_eq!(crawl.code, Some(0), "{}\n{}", crawl.stdout, crawl.stderr);
    let ledger = web.ledger();
    assert!(
        ledger.site(refusing).filter(|e| e.path.ends_with(".html")).count() > 0,
        "the refusing site's pages were read (for their facts)"
    );
    assert!(ledger.site(model_site).count() > 0, "positive control: the model was asked");

    let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
    let year = Duration::from_secs(366 * 24 * 3600);
    let now = SystemTime::now();
    let refusing_origin = city.origins.origin(refusing).to_owned();
    let control_origin = city.origins.origin(control).to_owned();
    let mut control_read = 0;
    for e in store.events_between(now - 2 * year, now + 2 * year).await.unwrap() {
        let on = |o: &str| e.event.url.as_ref().is_some_and(|u| u.as_str().starts_with(o));
        let steps = store.model_steps(e.id).await.unwrap();
        if on(&refusing_origin) {
            assert!(steps.iter().all(|s| s.model == "none"), "{steps:?}");
            assert!(store.translation(e.id, "en").await.unwrap().is_none());
        } else if on(&control_origin) && steps.iter().any(|s| s.model == "sample-city-mock") {
            control_read += 1;
        }
    }
    assert!(control_read > 0, "positive control: the other plain venue's pages reached the model");
    drop(store);
    let audit =
        run(vec!["--config".into(), config_arg.clone(), "audit".into(), refusing_origin.clone()])
            .await;
    assert_eq!(audit.code, Some(0), "{}", audit.stderr);
    assert!(
        audit.stdout.contains("robots.txt line 3 `Content-Signal: ai-input=no`")
            && audit.stdout.contains("not sent to the language model"),
        "the audit log names the rule: {}",
        audit.stdout
    );
    let page = format!("{refusing_origin}/");
    let explain = run(vec!["--config".into(), config_arg, "explain".into(), page]).await;
    assert!(
        explain.stdout.contains("ai-input")
            && explain.stdout.contains("robots.txt line 3 `Content-Signal: ai-input=no`"),
        "explain names the rule: {}",
        explain.stdout
    );
    web.shutdown().await;
}
