//! Checks that keep stored events true (SPEC §4): the cancellation check and the link
//! check. The scheduler decides *when* they run ([`CANCELLATION_RUN`], [`LINK_CHECK_RUN`]
//! and `[checks]` in the settings); this module says what one cycle does.
//!
//! **Cancellation check** (UGYBot's, made polite): every `checks.cancellation_every`
//! (4 h), the stored events from today to `checks.horizon` days ahead, "today" taken in
//! each event's own zone. One conditional GET of each event page (a HEAD first only where
//! the profile enables it and asks for `head-then-get`) and of each listing page of their
//! sources once per cycle, not once per event. 404/410 → *gone at source* (internal, never
//! published as cancelled); a changed page is re-extracted and stored, so a cancellation
//! or postponement is recorded in the event's status history. Unlike UGYBot's check,
//! every request goes through the gate: robots.txt, Retry-After, blocks, the site's
//! budget, and the first request of a cycle to a site counts as a visit.
//!
//! **Link check** (CIXTRA-Bot's): every `checks.link_check_every`, the stored upcoming
//! events' pages and image addresses are asked again (purpose `link-check`: HEAD where
//! the profile allows it, else a conditional GET) to see that they still answer, with at
//! most `checks.link_checks_per_host_per_day` requests per host per local day
//! ([`DailyCap`]). A page that answers 404/410 marks its events gone at source; a gone
//! image is reported (rights-aware checks come with the image relay).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use gleaner_config::sources::Keep;
use gleaner_event::{Event, EventIdentity, EventStatus, EventTime, NormaliseContext};
use gleaner_fetch::{Fetched, GateOutcome, GateRequest, Method, Validators};
use gleaner_policy::Purpose;
use gleaner_policy::budget::PassMark;
use gleaner_policy::outcome::RefusalKind;
use tokio::task::JoinSet;
use url::Url;

use crate::pass::PassContext;
use crate::sink::{Found, Upsert};

/// The run name under which the cancellation check's last start is remembered (not a
/// valid source id, so it never collides with one).
pub const CANCELLATION_RUN: &str = "~cancellation-check";
/// The run name under which the link check's last start is remembered.
pub const LINK_CHECK_RUN: &str = "~link-check";

/// What one cycle of a check did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Events inside the check's window (cancellation) or stored upcoming (link).
    pub events: u32,
    /// Event pages asked.
    pub pages_checked: u32,
    /// Listing pages asked (once per cycle each).
    pub listings_checked: u32,
    /// Image addresses asked (link check).
    pub images_checked: u32,
    /// Answers 304, or an unchanged HEAD: nothing downloaded, last-checked moved.
    pub not_modified: u32,
    /// Pages that had changed and were re-extracted.
    pub changed: u32,
    /// Events whose stored facts changed on re-extraction.
    pub events_updated: u32,
    /// Events marked gone at source (their page answered 404 or 410).
    pub events_gone: u32,
    /// Pages that answered 404 or 410.
    pub pages_gone: u32,
    /// Images that answered 404 or 410.
    pub images_gone: u32,
    /// Requests the gate refused, by kind.
    pub refusals: BTreeMap<RefusalKind, u32>,
    /// Requests left for the next cycle (time limit, suspension, used-up pass).
    pub requeued: u32,
    /// Requests not made because the host's daily link-check cap was used.
    pub capped: u32,
    /// Requests that got no response, or an error status.
    pub failed: u32,
    /// Images the relay stopped relaying: their terms or signals no longer allow it
    /// (link check).
    pub relay_stopped: u32,
}

impl CheckReport {
    /// The one-line summary of a cycle, for the daemon's log.
    pub fn summary(&self) -> String {
        format!(
            "{} events, {} pages, {} listings, {} images, {} not modified, {} changed, {} gone at source, {} refused, {} re-queued, {} over the daily cap",
            self.events,
            self.pages_checked,
            self.listings_checked,
            self.images_checked,
            self.not_modified,
            self.changed,
            self.events_gone,
            self.refusals.values().sum::<u32>(),
            self.requeued,
            self.capped
        )
    }

