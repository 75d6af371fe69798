//! Work leases on SQLite: the same fencing rules as on PostgreSQL, on the one crawling
//! process's clock (see `sqlite/frontier.rs`).

use std::time::SystemTime;

use crate::error::StoreError;
use crate::sql::{Tx, params};

/// Refuses a result write unless the claim `(id, token)` on `url` is current and
/// unexpired; runs inside the writer's `BEGIN IMMEDIATE` transaction, so nothing claims
/// the item between the check and the write.
pub(super) async fn check_fence(
    tx: &mut dyn Tx,
    id: i64,
    token: i64,
    url: String,
) -> Result<(), StoreError> {
    let sql = "SELECT 1 FROM frontier WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL
                 AND lease_until_ms > $3";
    match tx.row(sql, params![id, token, SystemTime::now()]).await? {
        Some(_) => Ok(()),
        None => Err(StoreError::FencedOut { url, token }),
    }
}
