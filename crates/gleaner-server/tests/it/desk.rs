//! The owners' desk on both of its stores: each body in [`each_desk_test!`] runs once on
//! [`MemoryDesk`] and once on [`StoreDesk`] over SQLite, through the desk's own routes,
//! so the in-memory desk that unit tests use cannot drift from the store the server
//! runs on. The last tests drive the dashboard on memory alone, with what the crawler
//! would have written set by hand.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink, Outcome, RefusalKind};
use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_policy::state::{BoxFuture, SiteState};
use gleaner_server::desk::OwnerDesk;
use gleaner_server::desk_store::{DeskStore, MemoryDesk, StoreDesk, SubmissionStatus};
use gleaner_server::verify::{TxtResolver, txt_value};
use gleaner_server::{AppState, ServerOptions};
use gleaner_store::{DocumentKind, OwnerSubmission, Store};

use crate::owners::{OPERATOR, by_id, config, open, post, send, token_in};
use crate::{Fixed, sample_events};

/// A DNS that answers what the test put in (nothing at first).
#[derive(Default)]
struct Answers(Mutex<Vec<String>>);

impl TxtResolver for Answers {
    fn txt<'a>(&'a self, _: &'a str) -> BoxFuture<'a, Result<Vec<String>, String>> {
        let values = self.0.lock().unwrap().clone();
        Box::pin(async move { Ok(values) })
    }
}

/// One desk with the public routes and the dashboard over it.
struct Desk {
    _dir: Option<tempfile::TempDir>,
    rows: Arc<dyn DeskStore>,
    desk: Arc<OwnerDesk>,
    dns: Arc<Answers>,
    app: Router,
    dashboard: Router,
}

impl Desk {
    async fn memory(owners: &str) -> Desk {
        Desk::over(None, Arc::new(MemoryDesk::new()), owners).await
    }

    async fn sqlite(owners: &str) -> Desk {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_sqlite(&dir.path().join("gleaner.db")).unwrap();
        Desk::over(Some(dir), Arc::new(StoreDesk::new(store)), owners).await
    }

    async fn over(dir: Option<tempfile::TempDir>, rows: Arc<dyn DeskStore>, owners: &str) -> Desk {
        let settings = Arc::new(gleaner_config::parse(&config(owners), "test.toml").unwrap());
        let dns = Arc::new(Answers::default());
        let resolver: Arc<dyn TxtResolver> = dns.clone();
        let desk =
            OwnerDesk::with_resolver(Arc::clone(&rows), Arc::clone(&settings), None, resolver)
                .await
                .unwrap()
                .with_operator_token(Some(OPERATOR.into()));
        let desk = Arc::new(desk);
        let state = AppState { settings, events: Arc::new(Fixed(sample_events())) };
        let options = ServerOptions { operator_token: Some(OPERATOR.into()) };
        let app = gleaner_server::router_with_desk(state, options, Arc::clone(&desk));
        let dashboard = gleaner_server::dashboard::router(Arc::clone(&desk)).unwrap();
        Desk { _dir: dir, rows, desk, dns, app, dashboard }
    }

    /// Sends an owner form; the receipt's reference and page.
    async fn submit(&self, form: &str, fields: &[(&str, &str)]) -> (String, String) {
        let session = open(&self.app, "/owners").await;
        let (status, _, body) = post(&self.app, &session, &format!("/owners/{form}"), fields).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        (by_id(&body, "reference"), body)
    }

    /// The operator's dashboard page at `path` (signed in with the bearer token).
    async fn dashboard_get(&self, path: &str) -> (String, String) {
        let request = Request::get(path)
            .header(header::AUTHORIZATION, format!("Bearer {OPERATOR}"))
            .body(Body::empty())
            .unwrap();
        let (status, headers, page) = send(&self.dashboard, request).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        let cookie = headers
            .get(header::SET_COOKIE)
            .map(|c| c.to_str().unwrap().split(';').next().unwrap().to_owned())
            .unwrap_or_default();
        (cookie, page)
    }

