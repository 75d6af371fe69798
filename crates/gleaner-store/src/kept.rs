//! Requests a pass keeps for its source's next pass (issue 25), written once for both
//! backends: a URL that answered 429 or 503 is kept from that answer until it is asked
//! again. A retry the run's time limit cut, or a crash during the site's suspension,
//! leaves the row, and the next pass of the source asks that URL first. Each change is
//! its own committed statement, so a `kill -9` keeps what was kept.

use std::time::SystemTime;

use gleaner_policy::Purpose;
use url::Url;

use crate::codec;
use crate::sql::params;
use crate::{Store, StoreError};

/// A request kept for a source's next pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptRequest {
    /// The URL to ask first.
    pub url: Url,
    /// What it was asked for.
    pub purpose: Purpose,
    /// When it was kept (the 429 or 503 answer).
    pub kept_at: SystemTime,
}

impl Store {
    /// Keeps `url` for the next pass of `source` (again: the newer time wins).
    pub async fn keep_request(
        &self,
        source: &str,
        url: &Url,
        purpose: Purpose,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let shown = url.as_str();
        self.db()
            .exec(
                "INSERT INTO kept_requests (source, url, host, purpose, kept_ms)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (source, url) DO UPDATE
                     SET purpose = excluded.purpose, kept_ms = excluded.kept_ms",
                params![source, shown, codec::host_of(shown), purpose.as_str(), now],
                format!("keeping `{shown}` for the next pass of source `{source}`"),
            )
            .await
            .map(drop)
    }

    /// The requests kept for the next pass of `source`, oldest first.
    pub async fn kept_requests(&self, source: &str) -> Result<Vec<KeptRequest>, StoreError> {
        let rows = self
            .db()
            .query(
                "SELECT url, purpose, kept_ms FROM kept_requests WHERE source = $1
                 ORDER BY kept_ms, url",
                params![source],
                format!("reading the requests kept for source `{source}`"),
            )
            .await?;
        let mut kept = Vec::with_capacity(rows.len());
        for row in rows {
            let (url, purpose): (String, String) = (row.get(0)?, row.get(1)?);
            let corrupt = |detail: String| StoreError::Corrupt {
                what: format!("a request kept for source `{source}`"),
                detail,
            };
            let url = Url::parse(&url).map_err(|e| corrupt(format!("`{url}`: {e}")))?;
            let purpose = Purpose::from_name(&purpose)
                .ok_or_else(|| corrupt(format!("`{purpose}` is not a purpose")))?;
            kept.push(KeptRequest { url, purpose, kept_at: row.get(2)? });
        }
        Ok(kept)
    }

    /// Forgets `url` for `source` once it was asked; true when a row went.
    pub async fn forget_kept_request(&self, source: &str, url: &Url) -> Result<bool, StoreError> {
        self.db()
            .exec(
                "DELETE FROM kept_requests WHERE source = $1 AND url = $2",
                params![source, url.as_str()],
                format!("forgetting the kept request `{url}` of source `{source}`"),
            )
            .await
            .map(|n| n > 0)
    }
}
