//! The generic fallback: a modest reading of event pages that have no structured data and
//! no site rules (issue 10).
//!
//! - title: the first `<h1>`, else `og:title`;
//! - dates: `<time datetime>` elements (one or two: a start and maybe an end; more mean a
//!   listing, read below), else the first date written in words near the title
//!   (`gleaner_event::datetext`), skipping "posted on" and "updated" lines;
//! - place: `<address>`, and blocks labelled Venue / Location / Where / Lieu / Ort / Mekan
//!   / Lugar (and Address / Adresse / Dirección / Adres);
//! - price: a block labelled Price / Tarif / Prix / Preis / Precio / Fiyat / Admission.
//!
//! When that reading finds no date, or more than two `<time>` dates, the page may be a
//! listing: `read_listing` looks for one repeated item structure (sibling rows, list
//! items, cards sharing a tag and first class) where most items carry their own date and
//! a title, and gives one event per such item (see there for its limits). An item with
//! only a time takes its day from the day heading above it (`<h3>Monday November 10</h3>`),
//! and a day cell (`Jue 9`) its month and year from the heading above its table
//! (`<h2>Abril 2026</h2>`); a field named `…location`/`…venue` gives an item's place.
//! Repeated sections that each hold a day heading and that day's items (a festival's
//! timetable by day) are one list. A link whose text is generic ("Match info", "Plus
//! d'infos", "Mehr") is never a title, only the item's link; a table row without a
//! heading or a naming link takes its title from the cell under a title-like column, else
//! its longest naming cell. A status word in an item (`POSTPONED`, `abgesagt`, `İPTAL`,
//! `SUSPENDIDO`) is its status, never part of its title; a date line that lists days
//! (`Vendredi 9 et samedi 10 octobre`) gives one event per day; a price the page labels
//! once outside the list prices the items that give none, and an introduction that says
//! every event is free (`Alle Veranstaltungen sind kostenlos`) makes them free. An item's
//! description is a block its class names, else its first paragraph of running text.
//!
//! A place the page states for all its events (`default_venue`), else the site's own
//! place its JSON-LD declares (`site_place`), else the site's own venue is a footer line, a contact block (`<h3>Kontakt</h3>` and its
//! `<br>` lines), or a footer part holding street and town, without a legal form
//! (`S.L.`, `e. V.`). A detail page without an `<address>` takes the one its Google Maps embed is titled
//! with, and without a sentence-like `<p>` the first paragraph of a `<br><br>` text block.
//!
//! It never invents: a field it cannot find stays empty, and a page without a date gives
//! no event; with a reference day (the crawl's today), neither does a page whose only
//! dates are past (a news item's publication date looks just like an event's date), nor a
//! page whose JSON-LD declares it a `NewsArticle` (the caller does not run it there) or
//! that is a signed article (`news_article`) unless its headed sections each give an
//! event's date and title (`sections`), nor a year-less date whose written weekday
//! is another day (`datetext`). What it finds is marked low confidence in the diagnostics.
//!
//! One module per shape: `detail` one event's page, `listing` and `item` lists of
//! items, `tables` tables and grids, `showtimes` a show's times by day, `programme` a
//! one-day programme by stage, `datelist` a show's dates under one start stated for all,
//! `sections` a post's headed sections as items, `segment` repeated records read by their
//! roles where the readings above find nothing (or one event on a record's day, or fewer
//! items), `days` day and month headings, `venue` the site's own venue, `zone` a stated time zone
//! (else the language tag's region's or the country domain's), `news` signed articles;
//! `price`, `roles` (a time labelled as doors or boarding gives way to the start; listed
//! times are one performance each) and `words` serve them all.

mod abstain;
pub(crate) mod booking;
mod br_lines;
mod cells;
mod datelist;
mod days;
mod default_venue;
mod detail;
mod dotted;
mod emoji_lines;
mod headings;
mod item;
mod listing;
mod marked_free;
mod moves;
mod news;
mod page_places;
mod page_price;
mod place_line;
mod po_box;
mod price;
mod programme;
mod prose;
mod roles;
pub(crate) mod room;
mod sections;
mod segment;
mod showtimes;
mod site_place;
mod styled_bold;
mod tables;
mod tariff;
mod time_led;
pub(crate) mod title_marks;
mod trailing;
mod venue;
mod weekly;
mod words;
mod zone;

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::Markup;
use gleaner_event::RawEvent;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::time::parse_event_time;
use scraper::{ElementRef, Html, Selector};

use crate::{Candidate, Diagnostic, Format, Severity};

use detail::{description, performances, place_and_price, written_date};
use listing::listing;
use news::news_article;
use venue::{is_municipal, site_country, site_town, site_venue};
use zone::stated_zone;

pub(crate) use item::{item_description, item_image};
pub(crate) use marked_free::{stated_free_over_marked_events, stated_price_over_marked_events};
pub(crate) use price::{booking_link, price_in_text, price_into, priceless};
pub(crate) use words::{is_status_badge, status_in};

