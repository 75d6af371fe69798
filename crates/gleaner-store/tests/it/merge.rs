//! One event, many sources (issue 24 item 5, SPEC §2): the same event read from a
//! listing, its page, a feed, a calendar and an API is one stored event with every
//! source's provenance and the most precise value of each field; events whose own pages
//! or ticket addresses differ are never merged.

use gleaner_event::merge::{Extractor, Field};
use gleaner_event::time::parse_event_time;
use gleaner_event::{Event, EventStatus, Price, Venue};
use gleaner_store::{EventWrite, Keep, Store, Upserted};
use url::Url;

use crate::each_backend_test;
use crate::util::day;

const PAGE: &str = "https://sahne.test/etkinlik/caz-gecesi";

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

/// "Caz Gecesi" at Moda Sahnesi, as some source gives it.
fn jazz(start: &str) -> Event {
    Event {
        title: Some("Caz Gecesi".into()),
        start: parse_event_time(start),
        end: None,
        previous_start: None,
        venue: Venue { name: Some("Moda Sahnesi".into()), ..Venue::default() },
        price: Price::default(),
        ticket_url: None,
        image_url: None,
        description: None,
        status: EventStatus::Scheduled,
        status_stated: false,
        attendance: None,
        category: gleaner_event::Category::Concert,
        url: Some(url(PAGE)),
    }
}

async fn put(
    store: &Store,
    event: &Event,
    source: &str,
    fetched: &str,
    extractor: Extractor,
    t: u64,
) -> Upserted {
    let fetched = url(fetched);
    let write = EventWrite {
        event,
        source: Some(source),
        fetched_url: &fetched,
        fetched_at: day(t),
        keep: Keep::Full,
        extractor: Some(extractor),
    };
    store.upsert_event(&write).await.unwrap()
}

async fn count(store: &Store) -> usize {
    store.events_between(day(0), day(3650)).await.unwrap().len()
}

/// The five readings of one concert, each from another kind of source.
fn readings() -> Vec<(Event, &'static str, &'static str, Extractor)> {
    // The listing: a floating local time, the venue's name only, a short description.
    let mut listing = jazz("2026-12-03T20:30");
    listing.description = Some("Bir caz akşamı".into());
    // The event page: the time with its offset and the full address.
    let mut page = jazz("2026-12-03T20:30:00+03:00");
    page.venue.street = Some("Moda Cd. 12".into());
    page.venue.locality = Some("İstanbul".into());
    page.venue.country = Some("TR".into());
    page.description = Some("Bir caz akşamı".into());
    // The feed: the same title written otherwise, a longer description starting alike.
    let mut feed = jazz("2026-12-03T20:30:00+03:00");
    feed.title = Some("caz gecesi".into());
    feed.description = Some("Bir caz akşamı: üçlü ve konuk solist.".into());
    feed.url = Some(url("https://sahne.test/rss.xml"));
    // The calendar: no page of its own (linked to the .ics), venue by name.
    let mut calendar = jazz("2026-12-03T20:30:00+03:00");
    calendar.url = Some(url("https://sahne.test/takvim.ics"));
    // The ticketing API: the instant in UTC, a price range and a stated status.
    let mut api = jazz("2026-12-03T17:30:00Z");
    api.venue = Venue::default();
    api.price = Price {
        min: Some("150".parse().unwrap()),
        max: Some("400".parse().unwrap()),
        currency: Some("TRY".into()),
        is_free: Some(false),
    };
    api.status = EventStatus::Scheduled;
    api.status_stated = true;
    vec![
        (listing, "sahne", "https://sahne.test/program", Extractor::Microdata),
        (page, "sahne", PAGE, Extractor::JsonLd),
        (feed, "sahne-rss", "https://sahne.test/rss.xml", Extractor::Feed),
        (calendar, "sahne-ics", "https://sahne.test/takvim.ics", Extractor::ICalendar),
        (api, "ticketing", "https://tickets.test/v2/events?page=0", Extractor::Api),
    ]
}

each_backend_test! {
    async fn issue24_one_event_from_listing_page_feed_calendar_and_api(db) {
    let store = db.store.clone();
    let mut ids = Vec::new();
    for (i, (event, source, fetched, extractor)) in readings().iter().enumerate() {
        let upserted = put(&store, event, source, fetched, *extractor, 0).await;
        if i == 0 {
            assert!(matches!(upserted, Upserted::Inserted(_)), "{upserted:?}");
        }
        ids.push(upserted.id());
    }
    assert!(ids.iter().all(|id| *id == ids[0]), "one event: {ids:?}");
    assert_eq!(count(&store).await, 1);

    let stored = store.event(ids[0]).await.unwrap().unwrap();
    let e = &stored.event;
    // The page's time with its offset (the API's UTC instant is the same moment), the
    // full address, the API's price range and stated status, the longer description.
    assert_eq!(e.start.unwrap().to_iso(), "2026-12-03T20:30:00+03:00");
    assert_eq!(e.venue.street.as_deref(), Some("Moda Cd. 12"));
    assert_eq!(e.price.max.map(|d| d.to_string()).as_deref(), Some("400"));
    assert!(e.status_stated);
    assert_eq!(e.description.as_deref(), Some("Bir caz akşamı: üçlü ve konuk solist."));
    assert_eq!(e.url.as_ref().map(Url::as_str), Some(PAGE));
    assert_eq!(stored.source.as_deref(), Some("sahne"), "the event's own page leads");

    // Every source's provenance, with its extractor and what it gave.
    assert_eq!(stored.provenance.len(), 5, "{:?}", stored.provenance);
    let of = |source: &str| {
        stored.provenance.iter().find(|p| p.source.as_deref() == Some(source)).unwrap()
    };
    assert_eq!(of("sahne-ics").extractor, Some(Extractor::ICalendar));
    assert_eq!(of("ticketing").extractor, Some(Extractor::Api));
    assert!(of("ticketing").fields.contains(&Field::Price), "{:?}", of("ticketing"));
    assert!(of("sahne-rss").fields.contains(&Field::Description));
    let page = stored.provenance.iter().find(|p| p.fetch_url == PAGE).unwrap();
    assert_eq!(page.extractor, Some(Extractor::JsonLd));
    assert!(page.fields.contains(&Field::Start) && page.fields.contains(&Field::Venue));

    // A second pass of every source changes nothing: no source wins back and forth.
    for (event, source, fetched, extractor) in readings() {
        let again = put(&store, &event, source, fetched, extractor, 1).await;
        assert_eq!(again, Upserted::Unchanged(ids[0]), "{source}");
    }
    assert_eq!(count(&store).await, 1);
}
}

