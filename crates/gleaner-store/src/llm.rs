//! The language model's part of the store (issue 18): the translation cache, each row
//! linked to the events that use it and deleted with the last of them; which model
//! extracted or translated an event, with the prompt version; token counters for
//! `/metrics`. Written once for both backends (`crate::sql`); the tables are in migration 9 (SQLite) and 7 (PostgreSQL).

use std::time::SystemTime;

use crate::sql::{params, returned};
use crate::{Store, StoreError};

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

/// A token counter as stored (never negative).
fn count(v: i64) -> u64 {
    v.max(0) as u64
}

impl Store {
    /// A cached English text for (text hash, original language, model).
    pub async fn cached_translation(
        &self,
        text_hash: &str,
        lang: &str,
        model: &str,
    ) -> Result<Option<String>, StoreError> {
        let sql = "SELECT english FROM translation_cache WHERE text_hash = $1 AND lang = $2 AND model = $3";
        let doing = "reading the translation cache".to_owned();
        let row = self.db().row(sql, params![text_hash, lang, model], doing).await?;
        row.map(|r| r.get(0)).transpose()
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
        let (target, model) = (target.to_owned(), model.to_owned());
        let english =
            |field: &str| parts.iter().find(|p| p.field == field).map(|p| p.english.clone());
        let (title, description) = (english("title"), english("description"));
        self.db()
            .tx(format!("storing the translation of event {event_id}"), move |tx| {
                Box::pin(async move {
                    let params = params![event_id, &target, title, description, now];
                    tx.exec(crate::content::UPSERT_TRANSLATION, params).await?;
                    for p in &parts {
                        let written = tx
                            .run(
                                "INSERT INTO translation_cache (text_hash, lang, model, english, created_ms)
                                 VALUES ($1, $2, $3, $4, $5)
                                 ON CONFLICT (text_hash, lang, model) DO UPDATE SET english = excluded.english
                                 RETURNING id",
                                params![&p.text_hash, &p.lang, &model, &p.english, now],
                            )
                            .await?;
                        let cache_id: i64 = returned(written, "a translation cache row")?;
                        tx.exec(
                            "INSERT INTO translation_uses (event_id, lang, field, cache_id) VALUES ($1, $2, $3, $4)
                             ON CONFLICT (event_id, lang, field) DO UPDATE SET cache_id = excluded.cache_id",
                            params![event_id, &target, &p.field, cache_id],
                        )
                        .await?;
                    }
                    // A field no longer translated (the description went) lets its cache row go.
                    for field in ["title", "description"] {
                        if !parts.iter().any(|p| p.field == field) {
                            tx.exec(
                                "DELETE FROM translation_uses WHERE event_id = $1 AND lang = $2 AND field = $3",
                                params![event_id, &target, field],
                            )
                            .await?;
                        }
                    }
                    Ok(())
                })
            })
            .await
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
        self.db()
            .exec(
                "INSERT INTO event_models (event_id, step, model, prompt_version, at_ms)
                 SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM events WHERE id = $1)
                 ON CONFLICT (event_id, step) DO UPDATE SET model = excluded.model,
                     prompt_version = excluded.prompt_version, at_ms = excluded.at_ms",
                params![event_id, step, model, prompt_version, now],
                format!("recording the language model's part in event {event_id}"),
            )
            .await
            .map(drop)
    }

    /// The model steps recorded for an event.
    pub async fn model_steps(&self, event_id: i64) -> Result<Vec<ModelStep>, StoreError> {
        let sql = "SELECT step, model, prompt_version, at_ms FROM event_models
                   WHERE event_id = $1 ORDER BY step";
        let doing = format!("reading the language model's part in event {event_id}");
        let rows = self.db().query(sql, params![event_id], doing).await?;
        rows.iter()
            .map(|r| {
                Ok(ModelStep {
                    step: r.get(0)?,
                    model: r.get(1)?,
                    prompt_version: r.get(2)?,
                    at: r.get(3)?,
                })
            })
            .collect()
    }

    /// Events of `source` with no translation step recorded, oldest first.
    pub async fn pending_translations(
        &self,
        source: &str,
        limit: u32,
    ) -> Result<Vec<PendingTranslation>, StoreError> {
        let sql = "SELECT id, title, description, url FROM events e
                   WHERE source = $1 AND NOT EXISTS
                     (SELECT 1 FROM event_models m WHERE m.event_id = e.id AND m.step = 'translation')
                   ORDER BY id LIMIT $2";
        let doing = format!("reading the untranslated events of source `{source}`");
        let rows = self.db().query(sql, params![source, limit], doing).await?;
        rows.iter()
            .map(|r| {
                Ok(PendingTranslation {
                    event_id: r.get(0)?,
                    title: r.get(1)?,
                    description: r.get(2)?,
                    url: r.get(3)?,
                })
            })
            .collect()
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
        let p = prompt_tokens.min(i64::MAX as u64) as i64;
        let c = completion_tokens.min(i64::MAX as u64) as i64;
        self.db()
            .exec(
                "INSERT INTO llm_usage (model, step, requests, failures, prompt_tokens, completion_tokens)
                 VALUES ($1, $2, 1, $3, $4, $5)
                 ON CONFLICT (model, step) DO UPDATE SET requests = llm_usage.requests + 1,
                     failures = llm_usage.failures + excluded.failures,
                     prompt_tokens = llm_usage.prompt_tokens + excluded.prompt_tokens,
                     completion_tokens = llm_usage.completion_tokens + excluded.completion_tokens",
                params![model, step, i64::from(failed), p, c],
                "counting language-model tokens".to_owned(),
            )
            .await
            .map(drop)
    }

    /// The counters of every model and step.
    pub async fn llm_usage(&self) -> Result<Vec<LlmUsage>, StoreError> {
        let sql = "SELECT model, step, requests, failures, prompt_tokens, completion_tokens
                   FROM llm_usage ORDER BY model, step";
        let rows = self.db().query(sql, params![], "reading language-model tokens".into()).await?;
        rows.iter()
            .map(|r| {
                Ok(LlmUsage {
                    model: r.get(0)?,
                    step: r.get(1)?,
                    requests: count(r.get(2)?),
                    failures: count(r.get(3)?),
                    prompt_tokens: count(r.get(4)?),
                    completion_tokens: count(r.get(5)?),
                })
            })
            .collect()
    }
}
