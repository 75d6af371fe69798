//! Fuzzes the RSS/Atom reader (quick-xml tree, entity references, dates in every shape)
//! and `normalise` on the events it finds. Must never panic.
#![no_main]

use gleaner_event::NormaliseContext;
use gleaner_extract::{FeedMode, feeds};
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let base = Url::parse("https://fuzz.example/feed.rss").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::Europe::Paris) };
    for mode in [FeedMode::Auto, FeedMode::Events] {
        let out = feeds::read(data, &base, mode);
        for e in &out.events {
            let _ = gleaner_event::normalise(&e.raw, &ctx);
        }
    }
});
