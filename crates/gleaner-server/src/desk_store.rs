//! What the owners' desk keeps: the [`DeskStore`] trait, with the store behind it
//! ([`StoreDesk`]) and an in-memory one ([`MemoryDesk`]) for tests of the forms,
//! `/site/{domain}` and the dashboard without a database.
//!
//! The trait lives here, in the crate that consumes it, with both implementations beside
//! it (the seam convention of `gleaner-relay`'s `RelayDirectory`). It has only what the
//! desk asks: owners' submissions, the registry of their requests, removal and
//! takedown, the audit log and robots.txt archive of one site, the gate's state of the
//! known sites, the operator's controls of a source, and the server secret. Rows are
//! the store's own types; nothing is passed as text to be parsed back.
//!
//! [`MemoryDesk`] keeps times to the millisecond, as the store does, so a test body
//! run on both sees the same values (`tests/it/desk.rs` runs each body on both).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use gleaner_policy::audit::AuditRecord;
use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_policy::state::{BoxFuture, SiteState};
use gleaner_store::{
    ArchivedDocument, AuditEntry, DocumentKind, OwnerRecord, OwnerSubmission, RemovalReport,
    SourceControl, Store, StoreError,
};
use url::Url;

/// The status a submission is given by the desk (the stored `OwnerSubmission::status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmissionStatus {
    /// Carried out and holding for good.
    Applied,
    /// Waiting for proof or for the operator.
    Pending,
    /// Applied at once, unproven: it lapses unless proven or confirmed.
    Unverified,
    /// The site's content was removed.
    Removed,
    /// Declined by the operator.
    Rejected,
    /// An unverified request the operator undid.
    Undone,
}

impl SubmissionStatus {
    /// The stored name (what receipts and the dashboard show).
    pub const fn as_str(self) -> &'static str {
        match self {
            SubmissionStatus::Applied => "applied",
            SubmissionStatus::Pending => "pending",
            SubmissionStatus::Unverified => "unverified",
            SubmissionStatus::Removed => "removed",
            SubmissionStatus::Rejected => "rejected",
            SubmissionStatus::Undone => "undone",
        }
    }
}

/// What the owners' desk reads and writes. Every method is required: an implementation
/// cannot forget one silently.
pub trait DeskStore: Send + Sync {
    /// Where the desk keeps its rows, for logs (`sqlite://…`, `memory`; never a password).
    fn location(&self) -> String;

