//! Scores extraction against the labelled corpus and snapshots every vendored page.
//!
//! The corpus is `testdata/corpus/` (vendored, with `SOURCES.md` and `labels.json`); files
//! left out of the repository for licence reasons are scored too when
//! `../shared/corpus/events/` exists next to the repository.
//!
//! Matching rules (our reading of `labels.json` "conventions"): predicted and labelled
//! events of one file are paired greedily by the number of agreeing fields (a pair needs the
//! same title or the same start). Per field: a true positive is a non-null prediction equal
//! to a non-null label; a non-null prediction that is wrong or labelled null is a false
//! positive; a non-null label predicted wrong or null is a false negative. Texts compare
//! after collapsing whitespace, ignoring case; date-times compare as values (`Z` equals
//! `+00:00`, seconds optional) and a local time never equals one with an offset; prices
//! compare as decimals; URLs after parsing; countries as ISO codes (a label written as a
//! country name is read as its code). `status`: the label `movedonline` is our
//! `moved_online`, and a null label (the page does not say) against our default
//! `scheduled` counts neither way.
//!
//! Pages without structured data (`*-nosd.html`) are scored twice (issue 10): with the site
//! rules of `testdata/corpus-rules.toml` (keyed by site, as in `gleaner.toml`) and with the
//! generic fallback alone. Dates written without a year are resolved after the day the
//! fixtures were saved ([`SAVED`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gleaner_event::time::parse_event_time;
use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::rules::{RuleBook, RulesFile};
use gleaner_extract::{ExtractOptions, FeedMode};
use rust_decimal::Decimal;
use serde_json::Value;
use url::Url;

const FIELDS: [&str; 16] = [
    "title",
    "start",
    "end",
    "venue_name",
    "street",
    "locality",
    "country",
    "price_min",
    "price_max",
    "currency",
    "is_free",
    "ticket_url",
    "image_url",
    "description",
    "status",
    "url",
];

fn vendored() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus")
}

fn external() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?.parent()?;
    let dir = root.parent()?.join("shared/corpus/events");
    dir.join("labels.json").exists().then_some(dir)
}

fn load_labels(dir: &Path) -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(dir.join("labels.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["files"].as_object().unwrap().clone()
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".ics") {
        "text/calendar"
    } else if name.ends_with(".rss") {
        "application/rss+xml"
    } else {
        "text/html"
    }
}

/// The feed mode a source would be configured with: the Localist calendar (36) lists
/// events in items with no event date of their own, so its source says "events".
fn feed_mode(name: &str) -> FeedMode {
    if name.contains("localist") { FeedMode::Events } else { FeedMode::Auto }
}

/// How a page is read: structured data only, with the site's rules, or with the fallback.
#[derive(Clone, Copy, PartialEq)]
enum Mode<'a> {
    Plain,
    Rules(&'a RuleBook),
    Fallback,
}

/// The day the fixtures without a year were saved (35 lists 10–14 November 2025).
const SAVED: (i32, u32, u32) = (2025, 11, 1);

fn corpus_rules() -> RuleBook {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus-rules.toml");
    let file: RulesFile = toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    RuleBook::compile(&file.site_rules).unwrap()
}

fn run(path: &Path, base: &str) -> Vec<Value> {
    run_with(path, base, Mode::Plain)
}

fn run_with(path: &Path, base: &str, mode: Mode<'_>) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let base = Url::parse(base).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let name = path.file_name().unwrap().to_str().unwrap();
    let opts = ExtractOptions {
        feed_mode: feed_mode(name),
        rules: match mode {
            Mode::Rules(book) => book.for_url(&base),
            _ => None,
        },
        fallback: mode == Mode::Fallback,
        reference_date: match mode {
            Mode::Rules(_) => chrono::NaiveDate::from_ymd_opt(SAVED.0, SAVED.1, SAVED.2),
            _ => None,
        },
        ..ExtractOptions::default()
    };
    let out = gleaner_extract::extract_events_with(&bytes, content_type(name), &ctx, &opts);
    out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect()
}

