//! Wiring for issue 16: the image relay beside the server, images registered for it as
//! events are stored, relay addresses shown instead of source image addresses where
//! relaying is allowed, and a site's rights files kept in the store. Glue only: the
//! decisions are `gleaner_scheduler::rights::may_relay` and the relay crate's.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_fetch::gate::clock::WallClock;
use gleaner_policy::Purpose;
use gleaner_relay::Relay;
use gleaner_scheduler::rights::SiteRights;
use gleaner_server::EventSource;
use gleaner_server::store_events::RelayedEvents;
use gleaner_store::Store;
use url::Url;

/// How often the relay drops images that another process took down.
const SWEEP_EVERY: Duration = Duration::from_secs(2);

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
    let gate = crate::wiring::gate_for(settings, store, crate::wiring::GateRole::Occasional)
        .await
        .context("failed to start the image relay")?;
    let clock: Arc<dyn WallClock> = Arc::clone(gate.clock());
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
    Ok(Arc::new(RelayedEvents::new(Arc::new(events), relay, store.clone(), Arc::clone(settings))))
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
    let files = gleaner_scheduler::store_sink::site_rights(store, &site).await;
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
    let prefs = gleaner_scheduler::store_sink::robots_prefs(store, settings, &site).await;
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
