//! The content model: [`City`] (sites and their events at each pass), [`Origins`] (where
//! each site is served) and [`Seed`]s (where a crawler starts).
//!
//! A city is generated from a seed and an injected `now`; everything it serves derives from
//! those two and the pass number, so tests see the same web every time and the demo always
//! shows upcoming events.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::events::{self, Event};
use crate::venues::{self, Extra, Markup, Refusal, Role, Site};

/// The product token robots.txt files name when the caller gives none.
pub const DEFAULT_TOKEN: &str = "gleaner";

/// The key the licensed API accepts when the caller sets none.
pub const DEFAULT_API_KEY: &str = "sample-city-demo-key";

/// The sample city: its sites, their events, and how it says no.
///
/// Content depends only on the seed, `now`, the bot token and the pass; the current pass
/// is kept here ([`City::advance_pass`]) so a running demo server can move on.
#[derive(Debug)]
pub struct City {
    seed: u64,
    now: DateTime<Utc>,
    token: String,
    api_key: String,
    api_limit: u32,
    api_window: Duration,
    throttle_for: Duration,
    sites: Vec<Site>,
    /// Per site: the number of base events and every event it will ever list.
    events: Vec<(u32, Vec<Event>)>,
    pass: AtomicU32,
}

impl City {
    /// The city for `seed`, with every date relative to `now`.
    pub fn generate(seed: u64, now: DateTime<Utc>) -> City {
        let sites = venues::sites();
        let events =
            sites
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if s.is_venue() {
                        events::venue_events(seed, now, i, s)
                    } else {
                        (0, Vec::new())
                    }
                })
                .collect();
        City {
            seed,
            now,
            token: DEFAULT_TOKEN.to_owned(),
            api_key: DEFAULT_API_KEY.to_owned(),
            api_limit: 10,
            api_window: Duration::from_secs(60),
            throttle_for: Duration::from_secs(30),
            sites,
            events,
            pass: AtomicU32::new(0),
        }
    }

    /// The same city whose robots.txt groups name `token` instead of `gleaner`.
    pub fn with_token(mut self, token: &str) -> City {
        token.clone_into(&mut self.token);
        self
    }

    /// The same city whose licensed API wants `key` in `?apikey=`.
    pub fn with_api_key(mut self, key: &str) -> City {
        key.clone_into(&mut self.api_key);
        self
    }

    /// The same city whose licensed API answers 429 past `limit` calls per `window`.
    pub fn with_api_limit(mut self, limit: u32, window: Duration) -> City {
        self.api_limit = limit;
        self.api_window = window;
        self
    }

    /// The same city whose throttling venue answers 429 on event pages for `d` after
    /// serving starts.
    pub fn with_throttle_for(mut self, d: Duration) -> City {
        self.throttle_for = d;
        self
    }

    /// The seed the city was generated from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The instant every date is relative to.
    pub fn now(&self) -> DateTime<Utc> {
        self.now
    }

    /// The bot's product token, as robots.txt names it.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// The key the licensed API accepts.
    pub fn api_key(&self) -> &str {
        &self.api_key
    }

    /// Calls per [`City::api_window`] the licensed API accepts before answering 429.
    pub fn api_limit(&self) -> u32 {
        self.api_limit
    }

    /// The window of the licensed API's rate limit.
    pub fn api_window(&self) -> Duration {
        self.api_window
    }

    /// How long the throttling venue answers 429 on event pages after serving starts.
    pub fn throttle_for(&self) -> Duration {
        self.throttle_for
    }

    /// Every site, in site order.
    pub fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Site `i`.
    pub fn site(&self, i: usize) -> &Site {
        &self.sites[i]
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.sites.len()
    }

    /// Whether the city has no sites (never true).
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// Index of the site with this key.
    pub fn site_index(&self, key: &str) -> Option<usize> {
        self.sites.iter().position(|s| s.key == key)
    }

    /// Index of the first site playing `role`.
    pub fn index_of_role(&self, role: Role) -> Option<usize> {
        self.sites.iter().position(|s| s.role == role)
    }

    /// The current pass of a running server (starts at 0).
    pub fn pass(&self) -> u32 {
        self.pass.load(Ordering::SeqCst)
    }

    /// Moves to the next pass (events move, are cancelled, vanish or appear) and returns it.
    pub fn advance_pass(&self) -> u32 {
        self.pass.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The events venue `site` lists at `pass`, in date order (empty for other sites).
    pub fn venue_events(&self, site: usize, pass: u32) -> Vec<Event> {
        let (base, all) = &self.events[site];
        let mut out = events::at_pass(*base, all, pass);
        out.sort_by_key(|e| (e.start, e.number));
        out
    }

    /// The event page at `path` on venue `site` at `pass`, when it exists.
    pub fn event_at(&self, site: usize, pass: u32, path: &str) -> Option<Event> {
        self.venue_events(site, pass).into_iter().find(|e| e.path == path)
    }

    /// Every venue event at `pass`, venue by venue.
    pub fn all_venue_events(&self, pass: u32) -> Vec<Event> {
        (0..self.len()).flat_map(|i| self.venue_events(i, pass)).collect()
    }

    /// The root URL of every site (`http://127.0.X.Y:PORT/`), in site order.
    pub fn site_urls(&self, origins: &Origins) -> Vec<String> {
        (0..self.len()).map(|i| origins.url(i, "/")).collect()
    }

    /// Where a crawler starts on each site, with what kind of document it will find.
    ///
    /// The language-model mock is infrastructure and has no seeds.
    pub fn seeds(&self, origins: &Origins) -> Vec<Seed> {
        let mut out = Vec::new();
        let mut add = |site: usize, kind: SeedKind, path: String| {
            out.push(Seed { site, kind, url: origins.url(site, &path) });
        };
        for (i, s) in self.sites.iter().enumerate() {
            match s.role {
                Role::Venue => {
                    let listing = s.lang.listing_path();
                    add(i, SeedKind::Listing, listing.to_owned());
                    add(i, SeedKind::Sitemap, "/sitemap_index.xml".to_owned());
                    if s.has(Extra::RssEvents) {
                        add(i, SeedKind::Rss, format!("{listing}feed.rss"));
                    }
                    if s.has(Extra::AtomEvents) {
                        add(i, SeedKind::Atom, format!("{listing}feed.atom"));
                    }
                    if s.has(Extra::JsonApi) {
                        add(i, SeedKind::JsonApi, "/api/events.json".to_owned());
                    }
                    add(i, SeedKind::Terms, "/terms.html".to_owned());
                }
                Role::TownHall => {
                    add(i, SeedKind::Rss, "/actualites/rss.xml".to_owned());
                    add(i, SeedKind::Atom, "/actualites/atom.xml".to_owned());
                    add(i, SeedKind::ICalendar, "/agenda.ics".to_owned());
                    add(i, SeedKind::Terms, "/mentions-legales.html".to_owned());
                }
                Role::LicensedApi => add(i, SeedKind::LicensedApi, "/v1/events.json".to_owned()),
                Role::OpenData => {
                    add(i, SeedKind::OpenDataJson, "/api/vigilance.json".to_owned());
                    add(i, SeedKind::OpenDataJson, "/api/carburants.json".to_owned());
                    add(i, SeedKind::OpenDataCsv, "/api/carburants.csv".to_owned());
                }
                Role::PressAgency => {
                    add(i, SeedKind::PressPage, "/presse/".to_owned());
                    add(i, SeedKind::Terms, "/conditions.html".to_owned());
                }
                Role::LanguageModel => {}
            }
        }
        out
    }

    /// Sites that say no, and how.
    pub fn refusals(&self) -> Vec<(usize, Refusal)> {
        self.sites.iter().enumerate().filter_map(|(i, s)| s.refusal.map(|r| (i, r))).collect()
    }

    /// Indices of the venues using `markup`.
    pub fn venues_with(&self, markup: Markup) -> Vec<usize> {
        (0..self.len())
            .filter(|i| self.sites[*i].is_venue() && self.sites[*i].markup == markup)
            .collect()
    }
}

