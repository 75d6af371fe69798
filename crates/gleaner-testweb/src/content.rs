//! What each path answers: robots files, pages, redirects and the fault scenarios.
//!
//! [`route`] turns (site, pass, request) into a [`Reply`] description; the server module
//! turns that into bytes on the wire. Everything here is deterministic from the manifest,
//! the site index and the pass number, except the throttle state, which lives in
//! [`SiteState`] because it depends on how many pages the site has already served.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use gleaner_samplecity::ReplyKind;

use crate::city::CityWeb;
use crate::ledger::{Served, is_robots_path};
use crate::manifest::{
    Manifest, RetryAfterForm, RobotsRules, RobotsScenario, SiteBehaviour, SiteSpec,
};

/// Size of `/huge` (12 MiB: over gleaner's 8 MiB cap).
pub(crate) const HUGE_BYTES: u64 = 12 * 1024 * 1024;
/// What `/lying-length` claims in `Content-Length`.
pub(crate) const LYING_CLAIM: u64 = 1_000_000;
/// What `/lying-length` actually sends before closing.
pub(crate) const LYING_ACTUAL: usize = 1_000;

/// How the body of a reply is produced.
#[derive(Debug)]
pub(crate) enum Payload {
    /// One chunk.
    Once(Bytes),
    /// `total` bytes made of `chunk` repeated, as fast as the client reads.
    Repeat { chunk: Bytes, total: u64 },
    /// `count` bytes, one every `interval`.
    Trickle { count: u32, interval: Duration },
    /// These bytes, then an error that makes the server drop the connection.
    Lie(Bytes),
}

/// How the server misbehaves before (or instead of) answering.
#[derive(Debug)]
pub(crate) enum Fault {
    /// No fault.
    None,
    /// Wait this long, then answer.
    Delay(Duration),
    /// Wait this long, then close without answering.
    Hang(Duration),
    /// Reset the connection at once.
    Reset,
}

/// A response, described.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) payload: Payload,
    pub(crate) served: Served,
    pub(crate) retry_after: Option<Duration>,
    pub(crate) fault: Fault,
}

impl Reply {
    fn new(status: u16, served: Served, content_type: &str, body: impl Into<Bytes>) -> Self {
        Reply {
            status,
            headers: vec![("content-type", content_type.to_owned())],
            payload: Payload::Once(body.into()),
            served,
            retry_after: None,
            fault: Fault::None,
        }
    }

    fn html(status: u16, served: Served, body: String) -> Self {
        Reply::new(status, served, "text/html; charset=utf-8", body)
    }

    fn text(status: u16, served: Served, body: impl Into<Bytes>) -> Self {
        Reply::new(status, served, "text/plain; charset=utf-8", body)
    }

    fn redirect(status: u16, served: Served, location: String) -> Self {
        let mut r = Reply::text(status, served, format!("moved to {location}\n"));
        r.headers.push(("location", location));
        r
    }

    fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// Whether the reply carries a validator.
    pub(crate) fn has_validators(&self) -> bool {
        self.headers.iter().any(|(n, _)| *n == "etag" || *n == "last-modified")
    }
}

/// The request fields routing looks at.
#[derive(Debug)]
pub(crate) struct Ask<'a> {
    pub(crate) path: &'a str,
    pub(crate) query: Option<&'a str>,
    pub(crate) if_none_match: Option<&'a str>,
    pub(crate) if_modified_since: Option<&'a str>,
}

/// Mutable per-site state: how many pages were served, and the throttle window.
#[derive(Debug, Default)]
pub(crate) struct SiteState {
    pages: AtomicU32,
    /// When the site's pause ends, on the ledger's clock (time since its epoch).
    throttle_until: Mutex<Option<Duration>>,
}

/// Everything routing needs that is shared by all sites.
#[derive(Debug)]
pub(crate) struct World<'a> {
    pub(crate) manifest: &'a Manifest,
    pub(crate) addrs: &'a [SocketAddr],
    pub(crate) pass: u32,
    /// Now on the ledger's clock (time since its epoch): the site's own sense of time.
    pub(crate) now: Duration,
    /// Now as a wall time, for `Date` and HTTP-date `Retry-After` headers.
    pub(crate) wall: SystemTime,
}

