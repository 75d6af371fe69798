//! When a source's next pass is due ("scheduler" means *when*, never the queue).

use std::time::SystemTime;

use chrono::{DateTime, Duration as ChronoDuration, TimeZone, Utc};
use chrono_tz::Tz;
use gleaner_config::sources::Schedule;

/// The next time a pass is due, given the start of the last one (`None`: never run,
/// due now). `At` times are local to `zone`; a time skipped by a DST change runs at the
/// first instant after the gap.
pub fn next_due(
    schedule: &Schedule,
    last_run: Option<SystemTime>,
    now: SystemTime,
    zone: Tz,
) -> SystemTime {
    let Some(last) = last_run else { return now };
    match schedule {
        Schedule::Every(interval) => last + *interval,
        Schedule::At(times) if times.is_empty() => last + std::time::Duration::from_secs(24 * 3600),
        Schedule::At(times) => {
            let last_local = DateTime::<Utc>::from(last).with_timezone(&zone);
            let mut date = last_local.date_naive();
            // Today's remaining times, then tomorrow's: at most two days to look at.
            for _ in 0..3 {
                for time in times {
                    let local = date.and_time(*time);
                    let instant = zone.from_local_datetime(&local).earliest().or_else(|| {
                        zone.from_local_datetime(&(local + ChronoDuration::hours(1))).earliest()
                    });
                    if let Some(instant) = instant {
                        let instant = SystemTime::from(instant.with_timezone(&Utc));
                        if instant > last {
                            return instant;
                        }
                    }
                }
                date = date.succ_opt().unwrap_or(date);
            }
            last + std::time::Duration::from_secs(24 * 3600)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveTime;
    use chrono_tz::Europe::Paris;
    use std::time::Duration;

    fn paris(d: u32, h: u32, m: u32) -> SystemTime {
        SystemTime::from(Paris.with_ymd_and_hms(2026, 12, d, h, m, 0).unwrap().with_timezone(&Utc))
    }

    #[test]
    fn never_run_is_due_now_and_intervals_add_up() {
        let every = Schedule::Every(Duration::from_secs(3600));
        assert_eq!(next_due(&every, None, paris(1, 10, 0), Paris), paris(1, 10, 0));
        assert_eq!(
            next_due(&every, Some(paris(1, 10, 0)), paris(1, 10, 5), Paris),
            paris(1, 11, 0)
        );
    }

    #[test]
    fn times_of_day_in_the_sources_zone() {
        let at = Schedule::At(vec![
            NaiveTime::from_hms_opt(7, 0, 0).unwrap(),
            NaiveTime::from_hms_opt(19, 0, 0).unwrap(),
        ]);
        assert_eq!(next_due(&at, Some(paris(1, 7, 0)), paris(1, 8, 0), Paris), paris(1, 19, 0));
        assert_eq!(next_due(&at, Some(paris(1, 19, 0)), paris(1, 20, 0), Paris), paris(2, 7, 0));
    }
}
