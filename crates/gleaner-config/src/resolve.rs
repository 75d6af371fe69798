//! `RawConfig` → `Settings`: defaults filled in, every value validated, every problem
//! collected (not just the first) with its key path.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::time::Duration;

use chrono::NaiveTime;
use chrono_tz::Tz;
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::{OnUnauthorized, RobotsFetchPolicy};
use ipnet::IpNet;
use url::Url;

use crate::error::Problem;
use crate::raw::{RawConfig, RawSiteClass};
use crate::settings::{
    BotIdentity, BudgetKey, Checks, DEFAULT_CLASS, Infrastructure, Limits, Network, OnReservation,
    Politeness, PurposePoliteness, Purposes, QuietHours, Retention, Rights, ServerSettings,
    Settings, SiteAssignment, SiteClass, StoreSettings, defaults,
};
use crate::units::{parse_duration, parse_size};

/// Languages the about page is written in.
pub const LANGUAGES: &[&str] = &["en", "tr", "fr", "es", "de"];

/// Collects problems while resolving.
#[derive(Default)]
struct Resolver {
    problems: Vec<Problem>,
}

impl Resolver {
    fn problem(&mut self, problem: Problem) {
        self.problems.push(problem);
    }

    fn duration(&mut self, key: &str, value: Option<&String>, default: Duration) -> Duration {
        self.optional_duration(key, value).unwrap_or(default)
    }

    /// A duration within its key's range ([`crate::bounds::duration_range`]).
    fn optional_duration(&mut self, key: &str, value: Option<&String>) -> Option<Duration> {
        let text = value?;
        // Zero is left to the callers: some keys take it, `positive_duration` says why
        // the others do not.
        match parse_duration(text)
            .map_err(|e| Problem::at(key, e))
            .and_then(|d| if d.is_zero() { Ok(d) } else { crate::bounds::check_duration(key, d) })
        {
            Ok(d) => Some(d),
            Err(problem) => {
                self.problem(problem);
                None
            }
        }
    }

    fn positive_duration(
        &mut self,
        key: &str,
        value: Option<&String>,
        default: Duration,
    ) -> Duration {
        let d = self.duration(key, value, default);
        if d.is_zero() {
            self.problem(Problem::at(key, "must be longer than zero").hint(
                "a polite bot always leaves a gap; the tests use gaps of a few milliseconds",
            ));
            return default;
        }
        d
    }

    /// A size within its key's range ([`crate::bounds::size_range`]).
    fn size(&mut self, key: &str, value: Option<&String>, default: u64) -> u64 {
        let Some(text) = value else { return default };
        match parse_size(text)
            .map_err(|e| Problem::at(key, e))
            .and_then(|n| crate::bounds::check_size(key, n))
        {
            Ok(n) => n,
            Err(problem) => {
                self.problem(problem);
                default
            }
        }
    }

    fn at_least_one(&mut self, key: &str, value: Option<u32>, default: u32) -> u32 {
        match value {
            Some(0) => {
                self.problem(Problem::at(key, "must be at least 1"));
                default
            }
            Some(n) => n,
            None => default,
        }
    }

    fn time_zone(&mut self, key: &str, value: Option<&String>, default: Tz) -> Tz {
        match value {
            None => default,
            Some(name) => name.parse::<Tz>().unwrap_or_else(|_| {
                self.problem(Problem::at(key, format!("`{name}` is not an IANA time zone")).hint(
                    "write a zone such as `Europe/Paris`, `Europe/Istanbul` or `America/Montreal`",
                ));
                default
            }),
        }
    }

    fn on_unauthorized(
        &mut self,
        key: &str,
        value: Option<&String>,
        default: OnUnauthorized,
    ) -> OnUnauthorized {
        match value.map(String::as_str) {
            None => default,
            Some("allow-all") => OnUnauthorized::AllowAll,
            Some("block") => OnUnauthorized::Block,
            Some(other) => {
                self.problem(Problem::at(key, format!("`{other}` is not a 401/403 policy")).hint(
                    "use `allow-all` (RFC 9309) or `block` (a 401/403 on robots.txt is a no)",
                ));
                default
            }
        }
    }

    fn on_reservation(
        &mut self,
        key: &str,
        value: Option<&String>,
        default: OnReservation,
    ) -> OnReservation {
        match value.map(String::as_str) {
            None => default,
            Some("stop-site") => OnReservation::StopSite,
            Some("per-purpose") => OnReservation::PerPurpose,
            Some(other) => {
                self.problem(
                    Problem::at(key, format!("`{other}` is not a reservation policy"))
                        .hint("use `stop-site` (any reservation stops the site) or `per-purpose`"),
                );
                default
            }
        }
    }

