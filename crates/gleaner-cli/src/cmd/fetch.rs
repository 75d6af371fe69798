//! `gleaner fetch URL`: a manual check, as the seeds' staff make by hand ("the same
//! User-Agent, the same robots.txt rules, a handful of requests at least 2 seconds
//! apart"). It prints every step: robots.txt read first, the decision for the URL,
//! each redirect hop (with the robots.txt of any new site), and the final response.
//!
//! Exit codes: 0 when the URL was fetched (whatever its status), 3 when robots.txt or
//! the site said no (the "no" is printed), 2 for bad input, 1 for other failures.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use clap::Args;
use gleaner_config::{Settings, redact_url};
use gleaner_fetch::{Client, ClientSettings, FetchRequest, RedirectChain, read_robots};
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::RobotsState;
use gleaner_policy::signals::challenge;
use url::Url;

use crate::BadInput;

/// Arguments of `gleaner fetch`.
#[derive(Debug, Args)]
pub struct FetchArgs {
    /// The URL to check (http or https).
    url: String,
    /// Also print the first bytes of the body.
    #[arg(long)]
    show_body: bool,
}

/// Returned when a site or its robots.txt refused the check (exit 3).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// The scheme, host and port of a URL: one site, one robots.txt, one budget.
fn origin(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// Per-site spacing for this check: the next allowed start of each site.
struct Spacing {
    gap: Duration,
    next_start: HashMap<String, Instant>,
}

impl Spacing {
    async fn wait_turn(&mut self, site: &str, crawl_delay: Option<Duration>) {
        if let Some(&at) = self.next_start.get(site) {
            tokio::time::sleep_until(at.into()).await;
        }
        let gap = crawl_delay.map_or(self.gap, |d| d.max(self.gap));
        self.next_start.insert(site.to_owned(), Instant::now() + gap);
    }
}

/// Runs `gleaner fetch`.
pub fn run(args: &FetchArgs, config: &Path) -> Result<()> {
    let settings = crate::cmd::config::load(config)?;
    let url = Url::parse(&args.url)
        .map_err(|e| BadInput(format!("`{}` is not a valid URL: {e}", args.url)))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(BadInput(format!("`{}` is not an http or https URL", args.url)).into());
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    runtime.block_on(check(&settings, url, args.show_body))
}

async fn check(settings: &Settings, url: Url, show_body: bool) -> Result<()> {
    let client = Client::new(ClientSettings::from_settings(settings))?;
    let show = |u: &Url| redact_url(u, &settings.network.secret_query_params, &[]);
    let mut out = std::io::stdout().lock();
    let mut spacing = Spacing {
        gap: settings.politeness.gap_for(Purpose::ManualCheck),
        next_start: HashMap::new(),
    };
    let mut robots_by_site: HashMap<String, RobotsState> = HashMap::new();
    let mut chain = RedirectChain::new(
        url.clone(),
        settings.limits.max_redirects,
        settings.network.secret_query_params.clone(),
    );
    let mut current = url;
    writeln!(out, "user-agent: {}", client.user_agent())?;
    loop {
        let site = origin(&current);
        let host = current.host_str().unwrap_or_default().to_ascii_lowercase();
        let class = settings.class_of(&host);
        if !robots_by_site.contains_key(&site) {
            spacing.wait_turn(&site, None).await;
            let read = read_robots(
                &client,
                &current,
                &class.robots,
                &settings.signal_settings(),
                0,
                SystemTime::now,
            )
            .await
            .with_context(|| format!("failed to read robots.txt of `{site}`"))?;
            for hop in &read.hops {
                let status = hop.status.map_or("no response".to_owned(), |s| format!("HTTP {s}"));
                writeln!(out, "robots:   GET {} -> {status}", show(&hop.url))?;
            }
            writeln!(out, "robots:   {}", read.decision.reason)?;
            robots_by_site.insert(site.clone(), read.decision.state.clone());
        }
        let state = &robots_by_site[&site];
        let crawl_delay = match state {
            RobotsState::Rules(robots) => {
                let rules = robots.for_agent(&settings.bot.token);
                let verdict = rules.check(&gleaner_fetch::robots::path_and_query(&current));
                writeln!(out, "decision: {verdict} ({})", rules.selection())?;
                if !verdict.allowed {
                    return Err(Refused(format!(
                        "robots.txt of `{site}` disallows `{}`",
                        show(&current)
                    ))
                    .into());
                }
                rules.crawl_delay().map(|(d, _)| Duration::from_secs_f64(d.min(86_400.0)))
            }
            RobotsState::AllowAll => {
                writeln!(out, "decision: allowed: robots.txt sets no rules for us")?;
                None
            }
            RobotsState::Blocked | RobotsState::FetchNothing => {
                return Err(Refused(format!(
                    "fetching nothing from `{site}` until its robots.txt can be read"
                ))
                .into());
            }
        };
        spacing.wait_turn(&site, crawl_delay).await;
        let fetched = client
            .fetch(&FetchRequest::get(current.clone()))
            .await
            .with_context(|| format!("failed to fetch `{}`", show(&current)))?;
        writeln!(
            out,
            "fetch:    GET {} -> HTTP {} in {} ms",
            show(&current),
            fetched.status,
            fetched.elapsed.as_millis()
        )?;
        if fetched.is_redirect() {
            let next = chain
                .follow(fetched.location())
                .map_err(|e| Refused(format!("not following the redirect: {e}")))?;
            writeln!(out, "redirect: hop {} to {}", chain.hops(), show(&next))?;
            current = next;
            continue;
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
            writeln!(
                out,
                "note:     {verdict}; the crawler would stop and store a block for this site"
            )?;
        }
        if show_body {
            let preview = String::from_utf8_lossy(&fetched.body[..fetched.body.len().min(2048)]);
            writeln!(out, "{preview}")?;
        }
        return Ok(());
    }
}
