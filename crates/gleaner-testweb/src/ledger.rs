//! The request ledger: one [`LedgerEntry`] per request the test web saw, as the site saw it.
//!
//! The server appends an entry when a request arrives (the arrival time is the moment its
//! first bytes were read from the socket, from a monotonic clock, so a busy server cannot
//! make a polite client look impolite; on Tokio's clock for the in-process web, see
//! [`LedgerClock`]) and completes it when the response is done or the
//! client hangs up. [`Ledger`] is an immutable snapshot with query methods; the assertion
//! helpers live in [`crate::check`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::manifest::{Manifest, SiteSpec};

/// What the server chose to answer, so helpers need not re-derive it from paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Served {
    /// A robots file (`/robots.txt`, a redirect hop, `/robots-moved.txt`) in any outcome.
    Robots,
    /// Ordinary content (HTML page, listing, large or slow body).
    Page,
    /// A 304 Not Modified.
    NotModified,
    /// A redirect of a page.
    Redirect,
    /// 404 or 410: the page is gone.
    Gone,
    /// 429 or 503 with (or without) `Retry-After`: the site asks for a pause.
    Throttle,
    /// 401, 403, a challenge page or a login wall: the site refuses the bot.
    Block,
    /// A deliberately broken response (lying `Content-Length`, reset, hang).
    Fault,
}

/// One request as the site saw it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LedgerEntry {
    /// Order of arrival across the whole web, from 0.
    pub seq: u64,
    /// Arrival time since the ledger's epoch (monotonic): when the first bytes of the
    /// request were read. (A request body is never read, so a later read of one can only
    /// make the next request on that connection look earlier; gleaner sends no bodies.)
    #[serde(serialize_with = "secs", deserialize_with = "de_secs")]
    pub at: Duration,
    /// Index of the site (its position in the manifest).
    pub site: usize,
    /// Connection number across the web, to tell keep-alive reuse apart.
    pub conn: u64,
    /// HTTP method.
    pub method: String,
    /// Path, without the query.
    pub path: String,
    /// Query string without `?`, if any.
    pub query: Option<String>,
    /// The `Host` header.
    pub host: Option<String>,
    /// The `User-Agent` header.
    pub user_agent: Option<String>,
    /// The `If-None-Match` header.
    pub if_none_match: Option<String>,
    /// The `If-Modified-Since` header.
    pub if_modified_since: Option<String>,
    /// The `Cookie` header (a polite bot sends none).
    pub cookie: Option<String>,
    /// The `Referer` header (a polite bot sends none).
    pub referer: Option<String>,
    /// The `Signature-Agent` header (Web Bot Auth), as sent.
    pub signature_agent: Option<String>,
    /// The `Signature-Input` header, as sent.
    pub signature_input: Option<String>,
    /// The `Signature` header, as sent.
    pub signature: Option<String>,
    /// Requests open at this site when this one arrived, this one included.
    pub in_flight: usize,
    /// Status sent, or 0 while the server has not answered (hang, slow first byte).
    pub status: u16,
    /// What kind of answer the server gave.
    pub served: Served,
    /// The pause the server asked for with `Retry-After`, when it sent a readable one.
    #[serde(serialize_with = "opt_secs", deserialize_with = "de_opt_secs")]
    pub retry_after: Option<Duration>,
    /// Whether the answer carried an `ETag` or `Last-Modified` validator.
    pub validators_sent: bool,
    /// Body bytes handed to the connection.
    pub bytes_sent: u64,
    /// When the server was done with the request (since the epoch), if it is.
    #[serde(serialize_with = "opt_secs", deserialize_with = "de_opt_secs")]
    pub finished: Option<Duration>,
    /// Whether the client went away before the whole answer was sent.
    pub hung_up: bool,
}

impl LedgerEntry {
    /// Whether this request was for a robots file (`/robots.txt` or its redirect chain).
    pub fn is_robots(&self) -> bool {
        is_robots_path(&self.path)
    }

