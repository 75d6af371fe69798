//! The server's parts put together from the settings, for `gleaner run` and
//! `gleaner demo`: the events (relayed when the profile enables the image relay), the
//! owners' desk over the store, the public routes with the forms, and the operator
//! dashboard on its own listener. The binary builds the gates (one `gate_for`) and
//! hands them in; everything else is decided here.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gleaner_config::Settings;
use gleaner_fetch::Gate;
use gleaner_policy::Purpose;
use gleaner_relay::Relay;
use gleaner_store::Store;
use tokio::sync::watch;

use crate::desk::OwnerDesk;
use crate::desk_store::StoreDesk;
use crate::store_events::{RelayedEvents, StoreEvents};
use crate::{AppState, EventSource, ServerOptions};

/// How often the relay drops images that another process took down.
const SWEEP_EVERY: Duration = Duration::from_secs(2);

/// Why a part of the server could not start.
#[derive(Debug)]
pub enum StartError {
    /// The configuration is missing something (the operator's token): bad input.
    Config(String),
    /// Anything else (the store, a listener), with what was being attempted.
    Failed(String),
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::Config(message) | StartError::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for StartError {}

/// Whether the profile enables the image relay, so the caller builds its gate.
pub fn relays_images(settings: &Settings) -> bool {
    settings.purposes.enabled.contains(&Purpose::ImageRelay)
}

/// The store's events for the server, wrapped with the image relay when `relay_gate` is
/// given (its own gate over the store's shared budgets, so it runs in any role). Spawns
/// the task that evicts images taken down elsewhere.
pub fn events(
    store: &Store,
    settings: &Arc<Settings>,
    relay_gate: Option<Gate>,
) -> Arc<dyn EventSource> {
    let events = StoreEvents { store: store.clone(), settings: Arc::clone(settings) };
    let Some(gate) = relay_gate else { return Arc::new(events) };
    let clock = Arc::clone(gate.clock());
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
    Arc::new(RelayedEvents::new(Arc::new(events), relay, store.clone(), Arc::clone(settings)))
}

/// The operator token: the environment variable `[server] dashboard_token_env` names
/// wins over `[dashboard] token`; empty counts as none.
pub fn operator_token(settings: &Settings) -> Option<String> {
    ServerOptions::from_env(settings)
        .operator_token
        .or_else(|| settings.dashboard.token.clone())
        .filter(|t| !t.trim().is_empty())
}

/// Builds the desk: its rows in the store ([`StoreDesk`]), the server secret from them,
/// `proof_gate` for proof files, the DNS resolver and the webhook from `[owners]`, the
/// events of `state`.
pub async fn desk(
    settings: &Arc<Settings>,
    store: &Store,
    state: &AppState,
    proof_gate: Gate,
    token: Option<String>,
) -> Result<Arc<OwnerDesk>, StartError> {
    let rows = Arc::new(StoreDesk::new(store.clone()));
    let desk = OwnerDesk::new(rows, Arc::clone(settings), Some(Arc::new(proof_gate)))
        .await
        .map_err(|e| StartError::Failed(format!("failed to start the owners' forms: {e}")))?;
    Ok(Arc::new(desk.with_events(Arc::clone(&state.events)).with_operator_token(token)))
}

/// Serves the public routes plus the owners' forms and `/site/{domain}` until `shutdown`.
pub async fn serve_public(
    listener: tokio::net::TcpListener,
    state: AppState,
    desk: Arc<OwnerDesk>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let options = ServerOptions { operator_token: desk.operator_token() };
    crate::serve_with_desk(listener, state, options, desk, shutdown).await
}

/// Starts the dashboard when `[dashboard] enabled` (or `force`), on `address` or
/// `[server] dashboard_address`, until `stop` changes; fails with what to set when there
/// is no token. Returns the address it listens on.
#[allow(clippy::print_stderr)] // stderr is the server's log
pub async fn dashboard(
    desk: Arc<OwnerDesk>,
    address: Option<SocketAddr>,
    force: bool,
    mut stop: watch::Receiver<bool>,
) -> Result<Option<(SocketAddr, tokio::task::JoinHandle<()>)>, StartError> {
    if !(desk.settings.dashboard.enabled || force) {
        return Ok(None);
    }
    // Checked before binding, so a missing token is a clear error and nothing listens.
    let _checked = crate::dashboard::router(Arc::clone(&desk)).map_err(StartError::Config)?;
    let address = address.unwrap_or(desk.settings.server.dashboard_address);
    let listener = tokio::net::TcpListener::bind(address).await.map_err(|e| {
        StartError::Failed(format!(
            "failed to listen on `{address}` for the dashboard: {e}\nhint: set `[server] dashboard_address`"
        ))
    })?;
    let bound = listener
        .local_addr()
        .map_err(|e| StartError::Failed(format!("failed to read the dashboard's address: {e}")))?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "warning: the dashboard listens on {bound}, which is not loopback; anyone who can reach it can try the token"
        );
    }
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stop.changed().await;
        };
        if let Err(error) = crate::dashboard::serve(listener, desk, shutdown).await {
            eprintln!("warning: {error}");
        }
    });
    Ok(Some((bound, task)))
}

