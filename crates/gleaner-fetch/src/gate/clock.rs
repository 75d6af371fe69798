//! The wall clock the gate reads for calendar rules (days, quiet hours, suspensions,
//! blocks) and spacing. The trait lives in `gleaner_policy::clock`; the database's clock
//! in `gleaner-store` (`Store::clock`). Tests inject a [`ShiftedClock`], which advances
//! on Tokio's clock: with real time in tests against real sockets, and with the test's
//! paused time (`tokio::time::pause`) where nothing outside the process is waited on.

use std::time::SystemTime;

pub use gleaner_policy::clock::WallClock;
use tokio::time::Instant;

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl WallClock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that starts at a chosen wall time and advances with Tokio's (monotonic)
/// time: tests pick the date and hour (a quiet-hours window, a day boundary), and
/// spacing is measured on it, for real, or on paused time that auto-advances.
#[derive(Debug, Clone, Copy)]
pub struct ShiftedClock {
    start_wall: SystemTime,
    start: Instant,
}

impl ShiftedClock {
    /// A clock reading `start_wall` now.
    pub fn starting_at(start_wall: SystemTime) -> ShiftedClock {
        ShiftedClock { start_wall, start: Instant::now() }
    }

    /// A clock reading the system's wall time now, then advancing on Tokio's clock (the
    /// clock for a test on paused time).
    pub fn from_now() -> ShiftedClock {
        ShiftedClock::starting_at(SystemTime::now())
    }
}

impl WallClock for ShiftedClock {
    fn now(&self) -> SystemTime {
        self.start_wall + self.start.elapsed()
    }
}
