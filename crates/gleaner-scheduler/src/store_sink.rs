//! The store as a pass's [`EventSink`]: [`StoreSink`] with its links codec, what it
//! wrote ([`Written`]), the store-backed rights files and relay verdicts it records, and
//! the store's shared daily counts as the link check's [`DayCounter`]. The trait lives
//! beside it in [`crate::sink`], with [`crate::MemorySink`] for tests and dry runs.
// A failed write is reported and the pass goes on: stderr is the crawler's log.
#![allow(clippy::print_stderr)]

use std::sync::Arc;
use std::time::SystemTime;

use gleaner_config::Settings;
use gleaner_config::sources::Keep;
use gleaner_fetch::{Gate, Validators};
use gleaner_policy::Purpose;
use gleaner_policy::state::{BoxFuture, Change, GateState, SiteState, StateError};
use gleaner_store::{BackendKind, EventWrite, Store, Upserted};
use url::Url;

use crate::checks::{DailyCap, DayCounter};
use crate::links::ListingLinks;
use crate::rights::{RightsFiles, SiteRights, may_relay};
use crate::{EventSink, Found, Upsert};

/// What a pass's upsert says of a stored event.
pub fn upsert_of(upserted: &Upserted) -> Upsert {
    match upserted {
        Upserted::Inserted(_) => Upsert::New,
        Upserted::Updated { .. } => Upsert::Updated,
        Upserted::Unchanged(_) => Upsert::Unchanged,
    }
}

/// The link check's daily cap per host: shared by every process through the store on
/// PostgreSQL, counted in this process on SQLite (one crawling process per file).
pub fn link_check_cap(settings: &Settings, store: &Store) -> Arc<DailyCap> {
    let per_host = settings.checks.link_checks_per_host_per_day;
    match store.kind() {
        BackendKind::Postgres => {
            Arc::new(DailyCap::shared(per_host, Arc::new(StoreDayCounter(store.clone()))))
        }
        BackendKind::Sqlite => Arc::new(DailyCap::new(per_host)),
    }
}

/// The store's shared daily counts as the link check's [`DayCounter`].
#[derive(Debug)]
struct StoreDayCounter(Store);

impl DayCounter for StoreDayCounter {
    fn take<'a>(
        &'a self,
        key: &'a str,
        day: chrono::NaiveDate,
        cap: u32,
    ) -> BoxFuture<'a, std::result::Result<bool, String>> {
        Box::pin(async move {
            match self.0.take_daily(key, day, cap).await {
                Ok(taken) => Ok(taken.unwrap_or(false)),
                Err(error) => {
                    eprintln!(
                        "warning: the shared daily cap could not be read, so no link check is made: {error}"
                    );
                    Err(error.to_string())
                }
            }
        })
    }

    fn give_back<'a>(&'a self, key: &'a str, day: chrono::NaiveDate) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(error) = self.0.give_back_daily(key, day).await {
                eprintln!("warning: a link check not made could not be given back: {error}");
            }
        })
    }
}

/// What a process's passes wrote through the [`StoreSink`]: the ids of events stored or
/// updated, and how many events were handed to the store in all.
#[derive(Debug, Default)]
pub struct Written {
    ids: std::sync::Mutex<std::collections::BTreeSet<i64>>,
    events: std::sync::atomic::AtomicU64,
}

impl Written {
    fn record(&self, stored: &Upserted) {
        self.events.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let id = match stored {
            Upserted::Inserted(id) | Upserted::Updated { id, .. } => *id,
            Upserted::Unchanged(_) => return,
        };
        self.ids.lock().unwrap_or_else(|p| p.into_inner()).insert(id);
    }

    /// Ids of the events stored for the first time or updated, in id order.
    pub fn ids(&self) -> Vec<i64> {
        self.ids.lock().unwrap_or_else(|p| p.into_inner()).iter().copied().collect()
    }

