//! Each request's [`Progress`], handed from the sites' crawls to the pass's task in
//! batches.
//!
//! The caller's progress callback is borrowed by [`super::run_pass`], so it runs on the
//! pass's own task, not in the crawls. A channel woke that task once per request: a
//! thread wake-up and a poll of the pass per request, 1–3 % of a pass's CPU (issue 27).
//! Here the first step after a quiet spell rings the pass's task; while steps keep
//! coming, it takes them every [`PERIOD`] without being rung, and after one period with
//! none it waits to be rung again. Steps keep their order, arrive at most a period late,
//! and an idle pass (a site waiting out a long gap) holds no timer.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::Progress;

/// How often the pass's task takes the steps while they keep coming.
const PERIOD: Duration = Duration::from_millis(50);

/// The steps sent and not yet taken, shared by the crawls and the pass's task.
#[derive(Debug, Default)]
pub(super) struct ProgressFeed {
    steps: Mutex<Vec<Progress>>,
    /// The pass's task takes the steps on its own timer: senders need not ring.
    watching: AtomicBool,
    bell: Notify,
}

impl ProgressFeed {
    /// Queues `step` for the pass's task, ringing it when it is not watching.
    pub(super) fn send(&self, step: Progress) {
        self.steps.lock().unwrap_or_else(|p| p.into_inner()).push(step);
        if !self.watching.swap(true, Ordering::AcqRel) {
            self.bell.notify_one();
        }
    }

    /// Every step queued so far, in the order sent.
    pub(super) fn take(&self) -> Vec<Progress> {
        std::mem::take(&mut *self.steps.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// The pass's task's side of a [`ProgressFeed`]: when to look next.
#[derive(Debug, Default)]
pub(super) struct ProgressReader {
    /// The next look on the timer; `None` while waiting to be rung.
    next: Option<Instant>,
}

impl ProgressReader {
    /// Waits until steps may be there and takes them (possibly none). Cancel-safe: a
    /// wait dropped before it ends loses no step.
    pub(super) async fn next_batch(&mut self, feed: &ProgressFeed) -> Vec<Progress> {
        match self.next {
            Some(at) => tokio::time::sleep_until(at).await,
            None => feed.bell.notified().await,
        }
        let steps = feed.take();
        if steps.is_empty() && self.next.is_some() {
            // A whole period without a step: the next one rings. A step sent after the
            // take above and before senders were told saw `watching` still set and did
            // not ring: it is taken here.
            feed.watching.store(false, Ordering::Release);
            let late = feed.take();
            if late.is_empty() {
                self.next = None;
                return late;
            }
            feed.watching.store(true, Ordering::Release);
            self.next = Some(Instant::now() + PERIOD);
            return late;
        }
        self.next = Some(Instant::now() + PERIOD);
        steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(done: u32) -> Progress {
        Progress {
            source: "s".into(),
            url: url::Url::parse("http://127.0.0.1/").unwrap(),
            done,
            known: done,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_burst_is_taken_in_one_wake_and_an_idle_reader_holds_no_timer() {
        let feed = ProgressFeed::default();
        let mut reader = ProgressReader::default();
        for n in 1..=100 {
            feed.send(step(n));
        }
        // One wake for the whole burst (a channel woke the pass's task per step).
        let first = reader.next_batch(&feed).await;
        assert_eq!(first.iter().map(|s| s.done).collect::<Vec<_>>(), (1..=100).collect::<Vec<_>>());
        assert!(reader.next.is_some(), "while steps come, the reader looks on its timer");
        // A period without steps: the reader waits for the bell, on no timer.
        assert!(reader.next_batch(&feed).await.is_empty());
        assert!(reader.next.is_none());
        assert!(!feed.watching.load(Ordering::Acquire), "the next step rings");
        feed.send(step(101));
        assert_eq!(reader.next_batch(&feed).await.len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn steps_keep_their_order_and_none_is_lost_across_quiet_spells() {
        let feed = std::sync::Arc::new(ProgressFeed::default());
        let sender = std::sync::Arc::clone(&feed);
        let sent = tokio::spawn(async move {
            for n in 1..=300u32 {
                sender.send(step(n));
                // Bursts, steady steps and spells longer than a period.
                let pause = match n % 50 {
                    0 => Duration::from_millis(400),
                    k if k % 7 == 0 => Duration::from_millis(30),
                    _ => Duration::ZERO,
                };
                tokio::time::sleep(pause).await;
            }
        });
        let mut reader = ProgressReader::default();
        let mut got = Vec::new();
        for _ in 0..10_000 {
            if got.len() == 300 {
                break;
            }
            let batch = tokio::time::timeout(Duration::from_secs(5), reader.next_batch(&feed))
                .await
                .expect("a sent step rings or is taken on the timer");
            got.extend(batch.into_iter().map(|s| s.done));
        }
        sent.await.unwrap();
        got.extend(feed.take().into_iter().map(|s| s.done));
        assert_eq!(got, (1..=300).collect::<Vec<_>>());
    }
}
