//! The public JSON shape of an event: the stable `gleaner extract` contract (SPEC §6).

use serde::Serialize;

use crate::model::Event;

/// One event as `gleaner extract` prints it: exactly these 16 keys, absent values as `null`.
///
/// Date-times are ISO 8601 with an offset where one is known; prices are decimal strings
/// (`"13.00"`), exact as written; `status` is one of `scheduled`, `cancelled`, `postponed`,
/// `rescheduled`, `moved_online`, or `null` when the source does not say (issue 24: no
/// default is ever published as if the page had stated it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PublicEvent {
    /// The title.
    pub title: Option<String>,
    /// Start, ISO 8601.
    pub start: Option<String>,
    /// End, ISO 8601.
    pub end: Option<String>,
    /// The venue's name.
    pub venue_name: Option<String>,
    /// Street and number.
    pub street: Option<String>,
    /// Town or city.
    pub locality: Option<String>,
    /// ISO 3166-1 alpha-2 code.
    pub country: Option<String>,
    /// Lowest price, as a decimal string.
    pub price_min: Option<String>,
    /// Highest price, as a decimal string.
    pub price_max: Option<String>,
    /// ISO 4217 code.
    pub currency: Option<String>,
    /// Whether the event is free, when known.
    pub is_free: Option<bool>,
    /// Where to buy tickets.
    pub ticket_url: Option<String>,
    /// An image of the event.
    pub image_url: Option<String>,
    /// A description.
    pub description: Option<String>,
    /// The status the source states; `null` when it states none (and for the internal "gone
    /// at source", which is never published).
    pub status: Option<&'static str>,
    /// The event's own page.
    pub url: Option<String>,
}

impl From<&Event> for PublicEvent {
    fn from(e: &Event) -> PublicEvent {
        PublicEvent {
            title: e.title.clone(),
            start: e.start.map(|t| t.to_iso()),
            end: e.end.map(|t| t.to_iso()),
            venue_name: e.venue.name.clone(),
            street: e.venue.street.clone(),
            locality: e.venue.locality.clone(),
            country: e.venue.country.clone(),
            price_min: e.price.min.map(|d| d.to_string()),
            price_max: e.price.max.map(|d| d.to_string()),
            currency: e.price.currency.clone(),
            is_free: e.price.is_free,
            ticket_url: e.ticket_url.as_ref().map(|u| u.to_string()),
            image_url: e.image_url.as_ref().map(|u| u.to_string()),
            description: e.description.clone(),
            status: if e.status_stated { e.status.public_name() } else { None },
            url: e.url.as_ref().map(|u| u.to_string()),
        }
    }
}
