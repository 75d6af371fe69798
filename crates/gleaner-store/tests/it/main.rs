//! Integration tests of the store: gate state, registry and audit through the traits the
//! gate uses, events, retention, removal (the files hold none of the removed bytes) and
//! a crash test that kills a real crawling process. Every body runs on SQLite and, when
//! `GLEANER_TEST_POSTGRES_URL` is set (always in CI), on PostgreSQL (`util.rs`);
//! `workers.rs` runs several crawling processes on one PostgreSQL database, and
//! `copies.rs` a live and a staging copy sharing one politeness namespace.

mod copies;
mod crash;
mod daily_cap;
mod events;
mod frontier;
mod llm;
mod merge;
mod owners;
mod relay;
mod removal;
mod retention;
mod round_trips;
mod runs;
mod sqlite_migrations;
mod state;
mod util;
mod workers;
