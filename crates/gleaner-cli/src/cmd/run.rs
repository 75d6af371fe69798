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
use gleaner_policy::Purpose;
use gleaner_scheduler::checks::{run_cancellation_check, run_link_check};
use gleaner_scheduler::daemon::{self, RETENTION_RUN, failed_visit};
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
        match args.role {
            Role::Scheduler | Role::Worker => {
                let role = if args.role == Role::Worker { "worker" } else { "scheduler" };
                crate::cmd::worker::require_postgres(&store, role)?;
            }
            Role::All | Role::Server => {}
        }
        if args.role == Role::Scheduler && args.once {
            let (_tx, rx) = watch::channel(false);
            enqueue_loop(Arc::clone(&settings), store.clone(), rx, true).await;
            return Ok(());
        }
        let (stop_tx, stop_rx) = watch::channel(false);
        let stop_work = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut tasks = Vec::new();
        if matches!(args.role, Role::All | Role::Server) {
            let address = args.listen.unwrap_or(settings.server.address);
            let listener = tokio::net::TcpListener::bind(address).await.with_context(|| {
                format!(
                    "failed to listen on `{address}`\nhint: set `[server] address` or pass --listen"
                )
            })?;
            eprintln!("gleaner: serving http://{}/bot and /api/events", listener.local_addr()?);
            let state = app_state(&settings, &store).await?;
            let token = start::operator_token(&settings);
            let gate = proof_gate(&settings, &store).await?;
            let desk = server_part(start::desk(&settings, &store, &state, gate, token).await)?;
            let dashboard = start::dashboard(Arc::clone(&desk), None, false, stop_rx.clone());
            if let Some((addr, task)) = server_part(dashboard.await)? {
                eprintln!("gleaner: operator dashboard on http://{addr}/");
                tasks.push(task);
            }
            let mut server_stop = stop_rx.clone();
            tasks.push(tokio::spawn(async move {
                let stopped = async move {
                    let _ = server_stop.changed().await;
                };
                if let Err(error) = start::serve_public(listener, state, desk, stopped).await {
                    eprintln!("warning: the server stopped: {error}");
                }
            }));
        }
        let mut stop_passes = None;
        if args.role == Role::All && !queued {
            // One process on SQLite: passes run here, scheduled as they fall due.
            let crawler = crawler(Arc::clone(&settings), store.clone()).await?;
            stop_passes = Some(Arc::clone(&crawler.context.stop));
            tasks.push(tokio::spawn(schedule_loop(crawler, stop_rx.clone())));
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

/// Logs the one-line summary of a pass, and one line per cap or quota that held
/// requests back.
fn log_pass(report: &gleaner_scheduler::PassReport) {
    eprintln!("{}", daemon::pass_summary(report));
    report.hold_lines().iter().for_each(|line| eprintln!("gleaner: {line}"));
}

/// The scheduler role (SPEC §7): queues each source's pass and each check in the
/// store's frontier when due, once at a time (an item still queued or claimed is not
/// queued again), and records the run when it queues it, so the schedule is the
/// scheduler's alone; applies retention daily. Workers claim the items. With `once`,
/// one round then return.
async fn enqueue_loop(
    settings: Arc<gleaner_config::Settings>,
    store: gleaner_store::Store,
    mut stop: watch::Receiver<bool>,
    once: bool,
) {
    loop {
        if *stop.borrow() {
            break;
        }
        let now = SystemTime::now();
        let mut next_wake = now + Duration::from_secs(60);
        let mut due_items = Vec::new();
        for source in &settings.sources {
            let Some(due) = daemon::source_due(&store, &settings, source, now).await else {
                continue;
            };
            if due > now {
                next_wake = next_wake.min(due);
            } else if let Some(item) = daemon::pass_item(source) {
                due_items.push((source.id.clone(), item));
            }
        }
        for (run, every, purpose) in daemon::checks(&settings) {
            let due = daemon::every_due(&store, run, every, now).await;
            if due > now {
                next_wake = next_wake.min(due);
            } else if let Some(item) = daemon::check_item(purpose) {
                due_items.push((run.to_owned(), item));
            }
        }
        for (run, item) in due_items {
            match store.enqueue_work(&item, now).await {
                Ok(true) => {
                    if let Err(error) = store.record_run(&run, now).await {
                        eprintln!("warning: failed to record the run of `{run}`: {error}");
                    }
                    eprintln!("gleaner: queued `{run}`");
                }
                Ok(false) => {} // still queued or running: once at a time
                Err(error) => eprintln!("warning: failed to queue `{run}`: {error}"),
            }
        }
        // Retention (SPEC §3), once a day, by the scheduler itself (no request is sent).
        let due = daemon::every_due(&store, RETENTION_RUN, daemon::RETENTION_EVERY, now).await;
        if due <= now && !once {
            if let Err(error) = store.record_run(RETENTION_RUN, now).await {
                eprintln!("warning: failed to record the retention run: {error}");
            }
            let policy = gleaner_store::RetentionPolicy::from_settings(&settings);
            match store.purge(policy, now).await {
                Ok(report) => eprintln!("gleaner: retention applied: {report:?}"),
                Err(error) => eprintln!("warning: retention failed: {error}"),
            }
            let day_ago = now - Duration::from_secs(24 * 3600);
            if let Err(error) = store.prune_work(day_ago).await {
                eprintln!("warning: failed to delete finished work items: {error}");
            }
        } else {
            next_wake = next_wake.min(due);
        }
        if once {
            break;
        }
        // Wake at least every few seconds: a failed pass's quick restart depends on the
        // outcome a worker records after the pass.
        let wait = next_wake
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::from_secs(1))
            .clamp(Duration::from_secs(1), Duration::from_secs(5));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => break,
        }
    }
}

