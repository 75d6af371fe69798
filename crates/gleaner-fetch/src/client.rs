//! The client: the one place that sends HTTP requests, and only the requests a polite
//! bot sends (SPEC §1, "Identity" and "Limits").
//!
//! - one fixed User-Agent, never rotated; GET, and HEAD only where the profile allows it;
//! - no cookies (reqwest's cookie store is not compiled in), no `Referer`, no proxy;
//! - redirects are never followed here: a 3xx comes back as a [`Fetched`] with its
//!   `Location`, for [`crate::RedirectChain`] and the gate;
//! - a connect timeout and a total response deadline that covers the body, so a slow
//!   trickle ends too;
//! - bodies over the cap are abandoned, never truncated: a larger `Content-Length` stops
//!   before reading, and decompressed bytes are counted as they arrive, so a gzip bomb
//!   stops at the cap;
//! - conditional requests from stored [`Validators`]; a 304 refreshes them.
//!
//! Retries, spacing and budgets are not here: the gate decides when a request may start.
//! The send itself is a [`Transport`] (reqwest by default; see [`crate::transport`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use gleaner_config::Settings;
use reqwest::header::{self, HeaderMap, HeaderValue};
use url::Url;

use crate::kept::KeptConnections;
use crate::signing::Signer;
use crate::ssrf::{AddressPolicy, SsrfRefusal, check_url_host};
use crate::transport::{Outgoing, ReqwestTransport, Transport};

/// What the client needs from the configuration.
#[derive(Debug, Clone)]
pub struct ClientSettings {
    /// The one User-Agent.
    pub user_agent: String,
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Deadline for the whole response, body included.
    pub response_deadline: Duration,
    /// Largest decompressed body read.
    pub max_body_bytes: u64,
    /// Whether HEAD may be sent.
    pub head_allowed: bool,
    /// Which addresses may be connected to.
    pub address_policy: AddressPolicy,
    /// Signs every request at send time (`[identity]`), when configured.
    pub signer: Option<Arc<Signer>>,
    /// How long a connection stays open unused for the site's next request; `None`
    /// closes each connection after its response. An idle HTTP/1.1 connection costs
    /// about 30 KiB here (hyper's buffers and channel), so a pass over 10,000 sites at
    /// a 1 s gap holds 300 MiB in idle connections with keep-alive (issue 27).
    pub keep_idle: Option<Duration>,
    /// Requests this client has on the wire at once, over all sites; `None` for no
    /// limit. A request whose budget the gate reserved waits here for a turn, which
    /// only makes it later: spacing counts from the end of a site's previous request.
    /// This bounds the sockets and buffers of a pass's start-up burst, when every
    /// site's robots.txt is due at once (issue 27).
    pub max_in_flight: Option<usize>,
    /// Connections left open idle at once, over all sites; `None` for no cap. Past it a
    /// request to a site with none kept asks for `Connection: close`, so the site's next
    /// request connects anew: a TCP connect instead of ~30 KiB held (issue 27).
    pub max_idle: Option<usize>,
}

/// How long reqwest keeps an unused connection by default, kept as gleaner's default.
pub const DEFAULT_KEEP_IDLE: Duration = Duration::from_secs(90);

impl ClientSettings {
    /// The client settings of a configuration (its default class's limits).
    pub fn from_settings(settings: &Settings) -> ClientSettings {
        ClientSettings {
            user_agent: settings.bot.user_agent(),
            connect_timeout: settings.limits.connect_timeout,
            response_deadline: settings.limits.response_deadline,
            max_body_bytes: settings.limits.max_body_bytes,
            head_allowed: settings.purposes.head_allowed,
            address_policy: AddressPolicy::allowing(settings.network.allow.clone()),
            signer: signer_of(settings),
            keep_idle: settings.network.keep_idle,
            max_in_flight: Some(settings.network.max_open_requests),
            max_idle: settings.network.max_idle_connections,
        }
    }
}

/// The signer of a configuration's `[identity]`, once its keys are loaded. A key that
/// cannot be read was already refused when the configuration was loaded
/// ([`Signer::new`] gives the error there), so here it only means "unsigned".
pub fn signer_of(settings: &Settings) -> Option<Arc<Signer>> {
    settings.identity.as_ref().and_then(|i| Signer::new(i).ok()).map(Arc::new)
}

/// The HTTP method: a polite bot only reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// GET.
    Get,
    /// HEAD, only where the profile allows it.
    Head,
}

