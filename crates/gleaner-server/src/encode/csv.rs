//! Events as CSV (RFC 4180): a header row, one row per event, CRLF line ends, a field
//! quoted when it holds a comma, a quote or a line break (quotes doubled).
//!
//! Text read from crawled pages that a spreadsheet would run as a formula (a cell
//! starting with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, the
//! usual guard against CSV injection; dates, numbers and addresses are written as they are.

use crate::ApiEvent;

/// The columns, in order.
pub const COLUMNS: [&str; 22] = [
    "id",
    "title",
    "start",
    "end",
    "status",
    "category",
    "venue_name",
    "street",
    "locality",
    "country",
    "price_min",
    "price_max",
    "currency",
    "is_free",
    "ticket_url",
    "url",
    "image_url",
    "description",
    "source",
    "source_url",
    "first_seen",
    "last_checked",
];

/// The events as CSV with a header row.
pub fn csv(events: &[ApiEvent]) -> String {
    let mut out = String::new();
    row(&mut out, COLUMNS.iter().map(|c| (*c).to_owned()));
    for event in events {
        let f = &event.facts;
        let text = |v: &Option<String>| v.as_deref().map(guard).unwrap_or_default();
        let plain = |v: &Option<String>| v.clone().unwrap_or_default();
        row(
            &mut out,
            [
                event.id.to_string(),
                text(&f.title),
                plain(&f.start),
                plain(&f.end),
                f.status.unwrap_or_default().to_owned(),
                event.category.clone(),
                text(&f.venue_name),
                text(&f.street),
                text(&f.locality),
                text(&f.country),
                plain(&f.price_min),
                plain(&f.price_max),
                text(&f.currency),
                f.is_free.map(|b| b.to_string()).unwrap_or_default(),
                plain(&f.ticket_url),
                plain(&f.url),
                plain(&f.image_url),
                text(&f.description),
                guard(&event.source),
                event.source_url.clone(),
                event.first_seen.clone(),
                event.last_checked.clone(),
            ]
            .into_iter(),
        );
    }
    out
}

fn row(out: &mut String, fields: impl Iterator<Item = String>) {
    for (i, field) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if field.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&field.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&field);
        }
    }
    out.push_str("\r\n");
}

/// Crawled text that a spreadsheet would read as a formula gets a leading `'`.
fn guard(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_and_guards() {
        let mut event = ApiEvent { id: 7, ..ApiEvent::default() };
        event.facts.title = Some("Rock, \"live\"\nand more".into());
        event.facts.venue_name = Some("=HYPERLINK(\"x\")".into());
        let text = csv(&[event]);
        let mut lines = text.split("\r\n");
        assert!(lines.next().unwrap().starts_with("id,title,start,"));
        let second = lines.next().unwrap();
        assert!(second.starts_with("7,\"Rock, \"\"live\"\"\nand more\",,,"), "{second}");
        assert!(text.contains("\"'=HYPERLINK(\"\"x\"\")\""), "{text}");
    }
}
