//! `/metrics` in the Prometheus text format (version 0.0.4), written by hand: a few
//! families do not need a metrics library.
//!
//! Two kinds of numbers. The crawl's own counters (requests by purpose and status,
//! refusals by reason, suspensions, blocks, events, queue depth) are read when scraped
//! from the [`crate::EventSource`], whose store-backed implementation in the CLI counts
//! them from the audit log and the gate state: the store is the one place every process
//! writes to, so a scrape of any process sees the whole crawl, restarts included. The
//! server's own responses are counted in memory by a middleware.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

use gleaner_config::Settings;
use gleaner_policy::outcome::RefusalKind;

/// The crawl's counters, as the store knows them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrawlMetrics {
    /// Requests sent, by (purpose, HTTP status or `error`).
    pub requests: BTreeMap<(String, String), u64>,
    /// Requests refused before sending, by kind; the `reason` label is the kind's stable
    /// code (`opt-out`, `robots-disallowed`, `blocked`, …), a fixed set.
    pub refusals: BTreeMap<RefusalKind, u64>,
    /// Sites suspended now (429/503 with Retry-After).
    pub suspensions: u64,
    /// Sites blocked now (401/403, challenge pages).
    pub blocks: u64,
    /// Events stored, by whether they are published.
    pub events_published: u64,
    /// Events in the private newsroom pool.
    pub events_private: u64,
    /// Work waiting, when known (the store-backed source counts the sources whose pass
    /// is due now).
    pub queue_depth: Option<u64>,
    /// Language-model use by (model, step): requests, failed requests, prompt tokens and
    /// answer tokens (issue 18).
    pub llm: BTreeMap<(String, String), [u64; 4]>,
}

/// Responses served by this process, by route and status.
#[derive(Debug, Default)]
pub struct ServerCounters {
    by_route: Mutex<BTreeMap<(&'static str, u16), u64>>,
}

impl ServerCounters {
    /// Counts one response.
    pub fn count(&self, route: &'static str, status: u16) {
        let mut map = self.by_route.lock().unwrap_or_else(|p| p.into_inner());
        *map.entry((route, status)).or_default() += 1;
    }

