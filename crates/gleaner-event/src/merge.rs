//! One event, many sources (SPEC §2): when two readings are the same event, and what the
//! event is once every source's reading is merged.
//!
//! A [`Reading`] is one source's view of an event: the normalised facts, the document
//! they were read from and the [`Extractor`] that read them. [`same_event`] decides
//! whether a new reading belongs to an event already known through other readings;
//! [`merge`] folds every reading of one event into its facts, the most precise value of
//! each field winning, and says which reading gave each field. Both are pure, so every
//! store backend merges the same way.

use std::fmt;

use url::Url;

use crate::identity::fold;
use crate::model::{Category, Event, EventStatus, Price, Venue};
use crate::time::EventTime;

/// Which reader produced a reading (the extractor recorded in provenance).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Extractor {
    /// schema.org JSON-LD.
    JsonLd,
    /// schema.org microdata.
    Microdata,
    /// schema.org RDFa.
    Rdfa,
    /// hCalendar and h-event microformats.
    Microformats,
    /// An iCalendar file.
    ICalendar,
    /// An RSS or Atom feed.
    Feed,
    /// A JSON API through a field mapping.
    Api,
    /// Open-data records.
    OpenData,
    /// Site rules from config (CSS selectors).
    Rules,
    /// The generic reading of pages without structured data (low confidence).
    Fallback,
    /// The language model.
    LanguageModel,
}

impl Extractor {
    /// Every extractor, in the order of [`Extractor::code`]'s table.
    pub const ALL: [Extractor; 11] = [
        Extractor::JsonLd,
        Extractor::Microdata,
        Extractor::Rdfa,
        Extractor::Microformats,
        Extractor::ICalendar,
        Extractor::Feed,
        Extractor::Api,
        Extractor::OpenData,
        Extractor::Rules,
        Extractor::Fallback,
        Extractor::LanguageModel,
    ];

    /// The stable name, as stored and shown (`json-ld`, `ical`, `feed`, `api`, …).
    pub fn code(self) -> &'static str {
        match self {
            Extractor::JsonLd => "json-ld",
            Extractor::Microdata => "microdata",
            Extractor::Rdfa => "rdfa",
            Extractor::Microformats => "microformats",
            Extractor::ICalendar => "ical",
            Extractor::Feed => "feed",
            Extractor::Api => "api",
            Extractor::OpenData => "open-data",
            Extractor::Rules => "rules",
            Extractor::Fallback => "fallback",
            Extractor::LanguageModel => "llm",
        }
    }

    /// The extractor with this stable name.
    pub fn from_code(code: &str) -> Option<Extractor> {
        Extractor::ALL.into_iter().find(|e| e.code() == code)
    }

    /// Whether the reader reads a whole document of many events (a feed, a calendar, an
    /// API answer), so the document's address is not any one event's own page.
    pub fn reads_documents(self) -> bool {
        matches!(
            self,
            Extractor::ICalendar | Extractor::Feed | Extractor::Api | Extractor::OpenData
        )
    }
}

impl fmt::Display for Extractor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// One source's reading of an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The facts as that source gave them, normalised.
    pub event: Event,
    /// The configured source.
    pub source: Option<String>,
    /// The document they were read from.
    pub fetched_url: Url,
    /// The reader, when recorded (readings stored before it was are `None`).
    pub extractor: Option<Extractor>,
}

impl Reading {
    /// The event's own page: its URL, unless that is only the feed, calendar or API
    /// document it was read from (the pipeline links such events back to the document).
    pub fn own_url(&self) -> Option<&Url> {
        let url = self.event.url.as_ref()?;
        let document_default =
            *url == self.fetched_url && self.extractor.is_some_and(Extractor::reads_documents);
        (!document_default).then_some(url)
    }

    /// The host of the document (lower case).
    fn host(&self) -> Option<&str> {
        self.fetched_url.host_str()
    }
}

