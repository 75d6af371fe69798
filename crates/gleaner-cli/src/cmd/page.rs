//! `gleaner page`: prints the about page generated from a configuration, in one of the
//! five languages, as HTML or Markdown — the same page `/bot/{lang}` serves, for
//! operators who publish it elsewhere.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use gleaner_server::about;
use gleaner_server::i18n::Lang;

use crate::BadInput;

/// The output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A standalone HTML page.
    Html,
    /// Markdown.
    Md,
}

/// Arguments of `gleaner page`.
#[derive(Debug, Args)]
pub struct PageArgs {
    /// The language: en, tr, fr, es or de.
    #[arg(long, value_name = "LANG", default_value = "en")]
    lang: String,
    /// HTML or Markdown.
    #[arg(long, value_enum, default_value = "html")]
    format: Format,
}

/// Runs `gleaner page`.
pub fn run(args: &PageArgs, config: &Path) -> Result<()> {
    let lang = Lang::ALL.into_iter().find(|l| l.code() == args.lang).ok_or_else(|| {
        BadInput(format!(
            "unknown language `{}`\nhint: the about page exists in en, tr, fr, es and de",
            args.lang
        ))
    })?;
    let settings = crate::cmd::config::load(config)?;
    let text = match args.format {
        Format::Html => about::render_html(&settings, lang),
        Format::Md => about::render_markdown(&settings, lang),
    };
    std::io::stdout().lock().write_all(text.as_bytes()).context("failed to write to stdout")
}