    /// The secret stored under `name`, storing `candidate` first when there is none.
    fn secret_or_insert<'a>(
        &'a self,
        name: &'a str,
        candidate: Vec<u8>,
    ) -> BoxFuture<'a, Result<Vec<u8>, StoreError>>;

    /// Records a submission (replacing one with the same reference).
    fn add_submission<'a>(
        &'a self,
        submission: &'a OwnerSubmission,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The submission with this reference.
    fn submission<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<OwnerSubmission>, StoreError>>;

    /// The latest `limit` submissions, newest first (ties by reference).
    fn submissions(&self, limit: u32) -> BoxFuture<'_, Result<Vec<OwnerSubmission>, StoreError>>;

    /// Sets a submission's status; false when there is no such reference.
    fn set_submission_status<'a>(
        &'a self,
        reference: &'a str,
        status: SubmissionStatus,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Records an opt-out or override that holds for good (replacing one with the same
    /// reference); a facts-only one purges what is stored beyond facts.
    fn add_owner_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Records an unproven request: it applies at once and stops applying at `lapses`
    /// unless [`DeskStore::confirm_owner_request`] makes it permanent first.
    fn add_unverified_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Makes an owner request permanent; false when there is no such reference.
    fn confirm_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Removes the owner request with this reference; false when there was none.
    fn remove_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Every owner request, oldest first (lapsed ones included: see
    /// [`OwnerRecord::in_force`]).
    fn owner_requests(&self) -> BoxFuture<'_, Result<Vec<OwnerRecord>, StoreError>>;

    /// Deletes everything stored about `scope` and opts it out for good (the reference
    /// of the opt-out is in the report).
    fn remove_site<'a>(
        &'a self,
        scope: Scope,
        reference: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<RemovalReport, StoreError>>;

    /// Takes an image address down for the relay; true when it was registered.
    fn take_down<'a>(
        &'a self,
        url: &'a str,
        reason: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The newest `limit` audit rows of URLs `scope` covers, oldest first.
    fn audit_for<'a>(
        &'a self,
        scope: &'a Scope,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<AuditEntry>, StoreError>>;

    /// Every archived version of a kind of document for `scope`, by site and age.
    fn archive_history<'a>(
        &'a self,
        scope: &'a Scope,
        kind: DocumentKind,
    ) -> BoxFuture<'a, Result<Vec<ArchivedDocument>, StoreError>>;

    /// The sites the gate keeps state for (origins), in order.
    fn known_sites(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>>;

    /// The gate's state of one site (an origin), when it has one.
    fn site_state<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Result<Option<SiteState>, StoreError>>;

    /// When the last pass of `source` started.
    fn last_run<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<Option<SystemTime>, StoreError>>;

    /// Failed passes of `source` in a row.
    fn failure_streak<'a>(&'a self, source: &'a str) -> BoxFuture<'a, Result<u32, StoreError>>;

    /// The operator's controls of `source` (defaults when never set).
    fn source_control<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<SourceControl, StoreError>>;

    /// Pauses or resumes `source`.
    fn set_source_paused<'a>(
        &'a self,
        source: &'a str,
        paused: bool,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Asks for a pass of `source` at `at` (`None`: the request is taken).
    fn request_run<'a>(
        &'a self,
        source: &'a str,
        at: Option<SystemTime>,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

/// The store as the desk's [`DeskStore`].
#[derive(Clone)]
pub struct StoreDesk {
    store: Store,
}

impl StoreDesk {
    /// The desk's rows in `store`.
    pub fn new(store: Store) -> StoreDesk {
        StoreDesk { store }
    }

    /// The store behind the desk.
    pub fn store(&self) -> &Store {
        &self.store
    }
}

impl DeskStore for StoreDesk {
    fn location(&self) -> String {
        self.store.location()
    }

    fn secret_or_insert<'a>(
        &'a self,
        name: &'a str,
        candidate: Vec<u8>,
    ) -> BoxFuture<'a, Result<Vec<u8>, StoreError>> {
        Box::pin(self.store.secret_or_insert(name, candidate))
    }

    fn add_submission<'a>(
        &'a self,
        submission: &'a OwnerSubmission,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.store.add_submission(submission))
    }

    fn submission<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<OwnerSubmission>, StoreError>> {
        Box::pin(self.store.submission(reference))
    }

    fn submissions(&self, limit: u32) -> BoxFuture<'_, Result<Vec<OwnerSubmission>, StoreError>> {
        Box::pin(self.store.submissions(limit))
    }

    fn set_submission_status<'a>(
        &'a self,
        reference: &'a str,
        status: SubmissionStatus,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.store.set_submission_status(reference, status.as_str(), now))
    }

    fn add_owner_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.store.add_owner_request(entry, note, now))
    }

    fn add_unverified_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.store.add_unverified_request(entry, note, now, lapses))
    }

    fn confirm_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.store.confirm_owner_request(reference))
    }

    fn remove_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.store.remove_owner_request(reference))
    }

    fn owner_requests(&self) -> BoxFuture<'_, Result<Vec<OwnerRecord>, StoreError>> {
        Box::pin(self.store.owner_requests())
    }

    fn remove_site<'a>(
        &'a self,
        scope: Scope,
        reference: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<RemovalReport, StoreError>> {
        Box::pin(self.store.remove_site(scope, reference, now))
    }

    fn take_down<'a>(
        &'a self,
        url: &'a str,
        reason: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.store.take_down(url, reason, now))
    }

    fn audit_for<'a>(
        &'a self,
        scope: &'a Scope,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<AuditEntry>, StoreError>> {
        Box::pin(self.store.audit_for(scope, limit))
    }

    fn archive_history<'a>(
        &'a self,
        scope: &'a Scope,
        kind: DocumentKind,
    ) -> BoxFuture<'a, Result<Vec<ArchivedDocument>, StoreError>> {
        Box::pin(self.store.archive_history(scope, kind))
    }

    fn known_sites(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        Box::pin(self.store.known_sites())
    }

    fn site_state<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Result<Option<SiteState>, StoreError>> {
        Box::pin(self.store.site_state(site))
    }

    fn last_run<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<Option<SystemTime>, StoreError>> {
        Box::pin(self.store.last_run(source))
    }

    fn failure_streak<'a>(&'a self, source: &'a str) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(self.store.failure_streak(source))
    }

    fn source_control<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<SourceControl, StoreError>> {
        Box::pin(self.store.source_control(source))
    }

    fn set_source_paused<'a>(
        &'a self,
        source: &'a str,
        paused: bool,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.store.set_source_paused(source, paused, now))
    }

    fn request_run<'a>(
        &'a self,
        source: &'a str,
        at: Option<SystemTime>,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.store.request_run(source, at, now))
    }
}

