//! schema.org reading shared by every format: find Event nodes in a tree of JSON values and
//! read each into a [`RawEvent`].
//!
//! JSON-LD gives JSON directly; microdata and RDFa items are first turned into the same JSON
//! shape (`{"@type": [...], "prop": [values]}`), so one reader serves all three formats. This
//! module resolves `@id` references, `@graph`, arrays, `@type` arrays and Event subtypes;
//! locating the blocks in a page is the per-format modules' job.

use std::collections::HashMap;

use gleaner_event::{RawEvent, RawOffer};
use serde_json::{Map, Value};

/// schema.org `Event` and all its subtypes (schema.org 29: the full `Event` tree, with
/// `EventSeries`, the `PublicationEvent` pair and the `UserInteraction` family), plus the
/// pending and proposed `PerformingArtsEvent`, which pages write.
const EVENT_TYPES: &[&str] = &[
    "PerformingArtsEvent",
    "UserInteraction",
    "UserBlocks",
    "UserCheckins",
    "UserComments",
    "UserDownloads",
    "UserLikes",
    "UserPageVisits",
    "UserPlays",
    "UserPlusOnes",
    "UserTweets",
    "Event",
    "BusinessEvent",
    "ChildrensEvent",
    "ComedyEvent",
    "CourseInstance",
    "DanceEvent",
    "DeliveryEvent",
    "EducationEvent",
    "EventSeries",
    "ExhibitionEvent",
    "Festival",
    "FoodEvent",
    "Hackathon",
    "LiteraryEvent",
    "MusicEvent",
    "PublicationEvent",
    "BroadcastEvent",
    "OnDemandEvent",
    "SaleEvent",
    "ScreeningEvent",
    "SocialEvent",
    "SportsEvent",
    "TheaterEvent",
    "VisualArtsEvent",
];

/// Types whose `event` property lists events they perform in.
const PERFORMER_TYPES: &[&str] =
    &["MusicGroup", "PerformingGroup", "DanceGroup", "TheaterGroup", "Person", "Musician"];

/// Nodes nested deeper than this are not searched for events.
const MAX_WALK_DEPTH: usize = 64;

/// One event node read from a tree, with where it sat (a JSON-pointer-like path).
pub(crate) struct FoundEvent {
    pub raw: RawEvent,
    pub path: String,
}

/// Why a node that looked like an event was skipped.
pub(crate) struct Skipped {
    pub path: String,
    pub reason: String,
}

/// Finds every event node in `roots` and reads it.
pub(crate) fn find_events(roots: &[Value]) -> (Vec<FoundEvent>, Vec<Skipped>) {
    let mut index = HashMap::new();
    for r in roots {
        index_ids(r, &mut index, 0);
    }
    let mut w = Walker { index, found: Vec::new(), skipped: Vec::new() };
    for (i, r) in roots.iter().enumerate() {
        w.walk(r, None, &mut format!("/{i}"), 0);
    }
    (w.found, w.skipped)
}

fn index_ids<'a>(v: &'a Value, index: &mut HashMap<&'a str, &'a Value>, depth: usize) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            // Only nodes with content, not bare `{"@id": …}` references.
            if let Some(Value::String(id)) = m.get("@id")
                && m.len() > 1
            {
                index.entry(id.as_str()).or_insert(v);
            }
            for child in m.values() {
                index_ids(child, index, depth + 1);
            }
        }
        Value::Array(a) => a.iter().for_each(|c| index_ids(c, index, depth + 1)),
        _ => {}
    }
}

struct Walker<'a> {
    index: HashMap<&'a str, &'a Value>,
    found: Vec<FoundEvent>,
    skipped: Vec<Skipped>,
}

