//! gleaner's HTTP server, the public face of the bot:
//!
//! - the about page generated from the config in five languages (`/bot`, `/bot/{lang}`,
//!   `/bot.json`; module [`about`], words in [`i18n`]);
//! - the events: JSON API (`/api/events`, `/api/events/{id}`), iCalendar
//!   (`/events.ics`), RSS (`/events.rss`), HTML list and event view (`/events`,
//!   `/events/{id}`; modules [`encode`], shared with `gleaner export`, and [`html`],
//!   dates in the visitor's language from [`dates`]);
//! - the newsroom pool (`/api/news`) behind the operator token;
//! - `/metrics` (Prometheus text, module [`metrics`]) and `/healthz`;
//! - the image relay, `/relay/{id}` (module [`relay`], when the profile enables it);
//! - the site owners' forms (`/owners`, module [`owners`]), `/site/{domain}` ([`site_page`]),
//!   and the operator dashboard on its own listener ([`dashboard`]), around an
//!   [`desk::OwnerDesk`] (its rows behind [`desk_store::DeskStore`], the gate for proof
//!   files, DNS, the webhook), all put together from the settings by [`start`] for
//!   `gleaner run` and `gleaner demo`.
//!
//! Events come through the [`EventSource`] trait (the store implements it beside it, in
//! [`store_events`]), so this crate holds no SQL. `keep = "facts"` and `publish = false` are
//! applied here as well as in the store, from the running settings, so a source switched
//! to facts-only or private stops showing descriptions or events at once. Every text that
//! came from a crawled page is escaped where it is rendered. The server takes a bound
//! listener and a shutdown future, so tests bind `127.0.0.1:0`.

pub mod about;
pub mod api;
pub mod dashboard;
pub mod dates;
pub mod desk;
pub mod desk_store;
pub mod encode;
pub mod html;
pub mod i18n;
pub mod key_directory;
pub mod limiter;
pub mod listen;
pub mod metrics;
pub mod notify;
pub mod owners;
pub mod promises;
pub mod ranges;
pub mod relay;
pub mod site_page;
pub mod start;
pub mod store_events;
pub mod verify;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::get;
use gleaner_config::Settings;
use gleaner_event::PublicEvent;
use gleaner_policy::state::BoxFuture;
use serde::Serialize;
use tokio::net::TcpListener;

pub use api::ApiError;
pub use metrics::CrawlMetrics;

/// A published event as the API shows it: the public facts, where it was read, when it
/// was last checked.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct ApiEvent {
    /// The store's id: `/events/{id}`, and the iCalendar UID.
    pub id: i64,
    /// The facts (the same keys as `gleaner extract`).
    #[serde(flatten)]
    pub facts: PublicEvent,
    /// The configured source that found it.
    pub source: String,
    /// The page it was read from (the link back).
    pub source_url: String,
    /// Category from gleaner's taxonomy.
    pub category: String,
    /// First seen, RFC 3339.
    pub first_seen: String,
    /// Last checked at the source, RFC 3339 (shown publicly, as FestroBot promises).
    pub last_checked: String,
}

/// One fetch that produced an event ("how this event got here").
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct FetchRecord {
    /// The configured source.
    pub source: Option<String>,
    /// The URL fetched.
    pub url: String,
    /// When, RFC 3339.
    pub fetched_at: String,
    /// The robots.txt version in force then: when that version was first read, RFC 3339
    /// (`None` when the archive has no version, e.g. a licensed API).
    pub robots_version: Option<String>,
    /// The robots.txt URL of that version.
    pub robots_url: Option<String>,
    /// The extractor that read the event (`json-ld`, `microdata`, `ical`, `feed`, `api`,
    /// `fallback`, `rules`, …), when recorded.
    pub extractor: Option<String>,
    /// The fields of the event this fetch gave (the most precise reading of each field
    /// wins when several sources read the event).
    pub fields: Vec<String>,
}

/// One status the event had.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct StatusRecord {
    /// The status (`scheduled`, `cancelled`, …).
    pub status: String,
    /// When gleaner saw it, RFC 3339.
    pub at: String,
}

/// An event with its history and provenance.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct EventDetail {
    /// The event.
    #[serde(flatten)]
    pub event: ApiEvent,
    /// Fetches that produced it, oldest first.
    pub provenance: Vec<FetchRecord>,
    /// Status history, oldest first.
    pub history: Vec<StatusRecord>,
    /// The English translation of the title and description, beside the originals in
    /// `event` (issue 18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation: Option<Translation>,
    /// What a language model did to the event, with the model and prompt version.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelRecord>,
}

/// A machine translation of an event's text; the original stays in the event.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct Translation {
    /// The translation's language (`en`).
    pub lang: String,
    /// The translated title.
    pub title: Option<String>,
    /// The translated description.
    pub description: Option<String>,
}

/// One step a language model took for an event.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, Default)]
pub struct ModelRecord {
    /// `extraction` or `translation`.
    pub step: String,
    /// The model (`none` when the step was decided without one).
    pub model: String,
    /// The prompt version (or why no model was used).
    pub prompt_version: String,
}