    /// Path and query as the client asked for them.
    pub fn target(&self) -> String {
        match &self.query {
            Some(q) => format!("{}?{q}", self.path),
            None => self.path.clone(),
        }
    }

    /// Whether the request carried `If-None-Match` or `If-Modified-Since`.
    pub fn is_conditional(&self) -> bool {
        self.if_none_match.is_some() || self.if_modified_since.is_some()
    }

    /// When the response was finished, or the arrival time when it never was.
    pub fn end(&self) -> Duration {
        self.finished.unwrap_or(self.at)
    }
}

/// Durations appear in JSON as seconds (a float), which reads better in a report.
fn secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

fn opt_secs<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_some(&d.as_secs_f64()),
        None => s.serialize_none(),
    }
}

fn de_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let secs = f64::deserialize(d)?;
    Duration::try_from_secs_f64(secs).map_err(serde::de::Error::custom)
}

fn de_opt_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(secs) => Duration::try_from_secs_f64(secs).map(Some).map_err(serde::de::Error::custom),
        None => Ok(None),
    }
}

/// Whether `path` is one of the robots files the test web serves.
pub fn is_robots_path(path: &str) -> bool {
    path == "/robots.txt" || path == "/robots-moved.txt" || path.starts_with("/robots-hop/")
}

/// The monotonic clock a ledger's `at` and `finished` count on.
///
/// The socket server reads the machine's clock ([`std::time::Instant`]) on its own
/// runtime, so a test's paused time cannot bend what the sites saw. The in-process web
/// ([`crate::inprocess`]) runs on the test's runtime and reads Tokio's clock, so a test on
/// paused time (`tokio::time::pause`) is judged on the same time its crawler kept. The
/// checks in [`crate::check`] compare durations only and work on either.
#[derive(Debug, Clone, Copy)]
pub enum LedgerClock {
    /// The machine's monotonic clock, from this instant.
    Machine(Instant),
    /// Tokio's clock (paused or not), from this instant.
    Tokio(tokio::time::Instant),
}

impl LedgerClock {
    /// Time since the epoch on this clock.
    pub fn elapsed(&self) -> Duration {
        match self {
            LedgerClock::Machine(epoch) => epoch.elapsed(),
            LedgerClock::Tokio(epoch) => epoch.elapsed(),
        }
    }
}

/// Live ledger shared by the server's connections.
#[derive(Debug)]
pub(crate) struct LedgerSink {
    pub(crate) epoch: LedgerClock,
    pub(crate) wall_epoch: SystemTime,
    entries: Mutex<Vec<LedgerEntry>>,
    in_flight: Vec<AtomicUsize>,
}

