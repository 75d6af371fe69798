//! The path patterns of `tdmrep.json` locations and `/ai.txt` rules: robots.txt-style
//! `*` and trailing `$` (W3C TDMRep reuses the robots.txt wording; Spawning's ai.txt is a
//! robots.txt dialect), matched in linear time.
//!
//! This is a small private matcher so that signals do not wait for the robots module; when
//! `robots` exposes its own matcher, this file should go and both callers should use that
//! one. Percent-encoding is normalised on both sides as RFC 9309 §2.2.2 asks: escapes of
//! unreserved characters are decoded, other escapes get upper-case hex, and octets outside
//! printable ASCII are percent-encoded.
//!
//! Matching places the literal segments between `*`s leftmost, each found with
//! `memchr::memmem`, which is exact for `*`-only patterns and costs O(pattern + path).

use memchr::memmem;

/// A compiled pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Pattern {
    /// Literal segments between `*`s, already normalised (and lower-cased when the pattern
    /// is case-insensitive).
    segments: Vec<Vec<u8>>,
    /// Whether the pattern ended in `$`: the last segment must then end the path.
    anchored_end: bool,
    /// Whether the path is compared ASCII case-insensitively.
    case_insensitive: bool,
    /// The normalised pattern's length in octets, the "specificity" of longest-match rules.
    len: usize,
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Normalises percent-encoding (see the module docs). A `%` not followed by two hex
/// digits stays a literal `%`.
pub(crate) fn normalise(s: &[u8]) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b == b'%'
            && let (Some(h), Some(l)) =
                (s.get(i + 1).copied().and_then(hex), s.get(i + 2).copied().and_then(hex))
        {
            let v = h * 16 + l;
            if is_unreserved(v) {
                out.push(v);
            } else {
                out.extend_from_slice(&[b'%', HEX[usize::from(h)], HEX[usize::from(l)]]);
            }
            i += 3;
            continue;
        }
        if (0x21..0x7f).contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(&[b'%', HEX[usize::from(b >> 4)], HEX[usize::from(b & 15)]]);
        }
        i += 1;
    }
    out
}

impl Pattern {
    /// Compiles `pattern`. With `case_insensitive`, ASCII letters match either case (used
    /// for ai.txt file-type patterns such as `*.jpg`).
    pub(crate) fn new(pattern: &str, case_insensitive: bool) -> Pattern {
        let mut norm = normalise(pattern.trim().as_bytes());
        let len = norm.len();
        let anchored_end = norm.last() == Some(&b'$');
        if anchored_end {
            norm.pop();
        }
        if case_insensitive {
            norm.make_ascii_lowercase();
        }
        let segments = norm.split(|&b| b == b'*').map(<[u8]>::to_vec).collect();
        Pattern { segments, anchored_end, case_insensitive, len }
    }

    /// The normalised pattern's length in octets.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether the pattern matches `path` (a URL path with its query) from its start.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let mut path = normalise(path.as_bytes());
        if self.case_insensitive {
            path.make_ascii_lowercase();
        }
        self.matches_normalised(&path)
    }

    fn matches_normalised(&self, path: &[u8]) -> bool {
        let Some((first, rest)) = self.segments.split_first() else {
            return true;
        };
        if !path.starts_with(first) {
            return false;
        }
        let mut pos = first.len();
        if rest.is_empty() {
            return !self.anchored_end || pos == path.len();
        }
        let (last, middle) = rest.split_last().unwrap_or((first, &[]));
        for seg in middle {
            match memmem::find(&path[pos..], seg) {
                Some(at) => pos += at + seg.len(),
                None => return false,
            }
        }
        if self.anchored_end {
            path.len() >= pos + last.len() && path.ends_with(last)
        } else {
            memmem::find(&path[pos..], last).is_some()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(pattern: &str, path: &str, expect: bool) {
        assert_eq!(Pattern::new(pattern, false).matches(path), expect, "{pattern:?} vs {path:?}");
    }

    #[test]
    fn rfc9309_patterns() {
        check("/", "/anything", true);
        check("", "/anything", true);
        check("/fish", "/fish.html", true);
        check("/fish", "/Fish", false);
        check("/fish$", "/fish", true);
        check("/fish$", "/fish/", false);
        check("/*.php", "/a/b.php?x=1", true);
        check("/*.php$", "/a/b.php?x=1", false);
        check("/*.php$", "/a/b.php", true);
        check("/a*b*c", "/axxbyyc", true);
        check("/a*b*c", "/axxcyyb", false);
        check("/a*b$", "/ab", true);
        check("/a*ab$", "/ab", false);
        check("*.jpg", "/img/x.jpg", true);
        check("*", "/", true);
        check("/*$", "/x", true);
        check("/a$b", "/a$b", true);
    }

    #[test]
    fn rfc9309_percent_normalisation() {
        check("/%7Efoo", "/~foo", true);
        check("/~foo", "/%7efoo", true);
        check("/a%2Fb", "/a/b", false);
        check("/a%2fb", "/a%2Fb", true);
        check("/caf\u{e9}", "/caf%C3%A9", true);
        check("/100%", "/100%", true);
    }

    #[test]
    fn case_insensitive_file_types() {
        assert!(Pattern::new("*.jpg", true).matches("/IMG/X.JPG"));
        assert!(!Pattern::new("*.jpg", false).matches("/IMG/X.JPG"));
    }

    #[test]
    fn many_stars_stay_linear() {
        let pattern = format!("/{}b", "*a".repeat(2000));
        let path = format!("/{}", "a".repeat(50_000));
        assert!(!Pattern::new(&pattern, false).matches(&path));
    }
}
