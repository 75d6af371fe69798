//! What gleaner did, written once for both backends (`crate::sql`): the audit log of
//! every request and refusal, and the archive of robots.txt and terms pages. Audit rows
//! go through one queue ([`AuditQueue`]) to a thread that hands them in batches to the
//! backend's own writer (`crate::backend::AuditWriter`); robots.txt versions are
//! archived inside the gate's own transaction.

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_policy::audit::AuditRecord;
use gleaner_policy::registry::Scope;
use tokio::sync::{mpsc, oneshot};

use crate::backend::AuditWriter;
use crate::codec;
use crate::model::{ArchivedDocument, AuditEntry, DocumentKind};
use crate::sql::{Tx, params};
use crate::{Store, StoreError};

/// How long the audit writer waits for more records before writing a batch (again
/// while more came in the last wait).
const AUDIT_LINGER: Duration = Duration::from_millis(1);

enum AuditMsg {
    Record(Box<AuditRecord>),
    Validators(Box<ValidatorsWrite>),
    Flush(oneshot::Sender<()>),
}

/// A response's validators (`ETag`, `Last-Modified`) for the batch writer (issue 27:
/// written with the audit rows, one round trip for a burst of pages instead of one
/// each). Losing one to a crash only makes the next request for its URL unconditional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ValidatorsWrite {
    /// The URL they are of.
    pub(crate) url: String,
    /// Its `ETag`.
    pub(crate) etag: Option<String>,
    /// Its `Last-Modified`.
    pub(crate) last_modified: Option<String>,
    /// When they were received.
    pub(crate) at: SystemTime,
}

/// Validators queued and not yet written, by URL, each with the number it was queued
/// under: reads see them at once ([`AuditQueue::pending_validators`]).
type Pending = std::sync::Arc<std::sync::Mutex<HashMap<String, (u64, ValidatorsWrite)>>>;

/// The way to a backend's audit writer: records (and validators) are queued at once,
/// and a flush waits until everything queued before it is written.
#[derive(Debug)]
pub(crate) struct AuditQueue {
    to_writer: mpsc::UnboundedSender<AuditMsg>,
    pending: Pending,
    queued: std::sync::atomic::AtomicU64,
}

impl AuditQueue {
    /// Starts `writer` on a thread of its own, with a runtime of its own: it gets each
    /// burst of records as one batch (lingering a millisecond for more, 4,096 at most).
    pub(crate) fn start(mut writer: impl AuditWriter) -> Result<AuditQueue, StoreError> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let pending: Pending = Default::default();
        let written = std::sync::Arc::clone(&pending);
        let run = move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
                return;
            };
            rt.block_on(async move {
                let mut batch: Vec<AuditRecord> = Vec::new();
                let mut validators: Vec<ValidatorsWrite> = Vec::new();
                let mut waiting: Vec<oneshot::Sender<()>> = Vec::new();
                while let Some(first) = rx.recv().await {
                    let mut next = Some(first);
                    loop {
                        while let Some(msg) = next.take() {
                            match msg {
                                AuditMsg::Record(r) => batch.push(*r),
                                AuditMsg::Validators(v) => validators.push(*v),
                                AuditMsg::Flush(done) => waiting.push(done),
                            }
                            if batch.len() + validators.len() < 4096 && waiting.is_empty() {
                                next = rx.try_recv().ok();
                            }
                        }
                        if batch.len() + validators.len() >= 4096 || !waiting.is_empty() {
                            break;
                        }
                        // A sleep, not a timed receive (issue 27): records sent meanwhile
                        // do not wake this thread one by one, a thread wake-up per request.
                        tokio::time::sleep(AUDIT_LINGER).await;
                        if rx.is_empty() {
                            break;
                        }
                        next = rx.try_recv().ok();
                    }
                    // The latest validators of each URL, once.
                    let queued = std::mem::take(&mut validators);
                    let mut urls = std::collections::HashSet::new();
                    let mut latest: Vec<ValidatorsWrite> = queued.into_iter().rev().collect();
                    latest.retain(|v| urls.insert(v.url.clone()));
                    if !batch.is_empty() || !latest.is_empty() {
                        writer.write(&batch, &latest).await;
                        batch.clear();
                    }
                    // Written (or given up on): reads go to the database again, unless
                    // newer validators were queued since.
                    let mut pending = written.lock().unwrap_or_else(|p| p.into_inner());
                    for v in &latest {
                        if pending.get(&v.url).is_some_and(|(_, queued)| queued == v) {
                            pending.remove(&v.url);
                        }
                    }
                    drop(pending);
                    for done in waiting.drain(..) {
                        let _ = done.send(());
                    }
                }
            });
        };
        std::thread::Builder::new()
            .name("gleaner-store-audit".into())
            .spawn(run)
            .map_err(|e| StoreError::Worker(format!("failed to start the audit writer: {e}")))?;
        Ok(AuditQueue { to_writer: tx, pending, queued: Default::default() })
    }

    /// Queues a record for the writer.
    pub(crate) fn record(&self, record: AuditRecord) {
        let _ = self.to_writer.send(AuditMsg::Record(Box::new(record)));
    }

    /// Queues a URL's validators for the writer; reads see them from now on.
    pub(crate) fn queue_validators(&self, write: ValidatorsWrite) {
        let n = self.queued.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.insert(write.url.clone(), (n, write.clone()));
        drop(pending);
        if self.to_writer.send(AuditMsg::Validators(Box::new(write.clone()))).is_err() {
            // No writer: nothing will be written, so nothing is pending.
            self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&write.url);
        }
    }

    /// The validators queued for `url` and not yet written.
    pub(crate) fn pending_validators(&self, url: &str) -> Option<ValidatorsWrite> {
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        pending.get(url).map(|(_, v)| v.clone())
    }

    /// Waits until every record queued so far is written.
    pub(crate) async fn flush(&self) -> Result<(), StoreError> {
        let stopped = || StoreError::Worker("the audit writer stopped".into());
        let (done, wait) = oneshot::channel();
        self.to_writer.send(AuditMsg::Flush(done)).map_err(|_| stopped())?;
        wait.await.map_err(|_| stopped())
    }
}

