//! Microformats events, read by the microformats2 parsing algorithm
//! (microformats.org/wiki/microformats2-parsing) and its backward-compatible reading of
//! classic hCalendar / hCard (`vevent`, `summary`, `dtstart`, `location vcard`, `adr`).
//!
//! Owns turning class names into items and `h-event` items into [`RawEvent`]s; it needs
//! the html5ever DOM, which the caller builds only when the page mentions `vevent` or
//! `h-event`. The parse is the spec's, in one pass over each root's subtree:
//! - roots are `h-*` class names (else the classic roots `vevent`, `vcard`, `adr`,
//!   `geo`, `vcalendar`); inside a classic root only its classic property names count;
//! - `p-*`, `u-*`, `dt-*`, `e-*` properties, several on one element (`p-name u-url`),
//!   each read as the spec says (`abbr@title`, `data@value`, `time|ins|del@datetime`,
//!   `a@href`, `img@src|alt`, the value-class pattern with `value` and `value-title`);
//! - a nested root with a property class is that property's value (`p-location h-card`
//!   gives the venue and its address, `p-location h-adr` the address);
//! - implied `name` and `url` on `h-*` roots without explicit ones;
//! - classic roots' include pattern: the elements an `itemref` names, and those an
//!   `<a class="include" href="#id">` or `<object class="include" data="#id">` names, are
//!   read as if they were inside the root (at most 256 per page);
//! - date-times: a date (`2026-12-05`, ordinal `2026-339`), a time (`20:30`, `8pm`,
//!   `8:30 p.m.`) and an offset (`Z`, `-08`, `-0800`, `+01:00`), from one value or split
//!   over value-class parts; a `dt-end` with only a time takes the `dt-start`'s date;
//!   worded parts inside a `<time datetime>` (`<span class="value">samedi 11 avril</span>`)
//!   give way to its `datetime`;
//! - microformats have no price property: an event's own text gives its price, free words
//!   and booking link (`Karten ab 25 €`, `Entrée gratuite`, a `Vorverkauf` link).
//!
//! Every `h-event` / `vevent` found, at any depth (inside an `h-feed`, or as a property of
//! another item), is one candidate.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use chrono::NaiveDate;
use gleaner_event::RawEvent;
use regex::Regex;
use scraper::{ElementRef, Html};

use crate::{Candidate, Format};

/// Deepest nesting of elements read (deeper content is ignored, never a stack overflow).
const MAX_DEPTH: usize = 200;

/// One parsed microformat: its types and its properties, in page order.
#[derive(Debug, Clone, Default)]
struct Item {
    /// `h-event`, `h-card`, … (classic roots are given their `h-*` names).
    types: Vec<String>,
    /// Property name (without prefix) → values.
    props: BTreeMap<String, Vec<Value>>,
    /// Nested microformats that are not property values.
    children: Vec<Item>,
    /// Whether some `p-*` or `e-*` property was found (no implied name then).
    has_text_props: bool,
    /// Whether some `u-*` property was found (no implied url or photo then).
    has_url_props: bool,
    /// For an event without price properties: the price its text writes.
    text_price: Option<gleaner_event::PriceText>,
    /// For an event: its booking link (`Réserver`, `Vorverkauf`).
    booking: Option<String>,
    /// For an event whose `dt-start` is an `<ins>` beside a struck-out `<del>` date: the
    /// date it was moved from.
    moved_from: Option<String>,
    /// For an event: the status a badge of its own text states (`<strong>POSTERGADA.</strong>`).
    badge_status: Option<&'static str>,
}

/// One property value: its text and, for a nested microformat, the item.
#[derive(Debug, Clone)]
struct Value {
    text: String,
    item: Option<Box<Item>>,
}

impl Item {
    fn first(&self, name: &str) -> Option<&Value> {
        self.props.get(name).and_then(|v| v.first())
    }

    fn text(&self, name: &str) -> Option<String> {
        self.first(name).map(|v| v.text.trim().to_owned()).filter(|t| !t.is_empty())
    }

    fn is(&self, ty: &str) -> bool {
        self.types.iter().any(|t| t == ty)
    }
}

/// Reads every h-event / hCalendar event in `doc`.
pub fn read(doc: &Html, candidates: &mut Vec<Candidate>) {
    let includes = Includes::of(doc);
    let mut items = Vec::new();
    let mut stack = vec![(doc.root_element(), 0usize)];
    while let Some((el, depth)) = stack.pop() {
        if depth > MAX_DEPTH {
            continue;
        }
        if let Some(root) = root_of(el) {
            items.push(parse_item(el, root, depth, &includes));
            continue;
        }
        let kids: Vec<_> = el.children().filter_map(ElementRef::wrap).collect();
        stack.extend(kids.into_iter().rev().map(|k| (k, depth + 1)));
    }
    let mut events = Vec::new();
    for item in &items {
        collect_events(item, None, &mut events);
    }
    let venue = page_venue(&items);
    // Each event's place as read, for the events nested in it.
    let mut places: Vec<RawEvent> = Vec::with_capacity(events.len());
    for (n, (item, parent)) in events.into_iter().enumerate() {
        let mut raw = to_raw(item);
        // An event nested in another (a workshop inside a fair's `h-event`) without a place
        // of its own is at its parent's.
        if !has_place(&raw)
            && let Some(p) = parent.and_then(|i| places.get(i))
        {
            place_from(p, &mut raw);
        }
        if let Some(card) = venue
            && !has_place(&raw)
        {
            card_into(card, &mut raw);
        }
        let mut place = RawEvent::default();
        place_from(&raw, &mut place);
        places.push(place);
        if raw.name.is_some() || raw.start.is_some() {
            candidates.push(Candidate {
                format: Format::Microformats,
                location: format!("h-event #{}", n + 1),
                raw,
            });
        }
    }
}

