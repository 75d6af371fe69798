//! `X-Robots-Tag` headers and robots meta tags: what a page lets gleaner do with it
//! (Google's "Robots meta tag, data-nosnippet, and X-Robots-Tag specifications"; SPEC §1
//! "Rights signals"; the CIXTRA-Bot seed for `noai`, `noimageai`, `noml`).
//!
//! Sources, all combined (Google: "the sum of the negative rules applies"):
//! - every `X-Robots-Tag` header field, each a comma list, where an item `botname: rule`
//!   switches the rest of that field to `botname`; rules for our product token and rules
//!   without a bot name apply, rules for other bots do not;
//! - every `Robots-Tag` header field (draft-illyes-repext: the same rules without the
//!   experimental `X-`, several fields combine), read the same way; its items may also
//!   be written as structured-field strings (`"gleaner: noindex"`);
//! - `<meta name="robots">` (all bots) and `<meta name="TOKEN">` (our product token,
//!   case-insensitive), passed in as extracted `(name, content)` pairs.
//!
//! Rules only ever restrict: `all`, `index` and `follow` cancel nothing. Mapping (SPEC §1):
//! `noindex` → events from the page are not published; `nofollow` → its links are not
//! followed; `noarchive` (and Bing's `nocache`) → no stored body or parser sample;
//! `nosnippet` and `max-snippet:0` → no description; `noimageindex` and
//! `max-image-preview:none` → no image URL or relay; `none` = `noindex, nofollow`;
//! `notranslate` → no translation. `noai`, `noml` (language-model use and translation)
//! and `noimageai` (images) are rights reservations handed to [`super::reservation`].
//! Unknown rules, and `unavailable_after`, are ignored.

use std::fmt;

use super::reservation::{Reservation, ReservationSource, UseSet};
use super::{header_values, split_list};

/// A restricting rule gleaner acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Directive {
    /// Do not publish events from this page.
    NoIndex,
    /// Do not follow this page's links.
    NoFollow,
    /// Do not keep the body or a parser sample.
    NoArchive,
    /// Do not keep the description.
    NoSnippet,
    /// Do not keep or relay images.
    NoImageIndex,
    /// Do not translate.
    NoTranslate,
    /// No AI use of the content (a rights reservation).
    NoAi,
    /// No AI use of the images (a rights reservation).
    NoImageAi,
    /// No machine-learning use (a rights reservation).
    NoMl,
}

impl Directive {
    /// The directive's own name, lower-case.
    pub const fn as_str(self) -> &'static str {
        match self {
            Directive::NoIndex => "noindex",
            Directive::NoFollow => "nofollow",
            Directive::NoArchive => "noarchive",
            Directive::NoSnippet => "nosnippet",
            Directive::NoImageIndex => "noimageindex",
            Directive::NoTranslate => "notranslate",
            Directive::NoAi => "noai",
            Directive::NoImageAi => "noimageai",
            Directive::NoMl => "noml",
        }
    }

    /// The uses a rights directive reserves (empty for the others).
    pub const fn reserved_uses(self) -> UseSet {
        match self {
            Directive::NoAi | Directive::NoMl => UseSet::AI,
            Directive::NoImageAi => UseSet::IMAGES,
            _ => UseSet::EMPTY,
        }
    }
}

impl fmt::Display for Directive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads one rule; `written` is the rule as found, lower-cased, with any value. Returns
/// the directives it implies and the word to cite.
fn directives_of(written: &str) -> (&'static [Directive], &'static str) {
    use Directive::*;
    let compact: String = written.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    match compact.as_str() {
        "noindex" => (&[NoIndex], "noindex"),
        "nofollow" => (&[NoFollow], "nofollow"),
        "none" => (&[NoIndex, NoFollow], "none"),
        "noarchive" => (&[NoArchive], "noarchive"),
        "nocache" => (&[NoArchive], "nocache"),
        "nosnippet" => (&[NoSnippet], "nosnippet"),
        "max-snippet:0" => (&[NoSnippet], "max-snippet:0"),
        "noimageindex" => (&[NoImageIndex], "noimageindex"),
        "max-image-preview:none" => (&[NoImageIndex], "max-image-preview:none"),
        "notranslate" => (&[NoTranslate], "notranslate"),
        "noai" => (&[NoAi], "noai"),
        "noimageai" => (&[NoImageAi], "noimageai"),
        "noml" => (&[NoMl], "noml"),
        _ => (&[], ""),
    }
}

