//! The test web without sockets: a [`gleaner_fetch::Transport`] that hands each request
//! to the same site handlers the socket server runs, so a test can crawl on Tokio's
//! paused time (`#[tokio::test(start_paused = true)]`) and see minutes of gaps in
//! milliseconds.
//!
//! Why: with a real socket, auto-advance moves the clock to the next timer while a
//! loopback response is in flight, and deadlines fire. In process, the handler runs on the
//! test's runtime and the ledger reads Tokio's clock ([`LedgerClock::Tokio`]), so every
//! wait the crawler and the sites make is one the runtime knows about, and the ledger
//! judged by [`crate::check`] records the gaps the crawler kept on that clock.
//!
//! [`TestWeb::in_process`] starts one; [`TestWeb::transport`] gives the transport for
//! `gleaner_fetch::Client::with_transport`. Sites keep their addresses `127.0.X.Y` (on
//! port [`IN_PROCESS_PORT`], where nothing listens) so URLs, `Host` headers, budgets and
//! the client's address guard see what they see against sockets; the transport routes by
//! the URL's host and port. Each request is its own "connection" (a new `conn` number).
//!
//! What differs from a socket, on purpose: no content decoding (an answer with a
//! `Content-Encoding` fails as a broken body, so the gzip scenario stays a socket test),
//! no connect timeout, no connection reuse. A handler runs as a task of its own, as on a
//! server: a client that gives up (its deadline) drops only its end, and the ledger marks
//! the request `hung_up`, as it does when a socket closes.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use gleaner_fetch::transport::BoxFuture;
use gleaner_fetch::{FetchError, Incoming, Method, Outgoing, ResponseBody, Transport};
use http::{Request, header};
use http_body_util::{BodyExt, Empty};
use tokio::sync::{mpsc, oneshot};

use crate::ledger::LedgerClock;
use crate::manifest::Manifest;
use crate::server::{ConnShared, MAX_SITES, TestWeb, WebState, handle, site_ip};

/// The port every in-process site answers on. Nothing listens there: a client built
/// without the in-process transport fails to connect instead of reaching something.
pub const IN_PROCESS_PORT: u16 = 9;

impl TestWeb {
    /// The sites of `manifest` in this process, without sockets, on Tokio's clock (see
    /// [`crate::inprocess`]); reach them through [`TestWeb::transport`]. Site `i` has the
    /// address of [`site_ip`]`(i)` on [`IN_PROCESS_PORT`].
    ///
    /// Call it inside the test's runtime, after pausing time if the test does, so the
    /// ledger's epoch is on the clock the test runs on.
    pub fn in_process(manifest: Manifest) -> TestWeb {
        assert!(manifest.sites.len() <= MAX_SITES, "at most {MAX_SITES} sites in one web");
        let addrs: Vec<SocketAddr> = (0..manifest.sites.len())
            .map(|i| SocketAddr::new(IpAddr::V4(site_ip(i)), IN_PROCESS_PORT))
            .collect();
        let state = Arc::new(WebState::with_clock(
            manifest,
            addrs,
            LedgerClock::Tokio(tokio::time::Instant::now()),
        ));
        TestWeb::from_state(state)
    }

    /// A transport that reaches this web's site handlers in process.
    ///
    /// # Panics
    /// On a web that listens on sockets ([`TestWeb::start`]): its ledger reads the
    /// machine's clock, so a crawl on paused time would be judged on another clock.
    pub fn transport(&self) -> Arc<dyn Transport> {
        assert!(
            matches!(self.state().ledger_clock(), LedgerClock::Tokio(_)),
            "TestWeb::transport is for a web started with TestWeb::in_process; \
             this one listens on sockets and its ledger reads the machine's clock"
        );
        Arc::new(InProcessTransport { state: Arc::clone(self.state()) })
    }
}

/// The in-process transport of one web ([`TestWeb::transport`]).
#[derive(Debug, Clone)]
pub struct InProcessTransport {
    state: Arc<WebState>,
}

