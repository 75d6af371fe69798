//! `/ai.txt` (Spawning's ai.txt): which files a site reserves from AI use (SPEC §1
//! "Rights signals"; the CIXTRA-Bot seed: "It also respects … /ai.txt").
//!
//! ai.txt is a robots.txt dialect: `User-Agent` lines open groups, `Allow` and `Disallow`
//! lines hold path patterns or file-type patterns such as `*.jpg`, `#` starts a comment.
//! Groups are chosen as in RFC 9309: the groups naming our product token
//! (case-insensitive; `Token/1.0` counts as `Token`), merged, else the `*` groups, merged;
//! the longest matching pattern wins and `Allow` wins a tie. File-type patterns (those
//! without a `/`) compare ASCII case-insensitively, since `X.JPG` is the same file type.
//!
//! A `Disallow` that matches reserves AI use of that file: language-model use and
//! translation ([`UseSet::AI`]). Lines that are not `field: value` are ignored.

use std::fmt;

use super::pattern::Pattern;
use super::reservation::{Reservation, ReservationSource, UseSet};

/// One `Allow` or `Disallow` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AiTxtRule {
    /// 1-based line number.
    pub line: usize,
    /// True for `Allow`, false for `Disallow`.
    pub allow: bool,
    /// The pattern as written.
    pub pattern: String,
    compiled: Pattern,
}

impl fmt::Display for AiTxtRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.allow { "allow" } else { "disallow" };
        write!(f, "ai.txt line {} ({verb} `{}`)", self.line, self.pattern)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Group {
    agents: Vec<String>,
    rules: Vec<AiTxtRule>,
}

/// A parsed `/ai.txt`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AiTxt {
    groups: Vec<Group>,
}

/// The answer for one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AiTxtDecision {
    /// Not reserved; the matching `Allow` rule, if one matched.
    Allowed(Option<AiTxtRule>),
    /// Reserved by this `Disallow` rule.
    Disallowed(AiTxtRule),
}

impl AiTxtDecision {
    /// True when AI use is reserved.
    pub fn is_disallowed(&self) -> bool {
        matches!(self, AiTxtDecision::Disallowed(_))
    }

    /// The reservation for [`super::reservation::decide_use`], when disallowed.
    pub fn reservation(&self) -> Option<Reservation> {
        match self {
            AiTxtDecision::Disallowed(rule) => Some(rule_reservation(rule)),
            AiTxtDecision::Allowed(_) => None,
        }
    }
}

fn rule_reservation(rule: &AiTxtRule) -> Reservation {
    Reservation {
        source: ReservationSource::AiTxt { line: rule.line, pattern: rule.pattern.clone() },
        uses: UseSet::AI,
        policy: None,
    }
}

impl fmt::Display for AiTxtDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AiTxtDecision::Allowed(None) => f.write_str("no ai.txt rule applies"),
            AiTxtDecision::Allowed(Some(rule)) => write!(f, "ai use allowed by {rule}"),
            AiTxtDecision::Disallowed(rule) => write!(f, "ai use reserved by {rule}"),
        }
    }
}

/// The product token of a `User-Agent` value: up to the first `/` or space.
fn agent_token(value: &str) -> &str {
    let v = value.trim();
    let end = v.find(|c: char| c == '/' || c.is_whitespace()).unwrap_or(v.len());
    &v[..end]
}

impl AiTxt {
    /// Parses an ai.txt body; invalid UTF-8 is replaced, never rejected.
    pub fn parse_bytes(body: &[u8]) -> AiTxt {
        AiTxt::parse(&String::from_utf8_lossy(body))
    }