/// A structured-field string item (`"gleaner: noindex"`) without its quotes; any other
/// item as it is. Escapes inside are rare in practice and left as written.
fn unquote(item: &str) -> &str {
    let item = item.trim();
    item.strip_prefix('"').and_then(|i| i.strip_suffix('"')).map_or(item, str::trim)
}

/// Rules that take a value after a colon, so `name: value` is a rule, not a bot name.
fn takes_value(name: &str) -> bool {
    matches!(name, "max-snippet" | "max-image-preview" | "max-video-preview" | "unavailable_after")
}

/// A user-agent product token: letters, digits and `-_.`, so that a date's `15:00` is not
/// mistaken for a bot name.
fn is_bot_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Where a directive was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The directive.
    pub directive: Directive,
    /// The rule as written that implied it (`none` implies `noindex` and `nofollow`).
    pub written: &'static str,
    /// True for an `X-Robots-Tag` or `Robots-Tag` header, false for a meta tag.
    pub header: bool,
    /// True for a `Robots-Tag` header (draft-illyes-repext), false otherwise.
    pub robots_tag: bool,
    /// True when the rule named our product token, false when it applied to all bots.
    pub for_our_token: bool,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let place = match (self.header, self.robots_tag) {
            (true, true) => "robots-tag",
            (true, false) => "x-robots-tag",
            (false, _) => "a robots meta tag",
        };
        let whom = if self.for_our_token { "our token" } else { "all bots" };
        write!(f, "{} in {place} for {whom}", self.written)
    }
}

/// Something gleaner may want to do with a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PageAction {
    /// Publish the events read from it.
    Publish,
    /// Follow its links.
    FollowLinks,
    /// Keep its body or a parser test sample.
    StoreBody,
    /// Keep event descriptions from it.
    KeepDescription,
    /// Keep its image URLs or relay its images.
    KeepImage,
    /// Translate its text.
    Translate,
}

impl PageAction {
    /// The directive that forbids this action.
    pub const fn forbidden_by(self) -> Directive {
        match self {
            PageAction::Publish => Directive::NoIndex,
            PageAction::FollowLinks => Directive::NoFollow,
            PageAction::StoreBody => Directive::NoArchive,
            PageAction::KeepDescription => Directive::NoSnippet,
            PageAction::KeepImage => Directive::NoImageIndex,
            PageAction::Translate => Directive::NoTranslate,
        }
    }

    const fn consequence(self) -> &'static str {
        match self {
            PageAction::Publish => "events from this page are not published",
            PageAction::FollowLinks => "its links are not followed",
            PageAction::StoreBody => "no body or sample is kept",
            PageAction::KeepDescription => "no description is kept",
            PageAction::KeepImage => "no image url is kept or relayed",
            PageAction::Translate => "it is not translated",
        }
    }
}

/// The answer for one action, with the directive that forbids it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageDecision {
    /// Nothing on the page forbids it.
    Allowed,
    /// A directive forbids it.
    Forbidden {
        /// The action asked about.
        action: PageAction,
        /// The directive and where it was found.
        by: Found,
    },
}

impl PageDecision {
    /// True unless a directive forbids the action.
    pub fn is_allowed(&self) -> bool {
        matches!(self, PageDecision::Allowed)
    }
}

impl fmt::Display for PageDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PageDecision::Allowed => f.write_str("no robots directive applies"),
            PageDecision::Forbidden { action, by } => write!(f, "{by}: {}", action.consequence()),
        }
    }
}

