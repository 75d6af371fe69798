//! Fuzzes `signals::retry_after`: arbitrary `Retry-After` and `Date` values and header
//! lists. Must never panic, and the wait never exceeds the cap.
#![no_main]

use std::time::{Duration, SystemTime};

use gleaner_policy::signals::{SignalSettings, retry_after};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let s = SignalSettings::default();
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
    let (value, date) = text.split_once('\n').unwrap_or((&text, ""));
    let d = retry_after::decide(Some(value), Some(date), at, &s);
    assert!(d.wait <= s.retry_after_cap);
    let _ = (d.to_string(), d.resume_at(at));
    let headers: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once(':')).collect();
    let d = retry_after::from_headers(&headers, at, &s);
    assert!(d.wait <= s.retry_after_cap);
});