/// The page's one venue card: the only `h-card` with an address (a street or a town)
/// outside every event, at the top of the page or in an `h-feed` (a venue's own site
/// writes it once, in the footer: `<p class="h-card">All events at <span class="p-name">…`).
/// Two such cards name no one place, so none is taken.
fn page_venue(items: &[Item]) -> Option<&Item> {
    fn cards<'a>(item: &'a Item, out: &mut Vec<&'a Item>) {
        if item.is("h-event") {
            return;
        }
        if item.is("h-card")
            && item.text("name").is_some()
            && (item.text("street-address").is_some() || item.text("locality").is_some())
        {
            out.push(item);
        }
        if item.is("h-feed") {
            for c in &item.children {
                cards(c, out);
            }
        }
    }
    let mut out = Vec::new();
    for item in items {
        cards(item, &mut out);
    }
    match out[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// Whether an event says anything of its place already.
fn has_place(raw: &RawEvent) -> bool {
    [&raw.location_name, &raw.location_text, &raw.address_text, &raw.street, &raw.locality]
        .iter()
        .any(|v| v.is_some())
}

/// An `h-card`'s name and address as the event's venue.
fn card_into(card: &Item, raw: &mut RawEvent) {
    raw.location_name = card.text("name").or_else(|| card.text("org"));
    address_into(card, raw);
    if let Some(adr) = card.first("adr") {
        match adr.item.as_deref() {
            Some(a) => address_into(a, raw),
            None if raw.street.is_none() && raw.locality.is_none() => {
                raw.address_text = Some(adr.text.clone());
            }
            None => {}
        }
    }
}

/// Every event among `item`, its property values and its children, in page order, each
/// with the index of the event it is nested in.
fn collect_events<'a>(
    item: &'a Item,
    parent: Option<usize>,
    out: &mut Vec<(&'a Item, Option<usize>)>,
) {
    let mut parent = parent;
    if item.is("h-event") {
        out.push((item, parent));
        parent = Some(out.len() - 1);
    }
    for values in item.props.values() {
        for v in values {
            if let Some(i) = &v.item {
                collect_events(i, parent, out);
            }
        }
    }
    for c in &item.children {
        collect_events(c, parent, out);
    }
}

/// Copies an event's place (venue, address and its parts) onto another.
fn place_from(from: &RawEvent, to: &mut RawEvent) {
    to.location_name.clone_from(&from.location_name);
    to.location_text.clone_from(&from.location_text);
    to.address_text.clone_from(&from.address_text);
    to.street.clone_from(&from.street);
    to.locality.clone_from(&from.locality);
    to.region.clone_from(&from.region);
    to.postal_code.clone_from(&from.postal_code);
    to.country.clone_from(&from.country);
}

/// A root: its `h-*` types, or the classic ones (as `h-*` names) with the flag set.
#[derive(Debug, Clone)]
struct Root {
    types: Vec<String>,
    classic: bool,
}

fn is_mf2_name(class: &str, prefix: &str) -> bool {
    class.strip_prefix(prefix).is_some_and(|rest| {
        !rest.is_empty()
            && rest.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && rest.bytes().any(|b| b.is_ascii_lowercase())
            && !rest.starts_with('-')
            && !rest.ends_with('-')
    })
}

fn root_of(el: ElementRef<'_>) -> Option<Root> {
    let mut types: Vec<String> =
        el.value().classes().filter(|c| is_mf2_name(c, "h-")).map(str::to_owned).collect();
    if !types.is_empty() {
        types.sort();
        types.dedup();
        return Some(Root { types, classic: false });
    }
    for c in el.value().classes() {
        let t = match c {
            "vevent" => "h-event",
            "vcard" => "h-card",
            "adr" => "h-adr",
            "geo" => "h-geo",
            "vcalendar" => "h-calendar",
            _ => continue,
        };
        if !types.iter().any(|x| x == t) {
            types.push(t.to_owned());
        }
    }
    (!types.is_empty()).then_some(Root { types, classic: true })
}

/// The kind of a property: how its value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    P,
    U,
    Dt,
    E,
}

/// The properties an element carries for a parent of `parent` kind.
fn props_of(el: ElementRef<'_>, parent: &Root) -> Vec<(Kind, String)> {
    let mut out: Vec<(Kind, String)> = Vec::new();
    let mut add = |k: Kind, n: &str| {
        if !out.iter().any(|(k2, n2)| *k2 == k && n2 == n) {
            out.push((k, n.to_owned()));
        }
    };
    for c in el.value().classes() {
        if parent.classic {
            for t in &parent.types {
                if let Some((k, n)) = classic_property(t, c) {
                    add(k, n);
                }
            }
            continue;
        }
        for (prefix, k) in [("p-", Kind::P), ("u-", Kind::U), ("dt-", Kind::Dt), ("e-", Kind::E)] {
            if is_mf2_name(c, prefix) {
                add(k, &c[prefix.len()..]);
            }
        }
    }
    if parent.classic
        && parent.types.iter().any(|t| t == "h-event")
        && el.value().name() == "a"
        && el.value().attr("rel").is_some_and(|r| r.split_ascii_whitespace().any(|w| w == "tag"))
    {
        add(Kind::P, "category");
    }
    out
}

