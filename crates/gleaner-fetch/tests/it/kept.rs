//! Idle connections the client leaves open (issue 27), judged from the sites' side by
//! the test web's connection numbers: `close_after` closes a connection after its
//! answer, and past `max_idle` kept connections another site's is closed too.

use gleaner_fetch::{Client, ClientSettings, FetchRequest};
use url::Url;

use crate::{bounded, settings, web};

/// Fetches `/about.html` from `site` and returns the test web's connection number.
async fn conn_of(web: &gleaner_testweb::TestWeb, client: &Client, site: usize, close: bool) -> u64 {
    let url = Url::parse(&web.url(site, "/about.html")).unwrap();
    let request = FetchRequest { close_after: close, ..FetchRequest::get(url) };
    assert_eq!(bounded(client.fetch(&request)).await.unwrap().status, 200);
    let ledger = web.ledger();
    ledger.iter().rfind(|e| e.site == site).map(|e| e.conn).expect("the site saw it")
}

#[tokio::test]
async fn close_after_closes_the_connection_and_without_it_the_next_request_reuses_it() {
    let web = web(1).await;
    let client = Client::new(settings()).unwrap();
    let first = conn_of(&web, &client, 0, false).await;
    assert_eq!(conn_of(&web, &client, 0, true).await, first, "kept: the same connection");
    assert_ne!(conn_of(&web, &client, 0, false).await, first, "closed after the last answer");
}

#[tokio::test]
async fn past_max_idle_another_site_s_connection_is_closed_after_its_answer() {
    let web = web(2).await;
    let client = Client::new(ClientSettings { max_idle: Some(1), ..settings() }).unwrap();
    let a = conn_of(&web, &client, 0, false).await;
    let b = conn_of(&web, &client, 1, false).await;
    // Site 1 found the one idle slot taken by site 0: its connection was closed.
    assert_ne!(conn_of(&web, &client, 1, false).await, b, "site 1 connects anew");
    assert_eq!(conn_of(&web, &client, 0, false).await, a, "site 0's connection was kept");
}