/// Where a crawl of a site starts, and what it finds there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Seed {
    /// The site index.
    pub site: usize,
    /// What the URL answers.
    pub kind: SeedKind,
    /// The absolute URL.
    pub url: String,
}

/// The kind of document a [`Seed`] points to (a source kind in SPEC §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SeedKind {
    /// An HTML listing with pagination.
    Listing,
    /// A sitemap index (with a plain and a gzip sitemap).
    Sitemap,
    /// An RSS 2.0 feed.
    Rss,
    /// An Atom feed.
    Atom,
    /// An iCalendar feed.
    ICalendar,
    /// A JSON events API.
    JsonApi,
    /// A licensed API (key in the query string).
    LicensedApi,
    /// Open data as JSON.
    OpenDataJson,
    /// Open data as CSV.
    OpenDataCsv,
    /// A press page stating image terms.
    PressPage,
    /// A public terms page.
    Terms,
}

/// The origin (`http://host:port`) of every site, in site order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origins(Vec<String>);

impl Origins {
    /// Origins of sites listening on `addrs` (site `i` on `addrs[i]`).
    pub fn from_addrs(addrs: &[SocketAddr]) -> Self {
        Origins(addrs.iter().map(|a| format!("http://{a}")).collect())
    }

    /// Origins on [`crate::city_ip`] addresses and `port`, without binding anything (for
    /// pure tests of the content).
    pub fn on_port(count: usize, port: u16) -> Self {
        Origins((0..count).map(|i| format!("http://{}:{port}", crate::city_ip(i))).collect())
    }

    /// `http://host:port` of site `i`.
    pub fn origin(&self, site: usize) -> &str {
        &self.0[site]
    }

    /// The absolute URL of `path` (starting with `/`) on site `i`.
    pub fn url(&self, site: usize, path: &str) -> String {
        format!("{}{path}", self.0[site])
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no sites.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
