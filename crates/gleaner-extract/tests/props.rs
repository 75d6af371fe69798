//! Property tests: extraction never panics, whatever the bytes (CI's stand-in for the
//! nightly fuzz targets in `fuzz/`).

use chrono::TimeZone;
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

/// Pieces of real calendars, so random ones reach rules, zones and overrides.
fn ical_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("BEGIN:VCALENDAR\r\n".to_owned()),
        Just("BEGIN:VEVENT\r\n".to_owned()),
        Just("END:VEVENT\r\n".to_owned()),
        Just("BEGIN:VTIMEZONE\r\nTZID:Custom\r\nBEGIN:STANDARD\r\nTZOFFSETTO:+0530\r\nEND:STANDARD\r\n".to_owned()),
        Just("END:VTIMEZONE\r\n".to_owned()),
        Just("UID:u1\r\n".to_owned()),
        Just("SUMMARY:a\\, b\\nc\r\n  folded\r\n".to_owned()),
        Just("DTSTART;TZID=Custom:20260329T023000\r\n".to_owned()),
        Just("DTSTART;TZID=W. Europe Standard Time:20261025T023000\r\n".to_owned()),
        Just("DTSTART;VALUE=DATE:20240229\r\n".to_owned()),
        Just("DTSTART:20200131T100000Z\r\n".to_owned()),
        Just("DTEND:19991231T235960\r\n".to_owned()),
        Just("DURATION:-P1W2DT3H\r\n".to_owned()),
        Just("RECURRENCE-ID;TZID=Europe/Berlin:20200201T100000\r\n".to_owned()),
        Just("STATUS:CANCELLED\r\n".to_owned()),
        Just("RRULE:FREQ=MONTHLY;BYDAY=-1FR,2MO;BYSETPOS=-1;INTERVAL=3\r\n".to_owned()),
        Just("RRULE:FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30\r\n".to_owned()),
        Just("RRULE:FREQ=DAILY;COUNT=100000\r\n".to_owned()),
        Just("RRULE:FREQ=WEEKLY;UNTIL=20200101;WKST=SU;BYDAY=SU,MO\r\n".to_owned()),
        Just("EXDATE:20200201T100000Z,20200202\r\n".to_owned()),
        Just("RDATE;VALUE=PERIOD:20200203T100000Z/PT1H\r\n".to_owned()),
        Just("LOCATION:Venue @ Street 5\\, 03044 Town\r\n".to_owned()),
        Just("END:VCALENDAR\r\n".to_owned()),
        "[ -~]{0,16}\r\n".prop_map(|s| s),
        "\\PC{0,8}".prop_map(|s| s),
    ]
}

/// Pieces of feeds and sitemaps.
fn xml_part() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>".to_owned()),
        Just("<rss><channel>".to_owned()),
        Just("<feed xmlns=\"http://www.w3.org/2005/Atom\">".to_owned()),
        Just("<item><title>Sat Nov 15 08  07:30 PM</title><venue>V</venue>".to_owned()),
        Just("<entry><link rel=\"alternate\" href=\"/x?a=1&amp;b\"/>".to_owned()),
        Just("<ev:startdate>2026-12-05T20:30:00+01:00</ev:startdate>".to_owned()),
        Just("<pubDate>Sun, 05 Jan 2020 00:00:00 -0800</pubDate>".to_owned()),
        Just("<ticket_price>free</ticket_price><tickets_url>javascript:x</tickets_url>".to_owned()),
        Just("<![CDATA[<p>x &amp; y</p>]]>".to_owned()),
        Just("&eacute;&#x0;&#99999999;&bogus;".to_owned()),
        Just(
            "<urlset><url><loc>https://a.example/x</loc><lastmod>2026-13-45</lastmod></url>"
                .to_owned()
        ),
        Just("<sitemapindex><sitemap><loc>/s.xml.gz</loc></sitemap>".to_owned()),
        Just("</item></entry></channel></rss></feed></urlset>".to_owned()),
        "[ -~]{0,12}".prop_map(|s| s),
    ]
}

fn run_readers(bytes: &[u8]) {
    use gleaner_extract::{FeedMode, feeds, ical, sitemap};
    let base = Url::parse("https://a.example/feed").unwrap();
    let window = Some((
        chrono::Utc.with_ymd_and_hms(2019, 1, 1, 0, 0, 0).unwrap(),
        chrono::Utc.with_ymd_and_hms(2021, 1, 1, 0, 0, 0).unwrap(),
    ));
    for expand in [None, window] {
        let opts = ical::IcalOptions { expand, max_instances: 500, ..Default::default() };
        let cal = ical::read(bytes, &opts);
        assert!(cal.events.len() <= 500 || expand.is_none());
        for e in &cal.events {
            let _ = e.identity();
        }
    }
    for mode in [FeedMode::Auto, FeedMode::Events] {
        let _ = feeds::read(bytes, &base, mode);
    }
    let caps = sitemap::SitemapCaps { max_urls: 10, ..Default::default() };
    let map = sitemap::read(bytes, &base, &caps);
    assert!(map.urls.len() <= 10);
    run(bytes, "text/calendar");
    run(bytes, "application/rss+xml");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn calendars_never_panic_and_expansion_is_capped(lines in proptest::collection::vec(ical_line(), 0..40)) {
        run_readers(lines.concat().as_bytes());
    }

    #[test]
    fn feeds_and_sitemaps_never_panic(parts in proptest::collection::vec(xml_part(), 0..30)) {
        run_readers(parts.concat().as_bytes());
    }

    #[test]
    fn readers_never_panic_on_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..1024)) {
        run_readers(&bytes);
        let mut gz = vec![0x1f, 0x8b];
        gz.extend_from_slice(&bytes);
        run_readers(&gz);
    }
}
