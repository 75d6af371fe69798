//! Property tests: extraction never panics, whatever the bytes (CI's stand-in for the
//! nightly fuzz targets in `fuzz/`).

use gleaner_event::NormaliseContext;
use proptest::prelude::*;
use url::Url;

fn run(bytes: &[u8], content_type: &str) {
    let base = Url::parse("https://example.org/a/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::Europe::Paris) };
    let out = gleaner_extract::extract_events(bytes, content_type, &ctx);
    for d in &out.diagnostics {
        let _ = d.to_string();
    }
    for e in &out.events {
        let _ = serde_json::to_string(&gleaner_event::PublicEvent::from(e)).unwrap();
        let _ = gleaner_event::EventIdentity::of(e);
    }
}

/// Pieces of real markup, so random pages reach deep into every reader.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<script type=\"application/ld+json\">".to_owned()),
        Just("</script>".to_owned()),
        Just("{\"@type\":[\"Event\",\"MusicEvent\"],".to_owned()),
        Just("\"startDate\":\"2019-9-13T10-10-00-00\",".to_owned()),
        Just("\"location\":{\"@type\":\"Place\",\"address\":\"1 A St, Town, XY\"},".to_owned()),
        Just("\"offers\":[{\"price\":\"$1,5\",\"priceCurrency\":\"eur\"}],".to_owned()),
        Just("\"@id\":\"x\",\"subEvent\":{\"@id\":\"x\"},".to_owned()),
        Just("\"name\":\"a&amp;b\\u00e9\n\",}".to_owned()),
        Just("// c\n/* d */ ,,]]}}{{[[".to_owned()),
        Just("<div itemscope itemtype=\"https://schema.org/Event\" itemref=\"r\" id=\"r\">".to_owned()),
        Just("<span itemprop=\"name location\" itemscope>".to_owned()),
        Just("<meta itemprop=\"startDate\" content=\"2020-02-30T25:61\">".to_owned()),
        Just("<div vocab=\"https://schema.org/\" typeof=\"Event\" property=\"event\">".to_owned()),
        Just("<a property=\"url\" href=\"javascript:x\">".to_owned()),
        Just("<span class=\"vevent\"><span class=\"dtstart\"><span class=\"value-title\" title=\"2018-10-04T10:00:00-0500\">".to_owned()),
        Just("</div></span></a>".to_owned()),
        "[ -~]{0,12}".prop_map(|s| s),
        "\\PC{0,6}".prop_map(|s| s),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        run(&bytes, "text/html");
        run(&bytes, "application/ld+json");
    }

    #[test]
    fn never_panics_on_markup_soup(parts in proptest::collection::vec(fragment(), 0..40)) {
        let page = parts.concat();
        run(page.as_bytes(), "text/html");
        run(page.as_bytes(), "application/ld+json");
    }

    #[test]
    fn lenient_time_parser_never_panics(s in "\\PC{0,40}") {
        let _ = gleaner_event::time::parse_event_time(&s);
    }
}
