//! Shapes of the public conformance suites (issue 24): the microformats test suite's
//! h-event / hCalendar and value-class cases, schema.org's Event examples and the
//! iCalendar test files of calendar libraries. The suites were read to learn which shapes
//! they exercise; every page and calendar here is written anew, with its own values (the
//! house rule: learn from public code, never copy it). Each case is one line of a table:
//! a document, its content type and the fields of its first event that are judged.

use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::ExtractOptions;
use serde_json::{Value, json};
use url::Url;

const BASE: &str = "https://hall.example/whats-on/";

fn first_event(content_type: &str, body: &str) -> Option<Value> {
    let doc = if content_type == "text/html" && !body.contains("<html") {
        format!("<!doctype html><html><body>{body}</body></html>")
    } else {
        body.to_owned()
    };
    let base = Url::parse(BASE).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts = ExtractOptions { fallback: false, ..ExtractOptions::default() };
    let out = gleaner_extract::extract_events_with(doc.as_bytes(), content_type, &ctx, &opts);
    out.events.first().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap())
}

/// Runs a table; every mismatch is listed before the test fails, so one run gives the tally.
fn run(table: &[(&str, &str, &str, Value)]) {
    let mut failures = Vec::new();
    for (name, content_type, body, want) in table {
        let Some(got) = first_event(content_type, body) else {
            failures.push(format!("{name}: no event"));
            continue;
        };
        for (k, v) in want.as_object().unwrap() {
            if &got[k] != v {
                failures.push(format!("{name}: `{k}` is {} not {v}", got[k]));
            }
        }
    }
    #[allow(clippy::print_stdout, reason = "the tally is what the report quotes")]
    {
        println!("{} of {} cases right", table.len() - count_cases(&failures), table.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn count_cases(failures: &[String]) -> usize {
    let mut names: Vec<&str> =
        failures.iter().map(|f| f.split(": ").next().unwrap_or_default()).collect();
    names.dedup();
    names.len()
}

const H: &str = "text/html";
const ICS: &str = "text/calendar";

#[test]
fn microformats_value_class_and_dt_shapes() {
    run(&[
        (
            "dt-start on time text, offset without a colon",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <time class="dt-start">2014-05-03T20:15-0500</time></div>"#,
            json!({"start": "2014-05-03T20:15:00-05:00"}),
        ),
        (
            "dt-start on abbr title with a space and +0200",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <abbr class="dt-start" title="2014-05-03 20:15+0200">Sat</abbr></div>"#,
            json!({"start": "2014-05-03T20:15:00+02:00"}),
        ),
        (
            "dt-end as an ordinal date",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <time class="dt-start" datetime="2014-05-01">1 May</time>
               <time class="dt-end" datetime="2014-123">3 May</time></div>"#,
            json!({"end": "2014-05-03"}),
        ),
        (
            "one value part holding date, time and a two-digit offset",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start">on <span class="value">2014-05-03 20:15-05</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00-05:00"}),
        ),
        (
            "value parts win over the time element's own datetime",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <time class="dt-start" datetime="soon">on <span class="value">2014-05-03</span></time></div>"#,
            json!({"start": "2014-05-03"}),
        ),
        (
            "value parts on img alt",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><img class="value" alt="2014-05-03" src="/d.png">
               <span class="value">20:15</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00"}),
        ),
        (
            "value parts on data value",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><data class="value" value="2014-05-03">Saturday</data>,
               <data class="value" value="20:15">quarter past eight</data></span></div>"#,
            json!({"start": "2014-05-03T20:15:00"}),
        ),
        (
            "the first date part wins",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span>
               (was <span class="value">2014-04-26</span>)</span></div>"#,
            json!({"start": "2014-05-03"}),
        ),
        (
            "a time part before the date part",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">20:15</span> on
               <span class="value">2014-05-03</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00"}),
        ),
        (
            "12am is midnight",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span> <span class="value">12am</span></span></div>"#,
            json!({"start": "2014-05-03T00:00:00"}),
        ),
        (
            "12:30 P.M. is half past noon",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span> <span class="value">12:30P.M.</span></span></div>"#,
            json!({"start": "2014-05-03T12:30:00"}),
        ),
        (
            "12:15:30a.m. with seconds",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span> <span class="value">12:15:30a.m.</span></span></div>"#,
            json!({"start": "2014-05-03T00:15:30"}),
        ),
        (
            "an offset part of +0545",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span> <span class="value">20:15</span>
               <span class="value">+0545</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00+05:45"}),
        ),
        (
            "an offset part of -03",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span> <span class="value">20:15</span>
               <span class="value">-03</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00-03:00"}),
        ),
        (
            "a time part with its own offset",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-05-03</span><span class="value">20:15:00+0100</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00+01:00"}),
        ),
        (
            "a value inside a nested property is not the date's",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <div class="dt-start"><span class="value">2014-05-03</span>
               <div class="p-note"><span class="value">10:00</span></div></div></div>"#,
            json!({"start": "2014-05-03"}),
        ),
        (
            "an invalid value part gives no date",
            H,
            r#"<div class="h-event"><span class="p-name">Jam</span>
               <span class="dt-start"><span class="value">2014-13-40</span></span></div>"#,
            json!({"start": null}),
        ),
        (
            "attendees as h-cards are not the venue",
            H,
            r#"<div class="h-event"><span class="p-name">Reading group</span>
               (<time class="dt-start" datetime="2014-05-03">3 May</time>) in
               <span class="p-location">Lisbon</span>. With
               <ul><li class="p-attendee h-card">Ana Sousa</li><li class="p-attendee h-card">Rui Costa</li></ul></div>"#,
            json!({"title": "Reading group", "venue_name": "Lisbon", "start": "2014-05-03"}),
        ),
        (
            "classic attendees as vcards are not the venue",
            H,
            r#"<div class="vevent"><span class="summary">Reading group</span>
               (<time class="dtstart" datetime="2014-05-03">3 May</time>) in
               <span class="location">Lisbon</span>. With
               <ul><li class="attendee vcard">Ana Sousa</li></ul></div>"#,
            json!({"title": "Reading group", "venue_name": "Lisbon", "start": "2014-05-03"}),
        ),
        (
            "p-location h-card with p-name p-org, street, locality and region",
            H,
            r#"<div class="h-event"><a class="p-name u-url" href="https://camp.example/2014">Camp 2014</a>
               <time class="dt-start" datetime="2014-06-28">28</time>–<time class="dt-end" datetime="2014-06-29">29 June</time>
               <p class="p-location h-card"><a class="p-name p-org u-url" href="https://loft.example/">Loft Nine</a>,
               <span class="p-street-address">77 Pine St. Suite 9</span>, <span class="p-locality">Seattle</span>,
               <abbr class="p-region" title="Washington">WA</abbr></p></div>"#,
            json!({"title": "Camp 2014", "venue_name": "Loft Nine", "street": "77 Pine St. Suite 9",
                   "locality": "Seattle", "start": "2014-06-28", "end": "2014-06-29"}),
        ),
        (
            "classic time with a lower-case z",
            H,
            r#"<div class="vevent"><span class="summary">Jam</span>
               <abbr class="dtstart" title="2014-05-03T20:15z">8:15</abbr></div>"#,
            json!({"start": "2014-05-03T20:15:00+00:00"}),
        ),
        (
            "classic value parts with P.M.",
            H,
            r#"<div class="vevent"><span class="summary">Jam</span>
               <span class="dtstart"><span class="value">2014-05-03</span> <span class="value">8:15 P.M.</span></span></div>"#,
            json!({"start": "2014-05-03T20:15:00"}),
        ),
        (
            "classic dtend as time only after a dated dtstart",
            H,
            r#"<div class="vevent"><span class="summary">Jam</span>
               <span class="dtstart"><span class="value">2014-05-03</span> <span class="value">20:15</span></span>
               – <span class="dtend"><span class="value">11:30pm</span></span></div>"#,
            json!({"end": "2014-05-03T23:30:00"}),
        ),
    ]);
}

#[test]
fn schema_org_event_shapes() {
    run(&[
        (
            "microdata Event with Place, PostalAddress and Offer",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event">
                 <a itemprop="url" href="/whats-on/quartet"><span itemprop="name">Quartet in the Round</span></a>
                 <meta itemprop="startDate" content="2026-04-17T19:30">Fri 17 April, 7.30pm
                 <div itemprop="location" itemscope itemtype="https://schema.org/Place">
                   <span itemprop="name">Corn Exchange</span>
                   <div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress">
                     <span itemprop="streetAddress">4 Market Sq</span>, <span itemprop="addressLocality">Boston</span>,
                     <span itemprop="addressRegion">MA</span></div></div>
                 <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
                   <span itemprop="price" content="22.00">$22</span><meta itemprop="priceCurrency" content="USD">
                   <a itemprop="url" href="/tickets/quartet">Buy</a></div></div>"#,
            json!({"title": "Quartet in the Round", "start": "2026-04-17T19:30:00",
                   "venue_name": "Corn Exchange", "street": "4 Market Sq", "locality": "Boston",
                   "price_min": "22.00", "currency": "USD",
                   "ticket_url": "https://hall.example/tickets/quartet",
                   "url": "https://hall.example/whats-on/quartet"}),
        ),
        (
            "RDFa Event with vocab, typeof Place and a content date",
            H,
            r#"<div vocab="https://schema.org/" typeof="Event">
                 <h2 property="name">Poetry Night</h2>
                 <span property="startDate" content="2026-05-02T20:00:00+01:00">2 May, 8pm</span>
                 <div property="location" typeof="Place"><span property="name">The Crypt</span>
                 <div property="address" typeof="PostalAddress"><span property="addressLocality">Leeds</span>,
                 <span property="addressCountry">UK</span></div></div></div>"#,
            json!({"title": "Poetry Night", "start": "2026-05-02T20:00:00+01:00",
                   "venue_name": "The Crypt", "locality": "Leeds", "country": "GB"}),
        ),
        (
            "rescheduled: the new start, the status, previousStartDate ignored",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Harbour Lights","eventStatus":"https://schema.org/EventRescheduled",
                 "previousStartDate":"2026-03-01T19:00:00-05:00","startDate":"2026-03-22T19:00:00-05:00"}</script>"#,
            json!({"start": "2026-03-22T19:00:00-05:00", "status": "rescheduled"}),
        ),
        (
            "moved online: a VirtualLocation is no venue",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Garden Talk","startDate":"2026-03-22T18:00:00+00:00",
                 "eventStatus":"https://schema.org/EventMovedOnline",
                 "eventAttendanceMode":"https://schema.org/OnlineEventAttendanceMode",
                 "location":{"@type":"VirtualLocation","url":"https://stream.example/garden"}}</script>"#,
            json!({"venue_name": null, "status": "moved_online"}),
        ),
        (
            "mixed attendance: the Place of a location array is the venue",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Ideas Forum","startDate":"2026-03-22T18:00:00+01:00",
                 "location":[{"@type":"VirtualLocation","url":"https://stream.example/forum"},
                   {"@type":"Place","name":"Stadthalle","address":{"@type":"PostalAddress",
                    "streetAddress":"Ring 1","addressLocality":"Kassel","postalCode":"34117","addressCountry":"DE"}}]}</script>"#,
            json!({"venue_name": "Stadthalle", "street": "Ring 1", "locality": "Kassel", "country": "DE"}),
        ),
        (
            "a duration without endDate invents no end",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Short Film Hour","startDate":"2026-03-22T18:00","duration":"PT1H"}</script>"#,
            json!({"start": "2026-03-22T18:00:00", "end": null}),
        ),
        (
            "several offers give the lowest and highest price",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"MusicEvent",
                 "name":"Brass Night","startDate":"2026-03-22T19:30",
                 "offers":[{"@type":"Offer","price":"35","priceCurrency":"EUR","url":"https://hall.example/t/1"},
                           {"@type":"Offer","price":"12.50","priceCurrency":"EUR"}]}</script>"#,
            json!({"price_min": "12.50", "price_max": "35", "currency": "EUR"}),
        ),
        (
            "a free event said by isAccessibleForFree",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Open Day","startDate":"2026-03-22","isAccessibleForFree":true}</script>"#,
            json!({"is_free": true}),
        ),
        (
            "a price of zero is free",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Open Day","startDate":"2026-03-22",
                 "offers":{"@type":"Offer","price":0,"priceCurrency":"GBP"}}</script>"#,
            json!({"is_free": true, "price_min": "0"}),
        ),
        (
            "TheaterEvent with workPerformed and doorTime keeps its own name and start",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"TheaterEvent",
                 "name":"The Tempest (touring)","startDate":"2026-04-09T19:30+01:00","doorTime":"18:45",
                 "workPerformed":{"@type":"CreativeWork","name":"The Tempest","author":"W. Shakespeare"},
                 "location":{"@type":"PerformingArtsTheater","name":"Playhouse","address":"12 Quay St, Bristol BS1 4DJ, UK"}}</script>"#,
            json!({"title": "The Tempest (touring)", "start": "2026-04-09T19:30:00+01:00",
                   "venue_name": "Playhouse", "country": "GB"}),
        ),
        (
            "microdata startDate on a time element, performer not the venue",
            H,
            r#"<div itemscope itemtype="http://schema.org/MusicEvent">
                 <h1 itemprop="name">Low Tide Tour</h1>
                 <time itemprop="startDate" datetime="2026-06-12T21:00-07:00">12 June 9pm</time>
                 <div itemprop="performer" itemscope itemtype="http://schema.org/MusicGroup"><span itemprop="name">The Gulls</span></div>
                 <div itemprop="location" itemscope itemtype="http://schema.org/MusicVenue"><span itemprop="name">Pier Ballroom</span>
                 <meta itemprop="address" content="500 Ocean Ave, Santa Cruz, CA"></div></div>"#,
            json!({"title": "Low Tide Tour", "start": "2026-06-12T21:00:00-07:00",
                   "venue_name": "Pier Ballroom"}),
        ),
        (
            "SportsEvent with a City as location",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"SportsEvent",
                 "name":"River Marathon","startDate":"2026-10-04T08:00:00+02:00",
                 "location":{"@type":"City","name":"Sevilla"}}</script>"#,
            json!({"title": "River Marathon", "locality": "Sevilla"}),
        ),
        (
            "a date-only endDate equal to startDate is kept",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Festival",
                 "name":"One Day Fest","startDate":"2026-07-11","endDate":"2026-07-11"}</script>"#,
            json!({"start": "2026-07-11", "end": "2026-07-11"}),
        ),
    ]);
}

