//! Wiring: the store, the gate and the pipeline put together from the settings. This is
//! glue; every decision lives in the library crates.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_event::PublicEvent;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_llm::store_llm::StoreLlm;
use gleaner_llm::{Llm, LlmStore, ProviderError};
use gleaner_policy::outcome::Outcome;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::BoxFuture;
use gleaner_scheduler::store_sink::StoreRights;
use gleaner_scheduler::{PassContext, StoreSink, Written};
use gleaner_server::{ApiEvent, CrawlMetrics, EventDetail, EventSource, FetchRecord, StatusRecord};
use gleaner_store::DocumentKind;
use gleaner_store::{PgSchemas, Store};
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

/// The crawler's parts: the gate over the store's state, and the pipeline's context.
pub struct Crawler {
    /// The store.
    pub store: Store,
    /// The pipeline's context (gate, sink, clock, settings).
    pub context: PassContext,
    /// What this process's passes wrote (`gleaner crawl -o`, progress lines).
    pub written: Arc<Written>,
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
    let llm = connect_llm(&settings, &store).await?;
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

/// The language-model step from `[llm]`, or `None` without it. An endpoint outside its
/// allow-list, or a missing API key variable, is bad input (exit 2).
pub async fn connect_llm(settings: &Arc<Settings>, store: &Store) -> Result<Option<Arc<Llm>>> {
    let sites = Arc::new(StoreRights::new(store.clone(), Arc::clone(settings)));
    let storage: Arc<dyn LlmStore> = Arc::new(StoreLlm::new(store.clone(), sites));
    match Llm::connect(settings, storage, &|var| std::env::var(var).ok()).await {
        Ok(llm) => Ok(llm.map(|l| Arc::new(l.with_log(|line| eprintln!("{line}"))))),
        Err(e @ (ProviderError::NotAllowed { .. } | ProviderError::MissingKey(_))) => {
            Err(BadInput(e.to_string()).into())
        }
        Err(e) => Err(anyhow::anyhow!("{e}")),
    }
}
