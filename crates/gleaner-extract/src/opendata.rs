//! Open-data records (weather warnings, fuel prices): JSON arrays or CSV tables, each row a
//! [`Record`] of named fields with a title, a date and its source link, for the newsroom
//! pool (SPEC §2, AubeActuBot).
//!
//! [`RecordMapping`] names where things are: JSON pointers for [`read_json`], column names
//! for [`read_csv`]. CSV is RFC 4180 (quoted fields, doubled quotes, line breaks inside
//! quotes) with the delimiter sniffed from the header (`,`, `;` as French portals write,
//! or a tab). The record's link is its own link field when the mapping names one, else the
//! dataset's URL. Caps: [`MAX_RECORDS`] records, [`MAX_FIELDS`] fields per record.
//! Rejected: JSON that does not parse or whose pointer is not an array; CSV without a
//! header line.

use gleaner_event::EventTime;
use gleaner_event::time::parse_event_time;
use serde::Deserialize;
use serde_json::Value;
use url::Url;

use crate::api::scalar;
use crate::{Diagnostic, Format, Severity};

/// Records beyond this many are not read.
pub const MAX_RECORDS: usize = 100_000;
/// Fields beyond this many per record are dropped.
pub const MAX_FIELDS: usize = 256;

/// Where a dataset's records and their main fields are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordMapping {
    /// JSON: pointer to the array of records (`""`: the document). CSV: unused.
    #[serde(default)]
    pub records: String,
    /// Field (pointer or column) whose value identifies the record.
    pub id: Option<String>,
    /// Fields joined with ` – ` to make a title (`["phenomenon", "level"]`).
    #[serde(default)]
    pub title: Vec<String>,
    /// Field holding the record's date (ISO 8601).
    pub date: Option<String>,
    /// Field holding the record's own link.
    pub link: Option<String>,
}

/// One record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Its id, when mapped.
    pub id: Option<String>,
    /// The mapped title fields joined, when any are present.
    pub title: Option<String>,
    /// The mapped date.
    pub date: Option<EventTime>,
    /// The record's link, else the dataset's URL.
    pub link: Url,
    /// Every scalar field: JSON keys at the record's top level, or CSV columns.
    pub fields: Vec<(String, String)>,
}

/// What a dataset held.
#[derive(Debug, Clone, Default)]
pub struct Records {
    /// Records in order.
    pub records: Vec<Record>,
    /// What was refused or dropped.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads JSON records. `source` is the dataset's URL. Never panics.
pub fn read_json(bytes: &[u8], mapping: &RecordMapping, source: &Url) -> Records {
    let mut out = Records::default();
    let doc: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            out.diag(Severity::Error, format!("not JSON: {e}"));
            return out;
        }
    };
    let Some(Value::Array(items)) = doc.pointer(&mapping.records) else {
        out.diag(
            Severity::Error,
            format!("pointer `{}` does not lead to an array", mapping.records),
        );
        return out;
    };
    for item in items.iter().take(MAX_RECORDS) {
        let get = |p: &str| {
            let p = if p.starts_with('/') { p.to_owned() } else { format!("/{p}") };
            item.pointer(&p).and_then(scalar)
        };
        let fields = match item {
            Value::Object(m) => m
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), scalar(v)?)))
                .take(MAX_FIELDS)
                .collect(),
            other => scalar(other).map(|v| vec![("value".to_owned(), v)]).unwrap_or_default(),
        };
        out.records.push(record(mapping, source, get, fields));
    }
    if items.len() > MAX_RECORDS {
        out.diag(
            Severity::Warning,
            format!("read the first {MAX_RECORDS} of {} records", items.len()),
        );
    }
    out
}

/// Reads CSV records (header line first). `source` is the dataset's URL. Never panics.
pub fn read_csv(bytes: &[u8], mapping: &RecordMapping, source: &Url) -> Records {
    let mut out = Records::default();
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    let first_line = text.lines().next().unwrap_or("");
    let delim =
        [';', '\t', ','].into_iter().max_by_key(|d| first_line.matches(*d).count()).unwrap_or(',');
    let mut rows = csv_rows(text, delim);
    let Some(header) = rows.next().filter(|h| h.iter().any(|c| !c.trim().is_empty())) else {
        out.diag(Severity::Error, "no header line".into());
        return out;
    };
    let header: Vec<String> =
        header.into_iter().map(|h| h.trim().to_owned()).take(MAX_FIELDS).collect();
    let mut ragged = 0usize;
    let mut n = 0usize;
    for row in rows {
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if n >= MAX_RECORDS {
            out.diag(Severity::Warning, format!("read the first {MAX_RECORDS} records"));
            break;
        }
        n += 1;
        if row.len() != header.len() {
            ragged += 1;
        }
        let fields: Vec<(String, String)> =
            header.iter().cloned().zip(row.into_iter().map(|v| v.trim().to_owned())).collect();
        let get = |col: &str| {
            fields.iter().find(|(k, _)| k == col).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
        };
        let rec = record(mapping, source, get, fields.clone());
        out.records.push(rec);
    }
    if ragged > 0 {
        out.diag(
            Severity::Warning,
            format!("{ragged} rows had a different number of fields than the header"),
        );
    }
    out
}

fn record(
    mapping: &RecordMapping,
    source: &Url,
    get: impl Fn(&str) -> Option<String>,
    fields: Vec<(String, String)>,
) -> Record {
    let title: Vec<String> = mapping.title.iter().filter_map(|f| get(f)).collect();
    let link = mapping
        .link
        .as_deref()
        .and_then(&get)
        .and_then(|l| source.join(l.trim()).ok())
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .unwrap_or_else(|| source.clone());
    Record {
        id: mapping.id.as_deref().and_then(&get),
        title: (!title.is_empty()).then(|| title.join(" – ")),
        date: mapping.date.as_deref().and_then(&get).and_then(|d| parse_event_time(&d)),
        link,
        fields,
    }
}

/// RFC 4180 rows.
fn csv_rows(text: &str, delim: char) -> impl Iterator<Item = Vec<String>> + '_ {
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        chars.peek()?;
        let mut row = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            if quoted {
                if c == '"' {
                    if chars.peek() == Some(&'"') {
                        chars.next();
                        field.push('"');
                    } else {
                        quoted = false;
                    }
                } else {
                    field.push(c);
                }
            } else if c == '"' && field.is_empty() {
                quoted = true;
            } else if c == delim {
                if row.len() < MAX_FIELDS {
                    row.push(std::mem::take(&mut field));
                } else {
                    field.clear();
                }
            } else if c == '\n' {
                break;
            } else if c != '\r' {
                field.push(c);
            }
        }
        row.push(field);
        Some(row)
    })
}

impl Records {
    fn diag(&mut self, severity: Severity, message: String) {
        self.diagnostics.push(Diagnostic {
            severity,
            format: Format::OpenData,
            message,
            location: String::new(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_semicolons() {
        let csv = "id;name;price\n1;\"Station \"\"A\"\"; Nord\";1.849\n2;B;1.7\n";
        let m = RecordMapping {
            id: Some("id".into()),
            title: vec!["name".into()],
            ..Default::default()
        };
        let src = Url::parse("https://data.example/fuel.csv").unwrap();
        let r = read_csv(csv.as_bytes(), &m, &src);
        assert_eq!(r.records.len(), 2);
        assert_eq!(r.records[0].title.as_deref(), Some("Station \"A\"; Nord"));
        assert_eq!(r.records[1].fields[2], ("price".to_owned(), "1.7".to_owned()));
        assert_eq!(r.records[0].link, src);
    }
}
