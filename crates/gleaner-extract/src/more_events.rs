//! A structured page's "more events" block: an event's page with a list of the site's
//! other events (a sidebar, a widget, a related-events strip), or a list whose plugin
//! marks up only the featured event. The fallback reads that block; its events count
//! when each links to a page of its own.

use scraper::ElementRef;
use url::Url;

use crate::Candidate;
use crate::fallback;

/// Whether a structured page may hold a "more events" block worth reading its DOM and
/// fallback for (which costs several times its structured data): it marks up dates of
/// its own in three or more `<time>` elements (as the page builders write a block's
/// items), or it links two or more pages in the folder of its own page or of a structured
/// event's page that are none of those (`/event-details/b` and `/event-details/c` on
/// `/event-details/a`). Both are byte scans of the page.
pub(crate) fn worth_reading(text: &str, base: &Url, structured: &[Candidate]) -> bool {
    if memchr::memmem::find_iter(text.as_bytes(), b"<time").nth(2).is_some() {
        return true;
    }
    let owns = Owns::of(base, structured);
    owns.folders.iter().any(|folder| owns.links_siblings(text, folder))
}

/// At most this many folders are scanned for sibling links (a page's structured events
/// mostly share one or two).
const MAX_FOLDERS: usize = 4;

/// The page's own address and its structured events' own pages (an event without a `url`
/// of its own is the page's): their paths, and the folders they sit in.
struct Owns {
    /// Each own page's path, without its trailing `/`.
    paths: std::collections::HashSet<String>,
    /// The first few distinct folders of those paths, each ending in `/` (never the
    /// site's root, which is every page's folder: no signal).
    folders: Vec<String>,
    /// The host of the page.
    host: Option<String>,
}

impl Owns {
    fn of(base: &Url, structured: &[Candidate]) -> Owns {
        let theirs = structured.iter().filter_map(|c| c.raw.url.as_deref());
        let pages =
            std::iter::once(base.clone()).chain(theirs.filter_map(|u| base.join(u.trim()).ok()));
        let (mut paths, mut folders) = (std::collections::HashSet::new(), Vec::new());
        for page in pages.filter(|u| u.host_str() == base.host_str()) {
            let path = page.path().trim_end_matches('/').to_owned();
            if let Some(cut) = path.rfind('/') {
                let folder = &path[..=cut];
                if folder != "/"
                    && folders.len() < MAX_FOLDERS
                    && !folders.iter().any(|f| f == folder)
                {
                    folders.push(folder.to_owned());
                }
            }
            paths.insert(path);
        }
        Owns { paths, folders, host: base.host_str().map(str::to_owned) }
    }

    /// Whether `path` (a link's) names a page in `folder` that is no own page nor under
    /// one (a booking `/form`), nor the folder's own index: `Some` of its name there.
    fn sibling_name<'p>(&self, folder: &str, path: &'p str) -> Option<&'p str> {
        let rest = path.strip_prefix(folder)?;
        let name = &rest[..rest.find('/').unwrap_or(rest.len())];
        let known = self.paths.contains(&format!("{folder}{name}"));
        (!name.is_empty() && !known).then_some(name)
    }

    /// Whether `text` links two or more sibling pages in `folder`, in link values only
    /// (`href="…"` or `href='…'`), not in text or scripts.
    fn links_siblings(&self, text: &str, folder: &str) -> bool {
        let mut seen: Vec<&str> = Vec::new();
        for at in memchr::memmem::find_iter(text.as_bytes(), folder.as_bytes()) {
            if !in_link(&text.as_bytes()[..at]) {
                continue;
            }
            let rest = &text[at..];
            let path =
                &rest[..rest.find(['"', '\'', '?', '#', '<', '>', ' ']).unwrap_or(rest.len())];
            let Some(name) = self.sibling_name(folder, path.trim_end_matches('/')) else {
                continue;
            };
            if !seen.contains(&name) {
                seen.push(name);
            }
            if seen.len() >= 2 {
                return true;
            }
        }
        false
    }

    /// Whether `link` is a sibling page of an own page (same host).
    fn is_sibling(&self, link: &Url) -> bool {
        let path = link.path().trim_end_matches('/');
        link.host_str() == self.host.as_deref()
            && self.folders.iter().any(|f| self.sibling_name(f, path).is_some())
    }
}

