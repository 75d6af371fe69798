//! HTML pages: venue home pages, listings with pagination, event pages in each markup
//! (JSON-LD single, `@graph` or array; microdata; RDFa; none), terms pages, the town hall's
//! news pages and the press agency's pages.
//!
//! JSON-LD is built with `serde_json` so it is always valid JSON; HTML text is escaped.

use std::fmt::Write as _;

use chrono::{DateTime, Datelike, Timelike};
use chrono_tz::Tz;
use serde_json::{Value, json};

use crate::city::{City, Origins};
use crate::events::{Event, Price, Status, decimal, price_text};
use crate::venues::{Extra, Lang, Markup, Refusal, Site};

/// Events per listing page; more go to `?page=2`.
pub const PER_PAGE: usize = 4;

/// Escapes text for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A date and time the way a local page prints it.
pub(crate) fn human_date(t: DateTime<Tz>, lang: Lang) -> String {
    const EN: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    const TR: [&str; 12] = [
        "Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim",
        "Kasım", "Aralık",
    ];
    const FR: [&str; 12] = [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ];
    const ES: [&str; 12] = [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ];
    const DE: [&str; 12] = [
        "Januar",
        "Februar",
        "März",
        "April",
        "Mai",
        "Juni",
        "Juli",
        "August",
        "September",
        "Oktober",
        "November",
        "Dezember",
    ];
    let m = t.month0() as usize;
    let (d, y, hh, mm) = (t.day(), t.year(), t.hour(), t.minute());
    match lang {
        Lang::En => {
            let (h12, ampm) = match hh {
                0 => (12, "AM"),
                1..=11 => (hh, "AM"),
                12 => (12, "PM"),
                _ => (hh - 12, "PM"),
            };
            format!("{} {d}, {y} at {h12}:{mm:02} {ampm}", EN[m])
        }
        Lang::Tr => format!("{d} {} {y}, {hh:02}:{mm:02}", TR[m]),
        Lang::Fr => format!("{d} {} {y} à {hh}h{mm:02}", FR[m]),
        Lang::Es => format!("{d} de {} de {y}, {hh:02}:{mm:02}", ES[m]),
        Lang::De => format!("{d}. {} {y}, {hh:02}:{mm:02} Uhr", DE[m]),
    }
}

/// The `<head>` of every venue page, with the signals the site sends.
fn head(site: &Site, title: &str, canonical: &str, noindex: bool, extra: &str) -> String {
    let mut robots = Vec::new();
    if noindex {
        robots.push("noindex");
    }
    if site.has(Extra::NoAi) {
        robots.extend(["noai", "noimageai"]);
    }
    let mut out = format!(
        "<!doctype html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<link rel=\"canonical\" href=\"{}\">\n",
        site.lang.code(),
        esc(title),
        esc(canonical)
    );
    if !robots.is_empty() {
        let _ = writeln!(out, "<meta name=\"robots\" content=\"{}\">", robots.join(", "));
    }
    if site.refusal == Some(Refusal::TdmReservation) {
        out.push_str("<meta name=\"tdm-reservation\" content=\"1\">\n");
    }
    out.push_str(extra);
    out.push_str("</head>\n");
    out
}

fn nav(site: &Site) -> String {
    format!(
        "<header><a href=\"/\">{}</a> · <a href=\"{}\">{}</a> · <a href=\"/terms.html\">{}</a>\
         </header>\n",
        esc(site.name),
        site.lang.listing_path(),
        site.lang.events_word(),
        site.lang.terms_word()
    )
}

/// The home page of a venue.
pub(crate) fn venue_home(site: &Site, origins: &Origins, index: usize) -> String {
    let listing = site.lang.listing_path();
    let mut links = format!("<li><a href=\"{listing}\">{}</a></li>", site.lang.events_word());
    if site.has(Extra::RssEvents) {
        let _ = write!(links, "<li><a href=\"{listing}feed.rss\">RSS</a></li>");
    }
    if site.has(Extra::AtomEvents) {
        let _ = write!(links, "<li><a href=\"{listing}feed.atom\">Atom</a></li>");
    }
    if site.has(Extra::JsonApi) {
        links.push_str("<li><a href=\"/api/events.json\">API (JSON)</a></li>");
    }
    let mut alternates = String::new();
    if site.has(Extra::RssEvents) {
        let _ = writeln!(
            alternates,
            "<link rel=\"alternate\" type=\"application/rss+xml\" href=\"{listing}feed.rss\">"
        );
    }
    if site.has(Extra::AtomEvents) {
        let _ = writeln!(
            alternates,
            "<link rel=\"alternate\" type=\"application/atom+xml\" href=\"{listing}feed.atom\">"
        );
    }
    format!(
        "{}<body>\n{}<h1>{}</h1>\n<p>{}</p>\n<img src=\"/img/logo.svg\" alt=\"\" width=\"64\">\n\
         <ul>{links}</ul>\n</body>\n</html>\n",
        head(site, site.name, &origins.url(index, "/"), false, &alternates),
        nav(site),
        esc(site.name),
        esc(&site.address_line())
    )
}

