//! Telling the operator: every owner submission is POSTed as JSON to `[owners]
//! webhook_url` (the operator's own endpoint, not a crawled site, so it does not go
//! through the gate). The owner's receipt never waits for it: the POST runs in its own
//! task with a 10 s limit, no redirects, and failures are counted and logged. The
//! submission is in the store whatever happens, and the dashboard lists it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde::Serialize;
use url::Url;

/// One notification: what the owner asked, with the receipt reference.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Notice {
    /// Always `owner-submission`.
    pub event: &'static str,
    /// The receipt reference.
    pub reference: String,
    /// `opt-out`, `slow-down`, `facts-only`, `removal`, `removal-verified`.
    pub kind: String,
    /// The domain or URL prefix.
    pub scope: String,
    /// What was asked, in words.
    pub detail: String,
    /// `applied`, `pending`, `removed`.
    pub status: String,
    /// How to reach the owner, if given.
    pub contact: Option<String>,
    /// When, RFC 3339.
    pub at: String,
}

/// Sends notices to the operator's webhook.
#[derive(Debug, Clone)]
pub struct Notifier {
    webhook: Option<Url>,
    client: Option<reqwest::Client>,
    sent: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
}

impl Notifier {
    /// A notifier for `webhook` (`None`: notices only reach the dashboard).
    pub fn new(webhook: Option<Url>) -> Notifier {
        let client = webhook.as_ref().and_then(|_| {
            reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()
                .ok()
        });
        Notifier { webhook, client, sent: Arc::default(), failed: Arc::default() }
    }

    /// Sends `notice` in the background.
    pub fn notify(&self, notice: Notice) {
        let (Some(url), Some(client)) = (self.webhook.clone(), self.client.clone()) else {
            return;
        };
        let (sent, failed) = (Arc::clone(&self.sent), Arc::clone(&self.failed));
        tokio::spawn(async move {
            let body = serde_json::to_vec(&notice).unwrap_or_default();
            let result = client
                .post(url)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await;
            match result.map(|r| r.status()) {
                Ok(status) if status.is_success() => {
                    sent.fetch_add(1, Ordering::Relaxed);
                }
                other => {
                    failed.fetch_add(1, Ordering::Relaxed);
                    let why = match other {
                        Ok(status) => format!("it answered {status}"),
                        Err(error) => error.without_url().to_string(),
                    };
                    #[allow(clippy::print_stderr)] // stderr is the server's log
                    {
                        eprintln!(
                            "gleaner-server: failed to notify the operator of submission `{}`: {why}; it is listed on the dashboard",
                            notice.reference
                        );
                    }
                }
            }
        });
    }

    /// Notices delivered and failed so far (for the dashboard).
    pub fn counts(&self) -> (u64, u64) {
        (self.sent.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed))
    }

    /// Whether a webhook is configured.
    pub fn configured(&self) -> bool {
        self.webhook.is_some()
    }
}
