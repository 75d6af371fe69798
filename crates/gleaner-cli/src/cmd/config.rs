//! `gleaner config check`: validate a configuration file and summarise the promises it
//! makes, or list every problem with its line, key and a hint (exit 2).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;
use gleaner_config::Settings;

use crate::BadInput;

/// The `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a configuration file and print the politeness numbers it sets.
    Check {
        /// The file to check (default: the global `--config`).
        file: Option<PathBuf>,
    },
}

/// Reads and validates a configuration file; problems are bad input (exit 2).
pub fn load(path: &Path) -> Result<Settings> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        BadInput(format!(
            "failed to read configuration `{}`: {e}\nhint: pass --config FILE, or start from examples/gleaner.toml",
            path.display()
        ))
    })?;
    let mut settings = gleaner_config::parse(&text, &path.display().to_string())
        .map_err(|e| BadInput(e.to_string()))?;
    // Licensed APIs' keys come from the environment, never from the file; a missing one
    // stops that source's passes with the variable's name (and `config check` warns).
    settings.load_api_keys(|name| std::env::var(name).ok());
    load_identity(&mut settings, path)?;
    load_start_urls(&mut settings, path)?;
    Ok(settings)
}

/// Reads each source's `start_urls_file` (relative to the config file's folder): a bad
/// line is bad input naming `file:line`.
pub fn load_start_urls(settings: &mut Settings, config_path: &Path) -> Result<()> {
    let folder = config_path.parent().map(Path::to_path_buf).unwrap_or_default();
    let problems = settings.load_start_urls_files(|file| {
        let path = if file.is_absolute() { file.to_path_buf() } else { folder.join(file) };
        std::fs::read_to_string(&path).map_err(|e| format!("`{}`: {e}", path.display()))
    });
    if !problems.is_empty() {
        return Err(BadInput(problems.join("\n")).into());
    }
    Ok(())
}

/// Reads the `[identity]` signing keys (files relative to the config file's folder, or
/// environment variables) and checks each is an Ed25519 PKCS#8 key: a key that cannot be
/// used is bad input, before any request is sent unsigned.
pub fn load_identity(settings: &mut Settings, config_path: &Path) -> Result<()> {
    let folder = config_path.parent().map(Path::to_path_buf).unwrap_or_default();
    let problems = settings.load_identity_keys(
        |file| {
            let path = if file.is_absolute() { file.to_path_buf() } else { folder.join(file) };
            std::fs::read_to_string(&path).map_err(|e| format!("`{}`: {e}", path.display()))
        },
        |name| std::env::var(name).ok(),
    );
    if !problems.is_empty() {
        return Err(BadInput(format!(
            "{}\nhint: `gleaner identity new --out FILE` writes a key; `[identity] key_file` names it",
            problems.join("\n")
        ))
        .into());
    }
    if let Some(identity) = &settings.identity {
        gleaner_fetch::signing::Signer::new(identity).map_err(|e| BadInput(e.to_string()))?;
    }
    Ok(())
}

/// Runs a `config` subcommand.
pub fn run(command: ConfigCommand, global_config: &Path) -> Result<()> {
    match command {
        ConfigCommand::Check { file } => {
            let path = file.as_deref().unwrap_or(global_config);
            let mut settings = load(path)?;
            print_summary(path, &settings).context("failed to write to stdout")?;
            for name in settings.load_api_keys(|name| std::env::var(name).ok()) {
                eprintln!(
                    "warning: the environment variable `{name}` (a licensed API's key) is not set: that source's passes will stop until it is"
                );
            }
            print_budget(&settings).context("failed to write to stdout")
        }
    }
}

