//! RDFa Lite 1.1: `vocab`, `typeof`, `property`, `resource` (and `prefix`-style `schema:`
//! names), read into the JSON shape `crate::schema` reads.
//!
//! Owns the RDFa walk only; it needs the html5ever DOM, which the caller builds only when
//! the page has `typeof=` or `vocab=` attributes.

use scraper::node::Element;
use scraper::{ElementRef, Html};
use serde_json::{Map, Value};

use crate::microdata::{
    Place, capped_text, is_text_prop, push_prop, short_name, unmarked_paragraph,
};
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
    /// The first unmarked paragraph of the resource ([`unmarked_paragraph`]).
    paragraph: Option<String>,
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

/// The RDFa attributes of one element, read in one pass over its attributes
/// (`Element::attr` looks its argument up in the atom table on every call, and `typeof`,
/// `resource` and `about` are not among html5ever's static atoms: each look-up locks the
/// table of dynamic ones).
#[derive(Clone, Copy, Default)]
struct RdfaAttrs<'e> {
    typeof_: Option<&'e str>,
    property: Option<&'e str>,
    rel: Option<&'e str>,
    resource: Option<&'e str>,
    about: Option<&'e str>,
    href: Option<&'e str>,
    src: Option<&'e str>,
    content: Option<&'e str>,
    datetime: Option<&'e str>,
}

impl<'e> RdfaAttrs<'e> {
    fn of(e: &'e Element) -> Self {
        let mut a = RdfaAttrs::default();
        for (name, value) in &e.attrs {
            // `Element::attr` matches attributes in no namespace only.
            if name.prefix.is_some() || !name.ns.is_empty() {
                continue;
            }
            let value: &str = value;
            let slot = match &*name.local {
                "typeof" => &mut a.typeof_,
                "property" => &mut a.property,
                "rel" => &mut a.rel,
                "resource" => &mut a.resource,
                "about" => &mut a.about,
                "href" => &mut a.href,
                "src" => &mut a.src,
                "content" => &mut a.content,
                "datetime" => &mut a.datetime,
                _ => continue,
            };
            *slot = Some(value);
        }
        a
    }
}

