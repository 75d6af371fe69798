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

use crate::sql::{Row, params};
use crate::{Store, StoreError};

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

const SELECT: &str = "SELECT i.id, i.url, i.site, i.source, i.allowed, i.reason, t.reason
     FROM relay_images i LEFT JOIN relay_takedowns t ON t.url = i.url";

fn image(r: &Row) -> Result<RelayImage, StoreError> {
    Ok(RelayImage {
        id: r.get(0)?,
        url: r.get(1)?,
        site: r.get(2)?,
        source: r.get(3)?,
        allowed: r.get(4)?,
        reason: r.get(5)?,
        taken_down: r.get(6)?,
    })
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
        let (site, host) = site_and_host(url);
        let url = url.to_string();
        let id = new_relay_id(&url);
        self.db()
            .exec(
                "INSERT INTO relay_images (id, url, site, host, source, allowed, reason, created_ms, checked_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
                 ON CONFLICT (url) DO UPDATE SET source = excluded.source,
                    allowed = excluded.allowed, reason = excluded.reason,
                    checked_ms = excluded.checked_ms",
                params![id, &url, site, host, source, allowed, reason, now],
                format!("registering the image `{url}` for the relay"),
            )
            .await?;
        self.relay_image_where("i.url", &url)
            .await?
            .ok_or_else(|| StoreError::Worker(format!("the relay image `{url}` vanished")))
    }

    async fn relay_image_where(
        &self,
        column: &'static str,
        value: &str,
    ) -> Result<Option<RelayImage>, StoreError> {
        let sql = format!("{SELECT} WHERE {column} = $1");
        let row = self.db().row(&sql, params![value], format!("reading the relay image `{value}`"));
        row.await?.as_ref().map(image).transpose()
    }

    /// The image with this opaque id, if registered.
    pub async fn relay_image(&self, id: &str) -> Result<Option<RelayImage>, StoreError> {
        // Ids are 32 hex digits; anything else was never issued.
        if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        self.relay_image_where("i.id", id).await
    }

    /// The relay record of an image address, if registered.
    pub async fn relay_image_by_url(&self, url: &str) -> Result<Option<RelayImage>, StoreError> {
        self.relay_image_where("i.url", url).await
    }

    /// Every registered image (for the link check), by site.
    pub async fn relay_images(&self) -> Result<Vec<RelayImage>, StoreError> {
        let sql = format!("{SELECT} ORDER BY i.site, i.url");
        let rows = self.db().query(&sql, params![], "reading the relay images".into()).await?;
        rows.iter().map(image).collect()
    }

    /// Marks an image allowed or not (the link check re-reading terms and signals).
    pub async fn set_relay_allowed(
        &self,
        url: &str,
        allowed: bool,
        reason: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.db()
            .exec(
                "UPDATE relay_images SET allowed = $2, reason = $3, checked_ms = $4 WHERE url = $1",
                params![url, allowed, reason, now],
                format!("updating the relay image `{url}`"),
            )
            .await
            .map(drop)
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
        let why = format!("taken down: {reason}");
        let (url, reason) = (url.to_owned(), reason.to_owned());
        self.db()
            .tx(format!("taking down `{url}`"), move |tx| {
                Box::pin(async move {
                    tx.exec(
                        "INSERT INTO relay_takedowns (url, host, reason, at_ms) VALUES ($1, $2, $3, $4)
                         ON CONFLICT (url) DO NOTHING",
                        params![&url, host, reason, now],
                    )
                    .await?;
                    let n = tx
                        .exec(
                            "UPDATE relay_images SET allowed = FALSE, reason = $2, checked_ms = $3 WHERE url = $1",
                            params![&url, why, now],
                        )
                        .await?;
                    Ok(n > 0)
                })
            })
            .await
    }

    /// Every takedown, oldest first.
    pub async fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        let sql = "SELECT url, reason, at_ms FROM relay_takedowns ORDER BY at_ms, url";
        let rows = self.db().query(sql, params![], "reading the takedowns".into()).await?;
        rows.iter()
            .map(|r| Ok(Takedown { url: r.get(0)?, reason: r.get(1)?, at: r.get(2)? }))
            .collect()
    }

    /// Stores a site's rights files as just read.
    pub async fn put_site_rights(
        &self,
        site: &str,
        files: &SiteRightsFiles,
    ) -> Result<(), StoreError> {
        self.db()
            .exec(
                "INSERT INTO site_rights (site, read_ms, valid_until_ms, tdmrep, ai_txt)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (site) DO UPDATE SET read_ms = excluded.read_ms,
                    valid_until_ms = excluded.valid_until_ms, tdmrep = excluded.tdmrep,
                    ai_txt = excluded.ai_txt",
                params![
                    site,
                    files.read_at,
                    files.valid_until,
                    files.tdmrep.clone(),
                    files.ai_txt.clone()
                ],
                format!("storing the rights files of `{site}`"),
            )
            .await
            .map(drop)
    }

    /// A site's rights files as last read (valid or not: compare `valid_until`).
    pub async fn site_rights(&self, site: &str) -> Result<Option<SiteRightsFiles>, StoreError> {
        let sql = "SELECT read_ms, valid_until_ms, tdmrep, ai_txt FROM site_rights WHERE site = $1";
        let doing = format!("reading the rights files of `{site}`");
        let row = self.db().row(sql, params![site], doing).await?;
        row.map(|r| {
            Ok(SiteRightsFiles {
                read_at: r.get(0)?,
                valid_until: r.get(1)?,
                tdmrep: r.get(2)?,
                ai_txt: r.get(3)?,
            })
        })
        .transpose()
    }
}
