//! Which reader a document needs: from its content type, then its file name, then its
//! first bytes.
//!
//! A specific content type wins (`text/calendar`, `application/rss+xml`, `text/csv`); a
//! vague one (`text/xml`, `application/xml`, `text/plain`, `application/octet-stream`, or
//! none) is settled by the file name and then by sniffing: `BEGIN:VCALENDAR`, an `<rss`,
//! `<feed` or `<rdf:RDF` root, `<urlset` or `<sitemapindex`, the gzip magic `1f 8b` (a
//! compressed sitemap). HTML is the default, as it was before feeds were read.

/// What kind of document some bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentKind {
    /// An HTML page (JSON-LD, microdata, RDFa, microformats inside).
    Html,
    /// A JSON or JSON-LD document.
    JsonLd,
    /// An RSS or Atom feed.
    Feed,
    /// An iCalendar file.
    ICalendar,
    /// A sitemap or sitemap index, possibly gzipped.
    Sitemap,
    /// CSV records.
    Csv,
}

/// Decides the kind of a document. `file_name` may be a path or a URL path.
pub fn kind_of(bytes: &[u8], content_type: &str, file_name: Option<&str>) -> DocumentKind {
    let ct = content_type.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    match ct.as_str() {
        "text/calendar" | "application/ics" | "text/x-vcalendar" => return DocumentKind::ICalendar,
        "application/rss+xml" | "application/atom+xml" | "application/rdf+xml" => {
            // A sitemap served as a feed type is still a sitemap.
            return match sniff(bytes) {
                Some(DocumentKind::Sitemap) => DocumentKind::Sitemap,
                _ => DocumentKind::Feed,
            };
        }
        "text/csv" | "application/csv" => return DocumentKind::Csv,
        "text/html" | "application/xhtml+xml" => {
            return match sniff(bytes) {
                Some(
                    k @ (DocumentKind::ICalendar | DocumentKind::Feed | DocumentKind::Sitemap),
                ) => k,
                _ => DocumentKind::Html,
            };
        }
        _ => {}
    }
    if ct.contains("json") {
        return DocumentKind::JsonLd;
    }
    if ct.contains("calendar") {
        return DocumentKind::ICalendar;
    }
    if let Some(k) = sniff(bytes) {
        return k;
    }
    let ext = file_name
        .and_then(|n| n.rsplit('/').next())
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "ics" | "ical" | "ifb" => DocumentKind::ICalendar,
        "rss" | "atom" => DocumentKind::Feed,
        "csv" => DocumentKind::Csv,
        "json" | "jsonld" => DocumentKind::JsonLd,
        "gz" => DocumentKind::Sitemap,
        _ if ct.contains("rss") || ct.contains("atom") || ct.contains("xml") => DocumentKind::Feed,
        _ => DocumentKind::Html,
    }
}

/// The kind the first bytes show, if they show one.
fn sniff(bytes: &[u8]) -> Option<DocumentKind> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Some(DocumentKind::Sitemap);
    }
    let head = &bytes[..bytes.len().min(2048)];
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start();
    if t.get(..15).is_some_and(|h| h.eq_ignore_ascii_case("BEGIN:VCALENDAR")) {
        return Some(DocumentKind::ICalendar);
    }
    if !t.starts_with('<') {
        return None;
    }
    // The first element that is not a declaration, comment or doctype.
    let mut rest = t;
    while let Some(at) = rest.find('<') {
        rest = &rest[at + 1..];
        if rest.starts_with('?') || rest.starts_with('!') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '>' && *c != '/')
            .collect::<String>()
            .to_ascii_lowercase();
        return match name.as_str() {
            "rss" | "feed" | "rdf:rdf" => Some(DocumentKind::Feed),
            "urlset" | "sitemapindex" => Some(DocumentKind::Sitemap),
            "html" => Some(DocumentKind::Html),
            _ => None,
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use DocumentKind::*;

    #[test]
    fn kinds() {
        let cases: [(&[u8], &str, Option<&str>, DocumentKind); 12] = [
            (b"<html>", "text/html", None, Html),
            (b"<html>", "", None, Html),
            (b"BEGIN:VCALENDAR\r\n", "text/plain", None, ICalendar),
            (b"BEGIN:VCALENDAR\r\n", "text/html; charset=utf-8", None, ICalendar),
            (b"x", "text/calendar; charset=utf-8", None, ICalendar),
            (b"<?xml version='1.0'?><!-- c --><rss version='2.0'>", "text/xml", None, Feed),
            (b"<feed xmlns='http://www.w3.org/2005/Atom'>", "application/xml", None, Feed),
            (b"<?xml version='1.0'?><urlset>", "application/xml", None, Sitemap),
            (b"\x1f\x8b\x08", "application/octet-stream", Some("sitemap.xml.gz"), Sitemap),
            (b"a,b\n1,2", "", Some("fuel.csv"), Csv),
            (b"{}", "application/json", None, JsonLd),
            (b"<urlset>", "application/rss+xml", None, Sitemap),
        ];
        for (bytes, ct, name, want) in cases {
            assert_eq!(kind_of(bytes, ct, name), want, "{ct} {name:?}");
        }
    }
}
