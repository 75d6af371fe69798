//! `Settings`: the validated configuration the rest of gleaner reads.
//!
//! Every politeness number lives here once. The gate enforces these values, `gleaner
//! explain` prints them and the about page is generated from them, so the page cannot
//! drift from behaviour. Defaults are the strictest seed's (SPEC §1); the seed
//! profiles in `examples/` set their own.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::Duration;

use chrono::NaiveTime;
use chrono_tz::Tz;
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::RobotsFetchPolicy;
use ipnet::IpNet;
use url::Url;

/// The whole resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Who the bot is and how it introduces itself.
    pub bot: BotIdentity,
    /// Politeness shared by every site, per purpose.
    pub politeness: Politeness,
    /// Client limits (defaults; a site class may override them).
    pub limits: Limits,
    /// robots.txt policy (defaults; a site class may override).
    pub robots: RobotsFetchPolicy,
    /// Rights signals policy.
    pub rights: Rights,
    /// Enabled purposes and methods.
    pub purposes: Purposes,
    /// Site classes by name; `default` always exists.
    pub site_classes: BTreeMap<String, SiteClass>,
    /// Sites assigned to classes, by lower-case host.
    pub sites: BTreeMap<String, SiteAssignment>,
    /// Retention periods.
    pub retention: Retention,
    /// Store location.
    pub store: StoreSettings,
    /// Server addresses.
    pub server: ServerSettings,
    /// Outbound network safety.
    pub network: Network,
    /// Infrastructure endpoints.
    pub infrastructure: Vec<Infrastructure>,
    /// The language model, when `[llm]` is configured.
    pub llm: Option<crate::llm::LlmSettings>,
    /// What to read, and when.
    pub sources: Vec<crate::sources::Source>,
    /// Site rules, compiled, looked up by page URL (`[[site_rules]]`).
    pub site_rules: gleaner_extract::rules::RuleBook,
    /// Checks that keep stored events true (SPEC §4).
    pub checks: Checks,
    /// The image relay (SPEC §5).
    pub relay: crate::relay::RelaySettings,
    /// The owners' forms (`[owners]`).
    pub owners: crate::owners::OwnersSettings,
    /// The operator dashboard (`[dashboard]`).
    pub dashboard: crate::owners::DashboardSettings,
    /// Signed requests, when `[identity]` is configured.
    pub identity: Option<crate::identity::IdentitySettings>,
}

/// The cancellation and link checks (SPEC §4). Whether each runs at all is decided by
/// its purpose (`cancellation-check`, `link-check`) being enabled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    /// How often the cancellation check runs (SPEC, UGYBot: every 4 h).
    pub cancellation_every: Duration,
    /// How many days after today the cancellation check covers (UGYBot: 7).
    pub horizon_days: u32,
    /// Whether the cancellation check sends a HEAD first (only where HEAD is enabled),
    /// and a GET only when the page changed.
    pub cancellation_head: bool,
    /// How often the link check runs.
    pub link_check_every: Duration,
    /// Link-check requests per host per calendar day in the host's zone (CIXTRA-Bot:
    /// "a daily cap per host").
    pub link_checks_per_host_per_day: u32,
}

/// The bot's identity (SPEC §1, "Identity").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BotIdentity {
    /// Product token, as matched in robots.txt (`UGYBot`).
    pub token: String,
    /// Version (`1.0`).
    pub version: String,
    /// The public about page.
    pub info_url: Url,
    /// Contact put in the User-Agent, when the profile has one (FestroBot's has none).
    pub contact: Option<String>,
    /// Who runs the bot.
    pub operator: String,
    /// The operator's postal address, if published.
    pub address: Option<String>,
    /// Languages of the about page.
    pub languages: Vec<String>,
    /// Where requests come from, as the operator states it (`[bot] origin`).
    pub origin: Option<String>,
    /// The address ranges requests leave from (`[bot] egress`), published at
    /// `/bot/ranges.json`.
    pub egress: Vec<IpNet>,
    /// The domain egress addresses reverse-resolve into (`[bot] egress_domain`),
    /// lower-case, without a trailing dot.
    pub egress_domain: Option<String>,
    /// The legal entity responsible (`[bot] legal_entity`).
    pub legal_entity: Option<String>,
    /// The publication director (`[bot] publication_director`).
    pub publication_director: Option<String>,
    /// What the service is (`[bot] service`).
    pub service: Option<String>,
}