impl World<'_> {
    fn other_site(&self, site: usize) -> usize {
        (site + 1) % self.addrs.len()
    }

    fn origin(&self, site: usize) -> String {
        format!("http://{}", self.addrs[site])
    }
}

/// Chooses the reply for one request to `site`.
pub(crate) fn route(world: &World<'_>, site: usize, state: &SiteState, ask: &Ask<'_>) -> Reply {
    let spec = &world.manifest.sites[site];
    if is_robots_path(ask.path) {
        return robots(world, site, spec, ask);
    }
    if let Some(reply) = behaviour(spec, state, world) {
        return reply;
    }
    let mut reply = page(world, site, spec, ask);
    if let Some(value) = &spec.page_content_usage {
        reply = reply.header("content-usage", value.clone());
    }
    conditional(reply, ask)
}

/// Chooses the reply for one request to a site that serves the sample city.
///
/// robots.txt follows the site's scenario, rendered from [`SiteSpec::rules`]; page behaviours
/// (throttle, block, challenge, login wall) apply first; everything else is the city's.
pub(crate) fn route_city(
    world: &World<'_>,
    site: usize,
    state: &SiteState,
    ask: &Ask<'_>,
    city: &CityWeb,
    j: usize,
    req: &gleaner_samplecity::Request<'_>,
) -> Reply {
    let spec = &world.manifest.sites[site];
    if is_robots_path(ask.path) {
        if spec.robots != RobotsScenario::Rules || ask.path != "/robots.txt" {
            return robots(world, site, spec, ask);
        }
        // The rules the checks judge are the rules served: the site's spec (copied from
        // the city's robots.txt by `Manifest::with_city`, and editable by tests), plus
        // the city's sitemap line for venues.
        let mut text = render_rules(&world.manifest.token, &spec.rules, site);
        if city.city.site(j).is_venue() {
            let _ = writeln!(text, "\nSitemap: {}", city.origins.url(j, "/sitemap_index.xml"));
        }
        let reply = with_validators(Reply::text(200, Served::Robots, text), world.pass, ask, true);
        return match &spec.robots_x_robots_tag {
            Some(tag) => reply.header("x-robots-tag", tag.clone()),
            None => reply,
        };
    } else if let Some(reply) = behaviour(spec, state, world) {
        return reply;
    }
    let reply = city.city.respond(&city.origins, j, world.pass, req);
    let (served, retry_after) = match reply.kind {
        ReplyKind::Robots => (Served::Robots, None),
        ReplyKind::Page | ReplyKind::Refused => (Served::Page, None),
        ReplyKind::NotModified => (Served::NotModified, None),
        ReplyKind::Gone => (Served::Gone, None),
        ReplyKind::Throttle { retry_after } => (Served::Throttle, Some(retry_after)),
        ReplyKind::Block => (Served::Block, None),
    };
    Reply {
        status: reply.status,
        headers: reply.headers,
        payload: Payload::Once(reply.body),
        served,
        retry_after,
        fault: Fault::None,
    }
}

fn robots(world: &World<'_>, site: usize, spec: &SiteSpec, ask: &Ask<'_>) -> Reply {
    let reply = robots_reply(world, site, spec, ask);
    match &spec.robots_x_robots_tag {
        Some(tag) => reply.header("x-robots-tag", tag.clone()),
        None => reply,
    }
}

