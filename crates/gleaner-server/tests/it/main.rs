//! The server's routes, driven with `oneshot` (about page in five languages, events API,
//! feeds, metrics, errors), and in a real headless Chromium (`browser.rs`).

mod about;
mod browser;
mod desk;
mod events;
mod limits;
mod owners;
mod owners_browser;
mod webdriver;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use gleaner_event::PublicEvent;
use gleaner_server::{ApiEvent, AppState, EventSource, ServerOptions, router_with};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// A fixed list of events; ids 100+ are the newsroom pool.
struct Fixed(Vec<ApiEvent>);

impl EventSource for Fixed {
    fn published_events(
        &self,
        limit: usize,
    ) -> gleaner_policy::state::BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        let events = self.0.iter().filter(|e| e.id < 100).take(limit).cloned().collect();
        Box::pin(async move { Ok(events) })
    }

    fn newsroom(
        &self,
        limit: usize,
    ) -> gleaner_policy::state::BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        let events = self.0.iter().filter(|e| e.id >= 100).take(limit).cloned().collect();
        Box::pin(async move { Ok(events) })
    }
}

const CONFIG: &str = r#"
[bot]
token = "AubeActuBot"
version = "2.1"
info_url = "https://aube.example/robot"
contact = "robot@aube.example"
operator = "AubeActu"

[politeness]
gap = "2s"
global_daily_cap = 1500

[site_classes.municipal]
time_zone = "Europe/Paris"
quiet_hours = ["08:00-09:00", "14:00-15:00"]
requests_per_pass = 5
requests_per_hour = 12
requests_per_day = 60

[[sources]]
id = "salle"
kind = "listing"
start_urls = ["https://salle.example/agenda/"]
every = "6h"
keep = "full"
time_zone = "Europe/Paris"

[[sources]]
id = "mairie"
kind = "listing"
start_urls = ["https://mairie.example/agenda/"]
every = "6h"
keep = "facts"

[[sources]]
id = "presse"
kind = "listing"
start_urls = ["https://presse.example/"]
every = "6h"
publish = false
"#;

fn settings(config: &str) -> Arc<gleaner_config::Settings> {
    Arc::new(gleaner_config::parse(config, "test.toml").unwrap())
}

fn event(id: i64, title: &str, start: &str, source: &str, locality: &str) -> ApiEvent {
    ApiEvent {
        id,
        facts: PublicEvent {
            title: Some(title.into()),
            start: Some(start.into()),
            locality: Some(locality.into()),
            venue_name: Some("Salle des fêtes".into()),
            description: Some("A long description".into()),
            image_url: Some("https://salle.example/i.jpg".into()),
            status: Some("scheduled"),
            ..PublicEvent::default()
        },
        source: source.into(),
        source_url: format!("https://{source}.example/e/{id}"),
        category: "concert".into(),
        first_seen: "2026-11-30T10:00:00Z".into(),
        last_checked: "2026-11-30T12:00:00Z".into(),
    }
}

fn sample_events() -> Vec<ApiEvent> {
    vec![
        event(1, "Concert d'hiver", "2026-12-05T20:00:00+01:00", "salle", "Troyes"),
        event(2, "Marché de Noël", "2026-12-12", "mairie", "Bar-sur-Aube"),
        event(3, "Théâtre", "2026-12-20T18:30:00", "salle", "Troyes"),
        event(100, "Conseil municipal", "2026-12-08T18:00:00+01:00", "presse", "Troyes"),
    ]
}

async fn request(
    config: &str,
    request: Request<Body>,
    events: Vec<ApiEvent>,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let state = AppState { settings: settings(config), events: Arc::new(Fixed(events)) };
    let options = ServerOptions { operator_token: Some("s3cret".into()) };
    let app = router_with(state, options);
    let response = app.oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8_lossy(&body).into_owned())
}

async fn get(config: &str, path: &str, events: Vec<ApiEvent>) -> (StatusCode, String) {
    let (status, _, body) =
        request(config, Request::get(path).body(Body::empty()).unwrap(), events).await;
    (status, body)
}
