//! Fuzzes the microdata reader (WHATWG items with itemref) through the whole pipeline:
//! arbitrary bytes as an HTML page. Must never panic, loop or blow the stack.
#![no_main]

use gleaner_event::NormaliseContext;
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let doc = scraper::Html::parse_document(&text);
    let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
    gleaner_extract::microdata::read(&doc, &mut candidates, &mut diagnostics);
    let base = Url::parse("https://fuzz.example/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    for c in &candidates {
        let _ = gleaner_event::normalise(&c.raw, &ctx);
    }
    let _ = gleaner_extract::extract_events(data, "text/html", &ctx);
});
