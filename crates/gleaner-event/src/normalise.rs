//! `normalise`: from the strings an extractor found ([`RawEvent`]) to the facts gleaner
//! keeps ([`Event`]).
//!
//! Owns date-time and zone policy, price and currency reading, address splitting, status
//! mapping, URL resolution and clean-up, and the category choice. Finding the strings in a
//! page is `gleaner-extract`'s job.

use chrono_tz::Tz;
use rust_decimal::Decimal;
use url::Url;

use crate::address::{country_code, split_address};
use crate::model::{AttendanceMode, Category, Event, EventStatus, Price, Venue, last_segment};
use crate::price::{currency_code, parse_price};
use crate::raw::Markup;
use crate::raw::RawEvent;
use crate::text::{block_of, decoded_of, line_of};
use crate::time::{EventTime, parse_event_time};

/// What `normalise` needs to know about where the event was read.
#[derive(Debug, Clone)]
pub struct NormaliseContext<'a> {
    /// The page's URL: relative links are resolved against it.
    pub base_url: &'a Url,
    /// The source's zone, applied to local times the page gives without one. `None` keeps
    /// them floating (written without an offset).
    pub default_tz: Option<Tz>,
}

/// An [`Event`] and what was odd about its raw values.
#[derive(Debug, Clone)]
pub struct Normalised {
    /// The event.
    pub event: Event,
    /// Values that could not be read and were dropped.
    pub warnings: Vec<NormaliseWarning>,
}

/// A raw value that `normalise` could not read; the event is kept without it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NormaliseWarning {
    /// A date or date-time that is not ISO 8601, even leniently.
    #[error("unreadable {field} `{value}`")]
    BadDate {
        /// Which field (`startDate`, `endDate`, …).
        field: &'static str,
        /// The value as found.
        value: String,
    },
    /// An `eventStatus` that is not a schema.org status.
    #[error("unknown eventStatus `{0}`, treated as scheduled")]
    UnknownStatus(String),
    /// A price that has no number in it.
    #[error("unreadable price `{0}`")]
    BadPrice(String),
    /// A URL that does not resolve to http(s).
    #[error("unusable {field} `{value}`")]
    BadUrl {
        /// Which field (`url`, `image`, offer `url`).
        field: &'static str,
        /// The value as found.
        value: String,
    },
}

/// Why a raw event could not become an [`Event`] at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NormaliseError {
    /// Neither a title nor a start date: nothing anyone could list.
    #[error("event has neither a name nor a start date")]
    Empty,
}