    /// Presses a dashboard button: a POST with the page's token and cookie.
    async fn dashboard_post(&self, page_path: &str, action: &str) -> StatusCode {
        let (cookie, page) = self.dashboard_get(page_path).await;
        let request = Request::post(action)
            .header(header::AUTHORIZATION, format!("Bearer {OPERATOR}"))
            .header(header::COOKIE, cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!("csrf={}", token_in(&page))))
            .unwrap();
        send(&self.dashboard, request).await.0
    }

    async fn status_of(&self, reference: &str) -> String {
        self.rows.submission(reference).await.unwrap().expect("the submission").status
    }
}

/// Runs each body on [`MemoryDesk`] and on [`StoreDesk`] over SQLite.
macro_rules! each_desk_test {
    ($(#[doc = $doc:literal])* async fn $name:ident($desk:ident, $owners:literal) $body:block) => {
        mod $name {
            use super::*;

            $(#[doc = $doc])*
            async fn body($desk: Desk) $body

            #[tokio::test]
            async fn memory() {
                body(Desk::memory($owners).await).await
            }

            #[tokio::test]
            async fn sqlite() {
                body(Desk::sqlite($owners).await).await
            }
        }
    };
}

each_desk_test! {
    /// Issue 26: a stranger's opt-out applies at once, unproven, and stops applying at
    /// `[owners] unverified_lapse` unless proven; the operator can undo it in one click.
    async fn a_strangers_unverified_opt_out_applies_at_once_and_lapses(d, "unverified_lapse = \"2h\"") {
        let before = SystemTime::now();
        let (reference, receipt) = d.submit("opt-out", &[("scope", "salle.example")]).await;
        assert_eq!(by_id(&receipt, "status"), "unverified");
        let requests = d.rows.owner_requests().await.unwrap();
        assert_eq!(requests.len(), 1, "{requests:?}");
        let request = &requests[0];
        assert_eq!(request.entry.reference, reference);
        assert_eq!(request.entry.request, OwnerRequest::OptOut);
        assert_eq!(request.entry.scope, Scope::Domain("salle.example".into()));
        let lapses = request.lapses.expect("an unproven opt-out lapses");
        let lapse = Duration::from_secs(2 * 3600);
        assert!(lapses >= before + lapse - Duration::from_secs(1), "two hours on");
        assert!(request.in_force(before + lapse - Duration::from_secs(60)), "holds until then");
        assert!(!request.in_force(lapses + Duration::from_secs(1)), "and lapses after");

        // The operator undoes it: it stops applying, and the receipt says so.
        let action = format!("/submissions/{reference}/undo");
        assert_eq!(d.dashboard_post("/submissions", &action).await, StatusCode::SEE_OTHER);
        assert!(d.rows.owner_requests().await.unwrap().is_empty(), "undone");
        assert_eq!(d.status_of(&reference).await, "undone");
    }
}

each_desk_test! {
    /// Issue 26: a removal deletes and hides, so from a stranger it waits for proof: a
    /// missing DNS record leaves it pending with nothing opted out; the record proves it,
    /// and the site is then opted out for good.
    async fn a_removal_waits_for_proof(d, "") {
        let (reference, receipt) =
            d.submit("removal", &[("scope", "salle.example"), ("stop", "no")]).await;
        assert_eq!(by_id(&receipt, "status"), "pending");
        assert!(d.rows.owner_requests().await.unwrap().is_empty(), "nothing applies yet");

        let session = open(&d.app, "/owners").await;
        let verify = [("reference", reference.as_str()), ("method", "dns")];
        let (_, _, page) = post(&d.app, &session, "/owners/verify", &verify).await;
        assert!(by_id(&page, "note").contains("Not proven yet"), "{page}");
        assert_eq!(d.status_of(&reference).await, "pending");
        assert!(d.rows.owner_requests().await.unwrap().is_empty(), "still nothing");

        // Positive control: the same request with the record in place is carried out.
        let token = d.desk.proof_token("salle.example");
        d.dns.0.lock().unwrap().push(txt_value(&token));
        let (_, _, page) = post(&d.app, &session, "/owners/verify", &verify).await;
        assert!(by_id(&page, "note").starts_with("Control proven. Removed"), "{page}");
        assert_eq!(d.status_of(&reference).await, "removed");
        let requests = d.rows.owner_requests().await.unwrap();
        assert_eq!(requests.len(), 1, "{requests:?}");
        assert_eq!(requests[0].entry.request, OwnerRequest::OptOut);
        assert_eq!(requests[0].entry.scope, Scope::Domain("salle.example".into()));
        assert_eq!(requests[0].lapses, None, "for good");
    }
}

each_desk_test! {
    /// A proven opt-out holds for good: the same reference, no lapse any more.
    async fn a_proven_opt_out_stops_lapsing(d, "") {
        let (reference, _) = d.submit("opt-out", &[("scope", "salle.example")]).await;
        assert!(d.rows.owner_requests().await.unwrap()[0].lapses.is_some());
        let token = d.desk.proof_token("salle.example");
        d.dns.0.lock().unwrap().push(txt_value(&token));
        let session = open(&d.app, "/owners").await;
        let verify = [("reference", reference.as_str()), ("method", "dns")];
        let (_, _, page) = post(&d.app, &session, "/owners/verify", &verify).await;
        assert!(by_id(&page, "note").contains("holds for good"), "{page}");
        let requests = d.rows.owner_requests().await.unwrap();
        assert_eq!((requests[0].entry.reference.as_str(), requests[0].lapses), (reference.as_str(), None));
        assert_eq!(d.status_of(&reference).await, "applied");
    }
}

/// One script of the desk's writes, with times that fall inside a millisecond.
async fn script(rows: &dyn DeskStore) {
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_nanos(1_800_000_000_123_456_789);
    let at = |s: u64| t0 + Duration::from_secs(s);
    let submission = |reference: &str, kind: &str, status: &str, created| OwnerSubmission {
        reference: reference.into(),
        kind: kind.into(),
        scope: "salle.example".into(),
        detail: format!("{kind} from the form"),
        contact: None,
        status: status.into(),
        created,
        updated: created,
    };
    let entry = |reference: &str, request| RegistryEntry {
        scope: Scope::Domain("salle.example".into()),
        request,
        reference: reference.into(),
    };
    // Two at the same instant (ordered by reference), one older, one replaced.
    rows.add_submission(&submission("OWN-B", "removal", "pending", at(10))).await.unwrap();
    rows.add_submission(&submission("OWN-A", "opt-out", "unverified", at(10))).await.unwrap();
    rows.add_submission(&submission("OWN-C", "slow-down", "unverified", at(5))).await.unwrap();
    rows.add_submission(&submission("OWN-D", "facts-only", "pending", at(1))).await.unwrap();
    rows.add_submission(&submission("OWN-D", "facts-only", "pending", at(2))).await.unwrap();
    assert!(rows.set_submission_status("OWN-C", SubmissionStatus::Applied, at(20)).await.unwrap());
    assert!(!rows.set_submission_status("OWN-X", SubmissionStatus::Applied, at(20)).await.unwrap());
    rows.add_unverified_request(entry("OWN-A", OwnerRequest::OptOut), None, at(10), at(3610))
        .await
        .unwrap();
    rows.add_unverified_request(entry("OWN-C", OwnerRequest::SlowDown(4)), None, at(5), at(3605))
        .await
        .unwrap();
    assert!(rows.confirm_owner_request("OWN-C").await.unwrap());
    assert!(!rows.confirm_owner_request("OWN-X").await.unwrap());
    // Recorded again later: the first time stays, the lapse goes.
    rows.add_owner_request(entry("OWN-A", OwnerRequest::OptOut), Some("again".into()), at(30))
        .await
        .unwrap();
    let report = rows.remove_site(Scope::Domain("salle.example".into()), "OWN-B", at(40));
    assert_eq!(report.await.unwrap().opt_out, "removal-1");
    assert!(!rows.remove_owner_request("OWN-X").await.unwrap());
    rows.set_source_paused("salle", true, at(50)).await.unwrap();
    rows.request_run("salle", Some(at(51)), at(51)).await.unwrap();
    let secret = rows.secret_or_insert("forms-v1", vec![1, 2, 3]).await.unwrap();
    assert_eq!(rows.secret_or_insert("forms-v1", vec![9]).await.unwrap(), secret);
}

/// The in-memory desk and the store agree on what the operator sees after the same
/// writes: the submissions list in the dashboard's order (newest first, ties by
/// reference, a replaced one where its new date puts it) with its statuses and times,
/// and which owners' requests hold and until when.
#[tokio::test]
async fn memory_and_store_agree_on_the_submissions_list_and_the_registry() {
    let dir = tempfile::tempdir().unwrap();
    let store = StoreDesk::new(Store::open_sqlite(&dir.path().join("g.db")).unwrap());
    let memory = MemoryDesk::new();
    script(&store).await;
    script(&memory).await;
    let list = store.submissions(100).await.unwrap();
    let order: Vec<&str> = list.iter().map(|s| s.reference.as_str()).collect();
    assert_eq!(order, ["OWN-A", "OWN-B", "OWN-C", "OWN-D"], "the store's order");
    assert_eq!(memory.submissions(100).await.unwrap(), list);
    assert_eq!(memory.submissions(2).await.unwrap(), store.submissions(2).await.unwrap());
    assert_eq!(memory.submission("OWN-C").await.unwrap(), store.submission("OWN-C").await.unwrap());
    let registry = store.owner_requests().await.unwrap();
    assert_eq!(registry.len(), 3, "{registry:?}");
    assert_eq!(memory.owner_requests().await.unwrap(), registry);
    assert_eq!(
        memory.source_control("salle").await.unwrap(),
        store.source_control("salle").await.unwrap()
    );
    assert_eq!(
        memory.source_control("other").await.unwrap(),
        store.source_control("other").await.unwrap()
    );
    assert_eq!(memory.known_sites().await.unwrap(), store.known_sites().await.unwrap());
    assert_eq!(memory.last_run("salle").await.unwrap(), store.last_run("salle").await.unwrap());
    assert_eq!(
        memory.failure_streak("salle").await.unwrap(),
        store.failure_streak("salle").await.unwrap()
    );
}

/// The dashboard on memory alone: a suspension the gate recorded shows on the sites
/// page, and pausing a source shows on the sources page with its failure streak.
#[tokio::test]
async fn the_dashboard_runs_on_the_memory_desk() {
    let rows = Arc::new(MemoryDesk::new());
    let until = SystemTime::now() + Duration::from_secs(3600);
    let mut state = SiteState::default();
    state.budget.suspended_until = Some((until, "429 with Retry-After".into()));
    rows.put_site_state("https://salle.example", state);
    rows.set_run("salle", Some(SystemTime::now() - Duration::from_secs(60)), 3);
    let d = Desk::over(None, rows.clone(), "").await;

    let (_, sites) = d.dashboard_get("/sites").await;
    assert!(sites.contains("data-site=\"https://salle.example\""), "{sites}");
    assert!(sites.contains("429 with Retry-After"), "{sites}");
    let (_, sources) = d.dashboard_get("/").await;
    assert!(sources.contains("3 failed visits in a row"), "{sources}");

    assert_eq!(d.dashboard_post("/", "/sources/salle/pause").await, StatusCode::SEE_OTHER);
    assert!(rows.source_control("salle").await.unwrap().paused);
    let (_, sources) = d.dashboard_get("/").await;
    assert!(sources.contains(">paused<"), "{sources}");
}

/// What the gate wrote about `salle.example`: three requests sent, one refused.
fn salle_audit(now: SystemTime) -> Vec<AuditRecord> {
    let row = |path: &str, purpose, outcome, reason: &str| AuditRecord {
        time: now,
        site: "https://salle.example".into(),
        url: format!("https://salle.example{path}"),
        purpose,
        source: Some("salle".into()),
        outcome,
        error: None,
        bytes: 10,
        duration: Duration::from_millis(5),
        reason: reason.into(),
    };
    let sent = |status| Outcome::Sent { status };
    let refused = Outcome::Refused(RefusalKind::RobotsDisallowed);
    vec![
        row("/robots.txt", Purpose::Robots, sent(200), "robots"),
        row("/agenda/", Purpose::Listing, sent(200), "allowed"),
        row("/agenda/1.html", Purpose::EventPage, sent(404), "allowed"),
        row("/private/x.html", Purpose::EventPage, refused, "robots.txt: disallowed"),
        // Another site's row, which the page of `salle.example` must not count.
        AuditRecord {
            site: "https://autre.example".into(),
            url: "https://autre.example/".into(),
            ..row("/", Purpose::Listing, sent(200), "allowed")
        },
    ]
}

/// `/site/{domain}` as a stranger and as the operator see it, with the desk's secrets
/// (the form token and the proof token) blanked.
async fn site_pages(d: &Desk) -> [String; 2] {
    let stranger = Request::get("/site/salle.example").body(Body::empty()).unwrap();
    let operator = Request::get("/site/salle.example")
        .header(header::AUTHORIZATION, format!("Bearer {OPERATOR}"))
        .body(Body::empty())
        .unwrap();
    let mut pages = Vec::new();
    for request in [stranger, operator] {
        let (status, _, mut body) = send(&d.app, request).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if body.contains("name=\"csrf\"") {
            body = body.replace(&token_in(&body), "CSRF");
        }
        pages.push(body.replace(&d.desk.proof_token("salle.example"), "PROOF"));
    }
    [pages.remove(0), pages.remove(0)]
}

/// What a site's owner reads on `/site/{domain}` (requests per day, purpose, status and
/// refusal, the robots.txt versions, the URL list for the operator) is the same on the
/// in-memory desk as on the store, given the same audit rows and robots.txt.
#[tokio::test]
async fn memory_and_store_show_an_owner_the_same_site_page() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_sqlite(&dir.path().join("g.db")).unwrap();
    let memory = Arc::new(MemoryDesk::new());
    let now = SystemTime::now();
    for record in salle_audit(now) {
        store.record(record.clone());
        memory.record_audit(record);
    }
    store.flush_audit().await.unwrap();
    let robots = b"User-agent: *\nDisallow: /private/\n".to_vec();
    let (site, kind, url) =
        ("https://salle.example", DocumentKind::Robots, "https://salle.example/robots.txt");
    for (body, at) in [
        (robots.clone(), now - Duration::from_secs(7200)),
        (robots, now),
        (b"User-agent: *\n".to_vec(), now),
    ] {
        let on_store = store.archive_document(site, kind, url, body.clone(), at).await.unwrap();
        assert_eq!(memory.archive_document(site, kind, url, body, at), on_store);
    }
    let on_store = Desk::over(Some(dir), Arc::new(StoreDesk::new(store)), "").await;
    let on_memory = Desk::over(None, memory, "").await;
    let [stranger, operator] = site_pages(&on_store).await;
    assert!(by_id(&stranger, "totals").starts_with("3 requests sent and 1 refused"), "{stranger}");
    assert!(operator.contains("https://salle.example/agenda/1.html"), "{operator}");
    assert!(!operator.contains("autre.example"), "{operator}");
    let [memory_stranger, memory_operator] = site_pages(&on_memory).await;
    assert_eq!(memory_stranger, stranger);
    assert_eq!(memory_operator, operator);
    // The rows behind the page, by domain and by URL prefix, newest `limit` kept.
    let scopes = [
        Scope::Domain("salle.example".into()),
        Scope::Domain("example".into()),
        Scope::Domain("autre.example".into()),
        Scope::url_prefix("https://salle.example/agenda/").unwrap(),
    ];
    for scope in &scopes {
        for limit in [1, 2, 10] {
            let on_store = on_store.rows.audit_for(scope, limit).await.unwrap();
            assert_eq!(
                on_memory.rows.audit_for(scope, limit).await.unwrap(),
                on_store,
                "{scope:?}"
            );
        }
        let on_store = on_store.rows.archive_history(scope, kind).await.unwrap();
        assert_eq!(on_memory.rows.archive_history(scope, kind).await.unwrap(), on_store);
    }
}
