//! Whether a site's connection is kept for its next request or closed after this one.
//!
//! An idle keep-alive connection costs the crawler ~30 KiB (hyper's buffers and its
//! request channel) and holds a socket at the site. It is worth keeping only when the
//! site's next request comes within `[network] keep_idle`: otherwise the pool would drop
//! it unused anyway, after holding it that long. So a site's request asks for
//! `Connection: close` when nothing else is queued for the site and its answer cannot
//! queue more (an event page, an open-data document), or when the site's gap between
//! requests is longer than `keep_idle` (issue 27: 10,000 sites at a 1 s gap held
//! 300 MiB in idle connections).

use std::time::Duration;

use super::Step;

/// Why the crawl of one site is where it is, for [`close_after`].
pub(super) struct NextRequest {
    /// Requests queued or held for the site after this one.
    pub(super) queued: usize,
    /// This request's step.
    pub(super) step: Step,
    /// The site's gap between request starts (its class's).
    pub(super) gap: Duration,
}

/// True when the connection should close after this answer, for a pool that keeps
/// idle connections `keep_idle` (`None`: the pool keeps none, nothing to ask).
pub(super) fn close_after(next: &NextRequest, keep_idle: Option<Duration>) -> bool {
    let Some(keep_idle) = keep_idle else { return false };
    let last = next.queued == 0 && !queues_more(next.step);
    last || next.gap > keep_idle
}

/// Whether an answer to this step can queue more requests to the same site.
fn queues_more(step: Step) -> bool {
    !matches!(step, Step::Event | Step::Records)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn next(queued: usize, step: Step, gap: Duration) -> NextRequest {
        NextRequest { queued, step, gap }
    }

    #[test]
    fn the_last_event_page_closes_and_a_listing_keeps() {
        let keep = Some(90 * SECOND);
        assert!(close_after(&next(0, Step::Event, SECOND), keep));
        assert!(!close_after(&next(0, Step::Listing, SECOND), keep));
        assert!(!close_after(&next(2, Step::Event, SECOND), keep));
    }

    #[test]
    fn a_gap_longer_than_keep_idle_closes() {
        assert!(close_after(&next(3, Step::Listing, 2 * SECOND), Some(SECOND)));
        assert!(!close_after(&next(3, Step::Listing, SECOND), Some(SECOND)));
    }

    #[test]
    fn no_pool_asks_nothing() {
        assert!(!close_after(&next(0, Step::Event, SECOND), None));
    }
}
