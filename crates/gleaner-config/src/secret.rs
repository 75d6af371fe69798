//! Secrets (API keys, tokens) and their redaction in every log line, error and record.
//!
//! A [`Secret`] never prints its value, not even with `{:?}`. URLs are printed through
//! [`redact_url`], which hides the values of secret query parameters (the configured
//! names, case-insensitive, plus any parameter whose value is a known secret) and any
//! password in the userinfo.

use std::fmt;

use url::Url;

/// The text shown in place of a secret.
pub const REDACTED: &str = "REDACTED";

/// A secret value read from the environment. Its `Debug` and `Display` print
/// `REDACTED`; use [`Secret::expose`] only where the value is sent.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a secret value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

/// Prints `url` with secret query values and any userinfo password replaced by
/// `REDACTED`. `secret_params` are lower-case parameter names; `known` are secret values
/// that are hidden wherever they appear in the query.
pub fn redact_url(url: &Url, secret_params: &[String], known: &[Secret]) -> String {
    let mut out = url.clone();
    if out.password().is_some() {
        let _ = out.set_password(Some(REDACTED));
    }
    if out.query().is_some() {
        let pairs: Vec<(String, String)> = out
            .query_pairs()
            .map(|(k, v)| {
                let secret = secret_params.iter().any(|s| s.eq_ignore_ascii_case(&k))
                    || known.iter().any(|s| !s.0.is_empty() && v == s.0.as_str());
                (k.into_owned(), if secret { REDACTED.to_owned() } else { v.into_owned() })
            })
            .collect();
        out.query_pairs_mut().clear().extend_pairs(pairs);
    }
    out.to_string()
}

/// Replaces every occurrence of a known secret value in free text (an error message
/// from a library, say) by `REDACTED`.
pub fn redact_text(text: &str, known: &[Secret]) -> String {
    known
        .iter()
        .filter(|s| s.0.len() >= 4)
        .fold(text.to_owned(), |acc, s| acc.replace(&s.0, REDACTED))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<String> {
        vec!["apikey".into(), "token".into()]
    }

    #[test]
    fn query_secrets_are_redacted_by_name_and_value() {
        let url =
            Url::parse("https://api.example/events?city=paris&ApiKey=s3cr3t&x=hunter22").unwrap();
        let shown = redact_url(&url, &params(), &[Secret::new("hunter22")]);
        assert_eq!(shown, "https://api.example/events?city=paris&ApiKey=REDACTED&x=REDACTED");
    }

    #[test]
    fn passwords_are_redacted_and_plain_urls_unchanged() {
        let url = Url::parse("https://user:pw@api.example/x").unwrap();
        assert_eq!(redact_url(&url, &params(), &[]), "https://user:REDACTED@api.example/x");
        let url = Url::parse("https://api.example/x?page=2").unwrap();
        assert_eq!(redact_url(&url, &params(), &[]), "https://api.example/x?page=2");
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("abcd1234");
        assert_eq!(format!("{s} {s:?}"), "REDACTED REDACTED");
        assert_eq!(redact_text("bad key abcd1234 given", &[s]), "bad key REDACTED given");
    }
}
