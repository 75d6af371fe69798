//! The language model's tables (issue 18): a cached translation lives as long as some
//! event uses it, and goes with the last one — by removal, an owner's facts-only and
//! retention; model provenance and token counters.

use std::time::Duration;

use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_store::{EventWrite, Keep, RetentionPolicy, Store, TranslationPart};
use url::Url;

use crate::each_backend_test;
use crate::util::{TestDb, day, event};

const DAY: Duration = Duration::from_secs(86_400);

fn part(field: &str, text_hash: &str, english: &str) -> TranslationPart {
    TranslationPart {
        field: field.to_owned(),
        lang: "tr".to_owned(),
        text_hash: text_hash.to_owned(),
        english: english.to_owned(),
    }
}

/// An event on `host` with a translated title (cache key `hash`); returns its id.
async fn translated(store: &Store, host: &str, n: u32, hash: &str, date: (i32, u32, u32)) -> i64 {
    let page = Url::parse(&format!("https://{host}/etkinlik/{n}.html")).unwrap();
    let e = event(&format!("Caz gecesi {n}"), date, page.as_str(), "Uzun metin");
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
        .put_cached_translation(
            id,
            "en",
            "test-model",
            vec![
                part("title", hash, "Jazz night"),
                part("description", &format!("{hash}-d"), "Long text"),
            ],
            day(0),
        )
        .await
        .unwrap();
    store.record_model_step(id, "translation", "test-model", "translate-v1", day(0)).await.unwrap();
    id
}

async fn count(db: &TestDb, table: &str) -> i64 {
    db.query_i64(&format!("SELECT count(*) FROM {table}")).await.unwrap_or(0)
}

each_backend_test! {
    async fn a_cached_translation_is_shared_and_goes_with_the_last_event_using_it(db) {
    let store = db.store.clone();
    let a = translated(&store, "a.test", 1, "h-shared", (2026, 5, 1)).await;
    let b = translated(&store, "b.test", 2, "h-shared", (2026, 5, 2)).await;
    assert_eq!(store.cached_translation("h-shared", "tr", "test-model").await.unwrap().as_deref(), Some("Jazz night"));
    assert_eq!(store.cached_translation("h-shared", "tr", "other-model").await.unwrap(), None, "keyed by model");
    assert_eq!(store.cached_translation("h-shared", "fr", "test-model").await.unwrap(), None, "keyed by language");
    assert_eq!(store.translation(a, "en").await.unwrap(), Some((Some("Jazz night".into()), Some("Long text".into()))));
    // Two events share the title's row and the description's row.
    assert_eq!(count(&db, "translation_cache").await, 2);
    assert_eq!(count(&db, "translation_uses").await, 4);
    let steps = store.model_steps(a).await.unwrap();
    assert_eq!((steps[0].step.as_str(), steps[0].model.as_str(), steps[0].prompt_version.as_str()), ("translation", "test-model", "translate-v1"));
    assert_eq!(store.pending_translations("agenda", 10).await.unwrap(), Vec::new());

    // Removing a.test: b.test still uses the shared row.
    store.remove_site(Scope::domain("a.test").unwrap(), "REM-1", day(1)).await.unwrap();
    assert_eq!(count(&db, "translation_cache").await, 2);
    assert_eq!(count(&db, "translation_uses").await, 2);
    assert!(store.cached_translation("h-shared", "tr", "test-model").await.unwrap().is_some());
    assert!(store.model_steps(a).await.unwrap().is_empty());
    // An owner's facts-only on b.test: its translations go, and with them the cache rows.
    let entry = RegistryEntry { scope: Scope::domain("b.test").unwrap(), request: OwnerRequest::FactsOnly, reference: "F-1".into() };
    store.add_owner_request(entry, None, day(2)).await.unwrap();
    assert!(store.translation(b, "en").await.unwrap().is_none());
    assert_eq!(count(&db, "translation_cache").await, 0);
    assert_eq!(count(&db, "translation_uses").await, 0);
    }
}

each_backend_test! {
    async fn retention_takes_the_cache_rows_of_ended_events_and_keeps_the_others(db) {
    let store = db.store.clone();
    let old = translated(&store, "a.test", 1, "h-old", (2026, 1, 10)).await;
    let recent = translated(&store, "a.test", 2, "h-recent", (2026, 4, 1)).await;
    let policy = RetentionPolicy { bodies: 90 * DAY, events_after_end: 30 * DAY, audit: 60 * DAY };
    store.purge(policy, day(100)).await.unwrap();
    assert!(store.event(old).await.unwrap().is_none());
    assert_eq!(store.cached_translation("h-old", "tr", "test-model").await.unwrap(), None);
    assert!(store.event(recent).await.unwrap().is_some(), "positive control");
    assert!(store.cached_translation("h-recent", "tr", "test-model").await.unwrap().is_some());
    assert_eq!(count(&db, "translation_cache").await, 2, "title and description of the kept event");
    }
}

each_backend_test! {
    async fn untranslated_events_are_listed_and_tokens_are_counted(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/etkinlik/9.html").unwrap();
    let e = event("Tiyatro", (2026, 6, 1), page.as_str(), "Metin");
    let id = store
        .upsert_event(&EventWrite { event: &e, source: Some("agenda"), fetched_url: &page, fetched_at: day(0), keep: Keep::Full, extractor: None })
        .await
        .unwrap()
        .id();
    let pending = store.pending_translations("agenda", 10).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!((pending[0].event_id, pending[0].title.as_deref()), (id, Some("Tiyatro")));
    assert!(store.pending_translations("other", 10).await.unwrap().is_empty());
    store.record_model_step(id, "translation", "none", "already English", day(0)).await.unwrap();
    assert!(store.pending_translations("agenda", 10).await.unwrap().is_empty());
    // A step for an event that is gone is not recorded (no error either).
    store.record_model_step(id + 1000, "extraction", "m", "v", day(0)).await.unwrap();

    store.add_llm_usage("m", "extraction", 100, 20, false).await.unwrap();
    store.add_llm_usage("m", "extraction", 50, 0, true).await.unwrap();
    store.add_llm_usage("m", "translation", 10, 5, false).await.unwrap();
    let usage = store.llm_usage().await.unwrap();
    assert_eq!(usage.len(), 2);
    assert_eq!((usage[0].requests, usage[0].failures, usage[0].prompt_tokens, usage[0].completion_tokens), (2, 1, 150, 20));
    assert_eq!(usage[1].step, "translation");
    }
}