impl Store {
    /// The latest `limit` audit rows within `scope`, oldest first.
    pub async fn audit_for(
        &self,
        scope: &Scope,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let (cond, param) = self.db().dialect().scope_condition(scope, "host", "url", 1);
        let sql = format!(
            "SELECT time_ms, site, url, purpose, source, status, error, bytes, duration_ms, reason,
                 outcome
             FROM (SELECT * FROM audit_log WHERE {cond} ORDER BY time_ms DESC, id DESC LIMIT $2) a
             ORDER BY time_ms, id"
        );
        let doing = format!("reading the audit log for `{param}`");
        let rows = self.db().query(&sql, params![&param, limit], doing).await?;
        rows.iter()
            .map(|r| {
                let status = r.get::<Option<i64>>(5)?.and_then(|s| u16::try_from(s).ok());
                Ok(AuditEntry {
                    time: r.get(0)?,
                    site: r.get(1)?,
                    url: r.get(2)?,
                    purpose: Purpose::from_name(&r.get::<String>(3)?),
                    source: r.get(4)?,
                    outcome: codec::decode_outcome(&r.get::<String>(10)?, status),
                    error: r.get(6)?,
                    bytes: r.get::<i64>(7)?.max(0) as u64,
                    duration: Duration::from_millis(r.get::<i64>(8)?.max(0) as u64),
                    reason: r.get(9)?,
                })
            })
            .collect()
    }

    /// Every archived version of the sites in `scope`, by site and date.
    pub async fn archive_history(
        &self,
        scope: &Scope,
        kind: DocumentKind,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        self.archived(scope, kind, None).await
    }

    /// What each site in `scope` had published at time `at`: the latest version first
    /// seen at or before `at`, one per site.
    pub async fn archived_at(
        &self,
        scope: &Scope,
        kind: DocumentKind,
        at: SystemTime,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        self.archived(scope, kind, Some(at)).await
    }

    async fn archived(
        &self,
        scope: &Scope,
        kind: DocumentKind,
        at: Option<SystemTime>,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        let (cond, param) = self.db().dialect().scope_condition(scope, "host", "url", 1);
        let at_ms = at.map_or(i64::MAX, codec::to_ms);
        let sql = format!(
            "SELECT site, url, first_seen_ms, last_seen_ms, body FROM archive
             WHERE {cond} AND kind = $2 AND first_seen_ms <= $3 ORDER BY site, first_seen_ms, id"
        );
        let doing = format!("reading the archive for `{param}`");
        let rows = self.db().query(&sql, params![&param, kind.as_str(), at_ms], doing).await?;
        let mut docs: Vec<ArchivedDocument> = Vec::with_capacity(rows.len());
        for r in rows {
            let doc = ArchivedDocument {
                site: r.get(0)?,
                kind,
                url: r.get(1)?,
                first_seen: r.get(2)?,
                last_seen: r.get(3)?,
                body: r.get(4)?,
            };
            match docs.last_mut() {
                // Only the version in force at `at`: the latest one per site.
                Some(last) if at.is_some() && last.site == doc.site => *last = doc,
                _ => docs.push(doc),
            }
        }
        Ok(docs)
    }
}

/// Stores a document version in `tx` when it differs from the latest one archived for
/// the site, or notes that the latest one was seen again; true when stored.
pub(crate) async fn archive(
    tx: &mut dyn Tx,
    site: &str,
    kind: DocumentKind,
    url: &str,
    body: &[u8],
    now: SystemTime,
) -> Result<bool, StoreError> {
    let latest = tx
        .row(
            "SELECT id, body FROM archive WHERE site = $1 AND kind = $2
             ORDER BY first_seen_ms DESC, id DESC LIMIT 1",
            params![site, kind.as_str()],
        )
        .await?;
    if let Some(row) = latest
        && row.get::<Vec<u8>>(1)? == body
    {
        let sql = "UPDATE archive SET last_seen_ms = $2 WHERE id = $1";
        tx.exec(sql, params![row.get::<i64>(0)?, now]).await?;
        return Ok(false);
    }
    tx.exec(
        "INSERT INTO archive (site, host, kind, url, first_seen_ms, last_seen_ms, body)
         VALUES ($1, $2, $3, $4, $5, $5, $6)",
        params![site, codec::host_of(site), kind.as_str(), url, now, body],
    )
    .await?;
    Ok(true)
}