    /// Events handed to the store so far: new, updated and unchanged.
    pub fn events(&self) -> u64 {
        self.events.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The store as the pipeline's [`EventSink`].
pub struct StoreSink {
    store: Store,
    settings: Arc<Settings>,
    /// The language-model step, when `[llm]` is configured (issue 18).
    llm: Option<Arc<gleaner_llm::Llm>>,
    /// Where the writes are counted, when someone asks.
    written: Option<Arc<Written>>,
}

impl StoreSink {
    /// The store as a pass's sink, keeping what each source's `keep` allows.
    pub fn new(store: Store, settings: Arc<Settings>) -> StoreSink {
        StoreSink::with_model(store, settings, None)
    }

    /// [`StoreSink::new`] with the language-model step for sources that use it.
    pub fn with_model(
        store: Store,
        settings: Arc<Settings>,
        llm: Option<Arc<gleaner_llm::Llm>>,
    ) -> StoreSink {
        StoreSink { store, settings, llm, written: None }
    }

    /// The same sink, recording what it writes in `written`.
    pub fn recording(mut self, written: Arc<Written>) -> StoreSink {
        self.written = Some(written);
        self
    }

    /// What the store keeps of `source`'s events (its `keep`).
    fn keep_of(&self, source: &str) -> gleaner_store::Keep {
        match self.settings.sources.iter().find(|s| s.id == source).map(|s| s.keep) {
            Some(Keep::Full) => gleaner_store::Keep::Full,
            _ => gleaner_store::Keep::Facts,
        }
    }

    /// The store's write of a found event, under its source's `keep`: the one both this
    /// sink and the worker's fenced sink hand to the store.
    pub(crate) fn write_of<'a>(&self, found: &'a Found) -> EventWrite<'a> {
        EventWrite {
            event: &found.event,
            source: Some(&found.source),
            fetched_url: &found.page,
            fetched_at: found.checked_at,
            keep: self.keep_of(&found.source),
            extractor: found.extractor,
        }
    }
}

impl EventSink for StoreSink {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        Box::pin(async move {
            let stored = self.store.upsert_event(&self.write_of(&found)).await;
            if let (Some(written), Ok(stored)) = (&self.written, &stored) {
                written.record(stored);
            }
            register_image(&self.store, &self.settings, &found).await;
            match stored {
                Ok(upserted) => upsert_of(&upserted),
                Err(error) => {
                    eprintln!("warning: failed to store an event from `{}`: {error}", found.page);
                    Upsert::Unchanged
                }
            }
        })
    }

    /// Stored events for the checks (SPEC §4): each with its own page (its URL, else the
    /// page it was last read from); events with neither are not checked.
    fn stored_events<'a>(&'a self, from: SystemTime, to: SystemTime) -> BoxFuture<'a, Vec<Found>> {
        Box::pin(async move {
            let stored = match self.store.events_between(from, to).await {
                Ok(stored) => stored,
                Err(error) => {
                    eprintln!("warning: failed to read the stored events to check: {error}");
                    return Vec::new();
                }
            };
            let mut out = Vec::new();
            for e in stored {
                let page = match e.event.url.clone() {
                    Some(url) => url,
                    None => match self.store.event(e.id).await {
                        Ok(Some(full)) => match full
                            .provenance
                            .iter()
                            .max_by_key(|p| p.fetched_at)
                            .and_then(|p| Url::parse(&p.fetch_url).ok())
                        {
                            Some(url) => url,
                            None => continue,
                        },
                        _ => continue,
                    },
                };
                out.push(Found {
                    identity: e.identity,
                    source: e.source.clone().unwrap_or_default(),
                    page,
                    checked_at: e.last_checked,
                    event: e.event,
                    extractor: None,
                });
            }
            out
        })
    }

    fn language_model(&self) -> Option<Arc<gleaner_llm::Llm>> {
        self.llm.clone()
    }

    fn site_rights<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Option<RightsFiles>> {
        Box::pin(site_rights(&self.store, site))
    }

    fn set_relay_allowed<'a>(
        &'a self,
        image: &'a Url,
        source: Option<&'a str>,
        allowed: bool,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        Box::pin(set_relay_allowed(&self.store, image, source, allowed, reason))
    }

    fn put_site_rights<'a>(&'a self, site: &'a str, files: RightsFiles) -> BoxFuture<'a, ()> {
        Box::pin(put_site_rights(&self.store, site, files))
    }

    fn checked_unchanged<'a>(&'a self, page: &'a Url, at: SystemTime) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(error) = self.store.touch_page(page, at).await {
                eprintln!("warning: failed to record the check of `{page}`: {error}");
            }
        })
    }

    fn validators<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Validators> {
        Box::pin(async move {
            match self.store.validators(url).await {
                Ok(Some((etag, last_modified))) => Validators { etag, last_modified },
                _ => Validators::default(),
            }
        })
    }

    /// Queued for the store's batch writer (issue 27: no round trip of the page's own).
    /// The pass hands them over after the page's events are committed; a crash before
    /// the batch is written only makes the next request for `url` unconditional.
    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()> {
        let Validators { etag, last_modified } = validators;
        self.store.queue_validators(url, etag, last_modified, SystemTime::now());
        Box::pin(std::future::ready(()))
    }

    fn archive_terms<'a>(
        &'a self,
        page: &'a Url,
        body: Vec<u8>,
        at: SystemTime,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let site = gleaner_fetch::site_key(page);
            match self
                .store
                .archive_document(
                    &site,
                    gleaner_store::DocumentKind::Terms,
                    page.as_str(),
                    body,
                    at,
                )
                .await
            {
                Ok(stored) => stored,
                Err(error) => {
                    eprintln!("warning: failed to archive `{page}`: {error}");
                    false
                }
            }
        })
    }

    fn upsert_news<'a>(&'a self, news: crate::News, keep_summary: bool) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let url = news.url.clone();
            let item = gleaner_store::NewsItem {
                url: news.url,
                source: Some(news.source),
                title: news.title,
                published: news.published,
                summary: news.summary,
            };
            let keep =
                if keep_summary { gleaner_store::Keep::Full } else { gleaner_store::Keep::Facts };
            match self.store.upsert_news(item, keep, SystemTime::now()).await {
                Ok(_) => true,
                Err(error) => {
                    eprintln!("warning: failed to store news item `{url}`: {error}");
                    false
                }
            }
        })
    }

    fn listing_links<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Option<ListingLinks>> {
        Box::pin(async move {
            self.store.listing_links(url).await.ok().flatten().map(|text| decode_links(&text))
        })
    }

    fn set_listing_links<'a>(&'a self, url: &'a Url, links: ListingLinks) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(error) =
                self.store.put_listing_links(url, encode_links(&links), SystemTime::now()).await
            {
                eprintln!("warning: failed to store the links of `{url}`: {error}");
            }
        })
    }

    fn keep_for_next_pass<'a>(
        &'a self,
        source: &'a str,
        url: &'a Url,
        purpose: gleaner_policy::Purpose,
    ) -> BoxFuture<'a, ()> {
        Box::pin(crate::kept::keep(&self.store, source, url, purpose))
    }

    fn kept_for_next_pass<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Vec<(Url, gleaner_policy::Purpose)>> {
        Box::pin(crate::kept::kept(&self.store, source))
    }

    fn asked_again<'a>(&'a self, source: &'a str, url: &'a Url) -> BoxFuture<'a, ()> {
        Box::pin(crate::kept::asked_again(&self.store, source, url))
    }
}

