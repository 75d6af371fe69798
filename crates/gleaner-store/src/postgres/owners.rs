//! The owners' desk and the operator's controls on PostgreSQL (see `crate::owners`).

use std::time::SystemTime;

use super::Postgres;
use crate::codec;
use crate::error::StoreError;
use crate::owners::{OwnerSubmission, SourceControl};

impl Postgres {
    pub(crate) async fn add_submission(&self, s: OwnerSubmission) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO owner_submissions
             (reference, kind, scope, detail, contact, status, created_ms, updated_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (reference) DO UPDATE SET kind = excluded.kind, scope = excluded.scope,
               detail = excluded.detail, contact = excluded.contact, status = excluded.status,
               created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
            &[
                &s.reference,
                &s.kind,
                &s.scope,
                &s.detail,
                &s.contact,
                &s.status,
                &codec::to_ms(s.created),
                &codec::to_ms(s.updated),
            ],
            || "recording an owner's submission".to_owned(),
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn submissions(&self, limit: u32) -> Result<Vec<OwnerSubmission>, StoreError> {
        let limit = i64::from(limit);
        Ok(self
            .rows(
                "SELECT reference, kind, scope, detail, contact, status, created_ms, updated_ms
                 FROM owner_submissions ORDER BY created_ms DESC, reference LIMIT $1",
                &[&limit],
                || "reading owners' submissions".to_owned(),
            )
            .await?
            .into_iter()
            .map(|r| OwnerSubmission {
                reference: r.get(0),
                kind: r.get(1),
                scope: r.get(2),
                detail: r.get(3),
                contact: r.get(4),
                status: r.get(5),
                created: codec::from_ms(r.get(6)),
                updated: codec::from_ms(r.get(7)),
            })
            .collect())
    }

    pub(crate) async fn set_submission_status(
        &self,
        reference: String,
        status: String,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        Ok(self
            .exec(
                "UPDATE owner_submissions SET status = $2, updated_ms = $3 WHERE reference = $1",
                &[&reference, &status, &codec::to_ms(now)],
                || format!("updating the submission `{reference}`"),
            )
            .await?
            > 0)
    }

    pub(crate) async fn secret_or_insert(
        &self,
        name: String,
        candidate: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        self.exec(
            "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
            &[&name, &candidate],
            || "storing the server's secret".to_owned(),
        )
        .await?;
        Ok(self
            .row("SELECT value FROM server_secrets WHERE name = $1", &[&name], || {
                "reading the server's secret".to_owned()
            })
            .await?
            .map(|r| r.get(0))
            .unwrap_or(candidate))
    }

    pub(crate) async fn source_control(&self, source: String) -> Result<SourceControl, StoreError> {
        Ok(self
            .row(
                "SELECT paused, run_requested_ms FROM source_controls WHERE source = $1",
                &[&source],
                || format!("reading the controls of source `{source}`"),
            )
            .await?
            .map(|r| SourceControl {
                paused: r.get(0),
                run_requested: r.get::<_, Option<i64>>(1).map(codec::from_ms),
            })
            .unwrap_or_default())
    }

    pub(crate) async fn set_source_control(
        &self,
        source: String,
        paused: Option<bool>,
        run: Option<Option<SystemTime>>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let now_ms = codec::to_ms(now);
        let doing = || format!("updating the controls of source `{source}`");
        self.exec(
            "INSERT INTO source_controls (source, updated_ms) VALUES ($1, $2)
             ON CONFLICT (source) DO NOTHING",
            &[&source, &now_ms],
            doing,
        )
        .await?;
        if let Some(paused) = paused {
            self.exec(
                "UPDATE source_controls SET paused = $2, updated_ms = $3 WHERE source = $1",
                &[&source, &paused, &now_ms],
                doing,
            )
            .await?;
        }
        if let Some(run) = run {
            let run = run.map(codec::to_ms);
            self.exec(
                "UPDATE source_controls SET run_requested_ms = $2, updated_ms = $3 WHERE source = $1",
                &[&source, &run, &now_ms],
                doing,
            )
            .await?;
        }
        Ok(())
    }

    pub(crate) async fn known_sites(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .rows("SELECT site FROM site_state ORDER BY site", &[], || {
                "listing the known sites".to_owned()
            })
            .await?
            .into_iter()
            .map(|r| r.get(0))
            .collect())
    }
}
