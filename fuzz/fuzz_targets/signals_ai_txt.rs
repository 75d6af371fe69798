//! Fuzzes `signals::ai_txt`: arbitrary bytes as `/ai.txt`, then a path from the same
//! input (after a NUL byte). Must never panic.
#![no_main]

use gleaner_policy::signals::AiTxt;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (file, path) = match data.iter().position(|&b| b == 0) {
        Some(split) => (&data[..split], &data[split + 1..]),
        None => (data, &b"/"[..]),
    };
    let ai = AiTxt::parse_bytes(file);
    let path = String::from_utf8_lossy(path);
    for token in ["CIXTRA-Bot", "*", "", "CIXTRA-Bot/1.0"] {
        let d = ai.check(token, &path);
        assert_eq!(d.is_disallowed(), d.reservation().is_some());
        let _ = (d.to_string(), ai.first_reservation(token));
    }
});
