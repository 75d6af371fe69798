//! Reading stored events, written once for both backends (`crate::sql`): by identity,
//! one with its status history and provenance, and those overlapping a period; and the
//! event write's statements and row codecs, which SQLite runs in one `Tx`
//! ([`write_event`]) and PostgreSQL pipelines (its fence and locks differ).

use std::time::SystemTime;

use gleaner_event::{EventIdentity, EventStatus};

use crate::codec;
use crate::merge;
use crate::model::{StatusChange, StoredEvent, Upserted, WorkLease};
use crate::sql::{Dialect, Row, Tx, Value, params, returned};
use crate::{Store, StoreError};

/// The columns [`event_from_row`] reads.
pub(crate) const EVENT_COLUMNS: &str = "id, identity, host, source, status, facts, description, image_url, first_seen_ms, last_checked_ms";

/// An event row ([`EVENT_COLUMNS`]) without its history and provenance.
pub(crate) fn event_from_row(r: &Row) -> Result<StoredEvent, StoreError> {
    let identity: String = r.get(1)?;
    let event = codec::decode_facts(&r.get::<String>(5)?, r.get(6)?, r.get(7)?)?;
    Ok(StoredEvent {
        id: r.get(0)?,
        identity: EventIdentity(u64::from_str_radix(&identity, 16).unwrap_or_default()),
        host: r.get(2)?,
        source: r.get(3)?,
        event,
        first_seen: r.get(8)?,
        last_checked: r.get(9)?,
        history: Vec::new(),
        provenance: Vec::new(),
    })
}

/// The provenance columns [`reading_from_row`] reads.
pub(crate) const READING_COLUMNS: &str =
    "source, fetch_url, fetched_ms, extractor, facts, description, image_url";

/// A provenance row ([`READING_COLUMNS`]).
pub(crate) fn reading_from_row(r: &Row) -> Result<merge::StoredReading, StoreError> {
    Ok(merge::StoredReading {
        source: r.get(0)?,
        fetch_url: r.get(1)?,
        fetched_ms: r.get(2)?,
        extractor: r.get(3)?,
        facts: r.get(4)?,
        description: r.get(5)?,
        image_url: r.get(6)?,
    })
}

/// The provenance rows of an event, oldest first.
pub(crate) async fn stored_readings(
    tx: &mut dyn Tx,
    id: i64,
) -> Result<Vec<merge::StoredReading>, StoreError> {
    let sql = format!(
        "SELECT {READING_COLUMNS} FROM event_provenance WHERE event_id = $1 ORDER BY fetched_ms, {}",
        tx.dialect().insertion_order()
    );
    tx.rows(&sql, params![id]).await?.iter().map(reading_from_row).collect()
}

/// The stored events a reading may be the same event as (`crate::merge::lookup`: its
/// identity, its own page, or its folded title near its start); PostgreSQL adds
/// `FOR UPDATE`.
pub(crate) const FIND_EVENTS: &str =
    "SELECT id, identity, facts, description, image_url, status FROM events
     WHERE identity = $1
        OR (CAST($2 AS text) IS NOT NULL AND url = $2)
        OR (CAST($3 AS text) IS NOT NULL AND title_key = $3
            AND ((CAST($4 AS bigint) IS NULL AND start_ms IS NULL)
                 OR start_ms BETWEEN $4 - $5 AND $4 + $5))
     ORDER BY id LIMIT 64";

/// A row of [`FIND_EVENTS`], its readings not yet attached.
pub(crate) fn candidate_from_row(r: &Row) -> Result<merge::Row, StoreError> {
    Ok(merge::Row {
        id: r.get(0)?,
        identity: r.get(1)?,
        facts: r.get(2)?,
        description: r.get(3)?,
        image_url: r.get(4)?,
        status: r.get(5)?,
        readings: Vec::new(),
    })
}

/// A new event (`$1` its identity, `$2`…`$16` as [`update_event`] binds them); returns
/// its id.
pub(crate) const INSERT_EVENT: &str =
    "INSERT INTO events (identity, host, url_host, source, url, title, category,
         status, start_ms, end_ms, last_day_end_ms, facts, description,
         image_url, first_seen_ms, last_checked_ms, title_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15, $16)
     RETURNING id";

