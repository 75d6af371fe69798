//! The store commands through the real binary: `optout`, `remove`, `purge`, `audit`.

use std::time::{Duration, SystemTime};

use gleaner_event::time::EventTime;
use gleaner_event::{Category, Event, EventStatus, Price, Venue};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::registry::Registry;
use gleaner_store::{DocumentKind, EventWrite, Keep, Store};
use url::Url;

use crate::util::{gleaner, temp_file};

struct Setup {
    _dir: tempfile::TempDir,
    config: tempfile::NamedTempFile,
    db: std::path::PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("gleaner.db");
        let config = temp_file(
            format!(
                r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[store]
url = "sqlite://{}"
"#,
                db.display()
            )
            .as_bytes(),
        );
        Setup { _dir: dir, config, db }
    }

    fn run(&self, args: &[&str]) -> crate::util::Run {
        let config = self.config.path().to_str().unwrap().to_owned();
        let mut all = vec!["--config", config.as_str()];
        all.extend_from_slice(args);
        gleaner(&all, "")
    }

    fn store(&self) -> Store {
        Store::open_sqlite(&self.db).unwrap()
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn event(title: &str, page: &Url) -> Event {
    Event {
        title: Some(title.to_owned()),
        start: Some(EventTime::Date(chrono_date(2030, 1, 1))),
        end: None,
        previous_start: None,
        venue: Venue::default(),
        price: Price::default(),
        ticket_url: None,
        image_url: None,
        description: Some("A description".into()),
        status: EventStatus::Scheduled,
        status_stated: false,
        attendance: None,
        category: Category::Other,
        url: Some(page.clone()),
    }
}

fn chrono_date(y: i32, m: u32, d: u32) -> chrono::NaiveDate {
    chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

#[test]
fn optout_add_list_remove_and_the_store_sees_it() {
    let s = Setup::new();
    let add = s.run(&["optout", "add", "example.org", "--reference", "OPT-7", "--note", "by mail"]);
    assert_eq!(add.code, Some(0), "{}", add.stderr);
    assert!(add.stdout.contains("OPT-7"), "{}", add.stdout);
    let url = Url::parse("https://www.example.org/agenda").unwrap();
    let rules = rt().block_on(s.store().lookup(&url));
    assert_eq!(rules.opted_out.as_deref(), Some("OPT-7"), "another process sees it");

    let list = s.run(&["optout", "list"]);
    assert_eq!(list.code, Some(0), "{}", list.stderr);
    assert!(list.stdout.contains("OPT-7\tdomain example.org\topt-out"), "{}", list.stdout);
    assert!(list.stdout.contains("by mail"), "{}", list.stdout);

    let remove = s.run(&["optout", "remove", "OPT-7"]);
    assert_eq!(remove.code, Some(0), "{}", remove.stderr);
    assert_eq!(rt().block_on(s.store().lookup(&url)).opted_out, None);
    let again = s.run(&["optout", "remove", "OPT-7"]);
    assert_eq!(again.code, Some(2));
    assert!(again.stderr.contains("hint: `gleaner optout list`"), "{}", again.stderr);
}

#[test]
fn remove_deletes_the_sites_events_and_opts_it_out() {
    let s = Setup::new();
    let store = s.store();
    let rt = rt();
    let gone = Url::parse("https://gone.example/events/1.html").unwrap();
    let kept = Url::parse("https://kept.example/events/1.html").unwrap();
    let mut ids = Vec::new();
    for (title, page) in [("Gone gig", &gone), ("Kept gig", &kept)] {
        let e = event(title, page);
        let write = EventWrite {
            event: &e,
            source: None,
            fetched_url: page,
            fetched_at: SystemTime::now(),
            keep: Keep::Full,
            extractor: None,
        };
        ids.push(rt.block_on(store.upsert_event(&write)).unwrap().id());
    }
    drop(store);
    let run = s.run(&["remove", "gone.example", "--reference", "REQ-9"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("events: 1 deleted"), "{}", run.stdout);
    assert!(run.stdout.contains("kept: the audit log"), "{}", run.stdout);
    let store = s.store();
    assert!(rt.block_on(store.event(ids[0])).unwrap().is_none());
    assert!(rt.block_on(store.event(ids[1])).unwrap().is_some(), "positive control");
    assert!(rt.block_on(store.lookup(&gone)).opted_out.is_some());
    let list = s.run(&["optout", "list"]);
    assert!(list.stdout.contains("domain gone.example"), "{}", list.stdout);
}

#[test]
fn audit_shows_requests_with_rules_and_robots_versions_with_dates() {
    let s = Setup::new();
    let store = s.store();
    let rt = rt();
    store.record(AuditRecord {
        time: SystemTime::now(),
        site: "https://a.example".into(),
        url: "https://a.example/events/".into(),
        purpose: Purpose::Listing,
        source: Some("agenda".into()),
        outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
        error: None,
        bytes: 512,
        duration: Duration::from_millis(40),
        reason: "robots.txt: no rule disallows it; budget: gap 1000 ms kept".into(),
    });
    rt.block_on(store.flush_audit()).unwrap();
    rt.block_on(store.archive_document(
        "https://a.example",
        DocumentKind::Robots,
        "https://a.example/robots.txt",
        b"User-agent: *\nDisallow: /private/\n".to_vec(),
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_780_000_000),
    ))
    .unwrap();
    drop(store);
    let run = s.run(&["audit", "a.example"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("listing\tHTTP 200"), "{}", run.stdout);
    assert!(run.stdout.contains("rule: robots.txt: no rule disallows it"), "{}", run.stdout);
    assert!(run.stdout.contains("first seen 2026-05-28"), "{}", run.stdout);
    assert!(run.stdout.contains("  | Disallow: /private/"), "{}", run.stdout);
}

#[test]
fn purge_reports_what_it_deleted() {
    let s = Setup::new();
    let run = s.run(&["purge", "--audit-after", "30d"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("bodies older than 90 days: 0 deleted"), "{}", run.stdout);
    assert!(run.stdout.contains("audit rows older than 30 days"), "{}", run.stdout);
}

#[test]
fn store_commands_explain_bad_input() {
    let s = Setup::new();
    let bad = s.run(&["remove", "not a host!"]);
    assert_eq!(bad.code, Some(2), "{}", bad.stderr);
    assert!(bad.stderr.contains("`not a host!` is neither a domain nor a URL"), "{}", bad.stderr);
    assert!(bad.stderr.contains("hint:"), "{}", bad.stderr);
    let missing = gleaner(&["--config", "/nonexistent/gleaner.toml", "optout", "list"], "");
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.contains("/nonexistent/gleaner.toml"), "{}", missing.stderr);
}