    fn merge(&mut self, other: CheckReport) {
        self.pages_checked += other.pages_checked;
        self.listings_checked += other.listings_checked;
        self.images_checked += other.images_checked;
        self.not_modified += other.not_modified;
        self.changed += other.changed;
        self.events_updated += other.events_updated;
        self.events_gone += other.events_gone;
        self.pages_gone += other.pages_gone;
        self.images_gone += other.images_gone;
        for (k, v) in other.refusals {
            *self.refusals.entry(k).or_default() += v;
        }
        self.requeued += other.requeued;
        self.capped += other.capped;
        self.failed += other.failed;
    }
}

/// Whether an event falls in the cancellation check's window: it starts on or before
/// `today + horizon_days` and has not ended before today, "today" being `now`'s date in
/// the event's own zone (its offset when the time has one, else `zone`).
pub fn in_window(event: &Event, now: SystemTime, zone: Tz, horizon_days: u32) -> bool {
    let Some(start) = event.start.as_ref() else { return false };
    let now = DateTime::<Utc>::from(now);
    let today = match start {
        EventTime::Fixed(dt) => now.with_timezone(dt.offset()).date_naive(),
        EventTime::Floating(_) | EventTime::Date(_) => now.with_timezone(&zone).date_naive(),
    };
    let last = today + chrono::Days::new(u64::from(horizon_days));
    let end: NaiveDate = event.end.as_ref().map_or(start.date(), EventTime::date);
    start.date() <= last && end.max(start.date()) >= today
}

/// A cap on link-check requests per host per local day (CIXTRA-Bot: "with a daily cap
/// per host"). Kept in memory by the process that runs the checks, or, with
/// [`DailyCap::shared`], in a counter every process of the deployment shares (the
/// PostgreSQL store), so several workers together keep one cap per host.
#[derive(Debug)]
pub struct DailyCap {
    per_host: u32,
    used: Mutex<HashMap<(String, NaiveDate), u32>>,
    shared: Option<std::sync::Arc<dyn DayCounter>>,
}

/// A count per key and day that every process sharing it sees (the PostgreSQL store).
pub trait DayCounter: Send + Sync + std::fmt::Debug {
    /// Takes one from `key`'s allowance of `cap` for `day`, atomically; `Ok(false)` when
    /// it is used up.
    fn take<'a>(
        &'a self,
        key: &'a str,
        day: NaiveDate,
        cap: u32,
    ) -> gleaner_policy::state::BoxFuture<'a, Result<bool, String>>;

    /// Gives one back (a request that was not sent).
    fn give_back<'a>(
        &'a self,
        key: &'a str,
        day: NaiveDate,
    ) -> gleaner_policy::state::BoxFuture<'a, ()>;
}

impl DailyCap {
    /// A cap of `per_host` requests per host per day, counted in this process.
    pub fn new(per_host: u32) -> DailyCap {
        DailyCap { per_host, used: Mutex::default(), shared: None }
    }

    /// A cap of `per_host` requests per host per day, counted by `counter`.
    pub fn shared(per_host: u32, counter: std::sync::Arc<dyn DayCounter>) -> DailyCap {
        DailyCap { per_host, used: Mutex::default(), shared: Some(counter) }
    }

    /// Takes one request from `host`'s allowance for `day`; false when it is used up,
    /// and (failing closed) when the shared counter cannot be reached.
    pub async fn take(&self, host: &str, day: NaiveDate) -> bool {
        if let Some(counter) = &self.shared {
            return counter.take(&link_check_key(host), day, self.per_host).await.unwrap_or(false);
        }
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        used.retain(|(_, d), _| *d >= day.pred_opt().unwrap_or(day));
        let n = used.entry((host.to_owned(), day)).or_default();
        if *n >= self.per_host {
            return false;
        }
        *n += 1;
        true
    }

    /// Gives back a request that was not sent (refused or deferred by the gate).
    pub async fn give_back(&self, host: &str, day: NaiveDate) {
        if let Some(counter) = &self.shared {
            return counter.give_back(&link_check_key(host), day).await;
        }
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = used.get_mut(&(host.to_owned(), day)) {
            *n = n.saturating_sub(1);
        }
    }
}

