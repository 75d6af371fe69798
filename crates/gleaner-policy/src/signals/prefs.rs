//! AI-use preferences per purpose (issue 29, item 2): the IETF AI Preferences
//! `Content-Usage` field (draft-ietf-aipref-vocab, draft-ietf-aipref-attach) and
//! Cloudflare's `Content-Signal`, in robots.txt groups and as response headers, mapped
//! onto what gleaner does in one table, [`TABLE`].
//!
//! - `Content-Usage` values are RFC 9651 structured-field dictionaries whose members are
//!   labels with the token `y` or `n`: `train-ai=n, search=y`. Unknown labels, other
//!   values and parameters are ignored; a value that is not a valid dictionary says
//!   nothing at all (every use stays unknown). The labels form a tree: a use whose own
//!   label is absent takes its parent's answer.
//! - `Content-Signal` values are `key=yes|no` lists: `search=yes, ai-input=no,
//!   ai-train=no`. Unknown keys (`use=reference`) and malformed members are ignored.
//! - In robots.txt both are rules of a group, optionally with a path first
//!   (`Content-Usage: /photos/ train-ai=n`); within the group robots.txt selects for us
//!   the rule with the longest matching path applies (a rule without a path matches every
//!   path, as the shortest match). Rules of equal length combine.
//! - Everything that applies to a response — the robots.txt rules of each vocabulary and
//!   the response's own header fields — combines most restrictively: one `n`/`no` for a
//!   use says no, and names where it was written. Unknown is not a no.
//!
//! Pure: no I/O, no clock.

use std::fmt;

use crate::robots::pattern::{Pattern, normalise};

use super::reservation::{Reservation, ReservationSource, RightsUse, UseSet};

/// Which of the two vocabularies a field is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Vocabulary {
    /// IETF AI Preferences, `Content-Usage`.
    ContentUsage,
    /// Cloudflare's Content Signals, `Content-Signal`.
    ContentSignal,
}

impl Vocabulary {
    /// The field name, as robots.txt and HTTP write it.
    pub const fn field_name(self) -> &'static str {
        match self {
            Vocabulary::ContentUsage => "Content-Usage",
            Vocabulary::ContentSignal => "Content-Signal",
        }
    }

    /// The vocabulary of a robots.txt key or header name (ASCII case-insensitive).
    pub fn from_field_name(name: &str) -> Option<Vocabulary> {
        let name = name.trim();
        [Vocabulary::ContentUsage, Vocabulary::ContentSignal]
            .into_iter()
            .find(|v| v.field_name().eq_ignore_ascii_case(name))
    }
}

/// The AI Preferences labels gleaner reads. Others are ignored, as the vocabulary asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UsageLabel {
    /// `bots`, "automated processing": the root category of vocab drafts -00 to -03,
    /// parent of every other label. Read so that an older file's `bots=n` still counts.
    Bots,
    /// `train-ai`: AI training.
    TrainAi,
    /// `ai-use`: using an asset as input to an AI system (vocab drafts -02/-03). The
    /// vocabulary's closest label to Content Signals' `ai-input`.
    AiUse,
    /// `search`: building a search index and showing results that link back.
    Search,
}

impl UsageLabel {
    const ALL: [UsageLabel; 4] =
        [UsageLabel::Bots, UsageLabel::TrainAi, UsageLabel::AiUse, UsageLabel::Search];

    /// The label as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            UsageLabel::Bots => "bots",
            UsageLabel::TrainAi => "train-ai",
            UsageLabel::AiUse => "ai-use",
            UsageLabel::Search => "search",
        }
    }

    fn from_key(key: &str) -> Option<UsageLabel> {
        UsageLabel::ALL.into_iter().find(|l| l.as_str() == key)
    }
}

/// The Content Signals keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalKey {
    /// `search`: a search index and results that link back.
    Search,
    /// `ai-input`: input to an AI model at use time (grounding, retrieval, answers).
    AiInput,
    /// `ai-train`: training or fine-tuning a model.
    AiTrain,
}

impl SignalKey {
    const ALL: [SignalKey; 3] = [SignalKey::Search, SignalKey::AiInput, SignalKey::AiTrain];

