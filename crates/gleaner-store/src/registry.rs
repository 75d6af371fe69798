//! The owners' registry, written once for both backends (`crate::sql`): opt-outs and
//! overrides as rows of `owner_requests`, and the version cache that lets the gate check
//! them before every request without reading them all.
//!
//! The cache holds the entries with the `meta.registry_version` they were read at (a
//! trigger bumps it on every change). Each lookup reads the version; when it moved, the
//! version and the entries are read again together in one snapshot, so the cache never
//! pairs new entries with an old version (or the reverse) on either backend.
//!
//! Issue 27: on PostgreSQL the cache also remembers the `LISTEN gleaner_registry`
//! counter from before its last confirmation; a request's re-check right before its
//! reservation, after a wait, answers from the cache while the counter has not moved
//! (at most 5 s), so a request reads the version once, at its start. "Facts only" for
//! an event write comes from the cache, and the write checks its version in its own
//! transaction (`StoreError::RegistryMoved`, then one retry on a fresh read).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use gleaner_policy::registry::{OwnerRequest, OwnerRules, RegistryEntry, Scope, rules_for};
use tokio::sync::watch;
use url::Url;

use crate::model::{OwnerRecord, RemovalReport};
use crate::sql::{Dialect, Row, Tx, params, returned};
use crate::{Store, StoreError};

/// The registry's entries as last read, with the version they were read at, and what
/// the `LISTEN` counter ([`Store::registry_changes`]) said when that version was last
/// confirmed (PostgreSQL).
#[derive(Debug, Default)]
pub(crate) struct RegistryCache {
    read: Mutex<Option<Cached>>,
    changes: Mutex<Option<watch::Receiver<u64>>>,
}

#[derive(Debug, Clone)]
struct Cached {
    version: i64,
    entries: Arc<Vec<OwnerRecord>>,
    /// The listener's count of changes before the version was last confirmed, when it
    /// was listening; with the instant of that confirmation.
    listened: Option<(u64, Instant)>,
}

/// How long a confirmation of the version stands for [`Store::owner_rules_listened`]
/// while no notification came: the bound on how late a lost notification is noticed.
const LISTENED_STANDS: Duration = Duration::from_secs(5);

impl RegistryCache {
    fn get(&self) -> Option<Cached> {
        self.read.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, cached: Option<Cached>) {
        *self.read.lock().unwrap_or_else(|p| p.into_inner()) = cached;
    }
}

/// The registry's version.
pub(crate) const VERSION: &str = "SELECT value FROM meta WHERE key = 'registry_version'";

/// A scope as the columns `scope_kind` and `scope`.
pub(crate) fn scope_columns(scope: &Scope) -> (&'static str, &str) {
    match scope {
        Scope::Domain(d) => ("domain", d),
        Scope::UrlPrefix(p) => ("url-prefix", p),
    }
}

/// An `owner_requests` row as a registry entry (`None` for a kind this build does not
/// know, which it then ignores).
fn owner_entry(r: &Row) -> Result<Option<OwnerRecord>, StoreError> {
    let scope = match r.get::<String>(1)?.as_str() {
        "domain" => Scope::Domain(r.get(2)?),
        _ => Scope::UrlPrefix(r.get(2)?),
    };
    let request = match r.get::<String>(3)?.as_str() {
        "opt-out" => OwnerRequest::OptOut,
        "slow-down" => match r.get::<Option<u32>>(4) {
            Ok(Some(factor)) => OwnerRequest::SlowDown(factor),
            _ => return Ok(None),
        },
        "pause" => match r.get::<Option<SystemTime>>(5)? {
            Some(until) => OwnerRequest::PauseUntil(until),
            None => return Ok(None),
        },
        "facts-only" => OwnerRequest::FactsOnly,
        _ => return Ok(None),
    };
    Ok(Some(OwnerRecord {
        entry: RegistryEntry { scope, request, reference: r.get(0)? },
        created: r.get(6)?,
        note: r.get(7)?,
        lapses: r.get(8)?,
    }))
}

/// Every owner request, oldest first.
async fn read_owner_requests(tx: &mut dyn Tx) -> Result<Vec<OwnerRecord>, StoreError> {
    let rows = tx
        .rows(
            "SELECT reference, scope_kind, scope, request, factor, until_ms, created_ms, note,
                 lapses_ms
             FROM owner_requests ORDER BY created_ms, reference",
            params![],
        )
        .await?;
    Ok(rows.iter().map(owner_entry).collect::<Result<Vec<_>, _>>()?.into_iter().flatten().collect())
}

