//! Property tests for robots.txt: no panic on arbitrary bytes, adding a Disallow never
//! allows more, and matching cost stays linear in pattern and path length.

use gleaner_policy::robots::{Pattern, RobotsTxt, normalise, normalise_path};
use proptest::prelude::*;

/// Paths built from the characters robots.txt rules care about.
fn path_strategy() -> impl Strategy<Value = String> {
    proptest::string::string_regex("/[a-c/%*$?=.~ツ0-9A-F]{0,24}").unwrap()
}

/// A small robots.txt with one group for `bot` and rules drawn from the same alphabet.
fn robots_strategy() -> impl Strategy<Value = String> {
    // Up to 40 rules: sets of 16 and more are indexed, smaller ones tried one by one.
    prop::collection::vec((any::<bool>(), path_strategy()), 0..40).prop_map(|rules| {
        let mut text = String::from("user-agent: bot\n");
        for (allow, pattern) in rules {
            text.push_str(if allow { "allow: " } else { "disallow: " });
            text.push_str(&pattern);
            text.push('\n');
        }
        text
    })
}

/// Pieces of robots.txt files: directives, comments (one inside a value), every line
/// end, a BOM and a byte that is not UTF-8.
const PIECES: &[&[u8]] = &[
    b"User-agent: bot",
    b"User-agent: *",
    b"Disallow: /a",
    b"Allow: /a*b$",
    b"Sitemap: http://x/s#frag",
    b"Crawl-delay: 2",
    b"# site 42",
    b"#",
    b"\n",
    b"\r",
    b"\r\n",
    b" ",
    b"\xEF\xBB\xBF",
    b"\xFF",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn comments_and_line_ends_do_not_change_the_parse(pieces in prop::collection::vec(prop::sample::select(PIECES), 0..64)) {
        let bytes = pieces.concat();
        let comparable = RobotsTxt::comparable(&bytes);
        prop_assert_eq!(RobotsTxt::parse(&comparable), RobotsTxt::parse(&bytes));
        prop_assert_eq!(RobotsTxt::comparable(&comparable), comparable);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048), path in ".{0,64}") {
        let robots = RobotsTxt::parse(&bytes);
        for agent in ["bot", "*", ""] {
            let _ = robots.for_agent(agent).check(&path).to_string();
        }
    }

    #[test]
    fn appending_a_disallow_never_allows_more(robots in robots_strategy(), extra in path_strategy(), paths in prop::collection::vec(path_strategy(), 1..16)) {
        let before = RobotsTxt::parse(robots.as_bytes()).for_agent("bot");
        let after_text = format!("{robots}disallow: {extra}\n");
        let after = RobotsTxt::parse(after_text.as_bytes()).for_agent("bot");
        for path in &paths {
            if !before.is_allowed(path) {
                prop_assert!(!after.is_allowed(path), "`{}` became allowed after adding `disallow: {}`", path, extra);
            }
        }
    }

    #[test]
    fn normalise_is_idempotent(s in ".{0,64}") {
        let once = normalise(&s).into_owned();
        prop_assert_eq!(normalise(&once).into_owned(), once);
    }

    #[test]
    fn wildcard_matching_agrees_with_a_reference_matcher(pattern in path_strategy(), path in path_strategy()) {
        let compiled = Pattern::new(&pattern);
        let path = normalise(&path).into_owned();
        prop_assert_eq!(compiled.matches(path.as_bytes()), reference_match(compiled.as_str().as_bytes(), path.as_bytes()));
    }
}

/// A slow, obviously correct matcher (dynamic programming over positions) to compare
/// the fast one against.
fn reference_match(pattern: &[u8], path: &[u8]) -> bool {
    let (pattern, anchored) = match pattern.strip_suffix(b"$") {
        Some(p) => (p, true),
        None => (pattern, false),
    };
    // reachable[j]: the pattern prefix consumed so far can end at path position j.
    let mut reachable = vec![false; path.len() + 1];
    reachable[0] = true;
    for &p in pattern {
        let mut next = vec![false; path.len() + 1];
        if p == b'*' {
            let mut any = false;
            for j in 0..=path.len() {
                any |= reachable[j];
                next[j] = any;
            }
        } else {
            for j in 0..path.len() {
                if reachable[j] && path[j] == p {
                    next[j + 1] = true;
                }
            }
        }
        reachable = next;
    }
    if anchored { reachable[path.len()] } else { reachable.iter().any(|&r| r) }
}

/// Linear time, checked without a stopwatch: the matcher's work on a pathological
/// pattern must grow linearly, so doubling both sizes must not quadruple the time. We
/// compare against a fixed, generous budget of work instead of wall time: the
/// pathological case must finish within the same order as a trivially linear scan.
#[test]
fn pathological_patterns_match_in_linear_time() {
    for scale in [1_000usize, 10_000, 100_000] {
        let pattern = format!("/{}b", "*a".repeat(scale / 10));
        let path = format!("/{}", "a".repeat(scale));
        let compiled = Pattern::new(&pattern);
        let start = std::time::Instant::now();
        assert!(!compiled.matches(path.as_bytes()));
        let elapsed = start.elapsed();
        // A backtracking matcher needs about scale^2 / 10 steps here (10^9 at the top
        // scale, many seconds); the linear one needs microseconds. This only catches a
        // hang, it measures nothing (benches/robots.rs measures).
        assert!(elapsed < std::time::Duration::from_secs(1), "scale {scale}: {elapsed:?}");
    }
}

/// The indexed matcher (prefix trie plus the Aho-Corasick index of wildcard rules)
/// must pick the same deciding rule as trying every rule in turn.
fn brute_force_allowed(robots: &str, path: &str) -> bool {
    let parsed = RobotsTxt::parse(robots.as_bytes());
    let rules = parsed.for_agent("bot");
    let path = normalise_path(path).into_owned();
    if path.split('?').next() == Some("/robots.txt") {
        return true;
    }
    let mut best: Option<(usize, bool)> = None;
    for rule in rules.rules() {
        if rule.pattern.matches(path.as_bytes()) {
            let candidate =
                (rule.pattern.match_len(), rule.kind == gleaner_policy::robots::RuleKind::Allow);
            if best.is_none_or(|b| candidate > b) {
                best = Some(candidate);
            }
        }
    }
    best.is_none_or(|(_, allow)| allow)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn indexed_matching_agrees_with_trying_every_rule(robots in robots_strategy(), paths in prop::collection::vec(path_strategy(), 1..16)) {
        let rules = RobotsTxt::parse(robots.as_bytes()).for_agent("bot");
        for path in &paths {
            prop_assert_eq!(rules.is_allowed(path), brute_force_allowed(&robots, path), "path `{}`", path);
            prop_assert_eq!(rules.check(path).allowed, rules.is_allowed(path));
        }
    }
}
