//! The about page (`/bot`), generated from the running settings: who runs the bot, how
//! to recognise it, what it reads and never does, what it keeps and for how long, every
//! politeness number, the rights signals it honours, and how to say no. Numbers are read
//! from [`Settings`], never typed, so the page cannot drift from behaviour (AubeActuBot:
//! "this page reads them from its configuration, it does not copy them"). English only
//! for now; the public-face issue adds Turkish, French, Spanish and German.

use std::fmt::Write;
use std::time::Duration;

use gleaner_config::Settings;
use gleaner_config::settings::OnReservation;
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::OnUnauthorized;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A duration in words (`1s`, `2h`, `30days`).
pub fn words(d: Duration) -> String {
    if d.is_zero() {
        return "0 s".to_owned();
    }
    humantime::format_duration(d).to_string()
}

/// The politeness facts of the page as (label, value) rows, also served as JSON.
pub fn facts(settings: &Settings) -> Vec<(String, String)> {
    let p = &settings.politeness;
    let mut rows = vec![
        ("User-Agent".to_owned(), settings.bot.user_agent()),
        ("robots.txt product token".to_owned(), settings.bot.token.clone()),
        ("Time between two requests to one site (any purpose)".to_owned(), words(p.gap)),
        ("Requests open at once to one site".to_owned(), p.max_in_flight.to_string()),
        ("Requests per day, all sites together".to_owned(), p.global_daily_cap.to_string()),
        (
            "After a 429 or 503 without a usable Retry-After".to_owned(),
            format!("the whole site is paused for {}", words(p.retry_after_default)),
        ),
        ("Longest pause a Retry-After can ask for".to_owned(), words(p.retry_after_cap)),
        (
            "After a 401 or 403 on a page".to_owned(),
            format!("the site is left alone for {}", words(p.block_duration)),
        ),
        ("Connect timeout".to_owned(), words(settings.limits.connect_timeout)),
        ("Whole-response deadline".to_owned(), words(settings.limits.response_deadline)),
        (
            "Largest document read".to_owned(),
            format!("{} bytes (larger ones are abandoned)", settings.limits.max_body_bytes),
        ),
        ("Redirect hops followed".to_owned(), settings.limits.max_redirects.to_string()),
        ("robots.txt kept for".to_owned(), words(settings.robots.ttl)),
        (
            "robots.txt answering 401 or 403".to_owned(),
            match settings.robots.on_unauthorized {
                OnUnauthorized::AllowAll => "treated as no restrictions (RFC 9309)".to_owned(),
                OnUnauthorized::Block => "treated as a refusal: nothing is read".to_owned(),
            },
        ),
        (
            "Most frequent visit of one source".to_owned(),
            format!("once every {}", words(p.min_source_interval)),
        ),
    ];
    for (purpose, pp) in &p.purpose {
        if let Some(gap) = pp.gap {
            rows.push((format!("Time between requests, {purpose}"), words(gap.max(p.gap))));
        }
        if let Some((min, max)) = pp.jitter {
            rows.push((
                format!("Random extra wait, {purpose}"),
                format!("{} to {}", words(min), words(max)),
            ));
        }
        if let Some(n) = pp.max_in_flight {
            rows.push((format!("Requests open at once, {purpose}"), n.to_string()));
        }
    }
    for class in settings.site_classes.values() {
        let mut parts = vec![
            format!("time zone {}", class.time_zone),
            format!("{} between requests", words(class.gap)),
        ];
        if !class.quiet_hours.is_empty() {
            let windows: Vec<String> = class
                .quiet_hours
                .iter()
                .map(|q| format!("{}–{}", q.start.format("%H:%M"), q.end.format("%H:%M")))
                .collect();
            parts.push(format!("no request starts during {} local time", windows.join(" and ")));
        }
        if let Some(n) = class.requests_per_pass {
            parts.push(format!("at most {n} requests per visit"));
        }
        if let Some(n) = class.requests_per_hour {
            parts.push(format!("{n} per hour"));
        }
        if let Some(n) = class.requests_per_day {
            parts.push(format!("{n} per day"));
        }
        if let Some(n) = class.visits_per_day {
            parts.push(format!("{n} visits per day"));
        }
        if let Some(d) = class.min_pass_interval {
            parts.push(format!("at most one visit every {}", words(d)));
        }
        rows.push((format!("Sites of class “{}”", class.name), parts.join("; ")));
    }
    let r = &settings.retention;
    rows.push((
        "Fetched pages kept".to_owned(),
        if r.bodies.is_zero() {
            "not kept: deleted right after reading".to_owned()
        } else {
            format!("{} at most", words(r.bodies))
        },
    ));
    rows.push(("Events kept after they end".to_owned(), words(r.events_after_end)));
    rows
}