/// Stored validators for conditional requests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    /// The `ETag` last seen.
    pub etag: Option<String>,
    /// The `Last-Modified` last seen.
    pub last_modified: Option<String>,
}

impl Validators {
    /// True when there is nothing to send.
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// One request.
#[derive(Debug, Clone)]
pub struct FetchRequest {
    /// The URL (already through the gate).
    pub url: Url,
    /// GET or HEAD.
    pub method: Method,
    /// Validators from the last successful fetch, for a conditional request.
    pub validators: Validators,
    /// Per-site overrides of the body cap and deadline (a site class), if any.
    pub max_body_bytes: Option<u64>,
    /// Per-site override of the response deadline.
    pub response_deadline: Option<Duration>,
    /// Close the connection after this response (`Connection: close`) instead of
    /// keeping it for the site's next request: set when that request is further away
    /// than [`ClientSettings::keep_idle`], or there is none, so no idle connection
    /// (~30 KiB) waits for nothing (issue 27).
    pub close_after: bool,
}

impl FetchRequest {
    /// A plain GET.
    pub fn get(url: Url) -> FetchRequest {
        FetchRequest {
            url,
            method: Method::Get,
            validators: Validators::default(),
            max_body_bytes: None,
            response_deadline: None,
            close_after: false,
        }
    }

    /// The same request, conditional on these validators.
    pub fn with_validators(mut self, validators: Validators) -> FetchRequest {
        self.validators = validators;
        self
    }
}

/// A response: any status, with a body read in full (under the cap).
#[derive(Debug, Clone)]
pub struct Fetched {
    /// The URL requested.
    pub url: Url,
    /// HTTP status.
    pub status: u16,
    /// Response headers, names lower-case, in order.
    pub headers: Vec<(String, String)>,
    /// The decompressed body (empty for 304 and HEAD).
    pub body: Bytes,
    /// Validators to store: the response's, or the request's when a 304 sent none.
    pub validators: Validators,
    /// Time from sending to the end of the body.
    pub elapsed: Duration,
}

impl Fetched {
    /// The first value of a header (name case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every value of a header, for repeated ones such as `X-Robots-Tag`.
    pub fn header_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// True for 304: the stored copy is still current; nothing was downloaded.
    pub fn is_not_modified(&self) -> bool {
        self.status == 304
    }

    /// True for a redirect status (301, 302, 303, 307, 308).
    pub fn is_redirect(&self) -> bool {
        matches!(self.status, 301 | 302 | 303 | 307 | 308)
    }

    /// The `Location` header of a redirect.
    pub fn location(&self) -> Option<&str> {
        self.header("location")
    }

    /// The `Content-Type` header.
    pub fn content_type(&self) -> Option<&str> {
        self.header("content-type")
    }
}

/// Why a request produced no response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The SSRF guard refused the target.
    #[error(transparent)]
    Refused(#[from] SsrfRefusal),
    /// The URL cannot be requested.
    #[error("cannot request `{url}`: {reason}")]
    InvalidUrl {
        /// The URL (secrets redacted by the caller's logging).
        url: String,
        /// Why.
        reason: String,
    },
    /// HEAD requested but the profile does not allow it.
    #[error(
        "HEAD is not enabled for this profile; add \"HEAD\" to `[purposes] methods` to allow it"
    )]
    HeadNotAllowed,
    /// No complete response within the deadline (a slow first byte or a trickle).
    #[error("`{url}` did not answer in full within {deadline:?}")]
    Timeout {
        /// The URL.
        url: String,
        /// The deadline that passed.
        deadline: Duration,
    },
    /// Could not connect (DNS, refused, reset, TLS).
    #[error("could not connect to `{url}`: {detail}")]
    Connect {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The body is larger than the cap; nothing of it is kept.
    #[error("`{url}` is larger than {limit} bytes; abandoned")]
    TooLarge {
        /// The URL.
        url: String,
        /// The cap.
        limit: u64,
        /// The declared `Content-Length`, when that is how we knew.
        declared: Option<u64>,
    },
    /// The body broke off (a lying Content-Length, a reset mid-body, bad compression).
    #[error("the body of `{url}` broke off: {detail}")]
    Body {
        /// The URL.
        url: String,
        /// What failed.
        detail: String,
    },
}