/// The top-level RDFa resources of a document, as JSON. One walk visits each element once.
pub fn items(doc: &Html) -> Vec<Value> {
    let mut items: Vec<Item> = Vec::new();
    // The element of each resource, for the price its text writes.
    let mut elements: Vec<ElementRef<'_>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    let mut stack: Vec<(ElementRef<'_>, Option<usize>, Option<&str>, Place)> =
        vec![(doc.root_element(), None, None, Place::ROOT)];
    while let Some((el, current, hanging, at)) = stack.pop() {
        let e = el.value();
        let a = RdfaAttrs::of(e);
        let mut next = current;
        let mut next_hanging = hanging;
        // A `rel` with no object of its own (`<p rel="offers"><span typeof="Offer">`) is
        // completed by the first resource below it (RDFa 1.1 "hanging rel").
        let rel = current.and(a.rel).filter(|r| !r.trim().is_empty());
        let hangs = rel.is_some()
            && [a.typeof_, a.property, a.resource, a.href, a.src, a.content]
                .iter()
                .all(Option::is_none);
        if hangs {
            next_hanging = rel;
        }
        // `rel` names a property as `property` does (RDFa 1.1 `rel`/`resource`), inside
        // a resource only (`rel="stylesheet"` in the head is HTML's).
        let property = a
            .property
            .or(if hangs { None } else { rel })
            .or(if a.typeof_.is_some() { hanging } else { None })
            .filter(|p| !p.trim().is_empty());
        if let Some(t) = a.typeof_ {
            next_hanging = None;
            let idx = items.len();
            let types: Vec<String> = t.split_whitespace().map(str::to_owned).collect();
            // An event's `about` (no `resource`) is the page it is about (Drupal's node
            // path): its URL, unless the event gives one; a fragment names no page.
            let mut props = Vec::new();
            if a.resource.is_none()
                && let Some(about) =
                    a.about.map(str::trim).filter(|s| !s.is_empty() && !s.starts_with('#'))
                && types.iter().any(|t| t.contains("Event"))
                && !has_url_prop(el)
            {
                props.push(("url".to_owned(), Val::Text(about.to_owned())));
            }
            items.push(Item {
                types,
                id: a.resource.or(a.about).map(str::to_owned),
                props,
                paragraph: None,
            });
            elements.push(el);
            match (property, current) {
                // One resource under several names is pushed once per name, one after
                // another (`to_json` relies on it).
                (Some(p), Some(c)) => {
                    for name in p.split_whitespace() {
                        items[c].props.push((short_name(name).to_owned(), Val::Item(idx)));
                    }
                }
                _ => roots.push(idx),
            }
            next = Some(idx);
        } else if let (Some(p), Some(c)) = (property, current) {
            let value = rdfa_value(el, &a);
            for name in p.split_whitespace() {
                let name = short_name(name);
                // `schema:name` is `name`: the CURIE's prefix does not change what it is.
                let local = name.rsplit(':').next().unwrap_or(name);
                let value = if e.name() == "a" && a.content.is_none() && is_text_prop(local) {
                    capped_text(el)
                } else {
                    if e.name() == "a" && local == "url" {
                        items[c].props.push(("@linktext".to_owned(), Val::Text(capped_text(el))));
                    }
                    value.clone()
                };
                items[c].props.push((name.to_owned(), Val::Text(value)));
            }
        }
        let child_at = if a.typeof_.is_some() {
            Place::ROOT.child(false)
        } else {
            if property.is_none()
                && let Some(c) = current
                && items[c].paragraph.is_none()
            {
                items[c].paragraph = unmarked_paragraph(el, at);
            }
            at.child(property.is_some())
        };
        // Children in document order when popped, without an intermediate vector.
        let from = stack.len();
        stack.extend(
            el.children().filter_map(ElementRef::wrap).map(|c| (c, next, next_hanging, child_at)),
        );
        stack[from..].reverse();
    }
    // An event that marks no price up: the price or "free" its own text writes, as for
    // microdata and microformats.
    for (item, el) in items.iter_mut().zip(&elements) {
        let is_event = item.types.iter().any(|t| t.contains("Event") || t.contains("Festival"));
        // `offers` or `schema:offers`.
        let named = |n: &str, want: &str| {
            n == want || n.strip_suffix(want).is_some_and(|p| p.ends_with(':'))
        };
        let priced =
            item.props.iter().any(|(n, _)| named(n, "offers") || named(n, "isAccessibleForFree"));
        if !is_event || priced {
            continue;
        }
        let Some(p) = crate::fallback::price_in_text(*el) else { continue };
        if p.is_free {
            item.props.push(("isAccessibleForFree".to_owned(), Val::Text("true".to_owned())));
        } else {
            item.props.push(("@lowPrice".to_owned(), Val::Text(p.min.to_string())));
            if let Some(max) = p.max {
                item.props.push(("@highPrice".to_owned(), Val::Text(max.to_string())));
            }
            if let Some(c) = p.currency {
                item.props.push(("@priceCurrency".to_owned(), Val::Text(c.to_owned())));
            }
        }
    }
    // And the booking link an event's own text holds (`<a>Inscríbase</a>`, `<a>Tickets</a>`),
    // for an offer that gives none, as for microdata and microformats.
    for (item, el) in items.iter_mut().zip(&elements) {
        if item.types.iter().any(|t| t.contains("Event") || t.contains("Festival"))
            && let Some(link) = crate::fallback::booking_link(*el)
        {
            item.props.push(("@offerUrl".to_owned(), Val::Text(link)));
        }
    }
    // An offer with a price whose own text lets a group in free (`Afiliados: sin costo. No
    // afiliados: $40.000` beside `content="40000"`): zero to it, as for microdata.
    for (item, el) in items.iter_mut().zip(&elements) {
        let named = |n: &str, want: &str| {
            n == want || n.strip_suffix(want).is_some_and(|p| p.ends_with([':', '/', '#']))
        };
        if item.types.iter().any(|t| crate::microdata::is_single_offer(t))
            && item.props.iter().any(|(n, _)| named(n, "price"))
            && !item.props.iter().any(|(n, _)| named(n, "lowPrice"))
            && gleaner_event::states_free_tier(&capped_text(*el))
        {
            item.props.push(("lowPrice".to_owned(), Val::Text("0".to_owned())));
        }
    }
    roots.iter().map(|&r| to_json(&mut items, r, 0)).collect()
}