impl<'a> Walker<'a> {
    fn walk(
        &mut self,
        v: &'a Value,
        parent: Option<(&'a Map<String, Value>, &str)>,
        path: &mut String,
        depth: usize,
    ) {
        if depth > MAX_WALK_DEPTH {
            return;
        }
        match v {
            Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    self.walk(c, parent, path, depth + 1);
                    path.truncate(len);
                }
            }
            Value::Object(m) => {
                let types = types_of(m);
                if types.iter().any(|t| EVENT_TYPES.contains(&t.as_str())) {
                    self.event(m, types, parent, path);
                }
                for (k, c) in m {
                    if k == "@context" {
                        continue;
                    }
                    let len = path.len();
                    path.push('/');
                    path.push_str(k);
                    self.walk(c, Some((m, k)), path, depth + 1);
                    path.truncate(len);
                }
            }
            _ => {}
        }
    }

    fn event(
        &mut self,
        m: &'a Map<String, Value>,
        types: Vec<String>,
        parent: Option<(&'a Map<String, Value>, &str)>,
        path: &str,
    ) {
        let is_series = types.iter().all(|t| t == "EventSeries");
        if is_series && get(m, "startDate").is_none() {
            self.skipped.push(Skipped {
                path: path.to_owned(),
                reason: "EventSeries without a startDate is a grouping, not an event".to_owned(),
            });
            return;
        }
        if get(m, "startDate").is_none() && has_dated_sub_event(m) {
            self.skipped.push(Skipped {
                path: path.to_owned(),
                reason: "event without a startDate of its own: its sub-events are read instead"
                    .to_owned(),
            });
            return;
        }
        // `superEvent` names the festival or series an event is part of: without a date
        // of its own it is that reference, not another event of the page.
        if let Some((_, "superEvent")) = parent
            && get(m, "startDate").is_none()
        {
            self.skipped.push(Skipped {
                path: path.to_owned(),
                reason: "superEvent without a startDate names the series, not an event".to_owned(),
            });
            return;
        }
        let mut raw = self.read(m, types);
        // An event listed under a performer (`MusicGroup` → `event`) often names the venue
        // in `name` and gives the location as text: the performer is the title.
        if let Some((pm, prop)) = parent
            && matches!(prop, "event" | "events" | "performerIn")
            && types_of(pm).iter().any(|t| PERFORMER_TYPES.contains(&t.as_str()))
            && raw.location_name.is_none()
            && let Some(performer) = text(get(pm, "name"))
        {
            raw.location_name = raw.name.take();
            raw.name = Some(performer);
        }
        // One show with many performances: sub-events written inline under their show
        // inherit what they leave out (a sub-event linked by `@id` stands alone).
        if let Some((pm, prop)) = parent
            && matches!(prop, "subEvent" | "subEvents")
        {
            let pt = types_of(pm);
            if pt.iter().any(|t| EVENT_TYPES.contains(&t.as_str())) {
                inherit(&mut raw, self.read(pm, pt), false);
            }
        }
        // A `CourseInstance` under its `Course` (`hasCourseInstance`) is one run of that
        // course: the course's name, description, page and fee are the run's unless it
        // gives its own.
        if let Some((pm, "hasCourseInstance")) = parent {
            let course = self.read(pm, types_of(pm));
            let id = text(pm.get("@id"));
            inherit(&mut raw, course, true);
            if raw.url.is_none() && raw.id.is_none() {
                raw.id = id;
            }
        }
        // Several start dates on one node are several performances.
        let starts: Vec<String> =
            values(get(m, "startDate")).filter_map(|v| text(Some(v))).collect();
        if starts.len() > 1 {
            for (i, start) in starts.into_iter().enumerate() {
                let mut one = raw.clone();
                one.start = Some(start);
                one.end = None;
                self.found.push(FoundEvent { raw: one, path: format!("{path}/startDate/{i}") });
            }
            return;
        }
        // A show with no date of its own whose `eventSchedule` is a short, bounded run (every
        // schedule has an `endDate`, a few performances in all): one event per performance.
        if text(get(m, "startDate")).is_none()
            && let Some(runs) = schedule_run(m)
        {
            for (i, o) in runs.into_iter().enumerate() {
                let mut one = raw.clone();
                one.start = Some(o.start);
                one.end = o.end;
                one.zone = o.zone;
                self.found.push(FoundEvent { raw: one, path: format!("{path}/eventSchedule/{i}") });
            }
            return;
        }
        self.found.push(FoundEvent { raw, path: path.to_owned() });
    }

    /// Reads one event node's properties.
    fn read(&self, m: &'a Map<String, Value>, types: Vec<String>) -> RawEvent {
        let mut raw = RawEvent { types, ..RawEvent::default() };
        // `summary` is the name in the retired data-vocabulary.org Event.
        raw.name = text(get(m, "name")).or_else(|| text(get(m, "summary")));
        // A microdata or RDFa item that marks no description up: its unmarked paragraph.
        raw.description = text(get(m, "description"))
            .map(|d| unescape_twice_escaped(&d))
            .or_else(|| text(m.get("@paragraph")));
        raw.url = url_of(get(m, "url"));
        raw.id = text(m.get("@id"));
        // Yoast and Rank Math give the image as `{"@id": "…#primaryimage"}`, the
        // `ImageObject` written elsewhere in the graph.
        raw.image = values(get(m, "image")).find_map(|v| url_of(Some(self.resolve(v))));
        raw.start = text(get(m, "startDate"));
        raw.end = text(get(m, "endDate"));
        if raw.start.is_none()
            && let Some(first) = values(get(m, "eventSchedule"))
                .filter_map(Value::as_object)
                .find_map(schedule_first)
        {
            raw.start = Some(first.start);
            raw.end = raw.end.take().or(first.end);
            raw.zone = first.zone;
        }
        raw.previous_start = text(get(m, "previousStartDate"));
        raw.status = id_or_text(get(m, "eventStatus"));
        raw.attendance_mode = id_or_text(get(m, "eventAttendanceMode"));
        raw.is_accessible_for_free = text(get(m, "isAccessibleForFree"));
        for key in ["keywords", "genre"] {
            for k in values(get(m, key)) {
                if let Some(t) = text(Some(k)) {
                    raw.keywords.extend(
                        t.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()),
                    );
                }
            }
        }
        self.location(&mut raw, get(m, "location"));
        self.offers(&mut raw.offers, get(m, "offers"), 0);
        raw
    }

    /// Follows a bare `{"@id": …}` or string reference to the node it names.
    fn resolve(&self, v: &'a Value) -> &'a Value {
        match v {
            Value::Object(m) if m.len() == 1 => match m.get("@id") {
                Some(Value::String(id)) => self.index.get(id.as_str()).copied().unwrap_or(v),
                _ => v,
            },
            Value::String(s) => self.index.get(s.as_str()).copied().unwrap_or(v),
            _ => v,
        }
    }

    fn location(&self, raw: &mut RawEvent, v: Option<&'a Value>) {
        for loc in values(v) {
            let loc = self.resolve(loc);
            match loc {
                Value::Object(m) => {
                    let types = types_of(m);
                    if types.iter().any(|t| t == "VirtualLocation") {
                        raw.has_virtual_location = true;
                        continue;
                    }
                    if types.iter().any(|t| t == "PostalAddress") {
                        if raw.street.is_none() && raw.locality.is_none() {
                            read_postal(raw, m);
                        }
                        continue;
                    }
                    if raw.location_name.is_some()
                        || raw.street.is_some()
                        || raw.address_text.is_some()
                    {
                        continue;
                    }
                    // A town, region or country says where, but is no venue
                    // (schema.org `City`, `State`, `AdministrativeArea`, `Country`).
                    if types.iter().any(|t| {
                        matches!(t.as_str(), "City" | "State" | "AdministrativeArea" | "Country")
                    }) {
                        for a in values(get(m, "address")) {
                            if let Value::Object(am) = self.resolve(a) {
                                read_postal(raw, am);
                            }
                        }
                        let name = text(get(m, "name"));
                        if types.iter().any(|t| t == "Country") {
                            raw.country = raw.country.take().or(name);
                        } else if types.iter().any(|t| t == "City") {
                            raw.locality = raw.locality.take().or(name);
                        } else {
                            raw.region = raw.region.take().or(name);
                        }
                        continue;
                    }
                    // A room or hall without an address of its own, `containedInPlace` a
                    // building or campus that has one (`Audimax` on the `Hochschulcampus`):
                    // the event is at the building.
                    let m = match get(m, "address") {
                        None => self.container(m).unwrap_or(m),
                        Some(_) => m,
                    };
                    // A place with no name but a link whose text names it.
                    raw.location_name = text(get(m, "name")).or_else(|| text(m.get("@linktext")));
                    for a in values(get(m, "address")) {
                        match self.resolve(a) {
                            Value::Object(am) => read_postal(raw, am),
                            other => {
                                raw.address_text =
                                    raw.address_text.take().or_else(|| text(Some(other)))
                            }
                        }
                    }
                }
                other => {
                    let t = text(Some(other));
                    if t.as_deref().is_some_and(is_online) {
                        // "Online" is where it happens, not a venue.
                        raw.has_virtual_location = true;
                    } else if raw.location_text.is_none() {
                        raw.location_text = t;
                    }
                }
            }
        }
    }

    /// The place a place is `containedInPlace`, when that one has a name and an address
    /// (one step up: a room's building).
    fn container(&self, m: &'a Map<String, Value>) -> Option<&'a Map<String, Value>> {
        values(get(m, "containedInPlace")).find_map(|c| match self.resolve(c) {
            Value::Object(cm) if get(cm, "address").is_some() && get(cm, "name").is_some() => {
                Some(cm)
            }
            _ => None,
        })
    }

    fn offers(&self, out: &mut Vec<RawOffer>, v: Option<&'a Value>, depth: usize) {
        if depth > 3 {
            return;
        }
        for o in values(v) {
            match self.resolve(o) {
                Value::Object(m) => {
                    let mut offer = RawOffer {
                        price: text(get(m, "price")),
                        low_price: text(get(m, "lowPrice")),
                        high_price: text(get(m, "highPrice")),
                        currency: text(get(m, "priceCurrency")),
                        url: url_of(get(m, "url")),
                        availability: id_or_text(get(m, "availability")),
                    };
                    for spec in values(get(m, "priceSpecification")) {
                        if let Value::Object(s) = self.resolve(spec) {
                            offer.price = offer.price.or_else(|| text(get(s, "price")));
                            offer.low_price = offer.low_price.or_else(|| text(get(s, "minPrice")));
                            offer.high_price =
                                offer.high_price.or_else(|| text(get(s, "maxPrice")));
                            offer.currency =
                                offer.currency.or_else(|| text(get(s, "priceCurrency")));
                        }
                    }
                    split_price_range(&mut offer);
                    let nested = get(m, "offers");
                    let empty = offer == RawOffer::default();
                    if !empty {
                        out.push(offer);
                    }
                    if nested.is_some() {
                        self.offers(out, nested, depth + 1);
                    }
                }
                // A bare link (`<a itemprop="offers" href>`) is where to buy.
                other => {
                    if let Some(u) = text(Some(other)) {
                        out.push(RawOffer { url: Some(u), ..RawOffer::default() });
                    }
                }
            }
        }
    }
}

/// Fills what a performance leaves out from its show; `instance` when the event is one run
/// of the show (a course's instance), whose description holds whatever its name.
fn inherit(raw: &mut RawEvent, show: RawEvent, instance: bool) {
    fn fill(a: &mut Option<String>, b: Option<String>) {
        if a.is_none() {
            *a = b;
        }
    }
    // A sub-event with a name of its own (a festival's concert) is not a performance of
    // its show: the show's description and image are about the show, not about it.
    let own_name = match (raw.name.as_deref(), show.name.as_deref()) {
        (Some(a), Some(b)) => {
            gleaner_event::identity_parts::fold(a) != gleaner_event::identity_parts::fold(b)
        }
        _ => false,
    } && !instance;
    fill(&mut raw.name, show.name);
    if !own_name {
        fill(&mut raw.description, show.description);
        fill(&mut raw.image, show.image);
    }
    fill(&mut raw.url, show.url);
    let has_place = raw.location_name.is_some()
        || raw.location_text.is_some()
        || raw.address_text.is_some()
        || raw.street.is_some()
        || raw.locality.is_some();
    if !has_place {
        raw.location_name = show.location_name;
        raw.location_text = show.location_text;
        raw.address_text = show.address_text;
        raw.street = show.street;
        raw.locality = show.locality;
        raw.region = show.region;
        raw.postal_code = show.postal_code;
        raw.country = show.country;
        raw.has_virtual_location |= show.has_virtual_location;
    }
    if raw.offers.is_empty() {
        raw.offers = show.offers;
    } else if instance && !raw.has_price() {
        // The run's offer gives only its booking link; the fee is the course's.
        raw.offers.extend(show.offers.into_iter().filter(RawOffer::has_price));
    }
    if raw.types.iter().all(|t| t == "Event") {
        raw.types = show.types;
    }
}

/// Whether a location written as text says the event is online (five languages).
pub(crate) fn is_online(t: &str) -> bool {
    let t = t.trim().trim_end_matches('.').to_lowercase();
    matches!(
        t.as_str(),
        "online"
            | "online event"
            | "online only"
            | "virtual"
            | "virtual event"
            | "livestream"
            | "live stream"
            | "webinar"
            | "zoom"
            | "internet"
            | "en ligne"
            | "en línea"
            | "en linea"
            | "virtual (en línea)"
            | "çevrimiçi"
            | "cevrimici"
            | "çevrim içi"
            | "online-veranstaltung"
            | "digital"
    ) || t.starts_with("http://")
        || t.starts_with("https://")
}

fn read_postal(raw: &mut RawEvent, m: &Map<String, Value>) {
    raw.street = raw.street.take().or_else(|| text(get(m, "streetAddress")));
    raw.locality = raw.locality.take().or_else(|| text(get(m, "addressLocality")));
    raw.region = raw.region.take().or_else(|| text(get(m, "addressRegion")));
    raw.postal_code = raw.postal_code.take().or_else(|| text(get(m, "postalCode")));
    raw.country = raw.country.take().or_else(|| match get(m, "addressCountry").map(first) {
        Some(Value::Object(c)) => text(get(c, "name")).or_else(|| text(get(c, "identifier"))),
        other => text(other),
    });
    // Contao writes the whole address as the PostalAddress's `description`
    // (`Am Bienenstand 3, 35085 Ebsdorfergrund`): read as an address written in one line.
    if raw.street.is_none() && raw.locality.is_none() && raw.postal_code.is_none() {
        let whole = text(get(m, "description")).or_else(|| text(get(m, "name")));
        raw.address_text = raw.address_text.take().or(whole);
    }
}

/// The short schema.org type names of a node (`http://schema.org/MusicEvent` → `MusicEvent`),
/// from `@type` (one or several) and schema.org names in `additionalType`.
pub(crate) fn types_of(m: &Map<String, Value>) -> Vec<String> {
    let additional = values(get(m, "additionalType"))
        .filter_map(|t| t.as_str())
        .filter(|t| t.contains("schema.org/") || t.starts_with("schema:"));
    values(m.get("@type").or_else(|| m.get("type")))
        .filter_map(|t| t.as_str())
        .chain(additional)
        .flat_map(|t| t.split_whitespace())
        .map(|t| t.trim_end_matches('/').rsplit(['/', '#', ':']).next().unwrap_or(t).to_owned())
        .collect()
}

/// A property by name, also under a prefix (`schema:name`) or a full IRI.
/// Whether some `subEvent` of `m` has a `startDate`: an undated event with dated parts is
/// read as its parts; with undated parts only (schema.org's "2013 World Series" and its
/// "Game 1"), the parts add nothing and the event itself is kept.
/// A part given only by reference (`{"@id": "#a"}`) may be dated where it is written in
/// full, so it counts as dated.
fn has_dated_sub_event(m: &Map<String, Value>) -> bool {
    let dated = |v: &Value| {
        v.as_object().is_some_and(|o| get(o, "startDate").is_some() || o.keys().all(|k| k == "@id"))
    };
    ["subEvent", "subEvents"].iter().filter_map(|k| get(m, k)).any(|v| match v {
        Value::Array(items) => items.iter().any(dated),
        v => dated(v),
    })
}

fn get<'v>(m: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    if let Some(v) = m.get(name) {
        return Some(v);
    }
    m.iter()
        .find(|(k, _)| {
            k.len() > name.len()
                && k.ends_with(name)
                && matches!(k.as_bytes()[k.len() - name.len() - 1], b'/' | b':' | b'#')
        })
        .map(|(_, v)| v)
}

