//! The robots.txt line parser: bytes in, groups of rules out. It never fails.
//!
//! RFC 9309 §2.1–2.2 defines the grammar; where the RFC is silent we accept what
//! Google's reference parser (`google/robotstxt`, `robots.cc`) accepts, because site
//! owners test their files against it:
//! - a UTF-8 byte order mark at the start is skipped; lines end at LF, CR or CRLF;
//! - `#` starts a comment; keys are case-insensitive and surrounding whitespace is
//!   trimmed;
//! - a missing colon is tolerated when the key and the value are separated by
//!   whitespace (`Disallow /private`);
//! - common misspellings are accepted (`disalow`, `dissallow`, `useragent`, …);
//! - rules that appear before any `User-agent` line belong to no group and are ignored;
//! - `Sitemap` lines are global and do not end a group; unknown keys are ignored;
//! - `Content-Usage` and `Content-Signal` lines (AI-use preferences, optionally with a
//!   path) are rules of their group, kept with their line numbers in `Group::prefs`.
//!
//! Input beyond [`MAX_PARSED_BYTES`] is ignored (RFC 9309 §2.5 asks for at least
//! 500 KiB); invalid UTF-8 is replaced, never a panic.

use super::pace::{RequestRate, VisitTime};
use super::pattern::Pattern;
use crate::signals::prefs::{PrefRule, Vocabulary};

/// How much of a robots.txt file is parsed: 1 MiB, twice RFC 9309's minimum of 500 KiB
/// (§2.5). Reading more than the minimum only ever makes us obey more rules: a
/// `Disallow` at 550 KiB still counts. Anything after the last full line before this
/// limit is ignored.
pub const MAX_PARSED_BYTES: usize = 1024 * 1024;

/// Whether a rule allows or disallows the paths it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RuleKind {
    /// An `Allow:` line.
    Allow,
    /// A `Disallow:` line.
    Disallow,
}

impl RuleKind {
    /// The directive name as written in robots.txt.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::Allow => "allow",
            RuleKind::Disallow => "disallow",
        }
    }
}

/// One `Allow`/`Disallow` line of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// Allow or disallow.
    pub kind: RuleKind,
    /// The compiled path pattern.
    pub pattern: Pattern,
    /// 1-based line number in the file, for `explain` and the audit log.
    pub line: usize,
}

/// The agent named on a `User-agent` line, reduced to what matching needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentName {
    /// `User-agent: *`.
    Any,
    /// A product token, lower-cased (`UGYBot/1.0` is stored as `ugybot`).
    Token(String),
}

/// A group: one or more `User-agent` lines and the rules that follow them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    /// The agents this group applies to, with the line each was named on.
    pub agents: Vec<(AgentName, usize)>,
    /// The group's `Allow`/`Disallow` rules in file order. Empty patterns are dropped:
    /// `Disallow:` with no value allows everything (RFC 9309 §2.2.2).
    pub rules: Vec<Rule>,
    /// The group's `Crawl-delay`, in seconds, when present and valid (not in RFC 9309;
    /// honoured only when it makes us slower).
    pub crawl_delay: Option<f64>,
    /// The line of the `Crawl-delay` directive, for explanations.
    pub crawl_delay_line: Option<usize>,
    /// The group's valid `Request-rate` lines (not in RFC 9309; honoured only when they
    /// make us slower, see [`super::pace`]).
    pub request_rates: Vec<RequestRate>,
    /// The group's valid `Visit-time` lines (UTC windows, see [`super::pace`]).
    pub visit_times: Vec<VisitTime>,
    /// The group's `Content-Usage` and `Content-Signal` rules (AI-use preferences,
    /// [`crate::signals::prefs`]) in file order, each with its line.
    pub prefs: Vec<PrefRule>,
}

/// A parsed robots.txt file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RobotsTxt {
    /// The groups in file order.
    pub groups: Vec<Group>,
    /// `Sitemap:` URLs, as written.
    pub sitemaps: Vec<String>,
    /// True when the input was longer than [`MAX_PARSED_BYTES`] and its tail was ignored.
    pub truncated: bool,
}

