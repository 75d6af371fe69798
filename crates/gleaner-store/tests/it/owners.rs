//! The owners' desk and the operator's controls, on both backends: submissions keep
//! their receipt reference and status, the server's secret is created once and then
//! shared by every handle, a source's pause and "run now" survive a reopen.

use std::time::{Duration, SystemTime};

use gleaner_store::OwnerSubmission;

use crate::each_backend_test;

each_backend_test! {
    async fn submissions_secrets_and_source_controls_are_stored(db) {
        let store = &db.store;
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let submission = OwnerSubmission {
            reference: "OWN-1".into(),
            kind: "removal".into(),
            scope: "salle.example".into(),
            detail: "please remove <everything>".into(),
            contact: Some("owner@salle.example".into()),
            status: "pending".into(),
            created: at,
            updated: at,
        };
        store.add_submission(&submission).await.unwrap();
        assert_eq!(store.submission("OWN-1").await.unwrap(), Some(submission.clone()));
        assert!(store.set_submission_status("OWN-1", "removed", at + Duration::from_secs(5)).await.unwrap());
        assert!(!store.set_submission_status("OWN-404", "removed", at).await.unwrap());
        let reopened = db.reopen();
        let listed = reopened.submissions(10).await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].status, "removed");
        assert_eq!(listed[0].updated, at + Duration::from_secs(5));

        let first = store.secret_or_insert("csrf", vec![1; 32]).await.unwrap();
        assert_eq!(first, vec![1; 32]);
        let second = reopened.secret_or_insert("csrf", vec![2; 32]).await.unwrap();
        assert_eq!(second, first, "the first secret stays");

        assert!(!store.source_control("salle").await.unwrap().paused);
        store.set_source_paused("salle", true, at).await.unwrap();
        store.request_run("salle", Some(at), at).await.unwrap();
        let control = reopened.source_control("salle").await.unwrap();
        assert!(control.paused);
        assert_eq!(control.run_requested, Some(at));
        store.request_run("salle", None, at).await.unwrap();
        store.set_source_paused("salle", false, at).await.unwrap();
        assert_eq!(reopened.source_control("salle").await.unwrap(), Default::default());
        assert_eq!(store.known_sites().await.unwrap(), Vec::<String>::new());
    }
}
