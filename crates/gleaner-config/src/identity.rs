//! `[identity]`: signed requests, so a site owner can verify that a request claiming to be
//! this bot is this bot (HTTP Message Signatures, RFC 9421, as profiled by the Web Bot Auth
//! drafts of the IETF webbotauth working group).
//!
//! Off unless the table is present. The private keys never live in the config: each key
//! names a file (`key_file`, PKCS#8 PEM, as `gleaner identity new` writes it) or an
//! environment variable holding that PEM text (`key_env`). This crate reads neither; the
//! binary loads them with [`crate::Settings::load_identity_keys`].
//!
//! ```toml
//! [identity]
//! key_file = "keys/bot-2026.pem"          # or key_env = "GLEANER_SIGNING_KEY"
//! # agent = "https://bot.example.org"      # Signature-Agent; default: the origin of bot.info_url
//! # validity = "60s"                       # each signature's lifetime (at most 60 s)
//!
//! # Rotation: several keys with overlapping validity; the newest valid one signs,
//! # every one not yet expired is published in the key directory.
//! [[identity.keys]]
//! key_file = "keys/bot-2027.pem"
//! not_before = "2027-01-01T00:00:00Z"
//! ```

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde::Deserialize;
use url::Url;

use crate::Problem;
use crate::secret::Secret;
use crate::units::parse_duration;

/// The longest a signature may be valid (the Web Bot Auth profile asks for short-lived ones).
pub const MAX_VALIDITY: Duration = Duration::from_secs(60);

/// `[identity]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawIdentity {
    /// The `Signature-Agent`: the origin serving the key directory.
    pub agent: Option<String>,
    /// How long each signature is valid (`60s` at most).
    pub validity: Option<String>,
    /// One key's PEM file (shorthand for a single `[[identity.keys]]`).
    pub key_file: Option<PathBuf>,
    /// One key's environment variable (shorthand for a single `[[identity.keys]]`).
    pub key_env: Option<String>,
    /// Keys for rotation.
    #[serde(default)]
    pub keys: Vec<RawKey>,
}

/// One `[[identity.keys]]` entry.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKey {
    /// A PKCS#8 PEM file.
    pub key_file: Option<PathBuf>,
    /// An environment variable holding the PEM text.
    pub key_env: Option<String>,
    /// When the key starts signing (RFC 3339); default: always.
    pub not_before: Option<String>,
    /// When the key stops signing and leaves the directory (RFC 3339); default: never.
    pub not_after: Option<String>,
}

/// Where a key's PEM text comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    /// A file, relative to the configuration file's folder unless absolute.
    File(PathBuf),
    /// An environment variable.
    Env(String),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::File(p) => write!(f, "key file `{}`", p.display()),
            KeySource::Env(n) => write!(f, "environment variable `{n}`"),
        }
    }
}

/// One signing key as configured, and its PEM text once loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySpec {
    /// Where it comes from.
    pub source: KeySource,
    /// When it starts signing.
    pub not_before: Option<SystemTime>,
    /// When it stops signing.
    pub not_after: Option<SystemTime>,
    /// The PKCS#8 PEM text, once [`crate::Settings::load_identity_keys`] has read it.
    pub pem: Option<Secret>,
}

/// The resolved `[identity]`.
#[derive(Debug, Clone, PartialEq)]
pub struct IdentitySettings {
    /// The `Signature-Agent` origin (where `/.well-known/http-message-signatures-directory` is).
    pub agent: Url,
    /// Each signature's lifetime.
    pub validity: Duration,
    /// The keys, in the order written.
    pub keys: Vec<KeySpec>,
}

impl IdentitySettings {
    /// The key directory's URL on the agent's origin.
    pub fn directory_url(&self) -> Url {
        self.agent
            .join("/.well-known/http-message-signatures-directory")
            .expect("a fixed absolute path joins any http(s) origin")
    }
}

