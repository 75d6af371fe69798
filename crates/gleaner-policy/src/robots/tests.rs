//! Table tests for robots.txt matching, named by authority: `rfc9309_…` for the RFC's
//! rules and examples, `google_…` for behaviour of Google's reference parser where the
//! RFC is silent, `seed_…` for promises of the seed bots' pages.

use super::*;

/// Asserts the verdict for each `(path, allowed)` pair under `robots` for `agent`.
fn check(robots: &str, agent: &str, cases: &[(&str, bool)]) {
    let rules = RobotsTxt::parse(robots.as_bytes()).for_agent(agent);
    for &(path, allowed) in cases {
        let verdict = rules.check(path);
        assert_eq!(verdict.allowed, allowed, "agent `{agent}` path `{path}`: {verdict}\n{robots}");
    }
}

fn testdata(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/robots/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {path}: {e}"))
}

#[test]
fn rfc9309_longest_match_wins() {
    let r = "user-agent: *\nallow: /folder/page\ndisallow: /folder\n";
    check(r, "bot", &[("/folder/page", true), ("/folder/other", false), ("/folderx", false)]);
    let r = "user-agent: *\ndisallow: /folder/page\nallow: /folder\n";
    check(r, "bot", &[("/folder/page", false), ("/folder/pag", true)]);
}

#[test]
fn rfc9309_allow_wins_a_tie() {
    check("user-agent: *\ndisallow: /page\nallow: /page\n", "bot", &[("/page", true)]);
    check("user-agent: *\nallow: /page\ndisallow: /page\n", "bot", &[("/page", true)]);
    // Equal lengths once wildcards count as characters.
    check(
        "user-agent: *\ndisallow: /*.x\nallow: /a.x\n",
        "bot",
        &[("/a.x", true), ("/b.x", false)],
    );
}

#[test]
fn rfc9309_product_token_is_case_insensitive_and_exact() {
    let r = "user-agent: CIXTRA\ndisallow: /\n\nuser-agent: *\ndisallow: /private\n";
    // `CIXTRA` does not name `CIXTRA-Bot`: the `*` group applies.
    check(r, "CIXTRA-Bot", &[("/events", true), ("/private", false)]);
    check(r, "cixtra", &[("/events", false)]);
    let r = "user-agent: cixtra-bot\ndisallow: /\n";
    check(r, "CIXTRA-Bot", &[("/events", false)]);
}

#[test]
fn rfc9309_user_agent_line_with_version_counts_as_the_token() {
    let r = "user-agent: UGYBot/1.0\ndisallow: /tickets\n\nuser-agent: *\ndisallow: /\n";
    check(r, "UGYBot", &[("/tickets/1", false), ("/events", true)]);
    check(r, "UGYBot/1.0", &[("/events", true)]);
    check(r, "OtherBot", &[("/events", false)]);
}

#[test]
fn rfc9309_groups_for_one_agent_are_merged() {
    let r = "user-agent: bot\ndisallow: /a\n\nuser-agent: other\ndisallow: /\n\nuser-agent: bot\ndisallow: /b\n";
    check(r, "bot", &[("/a", false), ("/b", false), ("/c", true)]);
}

#[test]
fn rfc9309_star_groups_are_merged_and_ignored_when_named() {
    let r = "user-agent: *\ndisallow: /a\n\nuser-agent: bot\ndisallow: /b\n\nuser-agent: *\ndisallow: /c\n";
    check(r, "other", &[("/a", false), ("/c", false), ("/b", true)]);
    check(r, "bot", &[("/a", true), ("/c", true), ("/b", false)]);
}

#[test]
fn rfc9309_multiple_agents_in_one_group() {
    let r = "user-agent: a\nuser-agent: bot\nuser-agent: c\ndisallow: /x\n";
    check(r, "bot", &[("/x", false), ("/y", true)]);
}

#[test]
fn rfc9309_no_group_allows_everything() {
    check("", "bot", &[("/", true), ("/anything", true)]);
    check("user-agent: other\ndisallow: /\n", "bot", &[("/", true)]);
}

#[test]
fn rfc9309_empty_disallow_allows() {
    check("user-agent: *\ndisallow:\n", "bot", &[("/", true), ("/x", true)]);
}

#[test]
fn rfc9309_robots_txt_is_always_allowed() {
    let r = "user-agent: *\ndisallow: /\n";
    check(r, "bot", &[("/robots.txt", true), ("/robots.txt?x=1", true), ("/robots.txtx", false)]);
}

