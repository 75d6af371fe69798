//! Fuzzes `signals::robots_meta`: arbitrary `X-Robots-Tag` values and meta pairs. Must
//! never panic.
#![no_main]

use gleaner_policy::signals::{PageAction, PageRestrictions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut headers = Vec::new();
    let mut meta = Vec::new();
    for line in text.lines() {
        match line.split_once('=') {
            Some((name, content)) => meta.push((name, content)),
            None => headers.push(("X-Robots-Tag", line)),
        }
    }
    for token in ["CIXTRA-Bot", "", "robots"] {
        let r = PageRestrictions::from_signals(token, &headers, &meta);
        for action in [
            PageAction::Publish,
            PageAction::FollowLinks,
            PageAction::StoreBody,
            PageAction::KeepDescription,
            PageAction::KeepImage,
            PageAction::Translate,
        ] {
            let _ = r.decide(action).to_string();
        }
        for res in r.reservations() {
            let _ = res.to_string();
        }
    }
});
