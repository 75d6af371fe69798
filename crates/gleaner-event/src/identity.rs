//! Event identity: the same event read from a listing, its page, a feed and a calendar is
//! one event (SPEC §2).
//!
//! The identity is a stable hash (FNV-1a, 64 bits, fixed forever so stored identities stay
//! valid) of the folded title, the start as wall-clock time and the folded venue name.
//! It is a lookup key, not the whole rule: the store also finds the same event read
//! elsewhere by its own page, or by title, venue and instant (`crate::merge`).

use std::fmt;

use crate::model::Event;
use crate::time::EventTime;

/// A stable identity for deduplication; equal identities mean "the same event".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventIdentity(pub u64);

impl EventIdentity {
    /// The identity of a normalised event.
    pub fn of(event: &Event) -> EventIdentity {
        let mut h = Fnv::new();
        h.write(fold(event.title.as_deref().unwrap_or("")).as_bytes());
        h.write(&[0xff]);
        h.write(start_key(event.start.as_ref()).as_bytes());
        h.write(&[0xff]);
        h.write(fold(event.venue.name.as_deref().unwrap_or("")).as_bytes());
        EventIdentity(h.finish())
    }

    /// The identity of an event its source names itself: a calendar's `UID` with the
    /// `RECURRENCE-ID` of an instance (`gleaner_extract::ical::IcalEvent::identity`), a
    /// feed item's `guid`, an API's id. Scoped by `source` (the site or source name), since
    /// such ids are only unique within their source; never equal to an [`EventIdentity::of`].
    pub fn of_source_id(source: &str, id: &str) -> EventIdentity {
        let mut h = Fnv::new();
        h.write(b"source-id\xfe");
        h.write(source.as_bytes());
        h.write(&[0xff]);
        h.write(id.trim().as_bytes());
        EventIdentity(h.finish())
    }

    /// Another identity for an event that must stay apart from the one holding this
    /// identity (another page, ticket address or start written alike): this identity
    /// with `discriminator` (what differs) hashed in. Stable like the others.
    pub fn distinct(self, discriminator: &str) -> EventIdentity {
        let mut h = Fnv::new();
        h.write(b"distinct\xfe");
        h.write(&self.0.to_be_bytes());
        h.write(discriminator.as_bytes());
        EventIdentity(h.finish())
    }
}

impl fmt::Display for EventIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Lower-cased letters and digits only, so punctuation and spacing do not split an event.
pub fn fold(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The start as written on the wall clock (offsets differ between sources of one event).
pub fn start_key(start: Option<&EventTime>) -> String {
    match start {
        None => String::new(),
        Some(EventTime::Date(d)) => d.format("%Y-%m-%d").to_string(),
        Some(EventTime::Floating(dt)) => dt.format("%Y-%m-%dT%H:%M").to_string(),
        Some(EventTime::Fixed(dt)) => dt.naive_local().format("%Y-%m-%dT%H:%M").to_string(),
    }
}

struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NormaliseContext, RawEvent, normalise};

    fn event(title: &str, start: &str, venue: &str) -> Event {
        let base = url::Url::parse("https://example.org/").unwrap();
        let raw = RawEvent {
            name: Some(title.into()),
            start: Some(start.into()),
            location_name: Some(venue.into()),
            ..RawEvent::default()
        };
        normalise(&raw, &NormaliseContext { base_url: &base, default_tz: None }).unwrap().event
    }

    #[test]
    fn same_event_from_several_places_has_one_identity() {
        let a =
            EventIdentity::of(&event("B.B. King", "2014-04-12T19:30", "Lupo's Heartbreak Hotel"));
        let b = EventIdentity::of(&event(
            "  b.b. KING ",
            "2014-04-12T19:30:00-04:00",
            "Lupos Heartbreak Hotel",
        ));
        assert_eq!(a, b);
        let other =
            EventIdentity::of(&event("B.B. King", "2014-04-13T19:30", "Lupo's Heartbreak Hotel"));
        assert_ne!(a, other);
    }

    #[test]
    fn identity_is_stable_across_releases() {
        // Stored identities depend on this value: changing it is a data migration.
        let id = EventIdentity::of(&event("Gig", "2026-01-01T20:00", "Hall"));
        assert_eq!(id.to_string(), format!("{:016x}", id.0));
        assert_eq!(id, EventIdentity(STABLE_GIG));
    }

    #[test]
    fn source_ids_are_scoped_by_source() {
        let a = EventIdentity::of_source_id("cal.example", "uid-1#2020-01-29T22:00:00+01:00");
        assert_eq!(
            a,
            EventIdentity::of_source_id("cal.example", " uid-1#2020-01-29T22:00:00+01:00")
        );
        assert_ne!(
            a,
            EventIdentity::of_source_id("other.example", "uid-1#2020-01-29T22:00:00+01:00")
        );
        assert_ne!(a, EventIdentity::of_source_id("cal.example", "uid-1"));
    }

    const STABLE_GIG: u64 = 0x30a3_179f_3102_08e5;
}
