//! The values that go into and come out of the store. Backends share them; none of them
//! knows SQL.

use std::time::{Duration, SystemTime};

use gleaner_event::merge::{Extractor, Field};
use gleaner_event::{Event, EventIdentity, EventStatus};
use gleaner_policy::Purpose;
use gleaner_policy::outcome::Outcome;
use url::Url;

/// How much of a source's content may be kept (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Facts only: no description, no image address.
    Facts,
    /// Facts, description and image address.
    Full,
}

impl Keep {
    /// The config name.
    pub fn as_str(self) -> &'static str {
        match self {
            Keep::Facts => "facts",
            Keep::Full => "full",
        }
    }
}

/// One extracted event to upsert, with where it came from.
#[derive(Debug, Clone, Copy)]
pub struct EventWrite<'a> {
    /// The normalised event.
    pub event: &'a Event,
    /// The configured source that produced it.
    pub source: Option<&'a str>,
    /// The page (or feed) it was read from.
    pub fetched_url: &'a Url,
    /// When that page was fetched.
    pub fetched_at: SystemTime,
    /// What may be kept; `Keep::Facts` (or an owner's facts-only) drops the description
    /// and image address.
    pub keep: Keep,
    /// The reader that produced it (recorded in its provenance; `None` when unknown,
    /// which keeps what an earlier write of the same source and page recorded).
    pub extractor: Option<Extractor>,
}

/// What an upsert did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upserted {
    /// A new event.
    Inserted(i64),
    /// A known event whose facts did not change; only its last check moved.
    Unchanged(i64),
    /// A known event with changed facts; `status_changed` when a history row was added.
    Updated {
        /// The event's id.
        id: i64,
        /// Whether the status changed.
        status_changed: bool,
    },
}

impl Upserted {
    /// The event's id.
    pub fn id(self) -> i64 {
        match self {
            Upserted::Inserted(id) | Upserted::Unchanged(id) | Upserted::Updated { id, .. } => id,
        }
    }
}

/// One status an event had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    /// The status.
    pub status: EventStatus,
    /// Whether the source stated it.
    pub stated: bool,
    /// When gleaner saw it.
    pub at: SystemTime,
}

/// A fetch that produced an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provenance {
    /// The configured source.
    pub source: Option<String>,
    /// The fetched URL.
    pub fetch_url: String,
    /// When (the latest such fetch).
    pub fetched_at: SystemTime,
    /// The reader that read it (`None` for fetches stored before it was recorded).
    pub extractor: Option<Extractor>,
    /// The fields of the event this fetch's reading gave (the most precise value of each
    /// field wins across readings: `gleaner_event::merge`).
    pub fields: Vec<Field>,
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// The store's id.
    pub id: i64,
    /// Its identity (dedup key).
    pub identity: EventIdentity,
    /// The host it was read from.
    pub host: String,
    /// The source that last produced it.
    pub source: Option<String>,
    /// The event (description and image only when kept in full).
    pub event: Event,
    /// First seen.
    pub first_seen: SystemTime,
    /// Last confirmed by a fetch.
    pub last_checked: SystemTime,
    /// Status history, oldest first (filled by [`crate::Store::event`]).
    pub history: Vec<StatusChange>,
    /// Fetches that produced it (filled by [`crate::Store::event`]).
    pub provenance: Vec<Provenance>,
}

/// A news item (local-news aggregators).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewsItem {
    /// Its page.
    pub url: Url,
    /// The configured source.
    pub source: Option<String>,
    /// Its title.
    pub title: Option<String>,
    /// When it was published.
    pub published: Option<SystemTime>,
    /// A summary, kept only for `keep = "full"`.
    pub summary: Option<String>,
}

/// A stored news item, for the newsroom pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredNews {
    /// Its row id.
    pub id: i64,
    /// The item.
    pub item: NewsItem,
    /// When it was first stored.
    pub first_seen: SystemTime,
}

/// A stored audit row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// When the request started (or was refused).
    pub time: SystemTime,
    /// The budget key.
    pub site: String,
    /// The URL, redacted.
    pub url: String,
    /// Why it was made.
    pub purpose: Option<Purpose>,
    /// The source.
    pub source: Option<String>,
    /// Sent with a status, refused (which rule), or failed (how).
    pub outcome: Outcome,
    /// The failure's message, when it failed.
    pub error: Option<String>,
    /// Body bytes.
    pub bytes: u64,
    /// Duration.
    pub duration: Duration,
    /// The rule that allowed or refused it.
    pub reason: String,
}

/// What kind of document an archive row holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// `/robots.txt`.
    Robots,
    /// A terms or press page.
    Terms,
}

impl DocumentKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            DocumentKind::Robots => "robots",
            DocumentKind::Terms => "terms",
        }
    }
}

