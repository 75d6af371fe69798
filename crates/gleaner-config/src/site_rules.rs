//! `[[site_rules]]`: CSS rules for sites without structured data, keyed by site (issue 10).
//!
//! The tables are the extractor's own [`SiteRules`] type (unknown keys are errors); here
//! every selector, regex, zone and currency is checked, so `gleaner config check` names
//! the line and key of a bad one, and the rules are compiled once into a [`RuleBook`] the
//! crawl looks pages up in.

use std::sync::Arc;

use gleaner_extract::rules::{CompiledRules, RuleBook, RulesFile, SiteRules};
use url::Url;

use crate::error::Problem;

/// Validates and compiles `[[site_rules]]`; problems carry `site_rules[i].key` paths.
pub fn resolve(raw: &[SiteRules], problems: &mut Vec<Problem>) -> RuleBook {
    let mut seen: Vec<&str> = Vec::new();
    for (i, r) in raw.iter().enumerate() {
        if seen.contains(&r.site.as_str()) {
            problems.push(
                Problem::at(
                    format!("site_rules[{i}].site"),
                    format!("`{}` has rules twice", r.site),
                )
                .hint("merge the two `[[site_rules]]` tables: one site, one set of rules"),
            );
        }
        seen.push(r.site.as_str());
    }
    match RuleBook::compile(raw) {
        Ok(book) => book,
        Err(found) => {
            for (i, p) in found {
                let mut problem = Problem::at(format!("site_rules[{i}].{}", p.key), p.message);
                if let Some(h) = p.hint {
                    problem = problem.hint(h);
                }
                problems.push(problem);
            }
            RuleBook::default()
        }
    }
}

/// The rules for `base`'s site in a rules file (`gleaner extract --rules FILE`: the
/// same `[[site_rules]]` tables as in `gleaner.toml`), its text read from `name`. An
/// invalid file names the line or key and the fix; a file without rules for the site
/// says which sites it has rules for.
pub fn rules_for(text: &str, name: &str, base: &Url) -> Result<Arc<CompiledRules>, String> {
    let file: RulesFile = toml::from_str(text).map_err(|e| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(":{line}")
            })
            .unwrap_or_default();
        format!(
            "invalid rules file `{name}{at}`: {}\nhint: every key is listed in examples/gleaner.toml under [[site_rules]]",
            e.message().trim_end()
        )
    })?;
    let book = RuleBook::compile(&file.site_rules).map_err(|problems| {
        let mut msg = format!("invalid rules file `{name}`");
        for (i, p) in problems {
            msg.push_str(&format!("\n  `site_rules[{i}].{}`: {}", p.key, p.message));
            if let Some(h) = p.hint {
                msg.push_str(&format!("\n    hint: {h}"));
            }
        }
        msg
    })?;
    book.for_url(base).ok_or_else(|| {
        let sites: Vec<String> =
            file.site_rules.iter().map(|r| format!("`{}`", r.site)).collect();
        format!(
            "no rules in `{name}` apply to `{base}` (rules for: {})\nhint: set `site` to the page's origin, e.g. `{}`",
            if sites.is_empty() { "no site".to_owned() } else { sites.join(", ") },
            base.origin().ascii_serialization()
        )
    })
}

#[cfg(test)]
mod tests {
    const BOT: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n";

    #[test]
    fn rules_resolve_and_are_found_by_page() {
        let text = format!(
            "{BOT}\n[[site_rules]]\nsite = \"https://venue.example\"\nitem = \"article.card\"\ntitle = \"h2\"\n\
             date = {{ selector = \"time\", attr = \"datetime\" }}\nprice = {{ selector = \".price\", regex = \"(\\\\d+)\" }}\n"
        );
        let settings = crate::parse(&text, "gleaner.toml").unwrap();
        assert_eq!(settings.site_rules.len(), 1);
        let page = url::Url::parse("https://venue.example/agenda/1").unwrap();
        assert!(settings.site_rules.for_url(&page).is_some());
        let other = url::Url::parse("https://other.example/").unwrap();
        assert!(settings.site_rules.for_url(&other).is_none());
    }

    #[test]
    fn bad_rules_name_the_line_key_and_fix() {
        let text = format!(
            "{BOT}\n[[site_rules]]\nsite = \"venue.example\"\nitem = \"div[\"\n\
             date = {{ selector = \"time\", regex = \"(\" }}\ntime_zone = \"Nowhere/City\"\n"
        );
        let err = crate::parse(&text, "gleaner.toml").unwrap_err();
        let shown = err.to_string();
        assert!(shown.contains("gleaner.toml:9:8: `site_rules[0].item`"), "{shown}");
        assert!(shown.contains("is not a CSS selector"), "{shown}");
        assert!(shown.contains("`site_rules[0].date.regex`"), "{shown}");
        assert!(shown.contains("hint: use Rust regex syntax"), "{shown}");
        assert!(shown.contains("`site_rules[0].time_zone`"), "{shown}");
        let unknown = format!(
            "{BOT}\n[[site_rules]]\nsite = \"venue.example\"\ndate = \"time\"\ntitel = \"h1\"\n"
        );
        let shown = crate::parse(&unknown, "gleaner.toml").unwrap_err().to_string();
        assert!(shown.contains("unknown field `titel`"), "{shown}");
        assert!(shown.contains("gleaner.toml:10"), "the line of the typo: {shown}");
    }
}
