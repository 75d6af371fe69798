//! Reading stored events, written once for both backends (`crate::sql`): by identity,
//! one with its status history and provenance, and those overlapping a period. Storing
//! a reading (`upsert_event`, with its merge plan in `crate::merge`) stays with each
//! backend: the fence and the locks it takes differ.

use std::time::SystemTime;

use gleaner_event::{EventIdentity, EventStatus};

use crate::codec;
use crate::merge;
use crate::model::{StatusChange, StoredEvent};
use crate::sql::{Row, Tx, params};
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

/// The provenance rows of an event, oldest first.
pub(crate) async fn stored_readings(
    tx: &mut dyn Tx,
    id: i64,
) -> Result<Vec<merge::StoredReading>, StoreError> {
    let sql = format!(
        "SELECT source, fetch_url, fetched_ms, extractor, facts, description, image_url
         FROM event_provenance WHERE event_id = $1 ORDER BY fetched_ms, {}",
        tx.dialect().insertion_order()
    );
    let rows = tx.rows(&sql, params![id]).await?;
    rows.iter()
        .map(|r| {
            Ok(merge::StoredReading {
                source: r.get(0)?,
                fetch_url: r.get(1)?,
                fetched_ms: r.get(2)?,
                extractor: r.get(3)?,
                facts: r.get(4)?,
                description: r.get(5)?,
                image_url: r.get(6)?,
            })
        })
        .collect()
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
