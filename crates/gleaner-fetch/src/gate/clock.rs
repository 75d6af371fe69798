//! The wall clock the gate reads for calendar rules (days, quiet hours, suspensions,
//! blocks). Tests inject one; spacing is measured on it too, and a test clock advances
//! with real time, so spacing stays real.

use std::time::{Instant, SystemTime};

/// A source of wall-clock time.
pub trait WallClock: Send + Sync + std::fmt::Debug {
    /// The current wall-clock time.
    fn now(&self) -> SystemTime;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl WallClock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

/// A clock that starts at a chosen wall time and advances with real (monotonic) time:
/// tests pick the date and hour (a quiet-hours window, a day boundary) while spacing
/// is still measured for real.
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
}

impl WallClock for ShiftedClock {
    fn now(&self) -> SystemTime {
        self.start_wall + self.start.elapsed()
    }
}
