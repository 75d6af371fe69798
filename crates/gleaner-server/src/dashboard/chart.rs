//! Requests over time per site and purpose, as inline SVG (the CSP allows no script, and
//! an SVG needs none): one small stacked bar chart per site, one bar per UTC day, one
//! colour per purpose, a `<title>` on each segment for the exact count.

use std::collections::BTreeMap;
use std::fmt::Write;

use chrono::{DateTime, Duration as Days, NaiveDate, Utc};
use gleaner_store::AuditEntry;

use crate::about::escape;
use crate::site_page::refused;

const COLOURS: [&str; 8] =
    ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"];

/// Requests sent per site, per day, per purpose.
pub type Counts = BTreeMap<String, BTreeMap<NaiveDate, BTreeMap<String, u64>>>;

/// Counts sent requests of the last `days` days up to `today`.
pub fn count(rows: &[AuditEntry], today: NaiveDate, days: u32) -> Counts {
    let first = today - Days::days(i64::from(days) - 1);
    let mut counts = Counts::new();
    for row in rows.iter().filter(|r| !refused(r)) {
        let day = DateTime::<Utc>::from(row.time).date_naive();
        if day < first || day > today {
            continue;
        }
        let purpose = row.purpose.map_or("unknown".to_owned(), |p| p.to_string());
        *counts
            .entry(row.site.clone())
            .or_default()
            .entry(day)
            .or_default()
            .entry(purpose)
            .or_default() += 1;
    }
    counts
}

/// The charts as HTML (a legend, then one SVG per site).
pub fn render(counts: &Counts, today: NaiveDate, days: u32) -> String {
    let purposes: Vec<String> = {
        let mut all: Vec<String> =
            counts.values().flat_map(|d| d.values()).flat_map(|p| p.keys().cloned()).collect();
        all.sort();
        all.dedup();
        all
    };
    let colour = |p: &str| {
        let i = purposes.iter().position(|x| x == p).unwrap_or(0);
        COLOURS[i % COLOURS.len()]
    };
    let mut html = String::from("<p id=\"legend\">");
    for p in &purposes {
        let _ = write!(
            html,
            "<span class=\"key\"><svg width=\"12\" height=\"12\" aria-hidden=\"true\"><rect width=\"12\" height=\"12\" fill=\"{}\"/></svg> {}</span> ",
            colour(p),
            escape(p)
        );
    }
    html.push_str("</p>\n");
    if counts.is_empty() {
        html.push_str("<p id=\"no-requests\">No requests in this period.</p>\n");
    }
    let first = today - Days::days(i64::from(days) - 1);
    let (bar, gap, height, left, bottom) = (18.0f64, 4.0f64, 120.0f64, 36.0f64, 18.0f64);
    let width = left + f64::from(days) * (bar + gap);
    for (site, per_day) in counts {
        let max = per_day.values().map(|p| p.values().sum::<u64>()).max().unwrap_or(1).max(1);
        let total: u64 = per_day.values().flat_map(|p| p.values()).sum();
        let _ = write!(
            html,
            "<figure class=\"chart\" data-site=\"{s}\"><figcaption>{s}: {total} requests</figcaption>\
             <svg role=\"img\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" xmlns=\"http://www.w3.org/2000/svg\">\
             <title>Requests per day to {s}</title>\
             <text x=\"0\" y=\"12\" font-size=\"10\">{max}</text><text x=\"0\" y=\"{zero}\" font-size=\"10\">0</text>\
             <line x1=\"{left}\" y1=\"{base}\" x2=\"{w}\" y2=\"{base}\" stroke=\"#999\"/>",
            s = escape(site),
            w = width,
            h = height + bottom,
            zero = height,
            base = height,
        );
        for i in 0..days {
            let day = first + Days::days(i64::from(i));
            let x = left + f64::from(i) * (bar + gap);
            let mut y = height;
            if let Some(by_purpose) = per_day.get(&day) {
                for (purpose, n) in by_purpose {
                    let h = (*n as f64 / max as f64) * (height - 10.0);
                    y -= h;
                    let _ = write!(
                        html,
                        "<rect class=\"bar\" data-day=\"{day}\" data-purpose=\"{p}\" data-count=\"{n}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar}\" height=\"{h:.1}\" fill=\"{c}\"><title>{day} {p}: {n}</title></rect>",
                        p = escape(purpose),
                        c = colour(purpose),
                    );
                }
            }
            if i % 7 == 0 || i + 1 == days {
                let _ = write!(
                    html,
                    "<text x=\"{x:.1}\" y=\"{ty}\" font-size=\"9\">{}</text>",
                    day.format("%m-%d"),
                    ty = height + 13.0
                );
            }
        }
        html.push_str("</svg></figure>\n");
    }
    html
}
