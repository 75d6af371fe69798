//! Bold set by a style (issue 24, pages 313 and 349): site builders (Google Sites, Wix)
//! write a bold title as `<span style="font-weight: 700;">Açık Mikrofon</span>`, where an
//! editor writes `<b>`. Such spans are rewritten as `<b>` for the readers, which look for
//! an item's title, a date line or a label in bold.

use scraper::{ElementRef, Html};

use super::sel;

/// Most styled spans a page's rewrite looks at.
const MAX_SPANS: usize = 2_000;

/// Whether an inline style sets a bold weight (`font-weight: 700`, `font-weight:bold`).
fn bold_style(style: &str) -> bool {
    let lower = style.to_ascii_lowercase();
    lower.split(';').any(|decl| {
        let Some((name, value)) = decl.split_once(':') else { return false };
        name.trim() == "font-weight"
            && matches!(
                value.trim().trim_end_matches("!important").trim(),
                "bold" | "bolder" | "600" | "700" | "800" | "900"
            )
    })
}

/// The page with each outermost `<span>` styled bold rewritten as `<b>`; `None` when it
/// has none.
pub(super) fn styled_bold(doc: &Html) -> Option<Html> {
    let bold = |e: ElementRef<'_>| e.value().attr("style").is_some_and(bold_style);
    let spans: Vec<ElementRef<'_>> =
        doc.select(&sel("span[style]")).take(MAX_SPANS).filter(|s| bold(*s)).collect();
    if spans.is_empty() {
        return None;
    }
    let html = doc.html();
    let mut out = String::with_capacity(html.len());
    let mut at = 0;
    let mut changed = false;
    for span in spans {
        // A span inside one already rewritten is part of it.
        if span
            .ancestors()
            .filter_map(ElementRef::wrap)
            .any(|a| a.value().name() == "span" && bold(a))
        {
            continue;
        }
        let old = span.html();
        // Not found (it never should be): the rest is left as written, so that the page
        // is searched once.
        let Some(found) = html[at..].find(old.as_str()) else { break };
        out.push_str(&html[at..at + found]);
        out.push_str("<b>");
        out.push_str(&span.inner_html());
        out.push_str("</b>");
        at += found + old.len();
        changed = true;
    }
    out.push_str(&html[at..]);
    changed.then(|| Html::parse_document(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_span_styled_bold_is_bold() {
        assert!(bold_style("color: red; font-weight: 700;"));
        assert!(bold_style("font-weight:bold"));
        assert!(!bold_style("font-weight: 400; text-decoration: line-through"));
        let doc = Html::parse_document(
            "<p><span style=\"font-weight: 700;\">Açık <span style=\"font-weight:bold\">Mikrofon</span></span> — 4 Mart</p>",
        );
        let new = styled_bold(&doc).expect("rewritten");
        let b: Vec<String> = new.select(&sel("b")).map(|b| b.text().collect()).collect();
        assert_eq!(b, ["Açık Mikrofon"]);
    }
}
