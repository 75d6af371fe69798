//! `gleaner discover URL` through the real binary: on the sample city every kind of venue
//! finds its real source, and the proposed block, pasted into a config, is accepted by
//! `gleaner config check` and stores that venue's events with `gleaner crawl`; on the
//! test web a robots.txt `Disallow` is a polite refusal naming the rule, and the site
//! sees at most `--max-requests` requests, spaced by the manual-check gap.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gleaner_samplecity::{Extra, Markup, Refusal, Role};
use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb};

use crate::util::{Run, gleaner};

const BOT: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n";

/// A config with a store in `dir`, the loopback allowed, a short manual-check gap.
fn config(dir: &Path, name: &str, gap: &str) -> String {
    format!(
        "{BOT}\n[politeness]\ngap = \"40ms\"\n\n[politeness.purpose.manual-check]\ngap = \"{gap}\"\n\n\
         [network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n",
        dir.join(format!("{name}.db")).display()
    )
}

async fn run(args: Vec<String>) -> Run {
    let task = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        gleaner(&args, "")
    });
    tokio::time::timeout(Duration::from_secs(240), task).await.expect("bounded").unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_owned()
}

/// What discovery is expected to propose for a city site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Kind(&'static str),
    Refused,
}

/// Every venue of the sample city (and the town hall): `gleaner discover` on its home
/// page proposes its real source — the feed of a feed venue, the JSON API of the API
/// venue, the calendar of the town hall, the listing of the others; on a venue's sitemap
/// it proposes the sitemap. Each proposal is pasted as printed into a config that
/// `gleaner config check` accepts, and `gleaner crawl` with it stores every event the
/// venue's ground truth keeps. A venue whose robots.txt disallows the bot and one whose
/// rights files reserve its rights are refused (exit 3) with the rule named.
#[tokio::test(flavor = "multi_thread")]
async fn each_sample_city_venue_finds_its_source_and_the_proposal_stores_its_events() {
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let truth = web.ground_truth().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<(usize, String, Expect)> = Vec::new();
    for (i, s) in city.city.sites().iter().enumerate() {
        let home = city.origins.url(i, "/");
        let expect = match (s.role, s.refusal) {
            (Role::TownHall, _) => Expect::Kind("ical"),
            (Role::Venue, Some(Refusal::RobotsDisallowAll | Refusal::TdmReservation)) => {
                Expect::Refused
            }
            // Its ai.txt reserves language-model use: under the default `stop-site` the
            // crawl stops the site, so discovery refuses it too.
            (Role::Venue, _) if s.has(Extra::NoAi) => Expect::Refused,
            // Its event pages answer 429 for the first half minute: not a discovery case.
            (Role::Venue, Some(Refusal::Throttle)) => continue,
            (Role::Venue, _) if s.has(Extra::JsonApi) => Expect::Kind("json-api"),
            (Role::Venue, _) if s.has(Extra::RssEvents) || s.has(Extra::AtomEvents) => {
                Expect::Kind("feed")
            }
            (Role::Venue, _) => Expect::Kind("listing"),
            _ => continue,
        };
        cases.push((i, home, expect));
    }
    // Sitemap venues: discovery started at a venue's sitemap index proposes the sitemap.
    for markup in [Markup::JsonLdGraph, Markup::Microdata] {
        let i = city.city.venues_with(markup)[0];
        cases.push((i, city.origins.url(i, "/sitemap_index.xml"), Expect::Kind("sitemap")));
    }
    assert!(cases.len() >= 20, "{}", cases.len());
    let runs = cases.iter().enumerate().map(|(n, (_, url, _))| {
        let path = write(
            dir.path(),
            &format!("d{n}.toml"),
            &config(dir.path(), &format!("d{n}"), "100ms"),
        );
        run(vec!["--config".into(), path, "discover".into(), url.clone()])
    });
    let discovered = futures_join(runs.collect()).await;
    let mut crawls = Vec::new();
    for (n, ((site, url, expect), found)) in cases.iter().zip(&discovered).enumerate() {
        let key = city.city.site(*site).key;
        match expect {
            Expect::Refused => {
                assert_eq!(found.code, Some(3), "{key}: {}\n{}", found.stdout, found.stderr);
                let refusal = city.city.site(*site).refusal;
                let rule = if refusal == Some(Refusal::RobotsDisallowAll) {
                    "disallowed by line"
                } else {
                    "reservation"
                };
                assert!(found.stdout.contains(rule), "{key}: {}", found.stdout);
                continue;
            }
            Expect::Kind(kind) => {
                assert_eq!(found.code, Some(0), "{key}: {}\n{}", found.stdout, found.stderr);
                let proposed: toml::Value = toml::from_str(&found.stdout)
                    .unwrap_or_else(|e| panic!("{key}: the output is TOML: {e}\n{}", found.stdout));
                let source = &proposed["sources"][0];
                assert_eq!(
                    source["kind"].as_str(),
                    Some(*kind),
                    "{key} ({url}):\n{}",
                    found.stdout
                );
                if *kind == "listing" || *kind == "sitemap" {
                    assert_eq!(
                        source["event_url_prefix"].as_str(),
                        Some(city.city.site(*site).lang.listing_path()),
                        "{key}:\n{}",
                        found.stdout
                    );
                }
                assert!(
                    found.stdout.contains("# what each source kind would yield"),
                    "{}",
                    found.stdout
                );
            }
        }
        // Pasted as printed, under a config's own tables.
        let db = format!("c{n}");
        let text = format!("{}\n{}", config(dir.path(), &db, "100ms"), found.stdout);
        let path = write(dir.path(), &format!("c{n}.toml"), &text);
        crawls.push((n, *site, dir.path().join(format!("{db}.db")), path));
    }
    let checks = futures_join(
        crawls
            .iter()
            .map(|(_, _, _, path)| {
                run(vec!["--config".into(), path.clone(), "config".into(), "check".into()])
            })
            .collect(),
    )
    .await;
    for ((n, site, _, _), check) in crawls.iter().zip(&checks) {
        let key = city.city.site(*site).key;
        assert_eq!(check.code, Some(0), "{key} (case {n}): {}\n{}", check.stdout, check.stderr);
    }
    let crawled = futures_join(
        crawls
            .iter()
            .map(|(_, _, _, path)| run(vec!["--config".into(), path.clone(), "crawl".into()]))
            .collect(),
    )
    .await;
    for ((n, site, db, _), crawl) in crawls.iter().zip(&crawled) {
        let s = city.city.site(*site);
        assert_eq!(crawl.code, Some(0), "{} (case {n}): {}\n{}", s.key, crawl.stdout, crawl.stderr);
        let store = gleaner_store::Store::open(&format!("sqlite://{}", db.display())).unwrap();
        let year = Duration::from_secs(366 * 24 * 3600);
        let now = std::time::SystemTime::now();
        let stored = store.events_between(now - year, now + year).await.unwrap();
        let wanted: Vec<_> = truth
            .of_site(*site)
            .filter(|t| {
                // The calendar is read 180 days ahead, as a pass reads it.
                let ahead = chrono::Utc::now() + chrono::Duration::days(179);
                s.role == Role::Venue || t.start < ahead
            })
            .collect();
        assert!(wanted.len() >= 3, "{}: the ground truth keeps events", s.key);
        for t in &wanted {
            let found = stored.iter().any(|e| match s.role {
                Role::TownHall => {
                    e.event.title.as_deref() == Some(t.title.as_str())
                        && e.event.start == Some(gleaner_event::EventTime::Fixed(t.start))
                }
                _ => e.event.url.as_ref().is_some_and(|u| u.as_str() == t.url),
            });
            assert!(
                found,
                "{} (case {n}): `{}` ({}) not stored; {} stored\n{}",
                s.key,
                t.title,
                t.url,
                stored.len(),
                crawl.stdout
            );
        }
    }
    let ledger = web.ledger();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    web.shutdown().await;
}

