//! May this page be sent to a language model? A page reserving AI use — `noai` or `noml`
//! in X-Robots-Tag or a robots meta tag (generic or for the bot's token), a TDMRep
//! reservation in a header or meta tag, or an AI-use preference header refusing model
//! input (`Content-Signal: ai-input=no`, `Content-Usage: ai-use=n`) — never is.
//! Site-level signals (a TDMRep file, ai.txt, robots.txt's AI-use preferences) come
//! through [`crate::LlmStore::site_reservation`], which the store adapter answers from
//! the site's stored rights files and robots.txt (`gleaner_scheduler::rights::decide`).

use gleaner_policy::signals::robots_meta::PageRestrictions;
use gleaner_policy::signals::{prefs, tdmrep};
use scraper::{Html, Selector};

/// Why the page may not be sent to a model, or `None` when it may.
pub fn page_reservation(token: &str, headers: &[(String, String)], html: &str) -> Option<String> {
    let headers: Vec<(&str, &str)> =
        headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let meta_owned: Vec<(String, String)> = if html.to_ascii_lowercase().contains("<meta") {
        let doc = Html::parse_document(html);
        match Selector::parse("meta[name][content]") {
            Ok(sel) => doc
                .select(&sel)
                .filter_map(|e| {
                    Some((
                        e.value().attr("name")?.to_owned(),
                        e.value().attr("content")?.to_owned(),
                    ))
                })
                .collect(),
            Err(_) => Vec::new(),
        }
    } else {
        Vec::new()
    };
    let meta: Vec<(&str, &str)> =
        meta_owned.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
    if let Some(d) = tdmrep::from_headers(&headers).or_else(|| tdmrep::from_meta(&meta))
        && d.reservation == tdmrep::TdmReservation::Reserved
    {
        return Some("TDMRep reservation on the page (tdm-reservation: 1)".to_owned());
    }
    let input = prefs::header_decision(&headers, prefs::PrefUse::AiInput);
    if let Some(no) = input.refusal() {
        return Some(no.to_string());
    }
    let restrictions = PageRestrictions::from_signals(token, &headers, &meta);
    restrictions
        .found()
        .iter()
        .find(|f| {
            f.directive.reserved_uses()
                == gleaner_policy::signals::robots_meta::Directive::NoAi.reserved_uses()
        })
        .map(|f| format!("`{}` on the page reserves AI use", f.written))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reservations_by_header_meta_and_tdmrep() {
        let none: Vec<(String, String)> = Vec::new();
        let page = |meta: &str| format!("<html><head>{meta}</head><body>x</body></html>");
        assert!(page_reservation("gleaner", &none, &page("")).is_none());
        assert!(
            page_reservation("gleaner", &none, &page(r#"<meta name="robots" content="noai">"#))
                .is_some()
        );
        assert!(
            page_reservation("gleaner", &none, &page(r#"<meta name="gleaner" content="noml">"#))
                .is_some()
        );
        assert!(
            page_reservation(
                "gleaner",
                &none,
                &page(r#"<meta name="tdm-reservation" content="1">"#)
            )
            .is_some()
        );
        assert!(
            page_reservation(
                "gleaner",
                &none,
                &page(r#"<meta name="robots" content="noimageai">"#)
            )
            .is_none()
        );
        let header = vec![("X-Robots-Tag".to_owned(), "noai".to_owned())];
        assert!(page_reservation("gleaner", &header, &page("")).is_some());
        let signal = vec![("Content-Signal".to_owned(), "search=yes, ai-input=no".to_owned())];
        let why = page_reservation("gleaner", &signal, &page("")).unwrap();
        assert!(why.contains("ai-input=no"), "{why}");
        let training = vec![("Content-Usage".to_owned(), "train-ai=n, search=y".to_owned())];
        assert!(page_reservation("gleaner", &training, &page("")).is_none());
    }
}