/// A listing's links as text for the store: the next page (or `-`) on the first line,
/// then one event URL per line.
fn encode_links(links: &ListingLinks) -> String {
    let mut text = links.next_page.as_ref().map_or_else(|| "-".to_owned(), Url::to_string);
    for event in &links.events {
        text.push('\n');
        text.push_str(event.as_str());
    }
    text
}

/// The inverse of [`encode_links`]; unreadable lines are skipped.
fn decode_links(text: &str) -> ListingLinks {
    let mut lines = text.lines();
    let next_page = lines.next().and_then(|l| Url::parse(l).ok());
    ListingLinks { events: lines.filter_map(|l| Url::parse(l).ok()).collect(), next_page }
}

/// The stored rights files of `site`.
pub async fn site_rights(store: &Store, site: &str) -> Option<RightsFiles> {
    match store.site_rights(site).await {
        Ok(files) => files.map(|f| RightsFiles {
            read_at: f.read_at,
            valid_until: f.valid_until,
            tdmrep: f.tdmrep,
            ai_txt: f.ai_txt,
        }),
        Err(error) => {
            eprintln!("warning: failed to read the rights files of `{site}`: {error}");
            None
        }
    }
}

/// Stores the rights files of `site` as just read.
pub async fn put_site_rights(store: &Store, site: &str, files: RightsFiles) {
    let files = gleaner_store::SiteRightsFiles {
        read_at: files.read_at,
        valid_until: files.valid_until,
        tdmrep: files.tdmrep,
        ai_txt: files.ai_txt,
    };
    if let Err(error) = store.put_site_rights(site, &files).await {
        eprintln!("warning: failed to store the rights files of `{site}`: {error}");
    }
}

