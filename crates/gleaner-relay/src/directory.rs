//! Where the relay learns which ids exist and whether they may be delivered now: the
//! store (ids, the link check's verdict, takedowns, removals), read on every delivery so
//! that a takedown made by any process applies at once.

use std::collections::HashSet;

use gleaner_policy::state::BoxFuture;
use gleaner_store::Store;
use url::Url;

/// An image behind an id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayTarget {
    /// Its address at its site.
    pub url: Url,
    /// Whether it may be delivered now (allowed by terms and signals, not taken down).
    pub deliverable: bool,
}

/// The relay's view of the store.
pub trait RelayDirectory: Send + Sync + std::fmt::Debug {
    /// The image registered under `id`, if any.
    fn lookup<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RelayTarget>, String>>;

    /// Of `urls`, those that may still be delivered.
    fn deliverable_urls<'a>(
        &'a self,
        urls: &'a [String],
    ) -> BoxFuture<'a, Result<HashSet<String>, String>>;
}

impl RelayDirectory for Store {
    fn lookup<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<RelayTarget>, String>> {
        Box::pin(async move {
            let Some(image) = self.relay_image(id).await.map_err(|e| e.to_string())? else {
                return Ok(None);
            };
            // A stored address that no longer parses is never fetched.
            Ok(Url::parse(&image.url)
                .ok()
                .map(|url| RelayTarget { url, deliverable: image.deliverable() }))
        })
    }

    fn deliverable_urls<'a>(
        &'a self,
        urls: &'a [String],
    ) -> BoxFuture<'a, Result<HashSet<String>, String>> {
        Box::pin(async move {
            let mut out = HashSet::new();
            for url in urls {
                if let Some(image) =
                    self.relay_image_by_url(url).await.map_err(|e| e.to_string())?
                    && image.deliverable()
                {
                    out.insert(url.clone());
                }
            }
            Ok(out)
        })
    }
}
