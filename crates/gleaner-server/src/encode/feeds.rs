//! The events as iCalendar (RFC 5545) and RSS 2.0.
//!
//! iCalendar: one stable UID per stored event (`event-{id}@{host of the info page}`),
//! DTSTAMP from the last check, TEXT values escaped (§3.3.11), lines folded at 75 octets
//! without splitting a UTF-8 character (§3.1), CRLF line ends. Times: a date stays a
//! `VALUE=DATE`; a time with a known offset is written in UTC (`…Z`), which names the
//! instant exactly; a time whose zone the source did not give stays floating, as the
//! source wrote it. RSS: XML-escaped text, one `guid` per event (not a permalink).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use gleaner_config::Settings;

use crate::ApiEvent;

/// Escapes a TEXT value: backslash, semicolon, comma, newlines.
pub fn ics_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Folds one content line at 75 octets (CRLF and a space), never inside a character,
/// and appends it with its CRLF.
pub fn fold_into(out: &mut String, line: &str) {
    let mut width = 0;
    for c in line.chars() {
        let len = c.len_utf8();
        if width + len > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += len;
    }
    out.push_str("\r\n");
}

/// A date-time property (`DTSTART`, `DTEND`) from the API's ISO 8601 text.
fn ics_time(name: &str, iso: &str) -> Option<String> {
    if let Ok(date) = NaiveDate::parse_from_str(iso, "%Y-%m-%d") {
        return Some(format!("{name};VALUE=DATE:{}", date.format("%Y%m%d")));
    }
    if let Ok(fixed) = DateTime::parse_from_rfc3339(iso) {
        return Some(format!("{name}:{}", fixed.with_timezone(&Utc).format("%Y%m%dT%H%M%SZ")));
    }
    if let Ok(floating) = NaiveDateTime::parse_from_str(iso, "%Y-%m-%dT%H:%M:%S") {
        return Some(format!("{name}:{}", floating.format("%Y%m%dT%H%M%S")));
    }
    None
}

fn utc_stamp(rfc3339: &str) -> String {
    DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.with_timezone(&Utc))
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
        .format("%Y%m%dT%H%M%SZ")
        .to_string()
}

fn uid_host(settings: &Settings) -> String {
    settings.bot.info_url.host_str().unwrap_or("gleaner.invalid").to_owned()
}

/// Only http(s) addresses are passed on as links.
pub fn safe_url(url: &str) -> Option<&str> {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    (lower.starts_with("http://") || lower.starts_with("https://")).then_some(url)
}

/// The calendar.
pub fn ics(settings: &Settings, events: &[ApiEvent]) -> String {
    let mut out = String::new();
    let host = uid_host(settings);
    for line in [
        "BEGIN:VCALENDAR".to_owned(),
        "VERSION:2.0".to_owned(),
        format!("PRODID:-//gleaner//{}//EN", ics_text(&settings.bot.token)),
        "CALSCALE:GREGORIAN".to_owned(),
        "METHOD:PUBLISH".to_owned(),
        format!("X-WR-CALNAME:{}", ics_text(&settings.bot.operator)),
    ] {
        fold_into(&mut out, &line);
    }
    for event in events {
        let f = &event.facts;
        let Some(start) = f.start.as_deref().and_then(|s| ics_time("DTSTART", s)) else {
            continue;
        };
        let mut lines = vec![
            "BEGIN:VEVENT".to_owned(),
            format!("UID:event-{}@{host}", event.id),
            format!("DTSTAMP:{}", utc_stamp(&event.last_checked)),
            start,
        ];
        if let Some(end) = f.end.as_deref().and_then(|s| ics_time("DTEND", s)) {
            lines.push(end);
        }
        lines.push(format!("SUMMARY:{}", ics_text(f.title.as_deref().unwrap_or("(untitled)"))));
        let location: Vec<&str> =
            [f.venue_name.as_deref(), f.street.as_deref(), f.locality.as_deref()]
                .into_iter()
                .flatten()
                .collect();
        if !location.is_empty() {
            lines.push(format!("LOCATION:{}", ics_text(&location.join(", "))));
        }
        if let Some(description) = &f.description {
            lines.push(format!("DESCRIPTION:{}", ics_text(description)));
        }
        if let Some(url) = safe_url(&event.source_url) {
            lines.push(format!("URL:{url}"));
        }
        lines.push(format!("CATEGORIES:{}", ics_text(&event.category)));
        // No STATUS when the source states none (issue 24): CONFIRMED would be a claim.
        if let Some(status) = f.status {
            lines.push(format!(
                "STATUS:{}",
                match status {
                    "cancelled" => "CANCELLED",
                    "postponed" => "TENTATIVE",
                    _ => "CONFIRMED",
                }
            ));
        }
        lines.push(format!("LAST-MODIFIED:{}", utc_stamp(&event.last_checked)));
        lines.push("END:VEVENT".to_owned());
        for line in lines {
            fold_into(&mut out, &line);
        }
    }
    fold_into(&mut out, "END:VCALENDAR");
    out
}

/// Escapes XML text and attribute values.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

fn rfc2822(rfc3339: &str) -> Option<String> {
    DateTime::parse_from_rfc3339(rfc3339).ok().map(|t| t.with_timezone(&Utc).to_rfc2822())
}

/// The RSS 2.0 feed.
pub fn rss(settings: &Settings, events: &[ApiEvent]) -> String {
    let host = uid_host(settings);
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel>\n",
    );
    out.push_str(&format!(
        "<title>{}</title>\n<link>{}</link>\n<description>{}</description>\n",
        xml(&format!("{} — events", settings.bot.operator)),
        xml(settings.bot.info_url.as_str()),
        xml(&format!("Events read by {}", settings.bot.token)),
    ));
    for event in events {
        let f = &event.facts;
        let mut summary = Vec::new();
        if let Some(start) = &f.start {
            summary.push(start.clone());
        }
        if let Some(venue) = &f.venue_name {
            summary.push(venue.clone());
        }
        if let Some(locality) = &f.locality {
            summary.push(locality.clone());
        }
        if let Some(description) = &f.description {
            summary.push(description.clone());
        }
        out.push_str("<item>");
        out.push_str(&format!(
            "<title>{}</title>",
            xml(f.title.as_deref().unwrap_or("(untitled)"))
        ));
        if let Some(url) = safe_url(&event.source_url) {
            out.push_str(&format!("<link>{}</link>", xml(url)));
        }
        out.push_str(&format!("<description>{}</description>", xml(&summary.join(" · "))));
        out.push_str(&format!("<category>{}</category>", xml(&event.category)));
        out.push_str(&format!(
            "<guid isPermaLink=\"false\">event-{}@{}</guid>",
            event.id,
            xml(&host)
        ));
        if let Some(date) = rfc2822(&event.first_seen) {
            out.push_str(&format!("<pubDate>{date}</pubDate>"));
        }
        out.push_str("</item>\n");
    }
    out.push_str("</channel></rss>\n");
    out
}