    fn net(&mut self, key: &str, text: &str) -> Option<IpNet> {
        let parsed = text
            .parse::<IpNet>()
            .ok()
            .or_else(|| text.parse::<std::net::IpAddr>().ok().map(IpNet::from));
        if parsed.is_none() {
            self.problem(
                Problem::at(key, format!("`{text}` is not an address range"))
                    .hint("write a CIDR range such as `127.0.0.0/8` or a single address"),
            );
        }
        parsed
    }
}

fn is_product_token(token: &str) -> bool {
    !token.is_empty() && token.chars().all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_')
}

fn parse_quiet_range(text: &str) -> Option<QuietHours> {
    let (start, end) = text.split_once('-')?;
    let time = |s: &str| {
        let s = s.trim();
        if s == "24:00" {
            return Some(NaiveTime::MIN);
        }
        NaiveTime::parse_from_str(s, "%H:%M").ok()
    };
    let (start, end) = (time(start)?, time(end)?);
    (start != end).then_some(QuietHours { start, end })
}

/// Resolves a raw configuration. Problems carry key paths but no lines yet.
pub fn resolve(raw: RawConfig) -> Result<Settings, Vec<Problem>> {
    let mut r = Resolver::default();
    let bot = resolve_bot(&mut r, &raw);
    let politeness = resolve_politeness(&mut r, &raw);
    let limits = Limits {
        connect_timeout: r.positive_duration(
            "limits.connect_timeout",
            raw.limits.connect_timeout.as_ref(),
            defaults::CONNECT_TIMEOUT,
        ),
        response_deadline: r.positive_duration(
            "limits.response_deadline",
            raw.limits.response_deadline.as_ref(),
            defaults::RESPONSE_DEADLINE,
        ),
        max_body_bytes: r.size(
            "limits.max_body",
            raw.limits.max_body.as_ref(),
            defaults::MAX_BODY_BYTES,
        ),
        max_redirects: raw.limits.max_redirects.unwrap_or(defaults::MAX_REDIRECTS),
    };
    if limits.max_redirects > 10 {
        r.problem(
            Problem::at("limits.max_redirects", "must be at most 10")
                .hint("RFC 9309 asks for 5; the default is 5"),
        );
    }
    let robots = RobotsFetchPolicy {
        ttl: r.positive_duration("robots.ttl", raw.robots.ttl.as_ref(), defaults::ROBOTS_TTL),
        on_unauthorized: r.on_unauthorized(
            "robots.on_unauthorized",
            raw.robots.on_unauthorized.as_ref(),
            OnUnauthorized::AllowAll,
        ),
        max_redirects: limits.max_redirects,
        block_duration: politeness.block_duration,
        ..RobotsFetchPolicy::default()
    };
    if robots.ttl > Duration::from_secs(24 * 3600) {
        r.problem(
            Problem::at("robots.ttl", "must be at most 24h")
                .hint("RFC 9309 section 2.4: crawlers should not use a cached robots.txt for more than 24 hours"),
        );
    }
    // Before `[rights]`: whether the rights files are read follows the enabled purposes.
    let purposes = resolve_purposes(&mut r, &raw);
    let rights = Rights {
        on_reservation: r.on_reservation(
            "rights.on_reservation",
            raw.rights.on_reservation.as_ref(),
            OnReservation::StopSite,
        ),
        honour_signals: raw.rights.honour_signals.unwrap_or(true),
        files_ttl: r.positive_duration(
            "rights.files_ttl",
            raw.rights.files_ttl.as_ref(),
            Duration::from_secs(24 * 3600),
        ),
        // The files are read whenever the `rights-signal` purpose is enabled — listed in
        // `[purposes] enabled`, or by the every-purpose default of a config without
        // `[purposes]` — so a site reserving its rights in them is honoured;
        // `[rights] read_files = false` switches them off.
        read_files: raw
            .rights
            .read_files
            .unwrap_or_else(|| purposes.enabled.contains(&Purpose::RightsSignal)),
    };
    let relay = crate::relay::resolve(&raw.relay, &mut r.problems);
    let contact = raw.bot.as_ref().and_then(|b| b.contact.as_deref());
    let owners = crate::owners::resolve_owners(&raw.owners, contact, &mut r.problems);
    let dashboard = crate::owners::resolve_dashboard(&raw.dashboard, &mut r.problems);
    let info_url =
        raw.bot.as_ref().and_then(|b| b.info_url.as_deref()).and_then(|u| Url::parse(u).ok());
    let identity =
        crate::identity::resolve(raw.identity.as_ref(), info_url.as_ref(), &mut r.problems);
    let site_classes =
        resolve_classes(&mut r, &raw, &politeness, &limits, &robots, rights.on_reservation);
    let sites = resolve_sites(&mut r, &raw, &site_classes);
    let retention = Retention {
        bodies: r.duration("retention.bodies", raw.retention.bodies.as_ref(), defaults::BODIES),
        events_after_end: r.duration(
            "retention.events_after_end",
            raw.retention.events_after_end.as_ref(),
            defaults::EVENTS_AFTER_END,
        ),
        audit: r.duration("retention.audit", raw.retention.audit.as_ref(), defaults::AUDIT),
        samples: raw.retention.samples.unwrap_or(false),
        sample_exclusions: raw.retention.sample_exclusions.clone().unwrap_or_default(),
    };
    let store = resolve_store(&mut r, &raw);
    let server = resolve_server(&mut r, &raw);
    let network = resolve_network(&mut r, &raw);
    let infrastructure = resolve_infrastructure(&mut r, &raw);
    let checks = resolve_checks(&mut r, &raw, &purposes);
    let class_names = site_classes.keys().cloned().collect();
    let sources = crate::sources::resolve_sources(
        &raw.sources,
        &class_names,
        politeness.min_source_interval,
        &mut r.problems,
    );
    let site_rules = crate::site_rules::resolve(&raw.site_rules, &mut r.problems);
    let llm_user = sources
        .iter()
        .find(|s| s.translate || s.llm != crate::llm::LlmMode::Off)
        .map(|s| s.id.as_str());
    let llm = crate::llm::resolve(raw.llm.as_ref(), &infrastructure, llm_user, &mut r.problems);
    // A licensed API's key parameter is a secret wherever a URL is printed.
    let mut network = network;
    for licensed in sources.iter().filter_map(|s| s.licensed.as_ref()) {
        if !network.secret_query_params.contains(&licensed.key_param) {
            network.secret_query_params.push(licensed.key_param.clone());
        }
    }
    // A source's site class applies to the sites it starts on, unless `[[sites]]` says
    // otherwise.
    let mut sites = sites;
    for source in &sources {
        if let Some(class) = &source.site_class {
            for url in &source.start_urls {
                if let Some(host) = url.host_str() {
                    sites.entry(host.to_ascii_lowercase()).or_insert_with(|| SiteAssignment {
                        class: class.clone(),
                        time_zone: None,
                    });
                }
            }
        }
    }

    if !r.problems.is_empty() {
        return Err(r.problems);
    }
    Ok(Settings {
        bot: bot.expect("no problems means the bot resolved"),
        politeness,
        limits,
        robots,
        rights,
        purposes,
        site_classes,
        sites,
        retention,
        store,
        server,
        network,
        infrastructure,
        llm,
        sources,
        site_rules,
        relay,
        owners,
        dashboard,
        identity,
        checks,
    })
}

