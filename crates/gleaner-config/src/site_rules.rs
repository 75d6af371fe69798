//! `[[site_rules]]`: CSS rules for sites without structured data, keyed by site (issue 10).
//!
//! The tables are the extractor's own [`SiteRules`] type (unknown keys are errors); here
//! every selector, regex, zone and currency is checked, so `gleaner config check` names
//! the line and key of a bad one, and the rules are compiled once into a [`RuleBook`] the
//! crawl looks pages up in.

use gleaner_extract::rules::{RuleBook, SiteRules};

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
