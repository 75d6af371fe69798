//! Retention: bodies, ended events with their translations, audit rows.

use std::time::Duration;

use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_store::{EventWrite, Keep, PurgeReport, RetentionPolicy};
use url::Url;

use crate::each_backend_test;
use crate::util::{day, event};

const DAY: Duration = Duration::from_secs(86_400);

each_backend_test! {
    async fn purge_applies_each_period_and_takes_translations_with_their_events(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/events/1.html").unwrap();
    // 2026-01-01 is day 0; "now" is day 100.
    let mut ids = Vec::new();
    for (title, date) in [("ended long ago", (2026, 1, 10)), ("ended recently", (2026, 4, 1))] {
        let e = event(title, date, page.as_str(), "text");
        let id = store
            .upsert_event(&EventWrite {
                event: &e,
                source: None,
                fetched_url: &page,
                fetched_at: day(0),
                keep: Keep::Full,
                extractor: None,
            })
            .await
            .unwrap()
            .id();
        store.put_translation(id, "fr", Some("titre".into()), None, day(1)).await.unwrap();
        ids.push(id);
    }
    let old_body = store.put_body(&page, None, b"old".to_vec(), day(0)).await.unwrap();
    let new_body = store.put_body(&page, None, b"new".to_vec(), day(95)).await.unwrap();
    for t in [0, 99] {
        store.record(AuditRecord {
            time: day(t),
            site: "https://a.test".into(),
            url: page.to_string(),
            purpose: Purpose::EventPage,
            source: None,
            outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
            error: None,
            bytes: 1,
            duration: Duration::ZERO,
            reason: "test".into(),
        });
    }
    store.flush_audit().await.unwrap();
    let policy = RetentionPolicy { bodies: 90 * DAY, events_after_end: 30 * DAY, audit: 60 * DAY };
    let report = store.purge(policy, day(100)).await.unwrap();
    assert_eq!(report, PurgeReport { bodies: 1, events: 1, translations: 1, audit: 1 });
    assert!(store.event(ids[0]).await.unwrap().is_none());
    assert!(store.translation(ids[0], "fr").await.unwrap().is_none());
    assert!(store.event(ids[1]).await.unwrap().is_some(), "positive control: kept");
    assert!(store.translation(ids[1], "fr").await.unwrap().is_some());
    assert!(store.body(old_body).await.unwrap().is_none());
    assert!(store.body(new_body).await.unwrap().is_some());
}
}

each_backend_test! {
    async fn zero_body_retention_deletes_right_after_extraction(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/").unwrap();
    let zero = RetentionPolicy { bodies: Duration::ZERO, ..RetentionPolicy::from_defaults() };
    let kept = RetentionPolicy::from_defaults();
    let a = store.put_body(&page, None, b"a".to_vec(), day(0)).await.unwrap();
    let b = store.put_body(&page, None, b"b".to_vec(), day(0)).await.unwrap();
    assert!(!store.body_extracted(a, &kept).await.unwrap());
    assert!(store.body_extracted(b, &zero).await.unwrap());
    assert!(store.body(a).await.unwrap().is_some());
    assert!(store.body(b).await.unwrap().is_none());
}
}