fn resolve_checks(r: &mut Resolver, raw: &RawConfig, purposes: &Purposes) -> Checks {
    let c = &raw.checks;
    let horizon = r.duration(
        "checks.horizon",
        c.horizon.as_ref(),
        Duration::from_secs(u64::from(defaults::CHECK_HORIZON_DAYS) * 86_400),
    );
    let horizon_days = if !horizon.as_secs().is_multiple_of(86_400) || horizon.subsec_nanos() != 0 {
        r.problem(
            Problem::at("checks.horizon", "must be a whole number of days")
                .hint("the check covers calendar days from today, e.g. `7d`"),
        );
        defaults::CHECK_HORIZON_DAYS
    } else {
        u32::try_from(horizon.as_secs() / 86_400).unwrap_or(defaults::CHECK_HORIZON_DAYS)
    };
    let cancellation_head = match c.cancellation_method.as_deref() {
        None | Some("get") => false,
        Some("head-then-get") => {
            if !purposes.head_allowed {
                r.problem(
                    Problem::at("checks.cancellation_method", "needs `HEAD` in `purposes.methods`")
                        .hint("add `HEAD` to `purposes.methods`, or use `get`"),
                );
            }
            true
        }
        Some(other) => {
            r.problem(
                Problem::at(
                    "checks.cancellation_method",
                    format!("`{other}` is not a check method"),
                )
                .hint("use `get` (one conditional GET) or `head-then-get`"),
            );
            false
        }
    };
    Checks {
        cancellation_every: r.positive_duration(
            "checks.cancellation_every",
            c.cancellation_every.as_ref(),
            defaults::CANCELLATION_EVERY,
        ),
        horizon_days,
        cancellation_head,
        link_check_every: r.positive_duration(
            "checks.link_check_every",
            c.link_check_every.as_ref(),
            defaults::LINK_CHECK_EVERY,
        ),
        link_checks_per_host_per_day: r.at_least_one(
            "checks.link_checks_per_host_per_day",
            c.link_checks_per_host_per_day,
            defaults::LINK_CHECKS_PER_HOST_PER_DAY,
        ),
    }
}

