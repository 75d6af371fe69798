//! Source runs and failure streaks, on both backends: a schedule and a streak survive a
//! restart of the process (they live in the database).

use std::time::{Duration, SystemTime};

use crate::each_backend_test;

each_backend_test! {
    async fn runs_and_failure_streaks_are_stored(db) {
        let store = &db.store;
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(store.last_run("salle").await.unwrap(), None);
        store.record_run("salle", at).await.unwrap();
        assert_eq!(store.last_run("salle").await.unwrap(), Some(at));
        assert_eq!(store.record_outcome("salle", true).await.unwrap(), 1);
        assert_eq!(store.record_outcome("salle", true).await.unwrap(), 2);
        assert_eq!(store.failure_streak("salle").await.unwrap(), 2);
        assert_eq!(store.last_run("salle").await.unwrap(), Some(at), "the streak keeps the last start");
        assert_eq!(store.record_outcome("salle", false).await.unwrap(), 0);
        assert_eq!(store.failure_streak("other").await.unwrap(), 0);
    }
}
