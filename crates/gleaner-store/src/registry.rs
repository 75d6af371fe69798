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
    /// The scopes whose gate rules changed in the reads of the last [`MOVED_RECENTLY`],
    /// with when each read noticed it: a request decided on the entries from before
    /// such a read is not reserved (see [`RegistryGuard`]).
    moves: Mutex<Vec<(Instant, Vec<Scope>)>>,
    /// Held while the registry is read with nothing cached ([`Store::first_read_of_registry`]).
    first_read: tokio::sync::Mutex<()>,
}

#[derive(Debug, Clone)]
struct Cached {
    version: i64,
    entries: Arc<Vec<OwnerRecord>>,
    /// The listener's count of changes before the version was last confirmed, when it
    /// was listening; with the instant of that confirmation.
    listened: Option<(u64, Instant)>,
    /// When the version was last confirmed: read, or found unmoved by a reservation.
    confirmed: Instant,
}

/// How long a confirmation of the version stands for the gate's lookups
/// ([`Store::owner_rules_for_gate`]) while no notification came. The reservation that
/// follows a lookup checks the version in its own transaction, so this only bounds how
/// stale the answers are for a process that looks up without reserving.
const LISTENED_STANDS: Duration = Duration::from_secs(5);

/// How long a noticed change of a scope's rules keeps the reservations of the sites it
/// may cover from going ahead on entries read before it: far longer than the gate
/// takes between its lookup and its reservation (`REGISTRY_FRESH` in `gleaner-fetch`,
/// 100 ms; a lookup again right before the reservation after any wait).
const MOVED_RECENTLY: Duration = Duration::from_secs(2);

