//! Fuzzes the sitemap reader on plain and gzip-framed bytes with small caps: the caps must
//! hold and nothing may panic.
#![no_main]

use gleaner_extract::sitemap::{SitemapCaps, read};
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let base = Url::parse("https://fuzz.example/sitemap.xml").unwrap();
    let caps = SitemapCaps { max_bytes: 1 << 20, max_urls: 50, ..SitemapCaps::default() };
    let map = read(data, &base, &caps);
    assert!(map.urls.len() <= 50 && map.children.len() <= 50);
});
