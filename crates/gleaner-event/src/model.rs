//! The normalised event and its parts.

use rust_decimal::Decimal;
use url::Url;

use crate::time::EventTime;

/// One event, normalised: the facts gleaner keeps (SPEC §2).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's title, cleaned of markup and extra whitespace.
    pub title: Option<String>,
    /// When it starts.
    pub start: Option<EventTime>,
    /// When it ends.
    pub end: Option<EventTime>,
    /// The start before it was rescheduled, when the source says.
    pub previous_start: Option<EventTime>,
    /// Where it happens.
    pub venue: Venue,
    /// What it costs.
    pub price: Price,
    /// Where to buy tickets.
    pub ticket_url: Option<Url>,
    /// An image of the event.
    pub image_url: Option<Url>,
    /// A description, cleaned of markup.
    pub description: Option<String>,
    /// Scheduled, cancelled, … ([`EventStatus::Scheduled`] when the source does not say).
    pub status: EventStatus,
    /// Whether the source stated the status (false means the default was applied).
    pub status_stated: bool,
    /// In person, online or both, when stated.
    pub attendance: Option<AttendanceMode>,
    /// One category from gleaner's taxonomy.
    pub category: Category,
    /// The event's own page, absolute, with tracking parameters removed.
    pub url: Option<Url>,
}

/// Where an event happens. Every part is optional: pages give what they give.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Venue {
    /// The venue's name.
    pub name: Option<String>,
    /// Street and number.
    pub street: Option<String>,
    /// Town or city.
    pub locality: Option<String>,
    /// State, province or region.
    pub region: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2 country code.
    pub country: Option<String>,
}

impl Venue {
    /// Whether no part of the venue is known.
    pub fn is_empty(&self) -> bool {
        *self == Venue::default()
    }
}

/// What an event costs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Price {
    /// The lowest price.
    pub min: Option<Decimal>,
    /// The highest price.
    pub max: Option<Decimal>,
    /// ISO 4217 currency code.
    pub currency: Option<String>,
    /// `Some(true)` when the event is free, `Some(false)` when stated as not free.
    pub is_free: Option<bool>,
}

/// Whether an event still stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventStatus {
    /// Happening as announced.
    Scheduled,
    /// Called off.
    Cancelled,
    /// Delayed to a date not yet known.
    Postponed,
    /// Moved to a new date.
    Rescheduled,
    /// Moved from a venue to online.
    MovedOnline,
    /// Internal only: the event's page now answers 404/410. Never published as
    /// "cancelled" (SPEC §2) and never produced by extraction.
    GoneAtSource,
}

impl EventStatus {
    /// The public name, or `None` for [`EventStatus::GoneAtSource`], which is never published.
    pub fn public_name(self) -> Option<&'static str> {
        Some(match self {
            EventStatus::Scheduled => "scheduled",
            EventStatus::Cancelled => "cancelled",
            EventStatus::Postponed => "postponed",
            EventStatus::Rescheduled => "rescheduled",
            EventStatus::MovedOnline => "moved_online",
            EventStatus::GoneAtSource => return None,
        })
    }

    /// Reads a schema.org `eventStatus` (full URL or bare token, any case).
    pub fn from_schema(value: &str) -> Option<EventStatus> {
        let token = last_segment(value).to_ascii_lowercase();
        Some(match token.as_str() {
            "eventscheduled" | "scheduled" => EventStatus::Scheduled,
            "eventcancelled" | "eventcanceled" | "cancelled" | "canceled" => EventStatus::Cancelled,
            "eventpostponed" | "postponed" => EventStatus::Postponed,
            "eventrescheduled" | "rescheduled" => EventStatus::Rescheduled,
            "eventmovedonline" | "movedonline" | "moved_online" => EventStatus::MovedOnline,
            _ => return None,
        })
    }
}

/// How people attend (schema.org `eventAttendanceMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttendanceMode {
    /// At a physical place.
    Offline,
    /// Online only.
    Online,
    /// Both.
    Mixed,
}

impl AttendanceMode {
    /// Reads a schema.org `eventAttendanceMode` (full URL or bare token).
    pub fn from_schema(value: &str) -> Option<AttendanceMode> {
        let token = last_segment(value).to_ascii_lowercase();
        Some(match token.as_str() {
            "offlineeventattendancemode" | "offline" => AttendanceMode::Offline,
            "onlineeventattendancemode" | "online" => AttendanceMode::Online,
            "mixedeventattendancemode" | "mixed" => AttendanceMode::Mixed,
            _ => return None,
        })
    }
}

/// gleaner's own taxonomy: one category per event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// Concerts and other live music.
    Concert,
    /// Theatre, dance, opera, comedy.
    Theatre,
    /// Exhibitions and visual arts.
    Exhibition,
    /// Festivals.
    Festival,
    /// Events for children and families.
    Family,
    /// Film screenings.
    Film,
    /// Talks, lectures, workshops, meetings.
    Talk,
    /// Sport.
    Sport,
    /// Clubs, parties, nightlife.
    Nightlife,
    /// Anything else.
    Other,
}

impl Category {
    /// The taxonomy name (`concert`, `theatre`, …).
    pub fn name(self) -> &'static str {
        match self {
            Category::Concert => "concert",
            Category::Theatre => "theatre",
            Category::Exhibition => "exhibition",
            Category::Festival => "festival",
            Category::Family => "family",
            Category::Film => "film",
            Category::Talk => "talk",
            Category::Sport => "sport",
            Category::Nightlife => "nightlife",
            Category::Other => "other",
        }
    }
}

/// The last path segment or fragment of a schema.org URL (`https://schema.org/EventCancelled`
/// → `EventCancelled`); a bare token is returned as is.
pub(crate) fn last_segment(value: &str) -> &str {
    let v = value.trim().trim_end_matches('/');
    v.rsplit(['/', '#', ':']).next().unwrap_or(v)
}
