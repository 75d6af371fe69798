//! Table tests of the readers: one small page per case, checked against the public JSON
//! of its events (`check(page, expect)` in the rust-analyzer style).

use gleaner_event::{NormaliseContext, PublicEvent};
use serde_json::{Value, json};
use url::Url;

fn events(page: &str) -> (Vec<Value>, Vec<String>) {
    let base = Url::parse("https://example.org/events/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let out = gleaner_extract::extract_events(page.as_bytes(), "text/html", &ctx);
    let ev =
        out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect();
    (ev, out.diagnostics.iter().map(ToString::to_string).collect())
}

fn ld(json: &str) -> String {
    format!("<html><head><script type=\"application/ld+json\">{json}</script></head></html>")
}

/// Checks that the page yields events whose listed fields have the given values.
fn check(page: &str, expect: Value) {
    let (got, diags) = events(page);
    let want = expect.as_array().unwrap();
    assert_eq!(got.len(), want.len(), "events: {got:#?}\ndiagnostics: {diags:#?}");
    for (g, w) in got.iter().zip(want) {
        for (k, v) in w.as_object().unwrap() {
            assert_eq!(&g[k], v, "field `{k}` in {g:#?}\ndiagnostics: {diags:#?}");
        }
    }
}

#[test]
fn jsonld_graph_type_arrays_and_subtypes() {
    check(
        &ld(r##"{"@context":"https://schema.org","@graph":[
            {"@type":["Festival","Thing"],"name":"Fest","startDate":"2026-07-01"},
            {"@type":"schema:SportsEvent","name":"Match","startDate":"2026-07-02T15:00+01:00"},
            {"@type":"http://schema.org/ComedyEvent","name":"Jokes","startDate":"2026-07-03"},
            {"@type":"NewsArticle","headline":"not an event"}]}"##),
        json!([
            {"title": "Fest", "start": "2026-07-01"},
            {"title": "Match", "start": "2026-07-02T15:00:00+01:00"},
            {"title": "Jokes"},
        ]),
    );
}

#[test]
fn jsonld_id_references_and_series() {
    check(
        &ld(r##"[{"@type":"EventSeries","@id":"#s","name":"Series","subEvent":[{"@id":"#a"}]},
               {"@type":"Place","@id":"#hall","name":"Big Hall","address":{"@id":"#addr"}},
               {"@type":"PostalAddress","@id":"#addr","streetAddress":"1 Main St","addressLocality":"Springfield","addressCountry":"United States"},
               {"@type":"Event","@id":"#a","name":"Part A","startDate":"2026-01-01T20:00","location":{"@id":"#hall"},"superEvent":"#s"}]"##),
        json!([{"title": "Part A", "venue_name": "Big Hall", "street": "1 Main St", "locality": "Springfield", "country": "US"}]),
    );
}

#[test]
fn jsonld_locations_text_array_virtual() {
    check(
        &ld(
            r##"[{"@type":"Event","name":"T","startDate":"2026-01-01","location":"Hall 9, Berlin, Germany"},
                {"@type":"Event","name":"V","startDate":"2026-01-02","eventAttendanceMode":"OnlineEventAttendanceMode",
                 "location":[{"@type":"VirtualLocation","url":"https://stream.example/"}]},
                {"@type":"Event","name":"M","startDate":"2026-01-03",
                 "location":[{"@type":"VirtualLocation","url":"https://s.example/"},{"@type":"Place","name":"Club","address":"Kreuzberg"}]}]"##,
        ),
        json!([
            {"venue_name": null, "street": "Hall 9", "locality": "Berlin", "country": "DE"},
            {"venue_name": null, "locality": null},
            {"venue_name": "Club", "locality": "Kreuzberg"},
        ]),
    );
}

#[test]
fn jsonld_offers_aggregate_arrays_text_and_free() {
    check(
        &ld(
            r##"[{"@type":"Event","name":"A","startDate":"2026-01-01","offers":{"@type":"AggregateOffer","lowPrice":"10","highPrice":"25.50","priceCurrency":"eur"}},
                {"@type":"Event","name":"B","startDate":"2026-01-01","offers":[{"price":"£12"},{"price":8,"url":"/buy"}]},
                {"@type":"Event","name":"C","startDate":"2026-01-01","isAccessibleForFree":true},
                {"@type":"Event","name":"D","startDate":"2026-01-01","offers":{"priceSpecification":{"minPrice":"5","maxPrice":"9","priceCurrency":"TRY"}}},
                {"@type":"Event","name":"E","startDate":"2026-01-01","offers":{"price":"Free"}}]"##,
        ),
        json!([
            {"price_min": "10", "price_max": "25.50", "currency": "EUR", "is_free": null},
            {"price_min": "8", "price_max": "12", "currency": "GBP", "ticket_url": "https://example.org/buy"},
            {"is_free": true, "price_min": null},
            {"price_min": "5", "price_max": "9", "currency": "TRY"},
            {"price_min": "0", "is_free": true},
        ]),
    );
}

#[test]
fn jsonld_status_attendance_previous_start() {
    check(
        &ld(
            r##"[{"@type":"Event","name":"A","startDate":"2026-01-01","eventStatus":"https://schema.org/EventPostponed"},
                {"@type":"Event","name":"B","startDate":"2026-01-01","eventStatus":{"@id":"schema:EventMovedOnline"}},
                {"@type":"Event","name":"C","startDate":"2026-01-01","eventStatus":"EventCancelled"},
                {"@type":"Event","name":"D","startDate":"2026-02-01","eventStatus":"EventRescheduled","previousStartDate":"2026-01-01"}]"##,
        ),
        json!([
            {"status": "postponed"},
            {"status": "moved_online"},
            {"status": "cancelled"},
            {"status": "rescheduled", "start": "2026-02-01"},
        ]),
    );
}

#[test]
fn jsonld_breakage_is_recovered() {
    let page = "<script type=\"application/ld+json\">\n// comment\n{\"@type\":\"Event\",\n \"name\":\"Caf&eacute; &amp; Bar \u{1}\", /* c */\n \"description\":\"line one\nline two\",\n \"startDate\":\"2019-9-13T10-10-00-00\",\n \"url\":\"/e?utm_source=x\",}\n{\"@type\":\"Event\",\"name\":\"Second\",\"startDate\":\"2019-09-14\"}</script>";
    check(
        page,
        json!([
            {"title": "Café & Bar", "description": "line one\nline two", "start": "2019-09-13T10:00:00", "url": "https://example.org/e"},
            {"title": "Second", "start": "2019-09-14"},
        ]),
    );
}

