//! Wiring of the owners' desk (issue 15) for `gleaner run` and `gleaner demo`: the desk
//! over the store, with its own gate for proof files (the store's occasional state, so
//! the one request shares the site's budget with the crawler), the public routes with
//! the forms, and the operator dashboard on its own listener.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_server::desk::OwnerDesk;
use gleaner_server::{AppState, ServerOptions};
use gleaner_store::Store;
use tokio::sync::watch;

use crate::BadInput;

/// The operator token: the environment variable `[server] dashboard_token_env` names
/// wins over `[dashboard] token`; empty counts as none.
pub fn operator_token(settings: &Settings) -> Option<String> {
    ServerOptions::from_env(settings)
        .operator_token
        .or_else(|| settings.dashboard.token.clone())
        .filter(|t| !t.trim().is_empty())
}

/// Builds the desk: the server secret from the store, a gate for proof files, the DNS
/// resolver and the webhook from `[owners]`.
pub async fn desk(
    settings: &Arc<Settings>,
    store: &Store,
    state: &AppState,
    token: Option<String>,
) -> Result<Arc<OwnerDesk>> {
    let gate = crate::wiring::gate_for(settings, store, crate::wiring::GateRole::Occasional)
        .await
        .context("failed to prepare the gate for owners' proof files")?;
    let desk = OwnerDesk::new(store.clone(), Arc::clone(settings), Some(Arc::new(gate)))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to start the owners' forms")?;
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
    gleaner_server::serve_with_desk(listener, state, options, desk, shutdown).await
}

/// Starts the dashboard when `[dashboard] enabled` (or `force`), on `address` or
/// `[server] dashboard_address`; fails with what to set when there is no token. Returns
/// the address it listens on.
pub async fn start_dashboard(
    desk: Arc<OwnerDesk>,
    address: Option<SocketAddr>,
    force: bool,
    mut stop: watch::Receiver<bool>,
) -> Result<Option<(SocketAddr, tokio::task::JoinHandle<()>)>> {
    if !(desk.settings.dashboard.enabled || force) {
        return Ok(None);
    }
    // Checked before binding, so a missing token is a clear error and nothing listens.
    let _checked = gleaner_server::dashboard::router(Arc::clone(&desk)).map_err(BadInput)?;
    let address = address.unwrap_or(desk.settings.server.dashboard_address);
    let listener = tokio::net::TcpListener::bind(address).await.with_context(|| {
        format!("failed to listen on `{address}` for the dashboard\nhint: set `[server] dashboard_address`")
    })?;
    let bound = listener.local_addr()?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "warning: the dashboard listens on {bound}, which is not loopback; anyone who can reach it can try the token"
        );
    }
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = stop.changed().await;
        };
        if let Err(error) = gleaner_server::dashboard::serve(listener, desk, shutdown).await {
            eprintln!("warning: {error}");
        }
    });
    Ok(Some((bound, task)))
}

/// The demo's desk and dashboard: the operator token from the environment when set,
/// else a random one made for this run and printed once (never a fixed default), the
/// dashboard on a free loopback port. Returns the desk, the lines to print, and the
/// sender that stops the dashboard.
pub async fn demo(
    settings: &Arc<Settings>,
    store: &Store,
    state: &AppState,
    listen: SocketAddr,
) -> Result<(Arc<OwnerDesk>, Vec<String>, watch::Sender<bool>)> {
    let token = operator_token(settings).unwrap_or_else(gleaner_server::desk::random_token);
    let desk = desk(settings, store, state, Some(token.clone())).await?;
    let (stop, stopped) = watch::channel(false);
    let loopback = SocketAddr::from(([127, 0, 0, 1], 0));
    let mut lines = vec![
        format!("site owners: http://{listen}/owners"),
        format!("per site:    http://{listen}/site/<domain>"),
    ];
    if let Some((addr, _task)) =
        start_dashboard(Arc::clone(&desk), Some(loopback), true, stopped).await?
    {
        lines.push(format!("dashboard:   http://{addr}/ (operator token for this run: {token})"));
    }
    Ok((desk, lines, stop))
}
