//! Order of growth of extraction (issue 24 item 6), the small guard of the debug suite: a
//! page of 2,000 events costs less than eight times one of 500 (a linear reader costs four
//! times; the old quadratic in-page merge, put back for a run, cost 22.7 times here, its
//! comparisons outweighing the reading already at 500 events). It runs in seconds (about
//! ten on a loaded machine; the old 4,000 against 16,000 took minutes); the large check
//! (4,000 against 16,000 items under 6×) and the 8 MiB pages are in release, in
//! `benches/scale.rs`. Each run is bounded by a time-out and costs its thread's CPU time
//! (`support/growth.rs`).

#[path = "support/growth.rs"]
mod growth;
#[path = "support/pages.rs"]
mod pages;

use std::time::Duration;

/// The most four times the events may cost in debug.
const BOUND: f64 = 8.0;

fn check_growth(shape: &str, make: fn(usize) -> String, small: usize, events: Option<usize>) {
    let (t_small, t_large, ratio) = growth::growth(make, small, events, 3, Duration::from_secs(60));
    #[allow(clippy::print_stdout, reason = "the figures explain a failure")]
    {
        println!(
            "{shape}: {small} items {t_small:.2?}, {} items {t_large:.2?}, ratio {ratio:.1}",
            small * 4
        );
    }
    assert!(ratio < BOUND, "{shape}: 4x the items cost {ratio:.1}x the time (quadratic?)");
}

/// One test, so the shapes run one after another (tests of one binary run in parallel,
/// and timings taken side by side would measure each other).
#[test]
fn extraction_grows_linearly_in_every_shape() {
    check_growth("json-ld array", pages::jsonld_array, 500, None);
    check_growth("json-ld blocks", pages::jsonld_blocks, 500, None);
    check_growth("microdata", pages::microdata, 500, None);
    check_growth("rdfa", pages::rdfa, 500, None);
    // One event, nested deeper and deeper: the nesting bound and the capped property text
    // keep these linear (html5ever alone is quadratic in the depth).
    check_growth("nested properties", pages::nested_properties, 5_000, Some(1));
    check_growth("nested elements", pages::nested_elements, 5_000, Some(1));
    // Pages without structured data: a programme of dated sections, each a timed line
    // (each line once looked at every other line for a bold act: 4,000 sections 5 s).
    check_growth("day sections", pages::day_sections, 100, None);
    // Paragraphs of `<br>` lines with titles in spans styled bold: each rewritten block is
    // found once in the page.
    check_growth("br line paragraphs", pages::br_line_paragraphs, 100, None);
}