impl BotIdentity {
    /// The one User-Agent sent on every request:
    /// `Token/version (+info_url; contact)`, or without the contact.
    pub fn user_agent(&self) -> String {
        match &self.contact {
            Some(contact) => {
                format!("{}/{} (+{}; {contact})", self.token, self.version, self.info_url)
            }
            None => format!("{}/{} (+{})", self.token, self.version, self.info_url),
        }
    }
}

/// What one politeness budget is keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetKey {
    /// Scheme, host and port (the default).
    Origin,
    /// The registrable domain (`a.example.co.uk` and `b.example.co.uk` share one).
    RegistrableDomain,
    /// The resolved IP address (virtual hosts on one server share one).
    Ip,
}

/// Per-purpose politeness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PurposePoliteness {
    /// Gap before a request of this purpose, when it differs from the default.
    pub gap: Option<Duration>,
    /// Random extra wait drawn from `[min, max]` before a request of this purpose.
    pub jitter: Option<(Duration, Duration)>,
    /// In-flight cap for this purpose at one site, when lower than the site's.
    pub max_in_flight: Option<u32>,
}

/// Politeness shared by every site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Politeness {
    /// Gap between request starts at one site when no purpose setting applies.
    pub gap: Duration,
    /// Requests in flight to one site.
    pub max_in_flight: u32,
    /// Requests per calendar day across all sites.
    pub global_daily_cap: u32,
    /// What one budget is keyed by.
    pub budget_key: BudgetKey,
    /// Wait after 429/503 with a missing, past or garbage Retry-After.
    pub retry_after_default: Duration,
    /// Longest Retry-After honoured.
    pub retry_after_cap: Duration,
    /// Retries after 429/5xx (only after the suspension ends).
    pub max_retries: u32,
    /// Tries when a site is unreachable, over about a minute.
    pub unreachable_tries: u32,
    /// Failed visits in a row before a source is tried at most once a day.
    pub failure_streak_limit: u32,
    /// How long a 401/403 block on a page holds.
    pub block_duration: Duration,
    /// Shortest interval between two passes of one source.
    pub min_source_interval: Duration,
    /// Longest a pass may run before the rest is re-queued.
    pub run_time_limit: Duration,
    /// Per-purpose settings.
    pub purpose: BTreeMap<Purpose, PurposePoliteness>,
}

impl Politeness {
    /// The configured gap before a request of `purpose` (Crawl-delay and owner
    /// slow-downs are applied by the gate on top of this).
    pub fn gap_for(&self, purpose: Purpose) -> Duration {
        self.purpose.get(&purpose).and_then(|p| p.gap).unwrap_or(self.gap)
    }
}

/// Client limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connect timeout.
    pub connect_timeout: Duration,
    /// Deadline for the whole response, body included (a slow trickle ends too).
    pub response_deadline: Duration,
    /// Largest decompressed body read; larger ones are abandoned, never truncated.
    pub max_body_bytes: u64,
    /// Redirect hops followed.
    pub max_redirects: u8,
}

/// What a rights reservation stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnReservation {
    /// Any reservation stops the whole site (CIXTRA-Bot).
    StopSite,
    /// A reservation stops only the uses it names.
    PerPurpose,
}

/// Rights signals policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rights {
    /// What a reservation stops.
    pub on_reservation: OnReservation,
    /// Whether TDMRep, ai.txt and noai signals are read.
    pub honour_signals: bool,
    /// How long a site's rights files (tdmrep.json, ai.txt) are trusted before re-reading.
    pub files_ttl: Duration,
    /// Whether each site's rights files are read (through the gate) before its pages: by
    /// default whenever the `rights-signal` purpose is enabled (also the every-purpose
    /// default of a config without `[purposes]`); `[rights] read_files = false` turns it off.
    pub read_files: bool,
}

/// Enabled purposes and methods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Purposes {
    /// Purposes the gate lets through; all others are refused.
    pub enabled: BTreeSet<Purpose>,
    /// Whether HEAD may be used (cancellation checks, where a profile allows it).
    pub head_allowed: bool,
    /// Manual checks (`gleaner fetch`) per site per day.
    pub manual_checks_per_site_per_day: u32,
}

/// A local clock range `[start, end)` in which no request starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    /// First quiet minute.
    pub start: NaiveTime,
    /// First minute after the quiet range.
    pub end: NaiveTime,
}

