//! `gleaner discover URL` (issue 28): the staff's manual check "where does this site's
//! event data come from?", as a handful of requests through the gate.
//!
//! Every request is a `manual-check` through [`Gate::fetch`] (robots.txt first, read by
//! the gate itself; the manual-check gap and every other rule of the site's budget; the
//! owners' registry; the audit log), except the site's rights files, which are read as
//! a pass reads them (`rights-signal`) when `[rights] on_reservation = "stop-site"`.
//! At most [`DiscoverOptions::max_requests`] requests reach the site, robots.txt and
//! rights files included: [`RequestCounter`] counts what the gate audits, and a request
//! that might need robots.txt first is only started when both fit. The daily cap of
//! manual checks per site (`[purposes] manual_checks_per_site_per_day`) holds too.
//!
//! What the documents declare and yield is read by the pure
//! `gleaner_extract::discover`; this module decides what to fetch next: the start page,
//! then one calendar, one feed and one JSON endpoint it declares, the event listing it
//! links to, one event page to see how pages read, and the sitemap robots.txt names.
//! Only the start URL's own site is asked; other sites' URLs are reported, not read.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use gleaner_config::Settings;
use gleaner_config::settings::OnReservation;
use gleaner_extract::discover::{self, Declared, Finding, NotRead, PageFindings, Report, Sample};
use gleaner_extract::{DocumentKind, kind_of};
use gleaner_fetch::{Fetched, Gate, GateOutcome, GateRequest, Refusal, site_key};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::robots::RobotsTxt;
use url::Url;

use crate::sink::EventSink;

/// The default of `--max-requests`.
pub const DEFAULT_MAX_REQUESTS: u32 = 8;

/// How long one request may wait for the site's budget before it is left out.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// How far ahead a calendar is expanded for its preview (as a pass does).
const CALENDAR_HORIZON: Duration = Duration::from_secs(180 * 24 * 3600);

/// What a discovery may spend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// The most requests the site sees (robots.txt and rights files included).
    pub max_requests: u32,
    /// Manual checks of the site already made today (the daily cap counts them).
    pub manual_checks_today: u32,
}

impl Default for DiscoverOptions {
    fn default() -> Self {
        DiscoverOptions { max_requests: DEFAULT_MAX_REQUESTS, manual_checks_today: 0 }
    }
}

/// An [`AuditSink`] that counts what the gate audits (every request sent or refused)
/// and forwards each record. Build the gate with it to bound a discovery by what the
/// site sees, robots.txt included.
#[derive(Debug)]
pub struct RequestCounter {
    inner: Arc<dyn AuditSink>,
    count: AtomicU32,
}

impl RequestCounter {
    /// A counter in front of `inner`.
    pub fn new(inner: Arc<dyn AuditSink>) -> RequestCounter {
        RequestCounter { inner, count: AtomicU32::new(0) }
    }

    /// Records seen so far.
    pub fn count(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }
}

impl AuditSink for RequestCounter {
    fn record(&self, record: AuditRecord) {
        self.count.fetch_add(1, Ordering::SeqCst);
        self.inner.record(record);
    }
}

/// Why a discovery did not start, or stopped at its first page: the site said no.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoverError {
    /// robots.txt, an owner, a block or the budget refused the start URL (the rule named).
    #[error("not reading `{url}`: {reason}")]
    Refused {
        /// The URL.
        url: Url,
        /// The rule that said no.
        reason: String,
    },
    /// The site's rights files reserve its rights, and `on_reservation` is `stop-site`.
    #[error(
        "not reading `{site}`: site stopped on reservation: {reservation} (`rights.on_reservation` is `stop-site`)"
    )]
    Reserved {
        /// The site.
        site: String,
        /// The reservation that decided.
        reservation: String,
    },
    /// The daily cap of manual checks of this site is used up.
    #[error("{done} manual checks of `{site}` today already (the cap is {cap} a day)")]
    DailyCap {
        /// The site.
        site: String,
        /// Checks made today.
        done: u32,
        /// The cap.
        cap: u32,
    },
    /// The budget cannot even hold robots.txt and the start page.
    #[error(
        "{max} requests cannot hold robots.txt, the rights files and the page (it needs {needed})"
    )]
    BudgetTooSmall {
        /// `--max-requests`.
        max: u32,
        /// What the first page needs.
        needed: u32,
    },
    /// The start URL answered with an error status or no response.
    #[error("`{url}` could not be read: {why}")]
    Unreadable {
        /// The URL.
        url: Url,
        /// The status or error.
        why: String,
    },
}