#[test]
fn rfc9309_percent_encoding_is_normalised_on_both_sides() {
    check("user-agent: *\ndisallow: /foo/bar/%62%61%7A\n", "bot", &[("/foo/bar/baz", false)]);
    check("user-agent: *\ndisallow: /foo/bar/baz\n", "bot", &[("/foo/bar/%62%61%7A", false)]);
    check("user-agent: *\ndisallow: /foo/bar/ツ\n", "bot", &[("/foo/bar/%E3%83%84", false)]);
    check("user-agent: *\ndisallow: /foo/bar/%E3%83%84\n", "bot", &[("/foo/bar/ツ", false)]);
    check("user-agent: *\ndisallow: /%7Ejoe\n", "bot", &[("/~joe/", false)]);
    // Reserved characters stay encoded: `%2F` is not `/`.
    check("user-agent: *\ndisallow: /a%2Fb\n", "bot", &[("/a/b", true), ("/a%2fb", false)]);
}

#[test]
fn rfc9309_query_is_part_of_the_path() {
    let r = "user-agent: *\ndisallow: /*?sort=\ndisallow: /search?\n";
    check(
        r,
        "bot",
        &[
            ("/events?sort=date", false),
            ("/events", true),
            ("/search?q=x", false),
            ("/search", true),
        ],
    );
}

#[test]
fn rfc9309_rules_before_any_group_are_ignored() {
    check(
        "disallow: /\nuser-agent: *\ndisallow: /private\n",
        "bot",
        &[("/", true), ("/private", false)],
    );
    check("disallow: /\n", "bot", &[("/", true)]);
}

#[test]
fn rfc9309_paths_are_case_sensitive() {
    check("user-agent: *\ndisallow: /Private\n", "bot", &[("/private", true), ("/Private", false)]);
}

#[test]
fn google_bom_is_skipped() {
    check("\u{feff}user-agent: *\ndisallow: /x\n", "bot", &[("/x", false)]);
}

#[test]
fn google_line_endings_cr_lf_crlf() {
    check("user-agent: *\rdisallow: /a\r", "bot", &[("/a", false)]);
    check("user-agent: *\r\ndisallow: /a\r\n", "bot", &[("/a", false)]);
    check("user-agent: *\ndisallow: /a", "bot", &[("/a", false)]);
}

#[test]
fn google_comments_and_whitespace() {
    let r = "  User-Agent :  *   # everyone\n\tDisallow:   /a   # not a\n# Disallow: /b\n";
    check(r, "bot", &[("/a", false), ("/b", true)]);
}

#[test]
fn google_missing_colon_and_typos() {
    check("user-agent *\ndisallow /a\n", "bot", &[("/a", false)]);
    check("useragent: *\ndisalow: /a\ndissallow: /b\n", "bot", &[("/a", false), ("/b", false)]);
    check("user agent: *\ndisallow: /a\n", "bot", &[("/a", false)]);
}

#[test]
fn google_keys_are_case_insensitive() {
    check("USER-AGENT: *\nDISALLOW: /a\nALLOW: /a/b\n", "bot", &[("/a", false), ("/a/b", true)]);
}

#[test]
fn google_sitemap_does_not_end_a_group() {
    let r = "user-agent: bot\nsitemap: https://example.org/s.xml\ndisallow: /a\n";
    check(r, "bot", &[("/a", false)]);
    assert_eq!(RobotsTxt::parse(r.as_bytes()).sitemaps, vec!["https://example.org/s.xml"]);
}

#[test]
fn google_unknown_keys_are_ignored() {
    check(
        "user-agent: *\nnoindex: /a\nhost: example.org\ndisallow: /b\n",
        "bot",
        &[("/a", true), ("/b", false)],
    );
}

#[test]
fn crawl_delay_is_read_per_group_fractional_and_largest_wins() {
    let r =
        RobotsTxt::parse(b"user-agent: bot\ncrawl-delay: 2.5\n\nuser-agent: bot\ncrawl-delay: 4\n");
    assert_eq!(r.for_agent("bot").crawl_delay(), Some((4.0, 5)));
    let r = RobotsTxt::parse(b"user-agent: *\ncrawl-delay: nonsense\n");
    assert_eq!(r.for_agent("bot").crawl_delay(), None);
    let r = RobotsTxt::parse(b"user-agent: *\ncrawl-delay: 0.5\n");
    assert_eq!(r.for_agent("bot").crawl_delay(), Some((0.5, 2)));
}

#[test]
fn crawl_delay_does_not_leak_from_another_group() {
    let r =
        RobotsTxt::parse(b"user-agent: other\ncrawl-delay: 10\n\nuser-agent: bot\ndisallow: /x\n");
    assert_eq!(r.for_agent("bot").crawl_delay(), None);
}

