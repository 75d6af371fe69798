//! A polite crawl of the sample city (served by the test web) scored against the city's
//! ground truth: nothing a perfect polite crawler would leave out is kept (robots.txt,
//! TDMRep, noai, noindex), most of what it would keep is found, and the sites saw a
//! polite crawler. On paused time against the in-process web: the throttling venue's
//! window and the gaps run on Tokio's clock.

use std::collections::HashSet;
use std::time::Duration;

use gleaner_samplecity::SeedKind;
use gleaner_testweb::{Manifest, TestWeb};

use crate::{bounded, paused_context};

#[tokio::test(start_paused = true)]
async fn city_crawl_keeps_no_excluded_event_and_finds_most_of_the_rest() {
    let manifest = Manifest::city(7, chrono::Utc::now())
        .with_token("TestBot")
        .with_city_throttle(Duration::from_secs(1));
    let web = TestWeb::in_process(manifest);
    let city = web.city().expect("a city web");
    let seeds = city.city.seeds(&city.origins);
    let mut config = String::from(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n",
    );
    for (i, seed) in seeds.iter().filter(|s| s.kind == SeedKind::Listing).enumerate() {
        let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
        config.push_str(&format!(
            "\n[[sources]]\nid = \"s{i}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\nkeep = \"full\"\nmax_event_pages = 30\n",
            seed.url
        ));
    }
    let (ctx, sink) = paused_context(&config, &web);
    let deadline = ctx.clock.now() + Duration::from_secs(60);
    let sources = ctx.settings.sources.clone();
    bounded(async {
        let handles: Vec<_> = sources
            .into_iter()
            .map(|source| {
                let ctx = ctx.clone();
                tokio::spawn(async move {
                    gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {}).await
                })
            })
            .collect();
        for h in handles {
            h.await.unwrap();
        }
    })
    .await;

    let truth = web.ground_truth().expect("ground truth");
    let stored = sink.events();
    let stored_pages: HashSet<String> = stored.iter().map(|f| f.page.to_string()).collect();
    // Precision on what must be left out: no excluded page's event is kept.
    for excluded in &truth.excluded {
        assert!(
            !stored_pages.contains(&excluded.url),
            "kept `{}` from {} although {:?}",
            excluded.title,
            excluded.url,
            excluded.reason
        );
    }
    // Recall on pages with structured data (pages without any need site rules, issue 10).
    let structured: Vec<_> = truth
        .events
        .iter()
        .filter(|e| {
            e.uid.is_none() && !matches!(e.markup, gleaner_samplecity::venues::Markup::Plain)
        })
        .collect();
    let found = structured.iter().filter(|e| stored_pages.contains(&e.url)).count();
    let recall = found as f64 / structured.len().max(1) as f64;
    assert!(
        recall >= 0.9,
        "recall {recall:.2}: {found} of {} structured events found",
        structured.len()
    );
    // The sites' side: polite, with a positive control above.
    let ledger = web.ledger();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    ledger.check_min_gap(Duration::from_millis(40)).unwrap();
    web.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn sitemaps_feeds_and_calendars_are_read_politely() {
    let manifest = Manifest::city(7, chrono::Utc::now())
        .with_token("TestBot")
        .with_city_throttle(Duration::from_secs(1));
    let web = TestWeb::in_process(manifest);
    let city = web.city().expect("a city web");
    let seeds = city.city.seeds(&city.origins);
    let mut config = String::from(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"40ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n",
    );
    let mut kinds = Vec::new();
    for (i, seed) in seeds.iter().enumerate() {
        let kind = match seed.kind {
            SeedKind::Sitemap if !kinds.contains(&"sitemap") => "sitemap",
            SeedKind::Rss if !kinds.contains(&"feed") && seed.url.ends_with("feed.rss") => "feed",
            SeedKind::ICalendar if !kinds.contains(&"ical") => "ical",
            SeedKind::JsonApi if !kinds.contains(&"json-api") => "json-api",
            _ => continue,
        };
        kinds.push(kind);
        config.push_str(&format!("\n[[sources]]\nid = \"{kind}-{i}\"\nkind = \"{kind}\"\nstart_urls = [\"{}\"]\nmax_event_pages = 20\n", seed.url));
        if kind == "json-api" {
            config.push_str(
                "[sources.api]\nevents = \"/events\"\nid = \"/id\"\ntitle = \"/title\"\nstart = \"/start\"\nend = \"/end\"\nurl = \"/url\"\n\
                 status = \"/status\"\nvenue = \"/venue\"\nvenue_name = \"/name\"\nstreet = \"/address\"\npostal_code = \"/postal_code\"\n\
                 locality = \"/city\"\ncountry = \"/country\"\n",
            );
        }
    }
    assert_eq!(kinds.len(), 4, "the city has a sitemap, a feed, a calendar and an API: {kinds:?}");
    let (ctx, sink) = paused_context(&config, &web);
    let deadline = ctx.clock.now() + Duration::from_secs(60);
    let mut reports = Vec::new();
    for source in ctx.settings.sources.clone() {
        reports.push(bounded(gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {})).await);
    }
    let stored = sink.events();
    for report in &reports {
        let kind = report.source.split('-').next().unwrap();
        let from_source = stored.iter().filter(|f| f.source == report.source).count();
        assert!(from_source > 0, "{kind}: no events stored: {report:?}");
    }
    let ledger = web.ledger();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    ledger.check_min_gap(Duration::from_millis(40)).unwrap();
    web.shutdown().await;
}