    /// The key as written.
    pub const fn as_str(self) -> &'static str {
        match self {
            SignalKey::Search => "search",
            SignalKey::AiInput => "ai-input",
            SignalKey::AiTrain => "ai-train",
        }
    }

    fn from_key(key: &str) -> Option<SignalKey> {
        SignalKey::ALL.into_iter().find(|k| k.as_str().eq_ignore_ascii_case(key))
    }
}

/// What gleaner may do that a preference speaks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrefUse {
    /// Publishing the events read from a page.
    Search,
    /// Sending a page to the language model (extraction) or translating it.
    AiInput,
    /// Training a model. gleaner never does it, whatever a site says.
    AiTrain,
}

/// One row of the mapping table.
#[derive(Debug, Clone, Copy)]
pub struct TableRow {
    /// The use.
    pub use_: PrefUse,
    /// What gleaner does under this use, for the about page and `explain`.
    pub gleaner_does: &'static str,
    /// The AI Preferences labels that answer for it, own label first, then its parents.
    pub usage_labels: &'static [UsageLabel],
    /// The Content Signals key that answers for it.
    pub signal: SignalKey,
    /// The rights uses a "no" takes away.
    pub rights_uses: &'static [RightsUse],
    /// False when gleaner never does this at all.
    pub done_by_gleaner: bool,
}

/// The one table mapping both vocabularies onto gleaner's uses.
///
/// AI Preferences has no label for "a model reads this page to answer about it"; its
/// closest is `ai-use` (drafts -02/-03, "AI use"), whose parent is `bots`. Publishing
/// events with links back to their pages is what `search` describes in both vocabularies.
/// `train-ai`/`ai-train` are read and shown but change nothing: gleaner trains no model.
pub const TABLE: [TableRow; 3] = [
    TableRow {
        use_: PrefUse::Search,
        gleaner_does: "publishing the events read from a page",
        usage_labels: &[UsageLabel::Search, UsageLabel::Bots],
        signal: SignalKey::Search,
        rights_uses: &[RightsUse::KeepFacts, RightsUse::KeepDescription, RightsUse::KeepImage],
        done_by_gleaner: true,
    },
    TableRow {
        use_: PrefUse::AiInput,
        gleaner_does: "sending a page to the language model, or translating it",
        usage_labels: &[UsageLabel::AiUse, UsageLabel::Bots],
        signal: SignalKey::AiInput,
        rights_uses: &[RightsUse::LanguageModel, RightsUse::Translation],
        done_by_gleaner: true,
    },
    TableRow {
        use_: PrefUse::AiTrain,
        gleaner_does: "training a model (never done by gleaner)",
        usage_labels: &[UsageLabel::TrainAi, UsageLabel::Bots],
        signal: SignalKey::AiTrain,
        rights_uses: &[],
        done_by_gleaner: false,
    },
];

impl PrefUse {
    /// This use's row of [`TABLE`].
    pub fn row(self) -> &'static TableRow {
        TABLE.iter().find(|r| r.use_ == self).unwrap_or(&TABLE[0])
    }

    /// The use a rights use belongs to, per [`TABLE`].
    pub fn of_rights_use(use_: RightsUse) -> Option<PrefUse> {
        TABLE.iter().find(|r| r.rights_uses.contains(&use_)).map(|r| r.use_)
    }

    /// The stable name: the Content Signals key.
    pub const fn as_str(self) -> &'static str {
        match self {
            PrefUse::Search => "search",
            PrefUse::AiInput => "ai-input",
            PrefUse::AiTrain => "ai-train",
        }
    }
}

impl fmt::Display for PrefUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One label's answer in an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stated {
    Usage(UsageLabel, bool),
    Signal(SignalKey, bool),
}

/// A parsed `Content-Usage` or `Content-Signal` value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expression {
    /// The vocabulary it is written in.
    pub vocabulary: Vocabulary,
    stated: Vec<Stated>,
    /// False when the value was not a valid structured-field dictionary
    /// (`Content-Usage` only): it then says nothing.
    pub parsed: bool,
}