/// Records an owner request in `tx` (replacing one with the same reference, which then
/// holds for good until told otherwise).
pub(crate) async fn insert_owner_request(
    tx: &mut dyn Tx,
    entry: &RegistryEntry,
    note: Option<&str>,
    now: SystemTime,
) -> Result<(), StoreError> {
    let (kind, scope) = scope_columns(&entry.scope);
    let (request, factor, until) = match &entry.request {
        OwnerRequest::OptOut => ("opt-out", None, None),
        OwnerRequest::SlowDown(f) => ("slow-down", Some(*f), None),
        OwnerRequest::PauseUntil(t) => ("pause", None, Some(*t)),
        OwnerRequest::FactsOnly => ("facts-only", None, None),
    };
    tx.exec(
        "INSERT INTO owner_requests (reference, scope_kind, scope, request, factor, until_ms, note, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (reference) DO UPDATE SET scope_kind = excluded.scope_kind, scope = excluded.scope,
             request = excluded.request, factor = excluded.factor, until_ms = excluded.until_ms,
             note = excluded.note, lapses_ms = NULL",
        params![&entry.reference, kind, scope, request, factor, until, note, now],
    )
    .await
    .map(drop)
}

/// "Keep facts only" also purges what is already stored beyond facts (SPEC §1): the
/// descriptions and image addresses of the scope's events (and of each source's reading,
/// or the next merge would bring them back), their translations, and the summaries of
/// its news items.
async fn purge_to_facts(tx: &mut dyn Tx, scope: &Scope) -> Result<(), StoreError> {
    let d = tx.dialect();
    let (host, param) = d.scope_condition(scope, "host", "url", 1);
    let (url_host, _) = d.scope_condition(scope, "url_host", "url", 1);
    let events = format!("({host} OR {url_host})");
    for sql in [
        format!(
            "DELETE FROM translations WHERE event_id IN (SELECT id FROM events WHERE {events})"
        ),
        format!("UPDATE events SET description = NULL, image_url = NULL WHERE {events}"),
        format!(
            "UPDATE event_provenance SET description = NULL, image_url = NULL
             WHERE event_id IN (SELECT id FROM events WHERE {events})"
        ),
        format!("UPDATE news_items SET summary = NULL WHERE {host}"),
    ] {
        tx.exec(&sql, params![&param]).await?;
    }
    Ok(())
}

/// Deletes the content of `scope` from the tables `tx` sees (events with their
/// descriptions, history, provenance and translations, image addresses, news, bodies,
/// samples, validators, listing links, queued and kept work, relay records); returns how many
/// rows went from each table.
pub(crate) async fn delete_site_content(
    tx: &mut dyn Tx,
    scope: &Scope,
) -> Result<Vec<(String, u64)>, StoreError> {
    let d: Dialect = tx.dialect();
    let (events_cond, param) = d.scope_condition(scope, "host", "url", 1);
    let (url_host_cond, _) = d.scope_condition(scope, "url_host", "url", 1);
    let events_where = format!("({events_cond} OR {url_host_cond})");
    let of_events = |table: &str| {
        format!(
            "DELETE FROM {table} WHERE event_id IN (SELECT id FROM events WHERE {events_where})"
        )
    };
    let plain = |table: &str| format!("DELETE FROM {table} WHERE {events_cond}");
    let mut deleted = Vec::new();
    for (table, sql) in [
        ("translations", of_events("translations")),
        ("event_status", of_events("event_status")),
        ("event_provenance", of_events("event_provenance")),
        // The relay rows of the site's event images, whatever host serves them (issue
        // 26): the image of an event at `venue.example` often lives on a CDN.
        (
            "relay_images (event images)",
            format!(
                "DELETE FROM relay_images WHERE url IN (SELECT image_url FROM events
                 WHERE {events_where} AND image_url IS NOT NULL)"
            ),
        ),
        ("events", format!("DELETE FROM events WHERE {events_where}")),
        ("news_items", plain("news_items")),
        ("bodies", plain("bodies")),
        ("samples", plain("samples")),
        ("validators", plain("validators")),
        ("listing_links", plain("listing_links")),
        ("frontier", plain("frontier")),
        ("kept_requests", plain("kept_requests")),
        ("relay_images", plain("relay_images")),
    ] {
        deleted.push((table.to_owned(), tx.exec(&sql, params![&param]).await?));
    }
    Ok(deleted)
}

