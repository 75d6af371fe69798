//! gleaner's language-model step (issue 18): off by default, per source.
//!
//! - [`provider`]: an OpenAI-compatible chat-completions client used as an
//!   infrastructure endpoint (address allow-list, deadline, requests in flight, rate limit,
//!   retries on 429/5xx honouring Retry-After, structured output with a JSON schema);
//! - [`extract`]: the extraction prompt (page text delimited as data) and the validation
//!   every answer passes — each date, time, price and place must be in the page text;
//! - [`translate`]: language detection and translation into English, cached by text
//!   hash, language and model;
//! - [`rights`]: a page reserving AI use is never sent;
//! - [`store`]: the [`LlmStore`] seam, with its in-memory implementation;
//!   [`store_llm`]: its implementation over `gleaner_store::Store`;
//! - [`Llm`]: what the pass calls — [`Llm::read_page`] for each document,
//!   [`Llm::stored`] after each event is stored, [`Llm::retry_translations`] at the end.

pub mod extract;
pub mod provider;
pub mod rights;
pub mod store;
pub mod store_llm;
pub mod text;
pub mod translate;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono_tz::Tz;
use gleaner_config::Settings;
use gleaner_config::llm::{LlmMode, LlmSettings};
use gleaner_config::sources::Source;
use gleaner_event::{Event, EventIdentity, NormaliseContext};
use url::Url;

pub use provider::{ChatAnswer, Provider, ProviderError, Usage};
pub use store::{
    LlmStore, MemoryLlmStore, STEP_EXTRACTION, STEP_TRANSLATION, TranslatedField, Untranslated,
};

/// Bounds the remembered pages (see [`Llm::read_page`]); cleared past this.
const MEMORY_CAP: usize = 10_000;

type Log = Box<dyn Fn(&str) + Send + Sync>;

/// The language-model step for every source of one process.
pub struct Llm {
    provider: Provider,
    settings: LlmSettings,
    token: String,
    store: Arc<dyn LlmStore>,
    /// Events the model found, by page, until they are stored (for their provenance).
    made: Mutex<HashMap<String, Vec<String>>>,
    /// Pages whose rights reserve AI use (their events are not translated).
    reserved: Mutex<HashMap<String, String>>,
    /// The language each page declares (`<html lang>`), a hint for short titles.
    langs: Mutex<HashMap<String, String>>,
    log: Log,
}

