//! Store throughput: budget reservations (one committed transaction each, as the gate
//! does before every request: `BEGIN IMMEDIATE` on SQLite, two row locks on PostgreSQL),
//! audit rows (batched), event upserts, and the disk cost of the SQLite audit log per
//! million rows (measured on 100,000 rows and extrapolated; printed once).
//!
//! SQLite always; PostgreSQL too when `GLEANER_TEST_POSTGRES_URL` is set (a scratch
//! database `gleaner_bench_<pid>` is created and dropped).
//! Run with `cargo bench -p gleaner-store`. Figures on the 2-core CI machine are noisy;
//! compare runs made on the same machine.

// A benchmark reports on stderr.
#![allow(clippy::print_stderr)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant, SystemTime};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gleaner_event::time::EventTime;
use gleaner_event::{Category, Event, EventStatus, Price, Venue};
use gleaner_policy::Purpose;
use gleaner_policy::audit::{AuditRecord, AuditSink};
use gleaner_policy::budget::{self, BudgetRules, PassMark};
use gleaner_policy::state::GateState;
use gleaner_store::{EventWrite, Keep, Store};
use url::Url;

fn rules() -> BudgetRules {
    BudgetRules {
        gap: Duration::from_secs(1),
        purpose_gaps: BTreeMap::new(),
        crawl_delay: None,
        robots_pace: gleaner_policy::robots::Pace::default(),
        slowdown: 1,
        max_in_flight: 1,
        purpose_in_flight: BTreeMap::new(),
        min_pass_interval: None,
        requests_per_pass: None,
        requests_per_hour: Some(60),
        requests_per_day: Some(500),
        visits_per_day: None,
        quiet_hours: Vec::new(),
        time_zone: chrono_tz::UTC,
        global_daily_cap: u32::MAX,
        enabled: Purpose::ALL.into_iter().collect::<BTreeSet<_>>(),
    }
}

fn record(i: u64) -> AuditRecord {
    AuditRecord {
        time: SystemTime::now(),
        site: format!("https://site{}.example", i % 1000),
        url: format!("https://site{}.example/events/{i}.html", i % 1000),
        purpose: Purpose::EventPage,
        source: Some("agenda".into()),
        outcome: gleaner_policy::audit::Outcome::Sent { status: 200 },
        error: None,
        bytes: 24_000,
        duration: Duration::from_millis(120),
        reason: "robots.txt: no rule disallows it; budget: gap 1000 ms kept".into(),
    }
}

fn event(i: u64) -> (Event, Url) {
    let url = Url::parse(&format!("https://site{}.example/events/{i}.html", i % 1000)).unwrap();
    let start = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).unwrap()
        + chrono::Duration::days((i % 365) as i64);
    let event = Event {
        title: Some(format!("Concert number {i}")),
        start: Some(EventTime::Date(start)),
        end: None,
        previous_start: None,
        venue: Venue { name: Some("Town Hall".into()), ..Venue::default() },
        price: Price { min: Some("12.50".parse().unwrap()), ..Price::default() },
        ticket_url: None,
        image_url: None,
        description: Some("A short description of the evening.".into()),
        status: EventStatus::Scheduled,
        status_stated: false,
        attendance: None,
        category: Category::Concert,
        url: Some(url.clone()),
    };
    (event, url)
}

fn bench(c: &mut Criterion) {
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_sqlite(&dir.path().join("bench.db")).unwrap();
    bench_store(c, "store", &store, &rt);
    drop(store);
    if let Ok(admin) = std::env::var("GLEANER_TEST_POSTGRES_URL") {
        let name = format!("gleaner_bench_{}", std::process::id());
        let run = |sql: String| {
            let admin = admin.clone();
            rt.block_on(async move {
                let (client, conn) =
                    tokio_postgres::connect(&admin, tokio_postgres::NoTls).await.unwrap();
                tokio::spawn(conn);
                client.batch_execute(&sql).await.unwrap();
            })
        };
        run(format!("CREATE DATABASE {name}"));
        let mut url = Url::parse(&admin).unwrap();
        url.set_path(&format!("/{name}"));
        let store = Store::open(url.as_str()).unwrap();
        bench_store(c, "store_postgres", &store, &rt);
        drop(store);
        run(format!("DROP DATABASE {name} WITH (FORCE)"));
    }
    audit_bytes(&rt);
}

fn bench_store(c: &mut Criterion, name: &str, store: &Store, rt: &tokio::runtime::Runtime) {
    let crawler = rt.block_on(store.claim_crawler()).unwrap();
    let rules = rules();

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    let mut n = 0u64;
    group.bench_function("budget_reservation", |b| {
        b.iter(|| {
            n += 1;
            let site = format!("https://site{}.example", n % 1000);
            let rules = &rules;
            rt.block_on(crawler.update(
                &site,
                Box::new(move |s, g| {
                    let now = SystemTime::now();
                    budget::reserve(
                        &mut s.budget,
                        g,
                        rules,
                        Purpose::EventPage,
                        PassMark::None,
                        now,
                    );
                    budget::release(&mut s.budget, Purpose::EventPage);
                }),
            ))
            .unwrap();
        })
    });

    group.throughput(Throughput::Elements(1000));
    let mut a = 0u64;
    group.bench_function("audit_rows_x1000", |b| {
        b.iter(|| {
            for _ in 0..1000 {
                a += 1;
                store.record(record(a));
            }
            rt.block_on(store.flush_audit()).unwrap();
        })
    });

    group.throughput(Throughput::Elements(1));
    let mut e = 0u64;
    group.bench_function("event_upsert", |b| {
        b.iter(|| {
            e += 1;
            let (event, url) = event(e);
            let write = EventWrite {
                event: &event,
                source: Some("agenda"),
                fetched_url: &url,
                fetched_at: SystemTime::now(),
                keep: Keep::Full,
                extractor: None,
            };
            rt.block_on(store.upsert_event(&write)).unwrap();
        })
    });
    group.finish();
}

/// Bytes per million audit rows: 100,000 rows into an empty database, file growth after
/// a checkpoint, times ten.
fn audit_bytes(rt: &tokio::runtime::Runtime) {
    const ROWS: u64 = 100_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.db");
    let store = Store::open_sqlite(&path).unwrap();
    let size = |store: &Store| {
        // Removing a site that does not exist checkpoints the WAL into the file.
        let scope = gleaner_policy::registry::Scope::domain("nothing.invalid").unwrap();
        rt.block_on(store.remove_site(scope, "bench", SystemTime::now())).unwrap();
        std::fs::metadata(&path).unwrap().len()
    };
    let before = size(&store);
    let started = Instant::now();
    for i in 0..ROWS {
        store.record(record(i));
    }
    rt.block_on(store.flush_audit()).unwrap();
    let elapsed = started.elapsed();
    let after = size(&store);
    let per_million = (after - before) * (1_000_000 / ROWS);
    eprintln!(
        "audit log: {ROWS} rows in {elapsed:.2?} ({:.0} rows/s); {} bytes on disk, \
         about {:.0} MiB per million rows (extrapolated from {ROWS})",
        ROWS as f64 / elapsed.as_secs_f64(),
        after - before,
        per_million as f64 / (1024.0 * 1024.0)
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
