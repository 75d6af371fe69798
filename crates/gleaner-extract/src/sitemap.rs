//! Sitemaps (sitemaps.org 0.9): `urlset` and `sitemapindex`, plain or gzipped, with
//! `lastmod` (the crawler uses it later to skip unchanged pages).
//!
//! Defences against sitemap bombs, all in [`SitemapCaps`]: the gzip magic `1f 8b` is
//! checked (a `.xml.gz` served with `Content-Encoding: gzip` arrives already decoded) and
//! decompression stops at `max_bytes`; at most `max_urls` URLs are kept; a child sitemap
//! is listed only while `depth < max_depth` (the caller passes the depth of this sitemap:
//! 0 for one it was given, 1 for a child of an index, …), so an index of indexes of
//! indexes ends. Loops (an index listing itself or an ancestor) are the caller's to break
//! with the URLs it has seen; this reader drops a child equal to the sitemap's own URL.
//! URLs that are not http(s), or (per the protocol) not on the sitemap's host, are dropped
//! with a count.

use std::io::Read;

use chrono::{DateTime, FixedOffset};
use gleaner_event::EventTime;
use gleaner_event::time::parse_event_time;
use url::Url;

use crate::xml;
use crate::{Diagnostic, Format, Severity};

/// Limits on one sitemap.
#[derive(Debug, Clone)]
pub struct SitemapCaps {
    /// Most bytes read, after decompression (the protocol's limit is 50 MiB).
    pub max_bytes: usize,
    /// Most URLs kept (the protocol's limit is 50 000).
    pub max_urls: usize,
    /// How deep an index may nest: children are listed only below this depth.
    pub max_depth: u32,
    /// The depth of this sitemap (0: the one configured).
    pub depth: u32,
    /// Keep URLs on other hosts (the protocol forbids them; some CMSs serve their sitemap
    /// from a CDN host).
    pub allow_other_hosts: bool,
}

impl Default for SitemapCaps {
    fn default() -> Self {
        SitemapCaps {
            max_bytes: 50 * 1024 * 1024,
            max_urls: 50_000,
            max_depth: 3,
            depth: 0,
            allow_other_hosts: false,
        }
    }
}

/// One `<url>` (or one child `<sitemap>` of an index).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapUrl {
    /// `<loc>`, resolved and parsed.
    pub loc: Url,
    /// `<lastmod>` (W3C datetime), when readable and carrying a time or date.
    pub lastmod: Option<EventTime>,
}

impl SitemapUrl {
    /// `lastmod` as an instant (a date means its start, UTC), for "changed since" checks.
    pub fn lastmod_instant(&self) -> Option<DateTime<FixedOffset>> {
        match self.lastmod? {
            EventTime::Fixed(t) => Some(t),
            EventTime::Floating(t) => Some(t.and_utc().fixed_offset()),
            EventTime::Date(d) => Some(d.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset()),
        }
    }
}

