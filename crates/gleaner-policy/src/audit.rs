//! The audit log's record: one per request the gate sent or refused, with the rule that
//! allowed it (SPEC §3), and the [`AuditSink`] trait its stores implement. URLs are
//! redacted before they get here.

use std::time::{Duration, SystemTime};

use crate::Purpose;
pub use crate::outcome::{FailureKind, Outcome, RefusalKind};

/// One request, sent or refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRecord {
    /// When the request started (or was refused).
    pub time: SystemTime,
    /// The site (its budget key).
    pub site: String,
    /// The URL, secrets redacted.
    pub url: String,
    /// Why it was made.
    pub purpose: Purpose,
    /// The configured source that asked for it, if any.
    pub source: Option<String>,
    /// Sent with a status, refused (which rule), or failed (how).
    pub outcome: Outcome,
    /// The failure's message, when it failed.
    pub error: Option<String>,
    /// Body bytes received.
    pub bytes: u64,
    /// Time from start to the end of the body.
    pub duration: Duration,
    /// The rule that allowed (or refused) it.
    pub reason: String,
}

/// Where audit records go.
pub trait AuditSink: Send + Sync + std::fmt::Debug {
    /// Records one request.
    fn record(&self, record: AuditRecord);
}