impl Expression {
    /// Parses a field value of `vocabulary`. Never fails: an unparseable
    /// `Content-Usage` is an expression that says nothing (`parsed == false`).
    pub fn parse(vocabulary: Vocabulary, value: &str) -> Expression {
        match vocabulary {
            Vocabulary::ContentUsage => match sf::dictionary(value) {
                Some(members) => {
                    let mut stated: Vec<Stated> = Vec::new();
                    for (key, value) in members {
                        let Some(label) = UsageLabel::from_key(&key) else { continue };
                        // A later member with the same key replaces an earlier one (RFC 9651
                        // §4.2.2); a value other than the token y or n says nothing.
                        stated.retain(|s| !matches!(s, Stated::Usage(l, _) if *l == label));
                        match value {
                            sf::Bare::Token(t) if t == "y" => {
                                stated.push(Stated::Usage(label, true));
                            }
                            sf::Bare::Token(t) if t == "n" => {
                                stated.push(Stated::Usage(label, false));
                            }
                            _ => {}
                        }
                    }
                    Expression { vocabulary, stated, parsed: true }
                }
                None => Expression { vocabulary, stated: Vec::new(), parsed: false },
            },
            Vocabulary::ContentSignal => {
                let mut stated: Vec<Stated> = Vec::new();
                for member in value.split(',') {
                    let Some((key, answer)) = member.split_once('=') else { continue };
                    let Some(key) = SignalKey::from_key(key.trim()) else { continue };
                    let answer = answer.trim();
                    let allowed = if answer.eq_ignore_ascii_case("yes") {
                        true
                    } else if answer.eq_ignore_ascii_case("no") {
                        false
                    } else {
                        continue;
                    };
                    stated.retain(|s| !matches!(s, Stated::Signal(k, _) if *k == key));
                    stated.push(Stated::Signal(key, allowed));
                }
                Expression { vocabulary, stated, parsed: true }
            }
        }
    }

    /// What this expression says about `use_`: `Some(true)` yes, `Some(false)` no,
    /// `None` unknown. With the label it was read from, as written.
    pub fn stance(&self, use_: PrefUse) -> Option<(bool, &'static str)> {
        let row = use_.row();
        match self.vocabulary {
            Vocabulary::ContentUsage => row.usage_labels.iter().find_map(|label| {
                self.stated.iter().find_map(|s| match s {
                    Stated::Usage(l, allowed) if l == label => Some((*allowed, l.as_str())),
                    _ => None,
                })
            }),
            Vocabulary::ContentSignal => self.stated.iter().find_map(|s| match s {
                Stated::Signal(k, allowed) if *k == row.signal => Some((*allowed, k.as_str())),
                _ => None,
            }),
        }
    }
}

/// One `Content-Usage` or `Content-Signal` line of a robots.txt group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefRule {
    /// The path it applies to; `None` for every path.
    pub path: Option<Pattern>,
    /// The preference it states.
    pub expression: Expression,
    /// 1-based line number in robots.txt.
    pub line: usize,
}

impl PrefRule {
    /// Reads a robots.txt rule's value: an optional path (it starts with `/`), then the
    /// expression.
    pub fn parse(vocabulary: Vocabulary, value: &str, line: usize) -> PrefRule {
        let value = value.trim();
        let (path, rest) = if value.starts_with('/') {
            match value.find([' ', '\t']) {
                Some(end) => (Some(Pattern::new(&value[..end])), value[end..].trim()),
                None => (Some(Pattern::new(value)), ""),
            }
        } else {
            (None, value)
        };
        PrefRule { path, expression: Expression::parse(vocabulary, rest), line }
    }

    /// Heap bytes the rule holds.
    pub fn heap_bytes(&self) -> usize {
        self.path.as_ref().map_or(0, Pattern::heap_bytes)
            + self.expression.stated.capacity() * std::mem::size_of::<Stated>()
    }

    fn match_len(&self, path: &[u8]) -> Option<usize> {
        match &self.path {
            None => Some(0),
            Some(p) => p.matches(path).then(|| p.match_len()),
        }
    }
}

/// Where the deciding preference was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefOrigin {
    /// A robots.txt rule.
    RobotsTxt {
        /// Its 1-based line number.
        line: usize,
    },
    /// A header field of the response the page came with.
    Header,
}