    fn snapshot(&self) -> BTreeMap<(&'static str, u16), u64> {
        self.by_route.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The route label of a path: a fixed set, so a scan of random paths cannot grow the
/// label space.
pub fn route_label(path: &str) -> &'static str {
    match path {
        "/bot" => "/bot",
        "/bot.json" => "/bot.json",
        "/api/events" => "/api/events",
        "/api/news" => "/api/news",
        "/events" => "/events",
        "/events.ics" => "/events.ics",
        "/events.rss" => "/events.rss",
        "/metrics" => "/metrics",
        "/healthz" => "/healthz",
        p if p.starts_with("/bot/") => "/bot/{lang}",
        p if p.starts_with("/api/events/") => "/api/events/{id}",
        p if p.starts_with("/events/") => "/events/{id}",
        _ => "other",
    }
}

/// Escapes a label value (backslash, quote, newline).
fn label(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// Renders every family. `crawl` is `None` when the store could not be read; the
/// `gleaner_store_up` gauge then says 0. `overdue` is the count of unproven removal
/// requests older than `[owners] removal_within`, when this process serves the owners'
/// desk (the gauge is left out otherwise).
pub fn render(
    settings: &Settings,
    crawl: Option<&CrawlMetrics>,
    overdue: Option<u64>,
    server: &ServerCounters,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# HELP gleaner_info The bot's identity.\n# TYPE gleaner_info gauge");
    let _ = writeln!(
        out,
        "gleaner_info{{token=\"{}\",version=\"{}\"}} 1",
        label(&settings.bot.token),
        label(&settings.bot.version)
    );
    let _ = writeln!(
        out,
        "# HELP gleaner_store_up Whether the store answered this scrape.\n# TYPE gleaner_store_up gauge"
    );
    let _ = writeln!(out, "gleaner_store_up {}", u8::from(crawl.is_some()));
    let empty = CrawlMetrics::default();
    let c = crawl.unwrap_or(&empty);
    let _ = writeln!(
        out,
        "# HELP gleaner_requests_total Requests sent to sites, by purpose and HTTP status (from the audit log).\n# TYPE gleaner_requests_total counter"
    );
    for ((purpose, status), n) in &c.requests {
        let _ = writeln!(
            out,
            "gleaner_requests_total{{purpose=\"{}\",status=\"{}\"}} {n}",
            label(purpose),
            label(status)
        );
    }
    let _ = writeln!(
        out,
        "# HELP gleaner_refusals_total Requests the gate refused before sending, by reason.\n# TYPE gleaner_refusals_total counter"
    );
    for (kind, n) in &c.refusals {
        let _ = writeln!(out, "gleaner_refusals_total{{reason=\"{}\"}} {n}", kind.code());
    }
    let _ = writeln!(
        out,
        "# HELP gleaner_suspended_sites Sites paused now by a 429 or 503.\n# TYPE gleaner_suspended_sites gauge\ngleaner_suspended_sites {}",
        c.suspensions
    );
    let _ = writeln!(
        out,
        "# HELP gleaner_blocked_sites Sites left alone now after a 401, 403 or challenge.\n# TYPE gleaner_blocked_sites gauge\ngleaner_blocked_sites {}",
        c.blocks
    );
    let _ = writeln!(
        out,
        "# HELP gleaner_events Events stored, by visibility.\n# TYPE gleaner_events gauge\ngleaner_events{{visibility=\"published\"}} {}\ngleaner_events{{visibility=\"newsroom\"}} {}",
        c.events_published, c.events_private
    );
    if let Some(depth) = c.queue_depth {
        let _ = writeln!(
            out,
            "# HELP gleaner_queue_depth Sources whose pass is due now.\n# TYPE gleaner_queue_depth gauge\ngleaner_queue_depth {depth}"
        );
    }
    if let Some(overdue) = overdue {
        let _ = writeln!(
            out,
            "# HELP gleaner_owner_removals_overdue Unproven removal requests waiting for the operator longer than [owners] removal_within.\n# TYPE gleaner_owner_removals_overdue gauge\ngleaner_owner_removals_overdue {overdue}"
        );
    }
    render_llm(&mut out, &c.llm);
    let _ = writeln!(
        out,
        "# HELP gleaner_http_responses_total Responses this server sent, by route and status.\n# TYPE gleaner_http_responses_total counter"
    );
    for ((route, status), n) in server.snapshot() {
        let _ = writeln!(
            out,
            "gleaner_http_responses_total{{route=\"{route}\",status=\"{status}\"}} {n}"
        );
    }
    out
}

/// The language model's requests and tokens (issue 18), when a model was used.
fn render_llm(out: &mut String, llm: &BTreeMap<(String, String), [u64; 4]>) {
    if llm.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "# HELP gleaner_llm_requests_total Requests to the language model, by model, step and outcome.\n# TYPE gleaner_llm_requests_total counter"
    );
    for ((model, step), [requests, failures, _, _]) in llm {
        let (m, s) = (label(model), label(step));
        let ok = requests.saturating_sub(*failures);
        let _ = writeln!(
            out,
            "gleaner_llm_requests_total{{model=\"{m}\",step=\"{s}\",outcome=\"ok\"}} {ok}"
        );
        let _ = writeln!(
            out,
            "gleaner_llm_requests_total{{model=\"{m}\",step=\"{s}\",outcome=\"failed\"}} {failures}"
        );
    }
    let _ = writeln!(
        out,
        "# HELP gleaner_llm_tokens_total Tokens the language model reported, by model, step and kind.\n# TYPE gleaner_llm_tokens_total counter"
    );
    for ((model, step), [_, _, prompt, completion]) in llm {
        let (m, s) = (label(model), label(step));
        let _ = writeln!(
            out,
            "gleaner_llm_tokens_total{{model=\"{m}\",step=\"{s}\",kind=\"prompt\"}} {prompt}"
        );
        let _ = writeln!(
            out,
            "gleaner_llm_tokens_total{{model=\"{m}\",step=\"{s}\",kind=\"completion\"}} {completion}"
        );
    }
}

#[cfg(test)]
mod llm_tests {
    use super::*;

    #[test]
    fn language_model_requests_and_tokens_are_counters_by_model_and_step() {
        let mut out = String::new();
        render_llm(&mut out, &BTreeMap::new());
        assert!(out.is_empty(), "nothing without a model");
        let mut llm = BTreeMap::new();
        llm.insert(("qwen".to_owned(), "extraction".to_owned()), [5, 1, 4000, 300]);
        render_llm(&mut out, &llm);
        for line in [
            "# TYPE gleaner_llm_requests_total counter",
            "gleaner_llm_requests_total{model=\"qwen\",step=\"extraction\",outcome=\"ok\"} 4",
            "gleaner_llm_requests_total{model=\"qwen\",step=\"extraction\",outcome=\"failed\"} 1",
            "# TYPE gleaner_llm_tokens_total counter",
            "gleaner_llm_tokens_total{model=\"qwen\",step=\"extraction\",kind=\"prompt\"} 4000",
            "gleaner_llm_tokens_total{model=\"qwen\",step=\"extraction\",kind=\"completion\"} 300",
        ] {
            assert!(out.lines().any(|l| l == line), "missing `{line}` in\n{out}");
        }
    }
}