#[test]
fn icalendar_test_file_shapes() {
    run(&[
        (
            "a DTEND with a seventh clock digit is no time at all",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:t7@x\r\nSUMMARY:Choir practice\r\n\
             DTSTART:20260302T183000Z\r\nDTEND:20260302T2000000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"start": "2026-03-02T18:30:00+00:00", "end": null}),
        ),
        (
            "TZID with its VTIMEZONE, summer time",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VTIMEZONE\r\nTZID:America/Chicago\r\n\
             BEGIN:DAYLIGHT\r\nTZOFFSETFROM:-0600\r\nTZOFFSETTO:-0500\r\nDTSTART:19700308T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU\r\nEND:DAYLIGHT\r\n\
             BEGIN:STANDARD\r\nTZOFFSETFROM:-0500\r\nTZOFFSETTO:-0600\r\nDTSTART:19701101T020000\r\nRRULE:FREQ=YEARLY;BYMONTH=11;BYDAY=1SU\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n\
             BEGIN:VEVENT\r\nUID:a1@x\r\nDTSTAMP:20260101T000000Z\r\nSUMMARY:Board meeting\r\nDTSTART;TZID=America/Chicago:20260415T180000\r\nDTEND;TZID=America/Chicago:20260415T193000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Board meeting", "start": "2026-04-15T18:00:00-05:00",
                   "end": "2026-04-15T19:30:00-05:00"}),
        ),
        (
            "a custom TZID defined only by its VTIMEZONE rules",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTIMEZONE\r\nTZID:Pacific Time (US & Canada)\r\n\
             BEGIN:STANDARD\r\nDTSTART:16011104T020000\r\nRRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11\r\nTZOFFSETFROM:-0700\r\nTZOFFSETTO:-0800\r\nEND:STANDARD\r\n\
             BEGIN:DAYLIGHT\r\nDTSTART:16010311T020000\r\nRRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3\r\nTZOFFSETFROM:-0800\r\nTZOFFSETTO:-0700\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n\
             BEGIN:VEVENT\r\nUID:a2@x\r\nSUMMARY:Standup\r\nDTSTART;TZID=\"Pacific Time (US & Canada)\":20260115T090000\r\nDURATION:PT15M\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"start": "2026-01-15T09:00:00-08:00", "end": "2026-01-15T09:15:00-08:00"}),
        ),
        (
            "all-day: DTEND as written (the corpus convention)",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a3@x\nSUMMARY:Harvest fair\nDTSTART;VALUE=DATE:20260912\nDTEND;VALUE=DATE:20260914\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-09-12", "end": "2026-09-14"}),
        ),
        (
            "a UTC time stays UTC",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a4@x\nSUMMARY:Launch\nDTSTART:20260301T170000Z\nDTEND:20260301T180000Z\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-03-01T17:00:00+00:00"}),
        ),
        (
            "folded lines and escaped text",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:a5@x\r\nSUMMARY:Quilts\\, knots and\r\n  needles\r\nDESCRIPTION:Bring fabric\\; we bring tea.\\nAll ages.\r\nDTSTART:20260301T100000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Quilts, knots and needles", "description": "Bring fabric; we bring tea.\nAll ages.",
                   "start": "2026-03-01T10:00:00"}),
        ),
        (
            "a floating time takes X-WR-TIMEZONE",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nX-WR-TIMEZONE:Europe/Madrid\nBEGIN:VEVENT\nUID:a6@x\nSUMMARY:Tapas walk\nDTSTART:20260701T200000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-07-01T20:00:00+02:00"}),
        ),
        (
            "STATUS:CANCELLED",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a7@x\nSUMMARY:Picnic\nSTATUS:CANCELLED\nDTSTART;VALUE=DATE:20260701\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"status": "cancelled"}),
        ),
        (
            "free entry said in the DESCRIPTION",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a8@x\nSUMMARY:Orgelmatinee\nDESCRIPTION:Werke von Bach und Reger. Eintritt frei\\, Spenden erbeten.\nDTSTART;TZID=Europe/Berlin:20260705T110000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"is_free": true, "start": "2026-07-05T11:00:00+02:00"}),
        ),
        (
            "free entry in French in the DESCRIPTION",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a9@x\nSUMMARY:Concert d'orgue\nDESCRIPTION:Entrée libre.\nDTSTART;TZID=Europe/Paris:20260705T110000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"is_free": true}),
        ),
        (
            "a bare free word in a calendar's notes says nothing (the corpus convention)",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a10@x\nSUMMARY:Löt-Workshop\nDESCRIPTION:Der Kurs ist kostenlos\\, bitte anmelden.\nDTSTART;TZID=Europe/Berlin:20260705T110000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"is_free": null}),
        ),
        (
            "a room before the venue in LOCATION",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:b1@x\nSUMMARY:Lesung\nLOCATION:Raum 4\\, Volkshochschule\\, Gartenstr. 12\\, 79098 Freiburg\nDTSTART;TZID=Europe/Berlin:20260705T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": "Volkshochschule", "street": "Gartenstr. 12", "locality": "Freiburg"}),
        ),
        (
            "a room after the venue, no street",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:b2@x\nSUMMARY:Lesung\nLOCATION:Volkshochschule\\, Saal 3\\, 79098 Freiburg\nDTSTART;TZID=Europe/Berlin:20260705T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": "Volkshochschule", "street": null, "locality": "Freiburg"}),
        ),
        (
            "a room as the middle of three parts",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:b3@x\nSUMMARY:Talk\nLOCATION:Science Centre\\, Room 204\\, Dundee\nDTSTART:20260705T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": "Science Centre", "street": null, "locality": "Dundee"}),
        ),
        (
            "a VALARM inside the VEVENT changes nothing",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:b4@x\nSUMMARY:Dentist open evening\nDTSTART:20260705T190000\nBEGIN:VALARM\nACTION:DISPLAY\nDESCRIPTION:Reminder\nTRIGGER:-PT15M\nEND:VALARM\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"title": "Dentist open evening", "description": null}),
        ),
    ]);
}