/// A listing page (`page` from 1); `None` past the last page.
pub(crate) fn listing(
    site: &Site,
    origins: &Origins,
    index: usize,
    events: &[Event],
    page: usize,
) -> Option<String> {
    let pages = events.len().div_ceil(PER_PAGE).max(1);
    if page == 0 || page > pages {
        return None;
    }
    let items = &events[(page - 1) * PER_PAGE..(page * PER_PAGE).min(events.len())];
    let listing = site.lang.listing_path();
    let canonical = if page == 1 {
        origins.url(index, listing)
    } else {
        origins.url(index, &format!("{listing}?page={page}"))
    };
    let mut pager = String::new();
    if page > 1 {
        let prev =
            if page == 2 { listing.to_owned() } else { format!("{listing}?page={}", page - 1) };
        let _ = writeln!(pager, "<link rel=\"prev\" href=\"{prev}\">");
    }
    if page < pages {
        let _ = writeln!(pager, "<link rel=\"next\" href=\"{listing}?page={}\">", page + 1);
    }
    let title = format!("{} – {}", site.lang.events_word(), site.name);
    let mut body = format!(
        "{}<body>\n{}<h1>{}</h1>\n",
        head(site, &title, &canonical, false, &pager),
        nav(site),
        esc(&title)
    );
    let labels = site.lang.labels();
    let table = site.markup == Markup::Plain && matches!(site.lang, Lang::Fr | Lang::De);
    if table {
        let _ = writeln!(
            body,
            "<table class=\"agenda\">\n<thead><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th>\
             </tr></thead>\n<tbody>",
            labels[0],
            if site.lang == Lang::De { "Veranstaltung" } else { "Spectacle" },
            labels[2],
            labels[3]
        );
        for e in items {
            let _ = writeln!(
                body,
                "<tr class=\"event-row\"><td class=\"event-date\"><time datetime=\"{}\">{}</time>\
                 </td><td class=\"event-title\"><a href=\"{}\">{}</a></td>\
                 <td class=\"event-price\">{}</td><td class=\"event-status\">{}</td></tr>",
                e.start.to_rfc3339(),
                human_date(e.start, site.lang),
                e.path,
                esc(&e.title),
                esc(&price_text(e.price, site.lang)),
                e.status.word(site.lang)
            );
        }
        body.push_str("</tbody>\n</table>\n");
    } else {
        body.push_str("<div class=\"cards\">\n");
        for e in items {
            let _ = writeln!(
                body,
                "<article class=\"event-card\"><img src=\"{}\" alt=\"\" width=\"120\">\
                 <h2 class=\"event-title\"><a href=\"{}\">{}</a></h2>\
                 <p class=\"event-date\"><time datetime=\"{}\">{}</time></p>\
                 <p class=\"event-price\">{}</p>{}</article>",
                e.image,
                e.path,
                esc(&e.title),
                e.start.to_rfc3339(),
                human_date(e.start, site.lang),
                esc(&price_text(e.price, site.lang)),
                if e.status == Status::Scheduled {
                    String::new()
                } else {
                    format!("<p class=\"event-status\">{}</p>", e.status.word(site.lang))
                }
            );
        }
        body.push_str("</div>\n");
    }
    if page < pages {
        let _ = writeln!(
            body,
            "<nav class=\"pager\"><a rel=\"next\" href=\"{listing}?page={}\">{}</a></nav>",
            page + 1,
            site.lang.next_word()
        );
    }
    body.push_str("</body>\n</html>\n");
    Some(body)
}

fn postal_address(site: &Site) -> Value {
    json!({
        "@type": "PostalAddress",
        "streetAddress": site.street,
        "postalCode": site.postal_code,
        "addressLocality": site.locality,
        "addressCountry": site.country,
    })
}

fn place(site: &Site) -> Value {
    json!({ "@type": "Place", "name": site.name, "address": postal_address(site) })
}