/// Whether the text before a match ends inside an `href` value (the scheme and host may
/// come between: `href="https://site.example` then the folder). Bytes, so a look-back
/// that starts inside a character is no matter.
fn in_link(before: &[u8]) -> bool {
    let tail = &before[before.len().saturating_sub(200)..];
    let Some(quote) = tail.iter().rposition(|b| matches!(b, b'"' | b'\'')) else {
        return false;
    };
    let value = &tail[quote + 1..];
    tail[..quote]
        .trim_ascii_end()
        .strip_suffix(b"=")
        .is_some_and(|t| t.trim_ascii_end().ends_with(b"href"))
        && !value.iter().any(|b| matches!(b, b'"' | b'\'' | b'<' | b'>' | b' '))
}

/// The events the fallback reads on a page whose structured data gave `structured`, that
/// each link to a page of their own (not this page, not a structured event's) and share
/// neither title nor start with a structured event; none unless it reads at least two, or
/// when two of them share a link. Read from the whole page when it marks up three or more
/// `<time>` elements, and from each block of links to a structured event's sibling pages
/// (a sidebar's or widget's list, which the whole page's reading leaves as page chrome).
pub(crate) fn others_linked(
    doc: &scraper::Html,
    text: &str,
    base: &Url,
    reference: Option<chrono::NaiveDate>,
    structured: &[Candidate],
) -> Vec<Candidate> {
    let mut read = Vec::new();
    let mut blocks = sibling_blocks(doc, base, &Owns::of(base, structured));
    if memchr::memmem::find_iter(text.as_bytes(), b"<time").nth(2).is_some() {
        blocks.extend(time_blocks(doc));
    }
    for block in blocks {
        fallback::read_linked_block(&block, reference, &mut read);
    }
    let fold = |s: &str| gleaner_event::datetext::fold_diacritics(s.trim()).to_lowercase();
    let resolve = |u: &str| {
        base.join(u.trim()).ok().map(|mut u| {
            u.set_fragment(None);
            u
        })
    };
    let titles: std::collections::HashSet<String> =
        structured.iter().filter_map(|c| c.raw.name.as_deref()).map(fold).collect();
    let starts: std::collections::HashSet<String> =
        structured.iter().filter_map(|c| c.raw.start.clone()).collect();
    let mut urls: std::collections::HashSet<Url> =
        structured.iter().filter_map(|c| c.raw.url.as_deref()).filter_map(resolve).collect();
    let mut page = base.clone();
    page.set_fragment(None);
    urls.insert(page);
    // The whole page's reading and a block's may read one item twice: once each.
    let mut once = std::collections::HashSet::new();
    read.retain(|c| {
        let key = (c.raw.url.as_deref().and_then(resolve), c.raw.start.clone());
        once.insert(key)
    });
    let kept: Vec<Candidate> = read
        .into_iter()
        .filter(|c| {
            let own = c.raw.url.as_deref().and_then(resolve);
            own.is_some_and(|u| !urls.contains(&u))
                && c.raw.name.as_deref().is_some_and(|n| !titles.contains(&fold(n)))
                && c.raw.start.as_ref().is_some_and(|s| !starts.contains(s))
        })
        .collect();
    // A list of other events links each to its own page: several read events sharing one
    // link are a show's performances or a registration form's slots, not that list.
    let mut seen: std::collections::HashMap<Url, usize> = std::collections::HashMap::new();
    for c in &kept {
        if let Some(u) = c.raw.url.as_deref().and_then(resolve) {
            *seen.entry(u).or_default() += 1;
        }
    }
    if kept.len() < 2 || seen.values().any(|n| *n > 1) {
        return Vec::new();
    }
    kept
}

/// At most this many links are looked at for sibling blocks (a bound on the cost of a
/// page of thousands of links; a "more events" block comes well within it).
const MAX_LINKS: usize = 200;

