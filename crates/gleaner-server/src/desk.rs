//! The owners' desk: what the owner forms, `/site/{domain}` and the dashboard share —
//! where the desk keeps its rows (a [`DeskStore`]: the store in production, memory in
//! tests), the gate (for the one proof-file request an owner asks for), the TXT
//! resolver, the operator's notifier, the server secret, and the per-address rate limit.
//!
//! Tokens are HMAC-SHA-256 with a secret kept in the store (created once, shared by every
//! process and restart): the CSRF token of a form is the HMAC of a random nonce that also
//! travels in a `SameSite=Strict` cookie (a signed double submit); the proof-of-control
//! token of a domain is the HMAC of the domain, so it needs no table and stays the same
//! until the secret changes.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use gleaner_config::Settings;
use gleaner_fetch::Gate;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::EventSource;
use crate::desk_store::DeskStore;
use crate::limiter::RateLimiter;
use crate::notify::Notifier;
use crate::verify::TxtResolver;

/// The name of the form cookie holding the CSRF nonce.
pub const FORM_COOKIE: &str = "gleaner_form";

/// The store key of the server secret.
const SECRET_NAME: &str = "forms-v1";

/// Everything the owner pages and the dashboard need.
pub struct OwnerDesk {
    /// Where the desk keeps its rows (submissions, the registry, audit, archive,
    /// removal): [`crate::desk_store::StoreDesk`] or, in tests,
    /// [`crate::desk_store::MemoryDesk`].
    pub store: Arc<dyn DeskStore>,
    /// The running settings.
    pub settings: Arc<Settings>,
    /// The gate, for the proof file (`None`: file proofs are queued for the operator).
    pub gate: Option<Arc<Gate>>,
    /// TXT lookups for DNS proofs.
    pub resolver: Arc<dyn TxtResolver>,
    /// Tells the operator about every submission.
    pub notifier: Notifier,
    /// Published events (event counts per source on the dashboard).
    pub events: Option<Arc<dyn EventSource>>,
    /// Rung when the operator pauses, resumes or runs a source, so a scheduler in this
    /// process looks again at once instead of at its next minute.
    pub scheduler_wake: Arc<tokio::sync::Notify>,
    operator_token: Option<String>,
    secret: Vec<u8>,
    limiter: RateLimiter,
    /// Wrong dashboard tokens per client (issue 26: 300 in 1.8 s were all answered).
    login_failures: RateLimiter,
    /// Dashboard sessions, held here so that signing out or a new operator token ends
    /// them (a signed cookie alone could not be revoked).
    sessions: Mutex<HashMap<String, Session>>,
}

/// Wrong dashboard tokens a client may send per [`LOGIN_WINDOW`].
pub const LOGIN_FAILURES: u32 = 10;
/// The window of [`LOGIN_FAILURES`].
pub const LOGIN_WINDOW: Duration = Duration::from_secs(15 * 60);
/// Sessions held at most (the oldest leave first).
const MAX_SESSIONS: usize = 1000;

/// One signed-in dashboard session.
#[derive(Debug, Clone)]
struct Session {
    expires: SystemTime,
    /// A MAC of the operator token it was opened with: a new token ends it.
    token: String,
}

impl std::fmt::Debug for OwnerDesk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnerDesk").field("store", &self.store.location()).finish_non_exhaustive()
    }
}

impl OwnerDesk {
    /// Builds the desk: reads (or creates) the server secret in `store`, and the
    /// resolver the settings name (`[owners] dns_nameserver`, else the system's).
    pub async fn new(
        store: Arc<dyn DeskStore>,
        settings: Arc<Settings>,
        gate: Option<Arc<Gate>>,
    ) -> Result<OwnerDesk, String> {
        let resolver = crate::verify::resolver_from_settings(&settings)?;
        OwnerDesk::with_resolver(store, settings, gate, resolver).await
    }