/// Renders the page.
pub fn render(settings: &Settings) -> String {
    let bot = &settings.bot;
    let token = escape(&bot.token);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>About {token}</title>\
         <meta name=\"viewport\" content=\"width=device-width\"></head><body>\n<h1>About {token}</h1>\n\
         <p>{token} is the web crawler of {operator}. It reads public event listings so that people can find \
         what is on; every event links back to the page it was read from.</p>\n",
        operator = escape(&bot.operator)
    );
    html.push_str("<h2>How to recognise it</h2>\n<p>Every request carries this User-Agent, never another:</p>\n");
    let _ = writeln!(html, "<pre id=\"user-agent\">{}</pre>", escape(&bot.user_agent()));
    let _ = writeln!(
        html,
        "<p>In robots.txt it follows the rules written for <code>{token}</code>, else those for <code>*</code>.</p>"
    );
    html.push_str("<h2>What it reads</h2>\n<ul>\n");
    let purposes: Vec<&str> = settings
        .purposes
        .enabled
        .iter()
        .filter(|p| **p != Purpose::Robots)
        .map(|p| p.as_str())
        .collect();
    let _ = writeln!(
        html,
        "<li>robots.txt first, before anything else on a site; then: {}.</li>",
        escape(&purposes.join(", "))
    );
    let methods = if settings.purposes.head_allowed { "GET and HEAD" } else { "GET only" };
    let _ = writeln!(html, "<li>Requests: {methods}.</li>");
    html.push_str("</ul>\n<h2>What it never does</h2>\n<ul>\n<li>It does not log in, fill in forms, run JavaScript or solve CAPTCHAs; a challenge page is a refusal.</li>\n\
                   <li>It sends no cookies and no Referer, and never presents itself as a browser.</li>\n\
                   <li>While a site's robots.txt cannot be read, it reads nothing else from that site.</li>\n</ul>\n");
    html.push_str("<h2>How polite it is</h2>\n<table id=\"politeness\">\n");
    for (label, value) in facts(settings) {
        let _ = writeln!(html, "<tr><th>{}</th><td>{}</td></tr>", escape(&label), escape(&value));
    }
    html.push_str("</table>\n<h2>Rights signals</h2>\n<p>");
    if settings.rights.honour_signals {
        html.push_str("It honours TDMRep (<code>/.well-known/tdmrep.json</code> and the <code>tdm-reservation</code> header), <code>/ai.txt</code>, and <code>noai</code>, <code>noimageai</code> and <code>noml</code> in X-Robots-Tag and robots meta tags. ");
        html.push_str(match settings.rights.on_reservation {
            OnReservation::StopSite => "Any of these stops it reading the site.",
            OnReservation::PerPurpose => "A reservation stops the uses it names.",
        });
    } else {
        html.push_str("This deployment does not read rights signals.");
    }
    html.push_str("</p>\n<h2>How to block it</h2>\n<p>Add these lines to your robots.txt:</p>\n");
    let _ = writeln!(html, "<pre id=\"robots-block\">User-agent: {token}\nDisallow: /</pre>");
    let _ = writeln!(
        html,
        "<p>It reads robots.txt again at most {} later and stops at once.</p>",
        escape(&words(settings.robots.ttl))
    );
    html.push_str("<h2>How to reach us</h2>\n<p>");
    match &bot.contact {
        Some(contact) => {
            let _ = write!(
                html,
                "Write to <code>{}</code> to ask for a slow-down or for the removal of your site's events.",
                escape(contact)
            );
        }
        None => {
            let _ = write!(
                html,
                "See <a href=\"{0}\">{0}</a> to ask for a slow-down or for removal.",
                escape(bot.info_url.as_str())
            );
        }
    }
    if let Some(address) = &bot.address {
        let _ = write!(html, " Postal address: {}.", escape(address));
    }
    html.push_str("</p>\n<p>These numbers are read from the running configuration; this page is generated from it.</p>\n</body></html>\n");
    html
}
