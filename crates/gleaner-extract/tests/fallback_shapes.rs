//! The generic fallback on three shapes of pages without structured data (issue 24, batch
//! 110–129): Squarespace's event list, a one-day programme by stage (a Fête de la
//! musique), and a show-times grid (a planetarium's or a cinema's).

use chrono::NaiveDate;
use gleaner_event::{Event, NormaliseContext};
use gleaner_extract::{ExtractOptions, extract_events_with};
use url::Url;

const BASE: &str = "https://venue.example/agenda/";

fn read(page: &str) -> Vec<Event> {
    let base = Url::parse(BASE).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts = ExtractOptions {
        fallback: true,
        reference_date: NaiveDate::from_ymd_opt(2026, 2, 26),
        ..Default::default()
    };
    extract_events_with(page.as_bytes(), "text/html", &ctx, &opts).events
}

fn iso(t: Option<gleaner_event::EventTime>) -> String {
    t.map(|t| t.to_iso()).unwrap_or_default()
}

/// The local date and time of `t`, without the offset a page's language or country adds
/// (`2026-07-03T20:30:00+02:00` → `2026-07-03T20:30:00`): for the tests of a page's shape.
fn local(t: Option<gleaner_event::EventTime>) -> String {
    let iso = iso(t);
    match iso.get(19..20) {
        Some("+" | "-") => iso[..19].to_owned(),
        _ => iso,
    }
}

/// One Squarespace list item: the day in one `<time>`, the start and end in others whose
/// `datetime` is the same day (12-hour and 24-hour copies), the address in line spans.
fn squarespace_item(slug: &str, day: &str, times: [&str; 4], place: &str, note: &str) -> String {
    let [s12, e12, s24, e24] = times;
    format!(
        r#"<article class="eventlist-event eventlist-event--upcoming">
      <a href="/concerts/{slug}" class="eventlist-column-thumbnail"><img data-src="https://img.example/{slug}.jpg" src="https://img.example/{slug}.jpg?format=500w" alt=""></a>
      <div class="eventlist-column-info">
        <h1 class="eventlist-title"><a href="/concerts/{slug}">Concert {slug}</a></h1>
        <ul class="eventlist-meta">
          <li class="eventlist-meta-date"><time class="event-date" datetime="{day}">le {day}</time></li>
          <li class="eventlist-meta-time">
            <span class="event-time-12hr"><time datetime="{day}">{s12}</time><time datetime="{day}">{e12}</time></span>
            <span class="event-time-24hr"><time datetime="{day}">{s24}</time><time datetime="{day}">{e24}</time></span>
          </li>
          <li class="eventlist-meta-item eventlist-meta-address">{place}</li>
        </ul>
        <div class="eventlist-description"><p>{note}</p><p>Le programme du concert, avec le chœur et l'orchestre de la ville.</p></div>
      </div>
    </article>"#
    )
}

#[test]
fn squarespace_event_lists_give_times_places_summaries_and_full_images() {
    let place = |name: &str| {
        format!(
            r#"{name}<span class="eventlist-meta-address-line">5 place Saint-Éloi</span><span class="eventlist-meta-address-line">Tours, 37000</span><span class="eventlist-meta-address-line">France</span> <a href="http://maps.example/?q=x">(carte)</a>"#
        )
    };
    let items = [
        squarespace_item(
            "a",
            "2026-10-10",
            ["8:30 PM", "10:00 PM", "20:30", "22:00"],
            &place("Église Saint-Éloi"),
            "Tarifs : 15 euros.",
        ),
        squarespace_item(
            "b",
            "2026-12-13",
            ["5:00 PM", "6:15 PM", "17:00", "18:15"],
            &place("Temple protestant"),
            "Nouvelle date : le concert initialement prévu le samedi 5 décembre 2026 est reporté au dimanche 13 décembre 2026.",
        ),
        squarespace_item(
            "c",
            "2027-03-27",
            ["8:30 PM", "10:00 PM", "20:30", "22:00"],
            &place("Salle Ockeghem"),
            "Entrée au chapeau.",
        ),
    ];
    let page = format!(
        r#"<html lang="fr"><body><main><h1>Saison 2026–2027</h1><div class="eventlist">{}</div></main>
        <footer><p>Association Les Voix · 8 rue des Halles, 37000 Tours</p></footer></body></html>"#,
        items.join("\n")
    );
    let events = read(&page);
    assert_eq!(events.len(), 3, "{events:#?}");
    let e = &events[0];
    // The day's `<time>` and the times' `<time>`s make one start and one end (summer
    // time in France).
    assert_eq!(iso(e.start), "2026-10-10T20:30:00+02:00");
    assert_eq!(iso(e.end), "2026-10-10T22:00:00+02:00");
    assert_eq!(iso(events[1].start), "2026-12-13T17:00:00+01:00");
    // The address block: its leading text is the venue, its lines the address; not the
    // footer's association.
    assert_eq!(e.venue.name.as_deref(), Some("Église Saint-Éloi"));
    assert_eq!(e.venue.street.as_deref(), Some("5 place Saint-Éloi"));
    assert_eq!(e.venue.locality.as_deref(), Some("Tours"));
    assert_eq!(e.venue.country.as_deref(), Some("FR"));
    // The summary's first paragraph that opens with no label.
    let programme = "Le programme du concert, avec le chœur et l'orchestre de la ville.";
    assert_eq!(e.description.as_deref(), Some(programme));
    assert_eq!(events[1].description.as_deref(), Some(programme));
    // The lazy image's `data-src`, not its resized `src`.
    assert_eq!(e.image_url.as_ref().map(Url::as_str), Some("https://img.example/a.jpg"));
    // Moved to the day the item shows: rescheduled, at that day.
    assert_eq!(events[1].status, gleaner_event::EventStatus::Rescheduled);
    assert_eq!(events[0].status, gleaner_event::EventStatus::Scheduled);
}

