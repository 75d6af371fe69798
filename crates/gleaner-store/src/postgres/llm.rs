//! The language model's tables on PostgreSQL (see `crate::llm`).

use std::time::SystemTime;

use super::{PgDoing, Postgres};
use crate::codec;
use crate::error::StoreError;
use crate::llm::{LlmUsage, ModelStep, PendingTranslation, TranslationPart};

fn count(v: i64) -> u64 {
    v.max(0) as u64
}

impl Postgres {
    pub(crate) async fn cached_translation(
        &self,
        text_hash: &str,
        lang: &str,
        model: &str,
    ) -> Result<Option<String>, StoreError> {
        Ok(self
            .row(
                "SELECT english FROM translation_cache WHERE text_hash = $1 AND lang = $2 AND model = $3",
                &[&text_hash, &lang, &model],
                || "reading the translation cache".to_owned(),
            )
            .await?
            .map(|r| r.get(0)))
    }

    pub(crate) async fn put_cached_translation(
        &self,
        event_id: i64,
        target: &str,
        model: &str,
        parts: Vec<TranslationPart>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let now = codec::to_ms(now);
        let loc = self.location.as_str();
        let doing = || format!("storing the translation of event {event_id}");
        let title = parts.iter().find(|p| p.field == "title").map(|p| p.english.clone());
        let description =
            parts.iter().find(|p| p.field == "description").map(|p| p.english.clone());
        let mut conn = self.conn().await?;
        let tx = conn.transaction().await.doing(loc, doing)?;
        tx.execute(
            "INSERT INTO translations (event_id, lang, title, description, created_ms)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (event_id, lang) DO UPDATE SET title = excluded.title,
                 description = excluded.description, created_ms = excluded.created_ms",
            &[&event_id, &target, &title, &description, &now],
        )
        .await
        .doing(loc, doing)?;
        for p in &parts {
            let cache_id: i64 = tx
                .query_one(
                    "INSERT INTO translation_cache (text_hash, lang, model, english, created_ms)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (text_hash, lang, model) DO UPDATE SET english = excluded.english
                     RETURNING id",
                    &[&p.text_hash, &p.lang, &model, &p.english, &now],
                )
                .await
                .doing(loc, doing)?
                .get(0);
            tx.execute(
                "INSERT INTO translation_uses (event_id, lang, field, cache_id) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (event_id, lang, field) DO UPDATE SET cache_id = excluded.cache_id",
                &[&event_id, &target, &p.field, &cache_id],
            )
            .await
            .doing(loc, doing)?;
        }
        for field in ["title", "description"] {
            if !parts.iter().any(|p| p.field == field) {
                tx.execute(
                    "DELETE FROM translation_uses WHERE event_id = $1 AND lang = $2 AND field = $3",
                    &[&event_id, &target, &field],
                )
                .await
                .doing(loc, doing)?;
            }
        }
        tx.commit().await.doing(loc, doing)
    }

    pub(crate) async fn record_model_step(
        &self,
        event_id: i64,
        step: &str,
        model: &str,
        prompt_version: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let now = codec::to_ms(now);
        self.exec(
            "INSERT INTO event_models (event_id, step, model, prompt_version, at_ms)
             SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM events WHERE id = $1)
             ON CONFLICT (event_id, step) DO UPDATE SET model = excluded.model,
                 prompt_version = excluded.prompt_version, at_ms = excluded.at_ms",
            &[&event_id, &step, &model, &prompt_version, &now],
            || format!("recording the language model's part in event {event_id}"),
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn model_steps(&self, event_id: i64) -> Result<Vec<ModelStep>, StoreError> {
        Ok(self
            .rows(
                "SELECT step, model, prompt_version, at_ms FROM event_models
                 WHERE event_id = $1 ORDER BY step",
                &[&event_id],
                || format!("reading the language model's part in event {event_id}"),
            )
            .await?
            .into_iter()
            .map(|r| ModelStep {
                step: r.get(0),
                model: r.get(1),
                prompt_version: r.get(2),
                at: codec::from_ms(r.get(3)),
            })
            .collect())
    }

    pub(crate) async fn pending_translations(
        &self,
        source: &str,
        limit: u32,
    ) -> Result<Vec<PendingTranslation>, StoreError> {
        let limit = i64::from(limit);
        Ok(self
            .rows(
                "SELECT id, title, description, url FROM events e
                 WHERE source = $1 AND NOT EXISTS
                   (SELECT 1 FROM event_models m WHERE m.event_id = e.id AND m.step = 'translation')
                 ORDER BY id LIMIT $2",
                &[&source, &limit],
                || format!("reading the untranslated events of source `{source}`"),
            )
            .await?
            .into_iter()
            .map(|r| PendingTranslation {
                event_id: r.get(0),
                title: r.get(1),
                description: r.get(2),
                url: r.get(3),
            })
            .collect())
    }

    pub(crate) async fn add_llm_usage(
        &self,
        model: &str,
        step: &str,
        prompt_tokens: u64,
        completion_tokens: u64,
        failed: bool,
    ) -> Result<(), StoreError> {
        let p = prompt_tokens.min(i64::MAX as u64) as i64;
        let c = completion_tokens.min(i64::MAX as u64) as i64;
        let f = i64::from(failed);
        self.exec(
            "INSERT INTO llm_usage (model, step, requests, failures, prompt_tokens, completion_tokens)
             VALUES ($1, $2, 1, $3, $4, $5)
             ON CONFLICT (model, step) DO UPDATE SET requests = llm_usage.requests + 1,
                 failures = llm_usage.failures + excluded.failures,
                 prompt_tokens = llm_usage.prompt_tokens + excluded.prompt_tokens,
                 completion_tokens = llm_usage.completion_tokens + excluded.completion_tokens",
            &[&model, &step, &f, &p, &c],
            || "counting language-model tokens".to_owned(),
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn llm_usage(&self) -> Result<Vec<LlmUsage>, StoreError> {
        Ok(self
            .rows(
                "SELECT model, step, requests, failures, prompt_tokens, completion_tokens
                 FROM llm_usage ORDER BY model, step",
                &[],
                || "reading language-model tokens".to_owned(),
            )
            .await?
            .into_iter()
            .map(|r| LlmUsage {
                model: r.get(0),
                step: r.get(1),
                requests: count(r.get(2)),
                failures: count(r.get(3)),
                prompt_tokens: count(r.get(4)),
                completion_tokens: count(r.get(5)),
            })
            .collect())
    }
}
