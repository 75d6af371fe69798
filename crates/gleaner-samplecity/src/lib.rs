//! The sample city that `gleaner demo` serves on loopback: twenty venues in five
//! languages, a town hall, a licensed ticketing API, an open-data portal, a press agency
//! and a mock language model, each on its own address `127.0.60.Y` and one shared port.
//!
//! It is shipped inside the `gleaner` binary, so it stays light: content is written with
//! `format!` and `serde_json`, images are a few embedded bytes. The dev-only
//! `gleaner-testweb` serves the same content (through [`City::respond`]) with its fault
//! scenarios and request ledger around it.
//!
//! # Layout
//! - [`venues`]: the sites ([`Site`], [`Lang`], [`Markup`], [`Role`], [`Refusal`]);
//! - [`events`]: events and how they change between passes ([`Event`], [`Status`], [`Price`]);
//! - [`city`]: the model ([`City::generate`]), [`Origins`] and crawl [`Seed`]s;
//! - [`demo`]: the configuration `gleaner demo` crawls the city with;
//! - `pages`, `feeds`, [`ical`], `sitemap`, `api`, [`images`], [`rights`]: the documents;
//! - [`route`]: [`City::respond`], pure routing;
//! - [`truth`]: [`City::ground_truth`], what a perfect polite crawler keeps;
//! - [`server`]: [`bind_city`] and [`serve`].
//!
//! # Usage (the demo)
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use std::sync::Arc;
//! use gleaner_samplecity::{City, bind_city, serve};
//!
//! let city = City::generate(7, chrono::Utc::now()).with_token("gleaner");
//! let listeners = bind_city(&city).await?;
//! let origins = listeners.origins();
//! let seeds = city.seeds(&origins); // listings, sitemaps, feeds, calendar, APIs
//! let truth = city.ground_truth(&origins, 0); // for scoring
//! let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
//! let server = tokio::spawn(serve(listeners, Arc::new(city), async { let _ = stopped.await; }));
//! // ... crawl `seeds` politely ...
//! let _ = stop.send(());
//! let _ = server.await;
//! # let _ = (seeds, truth); Ok(()) }
//! ```
//!
//! # URL layout
//! Venues (`{listing}` is `/events/`, `/etkinlikler/`, `/agenda/` or `/veranstaltungen/`):
//! | path | answer |
//! |---|---|
//! | `/robots.txt` | a `*` group and a group for the token; `Sitemap:` line |
//! | `/` | home page |
//! | `{listing}`, `{listing}?page=2` | listing, four events a page, `rel="next"` |
//! | `{listing}{slug}-{n}.html` | event page: JSON-LD (single, `@graph`, array), microdata, RDFa or none |
//! | `{listing}private/{slug}-{n}.html` | an event robots.txt disallows (one venue) |
//! | `{listing}feed.rss`, `{listing}feed.atom` | event feeds (one venue each) |
//! | `/api/events.json` | JSON events API (one venue) |
//! | `/sitemap_index.xml`, `/sitemap.xml`, `/sitemap-pages.xml.gz` | sitemap index, sitemap, gzip sitemap |
//! | `/img/poster-{n}.jpg`, `/img/poster-{n}.png`, `/img/logo.svg` | images; `Cache-Control` max-age, no-store or private by `n % 3` |
//! | `/terms.html`, `/.well-known/tdmrep.json`, `/ai.txt` | terms and rights files |
//!
//! Town hall: `/actualites/` and `/actualites/{n}.html` (news), `/actualites/rss.xml`,
//! `/actualites/atom.xml`, `/agenda.ics`, `/mentions-legales.html`.
//! Licensed API: `/v1/events.json?apikey=KEY&page=N` (401 without the key, 429 with
//! `Retry-After` past its rate limit). Open data: `/api/vigilance.json`,
//! `/api/carburants.json`, `/api/carburants.csv`. Press agency: `/presse/`,
//! `/conditions.html`, `/img/photo-max-age.jpg`, `/img/photo-short.jpg` (max-age 60 s), `/img/photo-no-store.jpg`,
//! `/img/photo-private.png` (`X-Robots-Tag: noimageai`), `/ai.txt`, TDMRep on `/archives/`.
//! Language model: `POST /v1/chat/completions`, `GET /v1/models`.
//!
//! Every 200 carries `ETag` and `Last-Modified` and answers 304 to matching validators.

pub mod api;
pub mod city;
pub mod demo;
pub mod events;
mod feeds;
pub mod ical;
pub mod images;
mod pages;
pub mod rights;
pub mod route;
pub mod server;
mod sitemap;
pub mod truth;
pub mod venues;

pub use city::{City, DEFAULT_API_KEY, DEFAULT_TOKEN, Origins, Seed, SeedKind};
pub use events::{Event, Price, Status};
pub use feeds::{NewsItem, news};
pub use rights::RobotsPlan;
pub use route::{Moment, Reply, ReplyKind, Request, Traffic};
pub use server::{CityListeners, bind_city, bind_city_on, city_ip, serve, to_response};
pub use truth::{Excluded, Exclusion, GroundTruth, TruthEvent};
pub use venues::{Extra, Lang, Markup, Refusal, Role, Site};
