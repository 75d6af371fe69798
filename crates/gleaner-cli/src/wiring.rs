//! Wiring: the store, the gate and the pipeline put together from the settings. This is
//! glue; every decision lives in the library crates.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_config::sources::Keep;
use gleaner_event::PublicEvent;
use gleaner_fetch::{Client, ClientSettings, Gate, Validators};
use gleaner_policy::outcome::Outcome;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::BoxFuture;
use gleaner_scheduler::checks::{DailyCap, DayCounter};
use gleaner_scheduler::links::ListingLinks;
use gleaner_scheduler::{EventSink, Found, PassContext, Upsert};
use gleaner_server::{ApiEvent, CrawlMetrics, EventDetail, EventSource, FetchRecord, StatusRecord};
use gleaner_store::DocumentKind;
use gleaner_store::{BackendKind, EventWrite, PgSchemas, Store, Upserted};
use url::Url;

use crate::BadInput;

/// Opens the configured store, creating the folder of a SQLite file when needed.
pub fn open_store(settings: &Settings) -> Result<Store> {
    let url = &settings.store.url;
    if let Some(path) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:"))
        && let Some(parent) = Path::new(path).parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).with_context(|| {
            format!("failed to create the folder `{}` for the store", parent.display())
        })?;
    }
    let schemas = PgSchemas {
        copy: settings.store.schema.clone(),
        politeness: settings.store.politeness_namespace.clone(),
    };
    Store::open_in(url, &schemas)
        .map_err(|e| BadInput(format!("failed to open the store `{url}`: {e}")).into())
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

/// The crawler's parts: the gate over the store's state, and the pipeline's context.
pub struct Crawler {
    /// The store.
    pub store: Store,
    /// The pipeline's context (gate, sink, clock, settings).
    pub context: PassContext,
    /// What this process's passes wrote (`gleaner crawl -o`, progress lines).
    pub written: Arc<Written>,
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

/// Claims the store's crawler lease and builds the gate and the pipeline on it.
pub async fn crawler(settings: Arc<Settings>, store: Store) -> Result<Crawler> {
    let state = store
        .claim_crawler()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to start crawling")?;
    let client = Client::new(ClientSettings::from_settings(&settings))
        .context("failed to start the HTTP client")?;
    let clock = store.clock().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    let gate = Gate::new(
        client,
        Arc::clone(&settings),
        Arc::new(state),
        Arc::new(store.clone()),
        Arc::new(store.clone()),
        Arc::clone(&clock),
    );
    let llm = crate::llm_store::connect(&settings, &store).await?;
    let written = Arc::new(Written::default());
    let sink = Arc::new(
        StoreSink::with_model(store.clone(), Arc::clone(&settings), llm)
            .recording(Arc::clone(&written)),
    );
    let gate = Arc::new(gate);
    wake_on_registry_changes(&store, vec![Arc::clone(&gate)]);
    Ok(Crawler {
        store,
        context: PassContext { gate, sink, clock, settings, stop: Arc::default() },
        written,
    })
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

    fn keep_of(&self, source: &str) -> gleaner_store::Keep {
        match self.settings.sources.iter().find(|s| s.id == source).map(|s| s.keep) {
            Some(Keep::Full) => gleaner_store::Keep::Full,
            _ => gleaner_store::Keep::Facts,
        }
    }
}

impl EventSink for StoreSink {
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        Box::pin(async move {
            let keep = self.keep_of(&found.source);
            let write = EventWrite {
                event: &found.event,
                source: Some(&found.source),
                fetched_url: &found.page,
                fetched_at: found.checked_at,
                keep,
                extractor: found.extractor,
            };
            let stored = self.store.upsert_event(&write).await;
            if let (Some(written), Ok(stored)) = (&self.written, &stored) {
                written.record(stored);
            }
            crate::relay_wiring::register_image(&self.store, &self.settings, &found).await;
            match stored {
                Ok(Upserted::Inserted(_)) => Upsert::New,
                Ok(Upserted::Updated { .. }) => Upsert::Updated,
                Ok(Upserted::Unchanged(_)) => Upsert::Unchanged,
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

    fn site_rights<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Option<gleaner_scheduler::rights::RightsFiles>> {
        Box::pin(crate::relay_wiring::site_rights(&self.store, site))
    }

    fn set_relay_allowed<'a>(
        &'a self,
        image: &'a Url,
        source: Option<&'a str>,
        allowed: bool,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        Box::pin(crate::relay_wiring::set_relay_allowed(
            &self.store,
            image,
            source,
            allowed,
            reason,
        ))
    }

    fn put_site_rights<'a>(
        &'a self,
        site: &'a str,
        files: gleaner_scheduler::rights::RightsFiles,
    ) -> BoxFuture<'a, ()> {
        Box::pin(crate::relay_wiring::put_site_rights(&self.store, site, files))
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

    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Err(error) = self
                .store
                .put_validators(url, validators.etag, validators.last_modified, SystemTime::now())
                .await
            {
                eprintln!("warning: failed to store validators for `{url}`: {error}");
            }
        })
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