/// The shared counter's key for a host's link checks.
fn link_check_key(host: &str) -> String {
    format!("link-check {host}")
}

/// What a checked URL stands for.
#[derive(Debug, Clone)]
enum Target {
    /// An event page, with the events read from it.
    Page(Vec<Found>),
    /// A listing page of a source.
    Listing(String),
    /// An image address of stored events.
    Image,
}

/// One URL to check.
#[derive(Debug, Clone)]
struct Item {
    url: Url,
    target: Target,
}

fn zone_of(ctx: &PassContext, found: &Found) -> Tz {
    ctx.settings
        .sources
        .iter()
        .find(|s| s.id == found.source)
        .and_then(|s| s.time_zone)
        .unwrap_or_else(|| {
            ctx.settings
                .time_zone_of(&found.page.host_str().unwrap_or_default().to_ascii_lowercase())
        })
}

/// Groups items by site, listings first, keeping their order within a site.
fn by_site(items: Vec<Item>) -> BTreeMap<String, Vec<Item>> {
    let mut sites: BTreeMap<String, Vec<Item>> = BTreeMap::new();
    for item in items {
        sites.entry(gleaner_fetch::site_key(&item.url)).or_default().push(item);
    }
    for list in sites.values_mut() {
        list.sort_by_key(|i| !matches!(i.target, Target::Listing(_)));
    }
    sites
}

/// Runs one cycle of the cancellation check; requests the gate would start after
/// `deadline` are left for the next cycle.
pub async fn run_cancellation_check(ctx: &PassContext, deadline: SystemTime) -> CheckReport {
    let mut report = CheckReport::default();
    if !ctx.settings.purposes.enabled.contains(&Purpose::CancellationCheck) {
        return report;
    }
    let now = ctx.clock.now();
    let horizon = ctx.settings.checks.horizon_days;
    let day = Duration::from_secs(86_400);
    let stored = ctx
        .sink
        .stored_events(now - 2 * day, now + day * (horizon + 2))
        .await
        .into_iter()
        .filter(|f| f.event.status != EventStatus::GoneAtSource)
        .filter(|f| in_window(&f.event, now, zone_of(ctx, f), horizon))
        .collect::<Vec<_>>();
    report.events = stored.len() as u32;
    let mut pages: BTreeMap<Url, Vec<Found>> = BTreeMap::new();
    let mut sources: BTreeSet<String> = BTreeSet::new();
    for found in stored {
        sources.insert(found.source.clone());
        pages.entry(found.page.clone()).or_default().push(found);
    }
    let mut items = Vec::new();
    let mut listed = HashSet::new();
    for source in ctx.settings.sources.iter().filter(|s| sources.contains(&s.id)) {
        for url in &source.start_urls {
            if listed.insert(url.clone()) {
                items.push(Item { url: url.clone(), target: Target::Listing(source.id.clone()) });
            }
        }
    }
    for (url, found) in pages {
        if !listed.contains(&url) {
            items.push(Item { url, target: Target::Page(found) });
        }
    }
    run_by_site(ctx, items, Purpose::CancellationCheck, deadline, None, &mut report).await;
    report
}

