//! The global daily cap taken in leased blocks (issue 27), written once for both
//! backends (`crate::sql`).
//!
//! Without a lease every reservation locks and writes the one `global_budget` row, so
//! on PostgreSQL all workers' reservations queue behind each other. With one, a crawling
//! process ([`crate::CrawlerState::lease_daily_cap`]) takes a block of the day's
//! allowance at a time (`global_budget.requests` counts what was *handed out*, used or
//! not), spends it in memory, and gives back what it did not use when it ends.
//!
//! The invariant: `requests` never passes the cap, and a process starts a request only
//! with a unit of a block it holds, so the requests started on a day never pass the cap,
//! whichever processes die. A process killed with a block half spent takes the rest
//! with it: the cap is then met that many requests early, for that day only (at most
//! one block per crash). Processes without a lease (`gleaner fetch`) still count one
//! request at a time on the same row, so they see what the leases handed out.

use chrono::NaiveDate;

use crate::StoreError;
use crate::sql::{Db, params};

/// How many times a lease retries when another process changed the row in between.
const ATTEMPTS: u32 = 64;

/// The block a process takes at a time for a daily `cap`: a hundredth of it, between 1
/// and 100, so that a small cap is shared out request by request and a large one costs
/// one write per hundred requests.
pub(crate) fn block_for(cap: u32) -> u32 {
    (cap / 100).clamp(1, 100)
}

/// Takes up to `want` of `day`'s allowance of `cap` (fewer when less is left; 0 when it
/// is used up). A compare-and-set on the row, so two processes never both hand out the
/// last units.
pub(crate) async fn lease(
    db: &dyn Db,
    day: NaiveDate,
    cap: u32,
    want: u32,
) -> Result<u32, StoreError> {
    let today = day.to_string();
    for _ in 0..ATTEMPTS {
        let row = db
            .row(
                "SELECT day, requests FROM global_budget WHERE id = 1",
                params![],
                "reading the global daily cap".to_owned(),
            )
            .await?
            .ok_or_else(|| StoreError::Worker("the global budget row is missing".into()))?;
        let (old_day, requests): (Option<String>, i64) = (row.get(0)?, row.get(1)?);
        let used = if old_day.as_deref() == Some(today.as_str()) { requests.max(0) } else { 0 };
        let granted = (i64::from(cap) - used).clamp(0, i64::from(want));
        if granted == 0 {
            return Ok(0);
        }
        let changed = db
            .exec(
                "UPDATE global_budget SET day = $1, requests = $2
                 WHERE id = 1 AND day IS NOT DISTINCT FROM $3 AND requests = $4",
                params![&today, used + granted, old_day, requests],
                "leasing a block of the global daily cap".to_owned(),
            )
            .await?;
        if changed == 1 {
            return Ok(u32::try_from(granted).unwrap_or(0));
        }
    }
    // The row kept moving: lease nothing now; the caller waits and asks again.
    Ok(0)
}

/// Gives `unused` units of `day`'s allowance back (nothing once the day is over).
pub(crate) async fn give_back(db: &dyn Db, day: NaiveDate, unused: u32) -> Result<(), StoreError> {
    if unused == 0 {
        return Ok(());
    }
    db.exec(
        "UPDATE global_budget SET requests = CASE WHEN requests > $2 THEN requests - $2 ELSE 0 END
         WHERE id = 1 AND day = $1",
        params![day.to_string(), unused],
        "giving back the unused block of the global daily cap".to_owned(),
    )
    .await
    .map(drop)
}
