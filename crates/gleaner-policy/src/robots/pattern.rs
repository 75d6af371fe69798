//! Path patterns of `Allow`/`Disallow` rules: percent-encoding normalisation and
//! wildcard matching in linear time.
//!
//! RFC 9309 §2.2.2: octets in the URI and in the patterns are compared after
//! percent-encoding normalisation. We decode only *unreserved* characters (RFC 3986
//! §2.3: `A-Z a-z 0-9 - . _ ~`), so `%7E` equals `~` and `%62%61%7A` equals `baz`,
//! keep reserved characters encoded (`%2F` is not `/`), upper-case the hex digits of the
//! escapes we keep, and percent-encode every octet outside printable ASCII (so `ツ`
//! equals `%E3%83%84`). The same function runs on both sides, so the comparison is
//! byte-wise afterwards.
//!
//! RFC 9309 §2.2.3: `*` matches any sequence of octets and a trailing `$` anchors the
//! end. A `$` anywhere else is a literal character, as in Google's parser. To match a
//! literal `*` or `$` a pattern writes `%2A` or `%24` (the RFC's examples:
//! `/path/file-with-a-%2A.html` matches `/path/file-with-a-*.html`, `/path/foo-%24`
//! matches `/path/foo-$`). So a URL is compared in the form [`normalise_path`] gives it:
//! its literal `*` and `$` written `%2A` and `%24`, the form a pattern's literal ones
//! take too (a `$` inside a pattern is stored as `%24`). A URL's own `%2A` and `%24`
//! therefore match as well.
//!
//! Matching is greedy on the literal segments between `*`s, with each segment of 16
//! bytes or more found by `memchr::memmem` (two-way search) and shorter ones by a
//! `memchr` scan and a comparison, so a match costs O(pattern + 16 × path) however many
//! `*`s a pattern has: `/*a*a*a*…b` cannot make us backtrack. Greedy leftmost placement
//! is exact for `*`-only patterns: if any placement of the segments fits, the leftmost
//! one does too, and it leaves the most room for the rest.
//!
//! A run of `*` matches what one `*` matches, so runs are collapsed when a pattern is
//! compiled (issue 26: a 1 MB rule of `*` cost one searcher per empty segment, 574 MB);
//! the longest-match priority still counts the pattern as written. A compiled pattern
//! keeps its text once and one searcher per non-empty segment, so its memory is linear
//! in the rule's length.

use std::borrow::Cow;

/// Returns true for the RFC 3986 unreserved characters, the only ones we decode.
fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// True when `normalise` would leave `s` unchanged, checked without allocating.
fn is_already_normal(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b == b'%'
            && let (Some(h), Some(l)) = (s.get(i + 1).copied(), s.get(i + 2).copied())
            && let (Some(hv), Some(lv)) = (hex_value(h), hex_value(l))
        {
            if is_unreserved(hv * 16 + lv) || h.is_ascii_lowercase() || l.is_ascii_lowercase() {
                return false;
            }
            i += 3;
            continue;
        } else if !(0x21..0x7f).contains(&b) {
            return false;
        }
        i += 1;
    }
    true
}

/// Normalises the percent-encoding of a path (with its query) or of a rule pattern so
/// that the two can be compared byte for byte. See the module docs for the rules.
///
/// A `%` not followed by two hex digits is kept as a literal `%`, as browsers do.
pub fn normalise(s: &str) -> Cow<'_, str> {
    let bytes = s.as_bytes();
    if is_already_normal(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(bytes.len() + 8);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if let (Some(hv), Some(lv)) = (
                bytes.get(i + 1).copied().and_then(hex_value),
                bytes.get(i + 2).copied().and_then(hex_value),
            ) {
                let decoded = hv * 16 + lv;
                if is_unreserved(decoded) {
                    out.push(decoded);
                } else {
                    out.extend_from_slice(&[b'%', HEX_UPPER[hv as usize], HEX_UPPER[lv as usize]]);
                }
                i += 3;
                continue;
            }
            out.push(b'%');
        } else if (0x21..0x7f).contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(&[
                b'%',
                HEX_UPPER[(b >> 4) as usize],
                HEX_UPPER[(b & 15) as usize],
            ]);
        }
        i += 1;
    }
    // Only ASCII was pushed: every non-ASCII byte was percent-encoded.
    Cow::Owned(String::from_utf8(out).unwrap_or_default())
}

