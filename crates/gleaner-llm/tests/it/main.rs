//! The language-model step against a scripted provider on loopback: the provider's
//! contract (schema, retries, Retry-After, deadlines, the allow-list), validation of
//! extraction answers, prompt injection, translation and its cache.

mod extract;
mod mock;
mod provider;
mod translate;

use std::sync::Arc;

use gleaner_config::Settings;
use gleaner_llm::{Llm, MemoryLlmStore, Provider};

/// Settings with `[llm]` on `base` (allowed on `allow`), a source `venue` with `llm` and
/// `translate` as given.
pub fn settings(base: &str, allow: &str, extra_llm: &str, llm: &str, translate: bool) -> Settings {
    let text = format!(
        r#"
[bot]
token = "gleaner-test"
version = "1.0"
info_url = "https://gleaner.example/bot"
operator = "Test"

[[infrastructure]]
name = "mock-llm"
url = "{base}"
allow = ["{allow}"]
timeout = "2s"
max_in_flight = 2

[llm]
endpoint = "mock-llm"
model = "test-model"
requests_per_minute = 6000
max_retry_wait = "5s"
{extra_llm}

[[sources]]
id = "venue"
kind = "listing"
start_urls = ["http://127.0.0.1:9/events/"]
llm = "{llm}"
translate = {translate}
"#
    );
    gleaner_config::parse(&text, "test.toml").unwrap()
}

/// The step over `settings`, with its memory store.
pub async fn llm(settings: &Settings) -> (Llm, Arc<MemoryLlmStore>) {
    let store = Arc::new(MemoryLlmStore::default());
    let provider = Provider::connect(settings.llm.as_ref().unwrap(), &|_| None).await.unwrap();
    let llm = Llm::new(
        provider,
        settings.llm.clone().unwrap(),
        settings.bot.token.clone(),
        Arc::clone(&store) as Arc<dyn gleaner_llm::LlmStore>,
    );
    (llm, store)
}

/// A normalised event with this title and description (on 5 December 2026).
pub fn event(title: &str, description: Option<&str>) -> gleaner_event::Event {
    let raw = gleaner_event::RawEvent {
        name: Some(title.to_owned()),
        description: description.map(str::to_owned),
        start: Some("2026-12-05".to_owned()),
        ..Default::default()
    };
    let base = url::Url::parse("http://127.0.0.1:9/").unwrap();
    let ctx = gleaner_event::NormaliseContext { base_url: &base, default_tz: None };
    gleaner_event::normalise(&raw, &ctx).unwrap().event
}
