//! Feeds: RSS 2.0 and Atom feeds of a venue's events, and the town hall's news (items,
//! their pages, and the same items as RSS 2.0 and Atom).
//!
//! Feed items link to the pages they announce; those pages are the ground truth.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use crate::city::{City, Origins};
use crate::events::{Event, price_text};
use crate::pages::{esc, human_date, news_time, simple_page};
use crate::venues::{Lang, Site};

/// One news item of the town hall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewsItem {
    /// Its number (page `/actualites/{n}.html`).
    pub number: u32,
    /// The headline.
    pub title: &'static str,
    /// The first paragraph.
    pub summary: &'static str,
    /// When it was published.
    pub published: DateTime<Tz>,
    /// Whether it is an official alert (AubeActuBot may show those as they are).
    pub alert: bool,
}

const NEWS: [(&str, &str, bool); 7] = [
    (
        "Vigilance orange neige et verglas",
        "Météo-France place l'Aube en vigilance orange à partir de ce soir 18 h ; la mairie ouvre le gymnase Jean-Moulin comme abri.",
        true,
    ),
    (
        "Travaux rue de la République : circulation alternée",
        "Du lundi au vendredi, la circulation se fait en alternance entre la place du Marché et le pont de la Seine.",
        false,
    ),
    (
        "Inscriptions à la cantine pour le trimestre",
        "Les familles peuvent inscrire leurs enfants en ligne ou à l'accueil de la mairie jusqu'à la fin du mois.",
        false,
    ),
    (
        "Conseil municipal : ordre du jour",
        "Le prochain conseil municipal examinera le budget primitif et la rénovation de la médiathèque.",
        false,
    ),
    (
        "Collecte des sapins après les fêtes",
        "Trois points de collecte sont ouverts dans les quartiers ; les sapins seront broyés et transformés en paillage.",
        false,
    ),
    (
        "Fermeture exceptionnelle de l'état civil",
        "Le service de l'état civil sera fermé vendredi après-midi pour une mise à jour informatique.",
        false,
    ),
    (
        "Coupure d'eau programmée quartier Saint-Jean",
        "Une coupure d'eau aura lieu mardi de 9 h à 12 h pour le remplacement d'une canalisation.",
        true,
    ),
];

/// The town hall's news at `pass`: six items, plus one more from pass 1 on, newest first.
pub fn news(city: &City, zone: Tz, pass: u32) -> Vec<NewsItem> {
    let count = if pass >= 1 { 7 } else { 6 };
    let mut out: Vec<NewsItem> = NEWS[..count]
        .iter()
        .enumerate()
        .map(|(i, (title, summary, alert))| NewsItem {
            number: i as u32 + 1,
            title,
            summary,
            published: news_time(city, zone, if i == 6 { 0 } else { 1 + 2 * i as u64 }),
            alert: *alert,
        })
        .collect();
    out.sort_by_key(|n| std::cmp::Reverse(n.published));
    out
}

fn xml(s: &str) -> String {
    esc(s)
}

/// RSS 2.0 of the town hall's news.
pub(crate) fn news_rss(origins: &Origins, index: usize, site: &Site, items: &[NewsItem]) -> String {
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\" \
         xmlns:atom=\"http://www.w3.org/2005/Atom\">\n<channel>\n<title>{} – Actualités</title>\n\
         <link>{}</link>\n<description>Les actualités de la ville</description>\n\
         <language>fr-FR</language>\n<atom:link href=\"{}\" rel=\"self\" type=\"application/rss+xml\"/>\n",
        xml(site.name),
        origins.url(index, "/actualites/"),
        origins.url(index, "/actualites/rss.xml")
    );
    for n in items {
        let link = origins.url(index, &format!("/actualites/{}.html", n.number));
        let _ = writeln!(
            out,
            "<item>\n<title>{}</title>\n<link>{link}</link>\n<guid isPermaLink=\"true\">{link}</guid>\n\
             <pubDate>{}</pubDate>\n<category>{}</category>\n<description>{}</description>\n</item>",
            xml(n.title),
            n.published.to_rfc2822(),
            if n.alert { "Alerte officielle" } else { "Vie municipale" },
            xml(n.summary)
        );
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

/// Atom of the town hall's news.
pub(crate) fn news_atom(
    origins: &Origins,
    index: usize,
    site: &Site,
    items: &[NewsItem],
) -> String {
    let updated = items.iter().map(|n| n.published).max();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" \
         xml:lang=\"fr\">\n<title>{} – Actualités</title>\n<id>{}</id>\n\
         <link rel=\"self\" href=\"{}\"/>\n<link href=\"{}\"/>\n<updated>{}</updated>\n\
         <author><name>Service communication</name></author>\n",
        xml(site.name),
        origins.url(index, "/actualites/atom.xml"),
        origins.url(index, "/actualites/atom.xml"),
        origins.url(index, "/actualites/"),
        updated.map(|u| u.to_rfc3339()).unwrap_or_default()
    );
    for n in items {
        let link = origins.url(index, &format!("/actualites/{}.html", n.number));
        let _ = writeln!(
            out,
            "<entry>\n<title>{}</title>\n<id>{link}</id>\n<link href=\"{link}\"/>\n\
             <updated>{}</updated>\n<published>{}</published>\n<summary>{}</summary>\n</entry>",
            xml(n.title),
            n.published.to_rfc3339(),
            n.published.to_rfc3339(),
            xml(n.summary)
        );
    }
    out.push_str("</feed>\n");
    out
}

