//! Fuzzes `signals::tdmrep`: arbitrary bytes as `tdmrep.json`, then a path from the same
//! input (after a NUL byte). Must never panic.
#![no_main]

use gleaner_policy::signals::{TdmRepFile, tdmrep};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (file, path) = match data.iter().position(|&b| b == 0) {
        Some(split) => (&data[..split], &data[split + 1..]),
        None => (data, &b"/"[..]),
    };
    let path = String::from_utf8_lossy(path);
    let header = [("tdm-reservation", path.as_ref())];
    let meta = [("tdm-reservation", path.as_ref()), ("tdm-policy", "x")];
    let h = tdmrep::from_headers(&header);
    let m = tdmrep::from_meta(&meta);
    if let Ok(f) = TdmRepFile::parse(file) {
        let d = tdmrep::decide(Some(&f), h.as_ref(), m.as_ref(), &path);
        assert_eq!(d.is_reserved(), d.reservation().is_some());
        let _ = (d.to_string(), f.first_reservation());
    }
});
