//! The server: one listener per site on `127.0.X.Y`, hyper HTTP/1.1 connections, and the
//! body type that reports to the ledger.
//!
//! [`bind_sites`] binds the listeners, [`serve`] runs them until a shutdown future
//! completes (the mini-redis `run(listener, shutdown)` shape), and [`TestWeb`] bundles both
//! for tests. Routing is in the `content` module; the ledger in [`crate::ledger`].

use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Request, Response, StatusCode};
use http_body_util::{BodyExt, Limited};
use hyper::body::{Body, Frame, SizeHint};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

use crate::city::CityWeb;
use crate::content::{self, Ask, Fault, Payload, Reply, SiteState, World};
use crate::ledger::{Ledger, LedgerClock, LedgerEntry, LedgerSink, RequestGuard, Served};
use crate::manifest::SiteContent;
use crate::manifest::{Manifest, SiteSpec};

/// Most sites one web can hold: 127.0.1.1 to 127.0.254.250.
pub const MAX_SITES: usize = 254 * 250;

/// The loopback address of site `index`: `127.0.(1 + index / 250).(1 + index % 250)`.
///
/// Every address in 127.0.0.0/8 routes to `lo` on Linux, so no setup is needed, and each
/// site is a distinct host to the client (distinct robots.txt, budget and connection pool).
pub fn site_ip(index: usize) -> Ipv4Addr {
    assert!(index < MAX_SITES, "site index {index} beyond {MAX_SITES}");
    // Both parts are below 256 by the assertion above.
    let x = (1 + index / 250) as u8;
    let y = (1 + index % 250) as u8;
    Ipv4Addr::new(127, 0, x, y)
}

/// Binds one listener per site, all on one port (chosen by the OS for the first site).
///
/// Each address is bound explicitly, never `0.0.0.0`. When another process holds the
/// chosen port on some later address, the whole set is dropped and tried again.
pub async fn bind_sites(count: usize) -> io::Result<Vec<TcpListener>> {
    bind_sites_from(0, count).await
}

