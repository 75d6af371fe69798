//! Serving a router on a bound listener under the `[server]` limits (issue 26 item 2),
//! for the public server and the dashboard alike: before this, `axum::serve` kept every
//! idle or slow-header connection open forever, so 2 × 10 000 of them filled the
//! process's open-file limit and `/healthz` stopped answering.
//!
//! - A connection over `max_connections` (per listener) or over
//!   `max_connections_per_client` for its client address (an IPv6 client by its /64) is
//!   closed as soon as it is accepted, so the backlog never fills with them.
//! - hyper's header-read timeout closes a connection that has not sent a complete request
//!   head within `header_read_timeout` of opening or of its previous response (slowloris,
//!   and idle keep-alive).
//! - [`IdleTimeout`] closes a connection with no byte read or written for `idle_timeout`
//!   (a stalled body, a client that stopped reading).
//! - tower-http bounds each request: `request_timeout` (408) and `max_request_body`
//!   (413).
//!
//! The peer address is put in each request as axum's `ConnectInfo`, as
//! `into_make_service_with_connect_info` did. On shutdown the listener stops accepting
//! and every connection finishes its request in flight, then closes.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use gleaner_config::server_limits::ServerLimits;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

/// Where connections are counted for `max_connections_per_client`: an IPv4 address, or
/// the /64 of an IPv6 one (one household or server usually holds a whole /64).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientKey {
    /// One IPv4 address (IPv4-mapped IPv6 included).
    V4([u8; 4]),
    /// The first 64 bits of an IPv6 address.
    V6([u8; 8]),
}

impl ClientKey {
    /// The key of a peer address.
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(v4) => ClientKey::V4(v4.octets()),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey::V4(v4.octets()),
                None => {
                    let mut prefix = [0u8; 8];
                    prefix.copy_from_slice(&v6.octets()[..8]);
                    ClientKey::V6(prefix)
                }
            },
        }
    }
}

/// Open connections per client, decremented when a connection's [`ClientSlot`] drops.
#[derive(Debug, Default)]
struct PerClient(Mutex<HashMap<ClientKey, u32>>);

/// One connection's place in its client's count.
struct ClientSlot {
    counts: Arc<PerClient>,
    key: ClientKey,
}

impl PerClient {
    fn take(self: &Arc<Self>, key: ClientKey, cap: u32) -> Option<ClientSlot> {
        let mut counts = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(key).or_insert(0);
        if *count >= cap {
            return None;
        }
        *count += 1;
        Some(ClientSlot { counts: Arc::clone(self), key })
    }
}

impl Drop for ClientSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                counts.remove(&self.key);
            }
        }
    }
}

/// Serves `app` on `listener` under `limits` until `shutdown` completes, then lets the
/// open connections finish their requests. Errors only when accepting fails for good.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let app = app
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            usize::try_from(limits.max_request_body).unwrap_or(usize::MAX),
        ))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            limits.request_timeout,
        ));
    let open = Arc::new(Semaphore::new(limits.max_connections as usize));
    let per_client = Arc::new(PerClient::default());
    let (stop, stopped) = watch::channel(false);
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                // Out of file descriptors or a connection reset before accept: wait a
                // little rather than spin, and keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let Ok(permit) = Arc::clone(&open).try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let Some(slot) =
            per_client.take(ClientKey::of(peer.ip()), limits.max_connections_per_client)
        else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let _held = (permit, slot);
            let io = TokioIo::new(IdleTimeout::new(stream, limits.idle_timeout));
            let service =
                hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    app.clone().oneshot(request)
                });
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
            let connection = builder.serve_connection(io, service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let _ = stop.send(true);
    // Every connection holds a permit until it ends: waiting for all of them is waiting
    // for the connections (bounded by the timeouts).
    let _ = open.acquire_many(limits.max_connections).await;
    Ok(())
}

/// A stream that fails with `TimedOut` once it has gone `limit` without a byte read or
/// written, so hyper closes the connection.
pub struct IdleTimeout<S> {
    inner: S,
    limit: Duration,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl<S> IdleTimeout<S> {
    /// Wraps `inner`; the clock starts now.
    pub fn new(inner: S, limit: Duration) -> IdleTimeout<S> {
        IdleTimeout { inner, limit, deadline: Box::pin(tokio::time::sleep(limit)) }
    }

    fn moved(&mut self) {
        let next = tokio::time::Instant::now() + self.limit;
        self.deadline.as_mut().reset(next);
    }

    fn expired(&mut self, cx: &mut Context<'_>) -> bool {
        self.deadline.as_mut().poll(cx).is_ready()
    }
}

fn timed_out() -> io::Error {
    io::Error::new(io::ErrorKind::TimedOut, "the client sent and read nothing for too long")
}

impl<S: AsyncRead + Unpin> AsyncRead for IdleTimeout<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(result) => {
                if buf.filled().len() > before {
                    this.moved();
                }
                Poll::Ready(result)
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, data) {
            Poll::Ready(Ok(n)) => {
                if n > 0 {
                    this.moved();
                }
                Poll::Ready(Ok(n))
            }
            Poll::Pending if this.expired(cx) => Poll::Ready(Err(timed_out())),
            other => other,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_counted_by_address_and_ipv6_by_its_64() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(ClientKey::of(ip("2001:db8:1:2::1")), ClientKey::of(ip("2001:db8:1:2:ffff::9")));
        assert_ne!(ClientKey::of(ip("2001:db8:1:2::1")), ClientKey::of(ip("2001:db8:1:3::1")));
        assert_eq!(ClientKey::of(ip("::ffff:127.0.0.1")), ClientKey::of(ip("127.0.0.1")));
        assert_ne!(ClientKey::of(ip("127.0.0.1")), ClientKey::of(ip("127.0.0.2")));
        let counts = Arc::new(PerClient::default());
        let key = ClientKey::of(ip("127.0.0.1"));
        let a = counts.take(key, 2).unwrap();
        let _b = counts.take(key, 2).unwrap();
        assert!(counts.take(key, 2).is_none(), "over the cap");
        drop(a);
        assert!(counts.take(key, 2).is_some(), "a closed connection frees its slot");
    }
}