impl Group {
    /// Heap bytes the group holds (agents, rules and their patterns).
    pub fn heap_bytes(&self) -> usize {
        let agents = self.agents.capacity() * std::mem::size_of::<(AgentName, usize)>()
            + self
                .agents
                .iter()
                .map(|(a, _)| match a {
                    AgentName::Any => 0,
                    AgentName::Token(t) => t.capacity(),
                })
                .sum::<usize>();
        let rules = self.rules.capacity() * std::mem::size_of::<Rule>()
            + self.rules.iter().map(|r| r.pattern.heap_bytes()).sum::<usize>();
        let pace = self.request_rates.capacity() * std::mem::size_of::<RequestRate>()
            + self.visit_times.capacity() * std::mem::size_of::<VisitTime>();
        agents + rules + pace + prefs_heap_bytes(&self.prefs)
    }
}

impl RobotsTxt {
    /// Heap bytes the parsed file holds: what issue 26 bounds by 16 times the file's
    /// size (a 1 MB rule of `*` once held 574 MB).
    pub fn heap_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Group>()
            + self.groups.iter().map(Group::heap_bytes).sum::<usize>()
            + self.sitemaps.capacity() * std::mem::size_of::<String>()
            + self.sitemaps.iter().map(String::capacity).sum::<usize>()
    }
}

/// The directive a line carries, after typo tolerance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    UserAgent,
    Allow,
    Disallow,
    CrawlDelay,
    RequestRate,
    VisitTime,
    Sitemap,
    /// `Content-Usage` or `Content-Signal`.
    Preference(Vocabulary),
    Unknown,
}

fn classify_key(key: &str) -> Key {
    const USER_AGENT: &[&str] = &["user-agent", "useragent", "user agent", "user_agent"];
    const ALLOW: &[&str] = &["allow"];
    const DISALLOW: &[&str] =
        &["disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"];
    const CRAWL_DELAY: &[&str] = &["crawl-delay", "crawldelay", "crawl delay", "crawl_delay"];
    const SITEMAP: &[&str] = &["sitemap", "site-map"];
    let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(key));
    if let Some(vocabulary) = Vocabulary::from_field_name(key) {
        Key::Preference(vocabulary)
    } else if is(USER_AGENT) {
        Key::UserAgent
    } else if is(ALLOW) {
        Key::Allow
    } else if is(DISALLOW) {
        Key::Disallow
    } else if is(CRAWL_DELAY) {
        Key::CrawlDelay
    } else if is(SITEMAP) {
        Key::Sitemap
    } else if let Some(key) = classify_pace_key(key) {
        key
    } else {
        Key::Unknown
    }
}

/// The pacing keys of the extended standard (`Request-rate`, `Visit-time`).
fn classify_pace_key(key: &str) -> Option<Key> {
    const REQUEST_RATE: &[&str] = &["request-rate", "requestrate", "request rate", "request_rate"];
    const VISIT_TIME: &[&str] = &["visit-time", "visittime", "visit time", "visit_time"];
    let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(key));
    if is(REQUEST_RATE) {
        Some(Key::RequestRate)
    } else if is(VISIT_TIME) {
        Some(Key::VisitTime)
    } else {
        None
    }
}

/// Adds a `Request-rate` or `Visit-time` line to its group; a malformed value is ignored.
fn add_pace_line(group: &mut Group, key: Key, value: &str, line: usize) {
    match key {
        Key::RequestRate => group.request_rates.extend(RequestRate::parse(value, line)),
        Key::VisitTime => group.visit_times.extend(VisitTime::parse(value, line)),
        _ => {}
    }
}

/// Splits a line (comment already removed) into key and value. Accepts `key: value`,
/// and `key value` when no colon is present and the value is a single word, as Google's
/// parser does.
fn split_key_value(line: &str) -> Option<(&str, &str)> {
    if let Some((key, value)) = line.split_once(':') {
        let key = key.trim();
        if key.is_empty() {
            return None;
        }
        return Some((key, value.trim()));
    }
    let line = line.trim();
    let space = line.find([' ', '\t'])?;
    let (key, rest) = line.split_at(space);
    let value = rest.trim();
    if value.is_empty() || value.contains([' ', '\t']) {
        return None;
    }
    // "User agent foo" would split wrongly; only single-word keys are accepted here,
    // except the two-word spelling of user-agent which `classify_key` handles with a
    // colon only.
    Some((key, value))
}