#[test]
fn schema_org_shapes_in_the_wild() {
    run(&[
        (
            "JSON-LD startDate written day-first with slashes",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Fado Night","startDate":"15/03/2026 21:00","endDate":"15/03/2026 23:30"}</script>"#,
            json!({"start": "2026-03-15T21:00:00", "end": "2026-03-15T23:30:00"}),
        ),
        (
            "JSON-LD endDate without the offset its startDate gives",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Harbour Lights","startDate":"2026-08-14T21:30-03:00","endDate":"2026-08-15T00:30"}</script>"#,
            json!({"start": "2026-08-14T21:30:00-03:00", "end": "2026-08-15T00:30:00-03:00"}),
        ),
        (
            "JSON-LD startDate written day-first with dots",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Lesung","startDate":"21.03.2026","location":{"@type":"Place","name":"Buchladen"}}</script>"#,
            json!({"start": "2026-03-21"}),
        ),
        (
            "an ambiguous slash date gives none",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Mystery","startDate":"03/04/2026"}</script>"#,
            json!({"start": null, "title": "Mystery"}),
        ),
        (
            "JSON-LD startDate month-first when the day is over 12",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Pancake Breakfast","startDate":"03/15/2026 08:00"}</script>"#,
            json!({"start": "2026-03-15T08:00:00"}),
        ),
        (
            "microdata with a US zone abbreviation beside the time",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">Budget Hearing</h1>
                 <meta itemprop="startDate" content="2026-03-10T18:00">Tuesday, March 10, 6:00 PM CT</div>"#,
            json!({"start": "2026-03-10T18:00:00-05:00"}),
        ),
        (
            "JSON-LD with 'Eastern Time' stated on the page",
            H,
            r#"<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Webinar: Grants 101","startDate":"2026-01-20T13:00"}</script></head>
                 <body><p>January 20, 1:00 p.m. Eastern Time</p></body></html>"#,
            json!({"start": "2026-01-20T13:00:00-05:00"}),
        ),
        (
            "Pacific after a pm time",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">Tide Pool Walk</h1>
                 <meta itemprop="startDate" content="2026-07-10T09:00">July 10 · 9am Pacific</div>"#,
            json!({"start": "2026-07-10T09:00:00-07:00"}),
        ),
        (
            "a state code CT is no zone",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">Fair</h1>
                 <meta itemprop="startDate" content="2026-07-10T09:00">Hartford, CT</div>"#,
            json!({"start": "2026-07-10T09:00:00"}),
        ),
        (
            "the old data-vocabulary.org Event",
            H,
            r#"<div itemscope itemtype="http://data-vocabulary.org/Event">
                 <a href="/e/chili" itemprop="url"><span itemprop="summary">Chili Cook-off</span></a>
                 <time itemprop="startDate" datetime="2026-10-03T12:00">Oct 3, noon</time>
                 <span itemprop="location">Fairgrounds</span></div>"#,
            json!({"title": "Chili Cook-off", "start": "2026-10-03T12:00:00",
                   "url": "https://hall.example/e/chili"}),
        ),
        (
            "two itemtypes on one item",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event https://schema.org/Festival">
                 <span itemprop="name">Lantern Parade</span><meta itemprop="startDate" content="2026-11-07"></div>"#,
            json!({"title": "Lantern Parade", "start": "2026-11-07"}),
        ),
        (
            "RDFa with the schema: prefix and no vocab",
            H,
            r#"<div prefix="schema: https://schema.org/" typeof="schema:MusicEvent">
                 <span property="schema:name">Choir Evensong</span>
                 <time property="schema:startDate" datetime="2026-05-10T18:00+01:00">10 May</time></div>"#,
            json!({"title": "Choir Evensong", "start": "2026-05-10T18:00:00+01:00"}),
        ),
        (
            "an address written as one line in JSON-LD",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Flohmarkt","startDate":"2026-05-10T08:00",
                 "location":{"@type":"Place","name":"Kulturhof","address":"Lindenstraße 12, 10969 Berlin"}}</script>"#,
            json!({"venue_name": "Kulturhof", "street": "Lindenstraße 12", "locality": "Berlin"}),
        ),
        (
            "postponed with no new date",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Spring Gala","startDate":"2026-04-04T19:00-04:00","eventStatus":"EventPostponed"}</script>"#,
            json!({"status": "postponed"}),
        ),
        (
            "an Event as the mainEntity of a WebPage",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"WebPage",
                 "name":"Events | Town","mainEntity":{"@type":"Event","name":"Carol Service","startDate":"2026-12-20T16:00"}}</script>"#,
            json!({"title": "Carol Service"}),
        ),
        (
            "AggregateOffer low and high price",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Derby","startDate":"2026-04-04T15:00",
                 "offers":{"@type":"AggregateOffer","lowPrice":"18","highPrice":"45","priceCurrency":"GBP"}}</script>"#,
            json!({"price_min": "18", "price_max": "45", "currency": "GBP"}),
        ),
        (
            "a price with a currency sign and a decimal comma",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Kabarett","startDate":"2026-04-04T20:00",
                 "offers":{"@type":"Offer","price":"19,50 €"}}</script>"#,
            json!({"price_min": "19.50", "currency": "EUR"}),
        ),
        (
            "an ImageObject and a description with markup",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Kite Day","startDate":"2026-04-04",
                 "image":{"@type":"ImageObject","url":"https://hall.example/img/kites.jpg"},
                 "description":"<p>Bring a kite &amp; a picnic.</p>"}</script>"#,
            json!({"image_url": "https://hall.example/img/kites.jpg", "description": "Bring a kite & a picnic."}),
        ),
        (
            "a microdata item's description in an unmarked paragraph of the item",
            H,
            r#"<div itemscope itemtype="https://schema.org/Event"><h1 itemprop="name">Bat Walk</h1>
                 <meta itemprop="startDate" content="2026-08-14T20:30">
                 <p>Join our ranger at dusk to listen for bats along the river with detectors.</p></div>"#,
            json!({"title": "Bat Walk", "description": "Join our ranger at dusk to listen for bats along the river with detectors."}),
        ),
    ]);
}