#[test]
fn verdicts_explain_the_line() {
    let rules = RobotsTxt::parse(b"user-agent: bot\n\ndisallow: /private\n").for_agent("bot");
    let v = rules.check("/private/x");
    assert_eq!(
        v.reason,
        MatchReason::Rule { kind: RuleKind::Disallow, pattern: "/private".into(), line: 3 }
    );
    assert_eq!(v.to_string(), "disallowed by line 3 `disallow: /private`");
    assert_eq!(rules.selection(), &GroupSelection::Named { agent_lines: vec![1] });
}

#[test]
fn disallows_all_detects_a_closed_site() {
    let closed = |r: &str| RobotsTxt::parse(r.as_bytes()).for_agent("bot").disallows_all();
    assert!(closed("user-agent: *\ndisallow: /\n"));
    assert!(closed("user-agent: bot\ndisallow: /*\n"));
    assert!(!closed("user-agent: *\ndisallow: /\nallow: /events\n"));
    assert!(!closed("user-agent: *\ndisallow: /private\n"));
    assert!(!closed("user-agent: *\ndisallow: /\n\nuser-agent: bot\ndisallow: /x\n"));
}

#[test]
fn large_file_is_parsed_beyond_500_kib() {
    let mut r = String::from("user-agent: *\n");
    while r.len() < 499 * 1024 {
        r.push_str("disallow: /filler/that/is/long/enough/to/make/the/file/big\n");
    }
    r.push_str("disallow: /last-rule\n");
    assert!(r.len() > 499 * 1024 && r.len() < MAX_PARSED_BYTES);
    check(&r, "bot", &[("/last-rule", false), ("/other", true)]);
}

#[test]
fn beyond_the_cap_is_ignored_and_the_half_line_dropped() {
    let mut r = String::from("user-agent: *\n");
    while r.len() < MAX_PARSED_BYTES - 10 {
        r.push_str("disallow: /f\n");
    }
    r.push_str("disallow: /cut-in-the-middle\n");
    let parsed = RobotsTxt::parse(r.as_bytes());
    assert!(parsed.truncated);
    let rules = parsed.for_agent("bot");
    assert!(rules.is_allowed("/cut"), "a truncated `/cut-in-the-middle` must not become `/cut`");
}

#[test]
fn garbage_never_panics() {
    let _ = RobotsTxt::parse(&[0xff, 0xfe, 0x00, b'\n', b':', 0x80, b'%', b'*'])
        .for_agent("bot")
        .check("/%");
}

#[test]
fn testdata_ugy_events_site() {
    let rules = RobotsTxt::parse(&testdata("ugy-events-site.txt")).for_agent("UGYBot");
    assert!(rules.is_allowed("/events/2026/12/jazz-night"));
    assert!(!rules.is_allowed("/tickets/checkout?id=4"));
    assert!(!rules.is_allowed("/events/search?q=jazz"));
    assert!(rules.is_allowed("/events/feed.ics"));
    assert_eq!(rules.crawl_delay().map(|d| d.0), Some(3.0));
}

#[test]
fn testdata_municipal_site_blocks_other_bots() {
    let bytes = testdata("municipal-site.txt");
    let parsed = RobotsTxt::parse(&bytes);
    let aube = parsed.for_agent("AubeActuBot");
    assert!(aube.is_allowed("/actualites/rss.xml"));
    assert!(!aube.is_allowed("/mon-compte/"));
    let other = parsed.for_agent("SomeOtherBot");
    assert!(other.disallows_all());
    assert_eq!(parsed.sitemaps.len(), 2);
}

#[test]
fn testdata_wordpress_default() {
    let rules = RobotsTxt::parse(&testdata("wordpress.txt")).for_agent("FestroBot");
    assert!(!rules.is_allowed("/wp-admin/"));
    assert!(rules.is_allowed("/wp-admin/admin-ajax.php"));
    assert!(rules.is_allowed("/evenements/concert-1/"));
}

#[test]
fn seed_cixtra_named_group_overrides_wildcard() {
    let rules = RobotsTxt::parse(&testdata("press-site.txt")).for_agent("CIXTRA-Bot");
    assert!(!rules.is_allowed("/images/press/photo.jpg"));
    assert!(rules.is_allowed("/agenda/"));
    let generic = RobotsTxt::parse(&testdata("press-site.txt")).for_agent("Other");
    assert!(generic.is_allowed("/images/press/photo.jpg"));
}
