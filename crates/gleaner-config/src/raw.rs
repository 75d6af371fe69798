//! `RawConfig`: the TOML file as written, before defaults and validation.
//!
//! Every table denies unknown keys, so a typo (`max_in_fligth`) is an error naming the
//! key instead of a silently ignored promise. Values that need parsing (durations such
//! as `2s`, sizes such as `8MiB`, time zones, clock ranges) stay strings here; the
//! resolver turns them into typed settings and reports the key path when one is wrong.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Who the bot is.
    pub bot: Option<RawBot>,
    /// Politeness defaults shared by every site.
    #[serde(default)]
    pub politeness: RawPoliteness,
    /// Network limits of the client.
    #[serde(default)]
    pub limits: RawLimits,
    /// robots.txt handling.
    #[serde(default)]
    pub robots: RawRobots,
    /// Rights signals (TDMRep, ai.txt, noai).
    #[serde(default)]
    pub rights: RawRights,
    /// Which purposes and methods this profile uses.
    #[serde(default)]
    pub purposes: RawPurposes,
    /// Site classes by name (e.g. `municipal`), each overriding the defaults.
    #[serde(default)]
    pub site_classes: BTreeMap<String, RawSiteClass>,
    /// Sites assigned to a class or given their own time zone.
    #[serde(default)]
    pub sites: Vec<RawSite>,
    /// How long things are kept.
    #[serde(default)]
    pub retention: RawRetention,
    /// Where state is stored.
    #[serde(default)]
    pub store: RawStore,
    /// The HTTP server.
    #[serde(default)]
    pub server: RawServer,
    /// Outbound network safety.
    #[serde(default)]
    pub network: RawNetwork,
    /// Infrastructure endpoints (a language-model server, a geocoder).
    #[serde(default)]
    pub infrastructure: Vec<RawInfrastructure>,
    /// The language model for extraction and translation (`[llm]`, issue 18).
    pub llm: Option<crate::llm::RawLlm>,
    /// What to read, and when.
    #[serde(default)]
    pub sources: Vec<crate::sources::RawSource>,
    /// CSS rules for sites without structured data, keyed by site (issue 10).
    #[serde(default)]
    pub site_rules: Vec<gleaner_extract::rules::SiteRules>,
    /// Checks that keep stored events true (cancellation and link checks).
    #[serde(default)]
    pub checks: RawChecks,
    /// The image relay (`[relay]`).
    #[serde(default)]
    pub relay: crate::relay::RawRelay,
    /// The owners' forms (`[owners]`).
    #[serde(default)]
    pub owners: crate::owners::RawOwners,
    /// The operator dashboard (`[dashboard]`).
    #[serde(default)]
    pub dashboard: crate::owners::RawDashboard,
    /// Signed requests (`[identity]`, Web Bot Auth).
    pub identity: Option<crate::identity::RawIdentity>,
}

/// `[checks]` (SPEC §4).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawChecks {
    /// How often the cancellation check runs (`4h`).
    pub cancellation_every: Option<String>,
    /// How far ahead the cancellation check looks, in whole days (`7d`).
    pub horizon: Option<String>,
    /// `get` (one conditional GET) or `head-then-get` (a HEAD first, where HEAD is
    /// enabled; a GET only when the page changed).
    pub cancellation_method: Option<String>,
    /// How often the link check runs (`24h`).
    pub link_check_every: Option<String>,
    /// Link-check requests per host per calendar day.
    pub link_checks_per_host_per_day: Option<u32>,
}

/// `[bot]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBot {
    /// Product token used in robots.txt and the User-Agent.
    pub token: Option<String>,
    /// Version in the User-Agent.
    pub version: Option<String>,
    /// The public about page.
    pub info_url: Option<String>,
    /// Contact address put in the User-Agent (optional).
    pub contact: Option<String>,
    /// Who runs the bot.
    pub operator: Option<String>,
    /// Postal address of the operator (optional).
    pub address: Option<String>,
    /// Languages of the about page.
    pub languages: Option<Vec<String>>,
    /// The operator's statement of where requests come from (FestroBot: "cloud
    /// infrastructure in North America").
    pub origin: Option<String>,
    /// The address ranges requests leave from (CIDR or single addresses), published at
    /// `/bot/ranges.json` and on the about page. (Formerly `address_ranges`.)
    pub egress: Option<Vec<String>>,
    /// The domain the egress addresses reverse-resolve into (`crawl.example.org`), for
    /// the reverse-then-forward DNS check the about page explains.
    pub egress_domain: Option<String>,
    /// The legal entity responsible, when it differs from the operator's name.
    pub legal_entity: Option<String>,
    /// The publication director (French press law), where the profile has one.
    pub publication_director: Option<String>,
    /// What the service is, in a sentence.
    pub service: Option<String>,
}

