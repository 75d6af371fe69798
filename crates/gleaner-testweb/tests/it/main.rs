//! Integration tests of the test web: scenarios, the ledger and the assertion helpers.
//!
//! One test binary for the crate (STYLE.md, "Integration: one binary per crate"). Every
//! test binds its own sites on 127.0.X.Y, so tests run in parallel, and every slow
//! scenario runs with [`client::fast_timings`].

mod checks;
mod city;
mod client;
mod ledger;
mod scenarios;
mod split;
