//! `gleaner crawl -o` and `gleaner export` through the real binary, on a store filled by
//! a crawl of the sample city's venues on the loopback test web: progress lines on
//! stderr while the crawl runs, every venue's event in every format, each format parsed
//! back by an independent reader (icalendar, feed-rs, csv, serde_json), the filters, and
//! clear errors that name the file or the format.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gleaner_samplecity::Markup;
use gleaner_testweb::{Manifest, TestWeb};
use icalendar::Component;

use crate::util::{Run, gleaner};

async fn run(args: Vec<String>) -> Run {
    tokio::time::timeout(
        Duration::from_secs(120),
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            gleaner(&args, "")
        }),
    )
    .await
    .expect("bounded")
    .unwrap()
}

/// A crawl through the binary, stderr read line by line as it comes: the lines with the
/// time each arrived, the time the process ended, its stdout and exit code.
struct Timed {
    lines: Vec<(Instant, String)>,
    ended: Instant,
    stdout: String,
    code: Option<i32>,
}

fn crawl_timed(args: &[String]) -> Timed {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gleaner"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .take(10_000)
            .map(|l| (Instant::now(), l))
            .collect::<Vec<_>>()
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the crawl ends within two minutes");
        std::thread::sleep(Duration::from_millis(20));
    };
    let ended = Instant::now();
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    Timed { lines: reader.join().unwrap(), ended, stdout, code: status.code() }
}

fn ids_in_json_lines(text: &str) -> BTreeSet<i64> {
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_i64().unwrap())
        .collect()
}

