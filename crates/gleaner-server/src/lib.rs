//! gleaner's HTTP server: the about page generated from the config (`/bot`, and
//! `/bot.json`), the events API (`/api/events`) and `/healthz`.
//!
//! Events come through the [`EventSource`] trait (the store implements it in the CLI's
//! wiring), so this crate holds no SQL. The server takes a bound listener and a shutdown
//! future, so tests bind `127.0.0.1:0`.

pub mod about;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use gleaner_config::Settings;
use gleaner_event::PublicEvent;
use serde::Serialize;
use tokio::net::TcpListener;

/// A published event as the API shows it: the public facts, where it was read, when it
/// was last checked.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ApiEvent {
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

/// Where the server reads published events from.
pub trait EventSource: Send + Sync {
    /// Upcoming published events, soonest first, at most `limit`.
    fn published_events(
        &self,
        limit: usize,
    ) -> gleaner_policy::state::BoxFuture<'_, Result<Vec<ApiEvent>, String>>;
}

/// What the handlers share.
#[derive(Clone)]
pub struct AppState {
    /// The running settings (the about page is rendered from them).
    pub settings: Arc<Settings>,
    /// Published events.
    pub events: Arc<dyn EventSource>,
}

/// The routes.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/bot", get(about_page))
        .route("/bot.json", get(about_json))
        .route("/api/events", get(events))
        .route("/healthz", get(|| async { "ok\n" }))
        .with_state(state)
}

async fn about_page(State(state): State<AppState>) -> Html<String> {
    Html(about::render(&state.settings))
}

async fn about_json(State(state): State<AppState>) -> Response {
    let facts: Vec<serde_json::Value> = about::facts(&state.settings)
        .into_iter()
        .map(|(label, value)| serde_json::json!({ "label": label, "value": value }))
        .collect();
    axum::Json(serde_json::json!({
        "token": state.settings.bot.token,
        "user_agent": state.settings.bot.user_agent(),
        "operator": state.settings.bot.operator,
        "facts": facts,
    }))
    .into_response()
}

async fn events(State(state): State<AppState>) -> Response {
    match state.events.published_events(500).await {
        Ok(events) => axum::Json(serde_json::json!({ "events": events })).into_response(),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(header::CONTENT_TYPE, "application/json")],
            r#"{"code":"internal","message":"the events could not be read; see the server log"}"#,
        )
            .into_response(),
    }
}

/// Serves until `shutdown` completes, then finishes in-flight requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await
}