impl RegistryCache {
    fn get(&self) -> Option<Cached> {
        self.read.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn set(&self, cached: Option<Cached>) {
        *self.read.lock().unwrap_or_else(|p| p.into_inner()) = cached;
    }

    /// Replaces the cache with `fresh` (read when the listener's count was `heard`),
    /// noting the scopes whose gate rules differ from the cached entries.
    fn replace(&self, version: i64, entries: Arc<Vec<OwnerRecord>>, heard: Option<u64>) {
        let now = Instant::now();
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(old) = read.as_ref() {
            if old.version > version {
                // An older read finished after a newer one: keep the newer.
                return;
            }
            let moved = moved_scopes(&old.entries, &entries);
            if !moved.is_empty() {
                let mut moves = self.moves.lock().unwrap_or_else(|p| p.into_inner());
                moves.retain(|(at, _)| at.elapsed() < MOVED_RECENTLY);
                moves.push((now, moved));
            }
        }
        let listened = heard.map(|n| (n, now));
        *read = Some(Cached { version, entries, listened, confirmed: now });
    }

    /// Marks `version` confirmed now, when it is still the cached one.
    fn confirm(&self, version: i64, heard: Option<u64>) {
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(cached) = read.as_mut()
            && cached.version == version
        {
            let now = Instant::now();
            cached.confirmed = now;
            cached.listened = heard.map(|n| (n, now));
        }
    }

    /// Whether a change noticed within [`MOVED_RECENTLY`] may cover a URL of `site`.
    fn moved_recently(&self, site: &str) -> bool {
        let moves = self.moves.lock().unwrap_or_else(|p| p.into_inner());
        moves.iter().any(|(at, scopes)| {
            at.elapsed() < MOVED_RECENTLY && scopes.iter().any(|s| may_cover_site(s, site))
        })
    }
}

/// What a reservation checks of the owners' registry in its own transaction (issue 27:
/// the gate's lookup answers from the entries as last read, and the reservation
/// confirms them instead of a read of its own before it): the version those entries are
/// of, and the entries, to tell whether a change covers the site.
#[derive(Debug, Clone)]
pub(crate) struct RegistryGuard {
    /// The version of the entries the request was decided on.
    pub(crate) version: i64,
    entries: Arc<Vec<OwnerRecord>>,
    /// A change of a scope that may cover the site was noticed moments ago: the request
    /// may have been decided before it.
    moved_recently: bool,
}

/// What a reservation found of the registry ([`check_registry`]).
#[derive(Debug)]
pub(crate) enum RegistrySeen {
    /// At the guard's version.
    Unmoved,
    /// Moved, but not for this site: the entries at `version`, for the cache.
    Moved { version: i64, entries: Arc<Vec<OwnerRecord>> },
    /// Moved, seen by an update that reserved nothing (and so read no entries).
    Stale,
}

/// Checks in `tx` (a reservation's transaction, after its change reserved a request)
/// that the registry's rules for `site` are still those `guard` holds:
/// [`StoreError::RegistryMovedForSite`] when they may not be, and the reservation must not
/// commit. `seen` is the version the transaction already read, if it did.
pub(crate) async fn check_registry(
    tx: &mut dyn Tx,
    site: &str,
    guard: &RegistryGuard,
    seen: Option<i64>,
) -> Result<RegistrySeen, StoreError> {
    let seen = match seen {
        Some(seen) => seen,
        None => tx.row(VERSION, params![]).await?.map_or(Ok(0), |r| r.get(0))?,
    };
    let moved = |seen| StoreError::RegistryMovedForSite {
        site: site.to_owned(),
        expected: guard.version,
        seen,
    };
    if guard.moved_recently {
        return Err(moved(seen));
    }
    if seen == guard.version {
        return Ok(RegistrySeen::Unmoved);
    }
    // Read in this transaction, after the version: on PostgreSQL (read committed) a
    // change committed in between moves the version again, which the next check sees.
    let entries = read_owner_requests(tx).await?;
    let again: i64 = tx.row(VERSION, params![]).await?.map_or(Ok(0), |r| r.get(0))?;
    if again != seen
        || moved_scopes(&guard.entries, &entries).iter().any(|s| may_cover_site(s, site))
    {
        return Err(moved(again));
    }
    Ok(RegistrySeen::Moved { version: seen, entries: Arc::new(entries) })
}

/// Whether a change of a site's state reserved a request (a purpose's count in flight
/// went up): what the registry guard checks.
pub(crate) fn reserves(
    before: Option<&gleaner_policy::state::SiteState>,
    after: &gleaner_policy::state::SiteState,
) -> bool {
    let was = |p| before.and_then(|s| s.budget.in_flight.get(p)).copied().unwrap_or(0);
    after.budget.in_flight.iter().any(|(p, n)| *n > was(p))
}

/// The scopes of the gate's entries (opt-outs, slow-downs, pauses; not "facts only",
/// which the event write checks itself) that are in one list and not the other.
fn moved_scopes(old: &[OwnerRecord], new: &[OwnerRecord]) -> Vec<Scope> {
    let gate = |r: &&OwnerRecord| r.entry.request != OwnerRequest::FactsOnly;
    let key = |r: &OwnerRecord| (r.entry.clone(), r.lapses);
    let old_keys: Vec<_> = old.iter().filter(gate).map(key).collect();
    let new_keys: Vec<_> = new.iter().filter(gate).map(key).collect();
    let gone = old_keys.iter().filter(|k| !new_keys.contains(k));
    let came = new_keys.iter().filter(|k| !old_keys.contains(k));
    gone.chain(came).map(|(entry, _)| entry.scope.clone()).collect()
}

/// Whether `scope` may cover a URL of `site` (an origin, `https://host[:port]`); true
/// when unsure.
fn may_cover_site(scope: &Scope, site: &str) -> bool {
    match scope {
        Scope::Domain(_) => Url::parse(site).map_or(true, |origin| scope.covers(&origin)),
        Scope::UrlPrefix(prefix) => prefix.starts_with(site) || site.starts_with(prefix.as_str()),
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

    /// [`Store::owner_rules`] for the gate (`Registry::lookup` and `lookup_again`): the
    /// entries as last read while their version was confirmed within
    /// [`LISTENED_STANDS`] (by a read or a reservation) and, on PostgreSQL, the `LISTEN
    /// gleaner_registry` listener heard of no change since; otherwise as
    /// [`Store::owner_rules`]. Without a round trip of its own while the registry stays
    /// put: the reservation that follows checks the version in its own transaction
    /// ([`Store::registry_guard`]) and reserves nothing on rules that moved for its site,
    /// so an opt-out another process commits stops every request reserved after it.
    /// On SQLite, which has no listener, every lookup reads the version (a statement on
    /// this machine, not a round trip), and the reservation checks nothing.
    pub(crate) async fn owner_rules_for_gate(&self, url: &Url) -> Result<OwnerRules, StoreError> {
        if self.kind() == crate::BackendKind::Sqlite {
            return self.owner_rules(url).await;
        }
        let heard = self.listened();
        if let Some(cached) = self.registry.get()
            && cached.confirmed.elapsed() < LISTENED_STANDS
            && cached.listened.map(|(n, _)| n) == heard
        {
            let now = SystemTime::now();
            let entries = cached.entries.iter().filter(|r| r.in_force(now)).map(|r| &r.entry);
            return Ok(rules_for(entries, url));
        }
        self.owner_rules(url).await
    }

    /// What a reservation of `site` checks of the registry: the entries as last read
    /// (`None` before any read: nothing was decided on them), with whether a change
    /// that may cover the site was noticed moments ago; and the listener's count now.
    pub(crate) fn registry_guard(&self, site: &str) -> (Option<RegistryGuard>, Option<u64>) {
        if self.kind() == crate::BackendKind::Sqlite {
            return (None, None);
        }
        let heard = self.listened();
        let guard = self.registry.get().map(|cached| RegistryGuard {
            version: cached.version,
            entries: cached.entries,
            moved_recently: self.registry.moved_recently(site),
        });
        (guard, heard)
    }

    /// After a reservation under `guard` (listener count `heard`): what it saw of the
    /// registry confirms or replaces the entries as last read; a reservation refused
    /// because they moved reads them again.
    pub(crate) async fn registry_checked(
        &self,
        guard: &RegistryGuard,
        heard: Option<u64>,
        seen: &Result<RegistrySeen, StoreError>,
    ) {
        match seen {
            Ok(RegistrySeen::Unmoved) => self.registry.confirm(guard.version, heard),
            Ok(RegistrySeen::Moved { version, entries }) => {
                self.registry.replace(*version, Arc::clone(entries), heard);
            }
            Ok(RegistrySeen::Stale) | Err(StoreError::RegistryMovedForSite { .. }) => {
                self.reread_registry().await;
            }
            Err(_) => {}
        }
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
    /// with [`StoreError::RegistryMoved`] when it moved (then [`Store::reread_registry`]
    /// and ask again). No round trip of its own while the registry does not change.
    pub(crate) async fn facts_only(&self, url: &Url) -> Result<(bool, i64), StoreError> {
        let (version, entries) = match self.registry.get() {
            Some(cached) => (cached.version, cached.entries),
            None => self.first_read_of_registry().await?,
        };
        let now = SystemTime::now();
        let rules = rules_for(entries.iter().filter(|r| r.in_force(now)).map(|r| &r.entry), url);
        Ok((rules.facts_only, version))
    }

    /// Reads the registry again (it moved), noting what changed; on failure the next
    /// lookup reads it.
    pub(crate) async fn reread_registry(&self) {
        if self.read_registry(self.listened()).await.is_err() {
            self.registry.set(None);
        }
    }

    /// The registry's entries, from the cache while the version has not moved.
    async fn registry_entries(&self) -> Result<Arc<Vec<OwnerRecord>>, StoreError> {
        // Counted before the version is read: a change after this moves the counter.
        let heard = self.listened();
        let Some(cached) = self.registry.get() else {
            return Ok(self.first_read_of_registry().await?.1);
        };
        let rows = self
            .db()
            .point_query(VERSION, params![], "reading the registry version".into())
            .await?;
        let row = rows.into_iter().next();
        let version: i64 = row.map(|r| r.get(0)).transpose()?.unwrap_or(0);
        if cached.version == version {
            self.registry.confirm(version, heard);
            return Ok(cached.entries);
        }
        Ok(self.read_registry(heard).await?.1)
    }

    /// The registry read when nothing is cached yet, once for every caller waiting at
    /// the time (a crawl's first requests to hundreds of sites start together): a
    /// caller that waited for another's read uses it, as stale as any read is by the
    /// time it returns (on PostgreSQL the reservation checks the version anyway).
    async fn first_read_of_registry(&self) -> Result<(i64, Arc<Vec<OwnerRecord>>), StoreError> {
        let heard = self.listened();
        let _reading = self.registry.first_read.lock().await;
        if let Some(cached) = self.registry.get() {
            return Ok((cached.version, cached.entries));
        }
        self.read_registry(heard).await
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
        self.registry.replace(version, Arc::clone(&entries), heard);
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