/// Like [`bind_sites`], on the addresses of sites `first..first + count`: webs in
/// several processes, each with its own open-file limit, bind disjoint ranges
/// ([`crate::split`]).
pub async fn bind_sites_from(first: usize, count: usize) -> io::Result<Vec<TcpListener>> {
    if first.saturating_add(count) > MAX_SITES {
        return Err(io::Error::other(format!(
            "sites {first}..{} do not fit the {MAX_SITES} loopback addresses of the test web",
            first.saturating_add(count)
        )));
    }
    raise_fd_limit(count);
    let mut last_err = None;
    for _attempt in 0..20 {
        let head = TcpListener::bind(SocketAddrV4::new(site_ip(first), 0)).await?;
        let port = head.local_addr()?.port();
        let mut listeners = Vec::with_capacity(count);
        listeners.push(head);
        let mut failed = None;
        for i in first + 1..first + count {
            match TcpListener::bind(SocketAddrV4::new(site_ip(i), port)).await {
                Ok(l) => listeners.push(l),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            None => return Ok(listeners),
            Some(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("could not bind the test web")))
}

/// Raises the open-file limit towards the hard limit: each site holds a listener and
/// each connection a socket, and 2,000 sites pass the usual soft limit of 1,024.
fn raise_fd_limit(sites: usize) {
    let want = (sites as u64).saturating_mul(4).saturating_add(1024);
    // Failure is not fatal: binding will report EMFILE with a clear error.
    let _ = rlimit::increase_nofile_limit(want.max(16_384));
}

/// State shared by every connection of one web: the manifest, site states and the ledger.
#[derive(Debug)]
pub struct WebState {
    manifest: Arc<Manifest>,
    addrs: Vec<SocketAddr>,
    sites: Vec<SiteState>,
    pass: AtomicU32,
    conns: AtomicU64,
    ledger: Arc<LedgerSink>,
    city: Option<CityWeb>,
}

impl WebState {
    /// State for `manifest`, whose site `i` listens on `addrs[i]`, its ledger on the
    /// machine's clock.
    pub fn new(manifest: Manifest, addrs: Vec<SocketAddr>) -> Self {
        WebState::with_clock(manifest, addrs, LedgerClock::Machine(std::time::Instant::now()))
    }

    /// Like [`WebState::new`], with the ledger on `clock` (Tokio's for the in-process web).
    pub fn with_clock(manifest: Manifest, addrs: Vec<SocketAddr>, clock: LedgerClock) -> Self {
        assert_eq!(manifest.sites.len(), addrs.len(), "one address per site in the manifest");
        WebState {
            city: CityWeb::new(&manifest, &addrs),
            sites: (0..addrs.len()).map(|_| SiteState::default()).collect(),
            ledger: Arc::new(LedgerSink::new(addrs.len(), clock)),
            manifest: Arc::new(manifest),
            addrs,
            pass: AtomicU32::new(0),
            conns: AtomicU64::new(0),
        }
    }

    /// A snapshot of the ledger so far.
    pub fn ledger(&self) -> Ledger {
        Ledger {
            entries: self.ledger.snapshot(),
            manifest: Arc::clone(&self.manifest),
            wall_epoch: self.ledger.wall_epoch,
            slack: crate::check::TIMING_SLACK,
        }
    }

    /// Forgets every entry so far (the epoch stays).
    pub fn clear_ledger(&self) {
        self.ledger.clear();
    }

    /// The sample city this web serves, when its manifest has one.
    pub fn city(&self) -> Option<&CityWeb> {
        self.city.as_ref()
    }

    /// The current pass (starts at 0).
    pub fn pass(&self) -> u32 {
        self.pass.load(Ordering::SeqCst)
    }

    /// Moves every site to the next pass (pages change, vanish or move) and returns it.
    pub fn advance_pass(&self) -> u32 {
        self.pass.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The address of every site, in site order.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The clock the ledger reads.
    pub fn ledger_clock(&self) -> LedgerClock {
        self.ledger.epoch
    }

    /// Time since the ledger's epoch, on the ledger's clock.
    pub fn since_epoch(&self) -> Duration {
        self.ledger.epoch.elapsed()
    }

    /// A new connection number (the in-process web counts one per request).
    pub(crate) fn next_conn(&self) -> u64 {
        self.conns.fetch_add(1, Ordering::Relaxed)
    }
}

/// Serves `listeners` (site `i` on `listeners[i]`) until `shutdown` completes.
///
/// Open connections are dropped at shutdown; their ledger entries are completed.
pub async fn serve(
    listeners: Vec<TcpListener>,
    state: Arc<WebState>,
    shutdown: impl Future<Output = ()>,
) {
    let cancel = CancellationToken::new();
    let mut accept_loops = tokio::task::JoinSet::new();
    for (site, listener) in listeners.into_iter().enumerate() {
        accept_loops.spawn(accept_loop(site, listener, Arc::clone(&state), cancel.clone()));
    }
    shutdown.await;
    cancel.cancel();
    while accept_loops.join_next().await.is_some() {}
}

async fn accept_loop(
    site: usize,
    listener: TcpListener,
    state: Arc<WebState>,
    cancel: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            () = cancel.cancelled() => return,
            r = listener.accept() => r,
        };
        match accepted {
            Ok((stream, _peer)) => {
                tokio::spawn(connection(site, stream, Arc::clone(&state), cancel.clone()));
            }
            // Out of file descriptors or a transient accept error: back off briefly.
            Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

async fn connection(
    site: usize,
    stream: TcpStream,
    state: Arc<WebState>,
    cancel: CancellationToken,
) {
    let _ = stream.set_nodelay(true);
    let conn = state.conns.fetch_add(1, Ordering::Relaxed);
    let shared = Arc::new(ConnShared::default());
    let io = TimedIo { stream, shared: Arc::clone(&shared), epoch: state.ledger.epoch };
    let svc =
        service_fn(move |req| handle(Arc::clone(&state), site, conn, Arc::clone(&shared), req));
    let conn = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        .serve_connection(TokioIo::new(io), svc);
    tokio::select! {
        _ = conn => {}
        () = cancel.cancelled() => {}
    }
}

/// Per-connection facts shared between the socket wrapper and the request handler.
#[derive(Debug, Default)]
pub(crate) struct ConnShared {
    /// Nanoseconds since the epoch, plus one, of the first read of the next request; 0
    /// when no unclaimed bytes have arrived.
    arrival: AtomicU64,
    /// Set to reset the connection (RST) when it is dropped.
    reset: OnceLock<()>,
}

/// The socket, wrapped to timestamp request arrival and to reset on demand.
#[derive(Debug)]
struct TimedIo {
    stream: TcpStream,
    shared: Arc<ConnShared>,
    epoch: LedgerClock,
}

impl AsyncRead for TimedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let this = &mut *self;
        ready!(Pin::new(&mut this.stream).poll_read(cx, buf))?;
        if buf.filled().len() > before {
            let nanos = u64::try_from(this.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX - 1);
            // Only the first read of a request sets the time; the handler claims it.
            let _ = this.shared.arrival.compare_exchange(
                0,
                nanos + 1,
                Ordering::SeqCst,
                Ordering::SeqCst,
            );
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for TimedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

impl Drop for TimedIo {
    fn drop(&mut self) {
        if self.shared.reset.get().is_some() {
            // SO_LINGER 0 makes close() send RST instead of FIN: a "connection reset".
            let _ = self.stream.set_zero_linger();
        }
    }
}

fn header(headers: &HeaderMap, name: &str) -> Option<String> {
    headers.get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// Answers one request of site `site`, recording it in the ledger: the same handler for
/// a socket's connection and for the in-process transport.
pub(crate) async fn handle<B>(
    state: Arc<WebState>,
    site: usize,
    conn: u64,
    shared: Arc<ConnShared>,
    req: Request<B>,
) -> Result<Response<TrackedBody>, io::Error>
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    let claimed = shared.arrival.swap(0, Ordering::SeqCst);
    let at =
        if claimed == 0 { state.ledger.epoch.elapsed() } else { Duration::from_nanos(claimed - 1) };
    let h = req.headers();
    let entry = LedgerEntry {
        seq: 0,
        at,
        site,
        conn,
        method: req.method().as_str().to_owned(),
        path: req.uri().path().to_owned(),
        query: req.uri().query().map(str::to_owned),
        host: header(h, "host"),
        user_agent: header(h, "user-agent"),
        if_none_match: header(h, "if-none-match"),
        if_modified_since: header(h, "if-modified-since"),
        cookie: header(h, "cookie"),
        referer: header(h, "referer"),
        signature_agent: header(h, "signature-agent"),
        signature_input: header(h, "signature-input"),
        signature: header(h, "signature"),
        in_flight: 0,
        status: 0,
        served: Served::Page,
        retry_after: None,
        validators_sent: false,
        bytes_sent: 0,
        finished: None,
        hung_up: false,
    };
    let is_head = req.method() == http::Method::HEAD;
    let mut guard = state.ledger.arrive(entry);
    if let (SiteContent::City(j), Some(city)) = (state.manifest.sites[site].content, state.city()) {
        let on_tokio = matches!(state.ledger.epoch, LedgerClock::Tokio(_));
        let moment = city.moment(j, on_tokio.then(|| state.ledger.epoch.elapsed()));
        let (parts, body) = req.into_parts();
        // Only the language-model mock reads a body; nothing else pays for one.
        let body = if parts.method == http::Method::POST {
            match Limited::new(body, 1024 * 1024).collect().await {
                Ok(b) => b.to_bytes(),
                Err(_) => Bytes::new(),
            }
        } else {
            Bytes::new()
        };
        let h = &parts.headers;
        let ask = Ask {
            path: parts.uri.path(),
            query: parts.uri.query(),
            if_none_match: h.get("if-none-match").and_then(|v| v.to_str().ok()),
            if_modified_since: h.get("if-modified-since").and_then(|v| v.to_str().ok()),
        };
        let request = gleaner_samplecity::Request {
            method: parts.method.as_str(),
            path: parts.uri.path(),
            query: parts.uri.query(),
            headers: &parts.headers,
            body: &body,
            moment,
        };
        let world = World {
            manifest: &state.manifest,
            addrs: &state.addrs,
            pass: state.pass(),
            now: state.ledger.epoch.elapsed(),
            wall: state.ledger.wall_now(),
        };
        let reply = content::route_city(&world, site, &state.sites[site], &ask, city, j, &request);
        return Ok(respond(reply, guard, is_head));
    }
    let reply = {
        let world = World {
            manifest: &state.manifest,
            addrs: &state.addrs,
            pass: state.pass(),
            now: state.ledger.epoch.elapsed(),
            wall: state.ledger.wall_now(),
        };
        let ask = Ask {
            path: req.uri().path(),
            query: req.uri().query(),
            if_none_match: h.get("if-none-match").and_then(|v| v.to_str().ok()),
            if_modified_since: h.get("if-modified-since").and_then(|v| v.to_str().ok()),
        };
        content::route(&world, site, &state.sites[site], &ask)
    };
    match reply.fault {
        Fault::None => {}
        Fault::Delay(d) => {
            guard.answered(0, reply.served, None, false);
            tokio::time::sleep(d).await;
        }
        Fault::Hang(d) => {
            guard.answered(0, Served::Fault, None, false);
            tokio::time::sleep(d).await;
            guard.server_abort = true;
            return Err(io::Error::other("hang scenario: closing without an answer"));
        }
        Fault::Reset => {
            guard.fault();
            let _ = shared.reset.set(());
            return Err(io::Error::other("reset scenario: resetting the connection"));
        }
    }
    Ok(respond(reply, guard, is_head))
}

fn respond(reply: Reply, mut guard: RequestGuard, is_head: bool) -> Response<TrackedBody> {
    // hyper never polls the body of a HEAD, 204 or 304 answer: the head is the answer.
    if is_head || matches!(reply.status, 204 | 304) {
        guard.complete = true;
    }
    guard.answered(reply.status, reply.served, reply.retry_after, reply.has_validators());
    let mut response =
        Response::new(TrackedBody { guard, payload: reply.payload, sent: 0, sleep: None });
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
    let headers = response.headers_mut();
    for (name, value) in reply.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            headers.append(name, v);
        }
    }
    response
}

/// A response body that counts what it hands to hyper and completes the ledger entry.
#[derive(Debug)]
pub(crate) struct TrackedBody {
    guard: RequestGuard,
    payload: Payload,
    /// Bytes (or trickle steps) already produced from `payload`.
    sent: u64,
    sleep: Option<Pin<Box<Sleep>>>,
}

impl TrackedBody {
    fn emit(&mut self, chunk: Bytes, last: bool) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.sent += chunk.len() as u64;
        self.guard.bytes += chunk.len() as u64;
        if last {
            self.guard.complete = true;
        }
        Poll::Ready(Some(Ok(Frame::data(chunk))))
    }
}

impl Body for TrackedBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        let this = &mut *self;
        match &this.payload {
            Payload::Once(bytes) => {
                if this.sent > 0 || bytes.is_empty() {
                    this.guard.complete = true;
                    return Poll::Ready(None);
                }
                let chunk = bytes.clone();
                this.emit(chunk, true)
            }
            Payload::Repeat { chunk, total } => {
                let left = total - this.sent;
                if left == 0 {
                    this.guard.complete = true;
                    return Poll::Ready(None);
                }
                let n = left.min(chunk.len() as u64);
                let piece = chunk.slice(..n as usize);
                this.emit(piece, n == left)
            }
            Payload::Trickle { count, interval } => {
                let (count, interval) = (u64::from(*count), *interval);
                if this.sent >= count {
                    this.guard.complete = true;
                    return Poll::Ready(None);
                }
                if this.sent > 0 {
                    let sleep =
                        this.sleep.get_or_insert_with(|| Box::pin(tokio::time::sleep(interval)));
                    ready!(sleep.as_mut().poll(cx));
                    this.sleep = None;
                }
                let last = this.sent + 1 == count;
                this.emit(Bytes::from_static(b"."), last)
            }
            Payload::Lie(bytes) => {
                if this.sent == 0 {
                    let chunk = bytes.clone();
                    return this.emit(chunk, false);
                }
                // Pause so hyper flushes the head and the short body before the error
                // closes the connection.
                let sleep = this
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
                ready!(sleep.as_mut().poll(cx));
                this.guard.server_abort = true;
                Poll::Ready(Some(Err(io::Error::other(
                    "lying-length scenario: closing before Content-Length bytes",
                ))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.payload {
            Payload::Once(b) => self.sent > 0 || b.is_empty(),
            Payload::Repeat { total, .. } => self.sent >= *total,
            Payload::Trickle { count, .. } => self.sent >= u64::from(*count),
            Payload::Lie(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.payload {
            Payload::Once(b) => {
                SizeHint::with_exact(b.len() as u64 - self.sent.min(b.len() as u64))
            }
            Payload::Repeat { total, .. } => SizeHint::with_exact(total - self.sent),
            Payload::Trickle { .. } | Payload::Lie(_) => SizeHint::default(),
        }
    }
}

/// A running test web: every site of a manifest on its own loopback address.
///
/// The servers run on a runtime of their own (two worker threads), not on the caller's:
/// a test whose runtime is busy, blocked or has paused time cannot delay the server's
/// arrival timestamps or its slow scenarios. Dropping the handle stops the servers too;
/// [`TestWeb::shutdown`] also waits for them.
#[derive(Debug)]
pub struct TestWeb {
    state: Arc<WebState>,
    addrs: Vec<SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl TestWeb {
    /// Binds every site of `manifest` and starts serving them.
    ///
    /// Callable from any async context (it awaits the server's own runtime).
    pub async fn start(manifest: Manifest) -> io::Result<TestWeb> {
        TestWeb::start_at(manifest, 0).await
    }

    /// Like [`TestWeb::start`], with site `i` on the address of site `first + i`
    /// ([`site_ip`]), so webs in several processes never share an address; the ledger
    /// still numbers sites from 0.
    pub async fn start_at(manifest: Manifest, first: usize) -> io::Result<TestWeb> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("gleaner-testweb")
            .enable_all()
            .build()?;
        let count = manifest.sites.len();
        let listeners =
            runtime.spawn(bind_sites_from(first, count)).await.map_err(io::Error::other)??;
        let addrs =
            listeners.iter().map(TcpListener::local_addr).collect::<io::Result<Vec<_>>>()?;
        let state = Arc::new(WebState::new(manifest, addrs.clone()));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = runtime.spawn(serve(listeners, Arc::clone(&state), async {
            let _ = stopped.await;
        }));
        Ok(TestWeb { state, addrs, stop: Some(stop), task: Some(task), runtime: Some(runtime) })
    }

    /// A web handle over `state` with no servers (the in-process web).
    pub(crate) fn from_state(state: Arc<WebState>) -> TestWeb {
        TestWeb { addrs: state.addrs().to_vec(), state, stop: None, task: None, runtime: None }
    }

    /// Number of sites.
    pub fn len(&self) -> usize {
        self.addrs.len()
    }

    /// Whether the web has no sites.
    pub fn is_empty(&self) -> bool {
        self.addrs.is_empty()
    }

    /// The socket address of every site, in site order.
    pub fn sites(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The socket address of site `i`.
    pub fn addr(&self, i: usize) -> SocketAddr {
        self.addrs[i]
    }

    /// `host:port` of site `i`, as it appears in URLs and `Host` headers.
    pub fn authority(&self, i: usize) -> String {
        self.addrs[i].to_string()
    }

    /// The root URL of site `i`, e.g. `http://127.0.1.1:40123/`.
    pub fn site_url(&self, i: usize) -> String {
        format!("http://{}/", self.addrs[i])
    }

    /// The URL of `path` (which starts with `/`) on site `i`.
    pub fn url(&self, i: usize, path: &str) -> String {
        format!("http://{}{path}", self.addrs[i])
    }

    /// The manifest the web runs.
    pub fn manifest(&self) -> &Manifest {
        &self.state.manifest
    }

    /// The spec of site `i`.
    pub fn spec(&self, i: usize) -> &SiteSpec {
        &self.state.manifest.sites[i]
    }

    /// Indices of the sites whose spec satisfies `pred`.
    pub fn sites_where(&self, pred: impl Fn(&SiteSpec) -> bool) -> Vec<usize> {
        (0..self.len()).filter(|i| pred(self.spec(*i))).collect()
    }

    /// A snapshot of the ledger so far.
    pub fn ledger(&self) -> Ledger {
        self.state.ledger()
    }

    /// Forgets every ledger entry so far (the epoch stays).
    pub fn clear_ledger(&self) {
        self.state.clear_ledger();
    }

    /// The shared state, for callers that drive [`serve`] themselves.
    pub fn state(&self) -> &Arc<WebState> {
        &self.state
    }

    /// The monotonic instant the ledger's `at` values count from (on the machine's
    /// clock; for the in-process web, Tokio's epoch as a machine instant, which is only
    /// meaningful with time not paused: use [`TestWeb::since_epoch`] there).
    pub fn epoch(&self) -> std::time::Instant {
        match self.state.ledger.epoch {
            LedgerClock::Machine(epoch) => epoch,
            LedgerClock::Tokio(epoch) => epoch.into_std(),
        }
    }

    /// Time since the ledger's epoch on the ledger's clock: what `at` of a request
    /// arriving now would read.
    pub fn since_epoch(&self) -> Duration {
        self.state.since_epoch()
    }

    /// Moves every site to the next pass and returns its number (see the crate docs).
    pub fn advance_pass(&self) -> u32 {
        self.state.advance_pass()
    }

    /// The sample city this web serves, when its manifest has one ([`Manifest::city`]).
    pub fn city(&self) -> Option<&CityWeb> {
        self.state.city()
    }

    /// The web's index of city site `j` (see [`Manifest::city_site`]).
    pub fn city_site(&self, j: usize) -> Option<usize> {
        self.state.manifest.city_site(j)
    }

    /// What a perfect, polite crawler keeps from the city at the current pass, with URLs
    /// on this web; `None` without a city.
    pub fn ground_truth(&self) -> Option<gleaner_samplecity::GroundTruth> {
        Some(self.city()?.ground_truth(self.state.pass()))
    }

    /// Stops every server and waits for them; open connections are dropped.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
        }
        // Drop runs next and lets the runtime's threads go without blocking.
    }
}

impl Drop for TestWeb {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
