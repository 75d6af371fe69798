//! The image relay's records and site rights files on SQLite (see `crate::relay`).

use std::time::SystemTime;

use rusqlite::{OptionalExtension, Row, params};
use url::Url;

use super::Sqlite;
use crate::codec;
use crate::error::{Doing, StoreError};
use crate::relay::{RelayImage, SiteRightsFiles, Takedown, new_relay_id, site_and_host};

const SELECT: &str = "SELECT i.id, i.url, i.site, i.source, i.allowed, i.reason, t.reason
     FROM relay_images i LEFT JOIN relay_takedowns t ON t.url = i.url";

fn image(row: &Row<'_>) -> rusqlite::Result<RelayImage> {
    Ok(RelayImage {
        id: row.get(0)?,
        url: row.get(1)?,
        site: row.get(2)?,
        source: row.get(3)?,
        allowed: row.get::<_, i64>(4)? != 0,
        reason: row.get(5)?,
        taken_down: row.get(6)?,
    })
}

impl Sqlite {
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
        let (source, reason) = (source.map(str::to_owned), reason.to_owned());
        let now = codec::to_ms(now);
        let label = url.clone();
        self.write(
            move || format!("registering the image `{label}` for the relay"),
            move |tx| {
                let doing = || format!("registering the image `{url}` for the relay");
                tx.execute(
                    "INSERT INTO relay_images (id, url, site, host, source, allowed, reason, created_ms, checked_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)
                     ON CONFLICT (url) DO UPDATE SET source = excluded.source,
                        allowed = excluded.allowed, reason = excluded.reason,
                        checked_ms = excluded.checked_ms",
                    params![id, url, site, host, source, allowed as i64, reason, now],
                )
                .doing(doing)?;
                tx.query_row(&format!("{SELECT} WHERE i.url = ?1"), [&url], image).doing(doing)
            },
        )
        .await
    }

    pub(crate) async fn relay_image_where(
        &self,
        column: &'static str,
        value: &str,
    ) -> Result<Option<RelayImage>, StoreError> {
        let value = value.to_owned();
        self.read(move |conn| {
            conn.prepare_cached(&format!("{SELECT} WHERE {column} = ?1"))
                .and_then(|mut st| st.query_row([&value], image).optional())
                .doing(|| format!("reading the relay image `{value}`"))
        })
        .await
    }

    pub(crate) async fn relay_images(&self) -> Result<Vec<RelayImage>, StoreError> {
        self.read(move |conn| {
            conn.prepare_cached(&format!("{SELECT} ORDER BY i.site, i.url"))
                .and_then(|mut st| st.query_map([], image)?.collect())
                .doing(|| "reading the relay images".to_owned())
        })
        .await
    }

    pub(crate) async fn set_relay_allowed(
        &self,
        url: &str,
        allowed: bool,
        reason: &str,
        now: SystemTime,
    ) -> Result<(), StoreError> {
        let (url, reason, now) = (url.to_owned(), reason.to_owned(), codec::to_ms(now));
        let label = url.clone();
        self.write(
            move || format!("updating the relay image `{label}`"),
            move |tx| {
                tx.execute(
                    "UPDATE relay_images SET allowed = ?2, reason = ?3, checked_ms = ?4 WHERE url = ?1",
                    params![url, allowed as i64, reason, now],
                )
                .map(|_| ())
                .doing(|| format!("updating the relay image `{url}`"))
            },
        )
        .await
    }

    pub(crate) async fn take_down(
        &self,
        url: &str,
        host: &str,
        reason: &str,
        now: SystemTime,
    ) -> Result<bool, StoreError> {
        let (url, host, reason, now) =
            (url.to_owned(), host.to_owned(), reason.to_owned(), codec::to_ms(now));
        let label = url.clone();
        self.write(
            move || format!("taking down `{label}`"),
            move |tx| {
                let doing = || format!("taking down `{url}`");
                tx.execute(
                    "INSERT INTO relay_takedowns (url, host, reason, at_ms) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT (url) DO NOTHING",
                    params![url, host, reason, now],
                )
                .doing(doing)?;
                let n = tx
                    .execute(
                        "UPDATE relay_images SET allowed = 0, reason = ?2, checked_ms = ?3 WHERE url = ?1",
                        params![url, format!("taken down: {reason}"), now],
                    )
                    .doing(doing)?;
                Ok(n > 0)
            },
        )
        .await
    }

    pub(crate) async fn takedowns(&self) -> Result<Vec<Takedown>, StoreError> {
        self.read(move |conn| {
            conn.prepare_cached(
                "SELECT url, reason, at_ms FROM relay_takedowns ORDER BY at_ms, url",
            )
            .and_then(|mut st| {
                st.query_map([], |r| {
                    Ok(Takedown {
                        url: r.get(0)?,
                        reason: r.get(1)?,
                        at: codec::from_ms(r.get(2)?),
                    })
                })?
                .collect()
            })
            .doing(|| "reading the takedowns".to_owned())
        })
        .await
    }

    pub(crate) async fn put_site_rights(
        &self,
        site: &str,
        files: &SiteRightsFiles,
    ) -> Result<(), StoreError> {
        let (site, files) = (site.to_owned(), files.clone());
        let label = site.clone();
        self.write(
            move || format!("storing the rights files of `{label}`"),
            move |tx| {
                tx.execute(
                    "INSERT INTO site_rights (site, read_ms, valid_until_ms, tdmrep, ai_txt)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (site) DO UPDATE SET read_ms = excluded.read_ms,
                        valid_until_ms = excluded.valid_until_ms, tdmrep = excluded.tdmrep,
                        ai_txt = excluded.ai_txt",
                    params![
                        site,
                        codec::to_ms(files.read_at),
                        codec::to_ms(files.valid_until),
                        files.tdmrep,
                        files.ai_txt
                    ],
                )
                .map(|_| ())
                .doing(|| format!("storing the rights files of `{site}`"))
            },
        )
        .await
    }

    pub(crate) async fn site_rights(
        &self,
        site: &str,
    ) -> Result<Option<SiteRightsFiles>, StoreError> {
        let site = site.to_owned();
        self.read(move |conn| {
            conn.query_row(
                "SELECT read_ms, valid_until_ms, tdmrep, ai_txt FROM site_rights WHERE site = ?1",
                [&site],
                |r| {
                    Ok(SiteRightsFiles {
                        read_at: codec::from_ms(r.get(0)?),
                        valid_until: codec::from_ms(r.get(1)?),
                        tdmrep: r.get(2)?,
                        ai_txt: r.get(3)?,
                    })
                },
            )
            .optional()
            .doing(|| format!("reading the rights files of `{site}`"))
        })
        .await
    }
}
