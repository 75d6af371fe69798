//! `gleaner robots check` / `explain`: the stable contract (SPEC §6, issue 2).

use crate::util::{gleaner, temp_file};

const ROBOTS: &str = "User-agent: *\nDisallow: /\n\nUser-agent: UGYBot/1.0\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 2\n";

#[test]
fn check_prints_one_line_per_url_in_order_echoing_the_url() {
    let file = temp_file(ROBOTS.as_bytes());
    let path = file.path().to_str().unwrap();
    let urls = "https://a.example/events\nhttps://a.example/private/x\n\nhttps://a.example/private/ok?q=%7E\r\nhttps://a.example/robots.txt\n";
    let run = gleaner(&["robots", "check", "--robots", path, "--agent", "UGYBot"], urls);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stdout,
        "allow\thttps://a.example/events\n\
         disallow\thttps://a.example/private/x\n\
         allow\thttps://a.example/private/ok?q=%7E\n\
         allow\thttps://a.example/robots.txt\n"
    );
}

#[test]
fn check_uses_the_star_group_for_other_agents() {
    let file = temp_file(ROBOTS.as_bytes());
    let path = file.path().to_str().unwrap();
    let run = gleaner(
        &["robots", "check", "--robots", path, "--agent", "OtherBot"],
        "http://a.example/\n",
    );
    assert_eq!(run.stdout, "disallow\thttp://a.example/\n");
}

#[test]
fn check_missing_file_is_exit_2_naming_it() {
    let run =
        gleaner(&["robots", "check", "--robots", "/nonexistent/robots.txt", "--agent", "bot"], "");
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("/nonexistent/robots.txt"), "{}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn check_unparsable_url_is_exit_2_naming_it() {
    let file = temp_file(ROBOTS.as_bytes());
    let path = file.path().to_str().unwrap();
    let run = gleaner(
        &["robots", "check", "--robots", path, "--agent", "UGYBot"],
        "https://a.example/events\nnot a url\n",
    );
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("`not a url`"), "{}", run.stderr);
    assert!(run.stderr.contains("line 2"), "{}", run.stderr);
    assert_eq!(
        run.stdout, "allow\thttps://a.example/events\n",
        "earlier answers are still printed"
    );
}

#[test]
fn check_garbage_robots_file_is_not_a_panic() {
    let file = temp_file(&[0xff, 0x00, 0xfe, b'\n', b'*', 0x80]);
    let path = file.path().to_str().unwrap();
    let run =
        gleaner(&["robots", "check", "--robots", path, "--agent", "bot"], "https://a.example/x\n");
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "allow\thttps://a.example/x\n");
}

#[test]
fn explain_names_group_rule_and_line() {
    let file = temp_file(ROBOTS.as_bytes());
    let path = file.path().to_str().unwrap();
    let run = gleaner(
        &[
            "robots",
            "explain",
            "--robots",
            path,
            "--agent",
            "UGYBot",
            "https://a.example/private/x",
        ],
        "",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(run.stdout.starts_with("disallow\thttps://a.example/private/x\n"), "{}", run.stdout);
    assert!(run.stdout.contains("line 5 `disallow: /private`"), "{}", run.stdout);
    assert!(run.stdout.contains("user-agent on line 4"), "{}", run.stdout);
    assert!(run.stdout.contains("crawl-delay: 2 s (line 7"), "{}", run.stdout);
}

#[test]
fn every_subcommand_has_help() {
    for args in [
        &["--help"][..],
        &["robots", "--help"],
        &["robots", "check", "--help"],
        &["robots", "explain", "--help"],
    ] {
        let run = gleaner(args, "");
        assert_eq!(run.code, Some(0), "{args:?}");
        assert!(run.stdout.contains("Usage"), "{args:?}: {}", run.stdout);
    }
}

/// RFC 9309 §2.2.3: `%2A` in a pattern matches a literal `*` in the URL and `%24` a
/// literal `$`; neither is a wildcard or an anchor.
#[test]
fn rfc9309_check_matches_percent_2a_and_24_literally() {
    let robots = "User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n";
    let file = temp_file(robots.as_bytes());
    let path = file.path().to_str().unwrap();
    let urls = "https://a.example/path/file-with-a-*.html\nhttps://a.example/path/file-with-a-x.html\nhttps://a.example/path/foo-$\nhttps://a.example/path/foo-\n";
    let run = gleaner(&["robots", "check", "--robots", path, "--agent", "bot"], urls);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stdout,
        "disallow\thttps://a.example/path/file-with-a-*.html\n\
         allow\thttps://a.example/path/file-with-a-x.html\n\
         disallow\thttps://a.example/path/foo-$\n\
         allow\thttps://a.example/path/foo-\n"
    );
}

#[test]
fn explain_names_the_request_rate_and_visit_time_lines() {
    let robots = "User-agent: bot\nRequest-rate: 1/10s\nVisit-time: 0800-1700\nDisallow: /x\n";
    let file = temp_file(robots.as_bytes());
    let path = file.path().to_str().unwrap();
    let run = gleaner(
        &["robots", "explain", "--robots", path, "--agent", "bot", "https://a.example/events"],
        "",
    );
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert!(
        run.stdout.contains("request-rate: at least 10 s between requests (line 2;"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("requests start only inside line 3 `visit-time` window 0800-1700 UTC"),
        "{}",
        run.stdout
    );
}