/// The classic (hCalendar, hCard, adr, geo) property names and their microformats2 names.
fn classic_property(root: &str, class: &str) -> Option<(Kind, &'static str)> {
    use Kind::*;
    Some(match (root, class) {
        ("h-event", "summary") => (P, "name"),
        ("h-event", "dtstart") => (Dt, "start"),
        ("h-event", "dtend") => (Dt, "end"),
        ("h-event", "duration") => (Dt, "duration"),
        ("h-event", "description") => (E, "description"),
        ("h-event", "url") => (U, "url"),
        ("h-event", "location") => (P, "location"),
        ("h-event", "category") => (P, "category"),
        ("h-event", "photo") => (U, "photo"),
        ("h-event", "status") => (P, "status"),
        ("h-event", "organizer") => (P, "organizer"),
        ("h-event", "attendee") => (P, "attendee"),
        ("h-event", "geo") => (P, "geo"),
        ("h-card", "fn") => (P, "name"),
        ("h-card", "org") => (P, "org"),
        ("h-card", "url") => (U, "url"),
        ("h-card", "photo") => (U, "photo"),
        ("h-card", "adr") => (P, "adr"),
        ("h-card", "label") => (P, "label"),
        ("h-card", "tel") => (P, "tel"),
        ("h-card" | "h-adr", "street-address") => (P, "street-address"),
        ("h-card" | "h-adr", "extended-address") => (P, "extended-address"),
        ("h-card" | "h-adr", "locality") => (P, "locality"),
        ("h-card" | "h-adr", "region") => (P, "region"),
        ("h-card" | "h-adr", "postal-code") => (P, "postal-code"),
        ("h-card" | "h-adr", "country-name") => (P, "country-name"),
        ("h-geo", "latitude") => (P, "latitude"),
        ("h-geo", "longitude") => (P, "longitude"),
        _ => return None,
    })
}

/// Parses one root element into an item (the spec's "parse an element for class
/// microformats").
fn parse_item<'a>(el: ElementRef<'a>, root: Root, depth: usize, includes: &Includes<'a>) -> Item {
    let mut item = Item { types: root.types.clone(), ..Item::default() };
    let mut nested_roots = false;
    parse_children(el, &root, &mut item, &mut nested_roots, depth + 1, includes);
    // Classic roots include other parts of the page by id (`itemref="io-session07"`).
    if root.classic {
        for target in includes.referenced(el, el.value().attr("itemref")) {
            parse_child(target, &root, &mut item, &mut nested_roots, depth + 1, includes);
        }
    }
    if !root.classic {
        imply(el, &mut item, nested_roots);
    }
    if item.is("h-event") {
        // A price its nested events write is theirs (a fair's workshop and its fee).
        let nested: Vec<ElementRef<'_>> =
            el.select(&nested_events()).take(MAX_NESTED).filter(|n| n.id() != el.id()).collect();
        item.text_price = crate::fallback::price_in_text(el).filter(|p| {
            !nested.iter().any(|n| crate::fallback::price_in_text(*n).as_ref() == Some(p))
        });
        item.booking = crate::fallback::booking_link(el);
        item.moved_from = moved_from(el);
        item.badge_status = badge_status(el, &nested);
    }
    // A `dt-end` with only a time takes the start's date.
    if let (Some(start), Some(ends)) =
        (item.first("start").map(|v| v.text.clone()), item.props.get_mut("end"))
        && let Some(date) =
            start.get(..10).filter(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").is_ok())
    {
        for end in ends.iter_mut() {
            if TIME_ONLY.is_match(&end.text) {
                end.text = format!("{date}T{}", end.text);
            }
        }
    }
    item
}

/// The date an event was moved from, when its new start is written as an edit: a
/// `dt-start` on `<ins>` and, in the same event, a `<del>` holding the old date (its own
/// `datetime`, or a `<time datetime>` inside it): `Statt am <del><time datetime=…>8. April
/// </time></del> jetzt am <ins class="dt-start" …>`. HTML's `ins` and `del` mark an edit
/// of the page; with both a new and an old date the event was rescheduled.
fn moved_from(el: ElementRef<'_>) -> Option<String> {
    // The event's own elements: not inside a nested microformat.
    let own: Vec<ElementRef<'_>> = el
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|d| {
            !d.ancestors()
                .filter_map(ElementRef::wrap)
                .take_while(|a| a != &el)
                .any(|a| root_of(a).is_some())
        })
        .collect();
    let inside = |tag: &'static str| own.iter().filter(move |d| d.value().name() == tag);
    let ins_start =
        inside("ins").any(|i| i.value().classes().any(|c| c == "dt-start" || c == "dtstart"));
    if !ins_start {
        return None;
    }
    // A `<del class="dt-start">` is one more value of the property, not an old date.
    let is_dt = |e: &ElementRef<'_>| {
        e.value().classes().any(|c| c.starts_with("dt-") || c == "dtstart" || c == "dtend")
    };
    inside("del")
        .filter(|d| !is_dt(d))
        .find_map(|d| {
            d.value().attr("datetime").map(str::to_owned).or_else(|| {
                d.descendants()
                    .filter_map(ElementRef::wrap)
                    .find(|t| t.value().name() == "time" && !is_dt(t))
                    .and_then(|t| t.value().attr("datetime").map(str::to_owned))
            })
        })
        .and_then(|v| normalise_datetime(v.trim()))
}

/// Reads properties and nested roots in `el`'s descendants into `item`.
fn parse_children<'a>(
    el: ElementRef<'a>,
    root: &Root,
    item: &mut Item,
    nested_roots: &mut bool,
    depth: usize,
    includes: &Includes<'a>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    for child in el.children().filter_map(ElementRef::wrap) {
        parse_child(child, root, item, nested_roots, depth, includes);
    }
}