/// One archived version of a robots.txt or terms page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedDocument {
    /// The budget key (origin).
    pub site: String,
    /// robots.txt or terms.
    pub kind: DocumentKind,
    /// Where it was read.
    pub url: String,
    /// First read with this content.
    pub first_seen: SystemTime,
    /// Last read with this content.
    pub last_seen: SystemTime,
    /// The bytes.
    pub body: Vec<u8>,
}

/// An owner's request as stored (opt-outs and overrides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerRecord {
    /// The registry entry (scope, request, reference).
    pub entry: gleaner_policy::registry::RegistryEntry,
    /// When it was recorded.
    pub created: SystemTime,
    /// A free-form note (who asked, how).
    pub note: Option<String>,
    /// When an unproven request stops applying (`None`: permanent; issue 26).
    pub lapses: Option<SystemTime>,
}

impl OwnerRecord {
    /// Whether the request still applies at `now`.
    pub fn in_force(&self, now: SystemTime) -> bool {
        self.lapses.is_none_or(|t| t > now)
    }
}

/// What a removal deleted, per table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RemovalReport {
    /// The removal request's id.
    pub request_id: i64,
    /// The opt-out reference added.
    pub opt_out: String,
    /// Rows deleted per table (cascades included).
    pub deleted: Vec<(String, u64)>,
}

/// How long things are kept (SPEC §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// Fetched bodies.
    pub bodies: Duration,
    /// Events after the end of their last day.
    pub events_after_end: Duration,
    /// Audit rows.
    pub audit: Duration,
}

impl RetentionPolicy {
    /// The documented defaults (SPEC §3): bodies 90 days, events 30 days after they end,
    /// audit rows about 13 months.
    pub fn from_defaults() -> RetentionPolicy {
        use gleaner_config::settings::defaults;
        RetentionPolicy {
            bodies: defaults::BODIES,
            events_after_end: defaults::EVENTS_AFTER_END,
            audit: defaults::AUDIT,
        }
    }

    /// The periods from the settings (`[retention]`).
    pub fn from_settings(settings: &gleaner_config::Settings) -> RetentionPolicy {
        RetentionPolicy {
            bodies: settings.retention.bodies,
            events_after_end: settings.retention.events_after_end,
            audit: settings.retention.audit,
        }
    }
}

/// What a purge deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeReport {
    /// Bodies.
    pub bodies: u64,
    /// Events (their translations, history and provenance went with them).
    pub events: u64,
    /// Translations deleted with their events.
    pub translations: u64,
    /// Audit rows.
    pub audit: u64,
}

/// Due work in the shared frontier: a URL to fetch for a purpose (SPEC §7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkItem {
    /// The site (budget key) it belongs to.
    pub site: String,
    /// What to fetch.
    pub url: Url,
    /// Why.
    pub purpose: Purpose,
    /// The configured source that asked for it.
    pub source: Option<String>,
}

/// A work item claimed by one worker until its lease expires.
///
/// The lease was measured on the database clock (SQLite: the one process's clock) and
/// is checked on the worker's monotonic clock from just *before* the claim was sent, so
/// the worker's idea of the time left is never longer than the database's.
#[derive(Debug, Clone)]
pub struct WorkLease {
    /// The frontier row.
    pub id: i64,
    /// What was claimed.
    pub item: WorkItem,
    /// The fencing token: results are accepted only with the latest token of the row.
    pub token: i64,
    /// How long the lease lasted when the database granted it.
    pub valid_for: Duration,
    /// When (on this worker's monotonic clock) the claim was sent.
    pub claimed_at: std::time::Instant,
}

impl WorkLease {
    /// May a request for this item still start? True while the lease has more than
    /// `margin` left (give it the response deadline, so the request also ends in time).
    pub fn may_start(&self, margin: Duration) -> bool {
        self.claimed_at.elapsed() + margin < self.valid_for
    }
}

/// A site leased to one worker (SPEC §7): only the holder starts requests there, and
/// only while [`SiteLease::may_start`] says the lease has time left.
#[derive(Debug, Clone)]
pub struct SiteLease {
    /// The site (budget key).
    pub site: String,
    /// The fencing token of this holding (kept when the holder renews in time).
    pub token: i64,
    /// How long the lease lasted when the database granted it.
    pub valid_for: Duration,
    /// When (on this worker's monotonic clock) the claim was sent.
    pub claimed_at: std::time::Instant,
}

impl SiteLease {
    /// May a request start at this site now? True while the lease has more than
    /// `margin` left (give it the response deadline).
    pub fn may_start(&self, margin: Duration) -> bool {
        self.claimed_at.elapsed() + margin < self.valid_for
    }
}