/// One news page.
pub(crate) fn news_page(n: &NewsItem) -> String {
    simple_page(
        Lang::Fr,
        n.title,
        &format!(
            "<p class=\"date\"><time datetime=\"{}\">{}</time></p>\n<p>{}</p>\n\
             <p><a href=\"/actualites/\">Toutes les actualités</a></p>\n",
            n.published.to_rfc3339(),
            human_date(n.published, Lang::Fr),
            esc(n.summary)
        ),
    )
}

/// The news index page.
pub(crate) fn news_index(items: &[NewsItem]) -> String {
    let mut body = String::from(
        "<p><a href=\"/actualites/rss.xml\">RSS</a> · <a href=\"/actualites/atom.xml\">Atom</a> · \
         <a href=\"/agenda.ics\">Agenda (iCalendar)</a></p>\n<ul>\n",
    );
    for n in items {
        let _ = writeln!(
            body,
            "<li><a href=\"/actualites/{}.html\">{}</a></li>",
            n.number,
            esc(n.title)
        );
    }
    body.push_str("</ul>\n");
    simple_page(Lang::Fr, "Actualités", &body)
}

/// RSS 2.0 of a venue's events (items link to event pages).
pub(crate) fn events_rss(
    origins: &Origins,
    index: usize,
    site: &Site,
    events: &[Event],
    now: DateTime<Utc>,
) -> String {
    let listing = site.lang.listing_path();
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<rss version=\"2.0\">\n<channel>\n\
         <title>{} – {}</title>\n<link>{}</link>\n<description>{}</description>\n\
         <language>{}</language>\n<lastBuildDate>{}</lastBuildDate>\n",
        xml(site.name),
        site.lang.events_word(),
        origins.url(index, listing),
        xml(&site.address_line()),
        site.lang.code(),
        now.to_rfc2822()
    );
    for e in events {
        let link = origins.url(index, &e.path);
        let _ = writeln!(
            out,
            "<item>\n<title>{}</title>\n<link>{link}</link>\n<guid>{link}</guid>\n\
             <pubDate>{}</pubDate>\n<description>{}</description>\n\
             <enclosure url=\"{}\" type=\"{}\" length=\"0\"/>\n</item>",
            xml(&e.title),
            now.to_rfc2822(),
            xml(&format!(
                "{} — {} — {}",
                human_date(e.start, site.lang),
                price_text(e.price, site.lang),
                e.description
            )),
            origins.url(index, &e.image),
            if e.image.ends_with(".png") { "image/png" } else { "image/jpeg" }
        );
    }
    out.push_str("</channel>\n</rss>\n");
    out
}

/// Atom of a venue's events (entries link to event pages).
pub(crate) fn events_atom(
    origins: &Origins,
    index: usize,
    site: &Site,
    events: &[Event],
    now: DateTime<Utc>,
) -> String {
    let listing = site.lang.listing_path();
    let self_url = origins.url(index, &format!("{listing}feed.atom"));
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" \
         xml:lang=\"{}\">\n<title>{} – {}</title>\n<id>{self_url}</id>\n\
         <link rel=\"self\" href=\"{self_url}\"/>\n<link href=\"{}\"/>\n<updated>{}</updated>\n\
         <author><name>{}</name></author>\n",
        site.lang.code(),
        xml(site.name),
        site.lang.events_word(),
        origins.url(index, listing),
        now.to_rfc3339(),
        xml(site.name)
    );
    for e in events {
        let link = origins.url(index, &e.path);
        let _ = writeln!(
            out,
            "<entry>\n<title>{}</title>\n<id>{link}</id>\n<link href=\"{link}\"/>\n\
             <updated>{}</updated>\n<summary>{}</summary>\n</entry>",
            xml(&e.title),
            now.to_rfc3339(),
            xml(&format!("{} — {}", human_date(e.start, site.lang), e.description))
        );
    }
    out.push_str("</feed>\n");
    out
}
