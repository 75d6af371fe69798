//! Proof that an owner controls a site, for removal (issue 15, item 2), in one of two
//! ways:
//!
//! - **DNS**: a TXT record at `_gleaner-verification.DOMAIN` holding
//!   `gleaner-verification=TOKEN`, looked up through [`TxtResolver`] (hickory-resolver,
//!   with `[owners] dns_nameserver` or the system's configuration; tests use a local
//!   nameserver or a stub at this boundary);
//! - **a file**: `/.well-known/gleaner-verification.txt` on the site, holding the token,
//!   fetched once per owner request through the gate (`Purpose::OwnerVerification`:
//!   robots.txt first, the site's budget, the registry — an opted-out site is not
//!   fetched even for this — and one audit row saying why it was fetched).
//!
//! The token is the desk's [`crate::desk::OwnerDesk::proof_token`] for the domain.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_config::Settings;
use gleaner_fetch::{GateOutcome, GateRequest};
use gleaner_policy::Purpose;
use gleaner_policy::state::BoxFuture;
use url::Url;

use crate::desk::OwnerDesk;

/// The TXT record's name prefix.
pub const TXT_PREFIX: &str = "_gleaner-verification";
/// The path of the proof file.
pub const FILE_PATH: &str = "/.well-known/gleaner-verification.txt";

/// TXT lookups (the boundary tests may stub).
pub trait TxtResolver: Send + Sync {
    /// The TXT strings at `name` (each record's strings joined); empty when there are
    /// none; an error when the lookup failed.
    fn txt<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Vec<String>, String>>;
}

/// The real resolver (hickory).
pub struct HickoryTxt {
    resolver: hickory_resolver::TokioResolver,
}

impl HickoryTxt {
    /// A resolver asking `nameserver` over UDP and TCP, or the system's configuration.
    pub fn new(nameserver: Option<std::net::SocketAddr>) -> Result<HickoryTxt, String> {
        use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolverConfig};
        use hickory_resolver::net::runtime::TokioRuntimeProvider;
        let mut builder = match nameserver {
            Some(addr) => {
                let mut udp = ConnectionConfig::udp();
                udp.port = addr.port();
                let mut tcp = ConnectionConfig::tcp();
                tcp.port = addr.port();
                let server = NameServerConfig::new(addr.ip(), true, vec![udp, tcp]);
                hickory_resolver::Resolver::builder_with_config(
                    ResolverConfig::from_name_servers(vec![server]),
                    TokioRuntimeProvider::default(),
                )
            }
            None => hickory_resolver::Resolver::builder_tokio().map_err(|e| {
                format!("failed to read the system's DNS configuration: {e}; set `[owners] dns_nameserver`")
            })?,
        };
        builder.options_mut().timeout = Duration::from_secs(5);
        builder.options_mut().attempts = 2;
        // A proof must be seen as it is now: no answers kept between checks.
        builder.options_mut().cache_size = 0;
        let resolver =
            builder.build().map_err(|e| format!("failed to start the DNS resolver: {e}"))?;
        Ok(HickoryTxt { resolver })
    }
}

impl TxtResolver for HickoryTxt {
    fn txt<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<Vec<String>, String>> {
        Box::pin(async move {
            use hickory_resolver::proto::rr::{RData, RecordType};
            let fqdn = format!("{}.", name.trim_end_matches('.'));
            match self.resolver.lookup(fqdn.as_str(), RecordType::TXT).await {
                Ok(lookup) => Ok(lookup
                    .answers()
                    .iter()
                    .filter_map(|record| match &record.data {
                        RData::TXT(txt) => Some(
                            txt.txt_data
                                .iter()
                                .map(|part| String::from_utf8_lossy(part))
                                .collect::<String>(),
                        ),
                        _ => None,
                    })
                    .collect()),
                Err(error) if error.is_no_records_found() || error.is_nx_domain() => Ok(Vec::new()),
                Err(error) => Err(error.to_string()),
            }
        })
    }
}

