//! Assertion helpers over a [`Ledger`]: what a site owner would complain about.
//!
//! Every check returns `Result<(), Violations>`; the error lists each offending request
//! with its site, path and arrival time, so a failing test explains itself. Every check
//! also refuses to pass vacuously: when the ledger holds no evidence the rule was
//! exercised (no requests, no throttle seen, no refetch), it fails with a
//! [`Rule::NoEvidence`] violation, so a crawler that fetches nothing fails every check.
//! Pair the checks with the positive controls ([`Ledger::expect_fetched`] and friends).
//!
//! Times come from the server's monotonic clock at request arrival. A client that keeps
//! a gap measured from its own send times can look up to a scheduling delay closer on
//! the server, so time-based checks allow [`Ledger::slack`] ([`TIMING_SLACK`] unless a
//! test chose another with [`Ledger::with_slack`]).

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use chrono::{NaiveDateTime, NaiveTime};

use crate::ledger::{Ledger, LedgerEntry, Served};

/// Default allowance for loopback and scheduling jitter in time-based checks.
pub const TIMING_SLACK: Duration = Duration::from_millis(10);

/// Which rule a violation broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// Two request starts at one site closer than the required gap.
    Spacing,
    /// More requests open at one site than allowed.
    InFlight,
    /// A request before the site's robots.txt was asked for.
    RobotsFirst,
    /// A request other than robots.txt to a site whose robots.txt failed or disallows all.
    RobotsRespected,
    /// A request while the site had asked for a pause (429/503 `Retry-After`).
    Suspension,
    /// A request after the site refused the bot (401/403, challenge, login wall).
    Block,
    /// A path the site's robots.txt disallows for the bot.
    Disallowed,
    /// A refetch of a page with validators, without `If-None-Match`/`If-Modified-Since`.
    Unconditional,
    /// A wrong or missing User-Agent, a cookie or a Referer.
    Identity,
    /// A method the profile does not use.
    Method,
    /// A request that started inside a quiet-hours window.
    QuietHours,
    /// Two requests closer than the site's robots.txt `Request-rate` allows.
    RequestRate,
    /// A request other than robots.txt outside the site's robots.txt `Visit-time`.
    VisitTime,
    /// An expected request is missing (positive control).
    Missing,
    /// The ledger holds no evidence that the checked rule was exercised.
    NoEvidence,
}

/// One thing a site owner could complain about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// The site, when one is concerned.
    pub site: Option<usize>,
    /// The request target (path and query), when one is concerned.
    pub target: Option<String>,
    /// Arrival time of the offending request since the ledger's epoch.
    pub at: Option<Duration>,
    /// What happened, in words.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.rule, self.message)
    }
}

/// The violations one check found (never empty when returned as an error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violations(pub Vec<Violation>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} violation(s):", self.0.len())?;
        for v in self.0.iter().take(50) {
            writeln!(f, "  - {v}")?;
        }
        if self.0.len() > 50 {
            writeln!(f, "  … and {} more", self.0.len() - 50)?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

impl Violations {
    /// Whether any violation broke `rule`.
    pub fn has(&self, rule: Rule) -> bool {
        self.0.iter().any(|v| v.rule == rule)
    }
}

fn of(e: &LedgerEntry, rule: Rule, message: String) -> Violation {
    Violation { rule, site: Some(e.site), target: Some(e.target()), at: Some(e.at), message }
}

fn no_evidence(what: &str) -> Violation {
    Violation {
        rule: Rule::NoEvidence,
        site: None,
        target: None,
        at: None,
        message: format!("the ledger holds no evidence for this check: {what}"),
    }
}

fn result(v: Vec<Violation>) -> Result<(), Violations> {
    if v.is_empty() { Ok(()) } else { Err(Violations(v)) }
}

fn ms(d: Duration) -> String {
    format!("{:.3}s", d.as_secs_f64())
}

/// Entries grouped by site, each group in arrival order.
fn by_site(ledger: &Ledger) -> Vec<(usize, Vec<&LedgerEntry>)> {
    let mut map: HashMap<usize, Vec<&LedgerEntry>> = HashMap::new();
    for e in ledger.iter() {
        map.entry(e.site).or_default().push(e);
    }
    let mut out: Vec<_> = map.into_iter().collect();
    out.sort_by_key(|(s, _)| *s);
    for (_, v) in &mut out {
        v.sort_by_key(|e| (e.at, e.seq));
    }
    out
}

/// What a path is for, as far as the test web's URL layout tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// robots.txt and its redirect chain.
    Robots,
    /// `/`, `/events/` and its pages.
    Listing,
    /// `/events/{n}.html` and moved event pages.
    Event,
    /// Anything else.
    Other,
}

