//! The bot's compiled robots.txt rules per site, shared between sites with the same file.
//!
//! Choosing the bot's group and compiling its rules (`RobotsTxt::for_agent`) took a
//! large share of the gate's CPU when it ran on every request. The gate keeps the
//! compiled [`AgentRules`] for each site: a request compiles them again only when the
//! site's robots.txt changed (another `Arc`, and other bytes when a store re-read them).
//!
//! Memory (issue 27): many sites serve the same file (a CMS's default, a host's
//! template, often with a comment naming the site), so the compiled rules, the parsed
//! file and the one copy of its bytes that recognises it live in a [`RulesBook`] shared
//! by all sites, one entry per distinct file; a site keeps two pointers. A file is
//! recognised by its [`RobotsTxt::comparable`] bytes (comments cut, line numbers kept),
//! compared in full (a hash only finds the candidate), so two sites share rules only
//! when their files parse the same. An entry lives while a site uses it.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex, Weak};

use gleaner_policy::robots::{AgentRules, RobotsTxt};

/// Bodies up to this size are kept (once per distinct file, without comments) to
/// recognise a re-read of the same file; a larger file is compiled per site and
/// recognised by its `Arc` alone.
const KEEP_BODY_UP_TO: usize = 64 * 1024;

/// One distinct robots.txt, parsed and compiled for the bot's token.
#[derive(Debug)]
pub(super) struct Compiled {
    /// The file's comparable bytes, when kept (files of at most [`KEEP_BODY_UP_TO`]).
    body: Option<Box<[u8]>>,
    /// The token the rules were compiled for.
    token: Box<str>,
    /// The parsed file, shared by every site that serves these bytes.
    file: Arc<RobotsTxt>,
    /// Its rules for `token`.
    rules: Arc<AgentRules>,
}

impl Compiled {
    fn is(&self, body: &[u8], token: &str) -> bool {
        self.body.as_deref() == Some(body) && &*self.token == token
    }
}

/// The distinct robots.txt files of every site this gate has read, by their bytes.
#[derive(Debug, Default)]
pub(super) struct RulesBook {
    hasher: RandomState,
    inner: Mutex<Book>,
}

#[derive(Debug, Default)]
struct Book {
    by_hash: HashMap<u64, Vec<Weak<Compiled>>>,
    /// Entries at the last sweep of dead ones (the next sweep runs at twice as many).
    swept_at: usize,
}

impl RulesBook {
    fn key(&self, body: &[u8], token: &str) -> u64 {
        self.hasher.hash_one((body, token))
    }

    /// The entry for these bytes, when some site still uses one.
    fn find(&self, body: &[u8], token: &str) -> Option<Arc<Compiled>> {
        let key = self.key(body, token);
        let book = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        book.by_hash.get(&key)?.iter().filter_map(Weak::upgrade).find(|c| c.is(body, token))
    }

    /// The entry for `file` (read from a body of these comparable bytes): the shared one
    /// when the same bytes were compiled before, else compiled now and shared from now on.
    fn compiled(&self, file: &Arc<RobotsTxt>, kept: Option<Vec<u8>>, token: &str) -> Arc<Compiled> {
        if let Some(body) = kept.as_deref()
            && let Some(found) = self.find(body, token)
        {
            return found;
        }
        let key = kept.as_deref().map(|body| self.key(body, token));
        let compiled = Arc::new(Compiled {
            body: kept.map(Vec::into_boxed_slice),
            token: token.into(),
            file: Arc::clone(file),
            rules: Arc::new(file.for_agent(token)),
        });
        if let Some(key) = key {
            let mut book = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            let entries = book.by_hash.values().map(Vec::len).sum::<usize>();
            if entries >= book.swept_at.saturating_mul(2).max(64) {
                book.by_hash.retain(|_, list| {
                    list.retain(|w| w.strong_count() > 0);
                    !list.is_empty()
                });
                book.swept_at = book.by_hash.values().map(Vec::len).sum();
            }
            book.by_hash.entry(key).or_default().push(Arc::downgrade(&compiled));
        }
        compiled
    }
}

/// The comparable bytes of a body small enough to keep.
fn comparable(body: Option<&[u8]>) -> Option<Vec<u8>> {
    body.filter(|b| b.len() <= KEEP_BODY_UP_TO).map(RobotsTxt::comparable)
}

/// One site's compiled rules for the bot's token: the file they were compiled from
/// (weakly, to recognise it without keeping it) and the shared entry.
#[derive(Debug, Default)]
pub(super) struct AgentCache(Mutex<Option<(Weak<RobotsTxt>, Arc<Compiled>)>>);