/// The smallest elements holding links to two or more sibling pages of an own page in
/// `owns` (same host, same folder, not the page itself nor its sub-pages), each made a
/// small document of its own with the page's language, `<head>` and footers (where the
/// site's place and clock are stated), so the fallback reads it as a listing.
fn sibling_blocks(doc: &scraper::Html, base: &Url, owns: &Owns) -> Vec<scraper::Html> {
    static LINKS: std::sync::LazyLock<scraper::Selector> =
        std::sync::LazyLock::new(|| scraper::Selector::parse("a[href]").expect("a selector"));
    let sibling = |href: &str| -> Option<Url> {
        let mut u = base.join(href.trim()).ok()?;
        u.set_fragment(None);
        u.set_query(None);
        owns.is_sibling(&u).then_some(u)
    };
    let links: Vec<(ElementRef, Url)> = doc
        .select(&LINKS)
        .take(MAX_LINKS * 10)
        .filter_map(|a| Some((a, sibling(a.value().attr("href")?)?)))
        .take(MAX_LINKS)
        .collect();
    sub_documents(doc, smallest_blocks(&links))
}

/// The smallest elements holding two or more `<time>` elements of a structured page (a
/// "more events" block's items, as page builders mark their dates), each made a small
/// document of its own as in [`sibling_blocks`]: reading those, not the whole page, keeps
/// a long structured page's cost near its structured data's.
fn time_blocks(doc: &scraper::Html) -> Vec<scraper::Html> {
    static TIMES: std::sync::LazyLock<scraper::Selector> =
        std::sync::LazyLock::new(|| scraper::Selector::parse("time").expect("a selector"));
    let times: Vec<(ElementRef, usize)> =
        doc.select(&TIMES).take(MAX_LINKS).enumerate().map(|(i, t)| (t, i)).collect();
    sub_documents(doc, smallest_blocks(&times))
}

/// The smallest elements (not `<body>` nor `<html>`) holding two or more distinct keys of
/// `marks` (each mark an element and its key), looked for up to 30 levels up.
fn smallest_blocks<'a, K: std::hash::Hash + Eq>(
    marks: &[(ElementRef<'a>, K)],
) -> Vec<ElementRef<'a>> {
    let mut holds = std::collections::HashMap::<_, std::collections::HashSet<&K>>::new();
    for (el, key) in marks {
        for up in el.ancestors().take(30) {
            holds.entry(up.id()).or_default().insert(key);
        }
    }
    let mut blocks: Vec<ElementRef> = Vec::new();
    for (el, _) in marks {
        let block = el
            .ancestors()
            .take(30)
            .find(|up| holds.get(&up.id()).is_some_and(|h| h.len() >= 2))
            .and_then(ElementRef::wrap);
        let Some(block) = block else { continue };
        if matches!(block.value().name(), "body" | "html") {
            continue;
        }
        if !blocks.iter().any(|b| b.id() == block.id()) {
            blocks.push(block);
        }
    }
    blocks
}

/// At most this many blocks are read, each a document with the page's head and footers
/// (a "more events" block or two per page; a page of hundreds of paired links must not
/// cost hundreds of copies of its footer).
const MAX_BLOCKS: usize = 8;

/// At most this many bytes of a `<head>`'s JSON-LD block go into a block's document (the
/// site's organisation or place, not a page of events marked up).
const MAX_HEAD_JSONLD: usize = 16 * 1024;