impl DiscoverError {
    /// Whether the site (its robots.txt, rights, owner or the cap) said no, as opposed to
    /// a failure.
    pub fn is_site_refusal(&self) -> bool {
        !matches!(self, DiscoverError::BudgetTooSmall { .. } | DiscoverError::Unreadable { .. })
    }
}

/// One fetch's result, for the discovery's own bookkeeping.
enum Got {
    /// A 2xx answer.
    Page(Box<Fetched>),
    /// The site, its robots.txt, an owner, a block or the daily cap said no.
    Refused(String),
    /// Not read for another reason (the budget, a status, no response).
    Not(String),
}

struct Discoverer<'a> {
    gate: &'a Gate,
    settings: &'a Settings,
    counter: &'a RequestCounter,
    opts: DiscoverOptions,
    site: String,
    origin: url::Origin,
    manual_checks: u32,
    report: Report,
}

impl Discoverer<'_> {
    /// Requests the site has seen from this discovery.
    fn used(&self, base: u32) -> u32 {
        self.counter.count().saturating_sub(base)
    }

    async fn robots_unknown(&self) -> bool {
        let now = self.gate.clock().now();
        self.gate
            .state()
            .site(&self.site)
            .await
            // A state the store cannot read counts as unknown: budget for robots.txt.
            .ok()
            .flatten()
            .and_then(|s| s.robots)
            .is_none_or(|r| r.valid_until <= now)
    }

    /// Fetches `url` as a manual check when the budget and the daily cap allow it,
    /// following same-site redirects. `base` is the counter's value at the start.
    async fn fetch(&mut self, url: &Url, base: u32) -> Got {
        let mut current = url.clone();
        for _hop in 0..=self.settings.limits.max_redirects.min(3) {
            if current.origin() != self.origin {
                return Got::Not(format!("redirects to another site (`{current}`), not followed"));
            }
            let cap = self.settings.purposes.manual_checks_per_site_per_day;
            if self.opts.manual_checks_today + self.manual_checks >= cap {
                return Got::Refused(format!(
                    "the daily cap of {cap} manual checks of this site is used up"
                ));
            }
            let needed = 1 + u32::from(self.robots_unknown().await);
            if self.used(base) + needed > self.opts.max_requests {
                return Got::Not(format!(
                    "the request budget ({}) is used up",
                    self.opts.max_requests
                ));
            }
            let mut request = GateRequest::new(current.clone(), Purpose::ManualCheck);
            request.wait_until_at_most = Some(self.gate.clock().now() + MAX_WAIT);
            self.manual_checks += 1;
            let fetched = match self.gate.fetch(&request).await {
                GateOutcome::Fetched(f) => f,
                GateOutcome::Refused(refusal) => return Got::Refused(refusal_text(&refusal)),
                GateOutcome::Deferred { why, .. } => {
                    return Got::Refused(format!("not now: {why}"));
                }
                GateOutcome::Failed(e) => return Got::Not(format!("no response: {e}")),
            };
            if fetched.is_redirect() {
                match fetched.location().and_then(|l| current.join(l).ok()) {
                    Some(next) if next != current => {
                        current = next;
                        continue;
                    }
                    _ => {
                        return Got::Not(format!(
                            "HTTP {} without a usable Location",
                            fetched.status
                        ));
                    }
                }
            }
            if !(200..300).contains(&fetched.status) {
                return Got::Not(format!("HTTP {}", fetched.status));
            }
            return Got::Page(Box::new(fetched));
        }
        Got::Not("too many redirects".into())
    }

    fn not_read(&mut self, url: &Url, why: impl Into<String>) {
        if !self.report.not_read.iter().any(|n| n.url == *url) {
            self.report.not_read.push(NotRead { url: url.clone(), why: why.into() });
        }
    }

    /// The first same-site link of `links`; the others are reported as not read.
    fn pick(&mut self, links: &[discover::Link]) -> Option<(Url, Declared)> {
        let mut chosen = None;
        for l in links {
            if l.url.origin() != self.origin {
                self.not_read(&l.url, "on another site (discover reads only the start URL's site)");
            } else if chosen.is_none() {
                chosen = Some((l.url.clone(), l.declared.clone()));
            } else {
                self.not_read(&l.url, "one of each kind is read");
            }
        }
        chosen
    }

    fn tz_for(&self, url: &Url) -> Option<chrono_tz::Tz> {
        Some(self.settings.time_zone_of(&url.host_str().unwrap_or_default().to_ascii_lowercase()))
    }

    fn today(&self) -> chrono::NaiveDate {
        chrono::DateTime::<chrono::Utc>::from(self.gate.clock().now()).date_naive()
    }

    fn window(&self) -> (chrono::DateTime<chrono::Utc>, chrono::DateTime<chrono::Utc>) {
        let now = chrono::DateTime::<chrono::Utc>::from(self.gate.clock().now());
        (
            now - chrono::Duration::days(1),
            now + chrono::Duration::from_std(CALENDAR_HORIZON).unwrap_or_default(),
        )
    }

    fn sample(&self, fetched: &Fetched) -> Sample {
        discover::read_events_page(
            &fetched.body,
            fetched.content_type().unwrap_or("text/html"),
            &fetched.url,
            self.tz_for(&fetched.url),
            self.today(),
        )
    }
}