/// A "no": which use, which vocabulary and label said it, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefRefusal {
    /// The use refused.
    pub use_: PrefUse,
    /// The vocabulary it was written in.
    pub vocabulary: Vocabulary,
    /// The label or key that said no, as the vocabulary writes it.
    pub label: &'static str,
    /// Where.
    pub origin: PrefOrigin,
}

impl PrefRefusal {
    /// Writes where the "no" was written: `robots.txt line 3 `Content-Signal: search=no``.
    pub(crate) fn where_written(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let no = match self.vocabulary {
            Vocabulary::ContentUsage => "n",
            Vocabulary::ContentSignal => "no",
        };
        let field = self.vocabulary.field_name();
        match self.origin {
            PrefOrigin::RobotsTxt { line } => {
                write!(f, "robots.txt line {line} `{field}: {}={no}`", self.label)
            }
            PrefOrigin::Header => write!(f, "the `{field}: {}={no}` header", self.label),
        }
    }

    /// The reservation this refusal makes, over the rights uses [`TABLE`] maps its use
    /// to; `None` for a use gleaner never makes (training).
    pub fn reservation(&self) -> Option<Reservation> {
        let row = self.use_.row();
        (row.done_by_gleaner && !row.rights_uses.is_empty()).then(|| Reservation {
            source: ReservationSource::Preference(self.clone()),
            uses: UseSet::of(row.rights_uses),
            policy: None,
        })
    }
}

impl fmt::Display for PrefRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.where_written(f)?;
        write!(f, " refuses {} ({})", self.use_, self.use_.row().gleaner_does)
    }
}

/// The answer for one use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PrefDecision {
    /// No preference says no.
    Allowed,
    /// A preference says no.
    Refused(PrefRefusal),
}

impl PrefDecision {
    /// True unless a preference says no.
    pub fn is_allowed(&self) -> bool {
        matches!(self, PrefDecision::Allowed)
    }

    /// The refusal, if any.
    pub fn refusal(&self) -> Option<&PrefRefusal> {
        match self {
            PrefDecision::Allowed => None,
            PrefDecision::Refused(r) => Some(r),
        }
    }
}

impl fmt::Display for PrefDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PrefDecision::Allowed => f.write_str("no AI-use preference refuses it"),
            PrefDecision::Refused(r) => r.fmt(f),
        }
    }
}

fn refusal(expr: &Expression, use_: PrefUse, origin: PrefOrigin) -> Option<PrefRefusal> {
    match expr.stance(use_)? {
        (false, label) => Some(PrefRefusal { use_, vocabulary: expr.vocabulary, label, origin }),
        (true, _) => None,
    }
}

/// Decides `use_` for a URL (`path_and_query`, e.g. `/a?b`) from the robots.txt rules of
/// the group selected for us (`rules`, see `AgentRules::preferences`) and the
/// response's header fields (`headers`, empty when not fetched). Most restrictive wins.
pub fn decide(
    rules: &[PrefRule],
    path_and_query: &str,
    headers: &[(&str, &str)],
    use_: PrefUse,
) -> PrefDecision {
    let path = normalise(path_and_query);
    for vocabulary in [Vocabulary::ContentUsage, Vocabulary::ContentSignal] {
        let matching: Vec<(usize, &PrefRule)> = rules
            .iter()
            .filter(|r| r.expression.vocabulary == vocabulary)
            .filter_map(|r| Some((r.match_len(path.as_bytes())?, r)))
            .collect();
        let Some(longest) = matching.iter().map(|(len, _)| *len).max() else { continue };
        for (_, rule) in matching.iter().filter(|(len, _)| *len == longest) {
            let origin = PrefOrigin::RobotsTxt { line: rule.line };
            if let Some(no) = refusal(&rule.expression, use_, origin) {
                return PrefDecision::Refused(no);
            }
        }
    }
    header_decision(headers, use_)
}

/// Decides `use_` from a response's header fields alone.
pub fn header_decision(headers: &[(&str, &str)], use_: PrefUse) -> PrefDecision {
    for vocabulary in [Vocabulary::ContentUsage, Vocabulary::ContentSignal] {
        let values: Vec<&str> = headers
            .iter()
            .filter(|(n, _)| Vocabulary::from_field_name(n) == Some(vocabulary))
            .map(|(_, v)| v.trim())
            .collect();
        if values.is_empty() {
            continue;
        }
        // Several field lines are one value, joined by commas (RFC 9110 §5.3).
        let expr = Expression::parse(vocabulary, &values.join(", "));
        if let Some(no) = refusal(&expr, use_, PrefOrigin::Header) {
            return PrefDecision::Refused(no);
        }
    }
    PrefDecision::Allowed
}