/// An event read again with nothing new (`$1` its id, `$2` the fetch, `$3` its last
/// day's end, `$4` its title key).
pub(crate) fn touch_event(d: Dialect) -> String {
    format!(
        "UPDATE events SET last_checked_ms = {}(last_checked_ms, $2),
         last_day_end_ms = $3, title_key = $4 WHERE id = $1",
        d.greatest()
    )
}

/// An event whose merge changed ([`merge::Columns`] in order after its id `$1`, the
/// fetch `$15`).
pub(crate) fn update_event(d: Dialect) -> String {
    format!(
        "UPDATE events SET host = $2, url_host = $3, source = $4, url = $5,
             title = $6, category = $7, status = $8, start_ms = $9, end_ms = $10,
             last_day_end_ms = $11, facts = $12, description = $13,
             image_url = $14, last_checked_ms = {}(last_checked_ms, $15), title_key = $16
         WHERE id = $1",
        d.greatest()
    )
}

/// A status-history row.
pub(crate) const INSERT_STATUS: &str =
    "INSERT INTO event_status (event_id, status, stated, at_ms) VALUES ($1, $2, $3, $4)";

/// This fetch's reading in the event's provenance (`$1` the event, `$2`…`$8` source,
/// page, fetch, extractor, facts, description, image).
pub(crate) fn upsert_provenance(d: Dialect) -> String {
    format!(
        "INSERT INTO event_provenance (event_id, source, fetch_url, fetched_ms, extractor,
             facts, description, image_url)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (event_id, source, fetch_url)
         DO UPDATE SET fetched_ms = {}(event_provenance.fetched_ms, excluded.fetched_ms),
             extractor = coalesce(excluded.extractor, event_provenance.extractor),
             facts = excluded.facts, description = excluded.description,
             image_url = excluded.image_url",
        d.greatest()
    )
}

/// The event columns after its key, in the order [`INSERT_EVENT`] and [`update_event`]
/// bind them (`$2`…`$16`).
pub(crate) fn event_params(c: &merge::Columns, now: i64) -> Vec<Value> {
    params![
        &c.host,
        &c.url_host,
        &c.source,
        &c.url,
        &c.title,
        c.category,
        c.status,
        c.start,
        c.end,
        c.last_day_end,
        &c.facts,
        &c.description,
        &c.image,
        now,
        &c.title_key
    ]
}

/// The parameters of [`FIND_EVENTS`].
pub(crate) fn lookup_params(l: &merge::Lookup) -> Vec<Value> {
    params![&l.identity, &l.url, &l.title_key, l.start_ms, merge::START_WINDOW_MS]
}

/// The parameters of [`upsert_provenance`]: event `id`'s reading `r`, fetched at `now`.
pub(crate) fn reading_params(id: i64, r: &merge::ReadingColumns, now: i64) -> Vec<Value> {
    params![id, &r.source, &r.fetch_url, now, r.extractor, &r.facts, &r.description, &r.image]
}

/// The refusal of a result write whose claim `lease` is no longer current.
pub(crate) fn fenced_out(lease: &WorkLease) -> StoreError {
    StoreError::FencedOut { url: lease.item.url.to_string(), token: lease.token }
}

