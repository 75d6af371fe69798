//! The bot's compiled robots.txt rules per site, kept with the file they came from.
//!
//! Choosing the bot's group and compiling its rules (`RobotsTxt::for_agent`) took a
//! large share of the gate's CPU when it ran on every request. The gate keeps the
//! compiled [`AgentRules`] beside the file: a request compiles them again only when the
//! site's robots.txt changed (another `Arc`, and other bytes when a store re-read them).

use std::sync::{Arc, Mutex};

use gleaner_policy::robots::{AgentRules, RobotsTxt};

/// Bodies up to this size are kept to recognise a re-read of the same file.
const KEEP_BODY_UP_TO: usize = 64 * 1024;

type Entry = (Arc<RobotsTxt>, Option<Vec<u8>>, Arc<AgentRules>);

/// One site's compiled rules for the bot's token.
#[derive(Debug, Default)]
pub(super) struct AgentCache(Mutex<Option<Entry>>);

impl AgentCache {
    /// The rules of `robots` (read from `body`) for `token`: the cached ones when they
    /// were compiled from the same file, else compiled now and kept.
    pub(super) fn rules(
        &self,
        robots: &Arc<RobotsTxt>,
        body: Option<&[u8]>,
        token: &str,
    ) -> Arc<AgentRules> {
        let mut slot = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((file, bytes, rules)) = slot.as_ref()
            && (Arc::ptr_eq(file, robots) || (body.is_some() && bytes.as_deref() == body))
        {
            return Arc::clone(rules);
        }
        let rules = Arc::new(robots.for_agent(token));
        let kept = body.filter(|b| b.len() <= KEEP_BODY_UP_TO).map(<[u8]>::to_vec);
        *slot = Some((Arc::clone(robots), kept, Arc::clone(&rules)));
        rules
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiled_once_per_file_and_again_when_it_changes() {
        let cache = AgentCache::default();
        let body = b"User-agent: TestBot\nDisallow: /private/\n".as_slice();
        let file = Arc::new(RobotsTxt::parse(body));
        let first = cache.rules(&file, Some(body), "TestBot");
        assert!(Arc::ptr_eq(&first, &cache.rules(&file, Some(body), "TestBot")));
        // The same bytes parsed again (as a store's read gives): still the cached rules.
        let reread = Arc::new(RobotsTxt::parse(body));
        assert!(Arc::ptr_eq(&first, &cache.rules(&reread, Some(body), "TestBot")));
        // Another file: compiled again, and it decides by the new rules.
        let other = b"User-agent: *\nDisallow: /\n".as_slice();
        let changed = cache.rules(&Arc::new(RobotsTxt::parse(other)), Some(other), "TestBot");
        assert!(!Arc::ptr_eq(&first, &changed));
        assert!(!first.check("/private/x").allowed && first.check("/a").allowed);
        assert!(!changed.check("/a").allowed);
    }
}
