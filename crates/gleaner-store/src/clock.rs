//! The store's clock ([`Store::clock`]): on SQLite this machine's (one process per file);
//! on PostgreSQL, for processes sharing the store, the database server's clock,
//! read once and then carried forward on this process's monotonic clock (SPEC §7,
//! "clocks drift"). Budget times (a site's last start, its suspension, quota days) are
//! written by one worker and compared by another; read from the database, a worker whose
//! own clock is minutes off still keeps every gap. Reading `now()` inside every
//! reservation would cost a round trip per decision and the policy closure is
//! synchronous, so the clock is synced instead: at start and every [`RESYNC`], each
//! reading is the database time of the last sync plus the monotonic time since, within
//! half a round trip plus the monotonic clock's drift (parts per million) of the
//! database's. Each sync takes up to [`SAMPLES`] readings and keeps the one with the
//! shortest round trip: one trip stretched by a busy machine (a process not scheduled
//! for a few hundred milliseconds after the answer came) put one worker's clock that far
//! off its neighbours', and the site saw two workers' requests closer than the gap.
//! When every trip of a sync is slow (a machine busy for seconds: four workers saw two
//! requests 40 ms apart under a 150 ms gap), the clock says how far off it may be, half
//! the kept trip and the drift since ([`WallClock::uncertainty`]), and the gate records
//! starts and ends that much later and waits that much longer.

use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};

use gleaner_policy::clock::WallClock;
// Tokio's instant: the real monotonic clock, except under a test's paused time, where
// the clock moves with the test's time.
use tokio::time::Instant;

use crate::{BackendKind, Store, StoreError};

/// How often the clock is synced with the database again.
const RESYNC: Duration = Duration::from_secs(60);

/// The most readings one sync takes; it keeps the one with the shortest round trip.
const SAMPLES: usize = 16;

/// A round trip this short ends a sync early (after the first reading, whose trip also
/// prepares the statement): its reading is within a millisecond.
const GOOD_TRIP: Duration = Duration::from_millis(2);

/// A test hook: this process's own wall clock is read this many milliseconds off (signed),
/// to show that workers sharing a database do not depend on it.
const SKEW_ENV: &str = "GLEANER_TEST_WALL_CLOCK_SKEW_MS";

/// The local monotonic clock's drift against the database's allowed for, per unit of time
/// since the last sync (100 parts per million: well over a crystal's).
const DRIFT_PER: u32 = 10_000;

/// One sync's reading: the local instant in the middle of its round trip, the database
/// time, and half the trip (how far the reading may be off).
type Reading = (Instant, SystemTime, Duration);

/// The database's clock carried on the local monotonic clock.
#[derive(Debug)]
struct DatabaseClock {
    /// A database time, the local instant it was read at (the middle of the trip), and
    /// how far it may be off (half the trip).
    anchor: Mutex<Reading>,
}

impl DatabaseClock {
    /// Reads the database clock and keeps it synced every [`RESYNC`] while the returned
    /// clock lives (the sync task holds it weakly).
    async fn synced(store: &Store) -> Result<Arc<DatabaseClock>, StoreError> {
        let reading = read(store).await?;
        let clock = Arc::new(DatabaseClock { anchor: Mutex::new(reading) });
        let (weak, store) = (Arc::downgrade(&clock), store.clone());
        tokio::spawn(resync_loop(weak, store));
        Ok(clock)
    }

    /// Takes a new reading; the clock never goes back (a reading behind the carried
    /// clock keeps the carried clock, and its error bound).
    fn set(&self, (at, time, half_trip): Reading) {
        let current = self.reading(at);
        let off = self.error_at(at);
        *self.anchor.lock().unwrap_or_else(|p| p.into_inner()) = match time >= current {
            true => (at, time, half_trip),
            false => (at, current, off),
        };
    }

    /// How far [`DatabaseClock::reading`] at `at` may be off: half the last sync's trip,
    /// and the drift allowed since.
    fn error_at(&self, at: Instant) -> Duration {
        let (anchor, _, half_trip) = *self.anchor.lock().unwrap_or_else(|p| p.into_inner());
        half_trip + at.saturating_duration_since(anchor) / DRIFT_PER
    }

