//! RDFa Lite 1.1: `vocab`, `typeof`, `property`, `resource` (and `prefix`-style `schema:`
//! names), read into the JSON shape `crate::schema` reads.
//!
//! Owns the RDFa walk only; it needs the html5ever DOM, which the caller builds only when
//! the page has `typeof=` or `vocab=` attributes.

use scraper::{ElementRef, Html};
use serde_json::{Map, Value};

use crate::microdata::{capped_text, is_text_prop, push_prop, short_name};
use crate::schema;
use crate::{Candidate, Diagnostic, Format, Severity};

/// Items nested deeper than this are cut off when turned into JSON.
const MAX_ITEM_DEPTH: usize = 16;

enum Val {
    Text(String),
    Item(usize),
}

#[derive(Default)]
struct Item {
    types: Vec<String>,
    id: Option<String>,
    props: Vec<(String, Val)>,
}

/// Reads every RDFa event in `doc`.
pub fn read(doc: &Html, candidates: &mut Vec<Candidate>, diagnostics: &mut Vec<Diagnostic>) {
    let roots = items(doc);
    let (found, skipped) = schema::find_events(&roots);
    for s in skipped {
        diagnostics.push(Diagnostic {
            severity: Severity::Info,
            format: Format::Rdfa,
            message: s.reason,
            location: format!("resource {}", s.path),
        });
    }
    candidates.extend(found.into_iter().map(|f| Candidate {
        format: Format::Rdfa,
        location: format!("resource {}", f.path),
        // The DOM decoded every entity once already.
        raw: gleaner_event::RawEvent { markup: gleaner_event::Markup::Text, ..f.raw },
    }));
}

/// The top-level RDFa resources of a document, as JSON.
pub fn items(doc: &Html) -> Vec<Value> {
    let mut items: Vec<Item> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let mut stack: Vec<(ElementRef<'_>, Option<usize>, Option<&str>)> =
        vec![(doc.root_element(), None, None)];
    while let Some((el, current, hanging)) = stack.pop() {
        let e = el.value();
        let mut next = current;
        let mut next_hanging = hanging;
        // A `rel` with no object of its own (`<p rel="offers"><span typeof="Offer">`) is
        // completed by the first resource below it (RDFa 1.1 "hanging rel").
        let rel = current.and(e.attr("rel")).filter(|r| !r.trim().is_empty());
        let hangs = rel.is_some()
            && ["typeof", "property", "resource", "href", "src", "content"]
                .iter()
                .all(|a| e.attr(a).is_none());
        if hangs {
            next_hanging = rel;
        }
        // `rel` names a property as `property` does (RDFa 1.1 `rel`/`resource`), inside
        // a resource only (`rel="stylesheet"` in the head is HTML's).
        let property = e
            .attr("property")
            .or(if hangs { None } else { rel })
            .or(if e.attr("typeof").is_some() { hanging } else { None })
            .filter(|p| !p.trim().is_empty());
        if let Some(t) = e.attr("typeof") {
            next_hanging = None;
            let idx = items.len();
            items.push(Item {
                types: t.split_whitespace().map(str::to_owned).collect(),
                id: e.attr("resource").or_else(|| e.attr("about")).map(str::to_owned),
                props: Vec::new(),
            });
            match (property, current) {
                (Some(p), Some(c)) => {
                    for name in p.split_whitespace() {
                        items[c].props.push((short_name(name).to_owned(), Val::Item(idx)));
                    }
                }
                _ => roots.push(idx),
            }
            next = Some(idx);
        } else if let (Some(p), Some(c)) = (property, current) {
            let value = rdfa_value(el);
            for name in p.split_whitespace() {
                let name = short_name(name);
                let value = if e.name() == "a" && e.attr("content").is_none() && is_text_prop(name)
                {
                    capped_text(el)
                } else {
                    if e.name() == "a" && name == "url" {
                        items[c].props.push(("@linktext".to_owned(), Val::Text(capped_text(el))));
                    }
                    value.clone()
                };
                items[c].props.push((name.to_owned(), Val::Text(value)));
            }
        }
        stack.extend(
            el.children()
                .filter_map(ElementRef::wrap)
                .map(|c| (c, next, next_hanging))
                .collect::<Vec<_>>()
                .into_iter()
                .rev(),
        );
    }
    roots.iter().map(|&r| to_json(&items, r, 0)).collect()
}

fn rdfa_value(el: ElementRef<'_>) -> String {
    let e = el.value();
    if let Some(c) = e.attr("content") {
        return c.to_owned();
    }
    let v = match e.name() {
        "a" | "area" | "link" => e.attr("href").or_else(|| e.attr("resource")),
        "img" | "audio" | "video" | "source" | "iframe" | "embed" => e.attr("src"),
        "time" => e.attr("datetime"),
        _ => e.attr("resource").or_else(|| e.attr("href")),
    };
    v.map_or_else(|| capped_text(el), str::to_owned)
}

fn to_json(items: &[Item], idx: usize, depth: usize) -> Value {
    let item = &items[idx];
    let mut map = Map::new();
    if !item.types.is_empty() {
        map.insert(
            "@type".to_owned(),
            Value::Array(item.types.iter().cloned().map(Value::String).collect()),
        );
    }
    if let Some(id) = &item.id {
        map.insert("@id".to_owned(), Value::String(id.clone()));
    }
    for (name, v) in &item.props {
        let value = match v {
            Val::Text(t) => Value::String(t.clone()),
            Val::Item(i) if depth < MAX_ITEM_DEPTH => to_json(items, *i, depth + 1),
            Val::Item(_) => Value::Null,
        };
        push_prop(&mut map, name, value);
    }
    Value::Object(map)
}
