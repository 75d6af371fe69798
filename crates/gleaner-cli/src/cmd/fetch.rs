//! `gleaner fetch URL`: a manual check, as the seeds' staff make by hand ("the same
//! User-Agent, the same robots.txt rules, a handful of requests at least 2 seconds
//! apart"). It goes through the same gate as the crawler, on the same store: robots.txt
//! first, the site's budget shared with any running crawl (the manual-check gap, 2 s by
//! default, and every other rule), Retry-After and blocks honoured, the owners' registry,
//! the audit log, and a daily cap per site (`[purposes] manual_checks_per_site_per_day`).
//! It prints every step: the decision, each redirect hop, and the final response.
//!
//! Exit codes: 0 when the URL was fetched (whatever its status), 3 when robots.txt, the
//! site, an owner or the daily cap said no (the "no" is printed), 2 for bad input, 1 for
//! other failures.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_config::{Settings, redact_url};
use gleaner_fetch::{GateOutcome, GateRequest, RedirectChain};
use gleaner_policy::Purpose;
use gleaner_policy::signals::challenge;
use gleaner_scheduler::manual::may_check;
use url::Url;

use crate::BadInput;
use crate::wiring::open_store;

/// Arguments of `gleaner fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The URL to check (http or https).
    url: String,
    /// Also print the first bytes of the body.
    #[arg(long)]
    show_body: bool,
}

/// Returned when a site, its robots.txt, an owner or the daily cap refused the check
/// (exit 3).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Runs `gleaner fetch`.
pub fn run(args: &FetchArgs, config: &Path) -> Result<()> {
    let settings = Arc::new(crate::cmd::config::load(config)?);
    let url = Url::parse(&args.url)
        .map_err(|e| BadInput(format!("`{}` is not a valid URL: {e}", args.url)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadInput(format!("`{}` is not an http or https URL", args.url)).into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(check(settings, url, args.show_body))
}

async fn check(settings: Arc<Settings>, url: Url, show_body: bool) -> Result<()> {
    let store = open_store(&settings)?;
    let gate =
        crate::wiring::gate_for(&settings, &store, crate::wiring::GateRole::Occasional).await?;
    let show = |u: &Url| redact_url(u, &settings.network.secret_query_params, &[]);
    let mut out = std::io::stdout().lock();
    writeln!(out, "user-agent: {}", settings.bot.user_agent())?;
    let mut chain = RedirectChain::new(
        url.clone(),
        settings.limits.max_redirects,
        settings.network.secret_query_params.clone(),
    );
    let mut current = url;
    let result = loop {
        let request = GateRequest::new(current.clone(), Purpose::ManualCheck);
        if let Err(refusal) = may_check(&gate, &store, &settings, &request).await {
            break Err(Refused(refusal));
        }
        match gate.explain(&request).await {
            Ok(explanation) => {
                for step in explanation.steps {
                    writeln!(out, "decision: {step}")?;
                }
            }
            Err(error) => writeln!(out, "decision: unknown: {error}")?,
        }
        let fetched = match gate.fetch(&request).await {
            GateOutcome::Fetched(fetched) => fetched,
            GateOutcome::Refused(gleaner_fetch::Refusal::Local(error)) => {
                // gleaner's own guard (SSRF, URL, method), not the site's "no".
                return Err(anyhow::Error::new(error)
                    .context(format!("refused to fetch `{}`", show(&current))));
            }
            GateOutcome::Refused(refusal) => {
                break Err(Refused(format!("not fetching `{}`: {refusal}", show(&current))));
            }
            GateOutcome::Deferred { why, .. } => {
                break Err(Refused(format!("not now for `{}`: {why}", show(&current))));
            }
            GateOutcome::Failed(error) => {
                store.flush_audit().await.ok();
                return Err(anyhow::Error::new(error)
                    .context(format!("failed to fetch `{}`", show(&current))));
            }
        };
        writeln!(
            out,
            "fetch:    GET {} -> HTTP {} in {} ms",
            show(&current),
            fetched.status,
            fetched.elapsed.as_millis()
        )?;
        if fetched.is_redirect() {
            match chain.follow(fetched.location()) {
                Ok(next) => {
                    writeln!(out, "redirect: hop {} to {}", chain.hops(), show(&next))?;
                    current = next;
                    continue;
                }
                Err(e) => break Err(Refused(format!("not following the redirect: {e}"))),
            }
        }
        let headers: Vec<(&str, &str)> =
            fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
        for (name, value) in &headers {
            writeln!(out, "  {name}: {value}")?;
        }
        writeln!(out, "body:     {} bytes", fetched.body.len())?;
        let verdict = challenge::classify(
            fetched.status,
            &headers,
            &fetched.body,
            &settings.signal_settings(),
        );
        if verdict.is_block() {
            writeln!(out, "note:     {verdict}; the block is stored for this site")?;
        }
        if show_body {
            let preview = String::from_utf8_lossy(&fetched.body[..fetched.body.len().min(2048)]);
            writeln!(out, "{preview}")?;
        }
        break Ok(());
    };
    store
        .flush_audit()
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))
        .context("failed to write the audit log")?;
    if let Err(refused) = &result {
        writeln!(out, "refused:  {refused}")?;
    }
    result.map_err(Into::into)
}
