//! Bytes to text: the byte-order mark, then the `charset` of the content type, then a
//! `<meta charset>` in the first 1024 bytes (WHATWG "prescan", simplified), then UTF-8 if
//! the bytes are valid UTF-8, else windows-1252 as browsers do.
//!
//! Owns only the character encoding; what the text means is the readers' business.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252};

use crate::{Diagnostic, Format, Severity};

/// Decodes a document, with a diagnostic when bytes had to be replaced or guessed.
pub(crate) fn decode<'a>(
    bytes: &'a [u8],
    content_type: &str,
) -> (Cow<'a, str>, Option<Diagnostic>) {
    if let Some((enc, bom_len)) = Encoding::for_bom(bytes) {
        let (text, had_errors) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return (text, had_errors.then(|| replaced(enc)));
    }
    let declared = charset_param(content_type).or_else(|| meta_charset(bytes)).map(|enc| {
        // A page cannot describe itself as UTF-16 in ASCII-compatible bytes (WHATWG).
        if enc == UTF_16LE || enc == UTF_16BE { UTF_8 } else { enc }
    });
    match declared {
        Some(enc) if enc != UTF_8 => {
            let (text, had_errors) = enc.decode_without_bom_handling(bytes);
            (text, had_errors.then(|| replaced(enc)))
        }
        Some(_) => {
            let text = String::from_utf8_lossy(bytes);
            let bad = matches!(text, Cow::Owned(_));
            (text, bad.then(|| replaced(UTF_8)))
        }
        None => match std::str::from_utf8(bytes) {
            Ok(text) => (Cow::Borrowed(text), None),
            Err(_) => {
                let (text, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
                let note = Diagnostic {
                    severity: Severity::Info,
                    format: Format::Document,
                    message: "no charset declared and not valid UTF-8; read as `windows-1252`"
                        .to_owned(),
                    location: String::new(),
                };
                (text, Some(note))
            }
        },
    }
}

fn replaced(enc: &'static Encoding) -> Diagnostic {
    Diagnostic {
        severity: Severity::Warning,
        format: Format::Document,
        message: format!("document is not valid `{}`; invalid bytes were replaced", enc.name()),
        location: String::new(),
    }
}

fn charset_param(content_type: &str) -> Option<&'static Encoding> {
    let lower = content_type.to_ascii_lowercase();
    let at = lower.find("charset=")?;
    let value = content_type[at + 8..].split(';').next()?.trim().trim_matches(['"', '\'']);
    Encoding::for_label(value.as_bytes())
}

fn meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let mut from = 0;
    while let Some(rel) = find_ci(&head[from..], b"charset") {
        let mut i = from + rel + 7;
        from = i;
        while head.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        if head.get(i) != Some(&b'=') {
            continue;
        }
        i += 1;
        while head.get(i).is_some_and(|b| b.is_ascii_whitespace() || *b == b'"' || *b == b'\'') {
            i += 1;
        }
        let end = head[i..]
            .iter()
            .position(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b';' | b'>' | b'/'))
            .map_or(head.len(), |e| i + e);
        if let Some(enc) = Encoding::for_label(&head[i..end]) {
            return Some(enc);
        }
    }
    None
}

fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings() {
        let (t, d) = decode(b"caf\xe9", "text/html; charset=ISO-8859-1");
        assert_eq!((t.as_ref(), d), ("café", None));
        let (t, _) = decode(b"<meta charset=\"windows-1254\"><p>\xfeehir</p>", "text/html");
        assert!(t.contains("şehir"), "{t}");
        let (t, _) = decode(
            b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=iso-8859-15\">\xa4",
            "",
        );
        assert!(t.ends_with('€'), "{t}");
        let (t, d) = decode(b"plain \xe9", "text/html");
        assert_eq!(t, "plain é");
        assert!(d.is_some());
        let (t, d) = decode("déjà".as_bytes(), "text/html");
        assert!(matches!(t, Cow::Borrowed("déjà")) && d.is_none());
        let (t, _) = decode(b"\xEF\xBB\xBFbom", "text/html; charset=windows-1252");
        assert_eq!(t, "bom");
    }
}