    /// Parses ai.txt text. Parsing never fails: lines it does not understand are skipped.
    pub fn parse(text: &str) -> AiTxt {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut groups: Vec<Group> = Vec::new();
        // Whether the current group already has rules, so that a new User-Agent line
        // opens a new group (RFC 9309 §2.1).
        let mut in_rules = true;
        for (number, raw) in numbered_lines(text) {
            let line = raw.split('#').next().unwrap_or("");
            let Some((field, value)) = line.split_once(':') else {
                continue;
            };
            let field = field.trim().to_ascii_lowercase();
            let value = value.trim();
            match field.as_str() {
                "user-agent" | "useragent" | "user agent" => {
                    if in_rules || groups.is_empty() {
                        groups.push(Group::default());
                        in_rules = false;
                    }
                    if let Some(g) = groups.last_mut() {
                        g.agents.push(agent_token(value).to_ascii_lowercase());
                    }
                }
                "allow" | "disallow" => {
                    in_rules = true;
                    let Some(g) = groups.last_mut() else {
                        continue;
                    };
                    // An empty Disallow allows everything: it holds no rule.
                    if value.is_empty() {
                        continue;
                    }
                    let file_type = !value.contains('/');
                    g.rules.push(AiTxtRule {
                        line: number,
                        allow: field == "allow",
                        pattern: value.to_owned(),
                        compiled: Pattern::new(value, file_type),
                    });
                }
                _ => {}
            }
        }
        AiTxt { groups }
    }

    /// The rules that apply to `token`: its own groups merged, else the `*` groups merged.
    fn rules_for<'a>(&'a self, token: &str) -> impl Iterator<Item = &'a AiTxtRule> + 'a {
        let token = agent_token(token).to_ascii_lowercase();
        let named = !token.is_empty() && self.groups.iter().any(|g| g.agents.contains(&token));
        let want = if named { token } else { "*".to_owned() };
        self.groups.iter().filter(move |g| g.agents.contains(&want)).flat_map(|g| g.rules.iter())
    }

    /// Decides for the file at `path` (URL path with query) and product token `token`.
    pub fn check(&self, token: &str, path: &str) -> AiTxtDecision {
        let mut best: Option<&AiTxtRule> = None;
        for rule in self.rules_for(token) {
            if !rule.compiled.matches(path) {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    rule.compiled.len() > b.compiled.len()
                        || (rule.compiled.len() == b.compiled.len() && rule.allow && !b.allow)
                }
            };
            if better {
                best = Some(rule);
            }
        }
        match best {
            Some(rule) if !rule.allow => AiTxtDecision::Disallowed(rule.clone()),
            other => AiTxtDecision::Allowed(other.cloned()),
        }
    }

    /// The first `Disallow` that applies to `token` anywhere, for stop-site profiles.
    pub fn first_reservation(&self, token: &str) -> Option<Reservation> {
        self.rules_for(token).find(|r| !r.allow).map(rule_reservation)
    }
}

