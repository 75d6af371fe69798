//! How policy and event values become stored columns and back: times as integers, the
//! gate's [`SiteState`] as JSON plus the robots.txt bytes, an [`Event`]'s facts as JSON.
//! Backends share these codecs, so a row means the same thing in every backend.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use chrono::{NaiveDate, NaiveTime};
use gleaner_event::time::{EventTime, parse_event_time};
use gleaner_event::{AttendanceMode, Category, Event, EventStatus, Price, Venue};
use gleaner_policy::Purpose;
use gleaner_policy::budget::{GlobalBudget, SiteBudget};
use gleaner_policy::outcome::{FailureKind, Outcome};
use gleaner_policy::robots::RobotsTxt;
use gleaner_policy::robots::outcome::{RobotsReason, RobotsState};
use gleaner_policy::state::{RobotsMemory, SiteState};
use serde::{Deserialize, Serialize};
use url::Url;

use crate::StoreError;

/// Microseconds since the epoch (negative before it).
pub(crate) fn to_us(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_micros()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_micros()).unwrap_or(i64::MAX),
    }
}

/// Nanoseconds since the epoch (exact for budget times until 2262).
pub(crate) fn to_ns(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_nanos()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX),
    }
}

/// The time `ns` nanoseconds after the epoch.
pub(crate) fn from_ns(ns: i64) -> SystemTime {
    if ns >= 0 {
        UNIX_EPOCH + Duration::from_nanos(ns as u64)
    } else {
        UNIX_EPOCH - Duration::from_nanos(ns.unsigned_abs())
    }
}

/// The outcome of a stored audit row from its code and status. A code this version does
/// not know (written by a newer one) reads as sent when a status came, else as failed.
pub(crate) fn decode_outcome(code: &str, status: Option<u16>) -> Outcome {
    Outcome::from_code(code, status).unwrap_or(match status {
        Some(status) => Outcome::Sent { status },
        None => Outcome::Failed(FailureKind::Other),
    })
}

/// Milliseconds since the epoch.
pub(crate) fn to_ms(t: SystemTime) -> i64 {
    to_us(t).div_euclid(1000)
}

/// The time `us` microseconds after the epoch.
pub(crate) fn from_us(us: i64) -> SystemTime {
    if us >= 0 {
        UNIX_EPOCH + Duration::from_micros(us as u64)
    } else {
        UNIX_EPOCH - Duration::from_micros(us.unsigned_abs())
    }
}

/// The time `ms` milliseconds after the epoch.
pub(crate) fn from_ms(ms: i64) -> SystemTime {
    from_us(ms.saturating_mul(1000))
}

/// Milliseconds in a duration, saturating.
pub(crate) fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The lower-case host of a URL or origin string (empty when it has none).
pub(crate) fn host_of(url: &str) -> String {
    Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(|h| h.trim_end_matches('.').to_ascii_lowercase()))
        .unwrap_or_default()
}

#[derive(Serialize, Deserialize, Default)]
struct BudgetRow {
    last_start_ns: Option<i64>,
    hour_starts_ns: Vec<i64>,
    day: Option<NaiveDate>,
    day_requests: u32,
    day_visits: u32,
    pass_started_ns: Option<i64>,
    pass_requests: u32,
    suspended_until: Option<(i64, String)>,
    blocked_until: Option<(i64, String)>,
}

#[derive(Serialize, Deserialize)]
struct RobotsRow {
    state: String,
    reason: String,
    reason_value: Option<u16>,
    valid_until_ns: i64,
    failures: u32,
    /// robots.txt's rights headers (absent in rows written before issue 25).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    rights_headers: Vec<(String, String)>,
}

/// A site's state as columns: budget JSON, in-flight JSON, robots JSON, robots bytes,
/// failure streak.
pub(crate) struct SiteRow {
    pub budget: String,
    pub in_flight: String,
    pub robots: Option<String>,
    pub robots_body: Option<Vec<u8>>,
    pub failure_streak: u32,
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt { what: what.to_owned(), detail: e.to_string() }
}

