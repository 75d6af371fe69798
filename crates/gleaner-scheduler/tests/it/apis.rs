//! Licensed APIs and open data, read from the sample city on the test web and checked from
//! the sites' side: the licensed API gets its key and its own rate limit and is the one
//! site whose robots.txt is not asked for; open data lands in the newsroom.

use std::time::{Duration, SystemTime};

use gleaner_samplecity::SeedKind;
use gleaner_testweb::{Manifest, TestWeb};

use crate::{bounded, context_with_keys};

const LICENSED_GAP: Duration = Duration::from_millis(150);

fn config(web: &TestWeb) -> (String, usize, usize) {
    let city = web.city().expect("a city web");
    let seeds = city.city.seeds(&city.origins);
    let licensed = seeds.iter().find(|s| s.kind == SeedKind::LicensedApi).expect("a licensed API");
    let vigilance = seeds
        .iter()
        .find(|s| s.kind == SeedKind::OpenDataJson && s.url.ends_with("vigilance.json"))
        .expect("weather warnings");
    let fuel = seeds.iter().find(|s| s.kind == SeedKind::OpenDataCsv).expect("fuel prices");
    let text = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[rights]\nread_files = true\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [[sources]]\nid = \"ticketing\"\nkind = \"licensed-api\"\nstart_urls = [\"{licensed}\"]\nkeep = \"full\"\n\
         api_key_env = \"TEST_TICKETING_KEY\"\napi_gap = \"{gap}ms\"\npage_param = \"page\"\ntotal_pages = \"/page/totalPages\"\n\
         [sources.api]\nevents = \"/_embedded/events\"\nid = \"/id\"\ntitle = \"/name\"\nurl = \"/url\"\n\
         start = \"/dates/start/dateTime\"\nvenue = \"/_embedded/venues/0\"\nvenue_name = \"/name\"\nlocality = \"/city/name\"\n\
         price_min = \"/priceRanges/0/min\"\ncurrency = \"/priceRanges/0/currency\"\n\n\
         [[sources]]\nid = \"ticketing-without-key\"\nkind = \"licensed-api\"\nstart_urls = [\"{licensed}\"]\n\
         api_key_env = \"TEST_UNSET_KEY\"\n[sources.api]\nevents = \"/_embedded/events\"\ntitle = \"/name\"\nstart = \"/dates/start/dateTime\"\n\n\
         [[sources]]\nid = \"vigilance\"\nkind = \"open-data\"\nstart_urls = [\"{vigilance}\"]\nkeep = \"full\"\npublish = false\n\
         [sources.records]\nrecords = \"/warnings\"\nid = \"phenomenon\"\ntitle = [\"phenomenon\", \"level\"]\ndate = \"start\"\n\n\
         [[sources]]\nid = \"fuel\"\nkind = \"open-data\"\nstart_urls = [\"{fuel}\"]\npublish = false\n\
         [sources.records]\ntitle = [\"name\", \"fuel\", \"price_eur_per_litre\"]\ndate = \"updated\"\n",
        licensed = licensed.url,
        vigilance = vigilance.url,
        fuel = fuel.url,
        gap = LICENSED_GAP.as_millis(),
    );
    (text, licensed.site, vigilance.site)
}

#[tokio::test]
async fn a_licensed_api_is_read_with_its_key_and_own_limit_and_open_data_feeds_the_newsroom() {
    let manifest = Manifest::city(7, chrono::Utc::now()).with_token("TestBot");
    let web = TestWeb::start(manifest).await.unwrap();
    let key = web.city().unwrap().city.api_key().to_owned();
    let (text, licensed_site, open_data_site) = config(&web);
    let (ctx, sink) =
        context_with_keys(&text, |name| (name == "TEST_TICKETING_KEY").then(|| key.clone()));
    let deadline = SystemTime::now() + Duration::from_secs(30);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await);
    }
    let report = |id: &str| reports.iter().find(|r| r.source == id).unwrap();

    // The licensed API: every page read (positive control), with the key, at its own gap,
    // and robots.txt never asked for.
    let ticketing = report("ticketing");
    assert!(ticketing.errors.is_empty(), "{ticketing:?}");
    let ledger = web.ledger();
    let api_requests: Vec<_> = ledger.site(licensed_site).collect();
    assert!(api_requests.len() >= 2, "the API has more than one page: {api_requests:?}");
    for (n, entry) in api_requests.iter().enumerate() {
        assert!(!entry.is_robots(), "robots.txt asked of the licensed API: {entry:?}");
        let query = entry.query.as_deref().unwrap_or_default();
        assert!(query.contains(&format!("apikey={key}")), "no key in {query}");
        assert!(query.contains(&format!("page={n}")), "pages in order: {query}");
        assert_eq!(entry.status, 200, "{entry:?}");
    }
    ledger
        .filter(|e| e.site == licensed_site)
        .check_min_gap(LICENSED_GAP)
        .expect("the API's own rate limit is kept");
    let stored: Vec<_> = sink.events().into_iter().filter(|f| f.source == "ticketing").collect();
    assert!(
        stored.len() > gleaner_samplecity::api::API_PAGE_SIZE,
        "events from every page: {} stored",
        stored.len()
    );
    assert_eq!(ticketing.events_new as usize, stored.len());
    for found in &stored {
        assert!(!found.page.as_str().contains(&key), "the key was kept in {}", found.page);
        assert!(found.event.title.is_some() && found.event.url.is_some(), "{found:?}");
        // The API's own event addresses carry the key (issue 26): stripped before storing.
        let url = found.event.url.as_ref().unwrap();
        assert!(!url.as_str().contains(&key), "the key was kept in the event's URL {url}");
        assert_eq!(url.query(), None, "only the key was in the query: {url}");
    }

    // Without its key, a licensed source asks nothing and says which variable to set.
    let missing = report("ticketing-without-key");
    assert_eq!(missing.responses, 0);
    assert!(missing.errors.iter().any(|e| e.contains("TEST_UNSET_KEY")), "{:?}", missing.errors);

    // Open data: records become newsroom items, robots.txt read first as everywhere else.
    let news = sink.news();
    let warnings: Vec<_> = news.iter().filter(|n| n.source == "vigilance").collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings.iter().any(|n| n.title.as_deref() == Some("neige-verglas – orange")),
        "{warnings:?}"
    );
    assert!(warnings.iter().all(|n| n.published.is_some() && n.summary.is_some()));
    let fuel: Vec<_> = news.iter().filter(|n| n.source == "fuel").collect();
    assert_eq!(fuel.len(), 14, "five stations, three fuels, one not sold: {fuel:?}");
    assert!(fuel.iter().all(|n| n.summary.is_none()), "keep = facts keeps no summary");
    assert_eq!(report("fuel").news, 14);
    assert!(ledger.site(open_data_site).next().is_some_and(|e| e.is_robots()));
    ledger.filter(|e| e.site != licensed_site).check_robots_first().unwrap();
    web.shutdown().await;
}