/// The desk's rows in memory, for tests: the same answers as [`StoreDesk`] on an empty
/// store, plus setters for what the crawler would have written (audit rows, archived
/// robots.txt, the gate's state of a site, a source's runs).
#[derive(Default)]
pub struct MemoryDesk {
    rows: Mutex<Rows>,
}

#[derive(Default)]
struct Rows {
    secrets: HashMap<String, Vec<u8>>,
    submissions: Vec<OwnerSubmission>,
    requests: Vec<OwnerRecord>,
    removals: i64,
    takedowns: Vec<(String, String, SystemTime)>,
    audit: Vec<AuditEntry>,
    archive: Vec<ArchivedDocument>,
    sites: BTreeMap<String, SiteState>,
    runs: HashMap<String, (Option<SystemTime>, u32)>,
    controls: HashMap<String, SourceControl>,
}

/// A time as the store keeps it: whole milliseconds since the epoch.
fn ms(t: SystemTime) -> SystemTime {
    let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    SystemTime::UNIX_EPOCH + Duration::from_millis(since.as_millis() as u64)
}

/// Whether a row of `site` (a budget key, an origin) at `url` is one of `scope`'s, as
/// the store's scope condition reads its columns: a domain by the site's host (so a
/// site's log holds its robots.txt and redirects wherever they point), a URL prefix by
/// the URL.
fn covers(scope: &Scope, site: &str, url: &str) -> bool {
    match scope {
        Scope::Domain(_) => Url::parse(site).is_ok_and(|u| scope.covers(&u)),
        Scope::UrlPrefix(prefix) => url.starts_with(prefix.as_str()),
    }
}

impl Rows {
    fn record_request(
        &mut self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: Option<SystemTime>,
    ) {
        let lapses = lapses.map(ms);
        match self.requests.iter_mut().find(|r| r.entry.reference == entry.reference) {
            // As the store's upsert: the first time it was recorded stays.
            Some(r) => {
                r.entry = entry;
                r.note = note;
                r.lapses = lapses;
            }
            None => self.requests.push(OwnerRecord { entry, created: ms(now), note, lapses }),
        }
    }
}

impl MemoryDesk {
    /// An empty desk.
    pub fn new() -> MemoryDesk {
        MemoryDesk::default()
    }

    fn rows(&self) -> std::sync::MutexGuard<'_, Rows> {
        self.rows.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds an audit row, as the gate writes it through the store's `AuditSink`.
    pub fn record_audit(&self, record: AuditRecord) {
        let entry = AuditEntry {
            time: ms(record.time),
            site: record.site,
            url: record.url,
            purpose: Some(record.purpose),
            source: record.source,
            outcome: record.outcome,
            error: record.error,
            bytes: record.bytes,
            duration: Duration::from_millis(record.duration.as_millis() as u64),
            reason: record.reason,
        };
        self.rows().audit.push(entry);
    }