/// Whether two readings are the same event.
///
/// Never when their own pages or ticket addresses differ (two festival dates on one page
/// have the same page but different starts; two performances with different ticket
/// URLs are two events). Otherwise the same when they start at the same moment and
/// either have the same own page, or the same folded title at the same venue (a reading
/// without a venue name matches one with it only on the same site).
///
/// "The same moment": with offsets on both sides, the same instant (the API's UTC
/// instant equals the page's `+03:00` time); when one side is floating, the same local
/// date and time; date-only starts only equal date-only starts, or a timed start on the
/// same date when both have the same own page; two undated readings of one page are one
/// event only with the same title.
pub fn same_event(a: &Reading, b: &Reading) -> bool {
    if conflict(a, b) {
        return false;
    }
    let same_page = matches!((a.own_url(), b.own_url()), (Some(x), Some(y)) if x == y);
    if !same_moment(a.event.start.as_ref(), b.event.start.as_ref(), same_page) {
        return false;
    }
    let undated = a.event.start.is_none() && b.event.start.is_none();
    let title = same_title(&a.event, &b.event);
    (same_page && (title || !undated)) || (title && same_venue(a, b))
}

/// Whether the readings name different own pages or different ticket addresses.
pub fn conflict(a: &Reading, b: &Reading) -> bool {
    let differ = |x: Option<&Url>, y: Option<&Url>| matches!((x, y), (Some(x), Some(y)) if x != y);
    differ(a.own_url(), b.own_url())
        || differ(a.event.ticket_url.as_ref(), b.event.ticket_url.as_ref())
}

fn same_moment(a: Option<&EventTime>, b: Option<&EventTime>, same_page: bool) -> bool {
    use EventTime::{Date, Fixed, Floating};
    match (a, b) {
        (None, None) => same_page,
        (Some(Fixed(x)), Some(Fixed(y))) => x == y,
        (Some(Fixed(x)), Some(Floating(y))) | (Some(Floating(y)), Some(Fixed(x))) => {
            x.naive_local() == *y
        }
        (Some(Floating(x)), Some(Floating(y))) => x == y,
        (Some(Date(x)), Some(Date(y))) => x == y,
        (Some(Date(d)), Some(t)) | (Some(t), Some(Date(d))) => same_page && t.date() == *d,
        _ => false,
    }
}

fn same_title(a: &Event, b: &Event) -> bool {
    match (&a.title, &b.title) {
        (Some(x), Some(y)) => {
            let (x, y) = (fold(x), fold(y));
            !x.is_empty() && x == y
        }
        _ => false,
    }
}

fn same_venue(a: &Reading, b: &Reading) -> bool {
    match (&a.event.venue.name, &b.event.venue.name) {
        (Some(x), Some(y)) => fold(x) == fold(y),
        (None, None) => true,
        _ => a.host().is_some() && a.host() == b.host(),
    }
}

/// A field of an event, for saying which reading gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Field {
    /// The title.
    Title,
    /// The start.
    Start,
    /// The end.
    End,
    /// The start before a change.
    PreviousStart,
    /// The venue and its address.
    Venue,
    /// The price.
    Price,
    /// The ticket address.
    TicketUrl,
    /// The image.
    Image,
    /// The description.
    Description,
    /// The status.
    Status,
    /// In person or online.
    Attendance,
    /// The category.
    Category,
    /// The event's own page.
    Url,
}

impl Field {
    /// The field's name as the event page and the API show it.
    pub fn name(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Start => "start",
            Field::End => "end",
            Field::PreviousStart => "previous_start",
            Field::Venue => "venue",
            Field::Price => "price",
            Field::TicketUrl => "ticket_url",
            Field::Image => "image_url",
            Field::Description => "description",
            Field::Status => "status",
            Field::Attendance => "attendance",
            Field::Category => "category",
            Field::Url => "url",
        }
    }
}