/// Whether the resource at `el` states a `url` of its own (not inside a resource below).
fn has_url_prop(el: ElementRef<'_>) -> bool {
    let mut stack: Vec<ElementRef<'_>> = el.children().filter_map(ElementRef::wrap).collect();
    while let Some(c) = stack.pop() {
        let a = RdfaAttrs::of(c.value());
        if a.property.is_some_and(|p| {
            p.split_whitespace().any(|n| {
                let n = short_name(n);
                n.rsplit(':').next() == Some("url")
            })
        }) {
            return true;
        }
        if a.typeof_.is_none() {
            stack.extend(c.children().filter_map(ElementRef::wrap));
        }
    }
    false
}

fn rdfa_value(el: ElementRef<'_>, a: &RdfaAttrs<'_>) -> String {
    if let Some(c) = a.content {
        return c.to_owned();
    }
    let v = match el.value().name() {
        "a" | "area" | "link" => a.href.or(a.resource),
        "img" | "audio" | "video" | "source" | "iframe" | "embed" => a.src,
        "time" => a.datetime,
        _ => a.resource.or(a.href),
    };
    v.map_or_else(|| capped_text(el), str::to_owned)
}

/// Resource `idx` as JSON, its strings moved out of `items` (each resource has one parent,
/// so it is read once; a resource under several names is copied from its first reading).
fn to_json(items: &mut [Item], idx: usize, depth: usize) -> Value {
    let Item { types, id, props, paragraph } = std::mem::take(&mut items[idx]);
    let mut map = Map::new();
    if !types.is_empty() {
        map.insert(
            "@type".to_owned(),
            Value::Array(types.into_iter().map(Value::String).collect()),
        );
    }
    if let Some(id) = id {
        map.insert("@id".to_owned(), Value::String(id));
    }
    let mut props = props.into_iter().peekable();
    let mut repeat: Option<(usize, Value)> = None;
    while let Some((name, v)) = props.next() {
        let value = match v {
            Val::Text(t) => Value::String(t),
            Val::Item(i) if depth < MAX_ITEM_DEPTH => {
                let value = match repeat.take() {
                    Some((seen, value)) if seen == i => value,
                    _ => to_json(items, i, depth + 1),
                };
                if matches!(props.peek(), Some((_, Val::Item(j))) if *j == i) {
                    repeat = Some((i, value.clone()));
                }
                value
            }
            Val::Item(_) => Value::Null,
        };
        push_prop(&mut map, &name, value);
    }
    if let Some(p) = paragraph {
        map.insert("@paragraph".to_owned(), Value::String(p));
    }
    let mut offer = Map::new();
    for (from, to) in [
        ("@lowPrice", "lowPrice"),
        ("@highPrice", "highPrice"),
        ("@priceCurrency", "priceCurrency"),
    ] {
        if let Some(v) = map.remove(from) {
            offer.insert(to.to_owned(), v);
        }
    }
    if let Some(link) = map.remove("@offerUrl") {
        offer_url(&mut map, &mut offer, link);
    }
    if !offer.is_empty() {
        map.insert("offers".to_owned(), Value::Object(offer));
    }
    Value::Object(map)
}