fn offers(site: &Site, e: &Event) -> Value {
    let tickets = format!("https://tickets.sample-city.example/{}/{}", site.key, e.number);
    match e.price {
        Price::Free => json!({
            "@type": "Offer", "price": "0", "priceCurrency": site.currency,
            "availability": "https://schema.org/InStock",
        }),
        Price::Fixed(p) => json!({
            "@type": "Offer", "price": decimal(p), "priceCurrency": site.currency,
            "url": tickets, "availability": "https://schema.org/InStock",
        }),
        Price::Range(lo, hi) => json!({
            "@type": "AggregateOffer", "lowPrice": decimal(lo), "highPrice": decimal(hi),
            "priceCurrency": site.currency, "offerCount": 3, "url": tickets,
        }),
    }
}

/// The schema.org object of one event (without `@context`).
pub(crate) fn event_json(site: &Site, origins: &Origins, index: usize, e: &Event) -> Value {
    let url = origins.url(index, &e.path);
    let mut v = json!({
        "@type": e.schema_type,
        "name": e.title,
        "description": e.description,
        "startDate": e.start.to_rfc3339(),
        "eventStatus": e.status.schema_url(),
        "inLanguage": site.lang.code(),
        "url": url,
        "image": origins.url(index, &e.image),
        "offers": offers(site, e),
        "organizer": { "@type": "Organization", "name": site.name, "url": origins.url(index, "/") },
    });
    if let Some(end) = e.end {
        v["endDate"] = json!(end.to_rfc3339());
    }
    if let Some(prev) = e.previous_start {
        v["previousStartDate"] = json!(prev.to_rfc3339());
    }
    if e.price == Price::Free {
        v["isAccessibleForFree"] = json!(true);
    }
    if e.status == Status::MovedOnline {
        v["eventAttendanceMode"] = json!("https://schema.org/OnlineEventAttendanceMode");
        v["location"] = json!([
            { "@type": "VirtualLocation", "url": origins.url(index, &format!("/live/{}", e.number)) },
            place(site),
        ]);
    } else {
        v["eventAttendanceMode"] = json!("https://schema.org/OfflineEventAttendanceMode");
        v["location"] = place(site);
    }
    v
}

fn json_ld(site: &Site, origins: &Origins, index: usize, e: &Event) -> String {
    let mut event = event_json(site, origins, index, e);
    let doc = match site.markup {
        Markup::JsonLdGraph => {
            let org_id = origins.url(index, "/#organization");
            event["organizer"] = json!({ "@id": org_id });
            json!({
                "@context": "https://schema.org",
                "@graph": [
                    { "@type": "Organization", "@id": org_id, "name": site.name,
                      "url": origins.url(index, "/") },
                    { "@type": "WebPage", "@id": origins.url(index, &e.path), "name": e.title },
                    event,
                ]
            })
        }
        Markup::JsonLdArray => {
            event["@context"] = json!("https://schema.org");
            json!([
                {
                    "@context": "https://schema.org",
                    "@type": "BreadcrumbList",
                    "itemListElement": [
                        { "@type": "ListItem", "position": 1, "name": site.name,
                          "item": origins.url(index, "/") },
                        { "@type": "ListItem", "position": 2, "name": site.lang.events_word(),
                          "item": origins.url(index, site.lang.listing_path()) },
                    ]
                },
                event,
            ])
        }
        _ => {
            let mut doc = json!({ "@context": "https://schema.org" });
            if let (Some(d), Some(o)) = (doc.as_object_mut(), event.as_object()) {
                d.extend(o.clone());
            }
            doc
        }
    };
    // `</` cannot appear inside a script element.
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default().replace("</", "<\\/");
    format!("<script type=\"application/ld+json\">\n{text}\n</script>\n")
}

