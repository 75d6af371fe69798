//! JSON-LD: `<script type="application/ld+json">` blocks, found with a byte scan (no DOM),
//! read leniently, one block at a time, so one bad block never loses the others.
//!
//! Owns finding and parsing the blocks; the schema.org reading is `crate::schema`'s.

use memchr::memmem;

use crate::lenient_json;
use crate::schema;
use crate::{Candidate, Diagnostic, Format, Severity};

/// One `<script type="application/ld+json">` block: its byte offset in the page and text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block<'a> {
    /// Byte offset of the block's text in the page.
    pub offset: usize,
    /// The text between `<script …>` and `</script>`.
    pub text: &'a str,
}

/// Finds every JSON-LD script block in an HTML page with a byte scan.
///
/// Linear in the page: one case-folded copy is searched forward once (searching the rest of
/// the page per block, as before, was quadratic on pages of thousands of blocks).
pub fn blocks(html: &str) -> Vec<Block<'_>> {
    let bytes = html.as_bytes();
    let folded = bytes.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    let finder = memmem::Finder::new(b"ld+json");
    while let Some(rel) = finder.find(&folded[from..]) {
        let hit = from + rel;
        from = hit + 7;
        // The `<` that opens the tag this attribute value sits in (a tag is short: a hit
        // inside a long script body is not a tag's).
        let window = hit.saturating_sub(MAX_TAG);
        let Some(lt) = memchr::memrchr(b'<', &bytes[window..hit]).map(|l| window + l) else {
            continue;
        };
        let tag = &bytes[lt + 1..hit];
        if tag.len() < 7 || !tag[..6].eq_ignore_ascii_case(b"script") || tag.contains(&b'>') {
            continue;
        }
        let Some(gt) = memchr::memchr(b'>', &bytes[hit..]).map(|g| hit + g) else { break };
        let body_start = gt + 1;
        let body_end =
            find_script_end(&folded[body_start..]).map_or(bytes.len(), |e| body_start + e);
        if let Some(text) = html.get(body_start..body_end) {
            out.push(Block { offset: body_start, text });
        }
        from = body_end.max(from);
    }
    out
}

/// The longest `<script …` tag read back from its `ld+json`.
const MAX_TAG: usize = 2048;

/// The first `</script` in `hay` (already lower-cased).
fn find_script_end(hay: &[u8]) -> Option<usize> {
    memmem::find(hay, b"</script")
}

/// Reads every JSON-LD block in `html` into candidates, with diagnostics for what was
/// repaired or skipped.
pub fn read_html(html: &str, candidates: &mut Vec<Candidate>, diagnostics: &mut Vec<Diagnostic>) {
    let all = blocks(html);
    for (i, block) in all.iter().enumerate() {
        let before = candidates.len();
        read_block(
            block.text,
            &format!("script #{} (byte {})", i + 1, block.offset),
            candidates,
            diagnostics,
        );
        // A date-only event and the markup after its block, up to the next block: the
        // time that markup states (see `nearby`).
        let from = block.offset + block.text.len();
        let to = all.get(i + 1).map_or(html.len(), |next| next.offset);
        let Some(stretch) = html.get(from..to.max(from)) else { continue };
        for c in &mut candidates[before..] {
            let raw = &mut c.raw;
            let (Some(start), Some(name)) = (raw.start.as_deref(), raw.name.as_deref()) else {
                continue;
            };
            if let Some((start, end)) =
                crate::nearby::timed(start, raw.end.as_deref(), name, stretch)
            {
                raw.start = Some(start);
                raw.end = end;
            }
        }
    }
}

/// Reads one JSON-LD text (a script body, or a whole `application/ld+json` document).
pub fn read_block(
    text: &str,
    location: &str,
    candidates: &mut Vec<Candidate>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut parsed = lenient_json::parse(text);
    let mut markup = gleaner_event::Markup::Html;
    // Some sites HTML-escape the whole block (`{&quot;@type&quot;: …}`): decoded here, so
    // its strings are not decoded a second time.
    if parsed.values.is_empty() && text.contains("&quot;") {
        let decoded = gleaner_event::text::decode_entities(text);
        let retry = lenient_json::parse(&decoded);
        if !retry.values.is_empty() {
            diagnostics.push(diag(
                Severity::Info,
                location,
                "block was HTML-escaped; decoded entities before reading".to_owned(),
            ));
            parsed = retry;
            markup = gleaner_event::Markup::Text;
        }
    }
    if !parsed.repairs.is_empty() {
        diagnostics.push(diag(
            Severity::Info,
            location,
            format!("repaired malformed JSON: {}", parsed.repairs.join(", ")),
        ));
    }
    if let Some(err) = parsed.error {
        let sev = if parsed.values.is_empty() { Severity::Error } else { Severity::Warning };
        diagnostics.push(diag(sev, location, format!("invalid JSON: {err}")));
    }
    let (found, skipped) = schema::find_events(&parsed.values);
    for s in skipped {
        diagnostics.push(diag(Severity::Info, &format!("{location} {}", s.path), s.reason));
    }
    candidates.extend(found.into_iter().map(|f| Candidate {
        format: Format::JsonLd,
        location: format!("{location} {}", f.path),
        raw: gleaner_event::RawEvent { markup, ..f.raw },
    }));
}

fn diag(severity: Severity, location: &str, message: String) -> Diagnostic {
    Diagnostic { severity, format: Format::JsonLd, message, location: location.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_room_is_at_the_building_that_contains_it() {
        let html = r##"<script type="application/ld+json">{"@context":"https://schema.org",
"@graph":[{"@type":"Place","@id":"#hall","name":"Hall 3","containedInPlace":{"@id":"#campus"}},
{"@type":"Place","@id":"#campus","name":"Riverside Campus","address":{"@type":"PostalAddress",
"streetAddress":"1 College Road","addressLocality":"Millbrook"}},
{"@type":"Event","name":"Open Lecture","startDate":"2026-05-12T18:00","location":{"@id":"#hall"}}]}
</script>"##;
        let (mut candidates, mut diagnostics) = (Vec::new(), Vec::new());
        read_html(html, &mut candidates, &mut diagnostics);
        let raw = &candidates.first().expect("one event").raw;
        assert_eq!(raw.location_name.as_deref(), Some("Riverside Campus"));
        assert_eq!(raw.street.as_deref(), Some("1 College Road"));
        assert_eq!(raw.locality.as_deref(), Some("Millbrook"));
    }

    #[test]
    fn scan_finds_blocks_and_ignores_lookalikes() {
        let html = r#"<html><script>var t = "application/ld+json";</script>
<SCRIPT TYPE="application/LD+JSON">{"a":1}</SCRIPT>
<script type='application/ld+json'>[2]</script ><script type="application/ld+json">{"unterminated"#;
        let b: Vec<&str> = blocks(html).iter().map(|b| b.text).collect();
        assert_eq!(b, vec![r#"{"a":1}"#, "[2]", r#"{"unterminated"#]);
    }
}
