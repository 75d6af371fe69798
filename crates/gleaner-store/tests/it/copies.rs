//! Copies on one PostgreSQL database (issue 17): a live and a staging deployment, each in
//! a schema of its own, share one politeness namespace — every site's budget, the
//! owners' registry, the audit log — while each keeps its own events; a removal deletes
//! a site's content from both. PostgreSQL only (SQLite is always one whole store).

use std::collections::BTreeSet;
use std::time::SystemTime;

use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_policy::state::GateState;
use gleaner_store::{EventWrite, Keep, PgSchemas, Store, StoreError};
use url::Url;

use crate::util::{PgDatabase, day, event, postgres_database};

fn schemas(copy: &str, politeness: &str) -> PgSchemas {
    PgSchemas { copy: copy.to_owned(), politeness: politeness.to_owned() }
}

/// Opens a store on a thread of its own (opening blocks while it migrates).
async fn open(db: &PgDatabase, copy: &str, politeness: &str) -> Result<Store, StoreError> {
    let (url, schemas) = (db.url.clone(), schemas(copy, politeness));
    tokio::task::spawn_blocking(move || Store::open_in(&url, &schemas)).await.unwrap()
}

async fn tables(db: &PgDatabase, schema: &str) -> BTreeSet<String> {
    db.connect()
        .await
        .query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = $1
             AND tablename NOT IN ('schema_migrations', 'schema_layout')",
            &[&schema],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

async fn store_event(store: &Store, host: &str, title: &str) -> i64 {
    let page = Url::parse(&format!("https://{host}/events/{}.html", title.len())).unwrap();
    let e = event(title, (2026, 12, 5), page.as_str(), "A concert.");
    store
        .upsert_event(&EventWrite {
            event: &e,
            source: Some("agenda"),
            fetched_url: &page,
            fetched_at: day(0),
            keep: Keep::Full,
            extractor: None,
        })
        .await
        .unwrap()
        .id()
}

async fn titles(store: &Store) -> BTreeSet<String> {
    let events = store.events_between(day(0), day(3000)).await.unwrap();
    events.into_iter().filter_map(|e| e.event.title).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_and_a_staging_copy_share_budgets_and_registry_and_keep_their_own_events() {
    let Some(db) = postgres_database() else { return };
    let live = open(&db, "live", "city").await.unwrap();
    let staging = open(&db, "staging", "city").await.unwrap();
    // A whole store in `public`, for the table inventory.
    let _whole = open(&db, "public", "public").await.unwrap();

    // The namespace is a whole store; a copy has only its own tables, none of the
    // politeness ones (which its search path finds in the namespace).
    let (city, live_tables, all) =
        (tables(&db, "city").await, tables(&db, "live").await, tables(&db, "public").await);
    assert_eq!(city, all, "a namespace is a whole store");
    assert!(live_tables.contains("events") && live_tables.contains("frontier"), "{live_tables:?}");
    for shared in ["site_state", "site_in_flight", "workers", "owner_requests", "audit_log"] {
        assert!(!live_tables.contains(shared), "{shared} is the namespace's: {live_tables:?}");
    }
    assert!(live_tables.is_subset(&all));
    assert_eq!(tables(&db, "staging").await, live_tables);
    for store in [&live, &staging] {
        assert_eq!(store.integrity_check().await.unwrap(), "ok");
        assert!(store.location().contains("politeness namespace `city`"), "{}", store.location());
    }

    // One budget per site: a reservation by live is what staging sees.
    let site = "https://venue.test";
    let live_gate = live.claim_crawler().await.unwrap();
    let reserved_at = SystemTime::now();
    live_gate
        .update(site, Box::new(move |s, _| s.budget.last_start = Some(reserved_at)))
        .await
        .unwrap();
    let seen = staging.site_state(site).await.unwrap().expect("staging sees live's budget");
    assert_eq!(seen.budget.last_start, Some(reserved_at));

    // Each copy keeps its own events.
    store_event(&live, "venue.test", "Live only concert").await;
    store_event(&staging, "venue.test", "Staging only rehearsal").await;
    store_event(&staging, "other.test", "Staging elsewhere").await;
    assert_eq!(titles(&live).await, BTreeSet::from(["Live only concert".to_owned()]));
    assert_eq!(titles(&staging).await.len(), 2);

    // One registry: an opt-out recorded by live stops staging.
    let page = Url::parse("https://optout.test/events/1.html").unwrap();
    assert!(staging.owner_rules(&page).await.unwrap().opted_out.is_none(), "control");
    let entry = RegistryEntry {
        scope: Scope::Domain("optout.test".into()),
        request: OwnerRequest::OptOut,
        reference: "OPT-1".into(),
    };
    live.add_owner_request(entry, None, day(0)).await.unwrap();
    assert_eq!(staging.owner_rules(&page).await.unwrap().opted_out.as_deref(), Some("OPT-1"));

    // A removal through live deletes the site's content from staging too.
    let report =
        live.remove_site(Scope::Domain("venue.test".into()), "REM-1", day(1)).await.unwrap();
    let deleted: Vec<String> =
        report.deleted.iter().filter(|(_, n)| *n > 0).map(|(t, _)| t.clone()).collect();
    assert!(deleted.contains(&"events".to_owned()), "{deleted:?}");
    assert!(deleted.contains(&"staging.events".to_owned()), "{deleted:?}");
    assert!(titles(&live).await.is_empty());
    assert_eq!(titles(&staging).await, BTreeSet::from(["Staging elsewhere".to_owned()]));
    // … and the opt-out it adds is one both obey.
    let venue = Url::parse("https://venue.test/x").unwrap();
    assert!(staging.owner_rules(&venue).await.unwrap().opted_out.is_some());
    drop(live_gate);
    // The namespace a copy created can later be opened as a live deployment's whole
    // store, and shares its registry with the copies.
    let whole = open(&db, "city", "city").await.unwrap();
    assert!(whole.owner_rules(&venue).await.unwrap().opted_out.is_some());
    assert!(titles(&whole).await.is_empty(), "the copies' events are their own");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_serves_one_role_and_a_whole_store_can_be_a_namespace() {
    let Some(db) = postgres_database() else { return };
    let whole = open(&db, "public", "public").await.unwrap();
    store_event(&whole, "venue.test", "Live in public").await;
    // A staging copy can share the budgets of an existing whole store.
    let staging = open(&db, "staging", "public").await.unwrap();
    assert!(titles(&staging).await.is_empty(), "staging does not see public's events");
    assert_eq!(staging.integrity_check().await.unwrap(), "ok");
    drop((whole, staging));
    // Opening a namespace as a whole store, or a whole store as a copy, is refused with
    // a hint; so is a name that is not a plain identifier.
    let _ = open(&db, "city", "public").await.unwrap();
    for (copy, politeness) in [("public", "city"), ("staging", "staging")] {
        let error = open(&db, copy, politeness).await.unwrap_err().to_string();
        assert!(error.contains("hint:"), "{copy}/{politeness}: {error}");
        assert!(error.contains("holds a"), "{copy}/{politeness}: {error}");
    }
    let error = open(&db, "Staging; DROP", "public").await.unwrap_err().to_string();
    assert!(error.contains("cannot be a schema name"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_and_copies_share_one_daily_cap_per_key() {
    let Some(db) = postgres_database() else { return };
    let live = open(&db, "live", "city").await.unwrap();
    let staging = open(&db, "staging", "city").await.unwrap();
    let other_process = open(&db, "live", "city").await.unwrap();
    let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    // Twelve takers at once, three handles, a cap of five: exactly five get one.
    let mut takers = tokio::task::JoinSet::new();
    for n in 0..12 {
        let store = [&live, &staging, &other_process][n % 3].clone();
        takers.spawn(async move { store.take_daily("link-check a.test", day, 5).await.unwrap() });
    }
    let mut taken = 0;
    while let Some(result) = takers.join_next().await {
        taken += usize::from(result.unwrap() == Some(true));
    }
    assert_eq!(taken, 5, "one cap for every process and copy");
    // Another key and another day have their own; a give-back frees one.
    assert_eq!(live.take_daily("link-check b.test", day, 5).await.unwrap(), Some(true));
    let next = day.succ_opt().unwrap();
    assert_eq!(staging.take_daily("link-check a.test", next, 5).await.unwrap(), Some(true));
    assert_eq!(live.take_daily("link-check a.test", day, 5).await.unwrap(), Some(false));
    staging.give_back_daily("link-check a.test", day).await.unwrap();
    assert_eq!(live.take_daily("link-check a.test", day, 5).await.unwrap(), Some(true));
}
