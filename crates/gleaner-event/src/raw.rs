//! The raw event: strings as an extractor found them, before any interpretation.
//!
//! Extractors (JSON-LD, microdata, RDFa, later feeds and calendars) fill a [`RawEvent`];
//! [`crate::normalise`] turns it into an [`crate::Event`]. Nothing here is parsed yet.

/// How a reader's strings are written: whether HTML entities and tags are still in them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Markup {
    /// HTML source text (JSON-LD strings, feed descriptions, API fields): entities are
    /// decoded and tags removed, once, by `normalise`.
    #[default]
    Html,
    /// Text a DOM has already decoded (microdata, RDFa, microformats, the fallback, site
    /// rules): taken as written, so `&amp;amp;` on the page stays `&amp;`.
    Text,
}

/// One event as found on a page: every value is the source's own text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawEvent {
    /// Whether the values below still carry HTML entities and tags.
    pub markup: Markup,
    /// schema.org types, short names (`MusicEvent`, `Festival`).
    pub types: Vec<String>,
    /// The event's name.
    pub name: Option<String>,
    /// Free text describing the event (may contain HTML).
    pub description: Option<String>,
    /// The event's own page (may be relative).
    pub url: Option<String>,
    /// The node's identifier (JSON-LD `@id`, microdata `itemid`, RDFa `resource`/`about`):
    /// the event's page when it is an http(s) URL of the page's own site and `url` is absent.
    pub id: Option<String>,
    /// An image of the event (may be relative).
    pub image: Option<String>,
    /// Start date or date-time.
    pub start: Option<String>,
    /// End date or date-time.
    pub end: Option<String>,
    /// A zone the page states for its local times (an IANA name or zone words such as
    /// `TSİ` or `heure de Paris`), when the times themselves carry none.
    pub zone: Option<String>,
    /// schema.org `previousStartDate`, for rescheduled events.
    pub previous_start: Option<String>,
    /// schema.org `eventStatus` (URL or bare token).
    pub status: Option<String>,
    /// schema.org `eventAttendanceMode` (URL or bare token).
    pub attendance_mode: Option<String>,
    /// schema.org `isAccessibleForFree`.
    pub is_accessible_for_free: Option<String>,
    /// Keywords or genres that help pick a category.
    pub keywords: Vec<String>,
    /// The venue's name (Place `name`).
    pub location_name: Option<String>,
    /// The location given as plain text (a venue name or a whole address).
    pub location_text: Option<String>,
    /// Whether a `VirtualLocation` was given.
    pub has_virtual_location: bool,
    /// A whole postal address given as one string.
    pub address_text: Option<String>,
    /// `streetAddress`.
    pub street: Option<String>,
    /// `addressLocality`.
    pub locality: Option<String>,
    /// `addressRegion`.
    pub region: Option<String>,
    /// `postalCode`.
    pub postal_code: Option<String>,
    /// `addressCountry` (code or name).
    pub country: Option<String>,
    /// Offers, in page order.
    pub offers: Vec<RawOffer>,
}

impl RawEvent {
    /// Whether some offer gives a price (`price`, `lowPrice` or `highPrice`).
    pub fn has_price(&self) -> bool {
        self.offers.iter().any(RawOffer::has_price)
    }

    /// Makes `url` where to buy: the first offer's link, or a new offer holding only it.
    pub fn set_ticket_url(&mut self, url: String) {
        match self.offers.first_mut() {
            Some(o) => o.url = Some(url),
            None => self.offers.push(RawOffer { url: Some(url), ..RawOffer::default() }),
        }
    }
}

impl RawOffer {
    /// Whether the offer gives a price (`price`, `lowPrice` or `highPrice`).
    pub fn has_price(&self) -> bool {
        self.price.is_some() || self.low_price.is_some() || self.high_price.is_some()
    }
}

/// One `Offer` or `AggregateOffer`, as found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawOffer {
    /// `price` (number or text such as `$35` or `Free`).
    pub price: Option<String>,
    /// `lowPrice` / `minPrice`.
    pub low_price: Option<String>,
    /// `highPrice` / `maxPrice`.
    pub high_price: Option<String>,
    /// `priceCurrency`.
    pub currency: Option<String>,
    /// Where to buy (`url`).
    pub url: Option<String>,
    /// `availability` (URL or bare token).
    pub availability: Option<String>,
}
