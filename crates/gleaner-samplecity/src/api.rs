//! JSON and CSV documents: a venue's events API, the licensed ticketing API, the open-data
//! portal (weather warnings, fuel prices) and the mock OpenAI-compatible chat-completions
//! server with scripted answers.

use std::fmt::Write as _;

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use crate::city::{City, Origins};
use crate::events::{Event, Price, Status, decimal};
use crate::venues::Site;

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Scheduled => "scheduled",
        Status::Cancelled => "cancelled",
        Status::Postponed => "postponed",
        Status::Rescheduled => "rescheduled",
        Status::MovedOnline => "moved_online",
    }
}

fn price_json(site: &Site, p: Price) -> Value {
    match p {
        Price::Free => json!({ "free": true, "min": null, "max": null, "currency": null }),
        _ => json!({
            "free": false,
            "min": decimal(p.min_minor()),
            "max": decimal(p.max_minor()),
            "currency": site.currency,
        }),
    }
}

/// `/api/events.json` of a venue: its own field names (a JSON API with a field mapping).
pub(crate) fn venue_api(site: &Site, origins: &Origins, index: usize, events: &[Event]) -> Value {
    let items: Vec<Value> = events
        .iter()
        .filter(|e| !e.noindex && !e.private)
        .map(|e| {
            json!({
                "id": format!("{}-{}", site.key, e.number),
                "title": e.title,
                "start": e.start.to_rfc3339(),
                "end": e.end.map(|t| t.to_rfc3339()),
                "timezone": site.zone.name(),
                "venue": {
                    "name": site.name,
                    "address": site.street,
                    "postal_code": site.postal_code,
                    "city": site.locality,
                    "country": site.country,
                },
                "price": price_json(site, e.price),
                "status": status_word(e.status),
                "url": origins.url(index, &e.path),
                "image": origins.url(index, &e.image),
            })
        })
        .collect();
    json!({ "venue": site.name, "count": items.len(), "events": items })
}

/// Venues whose events the ticketing API sells.
pub(crate) const TICKETED: [&str; 4] =
    ["theatre-des-halles", "teatro-lavapies", "kulturhaus-plagwitz", "mile-end-hall"];

/// Page size of the licensed API.
pub const API_PAGE_SIZE: usize = 10;

/// The licensed API's answer for one page (Discovery-like shape).
pub(crate) fn licensed_api(city: &City, origins: &Origins, pass: u32, page: usize) -> Value {
    let mut all = Vec::new();
    for key in TICKETED {
        let Some(i) = city.site_index(key) else { continue };
        let site = city.site(i);
        for e in city.venue_events(i, pass) {
            if e.price == Price::Free {
                continue;
            }
            all.push(json!({
                "id": format!("BR{:02}{:03}", i, e.number),
                "name": e.title,
                "type": "event",
                // Like real ticketing APIs, its own addresses carry the caller's key:
                // gleaner must strip it before storing or showing them (issue 26).
                "url": format!("{}?apikey={}", origins.url(i, &e.path), city.api_key()),
                "locale": site.lang.code(),
                "dates": {
                    "start": {
                        "localDate": e.start.format("%Y-%m-%d").to_string(),
                        "localTime": e.start.format("%H:%M:%S").to_string(),
                        "dateTime": e.start.with_timezone(&Utc).to_rfc3339(),
                    },
                    "timezone": site.zone.name(),
                    "status": { "code": match e.status {
                        Status::Scheduled => "onsale",
                        Status::Cancelled => "cancelled",
                        Status::Postponed => "postponed",
                        Status::Rescheduled => "rescheduled",
                        Status::MovedOnline => "onsale",
                    } },
                },
                "priceRanges": [{
                    "type": "standard",
                    "currency": site.currency,
                    "min": e.price.min_minor() as f64 / 100.0,
                    "max": e.price.max_minor() as f64 / 100.0,
                }],
                "_embedded": { "venues": [{
                    "name": site.name,
                    "city": { "name": site.locality },
                    "country": { "countryCode": site.country },
                    "address": { "line1": site.street },
                    "postalCode": site.postal_code,
                    "timezone": site.zone.name(),
                }] },
            }));
        }
    }
    let total = all.len();
    let pages = total.div_ceil(API_PAGE_SIZE).max(1);
    let items: Vec<Value> =
        all.into_iter().skip(page * API_PAGE_SIZE).take(API_PAGE_SIZE).collect();
    json!({
        "_embedded": { "events": items },
        "page": { "size": API_PAGE_SIZE, "totalElements": total, "totalPages": pages, "number": page },
    })
}

