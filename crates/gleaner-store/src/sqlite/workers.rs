//! Work leases on SQLite: the same fencing rules as on PostgreSQL, on the one crawling
//! process's clock (see `sqlite/frontier.rs`).

use std::time::{Duration, Instant, SystemTime};

use rusqlite::{OptionalExtension, params};

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};
use crate::model::WorkLease;

/// Refuses a result write unless the claim `(id, token)` is current and unexpired; runs
/// inside the writer's `BEGIN IMMEDIATE` transaction, so nothing claims the item between
/// the check and the write.
pub(super) fn check_fence(
    tx: &rusqlite::Transaction<'_>,
    id: i64,
    token: i64,
    url: &str,
) -> Result<(), StoreError> {
    let now = codec::to_ms(SystemTime::now());
    let current: Option<i64> = tx
        .query_row(
            "SELECT 1 FROM frontier WHERE id = ?1 AND lease_token = ?2 AND done_ms IS NULL
                 AND lease_until_ms > ?3",
            params![id, token, now],
            |r| r.get(0),
        )
        .optional()
        .doing(|| format!("checking the claim on `{url}`"))?;
    match current {
        Some(_) => Ok(()),
        None => Err(StoreError::FencedOut { url: url.to_owned(), token }),
    }
}

impl Sqlite {
    /// Extends a current, unexpired claim by `extend` from now.
    pub(crate) async fn renew_work(
        &self,
        lease: &WorkLease,
        extend: Duration,
    ) -> Result<Option<WorkLease>, StoreError> {
        let sent = Instant::now();
        let (id, token) = (lease.id, lease.token);
        let renewed = self
            .write(
                move || format!("renewing work item {id}"),
                move |tx| {
                    let now = codec::to_ms(SystemTime::now());
                    tx.execute(
                        "UPDATE frontier SET lease_until_ms = ?4
                         WHERE id = ?1 AND lease_token = ?2 AND done_ms IS NULL
                             AND lease_until_ms > ?3",
                        params![id, token, now, now.saturating_add(codec::duration_ms(extend))],
                    )
                    .map(|n| n == 1)
                    .doing(|| format!("renewing work item {id}"))
                },
            )
            .await?;
        Ok(renewed.then(|| WorkLease { valid_for: extend, claimed_at: sent, ..lease.clone() }))
    }

    /// Deletes items done before `before` (milliseconds since the epoch).
    pub(crate) async fn prune_work(&self, before: i64) -> Result<u64, StoreError> {
        self.write(
            || "deleting finished work".to_owned(),
            move |tx| {
                tx.execute(
                    "DELETE FROM frontier WHERE done_ms IS NOT NULL AND done_ms < ?1",
                    params![before],
                )
                .map(|n| n as u64)
                .doing(|| "deleting finished work".to_owned())
            },
        )
        .await
    }

    /// Items not done yet (due later, due now, or claimed).
    pub(crate) async fn pending_work(&self) -> Result<u64, StoreError> {
        let count: i64 = self
            .write(
                || "counting queued work".to_owned(),
                |tx| {
                    tx.query_row("SELECT count(*) FROM frontier WHERE done_ms IS NULL", [], |r| {
                        r.get(0)
                    })
                    .doing(|| "counting queued work".to_owned())
                },
            )
            .await?;
        Ok(count.max(0) as u64)
    }
}
