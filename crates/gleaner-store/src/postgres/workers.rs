//! Work leases used by `gleaner worker` on PostgreSQL (issue 17): renewing a claim
//! together with the worker's own lease, and fencing result writes with the claim's
//! token. The claim itself is `Postgres::claim_work`.

use super::PgDoing;
use crate::error::StoreError;
use crate::model::WorkLease;

/// Refuses a result write unless `lease` is still the current, unexpired claim of its
/// item (database clock). `FOR SHARE` keeps the row from being claimed again (a claim
/// takes `FOR UPDATE … SKIP LOCKED`) until the caller's transaction ends, so the write
/// and the check commit together.
pub(super) async fn check_fence(
    tx: &deadpool_postgres::ClientWrapper,
    loc: &str,
    lease: &WorkLease,
) -> Result<(), StoreError> {
    let doing = || format!("checking the claim on `{}`", lease.item.url);
    let check = tx
        .prepare_cached(
            "SELECT 1 FROM frontier WHERE id = $1 AND lease_token = $2 AND done_ms IS NULL
                 AND lease_until > now() FOR SHARE",
        )
        .await
        .doing(loc, doing)?;
    let current = tx.query_opt(&check, &[&lease.id, &lease.token]).await.doing(loc, doing)?;
    match current {
        Some(_) => Ok(()),
        None => Err(StoreError::FencedOut { url: lease.item.url.to_string(), token: lease.token }),
    }
}
