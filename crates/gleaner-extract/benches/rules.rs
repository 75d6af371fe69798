//! Throughput of site rules and of the generic fallback (issue 10), extract + normalise,
//! one core: the sample city's five venues without structured data (listings and event
//! pages, read with the rules `gleaner demo` writes, and by the fallback alone) and the
//! vendored corpus page without structured data (27, with its rules from
//! `testdata/corpus-rules.toml`).
//!
//! `cargo bench -p gleaner-extract --bench rules`; criterion reports MB/s per group.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gleaner_event::NormaliseContext;
use gleaner_extract::rules::{RuleBook, RulesFile};
use gleaner_extract::{ExtractOptions, extract_events_with};
use gleaner_samplecity::{City, Markup, Origins, Request};
use url::Url;

struct Page {
    url: Url,
    body: Vec<u8>,
    opts_rules: ExtractOptions,
}

fn rules_for(origin: &str, lang: &str, zone: &str, currency: &str) -> String {
    format!(
        "[[site_rules]]\nsite = \"{origin}\"\nitem = \"tr.event-row, article.event-card\"\ntitle = \".event-title\"\n\
         date = \".event-date time\"\nvenue = \".event-venue span\"\naddress = \".event-address\"\nprice = \".event-price\"\n\
         link = \".event-title a\"\nimage = \"img.event-image\"\ndescription = \".event-description\"\n\
         next_page = \"a[rel=next]\"\nlanguage = \"{lang}\"\ntime_zone = \"{zone}\"\ncurrency = \"{currency}\"\n"
    )
}

fn book(text: &str) -> RuleBook {
    let file: RulesFile = toml::from_str(text).unwrap();
    RuleBook::compile(&file.site_rules).unwrap()
}

fn city_pages() -> Vec<Page> {
    let city = City::generate(7, chrono::Utc::now());
    let origins = Origins::on_port(city.len(), 8080);
    let headers = http::HeaderMap::new();
    let mut out = Vec::new();
    for site in city.venues_with(Markup::Plain) {
        let s = city.site(site);
        let rules =
            book(&rules_for(origins.origin(site), s.lang.code(), s.zone.name(), s.currency));
        let mut paths = vec![s.lang.listing_path().to_owned()];
        paths.extend(city.venue_events(site, 0).into_iter().map(|e| e.path));
        for path in paths {
            let reply = city.respond(&origins, site, 0, &Request::get(&path, &headers));
            if reply.status != 200 {
                continue;
            }
            let url = Url::parse(&origins.url(site, &path)).unwrap();
            let opts_rules = ExtractOptions {
                rules: rules.for_url(&url),
                reference_date: Some(city.now().date_naive()),
                ..ExtractOptions::default()
            };
            out.push(Page { url, body: reply.body.to_vec(), opts_rules });
        }
    }
    out
}

fn corpus_page() -> Page {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let rules = book(&std::fs::read_to_string(dir.join("corpus-rules.toml")).unwrap());
    let url = Url::parse("http://rtachicago.granicus.com/ViewPublisher.php?view_id=5").unwrap();
    let body =
        std::fs::read(dir.join("corpus/27-rta-granicus-upcoming-meetings-nosd.html")).unwrap();
    let opts_rules = ExtractOptions { rules: rules.for_url(&url), ..ExtractOptions::default() };
    Page { url, body, opts_rules }
}

fn bench(c: &mut Criterion) {
    for (group, pages) in
        [("plain_city_pages", city_pages()), ("corpus_nosd_27", vec![corpus_page()])]
    {
        let bytes: usize = pages.iter().map(|p| p.body.len()).sum();
        assert!(pages.iter().all(|p| p.opts_rules.rules.is_some()));
        let mut g = c.benchmark_group(group);
        g.throughput(Throughput::Bytes(bytes as u64));
        g.bench_function("rules", |b| {
            b.iter(|| {
                for p in &pages {
                    let ctx = NormaliseContext { base_url: &p.url, default_tz: None };
                    black_box(extract_events_with(
                        black_box(&p.body),
                        "text/html",
                        &ctx,
                        &p.opts_rules,
                    ));
                }
            });
        });
        let fallback = ExtractOptions { fallback: true, ..ExtractOptions::default() };
        g.bench_function("fallback", |b| {
            b.iter(|| {
                for p in &pages {
                    let ctx = NormaliseContext { base_url: &p.url, default_tz: None };
                    black_box(extract_events_with(
                        black_box(&p.body),
                        "text/html",
                        &ctx,
                        &fallback,
                    ));
                }
            });
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