/// Every reading of one event merged.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The event's facts.
    pub event: Event,
    /// Which reading (an index into the slice given to [`merge`]) gave each field that
    /// has a value, in [`Field`] order.
    pub from: Vec<(Field, usize)>,
    /// The index of the reading that leads (its source and site name the event).
    pub lead: usize,
}

impl Merged {
    /// The fields reading `index` gave.
    pub fn fields_of(&self, index: usize) -> impl Iterator<Item = Field> + '_ {
        self.from.iter().filter(move |(_, i)| *i == index).map(|(f, _)| *f)
    }
}

/// Merges every reading of one event; `None` for no readings.
///
/// Readings are ranked first — the event's own page first, then by extractor (page
/// structured data, calendars, feeds, APIs, rules, the fallback, the model, unrecorded),
/// then by document address, so the result does not depend on the order they came in —
/// and for each field the most precise value wins, the higher-ranked reading on a tie:
/// a time with an offset over a floating one over a date; the venue with the most
/// address parts; a price range over a single price over "free or not" over none; a
/// status a source stated over none (and a change such as "cancelled" over
/// "scheduled"; "gone at source" over all: the page is gone); a longer description
/// when the shorter is its prefix; any title, page, ticket address, image, attendance
/// and category over none.
pub fn merge(readings: &[Reading]) -> Option<Merged> {
    let mut order: Vec<usize> = (0..readings.len()).collect();
    order.sort_by(|&x, &y| rank(&readings[x]).cmp(&rank(&readings[y])));
    let lead = *order.first()?;
    let mut from = Vec::new();
    let ranked = || order.iter().map(|&i| (i, &readings[i].event));

    let mut pick = |field: Field, score: &dyn Fn(&Event) -> u8| -> Option<usize> {
        let mut best: Option<(usize, u8)> = None;
        for (i, e) in ranked() {
            let s = score(e);
            if s > 0 && best.is_none_or(|(_, b)| s > b) {
                best = Some((i, s));
            }
        }
        let chosen = best.map(|(i, _)| i);
        if let Some(i) = chosen {
            from.push((field, i));
        }
        chosen
    };
    let present = |o: bool| u8::from(o);
    let title = pick(Field::Title, &|e| present(e.title.is_some()));
    let start = pick(Field::Start, &|e| time_precision(e.start.as_ref()));
    let end = pick(Field::End, &|e| time_precision(e.end.as_ref()));
    let previous = pick(Field::PreviousStart, &|e| time_precision(e.previous_start.as_ref()));
    let venue = pick(Field::Venue, &|e| venue_parts(&e.venue));
    let price = pick(Field::Price, &|e| price_precision(&e.price));
    let ticket = pick(Field::TicketUrl, &|e| present(e.ticket_url.is_some()));
    let image = pick(Field::Image, &|e| present(e.image_url.is_some()));
    let status = pick(Field::Status, &|e| status_precision(e));
    let attendance = pick(Field::Attendance, &|e| present(e.attendance.is_some()));
    let category = pick(Field::Category, &|e| present(e.category != Category::Other));
    let url = {
        let own = order.iter().copied().find(|&i| readings[i].own_url().is_some());
        let any = order.iter().copied().find(|&i| readings[i].event.url.is_some());
        let chosen = own.or(any);
        if let Some(i) = chosen {
            from.push((Field::Url, i));
        }
        chosen
    };
    let description = longest_description(readings, &order);
    if let Some(i) = description {
        from.push((Field::Description, i));
    }
    from.sort();

    let get = |i: Option<usize>| i.map(|i| &readings[i].event);
    let base = &readings[lead].event;
    let mut venue_value = get(venue).map_or_else(|| base.venue.clone(), |e| e.venue.clone());
    fill_venue(&mut venue_value, readings, &order);
    let (status_value, stated) =
        get(status).map_or((base.status, base.status_stated), |e| (e.status, e.status_stated));
    let event = Event {
        title: get(title).and_then(|e| e.title.clone()),
        start: get(start).and_then(|e| e.start),
        end: get(end).and_then(|e| e.end),
        previous_start: get(previous).and_then(|e| e.previous_start),
        venue: venue_value,
        price: get(price).map_or_else(Price::default, |e| e.price.clone()),
        ticket_url: get(ticket).and_then(|e| e.ticket_url.clone()),
        image_url: get(image).and_then(|e| e.image_url.clone()),
        description: description.and_then(|i| readings[i].event.description.clone()),
        status: status_value,
        status_stated: stated,
        attendance: get(attendance).and_then(|e| e.attendance),
        category: get(category).map_or(Category::Other, |e| e.category),
        url: get(url).and_then(|e| e.url.clone()),
    };
    Some(Merged { event, from, lead })
}