/// Iterates a value that may be one value or an array of them.
fn values(v: Option<&Value>) -> impl Iterator<Item = &Value> {
    let slice: &[Value] = match v {
        None | Some(Value::Null) => &[],
        Some(Value::Array(a)) => a,
        Some(one) => std::slice::from_ref(one),
    };
    slice.iter()
}

fn first(v: &Value) -> &Value {
    match v {
        Value::Array(a) => a.first().unwrap_or(v),
        _ => v,
    }
}

/// The first non-empty text in a value (strings, numbers, booleans, `@value`, `name`).
fn text(v: Option<&Value>) -> Option<String> {
    values(v).find_map(|v| match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Object(m) => text(m.get("@value")).or_else(|| text(m.get("name"))),
        _ => None,
    })
}

/// An offer whose `price` is a range written as text (`15 &#8211; 25`, `$10–$20`, as
/// The Events Calendar writes it): its low and high price, when it states neither.
fn split_price_range(offer: &mut RawOffer) {
    if offer.low_price.is_some() || offer.high_price.is_some() {
        return;
    }
    let Some(price) = offer.price.as_deref() else { return };
    let decoded = gleaner_event::text::decode_entities(price);
    // A plain amount (`25`, `12.50`) is no range: only a dash between two amounts is.
    if !decoded.contains(['–', '—', '-']) {
        return;
    }
    if let Some(p) = gleaner_event::parse_price_text(&decoded)
        && let Some(max) = p.max
        && max > p.min
    {
        offer.low_price = Some(p.min.to_string());
        offer.high_price = Some(max.to_string());
        offer.price = None;
        if offer.currency.is_none() {
            offer.currency = p.currency.map(str::to_owned);
        }
    }
}