/// Turns a raw event into an [`Event`].
///
/// Never panics; values it cannot read are dropped and reported as warnings.
pub fn normalise(raw: &RawEvent, ctx: &NormaliseContext<'_>) -> Result<Normalised, NormaliseError> {
    let mut warnings = Vec::new();
    let title = raw.name.as_deref().map(|t| clean_title(t, raw.markup)).filter(|t| !t.is_empty());
    let venue = venue(raw);
    let zone = event_zone(raw, &venue, ctx);
    let mut time = |field: &'static str, value: &Option<String>| -> Option<EventTime> {
        let v = value.as_deref()?.trim();
        if v.is_empty() {
            return None;
        }
        match parse_event_time(v) {
            Some(t) => Some(match zone {
                Some(zone) => in_zone(t, zone),
                None => t,
            }),
            None => {
                warnings.push(NormaliseWarning::BadDate { field, value: v.to_owned() });
                None
            }
        }
    };
    let start = time("startDate", &raw.start);
    // An end equal to the start is kept as written (issue 24): the page says it, and the
    // conventions report what a page says (an iCal `DTEND` equal to `DTSTART`, a one-day
    // event's date-only `endDate`).
    // An `endDate` of a time alone (`21:30`) ends on the start's day (the next day when
    // it is earlier than the start), in the start's zone.
    let end_time_of_day = raw.end.as_deref().and_then(crate::time::parse_time_of_day);
    let end = match (end_time_of_day, start) {
        (Some(t), Some(s)) => end_on_start_day(s, t),
        _ => time("endDate", &raw.end).map(|e| end_on_start_clock(start, e)),
    };
    let previous_start = time("previousStartDate", &raw.previous_start);
    if title.is_none() && start.is_none() {
        return Err(NormaliseError::Empty);
    }

    let attendance = raw.attendance_mode.as_deref().and_then(AttendanceMode::from_schema);
    let (price, ticket) = price(raw, venue.country.as_deref(), &mut warnings);
    let markup = raw.markup;
    let (status, status_stated) =
        match raw.status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => (EventStatus::Scheduled, false),
            Some(s) => match EventStatus::from_schema(s) {
                Some(st) => (st, true),
                None => {
                    warnings.push(NormaliseWarning::UnknownStatus(s.to_owned()));
                    (EventStatus::Scheduled, false)
                }
            },
        };
    let mut url_of = |field: &'static str, v: &Option<String>| -> Option<Url> {
        let v = v.as_deref()?.trim();
        if v.is_empty() {
            return None;
        }
        let resolved = resolve_url(ctx.base_url, v, markup);
        if resolved.is_none() {
            warnings.push(NormaliseWarning::BadUrl { field, value: v.to_owned() });
        }
        resolved
    };
    // The event's own `url`, else its `@id` when that names a page of the page's own site
    // (an `@id` elsewhere is only a name; issue 24).
    let url = url_of("url", &raw.url).or_else(|| id_url(ctx.base_url, raw.id.as_deref()?));
    // Some plugins fill `image` with the event's own page when there is no picture.
    let image_url = url_of("image", &raw.image).filter(|i| Some(i) != url.as_ref());
    let ticket_url = url_of("offer url", &ticket);
    let description =
        raw.description.as_deref().map(|d| block_of(d, markup)).filter(|d| !d.is_empty());
    let category = category(raw, title.as_deref());

    Ok(Normalised {
        event: Event {
            title,
            start,
            end,
            previous_start,
            venue,
            price,
            ticket_url,
            image_url,
            description,
            status,
            status_stated,
            attendance,
            category,
            url,
        },
        warnings,
    })
}

/// The zone of the event's local times (issue 24): the zone the page states, else the
/// source's configured zone, else the one zone of the venue's country. `None` keeps local
/// times floating: UTC is never invented.
fn event_zone(raw: &RawEvent, venue: &Venue, ctx: &NormaliseContext<'_>) -> Option<Tz> {
    raw.zone.as_deref().and_then(crate::zone::stated_zone).or(ctx.default_tz).or_else(|| {
        let country = venue.country.as_deref()?;
        let parts: Vec<&str> = [&venue.locality, &venue.region, &venue.street, &venue.name]
            .into_iter()
            .filter_map(|p| p.as_deref())
            .collect();
        crate::zone::country_zone(country, &parts)
    })
}

/// A time in the event's zone: a floating time gets the zone's offset; a UTC instant (as
/// APIs give them) is shown on the venue's clock; a date, or a time the page gave with an
/// offset of its own, is kept as written.
/// The end at time of day `t` after `start`: the same day, or the next when `t` is
/// earlier; `None` for a date-only start.
fn end_on_start_day(start: EventTime, t: chrono::NaiveTime) -> Option<EventTime> {
    use chrono::TimeZone;
    let next_day =
        |d: chrono::NaiveDate, earlier: bool| if earlier { d.succ_opt() } else { Some(d) };
    match start {
        EventTime::Date(_) => None,
        EventTime::Floating(s) => {
            Some(EventTime::Floating(next_day(s.date(), t < s.time())?.and_time(t)))
        }
        EventTime::Fixed(s) => {
            let local = next_day(s.date_naive(), t < s.time())?.and_time(t);
            Some(EventTime::Fixed(s.offset().from_local_datetime(&local).single()?))
        }
    }
}

