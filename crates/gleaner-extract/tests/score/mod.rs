//! The scoring rules both extraction scorers share (`corpus.rs` over the labelled corpus,
//! `written.rs` over the written pages), read from `labels.json`'s conventions: predicted
//! and labelled events are paired by agreeing fields; per field, a non-null prediction
//! equal to a non-null label is a true positive, a non-null prediction that is wrong or
//! labelled null a false positive, a non-null label predicted wrong or null a false
//! negative. One copy, so the two scores always mean the same; the runner ([`run`]), the
//! pairing ([`score_file`]) and the report table ([`table`]) are shared too.

#![allow(dead_code, reason = "each scorer uses its own subset")]

use std::collections::BTreeMap;
use std::path::Path;

use gleaner_event::time::parse_event_time;
use gleaner_event::{NormaliseContext, PublicEvent};
use gleaner_extract::ExtractOptions;
use rust_decimal::Decimal;
use serde_json::Value;
use url::Url;

pub const FIELDS: [&str; 16] = [
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

pub fn norm_text(v: &str) -> String {
    v.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

pub fn equal(field: &str, pred: &Value, label: &Value) -> bool {
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
pub fn country(v: &str) -> String {
    match v.trim().to_lowercase().as_str() {
        "ireland" => "IE".to_owned(),
        "france" => "FR".to_owned(),
        "united kingdom" | "uk" => "GB".to_owned(),
        "united states" | "usa" => "US".to_owned(),
        "germany" => "DE".to_owned(),
        other => other.to_uppercase(),
    }
}

#[derive(Default, Clone, Copy)]
pub struct Counts {
    pub tp: u32,
    pub fp: u32,
    pub fn_: u32,
}

impl Counts {
    pub fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }
    pub fn f1(&self) -> f64 {
        let d = 2 * self.tp + self.fp + self.fn_;
        if d == 0 { 1.0 } else { f64::from(2 * self.tp) / f64::from(d) }
    }
}

/// Per-field counts of one predicted/labelled pair; each miss is written to `log`.
pub fn score_pair(
    pred: Option<&Value>,
    label: Option<&Value>,
    per_field: &mut BTreeMap<&'static str, Counts>,
    log: &mut String,
) {
    for f in FIELDS {
        let p = pred.map_or(&Value::Null, |p| &p[f]);
        let l = label.map(|l| &l[f]);
        let c = per_field.entry(f).or_default();
        let claimed = !p.is_null();
        let labelled = l.is_some_and(|l| !l.is_null());
        if claimed && labelled && equal(f, p, l.unwrap()) {
            c.tp += 1;
        } else {
            if claimed || labelled {
                log.push_str(&format!(
                    "    {f}: predicted {p} labelled {}\n",
                    l.unwrap_or(&Value::Null)
                ));
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

pub fn agreement(p: &Value, l: &Value) -> usize {
    if !equal("title", &p["title"], &l["title"]) && !equal("start", &p["start"], &l["start"]) {
        return 0;
    }
    FIELDS.iter().filter(|f| equal(f, &p[**f], &l[**f])).count()
}

/// Per-field counts.
pub type Table = BTreeMap<&'static str, Counts>;

/// The content type a labelled file is served with, from its name.
pub fn content_type(name: &str) -> &'static str {
    if name.ends_with(".ics") {
        "text/calendar"
    } else if name.ends_with(".rss") {
        "application/rss+xml"
    } else if name.ends_with(".atom") {
        "application/atom+xml"
    } else {
        "text/html"
    }
}

/// Reads one labelled file as `gleaner extract --url BASE` would: its events' public JSON.
pub fn run(path: &Path, base: &str, opts: &ExtractOptions) -> Vec<Value> {
    let bytes = std::fs::read(path).unwrap();
    let base = Url::parse(base).unwrap();
    let ctx = NormaliseContext { base_url: &base, default_tz: None };
    let name = path.file_name().unwrap().to_str().unwrap();
    let out = gleaner_extract::extract_events_with(&bytes, content_type(name), &ctx, opts);
    out.events.iter().map(|e| serde_json::to_value(PublicEvent::from(e)).unwrap()).collect()
}

/// Scores one file into `per_field`: predicted and labelled events paired greedily by the
/// number of agreeing fields, then unpaired ones field by field; misses written to `log`.
pub fn score_file(preds: &[Value], labels: &[Value], per_field: &mut Table, log: &mut String) {
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
            log.push_str(&format!("  pair: {} {}\n", labels[j]["title"], labels[j]["start"]));
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

/// `b` added into a copy of `a`.
pub fn merged(a: &Table, b: &Table) -> Table {
    let mut out = a.clone();
    for (f, c) in b {
        out.entry(f).or_default().add(*c);
    }
    out
}

/// All fields' counts together (micro average).
pub fn total(m: &Table) -> Counts {
    m.values().fold(Counts::default(), |mut a, c| {
        a.add(*c);
        a
    })
}

/// Precision of counts (1 when nothing was claimed).
pub fn precision(c: Counts) -> f64 {
    if c.tp + c.fp == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fp) }
}

/// The per-field report: precision, recall, F1 and counts, then the overall F1.
pub fn table(title: &str, m: &Table) -> String {
    let mut t = format!("\n{title}\nfield        precision recall  F1     (tp/fp/fn)\n");
    for f in FIELDS {
        let c = m.get(f).copied().unwrap_or_default();
        let r = if c.tp + c.fn_ == 0 { 1.0 } else { f64::from(c.tp) / f64::from(c.tp + c.fn_) };
        t.push_str(&format!(
            "{f:<12} {:>9.3} {r:>6.3} {:>6.3}  ({}/{}/{})\n",
            precision(c),
            c.f1(),
            c.tp,
            c.fp,
            c.fn_
        ));
    }
    let c = total(m);
    t.push_str(&format!("{:<12} {:>23.3}  ({}/{}/{})\n", "overall", c.f1(), c.tp, c.fp, c.fn_));
    t
}