#[test]
fn jsonld_html_escaped_block_is_read() {
    check(
        "<script type=\"application/ld+json\">{&quot;@type&quot;:&quot;Event&quot;,&quot;name&quot;:&quot;Esc&quot;,&quot;startDate&quot;:&quot;2026-05-05&quot;}</script>",
        json!([{"title": "Esc", "start": "2026-05-05"}]),
    );
}

#[test]
fn one_bad_block_never_loses_the_others() {
    let page = format!(
        "{}{}{}",
        ld(r##"{"@type":"Event","name":"Good one","startDate":"2026-03-01"}"##),
        ld(r##"{"@type":"Event","name": <<< broken"##),
        ld(r##"{"@type":"Event","name":"Good two","startDate":"2026-03-02"}"##)
    );
    let (got, diags) = events(&page);
    assert_eq!(got.len(), 2);
    assert!(diags.iter().any(|d| d.starts_with("error: json-ld script #2")), "{diags:#?}");
}

#[test]
fn microdata_with_itemref_and_nested_items() {
    check(
        r##"<div itemscope itemtype="https://schema.org/MusicEvent" itemref="where price">
             <a itemprop="url" href="/gig/1"><span itemprop="name">Gig</span></a>
             <time itemprop="startDate" datetime="2026-04-01T21:00">1 April</time>
           </div>
           <div id="where" itemprop="location" itemscope itemtype="https://schema.org/Place">
             <span itemprop="name">Cellar</span>
             <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress">
               <span itemprop="streetAddress">2 Low Rd</span> <span itemprop="addressLocality">Leeds</span>
             </div>
           </div>
           <div id="price" itemprop="offers" itemscope itemtype="https://schema.org/Offer">
             <meta itemprop="price" content="7.50"><meta itemprop="priceCurrency" content="GBP">
           </div>"##,
        json!([{"title": "Gig", "url": "https://example.org/gig/1", "start": "2026-04-01T21:00:00",
                "venue_name": "Cellar", "street": "2 Low Rd", "locality": "Leeds", "price_min": "7.50", "currency": "GBP"}]),
    );
}

#[test]
fn microdata_itemref_cycles_terminate() {
    let (got, _) = events(
        r##"<div id="a" itemscope itemtype="https://schema.org/Event" itemref="a b"><span itemprop="name">Loop</span>
           <div id="b" itemprop="superEvent" itemscope itemtype="https://schema.org/Event" itemref="a"></div></div>"##,
    );
    assert!(!got.is_empty());
}

#[test]
fn rdfa_lite_with_prefixes() {
    check(
        r##"<div vocab="https://schema.org/" typeof="TheaterEvent">
             <span property="name">Hamlet</span>
             <meta property="startDate" content="2026-09-09T19:30">
             <div property="location" typeof="PerformingArtsTheater"><span property="name">Globe</span>
               <span property="address">21 New Globe Walk, London, UK</span></div>
             <div property="schema:offers" typeof="schema:Offer"><meta property="schema:price" content="30"><meta property="priceCurrency" content="GBP"></div>
           </div>"##,
        // The venue is in GB, which keeps one clock: the local time gets London's offset.
        json!([{"title": "Hamlet", "start": "2026-09-09T19:30:00+01:00", "venue_name": "Globe", "street": "21 New Globe Walk",
                "locality": "London", "country": "GB", "price_min": "30", "currency": "GBP"}]),
    );
}

#[test]
fn same_event_in_jsonld_and_microdata_is_merged() {
    let page = format!(
        "{}{}",
        r##"<div itemscope itemtype="http://schema.org/Event"><span itemprop="name">Twice</span><meta itemprop="startDate" content="2026-06-01T20:00"></div>"##,
        ld(
            r##"{"@type":"Event","name":"Twice","startDate":"2026-06-01T20:00:00+02:00","location":{"@type":"Place","name":"Hall"}}"##
        )
    );
    check(
        &page,
        json!([{"title": "Twice", "start": "2026-06-01T20:00:00+02:00", "venue_name": "Hall"}]),
    );
}

#[test]
fn pages_without_markers_are_not_parsed_and_yield_nothing() {
    let (got, diags) = events("<html><body><p>Concert tonight at 8!</p></body></html>");
    // Only the generic fallback (on by default) looks, and says it found no date.
    assert!(got.is_empty(), "{got:?}");
    assert!(diags.iter().all(|d| d.contains("fallback") && d.contains("no event")), "{diags:?}");
}

#[test]
fn one_show_with_many_performances() {
    check(
        &ld(
            r##"{"@type":"TheaterEvent","name":"Cats","location":{"@type":"Place","name":"Palladium"},
                "offers":{"price":"40","priceCurrency":"GBP"},
                "subEvent":[{"@type":"Event","startDate":"2026-02-01T19:30"},
                            {"@type":"Event","startDate":"2026-02-02T14:00","location":{"@type":"Place","name":"Annex"}}]}"##,
        ),
        json!([
            {"title": "Cats", "start": "2026-02-01T19:30:00", "venue_name": "Palladium", "price_min": "40"},
            {"title": "Cats", "start": "2026-02-02T14:00:00", "venue_name": "Annex", "price_min": "40"},
        ]),
    );
    check(
        &ld(
            r##"{"@type":"MusicEvent","name":"Two nights","startDate":["2026-03-01T20:00","2026-03-02T20:00"]}"##,
        ),
        json!([{"start": "2026-03-01T20:00:00"}, {"start": "2026-03-02T20:00:00"}]),
    );
    // schema.org's own SportsEvent example: neither the series nor its game is dated, so
    // the parts add nothing and the event itself is kept beside them.
    check(
        &ld(r##"{"@type":"SportsEvent","name":"2013 World Series",
                "subEvent":{"@type":"SportsEvent","@id":"http://mlb.com/ws2013g1","name":"2013 World Series - Game 1"}}"##),
        json!([{"title": "2013 World Series"}, {"title": "2013 World Series - Game 1"}]),
    );
}

/// Pages as venues in five languages write them (issue 24 conventions): no stated status
/// is null; a local time takes the zone the page states, else the venue country's one
/// clock, else stays floating; the one event takes the page's canonical link.
#[test]
fn five_language_pages_follow_the_conventions() {
    // tr: the country's one clock (TR), no status stated.
    check(
        &ld(
            r#"{"@context":"https://schema.org","@type":"MusicEvent","name":"Caz Gecesi","startDate":"2026-03-14T21:00",
            "location":{"@type":"Place","name":"Zorlu PSM","address":{"@type":"PostalAddress","streetAddress":"Levazım Mah. Koru Sok. No:2","addressLocality":"İstanbul","addressCountry":"TR"}}}"#,
        ),
        json!([{"title": "Caz Gecesi", "start": "2026-03-14T21:00:00+03:00", "status": null, "country": "TR"}]),
    );
    // fr: "heure de Paris" stated in the text; a date-only end on the start's day is kept.
    check(
        &format!(
            "<p>Tous les horaires sont donnés en heure de Paris.</p>{}",
            ld(
                r#"{"@type":"TheaterEvent","name":"Le Misanthrope","startDate":"2026-07-10T20:30","endDate":"2026-07-10","location":"Salle Richelieu","eventStatus":"https://schema.org/EventScheduled"}"#
            )
        ),
        json!([{"start": "2026-07-10T20:30:00+02:00", "end": "2026-07-10", "status": "scheduled", "venue_name": "Salle Richelieu"}]),
    );
    // es: Canary Islands keep their own clock; "en línea" is not a venue.
    check(
        &ld(
            r#"[{"@type":"Event","name":"Concierto","startDate":"2026-01-20T20:00","location":{"@type":"Place","name":"Auditorio Alfredo Kraus","address":{"@type":"PostalAddress","addressLocality":"Las Palmas de Gran Canaria","addressCountry":"ES"}}},
              {"@type":"Event","name":"Charla","startDate":"2026-01-21T19:00","location":"En línea"}]"#,
        ),
        json!([
            {"start": "2026-01-20T20:00:00+00:00", "locality": "Las Palmas de Gran Canaria"},
            {"start": "2026-01-21T19:00:00", "venue_name": null},
        ]),
    );
    // de: a zone named in the value; additionalType makes a Thing an event.
    check(
        &ld(
            r#"{"@type":"Thing","additionalType":"https://schema.org/Festival","name":"Sommerfest","startDate":"2026-06-20T18:00 Europe/Berlin"}"#,
        ),
        json!([{"title": "Sommerfest", "start": "2026-06-20T18:00:00+02:00"}]),
    );
    // en: a US venue has several clocks: floating; the page's canonical link is the url.
    check(
        &format!(
            r#"<link rel="canonical" href="https://venue.example/shows/42">{}"#,
            ld(
                r#"{"@type":"PerformingArtsEvent","name":"Late Show","startDate":"2026-05-01T22:00","location":{"@type":"Place","name":"The Hall","address":"1 Main St, Denver, CO, USA"}}"#
            )
        ),
        json!([{"title": "Late Show", "start": "2026-05-01T22:00:00", "url": "https://venue.example/shows/42", "status": null}]),
    );
}

