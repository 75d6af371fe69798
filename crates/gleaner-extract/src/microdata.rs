//! Microdata (WHATWG HTML §5.2): `itemscope`, `itemtype`, `itemid`, `itemprop`, `itemref`.
//!
//! Owns turning microdata items into the JSON shape `crate::schema` reads
//! (`{"@type": [...], "prop": [values]}`); it needs the html5ever DOM, which the caller
//! builds only when the page has `itemscope` at all.

use std::collections::HashMap;

use scraper::node::Element;
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
    let mut path = Vec::new();
    for node in doc.root_element().descendants() {
        let Some(el) = ElementRef::wrap(node) else { continue };
        let a = ItemAttrs::of(el.value());
        if a.itemscope && a.itemprop.is_none() {
            out.push(crawler.item(el, a, 0, &mut path));
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

/// The microdata attributes of one element, read in one pass over its attributes
/// (`Element::attr` looks its argument up in the atom table on every call, and the walk
/// asks every element of the page).
#[derive(Clone, Copy, Default)]
struct ItemAttrs<'e> {
    itemscope: bool,
    itemprop: Option<&'e str>,
    itemtype: Option<&'e str>,
    itemid: Option<&'e str>,
    itemref: Option<&'e str>,
}

impl<'e> ItemAttrs<'e> {
    fn of(e: &'e Element) -> Self {
        let mut a = ItemAttrs::default();
        for (name, value) in &e.attrs {
            // `Element::attr` matches attributes in no namespace only.
            if name.prefix.is_some() || !name.ns.is_empty() {
                continue;
            }
            let value: &str = value;
            match &*name.local {
                "itemscope" => a.itemscope = true,
                "itemprop" => a.itemprop = Some(value),
                "itemtype" => a.itemtype = Some(value),
                "itemid" => a.itemid = Some(value),
                "itemref" => a.itemref = Some(value),
                _ => {}
            }
        }
        a
    }
}

/// Where an element sits in the item being read: how many levels below the item's root,
/// and whether inside a property's element (whose text is that property's).
#[derive(Clone, Copy)]
pub(crate) struct Place {
    pub(crate) below: u8,
    pub(crate) in_property: bool,
}

impl Place {
    /// The item's root.
    pub(crate) const ROOT: Place = Place { below: 0, in_property: false };

    /// The place of a child of an element at `self`, which is a property when `property`.
    pub(crate) fn child(self, property: bool) -> Place {
        Place { below: self.below.saturating_add(1), in_property: self.in_property || property }
    }
}

/// How far below an item's root an unmarked paragraph may be and still be the item's.
const PARAGRAPH_DEPTH: u8 = 4;

/// The text of an unmarked `<p>` of an item, which is the item's description when it marks
/// none up (schema.org's own examples put the blurb in a plain paragraph beside the marked
/// properties): a paragraph near the item's root, outside every property and nested item,
/// that marks nothing up itself (`<p><strong>Cancelled</strong> <link property=…> – …`
/// is marked-up content) and reads as prose (at least 60 characters and ten words).
pub(crate) fn unmarked_paragraph(el: ElementRef<'_>, at: Place) -> Option<String> {
    if el.value().name() != "p" || at.in_property || at.below > PARAGRAPH_DEPTH {
        return None;
    }
    let marked = |e: &Element| {
        e.attrs
            .iter()
            .any(|(n, _)| matches!(&*n.local, "itemprop" | "itemscope" | "property" | "typeof"))
    };
    if el.descendants().take(2_000).filter_map(ElementRef::wrap).any(|d| marked(d.value())) {
        return None;
    }
    let text = capped_text(el).split_whitespace().collect::<Vec<_>>().join(" ");
    let prose = text.chars().count() >= 60
        && text.split(' ').filter(|w| w.chars().any(char::is_alphabetic)).count() >= 10;
    prose.then_some(text)
}

/// Pushes `el`'s element children on `stack` so that the first is popped first, without
/// an intermediate vector.
fn push_children<'d>(stack: &mut Vec<(ElementRef<'d>, Place)>, el: ElementRef<'d>, at: Place) {
    let at_len = stack.len();
    stack.extend(el.children().filter_map(ElementRef::wrap).map(|c| (c, at)));
    stack[at_len..].reverse();
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

    /// One item: its types, id and properties (WHATWG "properties of an item"); `a` are
    /// `root`'s attributes. Each element is visited once per item it belongs to (and again
    /// only through `itemref`, within [`MAX_STEPS`]).
    fn item(
        &mut self,
        root: ElementRef<'d>,
        a: ItemAttrs<'d>,
        depth: usize,
        path: &mut Vec<ElementRef<'d>>,
    ) -> Value {
        let mut map = Map::new();
        if let Some(t) = a.itemtype {
            let types: Vec<Value> =
                t.split_whitespace().map(|s| Value::String(s.to_owned())).collect();
            map.insert("@type".to_owned(), Value::Array(types));
        }
        if let Some(id) = a.itemid {
            map.insert("@id".to_owned(), Value::String(id.trim().to_owned()));
        }
        path.push(root);
        let mut stack: Vec<(ElementRef<'d>, Place)> = Vec::new();
        if let Some(refs) = a.itemref {
            for id in refs.split_whitespace().rev() {
                if let Some(r) = self.by_id(id) {
                    stack.push((r, Place::ROOT.child(false)));
                }
            }
        }
        push_children(&mut stack, root, Place::ROOT.child(false));
        let mut paragraph: Option<String> = None;
        while let Some((el, at)) = stack.pop() {
            self.steps += 1;
            if self.steps > MAX_STEPS {
                self.exhausted = true;
                break;
            }
            let v = el.value();
            let ea = ItemAttrs::of(v);
            let scoped = ea.itemscope;
            if let Some(props) = ea.itemprop {
                let mut value = if scoped {
                    if depth >= MAX_ITEM_DEPTH || path.contains(&el) {
                        Value::Null
                    } else {
                        self.item(el, ea, depth + 1, path)
                    }
                } else {
                    Value::String(property_value(el))
                };
                let mut names = props.split_whitespace().map(short_name).peekable();
                while let Some(name) = names.next() {
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
                        // The last name takes the value itself.
                        _ if names.peek().is_none() => std::mem::take(&mut value),
                        _ => value.clone(),
                    };
                    push_prop(&mut map, name, value);
                }
            }
            if !scoped {
                if paragraph.is_none() && ea.itemprop.is_none() {
                    paragraph = unmarked_paragraph(el, at);
                }
                push_children(&mut stack, el, at.child(ea.itemprop.is_some()));
            }
        }
        path.pop();
        if let Some(p) = paragraph {
            map.insert("@paragraph".to_owned(), Value::String(p));
        }
        // An event that marks no price up: the price or "free" its own text writes
        // (`<p>Entrée libre</p>` beside the marked properties), as for microformats.
        let is_event = a.itemtype.is_some_and(|t| t.contains("Event") || t.contains("Festival"));
        if is_event
            && !map.contains_key("offers")
            && !map.contains_key("isAccessibleForFree")
            && let Some(p) = crate::fallback::price_in_text(root)
        {
            if p.is_free {
                map.insert("isAccessibleForFree".to_owned(), Value::String("true".to_owned()));
            } else {
                let mut offer = Map::new();
                offer.insert("lowPrice".to_owned(), Value::String(p.min.to_string()));
                if let Some(max) = p.max {
                    offer.insert("highPrice".to_owned(), Value::String(max.to_string()));
                }
                if let Some(c) = p.currency {
                    offer.insert("priceCurrency".to_owned(), Value::String(c.to_owned()));
                }
                map.insert("offers".to_owned(), Value::Object(offer));
            }
        }
        // An offer marked with one price whose own text lets a group in free (`adultes Fr.
        // 15.–, enfants Fr. 5.–, moins de 6 ans gratuit` beside `price=15`): zero to it.
        if a.itemtype.is_some_and(is_single_offer) {
            free_tier_floor(&mut map, root);
        }
        // And the booking link its own text holds (`<a>S'inscrire</a>`, `<a>Tickets</a>`)
        // when it marks none up, as for microformats.
        if is_event && let Some(link) = crate::fallback::booking_link(root) {
            match map.get_mut("offers") {
                None => {
                    let mut offer = Map::new();
                    offer.insert("url".to_owned(), Value::String(link));
                    map.insert("offers".to_owned(), Value::Object(offer));
                }
                Some(Value::Object(offer)) if !offer.contains_key("url") => {
                    offer.insert("url".to_owned(), Value::String(link));
                }
                _ => {}
            }
        }
        Value::Object(map)
    }
}

