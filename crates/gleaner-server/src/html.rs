//! The HTML event list (`/events`) and event view (`/events/{id}`): the link back to
//! the page the event was read from, the last-checked time, and "how this event got
//! here" (source, fetch times, the robots.txt version that allowed the fetch, the
//! extractor). Every text goes through [`escape`]; links are written only for http(s)
//! addresses, so a crawled `javascript:` URL never becomes a link. Pages carry a
//! Content-Security-Policy-compatible shape: no inline script at all.

use std::fmt::Write;

use gleaner_config::Settings;

use crate::about::escape;
use crate::api::{EventPage, EventQuery, site_of};
use crate::encode::safe_url;
use crate::i18n::Lang;
use crate::{ApiEvent, EventDetail, dates};

/// The shared style sheet (inline, so pages stand alone).
pub const CSS: &str = "body{font-family:system-ui,sans-serif;max-width:60rem;margin:1rem auto;padding:0 1rem;line-height:1.45;color:#1b1b1b}\
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}\
pre{background:#f4f4f4;padding:.5rem;white-space:pre-wrap}nav{font-size:.9rem;margin-bottom:1rem}\
.meta{color:#555;font-size:.9rem}form label{margin-right:.6rem}";

fn head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{}</title>\
         <style>{CSS}</style></head><body>\n<nav><a href=\"/events\">Events</a> · \
         <a href=\"/events.ics\">iCalendar</a> · <a href=\"/events.rss\">RSS</a> · \
         <a href=\"/bot\">About the bot</a></nav>\n",
        escape(title)
    )
}

fn link(url: &str, text: &str) -> String {
    match safe_url(url) {
        Some(url) => format!(
            "<a href=\"{}\" rel=\"nofollow noopener noreferrer\">{}</a>",
            escape(url),
            escape(text)
        ),
        None => escape(text),
    }
}

/// The event's dates in words inside `<time datetime>`; the text as given (or "date not
/// given") when the start cannot be read.
fn when(settings: &Settings, lang: Lang, event: &ApiEvent) -> String {
    let zone = dates::zone_of(settings, event);
    let start = event.facts.start.as_deref();
    let Some(shown) = start.and_then(|s| dates::event_time(s, zone)) else {
        return escape(start.unwrap_or(dates::no_date(lang)));
    };
    let end = event.facts.end.as_deref().and_then(|e| dates::event_time(e, zone));
    time_element(start.unwrap_or_default(), &dates::span(lang, &shown, end.as_ref()))
}

fn time_element(machine: &str, text: &str) -> String {
    format!("<time datetime=\"{}\">{}</time>", escape(machine), escape(text))
}

/// A stamp (first seen, last checked) in the event's zone, in words.
fn stamp(settings: &Settings, lang: Lang, event: &ApiEvent, rfc3339: &str) -> String {
    match dates::instant(rfc3339, dates::zone_of(settings, event)) {
        Some(shown) => time_element(rfc3339, &dates::full(lang, &shown)),
        None => escape(rfc3339),
    }
}

