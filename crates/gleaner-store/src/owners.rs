//! The owners' desk and the operator dashboard (issue 15): what owners submitted through
//! the public forms, the server's persistent secrets, the operator's per-source controls
//! (pause, run now) and the list of known sites. Both backends implement the same
//! methods (`sqlite/owners.rs`, `postgres/owners.rs`).

use std::time::SystemTime;

use crate::{Backend, Store, StoreError};

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
        let s = submission.clone();
        match &*self.backend {
            Backend::Sqlite(db) => db.add_submission(s).await,
            Backend::Postgres(db) => db.add_submission(s).await,
        }
    }

    /// The submission with this reference.
    pub async fn submission(&self, reference: &str) -> Result<Option<OwnerSubmission>, StoreError> {
        Ok(self.submissions(u32::MAX).await?.into_iter().find(|s| s.reference == reference))
    }

    /// The latest `limit` submissions, newest first.
    pub async fn submissions(&self, limit: u32) -> Result<Vec<OwnerSubmission>, StoreError> {
        match &*self.backend {
            Backend::Sqlite(db) => db.submissions(limit).await,
            Backend::Postgres(db) => db.submissions(limit).await,
        }
    }

    /// Sets a submission's status; false when there is no such reference.
    pub async fn set_submission_status(
        &self,
        reference: &str,
        status: &str,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let (r, s) = (reference.to_owned(), status.to_owned());
        match &*self.backend {
            Backend::Sqlite(db) => db.set_submission_status(r, s, now).await,
            Backend::Postgres(db) => db.set_submission_status(r, s, now).await,
        }
    }

    /// The secret stored under `name`, storing `candidate` first when there is none (so
    /// every process and every restart uses the same one).
    pub async fn secret_or_insert(
        &self,
        name: &str,
        candidate: Vec<u8>,
    ) -> Result<Vec<u8>, StoreError> {
        let name = name.to_owned();
        match &*self.backend {
            Backend::Sqlite(db) => db.secret_or_insert(name, candidate).await,
            Backend::Postgres(db) => db.secret_or_insert(name, candidate).await,
        }
    }

    /// The operator's controls of `source` (defaults when never set).
    pub async fn source_control(&self, source: &str) -> Result<SourceControl, StoreError> {
        let source = source.to_owned();
        match &*self.backend {
            Backend::Sqlite(db) => db.source_control(source).await,
            Backend::Postgres(db) => db.source_control(source).await,
        }
    }

    /// Pauses or resumes `source`.
    pub async fn set_source_paused(
        &self,
        source: &str,
        paused: bool,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let source = source.to_owned();
        match &*self.backend {
            Backend::Sqlite(db) => db.set_source_control(source, Some(paused), None, now).await,
            Backend::Postgres(db) => db.set_source_control(source, Some(paused), None, now).await,
        }
    }

    /// Asks the scheduler for a pass of `source` now (or clears the request with
    /// `None`, which the scheduler does when it starts the pass).
    pub async fn request_run(
        &self,
        source: &str,
        at: Option<SystemTime>,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let source = source.to_owned();
        match &*self.backend {
            Backend::Sqlite(db) => db.set_source_control(source, None, Some(at), now).await,
            Backend::Postgres(db) => db.set_source_control(source, None, Some(at), now).await,
        }
    }

    /// Every site (budget key) the gate has state for, sorted.
    pub async fn known_sites(&self) -> Result<Vec<String>, StoreError> {
        match &*self.backend {
            Backend::Sqlite(db) => db.known_sites().await,
            Backend::Postgres(db) => db.known_sites().await,
        }
    }
}
