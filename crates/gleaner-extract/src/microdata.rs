//! Microdata (WHATWG HTML §5.2): `itemscope`, `itemtype`, `itemid`, `itemprop`, `itemref`.
//!
//! Owns turning microdata items into the JSON shape `crate::schema` reads
//! (`{"@type": [...], "prop": [values]}`); it needs the html5ever DOM, which the caller
//! builds only when the page has `itemscope` at all.

use std::collections::HashMap;

use scraper::{ElementRef, Html};
use serde_json::{Map, Value};

use crate::schema;
use crate::{Candidate, Diagnostic, Format, Severity};

/// Items nested deeper than this are cut off.
const MAX_ITEM_DEPTH: usize = 16;
/// A page may cost at most this many element visits (itemref can revisit subtrees).
const MAX_STEPS: usize = 2_000_000;

/// Reads every microdata event in `doc`.
pub fn read(doc: &Html, candidates: &mut Vec<Candidate>, diagnostics: &mut Vec<Diagnostic>) {
    let roots = items(doc, diagnostics);
    let (found, skipped) = schema::find_events(&roots);
    for s in skipped {
        diagnostics.push(Diagnostic {
            severity: Severity::Info,
            format: Format::Microdata,
            message: s.reason,
            location: format!("item {}", s.path),
        });
    }
    candidates.extend(found.into_iter().map(|f| Candidate {
        format: Format::Microdata,
        location: format!("item {}", f.path),
        // The DOM decoded every entity once already.
        raw: gleaner_event::RawEvent { markup: gleaner_event::Markup::Text, ..f.raw },
    }));
}

/// The top-level microdata items of a document, as JSON.
pub fn items(doc: &Html, diagnostics: &mut Vec<Diagnostic>) -> Vec<Value> {
    let mut ids: Option<HashMap<String, ElementRef<'_>>> = None;
    let mut crawler = Crawler { steps: 0, ids: &mut ids, doc, exhausted: false };
    let mut out = Vec::new();
    for node in doc.root_element().descendants() {
        let Some(el) = ElementRef::wrap(node) else { continue };
        let e = el.value();
        if e.attr("itemscope").is_some() && e.attr("itemprop").is_none() {
            out.push(crawler.item(el, 0, &mut Vec::new()));
        }
    }
    if crawler.exhausted {
        diagnostics.push(Diagnostic {
            severity: Severity::Warning,
            format: Format::Microdata,
            message: "itemref graph too large; items were cut short".to_owned(),
            location: "document".to_owned(),
        });
    }
    out
}

struct Crawler<'a, 'd> {
    steps: usize,
    ids: &'a mut Option<HashMap<String, ElementRef<'d>>>,
    doc: &'d Html,
    exhausted: bool,
}

impl<'d> Crawler<'_, 'd> {
    fn by_id(&mut self, id: &str) -> Option<ElementRef<'d>> {
        let doc = self.doc;
        let ids = self.ids.get_or_insert_with(|| {
            let mut m = HashMap::new();
            for node in doc.root_element().descendants() {
                if let Some(el) = ElementRef::wrap(node)
                    && let Some(id) = el.value().attr("id")
                {
                    m.entry(id.to_owned()).or_insert(el);
                }
            }
            m
        });
        ids.get(id).copied()
    }

    /// One item: its types, id and properties (WHATWG "properties of an item").
    fn item(
        &mut self,
        root: ElementRef<'d>,
        depth: usize,
        path: &mut Vec<ElementRef<'d>>,
    ) -> Value {
        let mut map = Map::new();
        let e = root.value();
        if let Some(t) = e.attr("itemtype") {
            let types: Vec<Value> =
                t.split_whitespace().map(|s| Value::String(s.to_owned())).collect();
            map.insert("@type".to_owned(), Value::Array(types));
        }
        if let Some(id) = e.attr("itemid") {
            map.insert("@id".to_owned(), Value::String(id.trim().to_owned()));
        }
        path.push(root);
        let mut stack: Vec<ElementRef<'d>> = Vec::new();
        if let Some(refs) = e.attr("itemref") {
            for id in refs.split_whitespace().rev() {
                if let Some(r) = self.by_id(id) {
                    stack.push(r);
                }
            }
        }
        stack.extend(
            root.children().filter_map(ElementRef::wrap).collect::<Vec<_>>().into_iter().rev(),
        );
        while let Some(el) = stack.pop() {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                self.exhausted = true;
                break;
            }
            let v = el.value();
            let scoped = v.attr("itemscope").is_some();
            if let Some(props) = v.attr("itemprop") {
                let value = if scoped {
                    if depth >= MAX_ITEM_DEPTH || path.contains(&el) {
                        Value::Null
                    } else {
                        self.item(el, depth + 1, path)
                    }
                } else {
                    Value::String(property_value(el))
                };
                for name in props.split_whitespace() {
                    let name = short_name(name);
                    let value = match (&value, v.name()) {
                        // `<a itemprop="name" href>` means the link text, whatever the
                        // algorithm says; and a link's text often names what it points to.
                        (Value::String(_), "a") if is_text_prop(name) => {
                            Value::String(capped_text(el))
                        }
                        (Value::String(_), "a") if name == "url" => {
                            push_prop(&mut map, "@linktext", Value::String(capped_text(el)));
                            value.clone()
                        }
                        _ => value.clone(),
                    };
                    push_prop(&mut map, name, value);
                }
            }
            if !scoped {
                stack.extend(
                    el.children()
                        .filter_map(ElementRef::wrap)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev(),
                );
            }
        }
        path.pop();
        Value::Object(map)
    }
}

/// The longest property text read (a description nesting thousands of properties would
/// otherwise be copied once per level: quadratic).
const MAX_TEXT: usize = 16 * 1024;

/// An element's text, at most [`MAX_TEXT`] bytes (cut at a character boundary).
pub(crate) fn capped_text(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    for t in el.text() {
        let room = MAX_TEXT - out.len();
        if t.len() <= room {
            out.push_str(t);
        } else {
            let mut cut = room;
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push_str(&t[..cut]);
            break;
        }
        if out.len() >= MAX_TEXT {
            break;
        }
    }
    out
}

/// Properties whose value is text even on a link element.
pub(crate) fn is_text_prop(name: &str) -> bool {
    matches!(name, "name" | "description" | "headline" | "alternateName")
}

/// `http://schema.org/name` → `name`; `name` stays.
pub(crate) fn short_name(name: &str) -> &str {
    if name.contains(['/', '#']) {
        name.trim_end_matches('/').rsplit(['/', '#']).next().unwrap_or(name)
    } else {
        name
    }
}

pub(crate) fn push_prop(map: &mut Map<String, Value>, name: &str, value: Value) {
    match map.get_mut(name) {
        Some(Value::Array(a)) => a.push(value),
        _ => {
            map.insert(name.to_owned(), Value::Array(vec![value]));
        }
    }
}

/// The value of a non-item property element (WHATWG "property value"), plus the common
/// leniency of reading a `content` attribute on any element.
pub(crate) fn property_value(el: ElementRef<'_>) -> String {
    let e = el.value();
    let attr = |name: &str| e.attr(name).map(str::to_owned);
    let v = match e.name() {
        "meta" => attr("content"),
        "audio" | "embed" | "iframe" | "img" | "source" | "track" | "video" => attr("src"),
        "a" | "area" | "link" => attr("href"),
        "object" => attr("data"),
        "data" | "meter" => attr("value"),
        "time" => attr("datetime"),
        _ => attr("content"),
    };
    v.unwrap_or_else(|| capped_text(el))
}