/// Reads one element inside a root: its properties, or the nested root it is, or (for a
/// classic root's `<a class="include" href="#id">` / `<object class="include"
/// data="#id">`) the element it includes; then its descendants.
fn parse_child<'a>(
    child: ElementRef<'a>,
    root: &Root,
    item: &mut Item,
    nested_roots: &mut bool,
    depth: usize,
    includes: &Includes<'a>,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if root.classic && child.value().classes().any(|c| c == "include") {
        let v = child.value();
        let reference = match v.name() {
            "a" => v.attr("href"),
            "object" => v.attr("data"),
            _ => None,
        };
        let reference = reference.and_then(|r| r.strip_prefix('#'));
        for target in includes.referenced(child, reference) {
            parse_child(target, root, item, nested_roots, depth + 1, includes);
        }
        return;
    }
    let props = props_of(child, root);
    if let Some(child_root) = root_of(child) {
        *nested_roots = true;
        let nested = parse_item(child, child_root, depth, includes);
        if props.is_empty() {
            item.children.push(nested);
            return;
        }
        for (kind, name) in &props {
            note_kind(item, *kind);
            let text = match kind {
                Kind::P => nested.text("name").unwrap_or_else(|| p_value(child)),
                Kind::U => nested.text("url").unwrap_or_else(|| u_value(child)),
                Kind::Dt => dt_value(child),
                Kind::E => text_content(child),
            };
            item.props
                .entry(name.clone())
                .or_default()
                .push(Value { text, item: Some(Box::new(nested.clone())) });
        }
        return;
    }
    for (kind, name) in &props {
        note_kind(item, *kind);
        let text = match kind {
            Kind::P => p_value(child),
            Kind::U => u_value(child),
            Kind::Dt => dt_value(child),
            Kind::E => text_content(child),
        };
        item.props.entry(name.clone()).or_default().push(Value { text, item: None });
    }
    parse_children(child, root, item, nested_roots, depth + 1, includes);
}

/// The page's elements by `id`, for the include pattern of classic microformats
/// (`itemref`, `class="include"`); built only when the page uses it.
struct Includes<'a> {
    by_id: std::collections::HashMap<&'a str, ElementRef<'a>>,
    /// Includes left to follow on this page: each may include others, so a page of
    /// elements including each other costs at most this many subtree reads.
    left: std::cell::Cell<usize>,
}

impl<'a> Includes<'a> {
    /// Most includes followed on one page.
    const MOST: usize = 256;

    fn of(doc: &'a Html) -> Self {
        let mut by_id = std::collections::HashMap::new();
        let all = doc.root_element().descendants().filter_map(ElementRef::wrap);
        let uses = all.clone().any(|e| {
            e.value().attr("itemref").is_some() || e.value().classes().any(|c| c == "include")
        });
        if uses {
            for e in all {
                if let Some(id) = e.value().id() {
                    by_id.entry(id).or_insert(e);
                }
            }
        }
        Includes { by_id, left: std::cell::Cell::new(Self::MOST) }
    }

    /// The elements `ids` (space-separated) names, for `from`.
    fn referenced(&self, from: ElementRef<'a>, ids: Option<&str>) -> Vec<ElementRef<'a>> {
        let mut out = Vec::new();
        for id in ids.unwrap_or_default().split_ascii_whitespace() {
            let Some(target) = self.by_id.get(id).copied() else { continue };
            // Itself, an element around it (it would include itself) or inside it (read
            // already).
            let around = target == from
                || from.ancestors().any(|a| a.id() == target.id())
                || target.ancestors().any(|a| a.id() == from.id());
            if around || self.left.get() == 0 {
                continue;
            }
            self.left.set(self.left.get() - 1);
            out.push(target);
        }
        out
    }
}

fn note_kind(item: &mut Item, kind: Kind) {
    match kind {
        Kind::P | Kind::E => item.has_text_props = true,
        Kind::U => item.has_url_props = true,
        Kind::Dt => {}
    }
}

/// Implied `name` and `url` (and `photo`) of a microformats2 root.
fn imply(el: ElementRef<'_>, item: &mut Item, nested_roots: bool) {
    if !item.props.contains_key("name") && !item.has_text_props && !nested_roots {
        let name = implied_name(el);
        if !name.is_empty() {
            item.props.insert("name".into(), vec![Value { text: name, item: None }]);
        }
    }
    if !item.has_url_props
        && !nested_roots
        && let Some(href) = implied_attr(el, &["a", "area"], "href")
            .or_else(|| only_of_type(el, &["a", "area"], "href"))
    {
        item.props.insert("url".into(), vec![Value { text: href, item: None }]);
    }
    if !item.props.contains_key("photo")
        && !nested_roots
        && let Some(src) = implied_attr(el, &["img"], "src")
    {
        item.props.insert("photo".into(), vec![Value { text: src, item: None }]);
    }
}

/// The spec's `.h-x>a[href]:only-of-type:not[.h-*]` (and `area`): the root's one child
/// link of its kind, when the root holds other elements beside it (`<div class="h-event">
/// <a href="/e/7"><img …></a> <time …>`).
fn only_of_type(el: ElementRef<'_>, tags: &[&str], attr: &str) -> Option<String> {
    let kids: Vec<ElementRef<'_>> = el.children().filter_map(ElementRef::wrap).collect();
    tags.iter().find_map(|tag| {
        let mut of_type = kids.iter().filter(|k| k.value().name() == *tag);
        let one = of_type.next()?;
        if of_type.next().is_some() || root_of(*one).is_some() {
            return None;
        }
        one.value().attr(attr).map(str::to_owned)
    })
}

fn only_child(el: ElementRef<'_>) -> Option<ElementRef<'_>> {
    let mut kids = el.children().filter_map(ElementRef::wrap);
    let first = kids.next()?;
    kids.next().is_none().then_some(first)
}

fn implied_name(el: ElementRef<'_>) -> String {
    let attr_of = |e: ElementRef<'_>| -> Option<String> {
        let v = e.value();
        match v.name() {
            "img" | "area" => v.attr("alt"),
            "abbr" => v.attr("title"),
            _ => None,
        }
        .map(str::to_owned)
    };
    if let Some(a) = attr_of(el) {
        return a.trim().to_owned();
    }
    let mut at = el;
    for _ in 0..2 {
        let Some(c) = only_child(at).filter(|c| root_of(*c).is_none()) else { break };
        if let Some(a) = attr_of(c) {
            return a.trim().to_owned();
        }
        at = c;
    }
    without_dates(el)
}

/// The root's text without the text of its `dt-*` properties, for an implied name: a name
/// is the event's, not its date (`Tool Library Open House — Sat, Apr 11, 1pm` is named
/// `Tool Library Open House`). The whole text when that leaves no words.
fn without_dates(el: ElementRef<'_>) -> String {
    let whole = text_content(el);
    let mut name = whole.clone();
    let dated = el
        .descendants()
        .filter_map(ElementRef::wrap)
        .filter(|d| d.value().classes().any(|c| is_mf2_name(c, "dt-")) && root_of(*d).is_none());
    for d in dated {
        let text = text_content(d);
        if !text.is_empty() {
            name = name.replacen(&text, " ", 1);
        }
    }
    let separators = |c: char| c.is_whitespace() || "-–—·•|,:;".contains(c);
    let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    let name = name.trim_matches(separators);
    if name.chars().any(char::is_alphabetic) { name.to_owned() } else { whole }
}

fn implied_attr(el: ElementRef<'_>, tags: &[&str], attr: &str) -> Option<String> {
    let hit = |e: ElementRef<'_>| {
        tags.contains(&e.value().name()).then(|| e.value().attr(attr)).flatten().map(str::to_owned)
    };
    if let Some(v) = hit(el) {
        return Some(v);
    }
    let mut at = el;
    for _ in 0..2 {
        let c = only_child(at).filter(|c| root_of(*c).is_none())?;
        if let Some(v) = hit(c) {
            return Some(v);
        }
        at = c;
    }
    None
}