#[test]
fn truncated_jsonld_keeps_the_values_read_whole() {
    check(
        r#"<script type="application/ld+json">{"@type":"Event","name":"Cut short","startDate":"2026-05-01T20:00","location":{"@type":"Place","name":"Hall","address":{"streetAddress":"1 Ma"#,
        json!([{"title": "Cut short", "start": "2026-05-01T20:00:00", "venue_name": "Hall", "street": null}]),
    );
}

/// HTML entities are decoded exactly once, whichever reader found the text (issue 24):
/// a JSON-LD string is HTML source, so `&amp;amp;` in it means `&amp;`; microdata, RDFa
/// and microformats text comes from the DOM, which already decoded `&amp;amp;` to `&amp;`
/// and `&lt;` to `<`, so nothing more is decoded (nor taken for a tag).
#[test]
fn entities_are_decoded_exactly_once_in_every_format() {
    let cases: [(&str, String); 4] = [
        (
            "json-ld",
            ld(r#"{"@type":"Event","name":"Tom &amp;amp; Jerry &lt;3","startDate":"2026-05-01",
                "description":"Rock &amp; roll &lt;b&gt;live&lt;/b&gt;","location":{"@type":"Place","name":"Bar &amp;amp; Grill"}}"#),
        ),
        (
            "microdata",
            r#"<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">Tom &amp;amp; Jerry &lt;3</h1>
               <meta itemprop="startDate" content="2026-05-01"><p itemprop="description">Rock &amp; roll &lt;b&gt;live&lt;/b&gt;</p>
               <div itemprop="location" itemscope itemtype="https://schema.org/Place"><span itemprop="name">Bar &amp;amp; Grill</span></div></div>"#
                .to_owned(),
        ),
        (
            "rdfa",
            r#"<div vocab="https://schema.org/" typeof="Event"><h1 property="name">Tom &amp;amp; Jerry &lt;3</h1>
               <meta property="startDate" content="2026-05-01"><p property="description">Rock &amp; roll &lt;b&gt;live&lt;/b&gt;</p>
               <div property="location" typeof="Place"><span property="name">Bar &amp;amp; Grill</span></div></div>"#
                .to_owned(),
        ),
        (
            "microformats",
            r#"<div class="h-event"><h1 class="p-name">Tom &amp;amp; Jerry &lt;3</h1>
               <time class="dt-start" datetime="2026-05-01">1 May</time><p class="p-description">Rock &amp; roll &lt;b&gt;live&lt;/b&gt;</p>
               <span class="p-location">Bar &amp;amp; Grill</span></div>"#
                .to_owned(),
        ),
    ];
    for (format, page) in cases {
        let (got, diags) = events(&page);
        assert_eq!(got.len(), 1, "{format}: {got:#?} {diags:#?}");
        let e = &got[0];
        assert_eq!(e["title"], "Tom &amp; Jerry <3", "{format}: {e:#?}");
        assert_eq!(e["venue_name"], "Bar &amp; Grill", "{format}: {e:#?}");
        let want = if format == "json-ld" { "Rock & roll live" } else { "Rock & roll <b>live</b>" };
        assert_eq!(e["description"], want, "{format}: {e:#?}");
    }
}

/// RDFa 1.1 "hanging rel": a `rel` with no object of its own is completed by the resource
/// below it, so `<p rel="offers"><span typeof="Offer">` is the event's offer (and its text
/// is no offer URL).
#[test]
fn rdfa_hanging_rel_takes_the_resource_below() {
    check(
        r#"<html prefix="schema: https://schema.org/"><body>
        <section typeof="schema:MusicEvent"><h2 property="schema:name">Spring Pops</h2>
        <time property="schema:startDate" datetime="2026-04-17T20:30:00-04:00">8:30 pm</time>
        <p rel="schema:offers"><span typeof="schema:Offer"><meta property="schema:price" content="35">
        <meta property="schema:priceCurrency" content="USD">$35 · <a property="schema:url" href="https://tickets.example.org/e/1">Tickets</a></span></p>
        </section></body></html>"#,
        json!([{"title": "Spring Pops", "price_min": "35", "currency": "USD",
                "ticket_url": "https://tickets.example.org/e/1"}]),
    );
}

