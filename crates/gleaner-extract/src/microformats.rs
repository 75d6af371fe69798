//! Microformats events: classic hCalendar (`vevent`, `summary`, `dtstart`, …) and
//! microformats2 `h-event` (`p-name`, `dt-start`, …).
//!
//! Not schema.org, but the same facts in class names, still emitted by many CMS event
//! plugins. Owns reading those classes into a [`RawEvent`]; it needs the html5ever DOM,
//! which the caller builds only when the page mentions `vevent` or `h-event`.

use gleaner_event::RawEvent;
use scraper::{ElementRef, Html};

use crate::{Candidate, Format};

/// Reads every hCalendar / h-event event in `doc`.
pub fn read(doc: &Html, candidates: &mut Vec<Candidate>) {
    let mut n = 0;
    for node in doc.root_element().descendants() {
        let Some(el) = ElementRef::wrap(node) else { continue };
        if !is_root(el) {
            continue;
        }
        n += 1;
        let mut raw = RawEvent::default();
        let mut stack: Vec<ElementRef<'_>> = el.children().filter_map(ElementRef::wrap).collect();
        stack.reverse();
        while let Some(child) = stack.pop() {
            if is_root(child) {
                continue;
            }
            for class in child.value().classes() {
                let slot = match class {
                    "summary" | "p-name" | "p-summary" => &mut raw.name,
                    "dtstart" | "dt-start" => &mut raw.start,
                    "dtend" | "dt-end" => &mut raw.end,
                    "location" | "p-location" => &mut raw.location_text,
                    "url" | "u-url" => &mut raw.url,
                    "description" | "p-description" | "e-description" | "e-content" => {
                        &mut raw.description
                    }
                    "photo" | "u-photo" => &mut raw.image,
                    "category" | "p-category" => {
                        raw.keywords.push(value(child));
                        continue;
                    }
                    _ => continue,
                };
                if slot.is_none() {
                    *slot = Some(value(child)).filter(|v| !v.trim().is_empty());
                }
            }
            stack.extend(
                child.children().filter_map(ElementRef::wrap).collect::<Vec<_>>().into_iter().rev(),
            );
        }
        if raw.name.is_some() || raw.start.is_some() {
            candidates.push(Candidate {
                format: Format::Microformats,
                location: format!("vevent #{n}"),
                raw,
            });
        }
    }
}

fn is_root(el: ElementRef<'_>) -> bool {
    el.value().classes().any(|c| c == "vevent" || c == "h-event")
}

/// A property's value: the value-class pattern (`<span class="value-title" title>`), then
/// `abbr@title`, `time@datetime`, `a@href`, `img@src`, `data@value`, else the text.
fn value(el: ElementRef<'_>) -> String {
    for node in el.descendants() {
        if let Some(c) = ElementRef::wrap(node)
            && c.value().classes().any(|k| k == "value-title")
            && let Some(t) = c.value().attr("title")
        {
            return t.to_owned();
        }
    }
    let e = el.value();
    let attr = match e.name() {
        "abbr" => e.attr("title"),
        "time" => e.attr("datetime"),
        "a" | "area" | "link" if e.classes().any(|c| c == "url" || c == "u-url") => e.attr("href"),
        "img" | "area" => e.attr("src"),
        "data" | "input" => e.attr("value"),
        _ => None,
    };
    attr.map_or_else(|| el.text().collect(), str::to_owned)
}
