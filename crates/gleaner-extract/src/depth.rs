//! A bound on element nesting before the DOM is built, as browsers bound it (Chromium's
//! parser stops nesting at 512): html5ever looks through the stack of open elements on
//! every start tag, so 8 MiB of nested elements would cost quadratic time (issue 24 item
//! 6). Start tags deeper than [`MAX_DEPTH`] are left out (their text stays, in their
//! parent), with their end tags.
//!
//! A linear byte scan, not a tokenizer: comments, `<!…>` and raw-text elements (`script`,
//! `style`, …) are skipped whole; elements that close their open sibling implicitly
//! (`p`, `li`, `td`, …) do so here too, so long unclosed lists do not count as nesting.

use std::borrow::Cow;
use std::collections::HashMap;

use memchr::memmem;

/// The deepest element kept.
pub(crate) const MAX_DEPTH: usize = 512;

const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr", "param", "keygen",
];
const RAW_TEXT: &[&str] =
    &["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes", "plaintext"];
const SIBLINGS: &[&str] = &[
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "rb", "rt", "rp", "thead",
    "tbody", "tfoot",
];

/// `html` with start tags nested deeper than [`MAX_DEPTH`] (and their end tags) removed;
/// borrowed unchanged when nothing is that deep.
pub(crate) fn limit_depth(html: &str) -> Cow<'_, str> {
    let b = html.as_bytes();
    let mut stack: Vec<String> = Vec::new();
    let mut dropped: HashMap<String, usize> = HashMap::new();
    // Byte ranges to leave out, in order.
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while let Some(rel) = memchr::memchr(b'<', &b[i..]) {
        let lt = i + rel;
        let rest = &b[lt + 1..];
        if rest.starts_with(b"!--") {
            i = memmem::find(&rest[3..], b"-->").map_or(b.len(), |e| lt + 4 + e + 3);
            continue;
        }
        if rest.first().is_some_and(|c| *c == b'!' || *c == b'?') {
            i = memchr::memchr(b'>', rest).map_or(b.len(), |e| lt + 1 + e + 1);
            continue;
        }
        let end_tag = rest.first() == Some(&b'/');
        let name_at = lt + 1 + usize::from(end_tag);
        let name_len = b[name_at..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-' || **c == b':')
            .count();
        if name_len == 0 || !b[name_at].is_ascii_alphabetic() {
            i = lt + 1;
            continue;
        }
        let name = html[name_at..name_at + name_len].to_ascii_lowercase();
        let gt = tag_end(b, name_at + name_len);
        let next = gt.map_or(b.len(), |g| g + 1);
        if end_tag {
            if let Some(n) = dropped.get_mut(&name).filter(|n| **n > 0) {
                *n -= 1;
                cuts.push((lt, next));
            } else if let Some(pos) = stack.iter().rev().take(64).position(|s| *s == name) {
                stack.truncate(stack.len() - pos - 1);
            }
            i = next;
            continue;
        }
        let self_closing = gt.is_some_and(|g| g > 0 && b[g - 1] == b'/');
        if RAW_TEXT.contains(&name.as_str()) {
            // Skip to the element's end tag: its text is not markup.
            let close = format!("</{name}");
            let after = next.min(b.len());
            let folded_close = close.as_bytes();
            i = find_ci(&b[after..], folded_close).map_or(b.len(), |e| after + e);
            continue;
        }
        if VOID.contains(&name.as_str()) || self_closing {
            i = next;
            continue;
        }
        if SIBLINGS.contains(&name.as_str()) && stack.last().is_some_and(|top| sibling(top, &name))
        {
            stack.pop();
        }
        if stack.len() >= MAX_DEPTH {
            *dropped.entry(name).or_default() += 1;
            cuts.push((lt, next));
        } else {
            stack.push(name);
        }
        i = next;
    }
    if cuts.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut from = 0;
    for (s, e) in cuts {
        if s >= from {
            out.push_str(&html[from..s]);
            from = e.min(html.len());
        }
    }
    out.push_str(&html[from..]);
    Cow::Owned(out)
}

/// Whether a new `name` closes an open `top` (`<li>` closes `<li>`, `<td>` closes `<th>`).
fn sibling(top: &str, name: &str) -> bool {
    top == name
        || matches!((top, name), ("td" | "th", "td" | "th") | ("dt" | "dd", "dt" | "dd"))
        || matches!((top, name), ("rb" | "rt" | "rp", "rb" | "rt" | "rp"))
}

/// The `>` ending a tag whose attributes start at `from`, quotes respected.
fn tag_end(b: &[u8], from: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (k, &c) in b.iter().enumerate().skip(from) {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'"' || c == b'\'' => quote = Some(c),
            None if c == b'>' => return Some(k),
            None if c == b'<' => return Some(k.saturating_sub(1)),
            None => {}
        }
    }
    None
}

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = needle[0];
    memchr::memchr_iter(first, hay).find(|&at| {
        hay.len() >= at + needle.len() && hay[at..at + needle.len()].eq_ignore_ascii_case(needle)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_pages_are_untouched() {
        let page = "<html><body><ul><li>a<li>b</ul><p>x<p>y<script>if (a<b) {}</script>\
                    <!-- <div><div> --><img src=x><br/></body></html>";
        assert!(matches!(limit_depth(page), Cow::Borrowed(_)));
        let list: String = (0..5000).map(|i| format!("<li>{i}")).collect();
        assert!(matches!(limit_depth(&format!("<ul>{list}</ul>")), Cow::Borrowed(_)));
    }

    #[test]
    fn deep_nesting_is_cut_at_the_bound_keeping_text() {
        let depth = MAX_DEPTH + 100;
        let page = format!("{}deep{}", "<div>".repeat(depth), "</div>".repeat(depth));
        let cut = limit_depth(&page);
        assert_eq!(cut.matches("<div>").count(), MAX_DEPTH);
        assert_eq!(cut.matches("</div>").count(), MAX_DEPTH);
        assert!(cut.contains("deep"));
    }
}