/// An end the page wrote as a local date-time beside a start it gave an offset
/// (`2026-05-02T20:00-05:00` to `2026-05-02T23:00`; a value-class `dt-end` of a time that
/// took the start's date): the page wrote the offset once, and an end within a day of the
/// start is on the start's clock. A later end (a festival's last day, perhaps after a
/// clock change) stays as written.
fn end_on_start_clock(start: Option<EventTime>, end: EventTime) -> EventTime {
    use chrono::TimeZone;
    let (Some(EventTime::Fixed(s)), EventTime::Floating(e)) = (start, end) else { return end };
    match s.offset().from_local_datetime(&e).single() {
        Some(f) if f >= s && f - s <= chrono::Duration::hours(24) => EventTime::Fixed(f),
        _ => end,
    }
}

fn in_zone(t: EventTime, zone: Tz) -> EventTime {
    match t {
        EventTime::Fixed(dt) if dt.offset().local_minus_utc() == 0 => {
            EventTime::Fixed(dt.with_timezone(&zone).fixed_offset())
        }
        other => other.with_default_zone(zone),
    }
}

/// Cleans a title and drops an unbalanced quote left at either end by sloppy markup.
fn clean_title(raw: &str, markup: Markup) -> String {
    let mut t = line_of(raw, markup);
    if t.matches('"').count() % 2 == 1 {
        if t.ends_with('"') {
            if !closes_low_quote(&t) {
                t.pop();
            }
        } else if t.starts_with('"') {
            t.remove(0);
        }
        t = t.trim().to_owned();
    }
    t
}

/// Whether a title's final `"` closes a low opening quote left open before it
/// (`Kabarett: Sepp Hinterholzer – „Obacht!"`, `Konzert des Chors „Goldene Stimmen"`): German
/// typing pairs `„` with a straight `"`, so that quote is the title's own.
fn closes_low_quote(t: &str) -> bool {
    let Some(body) = t.strip_suffix('"') else { return false };
    body.rfind(['„', '‚']).is_some_and(|at| !body[at..].contains(['“', '‘', '"']))
}

fn non_empty(v: Option<&str>, markup: Markup) -> Option<String> {
    v.map(|v| line_of(v, markup)).filter(|s| !s.is_empty())
}

fn venue(raw: &RawEvent) -> Venue {
    let m = raw.markup;
    let mut v = Venue {
        street: non_empty(raw.street.as_deref(), m),
        locality: non_empty(raw.locality.as_deref(), m),
        region: non_empty(raw.region.as_deref(), m),
        postal_code: non_empty(raw.postal_code.as_deref(), m),
        country: raw.country.as_deref().and_then(|c| {
            let c = line_of(c, m);
            country_code(&c).or_else(|| {
                (c.len() == 2 && c.chars().all(|ch| ch.is_ascii_alphabetic()))
                    .then(|| c.to_ascii_uppercase())
            })
        }),
        name: None,
    };
    // A whole address written into `streetAddress` (`Castle Square, Wenbury SY8 2DL`, as
    // EventON and other plugins fill it): split when the tail says it is an address (a postal
    // code or a country after the town), else kept whole.
    if v.locality.is_none()
        && let Some(street) = v.street.as_deref().filter(|s| s.contains(','))
    {
        let parts = split_address(street);
        if parts.street.is_some()
            && parts.locality.is_some()
            && (parts.postal_code.is_some() || parts.country.is_some())
        {
            v.street = parts.street;
            v.locality = parts.locality;
            v.region = v.region.or(parts.region);
            v.postal_code = v.postal_code.or(parts.postal_code);
            v.country = v.country.or(parts.country);
        }
    }
    let mut address_texts: Vec<String> = Vec::new();
    if let Some(name) = raw.location_name.as_deref() {
        // A venue name that runs over several lines carries its address on the next ones.
        let block = block_of(name, m);
        let mut lines = block.lines();
        v.name = lines.next().map(str::to_owned);
        let rest: Vec<&str> = lines.collect();
        if !rest.is_empty() {
            address_texts.push(rest.join(", "));
        }
    }
    if let Some(a) = raw.address_text.as_deref() {
        address_texts.push(block_of(a, m).replace('\n', ", "));
    }
    let mut place_text = None;
    if let Some(text) = raw.location_text.as_deref() {
        let text = block_of(text, m).replace('\n', ", ");
        if text.contains(',') {
            place_text = Some(address_texts.len());
            address_texts.push(text);
        } else if v.name.is_none() && !text.is_empty() {
            v.name = Some(text);
        }
    }
    for (at, text) in address_texts.into_iter().enumerate() {
        let mut parts = split_address(&text);
        // A place written `Venue, District, City` (no number anywhere, no street word): what
        // is left before the town is the venue and its quarter, not a street.
        if v.name.is_none()
            && place_text == Some(at)
            && !text.chars().any(|c| c.is_ascii_digit())
            && let Some(rest) = parts.street.take()
        {
            // `Cour du Duché, place du Duché, Uzès`: a name, then a street named by its
            // street word, then the town.
            match rest.split(", ").collect::<Vec<_>>()[..] {
                [name, street] if names_a_street(street) && !names_a_street(name) => {
                    v.name = Some(name.to_owned());
                    parts.street = Some(street.to_owned());
                }
                _ if names_a_street(&rest) => parts.street = Some(rest),
                _ => v.name = rest.split(", ").next().map(str::to_owned),
            }
        }
        if v.name.is_none()
            && let Some((name, street)) = parts.street.as_deref().and_then(name_before_street)
        {
            v.name = Some(name);
            parts.street = Some(street);
        }
        v.street = v.street.or(parts.street);
        v.locality = v.locality.or(parts.locality);
        v.region = v.region.or(parts.region);
        v.postal_code = v.postal_code.or(parts.postal_code);
        v.country = v.country.or(parts.country);
    }
    v
}

