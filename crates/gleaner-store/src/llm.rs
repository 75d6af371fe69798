//! The language model's part of the store (issue 18): the translation cache, each row
//! linked to the events that use it and deleted with the last of them; which model
//! extracted or translated an event, with the prompt version; token counters for
//! `/metrics`. Both backends implement the same methods (`sqlite/llm.rs`,
//! `postgres/llm.rs`); the tables are in migration 9 (SQLite) and 7 (PostgreSQL).

use std::time::SystemTime;

use crate::{Backend, Store, StoreError};

/// One English field of an event's translation, with its cache key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranslationPart {
    /// `title` or `description`.
    pub field: String,
    /// The original's language.
    pub lang: String,
    /// SHA-256 of the original (hex).
    pub text_hash: String,
    /// The English text.
    pub english: String,
}

/// What a model did to an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelStep {
    /// `extraction` or `translation`.
    pub step: String,
    /// The model (`none` for a decision made without one).
    pub model: String,
    /// The prompt version, or why no model was used.
    pub prompt_version: String,
    /// When.
    pub at: SystemTime,
}

/// An event of a source with no translation step recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingTranslation {
    /// The event's id.
    pub event_id: i64,
    /// Its title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its page.
    pub url: Option<String>,
}

/// Requests and tokens of one model and step, since the store was created.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LlmUsage {
    /// The model.
    pub model: String,
    /// `extraction` or `translation`.
    pub step: String,
    /// Requests (each with its retries).
    pub requests: u64,
    /// Requests that got no usable answer.
    pub failures: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Answer tokens.
    pub completion_tokens: u64,
}

impl Store {
    /// A cached English text for (text hash, original language, model).
    pub async fn cached_translation(
        &self,
        text_hash: &str,
        lang: &str,
        model: &str,
    ) -> Result<Option<String>, StoreError> {
        dispatch!(self, db => db.cached_translation(text_hash, lang, model).await)
    }

    /// Stores an event's translation into `target` (`en`): the `translations` row the
    /// API shows, and one cache row per field, linked to the event.
    pub async fn put_cached_translation(
        &self,
        event_id: i64,
        target: &str,
        model: &str,
        parts: Vec<TranslationPart>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        dispatch!(self, db => db.put_cached_translation(event_id, target, model, parts, now).await)
    }

    /// Records that `step` of an event was done by `model` (replacing an earlier record).
    pub async fn record_model_step(
        &self,
        event_id: i64,
        step: &str,
        model: &str,
        prompt_version: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        dispatch!(self, db => db.record_model_step(event_id, step, model, prompt_version, now).await)
    }

    /// The model steps recorded for an event.
    pub async fn model_steps(&self, event_id: i64) -> Result<Vec<ModelStep>, StoreError> {
        dispatch!(self, db => db.model_steps(event_id).await)
    }

    /// Events of `source` with no translation step recorded, oldest first.
    pub async fn pending_translations(
        &self,
        source: &str,
        limit: u32,
    ) -> Result<Vec<PendingTranslation>, StoreError> {
        dispatch!(self, db => db.pending_translations(source, limit).await)
    }

    /// Adds one request to the counters of a model and step.
    pub async fn add_llm_usage(
        &self,
        model: &str,
        step: &str,
        prompt_tokens: u64,
        completion_tokens: u64,
        failed: bool,
    ) -> Result<(), StoreError> {
        dispatch!(self, db => db.add_llm_usage(model, step, prompt_tokens, completion_tokens, failed).await)
    }

    /// The counters of every model and step.
    pub async fn llm_usage(&self) -> Result<Vec<LlmUsage>, StoreError> {
        dispatch!(self, db => db.llm_usage().await)
    }
}
