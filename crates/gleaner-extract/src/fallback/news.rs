//! Signed news articles: a page that reports on events in running prose, whose dates are
//! the story's, gives none.

use gleaner_event::datetext::{DateOrder, parse_text_date};
use scraper::{ElementRef, Html};

use super::{in_chrome, sel, text_of};

/// Words a byline opens with (`Por Lucía Arrieta · Zaragoza`), folded.
pub(super) const BYLINE_WORDS: &[&str] =
    &["by", "por", "par", "von", "yazan", "text", "texte", "redaccion"];

/// Why the page is a news article, when it is one: its title sits in an `<article>` with
/// a `byline` block or an author link, or it declares itself one (`og:type` `article`)
/// and a short line after its title signs and dates it ("Por Lucía Arrieta · lunes 27 de
/// julio de 2026", "By …", "Par …", "Von …", "Yazan …"). A declared article without a
/// byline may be an event page a CMS typed as an article, and "Von Henrik Ibsen" under a
/// play's title names its author, not a reporter: both are read.
pub(super) fn news_article(doc: &Html, order: DateOrder) -> Option<String> {
    let og_article = doc
        .select(&sel("meta[property='og:type'][content]"))
        .filter_map(|m| m.value().attr("content"))
        .any(|t| t.trim().eq_ignore_ascii_case("article"));
    let h1 = doc.select(&sel("h1")).next()?;
    let in_article =
        h1.ancestors().filter_map(ElementRef::wrap).any(|a| a.value().name() == "article");
    if !og_article && !in_article {
        return None;
    }
    let byline = sel("a[rel=author], .byline");
    if let Some(b) = doc.select(&byline).find(|b| !in_chrome(*b))
        && (in_article || og_article)
    {
        let what = if og_article { "`og:type` article" } else { "an `<article>`" };
        return Some(format!("{what} with a byline (`{}`)", text_of(b)));
    }
    let line = doc
        .select(&sel("p, div, span"))
        .filter(|e| e.id() > h1.id() && e.select(&sel("p, div")).next().is_none())
        .take(3)
        .map(text_of)
        .find(|t| {
            if !og_article || parse_text_date(t, None, order).is_none() {
                return false;
            }
            let folded = gleaner_event::datetext::fold_diacritics(t);
            let first = folded.split(|c: char| !c.is_alphanumeric()).next().unwrap_or_default();
            t.chars().count() <= 160
                && BYLINE_WORDS.contains(&first)
                && t.split_whitespace()
                    .nth(1)
                    .is_some_and(|w| w.chars().next().is_some_and(char::is_uppercase))
        })?;
    Some(format!("an article signed `{line}`"))
}
