//! `gleaner run`: the daemon. The scheduler starts each source's pass when it is due
//! (never more often than the configured minimum, remembered in the store across
//! restarts) and the cancellation and link checks on their `[checks]` intervals, and the server answers `/bot`, `/api/events` and `/healthz`. SIGINT or
//! SIGTERM: no new pass starts, passes in flight finish their current request, the audit
//! log is flushed.
//!
//! Roles (`--role`, SPEC §7): `all` (the default) does everything in one process — on
//! SQLite exactly as above, on PostgreSQL through the shared queue; `scheduler` decides
//! what is due and queues it in the store (and applies retention); `worker` (also
//! `gleaner worker`) claims queued work and runs it through the gate; `server` serves.
//! `scheduler` and `worker` need PostgreSQL.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use gleaner_scheduler::daemon::{self, Work};
use gleaner_server::start;
use tokio::sync::watch;

use crate::wiring::{app_state, crawler, open_store, proof_gate, server_part};

/// Arguments of `gleaner run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Listen here instead of `[server] address`.
    #[arg(long, value_name = "ADDR")]
    listen: Option<std::net::SocketAddr>,
    /// What this process does: everything (`all`), queue due work (`scheduler`), run
    /// queued work (`worker`), or serve (`server`). `scheduler` and `worker` need a
    /// PostgreSQL store.
    #[arg(long, value_enum, default_value_t = Role::All)]
    role: Role,
    /// With `--role scheduler`: queue what is due now, then exit.
    #[arg(long)]
    once: bool,
    #[command(flatten)]
    worker: crate::cmd::worker::WorkerArgs,
}

/// What one `gleaner run` process does (SPEC §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    /// Scheduler, worker and server in one process.
    All,
    /// Decides what is due and queues it in the store; applies retention.
    Scheduler,
    /// Claims queued work and runs it through the gate.
    Worker,
    /// Serves `/bot`, `/api/events` and the rest.
    Server,
}

/// Resolves when the process is asked to stop (SIGINT, SIGTERM).
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

