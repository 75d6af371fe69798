//! The scoring rules both extraction scorers share (`corpus.rs` over the labelled corpus,
//! `written.rs` over the written pages), read from `labels.json`'s conventions: predicted
//! and labelled events are paired by agreeing fields; per field, a non-null prediction
//! equal to a non-null label is a true positive, a non-null prediction that is wrong or
//! labelled null a false positive, a non-null label predicted wrong or null a false
//! negative. One copy, so the two scores always mean the same.

#![allow(dead_code, reason = "each scorer uses its own subset")]

use std::collections::BTreeMap;

use gleaner_event::time::parse_event_time;
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
