//! Signed requests (Web Bot Auth) from the sites' side: every request the test web
//! receives — robots.txt, pages, the target of a redirect — verifies with the test web's
//! own verifier (`gleaner_testweb::signatures`, a second implementation from the RFC text
//! with a different Ed25519 library) against the published key directory; a tampered
//! `@authority` fails; every signature was made as the request left, after its wait.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::{ShiftedClock, SystemClock, WallClock};
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::signing::{Signer, generate_pem};
use gleaner_fetch::{Client, ClientSettings, Gate, GateRequest};
use gleaner_policy::Purpose;
use gleaner_testweb::signatures::verify_entry;
use gleaner_testweb::{Manifest, SiteSpec, TestWeb};
use url::Url;

use crate::bounded;

const CONFIG: &str = r#"
[bot]
token = "TestBot"
version = "1.0"
info_url = "https://bot.example/about"
operator = "Tests"

[network]
allow = ["127.0.0.0/8"]

[politeness]
gap = "1s"

[identity]
key_env = "TEST_SIGNING_KEY"
"#;

fn signed_gate(pem: &str, signed: bool) -> (Gate, Option<Arc<Signer>>) {
    signed_gate_on(pem, signed, None)
}

/// Like [`signed_gate`], reaching `web` (an in-process web) on Tokio's clock, for a test
/// on paused time.
fn signed_gate_on(
    pem: &str,
    signed: bool,
    in_process: Option<&TestWeb>,
) -> (Gate, Option<Arc<Signer>>) {
    let config = if signed {
        CONFIG.to_owned()
    } else {
        CONFIG.replace("[identity]\nkey_env = \"TEST_SIGNING_KEY\"", "")
    };
    let mut settings = gleaner_config::parse(&config, "test.toml").unwrap();
    let problems =
        settings.load_identity_keys(|_| Err("no files here".into()), |_| Some(pem.to_owned()));
    assert!(problems.is_empty(), "{problems:?}");
    let client_settings = ClientSettings::from_settings(&settings);
    let signer = client_settings.signer.clone();
    let (client, clock): (Client, Arc<dyn WallClock>) = match in_process {
        Some(web) => (
            Client::with_transport(client_settings, web.transport()),
            Arc::new(ShiftedClock::from_now()),
        ),
        None => (Client::new(client_settings).unwrap(), Arc::new(SystemClock)),
    };
    let gate = Gate::new(
        client,
        Arc::new(settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        clock,
    );
    (gate, signer)
}

async fn crawl(gate: &Gate, web: &TestWeb) {
    for path in ["/events/", "/events/1.html", "/events/2.html"] {
        let url = Url::parse(&web.url(0, path)).unwrap();
        let outcome = bounded(gate.fetch(&GateRequest::new(url, Purpose::EventPage))).await;
        assert_eq!(outcome.fetched().map(|f| f.status), Some(200), "{path}: {outcome:?}");
    }
    let url = Url::parse(&web.url(0, "/redirect/other-site")).unwrap();
    let (outcome, hops) =
        bounded(gate.fetch_following(&GateRequest::new(url, Purpose::EventPage))).await;
    assert_eq!(outcome.fetched().map(|f| f.status), Some(200));
    assert_eq!(hops.len(), 1);
}

#[tokio::test]
async fn every_request_the_sites_receive_verifies_robots_txt_and_redirects_included() {
    let web = TestWeb::start(
        Manifest::new(vec![SiteSpec::default(), SiteSpec::default()]).with_token("TestBot"),
    )
    .await
    .unwrap();
    let (pem, keyid) = generate_pem().unwrap();
    let (gate, signer) = signed_gate(&pem, true);
    crawl(&gate, &web).await;
    let directory = signer.unwrap().directory(SystemTime::now());
    let ledger = web.ledger();
    let entries = &ledger.entries;
    // Both sites' robots.txt, three pages, the redirect and its target.
    assert!(entries.len() >= 7, "{} requests", entries.len());
    assert!(entries.iter().any(|e| e.site == 0 && e.path == "/robots.txt"));
    assert!(entries.iter().any(|e| e.site == 1 && e.path == "/robots.txt"));
    assert!(
        entries.iter().any(|e| e.site == 1 && e.path.starts_with("/events/")),
        "the redirect's target"
    );
    let mut nonces = std::collections::HashSet::new();
    for e in entries {
        let v = verify_entry(e, &directory, None)
            .unwrap_or_else(|err| panic!("{} {}: {err}", e.site, e.target()));
        assert_eq!(v.keyid, keyid);
        assert!(v.components.contains(&"\"@authority\"".to_owned()));
        assert!(v.components.contains(&"\"signature-agent\"".to_owned()));
        assert_eq!(e.signature_agent.as_deref(), Some("\"https://bot.example/\""));
        assert!(nonces.insert(v.nonce), "a fresh nonce per request");
        // Signed as it left (the pages waited a 1 s gap each): never expired on arrival,
        // and made within a second of it.
        let arrived = ledger.wall_time(e.at).duration_since(UNIX_EPOCH).unwrap().as_secs_f64();
        assert!((v.expires as f64) > arrived, "expired on arrival: {}", e.target());
        let lag = arrived - v.created as f64;
        assert!(lag.abs() <= 1.5, "{}: signed {lag} s before arrival", e.target());
        // Negative control: the same signature, presented for another authority, fails.
        assert!(verify_entry(e, &directory, Some("evil.example")).is_err());
    }
    // And a key the directory does not list proves nothing.
    let (other, _) = generate_pem().unwrap();
    let (_, other_signer) = signed_gate(&other, true);
    let wrong = other_signer.unwrap().directory(SystemTime::now());
    assert!(entries.iter().all(|e| verify_entry(e, &wrong, None).is_err()));
    web.shutdown().await;
}

/// On paused time: nothing here depends on when a request left. (The test above stays on
/// real time: it compares the signature's wall-clock creation with the arrival.)
#[tokio::test(start_paused = true)]
async fn without_identity_nothing_is_signed_and_the_verifier_says_so() {
    // Positive control for the verifier: an unsigned crawler fails it.
    let web = TestWeb::in_process(
        Manifest::new(vec![SiteSpec::default(), SiteSpec::default()]).with_token("TestBot"),
    );
    let (pem, _) = generate_pem().unwrap();
    let (gate, signer) = signed_gate_on(&pem, false, Some(&web));
    assert!(signer.is_none());
    crawl(&gate, &web).await;
    let (_, some) = signed_gate(&pem, true);
    let directory = some.unwrap().directory(SystemTime::now());
    let ledger = web.ledger();
    let entries = &ledger.entries;
    assert!(!entries.is_empty());
    for e in entries {
        assert!(
            e.signature.is_none() && e.signature_input.is_none() && e.signature_agent.is_none()
        );
        assert!(verify_entry(e, &directory, None).is_err());
    }
    web.shutdown().await;
}
