//! The about page (`/bot`, `/bot/{lang}`, `/bot.json`, `gleaner page`), generated from
//! the running settings in five languages: who runs the bot and how to reach them, how
//! to recognise and verify it, what it reads and never does, what it keeps and for how
//! long, every politeness number, the rights signals it honours, licensed APIs, language
//! models and translation, how to block it and how to ask for removal, a slow-down or
//! facts only.
//!
//! Numbers and lists are read from [`Settings`], never typed, so the page cannot drift
//! from behaviour (AubeActuBot: "this page reads them from its configuration, it does
//! not copy them"). The sentences come from [`crate::i18n`]. The page is first built as
//! a plain-text [`Page`] and then rendered as HTML (every text escaped by [`escape`]),
//! Markdown or JSON, so the three forms state the same facts.

use std::fmt::Write;
use std::time::Duration;

use gleaner_config::Settings;
use gleaner_config::settings::OnReservation;
use gleaner_config::sources::{Keep, SourceKind};
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::OnUnauthorized;
use serde::Serialize;

use crate::i18n::{Lang, Messages, fill, purpose_name};

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

/// A duration in a language: `2 s`, `1 min`, `24 h`, `30 days` / `30 gün`. Mixed values
/// are written in parts (`1 h 30 min`); whole days from 2 days up use the day word.
pub fn words_in(lang: Lang, d: Duration) -> String {
    let m = lang.messages();
    let mut secs = d.as_secs();
    let millis = d.subsec_millis();
    if secs == 0 && millis == 0 {
        return "0 s".to_owned();
    }
    if secs < 60 && millis != 0 {
        let value = format!("{}.{:03}", secs, millis);
        let value = value.trim_end_matches('0').to_owned();
        let value = match lang {
            Lang::En => value,
            _ => value.replace('.', ","),
        };
        return format!("{value} s");
    }
    let mut parts = Vec::new();
    if secs >= 2 * 86_400 && secs.is_multiple_of(86_400) {
        return format!("{} {}", secs / 86_400, m.days);
    }
    if secs >= 86_400 && !secs.is_multiple_of(3600) {
        let days = secs / 86_400;
        parts.push(format!("{days} {}", if days == 1 { m.day } else { m.days }));
        secs %= 86_400;
    }
    if secs >= 3600 {
        parts.push(format!("{} h", secs / 3600));
        secs %= 3600;
    }
    if secs >= 60 {
        parts.push(format!("{} min", secs / 60));
        secs %= 60;
    }
    if secs > 0 {
        parts.push(format!("{secs} s"));
    }
    parts.join(" ")
}

/// A size in bytes as written in configs: `8 MiB`, `8 MB`, `512 KiB`, else bytes.
pub fn size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] =
        [(1 << 20, "MiB"), (1_000_000, "MB"), (1 << 10, "KiB"), (1_000, "kB")];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} B")
}

/// A duration in English (`2 s`, `24 h`, `30 days`).
pub fn words(d: Duration) -> String {
    words_in(Lang::En, d)
}

fn list(lang: Lang, items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {} {last}", rest.join(", "), lang.messages().and),
    }
}

/// One block of a section.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Block {
    /// A paragraph.
    Paragraph {
        /// Its text.
        text: String,
    },
    /// A bulleted list.
    List {
        /// Its items.
        items: Vec<String>,
    },
    /// Preformatted text (the User-Agent, robots.txt lines).
    Code {
        /// A stable id for tests and links (`user-agent`, `robots-block`).
        id: String,
        /// Its text.
        text: String,
    },
    /// A two-column table of facts.
    Table {
        /// A stable id (`politeness`).
        id: String,
        /// Label and value rows.
        rows: Vec<Fact>,
    },
}

/// One row of the politeness table: a stable key, the label and the value in the
/// page's language.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fact {
    /// Stable key (`gap`, `purpose.event-page.gap`, `class.municipal`).
    pub key: String,
    /// Label in the page's language.
    pub label: String,
    /// Value in the page's language.
    pub value: String,
}

/// A section of the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Section {
    /// Stable id (`who`, `recognise`, `reads`, `never`, `keeps`, `crawl`, `rights`,
    /// `licensed`, `models`, `block`, `ask`).
    pub id: &'static str,
    /// Heading in the page's language.
    pub heading: String,
    /// Its content.
    pub blocks: Vec<Block>,
}

/// The whole page in one language, as plain text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// Language code.
    pub lang: &'static str,
    /// Title.
    pub title: String,
    /// Introduction.
    pub intro: String,
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// Footer.
    pub footer: String,
}

