//! A post of headed sections (issue 24, batch 170–189): a club's or society's article
//! that announces several events, each under its own `<h2>`/`<h3>` and dated in the
//! paragraphs after it (`<h3>Kostümsitzung</h3><p><strong>Sa., 30.01.2027, 19.11
//! Uhr</strong> …</p>`). Its sections are rewritten as items (each heading and the
//! siblings after it up to the next one in one `<div class="headed-section">`) for the
//! listing reader, which keeps only sections with a date and a title of their own.

use scraper::{ElementRef, Html, Node};

use super::{MIN_ITEMS, in_chrome};

/// The page with the children of each parent holding [`MIN_ITEMS`] or more headings of
/// one level (`h2` or `h3`) wrapped, heading by heading, in `<div
/// class="headed-section">`; `None` when no parent holds such headings.
pub(super) fn headed_sections(doc: &Html) -> Option<Html> {
    let mut html = doc.html();
    let mut changed = false;
    for parent in doc.root_element().descendants().filter_map(ElementRef::wrap).take(20_000) {
        if in_chrome(parent) || matches!(parent.value().name(), "nav" | "footer" | "aside") {
            continue;
        }
        let children: Vec<_> = parent.children().collect();
        // A heading counts written bare or in a box of its own with its text (a site
        // builder's module: `<div><h3>Samstag, 14. März – Turnier</h3><p>…</p></div>`).
        let level = ["h2", "h3"].into_iter().find(|tag| {
            children
                .iter()
                .filter(|c| {
                    c.value().as_element().is_some_and(|e| e.name() == *tag)
                        || ElementRef::wrap(**c).is_some_and(|e| boxes_a_section(e, tag))
                })
                .count()
                >= MIN_ITEMS
        });
        let Some(level) = level else { continue };
        let old = parent.html();
        let Some(open_end) = old.find('>') else { continue };
        let mut new = String::from(&old[..=open_end]);
        let mut open = false;
        for child in &children {
            let name = child.value().as_element().map(|e| e.name());
            // A block that wraps one heading of the level with its text (a layout's
            // column or box: `<div><h2>Samedi 7 mars – Loto</h2><p>…</p></div>`) is a
            // section of its own.
            let wrapped = name.is_some_and(|n| n != level && !matches!(n, "h1" | "h2" | "h3"))
                && ElementRef::wrap(*child).is_some_and(|e| {
                    let heading = super::sel(level);
                    let mut inner = e.select(&heading);
                    inner.next().is_some() && inner.next().is_none()
                });
            if wrapped {
                if open {
                    new.push_str("</div>");
                }
                new.push_str(&format!("<div class=\"{SECTION_CLASS}\">"));
                new.push_str(&ElementRef::wrap(*child).map(|e| e.html()).unwrap_or_default());
                new.push_str("</div>");
                open = false;
                continue;
            }
            if name == Some(level) {
                if open {
                    new.push_str("</div>");
                }
                new.push_str(&format!("<div class=\"{SECTION_CLASS}\">"));
                open = true;
            } else if open && matches!(name, Some("h1" | "h2")) {
                // A higher heading closes the section (`<h2>` after `<h3>` sections).
                new.push_str("</div>");
                open = false;
            }
            match child.value() {
                Node::Element(_) => {
                    new.push_str(&ElementRef::wrap(*child).map(|e| e.html()).unwrap_or_default());
                }
                Node::Text(t) => new.push_str(&escape(t)),
                _ => {}
            }
        }
        if open {
            new.push_str("</div>");
        }
        new.push_str(&format!("</{}>", parent.value().name()));
        if let Some(at) = html.find(&old) {
            html.replace_range(at..at + old.len(), &new);
            changed = true;
        }
    }
    changed.then(|| Html::parse_document(&html))
}

/// Whether `el`, no heading itself, wraps exactly one `level` heading and text besides
/// it: a layout's box holding one section. A box holding its heading alone is none.
fn boxes_a_section(el: ElementRef<'_>, level: &str) -> bool {
    if matches!(el.value().name(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6") {
        return false;
    }
    // A box's first nodes only: every parent's children are asked, so an unbounded look
    // would read a deep page once per ancestor.
    let text_len = |e: ElementRef<'_>| -> usize {
        e.descendants()
            .take(BOX_NODES)
            .filter_map(|n| n.value().as_text().map(|t| t.trim().len()))
            .sum()
    };
    let mut headings = el
        .descendants()
        .take(BOX_NODES)
        .filter_map(ElementRef::wrap)
        .filter(|e| e.value().name() == level);
    let (Some(h), None) = (headings.next(), headings.next()) else { return false };
    text_len(el) > text_len(h)
}

/// How many nodes of a box [`boxes_a_section`] reads.
const BOX_NODES: usize = 200;

/// The class [`headed_sections`] gives each section it wraps.
const SECTION_CLASS: &str = "headed-section";

