//! The server's routes, driven with `oneshot`: the about page shows the configured
//! numbers (change the config, the page changes), the events API shows what the source
//! gives, health answers.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use gleaner_event::PublicEvent;
use gleaner_server::{ApiEvent, AppState, EventSource, router};
use http_body_util::BodyExt;
use tower::ServiceExt;

struct Fixed(Vec<ApiEvent>);

impl EventSource for Fixed {
    fn published_events(
        &self,
        limit: usize,
    ) -> gleaner_policy::state::BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        let events = self.0.iter().take(limit).cloned().collect();
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
"#;

async fn get(config: &str, path: &str, events: Vec<ApiEvent>) -> (StatusCode, String) {
    let settings = Arc::new(gleaner_config::parse(config, "test.toml").unwrap());
    let app = router(AppState { settings, events: Arc::new(Fixed(events)) });
    let response = app.oneshot(Request::get(path).body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn about_page_is_generated_from_the_config() {
    let (status, html) = get(CONFIG, "/bot", vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        html.contains("AubeActuBot/2.1 (+https://aube.example/robot; robot@aube.example)"),
        "{html}"
    );
    assert!(
        html.contains(
            "<tr><th>Time between two requests to one site (any purpose)</th><td>2s</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains("no request starts during 08:00–09:00 and 14:00–15:00 local time"),
        "{html}"
    );
    assert!(html.contains("at most 5 requests per visit; 12 per hour; 60 per day"), "{html}");
    assert!(html.contains("User-agent: AubeActuBot\nDisallow: /"), "{html}");
    // The page follows the config: change a number, the page changes.
    let (_, slower) = get(&CONFIG.replace("gap = \"2s\"", "gap = \"5s\""), "/bot", vec![]).await;
    assert!(
        slower.contains("<td>5s</td>")
            && !slower.contains(
                "<tr><th>Time between two requests to one site (any purpose)</th><td>2s</td>"
            )
    );
}

#[tokio::test]
async fn about_page_escapes_config_text() {
    let config = CONFIG.replace("operator = \"AubeActu\"", "operator = \"<script>x</script>\"");
    let (_, html) = get(&config, "/bot", vec![]).await;
    assert!(!html.contains("<script>x"), "{html}");
    assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"));
}

#[tokio::test]
async fn events_api_lists_events_with_their_source_and_last_check() {
    let event = ApiEvent {
        facts: PublicEvent { title: Some("Concert".into()), ..PublicEvent::default() },
        source: "salle".into(),
        source_url: "https://salle.example/e/1".into(),
        category: "concert".into(),
        first_seen: "2026-11-30T10:00:00Z".into(),
        last_checked: "2026-11-30T12:00:00Z".into(),
    };
    let (status, body) = get(CONFIG, "/api/events", vec![event]).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["events"][0]["title"], "Concert");
    assert_eq!(json["events"][0]["source_url"], "https://salle.example/e/1");
    assert_eq!(json["events"][0]["last_checked"], "2026-11-30T12:00:00Z");
    let (status, body) = get(CONFIG, "/healthz", vec![]).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
}