fn p(text: String) -> Block {
    Block::Paragraph { text }
}

/// The politeness rows in one language.
pub fn facts_in(settings: &Settings, lang: Lang) -> Vec<Fact> {
    let m = lang.messages();
    let r = &m.row;
    let w = |d: Duration| words_in(lang, d);
    let pol = &settings.politeness;
    let fact = |key: &str, label: &str, value: String| Fact {
        key: key.to_owned(),
        label: label.to_owned(),
        value,
    };
    let mut rows = vec![
        fact("user_agent", r.user_agent, settings.bot.user_agent()),
        fact("token", r.token, settings.bot.token.clone()),
        fact("gap", r.gap, w(pol.gap)),
        fact("max_in_flight", r.in_flight, pol.max_in_flight.to_string()),
        fact("global_daily_cap", r.daily_cap, pol.global_daily_cap.to_string()),
        fact(
            "retry_after_default",
            r.retry_default,
            fill(r.retry_default_value, &[("duration", &w(pol.retry_after_default))]),
        ),
        fact("retry_after_cap", r.retry_cap, w(pol.retry_after_cap)),
        fact("max_retries", r.retries, pol.max_retries.to_string()),
        fact("unreachable_tries", r.unreachable_tries, pol.unreachable_tries.to_string()),
        fact("failure_streak_limit", r.failure_streak, pol.failure_streak_limit.to_string()),
        fact("run_time_limit", r.run_time_limit, w(pol.run_time_limit)),
        fact(
            "block_duration",
            r.block,
            fill(r.block_value, &[("duration", &w(pol.block_duration))]),
        ),
        fact("connect_timeout", r.connect_timeout, w(settings.limits.connect_timeout)),
        fact("response_deadline", r.deadline, w(settings.limits.response_deadline)),
        fact(
            "max_body_bytes",
            r.max_body,
            fill(r.max_body_value, &[("size", &size(settings.limits.max_body_bytes))]),
        ),
        fact("max_redirects", r.redirects, settings.limits.max_redirects.to_string()),
        fact("robots_ttl", r.robots_ttl, w(settings.robots.ttl)),
        fact(
            "robots_unauthorized",
            r.robots_unauthorized,
            match settings.robots.on_unauthorized {
                OnUnauthorized::AllowAll => r.robots_unauthorized_allow.to_owned(),
                OnUnauthorized::Block => r.robots_unauthorized_block.to_owned(),
            },
        ),
        fact("robots_unreachable", r.robots_unreachable, r.robots_unreachable_value.to_owned()),
        fact(
            "min_source_interval",
            r.source_interval,
            fill(r.every, &[("duration", &w(pol.min_source_interval))]),
        ),
        fact(
            "shared_by",
            r.shared_by,
            if shares_with_copies(settings) { r.shared_by_copies } else { r.shared_by_deployment }
                .to_owned(),
        ),
    ];
    for (purpose, pp) in &pol.purpose {
        let name = purpose_name(lang, *purpose);
        let key = purpose.as_str();
        if let Some(gap) = pp.gap {
            rows.push(fact(
                &format!("purpose.{key}.gap"),
                &fill(r.purpose_gap, &[("purpose", name)]),
                w(gap),
            ));
        }
        if let Some((min, max)) = pp.jitter {
            rows.push(fact(
                &format!("purpose.{key}.jitter"),
                &fill(r.purpose_jitter, &[("purpose", name)]),
                fill(r.range, &[("min", &w(min)), ("max", &w(max))]),
            ));
        }
        if let Some(n) = pp.max_in_flight {
            rows.push(fact(
                &format!("purpose.{key}.max_in_flight"),
                &fill(r.purpose_in_flight, &[("purpose", name)]),
                n.to_string(),
            ));
        }
    }
    for class in settings.site_classes.values() {
        let mut parts = vec![
            fill(r.class_zone, &[("zone", class.time_zone.name())]),
            fill(r.class_gap, &[("duration", &w(class.gap))]),
        ];
        if class.max_in_flight != pol.max_in_flight {
            parts.push(fill(r.class_in_flight, &[("n", &class.max_in_flight.to_string())]));
        }
        if !class.quiet_hours.is_empty() {
            let windows: Vec<String> = class
                .quiet_hours
                .iter()
                .map(|q| format!("{}–{}", q.start.format("%H:%M"), q.end.format("%H:%M")))
                .collect();
            parts.push(fill(r.class_quiet, &[("windows", &list(lang, &windows))]));
        }
        let n = |t: &str, v: u32| fill(t, &[("n", &v.to_string())]);
        if let Some(v) = class.requests_per_pass {
            parts.push(n(r.class_per_pass, v));
        }
        if let Some(v) = class.requests_per_hour {
            parts.push(n(r.class_per_hour, v));
        }
        if let Some(v) = class.requests_per_day {
            parts.push(n(r.class_per_day, v));
        }
        if let Some(v) = class.visits_per_day {
            parts.push(n(r.class_visits, v));
        }
        if let Some(d) = class.min_pass_interval {
            parts.push(fill(r.class_pass_interval, &[("duration", &w(d))]));
        }
        rows.push(fact(
            &format!("class.{}", class.name),
            &fill(r.class, &[("class", &class.name)]),
            parts.join("; "),
        ));
    }
    rows
}