/// Runs `gleaner run`.
pub fn run(args: &RunArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    runtime.block_on(async {
        let store = open_store(&settings)?;
        let queued = store.kind() == gleaner_store::BackendKind::Postgres;
        if let Role::Scheduler | Role::Worker = args.role {
            let role = if args.role == Role::Worker { "worker" } else { "scheduler" };
            crate::cmd::worker::require_postgres(&store, role)?;
        }
        if args.role == Role::Scheduler && args.once {
            let (_tx, rx) = watch::channel(false);
            enqueue_loop(Arc::clone(&settings), store.clone(), rx, true).await;
            return Ok(());
        }
        let (stop_tx, stop_rx) = watch::channel(false);
        let stop_work = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut tasks = Vec::new();
        let mut wake = Arc::new(tokio::sync::Notify::new());
        if matches!(args.role, Role::All | Role::Server) {
            let address = args.listen.unwrap_or(settings.server.address);
            let listener = tokio::net::TcpListener::bind(address).await.with_context(|| {
                format!(
                    "failed to listen on `{address}`\nhint: set `[server] address` or pass --listen"
                )
            })?;
            eprintln!("gleaner: serving http://{}/bot and /api/events", listener.local_addr()?);
            let state = app_state(&settings, &store).await?;
            let gate = proof_gate(&settings, &store).await?;
            let served =
                start::serve_run(&settings, &store, state, listener, gate, stop_rx.clone());
            let (desk_wake, served) = server_part(served.await)?;
            // The dashboard's "run now" rings this process's scheduler at once.
            (wake, tasks) = (desk_wake, served);
        }
        let mut stop_passes = None;
        if args.role == Role::All && !queued {
            // One process on SQLite: passes run here, scheduled as they fall due.
            let crawler = crawler(Arc::clone(&settings), store.clone()).await?;
            stop_passes = Some(Arc::clone(&crawler.context.stop));
            tasks.push(tokio::spawn(schedule_loop(crawler, stop_rx.clone(), wake)));
        }
        if matches!(args.role, Role::All | Role::Scheduler) && queued {
            tasks.push(tokio::spawn(enqueue_loop(
                Arc::clone(&settings),
                store.clone(),
                stop_rx.clone(),
                false,
            )));
        }
        let mut worker = None;
        if matches!(args.role, Role::All | Role::Worker) && queued {
            worker = Some(tokio::spawn(crate::cmd::worker::work(
                Arc::clone(&settings),
                store.clone(),
                args.worker.clone(),
                Arc::clone(&stop_work),
            )));
        }
        match &mut worker {
            Some(handle) if args.worker.exit_when_idle => {
                tokio::select! {
                    () = shutdown_signal() => {}
                    _ = handle => { worker = None; }
                }
            }
            _ => shutdown_signal().await,
        }
        eprintln!("gleaner: stopping; work in flight finishes its current request");
        let _ = stop_tx.send(true);
        stop_work.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(stop) = stop_passes {
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if let Some(worker) = worker {
            worker.await.context("the worker stopped")??;
        }
        for task in tasks {
            let _ = task.await;
        }
        store
            .flush_audit()
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("failed to flush the audit log")?;
        Ok(())
    })
}

/// How long to sleep until `wake`: at least a second.
fn wait_until(wake: SystemTime) -> Duration {
    wake.duration_since(SystemTime::now()).unwrap_or_default().max(Duration::from_secs(1))
}

/// The scheduler role (SPEC §7): queues each due pass and check in the store's frontier
/// for the workers (`daemon::enqueue`), and applies retention daily. With `once`, one
/// round then return.
async fn enqueue_loop(
    settings: Arc<gleaner_config::Settings>,
    store: gleaner_store::Store,
    mut stop: watch::Receiver<bool>,
    once: bool,
) {
    while !*stop.borrow() {
        let now = SystemTime::now();
        let (runs, controls) = daemon::read_state(&store, &settings).await;
        for work in daemon::due_work(&settings, &runs, &controls, now) {
            match work {
                Work::Retention if !once => {
                    daemon::record_start(&store, &controls, &Work::Retention, now).await;
                    daemon::retention(&store, &settings, now, true).await;
                }
                Work::Retention => {}
                work => daemon::enqueue(&store, &settings, &controls, &work, now).await,
            }
        }
        if once {
            break;
        }
        // Wake at least every few seconds: a failed pass's quick restart depends on the
        // outcome a worker records after the pass.
        let wake = daemon::next_wake(&settings, &runs, &controls, now);
        tokio::select! {
            _ = tokio::time::sleep(wait_until(wake).min(Duration::from_secs(5))) => {}
            _ = stop.changed() => break,
        }
    }
}

/// Starts each due pass, check and retention in this process; one of each at a time.
/// `wake` (the dashboard's "run now") makes it look again before its next due time.
async fn schedule_loop(
    crawler: crate::wiring::Crawler,
    mut stop: watch::Receiver<bool>,
    wake: Arc<tokio::sync::Notify>,
) {
    let settings = Arc::clone(&crawler.context.settings);
    let mut running: HashMap<Work, tokio::task::JoinHandle<()>> = HashMap::new();
    let link_cap = gleaner_scheduler::store_sink::link_check_cap(&settings, &crawler.store);
    while !*stop.borrow() {
        let now = SystemTime::now();
        let (runs, controls) = daemon::read_state(&crawler.store, &settings).await;
        for work in daemon::due_work(&settings, &runs, &controls, now) {
            if running.get(&work).is_some_and(|h| !h.is_finished()) {
                continue;
            }
            daemon::record_start(&crawler.store, &controls, &work, now).await;
            let (ctx, store, cap) =
                (crawler.context.clone(), crawler.store.clone(), Arc::clone(&link_cap));
            let source = match &work {
                Work::Pass(id) => settings.sources.iter().find(|s| &s.id == id).cloned(),
                _ => None,
            };
            let key = work.clone();
            let task = async move {
                match (&work, source) {
                    (Work::Pass(_), Some(source)) => {
                        daemon::run_source_pass(&ctx, &store, &source, now).await
                    }
                    (Work::Check(purpose), _) => daemon::run_check(&ctx, &cap, *purpose, now).await,
                    (Work::Retention, _) => {
                        daemon::retention(&store, &ctx.settings, now, false).await
                    }
                    (Work::Pass(_), None) => {}
                }
            };
            running.insert(key, tokio::spawn(task));
        }
        let next = daemon::next_wake(&settings, &runs, &controls, now);
        tokio::select! {
            _ = tokio::time::sleep(wait_until(next)) => {}
            _ = wake.notified() => {}
            _ = stop.changed() => break,
        }
    }
    for (_, handle) in running {
        let _ = handle.await;
    }
}
