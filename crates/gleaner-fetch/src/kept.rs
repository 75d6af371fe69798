//! How many connections the client leaves open idle at once ([`ClientSettings::max_idle`]).
//!
//! The pool (reqwest's) keeps every connection unused for `keep_idle` and has no cap on
//! their total, only per host. At 10,000 sites each between two requests a gap apart,
//! that is 10,000 idle connections of ~30 KiB each (issue 27). So the client counts the
//! origins whose connection it left open, as the pool holds them (each until it is
//! asked to close, fails, or has been idle `keep_idle`), and past the cap a request to
//! another origin asks for `Connection: close`: that site connects anew next time,
//! which costs a TCP connect instead of memory.
//!
//! [`ClientSettings::max_idle`]: crate::ClientSettings::max_idle

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

/// Origins (`host:port`) whose connection was left open, and when.
#[derive(Debug)]
pub(crate) struct KeptConnections {
    cap: usize,
    keep_idle: Duration,
    inner: Mutex<Kept>,
}

#[derive(Debug)]
struct Kept {
    at: HashMap<String, Instant>,
    /// When the expired entries were last dropped (at most every [`PRUNE_EVERY`]).
    pruned: Instant,
}

/// How often a full table is searched for connections the pool has let go.
const PRUNE_EVERY: Duration = Duration::from_millis(100);

impl KeptConnections {
    /// At most `cap` origins kept, each for `keep_idle` after its last request.
    pub(crate) fn new(cap: usize, keep_idle: Duration) -> KeptConnections {
        let inner = Mutex::new(Kept { at: HashMap::new(), pruned: Instant::now() });
        KeptConnections { cap, keep_idle, inner }
    }

    /// Whether a request to `origin` may leave its connection open: the origin's is
    /// already kept, or there is room for one more. False means "ask to close".
    pub(crate) fn keep(&self, origin: &str) -> bool {
        let now = Instant::now();
        let mut kept = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(at) = kept.at.get_mut(origin) {
            *at = now;
            return true;
        }
        if kept.at.len() >= self.cap && now.duration_since(kept.pruned) >= PRUNE_EVERY {
            let keep_idle = self.keep_idle;
            kept.at.retain(|_, at| now.duration_since(*at) < keep_idle);
            kept.pruned = now;
        }
        if kept.at.len() >= self.cap {
            return false;
        }
        kept.at.insert(origin.to_owned(), now);
        true
    }

    /// The origin's connection is closed (asked to, or the request failed).
    pub(crate) fn release(&self, origin: &str) {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).at.remove(origin);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_another_origin_closes_and_a_kept_one_stays() {
        let kept = KeptConnections::new(1, Duration::from_secs(90));
        assert!(kept.keep("a:80"));
        assert!(!kept.keep("b:80"), "the cap is one");
        assert!(kept.keep("a:80"), "a's connection is already kept");
        kept.release("a:80");
        assert!(kept.keep("b:80"), "a's slot is free again");
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_idle_past_keep_idle_frees_its_slot() {
        let kept = KeptConnections::new(1, Duration::from_secs(1));
        assert!(kept.keep("a:80"));
        tokio::time::advance(Duration::from_millis(1100)).await;
        assert!(kept.keep("b:80"), "the pool let a's connection go");
    }
}
