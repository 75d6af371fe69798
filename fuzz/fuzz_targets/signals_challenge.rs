//! Fuzzes `signals::challenge`: a status, header lines and a body from arbitrary bytes
//! (headers before the first blank line). Must never panic.
#![no_main]

use gleaner_policy::signals::{SignalSettings, challenge};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let status = [200, 403, 429, 503, 302, 0][usize::from(first) % 6];
    let split = rest.windows(2).position(|w| w == b"\n\n").unwrap_or(rest.len());
    let head = String::from_utf8_lossy(&rest[..split]);
    let body = rest.get(split + 2..).unwrap_or(&[]);
    let headers: Vec<(&str, &str)> = head.lines().filter_map(|l| l.split_once(':')).collect();
    for limit in [0, 64, 64 * 1024] {
        let s = SignalSettings { challenge_scan_limit: limit, ..SignalSettings::default() };
        let _ = challenge::classify(status, &headers, body, &s).to_string();
    }
});