/// A "no" for `use_` anywhere in the selected group, whatever its path: what stops a
/// whole site under `on_reservation = "stop-site"`.
pub fn site_wide(rules: &[PrefRule], use_: PrefUse) -> PrefDecision {
    rules
        .iter()
        .find_map(|r| refusal(&r.expression, use_, PrefOrigin::RobotsTxt { line: r.line }))
        .map_or(PrefDecision::Allowed, PrefDecision::Refused)
}

/// The uses gleaner makes (a row of [`TABLE`] with `done_by_gleaner`).
const GLEANER_USES: [PrefUse; 2] = [PrefUse::Search, PrefUse::AiInput];

/// The reservations the preferences make for the resource at `path_and_query`: one per
/// use of gleaner's that a preference refuses, as [`decide`] finds them. Training
/// preferences make none: gleaner never trains.
pub fn reservations(
    rules: &[PrefRule],
    path_and_query: &str,
    headers: &[(&str, &str)],
) -> Vec<Reservation> {
    GLEANER_USES
        .into_iter()
        .filter_map(|u| decide(rules, path_and_query, headers, u).refusal()?.reservation())
        .collect()
}

/// The reservations the robots.txt rules make anywhere on the site ([`site_wide`]).
pub fn site_wide_reservations(rules: &[PrefRule]) -> Vec<Reservation> {
    GLEANER_USES.into_iter().filter_map(|u| site_wide(rules, u).refusal()?.reservation()).collect()
}

/// Whether a header carries an AI-use preference (`Content-Usage`, `Content-Signal`).
pub fn is_pref_header(name: &str) -> bool {
    Vocabulary::from_field_name(name).is_some()
}

