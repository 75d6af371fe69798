//! Wiring: the store, the gate and the pipeline put together from the settings. This is
//! glue; every decision lives in the library crates.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_llm::store_llm::StoreLlm;
use gleaner_llm::{Llm, LlmStore, ProviderError};
use gleaner_scheduler::store_sink::StoreRights;
use gleaner_scheduler::{PassContext, StoreSink, Written};
use gleaner_store::{PgSchemas, Store};

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

/// Whose gate [`gate_for`] builds: the budgets are the store's either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateRole {
    /// The crawler's: claims the store's crawler lease (one crawling process per SQLite
    /// file).
    Crawler,
    /// An occasional request's (a manual check, a proof file, the image relay): the
    /// store's shared state without the lease.
    Occasional,
}

/// The gate over the store's budgets, robots cache, audit log and clock, for `role`.
pub async fn gate_for(settings: &Arc<Settings>, store: &Store, role: GateRole) -> Result<Gate> {
    let state = match role {
        // The daily cap in leased blocks, not one locked row per request (issue 27).
        GateRole::Crawler => {
            let cap = settings.politeness.global_daily_cap;
            store.claim_crawler().await.map(|state| state.lease_daily_cap(cap))
        }
        GateRole::Occasional => store.occasional_state().await,
    }
    .map_err(|e| anyhow::anyhow!("{e}"))
    .context("failed to read the gate's state from the store")?;
    let client = Client::new(ClientSettings::from_settings(settings))
        .context("failed to start the HTTP client")?;
    let clock = store.clock().await.map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(Gate::new(
        client,
        Arc::clone(settings),
        Arc::new(state),
        Arc::new(store.clone()),
        Arc::new(store.clone()),
        clock,
    ))
}

/// Claims the store's crawler lease and builds the gate and the pipeline on it.
pub async fn crawler(settings: Arc<Settings>, store: Store) -> Result<Crawler> {
    let gate =
        gate_for(&settings, &store, GateRole::Crawler).await.context("failed to start crawling")?;
    let clock = Arc::clone(gate.clock());
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
