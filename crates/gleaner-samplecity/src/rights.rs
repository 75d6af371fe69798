//! What each site says about bots and reuse: robots.txt (a `*` group and a group for the
//! bot's token), `/.well-known/tdmrep.json`, `/ai.txt`, and the headers (`tdm-reservation`,
//! `X-Robots-Tag`) a site adds to every answer.

use std::fmt::Write as _;

use serde::Serialize;

use crate::venues::{Extra, Refusal, Role, Site};

/// The rules of one site's robots.txt, as data (plain path prefixes, no wildcards).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RobotsPlan {
    /// `Crawl-delay` in the bot's group, in seconds.
    pub crawl_delay: Option<f64>,
    /// `Allow` prefixes in the bot's group.
    pub allow: Vec<String>,
    /// `Disallow` prefixes in the bot's group.
    pub disallow: Vec<String>,
    /// `Disallow` prefixes in the `*` group (which does not govern the bot).
    pub disallow_others: Vec<String>,
}

impl RobotsPlan {
    /// Whether the bot may fetch `path` (longest match wins, Allow wins a tie).
    pub fn allows(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let longest = |list: &[String]| {
            list.iter().filter(|p| path.starts_with(p.as_str())).map(String::len).max()
        };
        match (longest(&self.allow), longest(&self.disallow)) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(d)) => a >= d,
        }
    }
}

/// The robots.txt rules of `site`.
pub fn robots_plan(site: &Site) -> RobotsPlan {
    let mut plan = RobotsPlan {
        crawl_delay: None,
        allow: Vec::new(),
        disallow: vec!["/admin/".into()],
        disallow_others: vec!["/admin/".into(), "/api/".into()],
    };
    match site.role {
        Role::Venue => {
            if site.has(Extra::PrivatePath) {
                plan.disallow.push(format!("{}private/", site.lang.listing_path()));
            }
            if site.refusal == Some(Refusal::RobotsDisallowAll) {
                plan.disallow = vec!["/".into()];
            }
        }
        Role::TownHall => plan.crawl_delay = Some(2.0),
        Role::LicensedApi | Role::OpenData | Role::PressAgency => plan.disallow_others.clear(),
        Role::LanguageModel => plan.disallow_others = vec!["/".into()],
    }
    plan
}

/// The robots.txt text of `site` for the bot `token`, with its sitemap when it has one.
pub fn render_robots(token: &str, site: &Site, plan: &RobotsPlan, sitemap: Option<&str>) -> String {
    let mut out = format!("# robots.txt of {}\nUser-agent: *\n", site.name);
    for d in &plan.disallow_others {
        let _ = writeln!(out, "Disallow: {d}");
    }
    if plan.disallow_others.is_empty() {
        out.push_str("Disallow:\n");
    }
    let _ = writeln!(out, "\nUser-agent: {token}");
    if let Some(delay) = plan.crawl_delay {
        let _ = writeln!(out, "Crawl-delay: {delay}");
    }
    for a in &plan.allow {
        let _ = writeln!(out, "Allow: {a}");
    }
    for d in &plan.disallow {
        let _ = writeln!(out, "Disallow: {d}");
    }
    if let Some(url) = sitemap {
        let _ = writeln!(out, "\nSitemap: {url}");
    }
    out
}

/// `/.well-known/tdmrep.json` of `site`, when it has one (TDMRep, W3C CG report).
pub fn tdmrep(site: &Site, origin: &str) -> Option<String> {
    if site.refusal == Some(Refusal::TdmReservation) {
        return Some(format!(
            "[\n  {{\"location\": \"/*\", \"tdm-reservation\": 1, \"tdm-policy\": \"{origin}/terms.html\"}}\n]\n"
        ));
    }
    match site.role {
        Role::PressAgency => Some(format!(
            "[\n  {{\"location\": \"/archives/*\", \"tdm-reservation\": 1, \"tdm-policy\": \"{origin}/conditions.html\"}},\n  \
             {{\"location\": \"/*\", \"tdm-reservation\": 0}}\n]\n"
        )),
        Role::Venue => Some("[\n  {\"location\": \"/*\", \"tdm-reservation\": 0}\n]\n".to_owned()),
        _ => None,
    }
}

/// `/ai.txt` of `site`, when it has one (Spawning's ai.txt).
pub fn ai_txt(site: &Site) -> Option<&'static str> {
    if site.has(Extra::NoAi) {
        return Some("# ai.txt: no AI training on anything here\nUser-Agent: *\nDisallow: /\n");
    }
    match site.role {
        Role::PressAgency => Some(
            "# ai.txt of Agence Presse Locale\nUser-Agent: *\nDisallow: *.jpg\nDisallow: *.jpeg\n\
             Disallow: *.png\nDisallow: /archives/\nAllow: *.html\n",
        ),
        _ => None,
    }
}

/// Headers `site` adds to every answer: `tdm-reservation` and `X-Robots-Tag`.
pub fn site_headers(site: &Site, origin: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if site.refusal == Some(Refusal::TdmReservation) {
        out.push(("tdm-reservation", "1".to_owned()));
        out.push(("tdm-policy", format!("{origin}/terms.html")));
    }
    if site.has(Extra::NoAi) {
        out.push(("x-robots-tag", "noai, noimageai".to_owned()));
    }
    out
}