fn norm_text(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

fn equal(field: &str, pred: &Value, label: &Value) -> bool {
    match (pred, label) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Bool(a), Value::Bool(b)) => a == b,
        (Value::String(a), Value::String(b)) => match field {
            "start" | "end" => match (parse_event_time(a), parse_event_time(b)) {
                (Some(x), Some(y)) => x == y,
                _ => false,
            },
            "price_min" | "price_max" => match (a.parse::<Decimal>(), b.parse::<Decimal>()) {
                (Ok(x), Ok(y)) => x == y,
                _ => false,
            },
            "ticket_url" | "image_url" | "url" => match (Url::parse(a), Url::parse(b)) {
                (Ok(x), Ok(y)) => x == y,
                _ => a == b,
            },
            "status" => a.replace('_', "") == b.replace('_', ""),
            "country" => country(a) == country(b),
            _ => norm_text(a) == norm_text(b),
        },
        _ => false,
    }
}

/// A few labels write the country as a name although the convention asks for the
/// ISO 3166-1 code (08: "Ireland", "France"); read those as their codes.
fn country(v: &str) -> String {
    match v.trim().to_lowercase().as_str() {
        "ireland" => "IE".to_owned(),
        "france" => "FR".to_owned(),
        "united kingdom" | "uk" => "GB".to_owned(),
        "united states" | "usa" => "US".to_owned(),
        "germany" => "DE".to_owned(),
        other => other.to_uppercase(),
    }
}

/// Whether a predicted value is a claim at all (our default `scheduled` against a null
/// label is not).
fn claims(field: &str, pred: &Value, label: Option<&Value>) -> bool {
    if pred.is_null() {
        return false;
    }
    !(field == "status" && pred == "scheduled" && label.is_none_or(Value::is_null))
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: u32,
    fp: u32,
    fn_: u32,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }
    fn f1(&self) -> f64 {
        let d = 2 * self.tp + self.fp + self.fn_;
        if d == 0 { 1.0 } else { f64::from(2 * self.tp) / f64::from(d) }
    }
}

fn score_pair(
    pred: Option<&Value>,
    label: Option<&Value>,
    per_field: &mut BTreeMap<&'static str, Counts>,
) {
    for f in FIELDS {
        let p = pred.map_or(&Value::Null, |p| &p[f]);
        let l = label.map(|l| &l[f]);
        let c = per_field.entry(f).or_default();
        let claimed = claims(f, p, l);
        let labelled = l.is_some_and(|l| !l.is_null());
        if claimed && labelled && equal(f, p, l.unwrap()) {
            c.tp += 1;
        } else {
            if (claimed || labelled) && std::env::var_os("CORPUS_DEBUG").is_some() {
                #[allow(clippy::print_stdout, reason = "debug output on request")]
                {
                    println!("  {f}: predicted {p} labelled {}", l.unwrap_or(&Value::Null));
                }
            }
            if claimed {
                c.fp += 1;
            }
            if labelled {
                c.fn_ += 1;
            }
        }
    }
}

fn agreement(p: &Value, l: &Value) -> usize {
    if !equal("title", &p["title"], &l["title"]) && !equal("start", &p["start"], &l["start"]) {
        return 0;
    }
    FIELDS.iter().filter(|f| equal(f, &p[**f], &l[**f])).count()
}

/// Scores one file: per-field counts, added into `per_field`.
fn score_file(preds: &[Value], labels: &[Value], per_field: &mut BTreeMap<&'static str, Counts>) {
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
            score_pair(Some(&preds[i]), Some(&labels[j]), per_field);
        }
    }
    for (i, p) in preds.iter().enumerate() {
        if !used_p[i] {
            score_pair(Some(p), None, per_field);
        }
    }
    for (j, l) in labels.iter().enumerate() {
        if !used_l[j] {
            score_pair(None, Some(l), per_field);
        }
    }
}

fn merged(
    a: &BTreeMap<&'static str, Counts>,
    b: &BTreeMap<&'static str, Counts>,
) -> BTreeMap<&'static str, Counts> {
    let mut out = a.clone();
    for (f, c) in b {
        out.entry(f).or_default().add(*c);
    }
    out
}

#[derive(PartialEq)]
enum Class {
    Structured,
    Negative,
    NeedsSiteRules,
    FeedOrCalendar,
}

fn class_of(name: &str) -> Class {
    if name.ends_with(".ics") || name.ends_with(".rss") {
        Class::FeedOrCalendar
    } else if name.contains("negative") {
        Class::Negative
    } else if name.contains("nosd") {
        Class::NeedsSiteRules
    } else {
        Class::Structured
    }
}

