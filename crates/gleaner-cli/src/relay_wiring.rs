//! Wiring for issue 16: the image relay beside the server, images registered for it as
//! events are stored, relay addresses shown instead of source image addresses where
//! relaying is allowed, and a site's rights files kept in the store. Glue only: the
//! decisions are `gleaner_scheduler::rights::may_relay` and the relay crate's.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_policy::Purpose;
use gleaner_policy::state::BoxFuture;
use gleaner_relay::Relay;
use gleaner_scheduler::Found;
use gleaner_scheduler::rights::{RightsFiles, SiteRights, may_relay};
use gleaner_server::{ApiEvent, CrawlMetrics, EventDetail, EventSource};
use gleaner_store::Store;
use url::Url;

/// How often the relay drops images that another process took down.
const SWEEP_EVERY: Duration = Duration::from_secs(2);

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
    gleaner_scheduler::rights::robots_prefs(settings, memory.as_ref())
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

/// Wraps the server's events with the image relay when the profile enables it (its own
/// gate over the store's shared budgets, so it runs in any role); otherwise returns
/// `events` as they are. Spawns the task that evicts images taken down elsewhere.
pub async fn relayed(
    events: impl EventSource + 'static,
    store: &Store,
    settings: &Arc<Settings>,
) -> Result<Arc<dyn EventSource>> {
    if !settings.purposes.enabled.contains(&Purpose::ImageRelay) {
        return Ok(Arc::new(events));
    }
    let state = store
        .occasional_state()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to start the image relay")?;
    let client = Client::new(ClientSettings::from_settings(settings))
        .context("failed to start the image relay's HTTP client")?;
    let clock: Arc<dyn WallClock> = store.clock().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    let gate = Gate::new(
        client,
        Arc::clone(settings),
        Arc::new(state),
        Arc::new(store.clone()),
        Arc::new(store.clone()),
        Arc::clone(&clock),
    );
    let relay =
        Arc::new(Relay::new(Arc::new(gate), Arc::new(store.clone()), settings.relay, clock));
    let sweeper = Arc::downgrade(&relay);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(SWEEP_EVERY);
        loop {
            tick.tick().await;
            let Some(relay) = sweeper.upgrade() else { return };
            relay.sweep().await;
        }
    });
    Ok(Arc::new(RelayedEvents {
        inner: Arc::new(events),
        relay,
        store: store.clone(),
        settings: Arc::clone(settings),
    }))
}

impl RelayedEvents {
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

/// `gleaner explain`'s rights lines for a request of `purpose` to `url`: whether the
/// site's rights files were read, the reservation that decides (if any), and for an
/// image its relay verdict. The first value is true when a rights signal stops it.
pub async fn explain_rights(
    store: &Store,
    settings: &Settings,
    url: &Url,
    purpose: Purpose,
) -> (bool, Vec<String>) {
    use gleaner_policy::signals::RightsUse;
    use gleaner_policy::signals::reservation::{RightsDecision, survives_site_stop};
    let mut lines = Vec::new();
    if !settings.rights.honour_signals {
        lines.push("rights: signals are not honoured ([rights] honour_signals = false)".to_owned());
        return (false, lines);
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
    lines.extend(gleaner_scheduler::rights::explain_prefs(&prefs, url));
    let rights = Some(files.map(|f| SiteRights::parse(&f)).unwrap_or_default().with_prefs(prefs));
    let use_ = match purpose {
        Purpose::ImageRelay => RightsUse::RelayImage,
        _ => RightsUse::KeepFacts,
    };
    let decision =
        gleaner_scheduler::rights::decide(settings, rights.as_ref(), url, use_, &[], &[]);
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
    (stops, lines)
}