#[test]
fn a_date_only_reading_merges_with_the_one_timed_reading_of_that_day() {
    let microdata = r#"<div itemscope itemtype="https://schema.org/MusicEvent">
        <span itemprop="name">Quartet</span>
        <meta itemprop="startDate" content="2026-05-08T20:00:00+02:00">
        <div itemprop="offers" itemscope itemtype="https://schema.org/AggregateOffer">
        <meta itemprop="lowPrice" content="20"><meta itemprop="highPrice" content="32">
        <meta itemprop="priceCurrency" content="EUR"></div></div>"#;
    let jsonld = r#"<script type="application/ld+json">{"@context":"https://schema.org",
        "@type":"Event","name":"Quartet","startDate":"2026-05-08",
        "image":"https://example.org/q.jpg"}</script>"#;
    // Either order: one event, the time and offset of the timed reading, the image of the other.
    for page in [
        format!("<html>{jsonld}<body>{microdata}</body></html>"),
        format!("<html><body>{microdata}</body>{jsonld}</html>"),
    ] {
        check(
            &page,
            json!([{"title": "Quartet", "start": "2026-05-08T20:00:00+02:00",
                    "price_min": "20", "price_max": "32", "image_url": "https://example.org/q.jpg"}]),
        );
    }
    // Two timed performances that day: the date-only reading is neither of them.
    check(
        &ld(r#"[{"@type":"Event","name":"Play","startDate":"2026-05-08T14:00:00+02:00"},
               {"@type":"Event","name":"Play","startDate":"2026-05-08T20:00:00+02:00"},
               {"@type":"Event","name":"Play","startDate":"2026-05-08"}]"#),
        json!([{"start": "2026-05-08T14:00:00+02:00"}, {"start": "2026-05-08T20:00:00+02:00"},
               {"start": "2026-05-08"}]),
    );
}

#[test]
fn a_named_sub_event_does_not_take_its_festivals_description_and_image() {
    check(
        &ld(r#"{"@context":"https://schema.org","@type":"Festival","name":"Folk Weekend",
            "startDate":"2026-05-23","description":"Two days of folk.","image":"https://example.org/f.jpg",
            "subEvent":[{"@type":"MusicEvent","name":"Saturday Concert","startDate":"2026-05-23T19:30:00+01:00"},
                        {"@type":"MusicEvent","startDate":"2026-05-24T19:30:00+01:00"}]}"#),
        json!([
            {"title": "Folk Weekend", "description": "Two days of folk.", "image_url": "https://example.org/f.jpg"},
            {"title": "Saturday Concert", "description": null, "image_url": null},
            // A performance without a name of its own is the show's: it inherits.
            {"title": "Folk Weekend", "start": "2026-05-24T19:30:00+01:00",
             "description": "Two days of folk.", "image_url": "https://example.org/f.jpg"},
        ]),
    );
}

#[test]
fn a_page_that_declares_itself_news_gives_no_fallback_event() {
    let body = "<body><h1>Council approves renovation</h1>\
        <p>Construction begins on Monday, June 1, 2026 at 9:00 am.</p></body>";
    let news = format!(
        "<html><head><script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
         \"@type\":\"NewsArticle\",\"headline\":\"Council approves renovation\"}}</script></head>{body}</html>"
    );
    let (got, diags) = events(&news);
    assert!(got.is_empty(), "{got:#?}");
    assert!(diags.iter().any(|d| d.contains("NewsArticle")), "{diags:#?}");
    // Positive control: the same page without the declaration is read by the fallback.
    let (got, _) = events(&format!("<html>{body}</html>"));
    assert_eq!(got.len(), 1, "{got:#?}");
}

#[test]
fn a_time_element_with_value_parts_in_words_keeps_its_datetime() {
    check(
        r#"<html><body><div class="h-event"><h2 class="p-name">Visite</h2>
           <time class="dt-start" datetime="2026-04-11T14:30"><span class="value">samedi 11 avril</span></time>
           <abbr class="dt-end" title="20260411T1630">16h30</abbr></div></body></html>"#,
        json!([{"title": "Visite", "start": "2026-04-11T14:30:00", "end": "2026-04-11T16:30:00"}]),
    );
}

#[test]
fn microformat_events_take_the_price_and_booking_link_their_text_gives() {
    check(
        r#"<html><body>
        <div class="vevent"><h2 class="summary"><a class="url" href="https://example.org/e/requiem">Requiem</a></h2>
          <abbr class="dtstart" title="2026-03-14T19:30:00+01:00">14. März</abbr>
          <p>Karten ab 25 € an der Abendkasse und im <a href="https://tickets.example.org/requiem">Vorverkauf</a>.</p></div>
        <div class="h-event"><h2 class="p-name">Visite</h2><time class="dt-start" datetime="2026-04-11T14:30">11 avril</time>
          <p>Tarif : 9 € (adhérents 6 €).</p></div>
        <div class="h-event"><h2 class="p-name">Conférence</h2><time class="dt-start" datetime="2026-04-23T18:30">23 avril</time>
          <p>Entrée gratuite.</p></div>
        </body></html>"#,
        json!([
            {"title": "Requiem", "price_min": "25", "price_max": null, "currency": "EUR",
             "ticket_url": "https://tickets.example.org/requiem"},
            {"title": "Visite", "price_min": "6", "price_max": "9", "currency": "EUR"},
            {"title": "Conférence", "is_free": true},
        ]),
    );
}

#[test]
fn an_event_schedule_gives_its_first_occurrence() {
    check(
        &ld(r#"{"@context":"https://schema.org","@type":"Event","name":"Weekly yoga",
            "eventSchedule":{"@type":"Schedule","startDate":"2017-01-01","endDate":"2017-12-31",
              "repeatFrequency":"P1W","byDay":"https://schema.org/Wednesday",
              "startTime":"19:00:00","endTime":"20:00:00","scheduleTimezone":"Europe/London"}}"#),
        json!([{"title": "Weekly yoga", "start": "2017-01-04T19:00:00+00:00",
                "end": "2017-01-04T20:00:00+00:00"}]),
    );
    check(
        &ld(r#"[{"@type":"Event","name":"Monthly market","eventSchedule":{"@type":"Schedule",
              "startDate":"2026-03-02","repeatFrequency":"P1M","byMonthDay":15,"startTime":"08:00"}},
            {"@type":"Event","name":"No start","eventSchedule":{"@type":"Schedule","repeatFrequency":"P1W"}}]"#),
        json!([
            {"title": "Monthly market", "start": "2026-03-15T08:00:00"},
            // A schedule without a start date gives no date: none is invented.
            {"title": "No start", "start": null},
        ]),
    );
}