fn resolve_bot(r: &mut Resolver, raw: &RawConfig) -> Option<BotIdentity> {
    let Some(bot) = &raw.bot else {
        r.problem(
            Problem::at("bot", "missing `[bot]` table").hint(
                "every bot says who it is: add `[bot]` with `token`, `info_url` and `operator` (see examples/)",
            ),
        );
        return None;
    };
    let mut ok = true;
    let token = bot.token.clone().unwrap_or_default();
    if bot.token.is_none() {
        r.problem(
            Problem::at("bot.token", "missing")
                .hint("the product token site owners write in robots.txt, e.g. `UGYBot`"),
        );
        ok = false;
    } else if token.chars().count() > crate::bounds::MAX_BOT_TOKEN {
        r.problem(
            Problem::at(
                "bot.token",
                format!("is longer than {} characters", crate::bounds::MAX_BOT_TOKEN),
            )
            .hint(
                "the product token is a short name site owners write in robots.txt, e.g. `UGYBot`",
            ),
        );
        ok = false;
    } else if !is_product_token(&token) {
        r.problem(Problem::at("bot.token", format!("`{token}` is not a product token")).hint(
            "use only letters, `-` and `_` (RFC 9309 section 2.2.1), e.g. `UGYBot` or `CIXTRA-Bot`",
        ));
        ok = false;
    }
    let info_url = match bot.info_url.as_deref().map(Url::parse) {
        Some(Ok(url)) if matches!(url.scheme(), "http" | "https") => Some(url),
        Some(_) => {
            r.problem(
                Problem::at("bot.info_url", "must be an http or https URL")
                    .hint("the public page that explains the bot"),
            );
            None
        }
        None => {
            r.problem(
                Problem::at("bot.info_url", "missing")
                    .hint("the public page that explains the bot, e.g. `https://example.org/bot`"),
            );
            None
        }
    };
    if bot.operator.is_none() {
        r.problem(
            Problem::at("bot.operator", "missing")
                .hint("who runs the bot, as shown on the about page"),
        );
        ok = false;
    }
    if let Some(contact) = &bot.contact
        && (contact.is_empty()
            || contact.contains(|c: char| c.is_control() || c == ';' || c == ')' || c == '('))
    {
        r.problem(Problem::at(
            "bot.contact",
            "must be an address without `;`, `(`, `)` or control characters",
        ));
        ok = false;
    }
    let languages = bot.languages.clone().unwrap_or_else(|| vec!["en".to_owned()]);
    for (i, lang) in languages.iter().enumerate() {
        if !LANGUAGES.contains(&lang.as_str()) {
            r.problem(
                Problem::at(
                    format!("bot.languages[{i}]"),
                    format!("`{lang}` is not a supported language"),
                )
                .hint(format!("use some of {}", LANGUAGES.join(", "))),
            );
            ok = false;
        }
    }
    let version = bot.version.clone().unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned());
    if version.is_empty() || version.contains(char::is_whitespace) {
        r.problem(Problem::at("bot.version", "must be one word, e.g. `1.0`"));
        ok = false;
    }
    let egress: Vec<IpNet> = bot
        .egress
        .iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, text)| r.net(&format!("bot.egress[{i}]"), text))
        .collect();
    let egress_domain = match bot.egress_domain.as_deref().map(str::trim) {
        None => None,
        Some(text) => match egress_domain(text) {
            Some(domain) => Some(domain),
            None => {
                r.problem(
                    Problem::at("bot.egress_domain", format!("`{text}` is not a domain name"))
                        .hint("write the domain your egress addresses reverse-resolve into, such as `crawl.example.org` (no scheme, no path)"),
                );
                ok = false;
                None
            }
        },
    };
    Some(BotIdentity {
        token,
        version,
        info_url: info_url?,
        contact: bot.contact.clone(),
        operator: bot.operator.clone().unwrap_or_default(),
        address: bot.address.clone(),
        languages,
        origin: bot.origin.clone(),
        egress,
        egress_domain,
        legal_entity: bot.legal_entity.clone(),
        publication_director: bot.publication_director.clone(),
        service: bot.service.clone(),
    })
    .filter(|_| ok)
}