/// The visible facts block, annotated per `mode` ("" none, "micro", "rdfa").
fn facts(site: &Site, origins: &Origins, index: usize, e: &Event, mode: &str) -> String {
    let lang = site.lang;
    let labels = lang.labels();
    let scope = |ty: &str, prop: Option<&str>| -> String {
        match (mode, prop) {
            ("micro", Some(p)) => {
                format!(" itemprop=\"{p}\" itemscope itemtype=\"https://schema.org/{ty}\"")
            }
            ("micro", None) => format!(" itemscope itemtype=\"https://schema.org/{ty}\""),
            ("rdfa", Some(p)) => format!(" property=\"{p}\" typeof=\"{ty}\""),
            ("rdfa", None) => format!(" vocab=\"https://schema.org/\" typeof=\"{ty}\""),
            _ => String::new(),
        }
    };
    let prop = |p: &str| -> String {
        match mode {
            "micro" => format!(" itemprop=\"{p}\""),
            "rdfa" => format!(" property=\"{p}\""),
            _ => String::new(),
        }
    };
    let meta = |p: &str, content: &str| -> String {
        match mode {
            "micro" => format!("<meta itemprop=\"{p}\" content=\"{}\">", esc(content)),
            "rdfa" => format!("<meta property=\"{p}\" content=\"{}\">", esc(content)),
            _ => String::new(),
        }
    };
    let link = |p: &str, href: &str| -> String {
        match mode {
            "micro" => format!("<link itemprop=\"{p}\" href=\"{href}\">"),
            "rdfa" => format!("<link property=\"{p}\" href=\"{href}\">"),
            _ => String::new(),
        }
    };
    let mut out = format!("<article class=\"event\"{}>\n", scope(e.schema_type, None));
    let _ = writeln!(out, "<h1 class=\"event-title\"{}>{}</h1>", prop("name"), esc(&e.title));
    let _ = writeln!(
        out,
        "<p class=\"event-date\">{}: <time datetime=\"{}\">{}</time>{}{}</p>",
        labels[0],
        e.start.to_rfc3339(),
        human_date(e.start, lang),
        meta("startDate", &e.start.to_rfc3339()),
        e.end.map(|end| meta("endDate", &end.to_rfc3339())).unwrap_or_default()
    );
    if let Some(previous) = e.previous_start {
        out.push_str(&meta("previousStartDate", &previous.to_rfc3339()));
        out.push('\n');
    }
    if !mode.is_empty() {
        out.push_str(&link("eventStatus", e.status.schema_url()));
        out.push('\n');
        out.push_str(&meta("url", &origins.url(index, &e.path)));
        out.push('\n');
    }
    if e.status != Status::Scheduled {
        let _ = writeln!(
            out,
            "<p class=\"event-status\">{}: <strong>{}</strong></p>",
            labels[3],
            e.status.word(lang)
        );
    }
    let _ = writeln!(
        out,
        "<div class=\"event-venue\"{}>{}: <span{}>{}</span>\n\
         <div class=\"event-address\"{}><span{}>{}</span>, <span{}>{}</span> \
         <span{}>{}</span>{}</div>\n</div>",
        scope("Place", Some("location")),
        labels[1],
        prop("name"),
        esc(site.name),
        scope("PostalAddress", Some("address")),
        prop("streetAddress"),
        esc(site.street),
        prop("postalCode"),
        esc(site.postal_code),
        prop("addressLocality"),
        esc(site.locality),
        meta("addressCountry", site.country)
    );
    let offer = match (mode, e.price) {
        ("", _) => String::new(),
        (_, Price::Range(lo, hi)) => format!(
            "<span{}>{}{}{}</span>",
            scope("AggregateOffer", Some("offers")),
            meta("lowPrice", &decimal(lo)),
            meta("highPrice", &decimal(hi)),
            meta("priceCurrency", site.currency)
        ),
        (_, p) => format!(
            "<span{}>{}{}</span>",
            scope("Offer", Some("offers")),
            meta("price", &decimal(p.min_minor())),
            meta("priceCurrency", site.currency)
        ),
    };
    let free =
        if e.price == Price::Free { meta("isAccessibleForFree", "true") } else { String::new() };
    let _ = writeln!(
        out,
        "<p class=\"event-price\">{}: {}{offer}{free}</p>",
        labels[2],
        esc(&price_text(e.price, lang))
    );
    let _ = writeln!(
        out,
        "<p class=\"event-description\"{}>{}</p>",
        prop("description"),
        esc(&e.description)
    );
    let _ = writeln!(
        out,
        "<img class=\"event-image\"{} src=\"{}\" alt=\"\" width=\"320\">",
        prop("image"),
        e.image
    );
    out.push_str("</article>\n");
    out
}

/// An event page in the venue's markup.
pub(crate) fn event_page(site: &Site, origins: &Origins, index: usize, e: &Event) -> String {
    let canonical = origins.url(index, &e.path);
    let (extra_head, mode) = match site.markup {
        Markup::JsonLd | Markup::JsonLdGraph | Markup::JsonLdArray => {
            (json_ld(site, origins, index, e), "")
        }
        Markup::Microdata => (String::new(), "micro"),
        Markup::Rdfa => (String::new(), "rdfa"),
        Markup::Plain | Markup::ICalendar => (String::new(), ""),
    };
    format!(
        "{}<body>\n{}{}<p><a href=\"{}\">{}</a></p>\n</body>\n</html>\n",
        head(site, &e.title, &canonical, e.noindex, &extra_head),
        nav(site),
        facts(site, origins, index, e, mode),
        site.lang.listing_path(),
        site.lang.events_word()
    )
}