/// Whether an item type is a single `Offer` (not an `AggregateOffer`, which states its
/// own range).
pub(crate) fn is_single_offer(itemtype: &str) -> bool {
    itemtype
        .split_whitespace()
        .any(|t| t == "Offer" || t.ends_with("/Offer") || t.ends_with(":Offer"))
}

/// An offer with a price and no lowest price, whose own text states a free tier (`moins
/// de 6 ans gratuit`, `Afiliados: sin costo`): its lowest price is zero.
fn free_tier_floor(map: &mut Map<String, Value>, root: ElementRef<'_>) {
    if map.contains_key("price")
        && !map.contains_key("lowPrice")
        && gleaner_event::states_free_tier(&capped_text(root))
    {
        map.insert("lowPrice".to_owned(), Value::String("0".to_owned()));
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

#[cfg(test)]
mod tests {
    use scraper::Html;

    #[test]
    fn an_offers_free_tier_is_its_lowest_price() {
        let html = r#"<html><body>
          <div itemscope itemtype="https://schema.org/Event"><h3 itemprop="name">Concert</h3>
            <time itemprop="startDate" datetime="2026-05-06T20:00">6 May</time>
            <p itemprop="offers" itemscope itemtype="https://schema.org/Offer">Adults £12,
              concessions £8, under-16s free<meta itemprop="price" content="12">
              <meta itemprop="priceCurrency" content="GBP"></p></div>
          <div itemscope itemtype="https://schema.org/Event"><h3 itemprop="name">Gala</h3>
            <time itemprop="startDate" datetime="2026-05-09T19:00">9 May</time>
            <p itemprop="offers" itemscope itemtype="https://schema.org/Offer">Entry £20, free
              parking<meta itemprop="price" content="20"></p></div>
        </body></html>"#;
        let doc = Html::parse_document(html);
        let (mut out, mut diags) = (Vec::new(), Vec::new());
        super::read(&doc, &mut out, &mut diags);
        let low = |name: &str| {
            let c = out.iter().find(|c| c.raw.name.as_deref() == Some(name)).expect(name);
            c.raw.offers.iter().find_map(|o| o.low_price.clone())
        };
        assert_eq!(low("Concert").as_deref(), Some("0"));
        // Free parking lets no group in.
        assert_eq!(low("Gala"), None);
    }

    #[test]
    fn an_events_own_booking_link_is_its_ticket_link() {
        let html = r#"<html><body><ul>
          <li itemscope itemtype="https://schema.org/Event"><h3 itemprop="name">Talk</h3>
            <time itemprop="startDate" datetime="2026-05-06T18:30">6 May</time>
            <a href="https://forms.example.org/talk">S'inscrire</a></li>
          <li itemscope itemtype="https://schema.org/Event"><h3 itemprop="name">Walk</h3>
            <time itemprop="startDate" datetime="2026-05-09T09:00">9 May</time>
            <a href="https://maps.example.org/walk">Plan d'accès</a></li>
          <li itemscope itemtype="https://schema.org/Event"><h3 itemprop="name">Gala</h3>
            <time itemprop="startDate" datetime="2026-05-16T19:00">16 May</time>
            <span itemprop="offers" itemscope itemtype="https://schema.org/Offer">
              <a itemprop="url" href="https://tickets.example.org/gala">Billets</a></span>
            <a href="https://other.example.org/gala">Réserver</a></li>
        </ul></body></html>"#;
        let doc = Html::parse_document(html);
        let (mut out, mut diags) = (Vec::new(), Vec::new());
        super::read(&doc, &mut out, &mut diags);
        let ticket = |name: &str| {
            let c = out.iter().find(|c| c.raw.name.as_deref() == Some(name)).expect(name);
            c.raw.offers.iter().find_map(|o| o.url.clone())
        };
        assert_eq!(ticket("Talk").as_deref(), Some("https://forms.example.org/talk"));
        assert_eq!(ticket("Walk"), None);
        // An offer's own url stays.
        assert_eq!(ticket("Gala").as_deref(), Some("https://tickets.example.org/gala"));
    }
}