/// A selector parsed from a constant, once per thread: the readers ask for the same few
/// dozen selectors per item, and parsing them again cost a page of thousands of items a
/// tenth of its time (a parsed selector's clone shares its parts).
fn sel(s: &str) -> Selector {
    thread_local! {
        static PARSED: std::cell::RefCell<std::collections::HashMap<String, Selector>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    PARSED.with(|parsed| {
        if let Some(found) = parsed.borrow().get(s) {
            return found.clone();
        }
        let selector = Selector::parse(s).expect("a constant selector parses");
        parsed.borrow_mut().insert(s.to_owned(), selector.clone());
        selector
    })
}

/// Reads a page's events (a listing's items, a show's performances, or one event);
/// pushes a diagnostic either way.
pub fn read(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    read_as(doc, reference, false, candidates, diagnostics);
}

/// Reads the events a page that declares itself news (`NewsArticle`) announces in its
/// prose paragraphs (`prose`), and nothing else: its other dates are the story's.
pub fn read_news(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    read_as(doc, reference, true, candidates, diagnostics);
}

/// [`read`], or with `news` [`read_news`]: the page's reading, then the places, prices
/// and zones its events take from the page.
fn read_as(
    doc: &Html,
    reference: Option<NaiveDate>,
    news: bool,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let first = candidates.len();
    // A description list's terms and their details are items: each `<dt>` and the `<dd>`s
    // after it are wrapped in one `<div>` and the page read again.
    let paired = dl_items(doc);
    let doc = paired.as_ref().unwrap_or(doc);
    // A span styled bold (`<span style="font-weight: 700">`, as site builders write) is bold.
    let bolded = styled_bold::styled_bold(doc);
    let doc = bolded.as_ref().unwrap_or(doc);
    // A paragraph of `<br>` lines each opened by its day is a list of its lines.
    let lined = br_lines::br_line_items(doc, reference, page_order(doc));
    let doc = lined.as_ref().unwrap_or(doc);
    let reading = if news {
        if news_listing(doc, reference, candidates, diagnostics)
            || prose_reading(doc, reference, candidates, diagnostics)
        {
            Reading::Items
        } else {
            Reading::Nothing
        }
    } else {
        read_page(doc, reference, candidates, diagnostics)
    };
    // Weak readings (a day heading, a listing's span, a bare teaser) are dropped before
    // anything is added to them.
    abstain::abstain(doc, reading, reference, first, candidates, diagnostics);
    // Repeated records the readings above left (nothing read, or nothing kept), or whose
    // one event took a record's date for the page's: one event per record when their
    // roles agree.
    if !news && segmented(doc, reading, reference, first, candidates, diagnostics) {
        abstain::abstain(doc, Reading::Items, reference, first, candidates, diagnostics);
    }
    // Titles without the badges, dashes and pictographs around them (`ABGESAGT – …`,
    // `… Ausgebucht`, `🐾 …`); a status badge states the event's status. Descriptions
    // without the page's notes.
    for c in candidates[first..].iter_mut() {
        if let Some(name) = c.raw.name.as_deref() {
            let marked = title_marks::unmarked(name);
            c.raw.name = Some(marked.title);
            if c.raw.status.is_none() {
                c.raw.status = marked.status.map(str::to_owned);
            }
        }
        // A note for all the page's events (`Sauf mention contraire, …`) describes none.
        if c.raw.description.as_deref().is_some_and(default_venue::states_default) {
            c.raw.description = None;
        }
    }
    // Dated items without a time take the one the page states for their weekday in a
    // sentence of its own (`Les concerts ont lieu les dimanches … à 15h`).
    if candidates.len() > first
        && let Some((weekday, time)) = prose::stated_weekly_time(doc)
    {
        use chrono::Datelike;
        for c in candidates[first..].iter_mut() {
            if let Some(EventTime::Date(day)) = c.raw.start.as_deref().and_then(parse_event_time)
                && day.weekday() == weekday
                && c.raw.end.is_none()
            {
                c.raw.start = Some(EventTime::Floating(day.and_time(time)).to_iso());
            }
        }
    }
    // Events without a price of their own cost what the page's tariff section says
    // (`<h2>Precios</h2>` and its table of seats).
    if candidates.len() > first
        && let Some(tariff) = tariff::page_tariff(doc.root_element())
    {
        for c in candidates[first..].iter_mut().filter(|c| priceless(&c.raw)) {
            price_into(&tariff, &mut c.raw);
        }
    }
    // Else what an introduction above their list says once for all, with a free tier
    // (`Socios: entrada gratuita. No socios: 10 €.`).
    if candidates[first..]
        .iter()
        .any(|c| c.raw.offers.is_empty() && c.raw.is_accessible_for_free.is_none())
        && let Some(price) = page_price::stated_page_price(doc.root_element())
    {
        for c in candidates[first..].iter_mut().filter(|c| priceless(&c.raw)) {
            price_into(&price, &mut c.raw);
        }
        // The introduction's booking link (`Billets … sur notre billetterie en ligne`)
        // books the priced events that have none of their own.
        if let Some(link) = page_price::stated_page_booking(doc.root_element()) {
            for c in candidates[first..].iter_mut().filter(|c| {
                c.raw.has_price()
                    && c.raw.is_accessible_for_free.as_deref() != Some("true")
                    && c.raw.offers.iter().all(|o| o.url.is_none())
            }) {
                c.raw.set_ticket_url(link.clone());
            }
        }
    }
    // Events with no price and no free entry of their own are free when a paragraph
    // heading their list says entry is free (`Accès gratuit.` above a carillon's dates).
    if candidates[first..].iter().any(|c| priceless(&c.raw))
        && page_price::stated_page_free(doc.root_element())
    {
        for c in candidates[first..].iter_mut().filter(|c| priceless(&c.raw)) {
            c.raw.is_accessible_for_free = Some("true".into());
        }
    }
    // Events with no place of their own are at the site's venue when the page's footer or
    // contact block gives one (a club's or theatre's own listing).
    let placeless = |r: &RawEvent| {
        r.location_name.is_none() && r.location_text.is_none() && r.address_text.is_none()
    };
    // A place the page states for all its events (`All our shows are at <strong>The Corn
    // Exchange</strong>, Market Street, Hexley unless stated otherwise`) is where those
    // that name none are, and gives its address to those that name it without one.
    if let Some((name, address)) = default_venue::stated_venue(doc.root_element()) {
        // Its name capitalised as a name (`au <b>stand de tir des Esserts</b>`).
        let mut chars = name.chars();
        let name: String =
            chars.next().into_iter().flat_map(char::to_uppercase).chain(chars).collect();
        for c in candidates[first..].iter_mut() {
            let r = &mut c.raw;
            if placeless(r) {
                r.location_name = Some(name.clone());
                r.address_text.clone_from(&address);
            } else if r.location_name.as_deref() == Some(name.as_str())
                && r.address_text.is_none()
                && r.location_text.is_none()
            {
                r.address_text.clone_from(&address);
            } else if r.address_text.is_none()
                && let Some(short) = r.location_text.as_deref().or(r.location_name.as_deref())
                && default_venue::shortens(short, &name)
            {
                // A list's short name for it (`Stand des Esserts`) is the stated place.
                r.location_name = Some(name.clone());
                r.location_text = None;
                r.address_text.clone_from(&address);
            }
        }
    }
    // A paragraph that is nothing but a place and its address (`Au Théâtre de la Grange,
    // rue du Moulin 14, 4190 Hanrez-sur-Ourthe.`) places the events that name none.
    if candidates[first..].iter().any(|c| placeless(&c.raw))
        && let Some((name, address)) = place_line::page_place(doc.root_element())
    {
        for c in candidates[first..].iter_mut().filter(|c| placeless(&c.raw)) {
            c.raw.location_name = Some(name.clone());
            c.raw.address_text = Some(address.clone());
        }
    }
    // The site's own place as its JSON-LD declares it (a `Restaurant`, a `MusicVenue`
    // with its `PostalAddress`) is where the events that name none are.
    // A body's (a town's, a radio station's) gives its town only, and its footer no venue.
    let mut body = false;
    if candidates[first..].iter().any(|c| placeless(&c.raw))
        && let Some(place) = site_place::site_place(doc)
    {
        body = place.body;
        for c in candidates[first..].iter_mut().filter(|c| placeless(&c.raw)) {
            place.place(&mut c.raw);
        }
    }
    // The site's own venue, from its footer or contact block: read once for the rules
    // below.
    let site = site_venue(doc.root_element());
    // A place the page states for all events by its name alone (`All special events
    // depart from <strong>Ashcombe Station</strong> unless shown otherwise`) is where
    // those that name none are: the site's own venue, with its address, when the site's
    // name or premises open with it.
    if let Some(stated) = default_venue::stated_name(doc.root_element()) {
        let fold = |s: &str| gleaner_event::datetext::fold_diacritics(s).to_lowercase();
        let opens = |name: &str| {
            fold(name)
                .strip_prefix(&fold(&stated))
                .is_some_and(|r| r.is_empty() || r.starts_with(' '))
        };
        // A site's venue that the stated name does not open (`Saal der Alten Mühle` on
        // the site of `Kulturverein Alte Mühle`) leaves it unsure: the rules below hold.
        let place = match &site {
            Some((name, address)) if opens(name) => Some((name.clone(), Some(address.clone()))),
            Some((_, address)) => venue::premises(address)
                .filter(|(place, _)| opens(place))
                .map(|(place, rest)| (place, Some(rest))),
            // Else a bold name on the page that opens with it (the site's name in a
            // block of its own).
            None => Some((venue::named_block(doc.root_element(), &stated).unwrap_or(stated), None)),
        };
        let unnamed = |r: &RawEvent| {
            r.location_name.is_none() && r.location_text.is_none() && r.address_text.is_none()
        };
        for c in candidates[first..].iter_mut().filter(|c| unnamed(&c.raw)) {
            let Some((name, address)) = &place else { break };
            c.raw.location_name = Some(name.clone());
            c.raw.address_text.clone_from(address);
        }
    }
    // A town hall's own address is not where its town's events are held: they are in
    // its town (the events with a bare place name, or none, take the town).
    // So is an office's (`Siège : …`, `Geschäftsstelle: …`): its events are held
    // elsewhere.
    // A body's premises opening its address (`Pfadi Waldegg · Pfadiheim Waldegg ·
    // Waldeggstrasse 40 · 8610 Uster`): the place its events are at unless they say.
    let premises = site
        .as_ref()
        .filter(|(name, _)| venue::is_body(name))
        .map(|(_, address)| venue::premises(address));
    if let Some((name, address)) = &site
        && (is_municipal(name) || venue::is_office(address) || matches!(premises, Some(None)))
    {
        if let Some((town, code)) = site_town(address) {
            let bare = |t: &Option<String>| {
                t.as_deref().is_none_or(|t| {
                    t.rsplit(',')
                        .next()
                        .is_some_and(|last| last.chars().any(|c| c.is_ascii_digit()))
                        || !t.contains(',')
                })
            };
            for c in candidates[first..].iter_mut().filter(|c| c.raw.locality.is_none()) {
                let r = &c.raw;
                if bare(&r.location_name) && bare(&r.location_text) && r.address_text.is_none() {
                    c.raw.locality = Some(town.clone());
                    c.raw.postal_code.get_or_insert_with(|| code.clone());
                }
            }
        }
    } else if let Some(town) = site.as_ref().and_then(|(_, a)| po_box::town_of_box_address(a))
        && !body
    {
        // A post-office box is where the site takes its mail: its events are in its town,
        // at no venue of the site's.
        let coded = po_box::coded_town(&town);
        for c in candidates[first..].iter_mut().filter(|c| placeless(&c.raw)) {
            match &coded {
                Some((locality, code)) => {
                    c.raw.locality = Some(locality.clone());
                    c.raw.postal_code = Some(code.clone());
                }
                None => c.raw.address_text = Some(town.clone()),
            }
        }
        // An event placed at a street without its town (a stated place for all events,
        // `220 N. Main Street`) is in the box's town.
        for c in candidates[first..].iter_mut() {
            let r = &mut c.raw;
            if r.locality.is_none()
                && let Some(street) = r.address_text.as_deref().filter(|a| !a.contains(','))
                && place_line::numbered_street(street)
            {
                r.address_text = Some(format!("{street}, {town}"));
            }
        }
    } else if let Some((name, address)) = &site
        && !body
        && candidates[first..].iter().any(|c| placeless(&c.raw))
    {
        // A body's name (a fire brigade, a railway, a radio station) is no venue: its
        // events take its address alone, whose first part may name its premises.
        let (name, address) = match &premises {
            Some(Some((place, rest))) => (place, rest),
            _ => (name, address),
        };
        for c in candidates[first..].iter_mut().filter(|c| placeless(&c.raw)) {
            c.raw.location_name = Some(name.clone());
            c.raw.address_text = Some(address.clone());
        }
    }
    // An event placed at the body's premises by name alone takes their address.
    if let Some(Some((place, rest))) = &premises {
        for c in candidates[first..].iter_mut().filter(|c| c.raw.address_text.is_none()) {
            let r = &mut c.raw;
            let named = [&r.location_name, &r.location_text]
                .iter()
                .any(|t| t.as_deref().is_some_and(|t| t.trim() == place));
            if named {
                r.location_name = Some(place.clone());
                r.location_text = None;
                r.address_text = Some(rest.clone());
            }
        }
    }
    // An event at a place named without an address, when that name opens the site's own
    // venue's (`The Laughing Pint` or `The Laughing Pint – Back Bar` on the site of `The
    // Laughing Pint Comedy Room`), is at the site's venue: its address is the footer's,
    // and a room named after a dash is not part of the venue.
    if let Some((site, address)) = &site {
        for c in candidates[first..].iter_mut() {
            if c.raw.address_text.is_some() || c.raw.location_text.is_some() {
                continue;
            }
            let Some(name) = c.raw.location_name.as_deref() else { continue };
            let place = name.split([' ', '\u{a0}']).collect::<Vec<_>>().join(" ");
            let place = place.split(" – ").next().and_then(|p| p.split(" - ").next());
            let Some(place) = place.map(str::trim).filter(|p| p.chars().count() >= 3) else {
                continue;
            };
            let opens = site
                .strip_prefix(place)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '));
            if opens {
                c.raw.location_name = Some(place.to_owned());
                c.raw.address_text = Some(address.clone());
            }
        }
    }
    // A place written `Name – address` (`Succursale des Saules – 45, rue des Saules`) is
    // that name at that address.
    for c in candidates[first..].iter_mut() {
        let r = &mut c.raw;
        if r.location_name.is_none()
            && r.address_text.is_none()
            && let Some((name, address)) =
                r.location_text.as_deref().and_then(place_line::dashed_place)
        {
            r.location_name = Some(name);
            r.address_text = Some(address);
            r.location_text = None;
        }
    }
    // An event placed by a name alone that the page gives an address elsewhere (a heading
    // or bold name over its address, `Name: address`) is at that address.
    if candidates[first..].iter().any(|c| c.raw.address_text.is_none()) {
        let places = page_places::page_places(doc.root_element());
        for c in candidates[first..].iter_mut() {
            page_places::place_at_page_address(&places, &mut c.raw);
        }
    }
    // Events with a place but no country are in the country of the site's own address when
    // its footer ends with one (`… · 09500 Medina de Pomar (Burgos) · España`) and the
    // event's place names none: a town hall lists its own town's fairs.
    if let Some(country) = site.as_ref().and_then(|(_, a)| site_country(a)) {
        for c in candidates[first..].iter_mut().filter(|c| c.raw.country.is_none()) {
            let texts = [&c.raw.location_name, &c.raw.location_text, &c.raw.address_text];
            let names_one = texts.iter().filter_map(|t| t.as_deref()).any(names_a_country);
            if !names_one {
                c.raw.country = Some(country.clone());
            }
        }
    }
    // Events with a place and still no country are in the country of the page's language
    // tag's region (`fr-BE`, `de-CH`, `es-AR`), as the labels read a local site: not
    // `en-US`, where an address is given a country only when it says one.
    // A place that names its own country (`Berlin, Deutschland` on a `de-CH` band's
    // tour list) keeps it.
    if let Some(country) = language_tag(doc).as_deref().and_then(tag_country) {
        for c in candidates[first..].iter_mut().filter(|c| c.raw.country.is_none()) {
            let r = &c.raw;
            let texts = [&r.location_name, &r.location_text, &r.address_text, &r.locality];
            let placed = texts.iter().any(|t| t.is_some());
            if placed && !texts.iter().filter_map(|t| t.as_deref()).any(names_a_country) {
                c.raw.country = Some(country.clone());
            }
        }
    }
    // A zone the page states ("all times Central", "hora peninsular", "TSİ") fixes the
    // offsets of the local times read; else the zone of its language tag's country
    // (`fr-BE`) or its address's country domain (`.tr`) fixes those of the events that
    // name no country of their own, when the two do not disagree.
    let stated = stated_zone(&text_of(doc.root_element()));
    if stated.is_none() {
        let (tag, url) = (language_tag(doc), canonical_url(doc));
        for c in candidates[first..].iter_mut().filter(|c| c.raw.country.is_none()) {
            let r = &c.raw;
            let places: Vec<&str> = [&r.location_name, &r.location_text, &r.address_text]
                .into_iter()
                .filter_map(|t| t.as_deref())
                .collect();
            let zones: Vec<chrono_tz::Tz> = [
                tag.as_deref().and_then(|t| zone::language_zone(t, &places)),
                url.as_deref().and_then(|u| zone::domain_zone(u, &places)),
            ]
            .into_iter()
            .flatten()
            .collect();
            for slot in [&mut c.raw.start, &mut c.raw.end] {
                let Some(t) = slot.as_deref().and_then(parse_event_time) else { continue };
                let mut fixed = zones.iter().map(|z| t.with_default_zone(*z));
                if let Some(first) = fixed.next()
                    && fixed.all(|f| f == first)
                {
                    *slot = Some(first.to_iso());
                }
            }
        }
    }
    if let Some(zone) = stated
        && candidates.len() > first
    {
        for c in &mut candidates[first..] {
            for slot in [&mut c.raw.start, &mut c.raw.end] {
                if let Some(t) = slot.as_deref().and_then(parse_event_time) {
                    *slot = Some(t.with_default_zone(zone).to_iso());
                }
            }
        }
        diagnostics.push(Diagnostic {
            severity: Severity::Info,
            format: Format::Fallback,
            message: format!("the page states its times' zone: read as `{zone}`"),
            location: String::new(),
        });
    }
}

/// Runs the record segmenter (`segment`) on the page, else on its headed sections, when
/// the page's reading gave no event, or one event on the day of one of the records (a
/// listing read as one event: its title the page's, its date the first record's); the
/// records' events then replace it, and `true` is returned (the abstention rules are run
/// on them again).
fn segmented(
    doc: &Html,
    reading: Reading,
    reference: Option<NaiveDate>,
    first: usize,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let read = candidates.len() - first;
    let one_day = match &candidates[first..] {
        [] => None,
        [one] if reading == Reading::OneEvent => {
            match one.raw.start.as_deref().and_then(parse_event_time) {
                Some(t) => Some(t.date()),
                None => return false,
            }
        }
        // A listing's items: replaced only by more records (below), which one group of
        // records cannot give past its most.
        _ if reading == Reading::Items && read >= segment::MAX_RECORDS => return false,
        _ if reading == Reading::Items => None,
        _ => return false,
    };
    let order = page_order(doc);
    let sectioned = sections::headed_sections(doc);
    // A signed article's records are its story's, unless they are headed sections.
    let news = news_article(doc, order).is_some();
    let found = (!news)
        .then(|| segment::segment(doc, reference, order))
        .flatten()
        .or_else(|| sectioned.as_ref().and_then(|s| segment::segment(s, reference, order)));
    let Some((what, mut events)) = found else { return false };
    if reading == Reading::Items && events.len() <= read {
        return false;
    }
    if let Some(day) = one_day
        && !events
            .iter()
            .any(|e| e.start.as_deref().and_then(parse_event_time).is_some_and(|t| t.date() == day))
    {
        return false;
    }
    if let Some(page_url) = canonical_url(doc) {
        for raw in events.iter_mut().filter(|r| r.url.is_none()) {
            raw.url = Some(page_url.clone());
        }
    }
    candidates.truncate(first);
    diagnostics.push(Diagnostic {
        severity: Severity::Info,
        format: Format::Fallback,
        message: format!(
            "low confidence: {} events read by the generic fallback from records ({what}; no structured data, no site rules)",
            events.len()
        ),
        location: String::new(),
    });
    for (i, raw) in events.into_iter().enumerate() {
        candidates.push(Candidate {
            format: Format::Fallback,
            location: format!("record {}", i + 1),
            raw,
        });
    }
    true
}

/// The page with each `<dl>` of three terms or more rewritten so that a `<dt>` and the
/// `<dd>`s after it sit in one `<div class="dl-item">` (a market list's name, then its
/// date, place and text); `None` when the page has no such list.
fn dl_items(doc: &Html) -> Option<Html> {
    let mut html = doc.html();
    let mut changed = false;
    for dl in doc.select(&sel("dl")).take(50) {
        let children: Vec<ElementRef<'_>> = dl.children().filter_map(ElementRef::wrap).collect();
        let terms = children.iter().filter(|c| c.value().name() == "dt").count();
        if terms < MIN_ITEMS || children.iter().any(|c| !matches!(c.value().name(), "dt" | "dd")) {
            continue;
        }
        let old = dl.html();
        let open = &old[..old.find('>')? + 1];
        let mut new = String::from(open);
        let mut in_item = false;
        for c in &children {
            if c.value().name() == "dt" {
                if in_item {
                    new.push_str("</div>");
                }
                new.push_str("<div class=\"dl-item\">");
                in_item = true;
            }
            new.push_str(&c.html());
        }
        if in_item {
            new.push_str("</div>");
        }
        new.push_str("</dl>");
        if let Some(at) = html.find(&old) {
            html.replace_range(at..at + old.len(), &new);
            changed = true;
        }
    }
    changed.then(|| Html::parse_document(&html))
}

/// The page's language tag (`<html lang="fr-BE">`).
fn language_tag(doc: &Html) -> Option<String> {
    doc.select(&sel("html[lang]"))
        .next()
        .and_then(|h| h.value().attr("lang"))
        .map(str::to_owned)
        .filter(|t| !t.trim().is_empty())
}

/// Whether a place's text names a country in one of its parts (`…, Berlin, Deutschland`,
/// `09002 Burgos (España)`).
fn names_a_country(text: &str) -> bool {
    text.split([',', '·', '|', '(', ')', '\n'])
        .any(|p| gleaner_event::country_code(p.trim()).is_some())
}

/// The country a language tag's region names (`fr-BE` → `BE`, `de-ch` → `CH`); `None`
/// without a two-letter region and for `US` (see [`read`]).
fn tag_country(tag: &str) -> Option<String> {
    crate::page::language_region(tag).filter(|r| r != "US")
}

/// The order the page's language writes dates in (`3/4` is 3 April in `fr`).
pub(super) fn page_order(doc: &Html) -> DateOrder {
    language_tag(doc).as_deref().map(DateOrder::for_language).unwrap_or_default()
}

/// What [`read_page`] made of a page: the shape its candidates came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// No event (no date, a news article, a past date, too many dates).
    Nothing,
    /// The page as one event's page: its one candidate.
    OneEvent,
    /// Items of a list: a listing's, a show's performances, a programme's acts, a
    /// show-times grid's times.
    Items,
}

