//! Fuzzes the iCalendar reader: unfolding, parameters, zones, one event per VEVENT, and
//! expansion of series in a window with a small cap. Must never panic and never run long.
#![no_main]

use chrono::TimeZone;
use gleaner_extract::ical::{IcalOptions, read};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = read(data, &IcalOptions::default());
    let from = chrono::Utc.with_ymd_and_hms(2019, 1, 1, 0, 0, 0).unwrap();
    let to = chrono::Utc.with_ymd_and_hms(2021, 1, 1, 0, 0, 0).unwrap();
    let opts = IcalOptions {
        default_tz: Some(chrono_tz::Europe::Paris),
        expand: Some((from, to)),
        max_instances: 200,
    };
    let cal = read(data, &opts);
    assert!(cal.events.len() <= 200);
    for e in &cal.events {
        let _ = e.identity();
    }
});
