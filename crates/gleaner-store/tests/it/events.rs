//! Events: upsert by identity, status history, provenance, facts versus full.

use gleaner_event::EventStatus;
use gleaner_store::{EventWrite, Keep, Upserted};
use url::Url;

use crate::each_backend_test;
use crate::util::{day, event};

fn write<'a>(e: &'a gleaner_event::Event, url: &'a Url, t: u64) -> EventWrite<'a> {
    EventWrite {
        event: e,
        source: Some("agenda"),
        fetched_url: url,
        fetched_at: day(t),
        keep: Keep::Full,
        extractor: None,
    }
}

each_backend_test! {
    async fn upsert_by_identity_keeps_history_and_provenance(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/events/1.html").unwrap();
    let feed = Url::parse("https://a.test/feed.xml").unwrap();
    let mut e = event("Jazz night", (2026, 3, 1), page.as_str(), "Long description");
    let first = store.upsert_event(&write(&e, &page, 0)).await.unwrap();
    assert!(matches!(first, Upserted::Inserted(_)));
    let again = store.upsert_event(&write(&e, &feed, 1)).await.unwrap();
    assert_eq!(again, Upserted::Unchanged(first.id()));
    e.venue.locality = Some("Troyes".into());
    let moved = store.upsert_event(&write(&e, &feed, 1)).await.unwrap();
    assert_eq!(moved, Upserted::Updated { id: first.id(), status_changed: false });
    e.status = EventStatus::Cancelled;
    e.status_stated = true;
    let cancelled = store.upsert_event(&write(&e, &page, 2)).await.unwrap();
    assert_eq!(cancelled, Upserted::Updated { id: first.id(), status_changed: true });

    let stored = store.event(first.id()).await.unwrap().unwrap();
    assert_eq!(stored.event, e, "every fact round-trips");
    let statuses: Vec<EventStatus> = stored.history.iter().map(|h| h.status).collect();
    assert_eq!(statuses, [EventStatus::Scheduled, EventStatus::Cancelled]);
    assert_eq!(stored.provenance.len(), 2, "the page and the feed: {:?}", stored.provenance);
    assert_eq!((stored.first_seen, stored.last_checked), (day(0), day(2)));
}
}

each_backend_test! {
    async fn facts_only_sources_keep_no_description_or_image(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/events/2.html").unwrap();
    let e = event("Film club", (2026, 3, 2), page.as_str(), "Plot summary");
    let id = store
        .upsert_event(&EventWrite {
            event: &e,
            source: None,
            fetched_url: &page,
            fetched_at: day(0),
            keep: Keep::Facts,
            extractor: None,
        })
        .await
        .unwrap()
        .id();
    let stored = store.event(id).await.unwrap().unwrap();
    assert_eq!(stored.event.title.as_deref(), Some("Film club"), "positive control");
    assert_eq!(stored.event.description, None);
    assert_eq!(stored.event.image_url, None);
}
}

each_backend_test! {
    async fn events_between_returns_overlapping_events_by_start(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/").unwrap();
    for (title, d) in [("late", 20), ("early", 5), ("outside", 31)] {
        let e = event(
            title,
            (2026, if d > 30 { 2 } else { 1 }, if d > 30 { 9 } else { d }),
            page.as_str(),
            "",
        );
        store
            .upsert_event(&EventWrite {
                event: &e,
                source: None,
                fetched_url: &page,
                fetched_at: day(0),
                keep: Keep::Full,
                extractor: None,
            })
            .await
            .unwrap();
    }
    let found = store.events_between(day(0), day(30)).await.unwrap();
    let titles: Vec<_> = found.iter().filter_map(|e| e.event.title.as_deref()).collect();
    assert_eq!(titles, ["early", "late"]);
}
}

each_backend_test! {
    async fn a_304_moves_the_last_check_of_the_pages_events(db) {
    let store = db.store.clone();
    let page = Url::parse("https://a.test/events/3.html").unwrap();
    let other = Url::parse("https://a.test/events/4.html").unwrap();
    let a = event("Market", (2026, 4, 1), page.as_str(), "");
    let b = event("Fair", (2026, 4, 2), other.as_str(), "");
    let ia = store.upsert_event(&write(&a, &page, 0)).await.unwrap().id();
    let ib = store.upsert_event(&write(&b, &other, 0)).await.unwrap().id();
    assert_eq!(store.touch_page(&page, day(3)).await.unwrap(), 1);
    assert_eq!(store.event(ia).await.unwrap().unwrap().last_checked, day(3));
    assert_eq!(
        store.event(ib).await.unwrap().unwrap().last_checked,
        day(0),
        "other page untouched"
    );
    store.put_listing_links(&page, "[\"/events/3.html\"]".into(), day(3)).await.unwrap();
    assert_eq!(store.listing_links(&page).await.unwrap().as_deref(), Some("[\"/events/3.html\"]"));
}
}

each_backend_test! {
    async fn facts_only_from_an_owner_purges_descriptions_images_and_translations(db) {
    use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
    let store = db.store.clone();
    let mut ids = Vec::new();
    for host in ["a.test", "b.test"] {
        let page = Url::parse(&format!("https://{host}/events/1.html")).unwrap();
        let e = event(&format!("Opera at {host}"), (2026, 5, 5), page.as_str(), "Long text");
        let id = store.upsert_event(&write(&e, &page, 0)).await.unwrap().id();
        store.put_translation(id, "tr", None, Some("Uzun metin".into()), day(0)).await.unwrap();
        ids.push(id);
    }
    let entry = RegistryEntry {
        scope: Scope::domain("a.test").unwrap(),
        request: OwnerRequest::FactsOnly,
        reference: "FACTS-1".into(),
    };
    store.add_owner_request(entry, None, day(1)).await.unwrap();
    let a = store.event(ids[0]).await.unwrap().unwrap();
    assert_eq!((a.event.description, a.event.image_url), (None, None));
    assert_eq!(a.event.title.as_deref(), Some("Opera at a.test"), "the facts stay");
    assert!(store.translation(ids[0], "tr").await.unwrap().is_none());
    let b = store.event(ids[1]).await.unwrap().unwrap();
    assert!(b.event.description.is_some(), "positive control: other sites keep theirs");
    assert!(store.translation(ids[1], "tr").await.unwrap().is_some());
    // Later upserts of a full source keep facts only there.
    let page = Url::parse("https://a.test/events/2.html").unwrap();
    let e = event("Ballet", (2026, 5, 6), page.as_str(), "More text");
    let id = store.upsert_event(&write(&e, &page, 2)).await.unwrap().id();
    assert_eq!(store.event(id).await.unwrap().unwrap().event.description, None);
}
}