fn robots_reply(world: &World<'_>, site: usize, spec: &SiteSpec, ask: &Ask<'_>) -> Reply {
    let token = &world.manifest.token;
    let rules_reply = |text: String| {
        with_validators(
            Reply::text(200, Served::Robots, text),
            0,
            ask,
            /* robots are conditional too */ true,
        )
    };
    if ask.path == "/robots-moved.txt" {
        let from = ask
            .query
            .and_then(|q| q.strip_prefix("from="))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n < world.manifest.sites.len())
            .unwrap_or(site);
        return rules_reply(render_rules(token, &world.manifest.sites[from].rules, from));
    }
    if let Some(k) = ask.path.strip_prefix("/robots-hop/") {
        let RobotsScenario::Redirect { hops, cross_host } = spec.robots else {
            return Reply::text(404, Served::Robots, "no such hop\n");
        };
        return match k.parse::<u8>() {
            Ok(k) if k >= 1 && k < hops => robots_hop(world, site, k + 1, hops, cross_host),
            _ => Reply::text(404, Served::Robots, "no such hop\n"),
        };
    }
    match &spec.robots {
        RobotsScenario::Rules => rules_reply(render_rules(token, &spec.rules, site)),
        RobotsScenario::DisallowAll => rules_reply("User-agent: *\nDisallow: /\n".to_owned()),
        RobotsScenario::Custom(text) => rules_reply(text.clone()),
        RobotsScenario::Status(code) => {
            let mut r = Reply::text(*code, Served::Robots, format!("robots.txt: {code}\n"));
            if *code == 429 || *code == 503 {
                let wait = world.manifest.timings.robots_retry_after;
                let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
                r = r.header("retry-after", secs.to_string());
                r.retry_after = Some(Duration::from_secs(secs));
            }
            r
        }
        RobotsScenario::Timeout => Reply {
            fault: Fault::Hang(world.manifest.timings.hang),
            ..Reply::text(0, Served::Fault, "")
        },
        RobotsScenario::Reset => Reply { fault: Fault::Reset, ..Reply::text(0, Served::Fault, "") },
        RobotsScenario::Redirect { hops, cross_host } => {
            if *hops == 0 {
                rules_reply(render_rules(token, &spec.rules, site))
            } else {
                robots_hop(world, site, 1, *hops, *cross_host)
            }
        }
        RobotsScenario::Large => rules_reply(large_robots(token, &spec.rules, site)),
        RobotsScenario::Garbage => {
            let mut rng = ChaCha8Rng::seed_from_u64(world.manifest.seed ^ (site as u64) << 20);
            let mut bytes = vec![0u8; 4096];
            rng.fill_bytes(&mut bytes);
            Reply::new(200, Served::Robots, "text/plain", bytes)
        }
    }
}

/// A 301 to hop `next` of a chain of `hops` redirects.
fn robots_hop(world: &World<'_>, site: usize, next: u8, hops: u8, cross_host: bool) -> Reply {
    let location = if next < hops {
        format!("/robots-hop/{next}")
    } else if cross_host {
        let other = world.other_site(site);
        format!("{}/robots-moved.txt?from={site}", world.origin(other))
    } else {
        format!("/robots-moved.txt?from={site}")
    };
    Reply::redirect(301, Served::Robots, location)
}

/// The robots.txt text for a site's rules: a `*` group and a group for the bot's token.
pub(crate) fn render_rules(token: &str, rules: &RobotsRules, site: usize) -> String {
    let mut out = format!("# gleaner-testweb site {site}\nUser-agent: *\n");
    for d in &rules.disallow_others {
        let _ = writeln!(out, "Disallow: {d}");
    }
    let _ = writeln!(out, "\nUser-agent: {token}");
    if let Some(delay) = rules.crawl_delay {
        let _ = writeln!(out, "Crawl-delay: {delay}");
    }
    if let Some((n, secs)) = rules.request_rate {
        let _ = writeln!(out, "Request-rate: {n}/{secs}s");
    }
    if let Some((start, end)) = rules.visit_time {
        let hhmm = |m: u16| format!("{:02}{:02}", m / 60, m % 60);
        let _ = writeln!(out, "Visit-time: {}-{}", hhmm(start), hhmm(end));
    }
    for a in &rules.allow {
        let _ = writeln!(out, "Allow: {a}");
    }
    for d in &rules.disallow {
        let _ = writeln!(out, "Disallow: {d}");
    }
    out
}

/// About 600 KiB: the rules, 550 KiB of comments inside the bot's group, then one more rule.
fn large_robots(token: &str, rules: &RobotsRules, site: usize) -> String {
    let mut out = render_rules(token, rules, site);
    let line =
        "# padding so that this file is larger than 500 KiB, as RFC 9309 section 2.5 allows\n";
    while out.len() < 550 * 1024 {
        out.push_str(line);
    }
    out.push_str("Disallow: /late-rule/\n");
    while out.len() < 600 * 1024 {
        out.push_str(line);
    }
    out
}

