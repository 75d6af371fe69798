//! Calendar arithmetic in a site's time zone: local dates, the next local midnight and
//! the end of a quiet-hours window. Local times that do not exist (a spring-forward gap)
//! move to the first instant after the gap; ambiguous ones (fall-back) take the earlier
//! instant, so a window never ends early.

use std::time::{Duration, SystemTime};

use chrono::{DateTime, LocalResult, NaiveDate, NaiveDateTime, NaiveTime, TimeZone, Utc};
use chrono_tz::Tz;

/// `t` as a UTC date-time; times beyond the calendar (year 9999) saturate to its end, so
/// no setting can make the conversion panic.
fn to_utc(t: SystemTime) -> DateTime<Utc> {
    DateTime::<Utc>::from(t.min(super::far_future()))
}

fn to_system(t: DateTime<Utc>) -> SystemTime {
    SystemTime::from(t)
}

/// The calendar date of `t` in `tz`.
pub fn local_date(t: SystemTime, tz: Tz) -> NaiveDate {
    to_utc(t).with_timezone(&tz).date_naive()
}

/// The instant a local date-time happens in `tz`: the earlier one when it happens twice,
/// the first instant after a gap when it never happens.
fn resolve_local(local: NaiveDateTime, tz: Tz) -> SystemTime {
    match tz.from_local_datetime(&local) {
        LocalResult::Single(t) => to_system(t.with_timezone(&Utc)),
        LocalResult::Ambiguous(early, _) => to_system(early.with_timezone(&Utc)),
        LocalResult::None => {
            // Inside a spring-forward gap: step forward a minute at a time (gaps are at
            // most a few hours) until the local time exists.
            let mut probe = local;
            for _ in 0..(24 * 60) {
                probe += chrono::Duration::minutes(1);
                if let Some(t) = tz.from_local_datetime(&probe).earliest() {
                    return to_system(t.with_timezone(&Utc));
                }
            }
            to_system(Utc.from_utc_datetime(&local))
        }
    }
}

/// The first instant of the next local day after `t` in `tz`.
pub fn next_local_midnight(t: SystemTime, tz: Tz) -> SystemTime {
    let tomorrow = local_date(t, tz).succ_opt().unwrap_or(NaiveDate::MAX);
    resolve_local(tomorrow.and_time(NaiveTime::MIN), tz)
}