impl std::fmt::Debug for Llm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Llm").field("provider", &self.provider).finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Llm {
    /// The step for `settings`, or `None` when `[llm]` is not configured. `env` reads
    /// environment variables (the API key).
    pub async fn connect(
        settings: &Settings,
        store: Arc<dyn LlmStore>,
        env: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<Option<Llm>, ProviderError> {
        let Some(llm) = &settings.llm else { return Ok(None) };
        let provider = Provider::connect(llm, env).await?;
        Ok(Some(Llm::new(provider, llm.clone(), settings.bot.token.clone(), store)))
    }

    /// The step over a connected provider; `token` is the bot's product token (for
    /// robots meta tags naming it).
    pub fn new(
        provider: Provider,
        settings: LlmSettings,
        token: String,
        store: Arc<dyn LlmStore>,
    ) -> Llm {
        Llm {
            provider,
            settings,
            token,
            store,
            made: Mutex::default(),
            reserved: Mutex::default(),
            langs: Mutex::default(),
            log: Box::new(|_| {}),
        }
    }

    /// Where diagnostics go (rejected answers, failed requests); nowhere by default.
    pub fn with_log(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Llm {
        self.log = Box::new(log);
        self
    }

    /// The provider.
    pub fn provider(&self) -> &Provider {
        &self.provider
    }

    fn say(&self, line: &str) {
        (self.log)(line);
    }

    /// A document was read: returns the events to store — `extracted` plus, for an event
    /// page of a source with `llm = "always"`, or `"fallback"` when `extracted` is empty,
    /// the model's validated events. A page (or site) reserving AI use is never sent; the
    /// audit log says why.
    #[allow(clippy::too_many_arguments)]
    pub async fn read_page(
        &self,
        source: &Source,
        page: &Url,
        headers: &[(String, String)],
        body: &str,
        zone: Option<Tz>,
        event_page: bool,
        extracted: Vec<Event>,
    ) -> Vec<Event> {
        let wants_model = event_page
            && match source.llm {
                LlmMode::Off => false,
                LlmMode::Fallback => extracted.is_empty(),
                LlmMode::Always => true,
            };
        if !wants_model && !source.translate {
            return extracted;
        }
        if source.translate
            && let Some(lang) = text::declared_lang(body)
        {
            let mut langs = lock(&self.langs);
            if langs.len() > MEMORY_CAP {
                langs.clear();
            }
            langs.insert(page.to_string(), lang);
        }
        let reservation = match rights::page_reservation(&self.token, headers, body) {
            Some(r) => Some(r),
            None => self.store.site_reservation(page).await,
        };
        if let Some(reason) = &reservation {
            let mut reserved = lock(&self.reserved);
            if reserved.len() > MEMORY_CAP {
                reserved.clear();
            }
            reserved.insert(page.to_string(), reason.clone());
        }
        if !wants_model {
            return extracted;
        }
        if let Some(reason) = reservation {
            self.store
                .audit_not_sent(
                    page,
                    &source.id,
                    format!("{reason}: not sent to the language model"),
                )
                .await;
            return extracted;
        }
        let (text, removed) = text::without_instructions(&text::visible_text(body));
        if removed > 0 {
            self.say(&format!(
                "language model: `{page}`: {removed} line(s) addressed to a language model left out of the text and the evidence"
            ));
        }
        let text = text::cap(&text, self.settings.max_page_chars);
        if text.trim().is_empty() {
            return extracted;
        }
        let answer = self
            .provider
            .chat(
                extract::SYSTEM_PROMPT,
                &extract::user_message(page, text),
                "events",
                &extract::schema(),
            )
            .await;
        let answer = match answer {
            Ok(a) => {
                self.store
                    .record_usage(self.provider.model(), STEP_EXTRACTION, a.usage, false)
                    .await;
                a
            }
            Err(e) => {
                self.store
                    .record_usage(self.provider.model(), STEP_EXTRACTION, Usage::default(), true)
                    .await;
                self.say(&format!("language model: `{page}` not read: {e}"));
                return extracted;
            }
        };
        let validated = extract::validate(&answer.content, text, page);
        for d in &validated.diagnostics {
            self.say(&format!("language model: `{page}`: {d}"));
        }
        let ctx = NormaliseContext { base_url: page, default_tz: zone };
        let mut events = extracted;
        let mut titles = Vec::new();
        for raw in validated.events {
            if let Ok(n) = gleaner_event::normalise(&raw, &ctx) {
                if let Some(t) = &n.event.title {
                    titles.push(t.clone());
                }
                events.push(n.event);
            }
        }
        if !titles.is_empty() {
            let mut made = lock(&self.made);
            if made.len() > MEMORY_CAP {
                made.clear();
            }
            made.entry(page.to_string()).or_default().extend(titles);
        }
        events
    }

    /// An event was stored (`changed`: new or with changed facts): records the model's
    /// part in its provenance, and translates it when its source asks and it is not
    /// translated yet.
    pub async fn stored(
        &self,
        source: &Source,
        page: &Url,
        identity: EventIdentity,
        event: &Event,
        changed: bool,
    ) {
        let by_model = {
            let mut made = lock(&self.made);
            let key = page.to_string();
            let hit = match (made.get_mut(&key), &event.title) {
                (Some(titles), Some(title)) => match titles.iter().position(|t| t == title) {
                    Some(i) => {
                        titles.swap_remove(i);
                        true
                    }
                    None => false,
                },
                _ => false,
            };
            if made.get(&key).is_some_and(Vec::is_empty) {
                made.remove(&key);
            }
            hit
        };
        if !by_model && !source.translate {
            return;
        }
        let Some(id) = self.store.event_id(identity).await else { return };
        if by_model {
            self.store
                .record_step(id, STEP_EXTRACTION, self.provider.model(), extract::PROMPT_VERSION)
                .await;
        }
        if source.translate && (changed || !self.store.has_step(id, STEP_TRANSLATION).await) {
            self.translate(
                source,
                &Untranslated {
                    event_id: id,
                    title: event.title.clone(),
                    description: event.description.clone(),
                    page: Some(page.clone()),
                },
            )
            .await;
        }
    }

    /// Translates the events of `source` that earlier attempts left untranslated (at most
    /// `llm.max_translations_per_pass`); returns how many were translated now.
    pub async fn retry_translations(&self, source: &Source) -> u32 {
        if !source.translate {
            return 0;
        }
        let pending =
            self.store.untranslated(&source.id, self.settings.max_translations_per_pass).await;
        let mut done = 0;
        for event in pending {
            if self.translate(source, &event).await {
                done += 1;
            }
        }
        done
    }

    /// Translates one event's title and description into English; `true` when a
    /// translation (or a decision not to translate) was recorded. A failure records
    /// nothing, so a later pass tries again.
    async fn translate(&self, source: &Source, event: &Untranslated) -> bool {
        let id = event.event_id;
        let known = event.page.as_ref().and_then(|p| lock(&self.reserved).get(p.as_str()).cloned());
        let reservation = match (&event.page, known) {
            (_, Some(r)) => Some(r),
            (Some(page), None) => self.store.site_reservation(page).await,
            (None, None) => None,
        };
        if let Some(reason) = reservation {
            if let Some(page) = &event.page {
                self.store
                    .audit_not_sent(
                        page,
                        &source.id,
                        format!("{reason}: not translated by the language model"),
                    )
                    .await;
            }
            self.store.record_step(id, STEP_TRANSLATION, "none", "rights reserved").await;
            return true;
        }
        let sample = [event.title.as_deref(), event.description.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("\n");
        let declared = event.page.as_ref().and_then(|p| lock(&self.langs).get(p.as_str()).cloned());
        let Some(detected) = translate::language_of(&sample, declared.as_deref()) else {
            self.store.record_step(id, STEP_TRANSLATION, "none", "language unknown").await;
            return true;
        };
        if detected.is_english() {
            self.store.record_step(id, STEP_TRANSLATION, "none", "already English").await;
            return true;
        }
        let model = self.provider.model().to_owned();
        let mut fields = Vec::new();
        for (field, text) in [("title", &event.title), ("description", &event.description)] {
            let Some(text) = text.as_deref().filter(|t| !t.trim().is_empty()) else { continue };
            let hash = translate::text_hash(text);
            let english = match self.store.cached(&hash, &detected.lang, &model).await {
                Some(cached) => cached,
                None => {
                    let answer = self
                        .provider
                        .chat(
                            translate::SYSTEM_PROMPT,
                            &translate::user_message(&detected.lang, text),
                            "translation",
                            &translate::schema(),
                        )
                        .await;
                    let answer = match answer {
                        Ok(a) => {
                            self.store.record_usage(&model, STEP_TRANSLATION, a.usage, false).await;
                            a
                        }
                        Err(e) => {
                            self.store
                                .record_usage(&model, STEP_TRANSLATION, Usage::default(), true)
                                .await;
                            self.say(&format!(
                                "language model: event {id} not translated (retried later): {e}"
                            ));
                            return false;
                        }
                    };
                    match translate::validate(&answer.content, text) {
                        Ok(t) => t,
                        Err(e) => {
                            self.say(&format!(
                                "language model: event {id} not translated (retried later): {e}"
                            ));
                            return false;
                        }
                    }
                }
            };
            fields.push(TranslatedField {
                field,
                lang: detected.lang.clone(),
                text_hash: hash,
                english,
            });
        }
        if fields.is_empty() {
            return false;
        }
        if let Err(e) = self.store.put_translation(id, &model, fields).await {
            self.say(&format!("language model: storing the translation of event {id} failed: {e}"));
            return false;
        }
        self.store.record_step(id, STEP_TRANSLATION, &model, translate::PROMPT_VERSION).await;
        true
    }
}