/// Applies the site's page behaviour (throttle, block, challenge, login wall).
fn behaviour(spec: &SiteSpec, state: &SiteState, world: &World<'_>) -> Option<Reply> {
    let served_before = state.pages.fetch_add(1, Ordering::SeqCst);
    match &spec.behaviour {
        SiteBehaviour::Normal => None,
        SiteBehaviour::Throttle { status, after, suspend_for, retry_after } => {
            let now = world.now;
            let mut until = state.throttle_until.lock().unwrap_or_else(PoisonError::into_inner);
            let end = match *until {
                Some(end) if now < end => end,
                Some(_) => return None,
                None if served_before >= *after => {
                    *until = Some(now + *suspend_for);
                    now + *suspend_for
                }
                None => return None,
            };
            Some(throttle(*status, end - now, *retry_after, world.wall))
        }
        SiteBehaviour::Block { status, after } if served_before >= *after => Some(Reply::html(
            *status,
            Served::Block,
            format!("<!doctype html><title>{status}</title><h1>Access denied</h1>"),
        )),
        SiteBehaviour::Challenge { after } if served_before >= *after => Some(challenge()),
        SiteBehaviour::LoginWall { after } if served_before >= *after => Some(login_wall()),
        SiteBehaviour::Block { .. }
        | SiteBehaviour::Challenge { .. }
        | SiteBehaviour::LoginWall { .. } => None,
    }
}

/// A 429/503 asking for `remaining` (rounded up to whole seconds).
fn throttle(status: u16, remaining: Duration, form: RetryAfterForm, wall: SystemTime) -> Reply {
    let secs = remaining.as_secs() + u64::from(remaining.subsec_nanos() > 0);
    let secs = secs.max(1);
    let mut r = Reply::html(
        status,
        Served::Throttle,
        "<!doctype html><title>Slow down</title><h1>Too many requests</h1>".to_owned(),
    );
    // The Date header is written here, not by hyper, so that an HTTP-date Retry-After is
    // exactly `secs` after it (SPEC §1: the date is taken relative to `Date`).
    let now = UNIX_EPOCH + Duration::from_secs(whole_secs(wall));
    r.headers.push(("date", httpdate::fmt_http_date(now)));
    match form {
        RetryAfterForm::Seconds => {
            r.headers.push(("retry-after", secs.to_string()));
            r.retry_after = Some(Duration::from_secs(secs));
        }
        RetryAfterForm::HttpDate => {
            let at = now + Duration::from_secs(secs);
            r.headers.push(("retry-after", httpdate::fmt_http_date(at)));
            r.retry_after = Some(Duration::from_secs(secs));
        }
        RetryAfterForm::Missing => {}
        RetryAfterForm::Garbage => r.headers.push(("retry-after", "soon-ish".to_owned())),
    }
    r
}

fn whole_secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

fn challenge() -> Reply {
    Reply::html(
        403,
        Served::Block,
        "<!doctype html><title>Just a moment...</title><h1>Checking your browser</h1>\
         <form id=\"challenge-form\"><input type=\"hidden\" name=\"cf\"></form>"
            .to_owned(),
    )
    .header("cf-mitigated", "challenge")
}

fn login_wall() -> Reply {
    Reply::html(
        200,
        Served::Block,
        "<!doctype html><title>Sign in</title><h1>Please sign in to continue</h1>\
         <form action=\"/login\" method=\"post\"><input name=\"user\">\
         <input name=\"password\" type=\"password\"><button>Sign in</button></form>"
            .to_owned(),
    )
}

/// Event page lifecycle, by event number (documented in the crate docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Life {
    Stable,
    Changes,
    Vanishes404,
    Vanishes410,
    Moves,
}

fn life(n: u32) -> Life {
    match n % 5 {
        1 => Life::Stable,
        2 => Life::Changes,
        3 => Life::Vanishes404,
        4 => Life::Vanishes410,
        _ => Life::Moves,
    }
}