/// The events a document of the given type yields, as public JSON.
fn events_of(bytes: &str, content_type: &str, base: &str) -> Vec<Value> {
    let base = Url::parse(base).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let out = gleaner_extract::extract_events(bytes.as_bytes(), content_type, &ctx);
    out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect()
}

/// The listed fields of each event, in order.
fn fields(events: &[Value], keys: &[&str]) -> Vec<Vec<Value>> {
    events.iter().map(|e| keys.iter().map(|k| e[*k].clone()).collect()).collect()
}

#[test]
fn a_short_bounded_event_schedule_gives_one_event_per_performance() {
    // Two bounded schedules (Fri–Sat evenings less one date, one Sunday matinee) and no
    // startDate of the show's own: five performances, each in the schedule's zone.
    let page = ld(r#"{"@context":"https://schema.org","@type":"TheaterEvent","name":"Ubu roi",
        "location":{"@type":"Place","name":"Salle Nord","address":"3 quai Est, Lyon"},
        "eventSchedule":[
          {"@type":"Schedule","startDate":"2027-03-05","endDate":"2027-03-13","repeatFrequency":"P1D",
           "byDay":["https://schema.org/Friday","https://schema.org/Saturday"],
           "exceptDate":"2027-03-12","startTime":"20:00","endTime":"21:30","scheduleTimezone":"Europe/Paris"},
          {"@type":"Schedule","startDate":"2027-03-14","endDate":"2027-03-14","byDay":"https://schema.org/Sunday",
           "startTime":"15:00:00","scheduleTimezone":"Europe/Paris"}]}"#);
    let (got, _) = events(&page);
    let starts: Vec<&str> = got.iter().filter_map(|e| e["start"].as_str()).collect();
    assert_eq!(
        starts,
        [
            "2027-03-05T20:00:00+01:00",
            "2027-03-06T20:00:00+01:00",
            "2027-03-13T20:00:00+01:00",
            "2027-03-14T15:00:00+01:00",
        ]
    );
    assert_eq!(got[0]["end"], "2027-03-05T21:30:00+01:00");
    assert!(got.iter().all(|e| e["title"] == "Ubu roi"));
    // Thirteen weeks of a weekly class is a series: its first occurrence only.
    check(
        &ld(r#"{"@type":"Event","name":"Choir","eventSchedule":{"@type":"Schedule",
            "startDate":"2027-01-06","endDate":"2027-03-31","repeatFrequency":"P1W",
            "startTime":"19:00"}}"#),
        json!([{"title": "Choir", "start": "2027-01-06T19:00:00"}]),
    );
}

#[test]
fn a_twice_escaped_jsonld_description_reads_as_text() {
    check(
        &ld(r#"{"@type":"Event","name":"Taller","startDate":"2027-05-09T11:00:00+02:00",
            "description":"\u003Cp\u003EPlazas limitadas.\u003C/p\u003E\\n\\nTrae delantal.\\r\\n"}"#),
        json!([{"description": "Plazas limitadas.\nTrae delantal."}]),
    );
}

#[test]
fn calendar_locations_with_a_country_a_uk_postcode_or_no_number_and_a_description_price() {
    let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\
BEGIN:VEVENT\r\nUID:a@x\r\nDTSTART:20270313T193000Z\r\nSUMMARY:Barn Dance\r\n\
LOCATION:Elm Hall\\, 9 Mill Lane\\, York YO1 7HH\\, UK\r\n\
DESCRIPTION:Live band. Tickets £10 / £6 on the door.\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:b@x\r\nDTSTART:20271120T220000\r\nSUMMARY:Estrellas\r\n\
LOCATION:Mirador Alto\\, Calle Real s/n\\, 44001 Teruel\\, España\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:c@x\r\nDTSTART:20271121T220000\r\nSUMMARY:Cometas\r\n\
LOCATION:Área recreativa El Pinar\\, 44120 El Pinar (Teruel)\\, España\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";
    let got = events_of(ics, "text/calendar", "https://example.org/cal.ics");
    let mut got = fields(
        &got,
        &[
            "title",
            "venue_name",
            "street",
            "locality",
            "country",
            "price_min",
            "price_max",
            "start",
        ],
    );
    got.sort_by_key(|f| f[0].to_string());
    assert_eq!(
        got,
        [
            vec![
                json!("Barn Dance"),
                json!("Elm Hall"),
                json!("9 Mill Lane"),
                json!("York"),
                json!("GB"),
                json!("6"),
                json!("10"),
                json!("2027-03-13T19:30:00+00:00"),
            ],
            // A floating time in Spain (one mainland zone): the zone's offset.
            vec![
                json!("Cometas"),
                json!("Área recreativa El Pinar"),
                Value::Null,
                json!("El Pinar"),
                json!("ES"),
                Value::Null,
                Value::Null,
                json!("2027-11-21T22:00:00+01:00"),
            ],
            vec![
                json!("Estrellas"),
                json!("Mirador Alto"),
                json!("Calle Real s/n"),
                json!("Teruel"),
                json!("ES"),
                Value::Null,
                Value::Null,
                json!("2027-11-20T22:00:00+01:00"),
            ],
        ]
    );
}

