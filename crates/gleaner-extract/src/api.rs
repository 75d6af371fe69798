//! JSON APIs read through a field mapping from the config: JSON pointers (RFC 6901) to an
//! array of events and, inside each event, to its fields, with an optional nested venue.
//!
//! [`ApiMapping`] is `serde::Deserialize` so the config crate can embed it under a source:
//!
//! ```toml
//! [sources.mapping]
//! events = "/events"
//! id = "/id"
//! title = "/title"
//! start = "/start"
//! venue = "/venue"          # venue_* pointers are then read inside it
//! venue_name = "/name"
//! locality = "/city"
//! price_min = "/price/min"
//! ```
//!
//! Values may be strings, numbers or booleans; an array gives its first element. A pointer
//! that finds nothing leaves the field empty. Rejected: a document that is not JSON, and a
//! document whose `events` pointer does not lead to an array (or one object, read as one
//! event). At most [`MAX_EVENTS`] events are read.

use gleaner_event::{RawEvent, RawOffer};
use serde::Deserialize;
use serde_json::Value;

use crate::{Diagnostic, Format, Severity};

/// Events beyond this many are not read.
pub const MAX_EVENTS: usize = 20_000;

/// Where an API's fields are, as JSON pointers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiMapping {
    /// Pointer to the array of events; `""` when the document is the array.
    #[serde(default)]
    pub events: String,
    /// The event's id in the API, for identity.
    pub id: Option<String>,
    /// Title.
    pub title: Option<String>,
    /// Start (ISO 8601).
    pub start: Option<String>,
    /// End (ISO 8601).
    pub end: Option<String>,
    /// The event's page.
    pub url: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Image URL.
    pub image: Option<String>,
    /// Status word (`cancelled`, `EventPostponed`, …).
    pub status: Option<String>,
    /// Pointer to a nested venue object; the `venue_name`, `street`, `locality`,
    /// `postal_code` and `country` pointers are read inside it when it is set.
    pub venue: Option<String>,
    /// Venue name.
    pub venue_name: Option<String>,
    /// Street.
    pub street: Option<String>,
    /// Town.
    pub locality: Option<String>,
    /// Postal code.
    pub postal_code: Option<String>,
    /// Country (code or name).
    pub country: Option<String>,
    /// One price.
    pub price: Option<String>,
    /// Lowest price.
    pub price_min: Option<String>,
    /// Highest price.
    pub price_max: Option<String>,
    /// Currency code.
    pub currency: Option<String>,
    /// Whether it is free (`true`/`false`).
    pub is_free: Option<String>,
    /// Where to buy tickets.
    pub ticket_url: Option<String>,
    /// Keywords or genres (a string or an array of strings).
    pub keywords: Option<String>,
}

/// One event read from an API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiEvent {
    /// The API's id for it.
    pub id: Option<String>,
    /// Where in the document (`/events/3`).
    pub location: String,
    /// The values, for `normalise`.
    pub raw: RawEvent,
}

/// What an API document held.
#[derive(Debug, Clone, Default)]
pub struct ApiEvents {
    /// Events in document order.
    pub events: Vec<ApiEvent>,
    /// What was refused or dropped.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads an API document through a mapping. Never panics.
pub fn read(bytes: &[u8], mapping: &ApiMapping) -> ApiEvents {
    let mut out = ApiEvents::default();
    let doc: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            out.diag(Severity::Error, format!("not JSON: {e}"), "");
            return out;
        }
    };
    let items: Vec<&Value> = match doc.pointer(&mapping.events) {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(o @ Value::Object(_)) => vec![o],
        Some(_) | None => {
            out.diag(
                Severity::Error,
                format!("pointer `{}` does not lead to an array of events", mapping.events),
                "",
            );
            return out;
        }
    };
    if items.len() > MAX_EVENTS {
        out.diag(
            Severity::Warning,
            format!("read the first {MAX_EVENTS} of {} events", items.len()),
            "",
        );
    }
    for (i, item) in items.into_iter().take(MAX_EVENTS).enumerate() {
        let get = |p: &Option<String>| p.as_deref().and_then(|p| scalar(item.pointer(p)?));
        let venue = mapping.venue.as_deref().and_then(|p| item.pointer(p));
        let get_venue = |p: &Option<String>| match venue {
            Some(v) => p.as_deref().and_then(|p| scalar(v.pointer(p)?)),
            None => get(p),
        };
        let keywords = mapping
            .keywords
            .as_deref()
            .and_then(|p| item.pointer(p))
            .map(|v| match v {
                Value::Array(a) => a.iter().filter_map(scalar).collect(),
                other => scalar(other).into_iter().collect(),
            })
            .unwrap_or_default();
        let mut raw = RawEvent {
            types: vec!["Event".to_owned()],
            name: get(&mapping.title),
            description: get(&mapping.description),
            url: get(&mapping.url),
            image: get(&mapping.image),
            start: get(&mapping.start),
            end: get(&mapping.end),
            status: get(&mapping.status),
            is_accessible_for_free: get(&mapping.is_free),
            keywords,
            location_name: get_venue(&mapping.venue_name),
            street: get_venue(&mapping.street),
            locality: get_venue(&mapping.locality),
            postal_code: get_venue(&mapping.postal_code),
            country: get_venue(&mapping.country),
            ..RawEvent::default()
        };
        let offer = RawOffer {
            price: get(&mapping.price),
            low_price: get(&mapping.price_min),
            high_price: get(&mapping.price_max),
            currency: get(&mapping.currency),
            url: get(&mapping.ticket_url),
            availability: None,
        };
        if offer != RawOffer::default() {
            raw.offers.push(offer);
        }
        let location = format!("{}/{i}", mapping.events);
        if raw.name.is_none() && raw.start.is_none() {
            out.diag(Severity::Warning, "no title and no start: skipped".into(), &location);
            continue;
        }
        out.events.push(ApiEvent { id: get(&mapping.id), location, raw });
    }
    out
}

/// A value as text: strings, numbers, booleans; an array's first element.
pub(crate) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()).filter(|s| !s.trim().is_empty()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(a) => a.first().and_then(scalar),
        Value::Null | Value::Object(_) => None,
    }
}

impl ApiEvents {
    fn diag(&mut self, severity: Severity, message: String, location: &str) {
        self.diagnostics.push(Diagnostic {
            severity,
            format: Format::Api,
            message,
            location: location.to_owned(),
        });
    }
}