/// A DNS name of at least two labels, letters, digits and `-`, lower-cased, without a
/// trailing dot; `None` for anything else (a URL, an address, a single label).
fn egress_domain(text: &str) -> Option<String> {
    let name = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
    let labels: Vec<&str> = name.split('.').collect();
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    let numeric = labels.iter().all(|l| l.bytes().all(|b| b.is_ascii_digit()));
    (labels.len() >= 2 && name.len() <= 253 && labels.iter().all(label_ok) && !numeric)
        .then_some(name)
}

fn resolve_politeness(r: &mut Resolver, raw: &RawConfig) -> Politeness {
    let p = &raw.politeness;
    let budget_key = match p.budget_key.as_deref() {
        None | Some("origin") => BudgetKey::Origin,
        Some("registrable-domain") => BudgetKey::RegistrableDomain,
        Some("ip") => BudgetKey::Ip,
        Some(other) => {
            r.problem(
                Problem::at("politeness.budget_key", format!("`{other}` is not a budget key"))
                    .hint("use `origin` (scheme, host and port), `registrable-domain` or `ip`"),
            );
            BudgetKey::Origin
        }
    };
    let mut purpose = BTreeMap::new();
    for (name, raw_purpose) in &p.purpose {
        let key = format!("politeness.purpose.{name}");
        let Some(parsed) = Purpose::from_name(name) else {
            r.problem(
                Problem::at(&key, format!("`{name}` is not a purpose")).hint(purpose_names_hint()),
            );
            continue;
        };
        let gap = raw_purpose
            .gap
            .as_ref()
            .map(|g| r.positive_duration(&format!("{key}.gap"), Some(g), defaults::GAP));
        let jitter = match raw_purpose.jitter.as_deref() {
            None => None,
            Some([min, max]) => {
                let min = r.duration(&format!("{key}.jitter[0]"), Some(min), Duration::ZERO);
                let max = r.duration(&format!("{key}.jitter[1]"), Some(max), Duration::ZERO);
                if min > max {
                    r.problem(Problem::at(
                        format!("{key}.jitter"),
                        "the minimum is larger than the maximum",
                    ));
                }
                Some((min, max))
            }
            Some(_) => {
                r.problem(Problem::at(
                    format!("{key}.jitter"),
                    "must be `[min, max]`, e.g. `[\"150ms\", \"450ms\"]`",
                ));
                None
            }
        };
        let max_in_flight = raw_purpose
            .max_in_flight
            .map(|n| r.at_least_one(&format!("{key}.max_in_flight"), Some(n), 1));
        purpose.insert(parsed, PurposePoliteness { gap, jitter, max_in_flight });
    }
    // The seeds' staff checks keep at least 2 s between requests unless configured.
    purpose.entry(Purpose::ManualCheck).or_insert(PurposePoliteness {
        gap: Some(defaults::MANUAL_CHECK_GAP),
        ..PurposePoliteness::default()
    });
    let retry_after_default = r.positive_duration(
        "politeness.retry_after_default",
        p.retry_after_default.as_ref(),
        defaults::RETRY_AFTER_DEFAULT,
    );
    let retry_after_cap = r.positive_duration(
        "politeness.retry_after_cap",
        p.retry_after_cap.as_ref(),
        defaults::RETRY_AFTER_CAP,
    );
    if retry_after_default > retry_after_cap {
        r.problem(Problem::at(
            "politeness.retry_after_default",
            "is longer than `politeness.retry_after_cap`",
        ));
    }
    Politeness {
        gap: r.positive_duration("politeness.gap", p.gap.as_ref(), defaults::GAP),
        max_in_flight: r.at_least_one(
            "politeness.max_in_flight",
            p.max_in_flight,
            defaults::MAX_IN_FLIGHT,
        ),
        global_daily_cap: r.at_least_one(
            "politeness.global_daily_cap",
            p.global_daily_cap,
            defaults::GLOBAL_DAILY_CAP,
        ),
        budget_key,
        retry_after_default,
        retry_after_cap,
        max_retries: p.max_retries.unwrap_or(defaults::MAX_RETRIES),
        unreachable_tries: r.at_least_one(
            "politeness.unreachable_tries",
            p.unreachable_tries,
            defaults::UNREACHABLE_TRIES,
        ),
        failure_streak_limit: r.at_least_one(
            "politeness.failure_streak_limit",
            p.failure_streak_limit,
            defaults::FAILURE_STREAK_LIMIT,
        ),
        block_duration: r.positive_duration(
            "politeness.block_duration",
            p.block_duration.as_ref(),
            defaults::BLOCK_DURATION,
        ),
        min_source_interval: r.positive_duration(
            "politeness.min_source_interval",
            p.min_source_interval.as_ref(),
            defaults::MIN_SOURCE_INTERVAL,
        ),
        run_time_limit: r.positive_duration(
            "politeness.run_time_limit",
            p.run_time_limit.as_ref(),
            defaults::RUN_TIME_LIMIT,
        ),
        purpose,
    }
}