/// A URL from a string or a node (`ImageObject`: `url`, `contentUrl`; else `@id`).
fn url_of(v: Option<&Value>) -> Option<String> {
    values(v).find_map(|v| match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Object(m) => url_of(get(m, "url"))
            .or_else(|| url_of(get(m, "contentUrl")))
            .or_else(|| text(m.get("@id"))),
        _ => None,
    })
}

/// An enumeration value: a string or a node's `@id` (`{"@id": "schema:EventCancelled"}`).
/// One occurrence a schema.org `Schedule` gives.
struct Occurrence {
    start: String,
    end: Option<String>,
    zone: Option<String>,
}

/// The first occurrence of an `eventSchedule`: its `startDate`, moved to the first `byDay`
/// on or after it, at `startTime` (to `endTime`), in `scheduleTimezone` — as an iCalendar
/// recurrence master gives its first `DTSTART`. None without a `startDate` (never invented).
fn schedule_first(s: &Map<String, Value>) -> Option<Occurrence> {
    schedule_days(s, 1)?.into_iter().next()
}

/// At most this many performances are listed one by one from a bounded `eventSchedule`;
/// a longer run (a year of weekly classes) is a series, read as its first occurrence.
const SCHEDULE_RUN_MAX: usize = 12;

/// Every performance of a node's `eventSchedule` when each schedule is bounded by an
/// `endDate` and they hold two to [`SCHEDULE_RUN_MAX`] performances in all, in date order.
fn schedule_run(m: &Map<String, Value>) -> Option<Vec<Occurrence>> {
    let schedules: Vec<&Map<String, Value>> =
        values(get(m, "eventSchedule")).filter_map(Value::as_object).collect();
    if schedules.is_empty() || schedules.iter().any(|s| text(get(s, "endDate")).is_none()) {
        return None;
    }
    let mut all = Vec::new();
    for s in schedules {
        all.extend(schedule_days(s, SCHEDULE_RUN_MAX + 1)?);
        if all.len() > SCHEDULE_RUN_MAX {
            return None;
        }
    }
    all.sort_by(|a, b| a.start.cmp(&b.start));
    (all.len() >= 2).then_some(all)
}

