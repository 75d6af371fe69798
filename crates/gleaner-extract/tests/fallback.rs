//! The generic fallback's listing reader (issue 10): one event per repeated item that
//! carries its own date and a title; nothing when the items share one date, are too few,
//! take their date from elsewhere, or are past.

use chrono::NaiveDate;
use gleaner_event::{Event, EventTime, NormaliseContext};
use gleaner_extract::{ExtractOptions, Format, extract_events_with};
use url::Url;

const BASE: &str = "https://venue.example/agenda/";

fn read(page: &str, reference: Option<NaiveDate>) -> (Vec<Event>, Vec<String>) {
    let base = Url::parse(BASE).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts = ExtractOptions { fallback: true, reference_date: reference, ..Default::default() };
    let out = extract_events_with(page.as_bytes(), "text/html", &ctx, &opts);
    let notes = out
        .diagnostics
        .iter()
        .filter(|d| d.format == Format::Fallback)
        .map(|d| d.message.clone())
        .collect();
    (out.events, notes)
}

fn day(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d)
}

fn start(e: &Event) -> String {
    e.start.unwrap().to_iso()
}

#[test]
fn table_rows_with_time_elements_give_one_event_each() {
    let page = r#"<html lang="en"><body><h1>What's on</h1><table><tbody>
      <tr class="ev"><td><time datetime="2026-03-05T20:00">5 March</time></td><td><a href="/e/jazz">Jazz night</a></td><td><span>Price: 12 €</span></td></tr>
      <tr class="ev"><td><time datetime="2026-03-07T19:30">7 March</time></td><td><a href="/e/choir">Choir concert</a></td><td>12 €</td></tr>
      <tr class="ev"><td><time datetime="2026-03-09">9 March</time></td><td><a href="e/fair">Book fair</a></td><td></td></tr>
    </tbody></table></body></html>"#;
    let (events, notes) = read(page, day(2026, 3, 1));
    assert_eq!(events.len(), 3, "{notes:?}");
    let titles: Vec<_> = events.iter().map(|e| e.title.clone().unwrap()).collect();
    assert_eq!(titles, ["Jazz night", "Choir concert", "Book fair"]);
    assert_eq!(start(&events[0]), "2026-03-05T20:00:00");
    assert_eq!(start(&events[2]), "2026-03-09");
    assert_eq!(events[0].url.as_ref().unwrap().as_str(), "https://venue.example/e/jazz");
    assert_eq!(events[2].url.as_ref().unwrap().as_str(), "https://venue.example/agenda/e/fair");
    // A price where the item labels one, or a cell holds only a price (issue 24: tables);
    // none where the item has neither.
    assert_eq!(events[0].price.min.map(|p| p.to_string()).as_deref(), Some("12"));
    assert_eq!(events[1].price.min.map(|p| p.to_string()).as_deref(), Some("12"));
    assert!(events[2].price.min.is_none());
    assert!(
        notes.iter().any(|n| n.contains("low confidence") && n.contains("listing")),
        "{notes:?}"
    );
}

#[test]
fn written_dates_and_the_words_before_them() {
    // The Granicus shape (corpus 27): no link text, no heading, the title before the date.
    let page = r#"<div id="upcoming">
      <div class="row"><span class="c">Board of Directors on 2018-06-21 - (following Committee meetings)</span><a href="/agenda?id=1"><img src="a.png" alt="Agenda"></a></div>
      <div class="row"><span class="c">Finance Committee on 2018-06-21 - (8:30 a.m.)</span></div>
      <div class="row"><span class="c">Board of Directors on 2018-07-19 - (following Committee meetings)</span></div>
      <div class="row"><span class="c">Board of Directors on 2018-07-19 - (following Committee meetings)</span></div>
    </div>"#;
    let (events, notes) = read(page, None);
    let got: Vec<_> = events.iter().map(|e| (e.title.clone().unwrap(), start(e))).collect();
    assert_eq!(
        got,
        [
            ("Board of Directors".to_owned(), "2018-06-21".to_owned()),
            ("Finance Committee".to_owned(), "2018-06-21T08:30:00".to_owned()),
            ("Board of Directors".to_owned(), "2018-07-19".to_owned()),
        ],
        "{notes:?}"
    );
    // The agenda link is not the event's page.
    assert!(events.iter().all(|e| e.url.is_none()));
    // The same page read after those days: past items give nothing.
    let (events, _) = read(page, day(2025, 11, 1));
    assert!(events.is_empty(), "{events:?}");
}