pub(crate) fn encode_site(state: &SiteState) -> SiteRow {
    let b = &state.budget;
    let budget = BudgetRow {
        last_start_ns: b.last_start.map(to_ns),
        hour_starts_ns: b.hour_starts.iter().copied().map(to_ns).collect(),
        day: b.day,
        day_requests: b.day_requests,
        day_visits: b.day_visits,
        pass_started_ns: b.pass_started.map(to_ns),
        pass_requests: b.pass_requests,
        suspended_until: b.suspended_until.as_ref().map(|(t, r)| (to_ns(*t), r.clone())),
        blocked_until: b.blocked_until.as_ref().map(|(t, r)| (to_ns(*t), r.clone())),
    };
    let in_flight: BTreeMap<&str, u32> =
        b.in_flight.iter().filter(|(_, n)| **n > 0).map(|(p, n)| (p.as_str(), *n)).collect();
    let robots = state.robots.as_ref().map(|m| {
        let (reason, reason_value) = encode_reason(m.reason);
        let row = RobotsRow {
            state: match m.state {
                RobotsState::Rules(_) => "rules",
                RobotsState::AllowAll => "allow-all",
                RobotsState::Blocked => "blocked",
                RobotsState::FetchNothing => "fetch-nothing",
            }
            .to_owned(),
            reason: reason.to_owned(),
            reason_value,
            valid_until_ns: to_ns(m.valid_until),
            failures: m.failures,
            rights_headers: m.rights_headers.clone(),
        };
        serde_json::to_string(&row).unwrap_or_default()
    });
    SiteRow {
        budget: serde_json::to_string(&budget).unwrap_or_default(),
        in_flight: serde_json::to_string(&in_flight).unwrap_or_default(),
        robots,
        robots_body: state.robots.as_ref().and_then(|m| m.body.clone()),
        failure_streak: state.failure_streak,
    }
}

/// Parsed robots.txt files, keyed by site and the stored robots JSON (which changes
/// whenever the file is read again), so the rules are not re-parsed on every request.
#[derive(Default)]
pub(crate) struct RobotsCache(Mutex<HashMap<(String, u64), Arc<RobotsTxt>>>);

impl RobotsCache {
    /// `site`'s state from its row ([`decode_site`]), its rules parsed once per stored
    /// robots JSON; the cache is cleared past 4,096 entries.
    pub(crate) fn decode(&self, site: &str, row: SiteRow) -> Result<SiteState, StoreError> {
        let hasher = std::hash::BuildHasherDefault::<std::hash::DefaultHasher>::default();
        let key = (site.to_owned(), row.robots.as_deref().map_or(0, |r| hasher.hash_one(r)));
        decode_site(row, |body| {
            let mut cache = self.0.lock().unwrap_or_else(|p| p.into_inner());
            if cache.len() > 4096 {
                cache.clear();
            }
            Arc::clone(cache.entry(key).or_insert_with(|| Arc::new(RobotsTxt::parse(body))))
        })
    }
}

