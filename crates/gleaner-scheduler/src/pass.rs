//! One pass over a source: source → frontier → gate → fetch → extract → normalise →
//! store. Every request goes through the gate (robots.txt, the site's budget, the
//! registry); nothing here opens a socket or writes SQL.
//!
//! A listing source reads its start URLs (purpose `listing`; the first request starts a
//! pass over the site, the rest continue it), follows "next page" links up to the
//! source's limit, and reads the event pages they link to (purpose `event-page`),
//! conditionally when validators are stored: a 304 records the check and re-extracts
//! nothing. Events found on listing pages themselves count too. A request the gate
//! defers past the run's time limit is counted as re-queued, not as a failure; a URL
//! that answered 429 or 503 is kept in the store from that answer until it is asked
//! again, so when the time limit (or a crash) cuts its retry, the source's next pass
//! asks it first ([`EventSink::keep_for_next_pass`]).

mod connection;
mod frontier;
mod progress;
mod sites;
mod summary;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use gleaner_config::Settings;
use gleaner_config::sources::{Keep, Source, SourceKind};
use gleaner_event::merge::Extractor;
use gleaner_event::{EventIdentity, NormaliseContext};
use gleaner_extract::sitemap::SitemapCaps;
use gleaner_extract::{ExtractOptions, FeedMode};
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::{Gate, GateOutcome, GateRequest, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::budget::{DenyReason, PassMark};
use gleaner_policy::outcome::RefusalKind;
use gleaner_policy::signals::prefs::{self, PrefRefusal, PrefRule, PrefUse};
use url::Url;

use crate::api_pages;
use crate::links::{ListingLinks, listing_links, meta_tags, selector};
use crate::retries::{Retries, Verdict};
use crate::sink::{EventSink, Found, Upsert};
use frontier::{Seen, SiteFrontier};
pub use summary::{Held, HoldKind, SiteProblem};

/// What a pass did, for the summary table and the logs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PassReport {
    /// The source's id.
    pub source: String,
    /// Listing pages read (200).
    pub listing_pages: u32,
    /// Event pages read (200).
    pub event_pages: u32,
    /// Responses received, any status, redirects included.
    pub responses: u32,
    /// 304 answers (nothing downloaded, nothing re-extracted).
    pub not_modified: u32,
    /// Events stored for the first time.
    pub events_new: u32,
    /// Events whose facts changed.
    pub events_updated: u32,
    /// Events seen again unchanged.
    pub events_unchanged: u32,
    /// Pages that answered 404 or 410 (gone at source).
    pub gone: u32,
    /// Requests not made, by reason for people: the gate's refusals and the pass's own
    /// (noindex, rights reservations).
    pub refusals: BTreeMap<String, u32>,
    /// The gate's refusals by kind (what code reads; `refusals` is what people read).
    pub refused: BTreeMap<RefusalKind, u32>,
    /// Requests left for the next pass (the time limit, a suspension, a used-up pass).
    pub requeued: u32,
    /// URLs kept in the store for the next pass, which asks them first: each answered
    /// 429 or 503 and was not asked again in this pass.
    pub kept: u32,
    /// Requests that got no response (timeouts, connection errors), every try counted.
    pub failed: u32,
    /// Requests asked again after a 429, a 5xx or no answer (`retries.rs`).
    pub retried: u32,
    /// URLs given up in this pass once their retries were spent.
    pub given_up: u32,
    /// News items stored (open-data records).
    pub news: u32,
    /// Configuration problems met during the pass (a bad selector, say).
    pub errors: Vec<String>,
    /// Sites crawled (a source's start URLs may name many; see `pass/sites.rs`).
    pub sites: u32,
    /// The sites whose crawl did not go cleanly, by site key.
    pub site_problems: Vec<SiteProblem>,
    /// Requests the gate left for a later pass, by why ([`PassReport::hold_lines`]
    /// says the caps and quotas among them in one line each).
    pub held: BTreeMap<HoldKind, Held>,
}

/// One pass, shared (behind an `Arc`) by the crawls of its sites, each its own task.
struct Pass {
    ctx: PassContext,
    source: Arc<Source>,
    deadline: SystemTime,
    /// Each request's progress, for [`run_pass`]'s caller (called on the pass's own task).
    progress: progress::ProgressFeed,
    event_selector: Option<scraper::Selector>,
    next_selector: scraper::Selector,
    api_key: Option<(String, gleaner_config::Secret)>,
    seen: Seen,
    /// Sites whose first request of the pass was asked (the rest continue the pass).
    started_sites: Mutex<HashSet<String>>,
    /// Requests handled so far, over all sites.
    done: AtomicU32,
    /// Requests queued and not yet taken, over all sites.
    outstanding: Arc<AtomicU32>,
    /// The URLs kept for the source's next pass: those the last pass left, then each
    /// 429 or 503 of this one, until asked again.
    kept: Mutex<HashSet<Url>>,
}

/// One step of progress, for progress bars.
#[derive(Debug, Clone)]
pub struct Progress {
    /// The source's id.
    pub source: String,
    /// The URL just handled.
    pub url: Url,
    /// Requests handled so far in this pass.
    pub done: u32,
    /// Requests known so far (grows as listings reveal event pages).
    pub known: u32,
}

/// What a pass needs.
#[derive(Clone)]
pub struct PassContext {
    /// The gate every request goes through.
    pub gate: Arc<Gate>,
    /// Where events and validators go.
    pub sink: Arc<dyn EventSink>,
    /// The wall clock (injected in tests).
    pub clock: Arc<dyn WallClock>,
    /// The settings.
    pub settings: Arc<Settings>,
    /// Set to stop passes after their current request (SIGINT, SIGTERM); the rest is
    /// re-queued.
    pub stop: Arc<AtomicBool>,
}

/// Counts one refusal of the gate: by kind, and by its phrase.
fn count_refusal(report: &mut PassReport, refusal: &Refusal) {
    *report.refused.entry(refusal.kind()).or_default() += 1;
    *report.refusals.entry(refusal_phrase(refusal)).or_default() += 1;
}