/// Every restricting directive that applies to us on one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageRestrictions {
    found: Vec<Found>,
}

impl PageRestrictions {
    /// Reads the `X-Robots-Tag` fields among `headers` and the robots meta tags among
    /// `meta` (`(name, content)` pairs), for product token `token`.
    pub fn from_signals(
        token: &str,
        headers: &[(&str, &str)],
        meta: &[(&str, &str)],
    ) -> PageRestrictions {
        let mut r = PageRestrictions::default();
        for value in header_values(headers, "x-robots-tag") {
            r.add_header_value(token, value);
        }
        for value in header_values(headers, "robots-tag") {
            r.add_robots_tag_value(token, value);
        }
        for (name, content) in meta {
            r.add_meta(token, name, content);
        }
        r
    }

    /// Adds one `X-Robots-Tag` field value.
    pub fn add_header_value(&mut self, token: &str, value: &str) {
        self.add_field(token, value, false);
    }

    /// Adds one `Robots-Tag` field value (draft-illyes-repext): the rules and per-bot
    /// scoping of `X-Robots-Tag`, items optionally quoted as structured-field strings.
    pub fn add_robots_tag_value(&mut self, token: &str, value: &str) {
        self.add_field(token, value, true);
    }

    fn add_field(&mut self, token: &str, value: &str, robots_tag: bool) {
        // `None` scope = all bots; `Some(ours)` after a `botname:` prefix.
        let mut scope: Option<bool> = None;
        for item in split_list(value) {
            let item = if robots_tag { unquote(item) } else { item };
            let mut rule = item;
            if let Some((name, rest)) = item.split_once(':') {
                let name = name.trim();
                if is_bot_name(name) && !takes_value(&name.to_ascii_lowercase()) {
                    scope = Some(name.eq_ignore_ascii_case(token.trim()));
                    rule = rest.trim();
                }
            }
            match scope {
                Some(false) => {}
                ours => self.add_rules(rule, true, robots_tag, ours.is_some()),
            }
        }
    }

    /// Adds one meta tag; tags other than `robots` and our token are ignored.
    pub fn add_meta(&mut self, token: &str, name: &str, content: &str) {
        let name = name.trim();
        let ours = name.eq_ignore_ascii_case(token.trim()) && !token.trim().is_empty();
        if !ours && !name.eq_ignore_ascii_case("robots") {
            return;
        }
        for item in split_list(content) {
            self.add_rules(item, false, false, ours);
        }
    }

    /// Adds one list item. Items without a colon may hold several space-separated rules
    /// (`noindex nofollow`), which some sites write.
    fn add_rules(&mut self, item: &str, header: bool, robots_tag: bool, for_our_token: bool) {
        let lower = item.to_ascii_lowercase();
        if lower.contains(':') {
            self.push(&lower, header, robots_tag, for_our_token);
        } else {
            for word in lower.split_ascii_whitespace() {
                self.push(word, header, robots_tag, for_our_token);
            }
        }
    }

    fn push(&mut self, rule: &str, header: bool, robots_tag: bool, for_our_token: bool) {
        let (directives, written) = directives_of(rule);
        for &directive in directives {
            let found = Found { directive, written, header, robots_tag, for_our_token };
            if !self.found.contains(&found) {
                self.found.push(found);
            }
        }
    }

    /// Every directive found, in the order found.
    pub fn found(&self) -> &[Found] {
        &self.found
    }

    /// Whether `d` applies.
    pub fn contains(&self, d: Directive) -> bool {
        self.found.iter().any(|f| f.directive == d)
    }

    /// Whether gleaner may do `action` with the page, and if not, which directive says so.
    pub fn decide(&self, action: PageAction) -> PageDecision {
        let d = action.forbidden_by();
        match self.found.iter().find(|f| f.directive == d) {
            Some(by) => PageDecision::Forbidden { action, by: *by },
            None => PageDecision::Allowed,
        }
    }

