//! Pure politeness decisions for gleaner.
//!
//! This crate answers "may we fetch this URL now, and if not, why?" without doing any I/O
//! and without reading a clock: callers pass `now` in (as a [`std::time::SystemTime`]
//! value). It owns robots.txt (RFC 9309) parsing and matching ([`robots`]), the robots.txt
//! fetch-outcome state machine ([`robots::outcome`]) and the [`Purpose`] of a request.
//! Fetching, storage and scheduling live in other crates.

pub mod audit;
pub mod budget;
pub mod clock;
pub mod outcome;
pub mod purpose;
pub mod registry;
pub mod robots;
pub mod signals;
pub mod state;

pub use purpose::Purpose;