#[test]
fn a_place_named_like_the_sites_venue_takes_the_footers_address() {
    let item = |slug: &str, day: &str, place: &str| {
        format!(
            r#"<article class="eventlist-event"><div class="eventlist-column-info">
          <h1 class="eventlist-title"><a href="/shows/{slug}">Show {slug}</a></h1>
          <ul class="eventlist-meta"><li><time class="event-date" datetime="{day}">{day}</time></li>
          <li><time datetime="{day}">7:00 PM</time><time datetime="{day}">8:30 PM</time></li>
          <li class="eventlist-meta-address">{place}<a href="http://maps.example/?q=x">(map)</a></li></ul>
        </div></article>"#
        )
    };
    let page = format!(
        r#"<html lang="en-US"><body><main><h1>Upcoming Shows</h1><div class="eventlist">{}{}{}</div></main>
        <footer><p><strong>The Laughing Pint Comedy Room</strong><br>418 Larkin Avenue, Dayton, OH 45402<br>(937) 555-0142 &middot; hello@pint.example</p></footer></body></html>"#,
        item("a", "2026-04-10", "The Laughing Pint"),
        item("b", "2026-04-11", "The Laughing Pint"),
        item("c", "2026-04-15", "The Laughing Pint &ndash; Back Bar"),
    );
    let events = read(&page);
    assert_eq!(events.len(), 3, "{events:#?}");
    for e in &events {
        // The footer written one line per `<br>`, its street and ZIP code no phone number;
        // the room after the dash is not the venue.
        assert_eq!(e.venue.name.as_deref(), Some("The Laughing Pint"));
        assert_eq!(e.venue.street.as_deref(), Some("418 Larkin Avenue"));
        assert_eq!(e.venue.locality.as_deref(), Some("Dayton"));
    }
    assert_eq!(iso(events[2].start), "2026-04-15T19:00:00");
    assert_eq!(iso(events[2].end), "2026-04-15T20:30:00");
}

const PROGRAMME: &str = r#"<html lang="fr"><head><link rel="canonical" href="https://venue.example/fete"></head><body><main><article>
  <h1>Fête de la musique 2026 : le programme scène par scène</h1>
  <p class="meta">Publié le 28 mai 2026</p>
  <div class="chapo"><p><strong>Dimanche 21 juin 2026</strong>, trois scènes en ville. <strong>Tous les concerts sont gratuits.</strong></p></div>
  <h2>Scène 1 – Place de l'Hôtel-de-Ville</h2>
  <ul class="programme">
    <li><span class="horaire">18h30 – 19h15</span> <strong>Chorale des Tilleuls</strong> – chansons françaises et airs populaires.</li>
    <li><span class="horaire">23h – 1h</span> <strong>DJ Mango</strong> – set disco-funk pour finir la soirée.</li>
  </ul>
  <h2>Kiosque du Jardin public</h2>
  <p>Jardin public, rue des Tanneurs. En cas de pluie, salle des fêtes, 3 avenue de la Libération.</p>
  <ul class="programme">
    <li><span class="horaire">17h</span> <strong>Ateliers jazz</strong> (élèves du conservatoire)</li>
    <li><span class="horaire">19h</span> <strong>Duo Ombelle</strong> – <span class="badge">ANNULÉ</span> Le concert est annulé, une musicienne étant souffrante.</li>
  </ul>
  <h2>Dans les bars</h2>
  <ul class="programme">
    <li><strong>Bar Le Central</strong>, 12 rue Gambetta – <span class="horaire">21h</span> : <strong>Rokkaz</strong> (rock)</li>
  </ul>
  <h3>Infos pratiques</h3>
  <p>Rues fermées à la circulation de 14h à 2h. Navette gratuite : départs à 17h45 et 20h15.</p>
</article></main>
<footer><p><strong>Mairie de Vernay-sur-Cher</strong><br>1 place de la Mairie<br>41140 Vernay-sur-Cher<br>Tél. 02 54 55 00 00</p></footer>
</body></html>"#;

