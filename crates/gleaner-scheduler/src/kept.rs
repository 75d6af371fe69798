//! The store side of the requests a pass keeps for its source's next pass (issue 25,
//! [`crate::retries`]): what [`crate::store_sink::StoreSink`] does for
//! [`crate::sink::EventSink::keep_for_next_pass`] and its two companions. A store that
//! cannot be written is logged; the request is then asked again only when the next
//! pass finds it on its listing.
// A failed write is reported and the pass goes on: stderr is the crawler's log.
#![allow(clippy::print_stderr)]

use std::time::SystemTime;

use gleaner_policy::Purpose;
use gleaner_store::Store;
use url::Url;

/// Keeps `url` for the next pass of `source` (one committed statement).
pub(crate) async fn keep(store: &Store, source: &str, url: &Url, purpose: Purpose) {
    if let Err(error) = store.keep_request(source, url, purpose, SystemTime::now()).await {
        eprintln!("warning: failed to keep `{url}` for the next pass of `{source}`: {error}");
    }
}

/// The URLs kept for the next pass of `source`, oldest first.
pub(crate) async fn kept(store: &Store, source: &str) -> Vec<(Url, Purpose)> {
    match store.kept_requests(source).await {
        Ok(kept) => kept.into_iter().map(|k| (k.url, k.purpose)).collect(),
        Err(error) => {
            eprintln!("warning: failed to read the requests kept for `{source}`: {error}");
            Vec::new()
        }
    }
}

/// `url` was asked again: no longer kept.
pub(crate) async fn asked_again(store: &Store, source: &str, url: &Url) {
    if let Err(error) = store.forget_kept_request(source, url).await {
        eprintln!("warning: failed to forget the kept request `{url}` of `{source}`: {error}");
    }
}
