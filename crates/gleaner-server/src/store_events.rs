//! The store as the server's [`EventSource`] ([`StoreEvents`]), and [`RelayedEvents`],
//! the same events with relay addresses in place of source image addresses where
//! relaying is allowed. The trait lives in this crate's root; test fixtures implement it
//! in memory.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use chrono::NaiveDate;
use gleaner_config::Settings;
use gleaner_config::sources::Keep;
use gleaner_event::{EventStatus, PublicEvent};
use gleaner_policy::outcome::Outcome;
use gleaner_policy::registry::Scope;
use gleaner_policy::state::BoxFuture;
use gleaner_relay::Relay;
use gleaner_store::{DocumentKind, Store};
use url::Url;

use crate::api::{EventQuery, visible};
use crate::{ApiEvent, CrawlMetrics, EventDetail, EventSource, FetchRecord, StatusRecord};

/// The store as the server's [`EventSource`]: upcoming events of sources that publish.
pub struct StoreEvents {
    /// The store.
    pub store: Store,
    /// The settings (which sources publish).
    pub settings: Arc<Settings>,
}

/// `gleaner export`'s events: the store's published events that pass `query`'s filters,
/// on every date unless it bounds them, soonest first.
pub async fn exported_events(
    store: &Store,
    settings: &Settings,
    query: &EventQuery,
) -> Result<Vec<ApiEvent>, String> {
    // Day bounds are widened by the widest UTC offsets (−12 h, +14 h); `matches` then
    // compares the day as the event writes it.
    let century = Duration::from_secs(100 * 366 * 24 * 3600);
    let at = |d: NaiveDate, shift_hours: i64| {
        let t =
            d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc().timestamp() + shift_hours * 3600;
        SystemTime::UNIX_EPOCH + Duration::from_secs(t.max(0) as u64)
    };
    let from = query.from.map_or(SystemTime::UNIX_EPOCH, |d| at(d, -14));
    let to = query.to.map_or(SystemTime::now() + century, |d| at(d, 24 + 12));
    let stored = store.events_between(from, to).await;
    let stored = stored.map_err(|e| format!("failed to read the events from the store: {e}"))?;
    Ok(stored
        .iter()
        .filter(|e| e.event.status != EventStatus::GoneAtSource)
        .map(api_event)
        .filter_map(|e| visible(settings, e))
        .filter(|e| query.matches(e))
        .collect())
}

/// `gleaner export --news`: the newsroom pool's items that pass the filters; summaries
/// and images only where the source keeps them in full.
pub async fn exported_news(
    store: &Store,
    settings: &Settings,
    query: &EventQuery,
) -> Result<Vec<ApiEvent>, String> {
    let items = store.news(1_000_000).await;
    let items = items.map_err(|e| format!("failed to read the news items from the store: {e}"))?;
    Ok(items
        .iter()
        .map(news_item)
        .map(|mut e| {
            let keep = settings.sources.iter().find(|s| s.id == e.source).map(|s| s.keep);
            if keep != Some(Keep::Full) {
                e.facts.description = None;
                e.facts.image_url = None;
            }
            e
        })
        .filter(|e| query.matches(e))
        .collect())
}

/// The events with these ids as they are now (`gleaner crawl -o`: what a pass stored or
/// updated), published ones only, in the order given.
pub async fn events_by_id(
    store: &Store,
    settings: &Settings,
    ids: &[i64],
) -> Result<Vec<ApiEvent>, String> {
    let mut events = Vec::with_capacity(ids.len());
    for id in ids {
        let stored = store.event(*id).await;
        let stored =
            stored.map_err(|e| format!("failed to read event {id} from the store: {e}"))?;
        if let Some(event) = stored
            .filter(|e| e.event.status != EventStatus::GoneAtSource)
            .map(|e| api_event(&e))
            .and_then(|e| visible(settings, e))
        {
            events.push(event);
        }
    }
    Ok(events)
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
                    Some(crate::Translation { lang: "en".to_owned(), title, description })
                }
                _ => None,
            };
            let models = self
                .store
                .model_steps(id)
                .await
                .unwrap_or_default()
                .into_iter()
                .map(|m| crate::ModelRecord {
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

/// The public address of a relayed image: `/relay/{id}` on the bot's own site (the
/// origin of `[bot] info_url`, where the about page is served).
pub fn relay_address(settings: &Settings, id: &str) -> String {
    let origin = settings.bot.info_url.origin().ascii_serialization();
    format!("{origin}/relay/{id}")
}

/// The server's events with relay addresses in place of source image addresses where
/// relaying is allowed, and the relay itself for `/relay/{id}`.
pub struct RelayedEvents {
    inner: Arc<dyn EventSource>,
    relay: Arc<Relay>,
    store: Store,
    settings: Arc<Settings>,
}

impl RelayedEvents {
    /// `inner`'s events with the relay's addresses, and `relay` for `/relay/{id}`.
    pub fn new(
        inner: Arc<dyn EventSource>,
        relay: Arc<Relay>,
        store: Store,
        settings: Arc<Settings>,
    ) -> RelayedEvents {
        RelayedEvents { inner, relay, store, settings }
    }

    async fn rewrite(&self, event: &mut ApiEvent) {
        let Some(image) = event.facts.image_url.clone() else { return };
        if let Ok(Some(record)) = self.store.relay_image_by_url(&image).await
            && record.deliverable()
        {
            event.facts.image_url = Some(relay_address(&self.settings, &record.id));
        }
    }
}

impl EventSource for RelayedEvents {
    fn published_events(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        Box::pin(async move {
            let mut events = self.inner.published_events(limit).await?;
            for e in &mut events {
                self.rewrite(e).await;
            }
            Ok(events)
        })
    }

    fn event(&self, id: i64) -> BoxFuture<'_, Result<Option<EventDetail>, String>> {
        Box::pin(async move {
            let mut detail = self.inner.event(id).await?;
            if let Some(d) = &mut detail {
                self.rewrite(&mut d.event).await;
            }
            Ok(detail)
        })
    }

    fn newsroom(&self, limit: usize) -> BoxFuture<'_, Result<Vec<ApiEvent>, String>> {
        self.inner.newsroom(limit)
    }

    fn metrics(&self) -> BoxFuture<'_, Result<CrawlMetrics, String>> {
        self.inner.metrics()
    }

    fn relay(&self) -> Option<Arc<Relay>> {
        Some(Arc::clone(&self.relay))
    }
}