/// Runs one cycle of the link check, within `cap` per host per day; requests the gate
/// would start after `deadline` are left for the next cycle.
pub async fn run_link_check(
    ctx: &PassContext,
    cap: &std::sync::Arc<DailyCap>,
    deadline: SystemTime,
) -> CheckReport {
    let mut report = CheckReport::default();
    if !ctx.settings.purposes.enabled.contains(&Purpose::LinkCheck) {
        return report;
    }
    let now = ctx.clock.now();
    let day = Duration::from_secs(86_400);
    let stored: Vec<Found> = ctx
        .sink
        .stored_events(now - day, now + 400 * day)
        .await
        .into_iter()
        .filter(|f| f.event.status != EventStatus::GoneAtSource)
        .collect();
    report.events = stored.len() as u32;
    let mut pages: BTreeMap<Url, Vec<Found>> = BTreeMap::new();
    let mut images: BTreeSet<Url> = BTreeSet::new();
    let mut image_sources: BTreeMap<Url, String> = BTreeMap::new();
    for found in stored {
        if let Some(image) = &found.event.image_url {
            images.insert(image.clone());
            image_sources.insert(image.clone(), found.source.clone());
        }
        pages.entry(found.page.clone()).or_default().push(found);
    }
    let mut items: Vec<Item> =
        pages.into_iter().map(|(url, found)| Item { url, target: Target::Page(found) }).collect();
    items.extend(images.into_iter().map(|url| Item { url, target: Target::Image }));
    // Rights-aware: the image terms and the sites' rights files again, before the
    // requests (the answers' own headers are read below).
    report.relay_stopped += crate::rights::recheck_relay(ctx, &image_sources, deadline).await;
    run_by_site(ctx, items, Purpose::LinkCheck, deadline, Some(cap), &mut report).await;
    report
}

/// Checks each site's items in order, sites side by side (the gate keeps each site's
/// spacing and in-flight cap).
async fn run_by_site(
    ctx: &PassContext,
    items: Vec<Item>,
    purpose: Purpose,
    deadline: SystemTime,
    cap: Option<&std::sync::Arc<DailyCap>>,
    report: &mut CheckReport,
) {
    let mut tasks = JoinSet::new();
    for (_, list) in by_site(items) {
        let ctx = ctx.clone();
        let cap = cap.cloned();
        tasks.spawn(async move { check_site(&ctx, list, purpose, deadline, cap.as_deref()).await });
    }
    while let Some(done) = tasks.join_next().await {
        if let Ok(site_report) = done {
            report.merge(site_report);
        }
    }
}

async fn check_site(
    ctx: &PassContext,
    items: Vec<Item>,
    purpose: Purpose,
    deadline: SystemTime,
    cap: Option<&DailyCap>,
) -> CheckReport {
    let mut report = CheckReport::default();
    let mut first = true;
    let total = items.len();
    for (i, item) in items.into_iter().enumerate() {
        if ctx.stop.load(std::sync::atomic::Ordering::Relaxed) {
            report.requeued += (total - i) as u32;
            break;
        }
        let host = item.url.host_str().unwrap_or_default().to_ascii_lowercase();
        let day = DateTime::<Utc>::from(ctx.clock.now())
            .with_timezone(&ctx.settings.time_zone_of(&host))
            .date_naive();
        if let Some(cap) = cap
            && !cap.take(&host, day).await
        {
            report.capped += (total - i) as u32;
            break;
        }
        match &item.target {
            Target::Page(_) => report.pages_checked += 1,
            Target::Listing(_) => report.listings_checked += 1,
            Target::Image => report.images_checked += 1,
        }
        let head = match purpose {
            Purpose::CancellationCheck => {
                ctx.settings.checks.cancellation_head && ctx.settings.purposes.head_allowed
            }
            _ => ctx.settings.purposes.head_allowed,
        };
        let mut request = GateRequest::new(item.url.clone(), purpose);
        request.pass = if first { PassMark::Start } else { PassMark::Continue };
        request.wait_until_at_most = Some(deadline);
        request.validators = ctx.sink.validators(&item.url).await;
        request.source = match &item.target {
            Target::Listing(source) => Some(source.clone()),
            Target::Page(found) => found.first().map(|f| f.source.clone()),
            Target::Image => None,
        };
        if head {
            request.method = Method::Head;
        }
        let (outcome, _) = ctx.gate.fetch_following(&request).await;
        let fetched = match outcome {
            GateOutcome::Fetched(fetched) => fetched,
            GateOutcome::Deferred { .. } => {
                if let Some(cap) = cap {
                    cap.give_back(&host, day).await;
                }
                report.requeued += (total - i) as u32;
                break;
            }
            GateOutcome::Refused(refusal) => {
                if let Some(cap) = cap {
                    cap.give_back(&host, day).await;
                }
                *report.refusals.entry(refusal.kind()).or_default() += 1;
                continue;
            }
            GateOutcome::Failed(_) => {
                first = false;
                report.failed += 1;
                continue;
            }
        };
        first = false;
        let fetched = if head && is_changed_head(&fetched, &request.validators) {
            // The page changed: read it, conditionally, to re-extract its events.
            let mut get = request.clone();
            get.method = Method::Get;
            get.pass = PassMark::Continue;
            match ctx.gate.fetch_following(&get).await.0 {
                GateOutcome::Fetched(fetched) => fetched,
                GateOutcome::Deferred { .. } => {
                    report.requeued += 1;
                    continue;
                }
                GateOutcome::Refused(refusal) => {
                    *report.refusals.entry(refusal.kind()).or_default() += 1;
                    continue;
                }
                GateOutcome::Failed(_) => {
                    report.failed += 1;
                    continue;
                }
            }
        } else {
            fetched
        };
        handle_answer(ctx, &item, &request.validators, fetched, &mut report).await;
    }
    report
}

