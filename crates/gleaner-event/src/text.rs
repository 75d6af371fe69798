//! Text clean-up: HTML entities, stray tags and whitespace in titles and descriptions.
//!
//! Pages put HTML entities inside JSON-LD strings and markup inside descriptions; this
//! module undoes both. It knows nothing about events.

use crate::raw::Markup;

/// Decodes HTML character references (`&amp;`, `&#39;`, `&#x2019;`, `&hellip;`, …).
///
/// Unknown names are left as written, as browsers do.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        match decode_one(rest) {
            Some((ch, used)) => {
                out.push(ch);
                rest = &rest[used..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Decodes one reference at the start of `s` (which starts with `&`): the character and the
/// number of bytes consumed.
fn decode_one(s: &str) -> Option<(char, usize)> {
    let body = &s[1..];
    let end = body.char_indices().take(33).find(|(_, c)| !c.is_ascii_alphanumeric() && *c != '#');
    let (len, has_semi) = match end {
        Some((i, ';')) => (i, true),
        Some((i, _)) => (i, false),
        None if body.len() <= 32 => (body.len(), false),
        None => return None,
    };
    let name = &body[..len];
    let used = 1 + len + usize::from(has_semi);
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        let ch = match code {
            0 => '\u{FFFD}',
            // Windows-1252 remapping that browsers apply to numeric references.
            0x91 | 0x92 => '\u{2019}',
            0x93 | 0x94 => '\u{201D}',
            0x96 => '\u{2013}',
            0x97 => '\u{2014}',
            0x85 => '\u{2026}',
            c => char::from_u32(c).unwrap_or('\u{FFFD}'),
        };
        return Some((ch, used));
    }
    if !has_semi && !matches!(name, "amp" | "lt" | "gt" | "quot" | "nbsp") {
        return None;
    }
    let ch = match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{A0}',
        "hellip" => '\u{2026}',
        "ndash" => '\u{2013}',
        "mdash" => '\u{2014}',
        "lsquo" => '\u{2018}',
        "rsquo" => '\u{2019}',
        "sbquo" => '\u{201A}',
        "ldquo" => '\u{201C}',
        "rdquo" => '\u{201D}',
        "bdquo" => '\u{201E}',
        "laquo" => '\u{AB}',
        "raquo" => '\u{BB}',
        "copy" => '\u{A9}',
        "reg" => '\u{AE}',
        "trade" => '\u{2122}',
        "euro" => '\u{20AC}',
        "pound" => '\u{A3}',
        "yen" => '\u{A5}',
        "cent" => '\u{A2}',
        "deg" => '\u{B0}',
        "middot" => '\u{B7}',
        "bull" => '\u{2022}',
        "times" => '\u{D7}',
        "shy" => '\u{AD}',
        "iexcl" => '\u{A1}',
        "iquest" => '\u{BF}',
        "szlig" => '\u{DF}',
        "Agrave" => 'À',
        "Aacute" => 'Á',
        "Acirc" => 'Â',
        "Auml" => 'Ä',
        "Ccedil" => 'Ç',
        "Egrave" => 'È',
        "Eacute" => 'É',
        "Ecirc" => 'Ê',
        "Iacute" => 'Í',
        "Ntilde" => 'Ñ',
        "Oacute" => 'Ó',
        "Ouml" => 'Ö',
        "Uuml" => 'Ü',
        "agrave" => 'à',
        "aacute" => 'á',
        "acirc" => 'â',
        "auml" => 'ä',
        "aring" => 'å',
        "ccedil" => 'ç',
        "egrave" => 'è',
        "eacute" => 'é',
        "ecirc" => 'ê',
        "euml" => 'ë',
        "igrave" => 'ì',
        "iacute" => 'í',
        "icirc" => 'î',
        "iuml" => 'ï',
        "ntilde" => 'ñ',
        "ograve" => 'ò',
        "oacute" => 'ó',
        "ocirc" => 'ô',
        "ouml" => 'ö',
        "oslash" => 'ø',
        "ugrave" => 'ù',
        "uacute" => 'ú',
        "ucirc" => 'û',
        "uuml" => 'ü',
        _ => return None,
    };
    Some((ch, used))
}

/// Removes HTML tags, turning block-level breaks into newlines.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let looks_like_tag =
            after.starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!');
        match (looks_like_tag, after.find('>')) {
            (true, Some(j)) => {
                let tag = after[..j].trim_start_matches('/').to_ascii_lowercase();
                let name: String = tag.chars().take_while(char::is_ascii_alphanumeric).collect();
                if matches!(name.as_str(), "br" | "p" | "div" | "li" | "h1" | "h2" | "h3" | "tr") {
                    out.push('\n');
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A one-line text: entities decoded, tags removed, whitespace collapsed to single spaces.
pub fn clean_line(s: &str) -> String {
    let decoded = decode_entities(s);
    let stripped = if decoded.contains('<') { strip_tags(&decoded) } else { decoded };
    collapse(&stripped)
}

/// A multi-line text: like [`clean_line`] but keeps one newline between non-empty lines.
pub fn clean_block(s: &str) -> String {
    let decoded = decode_entities(s);
    let stripped = if decoded.contains('<') { strip_tags(&decoded) } else { decoded };
    let lines: Vec<String> = stripped.lines().map(collapse).filter(|l| !l.is_empty()).collect();
    lines.join("\n")
}

/// [`clean_line`] for text as [`Markup`] says it is written: DOM text is only collapsed,
/// never decoded a second time.
pub fn line_of(s: &str, markup: Markup) -> String {
    match markup {
        Markup::Html => clean_line(s),
        Markup::Text => collapse(s),
    }
}

/// [`clean_block`] for text as [`Markup`] says it is written.
pub fn block_of(s: &str, markup: Markup) -> String {
    match markup {
        Markup::Html => clean_block(s),
        Markup::Text => {
            let lines: Vec<String> = s.lines().map(collapse).filter(|l| !l.is_empty()).collect();
            lines.join("\n")
        }
    }
}

/// Entities decoded when [`Markup`] says they are still there (URLs and prices).
pub fn decoded_of(s: &str, markup: Markup) -> String {
    match markup {
        Markup::Html => decode_entities(s),
        Markup::Text => s.to_owned(),
    }
}

/// Whitespace (including no-break spaces and control characters) collapsed to single
/// spaces; nothing decoded.
pub fn collapse(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split(|c: char| c.is_whitespace() || c == '\u{A0}' || c.is_control()) {
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities() {
        assert_eq!(decode_entities("Bar &amp; Kitchen"), "Bar & Kitchen");
        assert_eq!(
            decode_entities("can&#8217;t &#x2019; &hellip;"),
            "can\u{2019}t \u{2019} \u{2026}"
        );
        assert_eq!(decode_entities("a & b &unknown; &#xZZ;"), "a & b &unknown; &#xZZ;");
        assert_eq!(decode_entities("&amp"), "&");
    }

    #[test]
    fn cleaning() {
        assert_eq!(clean_line("  The\n  Hi-Dive \t "), "The Hi-Dive");
        assert_eq!(clean_block("<p>One &amp; two</p><p>Three</p>"), "One & two\nThree");
        assert_eq!(clean_line("a < b"), "a < b");
    }
}