/// The licensed API's fault body for a missing or wrong key.
pub(crate) fn bad_key() -> Value {
    json!({ "fault": { "faultstring": "Invalid ApiKey", "detail": { "errorcode": "oauth.v2.InvalidApiKey" } } })
}

/// Weather warnings for the department (open data, JSON).
pub(crate) fn vigilance(now: DateTime<Utc>, pass: u32) -> Value {
    let start = now - Duration::hours(3);
    let mut warnings = vec![
        json!({ "department": "10", "phenomenon": "neige-verglas", "level": "orange",
                "start": start.to_rfc3339(), "end": (now + Duration::hours(21)).to_rfc3339() }),
        json!({ "department": "10", "phenomenon": "vent-violent", "level": "jaune",
                "start": start.to_rfc3339(), "end": (now + Duration::hours(9)).to_rfc3339() }),
    ];
    if pass >= 1 {
        warnings.push(json!({ "department": "10", "phenomenon": "crues", "level": "jaune",
            "start": now.to_rfc3339(), "end": (now + Duration::hours(48)).to_rfc3339() }));
    }
    json!({
        "dataset": "vigilance-meteo-aube",
        "licence": "Licence Ouverte / Open Licence 2.0",
        "updated": now.to_rfc3339(),
        "warnings": warnings,
    })
}

const STATIONS: [(&str, &str, &str, [u32; 3]); 5] = [
    ("10000001", "Station du Pont-Neuf", "Troyes", [1849, 1779, 1729]),
    ("10000002", "Relais de la Seine", "Sainte-Savine", [1859, 1789, 1719]),
    ("10000003", "Garage des Halles", "Troyes", [1869, 1799, 0]),
    ("10000004", "Station de l'Aube", "Romilly-sur-Seine", [1839, 1769, 1709]),
    ("10000005", "Carrefour des Vignes", "Bar-sur-Aube", [1879, 1809, 1739]),
];
const FUELS: [&str; 3] = ["Gazole", "SP95-E10", "E85"];

/// Fuel price rows: (station id, name, town, fuel, price in thousandths of euro per litre).
pub(crate) fn fuel_rows(
    pass: u32,
) -> Vec<(&'static str, &'static str, &'static str, &'static str, u32)> {
    let mut out = Vec::new();
    for (id, name, town, prices) in STATIONS {
        for (fuel, p) in FUELS.iter().zip(prices) {
            if p > 0 {
                // Prices drift by a tenth of a cent per pass.
                out.push((id, name, town, *fuel, p + pass));
            }
        }
    }
    out
}

fn euros(milli: u32) -> String {
    format!("{}.{:03}", milli / 1000, milli % 1000)
}

/// Fuel prices as JSON.
pub(crate) fn fuel_json(now: DateTime<Utc>, pass: u32) -> Value {
    let rows: Vec<Value> = fuel_rows(pass)
        .into_iter()
        .map(|(id, name, town, fuel, p)| {
            json!({ "station_id": id, "name": name, "town": town, "fuel": fuel,
                    "price_eur_per_litre": euros(p), "updated": now.to_rfc3339() })
        })
        .collect();
    json!({ "dataset": "prix-carburants-aube", "licence": "Licence Ouverte / Open Licence 2.0",
            "updated": now.to_rfc3339(), "prices": rows })
}