/// A HEAD answer says the page changed unless it is a 304, a 404/410, an error, or its
/// validators equal the stored ones.
fn is_changed_head(fetched: &Fetched, stored: &Validators) -> bool {
    if !(200..300).contains(&fetched.status) {
        return false;
    }
    let same_etag = stored.etag.is_some() && fetched.validators.etag == stored.etag;
    let same_date =
        stored.last_modified.is_some() && fetched.validators.last_modified == stored.last_modified;
    !(same_etag || same_date)
}

async fn handle_answer(
    ctx: &PassContext,
    item: &Item,
    stored: &Validators,
    fetched: Fetched,
    report: &mut CheckReport,
) {
    let now = ctx.clock.now();
    let unchanged_head = fetched.body.is_empty()
        && (200..300).contains(&fetched.status)
        && !is_changed_head(&fetched, stored);
    match fetched.status {
        304 => {
            report.not_modified += 1;
            ctx.sink.set_validators(&item.url, fetched.validators.clone()).await;
            if !matches!(item.target, Target::Image) {
                ctx.sink.checked_unchanged(&item.url, now).await;
            }
        }
        404 | 410 => match &item.target {
            Target::Page(found) => {
                report.pages_gone += 1;
                for f in found {
                    ctx.sink.mark_gone(f.clone(), now).await;
                    report.events_gone += 1;
                }
            }
            Target::Listing(_) => report.pages_gone += 1,
            Target::Image => {
                report.images_gone += 1;
                let why = format!("the image answered {} to the link check", fetched.status);
                report.relay_stopped += crate::rights::stop_relay(ctx, &item.url, &why).await;
            }
        },
        200..=299 if unchanged_head => {
            report.not_modified += 1;
            if !matches!(item.target, Target::Image) {
                ctx.sink.checked_unchanged(&item.url, now).await;
            }
        }
        200..=299 => {
            if matches!(item.target, Target::Image) {
                if let Some(why) =
                    crate::rights::image_answer_forbids_relay(&ctx.settings, &fetched)
                {
                    report.relay_stopped += crate::rights::stop_relay(ctx, &item.url, &why).await;
                }
                return;
            }
            ctx.sink.set_validators(&item.url, fetched.validators.clone()).await;
            report.changed += 1;
            let source = match &item.target {
                Target::Listing(source) => source.clone(),
                Target::Page(found) => found.first().map(|f| f.source.clone()).unwrap_or_default(),
                Target::Image => String::new(),
            };
            report.events_updated += re_extract(ctx, &source, &item.url, &fetched, now).await;
        }
        _ => report.failed += 1,
    }
}