/// `gleaner run`'s server: the public routes with the owners' forms on `listener`, and
/// the dashboard when `[dashboard] enabled`, until `stop` changes. Returns the desk's
/// scheduler wake-up (rung by the dashboard's source actions) and the tasks to await.
#[allow(clippy::print_stderr)] // stderr is the server's log
pub async fn serve_run(
    settings: &Arc<Settings>,
    store: &Store,
    state: AppState,
    listener: tokio::net::TcpListener,
    proof_gate: Gate,
    stop: watch::Receiver<bool>,
) -> Result<(Arc<tokio::sync::Notify>, Vec<tokio::task::JoinHandle<()>>), StartError> {
    let token = operator_token(settings);
    let desk = desk(settings, store, &state, proof_gate, token).await?;
    let wake = Arc::clone(&desk.scheduler_wake);
    let mut tasks = Vec::new();
    if let Some((addr, task)) = dashboard(Arc::clone(&desk), None, false, stop.clone()).await? {
        eprintln!("gleaner: operator dashboard on http://{addr}/");
        tasks.push(task);
    }
    let mut stop = stop;
    tasks.push(tokio::spawn(async move {
        let stopped = async move {
            let _ = stop.changed().await;
        };
        if let Err(error) = serve_public(listener, state, desk, stopped).await {
            eprintln!("warning: the server stopped: {error}");
        }
    }));
    Ok((wake, tasks))
}

/// The demo's desk and dashboard: the operator token from the environment when set,
/// else a random one made for this run and printed once (never a fixed default), the
/// dashboard on a free loopback port. Returns the desk, the lines to print (every
/// address the demo serves on `listen`), and the sender that stops the dashboard.
pub async fn demo(
    settings: &Arc<Settings>,
    store: &Store,
    state: &AppState,
    proof_gate: Gate,
    listen: SocketAddr,
) -> Result<(Arc<OwnerDesk>, Vec<String>, watch::Sender<bool>), StartError> {
    let token = operator_token(settings).unwrap_or_else(crate::desk::random_token);
    let desk = desk(settings, store, state, proof_gate, Some(token.clone())).await?;
    let (stop, stopped) = watch::channel(false);
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let mut lines = vec![
        format!("about page:  http://{listen}/bot"),
        format!("site owners: http://{listen}/owners"),
        format!("per site:    http://{listen}/site/<domain>"),
    ];
    if let Some((addr, _task)) = dashboard(Arc::clone(&desk), Some(loopback), true, stopped).await?
    {
        lines.push(format!("dashboard:   http://{addr}/ (operator token for this run: {token})"));
    }
    lines.extend([
        format!("events page: http://{listen}/events"),
        format!("calendar:    http://{listen}/events.ics"),
        format!("metrics:     http://{listen}/metrics"),
        format!("events:      http://{listen}/api/events"),
    ]);
    Ok((desk, lines, stop))
}
