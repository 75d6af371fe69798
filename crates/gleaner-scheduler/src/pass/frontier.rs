//! The frontier of one site inside a pass, and the URLs the whole pass has seen.
//!
//! A pass over a source with many sites keeps one frontier per site: a site's crawl
//! pops only its own URLs, and a URL found on it that belongs to another site (a
//! sitemap index naming other hosts, a listing linking elsewhere) is set aside in
//! `elsewhere` for that site's crawl.

use std::collections::{HashSet, VecDeque};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use url::Url;

use super::Step;

/// The URLs queued in one pass so far, over all its sites (each is asked once a pass).
#[derive(Debug, Default)]
pub(super) struct Seen(Mutex<HashSet<Url>>);

impl Seen {
    /// Records `url`; false when it was seen before.
    pub(super) fn insert(&self, url: Url) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).insert(url)
    }
}

/// Due work at one site, in order, plus what was found for other sites.
#[derive(Debug)]
pub(super) struct SiteFrontier {
    /// The site's key ([`gleaner_fetch::site_key`]).
    pub(super) site: String,
    queue: VecDeque<(Url, Step)>,
    /// URLs of other sites found here, for their own crawls.
    pub(super) elsewhere: Vec<(Url, Step)>,
    /// Requests queued over the whole pass and not yet taken (for progress).
    outstanding: Arc<AtomicU32>,
}

impl SiteFrontier {
    /// A frontier for `site` starting with `items` (already counted as outstanding).
    pub(super) fn new(
        site: String,
        items: impl IntoIterator<Item = (Url, Step)>,
        outstanding: Arc<AtomicU32>,
    ) -> SiteFrontier {
        SiteFrontier {
            site,
            queue: items.into_iter().collect(),
            elsewhere: Vec::new(),
            outstanding,
        }
    }

    fn is_here(&self, url: &Url) -> bool {
        gleaner_fetch::site_key(url) == self.site
    }

    /// Queues `item` last (or sets it aside when it is another site's).
    pub(super) fn push_back(&mut self, item: (Url, Step)) {
        self.outstanding.fetch_add(1, Ordering::Relaxed);
        if self.is_here(&item.0) {
            self.queue.push_back(item);
        } else {
            self.elsewhere.push(item);
        }
    }

    /// Queues `item` first (or sets it aside when it is another site's).
    pub(super) fn push_front(&mut self, item: (Url, Step)) {
        self.outstanding.fetch_add(1, Ordering::Relaxed);
        if self.is_here(&item.0) {
            self.queue.push_front(item);
        } else {
            self.elsewhere.push(item);
        }
    }

    /// Queues `item`, a URL of this site set aside by another site's crawl (already
    /// counted as outstanding there).
    pub(super) fn adopt(&mut self, item: (Url, Step)) {
        self.queue.push_back(item);
    }

    /// Takes the next request of this site.
    pub(super) fn pop_front(&mut self) -> Option<(Url, Step)> {
        let item = self.queue.pop_front();
        if item.is_some() {
            self.uncount(1);
        }
        item
    }

    /// Requests queued at this site.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Keeps only the requests of this site for which `keep` holds.
    pub(super) fn retain(&mut self, keep: impl FnMut(&(Url, Step)) -> bool) {
        let before = self.queue.len();
        self.queue.retain(keep);
        self.uncount(before - self.queue.len());
    }

    /// Forgets everything still queued here (the site's crawl ended), for progress.
    pub(super) fn abandon(&mut self) {
        self.uncount(self.queue.len());
        self.queue.clear();
    }

    fn uncount(&self, n: usize) {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let _ = self
            .outstanding
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| Some(v.saturating_sub(n)));
    }
}