    fn upsert_news<'a>(
        &'a self,
        news: gleaner_scheduler::News,
        keep_summary: bool,
    ) -> BoxFuture<'a, bool> {
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

/// The store as the server's [`EventSource`]: upcoming events of sources that publish.
pub struct StoreEvents {
    /// The store.
    pub store: Store,
    /// The settings (which sources publish).
    pub settings: Arc<Settings>,
}

fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

impl StoreEvents {
    /// Whether a source publishes (unknown sources do, as before sources were named).
    fn publishes(&self, source: &Option<String>) -> bool {
        match source {
            Some(id) => {
                self.settings.sources.iter().find(|s| &s.id == id).is_none_or(|s| s.publish)
            }
            None => true,
        }
    }

    /// Stored events from yesterday (so today's stay listed) to a year ahead, without
    /// the internal "gone at source" ones.
    async fn upcoming(&self) -> Result<Vec<gleaner_store::StoredEvent>, String> {
        let now = SystemTime::now();
        let from = now - Duration::from_secs(24 * 3600);
        let to = now + Duration::from_secs(366 * 24 * 3600);
        let stored = self.store.events_between(from, to).await.map_err(|e| e.to_string())?;
        Ok(stored
            .into_iter()
            .filter(|e| e.event.status != gleaner_event::EventStatus::GoneAtSource)
            .collect())
    }
}

/// A news item in the newsroom's shape: its title and link, its date as `start`, the
/// category `news`.
pub fn news_item(n: &gleaner_store::StoredNews) -> ApiEvent {
    ApiEvent {
        id: n.id,
        facts: PublicEvent {
            title: n.item.title.clone(),
            start: n.item.published.map(rfc3339),
            description: n.item.summary.clone(),
            url: Some(n.item.url.to_string()),
            ..PublicEvent::default()
        },
        source: n.item.source.clone().unwrap_or_default(),
        source_url: n.item.url.to_string(),
        category: "news".to_owned(),
        first_seen: rfc3339(n.first_seen),
        last_checked: rfc3339(n.first_seen),
    }
}

/// A stored event in the API's shape.
pub fn api_event(e: &gleaner_store::StoredEvent) -> ApiEvent {
    ApiEvent {
        id: e.id,
        facts: PublicEvent::from(&e.event),
        source: e.source.clone().unwrap_or_default(),
        source_url: e
            .event
            .url
            .as_ref()
            .map(Url::to_string)
            .unwrap_or_else(|| format!("https://{}/", e.host)),
        category: e.event.category.name().to_owned(),
        first_seen: rfc3339(e.first_seen),
        last_checked: rfc3339(e.last_checked),
    }
}

impl EventSource for StoreEvents {
    fn published_events(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        Box::pin(async move {
            let stored = self.upcoming().await?;
            Ok(stored
                .iter()
                .filter(|e| self.publishes(&e.source))
                .take(limit)
                .map(api_event)
                .collect())
        })
    }

    fn newsroom(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        Box::pin(async move {
            let stored = self.upcoming().await?;
            let mut items: Vec<ApiEvent> = stored
                .iter()
                .filter(|e| !self.publishes(&e.source))
                .take(limit)
                .map(api_event)
                .collect();
            // News items (open-data records, town-hall news) are the pool's other half.
            let news = self.store.news(limit).await.map_err(|e| e.to_string())?;
            items.extend(news.iter().map(news_item));
            items.truncate(limit);
            Ok(items)
        })
    }

