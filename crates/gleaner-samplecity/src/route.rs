//! Routing: what each path of each site answers, as a pure function of the city, the pass
//! and the request ([`City::respond`]).
//!
//! The two things that depend on time while serving — the throttling venue's 429 window
//! and the licensed API's rate limit — come in as a [`Moment`] that the caller measures
//! (with [`Traffic`], or by hand in tests). The demo server and the test web both route
//! through here, so they serve the same city.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use bytes::Bytes;
use chrono::{DateTime, Timelike, Utc};
use http::HeaderMap;

use crate::city::{City, Origins};
use crate::venues::{Refusal, Role};
use crate::{api, feeds, ical, images, pages, rights, sitemap};

/// What the caller measured when the request arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Moment {
    /// Time since serving started (the throttling venue's window counts from 0).
    pub elapsed: Duration,
    /// Calls to the licensed API within its window, this one included.
    pub api_calls: u32,
}

/// One request, as routing sees it.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// `GET`, `HEAD`, `POST` …
    pub method: &'a str,
    /// The path, starting with `/`.
    pub path: &'a str,
    /// The query string without `?`.
    pub query: Option<&'a str>,
    /// The request headers (validators are read from here).
    pub headers: &'a HeaderMap,
    /// The request body (only the language-model mock reads one).
    pub body: &'a [u8],
    /// Time-dependent facts measured by the caller.
    pub moment: Moment,
}

impl<'a> Request<'a> {
    /// A `GET` of `path` (which may carry `?query`) with no headers, at moment zero.
    pub fn get(path: &'a str, headers: &'a HeaderMap) -> Self {
        let (path, query) = match path.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (path, None),
        };
        Request { method: "GET", path, query, headers, body: &[], moment: Moment::default() }
    }

    fn param(&self, name: &str) -> Option<&'a str> {
        self.query?.split('&').find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    }
}

/// What kind of answer a [`Reply`] is (the test web maps it to its ledger's categories).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyKind {
    /// `/robots.txt`.
    Robots,
    /// A 200 with content.
    Page,
    /// A 304.
    NotModified,
    /// 404 or 410.
    Gone,
    /// 429 or 503 with `Retry-After`.
    Throttle {
        /// The wait the header asks for.
        retry_after: Duration,
    },
    /// 401 or 403 (a missing or wrong API key).
    Block,
    /// 405 and other client errors.
    Refused,
}

/// An answer, ready to be written by any HTTP server.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// Headers, names in lower case.
    pub headers: Vec<(&'static str, String)>,
    /// The body (servers leave it out for `HEAD`).
    pub body: Bytes,
    /// What kind of answer it is.
    pub kind: ReplyKind,
}