/// Ranking of readings: own page first, then extractor, then address.
fn rank(r: &Reading) -> (bool, usize, &str) {
    let own_page = r.own_url().is_some_and(|u| *u == r.fetched_url);
    let extractor = r
        .extractor
        .and_then(|x| Extractor::ALL.iter().position(|e| *e == x))
        .unwrap_or(Extractor::ALL.len());
    (!own_page, extractor, r.fetched_url.as_str())
}

fn time_precision(t: Option<&EventTime>) -> u8 {
    match t {
        None => 0,
        Some(EventTime::Date(_)) => 1,
        Some(EventTime::Floating(_)) => 2,
        Some(EventTime::Fixed(_)) => 3,
    }
}

fn venue_parts(v: &Venue) -> u8 {
    [&v.name, &v.street, &v.locality, &v.region, &v.postal_code, &v.country]
        .iter()
        .filter(|p| p.is_some())
        .count() as u8
}

/// Parts the chosen venue lacks, from other readings naming the same venue (or none).
fn fill_venue(v: &mut Venue, readings: &[Reading], order: &[usize]) {
    for &i in order {
        let o = &readings[i].event.venue;
        let same = match (&v.name, &o.name) {
            (Some(x), Some(y)) => fold(x) == fold(y),
            _ => true,
        };
        if !same {
            continue;
        }
        for (mine, theirs) in [
            (&mut v.name, &o.name),
            (&mut v.street, &o.street),
            (&mut v.locality, &o.locality),
            (&mut v.region, &o.region),
            (&mut v.postal_code, &o.postal_code),
            (&mut v.country, &o.country),
        ] {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        }
    }
}

fn price_precision(p: &Price) -> u8 {
    match (p.min, p.max, p.is_free) {
        (Some(min), Some(max), _) if min != max => 4,
        (Some(_), _, _) | (_, Some(_), _) => 3,
        (_, _, Some(true)) => 2,
        (_, _, Some(false)) => 1,
        _ => u8::from(p.currency.is_some()),
    }
}

fn status_precision(e: &Event) -> u8 {
    match (e.status, e.status_stated) {
        (EventStatus::GoneAtSource, _) => 4,
        (EventStatus::Scheduled, true) => 2,
        (_, true) => 3,
        (_, false) => 1,
    }
}