/// Reduces a `User-agent` value or an agent name given by the operator to its product
/// token: the leading run of `[A-Za-z_-]` characters, lower-cased (RFC 9309 §2.2.1).
/// Returns `None` when there is no such run.
pub fn product_token(value: &str) -> Option<String> {
    let value = value.trim();
    let end = value
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-'))
        .unwrap_or(value.len());
    (end > 0).then(|| value[..end].to_ascii_lowercase())
}

fn agent_name(value: &str) -> Option<AgentName> {
    let value = value.trim();
    if value.starts_with('*') && value[1..].trim().is_empty() {
        return Some(AgentName::Any);
    }
    product_token(value).map(AgentName::Token)
}

fn parse_crawl_delay(value: &str) -> Option<f64> {
    let delay: f64 = value.trim().parse().ok()?;
    (delay.is_finite() && delay >= 0.0).then_some(delay)
}

/// Iterates over lines ending in LF, CR or CRLF, with 1-based numbers.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        let line = &rest[..end];
        let mut next = end;
        if rest[next..].starts_with("\r\n") {
            next += 2;
        } else if next < rest.len() {
            next += 1;
        }
        rest = &rest[next..];
        Some((number, line))
    })
}

impl RobotsTxt {
    /// The bytes of a file that decide its parse: each line cut at its `#` comment and
    /// ended by `\n`, so line numbers are kept. Two files with the same comparable bytes
    /// parse into equal [`RobotsTxt`]s (`parse(comparable(f)) == parse(f)`), which lets
    /// sites whose files differ only in comments (a "site 42" header line, a date)
    /// share one compilation (issue 27). A file longer than [`MAX_PARSED_BYTES`] is
    /// returned whole: the cut at that size must not move.
    pub fn comparable(bytes: &[u8]) -> Vec<u8> {
        if bytes.len() > MAX_PARSED_BYTES {
            return bytes.to_vec();
        }
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        // Line ends and `#` are ASCII, never part of a UTF-8 sequence nor of what
        // lossy decoding replaces, so cutting the bytes cuts the text `parse` reads.
        while !rest.is_empty() {
            let end = memchr::memchr2(b'\n', b'\r', rest).unwrap_or(rest.len());
            let line = &rest[..end];
            let kept = memchr::memchr(b'#', line).map_or(line, |hash| &line[..hash]);
            out.extend_from_slice(kept);
            out.push(b'\n');
            let mut next = end;
            if rest[next..].starts_with(b"\r\n") {
                next += 2;
            } else if next < rest.len() {
                next += 1;
            }
            rest = &rest[next..];
        }
        out
    }