/// An event's booking link as its offer's url: into its one marked offer when that gives
/// no url (an offer's own url stays), else into the offer read from its text.
fn offer_url(map: &mut Map<String, Value>, offer: &mut Map<String, Value>, link: Value) {
    let marked = map.iter_mut().find(|(k, _)| {
        k.as_str() == "offers"
            || k.strip_suffix("offers").is_some_and(|p| p.ends_with([':', '/', '#']))
    });
    // Properties are arrays of their values: one offer is an array of one.
    let one = match marked {
        Some((_, Value::Array(a))) if a.len() == 1 => a.first_mut().map(Some),
        Some((_, v)) => Some(Some(v)),
        None => None,
    };
    match one {
        Some(Some(Value::Object(o))) => {
            let has_url = o.keys().any(|k| {
                k == "url" || k.strip_suffix("url").is_some_and(|p| p.ends_with([':', '/', '#']))
            });
            if !has_url {
                o.insert("url".to_owned(), link);
            }
        }
        // Several offers or a bare link: theirs stay.
        Some(_) => {}
        None => {
            offer.insert("url".to_owned(), link);
        }
    }
}

#[cfg(test)]
mod tests {
    use scraper::Html;

    #[test]
    fn an_offers_free_tier_is_its_lowest_price() {
        let html = r#"<html prefix="schema: https://schema.org/"><body>
          <div typeof="schema:Event"><h3 property="schema:name">Forum</h3>
            <meta property="schema:startDate" content="2026-05-06T09:00">
            <div property="schema:offers" typeof="schema:Offer"><span property="schema:price"
              content="30">Members: free. Others: $30</span></div></div>
          <div typeof="schema:Event"><h3 property="schema:name">Course</h3>
            <meta property="schema:startDate" content="2026-05-09T09:00">
            <div property="schema:offers" typeof="schema:Offer"><span property="schema:price"
              content="30">$30, free coffee</span></div></div>
        </body></html>"#;
        let doc = Html::parse_document(html);
        let (mut out, mut diags) = (Vec::new(), Vec::new());
        super::read(&doc, &mut out, &mut diags);
        let low = |name: &str| {
            let c = out.iter().find(|c| c.raw.name.as_deref() == Some(name)).expect(name);
            c.raw.offers.iter().find_map(|o| o.low_price.clone())
        };
        assert_eq!(low("Forum").as_deref(), Some("0"));
        assert_eq!(low("Course"), None);
    }

    #[test]
    fn an_events_own_booking_link_is_its_ticket_link() {
        let html = r#"<html prefix="schema: https://schema.org/"><body>
          <div typeof="schema:Event"><h3 property="schema:name">Forum</h3>
            <meta property="schema:startDate" content="2026-05-06T09:00">
            <div property="schema:offers" typeof="schema:Offer"><span property="schema:price"
              content="30">$30</span></div> <a href="/forum/signup">Register</a></div>
          <div typeof="schema:Event"><h3 property="schema:name">Walk</h3>
            <meta property="schema:startDate" content="2026-05-09T09:00">
            <a href="https://maps.example.org/walk">Map</a></div>
          <div typeof="schema:Event"><h3 property="schema:name">Gala</h3>
            <meta property="schema:startDate" content="2026-05-16T19:00">
            <a href="https://forms.example.org/gala">Sign up</a></div>
        </body></html>"#;
        let doc = Html::parse_document(html);
        let (mut out, mut diags) = (Vec::new(), Vec::new());
        super::read(&doc, &mut out, &mut diags);
        let ticket = |name: &str| {
            let c = out.iter().find(|c| c.raw.name.as_deref() == Some(name)).expect(name);
            c.raw.offers.iter().find_map(|o| o.url.clone())
        };
        assert_eq!(ticket("Forum").as_deref(), Some("/forum/signup"));
        assert_eq!(ticket("Walk"), None);
        assert_eq!(ticket("Gala").as_deref(), Some("https://forms.example.org/gala"));
    }
}