/// The text of an element as the spec reads it: scripts and styles dropped, images
/// replaced by their `alt`, whitespace collapsed.
fn text_content(el: ElementRef<'_>) -> String {
    let mut out = String::new();
    let mut stack = vec![*el];
    let mut budget = 100_000usize;
    while let Some(node) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        match node.value() {
            scraper::Node::Text(t) => out.push_str(t),
            scraper::Node::Element(e) => {
                match e.name() {
                    "script" | "style" | "template" => continue,
                    "img" => {
                        if let Some(alt) = e.attr("alt") {
                            out.push(' ');
                            out.push_str(alt);
                            out.push(' ');
                        }
                        continue;
                    }
                    "br" | "p" | "div" | "li" => out.push(' '),
                    _ => {}
                }
                let kids: Vec<_> = node.children().collect();
                stack.extend(kids.into_iter().rev());
            }
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The value-class parts of a property element: `value` / `value-title` descendants not
/// inside a nested property or microformat.
fn value_parts(el: ElementRef<'_>) -> Vec<ElementRef<'_>> {
    let mut out = Vec::new();
    let mut stack: Vec<ElementRef<'_>> = el.children().filter_map(ElementRef::wrap).collect();
    stack.reverse();
    let mut budget = 10_000usize;
    while let Some(c) = stack.pop() {
        budget = budget.saturating_sub(1);
        if budget == 0 {
            break;
        }
        let classes: Vec<&str> = c.value().classes().collect();
        if classes.iter().any(|k| *k == "value" || *k == "value-title") {
            out.push(c);
            continue;
        }
        let nested = root_of(c).is_some()
            || classes.iter().any(|k| ["p-", "u-", "dt-", "e-"].iter().any(|p| is_mf2_name(k, p)));
        if nested {
            continue;
        }
        let kids: Vec<_> = c.children().filter_map(ElementRef::wrap).collect();
        stack.extend(kids.into_iter().rev());
    }
    out
}

/// A value-class part's value (the spec's rules for `value` elements).
fn part_value(part: ElementRef<'_>, dt: bool) -> String {
    let e = part.value();
    if e.classes().any(|k| k == "value-title") {
        return e.attr("title").unwrap_or_default().trim().to_owned();
    }
    let attr = match e.name() {
        "img" | "area" => e.attr("alt"),
        "data" => e.attr("value"),
        "abbr" => e.attr("title"),
        "del" | "ins" | "time" if dt => e.attr("datetime"),
        _ => None,
    };
    attr.map_or_else(|| text_content(part), |a| a.trim().to_owned())
}

fn p_value(el: ElementRef<'_>) -> String {
    let parts = value_parts(el);
    if !parts.is_empty() {
        return parts.iter().map(|p| part_value(*p, false)).collect::<String>().trim().to_owned();
    }
    let e = el.value();
    let attr = match e.name() {
        "abbr" | "link" => e.attr("title"),
        "data" | "input" => e.attr("value"),
        "img" | "area" => e.attr("alt"),
        _ => None,
    };
    attr.map_or_else(|| text_content(el), |a| a.trim().to_owned())
}

fn u_value(el: ElementRef<'_>) -> String {
    let e = el.value();
    let attr = match e.name() {
        "a" | "area" | "link" => e.attr("href"),
        "img" | "audio" | "source" | "iframe" => e.attr("src"),
        "video" => e.attr("src").or_else(|| e.attr("poster")),
        "object" => e.attr("data"),
        _ => None,
    };
    if let Some(a) = attr {
        return a.trim().to_owned();
    }
    let parts = value_parts(el);
    if !parts.is_empty() {
        return parts.iter().map(|p| part_value(*p, false)).collect::<String>().trim().to_owned();
    }
    let attr = match e.name() {
        "abbr" => e.attr("title"),
        "data" | "input" => e.attr("value"),
        _ => None,
    };
    attr.map_or_else(|| text_content(el), |a| a.trim().to_owned())
}

fn dt_value(el: ElementRef<'_>) -> String {
    let e = el.value();
    let parts = value_parts(el);
    if !parts.is_empty() {
        let values: Vec<String> = parts.iter().map(|p| part_value(*p, true)).collect();
        let combined = combine_parts(&values);
        // Parts in words (`<span class="value">samedi 11 avril</span>`) inside a `<time>`
        // that carries the machine value: the attribute is the date-time.
        if normalise_datetime(&combined).is_none()
            && let Some(full) = e.attr("datetime").and_then(normalise_datetime)
        {
            return full;
        }
        return combined;
    }
    let attr = match e.name() {
        "time" | "ins" | "del" => e.attr("datetime"),
        "abbr" => e.attr("title"),
        "data" | "input" => e.attr("value"),
        _ => None,
    };
    let raw = attr.map_or_else(|| text_content(el), |a| a.trim().to_owned());
    normalise_datetime(&raw).unwrap_or(raw)
}

static DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4})-(?:(\d{2})-(\d{2})|(\d{3}))$").expect("a constant regex")
});
/// A time of day, maybe with am/pm, maybe followed by an offset.
static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,]\d+)?)?)?\s*(?:([ap])\.?\s*m\.?)?\s*(z|[+-]\d{2}(?::?\d{2})?)?$",
    )
    .expect("a constant regex")
});
static TZ: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:z|[+-]\d{2}(?::?\d{2})?)$").expect("a constant regex"));
static TIME_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{2}:\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})?$").expect("a constant regex")
});