    /// [`OwnerDesk::new`] with a given resolver (tests stub DNS at this boundary or
    /// point it at a local nameserver).
    pub async fn with_resolver(
        store: Arc<dyn DeskStore>,
        settings: Arc<Settings>,
        gate: Option<Arc<Gate>>,
        resolver: Arc<dyn TxtResolver>,
    ) -> Result<OwnerDesk, String> {
        let candidate: Vec<u8> = (0..32).map(|_| rand::random::<u8>()).collect();
        let secret = store
            .secret_or_insert(SECRET_NAME, candidate)
            .await
            .map_err(|e| format!("failed to read the server secret from the store: {e}"))?;
        let notifier =
            Notifier::new(settings.owners.webhook_url.clone(), settings.owners.email.clone());
        let limiter =
            RateLimiter::new(settings.owners.submissions_per_hour, Duration::from_secs(3600));
        Ok(OwnerDesk {
            store,
            settings,
            gate,
            resolver,
            notifier,
            events: None,
            scheduler_wake: Arc::default(),
            operator_token: None,
            secret,
            limiter,
            login_failures: RateLimiter::new(LOGIN_FAILURES, LOGIN_WINDOW),
            sessions: Mutex::new(HashMap::new()),
        })
    }

    /// Adds the event source (the dashboard counts events per source with it).
    pub fn with_events(mut self, events: Arc<dyn EventSource>) -> OwnerDesk {
        self.events = Some(events);
        self
    }

    /// Adds the operator token (`[dashboard] token` or the environment variable `[server]
    /// dashboard_token_env` names): it opens the dashboard and the URL lists of
    /// `/site/{domain}`.
    pub fn with_operator_token(mut self, token: Option<String>) -> OwnerDesk {
        self.operator_token = token.filter(|t| !t.trim().is_empty());
        self
    }

    /// The operator token, when one is configured.
    pub fn operator_token(&self) -> Option<String> {
        self.operator_token.clone()
    }

    fn mac(&self, parts: &[&[u8]]) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.secret)
            .expect("HMAC takes keys of any length");
        for part in parts {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        hex(&mac.finalize().into_bytes())
    }

    /// A new CSRF pair: the nonce for the cookie and the token for the form field.
    pub fn csrf_pair(&self) -> (String, String) {
        let nonce: [u8; 16] = rand::random();
        let nonce = hex(&nonce);
        let token = self.mac(&[b"csrf", nonce.as_bytes()]);
        (nonce, token)
    }

    /// The form token for a nonce the browser already holds.
    pub fn csrf_token_for(&self, nonce: &str) -> String {
        self.mac(&[b"csrf", nonce.as_bytes()])
    }

    /// Whether a form's token matches the nonce in its cookie.
    pub fn csrf_ok(&self, headers: &HeaderMap, token: Option<&str>) -> bool {
        let (Some(nonce), Some(token)) = (cookie(headers, FORM_COOKIE), token) else {
            return false;
        };
        nonce.len() == 32
            && same(self.mac(&[b"csrf", nonce.as_bytes()]).as_bytes(), token.trim().as_bytes())
    }

    /// The proof-of-control token of a domain (what the TXT record or the file holds).
    pub fn proof_token(&self, domain: &str) -> String {
        let mut token = self.mac(&[b"proof", domain.as_bytes()]);
        token.truncate(32);
        token
    }

    fn token_mark(&self) -> Option<String> {
        self.operator_token.as_ref().map(|t| self.mac(&[b"operator-token", t.as_bytes()]))
    }

    /// Opens a dashboard session until `expires`; the value for the cookie (a random id,
    /// meaningful only to this desk).
    pub fn open_session(&self, expires: SystemTime, now: SystemTime) -> Option<String> {
        let token = self.token_mark()?;
        let id: [u8; 32] = rand::random();
        let id = hex(&id);
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|_, s| s.expires > now);
        while sessions.len() >= MAX_SESSIONS {
            let oldest = sessions.iter().min_by_key(|(_, s)| s.expires).map(|(k, _)| k.clone());
            match oldest {
                Some(k) => sessions.remove(&k),
                None => break,
            };
        }
        sessions.insert(id.clone(), Session { expires, token });
        Some(id)
    }

    /// Whether a dashboard session cookie value names an open, unexpired session made
    /// under the current operator token.
    pub fn session_ok(&self, value: &str, now: SystemTime) -> bool {
        let Some(current) = self.token_mark() else { return false };
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions
            .get(value)
            .is_some_and(|s| s.expires > now && same(s.token.as_bytes(), current.as_bytes()))
    }

    /// Ends a session (signing out); false when there was none.
    pub fn close_session(&self, value: &str) -> bool {
        self.sessions.lock().unwrap_or_else(|p| p.into_inner()).remove(value).is_some()
    }

    /// Whether `ip` may try a dashboard token now (not over [`LOGIN_FAILURES`]).
    pub fn login_allowed(&self, ip: IpAddr) -> bool {
        self.login_failures.would_allow(ip, Instant::now())
    }

    /// Counts a wrong dashboard token from `ip`.
    pub fn login_failed(&self, ip: IpAddr) {
        let _ = self.login_failures.allow(ip, Instant::now());
    }

    /// Counts a submission from `ip`; false when the address is over its hourly limit.
    pub fn allow(&self, ip: IpAddr) -> bool {
        self.limiter.allow(ip, Instant::now())
    }

    /// A new receipt reference: `OWN-` and 12 random hex digits (unguessable, so a
    /// receipt page shows nothing to strangers).
    pub fn new_reference(&self) -> String {
        let bytes: [u8; 6] = rand::random();
        format!("OWN-{}", hex(&bytes).to_ascii_uppercase())
    }
}

