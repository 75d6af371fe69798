//! `gleaner worker` (= `gleaner run --role worker`): claims due work from the store's
//! shared queue (PostgreSQL), runs each item through the gate under its lease and
//! fences its event writes with the claim's token (SPEC §7). The queue is filled by
//! `gleaner run --role scheduler` (or `--role all`).

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_config::Settings;
use gleaner_policy::state::GateState;
use gleaner_scheduler::store_worker::run_slots;
use gleaner_scheduler::worker::{LeaseFence, WorkerOptions};
use gleaner_store::{BackendKind, Store};

use crate::BadInput;
use crate::wiring::{GateRole, gate_for, open_store};

/// Arguments of `gleaner worker` (also taken by `gleaner run --role worker|all`).
#[derive(Debug, Args, Clone)]
pub struct WorkerArgs {
    /// How long a claim on a work item lasts on the database clock; renewed every
    /// quarter of it while the item runs. A dead worker's items are claimed again this
    /// long after its last renewal.
    #[arg(long, value_name = "DURATION", default_value = "60s", value_parser = humantime::parse_duration)]
    pub lease: Duration,
    /// Work items run at once by this process, each through its own gate and lease.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub slots: u32,
    /// Exit once nothing is queued or claimed instead of waiting for more work.
    #[arg(long)]
    pub exit_when_idle: bool,
}

impl Default for WorkerArgs {
    fn default() -> Self {
        WorkerArgs { lease: Duration::from_secs(60), slots: 1, exit_when_idle: false }
    }
}

/// How much longer than a claim the worker's own lease (which keeps its requests in
/// flight counted) is renewed for, so it always outlives the claim it is renewed with.
const WORKER_LEASE_SLACK: Duration = Duration::from_secs(10);

/// Runs `gleaner worker`.
pub fn run(args: &WorkerArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    runtime.block_on(async {
        let store = open_store(&settings)?;
        require_postgres(&store, "worker")?;
        let stop = Arc::new(AtomicBool::new(false));
        let mut work = tokio::spawn(work(
            Arc::clone(&settings),
            store.clone(),
            args.clone(),
            Arc::clone(&stop),
        ));
        tokio::select! {
            result = &mut work => result.context("the worker stopped")??,
            () = crate::cmd::run::shutdown_signal() => {
                eprintln!(
                    "gleaner: stopping; items in flight finish their current request and are given back"
                );
                stop.store(true, Ordering::Relaxed);
                work.await.context("the worker stopped")??;
            }
        }
        store.flush_audit().await.map_err(|e| anyhow::anyhow!("{e}")).context("failed to flush the audit log")
    })
}

/// Multi-process roles share one budget through the database: SQLite allows one
/// crawling process per file.
pub fn require_postgres(store: &Store, role: &str) -> Result<()> {
    if store.kind() == BackendKind::Postgres {
        return Ok(());
    }
    Err(BadInput(format!(
        "the `{role}` role needs a PostgreSQL store, and `{}` is SQLite (one crawling process per file)\n\
         hint: set `[store] url = \"postgres://USER@HOST/DB\"` for several processes, or run `gleaner run` (role `all`) for one",
        store.location()
    ))
    .into())
}

/// Runs `args.slots` worker loops until `stop` is set (or, with `exit_when_idle`, until
/// nothing is due). Every slot has its own gate, lease fence and claim.
pub async fn work(
    settings: Arc<Settings>,
    store: Store,
    args: WorkerArgs,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let state = Arc::new(
        store
            .claim_worker(args.lease + WORKER_LEASE_SLACK)
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))
            .context("failed to register this worker")?,
    );
    eprintln!("gleaner: worker `{}` started ({} slot(s))", state.worker_id(), args.slots);
    let options = WorkerOptions::for_lease(&settings, args.lease, args.exit_when_idle);
    let options = options.map_err(BadInput)?;
    let llm = crate::wiring::connect_llm(&settings, &store).await?;
    let mut gates = Vec::new();
    for _ in 0..args.slots {
        let fence = Arc::new(LeaseFence::new(Arc::clone(&state) as Arc<dyn GateState>));
        let gate = gate_for(&settings, &store, GateRole::Slot(Arc::clone(&fence))).await?;
        gates.push((Arc::new(gate), fence));
    }
    gleaner_scheduler::store_sink::wake_on_registry_changes(
        &store,
        gates.iter().map(|(g, _)| Arc::clone(g)).collect(),
    );
    let lease = args.lease + WORKER_LEASE_SLACK;
    let done = run_slots(&store, &state, &settings, llm, gates, &options, lease, &stop).await;
    let done = done.map_err(|e| anyhow::anyhow!(e))?;
    eprintln!("gleaner: worker `{}`: {}", state.worker_id(), done.summary());
    Ok(())
}
