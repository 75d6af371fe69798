//! Wiring: the store, the gate and the pipeline put together from the settings. This is
//! glue; every decision lives in the library crates.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use gleaner_config::Settings;
use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_llm::store_llm::StoreLlm;
use gleaner_llm::{Llm, LlmStore, ProviderError};
use gleaner_policy::audit::AuditSink;
use gleaner_policy::state::GateState;
use gleaner_scheduler::discover::RequestCounter;
use gleaner_scheduler::store_sink::{ReadOnlyState, StoreRights, wake_on_registry_changes};
use gleaner_scheduler::worker::LeaseFence;
use gleaner_scheduler::{PassContext, StoreSink, Written};
use gleaner_server::AppState;
use gleaner_server::start::{self, StartError};
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

/// The crawler's parts: the gate over the store's state, and the pipeline's context.
pub struct Crawler {
    /// The store.
    pub store: Store,
    /// The pipeline's context (gate, sink, clock, settings).
    pub context: PassContext,
    /// What this process's passes wrote (`gleaner crawl -o`, progress lines).
    pub written: Arc<Written>,
}

/// Whose gate [`gate_for`] builds: the budgets are the store's in every role.
#[derive(Debug, Clone)]
pub enum GateRole {
    /// The crawler's: claims the store's crawler lease (one crawling process per SQLite
    /// file).
    Crawler,
    /// An occasional request's (a manual check, a proof file, the image relay): the
    /// store's shared state without the lease.
    Occasional,
    /// `gleaner explain`'s: reads the store's state, writes nothing (no lease, the audit
    /// kept in memory).
    ReadOnly,
    /// `gleaner discover`'s: the occasional state, every request counted on its way to
    /// the audit log.
    Discover(Arc<RequestCounter>),
    /// A worker slot's: the worker's state behind the slot's claim.
    Slot(Arc<LeaseFence>),
}

/// What a gate's state failed at.
const STATE: &str = "failed to read the gate's state from the store";

/// The gate over the store's budgets, robots cache, audit log and clock, for `role`.
pub async fn gate_for(settings: &Arc<Settings>, store: &Store, role: GateRole) -> Result<Gate> {
    let occasional = async {
        let state = store.occasional_state().await.map_err(|e| anyhow::anyhow!("{e}"));
        Ok::<_, anyhow::Error>(Arc::new(state.context(STATE)?) as Arc<dyn GateState>)
    };
    let audit: Arc<dyn AuditSink> = Arc::new(store.clone());
    let (state, audit) = match role {
        GateRole::Crawler => {
            // The daily cap in leased blocks, not one locked row per request (issue 27).
            let cap = settings.politeness.global_daily_cap;
            let state = store.claim_crawler().await.map(|state| state.lease_daily_cap(cap));
            let state = state.map_err(|e| anyhow::anyhow!("{e}"));
            (Arc::new(state.context(STATE)?) as Arc<dyn GateState>, audit)
        }
        GateRole::Occasional => (occasional.await?, audit),
        GateRole::ReadOnly => {
            (Arc::new(ReadOnlyState(store.clone())) as _, Arc::new(MemoryAudit::default()) as _)
        }
        GateRole::Discover(counter) => (occasional.await?, counter as _),
        GateRole::Slot(fence) => (fence as _, audit),
    };
    let client = Client::new(ClientSettings::from_settings(settings))
        .context("failed to start the HTTP client")?;
    let clock = store.clock().await.map_err(|e| anyhow::anyhow!("{e}"));
    let clock = clock.context("failed to read the store's clock")?;
    Ok(Gate::new(client, Arc::clone(settings), state, Arc::new(store.clone()), audit, clock))
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

/// The server's state: the store's events, relayed when the profile enables the image
/// relay (with its own gate over the store's shared budgets).
pub async fn app_state(settings: &Arc<Settings>, store: &Store) -> Result<AppState> {
    let relay_gate = if start::relays_images(settings) {
        let gate = gate_for(settings, store, GateRole::Occasional).await;
        Some(gate.context("failed to start the image relay")?)
    } else {
        None
    };
    Ok(AppState {
        settings: Arc::clone(settings),
        events: start::events(store, settings, relay_gate),
    })
}

/// The gate for owners' proof files: the store's occasional state, so the one request
/// shares the site's budget with the crawler.
pub async fn proof_gate(settings: &Arc<Settings>, store: &Store) -> Result<Gate> {
    gate_for(settings, store, GateRole::Occasional)
        .await
        .context("failed to prepare the gate for owners' proof files")
}

/// A server part's start: a missing setting is bad input (exit 2).
pub fn server_part<T>(result: Result<T, StartError>) -> Result<T> {
    result.map_err(|e| match e {
        StartError::Config(message) => BadInput(message).into(),
        StartError::Failed(message) => anyhow::anyhow!(message),
    })
}
