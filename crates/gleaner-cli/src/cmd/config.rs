//! `gleaner config check`: validate a configuration file and summarise the promises it
//! makes, or list every problem with its line, key and a hint (exit 2).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Subcommand;
use gleaner_config::{Settings, summary};

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
            let mut out = std::io::stdout().lock();
            let stdout = "failed to write to stdout";
            out.write_all(summary::summary(path, &settings).as_bytes()).context(stdout)?;
            for name in settings.load_api_keys(|name| std::env::var(name).ok()) {
                eprintln!(
                    "warning: the environment variable `{name}` (a licensed API's key) is not set: that source's passes will stop until it is"
                );
            }
            let report = gleaner_config::budget_check::budget_check(&settings);
            out.write_all(summary::budget(&settings, &report).as_bytes()).context(stdout)?;
            for warning in &report.warnings {
                eprintln!("warning: {}\nhint: {}", warning.message, warning.hint);
            }
            Ok(())
        }
    }
}