/// The highest-ranked description, or a longer one of which it is the beginning.
fn longest_description(readings: &[Reading], order: &[usize]) -> Option<usize> {
    let text = |i: usize| readings[i].event.description.as_deref();
    let mut best = order.iter().copied().find(|&i| text(i).is_some())?;
    for &i in order {
        if let (Some(t), Some(b)) = (text(i), text(best))
            && t.len() > b.len()
            && t.starts_with(b.trim_end_matches(['.', '…', ' ']))
        {
            best = i;
        }
    }
    Some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NormaliseContext, RawEvent, RawOffer, normalise};

    fn reading(raw: RawEvent, page: &str, extractor: Extractor) -> Reading {
        let base = Url::parse(page).unwrap();
        let event =
            normalise(&raw, &NormaliseContext { base_url: &base, default_tz: None }).unwrap().event;
        Reading { event, source: Some("s".into()), fetched_url: base, extractor: Some(extractor) }
    }

    fn raw(title: &str, start: &str, venue: Option<&str>, url: Option<&str>) -> RawEvent {
        RawEvent {
            name: Some(title.into()),
            start: Some(start.into()),
            location_name: venue.map(Into::into),
            url: url.map(Into::into),
            ..RawEvent::default()
        }
    }

    const PAGE: &str = "https://venue.example/events/jazz";
    const API: &str = "https://tickets.example/api?page=0";

    /// One line per case: (the page's reading, the other reading, same event?).
    fn check(cases: &[(&str, Reading, Reading, bool)]) {
        for (name, a, b, want) in cases {
            assert_eq!(same_event(a, b), *want, "{name}");
            assert_eq!(same_event(b, a), *want, "{name} (swapped)");
        }
    }

    #[test]
    fn spec_same_event_across_sources() {
        let page = || {
            reading(
                raw("Jazz Night", "2026-12-03T20:30:00+03:00", Some("Sahne"), Some(PAGE)),
                PAGE,
                Extractor::JsonLd,
            )
        };
        check(&[
            (
                "api utc instant equals the page's +03:00 time, same url",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T17:30:00Z", None, Some(PAGE)),
                    API,
                    Extractor::Api,
                ),
                true,
            ),
            (
                "same url, another title wording, same instant",
                page(),
                reading(
                    raw("JAZZ NIGHT (trio)", "2026-12-03T17:30:00Z", None, Some(PAGE)),
                    API,
                    Extractor::Api,
                ),
                true,
            ),
            (
                "no url: same venue, folded title and instant",
                page(),
                reading(
                    raw("jazz night!", "2026-12-03T18:30:00+01:00", Some("SAHNE"), None),
                    API,
                    Extractor::Feed,
                ),
                true,
            ),
            (
                "floating: same local date and time",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T20:30", Some("Sahne"), None),
                    "https://venue.example/",
                    Extractor::Microdata,
                ),
                true,
            ),
            (
                "floating: another local time",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T17:30", Some("Sahne"), None),
                    "https://venue.example/",
                    Extractor::Microdata,
                ),
                false,
            ),
            (
                "offsets on both sides: same wall clock, another instant",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T20:30:00+01:00", Some("Sahne"), None),
                    API,
                    Extractor::Api,
                ),
                false,
            ),
            (
                "another venue",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T17:30:00Z", Some("Other Hall"), None),
                    API,
                    Extractor::Api,
                ),
                false,
            ),
            (
                "no venue, another site",
                page(),
                reading(raw("Jazz Night", "2026-12-03T17:30:00Z", None, None), API, Extractor::Api),
                false,
            ),
            (
                "no venue, same site",
                page(),
                reading(
                    raw("Jazz Night", "2026-12-03T17:30:00Z", None, None),
                    "https://venue.example/feed.xml",
                    Extractor::Feed,
                ),
                true,
            ),
            (
                "a feed item linked only to its feed is not a page of its own",
                page(),
                reading(
                    raw(
                        "Jazz Night",
                        "2026-12-03T20:30:00+03:00",
                        Some("Sahne"),
                        Some("https://venue.example/feed.xml"),
                    ),
                    "https://venue.example/feed.xml",
                    Extractor::Feed,
                ),
                true,
            ),
        ]);
    }

    #[test]
    fn spec_never_merge_different_ids() {
        let date = |d: &str| {
            reading(raw("Festival", d, Some("Park"), Some(PAGE)), PAGE, Extractor::JsonLd)
        };
        let ticket = |t: &str| {
            let mut r = raw("Hamlet", "2026-12-03T20:00:00+01:00", Some("Globe"), None);
            r.offers = vec![RawOffer { url: Some(t.into()), ..RawOffer::default() }];
            reading(r, "https://venue.example/", Extractor::Microdata)
        };
        check(&[
            (
                "two festival dates on one page",
                date("2026-07-01T18:00:00+02:00"),
                date("2026-07-02T18:00:00+02:00"),
                false,
            ),
            (
                "two undated things on one page",
                reading(
                    RawEvent {
                        name: Some("Workshop".into()),
                        url: Some(PAGE.into()),
                        ..RawEvent::default()
                    },
                    PAGE,
                    Extractor::JsonLd,
                ),
                reading(
                    RawEvent {
                        name: Some("Exhibition".into()),
                        url: Some(PAGE.into()),
                        ..RawEvent::default()
                    },
                    PAGE,
                    Extractor::JsonLd,
                ),
                false,
            ),
            (
                "two performances with different ticket urls",
                ticket("https://tickets.example/hamlet/1"),
                ticket("https://tickets.example/hamlet/2"),
                false,
            ),
            (
                "one performance, one ticket url",
                ticket("https://tickets.example/hamlet/1"),
                ticket("https://tickets.example/hamlet/1"),
                true,
            ),
            (
                "same title, venue and instant but another own page",
                reading(
                    raw("Jazz Night", "2026-12-03T20:30:00+03:00", Some("Sahne"), Some(PAGE)),
                    PAGE,
                    Extractor::JsonLd,
                ),
                reading(
                    raw(
                        "Jazz Night",
                        "2026-12-03T20:30:00+03:00",
                        Some("Sahne"),
                        Some("https://venue.example/events/jazz-2"),
                    ),
                    "https://venue.example/events/jazz-2",
                    Extractor::JsonLd,
                ),
                false,
            ),
        ]);
    }

    #[test]
    fn the_most_precise_value_of_each_field_wins() {
        let mut listing = raw("Jazz Night", "2026-12-03T20:30", Some("Sahne"), Some(PAGE));
        listing.description = Some("An evening of".into());
        listing.locality = Some("İstanbul".into());
        let listing = reading(listing, "https://venue.example/", Extractor::Microdata);
        let mut api = raw("Jazz Night", "2026-12-03T17:30:00Z", Some("Sahne"), Some(PAGE));
        api.street = Some("Moda Cd. 1".into());
        api.locality = Some("İstanbul".into());
        api.country = Some("TR".into());
        api.status = Some("EventCancelled".into());
        api.offers = vec![RawOffer {
            low_price: Some("100".into()),
            high_price: Some("250".into()),
            currency: Some("TRY".into()),
            ..RawOffer::default()
        }];
        api.description = Some("An evening of jazz with a trio.".into());
        let api = reading(api, API, Extractor::Api);
        let readings = [listing, api];
        let merged = merge(&readings).unwrap();
        let e = &merged.event;
        // The instant with its offset over the floating time; the full address over a
        // locality; the range over none; the stated status; the longer description.
        // (the API's UTC instant, shown on the venue's clock: TR has one zone all year)
        assert_eq!(e.start.unwrap().to_iso(), "2026-12-03T20:30:00+03:00");
        assert_eq!(e.venue.street.as_deref(), Some("Moda Cd. 1"));
        assert_eq!(e.venue.country.as_deref(), Some("TR"));
        assert_eq!(e.price.max.map(|d| d.to_string()).as_deref(), Some("250"));
        assert_eq!(e.status, EventStatus::Cancelled);
        assert!(e.status_stated);
        assert_eq!(e.description.as_deref(), Some("An evening of jazz with a trio."));
        let api_fields: Vec<_> = merged.fields_of(1).collect();
        assert!(api_fields.contains(&Field::Start) && api_fields.contains(&Field::Price));
        // Ties go to the higher-ranked reading whatever the order they came in.
        let swapped = [readings[1].clone(), readings[0].clone()];
        assert_eq!(merge(&swapped).unwrap().event, merged.event);
    }

    #[test]
    fn extractor_codes_round_trip() {
        for e in Extractor::ALL {
            assert_eq!(Extractor::from_code(e.code()), Some(e));
        }
    }
}