fn purpose_names_hint() -> String {
    let names: Vec<&str> = Purpose::ALL.iter().map(|p| p.as_str()).collect();
    format!("purposes are: {}", names.join(", "))
}

fn resolve_purposes(r: &mut Resolver, raw: &RawConfig) -> Purposes {
    let mut enabled = BTreeSet::new();
    match &raw.purposes.enabled {
        None => enabled.extend(Purpose::ALL),
        Some(names) => {
            for (i, name) in names.iter().enumerate() {
                match Purpose::from_name(name) {
                    Some(p) => {
                        enabled.insert(p);
                    }
                    None => r.problem(
                        Problem::at(
                            format!("purposes.enabled[{i}]"),
                            format!("`{name}` is not a purpose"),
                        )
                        .hint(purpose_names_hint()),
                    ),
                }
            }
            if !enabled.contains(&Purpose::Robots) {
                r.problem(
                    Problem::at("purposes.enabled", "must include `robots`")
                        .hint("robots.txt is read before any other request to a site (RFC 9309)"),
                );
            }
        }
    }
    let mut head_allowed = false;
    let methods = raw.purposes.methods.clone().unwrap_or_else(|| vec!["GET".to_owned()]);
    for (i, method) in methods.iter().enumerate() {
        match method.as_str() {
            "GET" => {}
            "HEAD" => head_allowed = true,
            other => r.problem(
                Problem::at(format!("purposes.methods[{i}]"), format!("`{other}` is not allowed"))
                    .hint("a polite bot reads: use `GET`, and `HEAD` where the profile allows it"),
            ),
        }
    }
    if !methods.iter().any(|m| m == "GET") {
        r.problem(Problem::at("purposes.methods", "must include `GET`"));
    }
    Purposes {
        enabled,
        head_allowed,
        manual_checks_per_site_per_day: raw
            .purposes
            .manual_checks_per_site_per_day
            .unwrap_or(defaults::MANUAL_CHECKS_PER_SITE_PER_DAY),
    }
}

fn resolve_classes(
    r: &mut Resolver,
    raw: &RawConfig,
    politeness: &Politeness,
    limits: &Limits,
    robots: &RobotsFetchPolicy,
    on_reservation: OnReservation,
) -> BTreeMap<String, SiteClass> {
    let mut classes = BTreeMap::new();
    let empty = RawSiteClass::default();
    let default_raw = raw.site_classes.get(DEFAULT_CLASS).unwrap_or(&empty);
    let names = std::iter::once(DEFAULT_CLASS)
        .chain(raw.site_classes.keys().map(String::as_str).filter(|n| *n != DEFAULT_CLASS));
    for name in names {
        let c = raw.site_classes.get(name).unwrap_or(default_raw);
        let key = |field: &str| format!("site_classes.{name}.{field}");
        let mut quiet_hours = Vec::new();
        for (i, text) in c.quiet_hours.iter().flatten().enumerate() {
            match parse_quiet_range(text) {
                Some(q) => quiet_hours.push(q),
                None => r.problem(
                    Problem::at(
                        format!("site_classes.{name}.quiet_hours[{i}]"),
                        format!("`{text}` is not a clock range"),
                    )
                    .hint("write local times as `HH:MM-HH:MM`, e.g. `08:00-09:00`"),
                ),
            }
        }
        let class = SiteClass {
            name: name.to_owned(),
            time_zone: r.time_zone(&key("time_zone"), c.time_zone.as_ref(), Tz::UTC),
            quiet_hours,
            min_pass_interval: r
                .optional_duration(&key("min_pass_interval"), c.min_pass_interval.as_ref()),
            requests_per_pass: c.requests_per_pass,
            requests_per_hour: c.requests_per_hour,
            requests_per_day: c.requests_per_day,
            visits_per_day: c.visits_per_day,
            gap: r.positive_duration(&key("gap"), c.gap.as_ref(), politeness.gap),
            max_in_flight: r.at_least_one(
                &key("max_in_flight"),
                c.max_in_flight,
                politeness.max_in_flight,
            ),
            limits: Limits {
                connect_timeout: r.positive_duration(
                    &key("connect_timeout"),
                    c.connect_timeout.as_ref(),
                    limits.connect_timeout,
                ),
                response_deadline: r.positive_duration(
                    &key("response_deadline"),
                    c.response_deadline.as_ref(),
                    limits.response_deadline,
                ),
                max_body_bytes: r.size(
                    &key("max_body"),
                    c.max_body.as_ref(),
                    limits.max_body_bytes,
                ),
                max_redirects: limits.max_redirects,
            },
            robots: RobotsFetchPolicy {
                ttl: r.positive_duration(&key("robots_ttl"), c.robots_ttl.as_ref(), robots.ttl),
                on_unauthorized: r.on_unauthorized(
                    &key("on_unauthorized"),
                    c.on_unauthorized.as_ref(),
                    robots.on_unauthorized,
                ),
                ..robots.clone()
            },
            on_reservation: r.on_reservation(
                &key("on_reservation"),
                c.on_reservation.as_ref(),
                on_reservation,
            ),
        };
        classes.insert(name.to_owned(), class);
    }
    classes
}