    fn event(&self, id: i64) -> BoxFuture<'_, Result<Option<EventDetail>, String>> {
        Box::pin(async move {
            let Some(e) = self.store.event(id).await.map_err(|e| e.to_string())? else {
                return Ok(None);
            };
            if !self.publishes(&e.source)
                || e.event.status == gleaner_event::EventStatus::GoneAtSource
            {
                return Ok(None);
            }
            let mut provenance = Vec::new();
            for p in &e.provenance {
                // The robots.txt version in force when the page was fetched.
                let robots = match Url::parse(&p.fetch_url)
                    .ok()
                    .and_then(|u| u.host_str().and_then(Scope::domain))
                {
                    Some(scope) => self
                        .store
                        .archived_at(&scope, DocumentKind::Robots, p.fetched_at)
                        .await
                        .ok()
                        .and_then(|mut v| (!v.is_empty()).then(|| v.remove(0))),
                    None => None,
                };
                provenance.push(FetchRecord {
                    source: p.source.clone(),
                    url: p.fetch_url.clone(),
                    fetched_at: rfc3339(p.fetched_at),
                    robots_version: robots.as_ref().map(|r| rfc3339(r.first_seen)),
                    robots_url: robots.map(|r| r.url),
                    extractor: p.extractor.map(|x| x.code().to_owned()),
                    fields: p.fields.iter().map(|f| f.name().to_owned()).collect(),
                });
            }
            let history = e
                .history
                .iter()
                .map(|h| StatusRecord {
                    status: h.status.public_name().unwrap_or("gone_at_source").to_owned(),
                    at: rfc3339(h.at),
                })
                .collect();
            // Issue 18: the English translation beside the original, and the model's part.
            let translation = match self.store.translation(id, "en").await {
                Ok(Some((title, description))) => {
                    Some(gleaner_server::Translation { lang: "en".to_owned(), title, description })
                }
                _ => None,
            };
            let models = self
                .store
                .model_steps(id)
                .await
                .unwrap_or_default()
                .into_iter()
                .map(|m| gleaner_server::ModelRecord {
                    step: m.step,
                    model: m.model,
                    prompt_version: m.prompt_version,
                })
                .collect();
            Ok(Some(EventDetail { event: api_event(&e), provenance, history, translation, models }))
        })
    }

    fn metrics(&self) -> BoxFuture<'_, Result<CrawlMetrics, String>> {
        Box::pin(async move {
            let mut metrics = CrawlMetrics::default();
            let stored = self.upcoming().await?;
            metrics.events_published =
                stored.iter().filter(|e| self.publishes(&e.source)).count() as u64;
            metrics.events_private = stored.len() as u64 - metrics.events_published;
            // The audit log and gate state of every configured site.
            let mut hosts: Vec<String> = self
                .settings
                .sources
                .iter()
                .flat_map(|s| s.start_urls.iter().filter_map(|u| u.host_str().map(str::to_owned)))
                .collect();
            hosts.sort();
            hosts.dedup();
            let now = SystemTime::now();
            for host in hosts {
                let Some(scope) = Scope::domain(&host) else { continue };
                let rows =
                    self.store.audit_for(&scope, 100_000).await.map_err(|e| e.to_string())?;
                for row in rows {
                    let purpose = row.purpose.map_or("unknown", |p| p.as_str()).to_owned();
                    match row.outcome {
                        Outcome::Refused(kind) => *metrics.refusals.entry(kind).or_default() += 1,
                        Outcome::Sent { status } => {
                            *metrics.requests.entry((purpose, status.to_string())).or_default() +=
                                1;
                        }
                        Outcome::Failed(_) => {
                            *metrics.requests.entry((purpose, "error".to_owned())).or_default() +=
                                1;
                        }
                    }
                }
            }
            // Queue depth: the sources whose pass is due now (the frontier of a pass
            // lives in memory; what waits between passes is the sources themselves).
            let mut due = 0;
            for source in &self.settings.sources {
                let last = self.store.last_run(&source.id).await.map_err(|e| e.to_string())?;
                let zone = source.time_zone.unwrap_or(chrono_tz::UTC);
                if gleaner_scheduler::schedule::next_due(&source.schedule, last, now, zone) <= now {
                    due += 1;
                }
            }
            metrics.queue_depth = Some(due);
            for u in self.store.llm_usage().await.map_err(|e| e.to_string())? {
                let counts = [u.requests, u.failures, u.prompt_tokens, u.completion_tokens];
                metrics.llm.insert((u.model, u.step), counts);
            }
            let mut sites: Vec<String> = self
                .settings
                .sources
                .iter()
                .flat_map(|s| s.start_urls.iter().map(|u| u.origin().ascii_serialization()))
                .collect();
            sites.sort();
            sites.dedup();
            for site in sites {
                if let Ok(Some(state)) = self.store.site_state(&site).await {
                    if state.budget.suspended_until.as_ref().is_some_and(|(t, _)| *t > now) {
                        metrics.suspensions += 1;
                    }
                    if state.budget.blocked_until.as_ref().is_some_and(|(t, _)| *t > now) {
                        metrics.blocks += 1;
                    }
                }
            }
            Ok(metrics)
        })
    }
}