/// Normalises a URL's path (with its query) for matching: [`normalise`], then its
/// literal `*` and `$` written `%2A` and `%24` (RFC 9309 §2.2.3), so that only a
/// pattern's `%2A`/`%24` (or a wildcard) matches them and never a pattern's `*` read as
/// a literal.
pub fn normalise_path(path: &str) -> Cow<'_, str> {
    let normal = normalise(path);
    if !normal.contains(['*', '$']) {
        return normal;
    }
    let mut out = String::with_capacity(normal.len() + 8);
    for c in normal.chars() {
        match c {
            '*' => out.push_str("%2A"),
            '$' => out.push_str("%24"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The pattern with every run of `*` replaced by one `*`.
fn collapse_stars(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    for c in pattern.chars() {
        if !(c == '*' && out.ends_with('*')) {
            out.push(c);
        }
    }
    out.shrink_to_fit();
    out
}

/// A compiled `Allow`/`Disallow` path pattern.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// The normalised pattern text, `*` and a trailing `$` included, runs of `*`
    /// collapsed to one.
    text: String,
    /// The length of the normalised pattern as written (runs of `*` counted in full):
    /// the "match length" of the longest-match rule (RFC 9309 §2.2.2).
    match_len: usize,
    /// Byte length of the literal prefix before the first `*` (the whole pattern, minus a
    /// trailing `$`, when it has no `*`).
    prefix_len: usize,
    /// True when the pattern has at least one `*`.
    has_star: bool,
    /// True when the pattern ends with `$` (and not with `*$`, which anchors nothing).
    anchored: bool,
    /// The non-empty literal segments after the first `*`.
    segments: Box<[Segment]>,
}

/// Segments shorter than this are searched directly; longer ones get a precompiled
/// two-way searcher (building one per match would dominate the cost, but each takes
/// about 300 bytes, too much for a one-byte segment).
const SHORT_SEGMENT: usize = 16;

/// One literal segment of a wildcard pattern.
#[derive(Debug, Clone)]
enum Segment {
    /// Searched by a scan for its first byte (`memchr`) and a comparison: O(path × 16).
    Short(Box<[u8]>),
    /// Searched with its own two-way searcher.
    Long(Box<memchr::memmem::Finder<'static>>),
}

impl Segment {
    fn new(bytes: &[u8]) -> Segment {
        if bytes.len() < SHORT_SEGMENT {
            Segment::Short(bytes.into())
        } else {
            Segment::Long(Box::new(memchr::memmem::Finder::new(bytes).into_owned()))
        }
    }

    fn needle(&self) -> &[u8] {
        match self {
            Segment::Short(bytes) => bytes,
            Segment::Long(finder) => finder.needle(),
        }
    }

    /// The first position of the segment in `haystack`.
    fn find(&self, haystack: &[u8]) -> Option<usize> {
        match self {
            Segment::Long(finder) => finder.find(haystack),
            Segment::Short(needle) => {
                let (&first, rest) = needle.split_first()?;
                let mut from = 0;
                while let Some(at) = memchr::memchr(first, &haystack[from..]) {
                    let start = from + at;
                    if haystack[start + 1..].starts_with(rest) {
                        return Some(start);
                    }
                    from = start + 1;
                }
                None
            }
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Segment::Short(bytes) => bytes.len(),
            Segment::Long(finder) => {
                std::mem::size_of::<memchr::memmem::Finder<'static>>() + finder.needle().len()
            }
        }
    }
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Pattern) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

impl Pattern {
    /// Compiles a rule value as written in robots.txt (already trimmed).
    pub fn new(raw: &str) -> Pattern {
        let normal = normalise(raw);
        let match_len = normal.len();
        let collapsed = collapse_stars(&normal);
        let dollar = collapsed.ends_with('$');
        let written_body = &collapsed[..collapsed.len() - usize::from(dollar)];
        // A `$` before the end is a literal, compared as a URL's `$` is: `%24`.
        let mut text = if written_body.contains('$') {
            written_body.replace('$', "%24")
        } else {
            written_body.to_owned()
        };
        let body_len = text.len();
        if dollar {
            text.push('$');
        }
        text.shrink_to_fit();
        let body = &text[..body_len];
        // `*$` anchors nothing: the star takes the rest of the path.
        let anchored = dollar && !body.ends_with('*');
        let first_star = body.find('*');
        let segments = match first_star {
            Some(star) => body.as_bytes()[star + 1..]
                .split(|&b| b == b'*')
                // Only a trailing `*` leaves an empty segment once runs are collapsed;
                // it matches anything, so it needs no searcher.
                .filter(|segment| !segment.is_empty())
                .map(Segment::new)
                .collect(),
            None => Box::default(),
        };
        Pattern {
            prefix_len: first_star.unwrap_or(body_len),
            has_star: first_star.is_some(),
            anchored,
            segments,
            text,
            match_len,
        }
    }

    /// Heap bytes this pattern holds (its text, its searchers and their needles), for
    /// the memory bound of a parsed file (issue 26).
    pub fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.segments.len() * std::mem::size_of::<Segment>()
            + self.segments.iter().map(Segment::heap_bytes).sum::<usize>()
    }

    /// True when the pattern has a `*`.
    pub fn has_wildcard(&self) -> bool {
        self.has_star
    }

    /// The longest literal segment after the first `*`: a path can only match when it
    /// contains it. Used to index wildcard rules whose literal prefix is too short to
    /// filter on.
    pub fn key_segment(&self) -> &[u8] {
        self.segments.iter().map(Segment::needle).max_by_key(|n| n.len()).unwrap_or(&[])
    }

    /// The normalised pattern text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The priority of this pattern under the longest-match rule.
    pub fn match_len(&self) -> usize {
        self.match_len
    }

    /// The literal bytes every matching path must start with.
    pub fn literal_prefix(&self) -> &[u8] {
        &self.text.as_bytes()[..self.prefix_len]
    }

    /// Does this pattern match the (normalised) path? Runs in O(pattern + path).
    pub fn matches(&self, path: &[u8]) -> bool {
        path.starts_with(self.literal_prefix()) && self.matches_after_prefix(path)
    }

    /// Matches the rest of the pattern, the caller having checked that `path` starts
    /// with [`Self::literal_prefix`].
    pub fn matches_after_prefix(&self, path: &[u8]) -> bool {
        if !self.has_star {
            return !self.anchored || path.len() == self.prefix_len;
        }
        let mut pos = self.prefix_len;
        let last = self.segments.len().saturating_sub(1);
        for (index, finder) in self.segments.iter().enumerate() {
            let segment = finder.needle();
            if index == last && self.anchored {
                // The final segment must end the path, and must not overlap what the
                // earlier segments consumed.
                return path.len() >= pos + segment.len() && path.ends_with(segment);
            }
            if segment.is_empty() {
                continue;
            }
            match finder.find(&path[pos..]) {
                Some(found) => pos += found + segment.len(),
                None => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> String {
        normalise(s).into_owned()
    }

    #[test]
    fn rfc9309_percent_encoding_examples() {
        // RFC 9309 §2.2.2 table.
        assert_eq!(n("/foo/bar?baz=quz"), "/foo/bar?baz=quz");
        assert_eq!(n("/foo/bar/ツ"), "/foo/bar/%E3%83%84");
        assert_eq!(n("/foo/bar/%E3%83%84"), "/foo/bar/%E3%83%84");
        assert_eq!(n("/foo/bar/%62%61%7A"), "/foo/bar/baz");
        assert_eq!(n("/~joe"), n("/%7Ejoe"));
        assert_eq!(n("/%7ejoe"), "/~joe");
    }

    #[test]
    fn reserved_characters_stay_encoded_in_upper_case() {
        assert_eq!(n("/a%2fb"), "/a%2Fb");
        assert_ne!(n("/a%2Fb"), n("/a/b"));
        assert_eq!(n("/a%zz"), "/a%zz");
        assert_eq!(n("/a%"), "/a%");
        assert_eq!(n("/a b"), "/a%20b");
    }

    fn m(pattern: &str, path: &str) -> bool {
        Pattern::new(pattern).matches(normalise_path(path).as_bytes())
    }

    #[test]
    fn rfc9309_wildcards() {
        assert!(m("/", "/anything"));
        assert!(m("/fish", "/fish.html"));
        assert!(m("/fish*", "/fishheads/yummy.html"));
        assert!(!m("/fish", "/Fish.asp"));
        assert!(m("/*.php", "/folder/filename.php?parameters"));
        assert!(m("/*.php$", "/filename.php"));
        assert!(!m("/*.php$", "/filename.php?parameters"));
        assert!(!m("/*.php$", "/filename.php5"));
        assert!(m("/fish*.php", "/fishheads/catfish.php?parameters"));
        assert!(!m("/fish*.php", "/Fish.PHP"));
        assert!(m("/*/private", "/a/b/private/x"));
        assert!(m("/a*/c", "/ab/xx/c"));
    }

    #[test]
    fn anchor_without_star_is_exact() {
        assert!(m("/$", "/"));
        assert!(!m("/$", "/a"));
        assert!(m("/a$", "/a"));
        assert!(!m("/a$", "/ab"));
    }

    #[test]
    fn anchored_last_segment_cannot_overlap_earlier_ones() {
        // "/ab*b$" must not match "/ab": the final "b" would reuse the prefix's "b".
        assert!(!m("/ab*b$", "/ab"));
        assert!(m("/ab*b$", "/abb"));
        assert!(m("/a*$", "/a"));
        assert!(m("*", "/"));
        assert!(m("**", "/x"));
    }

    #[test]
    fn runs_of_stars_collapse_but_keep_their_priority() {
        let p = Pattern::new("/a***b**");
        assert_eq!(p.as_str(), "/a*b*");
        assert_eq!(p.match_len(), "/a***b**".len(), "priority as written");
        for path in ["/ab", "/axxb", "/a/b/c", "/b", "/a", "/ba"] {
            assert_eq!(m("/a***b**", path), m("/a*b", path), "{path}");
        }
        assert!(m("/**$", "/x"));
        assert!(m("/a**$", "/a"));
        assert!(!m("/a**b$", "/a"));
        assert!(m("/a*b*$", "/abx"), "a trailing `*$` anchors nothing");
        assert!(m("/a*b**$", "/abx"));
    }

    #[test]
    fn dollar_in_the_middle_is_literal() {
        assert!(m("/a$b", "/a$b"));
        assert!(!m("/a$b", "/a"));
        assert!(m("/a$b$", "/a$b"));
        assert!(!m("/a$b$", "/a$bc"));
    }

    #[test]
    fn rfc9309_percent_2a_and_24_match_literal_star_and_dollar() {
        // RFC 9309 §2.2.3, the two examples.
        assert!(m("/path/file-with-a-%2A.html", "/path/file-with-a-*.html"));
        assert!(m("/path/foo-%24", "/path/foo-$"));
        // Lower-case hex and the URL's own escapes are the same octets.
        assert!(m("/path/file-with-a-%2a.html", "/path/file-with-a-*.html"));
        assert!(m("/path/file-with-a-%2A.html", "/path/file-with-a-%2A.html"));
        assert!(m("/path/foo-%24", "/path/foo-%24"));
        // `%2A` is a literal, not a wildcard; `%24` does not anchor.
        assert!(!m("/path/file-with-a-%2A.html", "/path/file-with-a-x.html"));
        assert!(m("/path/foo-%24", "/path/foo-$/more"));
        assert!(!m("/path/foo-%24", "/path/foo-"));
        // A wildcard still matches a literal star in the URL, and an anchor after one.
        assert!(m("/a*b", "/a*b"));
        assert!(m("/a-%2A*$", "/a-*x"));
        assert!(m("/price-%24$", "/price-$"));
        assert!(!m("/price-%24$", "/price-$5"));
        assert_eq!(normalise_path("/a*b$c"), "/a%2Ab%24c");
        assert_eq!(normalise_path("/plain"), "/plain");
    }

    #[test]
    fn pathological_pattern_stays_fast() {
        let pattern = format!("/{}b", "*a".repeat(2000));
        let path = format!("/{}", "a".repeat(100_000));
        let start = std::time::Instant::now();
        assert!(!m(&pattern, &path));
        // Bounded sanity check only; the real timing lives in benches/robots.rs.
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }
}