fn place(event: &ApiEvent) -> String {
    let f = &event.facts;
    [f.venue_name.as_deref(), f.street.as_deref(), f.locality.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

/// The list page, grouped by day (in each event's zone), dates in `lang`.
pub fn list(settings: &Settings, lang: Lang, query: &EventQuery, page: &EventPage) -> String {
    let mut html = head(&format!("Events — {}", settings.bot.operator));
    let _ = writeln!(html, "<h1>Events</h1>");
    let value = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
    let date = |d: Option<chrono::NaiveDate>| d.map(|d| d.to_string()).unwrap_or_default();
    let _ = writeln!(
        html,
        "<form method=\"get\" action=\"/events\">\
         <label>From <input type=\"date\" name=\"from\" value=\"{}\"></label>\
         <label>To <input type=\"date\" name=\"to\" value=\"{}\"></label>\
         <label>Category <input name=\"category\" value=\"{}\"></label>\
         <label>Town <input name=\"locality\" value=\"{}\"></label>\
         <label>Site <input name=\"site\" value=\"{}\"></label>\
         <button>Filter</button></form>",
        date(query.from),
        date(query.to),
        value(&query.category),
        value(&query.locality),
        value(&query.site),
    );
    let _ = writeln!(html, "<p class=\"meta\" id=\"count\">{} event(s)</p>", page.total);
    html.push_str("<table id=\"events\"><tr><th>When</th><th>What</th><th>Where</th><th>Site</th><th>Category</th><th>Last checked</th></tr>\n");
    let mut day: Option<Option<chrono::NaiveDate>> = None;
    for event in &page.events {
        let zone = dates::zone_of(settings, event);
        let start = event.facts.start.as_deref().and_then(|s| dates::event_time(s, zone));
        let end = event.facts.end.as_deref().and_then(|e| dates::event_time(e, zone));
        let this_day = start.as_ref().map(dates::Shown::date);
        if day != Some(this_day) {
            day = Some(this_day);
            let heading = match this_day {
                Some(d) => {
                    format!("<time datetime=\"{d}\">{}</time>", escape(&dates::date_long(lang, d)))
                }
                None => escape(dates::no_date(lang)),
            };
            let _ = writeln!(html, "<tr class=\"day\"><th colspan=\"6\">{heading}</th></tr>");
        }
        let when = match (&start, event.facts.start.as_deref()) {
            (Some(shown), Some(machine)) => {
                time_element(machine, &dates::within_day(lang, shown, end.as_ref()))
            }
            _ => String::new(),
        };
        let title = event.facts.title.as_deref().unwrap_or("(untitled)");
        let _ = writeln!(
            html,
            "<tr class=\"event\"><td>{when}</td><td><a href=\"/events/{}\">{}</a>{}</td><td>{}</td><td class=\"site\">{}</td><td>{}</td><td>{}</td></tr>",
            event.id,
            escape(title),
            match event.facts.status {
                Some(status) if status != "scheduled" =>
                    format!(" <strong>({})</strong>", escape(status)),
                _ => String::new(),
            },
            escape(&place(event)),
            escape(&site_of(event).unwrap_or_default()),
            escape(&event.category),
            stamp(settings, lang, event, &event.last_checked),
        );
    }
    html.push_str("</table>\n");
    if query.page > 1 {
        let _ = write!(
            html,
            "<a rel=\"prev\" href=\"/events?{}\">← previous</a> ",
            escape(&query.to_query_string(query.page - 1))
        );
    }
    if page.has_next {
        let _ = write!(
            html,
            "<a rel=\"next\" href=\"/events?{}\">next →</a>",
            escape(&query.to_query_string(query.page + 1))
        );
    }
    html.push_str("\n</body></html>\n");
    html
}

/// The event view, dates in `lang`.
pub fn view(settings: &Settings, lang: Lang, detail: &EventDetail) -> String {
    let event = &detail.event;
    let f = &event.facts;
    let title = f.title.as_deref().unwrap_or("(untitled)");
    let mut html = head(&format!("{title} — {}", settings.bot.operator));
    let _ = writeln!(html, "<article id=\"event\"><h1 id=\"title\">{}</h1>", escape(title));
    html.push_str("<table>\n");
    let mut row = |label: &str, value: String| {
        let _ = writeln!(html, "<tr><th>{}</th><td>{value}</td></tr>", escape(label));
    };
    row("When", when(settings, lang, event));
    let place = place(event);
    if !place.is_empty() {
        row("Where", escape(&place));
    }
    if let Some(status) = f.status {
        row("Status", escape(status));
    }
    match (f.is_free, &f.price_min, &f.price_max, &f.currency) {
        (Some(true), ..) => row("Price", "free".to_owned()),
        (_, Some(min), max, currency) => {
            let mut price = min.clone();
            if let Some(max) = max.as_ref().filter(|m| *m != min) {
                price = format!("{price}–{max}");
            }
            if let Some(currency) = currency {
                price = format!("{price} {currency}");
            }
            row("Price", escape(&price));
        }
        _ => {}
    }
    if let Some(ticket) = &f.ticket_url {
        row("Tickets", link(ticket, ticket));
    }
    row("Category", escape(&event.category));
    row("Read at", link(&event.source_url, &event.source_url));
    if let Some(site) = site_of(event) {
        row("Site", escape(&site));
    }
    row("First seen", stamp(settings, lang, event, &event.first_seen));
    row(
        "Last checked",
        format!(
            "<span id=\"last-checked\">{}</span>",
            stamp(settings, lang, event, &event.last_checked)
        ),
    );
    html.push_str("</table>\n");
    if let Some(description) = &f.description {
        let _ = writeln!(html, "<p id=\"description\">{}</p>", escape(description));
    }
    if let Some(image) = f.image_url.as_deref().and_then(safe_url) {
        let _ = writeln!(html, "<p class=\"meta\">Image: {}</p>", link(image, image));
    }
    let _ = writeln!(
        html,
        "<p>The facts above were read from {}; that page is the reference.</p>",
        link(&event.source_url, "the organiser's page")
    );
    if let Some(t) = &detail.translation {
        // The original is above; the machine translation beside it, marked as such.
        let _ = writeln!(
            html,
            "<section id=\"translation\" lang=\"{}\"><h2>Machine translation ({})</h2>",
            escape(&t.lang),
            escape(&t.lang)
        );
        if let Some(title) = &t.title {
            let _ = writeln!(html, "<p class=\"translated-title\">{}</p>", escape(title));
        }
        if let Some(description) = &t.description {
            let _ =
                writeln!(html, "<p class=\"translated-description\">{}</p>", escape(description));
        }
        html.push_str("</section>\n");
    }
    html.push_str("<section id=\"provenance\"><h2>How this event got here</h2>\n");
    let _ = writeln!(
        html,
        "<p>Source: <code>{}</code>. Read by {} with the User-Agent <code>{}</code>.</p>",
        escape(&event.source),
        escape(&settings.bot.token),
        escape(&settings.bot.user_agent())
    );
    if detail.provenance.is_empty() {
        html.push_str("<p>No fetch record is available for this event.</p>\n");
    } else {
        html.push_str("<table id=\"fetches\"><tr><th>Source</th><th>Fetched</th><th>Address</th><th>robots.txt that allowed it</th><th>Extractor</th><th>Fields it gave</th></tr>\n");
        for fetch in &detail.provenance {
            let robots = match (&fetch.robots_version, &fetch.robots_url) {
                (Some(version), Some(url)) => {
                    format!("{} (version first read {})", link(url, url), escape(version))
                }
                (Some(version), None) => format!("version first read {}", escape(version)),
                _ => "no archived version".to_owned(),
            };
            // Fetches stored before the extractor was recorded say so; new ones name it.
            let extractor = fetch.extractor.as_deref().unwrap_or("not recorded");
            let fields =
                if fetch.fields.is_empty() { "—".to_owned() } else { fetch.fields.join(", ") };
            let _ = writeln!(
                html,
                "<tr class=\"fetch\"><td class=\"source\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"extractor\">{}</td><td class=\"fields\">{}</td></tr>",
                escape(fetch.source.as_deref().unwrap_or("—")),
                escape(&fetch.fetched_at),
                link(&fetch.url, &fetch.url),
                robots,
                escape(extractor),
                escape(&fields),
            );
        }
        html.push_str("</table>\n");
    }
    if !detail.models.is_empty() {
        html.push_str("<h3>Language model</h3><ul>\n");
        for m in &detail.models {
            let _ = writeln!(
                html,
                "<li>{}: {} (prompt {})</li>",
                escape(&m.step),
                escape(&m.model),
                escape(&m.prompt_version)
            );
        }
        html.push_str("</ul>\n");
    }
    if !detail.history.is_empty() {
        html.push_str("<h3>Status history</h3><ul>\n");
        for change in &detail.history {
            let _ = writeln!(html, "<li>{}: {}</li>", escape(&change.at), escape(&change.status));
        }
        html.push_str("</ul>\n");
    }
    html.push_str("</section></article>\n</body></html>\n");
    html
}