/// Whether a text without a house number still names a street (`Main Street`,
/// `rue de la Paix`, `Calle Mayor`, `Bahariye Caddesi`).
pub(crate) fn names_a_street(text: &str) -> bool {
    const WORDS: [&str; 32] = [
        "street",
        "square",
        "place",
        "plaza",
        "st",
        "road",
        "rd",
        "avenue",
        "ave",
        "lane",
        "boulevard",
        "blvd",
        "way",
        "rue",
        "chemin",
        "bd",
        "quai",
        "calle",
        "avenida",
        "paseo",
        "carrer",
        "straße",
        "strasse",
        "str",
        "weg",
        "allee",
        "platz",
        "gasse",
        "cad",
        "caddesi",
        "sokak",
        "sk",
    ];
    let lower = text.to_lowercase();
    lower
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| WORDS.contains(&w) || w.ends_with("straße") || w.ends_with("strasse"))
}

/// A place's name written before its street in one address (`Kulturforum, Wandrahmstraße 1`,
/// `Tourist-Information, Rathaus, Am Markt 1`): the last part is a street with its house
/// number (`Am Markt 1`, `93 Lower Richmond Road`) and the one or two parts before it hold
/// no digit. A number alone after a comma (`Calle Eduardo Ibarra, 3`) or after a dash
/// (`Av. Borges de Medeiros, 1524 - Lagoa`) is the street's, so such addresses stay whole.
fn name_before_street(street: &str) -> Option<(String, String)> {
    let parts: Vec<&str> = street.split(", ").collect();
    let (last, before) = parts.split_last()?;
    if before.is_empty() || before.len() > 2 {
        return None;
    }
    let words: Vec<&str> = last.split_whitespace().collect();
    let number = |w: &str| {
        let digits = w.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        !digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit())
    };
    let wordy = |w: &&str| w.chars().filter(|c| c.is_alphabetic()).count() >= 3;
    let street_like = words.len() >= 2
        && !words.contains(&"-")
        && (number(words[words.len() - 1]) && words[..words.len() - 1].iter().any(wordy)
            || number(words[0])
                && words[1..].iter().all(|w| !number(w))
                && words[1..].iter().any(wordy));
    if !street_like || before.iter().any(|p| p.chars().any(|c| c.is_ascii_digit())) {
        return None;
    }
    Some((before.join(", "), (*last).to_owned()))
}