fn page(world: &World<'_>, site: usize, spec: &SiteSpec, ask: &Ask<'_>) -> Reply {
    let pass = world.pass;
    let seed = world.manifest.seed;
    let from = world.manifest.events_from();
    let path = ask.path;
    let validated = |reply: Reply, version: u32| with_validators(reply, version, ask, false);
    match path {
        "/" => validated(Reply::html(200, Served::Page, home(site)), 0),
        "/events/" | "/events" => {
            let page_no = ask
                .query
                .and_then(|q| q.strip_prefix("page="))
                .and_then(|n| n.parse::<u32>().ok())
                .unwrap_or(1);
            validated(Reply::html(200, Served::Page, listing(spec, pass, page_no)), pass)
        }
        "/bench" => validated(Reply::text(200, Served::Page, "ok\n"), 0),
        "/changing.html" => {
            validated(Reply::html(200, Served::Page, event_html(from, seed, site, 0, pass)), pass)
        }
        "/malformed.html" => validated(Reply::html(200, Served::Page, malformed()), 0),
        "/challenge" => challenge(),
        "/login" => login_wall(),
        "/redirect/private" => {
            Reply::redirect(302, Served::Redirect, "/private/secret.html".into())
        }
        "/redirect/other-site" => {
            let other = world.origin(world.other_site(site));
            Reply::redirect(302, Served::Redirect, format!("{other}/events/1.html"))
        }
        "/redirect/loop" => Reply::redirect(302, Served::Redirect, "/redirect/loop-b".into()),
        "/redirect/loop-b" => Reply::redirect(302, Served::Redirect, "/redirect/loop".into()),
        "/slow/first-byte" => Reply {
            fault: Fault::Delay(world.manifest.timings.slow_first_byte),
            ..validated(Reply::html(200, Served::Page, event_html(from, seed, site, 1, 0)), 0)
        },
        "/slow/trickle" => Reply {
            payload: Payload::Trickle {
                count: world.manifest.timings.trickle_bytes,
                interval: world.manifest.timings.trickle_interval,
            },
            ..Reply::text(200, Served::Page, "")
        }
        .header("etag", "\"trickle-v1\"")
        .header("last-modified", last_modified(0)),
        "/huge" => Reply {
            payload: Payload::Repeat {
                chunk: Bytes::from(vec![b'x'; 64 * 1024]),
                total: HUGE_BYTES,
            },
            ..Reply::html(200, Served::Page, String::new())
        }
        .header("etag", "\"huge-v1\"")
        .header("last-modified", last_modified(0)),
        "/lying-length" => Reply {
            payload: Payload::Lie(Bytes::from(vec![b'y'; LYING_ACTUAL])),
            served: Served::Fault,
            ..Reply::html(200, Served::Fault, String::new())
        }
        .header("content-length", LYING_CLAIM.to_string())
        .header("etag", "\"lying-v1\"")
        .header("last-modified", last_modified(0)),
        "/gzip-bomb" => Reply::new(200, Served::Page, "text/html", gzip_bomb())
            .header("content-encoding", "gzip")
            .header("etag", "\"bomb-v1\"")
            .header("last-modified", last_modified(0)),
        _ => other_page(world, site, spec, ask),
    }
}

fn other_page(world: &World<'_>, site: usize, spec: &SiteSpec, ask: &Ask<'_>) -> Reply {
    let pass = world.pass;
    let seed = world.manifest.seed;
    let from = world.manifest.events_from();
    let path = ask.path;
    let validated = |reply: Reply, version: u32| with_validators(reply, version, ask, false);
    if let Some(n) = number_between(path, "/events/moved/", ".html").filter(|n| *n <= spec.events) {
        if life(n) == Life::Moves && pass >= 1 {
            return validated(
                Reply::html(200, Served::Page, event_html(from, seed, site, n, 0)),
                0,
            );
        }
        return gone(404);
    }
    if let Some(n) = number_between(path, "/events/", ".html").filter(|n| *n <= spec.events) {
        if n == 0 {
            return gone(404);
        }
        let page = |reply: Reply| match &spec.page_robots_tag {
            Some(tag) => reply.header("robots-tag", tag.clone()),
            None => reply,
        };
        return match (life(n), pass) {
            (Life::Stable, _) | (_, 0) => page(validated(
                Reply::html(200, Served::Page, event_html(from, seed, site, n, 0)),
                0,
            )),
            (Life::Changes, _) => page(validated(
                Reply::html(200, Served::Page, event_html(from, seed, site, n, pass)),
                pass,
            )),
            (Life::Vanishes404, _) => gone(404),
            (Life::Vanishes410, _) => gone(410),
            (Life::Moves, _) => {
                Reply::redirect(301, Served::Redirect, format!("/events/moved/{n}.html"))
            }
        };
    }
    if let Some(n) = number_between(path, "/redirect/chain/", "") {
        let next =
            if n <= 1 { "/events/1.html".to_owned() } else { format!("/redirect/chain/{}", n - 1) };
        return Reply::redirect(302, Served::Redirect, next);
    }
    if let Some(code) = number_between(path, "/status/", "") {
        return status_page(code, ask.query, world.wall);
    }
    if path.starts_with("/private/") || path.starts_with("/late-rule/") || path == "/about.html" {
        return validated(Reply::html(200, Served::Page, event_html(from, seed, site, 0, 0)), 0);
    }
    if path.starts_with("/events/hidden") {
        return validated(Reply::html(200, Served::Page, event_html(from, seed, site, 99, 0)), 0);
    }
    gone(404)
}