/// Fuel prices as CSV (semicolon-separated, as French portals write them).
pub(crate) fn fuel_csv(now: DateTime<Utc>, pass: u32) -> String {
    let mut out = String::from("station_id;name;town;fuel;price_eur_per_litre;updated\n");
    for (id, name, town, fuel, p) in fuel_rows(pass) {
        let _ = writeln!(out, "{id};{name};{town};{fuel};{};{}", euros(p), now.to_rfc3339());
    }
    out
}

/// The scripted answer of the mock language model to a chat-completions request.
///
/// The answer's content is JSON: `{"events": [...]}` with the facts of every event of the
/// city whose title appears in the last user message (at any pass), else an empty list;
/// for a request with the `translation` schema, `{"translation": "(English) TEXT"}`.
/// The model name scripts misbehaviour: `mock-malformed` answers text that is not JSON,
/// `mock-inventive` moves every date a day on and prices every ticket at 999 EUR.
pub(crate) fn chat_completion(
    city: &City,
    origins: &Origins,
    body: &[u8],
) -> Result<Value, &'static str> {
    let req: Value = serde_json::from_slice(body).map_err(|_| "request body is not JSON")?;
    let model = req.get("model").and_then(Value::as_str).unwrap_or("sample-city-mock").to_owned();
    let prompt = req
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| {
            m.iter().rev().find(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        })
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .ok_or("no user message")?;
    // A translation request (a `translation` JSON schema): a marked, scripted English.
    if req.pointer("/response_format/json_schema/name").and_then(Value::as_str)
        == Some("translation")
    {
        let text = prompt
            .split("<<<TEXT>>>\n")
            .nth(1)
            .and_then(|t| t.split("\n<<<END OF TEXT>>>").next())
            .unwrap_or(prompt);
        let content = json!({ "translation": format!("(English) {text}") }).to_string();
        return Ok(completion(city, &model, prompt, content));
    }
    let mut found = Vec::new();
    for pass in [0, 1, 2] {
        for e in city.all_venue_events(pass) {
            if prompt.contains(&e.title)
                && !found.iter().any(|(t, s, _): &(String, _, _)| *t == e.title && *s == e.site)
            {
                found.push((e.title.clone(), e.site, e));
            }
        }
    }
    let events: Vec<Value> = found
        .into_iter()
        .map(|(_, i, e)| {
            let site = city.site(i);
            json!({
                "title": e.title,
                "start": e.start.to_rfc3339(),
                "venue": site.name,
                "locality": site.locality,
                "country": site.country,
                "price": price_json(site, e.price),
                "status": status_word(e.status),
                "url": origins.url(i, &e.path),
            })
        })
        .collect();
    let content = match model.as_str() {
        // Scripted misbehaviour, chosen by the model name the client sends.
        "mock-malformed" => "Sure! Here are the events: {\"events\": [".to_owned(),
        "mock-inventive" => {
            json!({ "events": events.into_iter().map(invent).collect::<Vec<_>>() }).to_string()
        }
        _ => json!({ "events": events }).to_string(),
    };
    Ok(completion(city, &model, prompt, content))
}

/// An event as a model that makes facts up would give it: a day later, another price.
fn invent(mut e: Value) -> Value {
    if let Some(start) = e["start"].as_str().and_then(|s| DateTime::parse_from_rfc3339(s).ok()) {
        e["start"] = json!((start + Duration::days(1)).to_rfc3339());
    }
    e["price"] = json!({ "free": false, "min": "999.00", "max": "999.00", "currency": "EUR" });
    e
}

/// A chat completion carrying `content`, with token counts.
fn completion(city: &City, model: &str, prompt: &str, content: String) -> Value {
    json!({
        "id": format!("chatcmpl-sample-{}", content.len()),
        "object": "chat.completion",
        "created": city.now().timestamp(),
        "model": model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": content },
            "finish_reason": "stop",
        }],
        "usage": { "prompt_tokens": prompt.len() / 4, "completion_tokens": content.len() / 4,
                   "total_tokens": (prompt.len() + content.len()) / 4 },
    })
}

/// `/v1/models` of the mock language model.
pub(crate) fn models() -> Value {
    json!({ "object": "list", "data": [{ "id": "sample-city-mock", "object": "model", "owned_by": "gleaner" }] })
}
