//! 8 MiB pages of every shape (issue 24 item 6: each must extract in under 2 s on one
//! core): JSON-LD as one array of 16,000 events and as 16,000 blocks, microdata and RDFa
//! (about 15,000 items), a description nesting 20,000 properties, 400,000 unclosed nested
//! elements and a JSON-LD block nested past the reader's depth limit.
//!
//! `cargo bench -p gleaner-extract --bench scale`; criterion reports the time per page.

#[path = "../tests/support/pages.rs"]
mod pages;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group};
use gleaner_event::NormaliseContext;
use url::Url;

const MIB8: usize = 8 << 20;

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

fn bench(c: &mut Criterion) {
    let base = Url::parse("https://example.org/events/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let shapes: [(&str, String); 7] = [
        ("jsonld_array", eight_mib(pages::jsonld_array, 520)),
        ("jsonld_blocks", eight_mib(pages::jsonld_blocks, 560)),
        ("microdata", eight_mib(pages::microdata, 600)),
        ("rdfa", eight_mib(pages::rdfa, 600)),
        ("nested_properties", eight_mib(pages::nested_properties, 40)),
        ("nested_elements", eight_mib(pages::nested_elements, 11)),
        ("nested_jsonld", eight_mib(pages::nested_jsonld, 80)),
    ];
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
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
