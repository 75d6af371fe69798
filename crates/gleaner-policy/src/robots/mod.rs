//! robots.txt per RFC 9309: parsing, group selection, matching and explanations.
//!
//! We wrote our own instead of using a crate. The survey in `shared/CRATES.md` found
//! that `texting_robots` (unmaintained since 2023) fails the RFC's own percent-encoding
//! example (`%62%61%7A` = `baz`), applies rules that precede any group and does not
//! reduce `FooBot/1.0` to its product token, and that `robotstxt` errs towards
//! "allowed" on wildcards and a BOM. A robots.txt decision precedes every request we make,
//! so it must be exact, explainable (which group, which line) and fast; about 600 lines
//! of our own code buy all three.
//!
//! Layout:
//! - [`parse`]: bytes → [`RobotsTxt`] (groups, rules with line numbers, sitemaps);
//! - [`pattern`]: percent-encoding normalisation and linear-time wildcard matching;
//! - this module: [`RobotsTxt::for_agent`] selects and merges the groups for one product
//!   token into [`AgentRules`], indexed by literal prefix so a check costs about
//!   O(path length), and [`AgentRules::check`] returns a [`Verdict`] with its reason;
//! - [`outcome`]: what a robots.txt *fetch* outcome means (rules, allow all, or fetch
//!   nothing until it can be read again).

mod explain;
pub mod outcome;
pub mod pace;
pub mod parse;
pub mod pattern;

use std::fmt;

pub use pace::{Pace, RequestRate, UtcWindow, VisitTime, WindowLine};
pub use parse::{AgentName, Group, MAX_PARSED_BYTES, RobotsTxt, Rule, RuleKind, product_token};
pub use pattern::{Pattern, normalise, normalise_path};

/// Which groups of a robots.txt apply to an agent (RFC 9309 §2.2.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupSelection {
    /// One or more groups name our product token; their `User-agent` lines.
    Named {
        /// Lines of the `User-agent` lines that named us.
        agent_lines: Vec<usize>,
    },
    /// No group names us; the `*` groups apply.
    Wildcard {
        /// Lines of the `User-agent: *` lines.
        agent_lines: Vec<usize>,
    },
    /// No group applies: everything is allowed.
    None,
}

impl fmt::Display for GroupSelection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn lines(f: &mut fmt::Formatter<'_>, lines: &[usize]) -> fmt::Result {
            let list: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let word = if lines.len() == 1 { "line" } else { "lines" };
            write!(f, "{word} {}", list.join(", "))
        }
        match self {
            GroupSelection::Named { agent_lines } => {
                f.write_str("the group naming our product token (user-agent on ")?;
                lines(f, agent_lines)?;
                f.write_str(")")
            }
            GroupSelection::Wildcard { agent_lines } => {
                f.write_str("the `*` group (user-agent on ")?;
                lines(f, agent_lines)?;
                f.write_str(")")
            }
            GroupSelection::None => {
                f.write_str("no group (none names us and there is no `*` group)")
            }
        }
    }
}

/// Why a path is allowed or disallowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchReason {
    /// `/robots.txt` itself is always allowed (RFC 9309 §2.2.2).
    RobotsTxtItself,
    /// No rule of the selected groups matches: allowed.
    NoMatchingRule,
    /// The longest matching rule decided (an `Allow` wins a tie).
    Rule {
        /// Allow or disallow.
        kind: RuleKind,
        /// The normalised pattern of the rule.
        pattern: String,
        /// The rule's 1-based line number.
        line: usize,
    },
}

/// The answer for one path: allowed or not, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// True when the path may be fetched.
    pub allowed: bool,
    /// The rule (or absence of one) that decided.
    pub reason: MatchReason,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = if self.allowed { "allowed" } else { "disallowed" };
        match &self.reason {
            MatchReason::RobotsTxtItself => {
                write!(f, "{word}: /robots.txt is always allowed (RFC 9309 section 2.2.2)")
            }
            MatchReason::NoMatchingRule => write!(f, "{word}: no rule matches"),
            MatchReason::Rule { kind, pattern, line } => {
                write!(f, "{word} by line {line} `{}: {pattern}`", kind.as_str())
            }
        }
    }
}

/// A node of the literal-prefix trie over rule patterns.
#[derive(Debug, Clone, Default)]
struct Node {
    /// Children sorted by byte, for binary search.
    children: Vec<(u8, u32)>,
    /// Indices (into `AgentRules::rules`) of rules whose literal prefix ends here.
    rules: Vec<u32>,
}

