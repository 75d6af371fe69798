//! Telling the operator: every owner submission is POSTed as JSON to `[owners]
//! webhook_url` and/or e-mailed through `[owners] smtp_server` to `email_to` (the
//! operator's own endpoints, not crawled sites, so they do not go through the gate). The owner's receipt never waits for it: the POST runs in its own
//! task with a 10 s limit, no redirects, and failures are counted and logged. The
//! submission is in the store whatever happens, and the dashboard lists it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use gleaner_config::owners::EmailSettings;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
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
    email: Option<EmailSettings>,
    sent: Arc<AtomicU64>,
    failed: Arc<AtomicU64>,
}

impl Notifier {
    /// A notifier for `webhook` and `email` (neither: notices only reach the dashboard).
    pub fn new(webhook: Option<Url>, email: Option<EmailSettings>) -> Notifier {
        let client = webhook.as_ref().and_then(|_| {
            reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .build()
                .ok()
        });
        Notifier { webhook, client, email, sent: Arc::default(), failed: Arc::default() }
    }

    /// Sends `notice` in the background, by webhook and by e-mail as configured.
    pub fn notify(&self, notice: Notice) {
        if let Some(email) = self.email.clone() {
            self.mail(email, notice.clone());
        }
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

    fn mail(&self, email: EmailSettings, notice: Notice) {
        let (sent, failed) = (Arc::clone(&self.sent), Arc::clone(&self.failed));
        tokio::spawn(async move {
            let result = async {
                let message = Message::builder()
                    .from(email.from.parse().map_err(|e| format!("sender: {e}"))?)
                    .to(email.to.parse().map_err(|e| format!("recipient: {e}"))?)
                    .subject(format!(
                        "gleaner: {} for {} ({})",
                        notice.kind, notice.scope, notice.reference
                    ))
                    .body(format!(
                        "A site owner's request reached gleaner.\n\nReference: {}\nRequest: {}\nApplies to: {}\nWhat: {}\nStatus: {}\nContact: {}\nAt: {}\n\nIt is listed on the dashboard under Owners' requests.\n",
                        notice.reference,
                        notice.kind,
                        notice.scope,
                        notice.detail,
                        notice.status,
                        notice.contact.as_deref().unwrap_or("none given"),
                        notice.at
                    ))
                    .map_err(|e| e.to_string())?;
                let transport =
                    AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(email.host.as_str())
                        .port(email.port)
                        .timeout(Some(Duration::from_secs(10)))
                        .build();
                transport.send(message).await.map(|_| ()).map_err(|e| e.to_string())
            }
            .await;
            match result {
                Ok(()) => {
                    sent.fetch_add(1, Ordering::Relaxed);
                }
                Err(why) => {
                    failed.fetch_add(1, Ordering::Relaxed);
                    #[allow(clippy::print_stderr)] // stderr is the server's log
                    {
                        eprintln!(
                            "gleaner-server: failed to e-mail the operator about submission `{}`: {why}; it is listed on the dashboard",
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

    /// Whether a webhook or e-mail is configured.
    pub fn configured(&self) -> bool {
        self.webhook.is_some() || self.email.is_some()
    }
}