fn resolve_sites(
    r: &mut Resolver,
    raw: &RawConfig,
    classes: &BTreeMap<String, SiteClass>,
) -> BTreeMap<String, SiteAssignment> {
    let mut sites = BTreeMap::new();
    for (i, site) in raw.sites.iter().enumerate() {
        let host = site.host.trim().to_ascii_lowercase();
        if host.is_empty() || host.contains(['/', ':', ' ']) {
            r.problem(
                Problem::at(
                    format!("sites[{i}].host"),
                    format!("`{}` is not a host name", site.host),
                )
                .hint("write the host alone, e.g. `mairie.example.fr` (no scheme, path or port)"),
            );
            continue;
        }
        let class = site.class.clone().unwrap_or_else(|| DEFAULT_CLASS.to_owned());
        if !classes.contains_key(&class) {
            let known: Vec<&str> = classes.keys().map(String::as_str).collect();
            r.problem(
                Problem::at(format!("sites[{i}].class"), format!("no site class `{class}`")).hint(
                    format!("define `[site_classes.{class}]` or use one of {}", known.join(", ")),
                ),
            );
        }
        let time_zone = site.time_zone.as_ref().map(|_| {
            r.time_zone(&format!("sites[{i}].time_zone"), site.time_zone.as_ref(), Tz::UTC)
        });
        if sites.insert(host.clone(), SiteAssignment { class, time_zone }).is_some() {
            r.problem(Problem::at(format!("sites[{i}].host"), format!("`{host}` is listed twice")));
        }
    }
    sites
}

fn resolve_server(r: &mut Resolver, raw: &RawConfig) -> ServerSettings {
    let mut address = |key: &str, value: Option<&String>, default: &str| -> SocketAddr {
        let text = value.map_or(default, String::as_str);
        text.parse().unwrap_or_else(|_| {
            r.problem(
                Problem::at(key, format!("`{text}` is not an address"))
                    .hint("write `IP:PORT`, e.g. `127.0.0.1:8080`"),
            );
            default.parse().expect("defaults parse")
        })
    };
    ServerSettings {
        address: address("server.address", raw.server.address.as_ref(), "127.0.0.1:8080"),
        dashboard_address: address(
            "server.dashboard_address",
            raw.server.dashboard_address.as_ref(),
            "127.0.0.1:8081",
        ),
        dashboard_token_env: raw
            .server
            .dashboard_token_env
            .clone()
            .unwrap_or_else(|| "GLEANER_DASHBOARD_TOKEN".to_owned()),
        trusted_proxies: raw
            .server
            .trusted_proxies
            .iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, text)| r.net(&format!("server.trusted_proxies[{i}]"), text))
            .collect(),
        limits: crate::server_limits::resolve(&raw.server, &mut r.problems),
    }
}

