//! What the store keeps beside events, written once for both backends (`crate::sql`):
//! source runs and failure streaks, page checks, configured sources, news items,
//! translations, validators, listing links, fetched bodies and parser samples.

use std::time::SystemTime;

use gleaner_policy::registry::Scope;
use url::Url;

use crate::codec;
use crate::model::{Keep, NewsItem, PurgeReport, RetentionPolicy, StoredNews};
use crate::sql::{params, returned};
use crate::{Store, StoreError};

/// An event's translation into `$2` (the row the API shows), replacing an earlier one.
pub(crate) const UPSERT_TRANSLATION: &str =
    "INSERT INTO translations (event_id, lang, title, description, created_ms)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (event_id, lang) DO UPDATE SET title = excluded.title,
         description = excluded.description, created_ms = excluded.created_ms";

/// A URL's validators (`$1` URL, `$2` host, `$3` `ETag`, `$4` `Last-Modified`, `$5`
/// time), replacing those stored.
pub(crate) const UPSERT_VALIDATORS: &str =
    "INSERT INTO validators (url, host, etag, last_modified, updated_ms) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (url) DO UPDATE SET etag = excluded.etag,
         last_modified = excluded.last_modified, updated_ms = excluded.updated_ms";

/// [`UPSERT_VALIDATORS`] with SQLite's placeholders, for the audit writer's connection.
pub(crate) const UPSERT_VALIDATORS_SQLITE: &str =
    "INSERT INTO validators (url, host, etag, last_modified, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)
     ON CONFLICT (url) DO UPDATE SET etag = excluded.etag,
         last_modified = excluded.last_modified, updated_ms = excluded.updated_ms";

/// A batch of validators, one row per URL (`$1`…`$5` arrays as in [`UPSERT_VALIDATORS`]).
pub(crate) const UPSERT_VALIDATORS_BATCH: &str =
    "INSERT INTO validators (url, host, etag, last_modified, updated_ms)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[])
     ON CONFLICT (url) DO UPDATE SET etag = excluded.etag,
         last_modified = excluded.last_modified, updated_ms = excluded.updated_ms";

impl Store {
    /// Records that a pass of `source` started at `at` (schedules hold across restarts).
    pub async fn record_run(&self, source: &str, at: SystemTime) -> Result<(), StoreError> {
        self.db()
            .exec(
                "INSERT INTO source_runs (source, last_started_ms) VALUES ($1, $2)
                 ON CONFLICT (source) DO UPDATE SET last_started_ms = excluded.last_started_ms",
                params![source, at],
                format!("recording a run of source `{source}`"),
            )
            .await
            .map(drop)
    }

    /// When the last pass of `source` started, if it ever ran.
    pub async fn last_run(&self, source: &str) -> Result<Option<SystemTime>, StoreError> {
        let sql = "SELECT last_started_ms FROM source_runs WHERE source = $1";
        let doing = format!("reading the last run of source `{source}`");
        self.db().row(sql, params![source], doing).await?.map(|r| r.get(0)).transpose()
    }

    /// Records whether a pass of `source` failed (no successful response) and returns its
    /// failed visits in a row (0 after a success).
    pub async fn record_outcome(&self, source: &str, failed: bool) -> Result<u32, StoreError> {
        let written = self
            .db()
            .write(
                "INSERT INTO source_runs (source, last_started_ms, failures) VALUES ($1, 0, CASE WHEN $2 THEN 1 ELSE 0 END)
                 ON CONFLICT (source) DO UPDATE SET failures = CASE WHEN $2 THEN source_runs.failures + 1 ELSE 0 END
                 RETURNING failures",
                params![source, failed],
                format!("recording the outcome of source `{source}`"),
            )
            .await?;
        returned(written, "a source's failures")
    }

    /// Failed visits in a row of `source`.
    pub async fn failure_streak(&self, source: &str) -> Result<u32, StoreError> {
        let sql = "SELECT failures FROM source_runs WHERE source = $1";
        let doing = format!("reading the failures of source `{source}`");
        let row = self.db().row(sql, params![source], doing).await?;
        Ok(row.map(|r| r.get(0)).transpose()?.unwrap_or(0))
    }

    /// A page answered 304: the events it produced are confirmed (last checked) at `at`.
    /// Returns how many events that touched.
    pub async fn touch_page(&self, page: &Url, at: SystemTime) -> Result<u64, StoreError> {
        let sql = format!(
            "UPDATE events SET last_checked_ms = {}(last_checked_ms, $2)
             WHERE id IN (SELECT event_id FROM event_provenance WHERE fetch_url = $1)",
            self.db().dialect().greatest()
        );
        let doing = format!("recording the check of `{page}`");
        self.db().exec(&sql, params![page.as_str(), at], doing).await
    }