#[test]
fn feed_titles_led_by_their_date_and_the_channels_place() {
    let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>What's on</title>
<link>https://hall.example.ie/</link><language>en-ie</language>
<description>Music and talks at the Quay Hall, 7 Dock Road, Cork, Ireland.</description>
<item><title>Fri 5 March 2027, 8pm – Harp Night</title><link>https://hall.example.ie/harp</link>
<pubDate>Mon, 01 Feb 2027 10:00:00 +0000</pubDate><description>Tickets €12.</description></item>
<item><title>Sat 10 April 2027, 7.30pm - Poetry: 1916 - Voices</title><link>https://hall.example.ie/poetry</link>
<pubDate>Mon, 01 Feb 2027 10:00:00 +0000</pubDate><description>Readings.</description></item>
<item><title>Box office at Easter</title><link>https://hall.example.ie/news/easter</link>
<pubDate>Tue, 02 Feb 2027 10:00:00 +0000</pubDate>
<description>Closed from Friday 26 March to Monday 29 March 2027 and open on Tuesday 30 March at 11am.</description></item>
</channel></rss>"#;
    let got = events_of(rss, "application/rss+xml", "https://hall.example.ie/feed.rss");
    assert_eq!(
        fields(&got, &["title", "start", "venue_name", "street", "locality", "country"]),
        [
            vec![
                json!("Harp Night"),
                json!("2027-03-05T20:00:00+00:00"),
                json!("Quay Hall"),
                json!("7 Dock Road"),
                json!("Cork"),
                json!("IE"),
            ],
            // Only the date before the first dash goes; the name keeps its own dash.
            vec![
                json!("Poetry: 1916 - Voices"),
                json!("2027-04-10T19:30:00+01:00"),
                json!("Quay Hall"),
                json!("7 Dock Road"),
                json!("Cork"),
                json!("IE"),
            ],
        ],
        "the news item about a closure gives no event: {got:#?}"
    );
}

/// Drupal 7 RDFa (`schema:` CURIEs): a linked name (`<a href property="schema:name">`) is
/// its text, not the link, and the resource's `about` is the event's URL when it gives no
/// `url` of its own (a fragment `about` names no page).
#[test]
fn rdfa_curie_linked_name_is_its_text_and_about_is_the_url() {
    check(
        r##"<html prefix="schema: http://schema.org/ dc: http://purl.org/dc/terms/"><body>
        <div about="/veranstaltung/fest" typeof="schema:Event sioc:Item">
        <h2><a href="/veranstaltung/fest" property="schema:name dc:title">Hoffest</a></h2>
        <span property="schema:startDate" content="2026-05-09T15:00:00+02:00">9.5.</span></div>
        <div about="#zwei" typeof="schema:Event"><span property="schema:name">Zwei</span>
        <span property="schema:startDate" content="2026-05-10T15:00:00+02:00">10.5.</span></div>
        </body></html>"##,
        json!([{"title": "Hoffest", "start": "2026-05-09T15:00:00+02:00",
                "url": "https://example.org/veranstaltung/fest"},
               {"title": "Zwei", "url": null}]),
    );
}

/// An Atom feed whose entries carry `content type="xhtml"`: the date and time a table's
/// rows give (`Date | …`, `Heure | …`) when the title names the day alone; the lead
/// paragraph is the description unless it is where the date was read; a status badge after
/// the title goes to the status; a free entry the table states is free; a day range (`3 juin – 14 juin`) is no one-day event; the
/// subtitle naming a place (venue, street, town) is where the entries are, and the feed's
/// language gives its country.
#[test]
fn atom_xhtml_content_tables_badges_and_the_subtitles_place() {
    let atom = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="fr">
<title>Salle des fêtes – annonces</title>
<subtitle>Salle des fêtes, 4 rue du Moulin, 21000 Dijon</subtitle>
<entry><title>Bal du 14 juin</title><link href="https://salle.example.fr/bal"/>
<published>2027-05-02T09:00:00+02:00</published>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">
<p>Orchestre musette et buvette.</p>
<table><tr><th>Date</th><td>14 juin 2027</td></tr><tr><th>Heure</th><td>21:00</td></tr>
<tr><th>Tarif</th><td>Entrée libre</td></tr></table>
</div></content></entry>
<entry><title>Loto des écoles – ANNULÉ</title><link href="https://salle.example.fr/loto"/>
<published>2027-05-02T09:00:00+02:00</published>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">
<p><strong>Annulé.</strong> Le loto prévu le 20 juin 2027 à 15h00 n'aura pas lieu.</p>
</div></content></entry>
<entry><title>Exposition de peintures</title><link href="https://salle.example.fr/expo"/>
<published>2027-05-02T09:00:00+02:00</published>
<content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml">
<p>Aquarelles du 3 juin – 14 juin 2027, vernissage le 3 juin à 18h00.</p>
</div></content></entry>
</feed>"#;
    let got = events_of(atom, "application/atom+xml", "https://salle.example.fr/feed.atom");
    assert_eq!(
        fields(
            &got,
            &[
                "title",
                "start",
                "description",
                "status",
                "is_free",
                "venue_name",
                "street",
                "locality",
                "country"
            ]
        ),
        [
            vec![
                json!("Bal du 14 juin"),
                json!("2027-06-14T21:00:00+02:00"),
                json!("Orchestre musette et buvette."),
                Value::Null,
                json!(true),
                json!("Salle des fêtes"),
                json!("4 rue du Moulin"),
                json!("Dijon"),
                json!("FR"),
            ],
            vec![
                json!("Loto des écoles"),
                json!("2027-06-20T15:00:00+02:00"),
                Value::Null,
                json!("cancelled"),
                Value::Null,
                json!("Salle des fêtes"),
                json!("4 rue du Moulin"),
                json!("Dijon"),
                json!("FR"),
            ],
        ],
        "{got:#?}"
    );
}

/// A status badge before a calendar's SUMMARY (`Abgesagt: …`) is the status, not part of
/// the name; STATUS, when given, still decides. A Turkish `District / Province` locality
/// is the district.
#[test]
fn calendar_summary_status_badges_and_turkish_districts() {
    let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n\
BEGIN:VEVENT\r\nUID:a@x\r\nDTSTART:20271113T180000Z\r\nSUMMARY:Abgesagt: Orgelnacht\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:b@x\r\nDTSTART:20271114T180000Z\r\nSUMMARY:Kammerkonzert (verschoben)\r\n\
STATUS:CONFIRMED\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:c@x\r\nDTSTART:20271115T180000Z\r\nSUMMARY:Achtung: Neue Zeiten\r\n\
LOCATION:Sanat Evi\\, Cumhuriyet Cad. No: 8\\, Tepebaşı / Eskişehir\r\nEND:VEVENT\r\n\
END:VCALENDAR\r\n";
    let got = events_of(ics, "text/calendar", "https://example.org/cal.ics");
    let mut got = fields(&got, &["title", "status", "locality"]);
    got.sort_by_key(|f| f[0].to_string());
    assert_eq!(
        got,
        [
            vec![json!("Achtung: Neue Zeiten"), Value::Null, json!("Tepebaşı")],
            vec![json!("Kammerkonzert"), json!("scheduled"), Value::Null],
            vec![json!("Orgelnacht"), json!("cancelled"), Value::Null],
        ]
    );
}

