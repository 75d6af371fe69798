//! Encoded text values: vCalendar 1.0's `ENCODING=QUOTED-PRINTABLE` and `ENCODING=BASE64`
//! (RFC 5545's `ENCODING=B`), still written by phone and groupware exports and by
//! server-side generators that copied them (`SUMMARY;ENCODING=QUOTED-PRINTABLE;CHARSET=UTF-8:
//! Caf=C3=A9`). Such a value is decoded to bytes and read in its `CHARSET` (UTF-8 when it
//! names none; Windows-1252 when the bytes are not UTF-8, as old Windows exports are).
//!
//! A quoted-printable value may also be continued by a soft line break: a line ending in `=`
//! goes on, as written, on the next line (no folding space); [`continues_soft`] says when.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

/// How a property's value is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueEncoding {
    /// `ENCODING=QUOTED-PRINTABLE`.
    QuotedPrintable,
    /// `ENCODING=BASE64` or `ENCODING=B`.
    Base64,
}

impl ValueEncoding {
    /// The encoding an `ENCODING` parameter names, if one this reader decodes.
    pub(super) fn of(param: Option<&str>) -> Option<ValueEncoding> {
        let p = param?.trim();
        if p.eq_ignore_ascii_case("QUOTED-PRINTABLE") {
            Some(ValueEncoding::QuotedPrintable)
        } else if p.eq_ignore_ascii_case("BASE64") || p.eq_ignore_ascii_case("B") {
            Some(ValueEncoding::Base64)
        } else {
            None
        }
    }
}

/// Whether an unfolded content line is a quoted-printable value cut by a soft line break
/// (its parameters say `QUOTED-PRINTABLE` and it ends in `=`): the next line continues it.
pub(super) fn continues_soft(line: &str) -> bool {
    let Some(body) = line.strip_suffix('=') else { return false };
    // The parameters end at the first `:` (a quoted parameter value holding one aside, which
    // a QUOTED-PRINTABLE line has no need of), within the line's first [`HEAD_MAX`] bytes:
    // the check runs for every line a value is continued on, and must not grow with it.
    let mut end = body.len().min(HEAD_MAX);
    while !body.is_char_boundary(end) {
        end -= 1;
    }
    let Some(colon) = body[..end].find(':') else { return false };
    ascii_contains(&body[..colon], "QUOTED-PRINTABLE")
}

/// How far into a line its name and parameters are looked for.
const HEAD_MAX: usize = 512;

fn ascii_contains(hay: &str, needle: &str) -> bool {
    hay.as_bytes().windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The text of `value` written in `encoding` and `charset`; `None` when it does not decode
/// (the value is then read as written).
pub(super) fn decode(
    value: &str,
    encoding: ValueEncoding,
    charset: Option<&str>,
) -> Option<String> {
    let bytes = match encoding {
        ValueEncoding::QuotedPrintable => quoted_printable(value),
        ValueEncoding::Base64 => base64(value)?,
    };
    let named = charset.and_then(|c| Encoding::for_label(c.trim().as_bytes()));
    let enc = named.unwrap_or(UTF_8);
    if let Some(text) = enc.decode_without_bom_handling_and_without_replacement(&bytes) {
        return Some(text.into_owned());
    }
    // Bytes that are not what the charset says (or not UTF-8 when none is said): the
    // Windows code page such exports were written in.
    named.is_none().then(|| WINDOWS_1252.decode_without_bom_handling(&bytes).0.into_owned())
}

/// `=XX` escapes to their bytes; a `=` not followed by two hex digits stays as written.
fn quoted_printable(value: &str) -> Vec<u8> {
    let b = value.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'='
            && let (Some(h), Some(l)) = (b.get(i + 1).and_then(hex), b.get(i + 2).and_then(hex))
        {
            out.push(h << 4 | l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn hex(c: &u8) -> Option<u8> {
    (*c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// Standard base64 (whitespace ignored, padding optional); `None` on any other byte.
fn base64(value: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(value.len() / 4 * 3);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in value.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' | b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_printable_in_a_charset() {
        let qp = ValueEncoding::QuotedPrintable;
        assert_eq!(decode("Fa=C3=A7ade =3D 2", qp, Some("UTF-8")).as_deref(), Some("Façade = 2"));
        // No charset: UTF-8 when the bytes are, else the Windows code page.
        assert_eq!(decode("K=C3=B6ln", qp, None).as_deref(), Some("Köln"));
        assert_eq!(decode("K=F6ln", qp, None).as_deref(), Some("Köln"));
        assert_eq!(decode("Z=FCrich", qp, Some("ISO-8859-1")).as_deref(), Some("Zürich"));
        // A stray `=` stays.
        assert_eq!(decode("a=b =Z", qp, None).as_deref(), Some("a=b =Z"));
    }

    #[test]
    fn base64_values() {
        let b = ValueEncoding::Base64;
        assert_eq!(decode("T3JnZWxrb256ZXJ0", b, None).as_deref(), Some("Orgelkonzert"));
        assert_eq!(decode("T3Jn ZWw=", b, None).as_deref(), Some("Orgel"));
        assert_eq!(decode("not*base64", b, None), None);
        assert_eq!(ValueEncoding::of(Some("b")), Some(ValueEncoding::Base64));
        assert_eq!(ValueEncoding::of(Some("8BIT")), None);
    }

    #[test]
    fn soft_line_breaks() {
        assert!(continues_soft("DESCRIPTION;ENCODING=QUOTED-PRINTABLE:Erste Zeile=0D=0A="));
        assert!(continues_soft("summary;encoding=quoted-printable:Lang="));
        // Not quoted-printable, or not ending in `=`.
        assert!(!continues_soft("DESCRIPTION:Eintritt: 1+1="));
        assert!(!continues_soft("SUMMARY;ENCODING=QUOTED-PRINTABLE:Ende"));
        // `=` inside the parameters only.
        assert!(!continues_soft("X-QUOTED-PRINTABLE="));
        // Parameters beyond the first bytes are not looked for.
        let long = format!("X-NOTE;X-PAD={};ENCODING=QUOTED-PRINTABLE:a=", "p".repeat(600));
        assert!(!continues_soft(&long));
    }
}