/// A class of sites with its own quotas and overrides (e.g. AubeActuBot's municipal
/// sites).
#[derive(Debug, Clone, PartialEq)]
pub struct SiteClass {
    /// The class name.
    pub name: String,
    /// Time zone for "per day" and quiet hours.
    pub time_zone: Tz,
    /// Quiet hours in local time.
    pub quiet_hours: Vec<QuietHours>,
    /// Shortest time between two passes.
    pub min_pass_interval: Option<Duration>,
    /// Requests per pass, pagination included.
    pub requests_per_pass: Option<u32>,
    /// Requests per rolling hour.
    pub requests_per_hour: Option<u32>,
    /// Requests per calendar day.
    pub requests_per_day: Option<u32>,
    /// Visits per calendar day.
    pub visits_per_day: Option<u32>,
    /// Gap between request starts (the politeness default unless overridden).
    pub gap: Duration,
    /// Requests in flight.
    pub max_in_flight: u32,
    /// Client limits for these sites.
    pub limits: Limits,
    /// robots.txt policy for these sites.
    pub robots: RobotsFetchPolicy,
    /// What a reservation stops on these sites.
    pub on_reservation: OnReservation,
}

/// A site's class and zone.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteAssignment {
    /// The class name (a key of `Settings::site_classes`).
    pub class: String,
    /// The site's zone, when it differs from its class's.
    pub time_zone: Option<Tz>,
}

/// Retention periods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retention {
    /// Fetched bodies (zero: deleted right after extraction).
    pub bodies: Duration,
    /// Events after the end of their last day.
    pub events_after_end: Duration,
    /// Audit log rows.
    pub audit: Duration,
    /// Whether parser test samples are kept.
    pub samples: bool,
    /// Hosts never sampled.
    pub sample_exclusions: Vec<String>,
}

/// Store location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreSettings {
    /// `sqlite://PATH` or `postgres://…`.
    pub url: String,
    /// PostgreSQL: the schema of this deployment's own tables (events, queue,
    /// validators); `public` by default.
    pub schema: String,
    /// PostgreSQL: the schema of the politeness tables (budgets, in flight, workers,
    /// registry, audit log), shared by every copy naming it; the same as `schema` (one
    /// whole store) by default. A live and a staging copy naming one namespace share
    /// every site's budget and keep their own events.
    pub politeness_namespace: String,
}

/// Server addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSettings {
    /// Public server.
    pub address: SocketAddr,
    /// Operator dashboard (loopback by default).
    pub dashboard_address: SocketAddr,
    /// Environment variable holding the dashboard token.
    pub dashboard_token_env: String,
    /// Reverse proxies in front of the server: their `X-Forwarded-For` names the client
    /// (the owners' forms count submissions per client) and their `X-Forwarded-Proto:
    /// https` marks cookies `Secure`. Empty by default: the connection's peer is the
    /// client.
    pub trusted_proxies: Vec<IpNet>,
    /// Limits on the clients of both listeners (timeouts, connection caps, bodies).
    pub limits: crate::server_limits::ServerLimits,
}

/// Outbound network safety.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Network {
    /// Non-public ranges explicitly allowed (empty in production).
    pub allow: Vec<IpNet>,
    /// Query parameter names always redacted.
    pub secret_query_params: Vec<String>,
    /// Requests this process has on the wire at once over all sites: a bound on sockets
    /// and buffers when thousands of sites are due together, never a site's limit
    /// (each site's own `max_in_flight` and gap still apply).
    pub max_open_requests: usize,
    /// How long an unused connection to a site stays open for the site's next request
    /// (`[network] keep_idle`); `None` (`0s`) closes each connection after its answer.
    /// The trade-off (issue 27, on loopback): an idle connection holds about 28 KiB, so
    /// 10,000 sites at a 1 s gap hold about 280 MiB in idle connections, while
    /// connecting again for each request costs about 0.06 ms of CPU more per request
    /// here, plus a handshake for the site. A site whose gap is longer than this
    /// connects again for each request.
    pub keep_idle: Option<Duration>,
    /// Connections kept open idle at once over all sites (`[network]
    /// max_idle_connections`); `None`, the default, for no cap. Past it a site with none
    /// kept connects anew for each request: memory bounded (~28 KiB per idle
    /// connection) for a TCP connect per request (issue 27: at 10,000 sites, 1,024 kept
    /// held peak RSS at ~200 MiB instead of ~340 MiB for ~50 % more CPU per request).
    pub max_idle_connections: Option<usize>,
}

/// An infrastructure endpoint: never robots.txt, its own limits, an explicit
/// address allow-list (SPEC §1, "Sources that are not crawls").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Infrastructure {
    /// Name for logs.
    pub name: String,
    /// Base URL.
    pub url: Url,
    /// Ranges its host may resolve to.
    pub allow: Vec<IpNet>,
    /// Requests in flight.
    pub max_in_flight: u32,
    /// Deadline per request.
    pub timeout: Duration,
    /// Environment variable with its API key.
    pub api_key_env: Option<String>,
}