fn price(
    raw: &RawEvent,
    country: Option<&str>,
    warnings: &mut Vec<NormaliseWarning>,
) -> (Price, Option<String>) {
    let mut min: Option<Decimal> = None;
    let mut max: Option<Decimal> = None;
    let mut currency: Option<String> = None;
    let mut ticket: Option<String> = None;
    let mut all_zero = true;
    let mut any = false;
    for offer in &raw.offers {
        if ticket.is_none() {
            ticket = offer.url.clone().filter(|u| !u.trim().is_empty());
        }
        if currency.is_none() {
            currency = offer.currency.as_deref().and_then(|c| currency_code(c, country));
        }
        let mut read = |v: &Option<String>| -> Option<Decimal> {
            let text = v.as_deref()?.trim();
            if text.is_empty() {
                return None;
            }
            match parse_price(&decoded_of(text, raw.markup)) {
                Some(p) => {
                    if currency.is_none() {
                        currency = p.currency.and_then(|c| currency_code(c, country));
                    }
                    any = true;
                    all_zero &= p.amount.is_zero();
                    Some(p.amount)
                }
                None => {
                    warnings.push(NormaliseWarning::BadPrice(text.to_owned()));
                    None
                }
            }
        };
        let price = read(&offer.price);
        let low = read(&offer.low_price).or(price);
        let high = read(&offer.high_price).or(price);
        if let Some(l) = low {
            min = Some(min.map_or(l, |m| m.min(l)));
        }
        if let Some(h) = high {
            max = Some(max.map_or(h, |m| m.max(h)));
        }
    }
    let stated_free = raw.is_accessible_for_free.as_deref().and_then(|v| {
        match v
            .trim()
            .to_ascii_lowercase()
            .trim_start_matches("http://schema.org/")
            .trim_start_matches("https://schema.org/")
        {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        }
    });
    let is_free = stated_free.or((any && all_zero).then_some(true));
    // A currency is a price's unit: an offer that states one and no amount (`price=""`,
    // as EventON writes every offer) gives no price.
    let currency = currency.filter(|_| min.is_some() || max.is_some());
    (Price { min, max, currency, is_free }, ticket)
}