/// Decides whether `image` may be relayed for `source` now (terms and signals).
pub async fn relay_verdict(
    store: &Store,
    settings: &Settings,
    source: Option<&str>,
    image: &Url,
) -> (bool, String) {
    let source = source.and_then(|id| settings.sources.iter().find(|s| s.id == id));
    let site = gleaner_fetch::site_key(image);
    let rights = site_rights(store, &site).await.map(|f| SiteRights::parse(&f));
    may_relay(settings, source, rights.as_ref(), image)
}

/// After an event is stored: registers its image for the relay with the current verdict
/// (only when the relay is enabled; the link check re-decides later).
pub async fn register_image(store: &Store, settings: &Settings, found: &Found) {
    if !settings.purposes.enabled.contains(&Purpose::ImageRelay) {
        return;
    }
    let Some(image) = &found.event.image_url else { return };
    let (allowed, reason) = relay_verdict(store, settings, Some(&found.source), image).await;
    if let Err(error) = store
        .register_relay_image(image, Some(&found.source), allowed, &reason, SystemTime::now())
        .await
    {
        eprintln!("warning: failed to register the image `{image}` for the relay: {error}");
    }
}

/// Records the link check's verdict on an image (registering it when its source is
/// known, so an image first seen before the relay was enabled gets an id too).
pub async fn set_relay_allowed(
    store: &Store,
    image: &Url,
    source: Option<&str>,
    allowed: bool,
    reason: String,
) {
    let now = SystemTime::now();
    let result = match source {
        Some(source) => {
            store.register_relay_image(image, Some(source), allowed, &reason, now).await.map(|_| ())
        }
        None => store.set_relay_allowed(image.as_str(), allowed, &reason, now).await,
    };
    if let Err(error) = result {
        eprintln!("warning: failed to record the relay verdict on `{image}`: {error}");
    }
}

/// The AI-use preference rules the robots.txt of `site` states for us, from the gate
/// state the store keeps (empty when never read or without rules).
pub async fn robots_prefs(
    store: &Store,
    settings: &Settings,
    site: &str,
) -> Vec<gleaner_policy::signals::prefs::PrefRule> {
    let memory = match store.site_state(site).await {
        Ok(state) => state.and_then(|s| s.robots),
        Err(error) => {
            eprintln!("warning: failed to read the robots.txt memory of `{site}`: {error}");
            None
        }
    };
    crate::rights::robots_prefs(settings, memory.as_ref())
}

/// The sites' stored rights files as the language-model step's site-level reservations
/// (a TDMRep file or ai.txt reserving AI use on the page's site).
pub struct StoreRights {
    store: Store,
    settings: Arc<Settings>,
}

impl StoreRights {
    /// The reservations read from `store` under `settings`' rights rules.
    pub fn new(store: Store, settings: Arc<Settings>) -> StoreRights {
        StoreRights { store, settings }
    }
}

impl gleaner_llm::store_llm::SiteReservations for StoreRights {
    fn site_reservation<'a>(&'a self, page: &'a Url) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            // With the robots.txt AI-use preferences (`ai-input=no`), most restrictively.
            let site = gleaner_fetch::site_key(page);
            let prefs = robots_prefs(&self.store, &self.settings, &site).await;
            let files = site_rights(&self.store, &site).await;
            let rights = files.map(|f| SiteRights::parse(&f)).unwrap_or_default().with_prefs(prefs);
            let decision = crate::rights::decide(
                &self.settings,
                Some(&rights),
                page,
                gleaner_policy::signals::reservation::RightsUse::LanguageModel,
                &[],
                &[],
            );
            (!decision.is_allowed()).then(|| decision.to_string())
        })
    }
}

/// Wakes the waiting requests of `gates` whenever another process changes the owners'
/// registry (PostgreSQL `LISTEN`), so an opt-out stops a request waiting out a long gap
/// at once. Nothing to do on SQLite. The task ends when the store's listener does.
pub fn wake_on_registry_changes(store: &Store, gates: Vec<Arc<Gate>>) {
    let Some(mut changes) = store.registry_changes() else { return };
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            for gate in &gates {
                gate.wake_all();
            }
        }
    });
}

/// The store's gate state, read-only (`gleaner explain`): a change is applied to a copy
/// and dropped, so explaining takes no lease and changes nothing.
#[derive(Debug)]
pub struct ReadOnlyState(pub Store);

