//! A loopback test web for gleaner: many sites, scripted faults and a request ledger.
//!
//! gleaner's promises are about what a site sees, so they are tested from the site's side.
//! This dev-only crate serves any number of sites (2,000 and more) in one process, each on
//! its own loopback address `127.0.X.Y` and one shared port, plays a scenario per site
//! chosen by a [`Manifest`], records every request in a [`Ledger`], and offers assertion
//! helpers ([`check`]) that name the site, path and time of every violation. No test
//! touches the real internet: every address is in 127.0.0.0/8.
//!
//! # Layout
//! - [`manifest`]: which scenario each site plays ([`SiteSpec`], [`RobotsScenario`],
//!   [`SiteBehaviour`]), what it serves ([`SiteContent`]) and the durations of the slow
//!   ones ([`Timings`]);
//! - [`city`]: the sample city of `gleaner_samplecity` inside the web ([`CityWeb`]);
//! - [`server`]: binding ([`bind_sites`]), serving ([`serve`] takes bound listeners and a
//!   shutdown future) and the [`TestWeb`] handle for tests;
//! - `content`: what each path answers;
//! - [`inprocess`]: the same sites without sockets, on Tokio's (pausable) clock, through a
//!   `gleaner_fetch::Transport` ([`TestWeb::in_process`], [`TestWeb::transport`]);
//! - [`ledger`]: the request ledger ([`LedgerEntry`], [`Ledger`]);
//! - [`check`]: assertion helpers and positive controls over a ledger;
//! - [`load`]: the small HTTP/1.1 load generator used by the throughput bench;
//! - [`split`]: one web served by several child processes ([`SplitWeb`]), for more sites
//!   than one process's open-file limit holds.
//!
//! # Usage
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
//!
//! let web = TestWeb::start(Manifest::uniform(3, SiteSpec::default())).await?;
//! let url = web.site_url(0); // "http://127.0.1.1:PORT/"
//! // ... point the crawler at `url` and friends, run it ...
//! let ledger = web.ledger();
//! ledger.expect_fetched(0, "/events/1.html")?; // positive control first
//! ledger.check_robots_first()?;
//! ledger.check_min_gap_with_crawl_delay(Duration::from_secs(1))?;
//! ledger.check_identity("gleaner/0.1 (+https://example.org/bot)")?;
//! web.shutdown().await;
//! # Ok(()) }
//! ```
//!
//! # URL layout (every site)
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | per [`RobotsScenario`]: rules (a `*` group disallowing `/events/`, and a group for the token with optional `Crawl-delay`, `Allow: /private/open.html`, `Disallow: /private/` and `/events/hidden`), disallow-all, 404/401/403/429/500/503, hang, reset, redirect chain, 600 KiB, garbage |
//! | `/robots-hop/{k}` | hop `k` of a robots redirect chain (301) |
//! | `/robots-moved.txt?from={i}` | the rules of site `i` (end of a chain, maybe on another host) |
//! | `/` | home page linking to `/events/` |
//! | `/events/`, `/events/?page=2` | listing in two pages (`rel="next"`) of the events present in this pass |
//! | `/events/{n}.html` | event page with JSON-LD, for `n` in `1..=events`; its life depends on `n % 5`: 1 stable, 2 changes every pass, 3 answers 404 from pass 1, 4 answers 410 from pass 1, 0 moves (301 to `/events/moved/{n}.html`) from pass 1 |
//! | `/events/hidden.html`, `/private/…`, `/late-rule/…` | pages that robots.txt disallows (200 when fetched, so the ledger catches them); `/private/open.html` is allowed |
//! | `/about.html`, `/changing.html` | a stable page; a page that changes every pass |
//! | `/malformed.html` | broken HTML, one broken and one valid JSON-LD block |
//! | `/redirect/private` | 302 to `/private/secret.html` (disallowed) |
//! | `/redirect/other-site` | 302 to the next site's `/events/1.html` |
//! | `/redirect/loop` ↔ `/redirect/loop-b` | a redirect loop |
//! | `/redirect/chain/{n}` | `n` redirects ending at `/events/1.html` |
//! | `/status/{code}` | that status; 401/403 are blocks; 429/503 take `?retry_after=N` |
//! | `/challenge` | 403 with `cf-mitigated: challenge` |
//! | `/login` | a login wall answering 200 |
//! | `/slow/first-byte` | nothing for [`Timings::slow_first_byte`] (20 s), then a page |
//! | `/slow/trickle` | one byte per [`Timings::trickle_interval`] |
//! | `/huge` | 12 MiB body |
//! | `/lying-length` | `Content-Length: 1000000`, 1,000 bytes, then the connection closes |
//! | `/gzip-bomb` | `Content-Encoding: gzip`: 64 MiB of zeros in about 64 KiB |
//! | `/bench` | `ok\n`, for throughput measurements |
//!
//! Every 200 with content carries `ETag` and `Last-Modified` and answers 304 to matching
//! `If-None-Match` (preferred) or `If-Modified-Since`. Site-wide [`SiteBehaviour`]s
//! (throttle with `Retry-After` in seconds or as an HTTP-date, 401/403 block, challenge,
//! login wall) take over every path except robots files after `after` page requests.
//! [`TestWeb::advance_pass`] moves all sites to the next pass.
//!
//! # The sample city
//! [`Manifest::city`] (or [`Manifest::with_city`] after other sites) adds one site per site
//! of the sample city that `gleaner demo` ships: venues in five languages with listings,
//! event pages in every markup, sitemaps, feeds, a calendar, APIs, images and rights files
//! (the layout is in `gleaner_samplecity`'s docs). Those sites answer with the city's
//! content through `City::respond`, with the ledger around every request; their robots.txt
//! rules are copied into [`SiteSpec::rules`] so [`check`] judges them, and any robots
//! scenario or [`SiteBehaviour`] set on them still plays. [`TestWeb::ground_truth`] lists
//! what a perfect, polite crawler keeps at the current pass, with URLs on this web.
//!
//! Sites are numbered from 0; site `i` listens on [`site_ip`]`(i)`:
//! `127.0.(1 + i / 250).(1 + i % 250)`.

pub mod check;
pub mod city;
mod content;
pub mod inprocess;
pub mod ledger;
pub mod load;
pub mod manifest;
pub mod server;
pub mod signatures;
pub mod split;

pub use check::{PathKind, Rule, Violation, Violations};
pub use city::CityWeb;
pub use ledger::{Ledger, LedgerClock, LedgerEntry, LedgerPart, Served};
pub use manifest::{
    CityConfig, DEFAULT_TOKEN, Manifest, RetryAfterForm, RobotsRules, RobotsScenario,
    SiteBehaviour, SiteContent, SiteSpec, Timings,
};
pub use server::{TestWeb, WebState, bind_sites, bind_sites_from, serve, site_ip};
pub use split::SplitWeb;