/// An offer `price` that is a range as text (`15 &#8211; 25`, The Events Calendar): its
/// low and high price; a plain amount stays one price.
#[test]
fn jsonld_offer_price_written_as_a_range() {
    check(
        &ld(r#"[{"@type":"Event","name":"Quartett","startDate":"2027-03-06T19:00:00+01:00",
              "offers":{"@type":"Offer","price":"12 &#8211; 30","priceCurrency":"EUR"}},
             {"@type":"Event","name":"Solo","startDate":"2027-03-07T19:00:00+01:00",
              "offers":{"@type":"Offer","price":"18","priceCurrency":"EUR"}}]"#),
        json!([{"title": "Quartett", "price_min": "12", "price_max": "30", "currency": "EUR"},
               {"title": "Solo", "price_min": "18", "price_max": "18"}]),
    );
}

#[test]
fn a_course_instance_is_a_run_of_its_course() {
    check(
        &ld(r##"{"@context":"https://schema.org","@type":"Course",
            "@id":"https://example.org/kurse/discofox/#course",
            "name":"Discofox für Einsteiger","description":"Acht Abende Grundschritt.",
            "offers":[{"@type":"Offer","price":159,"priceCurrency":"EUR"},
                      {"@type":"Offer","price":129,"priceCurrency":"EUR"}],
            "hasCourseInstance":[
              {"@type":"CourseInstance","name":"Discofox für Einsteiger – Montagskurs",
               "startDate":"2026-09-14T19:00:00+02:00",
               "location":{"@type":"Place","name":"Tanzschule, Saal 1",
                 "address":{"@type":"PostalAddress","streetAddress":"Hafenweg 14","addressLocality":"Münster"}},
               "offers":{"@type":"Offer","url":"https://example.org/buchen/?kurs=MO"}},
              {"@type":"CourseInstance","startDate":"2026-09-17T20:30:00+02:00"}]}"##),
        json!([
            {"title": "Discofox für Einsteiger – Montagskurs", "description": "Acht Abende Grundschritt.",
             "price_min": "129", "price_max": "159", "currency": "EUR",
             "ticket_url": "https://example.org/buchen/?kurs=MO", "venue_name": "Tanzschule, Saal 1",
             "url": "https://example.org/kurse/discofox/"},
            {"title": "Discofox für Einsteiger", "price_min": "129",
             "url": "https://example.org/kurse/discofox/"}
        ]),
    );
}

#[test]
fn events_at_one_named_venue_share_the_address_one_of_them_gives() {
    let place = |addr: &str| format!(r#"{{"@type":"Place","name":"Seminer Salonu"{addr}}}"#);
    let full = place(
        r#","address":{"@type":"PostalAddress","streetAddress":"Üniversite Caddesi No: 9","addressLocality":"İzmir","addressCountry":"TR"}"#,
    );
    let page = |second: &str| {
        ld(&format!(
            r#"{{"@context":"https://schema.org","@graph":[
            {{"@type":"EducationEvent","name":"One","startDate":"2026-03-11T15:30","location":{full}}},
            {{"@type":"EducationEvent","name":"Two","startDate":"2026-03-18T15:30","location":{second}}}]}}"#
        ))
    };
    check(
        &page(&place("")),
        json!([
            {"title": "One", "street": "Üniversite Caddesi No: 9", "locality": "İzmir"},
            {"title": "Two", "street": "Üniversite Caddesi No: 9", "locality": "İzmir",
             "country": "TR", "start": "2026-03-18T15:30:00+03:00"}
        ]),
    );
    // Another venue's name takes nothing.
    let other = r#"{"@type":"Place","name":"Konferans Salonu"}"#;
    check(&page(other), json!([{"title": "One"}, {"title": "Two", "street": null}]));
}

#[test]
fn a_super_event_without_a_date_is_the_series() {
    check(
        &ld(r##"{"@context":"https://schema.org","@type":"TheaterEvent",
            "name":"The Lighthouse Keeper's Daughter","startDate":"2026-08-07T19:30:00+01:00",
            "superEvent":{"@type":"Festival","name":"Fringe by the Sea 2026","url":"https://example.org/festival/"}}"##),
        json!([{"title": "The Lighthouse Keeper's Daughter"}]),
    );
    // A dated super-event is an event of its own.
    check(
        &ld(r##"{"@context":"https://schema.org","@type":"TheaterEvent","name":"Play",
            "startDate":"2026-08-07T19:30",
            "superEvent":{"@type":"Festival","name":"Fringe","startDate":"2026-08-01"}}"##),
        json!([{"title": "Play"}, {"title": "Fringe"}]),
    );
}

#[test]
fn performances_of_one_show_take_its_canonical_page() {
    let page = |second: &str| {
        format!(
            r#"<html><head><link rel="canonical" href="https://example.org/film/pusula">
            <script type="application/ld+json">[
              {{"@context":"https://schema.org","@type":"ScreeningEvent","name":"Pusula","startDate":"2026-03-19T19:00"}},
              {{"@context":"https://schema.org","@type":"ScreeningEvent","name":"{second}","startDate":"2026-03-20T21:15"}}
            ]</script></head></html>"#
        )
    };
    check(
        &page("Pusula"),
        json!([{"url": "https://example.org/film/pusula"}, {"url": "https://example.org/film/pusula"}]),
    );
    // Two different events: the page is a listing, no one event's page.
    check(&page("Another film"), json!([{"url": null}, {"url": null}]));
}

/// A widget's events (Eventbrite, OpenAgenda, a tour-dates embed) link another site: the
/// page is each one's page (issue 24: the own URL only when it is on the page's site).
#[test]
fn a_widgets_events_on_another_site_take_the_page() {
    let page = |second_start: &str, second_url: &str| {
        format!(
            r#"<html><head><link rel="canonical" href="https://example.org/whats-on/">
            <script type="application/ld+json">[
              {{"@type":"Event","name":"Ghost Tour","startDate":"2026-03-19T19:00",
                "url":"https://www.eventbrite.example/e/ghost-tour-1"}},
              {{"@type":"Event","name":"Plant Fair","startDate":"{second_start}","url":"{second_url}"}}
            ]</script></head></html>"#
        )
    };
    let on_page = json!({"url": "https://example.org/whats-on/"});
    check(
        &page("2026-04-11T10:00", "https://www.eventbrite.example/e/plant-fair-2"),
        json!([on_page, on_page]),
    );
    // Two starting alike would be one event in the store: they keep their own URLs.
    check(
        &page("2026-03-19T19:00", "https://www.eventbrite.example/e/plant-fair-2"),
        json!([
            {"url": "https://www.eventbrite.example/e/ghost-tour-1"},
            {"url": "https://www.eventbrite.example/e/plant-fair-2"}
        ]),
    );
    // One own page on the site: a listing, each keeps its own.
    check(
        &page("2026-04-11T10:00", "https://example.org/events/plant-fair"),
        json!([
            {"url": "https://www.eventbrite.example/e/ghost-tour-1"},
            {"url": "https://example.org/events/plant-fair"}
        ]),
    );
}