/// The politeness rows in English as (label, value) pairs.
pub fn facts(settings: &Settings) -> Vec<(String, String)> {
    facts_in(settings, Lang::En).into_iter().map(|f| (f.label, f.value)).collect()
}

/// Where owners write: the contact address, else the info page.
/// Does this deployment share its budgets with other copies (a politeness namespace of
/// its own schema's)?
fn shares_with_copies(settings: &Settings) -> bool {
    settings.store.schema != settings.store.politeness_namespace
}

fn contact_of(settings: &Settings) -> String {
    settings.bot.contact.clone().unwrap_or_else(|| settings.bot.info_url.to_string())
}

/// The sites (host names, sorted, each once) of the sources `pick` selects: an owner
/// knows their site, not gleaner's source ids (issue 25).
fn source_ids(
    settings: &Settings,
    pick: impl Fn(&gleaner_config::sources::Source) -> bool,
) -> Vec<String> {
    let mut sites: Vec<String> = settings
        .sources
        .iter()
        .filter(|s| pick(s))
        .flat_map(|s| s.start_urls.iter().filter_map(|u| u.host_str().map(str::to_ascii_lowercase)))
        .collect();
    sites.sort();
    sites.dedup();
    sites
}

/// Builds the page in one language.
pub fn page(settings: &Settings, lang: Lang) -> Page {
    let m: &Messages = lang.messages();
    let bot = &settings.bot;
    let token = bot.token.as_str();
    let w = |d: Duration| words_in(lang, d);
    let mut sections = Vec::new();

    // Who runs it.
    let mut who = vec![p(fill(m.operator_line, &[("token", token), ("operator", &bot.operator)]))];
    match &bot.contact {
        Some(contact) => who.push(p(fill(m.contact_line, &[("contact", contact)]))),
        None => who.push(p(fill(m.no_contact_line, &[("info_url", bot.info_url.as_str())]))),
    }
    if let Some(address) = &bot.address {
        who.push(p(fill(m.address_line, &[("address", address)])));
    }
    sections.push(Section { id: "who", heading: m.h_who.to_owned(), blocks: who });

    // Recognise and verify.
    let mut recognise = vec![
        p(m.ua_line.to_owned()),
        Block::Code { id: "user-agent".to_owned(), text: bot.user_agent() },
        p(fill(m.token_line, &[("token", token)])),
        p(m.verify_line.to_owned()),
    ];
    if settings.purposes.enabled.contains(&Purpose::ManualCheck) {
        recognise.push(p(fill(
            m.manual_line,
            &[
                ("n", &settings.purposes.manual_checks_per_site_per_day.to_string()),
                ("gap", &w(settings.politeness.gap_for(Purpose::ManualCheck))),
            ],
        )));
    }
    sections.push(Section {
        id: "recognise",
        heading: m.h_recognise.to_owned(),
        blocks: recognise,
    });

    // What it reads.
    let purposes: Vec<String> = settings
        .purposes
        .enabled
        .iter()
        .filter(|p| **p != Purpose::Robots)
        .map(|p| purpose_name(lang, *p).to_owned())
        .collect();
    let methods = if settings.purposes.head_allowed { m.methods_get_head } else { m.methods_get };
    sections.push(Section {
        id: "reads",
        heading: m.h_reads.to_owned(),
        blocks: vec![
            p(fill(m.reads_line, &[("purposes", &list(lang, &purposes))])),
            p(methods.to_owned()),
        ],
    });
    sections.push(Section {
        id: "never",
        heading: m.h_never.to_owned(),
        blocks: vec![Block::List { items: m.never.iter().map(|s| (*s).to_owned()).collect() }],
    });

    // What it keeps.
    let r = &settings.retention;
    let full = source_ids(settings, |s| s.keep == Keep::Full);
    let mut keeps = vec![
        p(m.keep_facts.to_owned()),
        p(if full.is_empty() {
            m.keep_full_none.to_owned()
        } else {
            fill(m.keep_full, &[("sources", &list(lang, &full))])
        }),
        p(if r.bodies.is_zero() {
            m.bodies_zero.to_owned()
        } else {
            fill(m.bodies_kept, &[("duration", &w(r.bodies))])
        }),
        p(if r.samples { m.samples_on } else { m.samples_off }.to_owned()),
        p(fill(m.events_after, &[("duration", &w(r.events_after_end))])),
        p(fill(m.audit_kept, &[("duration", &w(r.audit))])),
    ];
    let private = source_ids(settings, |s| !s.publish);
    if !private.is_empty() {
        keeps.insert(2, p(fill(m.private_some, &[("sources", &list(lang, &private))])));
    }
    keeps.push(p(m.removal_keeps.to_owned()));
    sections.push(Section { id: "keeps", heading: m.h_keeps.to_owned(), blocks: keeps });

    // How it crawls.
    sections.push(Section {
        id: "crawl",
        heading: m.h_crawl.to_owned(),
        blocks: vec![
            p(m.crawl_intro.to_owned()),
            Block::Table { id: "politeness".to_owned(), rows: facts_in(settings, lang) },
            p(m.conditional.to_owned()),
            p(m.crawl_delay.to_owned()),
        ],
    });

    // What it checks, how it answers, how often and where it reads (issue 25).
    sections.push(crate::promises::section(settings, lang));

    // Rights signals.
    let rights = if settings.rights.honour_signals {
        vec![
            p(m.rights_on.to_owned()),
            p(m.rights_prefs.to_owned()),
            p(match settings.rights.on_reservation {
                OnReservation::StopSite => m.rights_stop_site,
                OnReservation::PerPurpose => m.rights_per_purpose,
            }
            .to_owned()),
        ]
    } else {
        vec![p(m.rights_off.to_owned())]
    };
    let mut rights = rights;
    rights.extend(crate::relay::about_paragraphs(settings, lang).into_iter().map(p));
    sections.push(Section { id: "rights", heading: m.h_rights.to_owned(), blocks: rights });

    // Licensed APIs.
    let licensed = source_ids(settings, |s| s.kind == SourceKind::LicensedApi);
    sections.push(Section {
        id: "licensed",
        heading: m.h_licensed.to_owned(),
        blocks: vec![p(if licensed.is_empty() {
            m.licensed_none.to_owned()
        } else {
            fill(m.licensed_some, &[("sources", &list(lang, &licensed))])
        })],
    });

    // Language models and translation.
    let translated = source_ids(settings, |s| s.translate);
    let model_read = source_ids(settings, |s| s.llm != gleaner_config::llm::LlmMode::Off);
    let endpoints: Vec<String> = settings.infrastructure.iter().map(|i| i.name.clone()).collect();
    sections.push(Section {
        id: "models",
        heading: m.h_models.to_owned(),
        blocks: vec![
            p(if translated.is_empty() {
                m.translate_none.to_owned()
            } else {
                fill(m.translate_some, &[("sources", &list(lang, &translated))])
            }),
            p(if endpoints.is_empty() {
                m.models_none.to_owned()
            } else {
                fill(m.models_some, &[("endpoints", &list(lang, &endpoints))])
            }),
        ]
        .into_iter()
        .chain(
            (!model_read.is_empty())
                .then(|| p(fill(m.models_sources, &[("sources", &list(lang, &model_read))]))),
        )
        .collect(),
    });

    // How to block it.
    sections.push(Section {
        id: "block",
        heading: m.h_block.to_owned(),
        blocks: vec![
            p(m.block_site.to_owned()),
            Block::Code {
                id: "robots-block".to_owned(),
                text: format!("User-agent: {token}\nDisallow: /"),
            },
            p(m.block_path.to_owned()),
            Block::Code {
                id: "robots-block-path".to_owned(),
                text: format!("User-agent: {token}\nDisallow: /agenda/"),
            },
            p(fill(m.block_delay, &[("ttl", &w(settings.robots.ttl))])),
        ],
    });

    // How to ask.
    sections.push(Section {
        id: "ask",
        heading: m.h_ask.to_owned(),
        blocks: vec![
            p(fill(m.ask_line, &[("contact", &contact_of(settings))])),
            Block::List { items: m.ask_kinds.iter().map(|s| (*s).to_owned()).collect() },
        ],
    });

    Page {
        lang: lang.code(),
        title: fill(m.title, &[("token", token)]),
        intro: fill(m.intro, &[("token", token), ("operator", &bot.operator)]),
        sections,
        footer: fill(m.footer, &[("token", token)]),
    }
}