impl Reply {
    fn new(status: u16, kind: ReplyKind, content_type: &str, body: impl Into<Bytes>) -> Self {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            body: body.into(),
            kind,
        }
    }

    fn ok(content_type: &str, body: impl Into<Bytes>) -> Self {
        Reply::new(200, ReplyKind::Page, content_type, body)
    }

    fn html(body: String) -> Self {
        Reply::ok("text/html; charset=utf-8", body)
    }

    fn json(value: &serde_json::Value) -> Self {
        Reply::ok("application/json", serde_json::to_vec_pretty(value).unwrap_or_default())
    }

    fn not_found() -> Self {
        Reply::new(
            404,
            ReplyKind::Gone,
            "text/html; charset=utf-8",
            "<!doctype html><title>404</title><h1>Not found</h1>\n",
        )
    }

    fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// The value of header `name`, if set.
    pub fn header_value(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// The body as text (lossy), for tests.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Counts what [`Moment`] needs while a server runs: its start, and recent API calls.
#[derive(Debug)]
pub struct Traffic {
    started: Instant,
    api: Mutex<VecDeque<Instant>>,
}

impl Default for Traffic {
    fn default() -> Self {
        Traffic { started: Instant::now(), api: Mutex::new(VecDeque::new()) }
    }
}

impl Traffic {
    /// Traffic counted from now.
    pub fn new() -> Self {
        Traffic::default()
    }

    /// Measures a request to `site` arriving now (counting it when it is an API call).
    pub fn moment(&self, city: &City, site: usize) -> Moment {
        let now = Instant::now();
        let mut api_calls = 0;
        if city.site(site).role == Role::LicensedApi {
            let mut calls = self.api.lock().unwrap_or_else(PoisonError::into_inner);
            while calls.front().is_some_and(|t| now.duration_since(*t) >= city.api_window()) {
                calls.pop_front();
            }
            calls.push_back(now);
            api_calls = calls.len() as u32;
        }
        Moment { elapsed: now.duration_since(self.started), api_calls }
    }
}

/// Content version of everything at a pass: `Last-Modified` is the hour before `now`
/// plus one hour per pass.
fn last_modified(now: DateTime<Utc>, pass: u32) -> String {
    let base = now.with_minute(0).and_then(|t| t.with_second(0)).unwrap_or(now)
        - chrono::Duration::hours(1);
    let t = base + chrono::Duration::hours(i64::from(pass));
    t.format("%a, %d %b %Y %H:%M:%S GMT").to_string()
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Adds `ETag`/`Last-Modified` to a 200 and answers 304 to matching validators
/// (If-None-Match wins over If-Modified-Since, RFC 9110 §13.2.2).
fn validated(mut reply: Reply, city: &City, pass: u32, req: &Request<'_>) -> Reply {
    if reply.status != 200 {
        return reply;
    }
    let etag = format!("\"{:016x}\"", fnv1a(&reply.body));
    let modified = last_modified(city.now(), pass);
    let get = |name: &str| req.headers.get(name).and_then(|v| v.to_str().ok());
    let fresh = match (get("if-none-match"), get("if-modified-since")) {
        (Some(inm), _) => {
            inm.split(',').map(|t| t.trim().trim_start_matches("W/")).any(|t| t == "*" || t == etag)
        }
        (None, Some(ims)) => match (
            DateTime::parse_from_rfc2822(&ims.replace("GMT", "+0000")),
            DateTime::parse_from_rfc2822(&modified.replace("GMT", "+0000")),
        ) {
            (Ok(since), Ok(lm)) => lm <= since,
            _ => false,
        },
        (None, None) => false,
    };
    reply.headers.push(("etag", etag));
    reply.headers.push(("last-modified", modified));
    if fresh {
        let kind = if reply.kind == ReplyKind::Robots {
            ReplyKind::Robots
        } else {
            ReplyKind::NotModified
        };
        reply.headers.retain(|(n, _)| *n != "content-type");
        return Reply { status: 304, body: Bytes::new(), kind, ..reply };
    }
    reply
}

impl City {
    /// The answer of site `site` to `req` at `pass` (see the crate docs for the layout).
    pub fn respond(&self, origins: &Origins, site: usize, pass: u32, req: &Request<'_>) -> Reply {
        let s = self.site(site);
        let origin = origins.origin(site);
        let mut reply = if req.path == "/robots.txt" {
            let plan = rights::robots_plan(s);
            let sitemap = s.is_venue().then(|| origins.url(site, "/sitemap_index.xml"));
            Reply::new(
                200,
                ReplyKind::Robots,
                "text/plain; charset=utf-8",
                rights::render_robots(self.token(), s, &plan, sitemap.as_deref()),
            )
        } else if !matches!(req.method, "GET" | "HEAD") && s.role != Role::LanguageModel {
            Reply::new(405, ReplyKind::Refused, "text/plain", "method not allowed\n")
                .header("allow", "GET, HEAD")
        } else {
            self.common(origins, site, req).unwrap_or_else(|| match s.role {
                Role::Venue => self.venue(origins, site, pass, req),
                Role::TownHall => self.town_hall(origins, site, pass, req),
                Role::LicensedApi => self.licensed(origins, pass, req),
                Role::OpenData => self.open_data(pass, req),
                Role::PressAgency => press(origins, site, req),
                Role::LanguageModel => self.language_model(origins, req),
            })
        };
        reply.headers.extend(rights::site_headers(s, origin));
        validated(reply, self, pass, req)
    }

    /// Paths every site may answer: rights files and the logo.
    fn common(&self, origins: &Origins, site: usize, req: &Request<'_>) -> Option<Reply> {
        let s = self.site(site);
        match req.path {
            "/.well-known/tdmrep.json" => Some(match rights::tdmrep(s, origins.origin(site)) {
                Some(text) => Reply::ok("application/json", text),
                None => Reply::not_found(),
            }),
            "/ai.txt" => Some(match rights::ai_txt(s) {
                Some(text) => Reply::ok("text/plain; charset=utf-8", text),
                None => Reply::not_found(),
            }),
            "/img/logo.svg" if s.role != Role::LanguageModel => Some(
                Reply::ok("image/svg+xml", images::LOGO_SVG)
                    .header("cache-control", "public, max-age=86400"),
            ),
            _ => None,
        }
    }

    fn venue(&self, origins: &Origins, site: usize, pass: u32, req: &Request<'_>) -> Reply {
        let s = self.site(site);
        let listing = s.lang.listing_path();
        let events = self.venue_events(site, pass);
        let path = req.path;
        if path == "/" {
            return Reply::html(pages::venue_home(s, origins, site));
        }
        if path == listing || path == listing.trim_end_matches('/') {
            let page = req.param("page").and_then(|p| p.parse().ok()).unwrap_or(1);
            return match pages::listing(s, origins, site, &events, page) {
                Some(html) => Reply::html(html),
                None => Reply::not_found(),
            };
        }
        match path {
            "/terms.html" => return Reply::html(pages::terms(s, origins, site)),
            "/sitemap_index.xml" => {
                return Reply::ok("application/xml", sitemap::index(origins, site, self.now()));
            }
            "/sitemap.xml" => {
                return Reply::ok(
                    "application/xml",
                    sitemap::events(origins, site, s, &events, self.now()),
                );
            }
            "/sitemap-pages.xml.gz" => {
                return Reply::ok("application/gzip", sitemap::pages_gz(origins, site));
            }
            "/api/events.json" if s.has(crate::Extra::JsonApi) => {
                return Reply::json(&api::venue_api(s, origins, site, &events));
            }
            _ => {}
        }
        if let Some(rest) = path.strip_prefix(listing) {
            if rest == "feed.rss" && s.has(crate::Extra::RssEvents) {
                return Reply::ok(
                    "application/rss+xml; charset=utf-8",
                    feeds::events_rss(origins, site, s, &events, self.now()),
                );
            }
            if rest == "feed.atom" && s.has(crate::Extra::AtomEvents) {
                return Reply::ok(
                    "application/atom+xml; charset=utf-8",
                    feeds::events_atom(origins, site, s, &events, self.now()),
                );
            }
            if s.refusal == Some(Refusal::Throttle) && req.moment.elapsed < self.throttle_for() {
                return throttled(self.throttle_for() - req.moment.elapsed);
            }
            if let Some(e) = events.iter().find(|e| e.path == path) {
                return Reply::html(pages::event_page(s, origins, site, e));
            }
            return Reply::not_found();
        }
        if let Some(img) = path.strip_prefix("/img/poster-") {
            let (n, ext) = img.split_once('.').unwrap_or((img, ""));
            let Ok(n) = n.parse::<u32>() else { return Reply::not_found() };
            let reply = match ext {
                "png" => Reply::ok("image/png", images::poster_png(n)),
                "jpg" => Reply::ok("image/jpeg", images::POSTER_JPEG),
                _ => return Reply::not_found(),
            };
            return reply.header("cache-control", images::cache_control(n));
        }
        if let Some(n) = path.strip_prefix("/live/")
            && n.parse::<u32>().is_ok()
        {
            return Reply::html(pages::simple_page(
                s.lang,
                s.name,
                "<p>Live stream / En direct</p>\n",
            ));
        }
        Reply::not_found()
    }

    fn town_hall(&self, origins: &Origins, site: usize, pass: u32, req: &Request<'_>) -> Reply {
        let s = self.site(site);
        let news = feeds::news(self, s.zone, pass);
        match req.path {
            "/" => Reply::html(pages::simple_page(
                s.lang,
                s.name,
                "<ul><li><a href=\"/actualites/\">Actualités</a></li>\
                 <li><a href=\"/agenda.ics\">Agenda (iCalendar)</a></li>\
                 <li><a href=\"/mentions-legales.html\">Mentions légales</a></li></ul>\n\
                 <p>Accueil du public : du lundi au vendredi, 8 h 30 – 12 h et 13 h 30 – 17 h.</p>\n",
            )),
            "/actualites/" | "/actualites" => Reply::html(feeds::news_index(&news)),
            "/actualites/rss.xml" => Reply::ok(
                "application/rss+xml; charset=utf-8",
                feeds::news_rss(origins, site, s, &news),
            ),
            "/actualites/atom.xml" => Reply::ok(
                "application/atom+xml; charset=utf-8",
                feeds::news_atom(origins, site, s, &news),
            ),
            "/agenda.ics" => Reply::ok(
                "text/calendar; charset=utf-8",
                ical::render(self.now(), s.zone, origins.origin(site)),
            ),
            "/mentions-legales.html" => Reply::html(pages::simple_page(
                s.lang,
                "Mentions légales",
                "<p>Les actualités et l'agenda de la ville sont publiés sous Licence Ouverte 2.0 ; \
                 les alertes officielles peuvent être reprises telles quelles avec la source.</p>\n",
            )),
            path => {
                let n = path.strip_prefix("/actualites/").and_then(|r| r.strip_suffix(".html"));
                match n
                    .and_then(|n| n.parse::<u32>().ok())
                    .and_then(|n| news.iter().find(|i| i.number == n))
                {
                    Some(item) => Reply::html(feeds::news_page(item)),
                    None => Reply::not_found(),
                }
            }
        }
    }

    fn licensed(&self, origins: &Origins, pass: u32, req: &Request<'_>) -> Reply {
        match req.path {
            "/" => Reply::json(&serde_json::json!({
                "name": "Billetterie Régionale Discovery API",
                "events": "/v1/events.json?apikey={key}&page={n}",
                "rate_limit": format!("{} calls per {} s", self.api_limit(), self.api_window().as_secs()),
            })),
            "/v1/events.json" => {
                if req.param("apikey") != Some(self.api_key()) {
                    return Reply::new(
                        401,
                        ReplyKind::Block,
                        "application/json",
                        api::bad_key().to_string(),
                    );
                }
                if req.moment.api_calls > self.api_limit() {
                    let wait = self.api_window();
                    return Reply::new(
                        429,
                        ReplyKind::Throttle { retry_after: wait },
                        "application/json",
                        "{\"fault\":{\"faultstring\":\"Rate limit quota violation\"}}",
                    )
                    .header("retry-after", wait.as_secs().to_string());
                }
                let page = req.param("page").and_then(|p| p.parse().ok()).unwrap_or(0);
                Reply::json(&api::licensed_api(self, origins, pass, page))
            }
            _ => Reply::not_found(),
        }
    }

    fn open_data(&self, pass: u32, req: &Request<'_>) -> Reply {
        match req.path {
            "/" => Reply::html(pages::simple_page(
                crate::Lang::Fr,
                "Données ouvertes de l'Aube",
                "<ul><li><a href=\"/api/vigilance.json\">Vigilance météo (JSON)</a></li>\
                 <li><a href=\"/api/carburants.json\">Prix des carburants (JSON)</a></li>\
                 <li><a href=\"/api/carburants.csv\">Prix des carburants (CSV)</a></li></ul>\n\
                 <p>Licence Ouverte / Open Licence 2.0.</p>\n",
            )),
            "/api/vigilance.json" => Reply::json(&api::vigilance(self.now(), pass)),
            "/api/carburants.json" => Reply::json(&api::fuel_json(self.now(), pass)),
            "/api/carburants.csv" => {
                Reply::ok("text/csv; charset=utf-8", api::fuel_csv(self.now(), pass))
            }
            _ => Reply::not_found(),
        }
    }

    fn language_model(&self, origins: &Origins, req: &Request<'_>) -> Reply {
        match (req.method, req.path) {
            // `mock-busy` always answers 429 with a one-second Retry-After.
            ("POST", "/v1/chat/completions")
                if serde_json::from_slice::<serde_json::Value>(req.body)
                    .is_ok_and(|v| v["model"] == "mock-busy") =>
            {
                throttled(Duration::from_secs(1))
            }
            ("POST", "/v1/chat/completions") => match api::chat_completion(self, origins, req.body) {
                Ok(v) => Reply::json(&v),
                Err(msg) => Reply::new(
                    400,
                    ReplyKind::Refused,
                    "application/json",
                    serde_json::json!({ "error": { "message": msg, "type": "invalid_request_error" } }).to_string(),
                ),
            },
            ("GET", "/v1/models") => Reply::json(&api::models()),
            ("GET" | "HEAD", _) => Reply::not_found(),
            _ => Reply::new(405, ReplyKind::Refused, "text/plain", "method not allowed\n"),
        }
    }
}

fn throttled(remaining: Duration) -> Reply {
    let secs = (remaining.as_secs() + u64::from(remaining.subsec_nanos() > 0)).max(1);
    Reply::new(
        429,
        ReplyKind::Throttle { retry_after: Duration::from_secs(secs) },
        "text/html; charset=utf-8",
        "<!doctype html><title>429</title><h1>Demasiadas peticiones</h1><p>Vuelva más tarde.</p>\n",
    )
    .header("retry-after", secs.to_string())
}

fn press(origins: &Origins, site: usize, req: &Request<'_>) -> Reply {
    match req.path {
        "/" => Reply::html(pages::simple_page(
            crate::Lang::Fr,
            "Agence Presse Locale",
            "<ul><li><a href=\"/presse/\">Espace presse</a></li>\
             <li><a href=\"/conditions.html\">Conditions</a></li></ul>\n",
        )),
        "/presse/" | "/presse" => Reply::html(pages::press_page(origins, site)),
        "/conditions.html" => Reply::html(pages::press_terms()),
        "/img/photo-max-age.jpg" => Reply::ok("image/jpeg", images::PHOTO_JPEG)
            .header("cache-control", "public, max-age=3600"),
        // Fresh for a minute only: the relay revalidates it conditionally once stale.
        "/img/photo-short.jpg" => Reply::ok("image/jpeg", images::PHOTO_JPEG)
            .header("cache-control", "public, max-age=60"),
        "/img/photo-no-store.jpg" => {
            Reply::ok("image/jpeg", images::PHOTO_JPEG).header("cache-control", "no-store")
        }
        "/img/photo-private.png" => Reply::ok("image/png", images::poster_png(7))
            .header("cache-control", "private, max-age=600")
            .header("x-robots-tag", "noimageai"),
        _ => Reply::not_found(),
    }
}
