//! Issue 26 items 2 and 3 from the client's side: thousands of idle and slow-header
//! connections held open from loopback do not stop `/healthz`, and the timeouts close
//! them; a client over its connection cap is closed at once; wrong dashboard tokens are
//! throttled per client; signing out revokes a session everywhere.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::owners::{NoDns, fixture, open, send, token_in};

const SERVER: &str = "header_read_timeout = \"1s\"\nidle_timeout = \"2s\"\nmax_connections = 8000\nmax_connections_per_client = 25";

async fn connect_from(local: [u8; 4], server: SocketAddr) -> Option<TcpStream> {
    let socket = TcpSocket::new_v4().ok()?;
    socket.bind(SocketAddr::from((local, 0))).ok()?;
    tokio::time::timeout(Duration::from_secs(2), socket.connect(server)).await.ok()?.ok()
}

/// `GET /healthz` from 127.0.0.1; how long the answer took.
async fn health(server: SocketAddr) -> Duration {
    let start = Instant::now();
    let mut s = connect_from([127, 0, 0, 1], server).await.expect("connect for /healthz");
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").await.unwrap();
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut answer)).await;
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"), "healthz answered");
    start.elapsed()
}

/// Waits (at most `limit`) until the server closes `s`; true when it did.
async fn closed_within(s: &mut TcpStream, limit: Duration) -> bool {
    let mut buf = [0u8; 512];
    let deadline = Instant::now() + limit;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => continue,
            Err(_) => return false,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue26_held_connections_do_not_stop_healthz_and_the_timeouts_close_them() {
    let _ = rlimit::increase_nofile_limit(20_000);
    let (soft, _) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap_or((1024, 1024));
    // Each held connection costs two descriptors here (client and server side).
    let per_kind = usize::try_from(soft).unwrap_or(1024).saturating_sub(200).min(6000) / 4;
    let f = fixture(&format!("\n[server]\n{SERVER}"), Arc::new(NoDns)).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = listener.local_addr().unwrap();
    let settings = f.desk.settings.clone();
    let state = gleaner_server::AppState { settings, events: Arc::new(crate::Fixed(Vec::new())) };
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(gleaner_server::serve_with_desk(
        listener,
        state,
        gleaner_server::ServerOptions::default(),
        Arc::clone(&f.desk),
        async move {
            let _ = stopped.await;
        },
    ));
    // Idle connections and slow headers, 20 per loopback address (under the cap of 25).
    let mut idle = Vec::new();
    let mut slow = Vec::new();
    for n in 0..per_kind {
        let from = [127, 1, (n / 20 / 250) as u8, (n / 20 % 250 + 1) as u8];
        if let Some(s) = connect_from(from, server).await {
            idle.push(s);
        }
        let from = [127, 2, (n / 20 / 250) as u8, (n / 20 % 250 + 1) as u8];
        if let Some(mut s) = connect_from(from, server).await {
            let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").await;
            slow.push(s);
        }
    }
    assert!(idle.len() + slow.len() >= per_kind, "held {} + {}", idle.len(), slow.len());
    // While they are held, /healthz answers within a second.
    for _ in 0..3 {
        let took = health(server).await;
        assert!(took < Duration::from_secs(1), "/healthz took {took:?}");
    }
    // Slow headers keep trickling (so only the header-read timeout can end them), and
    // every held connection is closed by the server within a few seconds.
    for s in &mut slow {
        let _ = s.write_all(b"X-A: b\r\n").await;
    }
    let mut open_idle = 0;
    for s in &mut idle {
        open_idle += usize::from(!closed_within(s, Duration::from_secs(6)).await);
    }
    let mut open_slow = 0;
    for s in &mut slow {
        open_slow += usize::from(!closed_within(s, Duration::from_secs(4)).await);
    }
    assert_eq!((open_idle, open_slow), (0, 0), "held connections closed by the timeouts");

    // Over its cap, a client's next connection is closed at once; positive control: the
    // first 25 stay open.
    let mut mine = Vec::new();
    for _ in 0..25 {
        mine.push(connect_from([127, 3, 0, 1], server).await.unwrap());
    }
    let mut extra = connect_from([127, 3, 0, 1], server).await.unwrap();
    assert!(closed_within(&mut extra, Duration::from_millis(500)).await, "over the cap: closed");
    assert!(!closed_within(&mut mine[0], Duration::from_millis(300)).await, "under it: open");
    let _ = stop.send(());
    drop((mine, idle, slow));
    let _ = tokio::time::timeout(Duration::from_secs(10), serving).await;
}

#[tokio::test]
async fn issue26_wrong_dashboard_tokens_are_throttled_and_sign_out_revokes_the_session() {
    let f = fixture("", Arc::new(NoDns)).await;
    let dash = gleaner_server::dashboard::router(Arc::clone(&f.desk)).unwrap();
    let session = open(&dash, "/login").await;
    let login = |token: &str, peer: [u8; 4]| {
        let body = format!("csrf={}&token={token}", session.token);
        let mut request = Request::post("/login")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::COOKIE, &session.cookie)
            .body(Body::from(body))
            .unwrap();
        request.extensions_mut().insert(axum::extract::ConnectInfo(SocketAddr::from((peer, 4000))));
        request
    };
    let attacker = [203, 0, 113, 5];
    let mut refused = 0;
    let mut throttled = 0;
    for n in 0..300 {
        let (status, _, _) = send(&dash, login(&format!("guess-{n:04}"), attacker)).await;
        match status {
            StatusCode::UNAUTHORIZED => refused += 1,
            StatusCode::TOO_MANY_REQUESTS => throttled += 1,
            other => panic!("{other}"),
        }
    }
    assert_eq!(refused, gleaner_server::desk::LOGIN_FAILURES, "answered, then throttled");
    assert_eq!(throttled, 300 - gleaner_server::desk::LOGIN_FAILURES);
    let (status, _, _) = send(&dash, login(crate::owners::OPERATOR, attacker)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "even the right token, from there");
    // Positive control: the operator elsewhere signs in.
    let (status, headers, _) = send(&dash, login(crate::owners::OPERATOR, [198, 51, 100, 1])).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let cookie =
        headers[header::SET_COOKIE].to_str().unwrap().split(';').next().unwrap().to_owned();
    let both = format!("{}; {cookie}", session.cookie);
    let page = |cookie: &str| {
        Request::get("/sites").header(header::COOKIE, cookie).body(Body::empty()).unwrap()
    };
    let (status, _, html) = send(&dash, page(&both)).await;
    assert_eq!(status, StatusCode::OK, "signed in");
    // A stolen copy of the cookie stops working when the operator signs out.
    let logout = Request::post("/logout")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::COOKIE, &both)
        .body(Body::from(format!("csrf={}", token_in(&html))))
        .unwrap();
    let (status, _, _) = send(&dash, logout).await;
    assert_eq!(status, StatusCode::SEE_OTHER);
    let (status, _, _) = send(&dash, page(&both)).await;
    assert_eq!(status, StatusCode::SEE_OTHER, "the copied cookie is revoked");
}
