//! What the language-model step needs from the store, as an object-safe trait (the CLI
//! implements it over `gleaner_store::Store`; tests use [`MemoryLlmStore`]).

use std::collections::HashMap;
use std::sync::Mutex;

use gleaner_event::EventIdentity;
use gleaner_policy::state::BoxFuture;
use url::Url;

use crate::provider::Usage;

/// (event id, step) → (model, prompt version).
pub type Steps = HashMap<(i64, &'static str), (String, String)>;
/// (model, step) → (requests, failures, prompt tokens, completion tokens).
pub type UsageCounts = HashMap<(String, &'static str), (u64, u64, u64, u64)>;

/// One translated field, with its cache key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslatedField {
    /// `title` or `description`.
    pub field: &'static str,
    /// The original's language.
    pub lang: String,
    /// SHA-256 of the original text (hex).
    pub text_hash: String,
    /// The English text.
    pub english: String,
}

/// An event still waiting for its translation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untranslated {
    /// The event's id in the store.
    pub event_id: i64,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// The page it was read from (for the rights check and the audit log).
    pub page: Option<Url>,
}

/// The model steps an event went through: `extraction` and `translation`.
pub const STEP_EXTRACTION: &str = "extraction";
/// See [`STEP_EXTRACTION`].
pub const STEP_TRANSLATION: &str = "translation";

/// Storage for the language-model step.
pub trait LlmStore: Send + Sync {
    /// The stored event with this identity.
    fn event_id(&self, identity: EventIdentity) -> BoxFuture<'_, Option<i64>>;
    /// Records that `step` of the event was done by `model` with `prompt_version` (or,
    /// with model `none`, decided without one: English already, rights reserved).
    fn record_step<'a>(
        &'a self,
        event_id: i64,
        step: &'static str,
        model: &'a str,
        prompt_version: &'a str,
    ) -> BoxFuture<'a, ()>;
    /// Whether the event has a record of `step`.
    fn has_step(&self, event_id: i64, step: &'static str) -> BoxFuture<'_, bool>;
    /// A cached translation of a text (hash, original language, model).
    fn cached<'a>(
        &'a self,
        text_hash: &'a str,
        lang: &'a str,
        model: &'a str,
    ) -> BoxFuture<'a, Option<String>>;
    /// Stores the English title and description of an event, each linked to its cache row.
    fn put_translation<'a>(
        &'a self,
        event_id: i64,
        model: &'a str,
        fields: Vec<TranslatedField>,
    ) -> BoxFuture<'a, Result<(), String>>;
    /// Events of `source` with no translation step recorded, oldest first.
    fn untranslated<'a>(&'a self, source: &'a str, limit: u32) -> BoxFuture<'a, Vec<Untranslated>>;
    /// Adds a request's tokens to the counters of `/metrics`.
    fn record_usage<'a>(
        &'a self,
        model: &'a str,
        step: &'static str,
        usage: Usage,
        failed: bool,
    ) -> BoxFuture<'a, ()>;
    /// Writes an audit row: `page` was not sent to the model, and why.
    fn audit_not_sent<'a>(
        &'a self,
        page: &'a Url,
        source: &'a str,
        reason: String,
    ) -> BoxFuture<'a, ()>;
    /// A site-level reservation of AI use (TDMRep file, ai.txt) covering `page`. The
    /// default knows none; [`crate::store_llm::StoreLlm`] answers from the stored rights files.
    fn site_reservation<'a>(&'a self, page: &'a Url) -> BoxFuture<'a, Option<String>> {
        let _ = page;
        Box::pin(async { None })
    }
}

/// An [`LlmStore`] in memory, for tests.
#[derive(Debug, Default)]
pub struct MemoryLlmStore {
    /// Events by identity → id.
    pub ids: Mutex<HashMap<EventIdentity, i64>>,
    /// Recorded steps: (event, step) → (model, prompt version).
    pub steps: Mutex<Steps>,
    /// Cache rows: (hash, lang, model) → English.
    pub cache: Mutex<HashMap<(String, String, String), String>>,
    /// Translations: event → fields.
    pub translations: Mutex<HashMap<i64, Vec<TranslatedField>>>,
    /// Usage: (model, step) → (requests, failures, prompt, completion).
    pub usage: Mutex<UsageCounts>,
    /// Audit rows: (page, reason).
    pub audit: Mutex<Vec<(String, String)>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl LlmStore for MemoryLlmStore {
    fn event_id(&self, identity: EventIdentity) -> BoxFuture<'_, Option<i64>> {
        Box::pin(async move {
            let mut ids = lock(&self.ids);
            let next = ids.len() as i64 + 1;
            Some(*ids.entry(identity).or_insert(next))
        })
    }

    fn record_step<'a>(
        &'a self,
        event_id: i64,
        step: &'static str,
        model: &'a str,
        prompt_version: &'a str,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            lock(&self.steps)
                .insert((event_id, step), (model.to_owned(), prompt_version.to_owned()));
        })
    }

    fn has_step(&self, event_id: i64, step: &'static str) -> BoxFuture<'_, bool> {
        Box::pin(async move { lock(&self.steps).contains_key(&(event_id, step)) })
    }

    fn cached<'a>(
        &'a self,
        text_hash: &'a str,
        lang: &'a str,
        model: &'a str,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            lock(&self.cache)
                .get(&(text_hash.to_owned(), lang.to_owned(), model.to_owned()))
                .cloned()
        })
    }

    fn put_translation<'a>(
        &'a self,
        event_id: i64,
        model: &'a str,
        fields: Vec<TranslatedField>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            for f in &fields {
                lock(&self.cache).insert(
                    (f.text_hash.clone(), f.lang.clone(), model.to_owned()),
                    f.english.clone(),
                );
            }
            lock(&self.translations).insert(event_id, fields);
            Ok(())
        })
    }

    fn untranslated<'a>(&'a self, source: &'a str, limit: u32) -> BoxFuture<'a, Vec<Untranslated>> {
        let _ = (source, limit);
        Box::pin(async { Vec::new() })
    }

    fn record_usage<'a>(
        &'a self,
        model: &'a str,
        step: &'static str,
        usage: Usage,
        failed: bool,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let mut u = lock(&self.usage);
            let row = u.entry((model.to_owned(), step)).or_default();
            row.0 += 1;
            row.1 += u64::from(failed);
            row.2 += usage.prompt_tokens;
            row.3 += usage.completion_tokens;
        })
    }

    fn audit_not_sent<'a>(
        &'a self,
        page: &'a Url,
        source: &'a str,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        let _ = source;
        Box::pin(async move { lock(&self.audit).push((page.to_string(), reason)) })
    }
}