/// Wildcard rules whose literal prefix is too short to filter on (`/*.php$`,
/// `/*?sessionid=`): indexed by their longest literal segment in one Aho-Corasick
/// automaton, so a check scans the path once instead of trying each rule.
#[derive(Debug, Clone)]
struct FloatingRules {
    /// Rule indices per pattern of `automaton` (rules sharing a key segment share its
    /// pattern, so a file of 40 000 `*a` rules builds an automaton of one).
    by_segment: Vec<Vec<u32>>,
    /// Finds which key segments occur in a path.
    automaton: Option<aho_corasick::AhoCorasick>,
    /// Rules with no literal segment at all (`/*`, `*$`): always candidates.
    always: Vec<u32>,
}

/// The rules of a robots.txt that apply to one agent, merged and indexed for matching.
#[derive(Debug, Clone)]
pub struct AgentRules {
    token: String,
    selection: GroupSelection,
    rules: Vec<Rule>,
    crawl_delay: Option<f64>,
    crawl_delay_line: Option<usize>,
    pace: Pace,
    nodes: Vec<Node>,
    floating: FloatingRules,
    prefs: Vec<crate::signals::prefs::PrefRule>,
}

impl AgentRules {
    /// Heap bytes the compiled rules hold (the merged rules, the prefix trie and the
    /// wildcard automaton), for the memory bound of issue 26.
    pub fn heap_bytes(&self) -> usize {
        let selection = match &self.selection {
            GroupSelection::Named { agent_lines } | GroupSelection::Wildcard { agent_lines } => {
                agent_lines.capacity() * std::mem::size_of::<usize>()
            }
            GroupSelection::None => 0,
        };
        let rules = self.rules.capacity() * std::mem::size_of::<Rule>()
            + self.rules.iter().map(|r| r.pattern.heap_bytes()).sum::<usize>();
        let nodes = self.nodes.capacity() * std::mem::size_of::<Node>()
            + self
                .nodes
                .iter()
                .map(|n| n.children.capacity() * 8 + n.rules.capacity() * 4)
                .sum::<usize>();
        let floating = self.floating.by_segment.capacity() * std::mem::size_of::<Vec<u32>>()
            + self.floating.by_segment.iter().map(|v| v.capacity() * 4).sum::<usize>()
            + self.floating.always.capacity() * 4
            + self.floating.automaton.as_ref().map_or(0, aho_corasick::AhoCorasick::memory_usage);
        let pace = self.pace.request_rates.capacity() * std::mem::size_of::<RequestRate>()
            + self.pace.visit_times.capacity() * std::mem::size_of::<VisitTime>();
        self.token.capacity()
            + selection
            + rules
            + nodes
            + floating
            + pace
            + self.prefs_heap_bytes()
    }
}

/// Wildcard rules whose literal prefix is at most this long go to the floating index.
const FLOATING_PREFIX_MAX: usize = 1;

/// Rule sets smaller than this are matched by trying each rule, with no index: the prefix
/// trie costs a node (48 bytes and a child list) per byte of every literal prefix, about
/// 2.5 KiB for a typical three-rule file, per site kept (issue 27), and trying a dozen
/// rules is as quick as walking it.
const INDEX_FROM_RULES: usize = 16;

impl RobotsTxt {
    /// Selects the groups for `agent` (a product token; `UGYBot/1.0` is reduced to
    /// `UGYBot`), merges them (RFC 9309 §2.2.1: several groups for one agent are
    /// combined) and indexes their rules. Matching of the token is case-insensitive and
    /// exact: a `CIXTRA` line does not match `CIXTRA-Bot`.
    pub fn for_agent(&self, agent: &str) -> AgentRules {
        let token = product_token(agent).unwrap_or_default();
        let named: Vec<&Group> = self
            .groups
            .iter()
            .filter(|g| {
                g.agents.iter().any(|(a, _)| matches!(a, AgentName::Token(t) if *t == token))
            })
            .collect();
        let (groups, selection) = if !named.is_empty() && !token.is_empty() {
            let lines = agent_lines(&named, |a| matches!(a, AgentName::Token(t) if *t == token));
            (named, GroupSelection::Named { agent_lines: lines })
        } else {
            let any: Vec<&Group> = self
                .groups
                .iter()
                .filter(|g| g.agents.iter().any(|(a, _)| *a == AgentName::Any))
                .collect();
            if any.is_empty() {
                (any, GroupSelection::None)
            } else {
                let lines = agent_lines(&any, |a| *a == AgentName::Any);
                (any, GroupSelection::Wildcard { agent_lines: lines })
            }
        };
        let rules: Vec<Rule> = groups.iter().flat_map(|g| g.rules.iter().cloned()).collect();
        let (crawl_delay, crawl_delay_line) = groups
            .iter()
            .filter_map(|g| Some((g.crawl_delay?, g.crawl_delay_line?)))
            .fold((None, None), |(best, line), (d, l)| match best {
                Some(b) if b >= d => (Some(b), line),
                _ => (Some(d), Some(l)),
            });
        let pace = Pace {
            request_rates: groups.iter().flat_map(|g| g.request_rates.iter().copied()).collect(),
            visit_times: groups.iter().flat_map(|g| g.visit_times.iter().copied()).collect(),
        };
        let mut rules = AgentRules::new(token, selection, rules, crawl_delay, crawl_delay_line)
            .with_preferences(&groups);
        rules.pace = pace;
        rules
    }
}

