//! The in-page merge index: the same event read in several formats on one page (same
//! title and start, compatible venue) is found in constant time per candidate, so a page
//! of 16,000 events merges in linear time (issue 24; the old linear search was quadratic).
//!
//! Events are bucketed by folded title and wall-clock start; within a bucket, a venue-less
//! event matches any venue and a named venue matches the same folded name. The match is the
//! earliest such event in page order, as the old search found it.

use std::collections::HashMap;

use chrono::NaiveDate;
use gleaner_event::identity_parts::{fold, start_key};
use gleaner_event::{Event, EventTime};

/// Events of one title and start.
#[derive(Default)]
struct Bucket {
    /// The first event of the bucket (matches a candidate without a venue).
    first: usize,
    /// The first event per folded venue name.
    by_venue: HashMap<String, usize>,
    /// Events still without a venue name, in page order.
    no_venue: std::collections::BTreeSet<usize>,
}

/// Index of the page's events by identity (title and start).
#[derive(Default)]
pub(crate) struct Index {
    buckets: HashMap<(String, String), Bucket>,
    /// Events by folded title and start day, for a date-only reading of a timed event.
    days: HashMap<(String, NaiveDate), Vec<usize>>,
}

fn day_key(e: &Event) -> Option<(String, NaiveDate)> {
    Some((fold(e.title.as_deref()?), e.start.as_ref()?.date()))
}

/// Whether two readings can be one event: no two different venue names or own URLs.
fn compatible(a: &Event, b: &Event) -> bool {
    let venues = match (a.venue.name.as_deref(), b.venue.name.as_deref()) {
        (Some(x), Some(y)) => fold(x) == fold(y),
        _ => true,
    };
    let urls = match (&a.url, &b.url) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    venues && urls
}

fn key(e: &Event) -> Option<(String, String)> {
    let title = e.title.as_deref()?;
    Some((fold(title), start_key(e.start.as_ref())))
}

impl Index {
    /// The earliest event `e` is the same as, by the in-page rule.
    pub(crate) fn find(&self, events: &[Event], e: &Event) -> Option<usize> {
        self.find_exact(events, e).or_else(|| self.find_by_day(events, e))
    }

    /// A date-only reading and a timed one of the same title on that day, when the day has
    /// exactly one reading of the other kind (one JSON-LD `startDate: 2026-05-08` beside the
    /// microdata's `2026-05-08T20:00`; two timed performances that day stay apart).
    fn find_by_day(&self, events: &[Event], e: &Event) -> Option<usize> {
        let dated = |x: &Event| matches!(x.start, Some(EventTime::Date(_)));
        let mut others =
            self.days.get(&day_key(e)?)?.iter().copied().filter(|&i| dated(&events[i]) != dated(e));
        let (Some(found), None) = (others.next(), others.next()) else { return None };
        compatible(&events[found], e).then_some(found)
    }

    fn find_exact(&self, events: &[Event], e: &Event) -> Option<usize> {
        let b = self.buckets.get(&key(e)?)?;
        let Some(venue) = e.venue.name.as_deref() else { return Some(b.first) };
        let named = b.by_venue.get(&fold(venue)).copied();
        let unnamed = b.no_venue.first().copied();
        let found = match (named, unnamed) {
            (Some(a), Some(u)) => a.min(u),
            (a, u) => a.or(u)?,
        };
        debug_assert!(found < events.len());
        Some(found)
    }

    /// Records a new event at `at`.
    pub(crate) fn insert(&mut self, e: &Event, at: usize) {
        if let Some(d) = day_key(e) {
            let at_day = self.days.entry(d).or_default();
            if !at_day.contains(&at) {
                at_day.push(at);
            }
        }
        let Some(k) = key(e) else { return };
        let b = self.buckets.entry(k).or_insert_with(|| Bucket { first: at, ..Bucket::default() });
        match e.venue.name.as_deref() {
            Some(v) => {
                b.by_venue.entry(fold(v)).or_insert(at);
            }
            None => {
                b.no_venue.insert(at);
            }
        }
    }

    /// The venue-less event at `at` was given a venue by a merge.
    pub(crate) fn venue_filled(&mut self, events: &[Event], at: usize) {
        let e = &events[at];
        let (Some(k), Some(v)) = (key(e), e.venue.name.as_deref()) else { return };
        if let Some(b) = self.buckets.get_mut(&k) {
            b.no_venue.remove(&at);
            let slot = b.by_venue.entry(fold(v)).or_insert(at);
            *slot = (*slot).min(at);
        }
    }
}
