//! The send step behind [`Client`](crate::Client): one request's head in, a status,
//! headers and a body read chunk by chunk out.
//!
//! **Why a trait, and why here.** reqwest 0.13 offers no way to supply the connection a
//! request travels on (its `connector_layer` wraps a connector whose request and stream
//! types are private), so a test cannot hand it an in-memory stream; a hyper client on
//! `tokio::io::duplex` streams would drop reqwest's decompression, pooling and resolver
//! guard, which the production path must keep. So the client does everything that is
//! policy itself — the scheme and credential checks, the HEAD rule, the SSRF guard on the
//! URL's host, the turn on the wire, the response deadline, the body cap, validators and
//! signing — and hands only the send to a [`Transport`]:
//!
//! - [`ReqwestTransport`], the default and the only one in production: reqwest with no
//!   redirects, no proxy, no cookies, the guarded resolver (every resolved address
//!   checked again), connect timeout, keep-alive and content decoding;
//! - the test web's in-process transport (`gleaner_testweb::inprocess`), which reaches the
//!   loopback test web's site handlers without a socket, so a test can run on Tokio's
//!   paused time: with a real socket, auto-advance jumps to the next timer while a
//!   response is in flight and deadlines fire early.
//!
//! The guard runs in the client before [`Transport::send`] is called, whatever the
//! transport, so no transport sees a request to an address the policy refuses.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use reqwest::header::HeaderMap;
use url::Url;

use crate::client::{ClientSettings, FetchError, Method};
use crate::ssrf::{GuardedResolver, SsrfRefusal};

/// A boxed, sendable future (the trait's methods return one, so it stays object-safe).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One request as it leaves the client: already through the gate and the address guard.
#[derive(Debug, Clone)]
pub struct Outgoing {
    /// GET or HEAD.
    pub method: Method,
    /// The URL.
    pub url: Url,
    /// Every header the client sends (User-Agent, Accept, validators, signature); the
    /// transport adds only what the connection needs (`Host`, `Accept-Encoding`).
    pub headers: HeaderMap,
    /// The response deadline (the client enforces it too, around the whole send).
    pub deadline: Duration,
}

/// A response head, with its body still to read.
pub struct Incoming {
    /// HTTP status.
    pub status: u16,
    /// Response headers as received.
    pub headers: HeaderMap,
    /// The body length when it is known before reading (`Content-Length` of an
    /// undecoded body), so a larger one is abandoned unread.
    pub content_length: Option<u64>,
    /// The (decoded) body.
    pub body: Box<dyn ResponseBody>,
}

impl fmt::Debug for Incoming {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Incoming")
            .field("status", &self.status)
            .field("headers", &self.headers)
            .field("content_length", &self.content_length)
            .finish_non_exhaustive()
    }
}

/// A response body, read one chunk at a time so the client can stop at its cap.
pub trait ResponseBody: Send {
    /// The next chunk, `None` at the end; a timeout or a broken body is a [`FetchError`].
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, FetchError>>;
}

/// Sends one request and returns its head. Errors are [`FetchError`]s that name the URL
/// (`Connect`, `Timeout`, or `Refused` when a resolved address is refused).
pub trait Transport: Send + Sync + fmt::Debug {
    /// Sends `request`; the body is read afterwards through [`Incoming::body`].
    fn send(&self, request: Outgoing) -> BoxFuture<'_, Result<Incoming, FetchError>>;
}

/// The production transport: reqwest, configured as a polite bot's client must be.
#[derive(Debug, Clone)]
pub struct ReqwestTransport {
    http: reqwest::Client,
}

impl ReqwestTransport {
    /// The reqwest client for `settings`. Fails only if the TLS backend cannot start.
    pub fn new(settings: &ClientSettings) -> Result<ReqwestTransport, FetchError> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .no_proxy()
            .retry(reqwest::retry::never())
            .connect_timeout(settings.connect_timeout)
            .timeout(settings.response_deadline)
            .dns_resolver(Arc::new(GuardedResolver::new(Arc::new(
                settings.address_policy.clone(),
            ))));
        let http = match settings.keep_idle {
            Some(idle) => http.pool_idle_timeout(idle),
            None => http.pool_max_idle_per_host(0),
        };
        let http = http.build().map_err(|e| FetchError::Connect {
            url: String::new(),
            detail: format!("cannot start the HTTP client: {e}"),
        })?;
        Ok(ReqwestTransport { http })
    }
}

impl Transport for ReqwestTransport {
    fn send(&self, request: Outgoing) -> BoxFuture<'_, Result<Incoming, FetchError>> {
        Box::pin(async move {
            let method = match request.method {
                Method::Get => reqwest::Method::GET,
                Method::Head => reqwest::Method::HEAD,
            };
            let url = request.url;
            let deadline = request.deadline;
            let response = self
                .http
                .request(method, url.clone())
                .headers(request.headers)
                .timeout(deadline)
                .send()
                .await
                .map_err(|e| classify(&url, &e, deadline))?;
            Ok(Incoming {
                status: response.status().as_u16(),
                headers: response.headers().clone(),
                // With content decoding, reqwest reports no length; the client's running
                // count covers that case.
                content_length: response.content_length(),
                body: Box::new(ReqwestBody { response, url, deadline }),
            })
        })
    }
}

struct ReqwestBody {
    response: reqwest::Response,
    url: Url,
    deadline: Duration,
}

impl ResponseBody for ReqwestBody {
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, FetchError>> {
        Box::pin(async move {
            match self.response.chunk().await {
                Ok(chunk) => Ok(chunk),
                Err(e) if e.is_timeout() => {
                    Err(FetchError::Timeout { url: self.url.to_string(), deadline: self.deadline })
                }
                Err(e) => {
                    Err(FetchError::Body { url: self.url.to_string(), detail: error_chain(&e) })
                }
            }
        })
    }
}

/// Maps a reqwest error to ours, finding an SSRF refusal inside the resolver's error.
fn classify(url: &Url, error: &reqwest::Error, deadline: Duration) -> FetchError {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(refusal) = e.downcast_ref::<SsrfRefusal>() {
            return FetchError::Refused(refusal.clone());
        }
        source = e.source();
    }
    if error.is_timeout() {
        FetchError::Timeout { url: url.to_string(), deadline }
    } else {
        FetchError::Connect { url: url.to_string(), detail: error_chain(error) }
    }
}

/// An error and its causes on one line, each printed once.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut parts = vec![error.to_string()];
    let mut source = error.source();
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}