/// The phrase of a refusal for people (the pass report); code reads its kind.
fn refusal_phrase(refusal: &Refusal) -> String {
    match refusal {
        Refusal::Budget(DenyReason::PurposeNotEnabled(p)) => format!("purpose {p} not enabled"),
        other => other.kind().describe().to_owned(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// An HTML listing page.
    Listing,
    /// An event page.
    Event,
    /// An RSS/Atom feed or an iCalendar file: events are read from it directly.
    Feed,
    /// A sitemap or sitemap index, at this nesting depth.
    Sitemap(u32),
    /// A JSON API document, read through the source's field mapping.
    Api,
    /// An open-data document (JSON or CSV), read into newsroom items.
    Records,
}

impl Step {
    fn purpose(self) -> Purpose {
        match self {
            Step::Listing => Purpose::Listing,
            Step::Event => Purpose::EventPage,
            Step::Feed => Purpose::Feed,
            Step::Sitemap(_) => Purpose::Sitemap,
            Step::Api | Step::Records => Purpose::Api,
        }
    }

    /// The step of a request kept for the next pass, asked for `purpose` by a source of
    /// this kind (a kept sitemap is read as a top-level one).
    fn kept(purpose: Purpose, kind: SourceKind) -> Option<Step> {
        match purpose {
            Purpose::Listing => Some(Step::Listing),
            Purpose::EventPage => Some(Step::Event),
            Purpose::Feed => Some(Step::Feed),
            Purpose::Sitemap => Some(Step::Sitemap(0)),
            Purpose::Api if kind.is_api() || kind == SourceKind::OpenData => {
                Some(Step::start(kind))
            }
            Purpose::Api => Some(Step::Api),
            _ => None,
        }
    }

    /// The first step of a source of this kind.
    fn start(kind: SourceKind) -> Step {
        match kind {
            SourceKind::Feed | SourceKind::Ical => Step::Feed,
            SourceKind::Sitemap => Step::Sitemap(0),
            SourceKind::JsonApi | SourceKind::LicensedApi => Step::Api,
            SourceKind::OpenData => Step::Records,
            SourceKind::Listing => Step::Listing,
        }
    }
}

/// How far ahead calendar series are expanded into occurrences.
const CALENDAR_HORIZON: std::time::Duration = std::time::Duration::from_secs(180 * 24 * 3600);

/// Queues a listing's event pages (up to the source's limit) and its next page (first,
/// so a deferred pass has still seen the whole listing).
fn enqueue(
    links: ListingLinks,
    source: &Source,
    listings_read: u32,
    events_queued: &mut u32,
    seen: &Seen,
    frontier: &mut SiteFrontier,
) {
    for event in links.events {
        if *events_queued < source.max_event_pages && seen.insert(event.clone()) {
            *events_queued += 1;
            frontier.push_back((event, Step::Event));
        }
    }
    if let Some(next) = links.next_page
        && listings_read < source.max_listing_pages
        && seen.insert(next.clone())
    {
        frontier.push_front((next, Step::Listing));
    }
}

/// What a page's X-Robots-Tag, robots meta and TDMRep signals allow (SPEC §1, "Rights
/// signals"): noindex → its events are not kept; nofollow → its links are not followed;
/// nosnippet → no description; noimageindex → no image address; a rights reservation
/// (TDMRep, noai, noimageai, noml) stops the site under `stop-site`, or drops the
/// description and image it reserves under `per-purpose`.
struct PageSignals {
    publish: bool,
    follow_links: bool,
    keep_description: bool,
    keep_image: bool,
    stop_site: Option<String>,
    /// The AI-use preference (`search=n`/`no`) that keeps the page's events out of
    /// publication under `per-purpose`.
    unpublished: Option<PrefRefusal>,
}

/// A cheap pre-check before building a DOM for meta tags: only pages that mention a
/// robots, bot-token or TDM meta name can carry one. Keeps JSON-LD pages on the
/// extractor's DOM-free fast path.
fn might_carry_signals(body: &str, token: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    lower.contains("<meta")
        && (lower.contains("robots")
            || lower.contains("tdm-")
            || lower.contains(&token.to_ascii_lowercase()))
}

fn page_signals(
    ctx: &PassContext,
    fetched: &gleaner_fetch::Fetched,
    body: &str,
    robots_prefs: &[PrefRule],
) -> PageSignals {
    use gleaner_policy::signals::robots_meta::{PageAction, PageRestrictions};
    use gleaner_policy::signals::tdmrep;
    let headers: Vec<(&str, &str)> =
        fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let meta_owned = if fetched.content_type().is_none_or(|ct| ct.contains("html"))
        && might_carry_signals(body, &ctx.settings.bot.token)
    {
        meta_tags(body)
    } else {
        Vec::new()
    };
    let meta: Vec<(&str, &str)> =
        meta_owned.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
    let token = &ctx.settings.bot.token;
    let restrictions = PageRestrictions::from_signals(token, &headers, &meta);
    let allowed = |action| restrictions.decide(action).is_allowed();
    let mut signals = PageSignals {
        publish: allowed(PageAction::Publish),
        follow_links: allowed(PageAction::FollowLinks),
        keep_description: allowed(PageAction::KeepDescription),
        keep_image: allowed(PageAction::KeepImage),
        stop_site: None,
        unpublished: None,
    };
    if !ctx.settings.rights.honour_signals {
        return signals;
    }
    // AI-use preferences (issue 29): `search=n` in the robots.txt rule for this path or
    // in the page's own headers keeps its events out of publication.
    let path = crate::rights::path_and_query(&fetched.url);
    if let Some(no) = prefs::decide(robots_prefs, &path, &headers, PrefUse::Search).refusal() {
        match ctx.settings.rights.on_reservation {
            gleaner_config::settings::OnReservation::StopSite => {
                signals.stop_site = Some("AI-use preference (search=no): site stopped".to_owned());
                return signals;
            }
            gleaner_config::settings::OnReservation::PerPurpose => {
                signals.publish = false;
                signals.unpublished = Some(no.clone());
            }
        }
    }
    let tdm_reserved = tdmrep::from_headers(&headers)
        .or_else(|| tdmrep::from_meta(&meta))
        .is_some_and(|d| d.reservation == tdmrep::TdmReservation::Reserved);
    let directives = !restrictions.reservations().is_empty();
    if tdm_reserved || directives {
        let by = if tdm_reserved { "TDMRep reservation" } else { "noai/noimageai/noml" };
        match ctx.settings.rights.on_reservation {
            gleaner_config::settings::OnReservation::StopSite => {
                signals.stop_site = Some(format!("rights reserved ({by}): site stopped"));
            }
            gleaner_config::settings::OnReservation::PerPurpose => {
                signals.keep_description = false;
                signals.keep_image = false;
            }
        }
    }
    signals
}

/// Hands a document's events to the sink, minus what the source's `keep` and the page's
/// signals forbid: nothing from a `noindex` page, no description under `nosnippet` or
/// `keep = "facts"`, no image under `noimageindex`. Events without a page of their own
/// link back to the document they were read from.
async fn store_events(
    ctx: &PassContext,
    source: &Source,
    signals: &PageSignals,
    document: &Url,
    step: Step,
    events: Vec<(gleaner_event::Event, Option<Extractor>)>,
    report: &mut PassReport,
) {
    if !signals.publish {
        let key = match &signals.unpublished {
            Some(_) => "AI-use preference (search=no): events not published",
            None => "noindex: events not kept",
        };
        *report.refusals.entry(key.to_owned()).or_default() += events.len() as u32;
        return;
    }
    let now = ctx.clock.now();
    let llm = ctx.sink.language_model();
    for (mut event, extractor) in events {
        crate::scrub::scrub_event(&mut event, &ctx.settings.network.secret_query_params);
        if source.keep == Keep::Facts || !signals.keep_description {
            event.description = None;
        }
        if source.keep == Keep::Facts || !signals.keep_image {
            event.image_url = None;
        }
        if event.url.is_none() && matches!(step, Step::Event | Step::Feed | Step::Api) {
            event.url = Some(document.clone());
        }
        let identity = EventIdentity::of(&event);
        let found = Found {
            event,
            identity,
            source: source.id.clone(),
            page: document.clone(),
            checked_at: now,
            extractor,
        };
        // The language model's part (issue 18): its provenance, and translation.
        let stored = llm.as_ref().map(|_| found.event.clone());
        let upserted = ctx.sink.upsert(found).await;
        match upserted {
            Upsert::New => report.events_new += 1,
            Upsert::Updated => report.events_updated += 1,
            Upsert::Unchanged => report.events_unchanged += 1,
        }
        if let (Some(llm), Some(event)) = (&llm, stored) {
            llm.stored(source, document, identity, &event, upserted != Upsert::Unchanged).await;
        }
    }
}

/// Reads the source's terms and press pages (purpose `terms-page`, through the gate) and
/// archives them when they changed; conditional, so an unchanged page costs a 304.
/// Returns the sites stopped on a rights reservation meanwhile.
async fn archive_terms(
    ctx: &PassContext,
    source: &Source,
    deadline: SystemTime,
    report: &mut PassReport,
) -> HashSet<String> {
    let mut stopped = HashSet::new();
    for page in [&source.terms_url, &source.press_url].into_iter().flatten() {
        if !ctx.settings.purposes.enabled.contains(&Purpose::TermsPage) {
            break;
        }
        let site = gleaner_fetch::site_key(page);
        if stopped.contains(&site) {
            continue;
        }
        if let Some(reason) = crate::rights::stop_before_site(ctx, source, page, deadline).await {
            *report.refusals.entry(reason).or_default() += 1;
            stopped.insert(site);
            continue;
        }
        let mut request = GateRequest::new(page.clone(), Purpose::TermsPage);
        request.source = Some(source.id.clone());
        request.wait_until_at_most = Some(deadline);
        request.validators = ctx.sink.validators(page).await;
        let outcome = ctx.gate.fetch(&request).await;
        if let Some(fetched) = outcome.fetched()
            && let Some(stop) = crate::rights::header_reservation(&ctx.settings, &fetched.headers)
        {
            report.responses += 1;
            let reason = record_stop(ctx, &request, &stop);
            *report.refusals.entry(reason).or_default() += 1;
            stopped.insert(site);
            continue;
        }
        match outcome {
            GateOutcome::Fetched(fetched) if fetched.status == 200 => {
                report.responses += 1;
                ctx.sink.set_validators(page, fetched.validators.clone()).await;
                ctx.sink.archive_terms(page, fetched.body.to_vec(), ctx.clock.now()).await;
            }
            GateOutcome::Fetched(fetched) => {
                report.responses += 1;
                if fetched.status == 304 {
                    report.not_modified += 1;
                }
            }
            GateOutcome::Refused(refusal) => count_refusal(report, &refusal),
            GateOutcome::Deferred { .. } => report.requeued += 1,
            GateOutcome::Failed(_) => report.failed += 1,
        }
    }
    stopped
}

/// Records in the audit log that a response's headers stopped the site (`stop-site`), and
/// returns the pass report's key for it.
fn record_stop(
    ctx: &PassContext,
    request: &GateRequest,
    stop: &gleaner_policy::signals::Reservation,
) -> String {
    let what = request.purpose;
    ctx.gate
        .record_refusal(request, format!("site stopped on reservation: a {what} answer: {stop}"));
    "rights reserved (response headers): site stopped".to_owned()
}

/// Drops every queued request for `site` (a reservation stopped it), counting them under
/// `reason`.
fn drop_site(site: &str, reason: &str, q: &mut Queues<'_>) {
    let before = q.frontier.len() + q.held.len();
    q.frontier.retain(|(u, _)| gleaner_fetch::site_key(u) != site);
    q.held.retain(|(_, u, _)| gleaner_fetch::site_key(u) != site);
    let dropped = (before - q.frontier.len() - q.held.len()) as u32;
    *q.report.refusals.entry(reason.to_owned()).or_default() += dropped;
}

/// An event page answered 404 or 410: its stored events are *gone at source* (internal,
/// never published as cancelled).
async fn mark_page_gone(ctx: &PassContext, page: &Url, now: SystemTime) {
    let year = std::time::Duration::from_secs(366 * 24 * 3600);
    let stored = ctx.sink.stored_events(now - year, now + 2 * year).await;
    for found in
        stored.into_iter().filter(|f| f.page == *page || f.event.url.as_ref() == Some(page))
    {
        ctx.sink.mark_gone(found, now).await;
    }
}

/// Whether `step` is a page of a walk whose next pages are found on it (a listing, or a
/// paged API): such a page is asked conditionally only once its links are stored, so a
/// 304 never ends the walk early.
fn walks_pages(step: Step, source: &Source) -> bool {
    step == Step::Listing || (step == Step::Api && source.paging.is_some())
}

/// Takes the held requests whose time has come, in the order they were held.
fn take_due(held: &mut Vec<(SystemTime, Url, Step)>, now: SystemTime) -> Vec<(Url, Step)> {
    let (due, later): (Vec<_>, Vec<_>) = held.drain(..).partition(|(at, _, _)| *at <= now);
    *held = later;
    due.into_iter().map(|(_, url, step)| (url, step)).collect()
}

/// Sleeps until `at` on the pass's clock, in steps of at most a second so a stop is seen;
/// false when the pass was stopped meanwhile.
async fn wait_until(ctx: &PassContext, at: SystemTime) -> bool {
    loop {
        if ctx.stop.load(Ordering::Relaxed) {
            return false;
        }
        let Ok(left) = at.duration_since(ctx.clock.now()) else { return true };
        if left.is_zero() {
            return true;
        }
        tokio::time::sleep(left.min(std::time::Duration::from_secs(1))).await;
    }
}

/// Whether the site's robots.txt is unread because it got no answer (a timeout or a
/// failed connection), as opposed to a status that refuses.
async fn robots_unanswered(ctx: &PassContext, site: &str) -> bool {
    use gleaner_policy::robots::outcome::RobotsReason;
    // A state the store cannot read counts as answered: no retry on a guess.
    let state = ctx.gate.state().site(site).await.ok().flatten();
    state
        .and_then(|s| s.robots)
        .is_some_and(|m| matches!(m.reason, RobotsReason::Timeout | RobotsReason::ConnectionFailed))
}

/// The queues a retry decision changes.
struct Queues<'a> {
    frontier: &'a mut SiteFrontier,
    held: &'a mut Vec<(SystemTime, Url, Step)>,
    report: &'a mut PassReport,
}

/// A request to `site` got no answer: hold it for the site's next try, or give the site
/// up for this pass (its other requests wait for the next pass instead of each being
/// tried again).
fn no_answer(verdict: Verdict, site: &str, url: Url, step: Step, q: &mut Queues<'_>) {
    match verdict {
        Verdict::Retry(at) => {
            q.report.retried += 1;
            q.held.push((at.unwrap_or(SystemTime::UNIX_EPOCH), url, step));
        }
        Verdict::GiveUp => {
            q.report.given_up += 1;
            let before = q.frontier.len() + q.held.len();
            q.frontier.retain(|(u, _)| gleaner_fetch::site_key(u) != site);
            q.held.retain(|(_, u, _)| gleaner_fetch::site_key(u) != site);
            q.report.requeued += (before - q.frontier.len() - q.held.len()) as u32;
        }
    }
}

/// What a site's crawl holds between two requests: its queue, report and retry state
/// (a page's own steps live in [`ask`]'s future, boxed, only while it is asked and read).
struct SiteCrawl {
    frontier: SiteFrontier,
    report: PassReport,
    /// Each site's robots.txt AI-use preference rules, read once per pass.
    site_prefs: HashMap<String, Vec<PrefRule>>,
    listings: u32,
    events_queued: u32,
    retries: Retries,
    /// Requests held back until a time: the tries of a site that did not answer.
    held: Vec<(SystemTime, Url, Step)>,
    /// When the site's next request may start at the earliest (see [`crawl_site`]).
    not_before: Option<SystemTime>,
}

/// Whether a site's crawl goes on after a request.
enum Flow {
    /// On to the site's next request.
    Next,
    /// The crawl ends here (a stop, a deferral).
    Stop,
}

/// Crawls one site's part of a pass, from `frontier`, to the end or the deadline: the
/// URLs found on it that belong to other sites are returned in the frontier's
/// `elsewhere`, for their own sites' crawls.
async fn crawl_site(pass: &Pass, frontier: SiteFrontier) -> (PassReport, SiteFrontier) {
    let (ctx, source, deadline) = (&pass.ctx, &*pass.source, pass.deadline);
    let mut c = SiteCrawl {
        frontier,
        report: PassReport { source: source.id.clone(), ..PassReport::default() },
        site_prefs: HashMap::new(),
        listings: 0,
        events_queued: 0,
        retries: Retries::new(&ctx.settings.politeness),
        held: Vec::new(),
        not_before: None,
    };
    loop {
        let now = ctx.clock.now();
        for (url, step) in take_due(&mut c.held, now).into_iter().rev() {
            c.frontier.push_front((url, step));
        }
        let Some((url, step)) = c.frontier.pop_front() else {
            let Some(earliest) = c.held.iter().map(|(at, _, _)| *at).min() else { break };
            if earliest > deadline || !wait_until(ctx, earliest).await {
                c.report.requeued += c.held.len() as u32;
                break;
            }
            continue;
        };
        if ctx.stop.load(Ordering::Relaxed) {
            c.report.requeued += 1 + (c.frontier.len() + c.held.len()) as u32;
            break;
        }
        let site = gleaner_fetch::site_key(&url);
        if let Some(until) = c.retries.down_until(&site).filter(|t| *t > now) {
            c.held.push((until, url, step));
            continue;
        }
        // The site's rights files first (after robots.txt): a reservation under
        // `stop-site` stops the whole site before any page is read.
        if !pass.started_sites.lock().unwrap_or_else(|p| p.into_inner()).contains(&site)
            && let Some(reason) =
                Box::pin(crate::rights::stop_before_site(ctx, source, &url, deadline)).await
        {
            *c.report.refusals.entry(reason.clone()).or_default() += 1;
            drop_site(
                &site,
                &reason,
                &mut Queues { frontier: &mut c.frontier, held: &mut c.held, report: &mut c.report },
            );
            continue;
        }
        let mut request = new_request(pass, &c, &url, step, &site);
        // A listing is asked conditionally only when its links are stored: a 304 must
        // never leave the pass without the pages it links to.
        request.validators =
            if walks_pages(step, source) && ctx.sink.listing_links(&url).await.is_none() {
                gleaner_fetch::Validators::default()
            } else {
                ctx.sink.validators(&url).await
            };
        if let (Step::Api, Some((param, key))) = (step, &pass.api_key) {
            request.url = api_pages::with_param(&url, param, key.expose());
        }
        // The site's gap is waited here, not inside the gate: a site between two
        // requests then holds a timer rather than a gate request (issue 27).
        // `not_before` is at most what the gate asks (the class's gap counted from
        // before the previous request started, on the gate's clock; no purpose gap,
        // Crawl-delay or slow-down shortens it), so the gate still decides and waits
        // whatever is left.
        if let Some(at) = c.not_before.take()
            && at <= deadline
            && !wait_until(ctx, at).await
        {
            c.report.requeued += 1 + (c.frontier.len() + c.held.len()) as u32;
            break;
        }
        // Boxed: a site waiting for its gap holds only `c` and the request, not the
        // space of every step of a page.
        if let Flow::Stop = Box::pin(ask(pass, &mut c, request, url, step, site)).await {
            break;
        }
    }
    (c.report, c.frontier)
}

/// The pass's copy of `source`, without its start URLs: they are in the frontiers and
/// the seen set already, and the configuration keeps its own, so a pass over 10,000
/// start URLs does not hold a third copy while it crawls (issue 27).
fn pass_source(source: &Source) -> Arc<Source> {
    let mut copy = source.clone();
    copy.start_urls = Vec::new();
    Arc::new(copy)
}

/// The gate request for `url` (its validators still to be read): the pass's first
/// request to `site` starts the site's pass, the others continue it.
fn new_request(pass: &Pass, c: &SiteCrawl, url: &Url, step: Step, site: &str) -> GateRequest {
    let ctx = &pass.ctx;
    let mut request = GateRequest::new(url.clone(), step.purpose());
    request.source = Some(pass.source.id.clone());
    request.pass =
        if pass.started_sites.lock().unwrap_or_else(|p| p.into_inner()).insert(site.to_owned()) {
            PassMark::Start
        } else {
            PassMark::Continue
        };
    request.wait_until_at_most = Some(pass.deadline);
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    let next = connection::NextRequest {
        queued: c.frontier.len() + c.held.len(),
        step,
        gap: ctx.settings.class_of(&host).gap,
    };
    request.close_after = connection::close_after(&next, ctx.settings.network.keep_idle);
    request
}

/// Asks `request` (for `url`, a `step` of `site`) through the gate and reads its answer
/// into `c`: the page's events stored, its links queued, a retry held.
async fn ask(
    pass: &Pass,
    c: &mut SiteCrawl,
    request: GateRequest,
    url: Url,
    step: Step,
    site: String,
) -> Flow {
    let (ctx, source, api_key) = (&pass.ctx, &*pass.source, &pass.api_key);
    let seen = &pass.seen;
    let asked = ctx.clock.now();
    // Boxed, like every large await below: the gate's fetch (about 0.9 KiB in a
    // release build) is held only while the request is on its way.
    let (outcome, hops) = Box::pin(ctx.gate.fetch_following(&request)).await;
    if let GateOutcome::Fetched(fetched) = &outcome
        && hops.is_empty()
        && ctx.settings.licensed_api_for(&source.id, &url).is_none()
    {
        let host = fetched.url.host_str().unwrap_or_default().to_ascii_lowercase();
        c.not_before = Some(asked + ctx.settings.class_of(&host).gap);
    }
    if !matches!(outcome, GateOutcome::Deferred { .. })
        && pass.kept.lock().unwrap_or_else(|p| p.into_inner()).remove(&url)
    {
        ctx.sink.asked_again(&source.id, &url).await;
    }
    let done = pass.done.fetch_add(1, Ordering::Relaxed) + 1;
    // Taken by the pass's task in batches (`pass/progress.rs`).
    pass.progress.send(Progress {
        source: source.id.clone(),
        url: url.clone(),
        done,
        known: done + pass.outstanding.load(Ordering::Relaxed),
    });
    let fetched = match outcome {
        GateOutcome::Fetched(fetched) => fetched,
        GateOutcome::Refused(Refusal::RobotsUnreadable { until, .. })
            if robots_unanswered(ctx, &site).await =>
        {
            // robots.txt itself got no answer: the site is down, not refusing.
            let verdict = c.retries.after_robots_unanswered(&site, ctx.clock.now(), until);
            no_answer(
                verdict,
                &site,
                url,
                step,
                &mut Queues { frontier: &mut c.frontier, held: &mut c.held, report: &mut c.report },
            );
            return Flow::Next;
        }
        GateOutcome::Refused(refusal) => {
            count_refusal(&mut c.report, &refusal);
            return Flow::Next;
        }
        GateOutcome::Deferred { hold, .. } => {
            let left = 1 + (c.frontier.len() + c.held.len()) as u32;
            c.report.requeued += left;
            c.report.note_hold(hold.as_ref(), left);
            return Flow::Stop;
        }
        GateOutcome::Failed(error) => {
            c.report.failed += 1;
            if error.is_retryable() {
                let verdict = c.retries.after_no_answer(&site, ctx.clock.now());
                no_answer(
                    verdict,
                    &site,
                    url,
                    step,
                    &mut Queues {
                        frontier: &mut c.frontier,
                        held: &mut c.held,
                        report: &mut c.report,
                    },
                );
            } else {
                c.report.given_up += 1;
            }
            return Flow::Next;
        }
    };
    c.report.responses += 1;
    c.retries.answered(&site);
    // A reservation in any answer's headers (a 304 or a 404 too) stops the site.
    if let Some(stop) = crate::rights::header_reservation(&ctx.settings, &fetched.headers) {
        let reason = record_stop(ctx, &request, &stop);
        *c.report.refusals.entry(reason.clone()).or_default() += 1;
        drop_site(
            &site,
            &reason,
            &mut Queues { frontier: &mut c.frontier, held: &mut c.held, report: &mut c.report },
        );
        return Flow::Next;
    }
    let now = ctx.clock.now();
    match fetched.status {
        304 => {
            c.report.not_modified += 1;
            ctx.sink.set_validators(&url, fetched.validators.clone()).await;
            ctx.sink.checked_unchanged(&url, now).await;
            if step == Step::Listing {
                // Unchanged listing: follow the links it had last time.
                let links = ctx.sink.listing_links(&url).await.unwrap_or_default();
                c.listings += 1;
                enqueue(links, source, c.listings, &mut c.events_queued, seen, &mut c.frontier);
            } else if walks_pages(step, source)
                && c.listings < source.max_listing_pages.saturating_sub(1)
                && let Some(next) =
                    ctx.sink.listing_links(&url).await.and_then(|links| links.next_page)
                && seen.insert(next.clone())
            {
                // An unchanged API page: the walk goes on with the page it led to last
                // time (stored, or read now when a crash or a limit cut the walk there).
                c.listings += 1;
                c.frontier.push_back((next, Step::Api));
            }
            return Flow::Next;
        }
        404 | 410 => {
            c.report.gone += 1;
            if step == Step::Event {
                Box::pin(mark_page_gone(ctx, &url, now)).await;
            }
            return Flow::Next;
        }
        200..=299 => {}
        401 | 403 if api_key.is_some() => {
            c.report.errors.push(format!(
                "source `{}`: the licensed API refused the key ({}): check the key in ${}",
                source.id,
                fetched.status,
                source.licensed.as_ref().map_or("", |l| l.key_env.as_str())
            ));
            return Flow::Next;
        }
        429 | 500..=599 => {
            match c.retries.after_status(&url) {
                // The gate stored the site's suspension: the next request to the site
                // waits it out (or is deferred past the time limit), so this URL goes
                // first. Another 5xx waits behind the site's other queued pages.
                Verdict::Retry(_) if matches!(fetched.status, 429 | 503) => {
                    c.report.retried += 1;
                    // Kept (committed) until asked again, in case the time limit or
                    // a crash cuts the retry.
                    ctx.sink.keep_for_next_pass(&source.id, &url, step.purpose()).await;
                    pass.kept.lock().unwrap_or_else(|p| p.into_inner()).insert(url.clone());
                    c.frontier.push_front((url, step));
                }
                Verdict::Retry(_) => {
                    c.report.retried += 1;
                    c.frontier.push_back((url, step));
                }
                Verdict::GiveUp => c.report.given_up += 1,
            }
            return Flow::Next;
        }
        _ => return Flow::Next,
    }
    // Boxed: a site waiting for its answer holds only what it waits on, not the space
    // of reading a page.
    Box::pin(read_page(pass, c, &request, fetched, url, step, site, now)).await;
    Flow::Next
}

/// Reads a 2xx answer to `request` (for `url`, a `step` of `site`, answered at `now`)
/// into `c`: the page's events stored and its links queued, then its validators kept.
#[allow(clippy::too_many_arguments)] // the request's parts, each used by one step
async fn read_page(
    pass: &Pass,
    c: &mut SiteCrawl,
    request: &GateRequest,
    fetched: gleaner_fetch::Fetched,
    url: Url,
    step: Step,
    site: String,
    now: SystemTime,
) {
    let (ctx, source) = (&pass.ctx, &*pass.source);
    let (event_selector, next_selector, api_key) =
        (&pass.event_selector, &pass.next_selector, &pass.api_key);
    let seen = &pass.seen;
    // Validators are stored only after the page's events: a crash in between must
    // not leave a 304 in front of events that were never stored.
    let validators = fetched.validators.clone();
    'page: {
        match step {
            Step::Event | Step::Feed | Step::Api | Step::Records => c.report.event_pages += 1,
            Step::Listing | Step::Sitemap(_) => c.report.listing_pages += 1,
        }
        let body = String::from_utf8_lossy(&fetched.body);
        if !c.site_prefs.contains_key(&site) {
            // A licensed API is read under its licence, without robots.txt.
            let rules = if ctx.settings.licensed_api_for(&source.id, &url).is_some() {
                Vec::new()
            } else {
                Box::pin(ctx.gate.robots_preferences(request)).await.unwrap_or_default()
            };
            c.site_prefs.insert(site.clone(), rules);
        }
        let robots_prefs = c.site_prefs.get(&site).map_or(&[][..], Vec::as_slice);
        let signals = page_signals(ctx, &fetched, &body, robots_prefs);
        if let Some(no) = &signals.unpublished {
            ctx.gate.record_refusal(request, format!("events not published: {no}"));
        }
        if let Some(reason) = &signals.stop_site {
            // A rights reservation under `on_reservation = "stop-site"`: nothing more from
            // this site in this pass, and nothing kept from this page.
            *c.report.refusals.entry(reason.clone()).or_default() += 1;
            let site = gleaner_fetch::site_key(&url);
            let before = c.frontier.len();
            c.frontier.retain(|(u, _)| gleaner_fetch::site_key(u) != site);
            *c.report.refusals.entry(reason.clone()).or_default() +=
                (before - c.frontier.len()) as u32;
            break 'page;
        }
        if step == Step::Listing && signals.follow_links {
            c.listings += 1;
            let links = listing_links(
                &body,
                &fetched.url,
                event_selector.as_ref(),
                source.event_url_prefix.as_deref(),
                next_selector,
            );
            ctx.sink.set_listing_links(&url, links.clone()).await;
            enqueue(links, source, c.listings, &mut c.events_queued, seen, &mut c.frontier);
        }
        if let Step::Sitemap(depth) = step {
            let caps = SitemapCaps { depth, ..SitemapCaps::default() };
            let map = gleaner_extract::sitemap::read(&fetched.body, &fetched.url, &caps);
            for child in map.children {
                if seen.insert(child.loc.clone()) {
                    c.frontier.push_back((child.loc, Step::Sitemap(depth + 1)));
                }
            }
            let prefix = source
                .event_url_prefix
                .as_deref()
                .and_then(|p| fetched.url.join(p).ok())
                .map(|u| u.to_string());
            for entry in map.urls {
                let wanted =
                    prefix.as_ref().is_none_or(|p| entry.loc.as_str().starts_with(p.as_str()));
                if wanted
                    && c.events_queued < source.max_event_pages
                    && seen.insert(entry.loc.clone())
                {
                    c.events_queued += 1;
                    c.frontier.push_back((entry.loc, Step::Event));
                }
            }
            break 'page;
        }
        if step == Step::Feed
            && gleaner_extract::kind_of(
                &fetched.body,
                fetched.content_type().unwrap_or(""),
                Some(fetched.url.path()),
            ) == gleaner_extract::DocumentKind::Feed
            && signals.follow_links
        {
            // Items that are not events themselves usually link to the event's page.
            let items = gleaner_extract::feeds::read(&fetched.body, &fetched.url, FeedMode::Auto);
            for link in items.news.into_iter().filter_map(|n| n.url) {
                let same_site =
                    gleaner_fetch::site_key(&link) == gleaner_fetch::site_key(&fetched.url);
                let wanted = source
                    .event_url_prefix
                    .as_deref()
                    .and_then(|p| fetched.url.join(p).ok())
                    .is_none_or(|p| link.as_str().starts_with(p.as_str()));
                if same_site
                    && wanted
                    && c.events_queued < source.max_event_pages
                    && seen.insert(link.clone())
                {
                    c.events_queued += 1;
                    c.frontier.push_back((link, Step::Event));
                }
            }
        }
        let zone = source.time_zone.or_else(|| {
            let host = fetched.url.host_str().unwrap_or_default().to_ascii_lowercase();
            Some(ctx.settings.time_zone_of(&host))
        });
        let content_type = fetched.content_type().unwrap_or("text/html").to_owned();
        if step == Step::Records {
            let dataset = match &api_key {
                Some((param, _)) => api_pages::without_param(&fetched.url, param),
                None => fetched.url.clone(),
            };
            let (items, problems) =
                api_pages::records_to_news(source, &dataset, fetched.content_type(), &fetched.body);
            c.report
                .errors
                .extend(problems.into_iter().map(|p| format!("source `{}`: {p}", source.id)));
            for item in items {
                c.report.news += 1;
                ctx.sink.upsert_news(item, source.keep == Keep::Full).await;
            }
            break 'page;
        }
        if step == Step::Api {
            let Some(mapping) = &source.api else { break 'page };
            // What is kept and linked never carries the key.
            let page_url = match &api_key {
                Some((param, _)) => api_pages::without_param(&fetched.url, param),
                None => fetched.url.clone(),
            };
            let read = gleaner_extract::api::read(&fetched.body, mapping);
            if let Some(paging) = &source.paging {
                // Each page keeps its own link to the next, so a 304 on it later still
                // leads the walk on (stored before its validators, like a listing's).
                let next = api_pages::next_page(&url, &fetched.body, paging, read.events.len());
                let links = ListingLinks { events: Vec::new(), next_page: next.clone() };
                ctx.sink.set_listing_links(&url, links).await;
                if let Some(next) = next
                    && c.listings < source.max_listing_pages.saturating_sub(1)
                    && seen.insert(next.clone())
                {
                    c.listings += 1;
                    c.frontier.push_back((next, Step::Api));
                }
            }
            let ctx_n = NormaliseContext { base_url: &page_url, default_tz: zone };
            let mut events = Vec::new();
            for item in read.events {
                if let Ok(normalised) = gleaner_event::normalise(&item.raw, &ctx_n) {
                    events.push((normalised.event, Some(Extractor::Api)));
                }
            }
            Box::pin(store_events(ctx, source, &signals, &page_url, step, events, &mut c.report))
                .await;
            break 'page;
        }
        let options = ExtractOptions {
            feed_mode: FeedMode::Auto,
            // Calendars: the occurrences within the horizon, each its own event.
            expand: (step == Step::Feed).then(|| {
                let now = chrono::DateTime::<chrono::Utc>::from(ctx.clock.now());
                (
                    now - chrono::Duration::days(1),
                    now + chrono::Duration::from_std(CALENDAR_HORIZON).unwrap_or_default(),
                )
            }),
            file_name: Some(fetched.url.path().to_owned()),
            default_tz: zone,
            // Site rules when config has some for this page's site (issue 10); else the
            // generic fallback on event pages, unless a language model reads them.
            rules: ctx.settings.site_rules.for_url(&fetched.url),
            fallback: source.fallback
                && step == Step::Event
                && (source.llm == gleaner_config::llm::LlmMode::Off
                    || ctx.sink.language_model().is_none()),
            reference_date: Some(chrono::DateTime::<chrono::Utc>::from(now).date_naive()),
        };
        let mut extracted = gleaner_extract::extract_events_with(
            &fetched.body,
            &content_type,
            &NormaliseContext { base_url: &fetched.url, default_tz: zone },
            &options,
        );
        let mut formats: Vec<Option<Extractor>> =
            extracted.formats.iter().map(|f| crate::sink::extractor_of(*f)).collect();
        if step == Step::Listing && signals.follow_links && options.rules.is_some() {
            // A listing item that links to its own page is read there; the item gives the link.
            let links = std::mem::take(&mut extracted.links);
            let keep: Vec<bool> = extracted
                .events
                .iter()
                .map(|e| e.url.as_ref().is_none_or(|u| !links.contains(u)))
                .collect();
            let mut kept = keep.iter();
            extracted.events.retain(|_| kept.next().copied().unwrap_or(true));
            let mut kept = keep.iter();
            formats.retain(|_| kept.next().copied().unwrap_or(true));
            let links = ListingLinks { events: links, next_page: extracted.next_page.take() };
            enqueue(links, source, c.listings, &mut c.events_queued, seen, &mut c.frontier);
        }
        // Pages where structured data and site rules found nothing may be read by the
        // language model (`llm = "fallback"`, or every page under `"always"`).
        let events = match ctx.sink.language_model() {
            Some(llm) => {
                llm.read_page(
                    source,
                    &fetched.url,
                    &fetched.headers,
                    &body,
                    zone,
                    step == Step::Event,
                    extracted.events,
                )
                .await
            }
            None => extracted.events,
        };
        // The model's events come after the extracted ones.
        let read: Vec<_> = events
            .into_iter()
            .enumerate()
            .map(|(i, e)| (e, formats.get(i).copied().unwrap_or(Some(Extractor::LanguageModel))))
            .collect();
        Box::pin(store_events(ctx, source, &signals, &fetched.url, step, read, &mut c.report))
            .await;
    }
    ctx.sink.set_validators(&url, validators).await;
}

/// Runs one pass of `source`, giving up waiting at `deadline` (the rest is re-queued).
///
/// Each site's crawl is its own task on the current tokio runtime (so a multi-thread
/// runtime spreads them over its workers); `progress` is called on the caller's task.
/// Dropping the future aborts the crawls.
pub async fn run_pass(
    ctx: &PassContext,
    source: &Source,
    deadline: SystemTime,
    progress: &(dyn Fn(Progress) + Sync),
) -> PassReport {
    let mut report = PassReport { source: source.id.clone(), ..PassReport::default() };
    let event_selector = match source.event_selector.as_deref().map(selector).transpose() {
        Ok(s) => s,
        Err(e) => {
            report.errors.push(format!("source `{}`: {e}", source.id));
            return report;
        }
    };
    let next_selector = match selector(&source.next_page_selector) {
        Ok(s) => s,
        Err(e) => {
            report.errors.push(format!("source `{}`: {e}", source.id));
            return report;
        }
    };
    // A licensed API's key: checked before any request, added to each API request only.
    let api_key = match &source.licensed {
        Some(licensed) => match &licensed.key {
            Some(key) => Some((licensed.key_param.clone(), key.clone())),
            None => {
                report.errors.push(format!(
                    "source `{}`: the licensed API's key is not set: export {}=<key> before starting gleaner (keys never go in the config file)",
                    source.id, licensed.key_env
                ));
                return report;
            }
        },
        None => None,
    };
    let stopped = archive_terms(ctx, source, deadline, &mut report).await;
    let start: Vec<(Url, Step)> = source
        .start_urls
        .iter()
        .map(|u| match &source.paging {
            Some(paging) if source.kind.is_api() => api_pages::first_page(u, paging),
            _ => u.clone(),
        })
        .map(|u| (u, Step::start(source.kind)))
        .collect();
    // What the last pass kept (a 429 or 503 whose retry was cut) is asked first.
    let kept: Vec<(Url, Step)> = ctx
        .sink
        .kept_for_next_pass(&source.id)
        .await
        .into_iter()
        .filter_map(|(url, purpose)| Some((url, Step::kept(purpose, source.kind)?)))
        .collect();
    let kept_urls: HashSet<Url> = kept.iter().map(|(u, _)| u.clone()).collect();
    let start: Vec<(Url, Step)> =
        kept.into_iter().chain(start.into_iter().filter(|(u, _)| !kept_urls.contains(u))).collect();
    let before = start.len();
    let start: Vec<(Url, Step)> =
        start.into_iter().filter(|(u, _)| !stopped.contains(&gleaner_fetch::site_key(u))).collect();
    if start.len() < before {
        let key = "rights reserved (response headers): site stopped".to_owned();
        *report.refusals.entry(key).or_default() += (before - start.len()) as u32;
    }
    let pass = Pass {
        ctx: ctx.clone(),
        source: pass_source(source),
        deadline,
        progress: progress::ProgressFeed::default(),
        event_selector,
        next_selector,
        api_key,
        seen: Seen::default(),
        started_sites: Mutex::default(),
        done: AtomicU32::new(0),
        outstanding: Arc::new(AtomicU32::new(start.len() as u32)),
        kept: Mutex::new(kept_urls),
    };
    for url in start.iter().map(|(u, _)| u) {
        pass.seen.insert(url.clone());
    }
    let pass = Arc::new(pass);
    sites::crawl_sites(Arc::clone(&pass), start, &mut report, progress).await;
    report.kept = pass.kept.lock().unwrap_or_else(|p| p.into_inner()).len() as u32;
    // Translations that failed earlier are tried again (issue 18).
    if let Some(llm) = ctx.sink.language_model() {
        llm.retry_translations(source).await;
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of the future `f` returns, without building its arguments.
    fn future_size<'a, F: std::future::Future>(
        _: impl FnOnce(&'a Pass, SiteFrontier) -> F,
    ) -> usize {
        std::mem::size_of::<F>()
    }

    /// The size of the future of [`ask`], live while a site's request is on the wire:
    /// ten thousand sites asking at once hold ten thousand.
    fn ask_size<'a, F: std::future::Future>(
        _: impl FnOnce(&'a Pass, &'a mut SiteCrawl, GateRequest, Url, Step, String) -> F,
    ) -> usize {
        std::mem::size_of::<F>()
    }

    /// 3,776 bytes with the reading of a page inline; 1,216 with it boxed in
    /// [`read_page`].
    #[test]
    fn a_request_in_flight_holds_a_small_future() {
        let size = ask_size(ask);
        assert!(size < 2048, "a site's request in flight takes {size} bytes");
    }

    /// The pass keeps the source's settings, not a copy of its start URLs (10,000 of
    /// them took ~1.3 MB more for the whole pass).
    #[test]
    fn the_pass_holds_no_second_copy_of_the_start_urls() {
        let config = "[bot]\ntoken = \"T\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n\
                      [[sources]]\nid = \"s\"\nkind = \"listing\"\n\
                      start_urls = [\"https://a.example/\", \"https://b.example/\"]\n";
        let settings = gleaner_config::parse(config, "t.toml").expect("config");
        let source = &settings.sources[0];
        let copy = pass_source(source);
        assert!(copy.start_urls.is_empty());
        assert_eq!(Source { start_urls: source.start_urls.clone(), ..(*copy).clone() }, *source);
    }

    /// Each site's crawl is a task that holds its future whole, for the whole crawl: ten
    /// thousand sites at once hold ten thousand (issue 27). 4,128 bytes when a page's
    /// steps were inline; 1,160 with them boxed in [`ask`].
    #[test]
    fn a_sites_crawl_future_is_small() {
        let size = future_size(crawl_site);
        assert!(size < 1536, "a site's crawl future takes {size} bytes");
    }
}