/// `/status/{code}`: that status; 429/503 take `?retry_after=N` (seconds).
fn status_page(code: u32, query: Option<&str>, wall: SystemTime) -> Reply {
    let code = u16::try_from(code).ok().filter(|c| (200..600).contains(c));
    let Some(code) = code else {
        return gone(404);
    };
    match code {
        401 | 403 => Reply::html(
            code,
            Served::Block,
            format!("<!doctype html><title>{code}</title><h1>Access denied</h1>"),
        ),
        404 | 410 => gone(code),
        429 | 503 => {
            let secs = query
                .and_then(|q| q.strip_prefix("retry_after="))
                .and_then(|n| n.parse::<u64>().ok());
            match secs {
                Some(s) => throttle(code, Duration::from_secs(s), RetryAfterForm::Seconds, wall),
                None => throttle(code, Duration::from_secs(60), RetryAfterForm::Missing, wall),
            }
        }
        _ => Reply::text(code, Served::Page, format!("status {code}\n")),
    }
}

fn gone(code: u16) -> Reply {
    Reply::html(
        code,
        Served::Gone,
        format!("<!doctype html><title>{code}</title><h1>Not here</h1>"),
    )
}

fn number_between(path: &str, prefix: &str, suffix: &str) -> Option<u32> {
    path.strip_prefix(prefix)?.strip_suffix(suffix)?.parse().ok()
}

/// Adds `ETag` and `Last-Modified`, and turns the reply into a 304 when the client's
/// validators match (If-None-Match wins over If-Modified-Since, RFC 9110 §13.2.2).
fn with_validators(mut reply: Reply, version: u32, ask: &Ask<'_>, check: bool) -> Reply {
    let Payload::Once(body) = &reply.payload else {
        return reply;
    };
    let etag = format!("\"{:016x}\"", fnv1a(body));
    let modified = last_modified(version);
    reply.headers.push(("etag", etag));
    reply.headers.push(("last-modified", modified));
    if check { conditional(reply, ask) } else { reply }
}

/// Answers 304 when the validators in `ask` match those in `reply`.
fn conditional(reply: Reply, ask: &Ask<'_>) -> Reply {
    if reply.status != 200 {
        return reply;
    }
    let get = |name| reply.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str());
    let (Some(etag), Some(modified)) = (get("etag"), get("last-modified")) else {
        return reply;
    };
    let fresh = match (ask.if_none_match, ask.if_modified_since) {
        (Some(inm), _) => {
            inm.split(',').map(|t| t.trim().trim_start_matches("W/")).any(|t| t == "*" || t == etag)
        }
        (None, Some(ims)) => {
            match (httpdate::parse_http_date(ims), httpdate::parse_http_date(modified)) {
                (Ok(since), Ok(lm)) => lm <= since,
                _ => false,
            }
        }
        (None, None) => false,
    };
    if !fresh {
        return reply;
    }
    let headers =
        reply.headers.into_iter().filter(|(n, _)| *n == "etag" || *n == "last-modified").collect();
    Reply {
        status: 304,
        headers,
        payload: Payload::Once(Bytes::new()),
        served: if reply.served == Served::Robots { Served::Robots } else { Served::NotModified },
        retry_after: None,
        fault: reply.fault,
    }
}