fn no_temp_files(dir: &Path) {
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn crawl_shows_progress_and_writes_its_events_export_parses_back_in_every_format() {
    let web =
        TestWeb::start(Manifest::city(7, chrono::Utc::now()).with_token("TestBot")).await.unwrap();
    let city = web.city().expect("a city web");
    let venues: Vec<usize> = [Markup::JsonLd, Markup::JsonLdGraph, Markup::Microdata, Markup::Rdfa]
        .into_iter()
        .flat_map(|m| city.city.venues_with(m))
        .filter(|&i| {
            let s = city.city.site(i);
            s.refusal.is_none() && !s.extras.contains(&gleaner_samplecity::Extra::NoAi)
        })
        .take(3)
        .collect();
    assert_eq!(venues.len(), 3, "the city has venues with structured data");
    let truth = web.ground_truth().unwrap();
    let wanted: BTreeSet<String> =
        truth.events.iter().filter(|t| venues.contains(&t.site)).map(|t| t.url.clone()).collect();
    assert!(wanted.len() >= 10, "the venues keep events: {}", wanted.len());

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("g.db");
    let mut config = format!(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"900ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n[store]\nurl = \"sqlite://{}\"\n",
        db.display(),
    );
    for seed in city.city.seeds(&city.origins) {
        if seed.kind != gleaner_samplecity::SeedKind::Listing || !venues.contains(&seed.site) {
            continue;
        }
        let s = city.city.site(seed.site);
        let prefix = url::Url::parse(&seed.url).unwrap().path().to_owned();
        config.push_str(&format!(
            "\n[[sources]]\nid = \"{}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"{prefix}\"\n\
             keep = \"full\"\nmax_event_pages = 60\ntime_zone = \"{}\"\n",
            s.key,
            seed.url,
            s.zone.name()
        ));
    }
    let config_path = dir.path().join("gleaner.toml");
    std::fs::write(&config_path, &config).unwrap();
    let cfg = config_path.to_str().unwrap().to_owned();
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let path = |name: &str| out.join(name).to_str().unwrap().to_owned();

    // A bad output is refused before any request is sent.
    let refused =
        run(vec!["--config".into(), cfg.clone(), "crawl".into(), "-o".into(), path("events.txt")])
            .await;
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(refused.stderr.contains("events.txt"), "names the file: {}", refused.stderr);
    assert!(web.ledger().sites_touched().is_empty(), "nothing was sent for a refused command");

    let args: Vec<String> =
        vec!["--config".into(), cfg.clone(), "crawl".into(), "-o".into(), path("crawl.ics")];
    let crawl = tokio::task::spawn_blocking(move || crawl_timed(&args)).await.unwrap();
    let stderr: Vec<&str> = crawl.lines.iter().map(|(_, l)| l.as_str()).collect();
    assert_eq!(crawl.code, Some(0), "{}\n{}", crawl.stdout, stderr.join("\n"));
    // Progress while it works: lines that came at least a second before the end, with
    // the sites, requests, events and waits; the last one says every site is done.
    let progress: Vec<&(Instant, String)> =
        crawl.lines.iter().filter(|(_, l)| l.starts_with("progress: ")).collect();
    assert!(
        progress.iter().any(|(at, _)| crawl.ended.duration_since(*at) > Duration::from_secs(1)),
        "a progress line during the crawl:\n{}",
        stderr.join("\n")
    );
    let during = &progress[0].1;
    assert!(during.contains("/3 sites done"), "{during}");
    assert!(during.contains(" requests, ") && during.contains(" events, "), "{during}");
    assert!(during.contains("waiting for their site's turn"), "{during}");
    let last = &progress.last().unwrap().1;
    assert!(last.starts_with("progress: 3/3 sites done"), "{last}");
    assert!(crawl.stdout.contains("source "), "then the summary table:\n{}", crawl.stdout);

    // The crawl's file: every event the pass stored, parsed back.
    let ics = std::fs::read_to_string(out.join("crawl.ics")).unwrap();
    let calendar: icalendar::Calendar = ics.parse().unwrap();
    let crawled: Vec<&icalendar::Event> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            icalendar::CalendarComponent::Event(e) => Some(e),
            _ => None,
        })
        .collect();
    let urls: BTreeSet<String> =
        crawled.iter().filter_map(|e| e.get_url().map(str::to_owned)).collect();
    assert_eq!(urls, wanted, "every venue event in the crawl's calendar, nothing else");
    assert!(crawled.iter().all(|e| e.get_summary().is_some_and(|s| !s.is_empty())));
    no_temp_files(&out);

    // Export: JSON Lines on stdout by default, with every stored event.
    let jsonl = run(vec!["--config".into(), cfg.clone(), "export".into()]).await;
    assert_eq!(jsonl.code, Some(0), "{}", jsonl.stderr);
    let ids = ids_in_json_lines(&jsonl.stdout);
    assert_eq!(ids.len(), wanted.len());
    let lines: Vec<serde_json::Value> =
        jsonl.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let exported: BTreeSet<String> =
        lines.iter().map(|e| e["source_url"].as_str().unwrap().to_owned()).collect();
    assert_eq!(exported, wanted);

    // Each file format, by extension, parsed back by its own reader.
    for name in ["all.json", "all.csv", "all.rss", "all.ics"] {
        let done =
            run(vec!["--config".into(), cfg.clone(), "export".into(), "-o".into(), path(name)])
                .await;
        assert_eq!(done.code, Some(0), "{name}: {}", done.stderr);
    }
    let json: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(out.join("all.json")).unwrap()).unwrap();
    assert_eq!(json.iter().map(|e| e["id"].as_i64().unwrap()).collect::<BTreeSet<_>>(), ids);

    let mut reader = csv::Reader::from_path(out.join("all.csv")).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id_col, title_col, url_col) = (column("id"), column("title"), column("source_url"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(
        rows.iter().map(|r| r[id_col].parse::<i64>().unwrap()).collect::<BTreeSet<_>>(),
        ids
    );
    assert_eq!(rows.iter().map(|r| r[url_col].to_owned()).collect::<BTreeSet<_>>(), wanted);
    for (row, line) in rows.iter().zip(&lines) {
        assert_eq!(&row[title_col], line["title"].as_str().unwrap(), "the same titles");
    }

    let rss = std::fs::read(out.join("all.rss")).unwrap();
    let feed = feed_rs::parser::parse(rss.as_slice()).unwrap();
    assert_eq!(
        feed.entries.iter().map(|e| e.links[0].href.clone()).collect::<BTreeSet<_>>(),
        wanted
    );

    let ics = std::fs::read_to_string(out.join("all.ics")).unwrap();
    let calendar: icalendar::Calendar = ics.parse().unwrap();
    let uids: BTreeSet<String> = calendar
        .components
        .iter()
        .filter_map(|c| match c {
            icalendar::CalendarComponent::Event(e) => e.get_uid().map(str::to_owned),
            _ => None,
        })
        .collect();
    assert_eq!(uids, ids.iter().map(|id| format!("event-{id}@bot.example")).collect());
    no_temp_files(&out);

    // Filters: one site; a day range; a status nobody has.
    let site = url::Url::parse(&city.origins.url(venues[0], "/")).unwrap();
    let site = site.host_str().unwrap().to_owned();
    let one =
        run(vec!["--config".into(), cfg.clone(), "export".into(), "--site".into(), site.clone()])
            .await;
    let of_site: Vec<serde_json::Value> =
        one.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let expected = truth.of_site(venues[0]).count();
    assert_eq!(of_site.len(), expected, "{}", one.stderr);
    assert!(of_site.iter().all(|e| e["source_url"].as_str().unwrap().contains(&site)));
    let first_day =
        lines.iter().filter_map(|e| e["start"].as_str()).map(|s| &s[..10]).min().unwrap();
    let day = run(vec![
        "--config".into(),
        cfg.clone(),
        "export".into(),
        "--from".into(),
        first_day.into(),
        "--to".into(),
        first_day.into(),
    ])
    .await;
    let on_day = ids_in_json_lines(&day.stdout);
    assert!(!on_day.is_empty() && on_day.len() < ids.len(), "{first_day}: {on_day:?}");
    assert!(day.stdout.lines().all(|l| l.contains(&format!("\"start\":\"{first_day}"))));

    // Clear errors that name what was wrong, and exit 2.
    for (args, needle) in [
        (vec!["export", "--format", "yaml"], "unknown format `yaml`"),
        (vec!["export", "-o", "/nonexistent-gleaner-dir/x.ics"], "/nonexistent-gleaner-dir/x.ics"),
        (vec!["export", "--status", "maybe"], "unknown status `maybe`"),
        (vec!["export", "--from", "3 Dec"], "--from `3 Dec` is not a day"),
        (vec!["export", "--source", "nope"], "no source `nope`"),
    ] {
        let mut full = vec!["--config".to_owned(), cfg.clone()];
        full.extend(args.iter().map(|a| (*a).to_owned()));
        let failed = run(full).await;
        assert_eq!(failed.code, Some(2), "{args:?}: {}", failed.stderr);
        assert!(failed.stderr.contains(needle), "{args:?}: {}", failed.stderr);
    }
}
