//! The owners' desk and the operator dashboard (issue 15): what owners submitted through
//! the public forms, the server's persistent secrets, the operator's per-source controls
//! (pause, run now) and the list of known sites, written once for both backends
//! (`crate::sql`).

use std::time::SystemTime;

use crate::sql::{Value, params};
use crate::{Store, StoreError};

/// What an owner submitted through a form, with the receipt reference they were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerSubmission {
    /// The receipt reference (an opt-out's reference is also its registry reference).
    pub reference: String,
    /// `opt-out`, `slow-down`, `facts-only`, `removal`, or an operator action
    /// (`takedown`, `override`).
    pub kind: String,
    /// The domain or URL prefix, normalised.
    pub scope: String,
    /// What was asked, in words (the factor, the proof offered, the owner's message).
    pub detail: String,
    /// How to reach the owner, when given.
    pub contact: Option<String>,
    /// `applied`, `pending`, `removed` or `rejected`.
    pub status: String,
    /// When it was submitted.
    pub created: SystemTime,
    /// When its status last changed.
    pub updated: SystemTime,
}

/// The operator's controls of one source.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SourceControl {
    /// The scheduler starts no pass of a paused source.
    pub paused: bool,
    /// The operator asked for a pass now (taken by the scheduler).
    pub run_requested: Option<SystemTime>,
}

impl Store {
    /// Records an owner's submission (replacing one with the same reference).
    pub async fn add_submission(&self, submission: &OwnerSubmission) -> Result<(), StoreError> {
        let s = submission;
        self.db()
            .exec(
                "INSERT INTO owner_submissions
                 (reference, kind, scope, detail, contact, status, created_ms, updated_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (reference) DO UPDATE SET kind = excluded.kind, scope = excluded.scope,
                   detail = excluded.detail, contact = excluded.contact, status = excluded.status,
                   created_ms = excluded.created_ms, updated_ms = excluded.updated_ms",
                params![
                    &s.reference,
                    &s.kind,
                    &s.scope,
                    &s.detail,
                    &s.contact,
                    &s.status,
                    s.created,
                    s.updated
                ],
                "recording an owner's submission".to_owned(),
            )
            .await
            .map(drop)
    }

    /// The submission with this reference.
    pub async fn submission(&self, reference: &str) -> Result<Option<OwnerSubmission>, StoreError> {
        Ok(self.submissions(u32::MAX).await?.into_iter().find(|s| s.reference == reference))
    }

    /// The latest `limit` submissions, newest first.
    pub async fn submissions(&self, limit: u32) -> Result<Vec<OwnerSubmission>, StoreError> {
        let sql = "SELECT reference, kind, scope, detail, contact, status, created_ms, updated_ms
                   FROM owner_submissions ORDER BY created_ms DESC, reference LIMIT $1";
        let rows =
            self.db().query(sql, params![limit], "reading owners' submissions".into()).await?;
        rows.iter()
            .map(|r| {
                Ok(OwnerSubmission {
                    reference: r.get(0)?,
                    kind: r.get(1)?,
                    scope: r.get(2)?,
                    detail: r.get(3)?,
                    contact: r.get(4)?,
                    status: r.get(5)?,
                    created: r.get(6)?,
                    updated: r.get(7)?,
                })
            })
            .collect()
    }

    /// Sets a submission's status; false when there is no such reference.
    pub async fn set_submission_status(
        &self,
        reference: &str,
        status: &str,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let sql = "UPDATE owner_submissions SET status = $2, updated_ms = $3 WHERE reference = $1";
        let doing = format!("updating the submission `{reference}`");
        Ok(self.db().exec(sql, params![reference, status, now], doing).await? > 0)
    }

    /// The secret stored under `name`, storing `candidate` first when there is none (so
    /// every process and every restart uses the same one).
    pub async fn secret_or_insert(
        &self,
        name: &str,
        candidate: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let name = name.to_owned();
        self.db()
            .tx("storing the server's secret".to_owned(), move |tx| {
                Box::pin(async move {
                    tx.exec(
                        "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                        params![&name, candidate],
                    )
                    .await?;
                    let row = tx.row("SELECT value FROM server_secrets WHERE name = $1", params![&name]);
                    match row.await? {
                        Some(r) => r.get(0),
                        None => Err(StoreError::Worker(format!("the secret `{name}` vanished"))),
                    }
                })
            })
            .await
    }

    /// The operator's controls of `source` (defaults when never set).
    pub async fn source_control(&self, source: &str) -> Result<SourceControl, StoreError> {
        let sql = "SELECT paused, run_requested_ms FROM source_controls WHERE source = $1";
        let doing = format!("reading the controls of source `{source}`");
        let row = self.db().row(sql, params![source], doing).await?;
        let control =
            row.map(|r| Ok(SourceControl { paused: r.get(0)?, run_requested: r.get(1)? }));
        Ok(control.transpose()?.unwrap_or_default())
    }

    /// Pauses or resumes `source`.
    pub async fn set_source_paused(
        &self,
        source: &str,
        paused: bool,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.set_source_control(source, "paused", paused.into(), now).await
    }

    /// Asks the scheduler for a pass of `source` now (or clears the request with
    /// `None`, which the scheduler does when it starts the pass).
    pub async fn request_run(
        &self,
        source: &str,
        at: Option<SystemTime>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.set_source_control(source, "run_requested_ms", at.into(), now).await
    }

    /// Sets one column of a source's controls, creating its row first.
    async fn set_source_control(
        &self,
        source: &str,
        column: &'static str,
        value: Value,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let source = source.to_owned();
        let doing = format!("updating the controls of source `{source}`");
        self.db()
            .tx(doing, move |tx| {
                Box::pin(async move {
                    tx.exec(
                        "INSERT INTO source_controls (source, updated_ms) VALUES ($1, $2)
                         ON CONFLICT (source) DO NOTHING",
                        params![&source, now],
                    )
                    .await?;
                    let sql = format!(
                        "UPDATE source_controls SET {column} = $2, updated_ms = $3 WHERE source = $1"
                    );
                    tx.exec(&sql, vec![source.into(), value, now.into()]).await.map(drop)
                })
            })
            .await
    }

    /// Every site (budget key) the gate has state for, sorted.
    pub async fn known_sites(&self) -> Result<Vec<String>, StoreError> {
        let sql = "SELECT site FROM site_state ORDER BY site";
        let rows = self.db().query(sql, params![], "listing the known sites".into()).await?;
        rows.iter().map(|r| r.get(0)).collect()
    }
}
