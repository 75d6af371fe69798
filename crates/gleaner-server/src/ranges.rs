//! `/bot/ranges.json`: the address ranges this bot's requests leave from (`[bot] egress`),
//! in the schema the large crawlers publish theirs in, so a site owner's tooling that
//! reads Googlebot's or Bingbot's list reads ours too:
//!
//! ```json
//! {"creationTime": "2026-12-01T17:00:00Z",
//!  "prefixes": [{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}]}
//! ```
//!
//! `creationTime` is when the list was built (the server's start, RFC 3339, UTC). Absent
//! (404) when no egress range is configured: an empty list would claim that no address
//! is ours, which a bot on shared cloud addresses cannot promise.

use std::sync::Arc;
use std::time::SystemTime;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gleaner_config::Settings;
use ipnet::IpNet;

/// The path the list is served at, on the about page's host.
pub const RANGES_PATH: &str = "/bot/ranges.json";

/// The list as JSON, built at `created`.
pub fn ranges_json(egress: &[IpNet], created: SystemTime) -> serde_json::Value {
    let prefixes: Vec<serde_json::Value> = egress
        .iter()
        .map(|net| match net {
            IpNet::V4(v4) => serde_json::json!({ "ipv4Prefix": v4.trunc().to_string() }),
            IpNet::V6(v6) => serde_json::json!({ "ipv6Prefix": v6.trunc().to_string() }),
        })
        .collect();
    let created = chrono::DateTime::<chrono::Utc>::from(created)
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    serde_json::json!({ "creationTime": created, "prefixes": prefixes })
}

/// The route, when `[bot] egress` lists at least one range.
pub fn routes(settings: &Settings) -> Option<Router> {
    if settings.bot.egress.is_empty() {
        return None;
    }
    let body = Arc::new(ranges_json(&settings.bot.egress, SystemTime::now()).to_string());
    Some(Router::new().route(RANGES_PATH, get(serve)).with_state(body))
}

async fn serve(State(body): State<Arc<String>>) -> Response {
    let mut response = (StatusCode::OK, body.as_str().to_owned()).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_large_crawlers_schema() {
        let egress: Vec<IpNet> = vec![
            "192.0.2.0/24".parse().unwrap(),
            "198.51.100.7/32".parse().unwrap(),
            "2001:db8::/32".parse().unwrap(),
            "192.0.2.77/24".parse().unwrap(),
        ];
        let at = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_796_144_400);
        let json = ranges_json(&egress, at);
        assert_eq!(
            json,
            serde_json::json!({
                "creationTime": "2026-12-01T17:00:00Z",
                "prefixes": [
                    {"ipv4Prefix": "192.0.2.0/24"},
                    {"ipv4Prefix": "198.51.100.7/32"},
                    {"ipv6Prefix": "2001:db8::/32"},
                    {"ipv4Prefix": "192.0.2.0/24"},
                ]
            })
        );
    }
}