/// Opens a removal request in `tx`; returns its id.
pub(crate) async fn open_removal(
    tx: &mut dyn Tx,
    scope: &Scope,
    reference: &str,
    now: SystemTime,
) -> Result<i64, StoreError> {
    let written = tx
        .run(
            "INSERT INTO removal_requests (scope, reference, requested_ms) VALUES ($1, $2, $3)
             RETURNING id",
            params![scope_columns(scope).1, reference, now],
        )
        .await?;
    returned(written, "a removal request")
}

/// Ends a removal in `tx`: an opt-out for the scope, a sample exclusion for a domain,
/// and the request's completion with what was deleted.
pub(crate) async fn close_removal(
    tx: &mut dyn Tx,
    scope: &Scope,
    request_id: i64,
    deleted: Vec<(String, u64)>,
    now: SystemTime,
) -> Result<RemovalReport, StoreError> {
    let opt_out = format!("removal-{request_id}");
    let entry = RegistryEntry {
        scope: scope.clone(),
        request: OwnerRequest::OptOut,
        reference: opt_out.clone(),
    };
    insert_owner_request(tx, &entry, Some("added by `gleaner remove`"), now).await?;
    if let Scope::Domain(domain) = scope {
        tx.exec(
            "INSERT INTO sample_exclusions (domain, created_ms) VALUES ($1, $2)
             ON CONFLICT (domain) DO NOTHING",
            params![domain, now],
        )
        .await?;
    }
    let summary: Vec<String> = deleted.iter().map(|(t, n)| format!("{t}={n}")).collect();
    tx.exec(
        "UPDATE removal_requests SET completed_ms = $2, removed = $3 WHERE id = $1",
        params![request_id, SystemTime::now(), summary.join(" ")],
    )
    .await?;
    Ok(RemovalReport { request_id, opt_out, deleted })
}

impl Store {
    /// Everything owners asked that applies to `url`, read from the database (validated
    /// by a version number on every call).
    pub async fn owner_rules(&self, url: &Url) -> Result<OwnerRules, StoreError> {
        let entries = self.registry_entries().await?;
        let now = SystemTime::now();
        Ok(rules_for(entries.iter().filter(|r| r.in_force(now)).map(|r| &r.entry), url))
    }

    /// [`Store::owner_rules`] for a request that checked once and then waited
    /// (`Registry::lookup_again`): on PostgreSQL, while the `LISTEN gleaner_registry`
    /// listener has heard of no change since the version was last confirmed (and that
    /// confirmation is younger than [`LISTENED_STANDS`]), the entries as last read,
    /// without a round trip; otherwise as [`Store::owner_rules`]. An opt-out another
    /// process commits thus stops a waiting request once its notification arrives
    /// (milliseconds; it also wakes the request), or within 5 s when it is lost.
    pub async fn owner_rules_listened(&self, url: &Url) -> Result<OwnerRules, StoreError> {
        let heard = self.listened();
        if let Some(cached) = self.registry.get()
            && let (Some((seen, at)), Some(now)) = (cached.listened, heard)
            && seen == now
            && at.elapsed() < LISTENED_STANDS
        {
            let now = SystemTime::now();
            let entries = cached.entries.iter().filter(|r| r.in_force(now)).map(|r| &r.entry);
            return Ok(rules_for(entries, url));
        }
        self.owner_rules(url).await
    }

    /// The listener's count of changes, when it listens (PostgreSQL, connected);
    /// subscribes on first use.
    fn listened(&self) -> Option<u64> {
        let mut changes = self.registry.changes.lock().unwrap_or_else(|p| p.into_inner());
        if changes.as_ref().is_none_or(|c| c.has_changed().is_err()) {
            *changes = self.registry_changes();
        }
        let changes = changes.as_ref()?;
        changes.has_changed().ok()?;
        // 0: not listening yet (the first count is the `LISTEN` itself).
        Some(*changes.borrow()).filter(|n| *n > 0)
    }

    /// Whether an owner asked to keep only the facts of `url`'s events, from the
    /// registry as last read (read when there is none yet), with the version that answer
    /// holds at: the event write checks that version in its own transaction and fails
    /// with [`StoreError::RegistryMoved`] when it moved (then [`Store::forget_registry`]
    /// and ask again). No round trip of its own while the registry does not change.
    pub(crate) async fn facts_only(&self, url: &Url) -> Result<(bool, i64), StoreError> {
        let (version, entries) = match self.registry.get() {
            Some(cached) => (cached.version, cached.entries),
            None => self.read_registry(self.listened()).await?,
        };
        let now = SystemTime::now();
        let rules = rules_for(entries.iter().filter(|r| r.in_force(now)).map(|r| &r.entry), url);
        Ok((rules.facts_only, version))
    }