/// Rebuilds a site's state. `parse` turns robots.txt bytes into rules (the caller may
/// cache parsed files).
pub(crate) fn decode_site(
    row: SiteRow,
    parse: impl FnOnce(&[u8]) -> Arc<RobotsTxt>,
) -> Result<SiteState, StoreError> {
    let b: BudgetRow =
        serde_json::from_str(&row.budget).map_err(|e| corrupt("site_state.budget", e))?;
    let in_flight: BTreeMap<String, u32> =
        serde_json::from_str(&row.in_flight).map_err(|e| corrupt("site_state.in_flight", e))?;
    let budget = SiteBudget {
        last_start: b.last_start_ns.map(from_ns),
        in_flight: in_flight
            .into_iter()
            .filter_map(|(p, n)| Purpose::from_name(&p).map(|p| (p, n)))
            .collect(),
        hour_starts: b.hour_starts_ns.into_iter().map(from_ns).collect::<VecDeque<_>>(),
        day: b.day,
        day_requests: b.day_requests,
        day_visits: b.day_visits,
        pass_started: b.pass_started_ns.map(from_ns),
        pass_requests: b.pass_requests,
        suspended_until: b.suspended_until.map(|(t, r)| (from_ns(t), r)),
        blocked_until: b.blocked_until.map(|(t, r)| (from_ns(t), r)),
    };
    let robots = match row.robots {
        None => None,
        Some(json) => {
            let r: RobotsRow =
                serde_json::from_str(&json).map_err(|e| corrupt("site_state.robots", e))?;
            let reason = decode_reason(&r.reason, r.reason_value)
                .ok_or_else(|| corrupt("site_state.robots", format!("reason `{}`", r.reason)))?;
            let mut valid_until = from_ns(r.valid_until_ns);
            let state = match (r.state.as_str(), &row.robots_body) {
                ("rules", Some(body)) => RobotsState::Rules(parse(body)),
                // Rules without their bytes cannot be rebuilt: read robots.txt again.
                ("rules", None) => {
                    valid_until = UNIX_EPOCH;
                    RobotsState::FetchNothing
                }
                ("allow-all", _) => RobotsState::AllowAll,
                ("blocked", _) => RobotsState::Blocked,
                ("fetch-nothing", _) => RobotsState::FetchNothing,
                (other, _) => return Err(corrupt("site_state.robots", format!("state `{other}`"))),
            };
            Some(RobotsMemory {
                state,
                reason,
                valid_until,
                failures: r.failures,
                body: row.robots_body.clone(),
                rights_headers: r.rights_headers,
            })
        }
    };
    Ok(SiteState { budget, robots, failure_streak: row.failure_streak })
}

fn encode_reason(reason: RobotsReason) -> (&'static str, Option<u16>) {
    match reason {
        RobotsReason::Read { status } => ("read", Some(status)),
        RobotsReason::UnauthorizedAllowAll { status } => ("unauthorized-allow-all", Some(status)),
        RobotsReason::UnauthorizedBlock { status } => ("unauthorized-block", Some(status)),
        RobotsReason::Unavailable { status } => ("unavailable", Some(status)),
        RobotsReason::TooManyRequests => ("too-many-requests", None),
        RobotsReason::ServerError { status } => ("server-error", Some(status)),
        RobotsReason::UnexpectedStatus { status } => ("unexpected-status", Some(status)),
        RobotsReason::TooManyRedirects { hops } => ("too-many-redirects", Some(u16::from(hops))),
        RobotsReason::RedirectLoop => ("redirect-loop", None),
        RobotsReason::Timeout => ("timeout", None),
        RobotsReason::ConnectionFailed => ("connection-failed", None),
        RobotsReason::TooLarge => ("too-large", None),
    }
}

fn decode_reason(name: &str, value: Option<u16>) -> Option<RobotsReason> {
    let status = value.unwrap_or(0);
    Some(match name {
        "read" => RobotsReason::Read { status },
        "unauthorized-allow-all" => RobotsReason::UnauthorizedAllowAll { status },
        "unauthorized-block" => RobotsReason::UnauthorizedBlock { status },
        "unavailable" => RobotsReason::Unavailable { status },
        "too-many-requests" => RobotsReason::TooManyRequests,
        "server-error" => RobotsReason::ServerError { status },
        "unexpected-status" => RobotsReason::UnexpectedStatus { status },
        "too-many-redirects" => {
            RobotsReason::TooManyRedirects { hops: u8::try_from(status).unwrap_or(u8::MAX) }
        }
        "redirect-loop" => RobotsReason::RedirectLoop,
        "timeout" => RobotsReason::Timeout,
        "connection-failed" => RobotsReason::ConnectionFailed,
        "too-large" => RobotsReason::TooLarge,
        _ => return None,
    })
}

/// The global budget as a (day, requests) pair.
pub(crate) fn encode_global(g: &GlobalBudget) -> (Option<String>, i64) {
    (g.day.map(|d| d.to_string()), i64::from(g.requests))
}

/// The global budget from its columns.
pub(crate) fn decode_global(day: Option<String>, requests: i64) -> GlobalBudget {
    GlobalBudget {
        day: day.and_then(|d| d.parse().ok()),
        requests: u32::try_from(requests).unwrap_or(u32::MAX),
    }
}