/// `2026-12-05` or the ordinal `2026-339`, as a date.
fn parse_date(s: &str) -> Option<NaiveDate> {
    let c = DATE.captures(s.trim())?;
    let y: i32 = c[1].parse().ok()?;
    match (c.get(2), c.get(3), c.get(4)) {
        (Some(m), Some(d), _) => {
            NaiveDate::from_ymd_opt(y, m.as_str().parse().ok()?, d.as_str().parse().ok()?)
        }
        (_, _, Some(o)) => NaiveDate::from_yo_opt(y, o.as_str().parse().ok()?),
        _ => None,
    }
}

/// A time (`20:30`, `8pm`, `8:30 p.m.`, `19:00-0800`) as `HH:MM:SS` and its offset.
fn parse_time(s: &str) -> Option<(String, Option<String>)> {
    // `21h30`, `21h`, `20.30`, `20.30 Uhr`: how French, German, Spanish and Turkish pages
    // write a time in a value part, read as `21:30`.
    static LOCAL: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^(\d{1,2})(?:h(\d{2})?|\.(\d{2}))\s*(?:h|uhr)?$")
            .expect("a constant regex")
    });
    let local = LOCAL.captures(s.trim()).map(|c| {
        let m = c.get(2).or(c.get(3)).map_or("00", |m| m.as_str());
        format!("{}:{m}", &c[1])
    });
    let c = TIME.captures(local.as_deref().unwrap_or(s).trim())?;
    let mut h: u32 = c[1].parse().ok()?;
    let m: u32 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
    let sec: u32 = c.get(3).map_or(Some(0), |m| m.as_str().parse().ok())?;
    match c.get(4).map(|m| m.as_str().to_ascii_lowercase()) {
        Some(ap) => {
            if h == 0 || h > 12 {
                return None;
            }
            h = h % 12 + if ap == "p" { 12 } else { 0 };
        }
        // A bare hour (`19`) is not a time; `19:00` is.
        None if c.get(2).is_none() => return None,
        None => {}
    }
    if h > 23 || m > 59 || sec > 59 {
        return None;
    }
    let tz = match c.get(5) {
        Some(z) => Some(offset(z.as_str())?),
        None => None,
    };
    Some((format!("{h:02}:{m:02}:{sec:02}"), tz))
}

/// `Z`, `-08`, `-0800`, `+01:00` as `+HH:MM`.
fn offset(s: &str) -> Option<String> {
    let s = s.trim();
    if s.eq_ignore_ascii_case("z") {
        return Some("+00:00".into());
    }
    let sign = &s[..1];
    let digits: String = s[1..].chars().filter(char::is_ascii_digit).collect();
    let (h, m) = match digits.len() {
        2 => (&digits[..2], "00"),
        4 => (&digits[..2], &digits[2..]),
        _ => return None,
    };
    let (hn, mn): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (hn <= 14 && mn <= 59).then(|| format!("{sign}{h}:{m}"))
}

