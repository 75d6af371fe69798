//! Fuzzes the RDFa Lite and microformats readers: arbitrary bytes as an HTML page. Must
//! never panic.
#![no_main]

use gleaner_event::NormaliseContext;
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let doc = scraper::Html::parse_document(&text);
    let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
    gleaner_extract::rdfa::read(&doc, &mut candidates, &mut diagnostics);
    gleaner_extract::microformats::read(&doc, &mut candidates);
    let base = Url::parse("https://fuzz.example/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::America::Chicago) };
    for c in &candidates {
        let _ = gleaner_event::normalise(&c.raw, &ctx);
    }
});