/// A node identifier as the event's page: an absolute http(s) URL on the page's site,
/// without its fragment (`https://site/e/1#event` names the event on `https://site/e/1`).
fn id_url(base: &Url, id: &str) -> Option<Url> {
    let mut url = Url::parse(id.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") || !same_site(base, &url) {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// Whether two URLs are on one site: the same host, a leading `www.` aside.
pub fn same_site(a: &Url, b: &Url) -> bool {
    fn host(u: &Url) -> Option<String> {
        let h = u.host_str()?.to_ascii_lowercase();
        Some(h.strip_prefix("www.").map(str::to_owned).unwrap_or(h))
    }
    host(a).is_some() && host(a) == host(b)
}

/// Resolves `value` against `base`, keeping only http(s) URLs and dropping tracking
/// parameters (`utm_*`).
fn resolve_url(base: &Url, value: &str, markup: Markup) -> Option<Url> {
    let decoded = decoded_of(value.trim(), markup);
    let mut url = base.join(&decoded).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    if url.query().is_some_and(|q| q.contains("utm_")) {
        let kept: Vec<(String, String)> = url
            .query_pairs()
            .filter(|(k, _)| !k.starts_with("utm_"))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    Some(url)
}

/// Picks one category from the schema type, then from keywords and the title.
fn category(raw: &RawEvent, title: Option<&str>) -> Category {
    for t in &raw.types {
        let c = match last_segment(t) {
            "MusicEvent" => Category::Concert,
            "TheaterEvent" | "DanceEvent" | "ComedyEvent" => Category::Theatre,
            "ExhibitionEvent" | "VisualArtsEvent" => Category::Exhibition,
            "Festival" => Category::Festival,
            "ChildrensEvent" => Category::Family,
            "ScreeningEvent" => Category::Film,
            "EducationEvent" | "BusinessEvent" | "LiteraryEvent" | "CourseInstance" => {
                Category::Talk
            }
            "SportsEvent" => Category::Sport,
            "SocialEvent" => Category::Nightlife,
            _ => continue,
        };
        return c;
    }
    // Whole words only, so `gig` does not match `gigantic` nor `play` `display`.
    let mut text = raw.keywords.join(" ");
    if let Some(t) = title {
        text.push(' ');
        text.push_str(t);
    }
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let padded = format!(" {} ", words.join(" "));
    const KEYWORDS: &[(&[&str], Category)] = &[
        (&["festival", "fest", "festivali", "festspiele"], Category::Festival),
        (
            &[
                "concert",
                "concerts",
                "konzert",
                "konser",
                "gig",
                "live music",
                "orchestra",
                "symphony",
                "recital",
            ],
            Category::Concert,
        ),
        (
            &["exhibition", "exhibit", "ausstellung", "exposition", "sergi", "gallery"],
            Category::Exhibition,
        ),
        (
            &[
                "theatre",
                "theater",
                "tiyatro",
                "théâtre",
                "opera",
                "ballet",
                "comedy",
                "play",
                "musical",
            ],
            Category::Theatre,
        ),
        (&["film", "films", "cinema", "movie", "screening", "kino", "sinema"], Category::Film),
        (
            &[
                "kids",
                "children",
                "family",
                "familie",
                "enfants",
                "çocuk",
                "story time",
                "storytime",
            ],
            Category::Family,
        ),
        (
            &[
                "talk",
                "lecture",
                "workshop",
                "meeting",
                "seminar",
                "conference",
                "vortrag",
                "committee",
            ],
            Category::Talk,
        ),
        (
            &["match", "game", "race", "marathon", "football", "basketball", "sport", "sports"],
            Category::Sport,
        ),
        (&["club", "party", "dj", "nightlife", "disco", "techno"], Category::Nightlife),
    ];
    for (keys, cat) in KEYWORDS {
        if keys.iter().any(|k| padded.contains(&format!(" {k} "))) {
            return *cat;
        }
    }
    Category::Other
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raw::RawOffer;

    fn ctx(base: &Url) -> NormaliseContext<'_> {
        NormaliseContext { base_url: base, default_tz: None }
    }

    #[test]
    fn titles_keep_a_straight_quote_closing_a_low_one() {
        for (raw, want) in [
            (
                "Kabarett: Sepp Hinterholzer – „Obacht!\"",
                "Kabarett: Sepp Hinterholzer – „Obacht!\"",
            ),
            ("Spendenlauf „Pfoten in Bewegung\"", "Spendenlauf „Pfoten in Bewegung\""),
            // Sloppy markup still loses its stray quote.
            ("Quiz Night\"", "Quiz Night"),
            ("\"Quiz Night", "Quiz Night"),
            ("Lauf „Pfoten“ am Samstag\"", "Lauf „Pfoten“ am Samstag"),
        ] {
            assert_eq!(clean_title(raw, Markup::Text), want, "{raw}");
        }
    }

    #[test]
    fn names_written_before_the_street() {
        let split = |s: &str| name_before_street(s);
        let pair = |a: &str, b: &str| Some((a.to_owned(), b.to_owned()));
        assert_eq!(split("Kulturforum, Wandrahmstraße 1"), pair("Kulturforum", "Wandrahmstraße 1"));
        assert_eq!(
            split("Tourist-Information, Rathaus, Am Markt 1"),
            pair("Tourist-Information, Rathaus", "Am Markt 1")
        );
        assert_eq!(
            split("The Half Moon, 93 Lower Richmond Road"),
            pair("The Half Moon", "93 Lower Richmond Road")
        );
        for whole in [
            "Calle Eduardo Ibarra, 3",
            "Av. Borges de Medeiros, 1524 - Lagoa",
            "Suite 200, 123 Main St",
            "Am Sande",
            "7 S. Broadway",
            "Plaza Julián Romea, s/n",
        ] {
            assert_eq!(split(whole), None, "{whole}");
        }
    }

    #[test]
    fn a_place_text_of_name_street_and_town() {
        let base = Url::parse("https://example.org/").unwrap();
        let venue = |text: &str| {
            let raw = RawEvent {
                name: Some("x".into()),
                location_text: Some(text.into()),
                ..Default::default()
            };
            let v = normalise(&raw, &ctx(&base)).unwrap().event.venue;
            [v.name, v.street, v.locality]
        };
        let o = |s: &str| Some(s.to_owned());
        assert_eq!(
            venue("Cour du Duché, place du Duché, Uzès"),
            [o("Cour du Duché"), o("place du Duché"), o("Uzès")]
        );
        // No street word: the venue and its quarter, then the town.
        assert_eq!(venue("Jardin de l’Évêché, Uzès"), [o("Jardin de l’Évêché"), None, o("Uzès")]);
        assert_eq!(venue("Teatro Real, Centro, Madrid"), [o("Teatro Real"), None, o("Madrid")]);
    }

    #[test]
    fn a_whole_address_in_the_street_field() {
        let base = Url::parse("https://example.org/").unwrap();
        let venue = |street: &str| {
            let raw = RawEvent {
                name: Some("x".into()),
                street: Some(street.into()),
                ..Default::default()
            };
            let v = normalise(&raw, &ctx(&base)).unwrap().event.venue;
            [v.street, v.locality, v.postal_code, v.country]
        };
        let o = |s: &str| Some(s.to_owned());
        assert_eq!(
            venue("Castle Square, Wenbury SY8 2DL"),
            [o("Castle Square"), o("Wenbury"), o("SY8 2DL"), o("GB")]
        );
        assert_eq!(
            venue("Chemin du Port, 46330 Lascamps-sur-Lot"),
            [o("Chemin du Port"), o("Lascamps-sur-Lot"), o("46330"), None]
        );
        // Without a postal code or country the tail may be the street's own: kept whole.
        assert_eq!(
            venue("Calle Eduardo Ibarra, 3"),
            [o("Calle Eduardo Ibarra, 3"), None, None, None]
        );
        assert_eq!(
            venue("Suite 200, 123 Main St"),
            [o("Suite 200, 123 Main St"), None, None, None]
        );
    }

    #[test]
    fn a_currency_without_an_amount_is_no_price() {
        let base = Url::parse("https://example.org/").unwrap();
        let offer = |price: &str| RawEvent {
            name: Some("x".into()),
            offers: vec![RawOffer {
                price: Some(price.into()),
                currency: Some("EUR".into()),
                ..Default::default()
            }],
            ..Default::default()
        };
        let price = |p: &str| normalise(&offer(p), &ctx(&base)).unwrap().event.price;
        assert_eq!(price("").currency, None);
        assert_eq!(price("").min, None);
        assert_eq!(price("12").currency.as_deref(), Some("EUR"));
    }

    #[test]
    fn aggregate_offer_text_price() {
        let base = Url::parse("https://schema.org/Event").unwrap();
        let raw = RawEvent {
            name: Some(" Miami Heat at Philadelphia 76ers ".into()),
            start: Some("2016-04-21T20:00".into()),
            url: Some("nba.html?utm_source=x&a=1".into()),
            offers: vec![RawOffer { low_price: Some("$35".into()), ..Default::default() }],
            types: vec!["SportsEvent".into()],
            ..Default::default()
        };
        let n = normalise(&raw, &ctx(&base)).unwrap();
        assert!(n.warnings.is_empty());
        let e = n.event;
        assert_eq!(e.title.as_deref(), Some("Miami Heat at Philadelphia 76ers"));
        assert_eq!(e.price.min.map(|d| d.to_string()).as_deref(), Some("35"));
        assert_eq!(e.price.max, None);
        assert_eq!(e.price.currency.as_deref(), Some("USD"));
        assert_eq!(e.url.unwrap().as_str(), "https://schema.org/nba.html?a=1");
        assert_eq!(e.category, Category::Sport);
    }

    #[test]
    fn empty_is_an_error_and_bad_values_warn() {
        let base = Url::parse("https://example.org/").unwrap();
        assert_eq!(
            normalise(&RawEvent::default(), &ctx(&base)).unwrap_err(),
            NormaliseError::Empty
        );
        let raw = RawEvent {
            name: Some("x".into()),
            start: Some("soon".into()),
            status: Some("on-schedule".into()),
            url: Some("javascript:void(0)".into()),
            ..Default::default()
        };
        let n = normalise(&raw, &ctx(&base)).unwrap();
        assert_eq!(n.warnings.len(), 3);
        assert!(!n.event.status_stated);
    }

    #[test]
    fn default_zone_applies_to_floating_times_only() {
        let base = Url::parse("https://example.org/").unwrap();
        let raw = RawEvent {
            name: Some("x".into()),
            start: Some("2024-07-01T20:00".into()),
            end: Some("2024-07-02".into()),
            ..Default::default()
        };
        let c = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::Europe::Istanbul) };
        let e = normalise(&raw, &c).unwrap().event;
        assert_eq!(e.start.unwrap().to_iso(), "2024-07-01T20:00:00+03:00");
        assert_eq!(e.end.unwrap().to_iso(), "2024-07-02");
    }

    #[test]
    fn a_local_end_within_a_day_takes_the_start_offset() {
        let base = Url::parse("https://example.org/").unwrap();
        let end_of = |start: &str, end: &str| {
            let raw = RawEvent {
                name: Some("x".into()),
                start: Some(start.into()),
                end: Some(end.into()),
                ..Default::default()
            };
            normalise(&raw, &ctx(&base)).unwrap().event.end.unwrap().to_iso()
        };
        assert_eq!(
            end_of("2025-11-08T21:00-07:00", "2025-11-09T01:30"),
            "2025-11-09T01:30:00-07:00"
        );
        assert_eq!(end_of("2025-11-08T21:00Z", "2025-11-08T23:00:00"), "2025-11-08T23:00:00+00:00");
        // Beyond a day, or before the start, or both local: as written.
        assert_eq!(end_of("2025-11-08T21:00-07:00", "2025-11-12T18:00"), "2025-11-12T18:00:00");
        assert_eq!(end_of("2025-11-08T21:00-07:00", "2025-11-08T20:00"), "2025-11-08T20:00:00");
        assert_eq!(end_of("2025-11-08T21:00", "2025-11-08T23:00"), "2025-11-08T23:00:00");
        // An end with its own offset keeps it.
        assert_eq!(
            end_of("2025-11-08T21:00-07:00", "2025-11-08T23:00-08:00"),
            "2025-11-08T23:00:00-08:00"
        );
    }

    #[test]
    fn an_end_equal_to_the_start_is_kept_as_written() {
        // libical's and ical.js's test calendars: `DTEND` equal to `DTSTART`.
        let base = Url::parse("https://example.org/").unwrap();
        let raw = RawEvent {
            name: Some("x".into()),
            start: Some("2024-07-01T20:00:00Z".into()),
            end: Some("2024-07-01T20:00:00Z".into()),
            ..Default::default()
        };
        let e = normalise(&raw, &ctx(&base)).unwrap().event;
        assert_eq!(e.end.unwrap().to_iso(), "2024-07-01T20:00:00+00:00");
    }

    #[test]
    fn category_from_type_then_keywords() {
        let base = Url::parse("https://example.org/").unwrap();
        let cases: [(&[&str], &str, &[&str], Category); 8] = [
            (&["MusicEvent"], "Anything", &[], Category::Concert),
            (&["Event", "TheaterEvent"], "Hamlet", &[], Category::Theatre),
            (&["ScreeningEvent"], "Jaws", &[], Category::Film),
            (&["ChildrensEvent"], "Story time", &[], Category::Family),
            (&["Event"], "Summer Jazz Festival", &[], Category::Festival),
            (&["Event"], "Board of Directors meeting", &[], Category::Talk),
            (&["Event"], "Saturday", &["club", "techno"], Category::Nightlife),
            (&["Event"], "Open day", &[], Category::Other),
        ];
        for (types, title, keywords, want) in cases {
            let raw = RawEvent {
                types: types.iter().map(|t| (*t).to_owned()).collect(),
                name: Some(title.to_owned()),
                keywords: keywords.iter().map(|k| (*k).to_owned()).collect(),
                ..Default::default()
            };
            let got = normalise(&raw, &ctx(&base)).unwrap().event.category;
            assert_eq!(got, want, "{types:?} `{title}`");
        }
    }
}
