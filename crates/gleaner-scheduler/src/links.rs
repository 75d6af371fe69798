//! Finding the next URLs on a listing page: links to event pages (by a CSS selector or
//! a URL prefix) and the next page of the listing. Links are resolved against the page,
//! fragments dropped, duplicates removed, order kept.

use scraper::{Html, Selector};
use url::Url;

/// What a listing page links to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListingLinks {
    /// Event pages, in page order.
    pub events: Vec<Url>,
    /// The next listing page, if any.
    pub next_page: Option<Url>,
}

/// Why a selector from the config could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid CSS selector `{selector}`: {message}")]
pub struct SelectorError {
    /// The selector as written.
    pub selector: String,
    /// The parser's complaint.
    pub message: String,
}

/// Parses a CSS selector, with an error naming it.
pub fn selector(text: &str) -> Result<Selector, SelectorError> {
    Selector::parse(text)
        .map_err(|e| SelectorError { selector: text.to_owned(), message: e.to_string() })
}

fn resolve(base: &Url, href: &str) -> Option<Url> {
    let mut url = base.join(href.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    Some(url)
}

/// Reads a listing page. With `event_selector`, event links are the `href`s of the
/// matching elements; otherwise every link under `event_url_prefix` (absolute, or a path
/// on the page's own site) that is not the page itself.
pub fn listing_links(
    html: &str,
    base: &Url,
    event_selector: Option<&Selector>,
    event_url_prefix: Option<&str>,
    next_page: &Selector,
) -> ListingLinks {
    let doc = Html::parse_document(html);
    let all_links = selector("a[href]").expect("a constant selector parses");
    let prefix = event_url_prefix.and_then(|p| base.join(p).ok()).map(|u| u.to_string());
    let mut events: Vec<Url> = Vec::new();
    let candidates: Box<dyn Iterator<Item = scraper::ElementRef<'_>>> = match event_selector {
        Some(sel) => Box::new(doc.select(sel)),
        None => Box::new(doc.select(&all_links)),
    };
    for element in candidates {
        let Some(href) = element.value().attr("href") else { continue };
        let Some(url) = resolve(base, href) else { continue };
        if let Some(prefix) = &prefix
            && !url.as_str().starts_with(prefix.as_str())
        {
            continue;
        }
        if event_selector.is_none() && prefix.is_none() && url.host_str() != base.host_str() {
            continue;
        }
        if url == *base || events.contains(&url) {
            continue;
        }
        events.push(url);
    }
    let next_page = doc
        .select(next_page)
        .filter_map(|e| e.value().attr("href"))
        .filter_map(|href| resolve(base, href))
        .find(|url| url != base);
    if let Some(next) = &next_page {
        events.retain(|e| e != next);
    }
    ListingLinks { events, next_page }
}

/// The `(name, content)` pairs of a page's `<meta name=…>` tags, for robots meta,
/// `<meta name="TOKEN">` and TDMRep meta tags.
pub fn meta_tags(html: &str) -> Vec<(String, String)> {
    let doc = Html::parse_document(html);
    let meta = selector("meta[name][content]").expect("a constant selector parses");
    doc.select(&meta)
        .filter_map(|e| {
            Some((e.value().attr("name")?.to_owned(), e.value().attr("content")?.to_owned()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><head><link rel="next" href="?page=2"></head><body>
        <a href="/">home</a>
        <a class="event" href="/events/1.html#top">One</a>
        <a class="event" href="2.html">Two</a>
        <a class="event" href="/events/1.html">One again</a>
        <a href="https://other.example/events/9.html">elsewhere</a>
        <a href="mailto:x@y.example">mail</a>
        </body></html>"#;

    fn base() -> Url {
        Url::parse("http://venue.test/events/").unwrap()
    }

    #[test]
    fn selector_picks_event_links_resolved_and_deduplicated() {
        let sel = selector("a.event").unwrap();
        let next = selector("a[rel=next], link[rel=next]").unwrap();
        let links = listing_links(PAGE, &base(), Some(&sel), None, &next);
        let got: Vec<&str> = links.events.iter().map(Url::as_str).collect();
        assert_eq!(got, ["http://venue.test/events/1.html", "http://venue.test/events/2.html"]);
        assert_eq!(links.next_page.unwrap().as_str(), "http://venue.test/events/?page=2");
    }

    #[test]
    fn prefix_keeps_links_under_it() {
        let next = selector("a[rel=next]").unwrap();
        let links = listing_links(PAGE, &base(), None, Some("/events/"), &next);
        assert_eq!(links.events.len(), 2);
        assert!(links.next_page.is_none());
    }

    #[test]
    fn bad_selectors_name_themselves() {
        let err = selector("a[").unwrap_err();
        assert!(err.to_string().starts_with("invalid CSS selector `a[`"), "{err}");
    }
}
