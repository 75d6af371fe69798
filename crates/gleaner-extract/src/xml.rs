//! A small, capped XML element tree over quick-xml, shared by the feed and sitemap readers.
//!
//! quick-xml 0.42 hands entity references over as separate `GeneralRef` events; they are
//! resolved here (character references, the five XML entities, then HTML's named ones,
//! which feeds use without declaring) and joined to the text around them. Names keep their
//! prefix as written (`ev:startdate`); readers match on [`Element::local`]. Malformed XML is
//! read up to the error, which is reported. Caps: [`MAX_DEPTH`] levels, [`MAX_NODES`]
//! elements.

use quick_xml::events::Event;
use quick_xml::reader::Reader;

/// Elements nested deeper than this are skipped.
pub const MAX_DEPTH: usize = 64;
/// Elements beyond this many are not read.
pub const MAX_NODES: usize = 500_000;

/// One element: its name, attributes, direct text and child elements.
#[derive(Debug, Clone, Default)]
pub(crate) struct Element {
    /// The name as written, prefix included.
    pub name: String,
    /// Attributes, values unescaped.
    pub attrs: Vec<(String, String)>,
    /// The element's own text (text, CDATA and references), children excluded.
    pub text: String,
    /// Child elements in order.
    pub children: Vec<Element>,
}

impl Element {
    /// The name without its prefix, lowercased.
    pub fn local(&self) -> String {
        self.name.rsplit(':').next().unwrap_or("").to_ascii_lowercase()
    }

    /// The prefix, lowercased (`""` without one).
    pub fn prefix(&self) -> String {
        match self.name.rsplit_once(':') {
            Some((p, _)) => p.to_ascii_lowercase(),
            None => String::new(),
        }
    }

    /// The first child with this local name (any prefix).
    pub fn child(&self, local: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.local() == local)
    }

    /// The trimmed text of the first child with this local name, when not empty.
    pub fn child_text(&self, local: &str) -> Option<String> {
        self.children
            .iter()
            .filter(|c| c.local() == local)
            .map(|c| c.text.trim().to_owned())
            .find(|t| !t.is_empty())
    }

    /// An attribute's value by local name.
    pub fn attr(&self, local: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k.rsplit(':').next().is_some_and(|l| l.eq_ignore_ascii_case(local)))
            .map(|(_, v)| v.as_str())
    }

    /// Every element below this one, depth first.
    pub fn descendants(&self) -> Vec<&Element> {
        let mut out = Vec::new();
        let mut stack: Vec<&Element> = self.children.iter().rev().collect();
        while let Some(e) = stack.pop() {
            out.push(e);
            stack.extend(e.children.iter().rev());
        }
        out
    }
}

/// Parses a document into its root element; the error says where reading stopped.
pub(crate) fn parse(text: &str) -> (Option<Element>, Option<String>) {
    let mut reader = Reader::from_str(text);
    let cfg = reader.config_mut();
    cfg.check_end_names = false;
    cfg.allow_unmatched_ends = true;
    cfg.allow_dangling_amp = true;
    cfg.expand_empty_elements = false;
    let mut stack: Vec<Element> = vec![Element::default()];
    let mut nodes = 0usize;
    let mut skipped_depth = 0usize;
    let mut error = None;
    loop {
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                error = Some(format!("malformed XML at byte {}: {e}", reader.buffer_position()));
                break;
            }
        };
        match ev {
            Event::Start(_) | Event::Empty(_)
                if skipped_depth > 0 || stack.len() > MAX_DEPTH || nodes >= MAX_NODES =>
            {
                // An empty element has no end tag: only a start deepens the skipped part.
                if matches!(ev, Event::Start(_)) {
                    skipped_depth += 1;
                }
                if nodes >= MAX_NODES && error.is_none() {
                    error = Some(format!("more than {MAX_NODES} elements; the rest was not read"));
                }
            }
            Event::Start(s) => {
                nodes += 1;
                stack.push(element_of(&s));
            }
            Event::Empty(s) => {
                nodes += 1;
                let el = element_of(&s);
                if let Some(top) = stack.last_mut() {
                    top.children.push(el);
                }
            }
            Event::End(_) => {
                if skipped_depth > 0 {
                    skipped_depth -= 1;
                    continue;
                }
                if stack.len() > 1 {
                    let done = stack.pop().unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        top.children.push(done);
                    }
                }
            }
            Event::Text(t) if skipped_depth == 0 => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&t.xml_content(quick_xml::XmlVersion::Implicit1_0));
                }
            }
            Event::CData(c) if skipped_depth == 0 => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&c.xml_content(quick_xml::XmlVersion::Implicit1_0));
                }
            }
            Event::GeneralRef(r) if skipped_depth == 0 => {
                if let Some(top) = stack.last_mut() {
                    top.text
                        .push_str(&resolve_ref(&r.xml_content(quick_xml::XmlVersion::Implicit1_0)));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    while stack.len() > 1 {
        let done = stack.pop().unwrap_or_default();
        if let Some(top) = stack.last_mut() {
            top.children.push(done);
        }
    }
    let root = stack.pop().and_then(|doc| doc.children.into_iter().next());
    (root, error)
}

fn element_of(s: &quick_xml::events::BytesStart<'_>) -> Element {
    let name = s.name().as_ref().to_owned();
    let attrs = s
        .attributes()
        .with_checks(false)
        .flatten()
        .map(|a| {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| gleaner_event::text::decode_entities(&a.value));
            (a.key.as_ref().to_owned(), v)
        })
        .collect();
    Element { name, attrs, text: String::new(), children: Vec::new() }
}

/// The text of `&name;`.
fn resolve_ref(name: &str) -> String {
    match name {
        "amp" => "&".to_owned(),
        "lt" => "<".to_owned(),
        "gt" => ">".to_owned(),
        "quot" => "\"".to_owned(),
        "apos" => "'".to_owned(),
        _ => gleaner_event::text::decode_entities(&format!("&{name};")),
    }
}

/// Bytes to text for an XML document: byte-order mark, then the XML declaration's
/// `encoding`, then UTF-8 (invalid bytes replaced).
pub(crate) fn decode(bytes: &[u8]) -> String {
    if let Some((enc, bom)) = encoding_rs::Encoding::for_bom(bytes) {
        return enc.decode_without_bom_handling(&bytes[bom..]).0.into_owned();
    }
    let head = &bytes[..bytes.len().min(200)];
    if head.starts_with(b"<?xml") {
        let head = String::from_utf8_lossy(head);
        if let Some(at) = head.find("encoding=") {
            let rest = &head[at + 9..];
            let quote = rest.chars().next().unwrap_or('"');
            let label: String = rest.chars().skip(1).take_while(|c| *c != quote).collect();
            if let Some(enc) = encoding_rs::Encoding::for_label(label.trim().as_bytes()) {
                return enc.decode_without_bom_handling(bytes).0.into_owned();
            }
        }
    }
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_join_their_text() {
        let (root, err) =
            parse("<a><loc>https://x.example/?a=1&amp;b=2&#x41;&eacute;</loc><e/></a>");
        assert!(err.is_none());
        let root = root.unwrap();
        assert_eq!(root.child_text("loc").as_deref(), Some("https://x.example/?a=1&b=2Aé"));
        assert_eq!(root.children.len(), 2);
    }

    #[test]
    fn malformed_is_read_up_to_the_error() {
        let (root, _) = parse("<rss><channel><item><title>A</title></item><item><title>B");
        let root = root.unwrap();
        assert_eq!(root.descendants().iter().filter(|e| e.local() == "item").count(), 2);
    }
}