impl LedgerEntry {
    /// What the request was for, judged from its path.
    pub fn kind(&self) -> PathKind {
        let p = self.path.as_str();
        if self.is_robots() {
            PathKind::Robots
        } else if p == "/" || p == "/events/" || p == "/events" {
            PathKind::Listing
        } else if p.starts_with("/events/") && p.ends_with(".html") {
            PathKind::Event
        } else {
            PathKind::Other
        }
    }
}

impl Ledger {
    /// Every request to a site starts at least `gap` after the previous one there.
    pub fn check_min_gap(&self, gap: Duration) -> Result<(), Violations> {
        self.check_spacing(|_| gap)
    }

    /// Like [`Ledger::check_min_gap`] with `gap` raised to each site's `Crawl-delay` for
    /// requests after its robots.txt (Crawl-delay can only make the bot slower).
    pub fn check_min_gap_with_crawl_delay(&self, gap: Duration) -> Result<(), Violations> {
        self.check_spacing(|e| {
            let delay = self.spec(e.site).crawl_delay().unwrap_or_default();
            if e.is_robots() { gap } else { gap.max(delay) }
        })
    }

    /// Each request `e` starts at least `gap_for(e)` after the previous request of any
    /// purpose to the same site (SPEC §1 "spacing between request starts").
    ///
    /// `gap_for` usually looks at [`LedgerEntry::kind`] to tell the purpose.
    pub fn check_spacing(
        &self,
        gap_for: impl Fn(&LedgerEntry) -> Duration,
    ) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut pairs = 0;
        for (site, entries) in by_site(self) {
            for w in entries.windows(2) {
                pairs += 1;
                let (prev, next) = (w[0], w[1]);
                let want = gap_for(next);
                let got = next.at.saturating_sub(prev.at);
                if got + self.slack < want {
                    out.push(of(
                        next,
                        Rule::Spacing,
                        format!(
                            "site {site}: `{}` started {} after `{}` (at {}), want at least {}",
                            next.target(),
                            ms(got),
                            prev.target(),
                            ms(prev.at),
                            ms(want)
                        ),
                    ));
                }
            }
        }
        if pairs == 0 {
            out.push(no_evidence("no site received two requests"));
        }
        result(out)
    }

    /// Every request after a site's robots.txt starts at least `T / n` after the previous
    /// one there, for each site whose robots.txt says `Request-rate: n/T`. Fails without
    /// evidence when no such site received two requests.
    pub fn check_request_rate(&self) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut pairs = 0;
        for (site, entries) in by_site(self) {
            let Some(want) = self.spec(site).request_rate_gap() else { continue };
            for w in entries.windows(2) {
                let (prev, next) = (w[0], w[1]);
                if next.is_robots() {
                    continue;
                }
                pairs += 1;
                let got = next.at.saturating_sub(prev.at);
                if got + self.slack < want {
                    out.push(of(
                        next,
                        Rule::RequestRate,
                        format!(
                            "site {site}: `{}` started {} after `{}`; its Request-rate asks for {}",
                            next.target(),
                            ms(got),
                            prev.target(),
                            ms(want)
                        ),
                    ));
                }
            }
        }
        if pairs == 0 {
            out.push(no_evidence("no site with a Request-rate received two requests"));
        }
        result(out)
    }

    /// No request but robots.txt started outside a site's `Visit-time` window (UTC,
    /// half-open). `to_utc` maps an arrival to the crawler's UTC wall-clock time (see
    /// [`local_clock`]). Fails without evidence when no site with a window was asked
    /// for anything; pair it with [`Ledger::expect_fetched`] on a site whose window is open.
    pub fn check_visit_time(
        &self,
        to_utc: impl Fn(usize, Duration) -> NaiveDateTime,
    ) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut seen = 0;
        for e in self.iter() {
            let Some((start, end)) = self.spec(e.site).visit_time() else { continue };
            seen += 1;
            if e.is_robots() {
                continue;
            }
            let t = to_utc(e.site, e.at).time();
            let inside = if start < end { start <= t && t < end } else { t >= start || t < end };
            if !inside {
                out.push(of(
                    e,
                    Rule::VisitTime,
                    format!(
                        "site {}: `{}` started at {t} UTC, outside its Visit-time [{start}, {end})",
                        e.site,
                        e.target()
                    ),
                ));
            }
        }
        if seen == 0 {
            out.push(no_evidence("no site with a Visit-time received a request"));
        }
        result(out)
    }

    /// No site ever had more than `limit` requests open at once.
    pub fn check_max_in_flight(&self, limit: usize) -> Result<(), Violations> {
        let mut out: Vec<Violation> = self
            .iter()
            .filter(|e| e.in_flight > limit)
            .map(|e| {
                of(
                    e,
                    Rule::InFlight,
                    format!(
                        "site {}: `{}` at {} made {} requests open, limit {limit}",
                        e.site,
                        e.target(),
                        ms(e.at),
                        e.in_flight
                    ),
                )
            })
            .collect();
        if self.is_empty() {
            out.push(no_evidence("no requests"));
        }
        result(out)
    }

    /// The first request to every site touched is for robots.txt (RFC 9309 §2.4; SPEC §1).
    pub fn check_robots_first(&self) -> Result<(), Violations> {
        let mut out = Vec::new();
        for (site, entries) in by_site(self) {
            if let Some(first) = entries.first().filter(|e| !e.is_robots()) {
                out.push(of(
                    first,
                    Rule::RobotsFirst,
                    format!(
                        "site {site}: first request was `{}` at {}, before robots.txt",
                        first.target(),
                        ms(first.at)
                    ),
                ));
            }
        }
        if self.is_empty() {
            out.push(no_evidence("no requests"));
        }
        result(out)
    }

    /// Sites whose robots.txt fails (429, 5xx, timeout, reset, too many redirects) or
    /// disallows everything got nothing but robots.txt requests.
    ///
    /// `block_on_401_403` follows the profile (CIXTRA-Bot and FestroBot treat a 401/403
    /// robots.txt as a block). Evidence: at least one such site was asked for robots.txt.
    pub fn check_robots_respected(&self, block_on_401_403: bool) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut evidence = false;
        for (site, entries) in by_site(self) {
            let scenario = &self.spec(site).robots;
            if !scenario.forbids_crawling(block_on_401_403) {
                continue;
            }
            evidence |= entries.iter().any(|e| e.is_robots());
            for e in entries.iter().filter(|e| !e.is_robots()) {
                out.push(of(
                    e,
                    Rule::RobotsRespected,
                    format!(
                        "site {site}: `{}` fetched at {} although its robots.txt is `{}`",
                        e.target(),
                        ms(e.at),
                        scenario.name()
                    ),
                ));
            }
        }
        if !evidence {
            out.push(no_evidence(
                "no site with a failing or disallow-all robots.txt was asked for robots.txt",
            ));
        }
        result(out)
    }

    /// No request reached a site while it had asked for a pause.
    ///
    /// A 429 or 503 suspends the whole site from the moment the server finished that
    /// answer, for its `Retry-After`, or `default_wait` when the header was missing or
    /// unreadable (SPEC §1: 1 min). Evidence: at least one such answer.
    pub fn check_suspensions(&self, default_wait: Duration) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut evidence = false;
        for (site, entries) in by_site(self) {
            for t in entries.iter().filter(|e| matches!(e.status, 429 | 503)) {
                evidence = true;
                let from = t.end();
                let until = from + t.retry_after.unwrap_or(default_wait);
                for e in entries.iter().filter(|e| e.seq != t.seq) {
                    if e.at > from && e.at + self.slack < until {
                        out.push(of(
                            e,
                            Rule::Suspension,
                            format!(
                                "site {site}: `{}` at {} during the pause `{}` asked for at \
                                 {} (status {}, until {})",
                                e.target(),
                                ms(e.at),
                                t.target(),
                                ms(from),
                                t.status,
                                ms(until)
                            ),
                        ));
                    }
                }
            }
        }
        if !evidence {
            out.push(no_evidence("no 429 or 503 was answered"));
        }
        result(out)
    }

    /// No request reached a site within `block_for` after it refused the bot with a
    /// 401/403, a challenge (`cf-mitigated`) or a login wall (SPEC §1: a block, 24 h by
    /// default). Evidence: at least one refusal.
    pub fn check_blocks(&self, block_for: Duration) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut evidence = false;
        for (site, entries) in by_site(self) {
            let Some(b) = entries.iter().find(|e| e.served == Served::Block) else {
                continue;
            };
            evidence = true;
            let from = b.end();
            for e in
                entries.iter().filter(|e| e.seq != b.seq && e.at > from && e.at < from + block_for)
            {
                out.push(of(
                    e,
                    Rule::Block,
                    format!(
                        "site {site}: `{}` at {} after the site refused the bot on `{}` \
                         (status {}) at {}",
                        e.target(),
                        ms(e.at),
                        b.target(),
                        b.status,
                        ms(from)
                    ),
                ));
            }
        }
        if !evidence {
            out.push(no_evidence("no site refused the bot"));
        }
        result(out)
    }

    /// No path the site's robots.txt disallows for the bot was fetched.
    ///
    /// Only sites whose rules the test web knows are judged (see
    /// [`crate::SiteSpec::effective_rules`]). Evidence: an allowed page was fetched from
    /// such a site.
    pub fn check_disallowed(&self) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut evidence = false;
        for (site, entries) in by_site(self) {
            let Some(rules) = self.spec(site).effective_rules() else {
                continue;
            };
            for e in entries.iter().filter(|e| !e.is_robots()) {
                if rules.allows(&e.path) {
                    evidence = true;
                } else {
                    out.push(of(
                        e,
                        Rule::Disallowed,
                        format!(
                            "site {site}: `{}` at {} is disallowed by robots.txt",
                            e.target(),
                            ms(e.at)
                        ),
                    ));
                }
            }
        }
        if !evidence {
            out.push(no_evidence("no allowed page was fetched from a site with rules"));
        }
        result(out)
    }

    /// Every refetch of a URL that was answered with validators carries
    /// `If-None-Match` or `If-Modified-Since`. robots.txt is left out (its re-reads
    /// follow the cache TTL). Evidence: at least one refetch.
    pub fn check_conditional_refetches(&self) -> Result<(), Violations> {
        let mut out = Vec::new();
        let mut evidence = false;
        for (site, entries) in by_site(self) {
            let mut validated: HashMap<String, Duration> = HashMap::new();
            for e in entries.iter().filter(|e| !e.is_robots()) {
                let target = e.target();
                if let Some(first) = validated.get(&target) {
                    evidence = true;
                    if !e.is_conditional() {
                        out.push(of(
                            e,
                            Rule::Unconditional,
                            format!(
                                "site {site}: `{target}` refetched at {} without \
                                 If-None-Match or If-Modified-Since (validators sent at {})",
                                ms(e.at),
                                ms(*first)
                            ),
                        ));
                    }
                }
                if e.validators_sent && matches!(e.status, 200 | 304) {
                    validated.entry(target).or_insert(e.at);
                }
            }
        }
        if !evidence {
            out.push(no_evidence("no URL answered with validators was fetched again"));
        }
        result(out)
    }

    /// Every request says exactly `user_agent` and carries no Cookie and no Referer
    /// (SPEC §1 "Identity").
    pub fn check_identity(&self, user_agent: &str) -> Result<(), Violations> {
        let mut out = Vec::new();
        for e in self.iter() {
            let site = e.site;
            match &e.user_agent {
                Some(ua) if ua == user_agent => {}
                other => out.push(of(
                    e,
                    Rule::Identity,
                    format!(
                        "site {site}: `{}` at {} sent User-Agent {}, want `{user_agent}`",
                        e.target(),
                        ms(e.at),
                        other.as_ref().map_or("(none)".to_owned(), |u| format!("`{u}`"))
                    ),
                )),
            }
            if let Some(c) = &e.cookie {
                out.push(of(
                    e,
                    Rule::Identity,
                    format!("site {site}: `{}` sent a cookie `{c}`", e.target()),
                ));
            }
            if let Some(r) = &e.referer {
                out.push(of(
                    e,
                    Rule::Identity,
                    format!("site {site}: `{}` sent a Referer `{r}`", e.target()),
                ));
            }
        }
        if self.is_empty() {
            out.push(no_evidence("no requests"));
        }
        result(out)
    }

    /// Every request used one of `methods` (e.g. `&["GET"]` for CIXTRA-Bot).
    pub fn check_methods(&self, methods: &[&str]) -> Result<(), Violations> {
        let mut out: Vec<Violation> = self
            .iter()
            .filter(|e| !methods.contains(&e.method.as_str()))
            .map(|e| {
                of(
                    e,
                    Rule::Method,
                    format!(
                        "site {}: `{} {}` uses a method outside {methods:?}",
                        e.site,
                        e.method,
                        e.target()
                    ),
                )
            })
            .collect();
        if self.is_empty() {
            out.push(no_evidence("no requests"));
        }
        result(out)
    }

    /// No request started inside a quiet-hours window, in the site's local time.
    ///
    /// `to_local` maps an arrival (`LedgerEntry::at`, monotonic since the epoch) and the
    /// site to local wall-clock time; tests usually build it with [`local_clock`] from
    /// the local time the crawler's clock showed at the epoch. Windows are half-open
    /// `[start, end)` (SPEC §1, AubeActuBot: [08:00, 09:00) and [14:00, 15:00)). Filter
    /// the ledger first to judge only the sites that have quiet hours.
    pub fn check_quiet_hours(
        &self,
        to_local: impl Fn(usize, Duration) -> NaiveDateTime,
        windows: &[(NaiveTime, NaiveTime)],
    ) -> Result<(), Violations> {
        let mut out = Vec::new();
        for e in self.iter() {
            let local = to_local(e.site, e.at);
            let t = local.time();
            if let Some((a, b)) = windows.iter().find(|(a, b)| *a <= t && t < *b) {
                out.push(of(
                    e,
                    Rule::QuietHours,
                    format!(
                        "site {}: `{}` started at {local} local, inside quiet hours [{a}, {b})",
                        e.site,
                        e.target()
                    ),
                ));
            }
        }
        if self.is_empty() {
            out.push(no_evidence("no requests"));
        }
        result(out)
    }

    /// Positive control: `path` was fetched at `site` (any status).
    pub fn expect_fetched(&self, site: usize, path: &str) -> Result<(), Violations> {
        self.expect_all_fetched(&[(site, path)])
    }

    /// Positive control: every `(site, path)` was fetched.
    pub fn expect_all_fetched(&self, wanted: &[(usize, &str)]) -> Result<(), Violations> {
        let out = wanted
            .iter()
            .filter(|(site, path)| !self.fetched(*site, path))
            .map(|(site, path)| Violation {
                rule: Rule::Missing,
                site: Some(*site),
                target: Some((*path).to_owned()),
                at: None,
                message: format!("site {site}: `{path}` was never fetched"),
            })
            .collect();
        result(out)
    }

    /// Positive control: at least `n` requests answered 200 (304s count too).
    pub fn expect_successes(&self, n: usize) -> Result<(), Violations> {
        let got = self
            .iter()
            .filter(|e| matches!(e.status, 200 | 304) && e.served != Served::Block)
            .count();
        if got >= n {
            return Ok(());
        }
        result(vec![Violation {
            rule: Rule::Missing,
            site: None,
            target: None,
            at: None,
            message: format!("{got} successful responses, want at least {n}"),
        }])
    }

    /// The least time this ledger's requests could have taken under the spacing rules:
    /// per site, the sum of the required gaps between its requests; the sites run in
    /// parallel, so the bound is the largest site's sum.
    ///
    /// A benchmark reports [`Ledger::span`] divided by this (1.0 is a perfect crawler).
    pub fn crawl_time_lower_bound(&self, gap_for: impl Fn(&LedgerEntry) -> Duration) -> Duration {
        by_site(self)
            .iter()
            .map(|(_, entries)| entries.iter().skip(1).map(|e| gap_for(e)).sum())
            .max()
            .unwrap_or_default()
    }

    /// [`Ledger::span`] divided by [`Ledger::crawl_time_lower_bound`] (`None` when the
    /// bound is zero).
    pub fn spacing_ratio(&self, gap_for: impl Fn(&LedgerEntry) -> Duration) -> Option<f64> {
        let bound = self.crawl_time_lower_bound(gap_for);
        (!bound.is_zero()).then(|| self.span().as_secs_f64() / bound.as_secs_f64())
    }
}

/// The least time a crawl of `requests_per_site` requests can take with `gap` between
/// request starts at each site (sites in parallel): `max(n - 1) × gap`.
pub fn crawl_time_lower_bound(requests_per_site: &[u32], gap: Duration) -> Duration {
    requests_per_site.iter().map(|n| gap * n.saturating_sub(1)).max().unwrap_or_default()
}

/// A mapping for [`Ledger::check_quiet_hours`]: every site shows `local_at_epoch` at the
/// ledger's epoch, and local time advances with the monotonic clock.
///
/// This ignores daylight-saving jumps; tests of DST pass their own closure.
pub fn local_clock(local_at_epoch: NaiveDateTime) -> impl Fn(usize, Duration) -> NaiveDateTime {
    move |_site, at| {
        local_at_epoch + chrono::TimeDelta::from_std(at).unwrap_or(chrono::TimeDelta::MAX)
    }
}