/// The venue's public terms page (archived by FestroBot-like profiles).
pub(crate) fn terms(site: &Site, origins: &Origins, index: usize) -> String {
    let text = match site.lang {
        Lang::En => {
            "Listings on this site may be quoted with a link back. Automated access must identify itself and respect robots.txt."
        }
        Lang::Tr => {
            "Bu sitedeki etkinlik bilgileri kaynak gösterilerek paylaşılabilir. Otomatik erişim robots.txt kurallarına uymalıdır."
        }
        Lang::Fr => {
            "Les informations de l'agenda peuvent être reprises avec un lien vers cette page. Les robots doivent s'identifier et respecter le fichier robots.txt."
        }
        Lang::Es => {
            "La información de la agenda puede citarse con un enlace a esta página. El acceso automatizado debe identificarse y respetar robots.txt."
        }
        Lang::De => {
            "Veranstaltungsangaben dürfen mit Quellenangabe übernommen werden. Automatisierte Zugriffe müssen sich ausweisen und robots.txt beachten."
        }
    };
    let tdm = if site.refusal == Some(Refusal::TdmReservation) {
        "<p>Réservation des droits de fouille de textes et de données (article L122-5-3 du code de la propriété intellectuelle) : voir /.well-known/tdmrep.json.</p>\n"
    } else {
        ""
    };
    format!(
        "{}<body>\n{}<h1>{}</h1>\n<p>{}</p>\n{tdm}</body>\n</html>\n",
        head(site, site.lang.terms_word(), &origins.url(index, "/terms.html"), false, ""),
        nav(site),
        site.lang.terms_word(),
        text
    )
}

/// A plain page for a non-venue host (town hall, press agency, open data).
pub(crate) fn simple_page(lang: Lang, title: &str, body_html: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"{}\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n\
         </head>\n<body>\n<h1>{}</h1>\n{body_html}</body>\n</html>\n",
        lang.code(),
        esc(title),
        esc(title)
    )
}

/// The press agency's press page: images and the terms that govern them.
pub(crate) fn press_page(origins: &Origins, index: usize) -> String {
    let img = |path: &str, caption: &str| {
        format!(
            "<figure><img src=\"{}\" alt=\"{}\" width=\"240\"><figcaption>{} — © Agence Presse Locale</figcaption></figure>\n",
            origins.url(index, path),
            esc(caption),
            esc(caption)
        )
    };
    let body = format!(
        "<p>Conditions d'utilisation des images de presse : les photographies ci-dessous peuvent \
         être reproduites gratuitement pour illustrer un article sur l'événement qu'elles \
         montrent, avec la mention « © Agence Presse Locale ». Toute autre utilisation, \
         l'archivage et l'entraînement de modèles d'intelligence artificielle sont interdits \
         (voir <a href=\"/conditions.html\">conditions</a>, <a href=\"/ai.txt\">ai.txt</a> et \
         <a href=\"/.well-known/tdmrep.json\">tdmrep.json</a>).</p>\n\
         <p lang=\"en\">Press images: free to reproduce to illustrate an article about the event \
         shown, credited « © Agence Presse Locale »; no other use, no archiving, no AI training.</p>\n\
         {}{}{}{}",
        img("/img/photo-max-age.jpg", "Marché de Noël, place de l'Hôtel de Ville"),
        img("/img/photo-no-store.jpg", "Répétition au Théâtre des Halles"),
        img("/img/photo-private.png", "Vernissage à l'Espace culturel de la Seine"),
        img("/img/logo.svg", "Logo de l'agence")
    );
    simple_page(Lang::Fr, "Espace presse", &body)
}

/// The press agency's public terms.
pub(crate) fn press_terms() -> String {
    simple_page(
        Lang::Fr,
        "Conditions générales d'utilisation",
        "<p>Les contenus de ce site sont protégés. La reproduction des images est limitée à \
         l'illustration d'articles d'actualité, avec mention de la source. La fouille de textes \
         et de données est réservée pour les archives (TDMRep). Contact : \
         presse@agence-presse-locale.example.</p>\n",
    )
}

/// Days-and-time a news item was published: `days` ago at 09:30 local.
pub(crate) fn news_time(city: &City, zone: Tz, days: u64) -> DateTime<Tz> {
    let t = crate::events::local_at(city.now(), zone, 0, 9, 30);
    t - chrono::Duration::days(days as i64)
}