/// `Last-Modified` for content version `version`: 2026-01-01 plus that many days.
fn last_modified(version: u32) -> String {
    let base = UNIX_EPOCH + Duration::from_secs(1_767_225_600);
    httpdate::fmt_http_date(base + Duration::from_secs(86_400 * u64::from(version)))
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

fn home(site: usize) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>Site {site}</title></head><body><h1>What's on at site {site}</h1>\
         <ul><li><a href=\"/events/\">Events</a></li><li><a href=\"/about.html\">About</a></li>\
         </ul></body></html>"
    )
}

/// The event numbers listed at `pass`, split into two pages.
fn listing(spec: &SiteSpec, pass: u32, page_no: u32) -> String {
    let listed: Vec<String> = (1..=spec.events)
        .filter_map(|n| match (life(n), pass) {
            (_, 0) | (Life::Stable | Life::Changes, _) => Some(format!("/events/{n}.html")),
            (Life::Moves, _) => Some(format!("/events/moved/{n}.html")),
            (Life::Vanishes404 | Life::Vanishes410, _) => None,
        })
        .collect();
    let half = listed.len().div_ceil(2);
    let (items, next) = if page_no <= 1 {
        (&listed[..half], Some("/events/?page=2"))
    } else {
        (&listed[half..], None)
    };
    let mut out = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Events</title>\
         </head><body><h1>Events</h1><ul>",
    );
    for href in items {
        let _ = write!(out, "<li><a href=\"{href}\">{href}</a></li>");
    }
    out.push_str("</ul>");
    if let Some(next) = next {
        let _ = write!(out, "<a rel=\"next\" href=\"{next}\">Next page</a>");
    }
    out.push_str("</body></html>");
    out
}

const WHAT: [&str; 8] = [
    "Jazz night",
    "Puppet theatre",
    "Harvest market",
    "Organ recital",
    "Street food festival",
    "Poetry slam",
    "Open studio",
    "Family science day",
];
const WHERE: [&str; 6] = [
    "Town Hall",
    "Old Library",
    "Riverside Park",
    "Grand Theatre",
    "Market Square",
    "Community Centre",
];

/// An event page with JSON-LD, on one of the 28 days from `from`; `version` changes the
/// text (pages that change per pass).
fn event_html(from: chrono::NaiveDate, seed: u64, site: usize, n: u32, version: u32) -> String {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ ((site as u64) << 24) ^ u64::from(n));
    let what = WHAT[rng.random_range(0..WHAT.len())];
    let place = WHERE[rng.random_range(0..WHERE.len())];
    let day: i32 = rng.random_range(1..=28);
    let offset = u64::try_from(day - 1).unwrap_or(0);
    let date = from.checked_add_days(chrono::Days::new(offset)).unwrap_or(from);
    let price = rng.random_range(0..=30);
    let hour = 18 + version % 4;
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{what} #{n}</title>\
         <script type=\"application/ld+json\">{{\"@context\":\"https://schema.org\",\
         \"@type\":\"Event\",\"name\":\"{what} #{n}\",\
         \"startDate\":\"{date}T{hour}:30:00+01:00\",\
         \"location\":{{\"@type\":\"Place\",\"name\":\"{place}\",\
         \"address\":\"{n} High Street\"}},\
         \"offers\":{{\"@type\":\"Offer\",\"price\":\"{price}.00\",\"priceCurrency\":\"EUR\"}}}}\
         </script></head><body><h1>{what} #{n}</h1>\
         <p>At {place} on {date} at {hour}:30 (version {version}).</p>\
         <a href=\"/events/\">All events</a></body></html>"
    )
}

fn malformed() -> String {
    "<!doctype html><html><head><title>Broken <b>page</title>\
     <script type=\"application/ld+json\">{\"@type\": \"Event\", \"name\": \"Unclosed\",</script>\
     <script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":\"Event\",\
     \"name\":\"Survivor\",\"startDate\":\"2026-12-01T20:00:00+01:00\"}</script>\
     <body><div><p>Unclosed <i>tags <table><tr><td>cell</div>\u{fffd}&bogus; &#xZZ;\
     <a href=\"javascript:void(0)\">x</a><a href=\"http://[::1\">broken url</a>"
        .to_owned()
}

