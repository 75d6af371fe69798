//! One event's detail page: its performances (a show's dated lines after its title), its
//! date written in words near the title, its description, and the place, address and
//! price its `Label: value` blocks give.

use chrono::NaiveDate;
use gleaner_event::EventTime;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::text::collapse;
use gleaner_event::{RawEvent, parse_price_text};
use scraper::{ElementRef, Html};

use super::booking::is_booking_text;
use super::emoji_lines::{Mark, marked_lines, marked_places};
use super::price::price_into;
use super::roles::{listed_times, start_line};
use super::words::{is_closure_line, is_publication_line, stated_status};
use super::{BLOCKS, in_chrome, leaves, sel, text_of};

/// How many text blocks after the title are searched for a written date.
const NEAR_TITLE_BLOCKS: usize = 80;

/// One performance of a show: its start, maybe an end, and its booking link.
pub(super) struct Performance {
    pub(super) start: EventTime,
    pub(super) end: Option<EventTime>,
    pub(super) tickets: Option<String>,
    /// The status its line states (`Función cancelada`).
    pub(super) status: Option<&'static str>,
}

/// The performances a show page lists after its title: sibling lines (`<li>`, rows,
/// paragraphs) that each hold a date with a time of day and little else, two or more on
/// different starts. Lines in the page's chrome are not read.
pub(super) fn performances(
    doc: &Html,
    h1: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Vec<Performance> {
    let blocks = sel(BLOCKS);
    let lines = sel("li, p, div, tr, dd");
    let mut groups: Vec<(_, Vec<Performance>)> = Vec::new();
    for el in doc.select(&lines).take(5000) {
        if el.id() <= h1.id() || el.select(&blocks).any(|b| b.id() != el.id()) || in_chrome(el) {
            continue;
        }
        let text = text_of(el);
        if text.is_empty() || text.chars().count() > 120 || is_publication_line(&text) {
            continue;
        }
        // A time before the start (`Einlass 19 Uhr`) gives way to the start.
        let line = start_line(&text);
        let Some(d) = parse_text_date(&line, reference, order) else { continue };
        if !matches!(d.start, EventTime::Floating(_) | EventTime::Fixed(_)) {
            continue;
        }
        let Some(parent) = line_holder(el).parent().map(|p| p.id()) else { continue };
        let tickets = el
            .select(&sel("a[href]"))
            .find(|a| is_booking_text(&text_of(*a)))
            .and_then(|a| a.value().attr("href"))
            .map(str::to_owned);
        let status = stated_status(&text, std::slice::from_ref(&text));
        // `Domingo 8 de marzo · 9:30 h y 20:30 h`: one performance at each time.
        let mut shows =
            vec![Performance { start: d.start, end: d.end, tickets: tickets.clone(), status }];
        if let (EventTime::Floating(at), None) = (d.start, d.end) {
            // The list may sit in one of the line's parts (`<span>… · 9:30 h y 20:30
            // h</span><a>Boletos</a>`).
            let listed = std::iter::once(line.to_string())
                .chain(leaves(el))
                .map(|t| listed_times(&start_line(&t)))
                .find(|l| !l.is_empty())
                .unwrap_or_default();
            for t in listed.into_iter().skip(1) {
                let start = EventTime::Floating(at.date().and_time(t));
                shows.push(Performance { start, end: None, tickets: tickets.clone(), status });
            }
        }
        let g = match groups.iter_mut().position(|(p, _)| *p == parent) {
            Some(i) => &mut groups[i].1,
            None => {
                groups.push((parent, Vec::new()));
                &mut groups.last_mut().expect("just pushed").1
            }
        };
        for show in shows {
            if !g.iter().any(|s| s.start == show.start) {
                g.push(show);
            }
        }
    }
    groups.into_iter().map(|(_, g)| g).max_by_key(Vec::len).unwrap_or_default()
}

/// The element that stands for a line among its list's lines: the line, or the wrapper
/// it is alone in (`<li><p>Friday 4th December, 7.30pm</p></li>`, as page builders wrap
/// each list item's text), up to two levels.
fn line_holder(line: ElementRef<'_>) -> ElementRef<'_> {
    let mut at = line;
    for _ in 0..2 {
        let Some(parent) = at.parent().and_then(ElementRef::wrap) else { break };
        let alone = parent.children().filter_map(ElementRef::wrap).count() == 1
            && parent.children().all(|c| {
                c.id() == at.id() || c.value().as_text().is_none_or(|t| t.trim().is_empty())
            });
        if !alone || !matches!(parent.value().name(), "li" | "div" | "td" | "dd" | "span") {
            break;
        }
        at = parent;
    }
    at
}

/// The page's description: the first sentence-like paragraph after the title (at least
/// 40 characters, ending like a sentence, neither a date, a label nor a byline).
pub(super) fn description(doc: &Html, h1: ElementRef<'_>, order: DateOrder) -> Option<String> {
    let sentence = |t: &String| {
        let n = t.chars().count();
        (40..=2000).contains(&n)
            && t.trim_end().ends_with(['.', '!', '?', '…'])
            && !is_publication_line(t)
            && parse_text_date(t, None, order).is_none()
            && t.split_once(':').is_none_or(|(head, _)| label_of(head).is_none())
    };
    let after = |e: &ElementRef<'_>| e.id() > h1.id() && !in_chrome(*e);
    doc.select(&sel("p")).filter(after).take(40).map(text_of).find(sentence).or_else(|| {
        // No paragraph: a text block whose paragraphs are separated by `<br><br>`
        // (a CMS "summary" field); its first paragraph.
        let blocks = sel(BLOCKS);
        doc.select(&sel("div"))
            .filter(after)
            .filter(|d| d.select(&blocks).all(|b| b.id() == d.id()))
            .take(40)
            .map(first_paragraph)
            .find(sentence)
    })
}

/// The text of an element up to its first blank line (two `<br>` in a row).
fn first_paragraph(el: ElementRef<'_>) -> String {
    let mut text = String::new();
    let mut breaks = 0;
    for node in el.descendants() {
        if let Some(t) = node.value().as_text() {
            if t.trim().is_empty() {
                continue;
            }
            if breaks >= 2 && !text.trim().is_empty() {
                break;
            }
            breaks = 0;
            text.push_str(t);
            text.push(' ');
        } else if node.value().as_element().is_some_and(|e| e.name() == "br") {
            breaks += 1;
        }
    }
    collapse(&text)
}

/// The first date written in words in the blocks after the title.
pub(super) fn written_date(
    doc: &Html,
    h1: Option<ElementRef<'_>>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<gleaner_event::datetext::TextDate> {
    let blocks = sel("p, li, div, span, dd, td, h2, h3, h4, strong, em");
    let h1 = h1?;
    if let Some(d) = marked_date(doc, h1, reference, order) {
        return Some(d);
    }
    // Blocks that come after the title in document order, leaves first.
    let title_id = h1.id();
    let mut after = false;
    let mut seen = 0;
    let mut found: Option<gleaner_event::datetext::TextDate> = None;
    let mut found_at = 0;
    let mut last_text = String::new();
    for el in doc.select(&blocks).chain(std::iter::empty()) {
        if !after {
            // Document order: the first block that follows the title's position.
            after = el.id() > title_id && !el.ancestors().any(|a| a.id() == title_id);
            if !after {
                continue;
            }
        }
        // Small blocks only: a date and its time may sit in nested spans.
        if el.select(&blocks).nth(8).is_some() {
            continue;
        }
        seen += 1;
        if seen > NEAR_TITLE_BLOCKS {
            break;
        }
        let text = text_of(el);
        // Wrappers repeat their only child's text: one block, not several.
        if text.len() > 200
            || is_publication_line(&text)
            || is_closure_line(&text)
            || text == last_text
        {
            seen -= 1;
            continue;
        }
        last_text.clone_from(&text);
        if let Some(mut d) = found.take() {
            // A date without a time: the time may be in the next small blocks
            // (`Happening July 27, 2025`, then `10:00am`, then `- 4:00pm`).
            match (d.start, parse_text_time(&start_line(&text))) {
                (EventTime::Date(day), Some((t1, t2))) => {
                    d.start = EventTime::Floating(day.and_time(t1));
                    if let Some(t2) = t2.filter(|t2| *t2 > t1) {
                        d.end = Some(EventTime::Floating(day.and_time(t2)));
                        return Some(d);
                    }
                    found = Some(d);
                    found_at = seen;
                }
                (EventTime::Floating(start), Some((t2, None)))
                    if text.trim_start().starts_with(['-', '–', '—']) && t2 > start.time() =>
                {
                    d.end = Some(EventTime::Floating(start.date().and_time(t2)));
                    return Some(d);
                }
                _ => found = Some(d),
            }
            if seen >= found_at + 3 {
                return found;
            }
            continue;
        }
        if let Some(d) = parse_text_date(&start_line(&text), reference, order) {
            if d.end.is_none() {
                found = Some(d);
                found_at = seen;
                continue;
            }
            return Some(d);
        }
    }
    found
}

/// The date a line marked as the day gives after the title (`📅 Viernes 17 de abril`), at
/// the time the first line marked as a time gives (`🕘 Abrimos a las 21 h · arrancan los
/// músicos a las 22 h`: its start, the doors given way) when it has none.
fn marked_date(
    doc: &Html,
    h1: ElementRef<'_>,
    reference: Option<NaiveDate>,
    order: DateOrder,
) -> Option<gleaner_event::datetext::TextDate> {
    let lines: Vec<(Mark, String)> = marked_lines(doc.root_element())
        .into_iter()
        .filter(|(_, el, _)| el.id() > h1.id() && !in_chrome(*el))
        .map(|(m, _, t)| (m, t))
        .collect();
    let mut d = lines
        .iter()
        .filter(|(m, _)| *m == Mark::Date)
        .find_map(|(_, t)| parse_text_date(&start_line(t), reference, order))?;
    if let (EventTime::Date(day), None) = (d.start, d.end)
        && let Some((t1, t2)) = lines
            .iter()
            .filter(|(m, _)| *m == Mark::Time)
            .find_map(|(_, t)| parse_text_time(&start_line(t)))
    {
        d.start = EventTime::Floating(day.and_time(t1));
        d.end = t2.filter(|t2| *t2 > t1).map(|t2| EventTime::Floating(day.and_time(t2)));
    }
    Some(d)
}

/// The place, address and price a root (the page, or one listing item) labels.
pub(super) fn place_and_price(root: ElementRef<'_>, raw: &mut RawEvent) {
    if let Some(address) = root.select(&sel("address")).map(text_of).find(|t| !t.is_empty()) {
        raw.address_text = Some(address);
    }
    // An embedded map titled with its address (page builders title the `<iframe>` of a
    // Google Maps embed with the address it shows).
    if raw.address_text.is_none()
        && let Some(address) = root
            .select(&sel("iframe[src]"))
            .filter(|f| {
                let src = f.value().attr("src").unwrap_or_default().to_ascii_lowercase();
                src.contains("maps.google.") || src.contains("google.com/maps")
            })
            .filter_map(|f| f.value().attr("title").or_else(|| f.value().attr("aria-label")))
            .map(collapse)
            .find(|t| t.contains(',') && t.chars().any(|c| c.is_ascii_digit()) && t.len() <= 200)
    {
        raw.address_text = Some(address);
    }
    // A place line marked by a pictograph: its bold name is the venue, the rest its
    // address.
    if raw.location_name.is_none()
        && raw.location_text.is_none()
        && let Some((_, name, address)) = marked_places(root).into_iter().next()
    {
        match address {
            Some(address) if raw.address_text.is_none() => {
                raw.location_name = Some(name);
                raw.address_text = Some(address);
            }
            _ => raw.location_text = Some(name),
        }
    }
    for (label, _, value) in labelled(root) {
        match label {
            Label::Place if raw.location_text.is_none() => raw.location_text = Some(value),
            Label::Address if raw.address_text.is_none() => raw.address_text = Some(value),
            Label::Price if raw.offers.is_empty() && raw.is_accessible_for_free.is_none() => {
                if let Some(p) = parse_price_text(&value) {
                    price_into(&p, raw);
                }
            }
            _ => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Label {
    Place,
    Address,
    Price,
}

pub(super) fn label_of(word: &str) -> Option<Label> {
    let w =
        gleaner_event::datetext::fold_diacritics(word.trim().trim_end_matches([':', '：']).trim());
    Some(match w.as_str() {
        "venue" | "location" | "where" | "place" | "lieu" | "ort" | "veranstaltungsort"
        | "mekan" | "yer" | "lugar" | "sala" => Label::Place,
        "address" | "adresse" | "direccion" | "adres" | "anschrift" => Label::Address,
        "price" | "prix" | "tarif" | "tarifs" | "preis" | "eintritt" | "precio" | "fiyat"
        | "admission" | "cost" | "fee" | "entree" | "entrada" | "tickets" | "registration"
        | "eintrittspreis" | "ucret" | "giris" | "bilet" | "billets" | "billet" | "billete"
        | "billetes" | "boleto" | "boletos" | "entradas" | "karten" | "ticket" | "precios"
        | "preise" | "tarif unique" => Label::Price,
        _ => return None,
    })
}

/// `Label: value` blocks (in one element, or a label element followed by its value:
/// `<dt>`/`<dd>`, `<th>`/`<td>`, `<strong>Lieu</strong> text`).
pub(super) fn labelled(root: ElementRef<'_>) -> Vec<(Label, ElementRef<'_>, String)> {
    // Lines marked by a pictograph (`📍 Club El Ceibo, Av. Belgrano 1450`, `🎟️ $6.000`).
    let mut out: Vec<(Label, ElementRef<'_>, String)> = marked_lines(root)
        .into_iter()
        .filter(|(mark, _, _)| *mark == Mark::Price)
        .map(|(_, el, text)| (Label::Price, el, text))
        .collect();
    for el in root.select(&sel("p, li, div, dt, th, strong, b, span, label, h3, h4")).take(5000) {
        if el.select(&sel("p, li, div")).next().is_some() {
            continue;
        }
        let text = text_of(el);
        if text.is_empty() || text.len() > 300 {
            continue;
        }
        if let Some((head, rest)) = text.split_once(':')
            && let Some(label) = label_of(head)
        {
            let rest = rest.trim();
            if !rest.is_empty() {
                out.push((label, el, rest.to_owned()));
                continue;
            }
        }
        // A sentence that opens with a label inside a paragraph (`Tüm gösterimler AKM’de.
        // Bilet: 80 TL, öğrenci 40 TL.`): a price, or a place that ends the paragraph
        // (`… non-members £5. Venue: Millbrook Works, Mill Lane, Millbrook.`), capitalised
        // and short.
        if el.value().name() == "p"
            && let Some((label, value)) = text.split(". ").skip(1).find_map(|sentence| {
                let (head, rest) = sentence.split_once(':')?;
                let label = label_of(head)?;
                let rest = rest.trim().trim_end_matches('.');
                let place = label == Label::Place
                    && text.trim_end_matches('.').ends_with(rest)
                    && rest.len() <= 120
                    && rest.starts_with(char::is_uppercase);
                (!rest.is_empty() && (label == Label::Price || place))
                    .then(|| (label, rest.to_owned()))
            })
        {
            out.push((label, el, value));
            continue;
        }
        if let Some(label) = label_of(&text) {
            // The value is the next element sibling (`dd`, `td`) or the parent's rest.
            let next = el.next_siblings().filter_map(ElementRef::wrap).next().map(text_of);
            let value = next.filter(|v| !v.is_empty()).or_else(|| {
                let parent = el.parent().and_then(ElementRef::wrap).map(text_of)?;
                let rest =
                    parent.strip_prefix(text.as_str())?.trim().trim_start_matches(':').trim();
                (!rest.is_empty() && rest.len() <= 200).then(|| rest.to_owned())
            });
            if let Some(v) = value {
                out.push((label, el, v));
            }
        }
    }
    out
}

#[cfg(test)]
mod performance_tests {
    use scraper::Html;

    #[test]
    fn lines_each_wrapped_alone_in_their_list_items() {
        // Issue 24, page 161: a page builder's `<li><p>…</p></li>` performances.
        let doc = Html::parse_document(
            "<html lang=en><body><h1>Cinderella</h1><h4>Performances</h4><ul>\
             <li><p>Friday 4th December, 7.30pm – <a href=\"/t1\">book</a></p></li>\
             <li><p>Saturday 5th December, 2.30pm matinee – <a href=\"/t2\">book</a></p></li>\
             <li><p>Sunday 6th December, 2pm relaxed performance</p></li></ul></body></html>",
        );
        let h1 = doc.select(&super::sel("h1")).next().expect("a title");
        let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 26);
        let starts: Vec<String> = super::performances(&doc, h1, day, Default::default())
            .iter()
            .map(|p| p.start.to_iso())
            .collect();
        assert_eq!(starts, ["2026-12-04T19:30:00", "2026-12-05T14:30:00", "2026-12-06T14:00:00"]);
    }
}

#[cfg(test)]
mod marked_tests {
    use scraper::Html;

    #[test]
    fn a_pages_marked_day_and_time() {
        // Issue 24, page 300: the 📅 and 🕘 lines give the start; the buffet's weekday
        // hours further down do not.
        let doc = Html::parse_document(
            "<html lang=es><body><h1>Peña de Otoño</h1><h3>Datos</h3>\
             <p>📅 <strong>Viernes 17 de abril</strong><br>🕘 Abrimos a las 21 h · arrancan \
             los músicos a las 22 h<br>📍 <strong>Club El Ceibo</strong>, Av. Belgrano 1450</p>\
             <p>Anticipadas en el buffet de lunes a viernes de 10 a 18 h.</p></body></html>",
        );
        let h1 = doc.select(&super::sel("h1")).next();
        let day = chrono::NaiveDate::from_ymd_opt(2026, 3, 20);
        let d = super::written_date(&doc, h1, day, Default::default()).expect("a date");
        assert_eq!(d.start.to_iso(), "2026-04-17T22:00:00");
        assert_eq!(d.end, None);
        let mut raw = gleaner_event::RawEvent::default();
        super::place_and_price(doc.root_element(), &mut raw);
        assert_eq!(raw.location_name.as_deref(), Some("Club El Ceibo"));
        assert_eq!(raw.address_text.as_deref(), Some("Av. Belgrano 1450"));
    }
}

#[cfg(test)]
mod label_tests {
    use super::{Label, labelled};
    use scraper::Html;

    fn labels(html: &str) -> Vec<(Label, String)> {
        let doc = Html::parse_document(html);
        labelled(doc.root_element()).into_iter().map(|(l, _, v)| (l, v)).collect()
    }

    #[test]
    fn a_place_sentence_that_ends_a_paragraph() {
        // Issue 24, page 212.
        assert_eq!(
            labels(
                "<p>Free for members; non-members £5. Venue: Millbrook Works, Mill Lane, \
                 Millbrook.</p>"
            ),
            vec![(Label::Place, "Millbrook Works, Mill Lane, Millbrook".to_owned())]
        );
        // Not in the middle of the paragraph, nor in lower case.
        assert_eq!(labels("<p>Tea served. Where: the hall. Bring a cup.</p>"), vec![]);
        assert_eq!(labels("<p>Tea served. Where: to be announced.</p>"), vec![]);
    }
}

#[cfg(test)]
mod tests {
    use super::{Label, label_of};

    #[test]
    fn price_labels_in_five_languages() {
        for word in [
            "Precio:",
            "Eintritt",
            "Tarif :",
            "Bilet:",
            "Admission",
            "Billete:",
            "Boletos",
            "Entradas:",
            "Karten:",
            "Tarif unique",
            "Preise",
        ] {
            assert_eq!(label_of(word), Some(Label::Price), "{word}");
        }
        for word in ["Entradas recientes", "Kartenvorverkauf ab März", "Ticketing partner"] {
            assert_eq!(label_of(word), None, "{word}");
        }
    }
}
