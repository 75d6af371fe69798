//! The owners' forms and the operator dashboard in a real headless Chromium, no
//! JavaScript on the pages: each form typed into and submitted as a person would, and
//! its visible effect — the receipt, and for the opt-out the next request to a test-web
//! site refused by the gate with the ledger unchanged (after a positive control); the
//! dashboard's login (a wrong token refused), its pages, and a pause. Screenshots go to
//! `$CARGO_TARGET_DIR/browser-artifacts/`.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_fetch::{GateOutcome, GateRequest, Refusal};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_server::{AppState, ServerOptions};
use serde_json::{Value, json};
use url::Url;

use crate::owners::{NoDns, OPERATOR, fixture};
use crate::webdriver::{Browser, browser_paths};
use crate::{Fixed, sample_events};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn find(browser: &Browser, css: &str) -> String {
    let found =
        browser.call("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
    found[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}: {found}")).to_owned()
}

/// Types `text` into the field `css` (clearing it first).
fn fill(browser: &Browser, css: &str, text: &str) {
    let id = find(browser, css);
    browser.call("POST", &format!("/element/{id}/clear"), Some(json!({})));
    browser.call("POST", &format!("/element/{id}/value"), Some(json!({ "text": text })));
}

/// Clicks `css` (a submit button: the browser submits the form and loads the answer).
fn click(browser: &Browser, css: &str) {
    let id = find(browser, css);
    browser.call("POST", &format!("/element/{id}/click"), Some(json!({})));
}

/// Waits (at most 10 s, 100 polls) until the page has `css` (a submitted form's answer
/// has loaded).
fn wait_for(browser: &Browser, css: &str) {
    wait_until(browser, &format!("document.querySelector({css:?}) !== null"));
}

/// Waits (at most 10 s, 100 polls) until the loaded page makes `condition` true.
fn wait_until(browser: &Browser, condition: &str) {
    let probe = format!("return document.readyState === 'complete' && ({condition});");
    for _ in 0..100 {
        if browser.script(&probe) == Value::Bool(true) {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{condition} never held: {}", browser.script("return document.body.innerText;"));
}

fn text(browser: &Browser, css: &str) -> String {
    let id = find(browser, css);
    browser
        .call("GET", &format!("/element/{id}/text"), None)
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn scripts(browser: &Browser) -> Value {
    browser.script("return document.querySelectorAll('script').length;")
}

#[test]
fn browser_owner_forms_and_their_visible_effect() {
    let Some((chromium, chromedriver)) = browser_paths() else { return };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let web = runtime
        .block_on(gleaner_testweb::TestWeb::start(gleaner_testweb::Manifest::uniform(
            1,
            Default::default(),
        )))
        .unwrap();
    let f = runtime.block_on(fixture("", Arc::new(NoDns)));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let server = listener.local_addr().unwrap();
    let state = AppState {
        settings: Arc::clone(&f.desk.settings),
        events: Arc::new(Fixed(sample_events())),
    };
    let desk = Arc::clone(&f.desk);
    runtime.spawn(gleaner_server::serve_with_desk(
        listener,
        state,
        ServerOptions { operator_token: Some(OPERATOR.into()) },
        desk,
        std::future::pending(),
    ));
    let page = Url::parse(&web.url(0, "/about.html")).unwrap();
    let host = page.host_str().unwrap().to_owned();
    // Positive control: the gate reaches the site before any opt-out.
    let before =
        runtime.block_on(f.gate.fetch(&GateRequest::new(page.clone(), Purpose::ManualCheck)));
    assert!(matches!(before, GateOutcome::Fetched(ref r) if r.status == 200), "{before:?}");
    assert_eq!(web.ledger().count(0, "/about.html"), 1);

    let browser = Browser::start(&chromium, &chromedriver);
    // The about page links the forms.
    browser.open(&format!("http://{server}/bot/fr"));
    click(&browser, "#owner-forms a");
    wait_for(&browser, "#opt-out");
    assert_eq!(scripts(&browser), 0);
    assert!(text(&browser, "h1").starts_with("Site owners"), "the link leads to the forms");
    browser.screenshot("owners-forms");

    // Opt out of the test-web site: the receipt, then the gate refuses the next request.
    fill(&browser, "#opt-out input[name=scope]", &host);
    fill(&browser, "#opt-out input[name=contact]", "owner@site.example");
    click(&browser, "#opt-out button");
    wait_for(&browser, "#receipt");
    let reference = text(&browser, "#reference");
    assert!(reference.starts_with("OWN-"), "{reference}");
    // Issue 26: applied at once, unverified until proven or confirmed.
    assert_eq!(text(&browser, "#status"), "unverified");
    assert_eq!(text(&browser, "#scope"), host);
    browser.screenshot("owners-opt-out-receipt");
    let after = runtime.block_on(f.gate.fetch(&GateRequest::new(page, Purpose::ManualCheck)));
    assert!(
        matches!(after, GateOutcome::Refused(Refusal::OptedOut(ref r)) if *r == reference),
        "{after:?}"
    );
    assert_eq!(web.ledger().count(0, "/about.html"), 1, "the opt-out stopped the next request");

    // Slow down, with a bad factor first (the error page, escaped), then a good one.
    browser.open(&format!("http://{server}/owners"));
    fill(&browser, "#slow-down input[name=scope]", "salle.example");
    fill(&browser, "#slow-down input[name=factor]", "7");
    click(&browser, "#slow-down button");
    wait_for(&browser, "#receipt");
    assert_eq!(text(&browser, "#kind"), "slow-down");
    let salle = Url::parse("https://salle.example/agenda/").unwrap();
    assert_eq!(runtime.block_on(f.store.owner_rules(&salle)).unwrap().slowdown, 7);

    browser.open(&format!("http://{server}/owners"));
    fill(&browser, "#facts-only input[name=scope]", "https://salle.example/agenda/");
    click(&browser, "#facts-only button");
    wait_for(&browser, "#receipt");
    // Issue 26: facts only hides data, so a stranger's waits for proof or the operator.
    assert_eq!(text(&browser, "#status"), "pending");
    assert!(!runtime.block_on(f.store.owner_rules(&salle)).unwrap().facts_only);

    // Removal: queued with the proof instructions; the DNS check says what it found.
    browser.open(&format!("http://{server}/owners"));
    fill(&browser, "#removal input[name=scope]", "salle.example");
    fill(&browser, "#removal textarea[name=message]", "<b>please</b> remove our agenda");
    click(&browser, "#removal button");
    wait_for(&browser, "#receipt");
    assert_eq!(text(&browser, "#status"), "pending");
    let token = text(&browser, "#proof-token");
    assert_eq!(token.len(), 32);
    assert!(text(&browser, "#receipt").contains("<b>please</b>"), "typed markup shown as text");
    browser.screenshot("owners-removal-pending");
    click(&browser, "#verify-dns button");
    wait_for(&browser, "#note");
    assert!(
        text(&browser, "#note").starts_with("Not proven yet: no TXT record"),
        "the DNS check ran"
    );
    assert_eq!(text(&browser, "#status"), "pending");
    browser.screenshot("owners-removal-not-proven");
    assert!(
        runtime.block_on(f.store.owner_rules(&salle)).unwrap().opted_out.is_some(),
        "the removal opted out at once (box ticked)"
    );

    // The site page, public view.
    browser.open(&format!("http://{server}/site/{host}"));
    assert!(
        text(&browser, "#totals").starts_with("2 requests sent and 1 refused"),
        "{}",
        text(&browser, "#totals")
    );
    assert_eq!(scripts(&browser), 0);
    browser.screenshot("owners-site-page");
    drop(browser);
    runtime.block_on(web.shutdown());
}

#[test]
fn browser_dashboard_login_pages_and_a_pause() {
    let Some((chromium, chromedriver)) = browser_paths() else { return };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let f = runtime.block_on(fixture("", Arc::new(NoDns)));
    // Requests to chart: two days of an event-page and listing mix on one site, one refusal.
    let now = SystemTime::now();
    for (i, purpose) in [Purpose::Listing, Purpose::EventPage, Purpose::EventPage, Purpose::Robots]
        .into_iter()
        .enumerate()
    {
        for day in 0..2u64 {
            f.store.record(AuditRecord {
                time: now - Duration::from_secs(day * 86_400 + i as u64),
                site: "https://salle.example".into(),
                url: format!("https://salle.example/p/{i}/{day}"),
                purpose,
                source: Some("salle".into()),
                outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
                error: None,
                bytes: 100,
                duration: Duration::from_millis(20),
                reason: "allowed".into(),
            });
        }
    }
    runtime.block_on(f.store.flush_audit()).unwrap();
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let dash = listener.local_addr().unwrap();
    runtime.spawn(gleaner_server::dashboard::serve(
        listener,
        Arc::clone(&f.desk),
        std::future::pending(),
    ));

    let browser = Browser::start(&chromium, &chromedriver);
    browser.open(&format!("http://{dash}/"));
    assert!(browser.script("return location.pathname;") == "/login", "signed out: the login page");
    browser.screenshot("dashboard-login");
    fill(&browser, "#login input[name=token]", "not-the-token");
    click(&browser, "#login button");
    wait_for(&browser, "#login-error");
    assert_eq!(text(&browser, "#login-error"), "That token is not the operator token.");
    browser.open(&format!("http://{dash}/login"));
    fill(&browser, "#login input[name=token]", OPERATOR);
    click(&browser, "#login button");
    wait_for(&browser, "#sources");
    assert_eq!(text(&browser, "h1"), "Sources");
    assert_eq!(text(&browser, "tr.source td"), "salle");
    let last = text(&browser, "tr.source td:nth-child(3)");
    assert!(last.ends_with("UTC (last request)"), "no run record: the log's last request: {last}");
    assert_eq!(scripts(&browser), 0);
    browser.screenshot("dashboard-sources");

    click(&browser, "tr.source[data-source=salle] button[value=pause]");
    wait_for(&browser, "tr.source[data-source=salle] button[value=resume]");
    assert_eq!(text(&browser, "tr.source[data-source=salle] td.status"), "paused");
    assert!(runtime.block_on(f.store.source_control("salle")).unwrap().paused, "stored");
    browser.screenshot("dashboard-sources-paused");
    click(&browser, "tr.source[data-source=salle] button[value=resume]");
    wait_for(&browser, "tr.source[data-source=salle] button[value=pause]");
    assert!(!runtime.block_on(f.store.source_control("salle")).unwrap().paused, "resumed");
    click(&browser, "tr.source[data-source=salle] button[value=run]");
    wait_until(
        &browser,
        "document.querySelector('tr.source td.next').textContent === 'now (requested)'",
    );
    assert!(runtime.block_on(f.store.source_control("salle")).unwrap().run_requested.is_some());

    browser.open(&format!("http://{dash}/chart"));
    let bars = browser.script("return Array.from(document.querySelectorAll('rect.bar')).map(r => Number(r.dataset.count)).reduce((a, b) => a + b, 0);");
    assert_eq!(bars, 8, "every request of the two days is drawn");
    assert_eq!(browser.script("return document.querySelectorAll('figure.chart').length;"), 1);
    browser.screenshot("dashboard-chart");

    browser.open(&format!("http://{dash}/requests"));
    assert_eq!(browser.script("return document.querySelectorAll('tr.request').length;"), 8);
    browser.screenshot("dashboard-requests");

    browser.open(&format!("http://{dash}/sites"));
    fill(&browser, "#record-override input[name=scope]", "salle.example");
    fill(&browser, "#record-override input[name=factor]", "3");
    let select = find(&browser, "#record-override select option[value=slow-down]");
    browser.call("POST", &format!("/element/{select}/click"), Some(json!({})));
    click(&browser, "#record-override button");
    wait_for(&browser, "#submissions");
    assert_eq!(text(&browser, "h1"), "Owners' requests");
    let salle = Url::parse("https://salle.example/").unwrap();
    assert_eq!(runtime.block_on(f.store.owner_rules(&salle)).unwrap().slowdown, 3);
    browser.screenshot("dashboard-submissions");
    // No way to clear a suspension anywhere on the dashboard.
    for page in ["/", "/sites", "/submissions"] {
        browser.open(&format!("http://{dash}{page}"));
        let controls = browser.script(
            "return Array.from(document.querySelectorAll('button, form')).map(e => e.tagName === 'FORM' ? e.getAttribute('action') : e.textContent).join(' ').toLowerCase();",
        );
        assert!(!controls.as_str().unwrap().contains("clear"), "{page}: {controls}");
        assert!(!controls.as_str().unwrap().contains("suspen"), "{page}: {controls}");
    }
}
