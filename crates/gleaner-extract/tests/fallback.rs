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

/// The start's local date and time, without the offset a page's language or country adds
/// (`2026-07-17T21:00:00+02:00` → `2026-07-17T21:00:00`): for the tests of a page's shape.
fn local(e: &Event) -> String {
    let iso = start(e);
    match iso.get(19..20) {
        Some("+" | "-") => iso[..19].to_owned(),
        _ => iso,
    }
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

/// Issue 24 (status `null` unless the page says; a status word in a row or card says):
/// a called-off item is still an event, with the status its badge or note states. Until
/// then such items gave no event.
#[test]
fn called_off_items_carry_their_status() {
    let page = r#"<div class="cards">
      <article class="card"><h2><a href="/a">Jazz night</a></h2><p>5 mars 2026 à 20h</p></article>
      <article class="card"><h2><a href="/b">Chorale</a></h2><p>6 mars 2026 à 20h</p><p>Annulé</p></article>
      <article class="card"><h2><a href="/c">Salon du livre</a></h2><p>7 mars 2026 à 10h</p></article>
      <article class="card"><h2><a href="/d">Bal</a></h2><p>8 mars 2026 à 21h</p></article>
    </div>"#;
    let (events, notes) = read(&format!(r#"<html lang="fr">{page}</html>"#), day(2026, 3, 1));
    let got: Vec<_> = events
        .iter()
        .map(|e| (e.title.clone().unwrap(), start(e), e.status_stated.then_some(e.status)))
        .collect();
    let cancelled = Some(gleaner_event::EventStatus::Cancelled);
    assert_eq!(
        got,
        [
            ("Jazz night".to_owned(), "2026-03-05T20:00:00".to_owned(), None),
            ("Chorale".to_owned(), "2026-03-06T20:00:00".to_owned(), cancelled),
            ("Salon du livre".to_owned(), "2026-03-07T10:00:00".to_owned(), None),
            ("Bal".to_owned(), "2026-03-08T21:00:00".to_owned(), None),
        ],
        "{notes:?}"
    );
    assert!(events.iter().all(|e| e.start.is_some_and(|s| matches!(s, EventTime::Floating(_)))));
}

/// One table row per case, the second of three rows varied: `(language, row, title,
/// status)`. The status word sits in a badge, a note or the row's class; the title never
/// carries it.
#[test]
fn status_words_in_rows_and_cards() {
    use gleaner_event::EventStatus::{Cancelled, Postponed};
    let cases = [
        (
            "en",
            r#"<tr class="postponed"><td>12 May 2026, 7pm</td><td>Quiz night <span class="badge">POSTPONED</span></td></tr>"#,
            "Quiz night",
            Some(Postponed),
        ),
        (
            "de",
            r#"<tr><td>12.05.2026, 19 Uhr</td><td><a href="/q">Quizabend</a> <em>– abgesagt –</em></td></tr>"#,
            "Quizabend",
            Some(Cancelled),
        ),
        (
            "tr",
            r#"<tr class="ertelendi"><td>12 Mayıs 2026 saat 19:00</td><td><a href="/q">Bilgi yarışması</a> <span>ERTELENDİ</span></td></tr>"#,
            "Bilgi yarışması",
            Some(Postponed),
        ),
        (
            "es",
            r#"<tr><td>12 de mayo de 2026, 19:00</td><td><a href="/q">Concurso</a></td><td>SUSPENDIDO</td></tr>"#,
            "Concurso",
            Some(Cancelled),
        ),
        (
            "fr",
            r#"<tr><td>12 mai 2026 à 19h</td><td><a href="/q">Quiz</a></td><td>Reporté</td></tr>"#,
            "Quiz",
            Some(Postponed),
        ),
        // A word that only contains a status word states nothing.
        (
            "en",
            r#"<tr><td>12 May 2026, 7pm</td><td><a href="/q">Cancellation policy talk</a></td></tr>"#,
            "Cancellation policy talk",
            None,
        ),
    ];
    for (lang, row, title, status) in cases {
        let rows = |d: u32| {
            format!(r#"<tr><td>{d} May 2026, 7pm</td><td><a href="/e{d}">Other {d}</a></td></tr>"#)
        };
        let page = format!(
            r#"<html lang="{lang}"><body><table><tbody>{}{row}{}</tbody></table></body></html>"#,
            rows(5),
            rows(19)
        );
        let (events, notes) = read(&page, day(2026, 5, 1));
        assert_eq!(events.len(), 3, "{row}: {notes:?}");
        assert_eq!(events[1].title.as_deref(), Some(title), "{row}");
        assert_eq!(events[1].status_stated.then_some(events[1].status), status, "{row}");
        assert!(!events[0].status_stated && !events[2].status_stated, "{row}");
    }
}

/// A link whose text is generic is never a title: the row's title comes from a heading,
/// a link that names the event or the cell that does, and the generic link gives the url.
#[test]
fn generic_link_texts_are_never_titles() {
    let cases = [
        ("en", "Match info", "https://venue.example/m/{d}"),
        ("en", "More details »", "https://venue.example/m/{d}"),
        ("fr", "Plus d'infos", "https://venue.example/m/{d}"),
        ("de", "Mehr", "https://venue.example/m/{d}"),
        ("tr", "Detay", "https://venue.example/m/{d}"),
        ("es", "Más información", "https://venue.example/m/{d}"),
    ];
    for (lang, link, url) in cases {
        let row = |d: u32| {
            format!(
                r#"<tr><td>{d}.06.2026</td><td>Cup</td><td>Town v Rovers {d}</td><td>15:00</td><td><a href="/m/{d}">{link}</a></td></tr>"#
            )
        };
        let page = format!(
            r#"<html lang="{lang}"><body><table><tbody>{}{}{}</tbody></table></body></html>"#,
            row(6),
            row(13),
            row(20)
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        let got: Vec<_> = events
            .iter()
            .map(|e| (e.title.clone().unwrap_or_default(), e.url.as_ref().map(|u| u.to_string())))
            .collect();
        let want: Vec<_> = [6, 13, 20]
            .iter()
            .map(|d| (format!("Town v Rovers {d}"), Some(url.replace("{d}", &d.to_string()))))
            .collect();
        assert_eq!(got, want, "{link}: {notes:?}");
    }
}

/// A table row's title is the cell under a column headed like a title, else the longest
/// cell of two words or more that is neither a date, a time, a price nor a generic link.
#[test]
fn a_rows_title_is_the_cell_that_names_the_event() {
    // (header, the row's cells after the date, expected title)
    let cases = [
        (
            "<th>Date</th><th>Competition</th><th>Fixture</th><th>KO</th>",
            "<td>League</td><td>Town v Rovers</td><td>3:00 pm</td>",
            "Town v Rovers",
        ),
        (
            "<th>Tarih</th><th>Karşılaşma</th><th>Bilet</th>",
            "<td>Kartallar – Körfez</td><td>150 TL – 400 TL</td>",
            "Kartallar – Körfez",
        ),
        (
            "<th>Date</th><th>Salle</th><th>Spectacle</th>",
            "<td>Grande salle du théâtre</td><td>Cyrano</td>",
            "Cyrano",
        ),
        ("<th>Datum</th><th>Was</th><th>Preis</th>", "<td>Lesung</td><td>12 €</td>", "Lesung"),
        // No title column: the longest cell of two words or more.
        (
            "<th>Fecha</th><th></th><th></th>",
            "<td>Liga</td><td>Cádiz B – Xerez CD</td>",
            "Cádiz B – Xerez CD",
        ),
    ];
    for (header, cells, title) in cases {
        let row = |d: u32| format!("<tr><td>{d} June 2026</td>{cells}</tr>");
        let page = format!(
            r#"<html lang="en"><body><table><thead><tr>{header}</tr></thead><tbody>{}{}{}</tbody></table></body></html>"#,
            row(6),
            row(13),
            row(20)
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        assert_eq!(events.len(), 3, "{header}: {notes:?}");
        assert!(events.iter().all(|e| e.title.as_deref() == Some(title)), "{header}: {events:?}");
    }
    // Rows with no cell that can name an event give nothing.
    let row = |d: u32| format!("<tr><td>{d} June 2026</td><td>15:00</td><td>£10</td></tr>");
    let page = format!("<table>{}{}{}</table>", row(6), row(13), row(20));
    assert!(read(&page, day(2026, 6, 1)).0.is_empty());
}

/// A festival timetable by day: repeated sections, each a day heading and that day's acts
/// with only a time; each act takes its section's day, however few acts a day has.
#[test]
fn day_sections_date_the_times_under_them() {
    // (language, day headings, the time forms of the acts)
    let cases = [
        (
            "es",
            ["Viernes 17 de julio de 2026", "Sábado 18 de julio de 2026"],
            ["21:00 h", "a las 23.00"],
            "2026-07-17T21:00:00",
        ),
        (
            "en",
            ["Friday 17 July 2026", "Saturday 18 July 2026"],
            ["9pm", "11.00pm"],
            "2026-07-17T21:00:00",
        ),
        (
            "fr",
            ["Vendredi 17 juillet 2026", "Samedi 18 juillet 2026"],
            ["21h", "23h00"],
            "2026-07-17T21:00:00",
        ),
        (
            "de",
            ["Freitag, 17. Juli 2026", "Samstag, 18. Juli 2026"],
            ["21 Uhr", "23.00 Uhr"],
            "2026-07-17T21:00:00",
        ),
        (
            "tr",
            ["17 Temmuz 2026 Cuma", "18 Temmuz 2026 Cumartesi"],
            ["saat 21:00", "saat 23.00"],
            "2026-07-17T21:00:00",
        ),
    ];
    for (lang, days, times, first) in cases {
        let act = |t: &str, name: &str| {
            format!(
                r#"<div class="act"><span class="time">{t}</span><h3><a href="/a/{name}">{name}</a></h3></div>"#
            )
        };
        let page = format!(
            r#"<html lang="{lang}"><body><main><h1>Line-up</h1>
            <section class="day"><h2>{}</h2>{}{}</section>
            <section class="day"><h2>{}</h2>{}</section></main></body></html>"#,
            days[0],
            act(times[0], "Uno"),
            act(times[1], "Dos"),
            days[1],
            act(times[0], "Tres"),
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        let got: Vec<_> = events.iter().map(|e| (e.title.clone().unwrap(), local(e))).collect();
        assert_eq!(got.len(), 3, "{lang}: {notes:?}");
        assert_eq!(got[0], ("Uno".to_owned(), first.to_owned()), "{lang}");
        assert_eq!(got[1], ("Dos".to_owned(), "2026-07-17T23:00:00".to_owned()), "{lang}");
        assert_eq!(got[2], ("Tres".to_owned(), "2026-07-18T21:00:00".to_owned()), "{lang}");
    }
}

/// A news article (declared one and signed, or an `<article>` with a byline) yields no
/// event, whatever dates its prose gives; a play's author under its title is no byline.
#[test]
fn news_articles_give_no_event() {
    let story = "<p>The festival closed on Sunday 26 July 2026 at 11.45pm after a concert that began at 10pm.</p>";
    let news = [
        (
            r#"<meta property="og:type" content="article">"#,
            "<p>By Lucy Arden · Monday 27 July 2026, 08:15</p>",
        ),
        (
            r#"<meta property="og:type" content="article">"#,
            "<p>Por Lucía Arrieta · lunes 27 de julio de 2026</p>",
        ),
        (r#"<meta property="og:type" content="article">"#, "<p>Von Jana Roth, 27.07.2026</p>"),
        ("", r#"<p class="byline">Lucy Arden</p>"#),
        ("", r#"<p>Text: <a rel="author" href="/a/lucy">Lucy Arden</a></p>"#),
    ];
    for (head, byline) in news {
        let page = format!(
            "<html lang=\"en\"><head>{head}</head><body><main><article><h1>Festival ends</h1>{byline}{story}</article></main></body></html>"
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        assert!(events.is_empty(), "{byline}: {events:?}");
        assert!(notes.iter().any(|n| n.contains("news article")), "{byline}: {notes:?}");
    }
    // Positive control: the same page as an event's, and a play "by" its author.
    for byline in ["", "<p>By William Shakespeare · Saturday 25 July 2026</p>"] {
        let page = format!(
            "<html lang=\"en\"><body><main><article><h1>Twelfth Night</h1>{byline}<p>Saturday 25 July 2026, 7.30pm</p></article></main></body></html>"
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        assert_eq!(events.len(), 1, "{byline}: {notes:?}");
    }
}

/// A date line that lists days before its full date (`Vendredi 9 et samedi 10 octobre`)
/// gives one event per day, at the same time; anything else before the joining word
/// gives one.
#[test]
fn a_date_line_listing_days_gives_one_event_per_day() {
    let cases: [(&str, &str, &[&str]); 6] = [
        (
            "fr",
            "Vendredi 9 et samedi 10 octobre 2026 — 20h30",
            &["2026-10-09T20:30:00", "2026-10-10T20:30:00"],
        ),
        (
            "en",
            "Friday 9 and Saturday 10 October 2026, 8pm",
            &["2026-10-09T20:00:00", "2026-10-10T20:00:00"],
        ),
        ("es", "9 y 10 de octubre de 2026, 20:30", &["2026-10-09T20:30:00", "2026-10-10T20:30:00"]),
        ("de", "9. und 10. Oktober 2026, 20 Uhr", &["2026-10-09T20:00:00", "2026-10-10T20:00:00"]),
        ("tr", "9 ve 10 Ekim 2026 saat 20:00", &["2026-10-09T20:00:00", "2026-10-10T20:00:00"]),
        // Words before the joining word that are not a day: one event.
        ("en", "Talks and music on 10 October 2026, 8pm", &["2026-10-10T20:00:00"]),
    ];
    for (lang, line, want) in cases {
        let card = |t: &str, name: &str| {
            format!(
                r#"<section class="show"><p>{t}</p><h2><a href="/s/{name}">{name}</a></h2></section>"#
            )
        };
        let page = format!(
            r#"<html lang="{lang}"><body>{}{}{}</body></html>"#,
            card(line, "Alpha"),
            card("2026-10-22T19:00", "Bravo"),
            card("2026-12-08T20:00", "Charlie")
        );
        let (events, notes) = read(&page, day(2026, 9, 1));
        let got: Vec<_> =
            events.iter().filter(|e| e.title.as_deref() == Some("Alpha")).map(local).collect();
        assert_eq!(got, *want, "{line}: {notes:?}");
    }
}

/// Items without a price of their own cost what the page says once outside the list;
/// two different page prices, or an item's own, win over it.
#[test]
fn a_page_price_outside_the_list_prices_its_items() {
    let rows = |third: &str| {
        format!(
            r#"<table><tr><td>5 June 2026</td><td><a href="/a">Town v Rovers</a></td></tr>
            <tr><td>12 June 2026</td><td><a href="/b">Town v United</a></td></tr>
            <tr><td>19 June 2026</td><td><a href="/c">Town v Athletic</a></td><td>{third}</td></tr></table>"#
        )
    };
    let price =
        |e: &Event| (e.price.min.map(|p| p.to_string()), e.price.max.map(|p| p.to_string()));
    let some = |a: &str, b: &str| (Some(a.to_owned()), Some(b.to_owned()));
    let cases = [
        (
            "<p>Admission: adults £10, concessions £6.</p>",
            "",
            [some("6", "10"), some("6", "10"), some("6", "10")],
        ),
        (
            "<p>Admission: adults £10, concessions £6.</p>",
            "£3",
            [some("6", "10"), some("6", "10"), some("3", "3")],
        ),
        ("<p>Prix : 8 €</p>", "", [some("8", "8"), some("8", "8"), some("8", "8")]),
        ("<p>Admission: £10</p><p>Price: £12</p>", "", [(None, None), (None, None), (None, None)]),
        ("", "", [(None, None), (None, None), (None, None)]),
    ];
    for (intro, third, want) in cases {
        let page = format!(
            "<html lang=\"en\"><body><h1>Fixtures</h1>{intro}{}</body></html>",
            rows(third)
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        let got: Vec<_> = events.iter().map(price).collect();
        assert_eq!(got, want, "{intro} {third}: {notes:?}");
    }
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

/// Feed items dated only in their text (issue 24 item 4) take the price and the status
/// that text gives; items with a date field, or text without money, take none.
#[test]
fn feed_items_dated_in_their_text_take_its_price_and_status() {
    use gleaner_event::EventStatus::{Cancelled, Postponed};
    let cases = [
        (
            "Le jeudi 12 mars 2026 à 20h30, salle Vigo. Tarif plein 8 €, réduit 5 €.",
            Some(("5", "8")),
            None,
        ),
        (
            "Am Samstag, 14. März 2026, um 19.30 Uhr. Teilnahme 8 €, Anmeldung erforderlich.",
            Some(("8", "8")),
            None,
        ),
        (
            "<strong>Annulé</strong> — la séance du samedi 21 mars 2026 à 18h est annulée.",
            None,
            Some(Cancelled),
        ),
        (
            "Saturday 21 March 2026 at 7.30pm: postponed to May. Tickets £12.",
            Some(("12", "12")),
            Some(Postponed),
        ),
        ("Domingo 22 de marzo de 2026 a las 12:00 en la sala 5.", None, None),
    ];
    let base = Url::parse(BASE).unwrap();
    for (text, price, status) in cases {
        let feed = format!(
            r#"<?xml version="1.0"?><rss version="2.0"><channel><title>Agenda</title>
            <item><title>Séance</title><link>https://venue.example/s/1</link>
            <pubDate>Thu, 26 Feb 2026 08:00:00 +0100</pubDate>
            <description><![CDATA[<p>{text}</p>]]></description></item></channel></rss>"#
        );
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let out = extract_events_with(
            feed.as_bytes(),
            "application/rss+xml",
            &ctx,
            &ExtractOptions::default(),
        );
        assert_eq!(out.events.len(), 1, "{text}: {:?}", out.diagnostics);
        let e = &out.events[0];
        let got = e.price.min.zip(e.price.max).map(|(a, b)| (a.to_string(), b.to_string()));
        let want = price.map(|(a, b): (&str, &str)| (a.to_owned(), b.to_owned()));
        assert_eq!(got, want, "{text}");
        assert_eq!(e.status_stated.then_some(e.status), status, "{text}");
    }
}

/// Issue 24, batch 70–89: a page of practical information (opening hours, a summer
/// closure, fares valid over a season) is no event, however many dates it writes.
#[test]
fn practical_information_gives_no_event() {
    let pages = [
        r#"<html lang="fr"><body><h1>Infos pratiques</h1>
          <p>Fermeture annuelle du lundi 3 au samedi 22 août 2026 inclus. Fermé les jours fériés.</p>
          <p>Le guichet ouvre une heure avant chaque concert ; le bar ferme à 23h30.</p>
          <p>Abonnement à 40 € pour l’année, valable du 1er septembre 2026 au 30 juin 2027 dans toutes les salles du réseau.</p>
          <p>La saison prochaine sera annoncée le vendredi 4 septembre 2026 sur notre site et dans la lettre d’information.</p>
        </body></html>"#,
        r#"<html lang="en"><body><h1>Visit us</h1>
          <p>The hall is closed from Monday 21 December 2026 to Friday 1 January 2027.</p>
        </body></html>"#,
    ];
    for page in pages {
        let (events, notes) = read(page, day(2026, 2, 26));
        assert!(events.is_empty(), "{events:?} {notes:?}");
    }
    // Positive control: the same shape of page with an event's line gives it.
    let page = r#"<html lang="en"><body><h1>Spring concert</h1>
      <p>Saturday 14 March 2026, 8pm, in the main hall.</p></body></html>"#;
    let (events, _) = read(page, day(2026, 2, 26));
    assert_eq!(events.len(), 1);
}

fn summary(events: &[Event]) -> Vec<(String, String, Option<gleaner_event::EventStatus>)> {
    events
        .iter()
        .map(|e| (e.title.clone().unwrap(), start(e), e.status_stated.then_some(e.status)))
        .collect()
}

/// Issue 24, batch 70–89: a monthly programme whose day cells give only `Fr 09.04.` takes
/// the year of its heading (`Programm April 2027`, where 9 April 2026 is a Thursday); a
/// row classed without umlauts (`entfaellt`) is one of the rows, called off.
#[test]
fn day_cells_take_the_year_of_their_month_heading() {
    let page = r#"<html lang="de"><body><h1>Programm April 2027</h1><table>
      <tr><th>Tag</th><th>Zeit</th><th>Stück</th></tr>
      <tr><td>Fr 09.04.</td><td>19.30 Uhr</td><td><a href="/a">Woyzeck</a></td></tr>
      <tr><td>Sa 10.04.</td><td>18.00 Uhr</td><td><a href="/b">Nathan der Weise</a></td></tr>
      <tr class="entfaellt"><td>Mo 12.04.</td><td>20.00 Uhr</td><td><a href="/c">Die Räuber</a> entfällt</td></tr>
    </table></body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 26));
    let cancelled = Some(gleaner_event::EventStatus::Cancelled);
    assert_eq!(
        summary(&events),
        [
            ("Woyzeck".to_owned(), "2027-04-09T19:30:00+02:00".to_owned(), None),
            ("Nathan der Weise".to_owned(), "2027-04-10T18:00:00+02:00".to_owned(), None),
            ("Die Räuber".to_owned(), "2027-04-12T20:00:00+02:00".to_owned(), cancelled),
        ],
        "{notes:?}"
    );
    // A weekday that names another day, or a heading without one year, gives no date.
    for (heading, cell) in [("Programm April 2027", "Sa 09.04."), ("Saison 2026/2027", "Fr 09.04.")]
    {
        let page = page.replace("Programm April 2027", heading).replace("Fr 09.04.", cell);
        let (events, _) = read(&page, day(2026, 2, 26));
        assert!(events.iter().all(|e| e.title.as_deref() != Some("Woyzeck")), "{heading} {cell}");
    }
}

/// Issue 24, batch 70–89: an e-mail newsletter laid out in tables. Each activity is a date
/// line and a bold title; the row holding the page's heading (`del 9 al 15 de marzo`) and
/// a deadline box are no activities; `APLAZADO al sábado 21` moves the start; the last
/// block, with no `<footer>`, gives the place (and its country in brackets, hence the
/// offset).
#[test]
fn a_newsletters_activities() {
    let page = r#"<html lang="es"><body><table>
      <tr><td><b>Casa de Cultura</b> · Boletín</td></tr>
      <tr><td><h1>Actividades del 9 al 15 de marzo de 2026</h1></td></tr>
      <tr><td><p><b>Lunes 9 de marzo · 18.00 h</b></p><p><b>Taller de escritura</b><br>Sala 1. Entrada libre.</p></td></tr>
      <tr><td><p><b>Miércoles 11 de marzo · 19.30 h</b></p><p><b>Concierto de guitarra</b><br>Salón. Entrada: 5 €.</p></td></tr>
      <tr><td><p><b>Jueves 12 de marzo · 20.00 h</b></p><p><b>Cine fórum</b><br>Salón. Entrada: 3 €.</p></td></tr>
      <tr><td><p><b>Sábado 14 de marzo · 12.00 h</b></p><p><b>Títeres para niños</b><br>APLAZADO al sábado 21 de marzo, a la misma hora.<br>Salón. Entrada: 4 €; menores de 12 años, 2 €.</p></td></tr>
      <tr><td><p><b>Inscripciones</b>: cursos de primavera. Plazo hasta el 20 de marzo en conserjería.</p></td></tr>
      <tr><td>Casa de Cultura · Calle Mayor 3 · 09002 Burgos (España) · Ayuntamiento de Burgos. Si no quiere recibir este boletín, escríbanos.</td></tr>
    </table></body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 26));
    let rescheduled = Some(gleaner_event::EventStatus::Rescheduled);
    assert_eq!(
        summary(&events),
        [
            ("Taller de escritura".to_owned(), "2026-03-09T18:00:00+01:00".to_owned(), None),
            ("Concierto de guitarra".to_owned(), "2026-03-11T19:30:00+01:00".to_owned(), None),
            ("Cine fórum".to_owned(), "2026-03-12T20:00:00+01:00".to_owned(), None),
            ("Títeres para niños".to_owned(), "2026-03-21T12:00:00+01:00".to_owned(), rescheduled),
        ],
        "{notes:?}"
    );
    let venue = &events[0].venue;
    assert_eq!(venue.name.as_deref(), Some("Casa de Cultura"));
    assert_eq!(venue.locality.as_deref(), Some("Burgos"));
    assert_eq!(venue.country.as_deref(), Some("ES"));
    let price = &events[3].price;
    assert_eq!(price.min.map(|p| p.to_string()).as_deref(), Some("2"));
    assert_eq!(price.max.map(|p| p.to_string()).as_deref(), Some("4"));
}

/// Issue 24, batch 70–89: a tour's dates (`Datum | Stadt | Spielstätte | Beginn |
/// Tickets`) are performances of the page's show, each at its row's venue and city, in
/// the country of the site's address; a positive control with a title column keeps its
/// rows' titles.
#[test]
fn tour_dates_are_performances_of_the_pages_show() {
    let page = r#"<html lang="de"><body><h1>Die Wellen – Tour 2027</h1>
      <img src="/media/plakat.jpg" alt="Plakat">
      <table><tr><th>Datum</th><th>Stadt</th><th>Spielstätte</th><th>Beginn</th><th>Tickets</th></tr>
      <tr><td>Do. 11.02.2027</td><td>Leipzig</td><td>Parkbühne</td><td>20.00 Uhr</td><td><a href="https://tickets.example/l">ab 29,90 €</a></td></tr>
      <tr><td>Fr. 12.02.2027</td><td>Dresden</td><td>Alter Hof</td><td>20.30 Uhr</td><td><strong>AUSVERKAUFT</strong></td></tr>
      <tr><td>Sa. 13.02.2027</td><td>Berlin</td><td>Halle 4</td><td>20.00 Uhr</td><td><a href="https://tickets.example/b">ab 34,90 €</a></td></tr>
      </table><footer>Agentur Welle GmbH · Hafenstraße 8 · 20457 Hamburg · Deutschland</footer></body></html>"#;
    let (events, notes) = read(page, day(2026, 2, 26));
    assert_eq!(events.len(), 3, "{notes:?}");
    assert!(events.iter().all(|e| e.title.as_deref() == Some("Die Wellen – Tour 2027")));
    assert_eq!(start(&events[0]), "2027-02-11T20:00:00+01:00");
    let places: Vec<_> = events
        .iter()
        .map(|e| (e.venue.name.clone().unwrap(), e.venue.locality.clone().unwrap()))
        .collect();
    assert_eq!(
        places,
        [
            ("Parkbühne".to_owned(), "Leipzig".to_owned()),
            ("Alter Hof".to_owned(), "Dresden".to_owned()),
            ("Halle 4".to_owned(), "Berlin".to_owned())
        ]
    );
    assert_eq!(
        events[0].ticket_url.as_ref().map(|u| u.as_str()),
        Some("https://tickets.example/l")
    );
    assert_eq!(events[0].price.min.map(|p| p.to_string()).as_deref(), Some("29.90"));
    assert_eq!(
        events[1].image_url.as_ref().map(|u| u.as_str()),
        Some("https://venue.example/media/plakat.jpg")
    );
    // Positive control: with a title column, the rows name their own events.
    let titled = page
        .replace("<th>Spielstätte</th>", "<th>Titel</th>")
        .replace("Parkbühne", "Frühlingskonzert")
        .replace("Alter Hof", "Nachtkonzert")
        .replace("Halle 4", "Abschlusskonzert");
    let (events, _) = read(&titled, day(2026, 2, 26));
    let titles: Vec<_> = events.iter().map(|e| e.title.clone().unwrap()).collect();
    assert_eq!(titles, ["Frühlingskonzert", "Nachtkonzert", "Abschlusskonzert"]);
}

/// Issue 24, batch 70–89: cards in month sections (`<h2>Marzo 2027</h2>`) whose dates give
/// no year (`12 MAR vie`) fall in the section's year, not the next after the reference
/// day; a `lugar` line (`Teatro Real · Granada`) is the card's venue and town.
#[test]
fn cards_in_month_sections_take_the_sections_year() {
    let card = |d: &str, w: &str, t: &str| {
        format!(
            r#"<a class="card" href="/e/{d}"><div class="fecha"><span>{d}</span> <span>MAR</span> <span>{w}</span></div><h3>{t}</h3><p class="lugar">Teatro Real · Granada</p><p class="hora">21.00 h</p></a>"#
        )
    };
    let page = format!(
        r#"<html lang="es"><body><h1>Agenda</h1><section class="mes"><h2>Marzo 2027</h2>{}{}{}</section></body></html>"#,
        card("12", "vie", "Flamenco"),
        card("13", "sáb", "Rock"),
        card("20", "sáb", "Ballet")
    );
    let (events, notes) = read(&page, day(2026, 2, 26));
    let starts: Vec<_> = events.iter().map(start).collect();
    assert_eq!(
        starts,
        ["2027-03-12T21:00:00", "2027-03-13T21:00:00", "2027-03-20T21:00:00"],
        "{notes:?}"
    );
    assert_eq!(events[0].venue.name.as_deref(), Some("Teatro Real"));
    assert_eq!(events[0].venue.locality.as_deref(), Some("Granada"));
}

/// Issue 24, batch 70–89: a festival's timetable grid, one table per day under its day
/// heading, a time and one column per room: one event per named cell, with that cell's
/// status; the intro's sentence `Bilet: 60 TL, öğrenci 30 TL.` prices them all.
#[test]
fn timetable_grids_give_one_event_per_room_cell() {
    let table = |rows: &str| {
        format!(
            r#"<table class="grid"><thead><tr><th>Saat</th><th>Salon A</th><th>Salon B</th></tr></thead><tbody>{rows}</tbody></table>"#
        )
    };
    let page = format!(
        r#"<html lang="tr"><body><main><h1>Program</h1>
        <p>Tüm gösterimler Kültür Merkezi’nde. Bilet: 60 TL, öğrenci 30 TL.</p>
        <h2>Perşembe 5 Kasım 2026</h2>{}
        <h2>Cuma 6 Kasım 2026</h2>{}</main></body></html>"#,
        table(
            "<tr><td>18.00</td><td><b>Deniz</b><br>90′</td><td></td></tr>\
             <tr><td>20.30</td><td><b>Rüzgâr</b></td><td><b>Kısa Filmler</b></td></tr>"
        ),
        table("<tr><td>19.00</td><td></td><td><b>Sisli Sabah</b> <span>İPTAL</span></td></tr>")
    );
    let (events, notes) = read(&page, day(2026, 10, 1));
    let cancelled = Some(gleaner_event::EventStatus::Cancelled);
    assert_eq!(
        summary(&events),
        [
            ("Deniz".to_owned(), "2026-11-05T18:00:00+03:00".to_owned(), None),
            ("Rüzgâr".to_owned(), "2026-11-05T20:30:00+03:00".to_owned(), None),
            ("Kısa Filmler".to_owned(), "2026-11-05T20:30:00+03:00".to_owned(), None),
            ("Sisli Sabah".to_owned(), "2026-11-06T19:00:00+03:00".to_owned(), cancelled),
        ],
        "{notes:?}"
    );
    let price = &events[0].price;
    assert_eq!(price.min.map(|p| p.to_string()).as_deref(), Some("30"));
    assert_eq!(price.max.map(|p| p.to_string()).as_deref(), Some("60"));
}

/// Issue 24, batch 90–109: a town hall's list of its own fairs names the town but not the
/// country; the footer's address ends with it. Times written `de 9.00 a 14.00 h` are a
/// range, and in that country's zone.
#[test]
fn events_take_the_country_ending_the_sites_footer() {
    let page = r#"<html lang="es"><body><main><h1>Ferias 2027</h1>
      <div class="f"><h2><a href="/f/1">Mercadillo de primavera</a></h2><p><strong>Sábado 3 de abril de 2027</strong>, de 9.00 a 14.00 h</p><p>Lugar: Plaza Mayor, Villarcayo (Burgos)</p></div>
      <div class="f"><h2><a href="/f/2">Feria del queso</a></h2><p><strong>Domingo 9 de mayo de 2027</strong></p><p>Lugar: Parque del Soto, Villarcayo (Burgos)</p></div>
      <div class="f"><h2><a href="/f/3">Feria de otoño</a></h2><p><strong>Sábado 16 de octubre de 2027</strong></p><p>Lugar: Recinto ferial, Biarritz, France</p></div>
      </main><footer><p>Ayuntamiento de Villarcayo · Plaza Mayor 1 · 09550 Villarcayo (Burgos) · España</p></footer></body></html>"#;
    let (events, notes) = read(page, day(2027, 1, 1));
    assert_eq!(events.len(), 3, "{notes:?}");
    let country = |e: &Event| e.venue.country.clone();
    assert_eq!(country(&events[0]).as_deref(), Some("ES"));
    assert_eq!(country(&events[1]).as_deref(), Some("ES"));
    assert_eq!(country(&events[2]).as_deref(), Some("FR"), "an event's own country stays");
    assert_eq!(start(&events[0]), "2027-04-03T09:00:00+02:00");
    assert_eq!(events[0].end.unwrap().to_iso(), "2027-04-03T14:00:00+02:00");
}

/// Issue 24, batch 90–109: a conference programme's timetable (`9.30 h Acreditación`,
/// `12.00 h Pausa café`) lists sessions of one event, not events; a festival's timetable
/// by day still gives its concerts.
#[test]
fn a_programme_with_breaks_is_not_a_listing() {
    let programme = |filler: &str| {
        format!(
            r#"<html lang="es"><body><main><h1>II Jornadas de Historia</h1><p>Oviedo, 12 y 13 de noviembre de 2027</p>
      <h3>Viernes 12 de noviembre de 2027</h3><table><tr><td>9.30 h</td><td>{filler}</td></tr><tr><td>10.00 h</td><td>Conferencia inaugural</td></tr><tr><td>12.00 h</td><td>Mesa redonda</td></tr></table>
      <h3>Sábado 13 de noviembre de 2027</h3><table><tr><td>9.30 h</td><td>Concierto del coro</td></tr><tr><td>12.00 h</td><td>Conferencia de clausura</td></tr></table>
      </main></body></html>"#
        )
    };
    let (events, notes) =
        read(&programme("Acreditación y entrega de documentación"), day(2027, 1, 1));
    assert!(events.len() <= 1, "sessions are not events: {:?} {notes:?}", summary(&events));
    let (events, _) = read(&programme("Concierto de apertura"), day(2027, 1, 1));
    assert_eq!(events.len(), 5, "still a listing: {:?}", summary(&events));
}

/// Issue 24, batch 90–109: a call for entries gives its deadlines (`Son başvuru: 15 Ocak
/// 2027`, `Einsendeschluss: 1. März 2027`), which are not events.
#[test]
fn a_call_for_entries_gives_no_event() {
    let pages = [
        r#"<html lang="tr"><body><h1>Başvuru Çağrısı: Belgesel Günleri 2027</h1>
          <ul><li>Son başvuru: 15 Ocak 2027, saat 23.59</li><li>Sonuçlar: Şubat 2027</li></ul>
          <p>Başvuru ücretsizdir.</p></body></html>"#,
        r#"<html lang="de"><body><h1>Ausschreibung Kurzfilmpreis 2027</h1>
          <p>Einsendeschluss: Montag, 1. März 2027, 24 Uhr</p></body></html>"#,
    ];
    for page in pages {
        let (events, notes) = read(page, day(2026, 11, 2));
        assert!(events.is_empty(), "{:?} {notes:?}", summary(&events));
    }
    // Positive control: the screening itself is an event.
    let page = r#"<html lang="tr"><body><h1>Belgesel Günleri 2027</h1>
      <p>Gösterim: 12 Mart 2027, saat 20.00</p></body></html>"#;
    let (events, _) = read(page, day(2026, 11, 2));
    assert_eq!(events.len(), 1);
}

/// Issue 24, batch 90–109: a description list of markets, each a `<dt>` name and a `<dd>`
/// with its date and place, is a listing of one event per term; `27.11.–23.12.2026,
/// täglich 11–20 Uhr` is a run of dates.
#[test]
fn description_list_terms_are_listing_items() {
    let page = r#"<html lang="de"><body><main><h1>Märkte 2027</h1><dl>
      <dt><a href="/m/1">Ostermarkt</a></dt><dd>Samstag, 27.03.2027, 8 bis 13 Uhr<br>Ort: Marktplatz</dd>
      <dt><a href="/m/2">Töpfermarkt</a></dt><dd>Sonntag, 16.05.2027, 10–17 Uhr<br>Ort: Schlosshof</dd>
      <dt><a href="/m/3">Weihnachtsmarkt</a></dt><dd>26.11.–23.12.2027, täglich 11–20 Uhr<br>Ort: Altstadt</dd>
    </dl></main></body></html>"#;
    let (events, notes) = read(page, day(2027, 1, 1));
    assert_eq!(
        summary(&events).into_iter().map(|(t, s, _)| (t, s)).collect::<Vec<_>>(),
        [
            ("Ostermarkt".to_owned(), "2027-03-27T08:00:00+01:00".to_owned()),
            ("Töpfermarkt".to_owned(), "2027-05-16T10:00:00+02:00".to_owned()),
            ("Weihnachtsmarkt".to_owned(), "2027-11-26".to_owned()),
        ],
        "{notes:?}"
    );
    assert_eq!(events[0].end.unwrap().to_iso(), "2027-03-27T13:00:00+01:00");
    assert_eq!(events[2].end.unwrap().to_iso(), "2027-12-23");
}

/// Issue 24, batch 90–109: a museum's page with two exhibitions (`div.sergi`) and two
/// workshops (`div.atolye`), each card headed by its title: too few of either kind alone,
/// one listing together.
#[test]
fn headed_cards_of_two_kinds_are_one_listing() {
    let page = r#"<html lang="tr"><body><main><h1>Müze</h1>
      <div class="sergi"><h3><a href="/s/1">Cam Ustaları</a></h3><p>3 Ekim 2026</p></div>
      <div class="sergi"><h3><a href="/s/2">Genç Seramikçiler</a></h3><p>17 Ekim 2026</p></div>
      <div class="atolye"><h3><a href="/a/1">Cam Boncuk</a></h3><p>14 Kasım 2026 Cumartesi, saat 14:00</p></div>
      <div class="atolye"><h3><a href="/a/2">Seramik Boyama</a></h3><p>10 Aralık 2026 Perşembe, saat 18.30</p></div>
      </main></body></html>"#;
    let (events, notes) = read(page, day(2026, 9, 1));
    let titles: Vec<_> = events.iter().map(|e| e.title.clone().unwrap()).collect();
    assert_eq!(
        titles,
        ["Cam Ustaları", "Genç Seramikçiler", "Cam Boncuk", "Seramik Boyama"],
        "{notes:?}"
    );
    assert_eq!(local(&events[3]), "2026-12-10T18:30:00");
    // Cards without one heading each (a teaser block with two) are not taken together.
    let page = page.replace("<h3><a href=\"/s/2\">", "<h3>Yeni</h3><h3><a href=\"/s/2\">");
    let (events, _) = read(&page, day(2026, 9, 1));
    assert!(events.len() < 4, "{:?}", summary(&events));
}

#[test]
fn an_event_page_with_a_more_events_block_gives_those_events_too() {
    // Issue 24 (written page 232): a Squarespace event page marks up its own event in
    // JSON-LD, and lists the club's other events, each linking to its page, without.
    let card = |href: &str, title: &str, day: &str, time: &str| {
        format!(
            r#"<div class="summary-item"><a href="{href}" class="summary-title-link">{title}</a>
            <div class="summary-metadata"><time>{day}</time> <span>{time}</span></div>
            <div class="summary-excerpt"><p>All members welcome; bring a friend.</p></div></div>"#
        )
    };
    let block = |a: &str, b: &str, c: &str| {
        format!(
            r#"<section><h2>Upcoming events</h2><div class="summary-item-list">{}{}{}</div></section>"#,
            card(a, "Monthly Club Meeting", "Tuesday, March 10, 2026", "7:30 PM"),
            card(b, "Spring Tech Session", "Saturday, April 18, 2026", "10:00 AM"),
            card(c, "Season Opener Cruise", "Sunday, May 3, 2026", "10:30 AM"),
        )
    };
    let more = block("/events/club-meeting", "/events/tech-session", "/events/opener");
    let jsonld = r#"<script type="application/ld+json">{"@context":"https://schema.org","@type":"Event","name":"Spring Swap Meet","startDate":"2026-05-16T07:00:00-04:00","url":"https://venue.example/events/swap-meet"}</script>"#;
    let page = format!(
        r#"<html lang="en"><head>{jsonld}</head><body><h1>Spring Swap Meet</h1><p>Our big swap meet.</p>{more}</body></html>"#
    );
    let (events, notes) = read(&page, day(2026, 3, 1));
    let mut titles: Vec<_> = events.iter().map(|e| e.title.clone().unwrap()).collect();
    titles.sort();
    assert_eq!(
        titles,
        ["Monthly Club Meeting", "Season Opener Cruise", "Spring Swap Meet", "Spring Tech Session"],
        "{notes:?}"
    );
    // The same block whose items all link to one page (a show's performances, a booking
    // form) adds nothing: those are the structured event's dates, not other events.
    let same =
        more.replace("/events/club-meeting", "/book").replace("/events/tech-session", "/book");
    let page = format!(
        r#"<html lang="en"><head>{jsonld}</head><body><h1>Spring Swap Meet</h1>{same}</body></html>"#
    );
    let (events, _) = read(&page, day(2026, 3, 1));
    assert_eq!(events.len(), 1, "{:?}", events.iter().map(|e| &e.title).collect::<Vec<_>>());
}

#[test]
fn all_free_unless_stated_otherwise_frees_the_events_without_a_price() {
    // Issue 24 (pages 110–129, 220): "every activity is free unless stated otherwise" is
    // no exception naming an event: the events that give no price of their own are free;
    // "except the gala" still says nothing of the others.
    let page = |intro: &str| {
        format!(
            r#"<html lang="es"><body><h1>Actividades</h1><p>{intro}</p><table><tbody>
      <tr class="ev"><td><time datetime="2026-03-05T10:00">5 marzo</time></td><td><a href="/e/ruta">Ruta de los molinos</a></td><td></td></tr>
      <tr class="ev"><td><time datetime="2026-03-07T21:30">7 marzo</time></td><td><a href="/e/estrellas">Noche de estrellas</a></td><td>5 €</td></tr>
      <tr class="ev"><td><time datetime="2026-03-09T11:00">9 marzo</time></td><td><a href="/e/taller">Taller de cajas nido</a></td><td></td></tr>
    </tbody></table></body></html>"#
        )
    };
    let free =
        |events: &[Event]| events.iter().map(|e| e.price.is_free == Some(true)).collect::<Vec<_>>();
    let (events, notes) = read(
        &page("Todas las actividades son gratuitas salvo que se indique otra cosa."),
        day(2026, 3, 1),
    );
    assert_eq!(events.len(), 3, "{notes:?}");
    assert_eq!(free(&events), [true, false, true]);
    let (events, _) = read(
        &page("Todas las actividades son gratuitas, salvo la noche de estrellas."),
        day(2026, 3, 1),
    );
    assert_eq!(free(&events), [false, false, false]);
}

#[test]
fn a_german_or_turkish_page_keeps_its_languages_clock() {
    // Issue 24: every country of German keeps Central European Time, and Turkish is
    // Turkey's: a page tagged only `de` or `tr` gives its local times that clock's offset
    // (summer time in July); French and Spanish, spoken on many clocks, give none.
    for (lang, want) in [
        ("de", "2026-07-17T21:00:00+02:00"),
        ("tr", "2026-07-17T21:00:00+03:00"),
        ("fr", "2026-07-17T21:00:00"),
        ("es", "2026-07-17T21:00:00"),
    ] {
        let page = format!(
            r#"<html lang="{lang}"><body><table><tbody>
          <tr class="ev"><td><time datetime="2026-07-17T21:00">17.7.</time></td><td><a href="/e/a">Alpha</a></td></tr>
          <tr class="ev"><td><time datetime="2026-07-18T21:00">18.7.</time></td><td><a href="/e/b">Bravo</a></td></tr>
          <tr class="ev"><td><time datetime="2026-07-19T21:00">19.7.</time></td><td><a href="/e/c">Charlie</a></td></tr>
        </tbody></table></body></html>"#
        );
        let (events, notes) = read(&page, day(2026, 6, 1));
        assert_eq!(events.len(), 3, "{lang}: {notes:?}");
        assert_eq!(start(&events[0]), want, "{lang}");
    }
}