    /// Archives a document as the store's `archive_document` does: the same bytes as
    /// the site's latest version of that kind only move its last reading (false); other
    /// bytes are a new version (true).
    pub fn archive_document(
        &self,
        site: &str,
        kind: DocumentKind,
        url: &str,
        body: Vec<u8>,
        now: SystemTime,
    ) -> bool {
        let now = ms(now);
        let mut rows = self.rows();
        let latest = rows.archive.iter_mut().rev().find(|d| d.site == site && d.kind == kind);
        if let Some(latest) = latest.filter(|d| d.body == body) {
            latest.last_seen = now;
            return false;
        }
        let (site, url) = (site.to_owned(), url.to_owned());
        rows.archive.push(ArchivedDocument {
            site,
            kind,
            url,
            first_seen: now,
            last_seen: now,
            body,
        });
        true
    }

    /// Sets the gate's state of `site` (an origin), which makes it a known site.
    pub fn put_site_state(&self, site: &str, state: SiteState) {
        self.rows().sites.insert(site.to_owned(), state);
    }

    /// Sets the last run of `source` and its failed passes in a row.
    pub fn set_run(&self, source: &str, last: Option<SystemTime>, failures: u32) {
        self.rows().runs.insert(source.to_owned(), (last.map(ms), failures));
    }

    /// The takedowns recorded so far (address, reason, when), oldest first.
    pub fn takedowns(&self) -> Vec<(String, String, SystemTime)> {
        self.rows().takedowns.clone()
    }
}

impl DeskStore for MemoryDesk {
    fn location(&self) -> String {
        "memory".to_owned()
    }

