//! The client's seam (`Transport`): the in-process test web answers what the socket web
//! answers, and sees what it sees, so a test moved to paused time proves the same thing;
//! the address guard runs before any transport is called.

use std::time::Duration;

use gleaner_fetch::{
    AddressPolicy, Client, FetchError, FetchRequest, Fetched, SsrfRefusal, Validators,
};
use gleaner_testweb::{LedgerEntry, Manifest, SiteSpec, TestWeb};
use url::Url;

use crate::{UA, bounded, settings};

const PATHS: &[&str] = &[
    "/robots.txt",
    "/events/",
    "/events/?page=2",
    "/events/1.html",
    "/events/0.html",
    "/redirect/chain/2",
    "/redirect/other-site",
    "/status/429?retry_after=7",
    "/status/410",
    "/huge",
    "/lying-length",
];

/// What a fetch says, without what differs between two webs (ports, times).
fn summary(web: &TestWeb, result: &Result<Fetched, FetchError>) -> String {
    let text = match result {
        Ok(f) => {
            let mut headers: Vec<_> = f
                .headers
                .iter()
                .filter(|(n, _)| !matches!(n.as_str(), "date" | "content-length"))
                .map(|(n, v)| format!("{n}: {v}"))
                .collect();
            headers.sort();
            // The body itself (it may name a site, hence a port), or its size when large.
            let body = match f.body.len() {
                n if n > 4096 => format!("{n} bytes"),
                _ => String::from_utf8_lossy(&f.body).into_owned(),
            };
            format!("{} {headers:?} {body:?} {:?}", f.status, f.validators)
        }
        Err(FetchError::TooLarge { limit, .. }) => format!("too large {limit}"),
        Err(e) => format!("error {}", e.is_retryable()),
    };
    text.replace(&web.authority(1), "SITE1").replace(&web.authority(0), "SITE0")
}

/// A ledger entry without its times, connection and port.
fn seen(web: &TestWeb, e: &LedgerEntry) -> String {
    let host = e.host.clone().unwrap_or_default().replace(&web.authority(0), "SITE0");
    format!(
        "{} {} {host} {:?} {:?} {} {:?} {:?} {:?} {:?}",
        e.method,
        e.target(),
        e.user_agent,
        e.if_none_match,
        e.status,
        e.served,
        e.retry_after,
        e.cookie,
        e.referer
    )
}

async fn crawl(web: &TestWeb, client: &Client) -> Vec<String> {
    let mut said = Vec::new();
    for path in PATHS {
        let url = Url::parse(&web.url(0, path)).unwrap();
        let mut request = FetchRequest::get(url);
        request.max_body_bytes = Some(4 * 1024 * 1024);
        let first = bounded(client.fetch(&request)).await;
        said.push(summary(web, &first));
        if let Ok(f) = &first
            && !f.validators.is_empty()
        {
            let again = request.clone().with_validators(f.validators.clone());
            said.push(summary(web, &bounded(client.fetch(&again)).await));
        }
    }
    said
}

fn manifest() -> Manifest {
    Manifest::uniform(2, SiteSpec { events: 3, ..SiteSpec::default() }).with_token("TestBot")
}

#[tokio::test]
async fn the_in_process_web_answers_and_records_what_the_socket_web_does() {
    let sockets = TestWeb::start(manifest()).await.unwrap();
    let over_sockets = crawl(&sockets, &Client::new(settings()).unwrap()).await;
    let in_process = TestWeb::in_process(manifest());
    let client = Client::with_transport(settings(), in_process.transport());
    let in_memory = crawl(&in_process, &client).await;
    // Positive control: the crawl saw pages, validators, a 304, redirects and errors.
    let joined = over_sockets.join("\n");
    for want in ["200 ", "304 ", "302 ", "429 ", "410 ", "too large", "error true"] {
        assert!(joined.contains(want), "{want} in\n{joined}");
    }
    assert_eq!(over_sockets, in_memory, "the same answers, in order");
    let ledger = |web: &TestWeb| web.ledger().iter().map(|e| seen(web, e)).collect::<Vec<_>>();
    assert_eq!(ledger(&sockets), ledger(&in_process), "the sites saw the same requests");
    assert!(in_process.ledger().iter().all(|e| e.user_agent.as_deref() == Some(UA)));
    sockets.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn the_address_guard_runs_before_the_transport() {
    let web = TestWeb::in_process(manifest());
    let mut refusing = settings();
    refusing.address_policy = AddressPolicy::public_only();
    let client = Client::with_transport(refusing, web.transport());
    let url = Url::parse(&web.url(0, "/events/1.html")).unwrap();
    let result = bounded(client.fetch(&FetchRequest::get(url.clone()))).await;
    assert!(matches!(&result, Err(FetchError::Refused(SsrfRefusal { .. }))), "{result:?}");
    assert!(result.unwrap_err().to_string().contains("loopback"));
    assert!(web.ledger().is_empty(), "nothing reached the site");
    // Positive control: the same request with loopback allowed reaches the site.
    let client = Client::with_transport(settings(), web.transport());
    let fetched = bounded(client.fetch(&FetchRequest::get(url))).await.unwrap();
    assert_eq!(fetched.status, 200);
    assert_eq!(web.ledger().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn the_deadline_holds_on_paused_time_in_process() {
    let web = TestWeb::in_process(manifest());
    let client = Client::with_transport(settings(), web.transport());
    let url = Url::parse(&web.url(0, "/slow/first-byte")).unwrap();
    let started = tokio::time::Instant::now();
    let result = bounded(client.fetch(&FetchRequest::get(url))).await;
    assert!(matches!(result, Err(FetchError::Timeout { .. })), "{result:?}");
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(2) && waited < Duration::from_secs(3), "{waited:?}");
    let ledger = web.ledger();
    assert_eq!(ledger.len(), 1, "the site saw the request");
    // Positive control: a page answers within the deadline.
    let page = Url::parse(&web.url(0, "/events/1.html")).unwrap();
    let fetched = bounded(client.fetch(&FetchRequest::get(page))).await.unwrap();
    assert_eq!((fetched.status, fetched.validators == Validators::default()), (200, false));
}
