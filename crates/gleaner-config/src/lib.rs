//! gleaner's configuration: the TOML file ([`raw::RawConfig`]) and its resolution into
//! validated [`Settings`], where every politeness number lives once.
//!
//! Callers pass the file's text in; this crate reads no file and no environment
//! variable (the CLI does). Errors name the file, the line and the key, and say how to
//! fix it; unknown keys are errors; all problems are reported at once.
//!
//! ```
//! let text = r#"
//! [bot]
//! token = "UGYBot"
//! version = "1.0"
//! info_url = "https://ugy.example/bot"
//! operator = "UGY"
//! "#;
//! let settings = gleaner_config::parse(text, "gleaner.toml").unwrap();
//! assert_eq!(settings.bot.user_agent(), "UGYBot/1.0 (+https://ugy.example/bot)");
//! ```

pub mod bounds;
pub mod budget_check;
pub mod error;
pub mod identity;
pub mod llm;
pub mod locate;
pub mod owners;
pub mod raw;
pub mod relay;
pub mod resolve;
pub mod secret;
pub mod server_limits;
pub mod settings;
pub mod site_rules;
pub mod sources;
pub mod summary;
pub mod units;

pub use error::{ConfigError, Problem};
pub use secret::{Secret, redact_text, redact_url};
pub use settings::Settings;

/// Parses and validates a configuration file's text. `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Settings, ConfigError> {
    let raw: raw::RawConfig = toml::from_str(text).map_err(|e| {
        let (line, column) = e.span().map(|s| locate::line_column(text, s.start)).unzip();
        let message = e.message().trim_end().to_owned();
        let hint = message.contains("unknown field").then(|| {
            "check the spelling; every key gleaner reads is listed in examples/gleaner.toml"
                .to_owned()
        });
        ConfigError {
            file: file.to_owned(),
            problems: vec![Problem { key: String::new(), line, column, message, hint }],
        }
    })?;
    resolve::resolve(raw).map_err(|problems| {
        let mut problems: Vec<Problem> = problems
            .into_iter()
            .map(|mut p| {
                if let Some((line, column)) = locate::locate(text, &p.key) {
                    p.line = Some(line);
                    p.column = Some(column);
                }
                p
            })
            .collect();
        problems.sort_by_key(|p| p.line.unwrap_or(usize::MAX));
        ConfigError { file: file.to_owned(), problems }
    })
}