/// Up to `max` occurrences of a schema.org `Schedule`, from its `startDate` (to its
/// `endDate`, a year at most) on the days every stated rule allows (`byDay`, `byMonthDay`;
/// `repeatFrequency` `P1W` alone keeps the start's weekday), less any `exceptDate`.
fn schedule_days(s: &Map<String, Value>, max: usize) -> Option<Vec<Occurrence>> {
    use chrono::{Datelike, NaiveDate, NaiveTime, Weekday};
    let date = |v: &str| NaiveDate::parse_from_str(v.get(..10)?, "%Y-%m-%d").ok();
    let from = text(get(s, "startDate"))?;
    let day = date(&from)?;
    let until = text(get(s, "endDate")).and_then(|e| date(&e));
    let except: Vec<NaiveDate> = values(get(s, "exceptDate"))
        .filter_map(|v| text(Some(v)))
        .filter_map(|d| date(&d))
        .collect();
    let wanted: Vec<Weekday> = values(get(s, "byDay"))
        .filter_map(|v| id_or_text(Some(v)))
        .filter_map(|d| d.rsplit(['/', ':']).next().and_then(|n| n.parse::<Weekday>().ok()))
        .collect();
    let month_days: Vec<u32> = values(get(s, "byMonthDay"))
        .filter_map(|v| text(Some(v)))
        .filter_map(|d| d.trim().parse().ok())
        .collect();
    let weekly = wanted.is_empty()
        && month_days.is_empty()
        && text(get(s, "repeatFrequency")).is_some_and(|f| f.trim().eq_ignore_ascii_case("P1W"));
    // The days on or after `startDate` that every stated rule allows (a year at most).
    let days: Vec<NaiveDate> = day
        .iter_days()
        .take(366)
        .take_while(|d| until.is_none_or(|u| *d <= u))
        .filter(|d| {
            (wanted.is_empty() || wanted.contains(&d.weekday()))
                && (month_days.is_empty() || month_days.contains(&d.day()))
                && (!weekly || d.weekday() == day.weekday())
                && !except.contains(d)
        })
        .take(max)
        .collect();
    let time = |key: &str| {
        let t = text(get(s, key))?;
        let t = t.trim();
        NaiveTime::parse_from_str(t, "%H:%M:%S")
            .or_else(|_| NaiveTime::parse_from_str(t, "%H:%M"))
            .ok()
    };
    let zone = text(get(s, "scheduleTimezone"));
    let one = |day: NaiveDate| {
        let iso = |t: NaiveTime| day.and_time(t).format("%Y-%m-%dT%H:%M:%S").to_string();
        let (start, end) = match time("startTime") {
            Some(t) => (iso(t), time("endTime").filter(|e| *e > t).map(iso)),
            None => (day.format("%Y-%m-%d").to_string(), None),
        };
        Occurrence { start, end, zone: zone.clone() }
    };
    let out: Vec<Occurrence> = days.into_iter().map(one).collect();
    (!out.is_empty()).then_some(out)
}

/// A description escaped twice (WordPress plugins write `\\n` into their JSON-LD, which
/// reads as a backslash and an `n`): its literal `\n`, `\r` and `\t` are the line
/// breaks and tabs they stand for.
fn unescape_twice_escaped(d: &str) -> String {
    if !d.contains('\\') {
        return d.to_owned();
    }
    d.replace("\\r\\n", "\n").replace("\\n", "\n").replace("\\r", "\n").replace("\\t", " ")
}

fn id_or_text(v: Option<&Value>) -> Option<String> {
    values(v).find_map(|v| match v {
        Value::Object(m) => text(m.get("@id")).or_else(|| text(m.get("name"))),
        other => text(Some(other)),
    })
}