/// A whole date-time value in any of the spec's shapes, as ISO 8601
/// (`2026-12-05`, `2026-12-05T20:30:00`, `2026-12-05T20:30:00-08:00`), or a time alone
/// (`20:30:00`, for a `dt-end` that takes the start's date).
fn normalise_datetime(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(d) = parse_date(s) {
        return Some(d.format("%Y-%m-%d").to_string());
    }
    // Date, then `T`, `t` or spaces, then the time.
    let split = s.char_indices().find(|(_, c)| matches!(c, 'T' | 't' | ' ')).map(|(i, _)| i);
    if let Some(i) = split
        && let Some(d) = parse_date(&s[..i])
    {
        let (t, tz) = parse_time(s[i + 1..].trim())?;
        return Some(format!("{}T{t}{}", d.format("%Y-%m-%d"), tz.unwrap_or_default()));
    }
    let (t, tz) = parse_time(s)?;
    Some(format!("{t}{}", tz.unwrap_or_default()))
}

/// The value-class pattern for date-times: the first date, the first time and the first
/// offset among the parts, joined.
fn combine_parts(parts: &[String]) -> String {
    let (mut date, mut time, mut tz): (Option<String>, Option<String>, Option<String>) =
        (None, None, None);
    for p in parts {
        let p = p.trim();
        if p.is_empty() {
            continue;
        }
        if let Some(full) = normalise_datetime(p) {
            if let Some(d) = parse_date(full.get(..10).unwrap_or_default()) {
                date.get_or_insert(d.format("%Y-%m-%d").to_string());
                if let Some(rest) = full.get(11..)
                    && let Some((t, z)) = parse_time(rest)
                {
                    time.get_or_insert(t);
                    if let Some(z) = z {
                        tz.get_or_insert(z);
                    }
                }
                continue;
            }
            if let Some((t, z)) = parse_time(&full) {
                time.get_or_insert(t);
                if let Some(z) = z {
                    tz.get_or_insert(z);
                }
                continue;
            }
        }
        if TZ.is_match(p)
            && let Some(z) = offset(p)
        {
            tz.get_or_insert(z);
        }
    }
    match (date, time) {
        (Some(d), Some(t)) => format!("{d}T{t}{}", tz.unwrap_or_default()),
        (Some(d), None) => d,
        (None, Some(t)) => format!("{t}{}", tz.unwrap_or_default()),
        (None, None) => parts.concat().trim().to_owned(),
    }
}

/// The most nested events an event's text is compared with.
const MAX_NESTED: usize = 20;

/// Nested event roots, modern and classic.
fn nested_events() -> scraper::Selector {
    scraper::Selector::parse(".h-event, .vevent").expect("a valid selector")
}

/// The status a badge in an event's own element states: an element, outside its nested
/// events, whose whole text is a status word (`<strong>POSTERGADA.</strong>`, `<span
/// class="badge">ABGESAGT</span>`); among its first 200 elements.
fn badge_status(el: ElementRef<'_>, nested: &[ElementRef<'_>]) -> Option<&'static str> {
    el.descendants()
        .filter_map(ElementRef::wrap)
        .take(200)
        .filter(|d| !nested.iter().any(|n| d.ancestors().any(|a| a.id() == n.id())))
        .find_map(|d| {
            let text: String = d.text().collect();
            let text = text.trim();
            (text.chars().count() <= 40 && crate::fallback::is_status_badge(text))
                .then(|| crate::fallback::status_in(text))
                .flatten()
        })
}

/// An h-event's values as a raw event: name, dates, url, description, photo,
/// categories, and the venue from `location` (an h-card or h-adr, or text).
fn to_raw(item: &Item) -> RawEvent {
    let mut raw = RawEvent {
        markup: gleaner_event::Markup::Text,
        name: item.text("name"),
        start: item.text("start"),
        end: item.text("end"),
        url: item.text("url"),
        description: item
            .text("description")
            .or_else(|| item.text("content"))
            .or_else(|| item.text("summary")),
        image: item.text("photo"),
        // A status written in words (`ABGESAGT` titled `CANCELLED`) is that status.
        status: item
            .text("status")
            .map(|s| crate::fallback::status_in(&s).map_or(s, str::to_owned))
            .or_else(|| item.badge_status.map(str::to_owned)),
        keywords: item
            .props
            .get("category")
            .map(|vs| {
                vs.iter().map(|v| v.text.trim().to_owned()).filter(|t| !t.is_empty()).collect()
            })
            .unwrap_or_default(),
        ..RawEvent::default()
    };
    // hCalendar's `duration` (ISO 8601, `PT1H30M`) gives the end of a timed start.
    if raw.end.is_none()
        && let (Some(start), Some(d)) = (raw.start.as_deref(), item.text("duration"))
    {
        raw.end = crate::ical::end_after(start, &d);
    }
    if let Some(from) = &item.moved_from
        && raw.status.is_none()
    {
        raw.status = Some("EventRescheduled".to_owned());
        raw.previous_start = Some(from.clone());
    }
    // No price properties in microformats: the price and booking link its text gives.
    if let Some(p) = &item.text_price {
        crate::fallback::price_into(p, &mut raw);
    }
    if let Some(b) = item.booking.clone().filter(|b| raw.url.as_deref() != Some(b.as_str())) {
        raw.set_ticket_url(b);
    }
    // An h-event's own address properties.
    address_into(item, &mut raw);
    if let Some(loc) = item.first("location") {
        match loc.item.as_deref() {
            Some(card) if card.is("h-card") => card_into(card, &mut raw),
            Some(adr) if adr.is("h-adr") => {
                address_into(adr, &mut raw);
                if raw.street.is_none() && raw.locality.is_none() {
                    raw.address_text = Some(loc.text.clone());
                }
            }
            _ => raw.location_text = Some(loc.text.clone()).filter(|t| !t.trim().is_empty()),
        }
    }
    raw
}

