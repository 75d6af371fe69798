//! Large synthetic pages of each shape, for the order-of-growth test (`tests/scale.rs`) and
//! the 8 MiB benchmark (`benches/scale.rs`). Every event is distinct (own title and date),
//! so nothing merges away and the in-page merge index is exercised in full.

#![allow(dead_code, reason = "each user takes the shapes it needs")]

use std::fmt::Write as _;

fn day(i: usize) -> String {
    format!("2026-{:02}-{:02}T{:02}:30", 1 + i % 12, 1 + i % 28, 10 + i % 12)
}

const DESCRIPTION: &str = "An evening of chamber music with works by Haydn, Mozart and Beethoven; \
doors open an hour before, the bar serves drinks and small plates, and seats are unnumbered.";

fn jsonld_event(i: usize) -> String {
    format!(
        r#"{{"@context":"https://schema.org","@type":"MusicEvent","name":"Concert number {i}","startDate":"{}","eventStatus":"https://schema.org/EventScheduled","url":"https://example.org/events/{i}","location":{{"@type":"Place","name":"Hall {}","address":{{"@type":"PostalAddress","streetAddress":"{} Main Street","addressLocality":"Springfield","addressCountry":"US"}}}},"offers":{{"@type":"Offer","price":"{}.00","priceCurrency":"USD","url":"https://example.org/tickets/{i}"}},"description":"{DESCRIPTION}"}}"#,
        day(i),
        i % 97,
        i % 500,
        10 + i % 40
    )
}

/// One JSON-LD block holding an array of `n` events (about 520 bytes each).
pub fn jsonld_array(n: usize) -> String {
    let mut s = String::from("<!doctype html><html><head><script type=\"application/ld+json\">[");
    for i in 0..n {
        if i > 0 {
            s.push(',');
        }
        s.push_str(&jsonld_event(i));
    }
    s.push_str("]</script></head><body><p>Events</p></body></html>");
    s
}

/// `n` JSON-LD blocks of one event each.
pub fn jsonld_blocks(n: usize) -> String {
    let mut s = String::from("<!doctype html><html><head>");
    for i in 0..n {
        let _ = writeln!(s, "<script type=\"application/ld+json\">{}</script>", jsonld_event(i));
    }
    s.push_str("</head><body></body></html>");
    s
}

/// `n` microdata events (about 560 bytes each).
pub fn microdata(n: usize) -> String {
    let mut s = String::from("<!doctype html><html><body>");
    for i in 0..n {
        let _ = write!(
            s,
            r#"<div itemscope itemtype="https://schema.org/MusicEvent"><a itemprop="url" href="/events/{i}"><span itemprop="name">Concert number {i}</span></a>
<time itemprop="startDate" datetime="{}">soon</time><div itemprop="location" itemscope itemtype="https://schema.org/Place"><span itemprop="name">Hall {}</span>
<div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="streetAddress">{} Main Street</span> <span itemprop="addressLocality">Springfield</span></div></div>
<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="USD"><span itemprop="price">{}.00</span></div><p itemprop="description">{DESCRIPTION}</p></div>
"#,
            day(i),
            i % 97,
            i % 500,
            10 + i % 40
        );
    }
    s.push_str("</body></html>");
    s
}

/// `n` RDFa Lite events.
pub fn rdfa(n: usize) -> String {
    let mut s = String::from("<!doctype html><html><body vocab=\"https://schema.org/\">");
    for i in 0..n {
        let _ = write!(
            s,
            r#"<div typeof="MusicEvent"><a property="url" href="/events/{i}"><span property="name">Concert number {i}</span></a>
<time property="startDate" datetime="{}">soon</time><div property="location" typeof="Place"><span property="name">Hall {}</span>
<div property="address" typeof="PostalAddress"><span property="streetAddress">{} Main Street</span> <span property="addressLocality">Springfield</span></div></div>
<div property="offers" typeof="Offer"><meta property="priceCurrency" content="USD"><span property="price">{}.00</span></div><p property="description">{DESCRIPTION}</p></div>
"#,
            day(i),
            i % 97,
            i % 500,
            10 + i % 40
        );
    }
    s.push_str("</body></html>");
    s
}

