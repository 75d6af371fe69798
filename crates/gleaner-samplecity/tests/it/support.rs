//! Shared helpers: a city at a fixed instant, origins without sockets, and requests.

use chrono::{DateTime, TimeZone, Utc};
use gleaner_samplecity::{City, Origins, Reply, Request};
use http::HeaderMap;

/// A fixed "now": two weeks before the EU's autumn DST change and three before Montreal's.
pub fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 10, 12, 10, 0, 0).unwrap()
}

pub fn city() -> City {
    City::generate(7, now())
}

pub fn origins(city: &City) -> Origins {
    Origins::on_port(city.len(), 8080)
}

pub fn get(city: &City, site: usize, path: &str) -> Reply {
    get_at(city, site, 0, path)
}

pub fn get_at(city: &City, site: usize, pass: u32, path: &str) -> Reply {
    let headers = HeaderMap::new();
    let mut req = Request::get(path, &headers);
    // Past the throttle window unless a test says otherwise.
    req.moment.elapsed = std::time::Duration::from_secs(3600);
    city.respond(&origins(city), site, pass, &req)
}

/// The path of a URL on the test origins.
pub fn path_of(url: &str) -> &str {
    let rest = url.strip_prefix("http://").unwrap();
    &rest[rest.find('/').unwrap()..]
}
