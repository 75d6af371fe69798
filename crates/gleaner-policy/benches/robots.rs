//! robots.txt matching throughput: parse a 600-rule file once, then match a fixed set of
//! URLs against it, with gleaner's matcher and, in the same run, with `texting_robots`
//! (a peer crate doing the same work) so the figure can be read as a ratio.
//!
//! Run: `cargo bench -p gleaner-policy --bench robots`. The "matches/s" figures are
//! criterion's element throughput (one element = one URL checked).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gleaner_policy::robots::RobotsTxt;
use std::hint::black_box;

/// A deterministic 600-rule robots.txt resembling a large real site: directory
/// disallows, wildcard query rules, file-type anchors, and allows carving exceptions.
fn big_robots() -> String {
    let mut text = String::from("User-agent: *\nDisallow: /admin/\n\nUser-agent: BenchBot\n");
    for i in 0..600 {
        let line = match i % 6 {
            0 => format!("Disallow: /section{i}/private/\n"),
            1 => format!("Allow: /section{}/private/public-{i}\n", i - 1),
            2 => format!("Disallow: /*?sessionid{i}=\n"),
            3 => format!("Disallow: /files/*.ext{i}$\n"),
            4 => format!("Disallow: /archive/{i}/*/print\n"),
            _ => format!("Disallow: /tag/t{i}\n"),
        };
        text.push_str(&line);
    }
    text
}

/// A deterministic mix of paths that hit and miss the rules (a simple LCG, no rand).
fn paths(count: usize) -> Vec<String> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..count)
        .map(|_| {
            let i = next() % 600;
            match next() % 7 {
                0 => format!("/section{i}/private/page-{}", next() % 100),
                1 => format!("/section{i}/private/public-{}", i + 1),
                2 => format!("/events/{}?sessionid{i}=abc", next() % 1000),
                3 => format!("/files/report-{}.ext{i}", next() % 50),
                4 => format!("/archive/{i}/2026/print"),
                5 => format!("/tag/t{i}/more"),
                _ => format!("/events/2026/12/concert-{}", next() % 5000),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let text = big_robots();
    let urls = paths(200_000);
    let full_urls: Vec<String> = urls.iter().map(|p| format!("http://bench.test{p}")).collect();

    let mut group = c.benchmark_group("robots_600_rules");
    group.throughput(Throughput::Elements(urls.len() as u64));
    group.sample_size(10);

    let ours = RobotsTxt::parse(text.as_bytes()).for_agent("BenchBot");
    group.bench_function("gleaner", |b| {
        b.iter(|| urls.iter().filter(|p| ours.is_allowed(black_box(p))).count())
    });

    let peer = texting_robots::Robot::new("BenchBot", text.as_bytes()).expect("peer parses");
    group.bench_function("texting_robots", |b| {
        b.iter(|| full_urls.iter().filter(|u| peer.allowed(black_box(u))).count())
    });
    group.finish();

    c.bench_function("robots_parse_600_rules", |b| {
        b.iter(|| RobotsTxt::parse(black_box(text.as_bytes())).for_agent("BenchBot"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
