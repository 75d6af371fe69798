//! One pass over a source: source → frontier → gate → fetch → extract → normalise →
//! store. Every request goes through the gate (robots.txt, the site's budget, the
//! registry); nothing here opens a socket or writes SQL.
//!
//! A listing source reads its start URLs (purpose `listing`; the first request starts a
//! pass over the site, the rest continue it), follows "next page" links up to the
//! source's limit, and reads the event pages they link to (purpose `event-page`),
//! conditionally when validators are stored: a 304 records the check and re-extracts
//! nothing. Events found on listing pages themselves count too. A request the gate
//! defers past the run's time limit is counted as re-queued, not as a failure.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use gleaner_config::Settings;
use gleaner_config::sources::{Keep, Source, SourceKind};
use gleaner_event::{EventIdentity, NormaliseContext};
use gleaner_extract::sitemap::SitemapCaps;
use gleaner_extract::{ExtractOptions, FeedMode};
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::{Gate, GateOutcome, GateRequest, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::budget::{DenyReason, PassMark};
use url::Url;

use crate::api_pages;
use crate::links::{ListingLinks, listing_links, meta_tags, selector};
use crate::sink::{EventSink, Found, Upsert};

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
    /// Requests the gate refused, by reason.
    pub refusals: BTreeMap<String, u32>,
    /// Requests left for the next pass (the time limit, a suspension, a used-up pass).
    pub requeued: u32,
    /// Requests that got no response (timeouts, connection errors).
    pub failed: u32,
    /// News items stored (open-data records).
    pub news: u32,
    /// Configuration problems met during the pass (a bad selector, say).
    pub errors: Vec<String>,
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

fn refusal_key(refusal: &Refusal) -> String {
    match refusal {
        Refusal::OptedOut(_) => "opted out".into(),
        Refusal::Disallowed(_) => "disallowed by robots.txt".into(),
        Refusal::RobotsUnreadable { .. } => "robots.txt unreadable or refused".into(),
        Refusal::Budget(DenyReason::Blocked { .. }) => "site blocked us".into(),
        Refusal::Budget(DenyReason::PurposeNotEnabled(p)) => format!("purpose {p} not enabled"),
        Refusal::Budget(DenyReason::PassQuota { .. }) => "pass quota used".into(),
        Refusal::Local(_) => "refused locally (address or URL)".into(),
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
    seen: &mut HashSet<Url>,
    frontier: &mut VecDeque<(Url, Step)>,
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

fn page_signals(ctx: &PassContext, fetched: &gleaner_fetch::Fetched, body: &str) -> PageSignals {
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
    };
    if !ctx.settings.rights.honour_signals {
        return signals;
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
    events: Vec<gleaner_event::Event>,
    report: &mut PassReport,
) {
    if !signals.publish {
        *report.refusals.entry("noindex: events not kept".to_owned()).or_default() +=
            events.len() as u32;
        return;
    }
    let now = ctx.clock.now();
    let llm = ctx.sink.language_model();
    for mut event in events {
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
async fn archive_terms(
    ctx: &PassContext,
    source: &Source,
    deadline: SystemTime,
    report: &mut PassReport,
) {
    for page in [&source.terms_url, &source.press_url].into_iter().flatten() {
        if !ctx.settings.purposes.enabled.contains(&Purpose::TermsPage) {
            return;
        }
        if let Some(reason) = crate::rights::stop_before_site(ctx, source, page, deadline).await {
            *report.refusals.entry(reason).or_default() += 1;
            continue;
        }
        let mut request = GateRequest::new(page.clone(), Purpose::TermsPage);
        request.source = Some(source.id.clone());
        request.wait_until_at_most = Some(deadline);
        request.validators = ctx.sink.validators(page).await;
        match ctx.gate.fetch(&request).await {
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
            GateOutcome::Refused(refusal) => {
                *report.refusals.entry(refusal_key(&refusal)).or_default() += 1
            }
            GateOutcome::Deferred { .. } => report.requeued += 1,
            GateOutcome::Failed(_) => report.failed += 1,
        }
    }
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

/// Runs one pass of `source`, giving up waiting at `deadline` (the rest is re-queued).
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
    archive_terms(ctx, source, deadline, &mut report).await;
    let mut frontier: VecDeque<(Url, Step)> = source
        .start_urls
        .iter()
        .map(|u| match &source.paging {
            Some(paging) if source.kind.is_api() => api_pages::first_page(u, paging),
            _ => u.clone(),
        })
        .map(|u| (u, Step::start(source.kind)))
        .collect();
    let mut seen: HashSet<Url> = frontier.iter().map(|(u, _)| u.clone()).collect();
    let mut started_sites: HashSet<String> = HashSet::new();
    let (mut listings, mut events_queued) = (0u32, 0u32);
    let mut done = 0u32;
    while let Some((url, step)) = frontier.pop_front() {
        if ctx.stop.load(Ordering::Relaxed) {
            report.requeued += 1 + frontier.len() as u32;
            break;
        }
        let site = gleaner_fetch::site_key(&url);
        // The site's rights files first (after robots.txt): a reservation under
        // `stop-site` stops the whole site before any page is read.
        if !started_sites.contains(&site)
            && let Some(reason) = crate::rights::stop_before_site(ctx, source, &url, deadline).await
        {
            let before = frontier.len();
            frontier.retain(|(u, _)| gleaner_fetch::site_key(u) != site);
            *report.refusals.entry(reason).or_default() += 1 + (before - frontier.len()) as u32;
            continue;
        }
        let purpose = step.purpose();
        let mut request = GateRequest::new(url.clone(), purpose);
        request.source = Some(source.id.clone());
        request.pass =
            if started_sites.insert(site) { PassMark::Start } else { PassMark::Continue };
        request.wait_until_at_most = Some(deadline);
        // A listing is asked conditionally only when its links are stored: a 304 must
        // never leave the pass without the pages it links to.
        request.validators =
            if step == Step::Listing && ctx.sink.listing_links(&url).await.is_none() {
                gleaner_fetch::Validators::default()
            } else {
                ctx.sink.validators(&url).await
            };
        if let (Step::Api, Some((param, key))) = (step, &api_key) {
            request.url = api_pages::with_param(&url, param, key.expose());
        }
        let (outcome, _hops) = ctx.gate.fetch_following(&request).await;
        done += 1;
        progress(Progress {
            source: source.id.clone(),
            url: url.clone(),
            done,
            known: done + frontier.len() as u32,
        });
        let fetched = match outcome {
            GateOutcome::Fetched(fetched) => fetched,
            GateOutcome::Refused(refusal) => {
                *report.refusals.entry(refusal_key(&refusal)).or_default() += 1;
                continue;
            }
            GateOutcome::Deferred { .. } => {
                report.requeued += 1 + frontier.len() as u32;
                break;
            }
            GateOutcome::Failed(_) => {
                report.failed += 1;
                continue;
            }
        };
        report.responses += 1;
        let now = ctx.clock.now();
        match fetched.status {
            304 => {
                report.not_modified += 1;
                ctx.sink.set_validators(&url, fetched.validators.clone()).await;
                ctx.sink.checked_unchanged(&url, now).await;
                if step == Step::Listing {
                    // Unchanged listing: follow the links it had last time.
                    let links = ctx.sink.listing_links(&url).await.unwrap_or_default();
                    listings += 1;
                    enqueue(links, source, listings, &mut events_queued, &mut seen, &mut frontier);
                }
                continue;
            }
            404 | 410 => {
                report.gone += 1;
                if step == Step::Event {
                    mark_page_gone(ctx, &url, now).await;
                }
                continue;
            }
            200..=299 => {}
            401 | 403 if api_key.is_some() => {
                report.errors.push(format!(
                    "source `{}`: the licensed API refused the key ({}): check the key in ${}",
                    source.id,
                    fetched.status,
                    source.licensed.as_ref().map_or("", |l| l.key_env.as_str())
                ));
                continue;
            }
            _ => continue,
        }
        // Validators are stored only after the page's events: a crash in between must
        // not leave a 304 in front of events that were never stored.
        let validators = fetched.validators.clone();
        'page: {
            match step {
                Step::Event | Step::Feed | Step::Api | Step::Records => report.event_pages += 1,
                Step::Listing | Step::Sitemap(_) => report.listing_pages += 1,
            }
            let body = String::from_utf8_lossy(&fetched.body);
            let signals = page_signals(ctx, &fetched, &body);
            if let Some(reason) = &signals.stop_site {
                // A rights reservation under `on_reservation = "stop-site"`: nothing more from
                // this site in this pass, and nothing kept from this page.
                *report.refusals.entry(reason.clone()).or_default() += 1;
                let site = gleaner_fetch::site_key(&url);
                let before = frontier.len();
                frontier.retain(|(u, _)| gleaner_fetch::site_key(u) != site);
                *report.refusals.entry(reason.clone()).or_default() +=
                    (before - frontier.len()) as u32;
                break 'page;
            }
            if step == Step::Listing && signals.follow_links {
                listings += 1;
                let links = listing_links(
                    &body,
                    &fetched.url,
                    event_selector.as_ref(),
                    source.event_url_prefix.as_deref(),
                    &next_selector,
                );
                ctx.sink.set_listing_links(&url, links.clone()).await;
                enqueue(links, source, listings, &mut events_queued, &mut seen, &mut frontier);
            }
            if let Step::Sitemap(depth) = step {
                let caps = SitemapCaps { depth, ..SitemapCaps::default() };
                let map = gleaner_extract::sitemap::read(&fetched.body, &fetched.url, &caps);
                for child in map.children {
                    if seen.insert(child.loc.clone()) {
                        frontier.push_back((child.loc, Step::Sitemap(depth + 1)));
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
                        && events_queued < source.max_event_pages
                        && seen.insert(entry.loc.clone())
                    {
                        events_queued += 1;
                        frontier.push_back((entry.loc, Step::Event));
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
                let items =
                    gleaner_extract::feeds::read(&fetched.body, &fetched.url, FeedMode::Auto);
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
                        && events_queued < source.max_event_pages
                        && seen.insert(link.clone())
                    {
                        events_queued += 1;
                        frontier.push_back((link, Step::Event));
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
                let (items, problems) = api_pages::records_to_news(
                    source,
                    &dataset,
                    fetched.content_type(),
                    &fetched.body,
                );
                report
                    .errors
                    .extend(problems.into_iter().map(|p| format!("source `{}`: {p}", source.id)));
                for item in items {
                    report.news += 1;
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
                if let Some(paging) = &source.paging
                    && listings < source.max_listing_pages.saturating_sub(1)
                    && let Some(next) =
                        api_pages::next_page(&url, &fetched.body, paging, read.events.len())
                    && seen.insert(next.clone())
                {
                    listings += 1;
                    frontier.push_back((next, Step::Api));
                }
                let ctx_n = NormaliseContext { base_url: &page_url, default_tz: zone };
                let mut events = Vec::new();
                for item in read.events {
                    if let Ok(normalised) = gleaner_event::normalise(&item.raw, &ctx_n) {
                        events.push(normalised.event);
                    }
                }
                store_events(ctx, source, &signals, &page_url, step, events, &mut report).await;
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
            if step == Step::Listing && signals.follow_links && options.rules.is_some() {
                // A listing item that links to its own page is read there; the item gives the link.
                let links = std::mem::take(&mut extracted.links);
                extracted.events.retain(|e| e.url.as_ref().is_none_or(|u| !links.contains(u)));
                let links = ListingLinks { events: links, next_page: extracted.next_page.take() };
                enqueue(links, source, listings, &mut events_queued, &mut seen, &mut frontier);
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
            store_events(ctx, source, &signals, &fetched.url, step, events, &mut report).await;
        }
        ctx.sink.set_validators(&url, validators).await;
    }
    // Translations that failed earlier are tried again (issue 18).
    if let Some(llm) = ctx.sink.language_model() {
        llm.retry_translations(source).await;
    }
    report
}
