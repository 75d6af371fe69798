//! Fuzzes the issue-10 readers: dates and prices written in words (five languages), site
//! rules applied to arbitrary HTML, and the generic fallback. Must never panic or loop.
#![no_main]

use gleaner_event::NormaliseContext;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_extract::ExtractOptions;
use gleaner_extract::rules::{FieldRule, SiteRules};
use libfuzzer_sys::fuzz_target;
use url::Url;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let reference = chrono::NaiveDate::from_ymd_opt(2026, 11, 30);
    let _ = parse_text_date(&text, reference, DateOrder::DayFirst);
    let _ = parse_text_date(&text, None, DateOrder::MonthFirst);
    let _ = parse_text_time(&text);
    let _ = gleaner_event::parse_price_text(&text);
    let field = |s: &str| Some(FieldRule { selector: s.to_owned(), ..FieldRule::default() });
    let rules = SiteRules {
        site: "fuzz.example".into(),
        item: Some("article, tr, li".into()),
        title: field("h1, h2, a"),
        date: field("time, .date, td"),
        time: Some(FieldRule { selector: "p".into(), regex: Some("(\\d+[:h]\\d*)".into()), ..FieldRule::default() }),
        venue: field(".venue"),
        price: field(".price, td:nth-child(3)"),
        link: field("a"),
        date_heading: Some("h3".into()),
        next_page: Some("a[rel=next]".into()),
        ..SiteRules::default()
    }
    .compile()
    .expect("constant rules compile");
    let base = Url::parse("https://fuzz.example/agenda/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts = ExtractOptions {
        rules: Some(std::sync::Arc::new(rules)),
        reference_date: reference,
        ..ExtractOptions::default()
    };
    let _ = gleaner_extract::extract_events_with(data, "text/html", &ctx, &opts);
    let fallback = ExtractOptions { fallback: true, reference_date: reference, ..ExtractOptions::default() };
    let _ = gleaner_extract::extract_events_with(data, "text/html", &ctx, &fallback);
});