impl FetchError {
    /// True when trying again later may succeed (timeouts, connection and body errors).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            FetchError::Timeout { .. } | FetchError::Connect { .. } | FetchError::Body { .. }
        )
    }

    /// True when gleaner itself refused to send the request (SSRF guard, bad URL,
    /// method): nothing reached the site, so nothing can be learnt about it.
    pub fn is_local_refusal(&self) -> bool {
        matches!(
            self,
            FetchError::Refused(_) | FetchError::InvalidUrl { .. } | FetchError::HeadNotAllowed
        )
    }

    /// How the request failed, for the audit log (a local refusal is never sent, so it
    /// is not a failure: it reads as [`FailureKind::Other`]).
    pub fn failure_kind(&self) -> gleaner_policy::outcome::FailureKind {
        use gleaner_policy::outcome::FailureKind;
        match self {
            FetchError::Timeout { .. } => FailureKind::Timeout,
            FetchError::Connect { .. } => FailureKind::Connect,
            FetchError::TooLarge { .. } => FailureKind::TooLarge,
            FetchError::Body { .. } => FailureKind::Body,
            FetchError::Refused(_) | FetchError::InvalidUrl { .. } | FetchError::HeadNotAllowed => {
                FailureKind::Other
            }
        }
    }

    /// The robots.txt outcome this error means, when the request was for robots.txt.
    pub fn robots_outcome(&self) -> gleaner_policy::robots::outcome::FetchOutcome {
        use gleaner_policy::robots::outcome::FetchOutcome;
        match self {
            FetchError::Timeout { .. } => FetchOutcome::Timeout,
            FetchError::TooLarge { .. } => FetchOutcome::TooLarge,
            _ => FetchOutcome::ConnectionFailed,
        }
    }
}

/// The polite HTTP client. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Client {
    transport: Arc<dyn Transport>,
    settings: Arc<ClientSettings>,
    /// Turns on the wire ([`ClientSettings::max_in_flight`]), shared by clones.
    turns: Option<Arc<tokio::sync::Semaphore>>,
    /// Connections left open ([`ClientSettings::max_idle`]), shared by clones.
    kept: Option<Arc<KeptConnections>>,
}

/// The pool's key for `url`'s connections, as [`KeptConnections`] counts them.
fn origin_of(url: &Url) -> String {
    format!(
        "{}://{}:{}",
        url.scheme(),
        url.host_str().unwrap_or_default(),
        url.port_or_known_default().unwrap_or(0)
    )
}