fn read_page(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Reading {
    let note = |severity, message: String| Diagnostic {
        severity,
        format: Format::Fallback,
        message,
        location: String::new(),
    };
    let order = page_order(doc);
    // A news article (declared one, and signed) reports on events in running prose: its
    // dates are the story's, not events to attend.
    let news = news_article(doc, order);
    // A page that repeats one dated item structure is a listing, whatever its title says.
    if news.is_none() && listing(doc, reference, order, candidates, diagnostics) {
        return Reading::Items;
    }
    // A post of headed sections, each dated and titled by its own heading, announces
    // events, a news post too: its sections are read as a listing's items.
    if let Some(sectioned) = sections::headed_sections(doc)
        && listing(&sectioned, reference, order, candidates, diagnostics)
    {
        return Reading::Items;
    }
    if let Some(why) = news {
        if prose_reading(doc, reference, candidates, diagnostics) {
            return Reading::Items;
        }
        diagnostics.push(note(Severity::Info, format!("{why}: a news article; no event")));
        return Reading::Nothing;
    }
    let h1 = doc.select(&sel("h1")).find(|h| !text_of(*h).is_empty());
    let page_url = canonical_url(doc);
    // A show-times grid: one show's performances by day.
    if let Some(shows) = showtimes::showtimes(doc, reference, order) {
        let n = shows.len();
        for (i, mut raw) in shows.into_iter().enumerate() {
            raw.url.clone_from(&page_url);
            candidates.push(Candidate {
                format: Format::Fallback,
                location: format!("show time {}", i + 1),
                raw,
            });
        }
        diagnostics.push(note(
            Severity::Info,
            format!("low confidence: {n} performances read by the generic fallback from a show-times grid (no structured data, no site rules)"),
        ));
        return Reading::Items;
    }
    let title = h1.map(text_of).filter(|t| t.chars().count() <= 300).or_else(|| {
        doc.select(&sel("meta[property='og:title'], meta[name='og:title']"))
            .next()
            .and_then(|m| m.value().attr("content"))
            .map(collapse)
            .filter(|t| !t.is_empty())
    });
    // Dates from `<time datetime>`: one or two values (start, end), else ambiguous.
    let times = time_values(doc.root_element());
    if times.is_empty()
        && let Some(h1) = h1
    {
        let shows = performances(doc, h1, reference, order);
        if shows.len() >= 2 {
            let n = shows.len();
            let mut base = RawEvent {
                name: title.clone(),
                url: page_url.clone(),
                markup: Markup::Text,
                ..RawEvent::default()
            };
            place_and_price(doc.root_element(), &mut base);
            base.description = description(doc, h1, order);
            for (i, show) in shows.into_iter().enumerate() {
                if reference.is_some_and(|day| show.start.date() < day) {
                    continue;
                }
                let mut raw = base.clone();
                raw.start = Some(show.start.to_iso());
                raw.end = show.end.filter(|e| *e != show.start).map(|e| e.to_iso());
                raw.status = show.status.map(str::to_owned);
                if let Some(t) = show.tickets {
                    raw.set_ticket_url(t);
                }
                candidates.push(Candidate {
                    format: Format::Fallback,
                    location: format!("performance {}", i + 1),
                    raw,
                });
            }
            diagnostics.push(note(
                Severity::Info,
                format!("low confidence: {n} performances of one show read by the generic fallback (no structured data, no site rules)"),
            ));
            return Reading::Items;
        }
    }
    // A show's dates listed without times under its heading, one start stated for all
    // (`Beginn jeweils 20.30 Uhr`).
    let listed =
        if times.is_empty() { datelist::date_lists(doc, reference, order) } else { Vec::new() };
    if listed.len() >= MIN_ITEMS {
        let n = listed.len();
        for (i, raw) in listed.into_iter().enumerate() {
            candidates.push(Candidate {
                format: Format::Fallback,
                location: format!("listed date {}", i + 1),
                raw,
            });
        }
        diagnostics.push(note(
            Severity::Info,
            format!("low confidence: {n} performances read by the generic fallback from a show's dates and the one start stated for them (no structured data, no site rules)"),
        ));
        return Reading::Items;
    }
    // A one-day programme by stage: the page's one day, each act at its time.
    if times.is_empty()
        && let Some(h1) = h1
        && let Some(d) = written_date(doc, Some(h1), reference, order)
        && d.end.is_none_or(|e| e.date() <= d.start.date().succ_opt().unwrap_or(e.date()))
        && reference.is_none_or(|day| d.start.date() >= day)
        && let Some((acts, first)) = programme::programme(doc, h1, d.start.date(), order)
    {
        let n = acts.len();
        let free = programme::intro_says_free(doc, h1, first);
        let town = site_venue(doc.root_element()).and_then(|(_, a)| venue::site_town(&a));
        for (i, act) in acts.into_iter().enumerate() {
            let mut raw = act.raw;
            raw.url.clone_from(&page_url);
            if free {
                raw.is_accessible_for_free = Some("true".into());
            }
            if let Some((locality, postal)) = &town {
                raw.postal_code = Some(postal.clone());
                raw.locality = Some(locality.clone());
            }
            candidates.push(Candidate {
                format: Format::Fallback,
                location: format!("programme act {}", i + 1),
                raw,
            });
        }
        diagnostics.push(note(
            Severity::Info,
            format!("low confidence: {n} acts of a one-day programme read by the generic fallback (no structured data, no site rules)"),
        ));
        return Reading::Items;
    }
    let (start, end) = match times.len() {
        0 => match written_date(doc, h1, reference, order) {
            Some(d) => (Some(d.start), d.end),
            None => (None, None),
        },
        1 => (Some(times[0]), None),
        2 if times[1].date() >= times[0].date()
            && (times[1].date() - times[0].date()).num_days() <= 31 =>
        {
            (Some(times[0]), Some(times[1]))
        }
        n => {
            diagnostics.push(note(
                Severity::Info,
                format!("{n} different dates in `<time>` elements: a listing, not one event; no event (write site rules for it)"),
            ));
            return Reading::Nothing;
        }
    };
    let Some(start) = start else {
        if prose_reading(doc, reference, candidates, diagnostics) {
            return Reading::Items;
        }
        diagnostics.push(note(
            Severity::Info,
            "no structured data, no site rules and no date found: no event".to_owned(),
        ));
        return Reading::Nothing;
    };
    // With a reference day, a page whose only dates are past is more likely news (its
    // publication date) than an event still to come.
    if let Some(day) = reference
        && start.date() < day
        && end.is_none_or(|e| e.date() < day)
    {
        if prose_reading(doc, reference, candidates, diagnostics) {
            return Reading::Items;
        }
        diagnostics.push(note(
            Severity::Info,
            format!(
                "the only date found ({}) is past: a publication date? no event",
                start.to_iso()
            ),
        ));
        return Reading::Nothing;
    }
    let mut raw = RawEvent {
        name: title,
        start: Some(start.to_iso()),
        end: end.filter(|e| *e != start).map(|e| e.to_iso()),
        description: h1.and_then(|h| description(doc, h, order)),
        url: page_url,
        markup: Markup::Text,
        ..RawEvent::default()
    };
    place_and_price(doc.root_element(), &mut raw);
    diagnostics.push(note(
        Severity::Info,
        "low confidence: read by the generic fallback (no structured data, no site rules)"
            .to_owned(),
    ));
    candidates.push(Candidate { format: Format::Fallback, location: "page".into(), raw });
    Reading::OneEvent
}

/// Reads a page that declares itself news as a listing when its own lists give more
/// events than its prose does: its headed sections, each dated by its heading (a town's
/// film season, `<h3>Vendredi 6 mars – …</h3>`), or a programme under day headings
/// (`<h3>26 Haziran Cuma</h3>` and its `17.00 – …` items). Pushes them and returns `true`
/// when it does.
fn news_listing(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let order = page_order(doc);
    let (mut listed, mut notes) = (Vec::new(), Vec::new());
    let read = match sections::headed_sections(doc) {
        Some(sectioned) if listing(&sectioned, reference, order, &mut listed, &mut notes) => true,
        _ => listing(doc, reference, order, &mut listed, &mut notes),
    };
    let url = canonical_url(doc);
    if !read || prose::prose_events(doc, reference, order, url.as_deref()).len() >= listed.len() {
        return false;
    }
    candidates.extend(listed);
    diagnostics.extend(notes);
    true
}

/// Reads the events a post announces in its prose paragraphs (`prose`) into `candidates`;
/// `true` when it found any.
fn prose_reading(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) -> bool {
    let url = canonical_url(doc);
    let events = prose::prose_events(doc, reference, page_order(doc), url.as_deref());
    if events.is_empty() {
        return false;
    }
    let n = events.len();
    for (i, raw) in events.into_iter().enumerate() {
        candidates.push(Candidate {
            format: Format::Fallback,
            location: format!("announced in prose {}", i + 1),
            raw,
        });
    }
    diagnostics.push(Diagnostic {
        severity: Severity::Info,
        format: Format::Fallback,
        message: format!("low confidence: {n} events announced in the page's prose read by the generic fallback (no structured data, no site rules)"),
        location: String::new(),
    });
    true
}

/// The values of the `<time datetime>` elements under `root`, each once, in order. A
/// date-only value whose text is only a time of day is that day at that time
/// (`<time datetime="2026-10-10">8:30 PM</time>`, as Squarespace's event lists write a
/// start and an end beside `<time datetime="2026-10-10">samedi 10 octobre</time>`); a
/// bare day is then dropped when a time on that day is given.
fn time_values(root: ElementRef<'_>) -> Vec<EventTime> {
    let mut times = Vec::new();
    for t in root.select(&sel("time[datetime]")).take(200) {
        let Some(mut v) = t.value().attr("datetime").and_then(parse_event_time) else {
            continue;
        };
        if let EventTime::Date(day) = v {
            let text = text_of(t);
            if let Some((at, None)) = (text.chars().count() <= 20)
                .then(|| parse_text_time(&text))
                .flatten()
                .filter(|_| parse_text_date(&text, None, DateOrder::default()).is_none())
            {
                v = EventTime::Floating(day.and_time(at));
            }
        }
        if !times.contains(&v) {
            times.push(v);
        }
    }
    let timed: Vec<NaiveDate> =
        times.iter().filter(|t| !matches!(t, EventTime::Date(_))).map(EventTime::date).collect();
    times.retain(|t| !matches!(t, EventTime::Date(d) if timed.contains(d)));
    times
}

/// Whether `el` sits in the page's chrome (navigation, header, footer, sidebar).
fn in_chrome(el: ElementRef<'_>) -> bool {
    el.ancestors()
        .filter_map(ElementRef::wrap)
        .any(|a| matches!(a.value().name(), "nav" | "footer" | "aside" | "header"))
}

/// The texts of an element's smallest blocks (cells, spans, paragraphs), in order.
fn leaves(item: ElementRef<'_>) -> impl Iterator<Item = String> + '_ {
    let blocks = sel(BLOCKS);
    item.descendants()
        .filter_map(ElementRef::wrap)
        .filter(move |el| el.select(&blocks).all(|b| b.id() == el.id()))
        .map(text_of)
        .filter(|t| !t.is_empty() && t.len() <= 300)
}

/// An element's text, its white space collapsed.
fn text_of(el: ElementRef<'_>) -> String {
    collapse(&joined_texts(el.text()))
}

/// Text nodes joined by a space, except before one that opens with punctuation closing
/// the text before it (`<em>Les hivers de Maude</em>, de Julie Bérubé` → `Maude, de`,
/// not `Maude , de`): a page renders no space there.
fn joined_texts<'a>(texts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for t in texts {
        if !out.is_empty() && !t.starts_with([',', '.', ';', ')', '!', '?']) {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

/// Fewest items a listing must give (after past and duplicate items are dropped).
const MIN_ITEMS: usize = 3;

/// Fewest items a block of links to other events' pages must give ([`read_linked_block`]):
/// its links already say each item is an event of its own.
const MIN_LINKED_ITEMS: usize = 2;

thread_local! {
    /// The fewest items a listing must give in the reading under way: [`MIN_ITEMS`], or
    /// [`MIN_LINKED_ITEMS`] while [`read_linked_block`] reads.
    static LISTING_MIN: std::cell::Cell<usize> = const { std::cell::Cell::new(MIN_ITEMS) };
}

/// The fewest items a listing must give in the reading under way.
fn listing_min() -> usize {
    LISTING_MIN.get()
}

/// [`read`] of a small document made of a structured page's block of links to the site's
/// other events (a "more events" sidebar or widget): its list is a listing from two items.
pub(crate) fn read_linked_block(
    doc: &Html,
    reference: Option<NaiveDate>,
    candidates: &mut Vec<Candidate>,
) {
    /// Puts the usual floor back however the reading ends.
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            LISTING_MIN.set(MIN_ITEMS);
        }
    }
    LISTING_MIN.set(MIN_LINKED_ITEMS);
    let _restore = Restore;
    read(doc, reference, candidates, &mut Vec::new());
}

/// Block elements: a text unit of an item holds none of them.
const BLOCKS: &str =
    "div, p, li, td, th, tr, table, ul, ol, dl, section, article, h1, h2, h3, h4, h5, h6";

/// The page's own address: `<link rel=canonical>`, else `og:url`.
fn canonical_url(doc: &Html) -> Option<String> {
    doc.select(&sel("link[rel=canonical][href], meta[property='og:url'][content]"))
        .filter_map(|e| e.value().attr("href").or_else(|| e.value().attr("content")))
        .map(str::trim)
        .find(|u| u.starts_with("http://") || u.starts_with("https://"))
        .map(str::to_owned)
}

/// Whether an image is an icon rather than the event's picture: drawn smaller than 100
/// pixels either way (`width="37" height="43"`), or named an icon or logo by its file.
fn is_icon(img: ElementRef<'_>) -> bool {
    let small = ["width", "height"].iter().any(|a| {
        img.value().attr(a).and_then(|v| v.trim().parse::<u32>().ok()).is_some_and(|n| n < 100)
    });
    let file = img.value().attr("src").unwrap_or_default().to_ascii_lowercase();
    let file = file.split(['?', '#']).next().unwrap_or_default();
    let name = file.rsplit('/').next().unwrap_or_default();
    small || name.contains("icon") || name.contains("logo")
}

/// The titles and starts the fallback reads from a page, with 10 January 2031 as today:
/// what its readers' table tests compare.
#[cfg(test)]
pub(super) fn titles_and_starts(html: &str) -> Vec<(String, String)> {
    let doc = Html::parse_document(html);
    let mut out = Vec::new();
    read(&doc, NaiveDate::from_ymd_opt(2031, 1, 10), &mut out, &mut Vec::new());
    out.iter()
        .map(|c| (c.raw.name.clone().unwrap_or_default(), c.raw.start.clone().unwrap_or_default()))
        .collect()
}

#[cfg(test)]
mod news_tests {
    use chrono::NaiveDate;
    use scraper::Html;

    #[test]
    fn a_news_posts_dated_sections_are_its_events() {
        // Issue 24 (page 277): a post declared news, one `<h3>` per screening dated
        // beside its title; its prose announces none of them.
        let html = "<html lang=fr><body><article><h1>Le Ciné-village reprend</h1>\
            <h3>Vendredi 6 mars, 19 h 30 – Le temps des sucres</h3><p>Une comédie familiale tournée dans une érablière.</p>\
            <h3>Samedi 14 mars, 14 h – Les aventures de Ti-Loup</h3><p>Le film d'animation préféré des jeunes.</p>\
            <h3>Vendredi 10 avril, 19 h 30 – Les derniers draveurs</h3><p>Ce documentaire raconte la fin du flottage.</p>\
            </article></body></html>";
        let doc = Html::parse_document(html);
        let (mut candidates, mut notes) = (Vec::new(), Vec::new());
        super::read_news(&doc, NaiveDate::from_ymd_opt(2026, 2, 26), &mut candidates, &mut notes);
        let got: Vec<(Option<&str>, Option<&str>)> =
            candidates.iter().map(|c| (c.raw.name.as_deref(), c.raw.start.as_deref())).collect();
        assert_eq!(
            got,
            [
                (Some("Le temps des sucres"), Some("2026-03-06T19:30:00")),
                (Some("Les aventures de Ti-Loup"), Some("2026-03-14T14:00:00")),
                (Some("Les derniers draveurs"), Some("2026-04-10T19:30:00")),
            ]
        );
    }
}

#[cfg(test)]
mod tag_tests {
    use super::{names_a_country, tag_country};

    #[test]
    fn a_language_tags_country() {
        // Issue 24: a local site's events are in its language tag's country.
        assert_eq!(tag_country("fr-BE").as_deref(), Some("BE"));
        assert_eq!(tag_country("de-ch").as_deref(), Some("CH"));
        assert_eq!(tag_country("es_AR").as_deref(), Some("AR"));
        assert_eq!(tag_country("en-US"), None);
        assert_eq!(tag_country("de"), None);
        assert_eq!(tag_country("es-419"), None);
        assert!(names_a_country("Kulturbrauerei, Schönhauser Allee 36, Berlin, Deutschland"));
        assert!(!names_a_country("Mühlenweg 3, 37574 Einbeck"));
    }
}

#[cfg(test)]
mod text_tests {
    use scraper::Html;

    use super::{sel, text_of};

    #[test]
    fn inline_texts_join_without_a_space_before_closing_punctuation() {
        for (html, want) in [
            (
                "<h3>Lancement : <em>Les hivers de Maude</em>, de Julie Bérubé</h3>",
                "Lancement : Les hivers de Maude, de Julie Bérubé",
            ),
            ("<h3>Konzert (<b>Jazz</b>) im Hof</h3>", "Konzert ( Jazz) im Hof"),
            ("<h3><a>Quiz night</a>! Teams of six</h3>", "Quiz night! Teams of six"),
            ("<h3><b>Ort:</b>Stadthalle</h3>", "Ort: Stadthalle"),
            ("<h3><b>Kabarett</b> : <i>Obacht</i></h3>", "Kabarett : Obacht"),
        ] {
            let doc = Html::parse_fragment(html);
            let h3 = doc.select(&sel("h3")).next().expect("h3");
            assert_eq!(text_of(h3), want, "{html}");
        }
    }
}
