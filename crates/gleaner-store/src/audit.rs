//! Reading what gleaner did, written once for both backends (`crate::sql`): the audit
//! log of every request and refusal, and the archive of robots.txt and terms pages.
//! Writing them stays with each backend: audit rows go through its batch writer, and
//! robots.txt versions are archived inside the gate's own transaction.

use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_policy::registry::Scope;

use crate::codec;
use crate::model::{ArchivedDocument, AuditEntry, DocumentKind};
use crate::sql::params;
use crate::{Store, StoreError};

impl Store {
    /// The latest `limit` audit rows within `scope`, oldest first.
    pub async fn audit_for(
        &self,
        scope: &Scope,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        let (cond, param) = self.db().dialect().scope_condition(scope, "host", "url", 1);
        let sql = format!(
            "SELECT time_ms, site, url, purpose, source, status, error, bytes, duration_ms, reason,
                 outcome
             FROM (SELECT * FROM audit_log WHERE {cond} ORDER BY time_ms DESC, id DESC LIMIT $2) a
             ORDER BY time_ms, id"
        );
        let doing = format!("reading the audit log for `{param}`");
        let rows = self.db().query(&sql, params![&param, limit], doing).await?;
        rows.iter()
            .map(|r| {
                let status = r.get::<Option<i64>>(5)?.and_then(|s| u16::try_from(s).ok());
                Ok(AuditEntry {
                    time: r.get(0)?,
                    site: r.get(1)?,
                    url: r.get(2)?,
                    purpose: Purpose::from_name(&r.get::<String>(3)?),
                    source: r.get(4)?,
                    outcome: codec::decode_outcome(&r.get::<String>(10)?, status),
                    error: r.get(6)?,
                    bytes: r.get::<i64>(7)?.max(0) as u64,
                    duration: Duration::from_millis(r.get::<i64>(8)?.max(0) as u64),
                    reason: r.get(9)?,
                })
            })
            .collect()
    }

    /// Every archived version of the sites in `scope`, by site and date.
    pub async fn archive_history(
        &self,
        scope: &Scope,
        kind: DocumentKind,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        self.archived(scope, kind, None).await
    }

    /// What each site in `scope` had published at time `at`: the latest version first
    /// seen at or before `at`, one per site.
    pub async fn archived_at(
        &self,
        scope: &Scope,
        kind: DocumentKind,
        at: SystemTime,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        self.archived(scope, kind, Some(at)).await
    }

    async fn archived(
        &self,
        scope: &Scope,
        kind: DocumentKind,
        at: Option<SystemTime>,
    ) -> Result<Vec<ArchivedDocument>, StoreError> {
        let (cond, param) = self.db().dialect().scope_condition(scope, "host", "url", 1);
        let at_ms = at.map_or(i64::MAX, codec::to_ms);
        let sql = format!(
            "SELECT site, url, first_seen_ms, last_seen_ms, body FROM archive
             WHERE {cond} AND kind = $2 AND first_seen_ms <= $3 ORDER BY site, first_seen_ms, id"
        );
        let doing = format!("reading the archive for `{param}`");
        let rows = self.db().query(&sql, params![&param, kind.as_str(), at_ms], doing).await?;
        let mut docs: Vec<ArchivedDocument> = Vec::with_capacity(rows.len());
        for r in rows {
            let doc = ArchivedDocument {
                site: r.get(0)?,
                kind,
                url: r.get(1)?,
                first_seen: r.get(2)?,
                last_seen: r.get(3)?,
                body: r.get(4)?,
            };
            match docs.last_mut() {
                // Only the version in force at `at`: the latest one per site.
                Some(last) if at.is_some() && last.site == doc.site => *last = doc,
                _ => docs.push(doc),
            }
        }
        Ok(docs)
    }
}
