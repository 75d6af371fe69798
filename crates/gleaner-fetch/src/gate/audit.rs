//! Audit sinks: in memory, and JSON lines in a file. The record and the trait live in
//! `gleaner_policy::audit`; the store keeps them in its database.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

pub use gleaner_policy::audit::{AuditRecord, AuditSink};

/// The record as one line of JSON.
pub fn to_json_line(record: &AuditRecord) -> String {
    let millis = record.time.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
    let value = serde_json::json!({
        "time_ms": millis as u64,
        "site": record.site,
        "url": record.url,
        "purpose": record.purpose.as_str(),
        "source": record.source,
        "outcome": record.outcome.code(),
        "status": record.outcome.status(),
        "error": record.error,
        "bytes": record.bytes,
        "duration_ms": record.duration.as_millis() as u64,
        "reason": record.reason,
    });
    value.to_string()
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
        let _ = writeln!(file, "{}", to_json_line(&record));
        let _ = file.flush();
    }
}