#[test]
fn a_date_only_jsonld_event_takes_the_one_time_its_markup_states() {
    let article = |name: &str, day: &str, time: &str| {
        format!(
            r#"<article><script type="application/ld+json">{{"@context":"http://schema.org",
            "@type":"Event","name":"{name}","startDate":"{day}","endDate":"{day}"}}</script>
            <h3>{name}</h3><div class="mec-time-details"><span>{time}</span></div></article>"#
        )
    };
    let page = format!(
        "<html><body>{}{}</body></html>",
        article("Spring Concert", "2026-03-21", "7:30 pm</span> - <span>9:30 pm"),
        article("Summer Fair", "2026-06-20", "All day")
    );
    check(
        &page,
        json!([
            {"title": "Spring Concert", "start": "2026-03-21T19:30:00", "end": "2026-03-21T21:30:00"},
            {"title": "Summer Fair", "start": "2026-06-20"}
        ]),
    );
}

/// What structured data leaves out and its own text says (issue 24, blind batch 190–209):
/// a zone stated in one event's description, a price in the description, the address
/// Contao writes as a `PostalAddress`'s description, a status badge in the name.
#[test]
fn structured_data_completed_from_its_own_text() {
    check(
        &ld(r##"[{"@type":"MusicEvent","name":"Club show","startDate":"2026-03-12T20:00:00",
                  "description":"Doors 7pm. $18 adv / $22 dos.",
                  "offers":{"@type":"Offer","url":"https://tix.example/t/1"}},
                 {"@type":"MusicEvent","name":"Album stream","startDate":"2026-05-16T19:00:00",
                  "description":"Free to watch; tip jar open. 7 PM Central."}]"##),
        json!([
            {"start": "2026-03-12T20:00:00", "price_min": "18", "price_max": "22",
             "currency": "USD", "ticket_url": "https://tix.example/t/1"},
            {"start": "2026-05-16T19:00:00-05:00"},
        ]),
    );
    check(
        &ld(r##"{"@type":"Event","name":"ABGESAGT – Honigmarkt","startDate":"2026-08-30",
                 "location":{"@type":"Place","name":"Dorfplatz","address":{"@type":"PostalAddress",
                 "description":"Am Bienenstand 3, 35085 Ebsdorfergrund"}}}"##),
        json!([{"status": "cancelled", "street": "Am Bienenstand 3", "locality": "Ebsdorfergrund"}]),
    );
}

#[test]
fn a_structured_events_local_time_is_on_the_sites_clock_when_its_country_has_one() {
    // Issue 24 (pages 243, 254, 266): hand-written JSON-LD without an offset on a `de-AT`
    // page is Austrian local time, so it carries Vienna's offset (summer time in May); a
    // `fr` or `en-US` site names no single zone, and its times stay local.
    let page = |lang: &str| {
        format!(
            r#"<html lang="{lang}"><head><script type="application/ld+json">{{"@type":"Event","name":"Fahrtag","startDate":"2026-05-10T09:00","location":"Vereinsheim, Bahnhofstraße 3, Gmunden"}}</script></head></html>"#
        )
    };
    check(&page("de-AT"), json!([{"title": "Fahrtag", "start": "2026-05-10T09:00:00+02:00"}]));
    check(&page("fr"), json!([{"title": "Fahrtag", "start": "2026-05-10T09:00:00"}]));
    check(&page("en-US"), json!([{"title": "Fahrtag", "start": "2026-05-10T09:00:00"}]));
}

#[test]
fn a_read_events_local_time_is_on_the_clock_of_the_sites_domain() {
    // Issue 24 (page 355): a newsletter without a canonical address or a region in its
    // language tag, read by the fallback, sent from a `.be` address: its times are
    // Belgian; a `.com` address names no clock and they stay local.
    let page = r#"<html lang="fr"><body><h1>Lettre du cercle</h1><table>
        <tr><td>Jeudi 19 mars 2026, 20 h</td><td>Les moulins à eau de la vallée</td></tr>
        <tr><td>Samedi 18 avril 2026, 14 h</td><td>Visite de la vieille brasserie</td></tr>
        <tr><td>Dimanche 26 avril 2026, 14 h</td><td>Balade sur l'ancienne ligne du tram</td></tr>
        </table></body></html>"#;
    let start = |base: &str| {
        let base = Url::parse(base).unwrap();
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let out = gleaner_extract::extract_events(page.as_bytes(), "text/html", &ctx);
        out.events
            .iter()
            .map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()["start"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        start("https://www.cercle.example.be/lettre/87/"),
        vec![
            json!("2026-03-19T20:00:00+01:00"),
            json!("2026-04-18T14:00:00+02:00"),
            json!("2026-04-26T14:00:00+02:00")
        ]
    );
    assert_eq!(
        start("https://cercle.example.com/lettre/87/"),
        vec![
            json!("2026-03-19T20:00:00"),
            json!("2026-04-18T14:00:00"),
            json!("2026-04-26T14:00:00")
        ]
    );
}

#[test]
fn an_event_with_a_place_is_in_the_sites_country_when_the_site_names_one() {
    // Issue 24 (written pages 152, 166, 201, 220, 240): an event whose place names no
    // country, on a site whose language tag's region (agreeing with its country-code
    // domain, when it has one) names the country, is in that country. A bare `de` or an
    // `en-US` tag names none, and an event without a place gets none.
    let page = |lang: &str, location: &str| {
        format!(
            r#"<html lang="{lang}"><head><script type="application/ld+json">{{"@type":"Event","name":"Fahrtag","startDate":"2026-05-10","location":{location}}}</script></head></html>"#
        )
    };
    let hall = r#"{"@type":"Place","name":"Gemeindehalle","address":"Schulstraße 12, Gmunden"}"#;
    check(&page("de-AT", hall), json!([{"title": "Fahrtag", "country": "AT"}]));
    check(&page("de", hall), json!([{"title": "Fahrtag", "country": null}]));
    check(&page("en-US", hall), json!([{"title": "Fahrtag", "country": null}]));
    check(&page("de-AT", "null"), json!([{"title": "Fahrtag", "country": null}]));
}
