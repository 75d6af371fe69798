//! The owners' desk and the operator's controls on SQLite (see `crate::owners`).

use std::time::SystemTime;

use rusqlite::{OptionalExtension, params};

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};
use crate::owners::{OwnerSubmission, SourceControl};

impl Sqlite {
    pub(crate) async fn add_submission(&self, s: OwnerSubmission) -> Result<(), StoreError> {
        self.write(
            || "recording an owner's submission".to_owned(),
            move |tx| {
                tx.execute(
                    "INSERT OR REPLACE INTO owner_submissions
                     (reference, kind, scope, detail, contact, status, created_ms, updated_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        s.reference,
                        s.kind,
                        s.scope,
                        s.detail,
                        s.contact,
                        s.status,
                        codec::to_ms(s.created),
                        codec::to_ms(s.updated)
                    ],
                )
                .map(|_| ())
                .doing(|| "recording an owner's submission".to_owned())
            },
        )
        .await
    }

    pub(crate) async fn submissions(&self, limit: u32) -> Result<Vec<OwnerSubmission>, StoreError> {
        self.read(move |conn| {
            let doing = || "reading owners' submissions".to_owned();
            let mut st = conn
                .prepare(
                    "SELECT reference, kind, scope, detail, contact, status, created_ms, updated_ms
                     FROM owner_submissions ORDER BY created_ms DESC, reference LIMIT ?1",
                )
                .doing(doing)?;
            st.query_map(params![i64::from(limit)], |r| {
                Ok(OwnerSubmission {
                    reference: r.get(0)?,
                    kind: r.get(1)?,
                    scope: r.get(2)?,
                    detail: r.get(3)?,
                    contact: r.get(4)?,
                    status: r.get(5)?,
                    created: codec::from_ms(r.get(6)?),
                    updated: codec::from_ms(r.get(7)?),
                })
            })
            .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
            .doing(doing)
        })
        .await
    }

    pub(crate) async fn set_submission_status(
        &self,
        reference: String,
        status: String,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        self.write(
            || "updating an owner's submission".to_owned(),
            move |tx| {
                tx.execute(
                    "UPDATE owner_submissions SET status = ?2, updated_ms = ?3 WHERE reference = ?1",
                    params![reference, status, codec::to_ms(now)],
                )
                .map(|n| n > 0)
                .doing(|| format!("updating the submission `{reference}`"))
            },
        )
        .await
    }

    pub(crate) async fn secret_or_insert(
        &self,
        name: String,
        candidate: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        self.write(
            || "reading the server's secret".to_owned(),
            move |tx| {
                tx.execute(
                    "INSERT OR IGNORE INTO server_secrets (name, value) VALUES (?1, ?2)",
                    params![name, candidate],
                )
                .doing(|| "storing the server's secret".to_owned())?;
                tx.query_row(
                    "SELECT value FROM server_secrets WHERE name = ?1",
                    params![name],
                    |r| r.get(0),
                )
                .doing(|| "reading the server's secret".to_owned())
            },
        )
        .await
    }

    pub(crate) async fn source_control(&self, source: String) -> Result<SourceControl, StoreError> {
        self.read(move |conn| {
            conn.query_row(
                "SELECT paused, run_requested_ms FROM source_controls WHERE source = ?1",
                params![source],
                |r| {
                    Ok(SourceControl {
                        paused: r.get::<_, i64>(0)? != 0,
                        run_requested: r.get::<_, Option<i64>>(1)?.map(codec::from_ms),
                    })
                },
            )
            .optional()
            .map(Option::unwrap_or_default)
            .doing(|| format!("reading the controls of source `{source}`"))
        })
        .await
    }

    pub(crate) async fn set_source_control(
        &self,
        source: String,
        paused: Option<bool>,
        run: Option<Option<SystemTime>>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.write(
            || "updating a source's controls".to_owned(),
            move |tx| {
                let doing = || format!("updating the controls of source `{source}`");
                tx.execute(
                    "INSERT OR IGNORE INTO source_controls (source, updated_ms) VALUES (?1, ?2)",
                    params![source, codec::to_ms(now)],
                )
                .doing(doing)?;
                if let Some(paused) = paused {
                    tx.execute(
                        "UPDATE source_controls SET paused = ?2, updated_ms = ?3 WHERE source = ?1",
                        params![source, i64::from(paused), codec::to_ms(now)],
                    )
                    .doing(doing)?;
                }
                if let Some(run) = run {
                    tx.execute(
                        "UPDATE source_controls SET run_requested_ms = ?2, updated_ms = ?3 WHERE source = ?1",
                        params![source, run.map(codec::to_ms), codec::to_ms(now)],
                    )
                    .doing(doing)?;
                }
                Ok(())
            },
        )
        .await
    }

    pub(crate) async fn known_sites(&self) -> Result<Vec<String>, StoreError> {
        self.read(move |conn| {
            let doing = || "listing the known sites".to_owned();
            let mut st = conn.prepare("SELECT site FROM site_state ORDER BY site").doing(doing)?;
            st.query_map([], |r| r.get(0))
                .and_then(|rows| rows.collect::<Result<Vec<String>, _>>())
                .doing(doing)
        })
        .await
    }
}