/// An event's facts (everything but description and image), as stored JSON.
#[derive(Serialize, Deserialize)]
pub(crate) struct Facts {
    title: Option<String>,
    start: Option<String>,
    end: Option<String>,
    previous_start: Option<String>,
    venue_name: Option<String>,
    street: Option<String>,
    locality: Option<String>,
    region: Option<String>,
    postal_code: Option<String>,
    country: Option<String>,
    // Money as text: exact decimals in every backend (CRATES.md, SQLite pitfall).
    price_min: Option<String>,
    price_max: Option<String>,
    currency: Option<String>,
    is_free: Option<bool>,
    ticket_url: Option<String>,
    status: String,
    status_stated: bool,
    attendance: Option<String>,
    category: String,
    url: Option<String>,
}

pub(crate) fn status_name(s: EventStatus) -> &'static str {
    s.public_name().unwrap_or("gone_at_source")
}

pub(crate) fn status_from_name(name: &str) -> Option<EventStatus> {
    match name {
        "gone_at_source" => Some(EventStatus::GoneAtSource),
        other => EventStatus::from_schema(other),
    }
}

const CATEGORIES: [Category; 10] = [
    Category::Concert,
    Category::Theatre,
    Category::Exhibition,
    Category::Festival,
    Category::Family,
    Category::Film,
    Category::Talk,
    Category::Sport,
    Category::Nightlife,
    Category::Other,
];

fn category_from_name(name: &str) -> Category {
    CATEGORIES.into_iter().find(|c| c.name() == name).unwrap_or(Category::Other)
}

fn attendance_name(a: AttendanceMode) -> &'static str {
    match a {
        AttendanceMode::Offline => "offline",
        AttendanceMode::Online => "online",
        AttendanceMode::Mixed => "mixed",
    }
}

pub(crate) fn encode_facts(e: &Event) -> String {
    let iso = |t: &Option<EventTime>| t.as_ref().map(EventTime::to_iso);
    let facts = Facts {
        title: e.title.clone(),
        start: iso(&e.start),
        end: iso(&e.end),
        previous_start: iso(&e.previous_start),
        venue_name: e.venue.name.clone(),
        street: e.venue.street.clone(),
        locality: e.venue.locality.clone(),
        region: e.venue.region.clone(),
        postal_code: e.venue.postal_code.clone(),
        country: e.venue.country.clone(),
        price_min: e.price.min.map(|d| d.to_string()),
        price_max: e.price.max.map(|d| d.to_string()),
        currency: e.price.currency.clone(),
        is_free: e.price.is_free,
        ticket_url: e.ticket_url.as_ref().map(Url::to_string),
        status: status_name(e.status).to_owned(),
        status_stated: e.status_stated,
        attendance: e.attendance.map(|a| attendance_name(a).to_owned()),
        category: e.category.name().to_owned(),
        url: e.url.as_ref().map(Url::to_string),
    };
    serde_json::to_string(&facts).unwrap_or_default()
}

pub(crate) fn decode_facts(
    json: &str,
    description: Option<String>,
    image_url: Option<String>,
) -> Result<Event, StoreError> {
    let f: Facts = serde_json::from_str(json).map_err(|e| corrupt("events.facts", e))?;
    let time = |s: Option<String>| s.as_deref().and_then(parse_event_time);
    let url = |s: Option<String>| s.as_deref().and_then(|s| Url::parse(s).ok());
    let dec = |s: Option<String>| s.as_deref().and_then(|s| s.parse().ok());
    Ok(Event {
        title: f.title,
        start: time(f.start),
        end: time(f.end),
        previous_start: time(f.previous_start),
        venue: Venue {
            name: f.venue_name,
            street: f.street,
            locality: f.locality,
            region: f.region,
            postal_code: f.postal_code,
            country: f.country,
        },
        price: Price {
            min: dec(f.price_min),
            max: dec(f.price_max),
            currency: f.currency,
            is_free: f.is_free,
        },
        ticket_url: url(f.ticket_url),
        image_url: url(image_url),
        description,
        status: status_from_name(&f.status).unwrap_or(EventStatus::Scheduled),
        status_stated: f.status_stated,
        attendance: f.attendance.as_deref().and_then(AttendanceMode::from_schema),
        category: category_from_name(&f.category),
        url: url(f.url),
    })
}