/// A reading stored in one [`Tx`] (SQLite's event write; PostgreSQL pipelines the same
/// statements): refused when the registry's version is no longer `registry`; it joins
/// the candidate it is the same event as (`crate::merge`), or is a new event.
pub(crate) async fn write_event(
    tx: &mut dyn Tx,
    incoming: gleaner_event::merge::Reading,
    lookup: merge::Lookup,
    fetched_at: SystemTime,
    registry: i64,
) -> Result<Upserted, StoreError> {
    let seen: i64 =
        tx.row(crate::registry::VERSION, params![]).await?.map_or(Ok(0), |r| r.get(0))?;
    if seen != registry {
        return Err(StoreError::RegistryMoved { expected: registry, seen });
    }
    let d = tx.dialect();
    let found = lookup_params(&lookup);
    let mut rows: Vec<merge::Row> = tx
        .rows(FIND_EVENTS, found)
        .await?
        .iter()
        .map(candidate_from_row)
        .collect::<Result<_, _>>()?;
    for row in &mut rows {
        row.readings = stored_readings(tx, row.id).await?;
    }
    let plan = merge::plan(&incoming, &lookup.identity, &rows)?;
    let c = merge::columns(&plan, fetched_at);
    let now = codec::to_ms(fetched_at);
    let (id, outcome) = match plan.target {
        merge::Target::New(row_identity) => {
            let params = [vec![row_identity.into()], event_params(&c, now)].concat();
            let id: i64 = returned(tx.run(INSERT_EVENT, params).await?, "a new event")?;
            (id, Upserted::Inserted(id))
        }
        merge::Target::Existing(i) => {
            let row = &rows[i];
            let id = row.id;
            if row.facts == c.facts && row.description == c.description && row.image_url == c.image
            {
                let params = params![id, now, c.last_day_end, &c.title_key];
                tx.exec(&touch_event(d), params).await?;
                (id, Upserted::Unchanged(id))
            } else {
                let params = [vec![id.into()], event_params(&c, now)].concat();
                tx.exec(&update_event(d), params).await?;
                (id, Upserted::Updated { id, status_changed: row.status != c.status })
            }
        }
    };
    if matches!(outcome, Upserted::Inserted(_) | Upserted::Updated { status_changed: true, .. }) {
        tx.exec(INSERT_STATUS, params![id, c.status, c.stated, now]).await?;
    }
    let reading = reading_params(id, &merge::reading_columns(&incoming), now);
    tx.exec(&upsert_provenance(d), reading).await?;
    Ok(outcome)
}

impl Store {
    /// The id of the event with this identity, if stored.
    pub async fn event_id(&self, identity: EventIdentity) -> Result<Option<i64>, StoreError> {
        let identity = identity.to_string();
        let sql = "SELECT id FROM events WHERE identity = $1";
        let doing = format!("looking up event `{identity}`");
        self.db().row(sql, params![&identity], doing).await?.map(|r| r.get(0)).transpose()
    }

    /// One event with its history and provenance.
    pub async fn event(&self, id: i64) -> Result<Option<StoredEvent>, StoreError> {
        self.db()
            .read_tx(format!("reading event {id}"), move |tx| {
                Box::pin(async move {
                    let sql = format!("SELECT {EVENT_COLUMNS} FROM events WHERE id = $1");
                    let Some(row) = tx.row(&sql, params![id]).await? else { return Ok(None) };
                    let mut event = event_from_row(&row)?;
                    let sql = format!(
                        "SELECT status, stated, at_ms FROM event_status WHERE event_id = $1 ORDER BY at_ms, {}",
                        tx.dialect().insertion_order()
                    );
                    for r in tx.rows(&sql, params![id]).await? {
                        event.history.push(StatusChange {
                            status: codec::status_from_name(&r.get::<String>(0)?)
                                .unwrap_or(EventStatus::Scheduled),
                            stated: r.get(1)?,
                            at: r.get(2)?,
                        });
                    }
                    let stored = stored_readings(tx, id).await?;
                    event.provenance =
                        merge::provenance(&row.get::<String>(5)?, row.get(6)?, row.get(7)?, stored);
                    Ok(Some(event))
                })
            })
            .await
    }

    /// Events overlapping `[from, to)`, by start.
    pub async fn events_between(
        &self,
        from: SystemTime,
        to: SystemTime,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let sql = format!(
            "SELECT {EVENT_COLUMNS} FROM events
             WHERE start_ms < $2 AND coalesce(end_ms, start_ms) >= $1 ORDER BY start_ms, id"
        );
        let rows = self.db().query(&sql, params![from, to], "reading events".into()).await?;
        rows.iter().map(event_from_row).collect()
    }
}
