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

use std::path::{Path, PathBuf};

use gleaner_extract::ExtractOptions;
use serde_json::Value;

mod score;
use score::{Table, precision, score_file, table, total};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/written")
}

fn run(path: &Path, base: &str, saved: chrono::NaiveDate, fallback: bool) -> Vec<Value> {
    let opts =
        ExtractOptions { fallback, reference_date: Some(saved), ..ExtractOptions::default() };
    score::run(path, base, &opts)
}

#[test]
fn written_pages_f1() {
    let text = std::fs::read_to_string(dir().join("labels.json")).unwrap();
    let labels: Value = serde_json::from_str(&text).unwrap();
    let saved =
        chrono::NaiveDate::parse_from_str(labels["saved"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let files = labels["files"].as_object().unwrap();
    assert!(files.len() >= 49, "the written corpus has {} pages", files.len());
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
    let precision = precision(with["start"]);
    assert!(precision >= PRECISION_FLOOR, "start precision {precision:.3}\n{report}");
}

/// The all-field F1 floor with the fallback on (0.991 on 49 pages when set; 0.989 on the
/// first 39; 0.805 on 29 before the footer venue, the address country and the free words).
/// The ten pages 30–39 scored 0.859 when first measured, before the fixes made for them;
/// the ten pages 40–49 scored 0.890 (0.969 over all 49).
const FLOOR_WITH: f64 = 0.988;
/// The floor of the start field's precision with the fallback on.
const PRECISION_FLOOR: f64 = 0.99;