/// Where the server reads events from. Only `published_events` is required; the other
/// methods have defaults so a simple source (a test fixture) stays simple.
pub trait EventSource: Send + Sync {
    /// Upcoming events of publishing sources, soonest first, at most `limit`.
    fn published_events(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>>;

    /// One event with its provenance and history; `None` when unknown or not public.
    /// The default finds it among [`EventSource::published_events`], without provenance.
    fn event(&self, id: i64) -> BoxFuture<'_, Result<Option<EventDetail>, String>> {
        Box::pin(async move {
            let events = self.published_events(usize::MAX).await?;
            Ok(events
                .into_iter()
                .find(|e| e.id == id)
                .map(|event| EventDetail { event, ..EventDetail::default() }))
        })
    }

    /// The newsroom pool: items of sources with `publish = false` (AubeActuBot), shown
    /// only to the operator. The default is empty.
    fn newsroom(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        let _ = limit;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Crawl counters for `/metrics`. The default is empty.
    fn metrics(&self) -> BoxFuture<'_, Result<CrawlMetrics, String>> {
        Box::pin(async { Ok(CrawlMetrics::default()) })
    }

    /// The image relay behind `/relay/{id}` (SPEC §5, module [`relay`]), when the
    /// profile enables it. The default has none: the route then answers 404.
    fn relay(&self) -> Option<Arc<gleaner_relay::Relay>> {
        None
    }
}

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    /// The running settings (the about page is rendered from them).
    pub settings: Arc<Settings>,
    /// Published events.
    pub events: Arc<dyn EventSource>,
}

/// Options that do not come from the settings file.
#[derive(Debug, Clone, Default)]
pub struct ServerOptions {
    /// The operator token for `/api/news` (`Authorization: Bearer …`); `None` closes the
    /// route.
    pub operator_token: Option<String>,
}

impl ServerOptions {
    /// Reads the operator token from the environment variable the settings name
    /// (`[server] dashboard_token_env`); an empty value counts as none.
    pub fn from_env(settings: &Settings) -> ServerOptions {
        let token = std::env::var(&settings.server.dashboard_token_env)
            .ok()
            .filter(|t| !t.trim().is_empty());
        ServerOptions { operator_token: token }
    }
}

/// The routes, with options read from the environment ([`ServerOptions::from_env`]).
pub fn router(state: AppState) -> Router {
    let options = ServerOptions::from_env(&state.settings);
    router_with(state, options)
}

/// The routes with explicit options (tests).
pub fn router_with(state: AppState, options: ServerOptions) -> Router {
    routes(state, options, None)
}

fn routes(state: AppState, options: ServerOptions, desk: Option<Arc<desk::OwnerDesk>>) -> Router {
    let relay = state.events.relay();
    let settings = Arc::clone(&state.settings);
    let shared = api::Shared {
        app: state,
        options: Arc::new(options),
        counters: Arc::new(metrics::ServerCounters::default()),
        desk,
    };
    let router = Router::new()
        .route("/bot", get(api::about_page))
        .route("/bot.json", get(api::about_json))
        .route("/bot/{lang}", get(api::about_page_lang))
        .route("/api/events", get(api::events))
        .route("/api/events/{id}", get(api::event))
        .route("/api/news", get(api::news))
        .route("/events", get(api::events_html))
        .route("/events/{id}", get(api::event_html))
        .route("/events.ics", get(api::events_ics))
        .route("/events.rss", get(api::events_rss))
        .route("/metrics", get(api::metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(shared.clone(), api::count_responses))
        .with_state(shared);
    let router = match gleaner_fetch::client::signer_of(&settings) {
        Some(signer) => router.merge(key_directory::routes(signer)),
        None => router,
    };
    let router = match ranges::routes(&settings) {
        Some(ranges) => router.merge(ranges),
        None => router,
    };
    match relay {
        Some(relay) => router.merge(relay::routes(relay)),
        None => router,
    }
}

/// The public routes with the owners' desk merged in (`/owners`, `/site/{domain}`;
/// module [`owners`]).
pub fn router_with_desk(
    state: AppState,
    options: ServerOptions,
    desk: Arc<desk::OwnerDesk>,
) -> Router {
    owners::routes(Arc::clone(&desk)).merge(routes(state, options, Some(desk)))
}

/// Serves the public routes with the owners' desk ([`router_with_desk`]), the client's
/// address available to the forms' rate limit, under the `[server]` limits
/// ([`listen`]), until `shutdown` completes.
pub async fn serve_with_desk(
    listener: TcpListener,
    state: AppState,
    options: ServerOptions,
    desk: Arc<desk::OwnerDesk>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.settings.server.limits;
    let app = router_with_desk(state, options, desk);
    listen::serve(listener, app, limits, shutdown).await
}

/// Serves until `shutdown` completes, then finishes in-flight requests; the `[server]`
/// limits apply ([`listen`]).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = state.settings.server.limits;
    listen::serve(listener, router(state), limits, shutdown).await
}
