//! Pure politeness decisions for gleaner.
//!
//! This crate answers "may we fetch this URL now, and if not, why?" without doing any I/O
//! and without reading a clock: callers pass `now` in. It owns robots.txt (RFC 9309)
//! parsing and matching ([`robots`]) and the robots.txt fetch-outcome state machine
//! ([`robots::outcome`]). Fetching, storage and scheduling live in other crates.

pub mod robots;
