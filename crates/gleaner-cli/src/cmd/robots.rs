//! `gleaner robots check` and `gleaner robots explain`: the robots.txt decision of the
//! crawler, offline, for a file and a product token.
//!
//! `check` is a stable contract that other tools depend on: URLs on stdin, one per line;
//! one `allow<TAB>URL` or `disallow<TAB>URL` line per URL on stdout, in order, the URL
//! echoed unchanged; blank lines are skipped; exit 0. A missing file or an unparsable URL
//! is an error on stderr naming it, exit 2.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use gleaner_policy::robots::{AgentRules, RobotsTxt};

use crate::BadInput;

/// The `robots` subcommands.
#[derive(Debug, Subcommand)]
pub enum RobotsCommand {
    /// Read URLs on stdin (one per line) and print `allow<TAB>URL` or `disallow<TAB>URL`
    /// for each, in order.
    Check(FileAndAgent),
    /// Explain the decision for one URL: which group, which rule and line, and why.
    Explain {
        #[command(flatten)]
        file: FileAndAgent,
        /// The URL to explain.
        url: String,
    },
}

/// The robots.txt file and the product token to decide for.
#[derive(Debug, Args)]
pub struct FileAndAgent {
    /// The robots.txt file to read.
    #[arg(long, value_name = "FILE")]
    robots: PathBuf,
    /// The product token to select the group for (e.g. `UGYBot`; `UGYBot/1.0` works too).
    #[arg(long, value_name = "TOKEN")]
    agent: String,
}

/// Runs a `robots` subcommand.
pub fn run(command: RobotsCommand) -> Result<()> {
    match command {
        RobotsCommand::Check(args) => check(&args),
        RobotsCommand::Explain { file, url } => explain(&file, &url),
    }
}

fn load(args: &FileAndAgent) -> Result<(RobotsTxt, AgentRules)> {
    if gleaner_policy::robots::product_token(&args.agent).is_none() {
        return Err(BadInput(format!(
            "`{}` is not a product token: use letters, `-` and `_`, e.g. `UGYBot`",
            args.agent
        ))
        .into());
    }
    let bytes = read_file(&args.robots)?;
    let robots = RobotsTxt::parse(&bytes);
    let rules = robots.for_agent(&args.agent);
    Ok((robots, rules))
}

fn read_file(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| BadInput(format!("failed to read robots.txt file `{}`: {e}", path.display())))
        .map_err(Into::into)
}

/// The path and query of a URL as robots.txt matching sees it, or why it has none.
fn path_and_query(url: &str) -> std::result::Result<String, BadInput> {
    let parsed =
        url::Url::parse(url).map_err(|e| BadInput(format!("`{url}` is not a valid URL: {e}")))?;
    if parsed.cannot_be_a_base() {
        return Err(BadInput(format!(
            "`{url}` has no path to check (expected an http or https URL)"
        )));
    }
    Ok(gleaner_fetch::robots::path_and_query(&parsed))
}

fn check(args: &FileAndAgent) -> Result<()> {
    let (_, rules) = load(args)?;
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for (index, line) in stdin.lines().enumerate() {
        let line = line.context("failed to read URLs from stdin")?;
        let url = line.strip_suffix('\r').unwrap_or(&line);
        if url.trim().is_empty() {
            continue;
        }
        let path = match path_and_query(url.trim()) {
            Ok(path) => path,
            Err(e) => {
                out.flush().context("failed to write to stdout")?;
                return Err(anyhow::Error::new(e).context(format!("stdin line {}", index + 1)));
            }
        };
        let word = if rules.is_allowed(&path) { "allow" } else { "disallow" };
        writeln!(out, "{word}\t{url}").context("failed to write to stdout")?;
    }
    out.flush().context("failed to write to stdout")?;
    Ok(())
}

fn explain(args: &FileAndAgent, url: &str) -> Result<()> {
    let (robots, rules) = load(args)?;
    let path = path_and_query(url)?;
    let verdict = rules.check(&path);
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}\t{url}", if verdict.allowed { "allow" } else { "disallow" })?;
    writeln!(out, "file:      {}", args.robots.display())?;
    writeln!(out, "agent:     `{}` (product token `{}`)", args.agent, rules.token())?;
    for line in rules.explain(&robots, &path) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