/// A header value as text, invalid UTF-8 replaced. `from_utf8` first: it checks a valid
/// value (nearly every one) several times faster than `from_utf8_lossy`'s walk, which
/// showed in the profile of a pass at 2,000 sites (issue 27).
fn header_text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// What bots like ours accept; servers may use it to pick a format.
const ACCEPT: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,application/json;q=0.8,text/calendar;q=0.8,*/*;q=0.5";

impl Client {
    /// Builds the client on reqwest ([`ReqwestTransport`]). Fails only if the TLS
    /// backend cannot start.
    pub fn new(settings: ClientSettings) -> Result<Client, FetchError> {
        let transport = ReqwestTransport::new(&settings)?;
        Ok(Client::with_transport(settings, Arc::new(transport)))
    }

    /// The client on another [`Transport`] (the test web's in-process one, for tests on
    /// paused time). Everything but the send itself stays the client's: the checks and
    /// the address guard before the transport is called, the turn, the deadline, the
    /// body cap, validators and signing.
    pub fn with_transport(settings: ClientSettings, transport: Arc<dyn Transport>) -> Client {
        let turns = settings.max_in_flight.map(|n| Arc::new(tokio::sync::Semaphore::new(n.max(1))));
        let kept = match (settings.max_idle, settings.keep_idle) {
            (Some(cap), Some(keep_idle)) => Some(Arc::new(KeptConnections::new(cap, keep_idle))),
            _ => None,
        };
        Client { transport, settings: Arc::new(settings), turns, kept }
    }

    /// The User-Agent every request carries.
    pub fn user_agent(&self) -> &str {
        &self.settings.user_agent
    }

    /// Sends one request and reads its body. Redirects come back as responses.
    pub async fn fetch(&self, request: &FetchRequest) -> Result<Fetched, FetchError> {
        let url = &request.url;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::InvalidUrl {
                url: url.to_string(),
                reason: "only http and https are fetched".into(),
            });
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::InvalidUrl {
                url: url.to_string(),
                reason: "URLs with credentials are refused".into(),
            });
        }
        if request.method == Method::Head && !self.settings.head_allowed {
            return Err(FetchError::HeadNotAllowed);
        }
        check_url_host(&self.settings.address_policy, url)?;

        let deadline = request.response_deadline.unwrap_or(self.settings.response_deadline);
        let limit = request.max_body_bytes.unwrap_or(self.settings.max_body_bytes);
        // The deadline starts with the turn: waiting for one is not the site's slowness.
        let _turn = match &self.turns {
            Some(turns) => Some(turns.acquire().await.map_err(|_| FetchError::Connect {
                url: url.to_string(),
                detail: "the client is shutting down".into(),
            })?),
            None => None,
        };
        let origin = self.kept.as_ref().map(|_| origin_of(url));
        let close = match (&self.kept, &origin) {
            (Some(kept), Some(origin)) => request.close_after || !kept.keep(origin),
            _ => request.close_after,
        };
        let started = tokio::time::Instant::now();
        // The client's own timeout covers the body too; the outer one is a backstop
        // that also covers a per-site deadline shorter than the client's.
        let result = match tokio::time::timeout(
            deadline,
            self.send(request, limit, close, deadline),
        )
        .await
        {
            Ok(Ok(mut fetched)) => {
                fetched.elapsed = started.elapsed();
                Ok(fetched)
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(FetchError::Timeout { url: url.to_string(), deadline }),
        };
        if let (Some(kept), Some(origin)) = (&self.kept, &origin)
            && (close || result.is_err())
        {
            kept.release(origin);
        }
        result
    }

    async fn send(
        &self,
        request: &FetchRequest,
        limit: u64,
        close: bool,
        deadline: Duration,
    ) -> Result<Fetched, FetchError> {
        let url = &request.url;
        let headers = self.headers(request, close)?;
        let outgoing = Outgoing { method: request.method, url: url.clone(), headers, deadline };
        let mut response = self.transport.send(outgoing).await?;
        let status = response.status;
        let headers: Vec<(String, String)> = response
            .headers
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), header_text(v.as_bytes())))
            .collect();
        let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        let mut validators =
            Validators { etag: header("etag"), last_modified: header("last-modified") };
        if status == 304 {
            // RFC 9110 §15.4.5: a 304 may omit validators that did not change.
            validators.etag = validators.etag.or_else(|| request.validators.etag.clone());
            validators.last_modified =
                validators.last_modified.or_else(|| request.validators.last_modified.clone());
        }

        let mut body = BytesMut::new();
        let reads_body = request.method == Method::Get && status != 304 && status != 204;
        if reads_body {
            if let Some(declared) = response.content_length
                && declared > limit
            {
                return Err(FetchError::TooLarge {
                    url: url.to_string(),
                    limit,
                    declared: Some(declared),
                });
            }
            while let Some(chunk) = response.body.chunk().await? {
                if body.len() as u64 + chunk.len() as u64 > limit {
                    return Err(FetchError::TooLarge {
                        url: url.to_string(),
                        limit,
                        declared: None,
                    });
                }
                body.extend_from_slice(&chunk);
            }
        }
        Ok(Fetched {
            url: url.clone(),
            status,
            headers,
            body: body.freeze(),
            validators,
            elapsed: Duration::ZERO,
        })
    }

    /// Every header the request carries: the identity, validators and, signed now as the
    /// request leaves (never at reservation time, so a long wait for the site's gap cannot
    /// send an expired signature), the signature.
    fn headers(&self, request: &FetchRequest, close: bool) -> Result<HeaderMap, FetchError> {
        let url = &request.url;
        let value = |v: &str| {
            HeaderValue::from_str(v).map_err(|e| FetchError::Connect {
                url: url.to_string(),
                detail: format!("cannot send the header value `{v}`: {e}"),
            })
        };
        let mut headers = HeaderMap::new();
        headers.insert(header::USER_AGENT, value(&self.settings.user_agent)?);
        headers.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT));
        if close {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if let Some(etag) = &request.validators.etag {
            headers.insert(header::IF_NONE_MATCH, value(etag)?);
        }
        if let Some(last_modified) = &request.validators.last_modified {
            headers.insert(header::IF_MODIFIED_SINCE, value(last_modified)?);
        }
        if let Some(signed) =
            self.settings.signer.as_ref().and_then(|s| s.sign_request(url, SystemTime::now()))
        {
            headers.insert("signature-agent", value(&signed.signature_agent)?);
            headers.insert("signature-input", value(&signed.signature_input)?);
            headers.insert("signature", value(&signed.signature)?);
        }
        Ok(headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_text_is_the_lossy_reading() {
        for bytes in
            [b"text/html; charset=utf-8".as_slice(), b"caf\xc3\xa9", b"bad \xff\xfe end", b""]
        {
            assert_eq!(header_text(bytes), String::from_utf8_lossy(bytes));
        }
    }
}
