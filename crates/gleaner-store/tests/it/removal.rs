//! Removal: after `remove_site`, no table holds the site's content and (SQLite) the raw
//! database files hold none of its bytes; the audit log and robots.txt archive stay.
//! PostgreSQL keeps dead rows in its data files until (auto)vacuum reclaims them, so on
//! PostgreSQL the test checks every row of every table, not the files.

use std::path::Path;
use std::time::Duration;

use gleaner_config::settings::Retention;
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::registry::{Registry, Scope};
use gleaner_store::{DocumentKind, EventWrite, Keep, NewsItem, Store};
use url::Url;

use crate::each_backend_test;
use crate::util::{day, event};

/// Tables holding site content (checked to hold the marker before the removal).
const TABLES: [&str; 9] = [
    "events",
    "translations",
    "bodies",
    "samples",
    "news_items",
    "validators",
    "listing_links",
    "kept_requests",
    "relay_images",
];

const GONE: &str = "MARKERzq81";
const KEPT: &str = "KEEPb7x2";

/// Tables that may name the removed site: records of gleaner's own behaviour (audit
/// log, robots archive, gate state, the removal and its opt-out, sample exclusions) and
/// the configured sources.
const MAY_NAME_THE_SITE: &[&str] = &[
    "audit_log",
    "archive",
    "site_state",
    "removal_requests",
    "owner_requests",
    "sample_exclusions",
    "sources",
];

async fn fill(store: &Store, host: &str, marker: &str) {
    let retention = Retention {
        bodies: Duration::from_secs(90 * 86_400),
        events_after_end: Duration::from_secs(30 * 86_400),
        audit: Duration::from_secs(400 * 86_400),
        samples: true,
        sample_exclusions: Vec::new(),
    };
    let page = Url::parse(&format!("https://www.{host}/events/1.html")).unwrap();
    for n in 0..3 {
        let mut e = event(
            &format!("Concert {marker} {n}"),
            (2026, 5, 1 + n),
            page.as_str(),
            &format!("A long description with {marker} in it. {}", "Words ".repeat(200)),
        );
        // Issue 26 item 7: the image is served by another host (a CDN), and relayed.
        let image = Url::parse(&format!("https://cdn.images.example/{marker}/{n}.jpg")).unwrap();
        e.image_url = Some(image.clone());
        store.register_relay_image(&image, Some("agenda"), true, "allowed", day(0)).await.unwrap();
        let id = store
            .upsert_event(&EventWrite {
                event: &e,
                source: Some("agenda"),
                fetched_url: &page,
                fetched_at: day(0),
                keep: Keep::Full,
                extractor: None,
            })
            .await
            .unwrap()
            .id();
        store
            .put_translation(
                id,
                "fr",
                Some(format!("Concert {marker}")),
                Some(marker.into()),
                day(0),
            )
            .await
            .unwrap();
    }
    // A body large enough to spill into overflow pages.
    let body = format!("<html>{}</html>", format!("<p>{marker}</p>").repeat(2000)).into_bytes();
    store.put_body(&page, Some("text/html".into()), body.clone(), day(0)).await.unwrap();
    let sample = store.put_sample(&page, body, day(0), &retention).await.unwrap();
    assert!(sample.is_some(), "samples are on in this test");
    store
        .upsert_news(
            NewsItem {
                url: Url::parse(&format!("https://{host}/news/1")).unwrap(),
                source: None,
                title: Some(format!("News {marker}")),
                published: Some(day(0)),
                summary: Some(marker.into()),
            },
            Keep::Full,
            day(0),
        )
        .await
        .unwrap();
    store.put_validators(&page, Some(format!("\"{marker}\"")), None, day(0)).await.unwrap();
    store.put_listing_links(&page, format!("[\"{marker}.html\"]"), day(0)).await.unwrap();
    let kept = Url::parse(&format!("https://www.{host}/events/{marker}.html")).unwrap();
    store.keep_request("agenda", &kept, gleaner_policy::Purpose::EventPage, day(0)).await.unwrap();
    let site = format!("https://www.{host}");
    store.record(AuditRecord {
        time: day(0),
        site: site.clone(),
        url: page.to_string(),
        purpose: Purpose::EventPage,
        source: Some("agenda".into()),
        outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
        error: None,
        bytes: 100,
        duration: Duration::from_millis(5),
        reason: "robots.txt: no rule disallows it".into(),
    });
    store
        .archive_document(
            &site,
            DocumentKind::Robots,
            &format!("{site}/robots.txt"),
            b"User-agent: *\nAllow: /\n".to_vec(),
            day(0),
        )
        .await
        .unwrap();
    store.flush_audit().await.unwrap();
}

fn files_contain(path: &Path, needle: &str) -> bool {
    let mut bytes = std::fs::read(path).unwrap();
    let wal = path.with_extension("db-wal");
    if let Ok(more) = std::fs::read(&wal) {
        bytes.extend(more);
    }
    bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
}

each_backend_test! {
    async fn remove_leaves_nothing_of_the_site_in_any_table_or_file(db) {
    let store = db.store.clone();
    let sqlite = db.sqlite_path().map(Path::to_path_buf);
    fill(&store, "gone.test", GONE).await;
    fill(&store, "kept.test", KEPT).await;
    // Positive controls: the content is there, in rows and in the file bytes.
    let before = db.tables_containing(GONE).await;
    for table in TABLES {
        assert!(before.iter().any(|t| t == table), "`{table}` held the marker: {before:?}");
    }
    if let Some(path) = &sqlite {
        assert!(files_contain(path, GONE), "positive control: the marker is in the files");
    }

    let report =
        store.remove_site(Scope::domain("gone.test").unwrap(), "REQ-1", day(1)).await.unwrap();
    let events = report.deleted.iter().find(|(t, _)| t == "events").unwrap().1;
    assert_eq!(events, 3, "{report:?}");

    assert_eq!(db.tables_containing(GONE).await, Vec::<String>::new(), "no row holds the marker");
    let naming: Vec<String> = db
        .tables_containing("gone.test")
        .await
        .into_iter()
        .filter(|t| !MAY_NAME_THE_SITE.contains(&t.as_str()))
        .collect();
    assert_eq!(naming, Vec::<String>::new(), "only behaviour records name the site");
    if let Some(path) = &sqlite {
        assert!(!files_contain(path, GONE), "secure_delete + checkpoint: the bytes are gone");
    }

    // The other site is untouched, and the records of gleaner's behaviour stay.
    let kept = db.tables_containing(KEPT).await;
    for table in TABLES {
        assert!(kept.iter().any(|t| t == table), "`{table}` still holds the other site: {kept:?}");
    }
    let still = db.tables_containing("gone.test").await;
    for table in ["audit_log", "archive", "removal_requests", "owner_requests"] {
        assert!(still.iter().any(|t| t == table), "`{table}` keeps its record: {still:?}");
    }
    // The removal is recorded as complete and the site is opted out.
    let completed = db
        .query_i64("SELECT completed_ms FROM removal_requests WHERE reference = 'REQ-1'")
        .await;
    assert!(completed.is_some());
    let url = Url::parse("https://www.gone.test/events/2.html").unwrap();
    assert_eq!(store.lookup(&url).await.opted_out.as_deref(), Some(report.opt_out.as_str()));
    // And it is never sampled again.
    let retention = Retention {
        bodies: Duration::ZERO,
        events_after_end: Duration::ZERO,
        audit: Duration::ZERO,
        samples: true,
        sample_exclusions: Vec::new(),
    };
    assert_eq!(store.put_sample(&url, b"x".to_vec(), day(2), &retention).await.unwrap(), None);
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}
}