/// Renders the page as HTML; every text goes through [`escape`].
pub fn render_html(settings: &Settings, lang: Lang) -> String {
    let page = page(settings, lang);
    let mut html = String::new();
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"{code}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title>\
         <style>{css}</style></head><body>\n<nav id=\"languages\">{other} ",
        code = page.lang,
        title = escape(&page.title),
        css = crate::html::CSS,
        other = escape(lang.messages().other_languages),
    );
    for other in Lang::ALL {
        if other == lang {
            let _ = write!(html, "<strong>{}</strong> ", other.native_name());
        } else {
            let _ = write!(
                html,
                "<a href=\"/bot/{code}\" hreflang=\"{code}\" lang=\"{code}\">{name}</a> ",
                code = other.code(),
                name = other.native_name()
            );
        }
    }
    let _ = write!(
        html,
        "</nav>\n<h1>{}</h1>\n<p id=\"intro\">{}</p>\n",
        escape(&page.title),
        escape(&page.intro)
    );
    for section in &page.sections {
        let _ =
            writeln!(html, "<section id=\"{}\"><h2>{}</h2>", section.id, escape(&section.heading));
        for block in &section.blocks {
            match block {
                Block::Paragraph { text } => {
                    let _ = writeln!(html, "<p>{}</p>", escape(text));
                }
                Block::List { items } => {
                    html.push_str("<ul>\n");
                    for item in items {
                        let _ = writeln!(html, "<li>{}</li>", escape(item));
                    }
                    html.push_str("</ul>\n");
                }
                Block::Code { id, text } => {
                    let _ = writeln!(html, "<pre id=\"{}\">{}</pre>", escape(id), escape(text));
                }
                Block::Table { id, rows } => {
                    let _ = writeln!(html, "<table id=\"{}\">", escape(id));
                    for row in rows {
                        let _ = writeln!(
                            html,
                            "<tr data-key=\"{}\"><th>{}</th><td>{}</td></tr>",
                            escape(&row.key),
                            escape(&row.label),
                            escape(&row.value)
                        );
                    }
                    html.push_str("</table>\n");
                }
            }
        }
        html.push_str("</section>\n");
    }
    let _ = writeln!(
        html,
        "<p id=\"owner-forms\"><a href=\"/owners\">{}</a></p>",
        escape(crate::owners::about_link(lang))
    );
    let _ = writeln!(html, "<footer><p>{}</p></footer>\n</body></html>", escape(&page.footer));
    html
}

