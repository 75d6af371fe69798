//! The language model's tables on SQLite (see `crate::llm`).

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};
use crate::llm::{LlmUsage, ModelStep, PendingTranslation, TranslationPart};

impl Sqlite {
    pub(crate) async fn cached_translation(
        &self,
        text_hash: &str,
        lang: &str,
        model: &str,
    ) -> Result<Option<String>, StoreError> {
        let (h, l, m) = (text_hash.to_owned(), lang.to_owned(), model.to_owned());
        self.read(move |conn| {
            conn.query_row(
                "SELECT english FROM translation_cache WHERE text_hash = ?1 AND lang = ?2 AND model = ?3",
                params![h, l, m],
                |r| r.get(0),
            )
            .optional()
            .doing(|| "reading the translation cache".to_owned())
        })
        .await
    }

    pub(crate) async fn put_cached_translation(
        &self,
        event_id: i64,
        target: &str,
        model: &str,
        parts: Vec<TranslationPart>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let (target, model) = (target.to_owned(), model.to_owned());
        let now = codec::to_ms(now);
        self.write(
            move || format!("storing the translation of event {event_id}"),
            move |tx| {
                let doing = || format!("storing the translation of event {event_id}");
                let title = parts.iter().find(|p| p.field == "title").map(|p| p.english.clone());
                let description =
                    parts.iter().find(|p| p.field == "description").map(|p| p.english.clone());
                tx.execute(
                    "INSERT INTO translations (event_id, lang, title, description, created_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (event_id, lang) DO UPDATE SET title = excluded.title,
                         description = excluded.description, created_ms = excluded.created_ms",
                    params![event_id, target, title, description, now],
                )
                .doing(doing)?;
                for p in &parts {
                    let cache_id: i64 = tx
                        .query_row(
                            "INSERT INTO translation_cache (text_hash, lang, model, english, created_ms)
                             VALUES (?1, ?2, ?3, ?4, ?5)
                             ON CONFLICT (text_hash, lang, model) DO UPDATE SET english = excluded.english
                             RETURNING id",
                            params![p.text_hash, p.lang, model, p.english, now],
                            |r| r.get(0),
                        )
                        .doing(doing)?;
                    tx.execute(
                        "INSERT INTO translation_uses (event_id, lang, field, cache_id)
                         VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT (event_id, lang, field) DO UPDATE SET cache_id = excluded.cache_id",
                        params![event_id, target, p.field, cache_id],
                    )
                    .doing(doing)?;
                }
                // A field no longer translated (the description went) lets its cache row go.
                let fields: Vec<String> = parts.iter().map(|p| p.field.clone()).collect();
                for field in ["title", "description"] {
                    if !fields.iter().any(|f| f == field) {
                        tx.execute(
                            "DELETE FROM translation_uses WHERE event_id = ?1 AND lang = ?2 AND field = ?3",
                            params![event_id, target, field],
                        )
                        .doing(doing)?;
                    }
                }
                Ok(())
            },
        )
        .await
    }

    pub(crate) async fn record_model_step(
        &self,
        event_id: i64,
        step: &str,
        model: &str,
        prompt_version: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let (s, m, p) = (step.to_owned(), model.to_owned(), prompt_version.to_owned());
        let now = codec::to_ms(now);
        self.write(
            move || format!("recording the language model's part in event {event_id}"),
            move |tx| {
                tx.execute(
                    "INSERT INTO event_models (event_id, step, model, prompt_version, at_ms)
                     SELECT ?1, ?2, ?3, ?4, ?5 WHERE EXISTS (SELECT 1 FROM events WHERE id = ?1)
                     ON CONFLICT (event_id, step) DO UPDATE SET model = excluded.model,
                         prompt_version = excluded.prompt_version, at_ms = excluded.at_ms",
                    params![event_id, s, m, p, now],
                )
                .map(|_| ())
                .doing(|| format!("recording the language model's part in event {event_id}"))
            },
        )
        .await
    }

    pub(crate) async fn model_steps(&self, event_id: i64) -> Result<Vec<ModelStep>, StoreError> {
        self.read(move |conn| {
            let doing = || format!("reading the language model's part in event {event_id}");
            let mut st = conn
                .prepare_cached(
                    "SELECT step, model, prompt_version, at_ms FROM event_models
                     WHERE event_id = ?1 ORDER BY step",
                )
                .doing(doing)?;
            st.query_map(params![event_id], |r| {
                Ok(ModelStep {
                    step: r.get(0)?,
                    model: r.get(1)?,
                    prompt_version: r.get(2)?,
                    at: codec::from_ms(r.get(3)?),
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .doing(doing)
        })
        .await
    }

    pub(crate) async fn pending_translations(
        &self,
        source: &str,
        limit: u32,
    ) -> Result<Vec<PendingTranslation>, StoreError> {
        let source = source.to_owned();
        self.read(move |conn| {
            let doing = || format!("reading the untranslated events of source `{source}`");
            let mut st = conn
                .prepare_cached(
                    "SELECT id, title, description, url FROM events e
                     WHERE source = ?1 AND NOT EXISTS
                       (SELECT 1 FROM event_models m WHERE m.event_id = e.id AND m.step = 'translation')
                     ORDER BY id LIMIT ?2",
                )
                .doing(doing)?;
            st.query_map(params![source, i64::from(limit)], |r| {
                Ok(PendingTranslation {
                    event_id: r.get(0)?,
                    title: r.get(1)?,
                    description: r.get(2)?,
                    url: r.get(3)?,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .doing(doing)
        })
        .await
    }

    pub(crate) async fn add_llm_usage(
        &self,
        model: &str,
        step: &str,
        prompt_tokens: u64,
        completion_tokens: u64,
        failed: bool,
    ) -> Result<(), StoreError> {
        let (m, s) = (model.to_owned(), step.to_owned());
        let (p, c) = (
            prompt_tokens.min(i64::MAX as u64) as i64,
            completion_tokens.min(i64::MAX as u64) as i64,
        );
        self.write(
            || "counting language-model tokens".to_owned(),
            move |tx| {
                tx.execute(
                    "INSERT INTO llm_usage (model, step, requests, failures, prompt_tokens, completion_tokens)
                     VALUES (?1, ?2, 1, ?3, ?4, ?5)
                     ON CONFLICT (model, step) DO UPDATE SET requests = requests + 1,
                         failures = failures + excluded.failures,
                         prompt_tokens = prompt_tokens + excluded.prompt_tokens,
                         completion_tokens = completion_tokens + excluded.completion_tokens",
                    params![m, s, i64::from(failed), p, c],
                )
                .map(|_| ())
                .doing(|| "counting language-model tokens".to_owned())
            },
        )
        .await
    }

    pub(crate) async fn llm_usage(&self) -> Result<Vec<LlmUsage>, StoreError> {
        self.read(move |conn| {
            let doing = || "reading language-model tokens".to_owned();
            let mut st = conn
                .prepare_cached(
                    "SELECT model, step, requests, failures, prompt_tokens, completion_tokens
                     FROM llm_usage ORDER BY model, step",
                )
                .doing(doing)?;
            st.query_map([], |r| {
                Ok(LlmUsage {
                    model: r.get(0)?,
                    step: r.get(1)?,
                    requests: r.get::<_, i64>(2)?.max(0) as u64,
                    failures: r.get::<_, i64>(3)?.max(0) as u64,
                    prompt_tokens: r.get::<_, i64>(4)?.max(0) as u64,
                    completion_tokens: r.get::<_, i64>(5)?.max(0) as u64,
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .doing(doing)
        })
        .await
    }
}
