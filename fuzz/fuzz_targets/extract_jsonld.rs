//! Fuzzes the JSON-LD reader (byte scan, forgiving JSON, schema.org walk) and `normalise`
//! on what it finds: arbitrary bytes as a script body and as a whole page. Must never panic.
#![no_main]

use gleaner_event::NormaliseContext;
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
    gleaner_extract::jsonld::read_block(&text, "fuzz", &mut candidates, &mut diagnostics);
    let base = Url::parse("https://fuzz.example/a/b").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::Europe::Istanbul) };
    for c in &candidates {
        let _ = gleaner_event::normalise(&c.raw, &ctx);
    }
    let page = format!("<script type=\"application/ld+json\">{text}</script>");
    let _ = gleaner_extract::extract_events(page.as_bytes(), "application/ld+json", &ctx);
    let _ = gleaner_extract::jsonld::blocks(&text);
});