    /// The rights reservations among the directives (`noai`, `noimageai`, `noml`), for
    /// [`super::reservation::decide_use`].
    pub fn reservations(&self) -> Vec<Reservation> {
        self.found
            .iter()
            .filter(|f| !f.directive.reserved_uses().is_empty())
            .map(|f| Reservation {
                source: ReservationSource::RobotsDirective {
                    directive: f.written,
                    header: f.header,
                },
                uses: f.directive.reserved_uses(),
                policy: None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "CIXTRA-Bot";

    /// One case: headers, meta pairs, and the directives expected (sorted).
    #[track_caller]
    fn check(headers: &[(&str, &str)], meta: &[(&str, &str)], expect: &[Directive]) {
        let r = PageRestrictions::from_signals(TOKEN, headers, meta);
        let mut got: Vec<Directive> = r.found().iter().map(|f| f.directive).collect();
        got.sort();
        got.dedup();
        assert_eq!(got, expect, "{headers:?} {meta:?}");
    }

    use Directive::*;

    #[test]
    fn google_x_robots_tag() {
        check(&[("X-Robots-Tag", "noindex")], &[], &[NoIndex]);
        check(&[("x-robots-tag", "noindex, nofollow")], &[], &[NoIndex, NoFollow]);
        check(&[("X-Robots-Tag", "none")], &[], &[NoIndex, NoFollow]);
        check(
            &[("X-Robots-Tag", "noarchive"), ("X-Robots-Tag", "nosnippet")],
            &[],
            &[NoArchive, NoSnippet],
        );
        check(&[("X-Robots-Tag", "NoImageIndex")], &[], &[NoImageIndex]);
        check(&[("X-Robots-Tag", "all"), ("X-Robots-Tag", "index, follow")], &[], &[]);
        check(&[("X-Robots-Tag", "max-snippet: 0")], &[], &[NoSnippet]);
        check(&[("X-Robots-Tag", "max-snippet:20, max-image-preview:none")], &[], &[NoImageIndex]);
        check(&[("X-Robots-Tag", "unavailable_after: 25 Jun 2010 15:00:00 PST")], &[], &[]);
        check(&[("X-Robots-Tag", "notranslate")], &[], &[NoTranslate]);
        check(
            &[("X-Robots-Tag", "unavailable_after: Friday, 25-Jun-10 15:00:00 GMT, noindex")],
            &[],
            &[NoIndex],
        );
    }

    #[test]
    fn google_x_robots_tag_bot_names() {
        check(&[("X-Robots-Tag", "googlebot: nofollow")], &[], &[]);
        check(&[("X-Robots-Tag", "cixtra-bot: noindex, nofollow")], &[], &[NoIndex, NoFollow]);
        check(
            &[("X-Robots-Tag", "otherbot: noindex, nofollow"), ("X-Robots-Tag", "noarchive")],
            &[],
            &[NoArchive],
        );
        check(&[("X-Robots-Tag", "googlebot: noindex, CIXTRA-Bot: nofollow")], &[], &[NoFollow]);
        check(&[("X-Robots-Tag", "CIXTRA-Bot: noai, googlebot: noindex")], &[], &[NoAi]);
    }

    #[test]
    fn repext_robots_tag_header() {
        // draft-illyes-repext: `Robots-Tag` carries the same rules as `X-Robots-Tag`.
        check(&[("Robots-Tag", "noindex")], &[], &[NoIndex]);
        check(&[("robots-tag", "noindex, nofollow")], &[], &[NoIndex, NoFollow]);
        check(&[("Robots-Tag", "cixtra-bot: noindex")], &[], &[NoIndex]);
        check(&[("Robots-Tag", "otherbot: noindex")], &[], &[]);
        check(&[("Robots-Tag", "otherbot: noindex, CIXTRA-Bot: nosnippet")], &[], &[NoSnippet]);
        // Structured-field strings, several fields combined, and beside X-Robots-Tag.
        check(
            &[("Robots-Tag", "\"CIXTRA-Bot: noarchive\", \"nofollow\"")],
            &[],
            &[NoFollow, NoArchive],
        );
        check(
            &[("Robots-Tag", "noimageindex"), ("Robots-Tag", "notranslate")],
            &[],
            &[NoImageIndex, NoTranslate],
        );
        check(
            &[("X-Robots-Tag", "nofollow"), ("Robots-Tag", "noindex")],
            &[],
            &[NoIndex, NoFollow],
        );
        // A scope ends with its field: the next field applies to all bots again.
        check(&[("Robots-Tag", "otherbot: noindex"), ("Robots-Tag", "noai")], &[], &[NoAi]);
        let r =
            PageRestrictions::from_signals(TOKEN, &[("Robots-Tag", "CIXTRA-Bot: noindex")], &[]);
        let why = r.decide(PageAction::Publish);
        assert_eq!(
            why.to_string(),
            "noindex in robots-tag for our token: events from this page are not published"
        );
        assert!(crate::signals::is_rights_header("Robots-Tag"));
    }

    #[test]
    fn seed_cixtra_noai_noimageai_noml() {
        check(&[("X-Robots-Tag", "noai, noimageai")], &[], &[NoAi, NoImageAi]);
        check(&[], &[("robots", "noml")], &[NoMl]);
        check(&[], &[("CIXTRA-Bot", "noimageai")], &[NoImageAi]);
        let r = PageRestrictions::from_signals(
            TOKEN,
            &[("X-Robots-Tag", "noai")],
            &[("robots", "noimageai")],
        );
        let res = r.reservations();
        assert_eq!(res.len(), 2);
        assert_eq!(res[0].uses, UseSet::AI);
        assert_eq!(res[0].to_string(), "noai in x-robots-tag reserves language-model, translation");
        assert_eq!(res[1].uses, UseSet::IMAGES);
        assert_eq!(
            res[1].to_string(),
            "noimageai in a robots meta tag reserves keep-image, relay-image"
        );
        assert!(
            PageRestrictions::from_signals(TOKEN, &[("X-Robots-Tag", "noindex")], &[])
                .reservations()
                .is_empty()
        );
    }

    #[test]
    fn google_robots_meta() {
        check(&[], &[("robots", "noindex, nofollow")], &[NoIndex, NoFollow]);
        check(&[], &[("ROBOTS", "NONE")], &[NoIndex, NoFollow]);
        check(&[], &[("robots", "noindex nofollow")], &[NoIndex, NoFollow]);
        check(&[], &[("googlebot", "noindex")], &[]);
        check(&[], &[("description", "noindex")], &[]);
        check(&[], &[("cixtra-bot", "nosnippet"), ("robots", "index, follow")], &[NoSnippet]);
        check(&[], &[("robots", "nocache")], &[NoArchive]);
        check(&[], &[("robots", "max-snippet:-1, max-image-preview:large")], &[]);
        check(&[], &[("robots", "")], &[]);
    }

    #[test]
    fn spec_page_actions() {
        let r = PageRestrictions::from_signals(
            TOKEN,
            &[("X-Robots-Tag", "CIXTRA-Bot: noindex")],
            &[("robots", "none, noarchive")],
        );
        let d = r.decide(PageAction::Publish);
        assert!(!d.is_allowed());
        assert_eq!(
            d.to_string(),
            "noindex in x-robots-tag for our token: events from this page are not published"
        );
        assert_eq!(
            r.decide(PageAction::FollowLinks).to_string(),
            "none in a robots meta tag for all bots: its links are not followed"
        );
        assert!(!r.decide(PageAction::StoreBody).is_allowed());
        assert!(r.decide(PageAction::KeepDescription).is_allowed());
        assert!(r.decide(PageAction::KeepImage).is_allowed());
        assert!(r.decide(PageAction::Translate).is_allowed());
        assert_eq!(PageRestrictions::default().decide(PageAction::Publish), PageDecision::Allowed);
        assert!(r.contains(NoIndex) && !r.contains(NoAi));
    }
}