    /// Stores a translation of an event (deleted with it).
    pub async fn put_translation(
        &self,
        event_id: i64,
        lang: &str,
        title: Option<String>,
        description: Option<String>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let params = params![event_id, lang, title, description, now];
        let doing = format!("storing a translation of event {event_id}");
        self.db().exec(UPSERT_TRANSLATION, params, doing).await.map(drop)
    }

    /// A stored translation: (title, description).
    pub async fn translation(
        &self,
        event_id: i64,
        lang: &str,
    ) -> Result<Option<(Option<String>, Option<String>)>, StoreError> {
        let sql = "SELECT title, description FROM translations WHERE event_id = $1 AND lang = $2";
        let doing = format!("reading a translation of event {event_id}");
        let row = self.db().row(sql, params![event_id, lang], doing).await?;
        row.map(|r| Ok((r.get(0)?, r.get(1)?))).transpose()
    }

    /// Stores a news item by URL; the summary only for `Keep::Full`.
    pub async fn upsert_news(
        &self,
        item: NewsItem,
        keep: Keep,
        now: SystemTime,
    ) -> Result<i64, StoreError> {
        let url = item.url.as_str();
        let summary = item.summary.clone().filter(|_| keep == Keep::Full);
        let written = self
            .db()
            .write(
                "INSERT INTO news_items (url, host, source, title, published_ms, summary, first_seen_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (url) DO UPDATE SET title = excluded.title, source = excluded.source,
                     published_ms = excluded.published_ms, summary = excluded.summary
                 RETURNING id",
                params![url, codec::host_of(url), &item.source, &item.title, item.published, summary, now],
                format!("storing news item `{url}`"),
            )
            .await?;
        returned(written, &format!("news item `{url}`"))
    }