/// Extracts the events of a changed page and stores them under `source`; returns how
/// many were new or changed.
async fn re_extract(
    ctx: &PassContext,
    source: &str,
    page: &Url,
    fetched: &Fetched,
    now: SystemTime,
) -> u32 {
    let config = ctx.settings.sources.iter().find(|s| s.id == source);
    let host = fetched.url.host_str().unwrap_or_default().to_ascii_lowercase();
    let zone = config.and_then(|s| s.time_zone).or_else(|| Some(ctx.settings.time_zone_of(&host)));
    let content_type = fetched.content_type().unwrap_or("text/html").to_owned();
    let extracted = gleaner_extract::extract_events(
        &fetched.body,
        &content_type,
        &NormaliseContext { base_url: &fetched.url, default_tz: zone },
    );
    let is_listing = config.is_some_and(|s| s.start_urls.contains(page));
    let mut changed = 0;
    let formats = extracted.formats.iter().map(|f| crate::sink::extractor_of(*f));
    for (mut event, extractor) in extracted.events.into_iter().zip(formats) {
        crate::scrub::scrub_event(&mut event, &ctx.settings.network.secret_query_params);
        if config.is_none_or(|s| s.keep == Keep::Facts) {
            event.description = None;
            event.image_url = None;
        }
        if event.url.is_none() && !is_listing {
            event.url = Some(fetched.url.clone());
        }
        let identity = EventIdentity::of(&event);
        let found = Found {
            event,
            identity,
            source: source.to_owned(),
            page: if is_listing { fetched.url.clone() } else { page.clone() },
            checked_at: now,
            extractor,
        };
        if ctx.sink.upsert(found).await != Upsert::Unchanged {
            changed += 1;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{FixedOffset, TimeZone};

    fn event(start: EventTime, end: Option<EventTime>) -> Event {
        Event {
            title: Some("Test".into()),
            start: Some(start),
            end,
            previous_start: None,
            venue: gleaner_event::Venue::default(),
            price: gleaner_event::Price::default(),
            ticket_url: None,
            image_url: None,
            description: None,
            status: EventStatus::Scheduled,
            status_stated: false,
            attendance: None,
            category: gleaner_event::Category::Concert,
            url: None,
        }
    }

    fn fixed(offset_h: i32, y: i32, m: u32, d: u32, h: u32) -> EventTime {
        let tz = FixedOffset::east_opt(offset_h * 3600).unwrap();
        EventTime::Fixed(tz.with_ymd_and_hms(y, m, d, h, 0, 0).unwrap())
    }

    fn date(y: i32, m: u32, d: u32) -> EventTime {
        EventTime::Date(NaiveDate::from_ymd_opt(y, m, d).unwrap())
    }

    /// 2026-12-01 23:30 UTC: already 2 December in Paris, still 1 December in Montreal.
    fn now() -> SystemTime {
        SystemTime::from(Utc.with_ymd_and_hms(2026, 12, 1, 23, 30, 0).unwrap())
    }

    #[test]
    fn spec_cancellation_window_is_today_to_plus_seven_days_in_each_events_zone() {
        let paris = chrono_tz::Europe::Paris;
        let cases: &[(&str, Event, bool)] = &[
            ("spec_today_paris", event(fixed(1, 2026, 12, 2, 20), None), true),
            ("spec_yesterday_paris", event(fixed(1, 2026, 12, 1, 20), None), false),
            ("spec_today_montreal", event(fixed(-5, 2026, 12, 1, 20), None), true),
            ("spec_plus_seven_paris", event(fixed(1, 2026, 12, 9, 20), None), true),
            ("spec_plus_eight_paris", event(fixed(1, 2026, 12, 10, 20), None), false),
            ("spec_date_in_zone", event(date(2026, 12, 2), None), true),
            ("spec_date_before_today", event(date(2026, 12, 1), None), false),
            ("spec_running_festival", event(date(2026, 11, 20), Some(date(2026, 12, 5))), true),
        ];
        for (name, e, want) in cases {
            assert_eq!(in_window(e, now(), paris, 7), *want, "{name}");
        }
    }

    #[tokio::test]
    async fn seed_cixtra_daily_cap_per_host() {
        let cap = DailyCap::new(2);
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
        assert!(cap.take("a.example", day).await);
        assert!(cap.take("a.example", day).await);
        assert!(!cap.take("a.example", day).await, "the third of the day is refused");
        assert!(cap.take("b.example", day).await, "another host has its own cap");
        cap.give_back("a.example", day).await;
        assert!(cap.take("a.example", day).await, "a request not sent is given back");
        assert!(cap.take("a.example", day.succ_opt().unwrap()).await, "a new day, a new cap");
    }
}