    /// Parses robots.txt bytes. Never fails: unparseable lines are skipped, as RFC 9309
    /// §2.2 asks of crawlers.
    pub fn parse(bytes: &[u8]) -> RobotsTxt {
        let truncated = bytes.len() > MAX_PARSED_BYTES;
        let mut bytes = &bytes[..bytes.len().min(MAX_PARSED_BYTES)];
        if truncated {
            // Cut at the last line end so a half line is not read as a shorter rule.
            if let Some(end) = memchr::memrchr2(b'\n', b'\r', bytes) {
                bytes = &bytes[..end];
            }
        }
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let text = String::from_utf8_lossy(bytes);

        let mut robots = RobotsTxt { truncated, ..RobotsTxt::default() };
        let mut current: Option<Group> = None;
        // True once the current group has seen a rule line: the next User-agent line
        // then starts a new group instead of joining this one.
        let mut group_has_rules = false;

        for (number, raw_line) in lines(&text) {
            let line = raw_line.split('#').next().unwrap_or("");
            let Some((key, value)) = split_key_value(line) else { continue };
            match classify_key(key) {
                Key::UserAgent => {
                    let Some(agent) = agent_name(value) else { continue };
                    if group_has_rules || current.is_none() {
                        robots.groups.extend(current.take());
                        current = Some(Group::default());
                        group_has_rules = false;
                    }
                    if let Some(group) = current.as_mut() {
                        group.agents.push((agent, number));
                    }
                }
                kind @ (Key::Allow | Key::Disallow) => {
                    let Some(group) = current.as_mut() else { continue };
                    group_has_rules = true;
                    if value.is_empty() {
                        continue;
                    }
                    let kind =
                        if kind == Key::Allow { RuleKind::Allow } else { RuleKind::Disallow };
                    group.rules.push(Rule { kind, pattern: Pattern::new(value), line: number });
                }
                Key::CrawlDelay => {
                    let Some(group) = current.as_mut() else { continue };
                    group_has_rules = true;
                    if let Some(delay) = parse_crawl_delay(value) {
                        group.crawl_delay = Some(group.crawl_delay.map_or(delay, |d| d.max(delay)));
                        group.crawl_delay_line = Some(number);
                    }
                }
                key @ (Key::RequestRate | Key::VisitTime) => {
                    let Some(group) = current.as_mut() else { continue };
                    group_has_rules = true;
                    add_pace_line(group, key, value, number);
                }
                Key::Sitemap => {
                    // The key was split at the first ':', so the URL keeps its scheme.
                    if !value.is_empty() {
                        robots.sitemaps.push(value.to_owned());
                    }
                }
                Key::Preference(vocabulary) => {
                    let Some(group) = current.as_mut() else { continue };
                    group_has_rules = true;
                    push_preference(group, vocabulary, value, number);
                }
                Key::Unknown => {}
            }
        }
        robots.groups.extend(current);
        // What is kept is at most 16 bytes per byte of file (issue 26): no vector keeps
        // the spare room its growth left.
        for group in &mut robots.groups {
            group.rules.shrink_to_fit();
            group.agents.shrink_to_fit();
            group.request_rates.shrink_to_fit();
            group.visit_times.shrink_to_fit();
            group.prefs.shrink_to_fit();
        }
        robots.groups.shrink_to_fit();
        robots.sitemaps.shrink_to_fit();
        robots
    }
}

/// Keeps a `Content-Usage`/`Content-Signal` rule of a group (a preference is a rule: it
/// ends the group's run of `User-agent` lines like `Allow` does).
fn push_preference(group: &mut Group, vocabulary: Vocabulary, value: &str, line: usize) {
    if !value.is_empty() {
        group.prefs.push(PrefRule::parse(vocabulary, value, line));
    }
}

fn prefs_heap_bytes(prefs: &[PrefRule]) -> usize {
    std::mem::size_of_val(prefs) + prefs.iter().map(PrefRule::heap_bytes).sum::<usize>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_tokens() {
        assert_eq!(product_token("UGYBot/1.0").as_deref(), Some("ugybot"));
        assert_eq!(product_token(" CIXTRA-Bot ").as_deref(), Some("cixtra-bot"));
        assert_eq!(product_token("Festro_Bot 2").as_deref(), Some("festro_bot"));
        assert_eq!(product_token("/1.0"), None);
    }

    #[test]
    fn lines_split_on_every_ending() {
        let got: Vec<_> = lines("a\nb\r\nc\rd").collect();
        assert_eq!(got, vec![(1, "a"), (2, "b"), (3, "c"), (4, "d")]);
    }

    #[test]
    fn consecutive_agents_share_a_group_and_rules_end_it() {
        let r = RobotsTxt::parse(b"user-agent: a\nuser-agent: b\ndisallow: /x\nuser-agent: c\n");
        assert_eq!(r.groups.len(), 2);
        assert_eq!(r.groups[0].agents.len(), 2);
        assert_eq!(r.groups[1].agents[0].0, AgentName::Token("c".into()));
    }

    #[test]
    fn sitemap_keeps_its_scheme() {
        let r = RobotsTxt::parse(b"Sitemap: https://example.org/sitemap.xml\n");
        assert_eq!(r.sitemaps, vec!["https://example.org/sitemap.xml".to_owned()]);
    }
}
