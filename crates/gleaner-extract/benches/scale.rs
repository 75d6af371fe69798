//! 8 MiB pages of every shape (issue 24 item 6: each must extract in under 2 s on one
//! core): JSON-LD as one array of 16,000 events and as 16,000 blocks, microdata and RDFa
//! (about 15,000 items), a description nesting 20,000 properties, 400,000 unclosed nested
//! elements and a JSON-LD block nested past the reader's depth limit; and two pages without
//! structured data for the fallback: a table of 30,000 rows, a news post of 30,000
//! announcing paragraphs and a programme of 90,000 day headings. The microdata and
//! RDFa pages are also parsed alone (`8mib_parse`), the floor their readers stand on.
//!
//! Before measuring, the order of growth is checked in release (`growth`): a page of four
//! times the events must cost less than [`GROWTH_BOUND`] times as much (linear costs four;
//! the old quadratic in-page merge cost sixteen). The ratios are printed, and the bench
//! panics when one is over the bound. Each run costs its thread's CPU time, the best of
//! five (`tests/support/growth.rs`). The debug test suite keeps a small, fast guard of the
//! same shape (`tests/scale.rs`).
//!
//! `cargo bench -p gleaner-extract --bench scale`; criterion reports the time per page,
//! and `cpu/…` lines each page's CPU time (the figure to read on a shared machine).

#[path = "../tests/support/growth.rs"]
mod growth;
#[path = "../tests/support/pages.rs"]
mod pages;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group};
use gleaner_event::NormaliseContext;
use url::Url;

const MIB8: usize = 8 << 20;

/// The most four times the events may cost, in release.
const GROWTH_BOUND: f64 = 6.0;

/// Repeats `make` with growing counts until the page reaches 8 MiB.
fn eight_mib(make: fn(usize) -> String, per_item: usize) -> String {
    let mut n = MIB8 / per_item;
    loop {
        let page = make(n);
        if page.len() >= MIB8 {
            return page;
        }
        n += n / 8 + 1;
    }
}

/// Checks that four times `small` items cost less than [`GROWTH_BOUND`] times as much;
/// `events` is the events of a page whatever its size (the nested shapes hold one).
fn growth(shape: &str, make: fn(usize) -> String, small: usize, events: Option<usize>) {
    let (t_small, t_large, ratio) = growth::growth(make, small, events, 5, Duration::from_secs(60));
    #[allow(clippy::print_stdout, reason = "the bench reports its figures on stdout")]
    {
        println!(
            "growth/{shape}: {small} {t_small:.2?}, {} {t_large:.2?}, ratio {ratio:.1} (bound {GROWTH_BOUND})",
            small * 4
        );
    }
    assert!(
        ratio < GROWTH_BOUND,
        "{shape}: 4x the items cost {ratio:.1}x the time (quadratic?); profile it with `perf record -g` on this bench"
    );
}

/// The order-of-growth check of every shape, one after another.
fn check_growth() {
    growth("json-ld array", pages::jsonld_array, 4_000, None);
    growth("json-ld blocks", pages::jsonld_blocks, 4_000, None);
    growth("microdata", pages::microdata, 4_000, None);
    growth("rdfa", pages::rdfa, 4_000, None);
    // Large enough to take tens of milliseconds: shorter runs measure the machine.
    growth("nested properties", pages::nested_properties, 50_000, Some(1));
    growth("nested elements", pages::nested_elements, 100_000, Some(1));
    // The fallback reads a listing's first 500 items, and a post's prose without a
    // reference day gives its one page event: the reading of every row and paragraph is
    // what grows (a header row looked for in the whole table, per row, cost 4,000 rows
    // 5.7 s and 16,000 minutes before it was bounded).
    growth("table rows", pages::table_rows, 4_000, Some(500));
    growth("prose paragraphs", pages::prose_paragraphs, 4_000, Some(1));
    // A day heading looked for among all of them, per item, cost 2,000 sections 8.8 s.
    // Each dated section's timed line is an event since the time-led lines' reader
    // (`fallback/time_led.rs`): the listing's first 500.
    growth("day sections", pages::day_sections, 4_000, Some(500));
    // Paragraphs of `<br>` lines with titles in spans styled bold: the fallback rewrites
    // each such block into a list and reads it again (`fallback/br_lines.rs`). Each
    // paragraph is a list of its own: the lists that read as listings are read up to 2,000
    // items in all (`listing::READ_BUDGET`), which 1,000 lines' lists and their parent's
    // reach: 1,000 events at either size. Before that budget, 8 MiB of such lines took 3 s.
    growth("br line paragraphs", pages::br_line_paragraphs, 1_000, Some(1_000));
}

