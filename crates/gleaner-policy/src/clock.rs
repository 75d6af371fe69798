//! The wall clock the gate decides on, as a trait: this crate never reads a clock, its
//! callers pass `now` in. The implementations live where clocks are read: the system
//! clock and test clocks in `gleaner-fetch` (`gate::clock`), the database's clock in
//! `gleaner-store` (`Store::clock`).

use std::time::SystemTime;

/// A source of wall-clock time.
pub trait WallClock: Send + Sync + std::fmt::Debug {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
}