impl InProcessTransport {
    /// The site whose address is the URL's host and port, if the web has one.
    fn site_of(&self, request: &Outgoing) -> Option<usize> {
        let host = request.url.host_str()?.trim_start_matches('[').trim_end_matches(']');
        let ip: IpAddr = host.parse().ok()?;
        let port = request.url.port_or_known_default()?;
        let addr = SocketAddr::new(ip, port);
        self.state.addrs().iter().position(|a| *a == addr)
    }
}

type Chunk = Result<Bytes, String>;

impl Transport for InProcessTransport {
    fn send(&self, request: Outgoing) -> BoxFuture<'_, Result<Incoming, FetchError>> {
        Box::pin(async move {
            let url = request.url.to_string();
            let connect = |detail: String| FetchError::Connect { url: url.clone(), detail };
            let Some(site) = self.site_of(&request) else {
                return Err(connect(
                    "connection refused: no in-process site at this address".into(),
                ));
            };
            let method = match request.method {
                Method::Get => http::Method::GET,
                Method::Head => http::Method::HEAD,
            };
            let target = match request.url.query() {
                Some(q) => format!("{}?{q}", request.url.path()),
                None => request.url.path().to_owned(),
            };
            let mut builder = Request::builder().method(method.clone()).uri(target);
            // `Host` as reqwest sends it: the authority, without a default port.
            let authority = match (request.url.host_str(), request.url.port()) {
                (Some(h), Some(p)) => format!("{h}:{p}"),
                (Some(h), None) => h.to_owned(),
                _ => String::new(),
            };
            builder = builder.header(header::HOST, authority);
            for (name, value) in &request.headers {
                builder = builder.header(name, value);
            }
            let req = builder.body(Empty::<Bytes>::new()).map_err(|e| connect(e.to_string()))?;

            let (head_tx, head_rx) = oneshot::channel();
            // One chunk in flight at a time, as a socket's buffer would hold some: the
            // server produces the body as fast as the client reads it.
            let (body_tx, body_rx) = mpsc::channel::<Chunk>(1);
            let state = Arc::clone(&self.state);
            tokio::spawn(async move {
                let conn = state.next_conn();
                let answer = handle(state, site, conn, Arc::new(ConnShared::default()), req).await;
                let response = match answer {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = head_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                let (parts, mut body) = response.into_parts();
                // hyper never polls the body of a HEAD, 204 or 304 answer; nor do we.
                let bodiless =
                    method == http::Method::HEAD || matches!(parts.status.as_u16(), 204 | 304);
                if head_tx.send(Ok(parts)).is_err() || bodiless {
                    return;
                }
                while let Some(frame) = body.frame().await {
                    let chunk = match frame {
                        Ok(f) => match f.into_data() {
                            Ok(data) => Ok(data),
                            Err(_) => continue,
                        },
                        Err(e) => Err(e.to_string()),
                    };
                    let failed = chunk.is_err();
                    // The client went away: dropping the body marks the request hung up.
                    if body_tx.send(chunk).await.is_err() || failed {
                        return;
                    }
                }
            });
            let parts = match head_rx.await {
                Ok(Ok(parts)) => parts,
                Ok(Err(e)) => return Err(connect(format!("connection closed: {e}"))),
                Err(_) => return Err(connect("connection closed before an answer".into())),
            };
            if let Some(coding) = parts.headers.get(header::CONTENT_ENCODING) {
                return Err(FetchError::Body {
                    url,
                    detail: format!(
                        "the in-process transport decodes no content coding ({coding:?}); \
                         test decoding against the socket web"
                    ),
                });
            }
            let content_length = parts
                .headers
                .get(header::CONTENT_LENGTH)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok());
            Ok(Incoming {
                status: parts.status.as_u16(),
                headers: parts.headers,
                content_length,
                body: Box::new(InProcessBody { url, rx: body_rx }),
            })
        })
    }
}

struct InProcessBody {
    url: String,
    rx: mpsc::Receiver<Chunk>,
}

impl ResponseBody for InProcessBody {
    fn chunk(&mut self) -> BoxFuture<'_, Result<Option<Bytes>, FetchError>> {
        Box::pin(async move {
            match self.rx.recv().await {
                None => Ok(None),
                Some(Ok(data)) => Ok(Some(data)),
                Some(Err(e)) => Err(FetchError::Body { url: self.url.clone(), detail: e }),
            }
        })
    }
}
