//! Wiring of the language-model step (issue 18): the store as its [`LlmStore`], the
//! provider connected from `[llm]`, diagnostics to stderr. Glue only.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use anyhow::Result;
use gleaner_config::Settings;
use gleaner_event::EventIdentity;
use gleaner_llm::{Llm, LlmStore, ProviderError, TranslatedField, Untranslated, Usage};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink, Outcome, RefusalKind};
use gleaner_policy::signals::reservation::RightsUse;
use gleaner_policy::state::BoxFuture;
use gleaner_store::{Store, TranslationPart};
use url::Url;

use crate::BadInput;

/// The store as the language-model step's storage.
pub struct StoreLlm {
    store: Store,
    settings: Arc<Settings>,
}

fn warn<T>(what: &str, r: Result<T, gleaner_store::StoreError>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            eprintln!("warning: {what}: {e}");
            None
        }
    }
}

impl LlmStore for StoreLlm {
    fn event_id(&self, identity: EventIdentity) -> BoxFuture<'_, Option<i64>> {
        Box::pin(
            async move { warn("finding an event", self.store.event_id(identity).await).flatten() },
        )
    }

    fn record_step<'a>(
        &'a self,
        event_id: i64,
        step: &'static str,
        model: &'a str,
        prompt_version: &'a str,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            warn(
                "recording the language model's part in an event",
                self.store
                    .record_model_step(event_id, step, model, prompt_version, SystemTime::now())
                    .await,
            );
        })
    }

    fn has_step(&self, event_id: i64, step: &'static str) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            warn(
                "reading the language model's part in an event",
                self.store.model_steps(event_id).await,
            )
            .is_some_and(|steps| steps.iter().any(|s| s.step == step))
        })
    }

    fn cached<'a>(
        &'a self,
        text_hash: &'a str,
        lang: &'a str,
        model: &'a str,
    ) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            warn(
                "reading the translation cache",
                self.store.cached_translation(text_hash, lang, model).await,
            )
            .flatten()
        })
    }

    fn put_translation<'a>(
        &'a self,
        event_id: i64,
        model: &'a str,
        fields: Vec<TranslatedField>,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            let parts = fields
                .into_iter()
                .map(|f| TranslationPart {
                    field: f.field.to_owned(),
                    lang: f.lang,
                    text_hash: f.text_hash,
                    english: f.english,
                })
                .collect();
            self.store
                .put_cached_translation(event_id, "en", model, parts, SystemTime::now())
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn untranslated<'a>(&'a self, source: &'a str, limit: u32) -> BoxFuture<'a, Vec<Untranslated>> {
        Box::pin(async move {
            warn(
                "reading untranslated events",
                self.store.pending_translations(source, limit).await,
            )
            .unwrap_or_default()
            .into_iter()
            .map(|p| Untranslated {
                event_id: p.event_id,
                title: p.title,
                description: p.description,
                page: p.url.and_then(|u| Url::parse(&u).ok()),
            })
            .collect()
        })
    }

    fn record_usage<'a>(
        &'a self,
        model: &'a str,
        step: &'static str,
        usage: Usage,
        failed: bool,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            warn(
                "counting language-model tokens",
                self.store
                    .add_llm_usage(
                        model,
                        step,
                        usage.prompt_tokens,
                        usage.completion_tokens,
                        failed,
                    )
                    .await,
            );
        })
    }

    fn audit_not_sent<'a>(
        &'a self,
        page: &'a Url,
        source: &'a str,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A refusal: counted by /metrics as one, never as a request.
            self.store.record(AuditRecord {
                time: SystemTime::now(),
                site: gleaner_fetch::site_key(page),
                url: page.to_string(),
                purpose: Purpose::EventPage,
                source: Some(source.to_owned()),
                outcome: Outcome::Refused(RefusalKind::RightsReserved),
                error: None,
                bytes: 0,
                duration: Duration::ZERO,
                reason,
            });
        })
    }

    fn site_reservation<'a>(&'a self, page: &'a Url) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            // The site's rights files (TDMRep, ai.txt) as the pass stored them (issue 16).
            // With the robots.txt AI-use preferences (`ai-input=no`), most restrictively.
            let site = gleaner_fetch::site_key(page);
            let prefs = crate::relay_wiring::robots_prefs(&self.store, &self.settings, &site).await;
            let files = crate::relay_wiring::site_rights(&self.store, &site).await;
            let rights = files
                .map(|f| gleaner_scheduler::rights::SiteRights::parse(&f))
                .unwrap_or_default()
                .with_prefs(prefs);
            let decision = gleaner_scheduler::rights::decide(
                &self.settings,
                Some(&rights),
                page,
                RightsUse::LanguageModel,
                &[],
                &[],
            );
            (!decision.is_allowed()).then(|| decision.to_string())
        })
    }
}

/// The language-model step from `[llm]`, or `None` without it. An endpoint outside its
/// allow-list, or a missing API key variable, is bad input (exit 2).
pub async fn connect(settings: &Arc<Settings>, store: &Store) -> Result<Option<Arc<Llm>>> {
    let storage: Arc<dyn LlmStore> =
        Arc::new(StoreLlm { store: store.clone(), settings: Arc::clone(settings) });
    match Llm::connect(settings, storage, &|var| std::env::var(var).ok()).await {
        Ok(llm) => Ok(llm.map(|l| Arc::new(l.with_log(|line| eprintln!("{line}"))))),
        Err(e @ (ProviderError::NotAllowed { .. } | ProviderError::MissingKey(_))) => {
            Err(BadInput(e.to_string()).into())
        }
        Err(e) => Err(anyhow::anyhow!("{e}")),
    }
}
