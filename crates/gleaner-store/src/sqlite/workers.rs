//! Work leases on SQLite: the same fencing rules as on PostgreSQL, on the one crawling
//! process's clock (see `sqlite/frontier.rs`).

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};

use crate::codec;
use crate::error::{Doing, StoreError};

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
