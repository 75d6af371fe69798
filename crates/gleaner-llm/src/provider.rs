//! An OpenAI-compatible chat-completions client (vLLM, llama.cpp's server, Ollama, a
//! hosted API) used as an infrastructure endpoint: no robots.txt and no gate, but only on
//! addresses its `[[infrastructure]]` entry allows, with its own deadline, requests in
//! flight, rate limit and bounded retries on 429/5xx that honour Retry-After.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_config::llm::LlmSettings;
use ipnet::IpNet;
use serde_json::{Value, json};
use tokio::sync::{Mutex, Semaphore};
use tokio::time::Instant;
use url::Url;

/// Tokens a request used, as the provider reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Answer tokens.
    pub completion_tokens: u64,
}

/// An answer: the message content and the tokens it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatAnswer {
    /// The assistant message's content (JSON text when a schema was asked for).
    pub content: String,
    /// Tokens, summed over every attempt that got an answer.
    pub usage: Usage,
    /// Attempts made (1 without retries).
    pub attempts: u32,
}

/// Why a request to the model failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The endpoint's host is, or resolves to, an address outside its allow-list.
    #[error(
        "the language-model endpoint `{endpoint}` ({url}) is at {addresses}, outside its allow-list ({allow}); add its address to `allow` of that `[[infrastructure]]` entry if you trust it"
    )]
    NotAllowed {
        /// The endpoint's name.
        endpoint: String,
        /// Its base URL.
        url: String,
        /// The addresses found.
        addresses: String,
        /// The allow-list.
        allow: String,
    },
    /// The endpoint's host could not be resolved.
    #[error("cannot resolve the language-model endpoint `{endpoint}` ({url}): {error}")]
    Resolve {
        /// The endpoint's name.
        endpoint: String,
        /// Its base URL.
        url: String,
        /// The resolver's error.
        error: String,
    },
    /// The API key variable named in the config is not set.
    #[error(
        "the environment variable `{0}` named by the language-model endpoint's `api_key_env` is not set; export it or remove `api_key_env`"
    )]
    MissingKey(String),
    /// No answer in time, or the connection failed.
    #[error("the language model did not answer: {0}")]
    Transport(String),
    /// An error status that retrying does not fix (or retries ran out).
    #[error("the language model answered HTTP {status}: {message}")]
    Status {
        /// The HTTP status.
        status: u16,
        /// The provider's message, shortened.
        message: String,
    },
    /// A Retry-After longer than `max_retry_wait`.
    #[error(
        "the language model asked to wait {0:?}, longer than `llm.max_retry_wait`; the work is retried at a later pass"
    )]
    WaitTooLong(Duration),
    /// A 200 answer that is not a chat completion.
    #[error("the language model's answer is not a chat completion: {0}")]
    BadAnswer(String),
}

impl ProviderError {
    /// Whether retrying at a later pass may help (everything but configuration errors).
    pub fn is_transient(&self) -> bool {
        !matches!(
            self,
            ProviderError::NotAllowed { .. }
                | ProviderError::MissingKey(_)
                | ProviderError::Resolve { .. }
        )
    }
}

/// The client for one model on one endpoint. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Provider {
    endpoint: String,
    chat_url: Url,
    model: String,
    api_key: Option<String>,
    client: reqwest::Client,
    permits: Arc<Semaphore>,
    gap: Duration,
    next_slot: Mutex<Instant>,
    max_retries: u32,
    max_retry_wait: Duration,
    max_answer_tokens: u32,
}

fn in_allow(addr: IpAddr, allow: &[IpNet]) -> bool {
    allow.iter().any(|net| net.contains(&addr))
}