    fn reading(&self, at: Instant) -> SystemTime {
        let (anchor, time, _) = *self.anchor.lock().unwrap_or_else(|p| p.into_inner());
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

    fn uncertainty(&self) -> Duration {
        self.error_at(Instant::now())
    }
}

/// One sync: the local instant in the middle of the round trip, the database time and
/// half the trip, of the reading with the shortest trip of up to [`SAMPLES`] (see
/// [`best_reading`]).
async fn read(store: &Store) -> Result<Reading, StoreError> {
    best_reading(|| store.database_time()).await
}

/// Takes readings of `database_time` until one's round trip is [`GOOD_TRIP`] or less
/// (the first never counts: it may connect and prepare) or [`SAMPLES`] are taken, and
/// returns the one with the shortest trip as (the local instant in the middle of its
/// trip, the database time, half the trip). The database read its clock somewhere inside
/// the trip, so a reading is off by at most half its trip; a trip stretched by a busy
/// machine is left out rather than trusted, and when every trip was, the half trip says
/// how far off the clock may be. Fails only when no reading succeeds.
async fn best_reading<F, Fut>(mut database_time: F) -> Result<Reading, StoreError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<SystemTime, StoreError>>,
{
    let mut best: Option<(Duration, Instant, SystemTime)> = None;
    let mut last_error = None;
    for sample in 0..SAMPLES {
        let sent = Instant::now();
        match database_time().await {
            Ok(time) => {
                let trip = sent.elapsed();
                if best.is_none_or(|(shortest, _, _)| trip < shortest) {
                    best = Some((trip, sent + trip / 2, time));
                }
            }
            Err(error) => last_error = Some(error),
        }
        if sample > 0 && best.is_some_and(|(trip, _, _)| trip <= GOOD_TRIP) {
            break;
        }
    }
    match (best, last_error) {
        (Some((trip, at, time)), _) => Ok((at, time, trip / 2)),
        (None, Some(error)) => Err(error),
        (None, None) => Err(StoreError::Worker("the database clock gave no reading".into())),
    }
}

async fn resync_loop(clock: Weak<DatabaseClock>, store: Store) {
    loop {
        tokio::time::sleep(RESYNC).await;
        let Some(clock) = clock.upgrade() else { return };
        // A failed read keeps the last anchor: the monotonic clock carries it on.
        if let Ok(reading) = read(&store).await {
            clock.set(reading);
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

    /// A database whose clock runs `offset` ahead of this process's, answering after
    /// `stalls[i]` (the i-th reading) on top of a 1 ms trip: the clock is read as the
    /// query arrives, and the answer then waits (a worker not scheduled on a busy
    /// machine). The synced clock must read the database's time, not lag by half the
    /// stall: two workers whose clocks disagree by more than the gap break the site's
    /// spacing between them.
    #[tokio::test(start_paused = true)]
    async fn a_sync_with_one_stalled_round_trip_still_reads_the_database_clock() {
        let offset = Duration::from_secs(3600);
        let origin = Instant::now();
        let epoch = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let database_now = move || epoch + offset + origin.elapsed();
        let stalls = [300u64, 0, 0, 0];
        let mut calls = 0usize;
        let (at, time, half_trip) = best_reading(|| {
            let stall = Duration::from_millis(stalls.get(calls).copied().unwrap_or(0));
            calls += 1;
            async move {
                tokio::time::sleep(Duration::from_micros(500)).await;
                let time = database_now();
                tokio::time::sleep(Duration::from_micros(500) + stall).await;
                Ok(time)
            }
        })
        .await
        .unwrap();
        assert!(half_trip <= Duration::from_millis(1), "the kept trip was a short one");
        let clock = DatabaseClock { anchor: Mutex::new((at, time, half_trip)) };
        let later = Instant::now() + Duration::from_secs(5);
        let truth = epoch + offset + later.duration_since(origin);
        let read = clock.reading(later);
        let error = match read.duration_since(truth) {
            Ok(ahead) => ahead,
            Err(behind) => behind.duration(),
        };
        assert!(error <= Duration::from_millis(2), "synced clock off by {error:?}");
        assert!(calls <= SAMPLES, "a sync takes at most {SAMPLES} readings, took {calls}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_sync_fails_only_when_no_reading_succeeds() {
        let mut calls = 0usize;
        let result = best_reading(|| {
            calls += 1;
            let ok = calls == 3;
            async move {
                if ok { Ok(SystemTime::UNIX_EPOCH) } else { Err(StoreError::Worker("down".into())) }
            }
        })
        .await;
        assert!(result.is_ok(), "one good reading of several is enough");
        let failed = best_reading(|| async { Err(StoreError::Worker("down".into())) }).await;
        assert!(failed.is_err(), "no reading: the error, not a guess");
    }

    #[test]
    fn the_clock_carries_the_database_time_forward_and_never_goes_back() {
        let start = Instant::now();
        let db = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let ms = Duration::from_millis;
        let clock = DatabaseClock { anchor: Mutex::new((start, db, ms(1))) };
        let later = start + ms(1500);
        assert_eq!(clock.reading(later), db + ms(1500));
        // A sync whose reading is behind (the trip was slow) does not move it back, and
        // keeps the carried clock's error bound.
        clock.set((later, db + ms(1400), ms(200)));
        assert_eq!(clock.reading(later), db + ms(1500));
        assert!(clock.error_at(later) < ms(2));
        // One ahead moves it forward, with its own bound.
        clock.set((later, db + Duration::from_secs(2), ms(40)));
        assert_eq!(clock.reading(later + Duration::from_secs(1)), db + Duration::from_secs(3));
        assert_eq!(clock.error_at(later), ms(40));
    }

    /// A clock synced over a slow round trip (every trip of a sync stretched by a busy
    /// machine) says so: its uncertainty is half that trip, plus the drift allowed since,
    /// and the gate waits that much longer (`gleaner-fetch`'s gate).
    #[tokio::test(start_paused = true)]
    async fn a_clock_synced_over_slow_trips_says_how_far_off_it_may_be() {
        let db = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let reading = best_reading(|| async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(db)
        })
        .await
        .unwrap();
        let clock = DatabaseClock { anchor: Mutex::new(reading) };
        let u = clock.uncertainty();
        assert!(u >= Duration::from_millis(150), "half a 300 ms trip at least: {u:?}");
        assert!(u < Duration::from_millis(152), "no more than half the trip and drift: {u:?}");
        tokio::time::advance(Duration::from_secs(100)).await;
        let drift = clock.uncertainty() - u;
        let (low, high) = (Duration::from_micros(9_999), Duration::from_micros(10_001));
        assert!(drift >= low && drift <= high, "100 ppm of 100 s: {drift:?}");
    }
}