    /// The newest news items (by publication, else first seen), at most `limit`.
    pub async fn news(&self, limit: usize) -> Result<Vec<StoredNews>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let sql =
            "SELECT id, url, source, title, published_ms, summary, first_seen_ms FROM news_items
                   ORDER BY COALESCE(published_ms, first_seen_ms) DESC, id DESC LIMIT $1";
        let rows = self.db().query(sql, params![limit], "reading news items".into()).await?;
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let Ok(url) = Url::parse(&r.get::<String>(1)?) else { continue };
            let item = NewsItem {
                url,
                source: r.get(2)?,
                title: r.get(3)?,
                published: r.get(4)?,
                summary: r.get(5)?,
            };
            out.push(StoredNews { id: r.get(0)?, item, first_seen: r.get(6)? });
        }
        Ok(out)
    }

    /// Stores the validators (`ETag`, `Last-Modified`) of a URL.
    pub async fn put_validators(
        &self,
        url: &Url,
        etag: Option<String>,
        last_modified: Option<String>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let url = url.as_str();
        self.db()
            .exec(
                UPSERT_VALIDATORS,
                params![url, codec::host_of(url), etag, last_modified, now],
                format!("storing validators of `{url}`"),
            )
            .await
            .map(drop)
    }

    /// Queues the validators of a URL for the audit log's batch writer instead of
    /// writing them now (issue 27: a burst of pages shares one round trip). Reads in this
    /// process ([`Store::validators`]) see them at once; a crash before the batch is
    /// written (milliseconds; [`Store::flush_audit`] waits for it) loses them, which
    /// only makes the next request for `url` unconditional. So a pass stores a page's
    /// validators this way only after its events, which are committed.
    pub fn queue_validators(
        &self,
        url: &Url,
        etag: Option<String>,
        last_modified: Option<String>,
        now: SystemTime,
    ) {
        let write = crate::audit::ValidatorsWrite {
            url: url.as_str().to_owned(),
            etag,
            last_modified,
            at: now,
        };
        self.backend().audit().queue_validators(write);
    }

    /// The stored validators of a URL: (`ETag`, `Last-Modified`), those queued by
    /// [`Store::queue_validators`] and not yet written included.
    pub async fn validators(
        &self,
        url: &Url,
    ) -> Result<Option<(Option<String>, Option<String>)>, StoreError> {
        if let Some(queued) = self.backend().audit().pending_validators(url.as_str()) {
            return Ok(Some((queued.etag, queued.last_modified)));
        }
        let sql = "SELECT etag, last_modified FROM validators WHERE url = $1";
        let doing = format!("reading validators of `{url}`");
        let row = self.db().row(sql, params![url.as_str()], doing).await?;
        row.map(|r| Ok((r.get(0)?, r.get(1)?))).transpose()
    }

    /// Stores the links a listing page had (the scheduler's JSON, opaque here), so a
    /// listing answering 304 still yields its event pages.
    pub async fn put_listing_links(
        &self,
        url: &Url,
        links: String,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let url = url.as_str();
        self.db()
            .exec(
                "INSERT INTO listing_links (url, host, links, updated_ms) VALUES ($1, $2, $3, $4)
                 ON CONFLICT (url) DO UPDATE SET links = excluded.links, updated_ms = excluded.updated_ms",
                params![url, codec::host_of(url), links, now],
                format!("storing the links of `{url}`"),
            )
            .await
            .map(drop)
    }

    /// The links stored for a listing page.
    pub async fn listing_links(&self, url: &Url) -> Result<Option<String>, StoreError> {
        let sql = "SELECT links FROM listing_links WHERE url = $1";
        let doing = format!("reading the links of `{url}`");
        self.db().row(sql, params![url.as_str()], doing).await?.map(|r| r.get(0)).transpose()
    }

    /// Keeps a fetched body for processing; returns its id.
    pub async fn put_body(
        &self,
        url: &Url,
        content_type: Option<String>,
        body: Vec<u8>,
        now: SystemTime,
    ) -> Result<i64, StoreError> {
        let url = url.as_str();
        let written = self
            .db()
            .write(
                "INSERT INTO bodies (url, host, content_type, fetched_ms, body)
                 VALUES ($1, $2, $3, $4, $5) RETURNING id",
                params![url, codec::host_of(url), content_type, now, body],
                format!("storing the body of `{url}`"),
            )
            .await?;
        returned(written, &format!("the body of `{url}`"))
    }

    /// A stored body.
    pub async fn body(&self, id: i64) -> Result<Option<Vec<u8>>, StoreError> {
        let sql = "SELECT body FROM bodies WHERE id = $1";
        self.db()
            .row(sql, params![id], format!("reading body {id}"))
            .await?
            .map(|r| r.get(0))
            .transpose()
    }

    /// Called once a body has been extracted: with a zero body retention
    /// (`retention.bodies = "0s"`) it is deleted now; otherwise [`Store::purge`] deletes
    /// it when its time comes. True when it was deleted.
    pub async fn body_extracted(
        &self,
        id: i64,
        retention: &RetentionPolicy,
    ) -> Result<bool, StoreError> {
        if !retention.bodies.is_zero() {
            return Ok(false);
        }
        let sql = "DELETE FROM bodies WHERE id = $1";
        Ok(self.db().exec(sql, params![id], format!("deleting body {id}")).await? > 0)
    }

    /// Keeps a parser test sample when the profile enables samples and the host is not
    /// excluded (by the config's list or by a removal); returns its id when kept.
    pub async fn put_sample(
        &self,
        url: &Url,
        body: Vec<u8>,
        now: SystemTime,
        retention: &gleaner_config::settings::Retention,
    ) -> Result<Option<i64>, StoreError> {
        if !retention.samples {
            return Ok(None);
        }
        let url = url.as_str();
        let host = codec::host_of(url);
        let covered = |domain: &str| {
            Scope::domain(domain)
                .is_some_and(|s| Url::parse(&format!("http://{host}/")).is_ok_and(|u| s.covers(&u)))
        };
        if retention.sample_exclusions.iter().any(|d| covered(d)) {
            return Ok(None);
        }
        // One statement: not inserted when an exclusion covers the host.
        let dialect = self.db().dialect();
        let sql = format!(
            "INSERT INTO samples (url, host, fetched_ms, body)
             SELECT $1, $2, $3, $4
             WHERE NOT EXISTS (SELECT 1 FROM sample_exclusions WHERE {})
             RETURNING id",
            dialect.covered(&dialect.text(2), "domain")
        );
        let doing = format!("storing a sample of `{url}`");
        let written = self.db().write(&sql, params![url, host, now, body], doing).await?;
        written.rows.first().map(|r| r.get(0)).transpose()
    }
}

impl Store {
    /// Applies retention: bodies, ended events (with their translations, history and
    /// provenance) and old audit rows. The daemon calls this daily; `gleaner purge` on
    /// demand.
    pub async fn purge(
        &self,
        policy: RetentionPolicy,
        now: SystemTime,
    ) -> Result<PurgeReport, StoreError> {
        let now = codec::to_ms(now);
        let before = |keep| now.saturating_sub(codec::duration_ms(keep));
        let (bodies, events, audit) =
            (before(policy.bodies), before(policy.events_after_end), before(policy.audit));
        self.db()
            .tx("purging expired data".into(), move |tx| {
                Box::pin(async move {
                    let bodies = tx
                        .exec("DELETE FROM bodies WHERE fetched_ms < $1", params![bodies])
                        .await?;
                    let translations: i64 = tx
                        .row(
                            "SELECT count(*) FROM translations WHERE event_id IN
                                 (SELECT id FROM events WHERE last_day_end_ms < $1)",
                            params![events],
                        )
                        .await?
                        .map_or(Ok(0), |r| r.get(0))?;
                    let events = tx
                        .exec("DELETE FROM events WHERE last_day_end_ms < $1", params![events])
                        .await?;
                    let audit =
                        tx.exec("DELETE FROM audit_log WHERE time_ms < $1", params![audit]).await?;
                    Ok(PurgeReport {
                        bodies,
                        events,
                        translations: translations.max(0) as u64,
                        audit,
                    })
                })
            })
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
