//! The image relay's records and site rights files on PostgreSQL (see `crate::relay`).

use std::time::SystemTime;

use tokio_postgres::Row;
use url::Url;

use super::Postgres;
use crate::codec;
use crate::error::StoreError;
use crate::relay::{RelayImage, SiteRightsFiles, Takedown, new_relay_id, site_and_host};

const SELECT: &str = "SELECT i.id, i.url, i.site, i.source, i.allowed, i.reason, t.reason
     FROM relay_images i LEFT JOIN relay_takedowns t ON t.url = i.url";

fn image(row: &Row) -> RelayImage {
    RelayImage {
        id: row.get(0),
        url: row.get(1),
        site: row.get(2),
        source: row.get(3),
        allowed: row.get(4),
        reason: row.get(5),
        taken_down: row.get(6),
    }
}

impl Postgres {
    pub(crate) async fn register_relay_image(
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
        let now = codec::to_ms(now);
        self.exec(
            "INSERT INTO relay_images (id, url, site, host, source, allowed, reason, created_ms, checked_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
             ON CONFLICT (url) DO UPDATE SET source = excluded.source,
                allowed = excluded.allowed, reason = excluded.reason,
                checked_ms = excluded.checked_ms",
            &[&id, &url, &site, &host, &source, &allowed, &reason, &now],
            || format!("registering the image `{url}` for the relay"),
        )
        .await?;
        self.relay_image_where("i.url", &url)
            .await?
            .ok_or_else(|| StoreError::Worker(format!("the relay image `{url}` vanished")))
    }

    pub(crate) async fn relay_image_where(
        &self,
        column: &'static str,
        value: &str,
    ) -> Result<Option<RelayImage>, StoreError> {
        Ok(self
            .row(&format!("{SELECT} WHERE {column} = $1"), &[&value], || {
                format!("reading the relay image `{value}`")
            })
            .await?
            .map(|r| image(&r)))
    }

    pub(crate) async fn relay_images(&self) -> Result<Vec<RelayImage>, StoreError> {
        Ok(self
            .rows(&format!("{SELECT} ORDER BY i.site, i.url"), &[], || {
                "reading the relay images".to_owned()
            })
            .await?
            .iter()
            .map(image)
            .collect())
    }

    pub(crate) async fn set_relay_allowed(
        &self,
        url: &str,
        allowed: bool,
        reason: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        self.exec(
            "UPDATE relay_images SET allowed = $2, reason = $3, checked_ms = $4 WHERE url = $1",
            &[&url, &allowed, &reason, &codec::to_ms(now)],
            || format!("updating the relay image `{url}`"),
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn take_down(
        &self,
        url: &str,
        host: &str,
        reason: &str,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let now = codec::to_ms(now);
        self.exec(
            "INSERT INTO relay_takedowns (url, host, reason, at_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (url) DO NOTHING",
            &[&url, &host, &reason, &now],
            || format!("taking down `{url}`"),
        )
        .await?;
        let why = format!("taken down: {reason}");
        let n = self
            .exec(
                "UPDATE relay_images SET allowed = false, reason = $2, checked_ms = $3 WHERE url = $1",
                &[&url, &why, &now],
                || format!("taking down `{url}`"),
            )
            .await?;
        Ok(n > 0)
    }

    pub(crate) async fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        Ok(self
            .rows("SELECT url, reason, at_ms FROM relay_takedowns ORDER BY at_ms, url", &[], || {
                "reading the takedowns".to_owned()
            })
            .await?
            .iter()
            .map(|r| Takedown { url: r.get(0), reason: r.get(1), at: codec::from_ms(r.get(2)) })
            .collect())
    }

    pub(crate) async fn put_site_rights(
        &self,
        site: &str,
        files: &SiteRightsFiles,
    ) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO site_rights (site, read_ms, valid_until_ms, tdmrep, ai_txt)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (site) DO UPDATE SET read_ms = excluded.read_ms,
                valid_until_ms = excluded.valid_until_ms, tdmrep = excluded.tdmrep,
                ai_txt = excluded.ai_txt",
            &[
                &site,
                &codec::to_ms(files.read_at),
                &codec::to_ms(files.valid_until),
                &files.tdmrep,
                &files.ai_txt,
            ],
            || format!("storing the rights files of `{site}`"),
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn site_rights(
        &self,
        site: &str,
    ) -> Result<Option<SiteRightsFiles>, StoreError> {
        Ok(self
            .row(
                "SELECT read_ms, valid_until_ms, tdmrep, ai_txt FROM site_rights WHERE site = $1",
                &[&site],
                || format!("reading the rights files of `{site}`"),
            )
            .await?
            .map(|r| SiteRightsFiles {
                read_at: codec::from_ms(r.get(0)),
                valid_until: codec::from_ms(r.get(1)),
                tdmrep: r.get(2),
                ai_txt: r.get(3),
            }))
    }
}