/// One event whose description nests `depth` property elements inside each other (each
/// one's text is its whole subtree), closed properly.
pub fn nested_properties(depth: usize) -> String {
    let mut s = String::from(
        r#"<!doctype html><html><body><div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Deep</span><time itemprop="startDate" datetime="2026-05-01T20:00">x</time>"#,
    );
    for _ in 0..depth {
        s.push_str(r#"<div itemprop="description">text "#);
    }
    for _ in 0..depth {
        s.push_str("</div>");
    }
    s.push_str("</div></body></html>");
    s
}

/// An event page whose body is `depth` unclosed nested elements.
pub fn nested_elements(depth: usize) -> String {
    let mut s = String::from(
        r#"<!doctype html><html><body><div itemscope itemtype="https://schema.org/Event"><span itemprop="name">Deep</span><time itemprop="startDate" datetime="2026-05-01T20:00">x</time>"#,
    );
    for _ in 0..depth {
        s.push_str("<div><span>");
    }
    s.push_str("</body></html>");
    s
}

/// A JSON-LD block nesting objects `depth` deep (events inside events).
pub fn nested_jsonld(depth: usize) -> String {
    let mut s = String::from("<script type=\"application/ld+json\">");
    for i in 0..depth {
        let _ = write!(
            s,
            r#"{{"@type":"Event","name":"Level {i}","startDate":"{}","subEvent":"#,
            day(i)
        );
    }
    s.push_str("null");
    for _ in 0..depth {
        s.push('}');
    }
    s.push_str("</script>");
    s
}

/// A page without structured data: one table of `n` rows, each a date, a linked title, a
/// place and a price (about 260 bytes each), for the fallback's listing reader.
pub fn table_rows(n: usize) -> String {
    let mut s =
        String::from("<!doctype html><html lang=\"en-GB\"><body><h1>What's on</h1><table><tbody>");
    for i in 0..n {
        let _ = writeln!(
            s,
            r#"<tr class="event"><td><time datetime="{}">{}</time></td><td><a href="/events/{i}">Concert number {i}</a></td><td>Hall {}, {} Main Street</td><td>£{}</td></tr>"#,
            day(i),
            day(i),
            i % 97,
            i % 500,
            10 + i % 40
        );
    }
    s.push_str("</tbody></table></body></html>");
    s
}

/// A page without structured data: a news post of `n` paragraphs, each announcing an
/// event in a sentence (about 250 bytes each), for the fallback's prose reader.
pub fn prose_paragraphs(n: usize) -> String {
    let mut s = String::from(
        "<!doctype html><html lang=\"en-GB\"><body><article><h1>Coming up this year</h1>",
    );
    for i in 0..n {
        let _ = writeln!(
            s,
            "<p><strong>Concert number {i}</strong> will be held on {} {} 2026 at 7.30pm in Hall {}; \
             join us for an evening of chamber music, tickets £{} at the door.</p>",
            1 + i % 28,
            ["March", "April", "May", "June", "July", "September"][i % 6],
            i % 97,
            10 + i % 40
        );
    }
    s.push_str("</article></body></html>");
    s
}

/// A page without structured data: `n` day headings, each over one paragraph naming an
/// act and its time (about 95 bytes each), for the fallback's day sections (each item
/// looked for its day heading among thousands: a scan per item was quadratic).
pub fn day_sections(n: usize) -> String {
    let mut s = String::from("<!doctype html><html lang=\"de\"><body><main><h1>Programm</h1>");
    for i in 0..n {
        let _ = write!(
            s,
            "<h2>Sa., {}. März 2026</h2><p>19.30 Uhr: Konzert Nummer {i} im Saal {}. Eintritt {} Euro.</p>",
            1 + i % 28,
            i % 9,
            5 + i % 20
        );
    }
    s.push_str("</main></body></html>");
    s
}

/// A page without structured data: `n` `<br>` lines, four to a paragraph, each opened by
/// its day and naming its act in a span styled bold (site builders' markup), for the
/// fallback's `<br>` line and styled bold rewrites (each block found once in the page).
pub fn br_line_paragraphs(n: usize) -> String {
    let mut s = String::from("<!doctype html><html lang=\"es\"><body><main><h1>Cartelera</h1>");
    for i in 0..n / 4 {
        s.push_str("<p>");
        for k in 0..4 {
            let _ = write!(
                s,
                "<b>{}/{}/2026</b> · 21 hrs · <span style=\"font-weight: 700\">Noche {i}-{k}</span> · cover $80<br>",
                1 + (i + k) % 28,
                1 + i % 12
            );
        }
        s.push_str("</p>");
    }
    s.push_str("</main></body></html>");
    s
}
