//! Throughput of extract + normalise, per format, on the vendored corpus (one core).
//!
//! `cargo bench -p gleaner-extract --bench extract`; criterion reports MB/s per group.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gleaner_event::NormaliseContext;
use url::Url;

fn pages(filter: fn(&str) -> bool) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".html") && filter(n))
        .collect();
    names.sort();
    names.iter().map(|n| std::fs::read(dir.join(n)).unwrap()).collect()
}

fn is_jsonld(name: &str) -> bool {
    name.contains("jsonld") || name.contains("songkick")
}

fn is_dom(name: &str) -> bool {
    name.contains("microdata")
        || name.contains("rdfa")
        || name.contains("cookcounty")
        || name.contains("tribe")
}

fn bench(c: &mut Criterion) {
    let base = Url::parse("https://example.org/events/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: Some(chrono_tz::Europe::London) };
    for (group, set) in
        [("jsonld_pages", pages(is_jsonld)), ("microdata_rdfa_pages", pages(is_dom))]
    {
        let bytes: usize = set.iter().map(Vec::len).sum();
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("extract_events", |b| {
            b.iter(|| {
                for page in &set {
                    black_box(gleaner_extract::extract_events(black_box(page), "text/html", &ctx));
                }
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