/// Just enough of RFC 9651 (Structured Field Values) to read a dictionary exactly:
/// every item type is recognised so that a valid value is never refused, but only
/// tokens and booleans are kept.
mod sf {
    /// A member's value, reduced to what AI Preferences reads.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(super) enum Bare {
        Token(String),
        Boolean(bool),
        Other,
    }

    struct Input<'a> {
        bytes: &'a [u8],
        at: usize,
    }

    impl Input<'_> {
        fn peek(&self) -> Option<u8> {
            self.bytes.get(self.at).copied()
        }
        fn bump(&mut self) -> Option<u8> {
            let b = self.peek()?;
            self.at += 1;
            Some(b)
        }
        fn skip_sp(&mut self) {
            while self.peek() == Some(b' ') {
                self.at += 1;
            }
        }
        fn skip_ows(&mut self) {
            while matches!(self.peek(), Some(b' ' | b'\t')) {
                self.at += 1;
            }
        }
    }

    /// Parses a dictionary (RFC 9651 §4.2.2); `None` when the value is not one.
    pub(super) fn dictionary(value: &str) -> Option<Vec<(String, Bare)>> {
        let mut input = Input { bytes: value.as_bytes(), at: 0 };
        input.skip_sp();
        let mut members = Vec::new();
        if input.peek().is_none() {
            return Some(members);
        }
        loop {
            let key = key(&mut input)?;
            let value = if input.peek() == Some(b'=') {
                input.at += 1;
                if input.peek() == Some(b'(') {
                    inner_list(&mut input)?;
                    Bare::Other
                } else {
                    let item = bare_item(&mut input)?;
                    parameters(&mut input)?;
                    item
                }
            } else {
                parameters(&mut input)?;
                Bare::Boolean(true)
            };
            members.push((key, value));
            input.skip_ows();
            match input.bump() {
                None => return Some(members),
                Some(b',') => {}
                Some(_) => return None,
            }
            input.skip_ows();
            input.peek()?; // a trailing comma is an error
        }
    }

    fn key(input: &mut Input<'_>) -> Option<String> {
        let start = input.at;
        match input.peek() {
            Some(b'a'..=b'z' | b'*') => input.at += 1,
            _ => return None,
        }
        while matches!(input.peek(), Some(b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' | b'*')) {
            input.at += 1;
        }
        Some(String::from_utf8_lossy(&input.bytes[start..input.at]).into_owned())
    }

    fn parameters(input: &mut Input<'_>) -> Option<()> {
        while input.peek() == Some(b';') {
            input.at += 1;
            input.skip_sp();
            key(input)?;
            if input.peek() == Some(b'=') {
                input.at += 1;
                bare_item(input)?;
            }
        }
        Some(())
    }

    fn inner_list(input: &mut Input<'_>) -> Option<()> {
        if input.bump()? != b'(' {
            return None;
        }
        loop {
            input.skip_sp();
            if input.peek()? == b')' {
                input.at += 1;
                return parameters(input);
            }
            bare_item(input)?;
            parameters(input)?;
            if !matches!(input.peek()?, b' ' | b')') {
                return None;
            }
        }
    }

    fn is_tchar(b: u8) -> bool {
        b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
    }

    fn bare_item(input: &mut Input<'_>) -> Option<Bare> {
        match input.peek()? {
            b'-' | b'0'..=b'9' => number(input).map(|()| Bare::Other),
            b'"' => string(input).map(|()| Bare::Other),
            b'*' | b'A'..=b'Z' | b'a'..=b'z' => {
                let start = input.at;
                input.at += 1;
                while input.peek().is_some_and(|b| is_tchar(b) || b == b':' || b == b'/') {
                    input.at += 1;
                }
                let token = String::from_utf8_lossy(&input.bytes[start..input.at]).into_owned();
                Some(Bare::Token(token))
            }
            b':' => {
                input.at += 1;
                while input.peek()?.is_ascii_alphanumeric() || b"+/=".contains(&input.peek()?) {
                    input.at += 1;
                }
                (input.bump()? == b':').then_some(Bare::Other)
            }
            b'?' => {
                input.at += 1;
                match input.bump()? {
                    b'0' => Some(Bare::Boolean(false)),
                    b'1' => Some(Bare::Boolean(true)),
                    _ => None,
                }
            }
            b'@' => {
                input.at += 1;
                number(input).map(|()| Bare::Other)
            }
            b'%' => {
                input.at += 1;
                if input.peek()? != b'"' {
                    return None;
                }
                display_string(input).map(|()| Bare::Other)
            }
            _ => None,
        }
    }

    fn number(input: &mut Input<'_>) -> Option<()> {
        if input.peek() == Some(b'-') {
            input.at += 1;
        }
        let (mut int_digits, mut frac_digits, mut decimal) = (0, 0, false);
        if !input.peek()?.is_ascii_digit() {
            return None;
        }
        while let Some(b) = input.peek() {
            match b {
                b'0'..=b'9' if decimal => frac_digits += 1,
                b'0'..=b'9' => int_digits += 1,
                b'.' if !decimal && int_digits <= 12 => decimal = true,
                _ => break,
            }
            input.at += 1;
        }
        let ok = if decimal {
            int_digits <= 12 && (1..=3).contains(&frac_digits)
        } else {
            int_digits <= 15
        };
        ok.then_some(())
    }

    fn string(input: &mut Input<'_>) -> Option<()> {
        input.at += 1;
        loop {
            match input.bump()? {
                b'\\' => {
                    if !matches!(input.bump()?, b'"' | b'\\') {
                        return None;
                    }
                }
                b'"' => return Some(()),
                0x20..=0x7e => {}
                _ => return None,
            }
        }
    }

    fn display_string(input: &mut Input<'_>) -> Option<()> {
        input.at += 1;
        let mut bytes = Vec::new();
        loop {
            match input.bump()? {
                b'%' => {
                    let hex = |b: u8| match b {
                        b'0'..=b'9' => Some(b - b'0'),
                        b'a'..=b'f' => Some(b - b'a' + 10),
                        _ => None,
                    };
                    let hi = hex(input.bump()?)?;
                    let lo = hex(input.bump()?)?;
                    bytes.push(hi << 4 | lo);
                }
                b'"' => return std::str::from_utf8(&bytes).ok().map(|_| ()),
                b @ 0x20..=0x7e => bytes.push(b),
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::robots::RobotsTxt;

    use PrefUse::{AiInput, AiTrain, Search};

    /// (value, use, expected: Some(true) yes / Some(false) no / None unknown)
    #[track_caller]
    fn check(vocabulary: Vocabulary, cases: &[(&str, PrefUse, Option<bool>)]) {
        for (value, use_, expect) in cases {
            let got = Expression::parse(vocabulary, value).stance(*use_).map(|(a, _)| a);
            assert_eq!(got, *expect, "{vocabulary:?} {value:?} for {use_}");
        }
    }

    #[test]
    fn aipref_vocab_header_examples() {
        check(
            Vocabulary::ContentUsage,
            &[
                // The vocabulary's own examples: a training opt-out, search allowed.
                ("train-ai=n", AiTrain, Some(false)),
                ("train-ai=n", Search, None),
                ("train-ai=n, search=y", Search, Some(true)),
                ("train-ai=n, search=y", AiTrain, Some(false)),
                ("search=n", Search, Some(false)),
                // The closest label for model input, and the root of the older drafts.
                ("ai-use=n", AiInput, Some(false)),
                ("bots=n", Search, Some(false)),
                ("bots=n, search=y", Search, Some(true)),
                ("bots=n, search=y", AiInput, Some(false)),
                ("train-ai=n", AiInput, None),
                // Unknown labels and parameters are ignored; values other than y/n too.
                ("foo=n, search=y", Search, Some(true)),
                ("search=n;reason=\"x\"", Search, Some(false)),
                ("search=\"n\"", Search, None),
                ("search=?0", Search, None),
                ("search", Search, None),
                ("search=(y n)", Search, None),
                ("search=yes", Search, None),
                // RFC 9651: the last member of a key wins.
                ("search=y, search=n", Search, Some(false)),
                ("search=n, search=y", Search, Some(true)),
                // Parse failures say nothing at all.
                ("Search=n", Search, None),
                ("search=n,", Search, None),
                ("search=n train-ai=n", Search, None),
                ("search=n, 1x=y", Search, None),
                ("search=n, =y", Search, None),
                ("", Search, None),
                // Whitespace RFC 9651 allows.
                ("  train-ai=n ,\tsearch=n", Search, Some(false)),
                ("a=1.5, b=:aGk=:, c=@1, d=%\"%c3%a9\", search=n", Search, Some(false)),
            ],
        );
    }

    #[test]
    fn content_signal_examples() {
        check(
            Vocabulary::ContentSignal,
            &[
                // Cloudflare's managed robots.txt.
                ("search=yes, ai-train=no", Search, Some(true)),
                ("search=yes, ai-train=no", AiTrain, Some(false)),
                ("search=yes, ai-train=no", AiInput, None),
                ("search=yes,ai-train=no,use=reference", AiInput, None),
                ("search=yes, ai-input=no, ai-train=no", AiInput, Some(false)),
                ("search=no", Search, Some(false)),
                ("SEARCH=No", Search, Some(false)),
                ("search=maybe, ai-input=no", Search, None),
                ("search, ai-input=no", AiInput, Some(false)),
            ],
        );
    }

    #[test]
    fn the_table_maps_every_use_once() {
        for use_ in [Search, AiInput, AiTrain] {
            assert_eq!(TABLE.iter().filter(|r| r.use_ == use_).count(), 1);
        }
        assert_eq!(PrefUse::of_rights_use(RightsUse::LanguageModel), Some(AiInput));
        assert_eq!(PrefUse::of_rights_use(RightsUse::Translation), Some(AiInput));
        assert_eq!(PrefUse::of_rights_use(RightsUse::KeepFacts), Some(Search));
        assert_eq!(PrefUse::of_rights_use(RightsUse::RelayImage), None);
        assert!(!AiTrain.row().done_by_gleaner);
    }

    fn rules(robots: &str) -> Vec<PrefRule> {
        RobotsTxt::parse(robots.as_bytes()).for_agent("gleaner/1").preferences().to_vec()
    }

    #[test]
    fn aipref_attach_robots_example() {
        // draft-ietf-aipref-attach: a preference for the site, and a longer path that
        // says otherwise.
        let r = rules(
            "User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n",
        );
        let d = decide(&r, "/page", &[], AiTrain);
        assert_eq!(d.refusal().map(|r| r.origin.clone()), Some(PrefOrigin::RobotsTxt { line: 4 }));
        assert!(decide(&r, "/ai-ok/x", &[], AiTrain).is_allowed(), "longest path wins");
        assert!(decide(&r, "/page", &[], Search).is_allowed());
        // Site-wide: the `n` anywhere in the group.
        assert!(!site_wide(&r, AiTrain).is_allowed());
        assert!(site_wide(&r, Search).is_allowed());
    }

    #[test]
    fn robots_group_selection_and_paths() {
        let file = "User-agent: gleaner\nContent-Signal: search=no\nAllow: /\n\nUser-agent: *\nContent-Signal: search=yes, ai-input=no\nDisallow: /x\n";
        let ours = rules(file);
        let d = decide(&ours, "/", &[], Search);
        assert_eq!(
            d.to_string(),
            "robots.txt line 2 `Content-Signal: search=no` refuses search (publishing the events read from a page)"
        );
        assert!(decide(&ours, "/", &[], AiInput).is_allowed(), "the `*` group is not ours");
        let others = RobotsTxt::parse(file.as_bytes()).for_agent("otherbot").preferences().to_vec();
        assert!(decide(&others, "/", &[], Search).is_allowed());
        assert!(!decide(&others, "/", &[], AiInput).is_allowed());
        // A path with wildcards, and a rule that ends a group like any other.
        let r = rules(
            "User-agent: *\nContent-Signal: /*.pdf$ ai-input=no\nContent-Usage: /drafts/ search=n\nUser-agent: other\n",
        );
        assert!(!decide(&r, "/a/b.pdf", &[], AiInput).is_allowed());
        assert!(decide(&r, "/a/b.pdf?x", &[], AiInput).is_allowed());
        assert!(!decide(&r, "/drafts/1", &[], Search).is_allowed());
        assert!(decide(&r, "/final/1", &[], Search).is_allowed());
        // An unparseable longest rule says nothing; it does not fall back.
        let r = rules("User-agent: *\nContent-Usage: search=n\nContent-Usage: /p/ search=n,\n");
        assert!(decide(&r, "/p/1", &[], Search).is_allowed());
        assert!(!decide(&r, "/q", &[], Search).is_allowed());
    }

    #[test]
    fn headers_and_robots_combine_most_restrictively() {
        let r = rules("User-agent: *\nContent-Usage: search=y\n");
        let train_only = [("Content-Usage", "train-ai=n, search=y")];
        assert!(decide(&r, "/e", &train_only, Search).is_allowed());
        let h = [("content-signal", "search=no")];
        let d = decide(&r, "/e", &h, Search);
        assert_eq!(d.refusal().map(|r| r.origin.clone()), Some(PrefOrigin::Header));
        // Two field lines are one dictionary: the later member wins.
        let two = [("Content-Usage", "search=n"), ("Content-Usage", "search=y")];
        assert!(header_decision(&two, Search).is_allowed());
        let bad = [("Content-Usage", "search=n"), ("Content-Usage", "?")];
        assert!(header_decision(&bad, Search).is_allowed(), "a failed parse is unknown");
        assert!(is_pref_header("CONTENT-USAGE") && !is_pref_header("x-robots-tag"));
    }

    #[test]
    fn refusals_become_reservations_of_the_mapped_uses_and_training_of_none() {
        let r = rules("User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\n");
        let found = reservations(&r, "/e", &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].uses.contains(RightsUse::LanguageModel));
        assert!(!found[0].uses.contains(RightsUse::KeepFacts));
        assert_eq!(
            found[0].to_string(),
            "robots.txt line 2 `Content-Signal: ai-input=no` reserves language-model, translation"
        );
        let managed = rules("User-agent: *\nContent-Signal: search=yes,ai-train=no\nAllow: /\n");
        assert!(site_wide_reservations(&managed).is_empty(), "gleaner never trains");
        let h = [("Content-Usage", "search=n")];
        assert!(reservations(&[], "/", &h)[0].uses.contains(RightsUse::KeepFacts));
    }
}
