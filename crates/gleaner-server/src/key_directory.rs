//! `/.well-known/http-message-signatures-directory`: the public keys that sign this bot's
//! requests (Web Bot Auth key directory draft), on the bot's own host.
//!
//! A JWKS of every configured key not yet expired (`nbf`/`exp` where set), served as
//! `application/http-message-signatures-directory+json` and itself signed: one signature
//! per key valid now, each covering the request's `@authority` (`"@authority";req`), tag
//! `http-message-signatures-directory`, so a verifier knows the directory is the key
//! holder's. Absent (404) when `[identity]` is not configured.

use std::sync::Arc;
use std::time::SystemTime;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gleaner_fetch::signing::{DIRECTORY_MEDIA_TYPE, DIRECTORY_PATH, Signer};

/// The directory route, when `signer` is configured.
pub fn routes(signer: Arc<Signer>) -> Router {
    Router::new().route(DIRECTORY_PATH, get(directory)).with_state(signer)
}

async fn directory(State(signer): State<Arc<Signer>>, request: HeaderMap) -> Response {
    let now = SystemTime::now();
    let body = signer.directory(now).to_string();
    let authority = request
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let mut response = (StatusCode::OK, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(DIRECTORY_MEDIA_TYPE));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("max-age=3600"));
    if let Some((input, signature)) = signer.sign_directory_response(&authority, now)
        && let (Ok(input), Ok(signature)) =
            (HeaderValue::from_str(&input), HeaderValue::from_str(&signature))
    {
        headers.insert("signature-input", input);
        headers.insert("signature", signature);
    }
    response
}