    fn secret_or_insert<'a>(
        &'a self,
        name: &'a str,
        candidate: Vec<u8>,
    ) -> BoxFuture<'a, Result<Vec<u8>, StoreError>> {
        let secret = self.rows().secrets.entry(name.to_owned()).or_insert(candidate).clone();
        Box::pin(async move { Ok(secret) })
    }

    fn add_submission<'a>(
        &'a self,
        submission: &'a OwnerSubmission,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut s = submission.clone();
        (s.created, s.updated) = (ms(s.created), ms(s.updated));
        let mut rows = self.rows();
        match rows.submissions.iter_mut().find(|r| r.reference == s.reference) {
            Some(r) => *r = s,
            None => rows.submissions.push(s),
        }
        Box::pin(async { Ok(()) })
    }

    fn submission<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<Option<OwnerSubmission>, StoreError>> {
        let found = self.rows().submissions.iter().find(|s| s.reference == reference).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn submissions(&self, limit: u32) -> BoxFuture<'_, Result<Vec<OwnerSubmission>, StoreError>> {
        let mut list = self.rows().submissions.clone();
        list.sort_by(|a, b| b.created.cmp(&a.created).then_with(|| a.reference.cmp(&b.reference)));
        list.truncate(limit as usize);
        Box::pin(async move { Ok(list) })
    }

    fn set_submission_status<'a>(
        &'a self,
        reference: &'a str,
        status: SubmissionStatus,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut rows = self.rows();
        let found = rows.submissions.iter_mut().find(|s| s.reference == reference);
        let changed = found.map(|s| {
            s.status = status.as_str().to_owned();
            s.updated = ms(now);
        });
        let changed = changed.is_some();
        Box::pin(async move { Ok(changed) })
    }

    fn add_owner_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        // Facts-only purges stored descriptions; the desk keeps none in memory.
        self.rows().record_request(entry, note, now, None);
        Box::pin(async { Ok(()) })
    }

    fn add_unverified_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: SystemTime,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        self.rows().record_request(entry, note, now, Some(lapses));
        Box::pin(async { Ok(()) })
    }

    fn confirm_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut rows = self.rows();
        let found = rows.requests.iter_mut().find(|r| r.entry.reference == reference);
        let found = found.map(|r| r.lapses = None).is_some();
        Box::pin(async move { Ok(found) })
    }

    fn remove_owner_request<'a>(
        &'a self,
        reference: &'a str,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut rows = self.rows();
        let before = rows.requests.len();
        rows.requests.retain(|r| r.entry.reference != reference);
        let removed = rows.requests.len() < before;
        Box::pin(async move { Ok(removed) })
    }

    fn owner_requests(&self) -> BoxFuture<'_, Result<Vec<OwnerRecord>, StoreError>> {
        let mut list = self.rows().requests.clone();
        list.sort_by(|a, b| {
            a.created.cmp(&b.created).then_with(|| a.entry.reference.cmp(&b.entry.reference))
        });
        Box::pin(async move { Ok(list) })
    }

    fn remove_site<'a>(
        &'a self,
        scope: Scope,
        _reference: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<RemovalReport, StoreError>> {
        let mut rows = self.rows();
        rows.removals += 1;
        let request_id = rows.removals;
        let opt_out = format!("removal-{request_id}");
        let entry =
            RegistryEntry { scope, request: OwnerRequest::OptOut, reference: opt_out.clone() };
        rows.record_request(entry, Some("added by `gleaner remove`".to_owned()), now, None);
        // The audit log and the archive stay, as in the store (they are the record of
        // what the bot did); the desk keeps no events or bodies to delete.
        let report = RemovalReport { request_id, opt_out, deleted: Vec::new() };
        Box::pin(async move { Ok(report) })
    }

    fn take_down<'a>(
        &'a self,
        url: &'a str,
        reason: &'a str,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let mut rows = self.rows();
        if !rows.takedowns.iter().any(|(u, _, _)| u == url) {
            rows.takedowns.push((url.to_owned(), reason.to_owned(), ms(now)));
        }
        // No relay images in memory: none was registered.
        Box::pin(async { Ok(false) })
    }

    fn audit_for<'a>(
        &'a self,
        scope: &'a Scope,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<AuditEntry>, StoreError>> {
        let rows = self.rows();
        let mut list: Vec<AuditEntry> =
            rows.audit.iter().filter(|e| covers(scope, &e.site, &e.url)).cloned().collect();
        // Stable: rows of the same millisecond keep the order they were written in.
        list.sort_by_key(|e| e.time);
        let skip = list.len().saturating_sub(limit as usize);
        let list = list.split_off(skip);
        Box::pin(async move { Ok(list) })
    }

    fn archive_history<'a>(
        &'a self,
        scope: &'a Scope,
        kind: DocumentKind,
    ) -> BoxFuture<'a, Result<Vec<ArchivedDocument>, StoreError>> {
        let rows = self.rows();
        let mut list: Vec<ArchivedDocument> = rows
            .archive
            .iter()
            .filter(|d| d.kind == kind && covers(scope, &d.site, &d.url))
            .cloned()
            .collect();
        list.sort_by(|a, b| a.site.cmp(&b.site).then_with(|| a.first_seen.cmp(&b.first_seen)));
        Box::pin(async move { Ok(list) })
    }

    fn known_sites(&self) -> BoxFuture<'_, Result<Vec<String>, StoreError>> {
        let sites = self.rows().sites.keys().cloned().collect();
        Box::pin(async move { Ok(sites) })
    }

    fn site_state<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Result<Option<SiteState>, StoreError>> {
        let state = self.rows().sites.get(site).cloned();
        Box::pin(async move { Ok(state) })
    }

    fn last_run<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<Option<SystemTime>, StoreError>> {
        let last = self.rows().runs.get(source).and_then(|r| r.0);
        Box::pin(async move { Ok(last) })
    }

    fn failure_streak<'a>(&'a self, source: &'a str) -> BoxFuture<'a, Result<u32, StoreError>> {
        let streak = self.rows().runs.get(source).map_or(0, |r| r.1);
        Box::pin(async move { Ok(streak) })
    }

    fn source_control<'a>(
        &'a self,
        source: &'a str,
    ) -> BoxFuture<'a, Result<SourceControl, StoreError>> {
        let control = self.rows().controls.get(source).copied().unwrap_or_default();
        Box::pin(async move { Ok(control) })
    }

    fn set_source_paused<'a>(
        &'a self,
        source: &'a str,
        paused: bool,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.rows().controls.entry(source.to_owned()).or_default().paused = paused;
        Box::pin(async { Ok(()) })
    }

    fn request_run<'a>(
        &'a self,
        source: &'a str,
        at: Option<SystemTime>,
        _now: SystemTime,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.rows().controls.entry(source.to_owned()).or_default().run_requested = at.map(ms);
        Box::pin(async { Ok(()) })
    }
}