/// Renders the page in English as HTML.
pub fn render(settings: &Settings) -> String {
    render_html(settings, Lang::En)
}

/// Escapes Markdown's active characters in running text.
fn md_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Renders the page as Markdown (`gleaner page --format md`).
pub fn render_markdown(settings: &Settings, lang: Lang) -> String {
    let page = page(settings, lang);
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n\n{}\n", md_escape(&page.title), md_escape(&page.intro));
    for section in &page.sections {
        let _ = writeln!(md, "## {}\n", md_escape(&section.heading));
        for block in &section.blocks {
            match block {
                Block::Paragraph { text } => {
                    let _ = writeln!(md, "{}\n", md_escape(text));
                }
                Block::List { items } => {
                    for item in items {
                        let _ = writeln!(md, "- {}", md_escape(item));
                    }
                    md.push('\n');
                }
                Block::Code { text, .. } => {
                    let _ = writeln!(md, "```\n{text}\n```\n");
                }
                Block::Table { rows, .. } => {
                    md.push_str("| | |\n|---|---|\n");
                    for row in rows {
                        let _ = writeln!(
                            md,
                            "| {} | {} |",
                            md_escape(&row.label),
                            md_escape(&row.value)
                        );
                    }
                    md.push('\n');
                }
            }
        }
    }
    let _ = writeln!(md, "---\n\n{}", md_escape(&page.footer));
    md
}