#[test]
fn icalendar_parameters_and_odd_shapes() {
    run(&[
        (
            "a quoted ALTREP parameter holding a colon",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:c1@x\r\nSUMMARY;LANGUAGE=en-GB:Tea dance\r\nDESCRIPTION;ALTREP=\"cid:notes.001@hall.example\":Live band from three.\r\nLOCATION;ALTREP=\"http://hall.example/rooms/ballroom.vcf\":Assembly Rooms\r\nDTSTART:20260301T150000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Tea dance", "description": "Live band from three.", "venue_name": "Assembly Rooms"}),
        ),
        (
            "an ORGANIZER with a quoted comma does not break the event",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:c2@x\r\nORGANIZER;CN=\"Lee, Sam\":mailto:sam@hall.example\r\nSUMMARY:Committee\r\nDTSTART:20260301T150000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Committee", "start": "2026-03-01T15:00:00"}),
        ),
        (
            "a date without VALUE=DATE and a DURATION of a day",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:c3@x\nSUMMARY:Plant sale\nDTSTART:20260502\nDURATION:P1D\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-05-02"}),
        ),
        (
            "lower-case names, a tab fold, a byte-order mark",
            ICS,
            "\u{feff}BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:c4@x\r\nsummary:Night\r\n\tmarket\r\ndtstart:20260301T180000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Nightmarket", "start": "2026-03-01T18:00:00+00:00"}),
        ),
        (
            "a VTODO is no event",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VTODO\nUID:c5@x\nSUMMARY:Buy chairs\nDTSTART:20260301T090000\nEND:VTODO\nBEGIN:VEVENT\nUID:c6@x\nSUMMARY:Chair fair\nDTSTART:20260302T090000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"title": "Chair fair"}),
        ),
        (
            "a Mozilla-style TZID path",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:c7@x\nSUMMARY:Quiz\nDTSTART;TZID=/mozilla.org/20070129_1/Europe/Vienna:20260115T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-01-15T19:00:00+01:00"}),
        ),
        (
            "a Windows zone name",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:c8@x\nSUMMARY:Quiz\nDTSTART;TZID=Romance Standard Time:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-07-15T19:00:00+02:00"}),
        ),
        (
            "an event cancelled by METHOD:CANCEL",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nMETHOD:CANCEL\nBEGIN:VEVENT\nUID:c9@x\nSEQUENCE:2\nSUMMARY:Choir practice\nDTSTART;TZID=Europe/London:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"status": "cancelled"}),
        ),
        (
            "a URL with VALUE=URI",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d1@x\nSUMMARY:Open mic\nURL;VALUE=URI:https://hall.example/e/open-mic\nDTSTART:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"url": "https://hall.example/e/open-mic"}),
        ),
        (
            "a LOCATION with a floor and a street",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d2@x\nSUMMARY:Board\nLOCATION:City Hall\\, 3rd Floor\\, 121 Main St\\, Springfield\nDTSTART:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": "City Hall", "street": "121 Main St"}),
        ),
        (
            "WordPress calendar exports' cost and tickets properties",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d3@x\nSUMMARY:Soldering\nDTSTART:20260715T190000\nLOCATION:Hacklab @ Calle del Ave María 12\\, 28012 Madrid\\, España\nX-COST-TYPE:external\nX-COST:5 €\nX-TICKETS-URL:https://tickets.example/solder\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"price_min": "5", "currency": "EUR", "ticket_url": "https://tickets.example/solder",
                   "venue_name": "Hacklab", "locality": "Madrid", "country": "ES"}),
        ),
        (
            "vCalendar 1.0 quoted-printable values in a charset, one cut by a soft line break",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:1.0\r\nBEGIN:VEVENT\r\nDTSTART:20260912T170000Z\r\nSUMMARY;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:F=C3=AAte de la bi=C3=A8re\r\nLOCATION;CHARSET=ISO-8859-1;ENCODING=QUOTED-PRINTABLE:Caf=E9 du Nord\r\nDESCRIPTION;ENCODING=QUOTED-PRINTABLE:Brasseurs locaux=0D=0A=\r\net musique=\r\n live.\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"title": "Fête de la bière", "venue_name": "Café du Nord",
                   "description": "Brasseurs locaux\net musique live.", "start": "2026-09-12T17:00:00+00:00"}),
        ),
        (
            "a base64 text value",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d5@x\nSUMMARY;ENCODING=BASE64:U3RyZWV0IHBhcnR5\nDTSTART:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"title": "Street party"}),
        ),
        (
            "an Outlook VTIMEZONE south of the equator: daylight time from September to April",
            ICS,
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTIMEZONE\r\nTZID:(UTC+12:00) Harbour Time\r\nBEGIN:STANDARD\r\nDTSTART:16010101T030000\r\nTZOFFSETFROM:+1300\r\nTZOFFSETTO:+1200\r\nRRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T020000\r\nTZOFFSETFROM:+1200\r\nTZOFFSETTO:+1300\r\nRRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=9\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\nBEGIN:VEVENT\r\nUID:d6@x\r\nSUMMARY:Summer regatta dinner\r\nDTSTART;TZID=\"(UTC+12:00) Harbour Time\":20270116T193000\r\nDTEND;TZID=\"(UTC+12:00) Harbour Time\":20270116T223000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            json!({"start": "2027-01-16T19:30:00+13:00", "end": "2027-01-16T22:30:00+13:00"}),
        ),
        (
            "a LOCATION of a numbered street and its town, no space after the comma",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d7@x\nSUMMARY:Pottery fair\nLOCATION;LANGUAGE=en-GB:9 Quarry Crescent\\,Ashby\nDTSTART:20260715T100000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": null, "street": "9 Quarry Crescent", "locality": "Ashby"}),
        ),
        (
            "X-COST-TYPE:free is the plugin's default, no statement",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:d4@x\nSUMMARY:Install party\nDTSTART:20260715T190000\nX-COST-TYPE:free\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"is_free": null}),
        ),
    ]);
}

