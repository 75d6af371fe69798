//! Sitemaps (sitemaps.org 0.9): per venue a sitemap index (`/sitemap_index.xml`) naming a
//! plain sitemap of the listing and event pages (`/sitemap.xml`) and a gzip sitemap of the
//! other pages (`/sitemap-pages.xml.gz`).

use std::fmt::Write as _;
use std::io::Write as _;

use chrono::{DateTime, Utc};

use crate::city::Origins;
use crate::events::Event;
use crate::pages::esc;
use crate::venues::Site;

const NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";

/// The sitemap index of a venue.
pub(crate) fn index(origins: &Origins, site: usize, lastmod: DateTime<Utc>) -> String {
    let mut out =
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"{NS}\">\n");
    for path in ["/sitemap.xml", "/sitemap-pages.xml.gz"] {
        let _ = writeln!(
            out,
            "<sitemap><loc>{}</loc><lastmod>{}</lastmod></sitemap>",
            esc(&origins.url(site, path)),
            lastmod.format("%Y-%m-%d")
        );
    }
    out.push_str("</sitemapindex>\n");
    out
}

fn urlset(urls: &[(String, Option<String>)]) -> String {
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"{NS}\">\n");
    for (loc, lastmod) in urls {
        let lastmod =
            lastmod.as_ref().map(|l| format!("<lastmod>{l}</lastmod>")).unwrap_or_default();
        let _ = writeln!(
            out,
            "<url><loc>{}</loc>{lastmod}<changefreq>daily</changefreq></url>",
            esc(loc)
        );
    }
    out.push_str("</urlset>\n");
    out
}

/// The plain sitemap: the listing and every event page listed at this pass.
pub(crate) fn events(
    origins: &Origins,
    index: usize,
    site: &Site,
    events: &[Event],
    lastmod: DateTime<Utc>,
) -> String {
    let day = lastmod.format("%Y-%m-%d").to_string();
    let mut urls = vec![(origins.url(index, site.lang.listing_path()), Some(day.clone()))];
    urls.extend(events.iter().map(|e| (origins.url(index, &e.path), Some(day.clone()))));
    urlset(&urls)
}

/// The gzip sitemap of the other pages (home and terms), compressed deterministically.
pub(crate) fn pages_gz(origins: &Origins, index: usize) -> Vec<u8> {
    let xml = urlset(&[(origins.url(index, "/"), None), (origins.url(index, "/terms.html"), None)]);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to a Vec cannot fail.
    let _ = gz.write_all(xml.as_bytes());
    gz.finish().unwrap_or_default()
}