/// Each block made a small document with the page's language, its `<head>`'s canonical
/// link, metadata and small JSON-LD blocks (the site's place), and its footers, where the
/// site's place and clock are stated.
fn sub_documents(doc: &scraper::Html, blocks: Vec<ElementRef<'_>>) -> Vec<scraper::Html> {
    static PLACES: std::sync::LazyLock<scraper::Selector> = std::sync::LazyLock::new(|| {
        scraper::Selector::parse(
            "head link[rel=canonical], head meta, head script[type='application/ld+json'], footer",
        )
        .expect("a selector")
    });
    if blocks.is_empty() {
        return Vec::new();
    }
    let lang: String = doc
        .root_element()
        .value()
        .attr("lang")
        .unwrap_or("")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .take(20)
        .collect();
    let (mut head, mut footers) = (String::new(), String::new());
    for el in doc.select(&PLACES) {
        match el.value().name() {
            "footer" => footers.push_str(&el.html()),
            "script" if el.inner_html().len() > MAX_HEAD_JSONLD => {}
            _ => head.push_str(&el.html()),
        }
    }
    blocks
        .into_iter()
        .take(MAX_BLOCKS)
        .map(|block| {
            let html = format!(
                "<!DOCTYPE html><html lang=\"{lang}\"><head>{head}</head><body><main>{}</main>{footers}</body></html>",
                block.inner_html()
            );
            scraper::Html::parse_document(&html)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owns(page: &str, events: &[&str]) -> Owns {
        let base = Url::parse(page).unwrap();
        let structured: Vec<Candidate> = events
            .iter()
            .map(|u| Candidate {
                format: crate::Format::JsonLd,
                location: String::new(),
                raw: gleaner_event::RawEvent { url: Some((*u).to_owned()), ..Default::default() },
            })
            .collect();
        Owns::of(&base, &structured)
    }

    fn siblings(text: &str, owns: &Owns) -> bool {
        owns.folders.iter().any(|f| owns.links_siblings(text, f))
    }

    #[test]
    fn sibling_links_in_the_events_folder_are_read() {
        let page = r#"<a href="https://x.example/event-details/b-2026">B</a>
            <a href="/event-details/c-2026">C</a>"#;
        assert!(siblings(page, &owns("https://x.example/event-details/a-2026", &[])));
        let page = r#"<li><a href='https://x.example/cours/y/'>Y</a><li><a href='/cours/z/'>Z</a>"#;
        assert!(siblings(page, &owns("https://x.example/cours/x/", &[])));
        // The structured event's own page gives the folder when the page's does not.
        let page = r#"<a href="/agenda/b">B</a><a href="/agenda/c">C</a>"#;
        assert!(siblings(page, &owns("https://x.example/?p=12", &["/agenda/a"])));
    }

    #[test]
    fn own_pages_booking_forms_indexes_the_root_and_text_are_not_siblings() {
        let page = r#"<link rel="canonical" href="https://x.example/event-details/a-2026">
            <a href="https://x.example/event-details/a-2026/form">Get tickets</a>
            <a href="/event-details/">All events</a>
            <a href="/event-details/b-2026">B</a>
            <p>see /event-details/c-2026 in the text</p>
            <script>{"url":"https://x.example/event-details/d-2026"}</script>"#;
        let a = owns("https://x.example/event-details/a-2026", &[]);
        assert!(!siblings(page, &a), "one sibling link only");
        // The structured events' own pages are not others.
        let page = r#"<a href="/event-details/b-2026">B</a><a href="/event-details/c-2026">C</a>"#;
        assert!(siblings(page, &a), "positive control");
        let ab = owns("https://x.example/event-details/a-2026", &["/event-details/b-2026"]);
        assert!(!siblings(page, &ab));
        // Pages at the site's root share no folder worth the name.
        let page = r#"<a href="/b">B</a><a href="/c">C</a>"#;
        assert!(!siblings(page, &owns("https://x.example/a", &[])));
    }

    #[test]
    fn a_sidebar_of_other_events_on_an_event_page_is_read() {
        let page = r#"<html lang="fr-CH"><head><link rel="canonical" href="https://x.example/cours/a/"></head>
            <body><main><h1>Conférence A</h1><p>jeudi 19 mars 2026, 19 h 30</p></main>
            <aside><h2>Prochaines conférences</h2><ul>
            <li><span>jeu. 26 mars 2026, 19 h 30</span> · <a href="/cours/b/">Le cerveau bilingue</a></li>
            <li><span>jeu. 23 avril 2026, 19 h 30</span> · <a href="/cours/c/">Les glaciers</a></li>
            </ul></aside></body></html>"#;
        let base = Url::parse("https://x.example/cours/a/").unwrap();
        let doc = scraper::Html::parse_document(page);
        let structured = vec![Candidate {
            format: crate::Format::JsonLd,
            location: String::new(),
            raw: gleaner_event::RawEvent {
                name: Some("Conférence A".into()),
                start: Some("2026-03-19T19:30:00+01:00".into()),
                ..Default::default()
            },
        }];
        assert!(worth_reading(page, &base, &structured));
        let more = others_linked(&doc, page, &base, None, &structured);
        let names: Vec<_> = more.iter().filter_map(|c| c.raw.name.as_deref()).collect();
        assert_eq!(names, ["Le cerveau bilingue", "Les glaciers"]);
    }
}