/// Runs futures concurrently, keeping their order.
async fn futures_join<T: Send + 'static>(
    futures: Vec<impl std::future::Future<Output = T> + Send + 'static>,
) -> Vec<T> {
    let handles: Vec<_> = futures.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// On the test web: a site whose robots.txt disallows everything is refused politely
/// (exit 3, the rule named, nothing but robots.txt asked); an open site sees at most
/// `--max-requests` requests, robots.txt first, spaced by the manual-check gap as the
/// ledger measures it; with the default budget it reads more and still keeps the gap.
#[tokio::test(flavor = "multi_thread")]
async fn robots_txt_refuses_and_the_budget_and_gap_hold_from_the_sites_side() {
    let web = TestWeb::start(
        Manifest::new(vec![
            SiteSpec::default(),
            SiteSpec::with_robots(RobotsScenario::DisallowAll),
            SiteSpec::default(),
        ])
        .with_token("TestBot"),
    )
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "g.toml", &config(dir.path(), "g", "300ms"));
    let discover = |url: String, extra: &[&str]| {
        let mut args = vec!["--config".to_owned(), path.clone(), "discover".to_owned(), url];
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        run(args)
    };

    let refused = discover(web.url(1, "/"), &[]).await;
    assert_eq!(refused.code, Some(3), "{}\n{}", refused.stdout, refused.stderr);
    assert!(refused.stdout.contains("disallowed by line 2"), "{}", refused.stdout);
    let ledger = web.ledger();
    ledger.expect_fetched(1, "/robots.txt").unwrap();
    assert_eq!(ledger.site(1).count(), 1, "only robots.txt was asked");

    // robots.txt, the two rights files and the home page: the listing it links to is
    // left out, and said so.
    let small = discover(web.url(0, "/"), &["--max-requests", "4"]).await;
    assert_eq!(small.code, Some(0), "{}\n{}", small.stdout, small.stderr);
    assert!(small.stdout.contains("the request budget (4) is used up"), "{}", small.stdout);
    let ledger = web.ledger();
    assert_eq!(ledger.site(0).count(), 4, "the budget, robots.txt included");
    // A fresh store knows neither robots.txt nor the rights files: two requests cannot
    // hold them and the page, so nothing is asked.
    let fresh = write(dir.path(), "fresh.toml", &config(dir.path(), "fresh", "300ms"));
    let tiny = run(vec![
        "--config".into(),
        fresh,
        "discover".into(),
        web.url(0, "/"),
        "--max-requests".into(),
        "2".into(),
    ])
    .await;
    assert_eq!(tiny.code, Some(1), "{}\n{}", tiny.stdout, tiny.stderr);
    assert!(tiny.stderr.contains("cannot hold"), "{}", tiny.stderr);
    assert_eq!(web.ledger().site(0).count(), 4, "nothing more was asked");

    let full = discover(web.url(2, "/"), &["--format", "json"]).await;
    assert_eq!(full.code, Some(0), "{}\n{}", full.stdout, full.stderr);
    let report: serde_json::Value = serde_json::from_str(&full.stdout).expect(&full.stdout);
    assert_eq!(report["proposal"]["kind"], "listing", "{}", full.stdout);
    assert_eq!(report["proposal"]["event_url_prefix"], "/events/", "{}", full.stdout);
    assert!(report["proposal_toml"].as_str().unwrap().contains("[[sources]]"));
    let ledger = web.ledger();
    let seen = ledger.site(2).count();
    assert!((4..=8).contains(&seen), "a few requests, at most 8: {seen}");
    assert_eq!(
        report["requests"].as_u64(),
        Some(seen as u64),
        "the report counts what the site saw"
    );
    ledger.expect_fetched(2, "/events/").unwrap();
    ledger.check_robots_first().unwrap();
    ledger.check_disallowed().unwrap();
    // Manual checks keep their gap after any request; robots.txt and the rights files
    // (their own purposes) keep the site's general one.
    ledger
        .check_spacing(|e| {
            if e.is_robots() || e.path == "/.well-known/tdmrep.json" || e.path == "/ai.txt" {
                Duration::from_millis(40)
            } else {
                Duration::from_millis(300)
            }
        })
        .unwrap();
    ledger.check_identity("TestBot/1.0 (+https://bot.example/about)").unwrap();
    web.shutdown().await;
}