fn agent_lines(groups: &[&Group], is_us: impl Fn(&AgentName) -> bool) -> Vec<usize> {
    groups.iter().flat_map(|g| g.agents.iter()).filter(|(a, _)| is_us(a)).map(|(_, l)| *l).collect()
}

impl AgentRules {
    fn new(
        token: String,
        selection: GroupSelection,
        rules: Vec<Rule>,
        crawl_delay: Option<f64>,
        crawl_delay_line: Option<usize>,
    ) -> AgentRules {
        let mut floating =
            FloatingRules { by_segment: Vec::new(), automaton: None, always: Vec::new() };
        let prefs = Vec::new();
        if rules.len() < INDEX_FROM_RULES {
            // No index: `best_rule` tries each rule (an empty trie says so).
            let mut rules = rules;
            rules.shrink_to_fit();
            return AgentRules {
                token,
                selection,
                rules,
                crawl_delay,
                crawl_delay_line,
                pace: Pace::default(),
                nodes: Vec::new(),
                floating,
                prefs,
            };
        }
        let mut nodes = vec![Node::default()];
        let mut segments: Vec<&[u8]> = Vec::new();
        let mut segment_ids: std::collections::HashMap<&[u8], usize> =
            std::collections::HashMap::new();
        for (index, rule) in rules.iter().enumerate() {
            let pattern = &rule.pattern;
            if pattern.has_wildcard() && pattern.literal_prefix().len() <= FLOATING_PREFIX_MAX {
                let key = pattern.key_segment();
                if key.is_empty() {
                    floating.always.push(index as u32);
                } else {
                    let id = *segment_ids.entry(key).or_insert_with(|| {
                        segments.push(key);
                        floating.by_segment.push(Vec::new());
                        segments.len() - 1
                    });
                    floating.by_segment[id].push(index as u32);
                }
                continue;
            }
            let mut at = 0usize;
            for &byte in rule.pattern.literal_prefix() {
                at = match nodes[at].children.binary_search_by_key(&byte, |&(b, _)| b) {
                    Ok(found) => nodes[at].children[found].1 as usize,
                    Err(insert_at) => {
                        let child = nodes.len();
                        nodes.push(Node::default());
                        nodes[at].children.insert(insert_at, (byte, child as u32));
                        child
                    }
                };
            }
            nodes[at].rules.push(index as u32);
        }
        if !segments.is_empty() {
            // A contiguous NFA, never the DFA the builder picks for few patterns: the
            // DFA's transition tables cost tens of KiB for a handful of segments, per
            // site kept (issue 26's linear bound; issue 27's memory per site), and
            // matching paths of a few hundred bytes needs no DFA's speed.
            floating.automaton = aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
                .match_kind(aho_corasick::MatchKind::Standard)
                .build(&segments)
                .ok();
        }
        nodes.shrink_to_fit();
        AgentRules {
            token,
            selection,
            rules,
            crawl_delay,
            crawl_delay_line,
            pace: Pace::default(),
            nodes,
            floating,
            prefs,
        }
    }

    /// The product token these rules were selected for (lower-case).
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Which groups were selected.
    pub fn selection(&self) -> &GroupSelection {
        &self.selection
    }

    /// The merged rules of the selected groups, in file order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The selected groups' `Crawl-delay` in seconds (the largest when several groups
    /// give one), and the line it came from.
    pub fn crawl_delay(&self) -> Option<(f64, usize)> {
        Some((self.crawl_delay?, self.crawl_delay_line?))
    }

    /// The selected groups' `Request-rate` and `Visit-time` lines (see [`pace`]).
    pub fn pace(&self) -> &Pace {
        &self.pace
    }