/// The resolver the settings name. A nameserver written in the config must work (an
/// error otherwise); without one, a system whose DNS configuration cannot be read gets a
/// resolver that answers "unavailable", so DNS proofs wait for the operator instead of
/// keeping the server from starting.
pub fn resolver_from_settings(settings: &Settings) -> Result<Arc<dyn TxtResolver>, String> {
    match (HickoryTxt::new(settings.owners.dns_nameserver), settings.owners.dns_nameserver) {
        (Ok(resolver), _) => Ok(Arc::new(resolver)),
        (Err(error), Some(_)) => Err(error),
        (Err(error), None) => Ok(Arc::new(NoResolver(error))),
    }
}

/// A resolver that cannot resolve (why, in words).
#[derive(Debug, Clone)]
pub struct NoResolver(pub String);

impl TxtResolver for NoResolver {
    fn txt<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Vec<String>, String>> {
        Box::pin(async move { Err(self.0.clone()) })
    }
}

/// What a proof check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The token is there: the owner controls the site.
    Proven,
    /// Looked, and the token is not there (what was found, in words).
    Missing(String),
    /// Could not look (the reason, in words); the request waits for the operator.
    Unavailable(String),
}

/// The TXT record name for `domain`.
pub fn txt_name(domain: &str) -> String {
    format!("{TXT_PREFIX}.{domain}")
}

/// The TXT record value for `token`.
pub fn txt_value(token: &str) -> String {
    format!("gleaner-verification={token}")
}

/// Looks for the TXT record.
pub async fn check_dns(desk: &OwnerDesk, domain: &str) -> Proof {
    let token = desk.proof_token(domain);
    let wanted = txt_value(&token);
    match desk.resolver.txt(&txt_name(domain)).await {
        Ok(values) if values.iter().any(|v| v.trim() == wanted) => Proof::Proven,
        Ok(values) if values.is_empty() => {
            Proof::Missing(format!("no TXT record at {}", txt_name(domain)))
        }
        Ok(values) => Proof::Missing(format!(
            "{} TXT record(s) at {}, none with this token",
            values.len(),
            txt_name(domain)
        )),
        Err(error) => Proof::Unavailable(format!("the DNS lookup failed: {error}")),
    }
}

/// Where the proof file of `domain` is read: on the origin gleaner already knows for the
/// host (its scheme and port), else `https://DOMAIN`.
pub async fn file_url(desk: &OwnerDesk, domain: &str) -> Option<Url> {
    let known = desk.store.known_sites().await.unwrap_or_default();
    let origin = known
        .into_iter()
        .filter_map(|site| Url::parse(&site).ok())
        .find(|url| url.host_str().is_some_and(|h| h.eq_ignore_ascii_case(domain)))
        .map(|url| url.origin().ascii_serialization())
        .unwrap_or_else(|| format!("https://{domain}"));
    Url::parse(&origin).ok()?.join(FILE_PATH).ok()
}

/// Fetches the proof file once, through the gate, waiting at most 20 s for the site's
/// budget.
pub async fn check_file(desk: &OwnerDesk, domain: &str) -> Proof {
    let Some(gate) = &desk.gate else {
        return Proof::Unavailable("this server cannot fetch proof files".into());
    };
    let Some(url) = file_url(desk, domain).await else {
        return Proof::Unavailable(format!("`{domain}` has no proof-file address"));
    };
    let token = desk.proof_token(domain);
    let mut request = GateRequest::new(url.clone(), Purpose::OwnerVerification);
    request.source = Some("owner-verification".into());
    request.wait_until_at_most = Some(SystemTime::now() + Duration::from_secs(20));
    match gate.fetch(&request).await {
        GateOutcome::Fetched(fetched) if fetched.status == 200 => {
            let body = String::from_utf8_lossy(&fetched.body);
            if body.split_whitespace().any(|word| word == token) {
                Proof::Proven
            } else {
                Proof::Missing(format!("{url} does not hold the token"))
            }
        }
        GateOutcome::Fetched(fetched) => {
            Proof::Missing(format!("{url} answered {}", fetched.status))
        }
        GateOutcome::Refused(refusal) => {
            Proof::Unavailable(format!("gleaner may not fetch {url}: {refusal}"))
        }
        GateOutcome::Deferred { why, .. } => {
            Proof::Unavailable(format!("gleaner may not fetch {url} now: {why}"))
        }
        GateOutcome::Failed(error) => {
            Proof::Unavailable(format!("{url} could not be read: {error}"))
        }
    }
}