#[test]
fn more_shapes_from_the_suites() {
    run(&[
        (
            "h-event p-description and an implied photo-less image",
            H,
            r#"<article class="h-event"><h1 class="p-name">Seed Swap</h1>
               <time class="dt-start" datetime="2014-05-03T10:00:00.000-05:00">3 May</time>
               <p class="p-description">Bring seeds in labelled envelopes.</p></article>"#,
            json!({"description": "Bring seeds in labelled envelopes.", "start": "2014-05-03T10:00:00-05:00"}),
        ),
        (
            "h-adr with a country name in German",
            H,
            r#"<div class="h-event"><span class="p-name">Hoffest</span>
               <time class="dt-start" datetime="2014-05-03">3. Mai</time>
               <p class="p-location h-adr"><span class="p-street-address">Dorfstraße 3</span>,
               <span class="p-locality">Wendlingen</span>, <span class="p-country-name">Deutschland</span></p></div>"#,
            json!({"street": "Dorfstraße 3", "locality": "Wendlingen", "country": "DE"}),
        ),
        (
            "JSON-LD startDate with a trailing UTC",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Hack Night","startDate":"2026-03-15 19:00:00 UTC"}</script>"#,
            json!({"start": "2026-03-15T19:00:00+00:00"}),
        ),
        (
            "JSON-LD inside an HTML comment",
            H,
            "<script type=\"application/ld+json\"><!--\n{\"@context\":\"https://schema.org\",\"@type\":\"Event\",\"name\":\"Barn Dance\",\"startDate\":\"2026-03-15T19:00\"}\n--></script>",
            json!({"title": "Barn Dance"}),
        ),
        (
            "JSON-LD inside CDATA",
            H,
            "<script type=\"application/ld+json\">//<![CDATA[\n{\"@context\":\"https://schema.org\",\"@type\":\"Event\",\"name\":\"Barn Dance\",\"startDate\":\"2026-03-15T19:00\"}\n//]]></script>",
            json!({"title": "Barn Dance"}),
        ),
        (
            "addressCountry as a Country object",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Markt","startDate":"2026-03-15T09:00",
                 "location":{"@type":"Place","name":"Marktplatz","address":{"@type":"PostalAddress",
                 "addressLocality":"Tübingen","addressCountry":{"@type":"Country","name":"Germany"}}}}</script>"#,
            json!({"country": "DE", "start": "2026-03-15T09:00:00+01:00"}),
        ),
        (
            "a price written Free",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Story Time","startDate":"2026-03-15T10:00","offers":{"@type":"Offer","price":"Free"}}</script>"#,
            json!({"is_free": true}),
        ),
        (
            "isAccessibleForFree as the string False",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Gala","startDate":"2026-03-15T19:00","isAccessibleForFree":"False"}</script>"#,
            json!({"is_free": false}),
        ),
        (
            "a location written Online is no venue",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Book Club","startDate":"2026-03-15T19:00","location":"Online"}</script>"#,
            json!({"venue_name": null}),
        ),
        (
            "a US address in LOCATION",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:e1@x\nSUMMARY:Story hour\nLOCATION:Elm Branch Library\\, 12 Elm St\\, Springfield\\, IL 62701\nDTSTART:20260715T100000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": "Elm Branch Library", "street": "12 Elm St", "locality": "Springfield"}),
        ),
        (
            "a meeting link in LOCATION is no venue",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:e2@x\nSUMMARY:Call\nLOCATION:https://meet.example/abc-defg\nDTSTART:20260715T100000Z\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": null}),
        ),
        (
            "LOCATION Online is no venue",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:e3@x\nSUMMARY:Call\nLOCATION:Online\nDTSTART:20260715T100000Z\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"venue_name": null}),
        ),
        (
            "a Windows zone for London",
            ICS,
            "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:e4@x\nSUMMARY:Quiz\nDTSTART;TZID=GMT Standard Time:20260715T190000\nEND:VEVENT\nEND:VCALENDAR\n",
            json!({"start": "2026-07-15T19:00:00+01:00"}),
        ),
        (
            "RFC 2822 date in startDate",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Poetry","startDate":"Sun, 15 Mar 2026 19:00:00 +0100"}</script>"#,
            json!({"start": "2026-03-15T19:00:00+01:00"}),
        ),
        (
            "an endDate that is only a time",
            H,
            r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event",
                 "name":"Poetry","startDate":"2026-03-15T19:00","endDate":"21:30"}</script>"#,
            json!({"start": "2026-03-15T19:00:00", "end": "2026-03-15T21:30:00"}),
        ),
    ]);
}