/// The instant an event time stands for: exact with an offset; dates and floating times
/// read as UTC (good enough for ordering and retention).
pub(crate) fn instant_ms(t: &EventTime) -> i64 {
    match t {
        EventTime::Date(d) => d.and_time(NaiveTime::MIN).and_utc().timestamp_millis(),
        EventTime::Floating(dt) => dt.and_utc().timestamp_millis(),
        EventTime::Fixed(dt) => dt.timestamp_millis(),
    }
}

/// The end of an event's last day (its end date, or its start date when it has no end),
/// from which retention counts. The day ends at the latest zone's midnight (UTC−12), so
/// no event goes early wherever it happens. Undated events count from `last_checked`.
pub(crate) fn last_day_end_ms(e: &Event, last_checked: SystemTime) -> i64 {
    let last_day = e.end.as_ref().or(e.start.as_ref()).map(EventTime::date);
    match last_day {
        Some(day) => {
            let next = day.succ_opt().unwrap_or(day);
            next.and_time(NaiveTime::MIN).and_utc().timestamp_millis() + 12 * 3600 * 1000
        }
        None => to_ms(last_checked),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_policy::robots::outcome::RobotsDecision;

    #[test]
    fn site_state_round_trips_with_rules_reparsed() {
        let now = UNIX_EPOCH + Duration::from_nanos(1_700_000_000_123_456_789);
        let body = b"User-agent: *\nDisallow: /private/\n".to_vec();
        let mut state = SiteState::default();
        state.budget.last_start = Some(now);
        state.budget.in_flight.insert(Purpose::Listing, 2);
        state.budget.hour_starts.push_back(now);
        state.budget.day = Some(NaiveDate::from_ymd_opt(2026, 11, 30).unwrap());
        state.budget.day_requests = 3;
        state.budget.suspended_until = Some((now + Duration::from_secs(60), "HTTP 429".into()));
        state.budget.blocked_until = Some((now + Duration::from_secs(3600), "HTTP 403".into()));
        state.failure_streak = 4;
        state.robots = Some(RobotsMemory::new(
            RobotsDecision {
                state: RobotsState::Rules(Arc::new(RobotsTxt::parse(&body))),
                reason: RobotsReason::Read { status: 200 },
                valid_until: now + Duration::from_secs(3600),
                failures: 0,
            },
            Some(body.clone()),
        ));
        if let Some(robots) = state.robots.as_mut() {
            robots.rights_headers = vec![("X-Robots-Tag".into(), "noai".into())];
        }
        let row = encode_site(&state);
        let back = decode_site(row, |b| Arc::new(RobotsTxt::parse(b))).unwrap();
        assert_eq!(back, state);
    }

    #[test]
    fn every_robots_reason_round_trips() {
        let reasons = [
            RobotsReason::Read { status: 200 },
            RobotsReason::UnauthorizedAllowAll { status: 401 },
            RobotsReason::UnauthorizedBlock { status: 403 },
            RobotsReason::Unavailable { status: 404 },
            RobotsReason::TooManyRequests,
            RobotsReason::ServerError { status: 503 },
            RobotsReason::UnexpectedStatus { status: 302 },
            RobotsReason::TooManyRedirects { hops: 5 },
            RobotsReason::RedirectLoop,
            RobotsReason::Timeout,
            RobotsReason::ConnectionFailed,
            RobotsReason::TooLarge,
        ];
        for reason in reasons {
            let (name, value) = encode_reason(reason);
            assert_eq!(decode_reason(name, value), Some(reason));
        }
    }

    #[test]
    fn times_round_trip_before_and_after_the_epoch() {
        for us in [-5_000_001, 0, 1, 1_764_000_000_000_001] {
            assert_eq!(to_us(from_us(us)), us);
        }
    }
}
