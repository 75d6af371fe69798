//! The store's clock ([`Store::clock`]): on SQLite this machine's (one process per file);
//! on PostgreSQL, for processes sharing the store, the database server's clock,
//! read once and then carried forward on this process's monotonic clock (SPEC §7,
//! "clocks drift"). Budget times (a site's last start, its suspension, quota days) are
//! written by one worker and compared by another; read from the database, a worker whose
//! own clock is minutes off still keeps every gap. Reading `now()` inside every
//! reservation would cost a round trip per decision and the policy closure is
//! synchronous, so the clock is synced instead: at start and every [`RESYNC`], each
//! reading is the database time of the last sync plus the monotonic time since, within
//! half a round trip (sub-millisecond on a LAN) plus the monotonic clock's drift
//! (parts per million) of the database's.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};

use gleaner_policy::clock::WallClock;
// Tokio's instant: the real monotonic clock, except under a test's paused time, where
// the clock moves with the test's time.
use tokio::time::Instant;

use crate::{BackendKind, Store, StoreError};

/// How often the clock is synced with the database again.
const RESYNC: Duration = Duration::from_secs(60);

/// A test hook: this process's own wall clock is read this many milliseconds off (signed),
/// to show that workers sharing a database do not depend on it.
const SKEW_ENV: &str = "GLEANER_TEST_WALL_CLOCK_SKEW_MS";

/// The database's clock carried on the local monotonic clock.
#[derive(Debug)]
struct DatabaseClock {
    /// A database time and the local instant it was read at (the middle of the trip).
    anchor: Mutex<(Instant, SystemTime)>,
}

impl DatabaseClock {
    /// Reads the database clock and keeps it synced every [`RESYNC`] while the returned
    /// clock lives (the sync task holds it weakly).
    async fn synced(store: &Store) -> Result<Arc<DatabaseClock>, StoreError> {
        let (at, time) = read(store).await?;
        let clock = Arc::new(DatabaseClock { anchor: Mutex::new((at, time)) });
        let (weak, store) = (Arc::downgrade(&clock), store.clone());
        tokio::spawn(resync_loop(weak, store));
        Ok(clock)
    }

    /// Takes a new reading; the clock never goes back.
    fn set(&self, at: Instant, time: SystemTime) {
        let current = self.reading(at);
        *self.anchor.lock().unwrap_or_else(|p| p.into_inner()) = (at, time.max(current));
    }

    fn reading(&self, at: Instant) -> SystemTime {
        let (anchor, time) = *self.anchor.lock().unwrap_or_else(|p| p.into_inner());
        match at.checked_duration_since(anchor) {
            Some(elapsed) => time + elapsed,
            None => time - anchor.duration_since(at),
        }
    }
}

impl WallClock for DatabaseClock {
    fn now(&self) -> SystemTime {
        self.reading(Instant::now())
    }
}

/// One reading: the local instant in the middle of the round trip, and the database
/// time.
async fn read(store: &Store) -> Result<(Instant, SystemTime), StoreError> {
    let sent = Instant::now();
    let time = store.database_time().await?;
    let trip = sent.elapsed();
    Ok((sent + trip / 2, time))
}

async fn resync_loop(clock: Weak<DatabaseClock>, store: Store) {
    loop {
        tokio::time::sleep(RESYNC).await;
        let Some(clock) = clock.upgrade() else { return };
        // A failed read keeps the last anchor: the monotonic clock carries it on.
        if let Ok((at, time)) = read(&store).await {
            clock.set(at, time);
        }
    }
}

/// This machine's wall clock, read off by the test hook's skew when it is set.
#[derive(Debug)]
struct LocalClock {
    skew: Duration,
    ahead: bool,
}

impl WallClock for LocalClock {
    fn now(&self) -> SystemTime {
        let now = SystemTime::now();
        if self.ahead { now + self.skew } else { now - self.skew }
    }
}

/// This machine's wall clock (with the test hook's skew, if set).
fn local_clock() -> Arc<dyn WallClock> {
    let ms = std::env::var(SKEW_ENV).ok().and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
    Arc::new(LocalClock { skew: Duration::from_millis(ms.unsigned_abs()), ahead: ms > 0 })
}

impl Store {
    /// The clock a gate on this store decides on: the database's on PostgreSQL (every
    /// process of the deployment agrees on it, kept in sync while the clock lives), this
    /// machine's on SQLite (one process per file). Needs a Tokio runtime on PostgreSQL.
    pub async fn clock(&self) -> Result<Arc<dyn WallClock>, StoreError> {
        if self.kind() == BackendKind::Postgres {
            return Ok(DatabaseClock::synced(self).await?);
        }
        Ok(local_clock())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_carries_the_database_time_forward_and_never_goes_back() {
        let start = Instant::now();
        let db = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let clock = DatabaseClock { anchor: Mutex::new((start, db)) };
        let later = start + Duration::from_millis(1500);
        assert_eq!(clock.reading(later), db + Duration::from_millis(1500));
        // A sync whose reading is behind (the trip was slow) does not move it back.
        clock.set(later, db + Duration::from_millis(1400));
        assert_eq!(clock.reading(later), db + Duration::from_millis(1500));
        // One ahead moves it forward.
        clock.set(later, db + Duration::from_secs(2));
        assert_eq!(clock.reading(later + Duration::from_secs(1)), db + Duration::from_secs(3));
    }
}