#[test]
fn prices_written_beside_structured_items() {
    run(&[
        (
            "a microdata event's unmarked line says entry is free",
            H,
            r#"<div itemscope itemtype="https://schema.org/MusicEvent"><h1 itemprop="name">Orgelkonzert</h1>
                 <meta itemprop="startDate" content="2026-05-03T17:00">
                 <p>Eintritt frei – Spenden erbeten.</p></div>"#,
            json!({"is_free": true}),
        ),
        (
            "a microdata event's unmarked line gives its price",
            H,
            r#"<div itemscope itemtype="https://schema.org/TheaterEvent"><h1 itemprop="name">Le Misanthrope</h1>
                 <meta itemprop="startDate" content="2026-05-03T20:30">
                 <p class="tarif">Tarif : 18 € / réduit 12 €</p></div>"#,
            json!({"price_min": "12", "price_max": "18", "currency": "EUR"}),
        ),
        (
            "an RDFa event's unmarked line says entry is free",
            H,
            r#"<div vocab="https://schema.org/" typeof="Event"><h1 property="name">Visite guidée</h1>
                 <meta property="startDate" content="2026-05-03T15:00">
                 <p>Entrée gratuite, sans réservation.</p></div>"#,
            json!({"is_free": true}),
        ),
        (
            "an hCalendar event's fee line in German",
            H,
            r#"<div class="vevent"><span class="summary">Sternführung</span>
                 <abbr class="dtstart" title="2026-03-12T19:30">12. März</abbr>
                 <p>Entgelt: kostenfrei</p></div>"#,
            json!({"is_free": true}),
        ),
    ]);
}

