//! `[llm]`: the language model gleaner may use for extraction and translation (issue 18),
//! and each source's `llm = "off" | "fallback" | "always"`.
//!
//! The model server itself is an `[[infrastructure]]` endpoint (base URL, address
//! allow-list, requests in flight, deadline, API key variable); `[llm]` names it and adds
//! the model, the rate limit, retries and the size caps. Without `[llm]`, no source may
//! use a model or be translated.

use std::time::Duration;

use serde::Deserialize;

use crate::error::Problem;
use crate::settings::Infrastructure;
use crate::units::parse_duration;

/// `[llm]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawLlm {
    /// The `[[infrastructure]]` entry (its `name`) that serves the model.
    pub endpoint: Option<String>,
    /// The model name sent with each request.
    pub model: Option<String>,
    /// Requests per minute, at most.
    pub requests_per_minute: Option<u32>,
    /// Retries after a 429 or 5xx answer.
    pub max_retries: Option<u32>,
    /// The longest wait a Retry-After may ask for before the request is given up.
    pub max_retry_wait: Option<String>,
    /// Most characters of a page's visible text sent for extraction.
    pub max_page_chars: Option<usize>,
    /// Most tokens the model may answer with.
    pub max_answer_tokens: Option<u32>,
    /// Events translated per pass at most (retries of earlier failures included).
    pub max_translations_per_pass: Option<u32>,
}

/// When a source's pages are read with the language model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum LlmMode {
    /// Never (the default).
    #[default]
    Off,
    /// Only for pages where structured data and site rules found no event.
    Fallback,
    /// For every event page (structured data still wins where it found events).
    Always,
}

impl LlmMode {
    /// The config spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            LlmMode::Off => "off",
            LlmMode::Fallback => "fallback",
            LlmMode::Always => "always",
        }
    }
}

/// The resolved `[llm]` table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmSettings {
    /// The endpoint serving the model (copied from `[[infrastructure]]`).
    pub endpoint: Infrastructure,
    /// The model name.
    pub model: String,
    /// Requests per minute, at most.
    pub requests_per_minute: u32,
    /// Retries after a 429 or 5xx answer.
    pub max_retries: u32,
    /// The longest Retry-After honoured; a longer one gives the request up.
    pub max_retry_wait: Duration,
    /// Most characters of visible page text sent per page.
    pub max_page_chars: usize,
    /// Most tokens per answer.
    pub max_answer_tokens: u32,
    /// Events translated per pass at most.
    pub max_translations_per_pass: u32,
}

/// Reads a source's `llm` value (`None` → off).
pub fn mode(key: &str, value: Option<&str>, problems: &mut Vec<Problem>) -> LlmMode {
    match value {
        None | Some("off") => LlmMode::Off,
        Some("fallback") => LlmMode::Fallback,
        Some("always") => LlmMode::Always,
        Some(other) => {
            problems.push(
                Problem::at(key, format!("`{other}` is not `off`, `fallback` or `always`"))
                    .hint("`fallback` reads a page with the model only when structured data found nothing"),
            );
            LlmMode::Off
        }
    }
}

/// Resolves `[llm]` against the infrastructure endpoints; `uses` says whether some source
/// uses a model or translation (then `[llm]` is required).
pub fn resolve(
    raw: Option<&RawLlm>,
    infrastructure: &[Infrastructure],
    uses: Option<&str>,
    problems: &mut Vec<Problem>,
) -> Option<LlmSettings> {
    let Some(raw) = raw else {
        if let Some(source) = uses {
            problems.push(
                Problem::at("llm", format!("source `{source}` uses a language model or translation, but there is no `[llm]` table"))
                    .hint("add `[llm]` with `endpoint` (an `[[infrastructure]]` name) and `model`, or set the source's `llm = \"off\"` and `translate = false`"),
            );
        }
        return None;
    };
    let before = problems.len();
    let endpoint = match raw.endpoint.as_deref() {
        None => {
            problems.push(
                Problem::at("llm.endpoint", "is missing")
                    .hint("name the `[[infrastructure]]` entry that serves the model, e.g. `endpoint = \"local-llm\"`"),
            );
            None
        }
        Some(name) => match infrastructure.iter().find(|i| i.name == name) {
            Some(i) => Some(i.clone()),
            None => {
                problems.push(
                    Problem::at("llm.endpoint", format!("no `[[infrastructure]]` entry is named `{name}`"))
                        .hint("add `[[infrastructure]]` with `name`, `url` (e.g. `http://127.0.0.1:8080/v1/`) and `allow`"),
                );
                None
            }
        },
    };
    let model = match raw.model.as_deref().map(str::trim) {
        Some(m) if !m.is_empty() => m.to_owned(),
        _ => {
            problems.push(Problem::at("llm.model", "is missing").hint(
                "the model name your server expects, e.g. `model = \"qwen2.5-7b-instruct\"`",
            ));
            String::new()
        }
    };
    let positive = |problems: &mut Vec<Problem>, key: &str, v: Option<u32>, default: u32| match v {
        Some(0) => {
            problems.push(Problem::at(key, "must be at least 1"));
            default
        }
        Some(n) => n,
        None => default,
    };
    let requests_per_minute =
        positive(problems, "llm.requests_per_minute", raw.requests_per_minute, 30);
    let max_answer_tokens =
        positive(problems, "llm.max_answer_tokens", raw.max_answer_tokens, 1024);
    let max_translations_per_pass =
        positive(problems, "llm.max_translations_per_pass", raw.max_translations_per_pass, 50);
    let max_retries = raw.max_retries.unwrap_or(3).min(10);
    let max_retry_wait = match raw.max_retry_wait.as_deref().map(parse_duration) {
        None => Duration::from_secs(60),
        Some(Ok(d)) => d,
        Some(Err(e)) => {
            problems.push(Problem::at("llm.max_retry_wait", e));
            Duration::from_secs(60)
        }
    };
    let max_page_chars = match raw.max_page_chars {
        Some(n) if n < 200 => {
            problems.push(Problem::at("llm.max_page_chars", "must be at least 200"));
            12_000
        }
        Some(n) => n,
        None => 12_000,
    };
    if problems.len() > before {
        return None;
    }
    Some(LlmSettings {
        endpoint: endpoint?,
        model,
        requests_per_minute,
        max_retries,
        max_retry_wait,
        max_page_chars,
        max_answer_tokens,
        max_translations_per_pass,
    })
}