impl Settings {
    /// The licensed-API terms under which source `source` may read `url`: only on the
    /// sites of the source's start URLs, and only for a `licensed-api` source. The gate
    /// skips robots.txt for exactly these requests.
    pub fn licensed_api_for(
        &self,
        source: &str,
        url: &Url,
    ) -> Option<&crate::sources::LicensedApi> {
        self.sources
            .iter()
            // The start sites are compared only for a licensed source: a listing source
            // with thousands of start URLs is not scanned on every request.
            .find(|s| s.id == source && s.licensed.is_some() && s.starts_on_site_of(url))
            .and_then(|s| s.licensed.as_ref())
    }

    /// Reads each licensed API's key with `lookup` (the binary passes the environment;
    /// this crate reads none) and returns the names of the variables that were unset or
    /// empty, for a clear error before any request.
    pub fn load_api_keys(&mut self, lookup: impl Fn(&str) -> Option<String>) -> Vec<String> {
        let mut missing = Vec::new();
        for licensed in self.sources.iter_mut().filter_map(|s| s.licensed.as_mut()) {
            match lookup(&licensed.key_env).filter(|k| !k.trim().is_empty()) {
                Some(key) => licensed.key = Some(crate::Secret::new(key.trim())),
                None => {
                    licensed.key = None;
                    missing.push(licensed.key_env.clone());
                }
            }
        }
        missing
    }

    /// Reads each source's `start_urls_file` with `read_file` (the binary resolves it
    /// against the config file's folder; this crate reads no file) and adds its URLs to
    /// the source's start URLs. Returns one message per problem, naming `file:line`.
    pub fn load_start_urls_files(
        &mut self,
        read_file: impl Fn(&std::path::Path) -> Result<String, String>,
    ) -> Vec<String> {
        let mut problems = Vec::new();
        for source in &mut self.sources {
            let Some(file) = source.start_urls_file.clone() else { continue };
            let text = match read_file(&file) {
                Ok(text) => text,
                Err(error) => {
                    problems.push(format!(
                        "source `{}`: start_urls_file {error}: check the path (relative to the config file)",
                        source.id
                    ));
                    continue;
                }
            };
            match crate::sources::parse_start_urls(&text, &file.display().to_string()) {
                Ok(urls) if urls.is_empty() && source.start_urls.is_empty() => problems
                    .push(format!("source `{}`: {} lists no URL", source.id, file.display())),
                Ok(urls) => {
                    if let Some(class) = &source.site_class {
                        for host in urls.iter().filter_map(|u| u.host_str()) {
                            self.sites.entry(host.to_ascii_lowercase()).or_insert_with(|| {
                                crate::settings::SiteAssignment {
                                    class: class.clone(),
                                    time_zone: None,
                                }
                            });
                        }
                    }
                    source.start_urls.extend(urls);
                }
                Err(bad) => problems.extend(bad),
            }
        }
        problems
    }

    /// Reads each `[identity]` key's PEM text: files with `read_file`, variables with
    /// `lookup` (the binary passes the file system and the environment; this crate reads
    /// neither). Returns one message per key that could not be read, naming it.
    pub fn load_identity_keys(
        &mut self,
        read_file: impl Fn(&std::path::Path) -> Result<String, String>,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Vec<String> {
        use crate::identity::KeySource;
        let mut problems = Vec::new();
        for key in self.identity.iter_mut().flat_map(|i| i.keys.iter_mut()) {
            let text = match &key.source {
                KeySource::File(path) => read_file(path),
                KeySource::Env(name) => lookup(name)
                    .filter(|v| !v.trim().is_empty())
                    .ok_or_else(|| "it is not set".to_owned()),
            };
            match text {
                Ok(pem) => key.pem = Some(crate::Secret::new(pem)),
                Err(e) => {
                    problems.push(format!("cannot read the signing key ({}): {e}", key.source))
                }
            }
        }
        problems
    }

    /// The class of a site (by lower-case host), `default` when unassigned.
    pub fn class_of(&self, host: &str) -> &SiteClass {
        self.sites
            .get(host)
            .and_then(|s| self.site_classes.get(&s.class))
            .or_else(|| self.site_classes.get(DEFAULT_CLASS))
            .expect("the resolver always creates the default class")
    }

    /// The time zone of a site: its own, else its class's.
    pub fn time_zone_of(&self, host: &str) -> Tz {
        self.sites
            .get(host)
            .and_then(|s| s.time_zone)
            .unwrap_or_else(|| self.class_of(host).time_zone)
    }
}

/// Name of the class every unassigned site belongs to.
pub const DEFAULT_CLASS: &str = "default";

/// Default values, the strictest seed's (SPEC §1).
pub mod defaults {
    use std::time::Duration;

