//! Throughput of extract + normalise, per format, on the vendored corpus (one core).
//!
//! `cargo bench -p gleaner-extract --bench extract`; criterion reports MB/s per group.
//! When a Python with `extruct` is found (`$EXTRUCT_PYTHON`, else the venv
//! `target/extruct-venv`, made with `python3 -m venv target/extruct-venv &&
//! target/extruct-venv/bin/pip install extruct`), the same pages are also run through
//! extruct and the speed ratio is printed.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group};
use gleaner_event::NormaliseContext;
use url::Url;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus")
}

fn names(filter: fn(&str) -> bool) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".html") && filter(n))
        .collect();
    names.sort();
    names
}

fn pages(filter: fn(&str) -> bool) -> Vec<Vec<u8>> {
    names(filter).iter().map(|n| std::fs::read(corpus_dir().join(n)).unwrap()).collect()
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

/// Our MB/s (best of several passes, like the Python side) for the ratio.
fn our_mb_per_s(set: &[Vec<u8>]) -> f64 {
    let base = Url::parse("https://example.org/events/").unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let bytes: usize = set.iter().map(Vec::len).sum();
    let mut best = f64::INFINITY;
    let deadline = Instant::now() + std::time::Duration::from_secs(3);
    let mut passes = 0;
    while passes < 3 || Instant::now() < deadline {
        let t0 = Instant::now();
        for page in set {
            black_box(gleaner_extract::extract_events(page, "text/html", &ctx));
        }
        best = best.min(t0.elapsed().as_secs_f64());
        passes += 1;
    }
    bytes as f64 / best / 1e6
}

/// Runs extruct on the same pages, if a Python with extruct is available.
#[allow(clippy::print_stdout, reason = "a bench reports on stdout")]
fn compare_with_extruct() {
    let python = std::env::var_os("EXTRUCT_PYTHON").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/extruct-venv/bin/python")
    });
    if !python.exists() {
        println!("extruct comparison skipped: no `{}`", python.display());
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/extruct_compare.py");
    let groups =
        [("jsonld_pages", is_jsonld as fn(&str) -> bool), ("microdata_rdfa_pages", is_dom)];
    let args: Vec<String> = groups
        .iter()
        .map(|(g, f)| {
            let files: Vec<String> =
                names(*f).iter().map(|n| corpus_dir().join(n).display().to_string()).collect();
            format!("{g}={}", files.join(","))
        })
        .collect();
    let out = match std::process::Command::new(&python).arg(&script).args(&args).output() {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            println!("extruct comparison failed: {}", String::from_utf8_lossy(&out.stderr));
            return;
        }
        Err(e) => {
            println!("extruct comparison failed to start `{}`: {e}", python.display());
            return;
        }
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let group = v["group"].as_str().unwrap();
        let filter = groups.iter().find(|(g, _)| *g == group).unwrap().1;
        let ours = our_mb_per_s(&pages(filter));
        let theirs = v["mb_per_s"].as_f64().unwrap();
        println!(
            "{group}: gleaner {ours:.1} MB/s, extruct {theirs:.2} MB/s, ratio {:.0}x",
            ours / theirs
        );
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    // `cargo bench` passes `--bench`; `cargo test` runs benches as quick smoke tests.
    if std::env::args().any(|a| a == "--bench") {
        compare_with_extruct();
    }
}
