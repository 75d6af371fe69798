//! The wall clock the gate decides on, as a trait: this crate never reads a clock, its
//! callers pass `now` in. The implementations live where clocks are read: the system
//! clock and test clocks in `gleaner-fetch` (`gate::clock`), the database's clock in
//! `gleaner-store` (`Store::clock`).

use std::time::{Duration, SystemTime};

/// A source of wall-clock time.
pub trait WallClock: Send + Sync + std::fmt::Debug {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;

    /// How far [`WallClock::now`] may be from the clock it stands for, either way: zero
    /// for a clock read directly; for the database's clock carried on this process's
    /// (`gleaner-store`), half the round trip it was read over. The gate keeps every gap
    /// in spite of it: it records a start or an end this much later than it reads, and
    /// waits this much longer, so two workers whose readings err in opposite directions
    /// still leave the site its whole gap.
    fn uncertainty(&self) -> Duration {
        Duration::ZERO
    }
}