fn address_into(item: &Item, raw: &mut RawEvent) {
    fn fill(slot: &mut Option<String>, v: Option<String>) {
        if slot.is_none() {
            *slot = v;
        }
    }
    fill(&mut raw.street, item.text("street-address"));
    fill(&mut raw.locality, item.text("locality"));
    fill(&mut raw.region, item.text("region"));
    fill(&mut raw.postal_code, item.text("postal-code"));
    fill(&mut raw.country, item.text("country-name"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nested_event_is_at_its_parents_place() {
        let html = r#"<div class="h-event"><h2 class="p-name">Spring Craft Fair</h2>
            <time class="dt-start" datetime="2026-04-04T13:00">4 April</time>
            <p class="p-location h-card"><span class="p-name">Old Mill Hall</span>,
            <span class="p-street-address">2 Mill Lane</span>,
            <span class="p-locality">Millbrook</span></p>
            <div class="h-event"><h3 class="p-name">Workshop: bookbinding</h3>
            <time class="dt-start" datetime="2026-04-04T15:00">3 pm</time></div>
            <div class="h-event"><h3 class="p-name">Talk at the library</h3>
            <time class="dt-start" datetime="2026-04-04T17:00">5 pm</time>
            <p class="p-location">Millbrook Library</p></div></div>"#;
        let mut candidates = Vec::new();
        read(&Html::parse_document(html), &mut candidates);
        let place = |name: &str| {
            let c = candidates.iter().find(|c| c.raw.name.as_deref() == Some(name)).unwrap();
            (c.raw.location_name.clone(), c.raw.location_text.clone(), c.raw.street.clone())
        };
        let mill = (Some("Old Mill Hall".to_owned()), None, Some("2 Mill Lane".to_owned()));
        assert_eq!(place("Spring Craft Fair"), mill);
        assert_eq!(place("Workshop: bookbinding"), mill);
        // A nested event with a place of its own keeps it.
        assert_eq!(place("Talk at the library").1.as_deref(), Some("Millbrook Library"));
    }

    #[test]
    fn date_time_shapes() {
        let cases = [
            ("2026-12-05", Some("2026-12-05")),
            ("2026-339", Some("2026-12-05")),
            ("2026-12-05T20:30", Some("2026-12-05T20:30:00")),
            ("2026-12-05 20:30:15", Some("2026-12-05T20:30:15")),
            ("2026-12-05t20:30-08", Some("2026-12-05T20:30:00-08:00")),
            ("2026-12-05T20:30-0800", Some("2026-12-05T20:30:00-08:00")),
            ("2026-12-05T20:30:00+01:00", Some("2026-12-05T20:30:00+01:00")),
            ("2026-12-05T20:30Z", Some("2026-12-05T20:30:00+00:00")),
            ("2026-12-05 8pm", Some("2026-12-05T20:00:00")),
            ("8:30 p.m.", Some("20:30:00")),
            ("07:00AM", Some("07:00:00")),
            ("12am", Some("00:00:00")),
            ("21h30", Some("21:30:00")),
            ("20.30 Uhr", Some("20:30:00")),
            ("2026-06-19 21h30", Some("2026-06-19T21:30:00")),
            ("19", None),
            ("13pm", None),
            ("2026-13-05", None),
            ("tomorrow", None),
        ];
        for (input, want) in cases {
            assert_eq!(normalise_datetime(input).as_deref(), want, "`{input}`");
        }
    }

    #[test]
    fn a_badge_states_the_status_and_a_nested_events_price_is_its_own() {
        let html = r#"<html><body>
          <div class="h-event"><h2 class="p-name">Spring fair</h2>
            <time class="dt-start" datetime="2026-04-04T13:00"></time>
            <p><b>CANCELADA.</b> La lluvia nos gana esta vez.</p></div>
          <div class="vevent"><span class="summary">Nachtlauf</span>
            <abbr class="dtstart" title="2026-03-13T19:00">13.3.</abbr>
            <span class="status" title="CANCELLED">Abgesagt</span></div>
          <div class="h-event"><h2 class="p-name">Makers' market</h2>
            <time class="dt-start" datetime="2026-05-02T10:00"></time>
            <p>Stalls, food and music all day.</p>
            <div class="h-event"><h3 class="p-name">Bookbinding workshop</h3>
              <time class="dt-start" datetime="2026-05-02T15:00"></time>
              <p>Twelve places, 25 € with materials.</p></div></div>
        </body></html>"#;
        let doc = Html::parse_document(html);
        let mut out = Vec::new();
        read(&doc, &mut out);
        let by = |name: &str| out.iter().find(|c| c.raw.name.as_deref() == Some(name)).expect(name);
        assert_eq!(by("Spring fair").raw.status.as_deref(), Some("cancelled"));
        assert_eq!(by("Nachtlauf").raw.status.as_deref(), Some("cancelled"));
        assert!(!by("Makers' market").raw.has_price());
        assert!(by("Bookbinding workshop").raw.has_price());
        assert_eq!(by("Bookbinding workshop").raw.status, None);
    }

    #[test]
    fn value_class_parts_combine() {
        let p = |v: &[&str]| combine_parts(&v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        assert_eq!(p(&["2026-12-05", "20:30"]), "2026-12-05T20:30:00");
        assert_eq!(p(&["8pm", "2026-12-05", "-0800"]), "2026-12-05T20:00:00-08:00");
        assert_eq!(p(&["2026-339", "19:00Z"]), "2026-12-05T19:00:00+00:00");
        assert_eq!(p(&["22:30"]), "22:30:00");
    }
}