/// Every event of a document, as `gleaner extract` prints them.
fn all_events(content_type: &str, body: &str) -> Vec<Value> {
    let base = Url::parse(BASE).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts = ExtractOptions { fallback: false, ..ExtractOptions::default() };
    let out = gleaner_extract::extract_events_with(body.as_bytes(), content_type, &ctx, &opts);
    out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect()
}

#[test]
fn icalendar_files_of_several_calendars() {
    // An iTIP exchange saved as one file (libical's test data has such files): a PUBLISH
    // calendar, then a CANCEL calendar for another event. Only the second is cancelled.
    let body = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:PUBLISH\r\nBEGIN:VEVENT\r\nUID:kiln-1@x\r\n\
                SUMMARY:Kiln opening\r\nDTSTART:20260614T090000Z\r\nSTATUS:CONFIRMED\r\nEND:VEVENT\r\n\
                END:VCALENDAR\r\n\r\nBEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:CANCEL\r\nBEGIN:VEVENT\r\n\
                UID:glaze-2@x\r\nSUMMARY:Glaze workshop\r\nDTSTART:20260621T090000Z\r\nEND:VEVENT\r\n\
                END:VCALENDAR\r\n";
    let events = all_events(ICS, body);
    let status: Vec<(&str, &Value)> =
        events.iter().map(|e| (e["title"].as_str().unwrap_or_default(), &e["status"])).collect();
    assert_eq!(
        status,
        [("Kiln opening", &json!("scheduled")), ("Glaze workshop", &json!("cancelled"))],
        "METHOD:CANCEL cancels the events of its own VCALENDAR only"
    );
}