fn resolve_network(r: &mut Resolver, raw: &RawConfig) -> Network {
    let indexed: Vec<(usize, IpNet)> = raw
        .network
        .allow
        .iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, text)| Some((i, r.net(&format!("network.allow[{i}]"), text)?)))
        .collect();
    let wide = raw.network.allow_wide.unwrap_or(false);
    r.problems.extend(crate::bounds::check_allow("network.allow", &indexed, wide));
    let allow = indexed.into_iter().map(|(_, net)| net).collect();
    let mut secret_query_params: Vec<String> =
        defaults::SECRET_QUERY_PARAMS.iter().map(|s| (*s).to_owned()).collect();
    for name in raw.network.secret_query_params.iter().flatten() {
        let name = name.to_ascii_lowercase();
        if !secret_query_params.contains(&name) {
            secret_query_params.push(name);
        }
    }
    let max_open_requests = match raw.network.max_open_requests {
        Some(0) => {
            r.problem(
                Problem::at("network.max_open_requests", "must be at least 1")
                    .hint("leave it out for the default (512)"),
            );
            defaults::MAX_OPEN_REQUESTS
        }
        Some(n) => n as usize,
        None => defaults::MAX_OPEN_REQUESTS,
    };
    let keep_idle =
        r.duration("network.keep_idle", raw.network.keep_idle.as_ref(), defaults::KEEP_IDLE);
    let keep_idle = (!keep_idle.is_zero()).then_some(keep_idle);
    let max_idle_connections = match raw.network.max_idle_connections {
        Some(0) => {
            r.problem(
                Problem::at("network.max_idle_connections", "must be at least 1")
                    .hint("leave it out for no cap, or set `keep_idle = \"0s\"` to keep none"),
            );
            None
        }
        n => n.map(|n| n as usize),
    };
    Network { allow, secret_query_params, max_open_requests, keep_idle, max_idle_connections }
}

fn resolve_infrastructure(r: &mut Resolver, raw: &RawConfig) -> Vec<Infrastructure> {
    let mut out = Vec::new();
    for (i, infra) in raw.infrastructure.iter().enumerate() {
        let key = |field: &str| format!("infrastructure[{i}].{field}");
        let url = match Url::parse(&infra.url) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => Some(url),
            _ => {
                r.problem(Problem::at(
                    key("url"),
                    format!("`{}` is not an http or https URL", infra.url),
                ));
                None
            }
        };
        let allow: Vec<IpNet> = infra
            .allow
            .iter()
            .enumerate()
            .filter_map(|(j, t)| r.net(&format!("{}[{j}]", key("allow")), t))
            .collect();
        if infra.allow.is_empty() {
            r.problem(
                Problem::at(key("allow"), "must list the addresses the endpoint may resolve to")
                    .hint("infrastructure endpoints have an explicit allow-list, e.g. `allow = [\"10.0.0.5/32\"]`"),
            );
        }
        let max_in_flight = r.at_least_one(&key("max_in_flight"), infra.max_in_flight, 4);
        let timeout =
            r.positive_duration(&key("timeout"), infra.timeout.as_ref(), Duration::from_secs(60));
        if let Some(url) = url {
            out.push(Infrastructure {
                name: infra.name.clone(),
                url,
                allow,
                max_in_flight,
                timeout,
                api_key_env: infra.api_key_env.clone(),
            });
        }
    }
    out
}

/// `[store]`: the URL, and on PostgreSQL the copy's schema and its politeness namespace.
fn resolve_store(r: &mut Resolver, raw: &RawConfig) -> StoreSettings {
    let url = raw.store.url.clone().unwrap_or_else(|| "sqlite://gleaner.db".to_owned());
    let postgres = url.starts_with("postgres://") || url.starts_with("postgresql://");
    if !(url.starts_with("sqlite:") || postgres) {
        r.problem(Problem::at("store.url", format!("`{url}` is not a store URL")).hint(
            "use `sqlite://PATH` (the default, `sqlite://gleaner.db`) or `postgres://USER@HOST/DB`",
        ));
    }
    let schema = raw.store.schema.clone().unwrap_or_else(|| "public".to_owned());
    let politeness_namespace =
        raw.store.politeness_namespace.clone().unwrap_or_else(|| schema.clone());
    for (key, name, set) in [
        ("store.schema", &schema, raw.store.schema.is_some()),
        (
            "store.politeness_namespace",
            &politeness_namespace,
            raw.store.politeness_namespace.is_some(),
        ),
    ] {
        if !set {
            continue;
        }
        if !postgres {
            r.problem(Problem::at(key, "copies and politeness namespaces need PostgreSQL").hint(
                "set `store.url = \"postgres://USER@HOST/DB\"`, or remove this key: a SQLite store is one whole store",
            ));
        }
        let plain = name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            && name.len() <= 63
            && !name.starts_with("pg_");
        if !plain {
            r.problem(Problem::at(key, format!("`{name}` cannot be a schema name")).hint(
                "use lower-case letters, digits and `_`, starting with a letter (for example `staging`)",
            ));
        }
    }
    StoreSettings { url, schema, politeness_namespace }
}
