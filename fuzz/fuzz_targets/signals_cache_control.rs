//! Fuzzes `signals::cache_control`: arbitrary header lists (`name: value` per line).
//! Must never panic, and freshness never exceeds the cap.
#![no_main]

use std::time::{Duration, SystemTime};

use gleaner_policy::signals::{SignalSettings, Validators, cache_control};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let headers: Vec<(&str, &str)> = text.lines().filter_map(|l| l.split_once(':')).collect();
    let s = SignalSettings::default();
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_790_000_000);
    let d = cache_control::decide(&headers, at, &s);
    assert!(d.verdict.fresh_for() <= s.freshness_cap);
    let _ = d.to_string();
    let _ = Validators::from_headers(&headers).is_empty();
});
