//! Fuzzes the robots.txt parser and matcher: arbitrary bytes as a file, then a few
//! paths derived from the same input. Must never panic.
#![no_main]

use gleaner_policy::robots::RobotsTxt;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (file, path) = match data.iter().position(|&b| b == 0) {
        Some(split) => (&data[..split], &data[split + 1..]),
        None => (data, &b"/"[..]),
    };
    let robots = RobotsTxt::parse(file);
    let path = String::from_utf8_lossy(path);
    for agent in ["bot", "*", "UGYBot/1.0", ""] {
        let rules = robots.for_agent(agent);
        let verdict = rules.check(&path);
        let _ = verdict.to_string();
        let _ = rules.disallows_all();
    }
});