/// The lines of `text` with their 1-based numbers; `\n`, `\r\n` and a lone `\r` each end
/// a line.
fn numbered_lines(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\n' || bytes[i] == b'\r' {
            out.push((out.len() + 1, &text[start..i]));
            if bytes[i] == b'\r' && bytes.get(i + 1) == Some(&b'\n') {
                i += 1;
            }
            start = i + 1;
        }
        i += 1;
    }
    if start < bytes.len() {
        out.push((out.len() + 1, &text[start..]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of the file Spawning's generator writes, trimmed.
    const SPAWNING: &str = "# Spawning AI\n\
        # Prevent datasets from using the following file types\n\
        \n\
        User-Agent: *\n\
        Disallow: *.jpg\n\
        Disallow: *.jpeg\n\
        Disallow: *.png\n\
        Disallow: *.txt\n\
        Disallow: *.html\n\
        Allow: /press/\n";

    const TOKEN: &str = "CIXTRA-Bot";

    /// One case: file, path, and the expected decision as text.
    #[track_caller]
    fn check(file: &str, path: &str, expect: &str) {
        assert_eq!(AiTxt::parse(file).check(TOKEN, path).to_string(), expect, "{path}");
    }

    #[test]
    fn spawning_file_types() {
        check(SPAWNING, "/img/poster.jpg", "ai use reserved by ai.txt line 5 (disallow `*.jpg`)");
        check(SPAWNING, "/img/POSTER.JPG", "ai use reserved by ai.txt line 5 (disallow `*.jpg`)");
        check(SPAWNING, "/events/42.html", "ai use reserved by ai.txt line 9 (disallow `*.html`)");
        check(SPAWNING, "/events/42", "no ai.txt rule applies");
        check(SPAWNING, "/press/photo.jpg", "ai use allowed by ai.txt line 10 (allow `/press/`)");
        check(SPAWNING, "/robots.txt", "ai use reserved by ai.txt line 8 (disallow `*.txt`)");
    }

    #[test]
    fn rfc9309_groups_and_precedence() {
        let file = "User-Agent: GPTBot\nDisallow: /\n\nUser-Agent: cixtra-bot/2.1\nUser-Agent: other\nDisallow: /private\nAllow: /private/open\n\nUser-agent: *\nDisallow: /\n";
        check(file, "/events", "no ai.txt rule applies");
        check(file, "/private/x", "ai use reserved by ai.txt line 6 (disallow `/private`)");
        check(file, "/private/open/x", "ai use allowed by ai.txt line 7 (allow `/private/open`)");
        assert!(AiTxt::parse(file).check("SomeBot", "/x").is_disallowed());
        // Tie: allow wins.
        check(
            "User-agent: *\nDisallow: /a\nAllow: /a\n",
            "/a",
            "ai use allowed by ai.txt line 3 (allow `/a`)",
        );
        // Several `*` groups merge.
        check(
            "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n",
            "/b",
            "ai use reserved by ai.txt line 5 (disallow `/b`)",
        );
    }

    #[test]
    fn spawning_leniency() {
        check("Disallow: /\n", "/x", "no ai.txt rule applies");
        check("User-Agent: *\nDisallow:\n", "/x", "no ai.txt rule applies");
        check(
            "user-agent:*\r\ndisallow: /x # reserved\r\n",
            "/x/y",
            "ai use reserved by ai.txt line 2 (disallow `/x`)",
        );
        check(
            "garbage\nUser-Agent: *\n\u{0}\nDisallow: /$\n",
            "/",
            "ai use reserved by ai.txt line 4 (disallow `/$`)",
        );
        check("", "/", "no ai.txt rule applies");
        assert!(
            AiTxt::parse_bytes(b"User-Agent: *\n\xff\nDisallow: /\n")
                .check(TOKEN, "/")
                .is_disallowed()
        );
    }

    #[test]
    fn seed_cixtra_reservations() {
        let ai = AiTxt::parse(SPAWNING);
        let r = ai.check(TOKEN, "/a.png").reservation().unwrap();
        assert_eq!(r.uses, UseSet::AI);
        assert_eq!(
            r.to_string(),
            "ai.txt line 7 (disallow `*.png`) reserves language-model, translation"
        );
        assert_eq!(
            ai.first_reservation(TOKEN).unwrap().source,
            ReservationSource::AiTxt { line: 5, pattern: "*.jpg".into() }
        );
        assert_eq!(AiTxt::parse("User-agent: *\nAllow: /\n").first_reservation(TOKEN), None);
        assert_eq!(ai.check(TOKEN, "/e").reservation(), None);
    }

    #[test]
    fn line_numbers() {
        assert_eq!(numbered_lines("a\nb\nc"), [(1, "a"), (2, "b"), (3, "c")]);
        assert_eq!(numbered_lines("a\r\nb\r\n"), [(1, "a"), (2, "b")]);
        assert_eq!(numbered_lines("a\rb\n\nc"), [(1, "a"), (2, "b"), (3, ""), (4, "c")]);
        assert!(numbered_lines("").is_empty());
    }
}
