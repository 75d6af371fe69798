//! Integration tests of the store: gate state, registry and audit through the traits the
//! gate uses, events, retention, removal (the files hold none of the removed bytes) and
//! a crash test that kills a real crawling process.

mod crash;
mod events;
mod removal;
mod retention;
mod state;
mod util;