    /// True when these rules disallow every path except `/robots.txt`: no `Allow` rule,
    /// and a `Disallow` that matches every path (`/`, `*` or `/*`). A site in this state
    /// is asked for robots.txt alone (SPEC §1).
    pub fn disallows_all(&self) -> bool {
        !self.rules.iter().any(|r| r.kind == RuleKind::Allow)
            && self
                .rules
                .iter()
                .any(|r| matches!(r.pattern.as_str(), "/" | "*" | "/*" | "**" | "/**"))
    }

    /// Decides whether a path (with its query, e.g. `/a/b?c=d`) may be fetched, and
    /// why. The path is normalised first (see [`normalise_path`]).
    pub fn check(&self, path_and_query: &str) -> Verdict {
        let path = normalise_path(path_and_query);
        if is_robots_txt(path.as_bytes()) {
            return Verdict { allowed: true, reason: MatchReason::RobotsTxtItself };
        }
        match self.best_rule(path.as_bytes()) {
            None => Verdict { allowed: true, reason: MatchReason::NoMatchingRule },
            Some(rule) => Verdict {
                allowed: rule.kind == RuleKind::Allow,
                reason: MatchReason::Rule {
                    kind: rule.kind,
                    pattern: rule.pattern.as_str().to_owned(),
                    line: rule.line,
                },
            },
        }
    }

    /// Shorthand for `check(path).allowed`, without building the explanation.
    pub fn is_allowed(&self, path_and_query: &str) -> bool {
        let path = normalise_path(path_and_query);
        is_robots_txt(path.as_bytes())
            || self.best_rule(path.as_bytes()).is_none_or(|rule| rule.kind == RuleKind::Allow)
    }

    /// The deciding rule for a normalised path: the longest match, `Allow` on a tie.
    fn best_rule(&self, path: &[u8]) -> Option<&Rule> {
        let mut best: Option<&Rule> = None;
        if self.nodes.is_empty() {
            // A small set, not indexed: try each rule.
            for rule in &self.rules {
                if beats(rule, best) && rule.pattern.matches(path) {
                    best = Some(rule);
                }
            }
            return best;
        }
        let mut consider = |index: u32, prefix_checked: bool| {
            let rule = &self.rules[index as usize];
            if beats(rule, best)
                && (if prefix_checked {
                    rule.pattern.matches_after_prefix(path)
                } else {
                    rule.pattern.matches(path)
                })
            {
                best = Some(rule);
            }
        };
        // Rules with a literal prefix: walk the path down the prefix trie.
        let mut at = 0usize;
        let mut depth = 0usize;
        loop {
            for &index in &self.nodes[at].rules {
                consider(index, true);
            }
            let Some(&byte) = path.get(depth) else { break };
            match self.nodes[at].children.binary_search_by_key(&byte, |&(b, _)| b) {
                Ok(found) => at = self.nodes[at].children[found].1 as usize,
                Err(_) => break,
            }
            depth += 1;
        }
        // Wildcard rules without a usable prefix: only those whose key segment occurs.
        for &index in &self.floating.always {
            consider(index, false);
        }
        if let Some(automaton) = &self.floating.automaton {
            for found in automaton.find_overlapping_iter(path) {
                for &index in &self.floating.by_segment[found.pattern().as_usize()] {
                    consider(index, false);
                }
            }
        }
        best
    }
}

impl AgentRules {
    /// The `Content-Usage` and `Content-Signal` rules of the selected groups, in file
    /// order with their lines: decide with [`crate::signals::prefs::decide`].
    pub fn preferences(&self) -> &[crate::signals::prefs::PrefRule] {
        &self.prefs
    }

    fn with_preferences(mut self, groups: &[&Group]) -> AgentRules {
        self.prefs = groups.iter().flat_map(|g| g.prefs.iter().cloned()).collect();
        self
    }

    fn prefs_heap_bytes(&self) -> usize {
        self.prefs.capacity() * std::mem::size_of::<crate::signals::prefs::PrefRule>()
            + self.prefs.iter().map(crate::signals::prefs::PrefRule::heap_bytes).sum::<usize>()
    }
}

fn is_robots_txt(path: &[u8]) -> bool {
    path.split(|&b| b == b'?').next() == Some(b"/robots.txt")
}

/// Would `rule` win over `best` if it matched? Longest pattern wins; on equal length an
/// `Allow` wins (RFC 9309 §2.2.2).
fn beats(rule: &Rule, best: Option<&Rule>) -> bool {
    match best {
        None => true,
        Some(best) => {
            let (len, best_len) = (rule.pattern.match_len(), best.pattern.match_len());
            len > best_len
                || (len == best_len
                    && rule.kind == RuleKind::Allow
                    && best.kind == RuleKind::Disallow)
        }
    }
}

#[cfg(test)]
mod tests;