impl Provider {
    /// Builds the client: reads the API key from its variable, resolves the endpoint's
    /// host and checks every address against the allow-list (the connection is pinned to
    /// the checked addresses, so a later DNS answer cannot move it).
    pub async fn connect(
        settings: &LlmSettings,
        env: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<Provider, ProviderError> {
        let infra = &settings.endpoint;
        let mut base = infra.url.clone();
        if !base.path().ends_with('/') {
            base.set_path(&format!("{}/", base.path()));
        }
        let chat_url = base.join("chat/completions").map_err(|e| ProviderError::Resolve {
            endpoint: infra.name.clone(),
            url: infra.url.to_string(),
            error: e.to_string(),
        })?;
        let api_key = match &infra.api_key_env {
            Some(var) => Some(env(var).ok_or_else(|| ProviderError::MissingKey(var.clone()))?),
            None => None,
        };
        let host = infra.url.host_str().unwrap_or_default().to_owned();
        let port = infra.url.port_or_known_default().unwrap_or(80);
        let literal = host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().ok();
        let addrs: Vec<SocketAddr> = match literal {
            Some(ip) => vec![SocketAddr::new(ip, port)],
            None => tokio::net::lookup_host((host.as_str(), port))
                .await
                .map_err(|e| ProviderError::Resolve {
                    endpoint: infra.name.clone(),
                    url: infra.url.to_string(),
                    error: e.to_string(),
                })?
                .collect(),
        };
        if addrs.is_empty() || addrs.iter().any(|a| !in_allow(a.ip(), &infra.allow)) {
            return Err(ProviderError::NotAllowed {
                endpoint: infra.name.clone(),
                url: infra.url.to_string(),
                addresses: addrs.iter().map(|a| a.ip().to_string()).collect::<Vec<_>>().join(", "),
                allow: infra.allow.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
            });
        }
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(infra.timeout)
            .connect_timeout(infra.timeout.min(Duration::from_secs(10)))
            .user_agent(concat!("gleaner/", env!("CARGO_PKG_VERSION"), " (language-model client)"));
        if literal.is_none() {
            builder = builder.resolve_to_addrs(&host, &addrs);
        }
        let client = builder.build().map_err(|e| ProviderError::Transport(e.to_string()))?;
        Ok(Provider {
            endpoint: infra.name.clone(),
            chat_url,
            model: settings.model.clone(),
            api_key,
            client,
            permits: Arc::new(Semaphore::new(infra.max_in_flight.max(1) as usize)),
            gap: Duration::from_secs(60) / settings.requests_per_minute.max(1),
            next_slot: Mutex::new(Instant::now()),
            max_retries: settings.max_retries,
            max_retry_wait: settings.max_retry_wait,
            max_answer_tokens: settings.max_answer_tokens,
        })
    }

    /// The model name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The endpoint's name (for logs and the about page).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// Waits for the next slot of the rate limit.
    async fn rate_slot(&self) {
        let at = {
            let mut next = self.next_slot.lock().await;
            let now = Instant::now();
            let at = (*next).max(now);
            *next = at + self.gap;
            at
        };
        tokio::time::sleep_until(at).await;
    }

    /// Sends a chat completion with a system and a user message, asking for JSON that
    /// fits `schema` (`response_format: json_schema`), at temperature 0.
    pub async fn chat(
        &self,
        system: &str,
        user: &str,
        schema_name: &str,
        schema: &Value,
    ) -> Result<ChatAnswer, ProviderError> {
        let body = json!({
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_answer_tokens,
            "messages": [
                { "role": "system", "content": system },
                { "role": "user", "content": user },
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": { "name": schema_name, "strict": true, "schema": schema },
            },
        });
        let usage = Usage::default();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            self.rate_slot().await;
            let result = {
                let _permit = self
                    .permits
                    .acquire()
                    .await
                    .map_err(|e| ProviderError::Transport(e.to_string()))?;
                let mut request = self
                    .client
                    .post(self.chat_url.clone())
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(body.to_string());
                if let Some(key) = &self.api_key {
                    request = request.bearer_auth(key);
                }
                match request.send().await {
                    Ok(response) => {
                        let status = response.status().as_u16();
                        let retry_after = response
                            .headers()
                            .get(reqwest::header::RETRY_AFTER)
                            .and_then(|v| v.to_str().ok())
                            .and_then(retry_after);
                        let text = response
                            .text()
                            .await
                            .map_err(|e| ProviderError::Transport(e.to_string()))?;
                        Ok((status, retry_after, text))
                    }
                    Err(e) => Err(ProviderError::Transport(if e.is_timeout() {
                        "no answer before the endpoint's `timeout`".to_owned()
                    } else {
                        e.to_string()
                    })),
                }
            };
            let (status, retry_after, text) = result?;
            if status == 200 {
                return parse_answer(&text, usage, attempt);
            }
            let retryable = status == 429 || status >= 500;
            if !retryable || attempt > self.max_retries {
                return Err(ProviderError::Status { status, message: short(&text) });
            }
            let wait = retry_after
                .unwrap_or_else(|| Duration::from_millis(250) * 2u32.pow((attempt - 1).min(6)));
            if wait > self.max_retry_wait {
                return Err(ProviderError::WaitTooLong(wait));
            }
            tokio::time::sleep(wait).await;
        }
    }
}

fn short(text: &str) -> String {
    let t: String = text.chars().take(200).collect();
    t.replace(['\n', '\r'], " ")
}

/// Reads a chat-completion answer.
fn parse_answer(text: &str, mut usage: Usage, attempts: u32) -> Result<ChatAnswer, ProviderError> {
    let v: Value = serde_json::from_str(text)
        .map_err(|e| ProviderError::BadAnswer(format!("not JSON ({e})")))?;
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| ProviderError::BadAnswer("no `choices[0].message.content`".to_owned()))?
        .to_owned();
    usage.prompt_tokens += v.pointer("/usage/prompt_tokens").and_then(Value::as_u64).unwrap_or(0);
    usage.completion_tokens +=
        v.pointer("/usage/completion_tokens").and_then(Value::as_u64).unwrap_or(0);
    Ok(ChatAnswer { content, usage, attempts })
}

/// A Retry-After value: seconds, or an HTTP date (from now).
pub fn retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(SystemTime::now()).unwrap_or(Duration::ZERO))
}