    /// Gap between request starts at one site (FestroBot: 1 s).
    pub const GAP: Duration = Duration::from_secs(1);
    /// Requests in flight per site (CIXTRA-Bot: 1).
    pub const MAX_IN_FLIGHT: u32 = 1;
    /// Requests per day across all sites.
    pub const GLOBAL_DAILY_CAP: u32 = 1500;
    /// Retry-After default.
    pub const RETRY_AFTER_DEFAULT: Duration = Duration::from_secs(60);
    /// Retry-After cap.
    pub const RETRY_AFTER_CAP: Duration = Duration::from_secs(2 * 3600);
    /// Retries after 429/5xx.
    pub const MAX_RETRIES: u32 = 2;
    /// Tries when unreachable.
    pub const UNREACHABLE_TRIES: u32 = 3;
    /// Failed visits in a row before once a day.
    pub const FAILURE_STREAK_LIMIT: u32 = 5;
    /// Block after 401/403 on a page.
    pub const BLOCK_DURATION: Duration = Duration::from_secs(24 * 3600);
    /// Connect timeout.
    pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
    /// Response deadline.
    pub const RESPONSE_DEADLINE: Duration = Duration::from_secs(15);
    /// Body cap: 8 MiB.
    pub const MAX_BODY_BYTES: u64 = 8 * 1024 * 1024;
    /// Redirect hops.
    pub const MAX_REDIRECTS: u8 = 5;
    /// robots.txt cache (UGYBot: 1 h).
    pub const ROBOTS_TTL: Duration = Duration::from_secs(3600);
    /// Bodies kept for processing.
    pub const BODIES: Duration = Duration::from_secs(90 * 24 * 3600);
    /// Events kept after they end.
    pub const EVENTS_AFTER_END: Duration = Duration::from_secs(30 * 24 * 3600);
    /// Audit log rows: about 13 months, a year of history plus time to answer about it.
    pub const AUDIT: Duration = Duration::from_secs(400 * 24 * 3600);
    /// Manual checks per site per day.
    pub const MANUAL_CHECKS_PER_SITE_PER_DAY: u32 = 10;
    /// Shortest interval between passes of one source (SPEC: 1 h).
    pub const MIN_SOURCE_INTERVAL: Duration = Duration::from_secs(3600);
    /// Longest a pass runs before the rest is re-queued.
    pub const RUN_TIME_LIMIT: Duration = Duration::from_secs(9 * 60);
    /// Gap before a manual check (the seeds' staff checks: at least 2 s apart).
    pub const MANUAL_CHECK_GAP: Duration = Duration::from_secs(2);
    /// How often the cancellation check runs (SPEC §4: every 4 h).
    pub const CANCELLATION_EVERY: Duration = Duration::from_secs(4 * 3600);
    /// Days after today the cancellation check covers (SPEC §4: 7).
    pub const CHECK_HORIZON_DAYS: u32 = 7;
    /// How often the link check runs.
    pub const LINK_CHECK_EVERY: Duration = Duration::from_secs(24 * 3600);
    /// Link-check requests per host per day.
    pub const LINK_CHECKS_PER_HOST_PER_DAY: u32 = 100;
    /// Requests on the wire at once over all sites (`[network] max_open_requests`):
    /// ample for the network, about 15 MiB of connection buffers at most (issue 27).
    pub const MAX_OPEN_REQUESTS: usize = 512;
    /// How long an unused connection is kept (`[network] keep_idle`): reqwest's own
    /// default, long enough for any site's gap, so a site is not asked for a handshake
    /// per request; set `0s` (or a duration shorter than the gaps) for thousands of
    /// sites in little memory.
    pub const KEEP_IDLE: Duration = Duration::from_secs(90);
    /// Query parameters always treated as secrets.
    pub const SECRET_QUERY_PARAMS: &[&str] =
        &["apikey", "api_key", "key", "token", "access_token", "auth", "signature", "sig"];
}

impl Settings {
    /// The numbers the policy crate's signal decisions need, read from these settings.
    pub fn signal_settings(&self) -> gleaner_policy::signals::SignalSettings {
        gleaner_policy::signals::SignalSettings {
            retry_after_default: self.politeness.retry_after_default,
            retry_after_cap: self.politeness.retry_after_cap,
            ..gleaner_policy::signals::SignalSettings::default()
        }
    }
}
