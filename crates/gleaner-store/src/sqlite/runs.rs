//! Source runs and page checks: when a source's last pass started, and "this page
//! answered 304" recorded on the events it produced.

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};
use url::Url;

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};

impl Sqlite {
    /// Records that a pass of `source` started at `at`.
    pub(crate) async fn record_run(&self, source: &str, at: SystemTime) -> Result<(), StoreError> {
        let source = source.to_owned();
        let name = source.clone();
        self.write(
            move || format!("recording a run of source `{name}`"),
            move |tx| {
                tx.execute(
                    "INSERT INTO source_runs (source, last_started_ms) VALUES (?1, ?2)
                     ON CONFLICT (source) DO UPDATE SET last_started_ms = excluded.last_started_ms",
                    params![source, codec::to_ms(at)],
                )
                .map(|_| ())
                .doing(|| format!("recording a run of source `{source}`"))
            },
        )
        .await
    }

    /// When the last pass of `source` started.
    pub(crate) async fn last_run(&self, source: &str) -> Result<Option<SystemTime>, StoreError> {
        let source = source.to_owned();
        self.read(move |conn| {
            conn.query_row(
                "SELECT last_started_ms FROM source_runs WHERE source = ?1",
                params![source],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map(|ms| ms.map(codec::from_ms))
            .doing(|| format!("reading the last run of source `{source}`"))
        })
        .await
    }

    /// Records whether a pass of `source` failed (no successful response); returns the
    /// failed visits in a row.
    pub(crate) async fn record_outcome(
        &self,
        source: &str,
        failed: bool,
    ) -> Result<u32, StoreError> {
        let source = source.to_owned();
        let name = source.clone();
        self.write(
            move || format!("recording the outcome of source `{name}`"),
            move |tx| {
                tx.query_row(
                    "INSERT INTO source_runs (source, last_started_ms, failures) VALUES (?1, 0, CASE WHEN ?2 THEN 1 ELSE 0 END)
                     ON CONFLICT (source) DO UPDATE SET failures = CASE WHEN ?2 THEN source_runs.failures + 1 ELSE 0 END
                     RETURNING failures",
                    params![source, failed],
                    |row| row.get::<_, i64>(0),
                )
                .map(|n| n as u32)
                .doing(|| format!("recording the outcome of source `{source}`"))
            },
        )
        .await
    }

    /// Failed visits in a row of `source`.
    pub(crate) async fn failure_streak(&self, source: &str) -> Result<u32, StoreError> {
        let source = source.to_owned();
        self.read(move |conn| {
            conn.query_row(
                "SELECT failures FROM source_runs WHERE source = ?1",
                params![source],
                |row| row.get::<_, i64>(0),
            )
            .optional()
            .map(|n| n.unwrap_or(0) as u32)
            .doing(|| format!("reading the failures of source `{source}`"))
        })
        .await
    }

    /// A page answered 304: every event it produced is confirmed at `at`.
    pub(crate) async fn touch_page(&self, page: &Url, at: SystemTime) -> Result<u64, StoreError> {
        let page = page.to_string();
        let shown = page.clone();
        self.write(
            move || format!("recording the check of `{shown}`"),
            move |tx| {
                tx.execute(
                    "UPDATE events SET last_checked_ms = max(last_checked_ms, ?2)
                     WHERE id IN (SELECT event_id FROM event_provenance WHERE fetch_url = ?1)",
                    params![page, codec::to_ms(at)],
                )
                .map(|n| n as u64)
                .doing(|| format!("recording the check of `{page}`"))
            },
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use crate::Store;

    #[tokio::test]
    async fn runs_are_remembered_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g.db");
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        {
            let store = Store::open_sqlite(&path).unwrap();
            assert_eq!(store.last_run("salle").await.unwrap(), None);
            store.record_run("salle", at).await.unwrap();
        }
        let store = Store::open_sqlite(&path).unwrap();
        assert_eq!(store.last_run("salle").await.unwrap(), Some(at));
        assert_eq!(store.last_run("other").await.unwrap(), None);
    }

    #[tokio::test]
    async fn failure_streaks_count_and_reset() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_sqlite(&dir.path().join("g.db")).unwrap();
        assert_eq!(store.failure_streak("salle").await.unwrap(), 0);
        assert_eq!(store.record_outcome("salle", true).await.unwrap(), 1);
        assert_eq!(store.record_outcome("salle", true).await.unwrap(), 2);
        assert_eq!(store.failure_streak("salle").await.unwrap(), 2);
        assert_eq!(store.record_outcome("salle", false).await.unwrap(), 0);
        assert_eq!(store.failure_streak("salle").await.unwrap(), 0);
    }
}
