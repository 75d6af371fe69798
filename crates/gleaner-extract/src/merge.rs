//! The in-page merge index: the same event read in several formats on one page (same
//! title and start, compatible venue) is found in constant time per candidate, so a page
//! of 16,000 events merges in linear time (issue 24; the old linear search was quadratic).
//!
//! Events are bucketed by folded title and wall-clock start; within a bucket, a venue-less
//! event matches any venue and a named venue matches the same folded name. The match is the
//! earliest such event in page order, as the old search found it.

use std::collections::HashMap;

use gleaner_event::Event;
use gleaner_event::identity_parts::{fold, start_key};

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
}

fn key(e: &Event) -> Option<(String, String)> {
    let title = e.title.as_deref()?;
    Some((fold(title), start_key(e.start.as_ref())))
}

impl Index {
    /// The earliest event `e` is the same as, by the in-page rule.
    pub(crate) fn find(&self, events: &[Event], e: &Event) -> Option<usize> {
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