impl GateState for ReadOnlyState {
    fn update<'a>(
        &'a self,
        site: &'a str,
        change: Change<'a>,
    ) -> BoxFuture<'a, Result<(), StateError>> {
        Box::pin(async move {
            let mut state = self.0.site_state(site).await.ok().flatten().unwrap_or_default();
            let mut global = gleaner_policy::budget::GlobalBudget::default();
            change(&mut state, &mut global);
            Ok(())
        })
    }

    fn site<'a>(&'a self, site: &'a str) -> BoxFuture<'a, Result<Option<SiteState>, StateError>> {
        Box::pin(async move {
            self.0.site_state(site).await.map_err(|error| {
                StateError(format!("failed to read the state of `{site}`: {error}"))
            })
        })
    }
}

/// What `gleaner explain` says about a request's rights signals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RightsExplained {
    /// A rights signal stops the request (the verdict is "no" whatever the gate says).
    pub stops: bool,
    /// One line per finding, for the operator.
    pub lines: Vec<String>,
}

/// `gleaner explain`'s rights lines for a request of `purpose` to `url`: whether the
/// site's rights files were read, the reservation that decides (if any), and for an
/// image its relay verdict.
pub async fn explain_rights(
    store: &Store,
    settings: &Settings,
    url: &Url,
    purpose: Purpose,
) -> RightsExplained {
    use gleaner_policy::signals::RightsUse;
    use gleaner_policy::signals::reservation::{RightsDecision, survives_site_stop};
    let mut lines = Vec::new();
    if !settings.rights.honour_signals {
        lines.push("rights: signals are not honoured ([rights] honour_signals = false)".to_owned());
        return RightsExplained { stops: false, lines };
    }
    let site = gleaner_fetch::site_key(url);
    let files = site_rights(store, &site).await;
    match &files {
        Some(f) => lines.push(format!(
            "rights: tdmrep.json {}, ai.txt {}; read {}, trusted until {}",
            if f.tdmrep.is_some() { "present" } else { "absent" },
            if f.ai_txt.is_some() { "present" } else { "absent" },
            chrono::DateTime::<chrono::Utc>::from(f.read_at).to_rfc3339(),
            chrono::DateTime::<chrono::Utc>::from(f.valid_until).to_rfc3339()
        )),
        None if settings.rights.read_files => lines.push(
            "rights: tdmrep.json and ai.txt not read yet (read after robots.txt, before the site's first page)"
                .to_owned(),
        ),
        None => lines.push("rights: site files not read ([rights] read_files = false)".to_owned()),
    }
    let prefs = robots_prefs(store, settings, &site).await;
    lines.extend(crate::rights::explain_prefs(&prefs, url));
    let rights = Some(files.map(|f| SiteRights::parse(&f)).unwrap_or_default().with_prefs(prefs));
    let use_ = match purpose {
        Purpose::ImageRelay => RightsUse::RelayImage,
        _ => RightsUse::KeepFacts,
    };
    let decision = crate::rights::decide(settings, rights.as_ref(), url, use_, &[], &[]);
    let stops = match &decision {
        RightsDecision::SiteStopped(_) => !survives_site_stop(purpose),
        // Under per-purpose, a preference reserving the facts (`search=no`) keeps the
        // page's events unpublished; it does not stop the request.
        RightsDecision::Reserved(_) => use_ != RightsUse::KeepFacts,
        RightsDecision::Allowed => false,
    };
    lines.push(format!("rights: {decision}"));
    if purpose == Purpose::ImageRelay {
        match store.relay_image_by_url(url.as_str()).await {
            Ok(Some(image)) => lines.push(format!(
                "relay: id {}; {}: {}{}",
                image.id,
                if image.deliverable() { "relayed" } else { "not relayed" },
                image.reason,
                image.taken_down.map(|r| format!(" (taken down: {r})")).unwrap_or_default()
            )),
            _ => lines.push("relay: not registered (no stored event shows this image)".to_owned()),
        }
    }
    RightsExplained { stops, lines }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_links_round_trip_through_the_stored_text() {
        let url = |s: &str| Url::parse(s).unwrap();
        let links = ListingLinks {
            events: vec![url("https://a.example/e/1"), url("https://a.example/e/2")],
            next_page: Some(url("https://a.example/?page=2")),
        };
        let back = decode_links(&encode_links(&links));
        assert_eq!(back.events, links.events);
        assert_eq!(back.next_page, links.next_page);
        let last = ListingLinks { events: vec![url("https://a.example/e/3")], next_page: None };
        assert_eq!(encode_links(&last), "-\nhttps://a.example/e/3");
        let back = decode_links("-\nnot a url\nhttps://a.example/e/3");
        assert_eq!((back.events, back.next_page), (last.events, None), "bad lines skipped");
    }
}