/// A random token of 36 hex digits (the demo's per-run operator token).
pub fn random_token() -> String {
    let bytes: [u8; 18] = rand::random();
    hex(&bytes)
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two secrets in time independent of where they differ.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The value of a cookie.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v)
}

/// The client's address, for the forms' rate limit: the connection's peer, or, when
/// the peer is one of `[server] trusted_proxies` (a reverse proxy in front of gleaner),
/// the address that proxy says it serves (`X-Forwarded-For`, read from the right,
/// skipping every trusted proxy, so a client cannot choose its own address by sending
/// the header itself). `0.0.0.0` when the server was not started with connection info,
/// so such clients share one budget.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

/// The reverse proxies whose `X-Forwarded-For` is believed (a request extension).
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(pub Vec<ipnet::IpNet>);

impl TrustedProxies {
    fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client behind `peer`, given the request's headers.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let forwarded: Vec<IpAddr> = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .filter_map(|a| a.trim().parse().ok())
            .collect();
        // Nearest first: the first address no trusted proxy owns is the client; when
        // every one is a proxy, the farthest is as close to the client as we know.
        forwarded
            .iter()
            .rev()
            .copied()
            .find(|ip| !self.trusts(*ip))
            .unwrap_or_else(|| forwarded.first().copied().unwrap_or(peer))
    }

    /// Did the client reach the proxy over HTTPS (`X-Forwarded-Proto` from a trusted
    /// proxy)? Cookies are then marked `Secure`.
    pub fn https(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> bool {
        peer.is_some_and(|p| self.trusts(p))
            && headers
                .get("x-forwarded-proto")
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim().eq_ignore_ascii_case("https"))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
        let Some(peer) = peer else { return Ok(ClientIp(IpAddr::V4(Ipv4Addr::UNSPECIFIED))) };
        let trusted = parts.extensions.get::<TrustedProxies>().cloned().unwrap_or_default();
        Ok(ClientIp(trusted.client(peer, &parts.headers)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trusted_proxy_names_the_client_and_nobody_else_can() {
        let proxies = TrustedProxies(vec!["127.0.0.1/32".parse().unwrap()]);
        let headers = |xff: &str| {
            let mut h = HeaderMap::new();
            h.insert("x-forwarded-for", xff.parse().unwrap());
            h
        };
        let (proxy, stranger) = (IpAddr::from([127, 0, 0, 1]), IpAddr::from([203, 0, 113, 9]));
        let client = IpAddr::from([198, 51, 100, 7]);
        // Behind the proxy: the address it appended.
        assert_eq!(proxies.client(proxy, &headers("198.51.100.7")), client);
        // A client's own forged entry is left of the proxy's: ignored.
        assert_eq!(proxies.client(proxy, &headers("10.9.9.9, 198.51.100.7")), client);
        // Not through the proxy: the header is the client's, and not believed.
        assert_eq!(proxies.client(stranger, &headers("198.51.100.7")), stranger);
        // No header from the proxy: the proxy itself.
        assert_eq!(proxies.client(proxy, &HeaderMap::new()), proxy);
        // No proxies configured: never believed.
        assert_eq!(TrustedProxies::default().client(proxy, &headers("198.51.100.7")), proxy);
        let mut https = headers("198.51.100.7");
        https.insert("x-forwarded-proto", "https".parse().unwrap());
        assert!(proxies.https(Some(proxy), &https));
        assert!(!proxies.https(Some(stranger), &https), "only a trusted proxy says so");
    }

    #[test]
    fn cookies_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.insert(header::COOKIE, "a=1; gleaner_form=abc; b=2".parse().unwrap());
        assert_eq!(cookie(&headers, FORM_COOKIE), Some("abc"));
        assert_eq!(cookie(&headers, "c"), None);
    }
}