fn refusal_text(refusal: &Refusal) -> String {
    match refusal {
        Refusal::Disallowed(verdict) => format!("refused by robots.txt: {verdict}"),
        other => format!("refused: {other}"),
    }
}

fn kind_of_fetched(f: &Fetched) -> DocumentKind {
    kind_of(&f.body, f.content_type().unwrap_or(""), Some(f.url.path()))
}

/// The `Sitemap:` URLs of the site's robots.txt, as the gate stored it.
async fn robots_sitemaps(gate: &Gate, site: &str, base: &Url) -> Vec<Url> {
    let Some(body) =
        gate.state().site(site).await.ok().flatten().and_then(|s| s.robots).and_then(|r| r.body)
    else {
        return Vec::new();
    };
    RobotsTxt::parse(&body).sitemaps.iter().filter_map(|s| base.join(s.trim()).ok()).collect()
}

/// Runs a discovery from `start` (see the module docs). The gate must be built with
/// `counter` as its audit sink; `sink` keeps the rights files a pass would keep.
pub async fn discover(
    gate: &Gate,
    sink: &dyn EventSink,
    settings: &Settings,
    counter: &RequestCounter,
    start: Url,
    opts: DiscoverOptions,
) -> Result<Report, DiscoverError> {
    let base = counter.count();
    let site = site_key(&start);
    let cap = settings.purposes.manual_checks_per_site_per_day;
    if opts.manual_checks_today >= cap {
        return Err(DiscoverError::DailyCap { site, done: opts.manual_checks_today, cap });
    }
    let mut d = Discoverer {
        gate,
        settings,
        counter,
        opts,
        origin: start.origin(),
        site: site.clone(),
        manual_checks: 0,
        report: Report {
            start: start.clone(),
            requests: 0,
            max_requests: opts.max_requests,
            declared: None,
            sitemaps: Vec::new(),
            findings: Vec::new(),
            not_read: Vec::new(),
            proposal: None,
        },
    };
    // The site's rights files first, as a pass reads them (robots.txt before them).
    let stop_site = settings.rights.on_reservation == OnReservation::StopSite
        && settings.rights.honour_signals
        && settings.rights.read_files
        && settings.purposes.enabled.contains(&Purpose::RightsSignal);
    let now = gate.clock().now();
    let files_fresh = sink.site_rights(&site).await.is_some_and(|f| f.valid_until > now);
    let needed =
        1 + u32::from(d.robots_unknown().await) + if stop_site && !files_fresh { 2 } else { 0 };
    if needed > opts.max_requests {
        return Err(DiscoverError::BudgetTooSmall { max: opts.max_requests, needed });
    }
    if let Some(reservation) =
        crate::rights::site_stopped(gate, sink, settings, &start, now, Some(now + MAX_WAIT)).await
    {
        let reason = format!("site stopped on reservation: {reservation}");
        gate.record_refusal(&GateRequest::new(start.clone(), Purpose::ManualCheck), reason);
        return Err(DiscoverError::Reserved { site, reservation: reservation.to_string() });
    }
    let first = match d.fetch(&start, base).await {
        Got::Page(f) => f,
        Got::Refused(reason) => return Err(DiscoverError::Refused { url: start, reason }),
        Got::Not(why) => return Err(DiscoverError::Unreadable { url: start, why }),
    };
    d.report.sitemaps = robots_sitemaps(gate, &site, &start).await;
    let mut listing: Option<(Url, PageFindings)> = None;
    let mut feed_doc: Option<(Box<Fetched>, Option<Declared>)> = None;
    let mut sample: Option<Sample> = None;
    let mut sitemap_start: Option<Url> = None;
    match kind_of_fetched(&first) {
        DocumentKind::Html => {
            let html = String::from_utf8_lossy(&first.body).into_owned();
            let page = discover::read_page(&html, &first.url);
            let own = d.sample(&first);
            d.report.declared = Some(page.clone());
            if page.event_links.is_some() {
                listing = Some((first.url.clone(), page.clone()));
            } else if !own.events.is_empty() && own.structured {
                // An event page itself: it samples how pages read.
                sample = Some(own);
            }
            // One calendar, one feed, one JSON endpoint the page declares.
            if let Some((url, how)) = d.pick(&page.calendars) {
                match d.fetch(&url, base).await {
                    Got::Page(f) => {
                        let finding = discover::assess_calendar(
                            &f.body,
                            &f.url,
                            Some(how),
                            d.window(),
                            d.tz_for(&f.url),
                        );
                        d.report.findings.push(finding);
                    }
                    Got::Not(why) | Got::Refused(why) => d.not_read(&url, why),
                }
            }
            if let Some((url, how)) = d.pick(&page.feeds) {
                match d.fetch(&url, base).await {
                    Got::Page(f) => feed_doc = Some((f, Some(how))),
                    Got::Not(why) | Got::Refused(why) => d.not_read(&url, why),
                }
            }
            if let Some((url, how)) = d.pick(&page.json) {
                match d.fetch(&url, base).await {
                    Got::Page(f) => {
                        d.report.findings.push(discover::assess_api(&f.body, &f.url, Some(how)))
                    }
                    Got::Not(why) | Got::Refused(why) => d.not_read(&url, why),
                }
            }
            // The listing the page links to, when it is not one itself.
            if listing.is_none() {
                let candidates = page.listings.clone();
                for (i, url) in candidates.iter().enumerate() {
                    if i > 0 {
                        d.not_read(url, "one listing is read");
                        continue;
                    }
                    match d.fetch(url, base).await {
                        Got::Page(f) if kind_of_fetched(&f) == DocumentKind::Html => {
                            let html = String::from_utf8_lossy(&f.body).into_owned();
                            let found = discover::read_page(&html, &f.url);
                            listing = Some((f.url.clone(), found));
                        }
                        Got::Page(_) => d.not_read(url, "not an HTML page"),
                        Got::Not(why) | Got::Refused(why) => d.not_read(url, why),
                    }
                }
            }
        }
        DocumentKind::Feed => feed_doc = Some((first.clone(), None)),
        DocumentKind::ICalendar => {
            let finding = discover::assess_calendar(
                &first.body,
                &first.url,
                None,
                d.window(),
                d.tz_for(&first.url),
            );
            d.report.findings.push(finding);
        }
        DocumentKind::JsonLd => {
            d.report.findings.push(discover::assess_api(&first.body, &first.url, None));
        }
        DocumentKind::Sitemap => sitemap_start = Some(first.url.clone()),
        DocumentKind::Csv => {
            d.not_read(&first.url, "CSV is open data, not events (use an `open-data` source)")
        }
    }
    // One event page, to see how the site's event pages read.
    let candidate = listing
        .as_ref()
        .and_then(|(_, p)| p.event_links.as_ref())
        .and_then(|l| l.urls.first().cloned())
        .or_else(|| {
            feed_doc
                .as_ref()
                .and_then(|(f, _)| discover::feed_pages(&f.body, &f.url).into_iter().next())
        });
    if sample.is_none()
        && let Some(url) = candidate
    {
        match d.fetch(&url, base).await {
            Got::Page(f) => sample = Some(d.sample(&f)),
            Got::Not(why) | Got::Refused(why) => d.not_read(&url, why),
        }
    }
    // The sitemap robots.txt names (or the one given), and one child of an index.
    let sitemaps: Vec<Url> = match &sitemap_start {
        Some(u) => vec![u.clone()],
        None => d.report.sitemaps.clone(),
    };
    let mut pages: Vec<Url> = Vec::new();
    let mut sitemap_url: Option<Url> = None;
    // Whether a list of pages was read (an index whose children were not read says
    // nothing yet).
    let mut read_urlset = false;
    for (i, url) in sitemaps.iter().enumerate() {
        if i > 0 || url.origin() != d.origin {
            d.not_read(url, "one sitemap of the site is read");
            continue;
        }
        sitemap_url = Some(url.clone());
        let body = if sitemap_start.is_some() {
            first.body.clone()
        } else {
            match d.fetch(url, base).await {
                Got::Page(f) => f.body.clone(),
                Got::Not(why) | Got::Refused(why) => {
                    d.not_read(url, why);
                    continue;
                }
            }
        };
        let map = gleaner_extract::sitemap::read(&body, url, &Default::default());
        read_urlset |= map.children.is_empty();
        pages.extend(map.urls.into_iter().map(|u| u.loc));
        let mut children = map.children.into_iter().map(|c| c.loc);
        if let Some(child) = children.next() {
            match d.fetch(&child, base).await {
                Got::Page(f) => {
                    let caps =
                        gleaner_extract::sitemap::SitemapCaps { depth: 1, ..Default::default() };
                    let map = gleaner_extract::sitemap::read(&f.body, &f.url, &caps);
                    read_urlset = true;
                    pages.extend(map.urls.into_iter().map(|u| u.loc));
                }
                Got::Not(why) | Got::Refused(why) => d.not_read(&child, why),
            }
        }
        for child in children {
            d.not_read(&child, "one child sitemap is read");
        }
    }
    let listing_prefix = listing
        .as_ref()
        .and_then(|(url, page)| discover::assess_listing(page, url, None).event_url_prefix);
    if sample.is_none()
        && sitemap_url.is_some()
        && let Some(url) =
            discover::sitemap_event_pages(&pages, listing_prefix.as_deref()).1.first().cloned()
    {
        match d.fetch(&url, base).await {
            Got::Page(f) => sample = Some(d.sample(&f)),
            Got::Not(why) | Got::Refused(why) => d.not_read(&url, why),
        }
    }
    // What each kind would yield, now that one event page was read.
    if let Some((f, how)) = &feed_doc {
        let finding = discover::assess_feed(&f.body, &f.url, how.clone(), sample.as_ref());
        d.report.findings.push(finding);
    }
    let mut prefix: Option<String> = None;
    if let Some((url, page)) = &listing {
        let finding = discover::assess_listing(page, url, sample.as_ref());
        prefix = finding.event_url_prefix.clone();
        if d.report.declared.as_ref().is_some_and(|p| p.event_links.is_none()) {
            // Show what the listing declares too.
            if let Some(declared) = &mut d.report.declared {
                declared.event_links = page.event_links.clone();
                declared.next_page = page.next_page.clone();
            }
        }
        d.report.findings.push(finding);
    }
    if let Some(url) = sitemap_url.as_ref().filter(|_| read_urlset) {
        let declared = sitemap_start.is_none().then_some(Declared::RobotsTxt);
        let finding =
            discover::assess_sitemap(url, &pages, prefix.as_deref(), declared, sample.as_ref());
        d.report.findings.push(finding);
    }
    d.report.findings.sort_by_key(|f: &Finding| f.kind);
    d.report.requests = d.used(base);
    d.report.propose();
    Ok(d.report)
}