/// What a sitemap held.
#[derive(Debug, Clone, Default)]
pub struct Sitemap {
    /// Page URLs (`urlset`).
    pub urls: Vec<SitemapUrl>,
    /// Child sitemaps (`sitemapindex`), empty at the depth cap.
    pub children: Vec<SitemapUrl>,
    /// What was cut, dropped or refused.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads a sitemap or sitemap index from its bytes (gzip or not). `base_url` is where it
/// came from. Never panics.
pub fn read(bytes: &[u8], base_url: &Url, caps: &SitemapCaps) -> Sitemap {
    let mut out = Sitemap::default();
    let plain: Vec<u8>;
    let bytes: &[u8] = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut buf = Vec::new();
        let limit = caps.max_bytes as u64 + 1;
        match flate2::read::MultiGzDecoder::new(bytes).take(limit).read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) => {
                out.diag(Severity::Error, format!("broken gzip: {e}"));
                return out;
            }
        }
        if buf.len() > caps.max_bytes {
            out.diag(
                Severity::Error,
                format!("decompressed sitemap exceeds {} bytes; not read", caps.max_bytes),
            );
            return out;
        }
        plain = buf;
        &plain
    } else if bytes.len() > caps.max_bytes {
        out.diag(Severity::Error, format!("sitemap exceeds {} bytes; not read", caps.max_bytes));
        return out;
    } else {
        bytes
    };
    let text = xml::decode(bytes);
    let (root, error) = xml::parse(&text);
    if let Some(e) = error {
        out.diag(Severity::Warning, e);
    }
    let Some(root) = root else {
        out.diag(Severity::Error, "no XML element: not a sitemap".into());
        return out;
    };
    let (entry, is_index) = match root.local().as_str() {
        "urlset" => ("url", false),
        "sitemapindex" => ("sitemap", true),
        other => {
            out.diag(
                Severity::Error,
                format!("root element `{other}` is not urlset or sitemapindex"),
            );
            return out;
        }
    };
    if is_index && caps.depth >= caps.max_depth {
        out.diag(
            Severity::Warning,
            format!("sitemap index at depth {} not followed (cap {})", caps.depth, caps.max_depth),
        );
        return out;
    }
    let (mut bad, mut foreign, mut over) = (0usize, 0usize, 0usize);
    for e in root.children.iter().filter(|e| e.local() == entry) {
        let Some(loc) = e.child_text("loc") else {
            bad += 1;
            continue;
        };
        let Some(url) = base_url.join(&loc).ok().filter(|u| matches!(u.scheme(), "http" | "https"))
        else {
            bad += 1;
            continue;
        };
        if !caps.allow_other_hosts && url.host_str() != base_url.host_str() {
            foreign += 1;
            continue;
        }
        if is_index && url == *base_url {
            continue;
        }
        let list = if is_index { &mut out.children } else { &mut out.urls };
        if list.len() >= caps.max_urls {
            over += 1;
            continue;
        }
        let lastmod = e.child_text("lastmod").and_then(|t| parse_event_time(&t));
        list.push(SitemapUrl { loc: url, lastmod });
    }
    if bad > 0 {
        out.diag(
            Severity::Warning,
            format!("dropped {bad} entries without a usable http(s) `loc`"),
        );
    }
    if foreign > 0 {
        out.diag(
            Severity::Warning,
            format!("dropped {foreign} URLs on other hosts than the sitemap's"),
        );
    }
    if over > 0 {
        out.diag(
            Severity::Warning,
            format!("dropped {over} URLs beyond the cap of {}", caps.max_urls),
        );
    }
    out
}

impl Sitemap {
    fn diag(&mut self, severity: Severity, message: String) {
        self.diagnostics.push(Diagnostic {
            severity,
            format: Format::Sitemap,
            message,
            location: String::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn base() -> Url {
        Url::parse("https://city.example/sitemap.xml").unwrap()
    }

    #[test]
    fn urlset_with_lastmod_and_entities() {
        let xml = br#"<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
          <url><loc>https://city.example/e?a=1&amp;b=2</loc><lastmod>2026-11-01T10:00:00+01:00</lastmod></url>
          <url><loc>/relative</loc><lastmod>2026-11-02</lastmod></url>
          <url><loc>https://other.example/x</loc></url>
          <url><loc>javascript:alert(1)</loc></url>
        </urlset>"#;
        let m = read(xml, &base(), &SitemapCaps::default());
        let locs: Vec<&str> = m.urls.iter().map(|u| u.loc.as_str()).collect();
        assert_eq!(locs, ["https://city.example/e?a=1&b=2", "https://city.example/relative"]);
        assert_eq!(m.urls[1].lastmod.map(|t| t.to_iso()).as_deref(), Some("2026-11-02"));
        assert_eq!(m.diagnostics.len(), 2, "{:?}", m.diagnostics);
    }

    #[test]
    fn gzip_index_and_caps() {
        let xml = br#"<sitemapindex><sitemap><loc>https://city.example/a.xml.gz</loc></sitemap><sitemap><loc>https://city.example/sitemap.xml</loc></sitemap></sitemapindex>"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(xml).unwrap();
        let gz = gz.finish().unwrap();
        let m = read(&gz, &base(), &SitemapCaps::default());
        assert_eq!(m.children.len(), 1);
        let deep = read(&gz, &base(), &SitemapCaps { depth: 3, ..SitemapCaps::default() });
        assert!(deep.children.is_empty());
        // A bomb: far more zeros than the cap.
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(&vec![b' '; 2 * 1024 * 1024]).unwrap();
        let bomb = gz.finish().unwrap();
        let m =
            read(&bomb, &base(), &SitemapCaps { max_bytes: 1024 * 1024, ..SitemapCaps::default() });
        assert!(m.urls.is_empty() && m.diagnostics[0].severity == Severity::Error);
    }
}