impl LedgerSink {
    pub(crate) fn new(sites: usize, epoch: LedgerClock) -> Self {
        LedgerSink {
            epoch,
            wall_epoch: SystemTime::now(),
            entries: Mutex::new(Vec::with_capacity(1024)),
            in_flight: (0..sites).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// Now as a wall time: the machine's for a socket web, the epoch's wall time plus
    /// Tokio's elapsed time for the in-process web (so an HTTP-date agrees with the clock
    /// a test on paused time runs on).
    pub(crate) fn wall_now(&self) -> SystemTime {
        match self.epoch {
            LedgerClock::Machine(_) => SystemTime::now(),
            LedgerClock::Tokio(epoch) => self.wall_epoch + epoch.elapsed(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<LedgerEntry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records an arrival and returns the guard that completes the entry when dropped.
    pub(crate) fn arrive(self: &Arc<Self>, mut entry: LedgerEntry) -> RequestGuard {
        entry.in_flight = self.in_flight[entry.site].fetch_add(1, Ordering::SeqCst) + 1;
        let site = entry.site;
        let index = {
            let mut entries = self.lock();
            entry.seq = entries.len() as u64;
            entries.push(entry);
            entries.len() - 1
        };
        RequestGuard {
            sink: Arc::clone(self),
            index,
            site,
            bytes: 0,
            complete: false,
            server_abort: false,
        }
    }

    pub(crate) fn update(&self, index: usize, f: impl FnOnce(&mut LedgerEntry)) {
        if let Some(e) = self.lock().get_mut(index) {
            f(e);
        }
    }

    pub(crate) fn snapshot(&self) -> Vec<LedgerEntry> {
        self.lock().clone()
    }

    pub(crate) fn clear(&self) {
        self.lock().clear();
    }
}

/// Completes a ledger entry when the server is done with the request, however that ends.
///
/// The guard lives in the service future until a response exists, then in the response
/// body; hyper drops it when the body is sent or the connection goes away, so `Drop` is
/// the one place that knows whether the client hung up.
#[derive(Debug)]
pub(crate) struct RequestGuard {
    sink: Arc<LedgerSink>,
    index: usize,
    site: usize,
    pub(crate) bytes: u64,
    /// Set when the whole response has been handed over.
    pub(crate) complete: bool,
    /// Set when the server cut the response on purpose (lying length, reset, hang).
    pub(crate) server_abort: bool,
}

impl RequestGuard {
    /// Fills in the answer fields once the response head is chosen.
    pub(crate) fn answered(
        &self,
        status: u16,
        served: Served,
        retry_after: Option<Duration>,
        validators: bool,
    ) {
        self.sink.update(self.index, |e| {
            e.status = status;
            e.served = served;
            e.retry_after = retry_after;
            e.validators_sent = validators;
        });
    }

    /// Marks the fields of a request the server will never answer.
    pub(crate) fn fault(&mut self) {
        self.server_abort = true;
        self.sink.update(self.index, |e| e.served = Served::Fault);
    }
}

impl Drop for RequestGuard {
    fn drop(&mut self) {
        let finished = self.sink.epoch.elapsed();
        let hung_up = !self.complete && !self.server_abort;
        let bytes = self.bytes;
        self.sink.update(self.index, |e| {
            e.finished = Some(finished);
            e.bytes_sent = bytes;
            e.hung_up = hung_up;
        });
        self.sink.in_flight[self.site].fetch_sub(1, Ordering::SeqCst);
    }
}

/// A snapshot of the ledger, with the manifest that explains it.
///
/// Derefs to the entries in arrival order, so `ledger.iter()`, `ledger.len()` and
/// slicing work as on a `Vec<LedgerEntry>`.
#[derive(Clone, Debug)]
pub struct Ledger {
    /// Entries in arrival order.
    pub entries: Vec<LedgerEntry>,
    /// The manifest the web was started with.
    pub manifest: Arc<Manifest>,
    /// Wall-clock time at the ledger's epoch (`at` = 0), for reports.
    pub wall_epoch: SystemTime,
    /// Allowance for timing jitter in time-based checks (default
    /// [`crate::check::TIMING_SLACK`]); see [`Ledger::with_slack`].
    pub slack: Duration,
}

impl std::ops::Deref for Ledger {
    type Target = [LedgerEntry];
    fn deref(&self) -> &[LedgerEntry] {
        &self.entries
    }
}

impl Ledger {
    /// A ledger from entries a test built by hand (for testing the helpers themselves).
    pub fn from_entries(entries: Vec<LedgerEntry>, manifest: Manifest) -> Self {
        Ledger {
            entries,
            manifest: Arc::new(manifest),
            wall_epoch: SystemTime::UNIX_EPOCH,
            slack: crate::check::TIMING_SLACK,
        }
    }

    /// The same ledger with another timing allowance, for machines too busy for the
    /// default (a check then forgives requests that far too early).
    pub fn with_slack(mut self, slack: Duration) -> Ledger {
        self.slack = slack;
        self
    }

    /// Only the entries for which `keep` is true (the manifest is kept).
    pub fn filter(&self, keep: impl Fn(&LedgerEntry) -> bool) -> Ledger {
        Ledger {
            entries: self.entries.iter().filter(|e| keep(e)).cloned().collect(),
            manifest: Arc::clone(&self.manifest),
            wall_epoch: self.wall_epoch,
            slack: self.slack,
        }
    }

    /// The entries of one site, in arrival order.
    pub fn site(&self, site: usize) -> impl Iterator<Item = &LedgerEntry> {
        self.entries.iter().filter(move |e| e.site == site)
    }

    /// The spec of a site.
    pub fn spec(&self, site: usize) -> &SiteSpec {
        &self.manifest.sites[site]
    }

    /// Number of requests for `path` (query ignored) at `site`.
    pub fn count(&self, site: usize, path: &str) -> usize {
        self.site(site).filter(|e| e.path == path).count()
    }

    /// Whether `path` was requested at `site`.
    pub fn fetched(&self, site: usize, path: &str) -> bool {
        self.count(site, path) > 0
    }

    /// Sites that received at least one request, in index order.
    pub fn sites_touched(&self) -> Vec<usize> {
        let mut sites: Vec<usize> = self.entries.iter().map(|e| e.site).collect();
        sites.sort_unstable();
        sites.dedup();
        sites
    }

    /// Time from the first arrival to the last finish, or zero for an empty ledger.
    pub fn span(&self) -> Duration {
        let first = self.entries.iter().map(|e| e.at).min();
        let last = self.entries.iter().map(LedgerEntry::end).max();
        match (first, last) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => Duration::ZERO,
        }
    }

    /// Wall-clock time of a monotonic arrival (`wall_epoch + at`), for reports.
    pub fn wall_time(&self, at: Duration) -> SystemTime {
        self.wall_epoch + at
    }

    /// The entries as JSON lines (durations in seconds), for a report or a failing test's artefact.
    pub fn to_json_lines(&self) -> String {
        let mut out = String::new();
        for e in &self.entries {
            if let Ok(line) = serde_json::to_string(e) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }

    /// Entries read back from [`Ledger::to_json_lines`] (blank lines skipped).
    pub fn entries_from_json_lines(text: &str) -> Result<Vec<LedgerEntry>, serde_json::Error> {
        text.lines().filter(|l| !l.trim().is_empty()).map(serde_json::from_str).collect()
    }

    /// One ledger from the ledgers of several webs that split `manifest` between them
    /// (see [`crate::split`]): part `k` served sites `first..first + n` of `manifest` as
    /// its sites `0..n` and counted `at` from its own epoch.
    ///
    /// Sites are renumbered into `manifest`, connections kept apart per part, times moved
    /// onto the earliest part's epoch (by the parts' wall-clock epochs: the same machine's
    /// clock, so microseconds apart, while every per-site check compares times of one part)
    /// and `seq` renumbered in arrival order.
    pub fn merge(parts: Vec<LedgerPart>, manifest: Arc<Manifest>) -> Ledger {
        let wall_epoch = parts.iter().map(|p| p.wall_epoch).min().unwrap_or(SystemTime::UNIX_EPOCH);
        let mut entries = Vec::with_capacity(parts.iter().map(|p| p.entries.len()).sum());
        for (k, part) in parts.into_iter().enumerate() {
            let shift = part.wall_epoch.duration_since(wall_epoch).unwrap_or_default();
            for mut e in part.entries {
                e.site += part.first_site;
                e.conn += (k as u64) << 40;
                e.at += shift;
                e.finished = e.finished.map(|f| f + shift);
                entries.push(e);
            }
        }
        entries.sort_by_key(|e| e.at);
        for (seq, e) in entries.iter_mut().enumerate() {
            e.seq = seq as u64;
        }
        Ledger { entries, manifest, wall_epoch, slack: crate::check::TIMING_SLACK }
    }
}

/// The ledger of one web serving a slice of a larger manifest, for [`Ledger::merge`].
#[derive(Clone, Debug)]
pub struct LedgerPart {
    /// The larger manifest's index of this web's site 0.
    pub first_site: usize,
    /// Wall-clock time at this web's epoch.
    pub wall_epoch: SystemTime,
    /// This web's entries (sites and times its own).
    pub entries: Vec<LedgerEntry>,
}