#[test]
fn a_one_day_programme_by_stage_gives_one_event_per_act() {
    let events = read(PROGRAMME);
    let titles: Vec<_> = events.iter().map(|e| e.title.clone().unwrap_or_default()).collect();
    assert_eq!(
        titles,
        ["Chorale des Tilleuls", "DJ Mango", "Ateliers jazz", "Duo Ombelle", "Rokkaz"]
    );
    let e = &events[0];
    // The page's one day, the act's times, on French summer time (the footer's postcode
    // and town on a French page).
    assert_eq!(iso(e.start), "2026-06-21T18:30:00+02:00");
    assert_eq!(iso(e.end), "2026-06-21T19:15:00+02:00");
    // An end before the start is after midnight.
    assert_eq!(iso(events[1].end), "2026-06-22T01:00:00+02:00");
    assert_eq!(iso(events[2].start), "2026-06-21T17:00:00+02:00");
    assert_eq!(events[2].end, None);
    // The stage heading names the place (its stage words dropped), the line under it the
    // street; a venue named before the time is the act's own.
    assert_eq!(e.venue.name.as_deref(), Some("Place de l'Hôtel-de-Ville"));
    assert_eq!(e.venue.locality.as_deref(), Some("Vernay-sur-Cher"));
    assert_eq!(events[2].venue.name.as_deref(), Some("Kiosque du Jardin public"));
    assert_eq!(events[2].venue.street.as_deref(), Some("rue des Tanneurs"));
    assert_eq!(events[4].venue.name.as_deref(), Some("Bar Le Central"));
    assert_eq!(events[4].venue.street.as_deref(), Some("12 rue Gambetta"));
    // A dash after the act opens its description; brackets do not; a badge is the status.
    assert_eq!(e.description.as_deref(), Some("chansons françaises et airs populaires."));
    assert_eq!(events[2].description, None);
    assert_eq!(events[3].status, gleaner_event::EventStatus::Cancelled);
    assert_eq!(
        events[3].description.as_deref(),
        Some("Le concert est annulé, une musicienne étant souffrante.")
    );
    // The intro says every concert is free.
    assert!(events.iter().all(|e| e.price.is_free == Some(true)));
    // No act links anywhere: the page is theirs.
    assert!(
        events
            .iter()
            .all(|e| e.url.as_ref().map(Url::as_str) == Some("https://venue.example/fete"))
    );
    // Precision: what is no programme gives no acts.
    // Two acts: too few to call it a programme.
    let two = PROGRAMME
        .replace(r#"<li><span class="horaire">23h – 1h</span> <strong>DJ Mango</strong> – set disco-funk pour finir la soirée.</li>"#, "")
        .replace(r#"<li><span class="horaire">17h</span> <strong>Ateliers jazz</strong> (élèves du conservatoire)</li>"#, "")
        .replace(r#"<li><span class="horaire">19h</span> <strong>Duo Ombelle</strong> – <span class="badge">ANNULÉ</span> Le concert est annulé, une musicienne étant souffrante.</li>"#, "");
    assert!(read(&two).iter().all(|e| e.title.as_deref() != Some("Chorale des Tilleuls")));
    // Lists under day headings are several days' programme: not all on the intro's day.
    let days = PROGRAMME.replace("<h2>Kiosque du Jardin public</h2>", "<h2>Lundi 22 juin</h2>");
    assert!(
        read(&days).iter().all(|e| e.title.as_deref() != Some("Duo Ombelle")
            || !iso(e.start).starts_with("2026-06-21"))
    );
    // Items that give their own dates are a listing's, not a one-day programme's acts.
    let dated =
        PROGRAMME.replace("<span class=\"horaire\">", "<span class=\"horaire\">le 3 juillet, ");
    assert!(read(&dated).iter().all(|e| !iso(e.start).starts_with("2026-06-21T")));
}

const SHOWTIMES: &str = r#"<html lang="en-US"><body><main>
  <h1>Planetarium Show Times</h1>
  <section class="week">
    <h2>Week of March 9, 2026</h2>
    <article class="show-feature">
      <img src="/media/ice-giants-600.jpg" alt="Neptune">
      <h3>Voyage to the Ice Giants</h3>
      <p>Fly past Uranus and Neptune, the least explored planets in our solar system.</p>
    </article>
    <table class="showtimes">
      <caption>Voyage to the Ice Giants &mdash; show times</caption>
      <thead><tr><th>Day</th><th>Show times</th></tr></thead>
      <tbody>
        <tr><th scope="row">Sat, Mar 14</th><td>
          <a class="time" href="https://venue.example/tickets/?d=0314&amp;t=1100">11:00 AM</a>
          <a class="time" href="https://venue.example/tickets/?d=0314&amp;t=1300">1:00 PM</a></td></tr>
        <tr><th scope="row">Sun, Mar 15</th><td>
          <a class="time" href="https://venue.example/tickets/?d=0315&amp;t=1300">1:00 PM</a>
          <span class="time">2:00 PM <small>(sensory-friendly)</small></span></td></tr>
      </tbody>
    </table>
  </section>
  <section class="special">
    <h2>Special event</h2>
    <article class="special-event">
      <h3>Stargazing Night</h3>
      <p class="when">Friday, March 20, 2026 &middot; 8:00 &ndash; 10:00 PM</p>
      <p>Look at the Moon through our telescope. Free and open to the public, weather permitting.</p>
    </article>
  </section>
</main>
<footer><div><strong>Harlan Science Center</strong><br>410 Riverside Drive<br>Millbrook, OH 45067<br>(513) 555-0142</div></footer>
</body></html>"#;

#[test]
fn a_show_times_grid_gives_one_event_per_time() {
    let events = read(SHOWTIMES);
    let starts: Vec<_> = events.iter().map(|e| iso(e.start)).collect();
    assert_eq!(
        starts,
        [
            "2026-03-14T11:00:00",
            "2026-03-14T13:00:00",
            "2026-03-15T13:00:00",
            "2026-03-15T14:00:00",
            "2026-03-20T20:00:00"
        ]
    );
    let e = &events[0];
    assert_eq!(e.title.as_deref(), Some("Voyage to the Ice Giants"));
    // Each time's link is its booking link; a time without one has none.
    assert_eq!(
        e.ticket_url.as_ref().map(Url::as_str),
        Some("https://venue.example/tickets/?d=0314&t=1100")
    );
    assert_eq!(events[3].ticket_url, None);
    // The show's block before the grid gives its picture and blurb; the footer its venue.
    assert_eq!(
        e.image_url.as_ref().map(Url::as_str),
        Some("https://venue.example/media/ice-giants-600.jpg")
    );
    assert!(e.description.as_deref().is_some_and(|d| d.starts_with("Fly past Uranus")));
    assert_eq!(e.venue.name.as_deref(), Some("Harlan Science Center"));
    assert_eq!(e.venue.street.as_deref(), Some("410 Riverside Drive"));
    assert_eq!(e.venue.locality.as_deref(), Some("Millbrook"));
    // Beside the grid, an article with its own dated line is its own event.
    let special = &events[4];
    assert_eq!(special.title.as_deref(), Some("Stargazing Night"));
    assert_eq!(iso(special.end), "2026-03-20T22:00:00");
    assert_eq!(special.price.is_free, Some(true));
    assert_eq!(events[0].price.is_free, None);
    // A day's opening hours (`10:00 AM – 5:00 PM`) are no performances.
    let hours = SHOWTIMES
        .replace("11:00 AM</a>", "10:00 AM</a> –")
        .replace("<span class=\"time\">2:00 PM", "– <span class=\"time\">5:00 PM");
    let starts: Vec<_> = read(&hours).iter().map(|e| iso(e.start)).collect();
    assert!(!starts.contains(&"2026-03-15T13:00:00".to_owned()), "{starts:?}");
    // A row whose first cell is no day makes the table no grid.
    let broken = SHOWTIMES.replace("Sun, Mar 15", "Members only");
    let starts: Vec<_> = read(&broken).iter().map(|e| iso(e.start)).collect();
    assert!(!starts.contains(&"2026-03-14T13:00:00".to_owned()), "{starts:?}");
}

/// Issue 24, batches 150–169: a card's own paragraph of running text is its description
/// when no class names one; a labelled line, a date line or a short note is not.
#[test]
fn a_cards_running_text_paragraph_is_its_description() {
    let card = |slug: &str, day: &str, body: &str| {
        format!(
            r#"<div class="termin"><h2><a href="/programm/{slug}">Abend {slug}</a></h2>
          <p class="wann">{day}, 19.30 Uhr</p><p>Ort: Alte Post, Saal</p>{body}</div>"#
        )
    };
    let page = format!(
        r#"<html lang="de"><body><main><h1>Programm</h1>{}{}{}</main></body></html>"#,
        card(
            "a",
            "Freitag, 17. April 2026",
            "<p>Ein Abend mit Liedern aus drei Jahrhunderten, begleitet am Flügel.</p>"
        ),
        card(
            "b",
            "Samstag, 18. April 2026",
            "<p>Nachholtermin vom 3. März 2026, gleiche Besetzung wie damals.</p>"
        ),
        card("c", "Sonntag, 19. April 2026", "<p>Kurz und gut.</p>"),
    );
    let events = read(&page);
    assert_eq!(events.len(), 3, "{events:#?}");
    assert_eq!(
        events[0].description.as_deref(),
        Some("Ein Abend mit Liedern aus drei Jahrhunderten, begleitet am Flügel.")
    );
    // A paragraph that reads as a date is a date line; a short note is no description.
    assert_eq!(events[1].description, None);
    assert_eq!(events[2].description, None);
}

/// Issue 24, batches 150–169: the site's venue from a sidebar block headed `Kontakt` (one
/// line per `<br>`, the phone number dropped), and from a footer whose one part holds the
/// street and the town (`Moda Caddesi No: 48, Kadıköy / İstanbul`) beside opening hours;
/// its address fixes the country and so the offsets.
#[test]
fn the_sites_venue_from_a_contact_block_or_a_street_and_town_part() {
    let rows = |year: &str| {
        ["03", "10", "17"]
            .iter()
            .map(|d| {
                format!(
                    "<tr><td>Mi., {d}.06.{year}<br>16:00 Uhr</td><td><strong>Lesestunde {d}</strong></td></tr>"
                )
            })
            .collect::<String>()
    };
    let page = format!(
        r#"<html lang="de"><body><main><h1>Termine</h1><table><tbody>{}</tbody></table></main>
        <aside><div class="box"><h3>Kontakt</h3><p><strong>Gemeindebücherei Talheim</strong><br>Schulstraße 8<br>74388 Talheim<br>Tel. 07133 000-210</p></div></aside>
        <footer><p>© 2026 Gemeinde Talheim</p></footer></body></html>"#,
        rows("2026")
    );
    let events = read(&page);
    assert_eq!(events.len(), 3, "{events:#?}");
    for e in &events {
        assert_eq!(e.venue.name.as_deref(), Some("Gemeindebücherei Talheim"));
        assert_eq!(e.venue.street.as_deref(), Some("Schulstraße 8"));
        assert_eq!(e.venue.locality.as_deref(), Some("Talheim"));
    }
    assert_eq!(iso(events[0].start), "2026-06-03T16:00:00+02:00");

    let card = |d: &str| {
        format!(
            r#"<article class="etkinlik"><h2><a href="/etkinlik/{d}">Söyleşi {d}</a></h2><p class="tarih">{d} Haziran 2026 · Saat 18.00</p></article>"#
        )
    };
    let page = format!(
        r#"<html lang="tr"><body><main><h1>Etkinlikler</h1>{}{}{}</main>
        <footer><p><strong>Çınaraltı Kitabevi</strong> · Bağdat Caddesi No: 210, Maltepe / İstanbul · Pazartesi–Cumartesi 10.00–20.00</p></footer></body></html>"#,
        card("4"),
        card("11"),
        card("18"),
    );
    let events = read(&page);
    assert_eq!(events.len(), 3, "{events:#?}");
    for e in &events {
        assert_eq!(e.venue.name.as_deref(), Some("Çınaraltı Kitabevi"));
        assert_eq!(e.venue.street.as_deref(), Some("Bağdat Caddesi No: 210"));
        assert_eq!(e.venue.country.as_deref(), Some("TR"));
    }
    assert_eq!(iso(events[0].start), "2026-06-04T18:00:00+03:00");
}

/// Issue 24, batches 150–169: a footer's company or association form after the name
/// (`S.L.`, `e. V.`) is not part of the venue's name.
#[test]
fn a_footers_legal_form_is_not_part_of_the_venue() {
    for (footer, want) in [
        ("Sala Candela S.L. · Calle Feria, 12 · 41003 Sevilla", "Sala Candela"),
        ("Kleines Haus am Fluss e. V. · Uferweg 3 · 96047 Bamberg", "Kleines Haus am Fluss"),
        ("Théâtre du Pont SARL · 4 rue Neuve · 69001 Lyon", "Théâtre du Pont"),
    ] {
        let item = |d: &str| {
            format!(
                r#"<article class="show"><h2><a href="/s/{d}">Función {d}</a></h2><p class="date">2026-05-{d} 21:00</p></article>"#
            )
        };
        let page = format!(
            r#"<html><body><main><h1>Agenda</h1>{}{}{}</main><footer><p>{footer}</p></footer></body></html>"#,
            item("14"),
            item("15"),
            item("16"),
        );
        let events = read(&page);
        assert_eq!(events.len(), 3, "{footer}: {events:#?}");
        assert_eq!(events[0].venue.name.as_deref(), Some(want), "{footer}");
    }
}

/// Issue 24, batches 150–169: an introduction that says every event is free (`Toutes nos
/// animations sont gratuites`) makes the items without a price free; one that says so of
/// one thing, or with an exception, does not.
#[test]
fn an_intro_saying_every_event_is_free_makes_the_items_free() {
    let page = |intro: &str| {
        let card = |d: &str, extra: &str| {
            format!(
                r#"<div class="rdv"><h2><a href="/rdv/{d}">Atelier {d}</a></h2><p class="quand">samedi {d} mai 2026 à 10h30</p>{extra}</div>"#
            )
        };
        format!(
            r#"<html lang="fr"><body><main><h1>Nos rendez-vous</h1><p>{intro}</p>{}{}{}</main></body></html>"#,
            card("9", ""),
            card("16", ""),
            card("23", "<p class=\"tarif\">Tarif : 6 €</p>"),
        )
    };
    let events = read(&page("Toutes nos animations sont gratuites, sur inscription."));
    assert_eq!(events.len(), 3, "{events:#?}");
    assert_eq!(events[0].price.is_free, Some(true));
    assert_eq!(events[1].price.is_free, Some(true));
    // An item with its own price keeps it.
    assert_ne!(events[2].price.is_free, Some(true));
    for intro in [
        "Toutes nos animations sont gratuites, sauf les stages.",
        "Le parking est gratuit pour les abonnés.",
    ] {
        let events = read(&page(intro));
        assert_eq!(events.len(), 3, "{intro}: {events:#?}");
        assert_eq!(events[0].price.is_free, None, "{intro}");
    }
}

/// The events' titles and starts, in order.
fn titles_and_starts(events: &[Event]) -> Vec<(String, String)> {
    events.iter().map(|e| (e.title.clone().unwrap_or_default(), iso(e.start))).collect()
}

/// [`titles_and_starts`] with local times (see [`local`]).
fn titles_and_local_starts(events: &[Event]) -> Vec<(String, String)> {
    events.iter().map(|e| (e.title.clone().unwrap_or_default(), local(e.start))).collect()
}

/// Issue 24, batch 170–189: a time labelled as doors opening, boarding or registration
/// (`Embarque 20.00 h · Salida 20.30 h`, `Einlass 19 Uhr, Beginn 20 Uhr`) gives way to
/// the line's other time, in the five languages; and a booking link's word (`Reservar`,
/// `Buchen`, `Rezervasyon`) is never an item's title.
#[test]
fn times_before_the_start_give_way_and_booking_words_are_no_titles() {
    // (lang, header, day of the 3rd, 10th, 17th, time cell, booking word, start)
    let cases = [
        (
            "es",
            ["Fecha", "Concierto", "Horario", "Entradas"],
            ["Viernes 3 de julio", "Viernes 10 de julio", "Viernes 17 de julio"],
            "Embarque 20.00 h · Salida 20.30 h · Regreso 22.30 h",
            "Reservar",
        ),
        (
            "en",
            ["Date", "Concert", "Times", "Tickets"],
            ["Friday 3 July", "Friday 10 July", "Friday 17 July"],
            "Boarding 8pm · sailing 8.30pm",
            "Book now",
        ),
        (
            "fr",
            ["Date", "Concert", "Horaires", "Billets"],
            ["vendredi 3 juillet", "vendredi 10 juillet", "vendredi 17 juillet"],
            "Embarquement 20h, départ 20h30",
            "Réserver",
        ),
        (
            "de",
            ["Datum", "Konzert", "Zeiten", "Karten"],
            ["Fr., 3. Juli", "Fr., 10. Juli", "Fr., 17. Juli"],
            "Einlass 20 Uhr, Beginn 20.30 Uhr",
            "Buchen",
        ),
        (
            "tr",
            ["Tarih", "Konser", "Saat", "Bilet"],
            ["3 Temmuz Cuma", "10 Temmuz Cuma", "17 Temmuz Cuma"],
            "Kapılar 20:00, başlangıç 20:30",
            "Rezervasyon",
        ),
    ];
    for (lang, header, days, times, book) in cases {
        let head: String = header.iter().map(|h| format!("<th>{h}</th>")).collect();
        let rows: String = days
            .iter()
            .zip(["Boleros", "Jazz", "Flamenco"])
            .map(|(day, band)| {
                format!(
                    r#"<tr><td>{day}</td><td>Noche: <strong>{band} Trio</strong></td><td>{times}</td><td><a href="https://tickets.example/{band}">{book}</a></td></tr>"#
                )
            })
            .collect();
        let page = format!(
            r#"<html lang="{lang}"><body><main><h1>Conciertos a bordo</h1><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table></main></body></html>"#
        );
        let got = titles_and_local_starts(&read(&page));
        let want: Vec<(String, String)> = ["03", "10", "17"]
            .iter()
            .zip(["Boleros", "Jazz", "Flamenco"])
            .map(|(d, band)| (format!("Noche: {band} Trio"), format!("2026-07-{d}T20:30:00")))
            .collect();
        assert_eq!(got, want, "{lang}");
    }
}

/// Issue 24, batches 150–189: a block whose only time is a registration's (`Anmeldung …
/// bis 18 Uhr`, `Inscription à 9h`) gives way to a later block's time.
#[test]
fn a_registration_time_gives_way_to_the_start() {
    let cases = [
        ("de", "Anmeldung für Auftretende bis 18 Uhr am Veranstaltungstag.", "Beginn 20 Uhr"),
        ("fr", "Inscription des équipes à 18h à l'accueil.", "Début du tournoi 20h"),
        ("es", "Inscripción de participantes a las 18:00 h.", "Salida 20:00 h"),
    ];
    for (lang, note, start) in cases {
        let card = |d: &str, t: &str| {
            format!(
                r#"<div class="termin"><p class="datum">{d}</p><h2>{t}</h2><p>{note}</p><p class="zeiten">{start}</p></div>"#
            )
        };
        let page = format!(
            r#"<html lang="{lang}"><body><main><h1>Programm</h1>{}{}{}</main></body></html>"#,
            card("30.10.2026", "Offene Bühne"),
            card("13.11.2026", "Quiz"),
            card("27.11.2026", "Slam"),
        );
        let got: Vec<String> = read(&page).iter().map(|e| local(e.start)).collect();
        assert_eq!(
            got,
            ["2026-10-30T20:00:00", "2026-11-13T20:00:00", "2026-11-27T20:00:00"],
            "{lang}"
        );
    }
}

/// Issue 24, batch 170–189: a line that lists times (`11.00 ve 14.00`, `9:30 h y 20:30
/// h`) gives one performance at each, in a listing's row and on a show's page.
#[test]
fn listed_times_are_one_performance_each() {
    let row = |day: &str, times: &str, play: &str| {
        format!(
            r#"<tr><td>{day}</td><td>{times}</td><td><a href="/oyunlar/{play}">{play} oyunu</a></td></tr>"#
        )
    };
    let page = format!(
        r#"<html lang="tr"><body><main><h1>Mart 2026 Oyun Takvimi</h1><table><thead><tr><th>Tarih</th><th>Saat</th><th>Oyun</th></tr></thead><tbody>{}{}{}</tbody></table></main></body></html>"#,
        row("7 Mart", "11.00 ve 14.00", "Keloğlan"),
        row("8 Mart", "14.00", "Keloğlan"),
        row("14 Mart", "11.00", "Nasreddin"),
    );
    let got: Vec<String> = read(&page).iter().map(|e| local(e.start)).collect();
    assert_eq!(
        got,
        [
            "2026-03-07T11:00:00",
            "2026-03-07T14:00:00",
            "2026-03-08T14:00:00",
            "2026-03-14T11:00:00"
        ]
    );
    // A label before the list (`Seans saatleri: 11.00 ve 14.00`).
    let card = |day: &str, times: &str, play: &str| {
        format!(
            r#"<div class="kart"><p class="tarih">{day}</p><h3><a href="/etkinlik/{play}">{play} oyunu</a></h3><ul><li>Seans saatleri: {times}</li></ul></div>"#
        )
    };
    let page = format!(
        r#"<html lang="tr"><body><main><h1>Etkinlikler</h1>{}{}{}</main></body></html>"#,
        card("7 Mart 2026", "11.00", "Keloğlan"),
        card("14 Mart 2026", "11.00 ve 14.00", "Pinokyo"),
        card("21 Mart 2026", "14.00", "Nasreddin"),
    );
    let got: Vec<String> = read(&page).iter().map(|e| local(e.start)).collect();
    assert_eq!(
        got,
        [
            "2026-03-07T11:00:00",
            "2026-03-14T11:00:00",
            "2026-03-14T14:00:00",
            "2026-03-21T14:00:00"
        ]
    );
    let line = |day: &str, times: &str, slug: &str| {
        format!(
            r#"<li><span><strong>{day}</strong> · {times}</span><a href="https://boletera.example/{slug}">Boletos</a></li>"#
        )
    };
    let page = format!(
        r#"<html lang="es"><body><main><h1>México de mis colores</h1><p>Un viaje por cinco estados en catorce cuadros, con cuarenta bailarines.</p><h2>Funciones</h2><ul>{}{}{}</ul></main></body></html>"#,
        line("Miércoles 4 de marzo", "20:30 h", "a"),
        line("Domingo 8 de marzo", "9:30 h y 20:30 h", "b"),
        line("Miércoles 11 de marzo", "20:30 h", "c"),
    );
    let got = titles_and_starts(&read(&page));
    let show = |t: &str| ("México de mis colores".to_owned(), t.to_owned());
    assert_eq!(
        got,
        [
            show("2026-03-04T20:30:00"),
            show("2026-03-08T09:30:00"),
            show("2026-03-08T20:30:00"),
            show("2026-03-11T20:30:00"),
        ]
    );
}

/// Issue 24, batch 170–189: a postponement a sentence states as a condition (`En cas de
/// pluie, le bal est reporté au dimanche 21 juin`, `Bei Regen wird … verschoben`) is not
/// the event's: it keeps its day and states no status.
#[test]
fn a_conditional_postponement_is_no_status() {
    let cases = [
        (
            "fr",
            "dimanche 14 juin · de 15h à 19h",
            "En cas de pluie, le bal est reporté au dimanche 21 juin, mêmes heures.",
            "2026-06-14T15:00:00",
        ),
        (
            "de",
            "So., 14. Juni, 15 Uhr",
            "Bei Regen wird das Fest auf Sonntag, 21. Juni verschoben.",
            "2026-06-14T15:00:00",
        ),
        (
            "en",
            "Sunday 14 June, 3pm",
            "In case of rain the picnic is postponed to Sunday 21 June.",
            "2026-06-14T15:00:00",
        ),
    ];
    for (lang, when, note, want) in cases {
        let card = |d: &str, title: &str, note: &str| {
            format!(
                r#"<div class="carte"><p class="quand">{d}</p><h2>{title}</h2><p>{note}</p></div>"#
            )
        };
        let page = format!(
            r#"<html lang="{lang}"><body><main><h1>Agenda</h1>{}{}{}</main></body></html>"#,
            card("2026-05-02T20:30", "Bal folk", "Cornemuse et violon."),
            card("2026-05-16T20:30", "Bal de printemps", "Scène ouverte."),
            card(when, "Bal en plein air", note),
        );
        let events = read(&page);
        let open = events.iter().find(|e| e.title.as_deref() == Some("Bal en plein air"));
        let open = open.unwrap_or_else(|| panic!("{lang}: {events:#?}"));
        assert_eq!(local(open.start), want, "{lang}");
        assert_eq!(open.status, gleaner_event::EventStatus::Scheduled, "{lang}");
        assert!(!open.status_stated, "{lang}");
    }
}

/// Issue 24, batch 170–189: local times on a page that states no zone take the zone of
/// the country its language tag's region (`fr-BE`, `de-CH`) or its address's country
/// domain (`.tr`, `.co.uk`) names, when that country keeps one civil time; a language
/// alone (`fr`) or a country of several zones (`en-US`) names none.
#[test]
fn a_language_region_or_country_domain_zones_local_times() {
    let page = |lang: &str, canonical: &str| {
        let card = |d: &str, t: &str| {
            format!(r#"<div class="carte"><p class="quand">{d}</p><h2>{t}</h2></div>"#)
        };
        format!(
            r#"<html lang="{lang}"><head><link rel="canonical" href="{canonical}"></head><body><main><h1>Agenda</h1>{}{}{}</main></body></html>"#,
            card("samedi 7 mars 2026 · 20h30", "Bal folk"),
            card("samedi 18 avril 2026 · 20h", "Bal de printemps"),
            card("dimanche 14 juin 2026 · 15h", "Bal en plein air"),
        )
    };
    let starts = |lang: &str, url: &str| -> Vec<String> {
        read(&page(lang, url)).iter().map(|e| iso(e.start)).collect()
    };
    let summer =
        ["2026-03-07T20:30:00+01:00", "2026-04-18T20:00:00+02:00", "2026-06-14T15:00:00+02:00"];
    assert_eq!(starts("fr-BE", "https://bals.example/agenda"), summer);
    assert_eq!(starts("de-CH", "https://bals.example/agenda"), summer);
    assert_eq!(starts("fr", "https://bals.example.fr/agenda"), summer);
    assert_eq!(
        starts("tr", "https://kultur.example.bel.tr/etkinlik"),
        ["2026-03-07T20:30:00+03:00", "2026-04-18T20:00:00+03:00", "2026-06-14T15:00:00+03:00"]
    );
    let floating = ["2026-03-07T20:30:00", "2026-04-18T20:00:00", "2026-06-14T15:00:00"];
    assert_eq!(starts("fr", "https://bals.example/agenda"), floating);
    assert_eq!(starts("en-US", "https://bals.example/agenda"), floating);
    // The tag and the domain disagree: no zone.
    assert_eq!(starts("en-GB", "https://bals.example.tr/agenda"), floating);
}

/// Issue 24, batch 170–189: a table whose header names its event column `Anlass`,
/// `Concierto` or `Manifestation` titles each row by that cell, not by the page's heading
/// (a tour's dates have no event column), even when the cell mentions a price.
#[test]
fn an_event_column_titles_the_rows() {
    let row = |d: &str, what: &str, place: &str, time: &str| {
        format!("<tr><td>{d}</td><td>{what}</td><td>{place}</td><td>{time}</td></tr>")
    };
    let page = format!(
        r#"<html lang="de-CH"><body><main><h1>Agenda 2026</h1><table><tr><th>Datum</th><th>Anlass</th><th>Ort</th><th>Zeit</th></tr>{}{}{}</table></main></body></html>"#,
        row(
            "So., 26. April",
            "Jodlergottesdienst mit Pfarrerin Ruth Gerber. Eintritt frei, Kollekte.",
            "Ref. Kirche Langnau, Höheweg 2, 3550 Langnau i.E.",
            "10.00 Uhr"
        ),
        row("Sa., 1. August", "Bundesfeier", "Schulhausplatz Bärau", "20.30 Uhr"),
        row("Sa., 17. Oktober", "Älplerchilbi", "Mehrzweckhalle Bärau", "19.30 Uhr"),
    );
    let got: Vec<String> = read(&page).iter().filter_map(|e| e.title.clone()).collect();
    // A title cell that mentions a price (`Eintritt frei`) is no price cell.
    assert_eq!(
        got,
        [
            "Jodlergottesdienst mit Pfarrerin Ruth Gerber. Eintritt frei, Kollekte.",
            "Bundesfeier",
            "Älplerchilbi"
        ]
    );
}

/// Issue 24, batch 170–189: a show's dates listed without times in its section (`Do., 2.
/// Juli | Premiere`), under one start stated for all (`Beginn jeweils 20.30 Uhr, Einlass
/// ab 19.30 Uhr`), give one performance per date at that start, or at the row's own time;
/// without such a statement, or with two, nothing.
#[test]
fn a_start_stated_for_a_date_list_times_its_dates() {
    let cases = [
        (
            "de",
            "Beginn jeweils 20.30 Uhr, Einlass ab 19.30 Uhr.",
            ["Do., 2. Juli", "Fr., 3. Juli", "So., 5. Juli, 17 Uhr"],
        ),
        (
            "fr",
            "Représentations chaque soir à 20h30, ouverture des portes à 19h30.",
            ["jeudi 2 juillet", "vendredi 3 juillet", "dimanche 5 juillet à 17h"],
        ),
        (
            "es",
            "Todas las funciones a las 20.30 h.",
            ["jueves 2 de julio", "viernes 3 de julio", "domingo 5 de julio, 17 h"],
        ),
        (
            "en",
            "Every night at 8.30pm; doors 7.30pm.",
            ["Thursday 2 July", "Friday 3 July", "Sunday 5 July, 5pm"],
        ),
        (
            "tr",
            "Oyunlar her akşam saat 20:30'da başlar.",
            ["2 Temmuz Perşembe", "3 Temmuz Cuma", "5 Temmuz Pazar 17:00"],
        ),
    ];
    let page = |lang: &str, note: &str, days: [&str; 3]| {
        let rows: String = days
            .iter()
            .zip(["Premiere", "", "Nachmittag"])
            .map(|(d, n)| format!("<tr><td>{d}</td><td>{n}</td></tr>"))
            .collect();
        format!(
            r#"<html lang="{lang}"><body><main><h1>Spielplan Sommer 2026</h1><div class="frame"><header><h2>Der Zerrissene</h2></header><div class="text"><p>Herr von Lips hat alles und langweilt sich zu Tode, bis ein Heiratsantrag sein Leben durcheinanderbringt.</p><p><strong>{note}</strong></p><table><thead><tr><th>Termin</th><th>Hinweis</th></tr></thead><tbody>{rows}</tbody></table></div></div></main></body></html>"#
        )
    };
    for (lang, note, days) in cases {
        let got = titles_and_local_starts(&read(&page(lang, note, days)));
        let show = |t: &str| ("Der Zerrissene".to_owned(), t.to_owned());
        assert_eq!(
            got,
            [show("2026-07-02T20:30:00"), show("2026-07-03T20:30:00"), show("2026-07-05T17:00:00")],
            "{lang}"
        );
    }
    let days = ["Do., 2. Juli", "Fr., 3. Juli", "Sa., 4. Juli"];
    for note in ["Dauer ca. 2 Stunden.", "Beginn jeweils 20.30 Uhr, sonntags jeweils 17 Uhr."] {
        let events = read(&page("de", note, days));
        assert!(
            events.iter().all(|e| e.title.as_deref() != Some("Der Zerrissene")),
            "{note}: {events:#?}"
        );
    }
}

/// Issue 24, batch 170–189: a post (a signed news article too) that announces events
/// under headings of its own (`<h3>Kostümsitzung</h3><p><strong>Sa., 30.01.2027, 19.11
/// Uhr</strong> …</p>`) gives one event per dated section, titled by its heading; a
/// separable `fällt … aus` closing a clause calls one off.
#[test]
fn a_post_of_headed_sections_gives_one_event_per_section() {
    let cases = [
        (
            "de-DE",
            ["Sessionseröffnung", "Kostümsitzung", "Seniorensitzung"],
            [
                "Mi., 11.11.2026, 11.11 Uhr · Rathausplatz",
                "Sa., 30.01.2027, 19.11 Uhr (Einlass 18.00 Uhr)",
                "<s>Mi., 03.02.2027, 15.00 Uhr</s> – <strong>fällt in dieser Session leider aus</strong>, da die Halle belegt ist.",
            ],
            ["2026-11-11T11:11:00+01:00", "2027-01-30T19:11:00+01:00", "2027-02-03T15:00:00+01:00"],
        ),
        (
            "en-IE",
            ["Simultaneous display", "Spring Blitz Night", "Rathmines Rapidplay"],
            [
                "On <strong>Saturday 21st March at 2.30pm</strong> an International Master plays thirty boards.",
                "Eleven rounds: <strong>Thursday 2nd April</strong>, registration from 7.30pm, first round 7.45pm sharp.",
                "Held on <strong>Sunday 19th April 2026</strong>; round 1 at 10am.",
            ],
            ["2026-03-21T14:30:00+00:00", "2026-04-02T19:45:00+01:00", "2026-04-19T10:00:00+01:00"],
        ),
    ];
    for (lang, titles, lines, want) in cases {
        let sections: String = titles
            .iter()
            .zip(lines)
            .map(|(t, l)| {
                format!(
                    "<h3>{t}</h3><p>{l}</p><p>Mehr dazu bald im Schaukasten und auf der Seite.</p>"
                )
            })
            .collect();
        let page = format!(
            r#"<html lang="{lang}"><body><main><article><h1>Alle Termine der Session</h1><div class="entry-meta"><span class="byline">von <a rel="author" href="/author/x/">Pressewart</a></span></div><div class="entry-content"><p>Hier alle Termine im Überblick.</p>{sections}</div></article></main></body></html>"#
        );
        let events = read(&page);
        let got = titles_and_starts(&events);
        let want: Vec<(String, String)> =
            titles.iter().zip(want).map(|(t, s)| ((*t).to_owned(), s.to_owned())).collect();
        assert_eq!(got, want, "{lang}");
        if lang == "de-DE" {
            assert_eq!(events[2].status, gleaner_event::EventStatus::Cancelled);
        }
    }
}

/// Issue 24, batches 90–189: a page read as one date-only event titled by its `<h1>`
/// while two or more of its `<h2>` sections give dates of their own (an observatory's
/// nights, a museum's exhibitions) took one section's date for the page: no event.
#[test]
fn one_date_for_a_page_of_dated_sections_is_no_event() {
    let cases = [
        (
            "tr",
            "Halk Gözlem Geceleri",
            ["Satürn ve Ay Gecesi", "Perseid Gözlemi"],
            [
                "<strong>Tarih:</strong> 16 Mayıs 2026 Cumartesi",
                "<strong>Tarih:</strong> 12 Ağustos 2026 Çarşamba",
            ],
        ),
        (
            "en-GB",
            "Exhibitions",
            ["Wool and Water", "Stone Words"],
            ["14 March – 1 November 2026", "17 January – 26 April 2026"],
        ),
    ];
    for (lang, h1, titles, dates) in cases {
        let sections: String = titles
            .iter()
            .zip(dates)
            .map(|(t, d)| format!(r#"<section class="gece"><h2>{t}</h2><p>Gözlem ve sunum, yaklaşık elli dakika sürer.</p><p>{d}</p></section>"#))
            .collect();
        let page = format!(
            r#"<html lang="{lang}"><body><main><h1>{h1}</h1>{sections}</main></body></html>"#
        );
        let events = read(&page);
        assert!(events.iter().all(|e| e.title.as_deref() != Some(h1)), "{lang}: {events:#?}");
    }
}

/// Issue 24, batch 170–189: a title cell whose first line is struck out above an italic
/// status note (`<s>Música celta: <strong>Os Trasnos</strong></s><br><em>SUSPENDIDO por
/// …</em>`) is titled by that line; the note is its status, not its place.
#[test]
fn a_struck_title_line_above_a_status_note_titles_its_row() {
    let row = |day: &str, cell: &str| {
        format!("<tr><td>{day}</td><td>{cell}</td><td>Salida 20.30 h</td></tr>")
    };
    let page = format!(
        r#"<html lang="es"><body><main><h1>Conciertos a bordo</h1><table><thead><tr><th>Fecha</th><th>Concierto</th><th>Horario</th></tr></thead><tbody>{}{}{}</tbody></table></main></body></html>"#,
        row("Viernes 3 de julio", "Noche de boleros: Trío Las Salinas"),
        row(
            "Viernes 24 de julio",
            "<s>Música celta: <strong>Os Trasnos</strong></s><br><em>SUSPENDIDO por previsión de fuerte levante. Se devolverá el importe.</em>"
        ),
        row("Viernes 7 de agosto", "Clásicos en cubierta: Cuarteto Gades"),
    );
    let events = read(&page);
    let celta = events.iter().find(|e| iso(e.start).starts_with("2026-07-24"));
    let celta = celta.unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(celta.title.as_deref(), Some("Música celta: Os Trasnos"));
    assert_eq!(celta.status, gleaner_event::EventStatus::Cancelled);
    assert_eq!(celta.venue.name, None);
}

/// A list item's one paragraph that breaks its date line from its prose (`<p><strong>
/// Freitag, 6. März, ab 19 Uhr</strong><br>Wienerlied …</p>`): the prose line is the
/// description; a line opening with a short sentence (`Sala 2. Entrada libre.`) is
/// practical, not prose.
#[test]
fn a_paragraphs_prose_line_after_its_date_line_is_the_description() {
    let item = |day: &str, title: &str, line: &str| {
        format!("<li><h3>{title}</h3><p><strong>{day}, ab 19 Uhr</strong><br>{line}</p></li>")
    };
    let page = format!(
        "<html lang=\"de\"><body><h1>Termine 2026</h1><ul class=\"termine\">{}{}{}</ul></body></html>",
        item(
            "Freitag, 6. März 2026",
            "Heurigenabend",
            "Wienerlied und Weinviertler Tanzl mit Geige, Kontragitarre und Knöpferlharmonika."
        ),
        item(
            "Samstag, 14. März 2026",
            "Weintaufe",
            "Saal 2. Eintritt frei, um Reservierung wird gebeten."
        ),
        item(
            "Freitag, 20. März 2026",
            "Kellergassenfest",
            "Zwölf Winzerinnen und Winzer öffnen ihre Keller für alle Gäste."
        ),
    );
    let events = read(&page);
    let described: Vec<(Option<&str>, Option<&str>)> =
        events.iter().map(|e| (e.title.as_deref(), e.description.as_deref())).collect();
    assert_eq!(
        described,
        [
            (
                Some("Heurigenabend"),
                Some(
                    "Wienerlied und Weinviertler Tanzl mit Geige, Kontragitarre und Knöpferlharmonika."
                )
            ),
            (Some("Weintaufe"), None),
            (
                Some("Kellergassenfest"),
                Some("Zwölf Winzerinnen und Winzer öffnen ihre Keller für alle Gäste.")
            ),
        ],
        "{events:#?}"
    );
}

/// A listing longer than the most items read (500) is read up to them, not skipped: the
/// page was then read as one event, titled by its `<h1>`, on its first card's day.
#[test]
fn a_very_long_listing_gives_its_first_items_not_one_event() {
    let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
    let months = ["mars", "avril", "mai", "juin", "juillet", "août", "septembre"];
    let cards: String = (0..560)
        .map(|i| {
            let d = day + chrono::Days::new(i / 3);
            let month = months[usize::try_from(chrono::Datelike::month(&d) - 3).unwrap()];
            format!(
                r#"<li class="event-card"><h3><a href="/agenda/evt-{i}">Concert {i}</a></h3><p class="date">{} {month} 2026 à 20h30</p></li>"#,
                chrono::Datelike::day(&d)
            )
        })
        .collect();
    let page = format!(
        r#"<html lang="fr"><body><h1>Agenda 2026</h1><ul class="agenda">{cards}</ul></body></html>"#
    );
    let events = read(&page);
    assert_eq!(events.len(), 500, "{:?}", events.first().map(|e| &e.title));
    assert_eq!(events[0].title.as_deref(), Some("Concert 0"));
    assert_eq!(iso(events[499].start), "2026-08-14T20:30:00");
}