#[test]
fn corpus_f1() {
    let mut labels = load_labels(&vendored());
    let ext = external();
    if let Some(dir) = &ext {
        for (k, v) in load_labels(dir) {
            labels.entry(k).or_insert(v);
        }
    }
    let mut per_field: BTreeMap<&'static str, Counts> = BTreeMap::new();
    let book = corpus_rules();
    let (mut nosd_rules, mut nosd_fallback): (
        BTreeMap<&'static str, Counts>,
        BTreeMap<&'static str, Counts>,
    ) = (BTreeMap::new(), BTreeMap::new());
    let mut unreadable: Vec<String> = Vec::new();
    let mut vendored_only: BTreeMap<&'static str, Counts> = BTreeMap::new();
    let mut feeds_field: BTreeMap<&'static str, Counts> = BTreeMap::new();
    let mut calendars_vendored = Counts::default();
    let mut report = String::new();
    for (name, entry) in &labels {
        let local = vendored().join(name);
        let path = if local.exists() {
            local
        } else if let Some(p) = ext.as_ref().map(|d| d.join(name)).filter(|p| p.exists()) {
            p
        } else {
            report.push_str(&format!("{name}: not available (left out of the repository)\n"));
            continue;
        };
        let label_events: Vec<Value> = entry["events"].as_array().cloned().unwrap_or_default();
        let preds = run(&path, entry["base_url"].as_str().unwrap());
        match class_of(name) {
            Class::Negative => {
                report.push_str(&format!("{name}: negative, {} events (want 0)\n", preds.len()));
                assert!(preds.is_empty(), "{name}: negative page yielded events: {preds:#?}");
            }
            Class::NeedsSiteRules => {
                report.push_str(&format!(
                    "{name}: no structured data, {} events from structured data (want 0; {} labelled need site rules)\n",
                    preds.len(),
                    label_events.len()
                ));
                assert!(
                    preds.is_empty(),
                    "{name}: page without structured data yielded events: {preds:#?}"
                );
                let base = entry["base_url"].as_str().unwrap();
                for (mode, into) in
                    [(Mode::Rules(&book), &mut nosd_rules), (Mode::Fallback, &mut nosd_fallback)]
                {
                    let preds = run_with(&path, base, mode);
                    let mut file_counts = BTreeMap::new();
                    score_file(&preds, &label_events, &mut file_counts);
                    let mut total = Counts::default();
                    for (f, c) in &file_counts {
                        total.add(*c);
                        into.entry(f).or_default().add(*c);
                    }
                    let how = if matches!(mode, Mode::Fallback) { "fallback" } else { "rules" };
                    report.push_str(&format!(
                        "  with {how}: F1 {:.3} ({} predicted; tp {} fp {} fn {})\n",
                        total.f1(),
                        preds.len(),
                        total.tp,
                        total.fp,
                        total.fn_
                    ));
                    if preds.is_empty() {
                        unreadable.push(format!("{name} ({how})"));
                    }
                }
            }
            class @ (Class::Structured | Class::FeedOrCalendar) => {
                if std::env::var_os("CORPUS_DEBUG").is_some() {
                    #[allow(clippy::print_stdout, reason = "debug output on request")]
                    {
                        println!("{name}");
                    }
                }
                let mut file_counts = BTreeMap::new();
                score_file(&preds, &label_events, &mut file_counts);
                let mut total = Counts::default();
                for (f, c) in &file_counts {
                    total.add(*c);
                    if class == Class::FeedOrCalendar {
                        feeds_field.entry(f).or_default().add(*c);
                        if path.starts_with(vendored()) {
                            calendars_vendored.add(*c);
                        }
                        continue;
                    }
                    per_field.entry(f).or_default().add(*c);
                    if path.starts_with(vendored()) {
                        vendored_only.entry(f).or_default().add(*c);
                    }
                }
                report.push_str(&format!(
                    "{name}: F1 {:.3} ({} predicted, {} labelled; tp {} fp {} fn {})\n",
                    total.f1(),
                    preds.len(),
                    label_events.len(),
                    total.tp,
                    total.fp,
                    total.fn_
                ));
            }
        }
    }
    let mut overall = Counts::default();
    report.push_str("\nfield        precision recall  F1     (tp/fp/fn)\n");
    for (f, c) in &per_field {
        overall.add(*c);
        let p = if c.tp + c.fp == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fp) };
        let r = if c.tp + c.fn_ == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fn_) };
        report.push_str(&format!(
            "{f:<12} {p:>9.3} {r:>6.3} {:>6.3}  ({}/{}/{})\n",
            c.f1(),
            c.tp,
            c.fp,
            c.fn_
        ));
    }
    let vendored_total = vendored_only.values().fold(Counts::default(), |mut a, c| {
        a.add(*c);
        a
    });
    report.push_str(&format!("\nstructured-data F1 (micro, all fields): {:.3}\n", overall.f1()));
    let mut feeds_total = Counts::default();
    report.push_str("\nfeeds and calendars\nfield        precision recall  F1     (tp/fp/fn)\n");
    for (f, c) in &feeds_field {
        feeds_total.add(*c);
        let p = if c.tp + c.fp == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fp) };
        let r = if c.tp + c.fn_ == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fn_) };
        report.push_str(&format!(
            "{f:<12} {p:>9.3} {r:>6.3} {:>6.3}  ({}/{}/{})\n",
            c.f1(),
            c.tp,
            c.fp,
            c.fn_
        ));
    }
    report.push_str(&format!(
        "\nfeeds and calendars F1 (micro, all fields): {:.3}; vendored calendars only: {:.3}\n",
        feeds_total.f1(),
        calendars_vendored.f1()
    ));
    // Pages without structured data: per field, with rules and with the fallback alone,
    // and the whole corpus's F1 with each.
    let table = |title: &str, m: &BTreeMap<&'static str, Counts>| -> String {
        let mut t = format!("\n{title}\nfield        precision recall  F1     (tp/fp/fn)\n");
        for (f, c) in m {
            let p = if c.tp + c.fp == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fp) };
            let r = if c.tp + c.fn_ == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fn_) };
            t.push_str(&format!(
                "{f:<12} {p:>9.3} {r:>6.3} {:>6.3}  ({}/{}/{})\n",
                c.f1(),
                c.tp,
                c.fp,
                c.fn_
            ));
        }
        t
    };
    let with_rules = merged(&per_field, &nosd_rules);
    let without_rules = merged(&per_field, &nosd_fallback);
    let total = |m: &BTreeMap<&'static str, Counts>| {
        m.values().fold(Counts::default(), |mut a, c| {
            a.add(*c);
            a
        })
    };
    report.push_str(&table("pages without structured data, with site rules", &nosd_rules));
    report.push_str(&table("pages without structured data, generic fallback only", &nosd_fallback));
    report.push_str(&table("whole HTML corpus, with site rules", &with_rules));
    report.push_str(&format!(
        "\nwithout structured data: F1 {:.3} with rules, {:.3} with the fallback only\n\
         whole HTML corpus: F1 {:.3} with rules, {:.3} without (fallback only)\n\
         pages read as no event: {}\n",
        total(&nosd_rules).f1(),
        total(&nosd_fallback).f1(),
        total(&with_rules).f1(),
        total(&without_rules).f1(),
        if unreadable.is_empty() { "none".to_owned() } else { unreadable.join(", ") }
    ));
    #[allow(clippy::print_stdout, reason = "the score report is the point of this test")]
    {
        println!("{report}");
    }
    assert!(
        total(&with_rules).f1() >= 0.95,
        "corpus F1 with rules {:.3}\n{report}",
        total(&with_rules).f1()
    );
    // Issue 10 asks for 0.90 without rules (0.905 today, 0.879 before the fallback read
    // listings): the fallback's listing reader reads 27 (each row dates itself); 35 stays
    // unread, its items take their (year-less) dates from day headings.
    assert!(
        total(&without_rules).f1() >= 0.90,
        "corpus F1 without rules {:.3}\n{report}",
        total(&without_rules).f1()
    );
    for (f, c) in &nosd_rules {
        // Fields with fewer than three labels on these pages are reported, not judged:
        // locality and country of 34 are labelled from context, not written on the page.
        if c.tp + c.fn_ >= 3 {
            assert!(
                c.f1() >= 0.85,
                "{f}: F1 {:.3} with rules on pages without structured data\n{report}",
                c.f1()
            );
        }
    }
    assert!(
        calendars_vendored.f1() >= 0.95 && feeds_total.f1() >= 0.95,
        "feed and calendar F1 fell to {:.3} (vendored calendars {:.3})\n{report}",
        feeds_total.f1(),
        calendars_vendored.f1()
    );
    // A floor just under the current score, so regressions fail loudly.
    assert!(
        vendored_total.f1() >= 0.95,
        "structured-data F1 fell to {:.3}\n{report}",
        vendored_total.f1()
    );
}
