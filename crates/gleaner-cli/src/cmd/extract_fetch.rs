//! `gleaner extract URL`: the page fetched once through the gate, as `gleaner fetch` does
//! (purpose `manual-check`: robots.txt first, the site's budget shared with any running
//! crawl, the daily cap of manual checks per site, the audit log), for extraction.

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use gleaner_config::{Settings, redact_url};
use gleaner_fetch::{GateOutcome, GateRequest};
use gleaner_policy::Purpose;
use gleaner_scheduler::manual::may_check;
use url::Url;

use crate::cmd::fetch::Refused;
use crate::wiring::open_store;

/// A page read for `gleaner extract`.
pub struct FetchedPage {
    /// The body.
    pub body: Vec<u8>,
    /// Its content type (`text/html` when the site gives none).
    pub content_type: String,
    /// Where it was finally read from (after redirects).
    pub url: Url,
    /// The configuration it was fetched under.
    pub settings: Arc<Settings>,
}

/// Fetches `url` once through the gate under the configuration at `config`.
pub fn fetch_page(url: Url, config: &Path) -> Result<FetchedPage> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(fetch(settings, url))
}

async fn fetch(settings: Arc<Settings>, url: Url) -> Result<FetchedPage> {
    let store = open_store(&settings)?;
    let show = |u: &Url| redact_url(u, &settings.network.secret_query_params, &[]);
    let gate =
        crate::wiring::gate_for(&settings, &store, crate::wiring::GateRole::Occasional).await?;
    let request = GateRequest::new(url.clone(), Purpose::ManualCheck);
    if let Err(refusal) = may_check(&gate, &store, &settings, &request).await {
        store.flush_audit().await.ok();
        return Err(Refused(refusal).into());
    }
    let (outcome, _hops) = gate.fetch_following(&request).await;
    store
        .flush_audit()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to write the audit log")?;
    match outcome {
        GateOutcome::Fetched(f) if (200..300).contains(&f.status) => Ok(FetchedPage {
            content_type: f.content_type().unwrap_or("text/html").to_owned(),
            body: f.body.to_vec(),
            url: f.url.clone(),
            settings: Arc::clone(&settings),
        }),
        GateOutcome::Fetched(f) => {
            Err(anyhow::anyhow!("`{}` answered HTTP {}: no page to read", show(&f.url), f.status))
        }
        GateOutcome::Refused(gleaner_fetch::Refusal::Local(error)) => {
            Err(anyhow::Error::new(error).context(format!("refused to fetch `{}`", show(&url))))
        }
        GateOutcome::Refused(refusal) => {
            Err(Refused(format!("not fetching `{}`: {refusal}", show(&url))).into())
        }
        GateOutcome::Deferred { why, .. } => {
            Err(Refused(format!("not now for `{}`: {why}", show(&url))).into())
        }
        GateOutcome::Failed(error) => {
            Err(anyhow::Error::new(error).context(format!("failed to fetch `{}`", show(&url))))
        }
    }
}