/// When `t` falls inside one of the local `[start, end)` windows, the instant that window
/// ends (windows may wrap past midnight, `22:00-06:00`); otherwise `None`. Adjacent or
/// overlapping windows are followed to their combined end.
pub fn quiet_window_end(
    t: SystemTime,
    tz: Tz,
    windows: &[(NaiveTime, NaiveTime)],
) -> Option<SystemTime> {
    let mut current = t;
    let mut moved = false;
    // Each step leaves one window; bounded by the number of windows.
    for _ in 0..=windows.len() {
        let local = to_utc(current).with_timezone(&tz).naive_local();
        let time = local.time();
        let date = local.date();
        let inside = windows.iter().find_map(|&(start, end)| {
            let in_window =
                if start < end { time >= start && time < end } else { time >= start || time < end };
            in_window.then(|| {
                // The end is today, or tomorrow for a window wrapping past midnight.
                let end_date =
                    if start < end || time < end { date } else { date.succ_opt().unwrap_or(date) };
                resolve_local(end_date.and_time(end), tz)
            })
        });
        match inside {
            Some(end) if end > current => {
                current = end;
                moved = true;
            }
            // A window whose end resolves before `current` (a DST oddity): step past it.
            Some(_) => {
                current = super::later_by(current, Duration::from_secs(60));
                moved = true;
            }
            None => break,
        }
    }
    moved.then_some(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono_tz::Europe::Paris;

    fn paris(y: i32, m: u32, d: u32, h: u32, min: u32) -> SystemTime {
        to_system(
            Paris.with_ymd_and_hms(y, m, d, h, min, 0).earliest().unwrap().with_timezone(&Utc),
        )
    }

    fn hm(h: u32, m: u32) -> NaiveTime {
        NaiveTime::from_hms_opt(h, m, 0).unwrap()
    }

    fn aube() -> Vec<(NaiveTime, NaiveTime)> {
        vec![(hm(8, 0), hm(9, 0)), (hm(14, 0), hm(15, 0))]
    }

    #[test]
    fn seed_aubeactu_quiet_hours() {
        assert_eq!(quiet_window_end(paris(2026, 12, 1, 7, 59), Paris, &aube()), None);
        assert_eq!(
            quiet_window_end(paris(2026, 12, 1, 8, 0), Paris, &aube()),
            Some(paris(2026, 12, 1, 9, 0))
        );
        assert_eq!(
            quiet_window_end(paris(2026, 12, 1, 8, 59), Paris, &aube()),
            Some(paris(2026, 12, 1, 9, 0))
        );
        assert_eq!(quiet_window_end(paris(2026, 12, 1, 9, 0), Paris, &aube()), None);
        assert_eq!(
            quiet_window_end(paris(2026, 12, 1, 14, 30), Paris, &aube()),
            Some(paris(2026, 12, 1, 15, 0))
        );
    }

    #[test]
    fn quiet_hours_hold_across_dst_changes() {
        // 29 March 2026: Paris jumps from 02:00 to 03:00. 25 October 2026: back to 02:00.
        assert_eq!(
            quiet_window_end(paris(2026, 3, 29, 8, 30), Paris, &aube()),
            Some(paris(2026, 3, 29, 9, 0))
        );
        assert_eq!(
            quiet_window_end(paris(2026, 10, 25, 8, 30), Paris, &aube()),
            Some(paris(2026, 10, 25, 9, 0))
        );
        // A window across the spring gap ends at 03:00 local, which exists.
        let night = vec![(hm(1, 30), hm(2, 30))];
        let end = quiet_window_end(paris(2026, 3, 29, 1, 45), Paris, &night).unwrap();
        assert_eq!(
            end,
            paris(2026, 3, 29, 3, 0),
            "02:30 does not exist that night; the window ends at 03:00"
        );
        // In UTC the local 08:00 moves by an hour between winter and summer.
        let winter = to_utc(paris(2026, 3, 28, 8, 0));
        let summer = to_utc(paris(2026, 3, 30, 8, 0));
        assert_eq!(winter.format("%H:%M").to_string(), "07:00");
        assert_eq!(summer.format("%H:%M").to_string(), "06:00");
    }

    #[test]
    fn windows_wrapping_midnight_and_adjacent_windows() {
        let night = vec![(hm(22, 0), hm(6, 0))];
        assert_eq!(
            quiet_window_end(paris(2026, 12, 1, 23, 0), Paris, &night),
            Some(paris(2026, 12, 2, 6, 0))
        );
        assert_eq!(
            quiet_window_end(paris(2026, 12, 2, 5, 0), Paris, &night),
            Some(paris(2026, 12, 2, 6, 0))
        );
        let adjacent = vec![(hm(8, 0), hm(9, 0)), (hm(9, 0), hm(10, 0))];
        assert_eq!(
            quiet_window_end(paris(2026, 12, 1, 8, 10), Paris, &adjacent),
            Some(paris(2026, 12, 1, 10, 0))
        );
    }

    #[test]
    fn midnight_and_local_dates() {
        let t = paris(2026, 12, 1, 23, 30);
        assert_eq!(local_date(t, Paris), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert_eq!(local_date(t, Tz::UTC), NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert_eq!(next_local_midnight(t, Paris), paris(2026, 12, 2, 0, 0));
        let istanbul = chrono_tz::Europe::Istanbul;
        assert_eq!(
            local_date(paris(2026, 12, 1, 23, 30), istanbul),
            NaiveDate::from_ymd_opt(2026, 12, 2).unwrap()
        );
    }
}