fn print_summary(path: &Path, s: &Settings) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let secs = |d: std::time::Duration| humantime::format_duration(d).to_string();
    writeln!(out, "ok: `{}` is valid", path.display())?;
    writeln!(out, "user-agent:        {}", s.bot.user_agent())?;
    writeln!(out, "robots.txt token:  {}", s.bot.token)?;
    writeln!(out, "gap per site:      {}", secs(s.politeness.gap))?;
    for (purpose, p) in &s.politeness.purpose {
        if let Some(gap) = p.gap {
            writeln!(out, "  {purpose}: gap {}", secs(gap))?;
        }
        if let Some((min, max)) = p.jitter {
            writeln!(out, "  {purpose}: jitter {}..{}", secs(min), secs(max))?;
        }
        if let Some(n) = p.max_in_flight {
            writeln!(out, "  {purpose}: at most {n} in flight")?;
        }
    }
    writeln!(out, "in flight per site: {}", s.politeness.max_in_flight)?;
    writeln!(out, "daily cap (all):   {}", s.politeness.global_daily_cap)?;
    writeln!(
        out,
        "retry-after:       default {}, capped at {}",
        secs(s.politeness.retry_after_default),
        secs(s.politeness.retry_after_cap)
    )?;
    writeln!(
        out,
        "limits:            connect {}, response {}, body {} bytes, {} redirects",
        secs(s.limits.connect_timeout),
        secs(s.limits.response_deadline),
        s.limits.max_body_bytes,
        s.limits.max_redirects
    )?;
    writeln!(out, "robots.txt cache:  {}", secs(s.robots.ttl))?;
    let purposes: Vec<&str> = s.purposes.enabled.iter().map(|p| p.as_str()).collect();
    writeln!(out, "purposes:          {}", purposes.join(", "))?;
    writeln!(out, "methods:           GET{}", if s.purposes.head_allowed { ", HEAD" } else { "" })?;
    for class in s.site_classes.values() {
        let quiet: Vec<String> = class
            .quiet_hours
            .iter()
            .map(|q| format!("{}-{}", q.start.format("%H:%M"), q.end.format("%H:%M")))
            .collect();
        writeln!(
            out,
            "class `{}`: zone {}, gap {}, quiet hours [{}], per pass {:?}, per hour {:?}, per day {:?}, visits per day {:?}",
            class.name,
            class.time_zone,
            secs(class.gap),
            quiet.join(", "),
            class.requests_per_pass,
            class.requests_per_hour,
            class.requests_per_day,
            class.visits_per_day
        )?;
    }
    Ok(())
}

/// The requests and visits per site per day the schedules and checks imply, on stdout;
/// a `warning:` on stderr wherever a promise would break (SPEC §4, "Config check").
fn print_budget(s: &Settings) -> std::io::Result<()> {
    let report = gleaner_config::budget_check::budget_check(s);
    let mut out = std::io::stdout().lock();
    let enabled = |p: gleaner_policy::Purpose| s.purposes.enabled.contains(&p);
    let cancellation = if enabled(gleaner_policy::Purpose::CancellationCheck) {
        format!(
            "every {}, today to +{} days{}",
            humantime::format_duration(s.checks.cancellation_every),
            s.checks.horizon_days,
            if s.checks.cancellation_head { ", HEAD first" } else { "" }
        )
    } else {
        "off".to_owned()
    };
    let link = if enabled(gleaner_policy::Purpose::LinkCheck) {
        format!(
            "every {}, at most {} per host per day",
            humantime::format_duration(s.checks.link_check_every),
            s.checks.link_checks_per_host_per_day
        )
    } else {
        "off".to_owned()
    };
    writeln!(out, "cancellation check: {cancellation}")?;
    writeln!(out, "link check:        {link}")?;
    writeln!(out, "store:             {}", store_line(&s.store))?;
    if !report.sites.is_empty() {
        writeln!(out, "per site per day (at most):")?;
    }
    for site in &report.sites {
        writeln!(
            out,
            "  {} (class `{}`): {} requests, {} visits: {} passes ({} requests), {} cancellation cycles ({} requests), {} link checks, {} robots.txt",
            site.host,
            site.class,
            site.requests(),
            site.visits(),
            site.passes,
            site.pass_requests,
            site.cancellation_cycles,
            site.cancellation_requests,
            site.link_check_requests,
            site.robots_requests
        )?;
    }
    if !report.sites.is_empty() {
        writeln!(
            out,
            "all sites per day: {} requests (global cap {}; these schedules need a cap of {})",
            report.total,
            s.politeness.global_daily_cap,
            report.cap_needed()
        )?;
    }
    let mut err = std::io::stderr().lock();
    for warning in &report.warnings {
        writeln!(err, "warning: {}", warning.message)?;
        writeln!(err, "hint: {}", warning.hint)?;
    }
    Ok(())
}

/// Where the store is and, on PostgreSQL, who shares its budgets (the password left out).
fn store_line(store: &gleaner_config::settings::StoreSettings) -> String {
    let url = match url::Url::parse(&store.url) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        _ => store.url.clone(),
    };
    if store.schema != store.politeness_namespace {
        format!(
            "{url}, copy `{}` sharing every site's budget with the copies of namespace `{}`",
            store.schema, store.politeness_namespace
        )
    } else if store.schema != "public" {
        format!("{url}, schema `{}`", store.schema)
    } else {
        url
    }
}
