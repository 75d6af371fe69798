//! The time of day a page writes beside a date-only JSON-LD event.
//!
//! Some calendar plugins (Modern Events Calendar among them) put a JSON-LD block at the top
//! of each listed event with `startDate` a date alone, and show the times in the markup that
//! follows (`<span class="mec-start-time">7:30 pm</span> - <span …>9:30 pm</span>`). The
//! times are read from the page between that block and the next one, only when that stretch
//! names the event and states one time (or one range) in all: anything less certain leaves
//! the date alone.

use chrono::{NaiveDate, NaiveTime};
use gleaner_event::datetext::{fold_diacritics, parse_text_time};

/// How far after its block an event's markup is looked for.
const MAX_STRETCH: usize = 8 * 1024;

/// Block-level tags: a line of text ends at each.
const BREAKS: &[&str] = &[
    "div", "p", "li", "br", "tr", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "article",
    "section", "header", "footer", "ul", "ol", "dd", "dt", "address",
];

/// The start and end (ISO 8601, floating) of a one-day event dated `start` (`end` as its
/// `endDate`, if any) from the page's `stretch` after its block, when the stretch names
/// the event (`name`) and writes exactly one time or time range.
pub(crate) fn timed(
    start: &str,
    end: Option<&str>,
    name: &str,
    stretch: &str,
) -> Option<(String, Option<String>)> {
    let day = NaiveDate::parse_from_str(start.trim(), "%Y-%m-%d").ok()?;
    if end.is_some_and(|e| NaiveDate::parse_from_str(e.trim(), "%Y-%m-%d").ok() != Some(day)) {
        return None;
    }
    let stretch = &stretch[..floor_char_boundary(stretch, MAX_STRETCH)];
    let lines = text_lines(stretch);
    let fold = |s: &str| fold_diacritics(&gleaner_event::text::decode_entities(s)).to_lowercase();
    let name = fold(name);
    if name.trim().is_empty() || !lines.iter().any(|l| fold(l).contains(name.trim())) {
        return None;
    }
    let mut found: Vec<(NaiveTime, Option<NaiveTime>)> =
        lines.iter().filter_map(|l| parse_text_time(l)).collect();
    found.dedup();
    let [(from, to)] = found[..] else { return None };
    let iso = |t: NaiveTime| day.and_time(t).format("%Y-%m-%dT%H:%M:%S").to_string();
    Some((iso(from), to.filter(|t| *t > from).map(iso)))
}

/// The largest char boundary at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    let mut i = at.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The stretch's text, one line per block-level element; scripts and styles dropped.
fn text_lines(html: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut rest = html;
    let push = |line: &mut String, lines: &mut Vec<String>| {
        let l = gleaner_event::text::decode_entities(line.trim());
        let l = l.split_whitespace().collect::<Vec<_>>().join(" ");
        if !l.is_empty() {
            lines.push(l);
        }
        line.clear();
    };
    while let Some(lt) = rest.find('<') {
        line.push_str(&rest[..lt]);
        let Some(gt) = rest[lt..].find('>').map(|g| lt + g) else { break };
        let closing = rest[lt + 1..gt].starts_with('/');
        let tag = rest[lt + 1..gt].trim_start_matches('/').to_ascii_lowercase();
        let tag_name = tag.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("");
        rest = &rest[gt + 1..];
        if !closing && matches!(tag_name, "script" | "style") {
            let close = format!("</{tag_name}");
            match rest.to_ascii_lowercase().find(&close) {
                Some(end) => rest = &rest[end..],
                None => break,
            }
            continue;
        }
        if BREAKS.contains(&tag_name) {
            push(&mut line, &mut lines);
        } else {
            line.push(' ');
        }
    }
    line.push_str(rest);
    push(&mut line, &mut lines);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const MEC: &str = r#"<div class="mec-topsec"><h3 class="mec-event-title"><a href="/e/1">Spring Concert: Fauré Requiem</a></h3>
        <div class="mec-event-description"><p>Tickets £15, under-18s free.</p></div>
        <div class="mec-date-details"><span>21 Mar 2026</span></div>
        <div class="mec-time-details"><span class="mec-start-time">7:30 pm</span> - <span class="mec-end-time">9:30 pm</span></div></div>"#;

    #[test]
    fn one_stated_time_range_beside_the_named_event() {
        let got = timed("2026-03-21", Some("2026-03-21"), "Spring Concert: Fauré Requiem", MEC);
        assert_eq!(
            got,
            Some(("2026-03-21T19:30:00".to_owned(), Some("2026-03-21T21:30:00".to_owned())))
        );
    }

    #[test]
    fn abstains_when_unsure() {
        // Another event's markup, a run of days, two different times, no time at all.
        assert_eq!(timed("2026-03-21", None, "Carols by Candlelight", MEC), None);
        assert_eq!(timed("2026-03-21", Some("2026-03-22"), "Spring Concert", MEC), None);
        let two = format!("{MEC}<p>Rehearsal at 2:00 pm</p>");
        assert_eq!(timed("2026-03-21", None, "Spring Concert", &two), None);
        assert_eq!(timed("2026-03-21", None, "Spring", "<p>Spring fair all day</p>"), None);
        assert_eq!(timed("2026-03-21T19:00", None, "Spring Concert", MEC), None);
    }

    #[test]
    fn scripts_are_not_text() {
        // The stretch starts at its own block's `</script>`; the next block's times are
        // not this event's.
        let page = format!(
            "</script><script>var t = '10:00 am';</script>{MEC}<script type=\"application/ld+json\">{{\"x\": \"8 pm\"}}</script>"
        );
        let got = timed("2026-03-21", None, "Spring Concert", &page);
        assert_eq!(got.map(|(s, _)| s).as_deref(), Some("2026-03-21T19:30:00"));
    }
}