#[test]
fn a_news_listing_read_after_its_dates_gives_nothing() {
    let page = r#"<html lang="en"><body><h1>News</h1>
      <article class="post"><h2><a href="/n/1">Council approves budget</a></h2><time datetime="2026-01-10">10 January</time></article>
      <article class="post"><h2><a href="/n/2">New library hours</a></h2><time datetime="2026-01-17">17 January</time></article>
      <article class="post"><h2><a href="/n/3">Road works on Main Street</a></h2><time datetime="2026-01-24">24 January</time></article>
    </body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 1));
    assert!(events.is_empty(), "{events:?}");
    assert!(notes.iter().any(|n| n.contains("no event")), "{notes:?}");
}

#[test]
fn listings_it_refuses() {
    let item = |date: &str, title: &str| {
        format!(r#"<li class="e"><a href="/{title}">{title}</a> <span>{date}</span></li>"#)
    };
    let page = |items: &[String]| format!("<ul>{}</ul>", items.concat());
    let reference = day(2026, 1, 1);
    // The control: three items on three days are read.
    let three = page(&[
        item("5 March 2026", "Jazz"),
        item("6 March 2026", "Choir"),
        item("7 March 2026", "Fair"),
    ]);
    assert_eq!(read(&three, reference).0.len(), 3);
    // Two items are too few.
    let two = page(&[item("5 March 2026", "Jazz"), item("6 March 2026", "Choir")]);
    assert!(read(&two, reference).0.is_empty());
    // Items sharing one date: the page's date, not each item's.
    let one_day = page(&[
        item("5 March 2026", "Jazz"),
        item("5 March 2026", "Choir"),
        item("5 March 2026", "Fair"),
    ]);
    assert!(read(&one_day, reference).0.is_empty());
    // Most items without their own date.
    let few_dated = format!(
        "<ul>{}{}{}{}</ul>",
        item("5 March 2026", "Jazz"),
        item("6 March 2026", "Choir"),
        item("7 March 2026", "Fair"),
        r#"<li class="e"><a href="/a">A</a></li><li class="e"><a href="/b">Bee</a></li>
           <li class="e"><a href="/c">Sea</a></li><li class="e"><a href="/d">Dee</a></li>"#
    );
    assert!(read(&few_dated, reference).0.is_empty());
    // Dates in day headings, times in the items (corpus 35): refused until issue 24 asked
    // for such agendas; now each item takes its heading's day (see
    // `rows_under_day_headings_take_the_heading_day`).
    let headings = r#"<div class="list"><h3>Monday 9 March 2026</h3>
      <div class="r"><a href="/a">Chess club</a> 5:00 pm to 7:00 pm</div>
      <div class="r"><a href="/b">Lego time</a> 3:00 pm to 5:00 pm</div>
      <h3>Tuesday 10 March 2026</h3>
      <div class="r"><a href="/c">Story time</a> 10:00 am to 11:00 am</div></div>"#;
    assert_eq!(read(headings, reference).0.len(), 3);
}

#[test]
fn called_off_items_give_no_event() {
    let page = r#"<div class="cards">
      <article class="card"><h2><a href="/a">Jazz night</a></h2><p>5 mars 2026 à 20h</p></article>
      <article class="card"><h2><a href="/b">Chorale</a></h2><p>6 mars 2026 à 20h</p><p>Annulé</p></article>
      <article class="card"><h2><a href="/c">Salon du livre</a></h2><p>7 mars 2026 à 10h</p></article>
      <article class="card"><h2><a href="/d">Bal</a></h2><p>8 mars 2026 à 21h</p></article>
    </div>"#;
    let (events, notes) = read(&format!(r#"<html lang="fr">{page}</html>"#), day(2026, 3, 1));
    let got: Vec<_> = events.iter().map(|e| (e.title.clone().unwrap(), start(e))).collect();
    assert_eq!(
        got,
        [
            ("Jazz night".to_owned(), "2026-03-05T20:00:00".to_owned()),
            ("Salon du livre".to_owned(), "2026-03-07T10:00:00".to_owned()),
            ("Bal".to_owned(), "2026-03-08T21:00:00".to_owned()),
        ],
        "{notes:?}"
    );
    assert!(events.iter().all(|e| e.start.is_some_and(|s| matches!(s, EventTime::Floating(_)))));
}

/// Issue 24: agendas grouped by day (`<h3>Monday November 10</h3>` then rows with only
/// times) date each row by its heading; a field named `location` gives the row's place.
#[test]
fn rows_under_day_headings_take_the_heading_day() {
    let row = |title: &str, from: &str, to: &str| {
        format!(
            r#"<div class="row"><div class="title"><a href="/e/{title}">{title}</a></div>
            <div class="time"><span>{from}</span> to <span>{to}</span></div>
            <div class="field-location">Central Branch</div></div>"#
        )
    };
    let page = format!(
        "<html lang=\"en\"><body><div class=\"view\"><h3>Monday November 10</h3>{}{}<h3>Wednesday November 12</h3>{}</div></body></html>",
        row("Chess Club", "1:00 pm", "2:00 pm"),
        row("LEGO Time", "3:00 pm", "5:00 pm"),
        row("Teen Makers", "4:00 pm", "5:30 pm"),
    );
    let (events, notes) = read(&page, day(2025, 11, 1));
    assert_eq!(events.len(), 3, "{notes:?}");
    assert_eq!(start(&events[0]), "2025-11-10T13:00:00");
    assert_eq!(events[0].end.unwrap().to_iso(), "2025-11-10T14:00:00");
    assert_eq!(start(&events[2]), "2025-11-12T16:00:00");
    assert_eq!(events[1].venue.name.as_deref(), Some("Central Branch"));
    // Without the headings the rows have no date, and give nothing.
    let bare = page
        .replace("<h3>Monday November 10</h3>", "")
        .replace("<h3>Wednesday November 12</h3>", "");
    assert!(read(&bare, day(2025, 11, 1)).0.is_empty());
}

/// Issue 24: a table whose day cells give only a weekday and a day number (`Jue 9`)
/// takes its month and year from the heading above it.
#[test]
fn day_cells_take_the_month_heading() {
    let page = r#"<html lang="es"><body><h1>Programación</h1><h2>Abril 2026</h2><table>
      <tr><td>Jue 9</td><td>21.00 h</td><td><a href="/c/1">Concierto uno</a></td></tr>
      <tr><td>Sáb 11</td><td>21.30 h</td><td><a href="/c/2">Concierto dos</a></td></tr>
      <tr><td>Vie 17</td><td>22.00 h</td><td><a href="/c/3">Concierto tres</a></td></tr>
    </table></body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 26));
    assert_eq!(events.len(), 3, "{notes:?}");
    assert_eq!(start(&events[0]), "2026-04-09T21:00:00");
    assert_eq!(start(&events[2]), "2026-04-17T22:00:00");
    // A heading without a year dates nothing.
    assert!(read(&page.replace("Abril 2026", "Abril"), day(2026, 2, 26)).0.is_empty());
}

/// Issue 24: a detail page's address from its map embed's title, its description from a
/// summary block whose paragraphs are `<br><br>`-separated, and no icon as its image.
#[test]
fn map_titles_summary_blocks_and_icons() {
    let page = r#"<html lang="en"><body><h1>Harvest Fair</h1>
      <div><time datetime="2026-09-12T10:00">Sep 12, 2026 10 am</time></div>
      <div class="summary">Join us for a free afternoon of games and music in the park.<br><br>Bring a blanket.<br></div>
      <iframe src="https://maps.google.com/maps?q=x&amp;output=embed" title="2187 Ospika Blvd S, Prince George, BC V2N 1B2"></iframe>
    </body></html>"#;
    let (events, notes) = read(page, day(2026, 9, 1));
    assert_eq!(events.len(), 1, "{notes:?}");
    let e = &events[0];
    assert_eq!(e.venue.street.as_deref(), Some("2187 Ospika Blvd S"));
    assert_eq!(e.venue.locality.as_deref(), Some("Prince George"));
    assert_eq!(
        e.description.as_deref(),
        Some("Join us for a free afternoon of games and music in the park.")
    );
    let icons = r#"<html><body><h1>Meetings</h1><ul>
      <li><a href="/m/1">Board meeting</a> June 21, 2026 <img src="/img/agenda_icon.png" width="37" height="43"></li>
      <li><a href="/m/2">Finance meeting</a> July 19, 2026 <img src="/img/agenda.png" width="37"></li>
      <li><a href="/m/3">Audit meeting</a> August 23, 2026 <img src="/img/photo.jpg" width="600"></li>
    </ul></body></html>"#;
    let (events, notes) = read(icons, day(2026, 6, 1));
    assert_eq!(events.len(), 3, "{notes:?}");
    assert!(events[0].image_url.is_none() && events[1].image_url.is_none());
    assert!(events[2].image_url.is_some());
}

#[test]
fn listing_items_give_their_booking_link_and_a_long_free_line() {
    let page = r#"<html lang="es"><body><h1>Agenda</h1>
      <div class="ev"><h2><a href="/agenda/flamenco">Flamenco joven</a></h2><p>Sábado 14 de marzo de 2026 · 21:00 h</p>
        <p>Desde 15 € · <a href="/taquilla/flamenco">Comprar</a></p></div>
      <div class="ev"><h2><a href="/agenda/club">Club de lectura</a></h2><p>Miércoles 18 de marzo de 2026 · 19:00 h</p>
        <p>Entrada libre hasta completar aforo</p></div>
      <div class="ev"><h2><a href="/agenda/teatro">Teatro</a></h2><p>Viernes 27 de marzo de 2026 · 20:30 h</p>
        <p>12 € · <a href="/agenda/teatro#reservar">Comprar</a></p></div>
    </body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 26));
    assert_eq!(events.len(), 3, "{events:#?}\n{notes:#?}");
    let ticket = |i: usize| events[i].ticket_url.as_ref().map(ToString::to_string);
    assert_eq!(ticket(0).as_deref(), Some("https://venue.example/taquilla/flamenco"));
    assert_eq!(events[1].price.is_free, Some(true), "{:#?}", events[1]);
    // An anchor on the event's own page books nothing else: no ticket link.
    assert_eq!(ticket(2), None);
}

#[test]
fn a_place_without_numbers_is_venue_and_town_unless_it_names_a_street() {
    let page = |place: &str| {
        format!(
            "<html lang=\"en\"><body><main><h1>Show</h1><p>Saturday 14 March 2026, 7.30pm</p>\
             <p>Venue: {place}</p></main></body></html>"
        )
    };
    let venue = |place: &str| {
        let (events, notes) = read(&page(place), day(2026, 2, 26));
        assert_eq!(events.len(), 1, "{notes:#?}");
        let v = &events[0].venue;
        (v.name.clone(), v.street.clone(), v.locality.clone())
    };
    assert_eq!(
        venue("Cemal Reşit Rey Konser Salonu, Harbiye, İstanbul"),
        (Some("Cemal Reşit Rey Konser Salonu".into()), None, Some("İstanbul".into()))
    );
    assert_eq!(
        venue("Globe Theatre, London"),
        (Some("Globe Theatre".into()), None, Some("London".into()))
    );
    // Control: a street without a number stays the street.
    assert_eq!(
        venue("Main Street, Springfield"),
        (None, Some("Main Street".into()), Some("Springfield".into()))
    );
}
