//! The audit log: one record per request the gate sent or refused, with the rule that
//! allowed it (SPEC §3). Sinks: in memory, and JSON lines in a file until the store
//! keeps them. URLs are redacted before they get here.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gleaner_policy::Purpose;

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
    /// HTTP status, when a response came.
    pub status: Option<u16>,
    /// The error or refusal, when there was one.
    pub error: Option<String>,
    /// Body bytes received.
    pub bytes: u64,
    /// Time from start to the end of the body.
    pub duration: Duration,
    /// The rule that allowed (or refused) it.
    pub reason: String,
}

impl AuditRecord {
    /// The record as one line of JSON.
    pub fn to_json_line(&self) -> String {
        let millis = self.time.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
        let value = serde_json::json!({
            "time_ms": millis as u64,
            "site": self.site,
            "url": self.url,
            "purpose": self.purpose.as_str(),
            "source": self.source,
            "status": self.status,
            "error": self.error,
            "bytes": self.bytes,
            "duration_ms": self.duration.as_millis() as u64,
            "reason": self.reason,
        });
        value.to_string()
    }
}

/// Where audit records go.
pub trait AuditSink: Send + Sync + std::fmt::Debug {
    /// Records one request.
    fn record(&self, record: AuditRecord);
}

/// Keeps records in memory (tests, `explain`).
#[derive(Debug, Default)]
pub struct MemoryAudit {
    records: Mutex<Vec<AuditRecord>>,
}

impl MemoryAudit {
    /// A copy of the records so far.
    pub fn records(&self) -> Vec<AuditRecord> {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl AuditSink for MemoryAudit {
    fn record(&self, record: AuditRecord) {
        self.records.lock().unwrap_or_else(|p| p.into_inner()).push(record);
    }
}

/// Appends records as JSON lines to a file, flushed per record so a crash keeps them.
#[derive(Debug)]
pub struct JsonLinesAudit {
    file: Mutex<std::fs::File>,
}

impl JsonLinesAudit {
    /// Opens (creating or appending to) the file.
    pub fn open(path: &Path) -> std::io::Result<JsonLinesAudit> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(JsonLinesAudit { file: Mutex::new(file) })
    }
}

impl AuditSink for JsonLinesAudit {
    fn record(&self, record: AuditRecord) {
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        // An audit write failure must not stop the crawl; it is reported on stderr by
        // the caller's tracing once that exists.
        let _ = writeln!(file, "{}", record.to_json_line());
        let _ = file.flush();
    }
}