/// Whether `items` (children of one parent) are the headings of a post's sections, which
/// [`headed_sections`] wraps with what follows each: [`MIN_ITEMS`] or more `<h2>`s, or
/// `<h3>`s, at least half of them followed by a paragraph, list, figure or table before
/// the next heading. Read bare, such headings lose their sections' times and texts.
pub(super) fn heads_sections(items: &[ElementRef<'_>]) -> bool {
    let Some(level) = items.first().map(|i| i.value().name()) else { return false };
    if items.len() < MIN_ITEMS || !matches!(level, "h2" | "h3") {
        return false;
    }
    if items.iter().any(|i| i.value().name() != level) {
        return false;
    }
    let followed = items
        .iter()
        .filter(|h| {
            h.next_siblings().filter_map(ElementRef::wrap).next().is_some_and(|n| {
                matches!(n.value().name(), "p" | "ul" | "ol" | "figure" | "table" | "div")
            })
        })
        .count();
    followed * 2 >= items.len()
}

/// Text escaped for HTML.
fn escape(t: &str) -> String {
    t.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use scraper::{ElementRef, Html};

    use super::heads_sections;

    #[test]
    fn section_headings_are_not_a_bare_list() {
        // Issue 24 (page 292): `<h2>` per event, its times and text in the paragraphs
        // under it.
        let heads = |body: &str| {
            let doc = Html::parse_document(&format!("<main>{body}</main>"));
            let main = doc.select(&super::super::sel("main")).next().expect("main");
            let items: Vec<ElementRef<'_>> = main
                .children()
                .filter_map(ElementRef::wrap)
                .filter(|c| c.value().name() == "h2")
                .collect();
            heads_sections(&items)
        };
        let table: &[(&str, bool)] = &[
            (
                "<h2>Bee – Sat 14 March</h2><p>9am.</p><h2>Apple Day – Sun 22 March</h2><p>10am.</p><h2>Cider – Sun 19 April</h2><p>10am.</p>",
                true,
            ),
            // Headings alone (a list of dated headings) are a list.
            (
                "<h2>Bee – Sat 14 March</h2><h2>Apple Day – Sun 22 March</h2><h2>Cider – Sun 19 April</h2>",
                false,
            ),
            // Two sections are too few.
            (
                "<h2>Bee – Sat 14 March</h2><p>9am.</p><h2>Apple Day – Sun 22 March</h2><p>10am.</p>",
                false,
            ),
        ];
        for (body, want) in table {
            assert_eq!(heads(body), *want, "{body}");
        }
    }

    #[test]
    fn a_box_wrapping_one_heading_is_a_section_of_its_own() {
        // Issue 24, page 314: a layout's column or box holds one section's heading and text
        // between sections written bare.
        let html = "<html lang=\"fr\"><body><h1>Manifestations</h1><main>\
            <div class=\"col\"><h2>Vendredi 14 mars – Loto</h2><p>Début des jeux à 20h.</p></div>\
            <h2>Samedi 22 mars – Bourse aux vélos</h2><p>De 9h à 12h.</p>\
            <h2>Vendredi 4 avril – Chasse aux œufs</h2><p>À 10h30.</p>\
            <div class=\"box\"><div><h2>Vendredi 18 avril – Bal</h2><p>À partir de 21h.</p></div></div>\
            <h2>Vendredi 2 mai – Concert</h2><p>À 20h30.</p></main></body></html>";
        let got = super::super::titles_and_starts(html);
        assert!(got.contains(&("Loto".to_owned(), "2031-03-14T20:00:00".to_owned())), "{got:?}");
        assert!(got.contains(&("Bal".to_owned(), "2031-04-18T21:00:00".to_owned())), "{got:?}");
        assert_eq!(got.len(), 5, "{got:?}");
    }

    #[test]
    fn boxed_sections_under_boxed_headers_are_sections() {
        // Issue 24, page 365: a site builder writes each heading in a module of its own
        // (`<div><h2>…</h2></div>`) and each event as a module holding its `<h3>` and text;
        // no heading is a bare child of the page's column.
        let html = "<html lang=\"en\"><body><div id=\"col\">\
            <div class=\"m\"><h2>About the club</h2></div>\
            <div class=\"m\"><p>We meet in the old mill.</p></div>\
            <div class=\"m\"><h2>Dates</h2></div>\
            <div class=\"m\"><h3>Friday 7 March – Quiz night</h3><p>From 7.30pm at the mill.</p></div>\
            <div class=\"m\"><img src=\"/a.jpg\" alt=\"\"><h3>Saturday 22 March – Spring walk</h3><p>Meet at 10am by the church.</p></div>\
            <div class=\"m\"><h3>Sunday 13 April – Plant swap</h3><p>2pm to 4pm in the hall.</p></div>\
            <div class=\"m\"><h2>Contact</h2></div>\
            <div class=\"m\"><p>info@example.org</p></div>\
            </div></body></html>";
        let got = super::super::titles_and_starts(html);
        let want = [
            ("Quiz night", "2031-03-07T19:30:00"),
            ("Spring walk", "2031-03-22T10:00:00"),
            ("Plant swap", "2031-04-13T14:00:00"),
        ];
        let want: Vec<(String, String)> =
            want.iter().map(|(n, s)| ((*n).to_owned(), (*s).to_owned())).collect();
        assert_eq!(got, want);
    }
}
