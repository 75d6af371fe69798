//! The image relay's records, on both backends: an image gets one opaque id for good, a
//! takedown stops it at once and outlives its row, the link check's verdict is stored,
//! removal deletes the rows; a site's rights files are stored with their validity.

use std::time::{Duration, SystemTime};

use gleaner_policy::registry::Scope;
use url::Url;

use crate::each_backend_test;

each_backend_test! {
    async fn relay_ids_are_opaque_stable_and_taken_down(db) {
        let store = &db.store;
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let poster = Url::parse("http://127.0.0.1:9/img/poster-1.jpg").unwrap();
        let first = store.register_relay_image(&poster, Some("salle"), true, "terms: relay", now).await.unwrap();
        assert_eq!(first.id.len(), 32, "a 128-bit id in hex");
        assert!(!first.id.contains("poster"), "the id says nothing of the URL");
        assert!(first.deliverable());
        let again = store.register_relay_image(&poster, Some("salle"), true, "terms: relay", now).await.unwrap();
        assert_eq!(again.id, first.id, "one id per image, for good");
        let other = Url::parse("http://127.0.0.1:9/img/poster-2.jpg").unwrap();
        let second = store.register_relay_image(&other, None, false, "terms: link-only", now).await.unwrap();
        assert_ne!(second.id, first.id);
        assert!(!second.deliverable(), "registered but not allowed");

        let found = store.relay_image(&first.id).await.unwrap().expect("positive control: the id resolves");
        assert_eq!(found.url, poster.as_str());
        assert_eq!(store.relay_image("0123456789abcdef0123456789abcdef").await.unwrap(), None);
        assert_eq!(store.relay_image("../../etc/passwd").await.unwrap(), None, "never a path or URL");

        assert!(store.take_down(poster.as_str(), "owner asked", now).await.unwrap());
        let down = store.relay_image(&first.id).await.unwrap().unwrap();
        assert_eq!(down.taken_down.as_deref(), Some("owner asked"));
        assert!(!down.deliverable());
        // Re-registering (the next crawl) never revives it.
        let revived = store.register_relay_image(&poster, Some("salle"), true, "terms: relay", now).await.unwrap();
        assert!(!revived.deliverable(), "a takedown outlives re-registration");
        assert_eq!(store.takedowns().await.unwrap().len(), 1);

        store.set_relay_allowed(other.as_str(), true, "terms: relay", now).await.unwrap();
        assert!(store.relay_image(&second.id).await.unwrap().unwrap().deliverable());
        assert_eq!(store.relay_images().await.unwrap().len(), 2);

        let report = store.remove_site(Scope::domain("127.0.0.1").unwrap(), "test", now).await.unwrap();
        assert!(report.deleted.iter().any(|(t, n)| t == "relay_images" && *n == 2), "{:?}", report.deleted);
        assert_eq!(store.relay_image(&second.id).await.unwrap(), None, "removal stops delivery");
        assert_eq!(store.takedowns().await.unwrap().len(), 1, "the takedown record stays");
    }
}

each_backend_test! {
    async fn site_rights_files_are_stored(db) {
        let store = &db.store;
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        assert_eq!(store.site_rights("http://127.0.0.1:9").await.unwrap(), None);
        let files = gleaner_store::SiteRightsFiles {
            read_at: now,
            valid_until: now + Duration::from_secs(3600),
            tdmrep: Some(br#"[{"location":"/","tdm-reservation":1}]"#.to_vec()),
            ai_txt: None,
        };
        store.put_site_rights("http://127.0.0.1:9", &files).await.unwrap();
        assert_eq!(store.site_rights("http://127.0.0.1:9").await.unwrap(), Some(files.clone()));
        let later = gleaner_store::SiteRightsFiles { tdmrep: None, ai_txt: Some(b"User-agent: *\nDisallow: /".to_vec()), ..files };
        store.put_site_rights("http://127.0.0.1:9", &later).await.unwrap();
        assert_eq!(store.site_rights("http://127.0.0.1:9").await.unwrap(), Some(later));
    }
}