each_backend_test! {
    async fn issue24_never_merges_events_whose_own_pages_or_tickets_differ(db) {
    let store = db.store.clone();
    // Two dates of one festival on one page: the same page, other starts.
    let mut day_one = jazz("2026-07-01T18:00:00+03:00");
    day_one.title = Some("Moda Festivali".into());
    let mut day_two = day_one.clone();
    day_two.start = parse_event_time("2026-07-02T18:00:00+03:00");
    let a = put(&store, &day_one, "sahne", PAGE, Extractor::JsonLd, 0).await;
    let b = put(&store, &day_two, "sahne", PAGE, Extractor::JsonLd, 0).await;
    assert_ne!(a.id(), b.id(), "two festival dates are two events");

    // Two performances at the same time written alike, with their own ticket addresses.
    let mut first = jazz("2026-12-05T20:00:00+03:00");
    first.url = None;
    first.ticket_url = Some(url("https://tickets.test/caz/1"));
    let mut second = first.clone();
    second.ticket_url = Some(url("https://tickets.test/caz/2"));
    let c = put(&store, &first, "sahne", "https://sahne.test/program", Extractor::Microdata, 0).await;
    let d = put(&store, &second, "ticketing", "https://tickets.test/v2", Extractor::Api, 0).await;
    assert_ne!(c.id(), d.id(), "other ticket addresses are other events");

    // The same title, venue and instant on two pages of their own.
    let mut here = jazz("2026-12-06T20:00:00+03:00");
    here.url = Some(url("https://sahne.test/etkinlik/1"));
    let mut there = here.clone();
    there.url = Some(url("https://sahne.test/etkinlik/2"));
    let e = put(&store, &here, "sahne", "https://sahne.test/etkinlik/1", Extractor::JsonLd, 0).await;
    let f = put(&store, &there, "sahne", "https://sahne.test/etkinlik/2", Extractor::JsonLd, 0).await;
    assert_ne!(e.id(), f.id(), "other own pages are other events");

    // Another wall clock with offsets on both sides is another instant.
    let other_instant = jazz("2026-12-03T20:30:00+01:00");
    let g = put(&store, &jazz("2026-12-03T20:30:00+03:00"), "sahne", PAGE, Extractor::JsonLd, 0).await;
    let mut h_event = other_instant;
    h_event.url = None;
    let h = put(&store, &h_event, "ticketing", "https://tickets.test/v2", Extractor::Api, 0).await;
    assert_ne!(g.id(), h.id(), "20:30+03:00 and 20:30+01:00 are different moments");
    assert_eq!(count(&store).await, 8);

    // Positive control: each reading again is its own event again, unchanged.
    for (event, source, fetched, extractor, id) in [
        (&day_two, "sahne", PAGE, Extractor::JsonLd, b.id()),
        (&second, "ticketing", "https://tickets.test/v2", Extractor::Api, d.id()),
        (&there, "sahne", "https://sahne.test/etkinlik/2", Extractor::JsonLd, f.id()),
    ] {
        assert_eq!(put(&store, event, source, fetched, extractor, 1).await, Upserted::Unchanged(id));
    }
    assert_eq!(count(&store).await, 8);
}
}

each_backend_test! {
    async fn issue28_the_extractor_is_recorded_and_a_later_unknown_one_keeps_it(db) {
    let store = db.store.clone();
    let event = jazz("2026-12-03T20:30:00+03:00");
    let id = put(&store, &event, "sahne", PAGE, Extractor::Microformats, 0).await.id();
    let page = url(PAGE);
    // A write that does not know its extractor (an event handed back by a check).
    let write = EventWrite {
        event: &event,
        source: Some("sahne"),
        fetched_url: &page,
        fetched_at: day(1),
        keep: Keep::Full,
        extractor: None,
    };
    assert_eq!(store.upsert_event(&write).await.unwrap(), Upserted::Unchanged(id));
    let stored = store.event(id).await.unwrap().unwrap();
    assert_eq!(stored.provenance.len(), 1);
    assert_eq!(stored.provenance[0].extractor, Some(Extractor::Microformats));
    assert_eq!(stored.provenance[0].fetched_at, day(1));
}
}