/// `[politeness]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPoliteness {
    /// Gap between request starts at one site, any purpose.
    pub gap: Option<String>,
    /// Requests in flight to one site.
    pub max_in_flight: Option<u32>,
    /// Requests per day across all sites.
    pub global_daily_cap: Option<u32>,
    /// What one budget is keyed by: `origin`, `registrable-domain` or `ip`.
    pub budget_key: Option<String>,
    /// Wait after a 429/503 with no usable Retry-After.
    pub retry_after_default: Option<String>,
    /// Longest Retry-After honoured.
    pub retry_after_cap: Option<String>,
    /// Retries after 429/5xx.
    pub max_retries: Option<u32>,
    /// Tries when a site is unreachable.
    pub unreachable_tries: Option<u32>,
    /// Failed visits in a row before a source drops to once a day.
    pub failure_streak_limit: Option<u32>,
    /// How long a 401/403 block holds.
    pub block_duration: Option<String>,
    /// Shortest interval between two passes of one source.
    pub min_source_interval: Option<String>,
    /// Longest a pass may run before the rest is re-queued.
    pub run_time_limit: Option<String>,
    /// Per-purpose settings, keyed by purpose name (`event-page`, `image-relay`, …).
    #[serde(default)]
    pub purpose: BTreeMap<String, RawPurposePoliteness>,
}

/// `[politeness.purpose.<name>]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPurposePoliteness {
    /// Gap before a request of this purpose.
    pub gap: Option<String>,
    /// Random extra wait `[min, max]` before a request of this purpose.
    pub jitter: Option<Vec<String>>,
    /// Requests of this purpose in flight to one site.
    pub max_in_flight: Option<u32>,
}

/// `[limits]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Connect timeout.
    pub connect_timeout: Option<String>,
    /// Deadline for the whole response, body included.
    pub response_deadline: Option<String>,
    /// Largest decompressed body kept.
    pub max_body: Option<String>,
    /// Redirect hops followed.
    pub max_redirects: Option<u8>,
}

/// `[robots]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRobots {
    /// How long a robots.txt is trusted.
    pub ttl: Option<String>,
    /// `allow-all` or `block` on 401/403.
    pub on_unauthorized: Option<String>,
}

/// `[rights]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRights {
    /// `stop-site` or `per-purpose`.
    pub on_reservation: Option<String>,
    /// Whether rights signals are read at all.
    pub honour_signals: Option<bool>,
    /// How long a site's rights files (tdmrep.json, ai.txt) are trusted before re-reading.
    pub files_ttl: Option<String>,
    /// Whether each site's rights files are read before its pages (default: whenever the
    /// `rights-signal` purpose is enabled, which a config without `[purposes]` does).
    pub read_files: Option<bool>,
}

/// `[purposes]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPurposes {
    /// Enabled purposes by name.
    pub enabled: Option<Vec<String>>,
    /// HTTP methods: `GET`, and `HEAD` where the profile allows it.
    pub methods: Option<Vec<String>>,
    /// Manual checks (`gleaner fetch`) per site per day.
    pub manual_checks_per_site_per_day: Option<u32>,
}

