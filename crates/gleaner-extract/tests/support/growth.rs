//! Timing for the order-of-growth checks (`tests/scale.rs` in debug, `benches/scale.rs` in
//! release): each page is extracted in a thread of its own under a time-out, and costs the
//! CPU time of that thread where Linux tells it (`/proc/thread-self/schedstat`), else the
//! wall-clock time. On a machine shared with other builds, wall-clock time favours the
//! small page (a short run more often finds the core free), which made 4× the events look
//! like 6.5× the time when the CPU time was 4.5×.

#![allow(dead_code, reason = "each user takes what it needs")]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use gleaner_event::NormaliseContext;
use url::Url;

/// The CPU time the calling thread has run, when the system says.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Runs `work` in a thread of its own, at most `limit` long: its cost and what it counted.
pub fn cost(work: impl FnOnce() -> usize + Send + 'static, limit: Duration) -> (Duration, usize) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let (c0, t0) = (thread_cpu_time(), Instant::now());
        let counted = work();
        let cost = match (c0, thread_cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => t0.elapsed(),
        };
        let _ = tx.send((cost, counted));
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("extraction took longer than {limit:?}"))
}

/// One extraction of `page`: its cost and the number of events.
pub fn timed(page: String, limit: Duration) -> (Duration, usize) {
    cost(
        move || {
            let base = Url::parse("https://example.org/events/").unwrap();
            let ctx = NormaliseContext { base_url: &base, default_tz: None };
            gleaner_extract::extract_events(page.as_bytes(), "text/html", &ctx).events.len()
        },
        limit,
    )
}

/// The least cost of `runs` extractions of the page of `n` items `make` writes, which
/// holds `events` events.
pub fn best(
    make: fn(usize) -> String,
    n: usize,
    events: usize,
    runs: usize,
    limit: Duration,
) -> Duration {
    let page = make(n);
    (0..runs)
        .map(|_| {
            let (t, got) = timed(page.clone(), limit);
            assert_eq!(got, events, "every event is distinct and must come out");
            t
        })
        .min()
        .expect("at least one run")
}

/// The cost of `small` items and of four times as many, and their ratio; `events` is the
/// events of a page whatever its size (the nested shapes hold one), else one per item.
pub fn growth(
    make: fn(usize) -> String,
    small: usize,
    events: Option<usize>,
    runs: usize,
    limit: Duration,
) -> (Duration, Duration, f64) {
    let t_small = best(make, small, events.unwrap_or(small), runs, limit);
    let t_large = best(make, small * 4, events.unwrap_or(small * 4), runs, limit);
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-4);
    (t_small, t_large, ratio)
}
