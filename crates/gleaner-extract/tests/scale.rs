//! Order of growth of extraction (issue 24 item 6): a page of 16,000 events costs less than
//! eight times one of 4,000 (a linear reader costs four times; the old quadratic in-page merge
//! cost sixteen; a 6× bound failed once at 6.0× for RDFa on a machine running six builds). A guard of the shape of the curve, not a benchmark (`benches/scale.rs`
//! measures the 8 MiB pages in release); each run is bounded by a time-out.

#[path = "support/pages.rs"]
mod pages;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use gleaner_event::NormaliseContext;
use url::Url;

/// Extracts `page` in a thread of its own, at most `limit` long; returns the time and the
/// number of events.
fn timed(page: String, limit: Duration) -> (Duration, usize) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let base = Url::parse("https://example.org/events/").unwrap();
        let ctx = NormaliseContext { base_url: &base, default_tz: None };
        let t0 = Instant::now();
        let out = gleaner_extract::extract_events(page.as_bytes(), "text/html", &ctx);
        let _ = tx.send((t0.elapsed(), out.events.len()));
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("extraction took longer than {limit:?}"))
}

/// The best of two runs, so one descheduling on a shared machine does not decide.
fn best(make: fn(usize) -> String, n: usize, events: usize, limit: Duration) -> Duration {
    let (a, got) = timed(make(n), limit);
    assert_eq!(got, events, "every event is distinct and must come out");
    let (b, _) = timed(make(n), limit);
    a.min(b)
}

fn check_growth(shape: &str, make: fn(usize) -> String, small: usize) {
    check_growth_of(shape, make, small, None);
}

/// As [`check_growth`], for a page of `events` events whatever its size.
fn check_growth_of(shape: &str, make: fn(usize) -> String, small: usize, events: Option<usize>) {
    let limit = Duration::from_secs(120);
    let t_small = best(make, small, events.unwrap_or(small), limit);
    let t_large = best(make, small * 4, events.unwrap_or(small * 4), limit);
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64().max(1e-3);
    #[allow(clippy::print_stdout, reason = "the figures explain a failure")]
    {
        println!(
            "{shape}: {small} events {t_small:?}, {} events {t_large:?}, ratio {ratio:.1}",
            small * 4
        );
    }
    assert!(ratio < 8.0, "{shape}: 4x the events cost {ratio:.1}x the time (quadratic?)");
}

/// One test, so the shapes run one after another (tests of one binary run in parallel,
/// and timings taken side by side would measure each other).
#[test]
fn extraction_grows_linearly_in_every_shape() {
    check_growth("json-ld array", pages::jsonld_array, 4_000);
    check_growth("json-ld blocks", pages::jsonld_blocks, 2_000);
    check_growth("microdata", pages::microdata, 1_000);
    check_growth("rdfa", pages::rdfa, 1_000);
    // One event, nested deeper and deeper: the nesting bound and the capped property text
    // keep these linear (html5ever alone is quadratic in the depth).
    check_growth_of("nested properties", pages::nested_properties, 20_000, Some(1));
    check_growth_of("nested elements", pages::nested_elements, 20_000, Some(1));
}
