//! Helpers shared by the store tests.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::NaiveDate;
use gleaner_event::time::EventTime;
use gleaner_event::{Category, Event, EventStatus, Price, Venue};
use gleaner_store::Store;
use url::Url;

/// A fresh store in a temporary directory (kept alive by the returned guard).
pub fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_sqlite(&dir.path().join("gleaner.db")).unwrap();
    (dir, store)
}

/// A time `days` after 2026-01-01.
pub fn day(days: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_767_225_600 + days * 86_400)
}

/// An event on a date, with a description and an image.
pub fn event(title: &str, date: (i32, u32, u32), page: &str, description: &str) -> Event {
    Event {
        title: Some(title.to_owned()),
        start: Some(EventTime::Date(NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap())),
        end: None,
        previous_start: None,
        venue: Venue { name: Some("Town Hall".into()), ..Venue::default() },
        price: Price { min: Some("12.50".parse().unwrap()), ..Price::default() },
        ticket_url: None,
        image_url: Some(Url::parse(&format!("{page}image.jpg")).unwrap()),
        description: Some(description.to_owned()),
        status: EventStatus::Scheduled,
        status_stated: false,
        attendance: None,
        category: Category::Concert,
        url: Some(Url::parse(page).unwrap()),
    }
}
