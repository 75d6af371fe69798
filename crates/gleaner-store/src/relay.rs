//! The image relay's records and a site's rights files (issue 16): which images may be
//! relayed under which opaque id, takedowns, and the rights files read per site.
//!
//! Relay ids are keyed hashes (a per-process random key over the URL, the time and a
//! counter), stored with the image's URL: the public `/relay/{id}` never carries a URL,
//! and an id that was never registered relays nothing. A takedown is a row of its own,
//! kept when the image's row goes, so a taken-down image is never registered again.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

use url::Url;

use crate::{Backend, Store, StoreError};

/// An image the relay knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayImage {
    /// The opaque id (`/relay/{id}`).
    pub id: String,
    /// The image's address at its site.
    pub url: String,
    /// Its site (the budget key: scheme, host and port).
    pub site: String,
    /// The configured source whose event shows it.
    pub source: Option<String>,
    /// Whether the source's image terms and the site's signals allow relaying it, as
    /// last decided.
    pub allowed: bool,
    /// Why (the terms or the signal that decided).
    pub reason: String,
    /// The takedown's reason, when it was taken down (never relayed again).
    pub taken_down: Option<String>,
}

impl RelayImage {
    /// May the relay deliver it now?
    pub fn deliverable(&self) -> bool {
        self.allowed && self.taken_down.is_none()
    }
}

/// One takedown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Takedown {
    /// The image address taken down.
    pub url: String,
    /// Why (free text from the operator, the dashboard or the removal flow).
    pub reason: String,
    /// When.
    pub at: SystemTime,
}

/// A site's rights files as last read (`None`: the file was missing or unreadable).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRightsFiles {
    /// When they were read.
    pub read_at: SystemTime,
    /// Trusted until then (`[rights] files_ttl`).
    pub valid_until: SystemTime,
    /// `/.well-known/tdmrep.json`.
    pub tdmrep: Option<Vec<u8>>,
    /// `/ai.txt`.
    pub ai_txt: Option<Vec<u8>>,
}

/// A fresh opaque id: a keyed hash with a per-process random key (std's `RandomState`
/// is seeded from the operating system), 128 bits in hex.
pub(crate) fn new_relay_id(url: &str) -> String {
    static KEYS: OnceLock<(RandomState, RandomState)> = OnceLock::new();
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (a, b) = KEYS.get_or_init(|| (RandomState::new(), RandomState::new()));
    let nanos =
        SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let hash = |s: &RandomState| {
        let mut h = s.build_hasher();
        h.write(url.as_bytes());
        h.write_u128(nanos);
        h.write_u64(n);
        h.finish()
    };
    format!("{:016x}{:016x}", hash(a), hash(b))
}

/// The site (origin) and lower-case host of an image URL.
pub(crate) fn site_and_host(url: &Url) -> (String, String) {
    (url.origin().ascii_serialization(), url.host_str().unwrap_or_default().to_ascii_lowercase())
}

impl Store {
    /// Registers an image for the relay, or updates whether it is allowed; returns its
    /// record with the id (the same id every time for one URL).
    pub async fn register_relay_image(
        &self,
        url: &Url,
        source: Option<&str>,
        allowed: bool,
        reason: &str,
        now: SystemTime,
    ) -> Result<RelayImage, StoreError> {
        dispatch!(self, db => db.register_relay_image(url, source, allowed, reason, now).await)
    }

    /// The image with this opaque id, if registered.
    pub async fn relay_image(&self, id: &str) -> Result<Option<RelayImage>, StoreError> {
        // Ids are 32 hex digits; anything else was never issued.
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        dispatch!(self, db => db.relay_image_where("i.id", id).await)
    }

    /// The relay record of an image address, if registered.
    pub async fn relay_image_by_url(&self, url: &str) -> Result<Option<RelayImage>, StoreError> {
        dispatch!(self, db => db.relay_image_where("i.url", url).await)
    }

    /// Every registered image (for the link check), by site.
    pub async fn relay_images(&self) -> Result<Vec<RelayImage>, StoreError> {
        dispatch!(self, db => db.relay_images().await)
    }

    /// Marks an image allowed or not (the link check re-reading terms and signals).
    pub async fn set_relay_allowed(
        &self,
        url: &str,
        allowed: bool,
        reason: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        dispatch!(self, db => db.set_relay_allowed(url, allowed, reason, now).await)
    }

    /// Takes an image down: it is never relayed again, in any process (every delivery
    /// reads this). Returns true when the address was registered for the relay.
    pub async fn take_down(
        &self,
        url: &str,
        reason: &str,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let parsed = Url::parse(url).ok();
        let host = parsed.as_ref().map(|u| site_and_host(u).1).unwrap_or_default();
        dispatch!(self, db => db.take_down(url, &host, reason, now).await)
    }

    /// Every takedown, oldest first.
    pub async fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        dispatch!(self, db => db.takedowns().await)
    }

    /// Stores a site's rights files as just read.
    pub async fn put_site_rights(
        &self,
        site: &str,
        files: &SiteRightsFiles,
    ) -> Result<(), StoreError> {
        dispatch!(self, db => db.put_site_rights(site, files).await)
    }

    /// A site's rights files as last read (valid or not: compare `valid_until`).
    pub async fn site_rights(&self, site: &str) -> Result<Option<SiteRightsFiles>, StoreError> {
        dispatch!(self, db => db.site_rights(site).await)
    }
}