/// Starts each source's pass when due; one pass per source at a time.
async fn schedule_loop(crawler: crate::wiring::Crawler, mut stop: watch::Receiver<bool>) {
    let settings = Arc::clone(&crawler.context.settings);
    let mut running: HashMap<String, tokio::task::JoinHandle<()>> = HashMap::new();
    let link_cap = gleaner_scheduler::store_sink::link_check_cap(&settings, &crawler.store);
    loop {
        if *stop.borrow() {
            break;
        }
        let now = SystemTime::now();
        let mut next_wake = now + Duration::from_secs(60);
        for source in &settings.sources {
            if running.get(&source.id).is_some_and(|h| !h.is_finished()) {
                continue;
            }
            let Some(due) = daemon::source_due(&crawler.store, &settings, source, now).await else {
                continue;
            };
            if due > now {
                next_wake = next_wake.min(due);
                continue;
            }
            let ctx = crawler.context.clone();
            let store = crawler.store.clone();
            let source = source.clone();
            let deadline = now + settings.politeness.run_time_limit;
            let id = source.id.clone();
            running.insert(
                id,
                tokio::spawn(async move {
                    if let Err(error) = store.record_run(&source.id, now).await {
                        eprintln!("warning: failed to record the run of `{}`: {error}", source.id);
                    }
                    let report =
                        gleaner_scheduler::run_pass(&ctx, &source, deadline, &|_| {}).await;
                    let failed = failed_visit(&report);
                    match store.record_outcome(&source.id, failed).await {
                        Ok(streak) if failed => eprintln!(
                            "gleaner: source `{}`: failed visit ({streak} in a row)",
                            source.id
                        ),
                        Ok(_) => {}
                        Err(error) => eprintln!(
                            "warning: failed to record the outcome of `{}`: {error}",
                            source.id
                        ),
                    }
                    log_pass(&report);
                }),
            );
        }
        // Retention (SPEC §3), once a day, remembered in the store like a source's runs.
        if running.get(RETENTION_RUN).is_none_or(|h| h.is_finished()) {
            let due =
                daemon::every_due(&crawler.store, RETENTION_RUN, daemon::RETENTION_EVERY, now)
                    .await;
            if due > now {
                next_wake = next_wake.min(due);
            } else {
                let store = crawler.store.clone();
                let policy = gleaner_store::RetentionPolicy::from_settings(&settings);
                running.insert(
                    RETENTION_RUN.to_owned(),
                    tokio::spawn(async move {
                        if let Err(error) = store.record_run(RETENTION_RUN, now).await {
                            eprintln!("warning: failed to record the retention run: {error}");
                        }
                        match store.purge(policy, now).await {
                            Ok(report) => eprintln!("gleaner: retention applied: {report:?}"),
                            Err(error) => eprintln!("warning: retention failed: {error}"),
                        }
                    }),
                );
            }
        }
        // The checks that keep events true (SPEC §4), each on its own interval and
        // remembered in the store like a source's runs.
        for (run, every, purpose) in daemon::checks(&settings) {
            if running.get(run).is_some_and(|h| !h.is_finished()) {
                continue;
            }
            let due = daemon::every_due(&crawler.store, run, every, now).await;
            if due > now {
                next_wake = next_wake.min(due);
                continue;
            }
            let ctx = crawler.context.clone();
            let store = crawler.store.clone();
            let cap = Arc::clone(&link_cap);
            let deadline = now + settings.politeness.run_time_limit;
            running.insert(
                run.to_owned(),
                tokio::spawn(async move {
                    if let Err(error) = store.record_run(run, now).await {
                        eprintln!("warning: failed to record the run of the {purpose}: {error}");
                    }
                    let report = if purpose == Purpose::LinkCheck {
                        run_link_check(&ctx, &cap, deadline).await
                    } else {
                        run_cancellation_check(&ctx, deadline).await
                    };
                    eprintln!(
                        "gleaner: {purpose}: {} events, {} pages, {} listings, {} images, {} not modified, {} changed, {} gone at source, {} refused, {} re-queued, {} over the daily cap",
                        report.events,
                        report.pages_checked,
                        report.listings_checked,
                        report.images_checked,
                        report.not_modified,
                        report.changed,
                        report.events_gone,
                        report.refusals.values().sum::<u32>(),
                        report.requeued,
                        report.capped
                    );
                }),
            );
        }
        let wait = next_wake
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::from_secs(1))
            .max(Duration::from_secs(1));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => break,
        }
    }
    for (_, handle) in running {
        let _ = handle.await;
    }
}