/// 64 MiB of zeros in 65,250 bytes of gzip, made once with
/// `gzip -9` (mtime 0) and kept in `testdata/`, so no test pays for compressing it.
fn gzip_bomb() -> Bytes {
    Bytes::from_static(include_bytes!("../testdata/gzip-bomb-64MiB.gz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask<'a>(path: &'a str, inm: Option<&'a str>, ims: Option<&'a str>) -> Ask<'a> {
        Ask { path, query: None, if_none_match: inm, if_modified_since: ims }
    }

    fn header<'r>(r: &'r Reply, name: &str) -> Option<&'r str> {
        r.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn rfc9110_if_none_match_wins_and_accepts_weak_and_star() {
        let page = || Reply::text(200, Served::Page, "hello");
        let fresh = with_validators(page(), 0, &ask("/", None, None), true);
        let etag = header(&fresh, "etag").unwrap().to_owned();
        let lm = header(&fresh, "last-modified").unwrap().to_owned();
        let status = |inm: Option<&str>, ims: Option<&str>| {
            with_validators(page(), 0, &ask("/", inm, ims), true).status
        };
        assert_eq!(status(Some(&etag), None), 304);
        assert_eq!(status(Some(&format!("W/{etag}")), None), 304);
        assert_eq!(status(Some(&format!("\"a\", {etag}")), None), 304);
        assert_eq!(status(Some("*"), None), 304);
        assert_eq!(status(None, Some(&lm)), 304);
        assert_eq!(status(Some("\"other\""), Some(&lm)), 200);
        assert_eq!(status(None, Some("Wed, 31 Dec 2025 00:00:00 GMT")), 200);
        assert_eq!(status(None, Some("not a date")), 200);
        assert_eq!(status(None, None), 200);
    }

    #[test]
    fn retry_after_rounds_up_and_dates_follow_the_date_header() {
        let r =
            throttle(429, Duration::from_millis(1500), RetryAfterForm::Seconds, SystemTime::now());
        assert_eq!(header(&r, "retry-after"), Some("2"));
        assert_eq!(r.retry_after, Some(Duration::from_secs(2)));
        let r = throttle(503, Duration::from_secs(30), RetryAfterForm::HttpDate, SystemTime::now());
        let date = httpdate::parse_http_date(header(&r, "date").unwrap()).unwrap();
        let until = httpdate::parse_http_date(header(&r, "retry-after").unwrap()).unwrap();
        assert_eq!(until.duration_since(date).unwrap(), Duration::from_secs(30));
        let r = throttle(429, Duration::from_secs(30), RetryAfterForm::Garbage, SystemTime::now());
        assert_eq!((header(&r, "retry-after"), r.retry_after), (Some("soon-ish"), None));
        let r = throttle(429, Duration::from_secs(30), RetryAfterForm::Missing, SystemTime::now());
        assert_eq!(header(&r, "retry-after"), None);
    }

    #[test]
    fn rendered_rules_name_the_token_group_and_crawl_delay() {
        let rules = RobotsRules { crawl_delay: Some(2.5), ..RobotsRules::default() };
        let text = render_rules("FestroBot", &rules, 3);
        assert!(text.contains("User-agent: *\nDisallow: /events/\n"), "{text}");
        assert!(
            text.contains("User-agent: FestroBot\nCrawl-delay: 2.5\nAllow: /private/open.html\n"),
            "{text}"
        );
        let large = large_robots("gleaner", &rules, 0);
        assert!(large.len() >= 600 * 1024);
        assert!(large.find("Disallow: /late-rule/").unwrap() > 550 * 1024);
    }

    #[test]
    fn event_lives_follow_the_documented_cycle() {
        let lives: Vec<Life> = (1..=6).map(life).collect();
        assert_eq!(
            lives,
            [
                Life::Stable,
                Life::Changes,
                Life::Vanishes404,
                Life::Vanishes410,
                Life::Moves,
                Life::Stable
            ]
        );
    }

    #[test]
    fn gzip_bomb_is_a_gzip_member() {
        let bomb = gzip_bomb();
        assert_eq!(&bomb[..2], &[0x1f, 0x8b]);
        assert!(bomb.len() < 70_000);
    }
}