/// The page as JSON: the machine-readable facts (numbers as numbers, durations in
/// seconds) next to the same text the HTML page shows.
pub fn json(settings: &Settings, lang: Lang) -> serde_json::Value {
    let pol = &settings.politeness;
    let secs = |d: Duration| d.as_secs_f64();
    let purposes: serde_json::Map<String, serde_json::Value> = pol
        .purpose
        .iter()
        .map(|(purpose, pp)| {
            (
                purpose.as_str().to_owned(),
                serde_json::json!({
                    "gap_seconds": pp.gap.map(secs),
                    "jitter_seconds": pp.jitter.map(|(a, b)| [secs(a), secs(b)]),
                    "max_in_flight": pp.max_in_flight,
                }),
            )
        })
        .collect();
    let classes: serde_json::Map<String, serde_json::Value> = settings
        .site_classes
        .values()
        .map(|c| {
            (
                c.name.clone(),
                serde_json::json!({
                    "time_zone": c.time_zone.name(),
                    "gap_seconds": secs(c.gap),
                    "max_in_flight": c.max_in_flight,
                    "quiet_hours": c.quiet_hours.iter().map(|q| format!("{}-{}", q.start.format("%H:%M"), q.end.format("%H:%M"))).collect::<Vec<_>>(),
                    "requests_per_pass": c.requests_per_pass,
                    "requests_per_hour": c.requests_per_hour,
                    "requests_per_day": c.requests_per_day,
                    "visits_per_day": c.visits_per_day,
                    "min_pass_interval_seconds": c.min_pass_interval.map(secs),
                }),
            )
        })
        .collect();
    let r = &settings.retention;
    let sources: Vec<serde_json::Value> = settings
        .sources
        .iter()
        .map(|s| {
            serde_json::json!({
                "id": s.id,
                "kind": s.kind.name(),
                "keep": match s.keep { Keep::Facts => "facts", Keep::Full => "full" },
                "publish": s.publish,
                "translate": s.translate,
                "llm": s.llm.as_str(),
            })
        })
        .collect();
    serde_json::json!({
        "lang": lang.code(),
        "token": settings.bot.token,
        "user_agent": settings.bot.user_agent(),
        "operator": settings.bot.operator,
        "contact": settings.bot.contact,
        "info_url": settings.bot.info_url.as_str(),
        "address": settings.bot.address,
        "purposes": settings.purposes.enabled.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        "methods": if settings.purposes.head_allowed { vec!["GET", "HEAD"] } else { vec!["GET"] },
        "manual_checks_per_site_per_day": settings.purposes.manual_checks_per_site_per_day,
        "politeness": {
            "gap_seconds": secs(pol.gap),
            "max_in_flight": pol.max_in_flight,
            "global_daily_cap": pol.global_daily_cap,
            "retry_after_default_seconds": secs(pol.retry_after_default),
            "retry_after_cap_seconds": secs(pol.retry_after_cap),
            "max_retries": pol.max_retries,
            "unreachable_tries": pol.unreachable_tries,
            "failure_streak_limit": pol.failure_streak_limit,
            "run_time_limit_seconds": secs(pol.run_time_limit),
            "block_seconds": secs(pol.block_duration),
            "min_source_interval_seconds": secs(pol.min_source_interval),
            "shared_by": if shares_with_copies(settings) { "copies" } else { "deployment" },
            "purposes": purposes,
        },
        "limits": {
            "connect_timeout_seconds": secs(settings.limits.connect_timeout),
            "response_deadline_seconds": secs(settings.limits.response_deadline),
            "max_body_bytes": settings.limits.max_body_bytes,
            "max_redirects": settings.limits.max_redirects,
        },
        "robots": {
            "ttl_seconds": secs(settings.robots.ttl),
            "on_unauthorized": match settings.robots.on_unauthorized {
                OnUnauthorized::AllowAll => "allow-all",
                OnUnauthorized::Block => "block",
            },
            "block_site": format!("User-agent: {}\nDisallow: /", settings.bot.token),
        },
        "site_classes": classes,
        "rights": {
            "honour_signals": settings.rights.honour_signals,
            "on_reservation": match settings.rights.on_reservation {
                OnReservation::StopSite => "stop-site",
                OnReservation::PerPurpose => "per-purpose",
            },
        },
        "retention": {
            "bodies_seconds": secs(r.bodies),
            "events_after_end_seconds": secs(r.events_after_end),
            "audit_seconds": secs(r.audit),
            "samples": r.samples,
            "removal_keeps": ["audit log", "robots.txt archive"],
        },
        "sources": sources,
        "language_model_endpoints": settings.infrastructure.iter().map(|i| i.name.clone()).collect::<Vec<_>>(),
        "promises": crate::promises::json(settings),
        "page": page(settings, lang),
    })
}