/// `[site_classes.<name>]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSiteClass {
    /// IANA time zone for "per day" and quiet hours.
    pub time_zone: Option<String>,
    /// Local clock ranges in which no request starts, like `08:00-09:00`.
    pub quiet_hours: Option<Vec<String>>,
    /// Shortest time between two passes over a site.
    pub min_pass_interval: Option<String>,
    /// Requests per pass, pagination included.
    pub requests_per_pass: Option<u32>,
    /// Requests per rolling hour.
    pub requests_per_hour: Option<u32>,
    /// Requests per calendar day.
    pub requests_per_day: Option<u32>,
    /// Visits (passes) per calendar day.
    pub visits_per_day: Option<u32>,
    /// Overrides `politeness.gap`.
    pub gap: Option<String>,
    /// Overrides `politeness.max_in_flight`.
    pub max_in_flight: Option<u32>,
    /// Overrides `limits.connect_timeout`.
    pub connect_timeout: Option<String>,
    /// Overrides `limits.response_deadline`.
    pub response_deadline: Option<String>,
    /// Overrides `limits.max_body`.
    pub max_body: Option<String>,
    /// Overrides `robots.ttl`.
    pub robots_ttl: Option<String>,
    /// Overrides `robots.on_unauthorized`.
    pub on_unauthorized: Option<String>,
    /// Overrides `rights.on_reservation`.
    pub on_reservation: Option<String>,
}

/// `[[sites]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSite {
    /// The site's host (its subdomains are not included).
    pub host: String,
    /// The class it belongs to.
    pub class: Option<String>,
    /// Its time zone, when it differs from the class's.
    pub time_zone: Option<String>,
}

/// `[retention]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRetention {
    /// Fetched bodies; `0s` deletes them right after extraction.
    pub bodies: Option<String>,
    /// Events, counted from the end of their last day.
    pub events_after_end: Option<String>,
    /// Audit log rows.
    pub audit: Option<String>,
    /// Whether parser test samples are kept.
    pub samples: Option<bool>,
    /// Hosts never sampled.
    pub sample_exclusions: Option<Vec<String>>,
}

/// `[store]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStore {
    /// `sqlite://PATH` or `postgres://…`.
    pub url: Option<String>,
    /// PostgreSQL: the schema holding this deployment's own tables.
    pub schema: Option<String>,
    /// PostgreSQL: the schema whose budgets this deployment shares with other copies.
    pub politeness_namespace: Option<String>,
}

/// `[server]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServer {
    /// Address the public server listens on.
    pub address: Option<String>,
    /// Address of the operator dashboard.
    pub dashboard_address: Option<String>,
    /// Environment variable holding the dashboard token.
    pub dashboard_token_env: Option<String>,
    /// Reverse proxies (CIDR ranges) whose `X-Forwarded-For` names the client.
    pub trusted_proxies: Option<Vec<String>>,
    /// Longest a client may take to send a request's head (also the longest a kept-alive
    /// connection may sit idle before its next request).
    pub header_read_timeout: Option<String>,
    /// Longest a connection may go without a byte read or written.
    pub idle_timeout: Option<String>,
    /// Longest one request may take, body and handler included.
    pub request_timeout: Option<String>,
    /// Open connections per listener.
    pub max_connections: Option<u32>,
    /// Open connections per client address (IPv6 by /64) per listener.
    pub max_connections_per_client: Option<u32>,
    /// Largest request body accepted.
    pub max_request_body: Option<String>,
}

/// `[network]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawNetwork {
    /// Address ranges allowed even though they are not public (tests and the demo:
    /// `127.0.0.0/8` only).
    pub allow: Option<Vec<String>>,
    /// Query parameters always redacted in logs and records.
    pub secret_query_params: Option<Vec<String>>,
    /// Says that `allow` may name ranges beyond loopback and the private ranges.
    pub allow_wide: Option<bool>,
    /// Requests on the wire at once over all sites (the client's own limit).
    pub max_open_requests: Option<u32>,
    /// How long an unused connection to a site is kept for its next request (`0s`
    /// closes each after its answer).
    pub keep_idle: Option<String>,
    /// Connections kept open idle at once over all sites (no cap when left out).
    pub max_idle_connections: Option<u32>,
}

/// `[[infrastructure]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawInfrastructure {
    /// A name for logs.
    pub name: String,
    /// Base URL.
    pub url: String,
    /// Address ranges it may resolve to.
    pub allow: Vec<String>,
    /// Requests in flight.
    pub max_in_flight: Option<u32>,
    /// Deadline per request.
    pub timeout: Option<String>,
    /// Environment variable holding its API key.
    pub api_key_env: Option<String>,
}