/// Resolves `[identity]`; `None` when the table is absent.
pub fn resolve(
    raw: Option<&RawIdentity>,
    info_url: Option<&Url>,
    problems: &mut Vec<Problem>,
) -> Option<IdentitySettings> {
    let raw = raw?;
    let agent = match raw.agent.as_deref() {
        Some(text) => match Url::parse(text) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => origin(&u),
            _ => {
                problems.push(
                    Problem::at("identity.agent", format!("`{text}` is not an http(s) URL"))
                        .hint("write the origin that serves your key directory, e.g. `agent = \"https://bot.example.org\"`"),
                );
                return None;
            }
        },
        None => match info_url {
            Some(u) => origin(u),
            None => {
                problems.push(Problem::at("identity.agent", "no agent origin: `[bot] info_url` is missing too").hint("set `[identity] agent` to the origin that serves `/.well-known/http-message-signatures-directory`"));
                return None;
            }
        },
    };
    let validity = match raw.validity.as_deref().map(parse_duration) {
        None => MAX_VALIDITY,
        Some(Ok(d)) if d >= Duration::from_secs(5) && d <= MAX_VALIDITY => d,
        Some(Ok(_)) => {
            problems.push(
                Problem::at("identity.validity", "a signature must be valid for 5 s to 60 s")
                    .hint("the Web Bot Auth profile asks for short-lived signatures: `validity = \"60s\"`"),
            );
            MAX_VALIDITY
        }
        Some(Err(e)) => {
            problems.push(Problem::at("identity.validity", e));
            MAX_VALIDITY
        }
    };
    let mut keys = Vec::new();
    let shorthand = RawKey {
        key_file: raw.key_file.clone(),
        key_env: raw.key_env.clone(),
        not_before: None,
        not_after: None,
    };
    let has_shorthand = shorthand.key_file.is_some() || shorthand.key_env.is_some();
    let all = has_shorthand
        .then_some(("identity".to_owned(), &shorthand))
        .into_iter()
        .chain(raw.keys.iter().enumerate().map(|(i, k)| (format!("identity.keys[{i}]"), k)));
    for (path, k) in all {
        let source = match (&k.key_file, &k.key_env) {
            (Some(f), None) => KeySource::File(f.clone()),
            (None, Some(e)) if !e.trim().is_empty() => KeySource::Env(e.trim().to_owned()),
            _ => {
                problems.push(
                    Problem::at(path, "a key needs exactly one of `key_file` or `key_env`")
                        .hint("`gleaner identity new --out keys/bot.pem` writes a key; then `key_file = \"keys/bot.pem\"`"),
                );
                continue;
            }
        };
        let time = |key: &str, v: &Option<String>, problems: &mut Vec<Problem>| {
            v.as_deref().and_then(|t| match chrono::DateTime::parse_from_rfc3339(t) {
                Ok(d) => Some(SystemTime::from(d)),
                Err(_) => {
                    problems.push(
                        Problem::at(
                            format!("{path}.{key}"),
                            format!("`{t}` is not an RFC 3339 time"),
                        )
                        .hint("e.g. `2027-01-01T00:00:00Z`"),
                    );
                    None
                }
            })
        };
        let not_before = time("not_before", &k.not_before, problems);
        let not_after = time("not_after", &k.not_after, problems);
        if let (Some(a), Some(b)) = (not_before, not_after)
            && b <= a
        {
            problems.push(Problem::at(
                format!("{path}.not_after"),
                "`not_after` must be later than `not_before`",
            ));
        }
        keys.push(KeySpec { source, not_before, not_after, pem: None });
    }
    if keys.is_empty() && problems.iter().all(|p| !p.key.starts_with("identity")) {
        problems.push(
            Problem::at("identity", "`[identity]` names no key")
                .hint("`gleaner identity new --out keys/bot.pem`, then `key_file = \"keys/bot.pem\"` (or remove `[identity]` to send unsigned requests)"),
        );
    }
    Some(IdentitySettings { agent, validity, keys })
}

fn origin(u: &Url) -> Url {
    let mut o = u.clone();
    o.set_path("/");
    o.set_query(None);
    o.set_fragment(None);
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawIdentity {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn a_key_file_and_the_info_url_origin() {
        let info = Url::parse("https://bot.example.org/about?x=1").unwrap();
        let mut problems = Vec::new();
        let s = resolve(Some(&raw("key_file = \"k.pem\"")), Some(&info), &mut problems).unwrap();
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(s.agent.as_str(), "https://bot.example.org/");
        assert_eq!(
            s.directory_url().as_str(),
            "https://bot.example.org/.well-known/http-message-signatures-directory"
        );
        assert_eq!(s.validity, MAX_VALIDITY);
        assert_eq!(s.keys[0].source, KeySource::File("k.pem".into()));
    }

    #[test]
    fn bad_identities_are_refused_with_their_key() {
        for (text, key) in [
            ("", "identity"),
            ("key_file = \"a\"\nkey_env = \"B\"", "identity"),
            ("key_env = \"K\"\nvalidity = \"5m\"", "identity.validity"),
            ("key_env = \"K\"\nagent = \"ftp://x\"", "identity.agent"),
            ("[[keys]]\nkey_env = \"K\"\nnot_before = \"soon\"", "identity.keys[0].not_before"),
        ] {
            let mut problems = Vec::new();
            let info = Url::parse("https://bot.example.org/").unwrap();
            resolve(Some(&raw(text)), Some(&info), &mut problems);
            assert!(problems.iter().any(|p| p.key == key), "{text}: {problems:?}");
        }
    }
}
