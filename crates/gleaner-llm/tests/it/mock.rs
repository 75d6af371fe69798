//! A scripted OpenAI-compatible provider on loopback: each request takes the next scripted
//! answer (the last one repeats) and is recorded.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Scripted {
    pub status: u16,
    pub retry_after: Option<String>,
    /// The raw body (a whole chat completion, or an error).
    pub body: String,
    pub delay: Duration,
}

impl Scripted {
    /// A 200 chat completion whose message content is `content`.
    pub fn content(content: &str) -> Scripted {
        let body = json!({
            "id": "chatcmpl-test", "object": "chat.completion", "model": "test-model",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": content }, "finish_reason": "stop" }],
            "usage": { "prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120 },
        });
        Scripted { status: 200, retry_after: None, body: body.to_string(), delay: Duration::ZERO }
    }

    /// A 200 answer with `{"events": events}` as content.
    pub fn events(events: Value) -> Scripted {
        Scripted::content(&json!({ "events": events }).to_string())
    }

    /// An error status.
    pub fn status(status: u16, retry_after: Option<&str>) -> Scripted {
        Scripted {
            status,
            retry_after: retry_after.map(str::to_owned),
            body: json!({ "error": { "message": "scripted" } }).to_string(),
            delay: Duration::ZERO,
        }
    }

    /// This answer, after `delay`.
    pub fn after(mut self, delay: Duration) -> Scripted {
        self.delay = delay;
        self
    }
}

#[derive(Default)]
struct Inner {
    script: VecDeque<Scripted>,
    last: Option<Scripted>,
    requests: Vec<(HeaderMap, Value)>,
}

/// The running mock.
#[derive(Clone)]
pub struct Mock {
    inner: Arc<Mutex<Inner>>,
    pub base: String,
}

impl Mock {
    pub async fn start(script: Vec<Scripted>) -> Mock {
        let inner = Arc::new(Mutex::new(Inner { script: script.into(), ..Inner::default() }));
        let app = Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(Arc::clone(&inner));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Mock { inner, base: format!("http://127.0.0.1:{port}/v1/") }
    }

    /// The request bodies received so far.
    pub fn requests(&self) -> Vec<Value> {
        self.inner.lock().unwrap().requests.iter().map(|(_, b)| b.clone()).collect()
    }

    /// The headers of request `i`.
    pub fn headers(&self, i: usize) -> HeaderMap {
        self.inner.lock().unwrap().requests[i].0.clone()
    }

    /// Adds answers to the script.
    pub fn push(&self, more: Vec<Scripted>) {
        self.inner.lock().unwrap().script.extend(more);
    }
}

async fn answer(
    State(inner): State<Arc<Mutex<Inner>>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let scripted = {
        let mut inner = inner.lock().unwrap();
        inner.requests.push((headers, serde_json::from_slice(&body).unwrap_or(Value::Null)));
        let next = inner.script.pop_front().or_else(|| inner.last.clone());
        inner.last = next.clone();
        next
    };
    let Some(s) = scripted else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "no script").into_response();
    };
    if !s.delay.is_zero() {
        tokio::time::sleep(s.delay).await;
    }
    let mut response = (StatusCode::from_u16(s.status).unwrap(), s.body).into_response();
    response.headers_mut().insert("content-type", "application/json".parse().unwrap());
    if let Some(r) = s.retry_after {
        response.headers_mut().insert("retry-after", r.parse().unwrap());
    }
    response
}
