//! The demo server: one listener per site on `127.0.X.Y` and one shared port
//! ([`bind_city`]), served by hyper until a shutdown future completes ([`serve`], the
//! mini-redis `run(listener, shutdown)` shape).
//!
//! Every address is bound explicitly, never `0.0.0.0`: the sample city is only ever
//! reachable from this machine. Routing is [`City::respond`]; this module only moves bytes.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::city::{City, Origins};
use crate::route::{Reply, Request, Traffic};

/// Largest request body read (only the language-model mock reads bodies).
const MAX_BODY: usize = 1024 * 1024;

/// The loopback address of site `index` of the sample city:
/// `127.0.(60 + index / 250).(1 + index % 250)`.
///
/// The range starts at `127.0.60.1`, away from the test web's `127.0.1.1`, so both can run
/// side by side; every address in 127.0.0.0/8 routes to `lo` on Linux.
pub fn city_ip(index: usize) -> Ipv4Addr {
    let x = (60 + index / 250).min(255) as u8;
    let y = (1 + index % 250) as u8;
    Ipv4Addr::new(127, 0, x, y)
}

/// The bound listeners of a city, in site order.
#[derive(Debug)]
pub struct CityListeners {
    listeners: Vec<TcpListener>,
    addrs: Vec<SocketAddr>,
}

impl CityListeners {
    /// The address of every site, in site order.
    pub fn addrs(&self) -> &[SocketAddr] {
        &self.addrs
    }

    /// The shared port.
    pub fn port(&self) -> u16 {
        self.addrs.first().map_or(0, SocketAddr::port)
    }

    /// The origin of every site, for URLs and ground truth.
    pub fn origins(&self) -> Origins {
        Origins::from_addrs(&self.addrs)
    }
}

/// Binds one listener per site of `city` on [`city_ip`] addresses and one port chosen by
/// the OS; when another process holds that port on a later address, tries again.
pub async fn bind_city(city: &City) -> io::Result<CityListeners> {
    bind_addresses(city.len(), 0).await
}

/// Like [`bind_city`], on a port of the caller's choosing (0 lets the OS choose).
pub async fn bind_city_on(city: &City, port: u16) -> io::Result<CityListeners> {
    bind_addresses(city.len(), port).await
}

async fn bind_addresses(count: usize, port: u16) -> io::Result<CityListeners> {
    let mut last_err = None;
    for _attempt in 0..20 {
        let first = TcpListener::bind(SocketAddrV4::new(city_ip(0), port)).await?;
        let port = first.local_addr()?.port();
        let mut listeners = vec![first];
        let mut failed = None;
        for i in 1..count {
            match TcpListener::bind(SocketAddrV4::new(city_ip(i), port)).await {
                Ok(l) => listeners.push(l),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match failed {
            None => {
                let addrs =
                    listeners.iter().map(TcpListener::local_addr).collect::<io::Result<_>>()?;
                return Ok(CityListeners { listeners, addrs });
            }
            Some(e) => last_err = Some(e),
        }
    }
    Err(last_err.unwrap_or_else(|| io::Error::other("could not bind the sample city")))
}

/// Serves `city` on `listeners` until `shutdown` completes; open connections are dropped.
///
/// The pass served is [`City::pass`], so a caller holding the `Arc` can
/// [`City::advance_pass`] while serving.
pub async fn serve(listeners: CityListeners, city: Arc<City>, shutdown: impl Future<Output = ()>) {
    let origins = Arc::new(listeners.origins());
    let traffic = Arc::new(Traffic::new());
    let (stop, stopped) = watch::channel(false);
    let mut loops = tokio::task::JoinSet::new();
    for (site, listener) in listeners.listeners.into_iter().enumerate() {
        let ctx = Ctx {
            city: Arc::clone(&city),
            origins: Arc::clone(&origins),
            traffic: Arc::clone(&traffic),
            site,
        };
        loops.spawn(accept_loop(listener, ctx, stopped.clone()));
    }
    shutdown.await;
    let _ = stop.send(true);
    while loops.join_next().await.is_some() {}
}

#[derive(Clone, Debug)]
struct Ctx {
    city: Arc<City>,
    origins: Arc<Origins>,
    traffic: Arc<Traffic>,
    site: usize,
}

async fn accept_loop(listener: TcpListener, ctx: Ctx, mut stopped: watch::Receiver<bool>) {
    loop {
        let accepted = tokio::select! {
            _ = stopped.changed() => return,
            r = listener.accept() => r,
        };
        match accepted {
            Ok((stream, _peer)) => {
                let _ = stream.set_nodelay(true);
                let ctx = ctx.clone();
                let mut stopped = stopped.clone();
                tokio::spawn(async move {
                    let svc = service_fn(move |req| handle(ctx.clone(), req));
                    let conn = hyper::server::conn::http1::Builder::new()
                        .keep_alive(true)
                        .serve_connection(TokioIo::new(stream), svc);
                    tokio::select! {
                        _ = conn => {}
                        _ = stopped.changed() => {}
                    }
                });
            }
            // Out of file descriptors or a transient accept error: back off briefly.
            Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

async fn handle(
    ctx: Ctx,
    req: http::Request<hyper::body::Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let moment = ctx.traffic.moment(&ctx.city, ctx.site);
    let (parts, body) = req.into_parts();
    let body = if parts.method == http::Method::POST {
        match Limited::new(body, MAX_BODY).collect().await {
            Ok(b) => b.to_bytes(),
            Err(_) => return Ok(plain(413, "request body too large\n")),
        }
    } else {
        Bytes::new()
    };
    let request = Request {
        method: parts.method.as_str(),
        path: parts.uri.path(),
        query: parts.uri.query(),
        headers: &parts.headers,
        body: &body,
        moment,
    };
    let reply = ctx.city.respond(&ctx.origins, ctx.site, ctx.city.pass(), &request);
    Ok(to_response(reply))
}

/// Turns a [`Reply`] into a hyper response (hyper leaves the body out for `HEAD`).
pub fn to_response(reply: Reply) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::OK);
    for (name, value) in reply.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            response.headers_mut().append(name, v);
        }
    }
    response
}

fn plain(status: u16, text: &'static str) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(Bytes::from_static(text.as_bytes())));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
    r
}