    /// Drops the registry as last read: the next lookup reads it again.
    pub(crate) fn forget_registry(&self) {
        self.registry.set(None);
    }

    /// The registry's entries, from the cache while the version has not moved.
    async fn registry_entries(&self) -> Result<Arc<Vec<OwnerRecord>>, StoreError> {
        // Counted before the version is read: a change after this moves the counter.
        let heard = self.listened();
        let cached = self.registry.get();
        let rows = self
            .db()
            .point_query(VERSION, params![], "reading the registry version".into())
            .await?;
        let row = rows.into_iter().next();
        let version: i64 = row.map(|r| r.get(0)).transpose()?.unwrap_or(0);
        if let Some(mut cached) = cached
            && cached.version == version
        {
            let entries = Arc::clone(&cached.entries);
            cached.listened = heard.map(|n| (n, Instant::now()));
            self.registry.set(Some(cached));
            return Ok(entries);
        }
        Ok(self.read_registry(heard).await?.1)
    }

    /// The version and the entries, read together in one snapshot, and cached with
    /// `heard`, the listener's count taken before reading.
    async fn read_registry(
        &self,
        heard: Option<u64>,
    ) -> Result<(i64, Arc<Vec<OwnerRecord>>), StoreError> {
        let (version, entries) = self
            .db()
            .read_tx("reading owner requests".into(), |tx| {
                Box::pin(async move {
                    let row = tx.row(VERSION, params![]).await?;
                    let version: i64 = row.map(|r| r.get(0)).transpose()?.unwrap_or(0);
                    Ok((version, read_owner_requests(tx).await?))
                })
            })
            .await?;
        let entries = Arc::new(entries);
        self.registry.set(Some(Cached {
            version,
            entries: Arc::clone(&entries),
            listened: heard.map(|n| (n, Instant::now())),
        }));
        Ok((version, entries))
    }

    /// Records an opt-out or override (replacing one with the same reference). "Facts
    /// only" also purges the descriptions, image addresses and translations already
    /// stored for its scope.
    pub async fn add_owner_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.record_owner_request(entry, note, now, None).await
    }

    /// Records an owner's request whose sender has not proven control of the site: it
    /// applies at once and stops applying at `lapses` unless [`Store::confirm_owner_request`]
    /// makes it permanent first (issue 26). Only requests that make gleaner do less
    /// belong here; an unproven "facts only" purges nothing.
    pub async fn add_unverified_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: SystemTime,
    ) -> Result<(), StoreError> {
        self.record_owner_request(entry, note, now, Some(lapses)).await
    }

    async fn record_owner_request(
        &self,
        entry: RegistryEntry,
        note: Option<String>,
        now: SystemTime,
        lapses: Option<SystemTime>,
    ) -> Result<(), StoreError> {
        let doing = format!("recording owner request `{}`", entry.reference);
        self.db()
            .tx(doing, move |tx| {
                Box::pin(async move {
                    insert_owner_request(tx, &entry, note.as_deref(), now).await?;
                    if let Some(lapses) = lapses {
                        tx.exec(
                            "UPDATE owner_requests SET lapses_ms = $2 WHERE reference = $1",
                            params![&entry.reference, lapses],
                        )
                        .await?;
                    } else if entry.request == OwnerRequest::FactsOnly {
                        // Only a request that holds for good purges: an unproven one
                        // hides and deletes nothing (issue 26).
                        purge_to_facts(tx, &entry.scope).await?;
                    }
                    Ok(())
                })
            })
            .await
    }

    /// Makes an owner request permanent (proven, or confirmed by the operator); false
    /// when there is no such reference.
    pub async fn confirm_owner_request(&self, reference: &str) -> Result<bool, StoreError> {
        let sql = "UPDATE owner_requests SET lapses_ms = NULL WHERE reference = $1";
        let doing = format!("confirming owner request `{reference}`");
        Ok(self.db().exec(sql, params![reference], doing).await? > 0)
    }

    /// Removes the owner request with this reference; false when there was none.
    pub async fn remove_owner_request(&self, reference: &str) -> Result<bool, StoreError> {
        let sql = "DELETE FROM owner_requests WHERE reference = $1";
        let doing = format!("removing owner request `{reference}`");
        Ok(self.db().exec(sql, params![reference], doing).await? > 0)
    }

    /// Every owner request, oldest first.
    pub async fn owner_requests(&self) -> Result<Vec<OwnerRecord>, StoreError> {
        let doing = "reading owner requests".to_owned();
        self.db().read_tx(doing, |tx| Box::pin(read_owner_requests(tx))).await
    }
}
