//! The gleaner event vocabulary.
//!
//! This crate owns what an event *is* once it has been read: [`Event`] and its parts
//! ([`Venue`], [`Price`], [`EventStatus`], [`Category`]), the [`normalise`] step that turns
//! a [`RawEvent`] (strings as found on a page) into an [`Event`], the [`EventIdentity`] used
//! to merge the same event seen in several places ([`merge`]: one event from many sources'
//! readings), and the [`PublicEvent`] JSON shape of the
//! `gleaner extract` contract (SPEC §6).
//!
//! It leaves reading pages to `gleaner-extract`, storing to `gleaner-store` and publishing to
//! the server. It does no I/O and reads no clock.

mod address;
pub mod datetext;
mod identity;
pub mod merge;
/// The pieces the identity is built from, for callers that match events more loosely.
pub mod identity_parts {
    pub use crate::identity::{fold, start_key};
}
mod free_tier;
mod model;
mod normalise;
mod price;
mod price_words;
mod public;
mod raw;
mod regions;
pub mod text;
pub mod time;
pub mod zone;

pub use address::{country_code, is_uk_postcode};
pub use free_tier::states_free_tier;
pub use identity::EventIdentity;
pub use model::{AttendanceMode, Category, Event, EventStatus, Price, Venue};
pub use normalise::{
    NormaliseContext, NormaliseError, NormaliseWarning, Normalised, normalise, same_site,
};
pub use price::{
    DOLLAR_SIGN, PriceText, dollar_currency, parse_price_text, pay_what_you_wish, priced_range,
    says_free, says_free_entry,
};
pub use price_words::amounts_in_words;
pub use public::PublicEvent;
pub use raw::{Markup, RawEvent, RawOffer};
pub use time::EventTime;