/// The CPU time of each page, the best of five, with the html5ever parse alone beside the
/// pages that need the DOM: criterion's wall-clock times are the machine's as much as
/// ours when other builds share it.
fn cpu_report(shapes: &[(&str, String)]) {
    let limit = Duration::from_secs(60);
    for (name, page) in shapes {
        let mib = page.len() as f64 / f64::from(1 << 20);
        let (t, events) =
            (0..5).map(|_| growth::timed(page.clone(), limit)).min().expect("five runs");
        let parse = matches!(*name, "microdata" | "rdfa").then(|| {
            (0..5)
                .map(|_| {
                    let page = page.clone();
                    growth::cost(
                        move || scraper::Html::parse_document(&page).tree.nodes().count(),
                        limit,
                    )
                    .0
                })
                .min()
                .expect("five runs")
        });
        #[allow(clippy::print_stdout, reason = "the bench reports its figures on stdout")]
        {
            let parse = parse.map_or(String::new(), |p| {
                format!(", parse alone {p:.2?} ({:.1}x)", t.as_secs_f64() / p.as_secs_f64())
            });
            println!(
                "cpu/{name}: {mib:.1} MiB, {events} events, {t:.2?} ({:.1} MiB/s){parse}",
                mib / t.as_secs_f64()
            );
        }
    }
}

fn bench(c: &mut Criterion) {
    let base = Url::parse("https://example.org/events/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let shapes: [(&str, String); 11] = [
        ("jsonld_array", eight_mib(pages::jsonld_array, 520)),
        ("jsonld_blocks", eight_mib(pages::jsonld_blocks, 560)),
        ("microdata", eight_mib(pages::microdata, 600)),
        ("rdfa", eight_mib(pages::rdfa, 600)),
        ("nested_properties", eight_mib(pages::nested_properties, 40)),
        ("nested_elements", eight_mib(pages::nested_elements, 11)),
        ("nested_jsonld", eight_mib(pages::nested_jsonld, 80)),
        ("fallback_table", eight_mib(pages::table_rows, 260)),
        ("fallback_prose", eight_mib(pages::prose_paragraphs, 250)),
        ("fallback_sections", eight_mib(pages::day_sections, 95)),
        ("fallback_br_lines", eight_mib(pages::br_line_paragraphs, 110)),
    ];
    if checks_run() {
        cpu_report(&shapes);
    }
    let mut g = c.benchmark_group("8mib_page");
    g.sample_size(10);
    for (name, page) in &shapes {
        g.throughput(Throughput::Bytes(page.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| {
                black_box(gleaner_extract::extract_events(
                    black_box(page.as_bytes()),
                    "text/html",
                    &ctx,
                ))
            });
        });
    }
    g.finish();
    // The peer: html5ever alone, on the pages whose readers need its DOM.
    let mut g = c.benchmark_group("8mib_parse");
    g.sample_size(10);
    for (name, page) in shapes.iter().filter(|(n, _)| matches!(*n, "microdata" | "rdfa")) {
        g.throughput(Throughput::Bytes(page.len() as u64));
        g.bench_function(*name, |b| {
            b.iter(|| black_box(scraper::Html::parse_document(black_box(page))));
        });
    }
    g.finish();
}

criterion_group!(benches, bench);

/// Whether this is a measuring run: `cargo bench` passes `--bench`; `cargo test --benches`
/// runs each bench once without it, in debug, where the growth check would take minutes;
/// and `--profile-time` profiles one page, which the checks would drown.
fn checks_run() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--profile-time")
}

fn main() {
    if checks_run() {
        check_growth();
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