impl AgentCache {
    /// The rules of `robots` (read from `body`) for `token`: the cached ones when they
    /// were compiled from the same file, else found in (or compiled into) `book`.
    pub(super) fn rules(
        &self,
        book: &RulesBook,
        robots: &Arc<RobotsTxt>,
        body: Option<&[u8]>,
        token: &str,
    ) -> Arc<AgentRules> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((file, compiled)) = slot.as_mut()
            && &*compiled.token == token
        {
            // A weak pointer keeps its allocation, so an equal address is the same file.
            if std::ptr::eq(file.as_ptr(), Arc::as_ptr(robots)) {
                return Arc::clone(&compiled.rules);
            }
        }
        let kept = comparable(body);
        if let Some((file, compiled)) = slot.as_mut()
            && let Some(body) = kept.as_deref()
            && compiled.is(body, token)
        {
            *file = Arc::downgrade(robots);
            return Arc::clone(&compiled.rules);
        }
        let compiled = book.compiled(robots, kept, token);
        let rules = Arc::clone(&compiled.rules);
        *slot = Some((Arc::downgrade(robots), compiled));
        rules
    }

    /// Takes in the file the site just read from `body`: compiles it (or finds the
    /// compilation another site with the same bytes made) and returns the parsed file
    /// to remember for the site, the shared one when there is one, so 10,000 sites with
    /// one template keep one parse.
    pub(super) fn adopt(
        &self,
        book: &RulesBook,
        file: &Arc<RobotsTxt>,
        body: &[u8],
        token: &str,
    ) -> Arc<RobotsTxt> {
        let compiled = book.compiled(file, comparable(Some(body)), token);
        let shared = Arc::clone(&compiled.file);
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *slot = Some((Arc::downgrade(&shared), compiled));
        shared
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_once_per_file_and_again_when_it_changes() {
        let book = RulesBook::default();
        let cache = AgentCache::default();
        let body = b"User-agent: TestBot\nDisallow: /private/\n".as_slice();
        let file = Arc::new(RobotsTxt::parse(body));
        let first = cache.rules(&book, &file, Some(body), "TestBot");
        assert!(Arc::ptr_eq(&first, &cache.rules(&book, &file, Some(body), "TestBot")));
        // The same bytes parsed again (as a store's read gives): still the cached rules.
        let reread = Arc::new(RobotsTxt::parse(body));
        assert!(Arc::ptr_eq(&first, &cache.rules(&book, &reread, Some(body), "TestBot")));
        // Another file: compiled again, and it decides by the new rules.
        let other = b"User-agent: *\nDisallow: /\n".as_slice();
        let changed =
            cache.rules(&book, &Arc::new(RobotsTxt::parse(other)), Some(other), "TestBot");
        assert!(!Arc::ptr_eq(&first, &changed));
        assert!(!first.check("/private/x").allowed && first.check("/a").allowed);
        assert!(!changed.check("/a").allowed);
    }

    #[test]
    fn sites_with_the_same_file_share_one_compilation_and_others_do_not() {
        let book = RulesBook::default();
        let (a, b, c) = (AgentCache::default(), AgentCache::default(), AgentCache::default());
        let body = b"User-agent: TestBot\nDisallow: /private/\n".as_slice();
        // Two sites, each with its own parse of the same bytes: one compilation, one
        // parse kept.
        let file_a = Arc::new(RobotsTxt::parse(body));
        let file_b = Arc::new(RobotsTxt::parse(body));
        let rules_a = a.rules(&book, &file_a, Some(body), "TestBot");
        let rules_b = b.rules(&book, &file_b, Some(body), "TestBot");
        assert!(Arc::ptr_eq(&rules_a, &rules_b));
        let kept_b = b.adopt(&book, &Arc::new(RobotsTxt::parse(body)), body, "TestBot");
        assert!(Arc::ptr_eq(&kept_b, &file_a), "a re-read keeps the shared parse");
        assert!(Arc::ptr_eq(&rules_a, &b.rules(&book, &kept_b, Some(body), "TestBot")));
        drop(kept_b);
        // A file that differs only in comments and line ends parses the same: shared.
        let commented = b"User-agent: TestBot# site 2\r\nDisallow: /private/\r\n".as_slice();
        let d = AgentCache::default();
        let rules_d =
            d.rules(&book, &Arc::new(RobotsTxt::parse(commented)), Some(commented), "TestBot");
        assert!(Arc::ptr_eq(&rules_a, &rules_d));
        drop((d, rules_d));
        // A file that differs by one byte is its own: a hash is never trusted alone.
        let near = b"User-agent: TestBot\nDisallow: /privatE/\n".as_slice();
        let rules_c = c.rules(&book, &Arc::new(RobotsTxt::parse(near)), Some(near), "TestBot");
        assert!(!Arc::ptr_eq(&rules_a, &rules_c));
        assert!(!rules_a.is_allowed("/private/x") && rules_c.is_allowed("/private/x"));
        // Another token compiles again.
        let other = a.rules(&book, &file_a, Some(body), "OtherBot");
        assert!(!Arc::ptr_eq(&rules_a, &other) && other.is_allowed("/private/x"));
        // Once no site uses an entry, it is gone and its parse with it.
        drop((rules_a, rules_b, rules_c, other));
        drop((a, b, c));
        assert!(book.find(body, "TestBot").is_none());
    }
}
