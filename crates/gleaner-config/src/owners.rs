//! `[owners]` (the public forms site owners use: where the operator is told, how big and
//! how frequent a submission may be, which nameserver proves control) and `[dashboard]`
//! (the operator's dashboard: on or off, and its token). The dashboard's address and the
//! environment variable of its token stay in `[server]`.

use std::net::SocketAddr;

use serde::Deserialize;
use url::Url;

use crate::Problem;
use crate::units::parse_size;

/// `[owners]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOwners {
    /// Where every submission is POSTed as JSON for the operator (`https://…`).
    pub webhook_url: Option<String>,
    /// The nameserver asked for proof-of-control TXT records (`IP:PORT`); the system's
    /// resolver configuration when unset.
    pub dns_nameserver: Option<String>,
    /// Largest form body accepted (`8KiB`).
    pub max_form_bytes: Option<String>,
    /// Submissions accepted per client address per hour.
    pub submissions_per_hour: Option<u32>,
    /// The operator's SMTP relay (`HOST:PORT`, plain SMTP, no login) for e-mail notices.
    pub smtp_server: Option<String>,
    /// Where e-mail notices go.
    pub email_to: Option<String>,
    /// The sender of e-mail notices (default: `[bot] contact`).
    pub email_from: Option<String>,
    /// How soon a removal request is carried out, as promised on the about page (`24h`).
    pub removal_within: Option<String>,
    /// How long an owner's unproven opt-out or slow-down holds unless proven or
    /// confirmed by the operator (`7d`).
    pub unverified_lapse: Option<String>,
}

/// `[dashboard]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawDashboard {
    /// Whether `gleaner run` starts the dashboard (on `[server] dashboard_address`).
    pub enabled: Option<bool>,
    /// The operator token; prefer the environment variable `[server]
    /// dashboard_token_env` names, which wins when both are set.
    pub token: Option<String>,
}

/// The resolved `[owners]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnersSettings {
    /// Where every submission is POSTed as JSON.
    pub webhook_url: Option<Url>,
    /// The nameserver asked for TXT records (`None`: the system's).
    pub dns_nameserver: Option<SocketAddr>,
    /// Largest form body accepted, in bytes.
    pub max_form_bytes: usize,
    /// Submissions accepted per client address per hour.
    pub submissions_per_hour: u32,
    /// E-mail notices: the SMTP relay (`host`, `port`), recipient and sender.
    pub email: Option<EmailSettings>,
    /// How soon a removal request is carried out, as promised (`None`: not promised).
    pub removal_within: Option<std::time::Duration>,
    /// How long a request that makes gleaner do less (opt-out, slow-down) holds when its
    /// sender has not proven control of the site and the operator has not confirmed it.
    pub unverified_lapse: std::time::Duration,
}

/// Where e-mail notices of owner submissions go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailSettings {
    /// The relay's host name or address.
    pub host: String,
    /// The relay's port.
    pub port: u16,
    /// The recipient.
    pub to: String,
    /// The sender.
    pub from: String,
}

impl Default for OwnersSettings {
    fn default() -> Self {
        OwnersSettings {
            webhook_url: None,
            dns_nameserver: None,
            max_form_bytes: 8 * 1024,
            submissions_per_hour: 10,
            email: None,
            removal_within: None,
            unverified_lapse: std::time::Duration::from_secs(7 * 86_400),
        }
    }
}

/// The resolved `[dashboard]`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DashboardSettings {
    /// Whether `gleaner run` starts the dashboard.
    pub enabled: bool,
    /// The token written in the config, if any (the environment wins).
    pub token: Option<String>,
}

/// Resolves `[owners]`, reporting bad values; `contact` is `[bot] contact` (the default
/// sender of e-mail notices).
pub fn resolve_owners(
    raw: &RawOwners,
    contact: Option<&str>,
    problems: &mut Vec<Problem>,
) -> OwnersSettings {
    let mut owners = OwnersSettings::default();
    if let Some(text) = &raw.removal_within {
        match crate::units::parse_duration(text) {
            Ok(d) if !d.is_zero() => owners.removal_within = Some(d),
            _ => problems.push(
                Problem::at("owners.removal_within", format!("`{text}` is not a duration"))
                    .hint("write how soon a removal is carried out, e.g. `24h` or `7d`"),
            ),
        }
    }
    match (&raw.smtp_server, &raw.email_to) {
        (None, None) => {}
        (Some(server), Some(to)) => {
            let parsed = server
                .rsplit_once(':')
                .and_then(|(h, p)| {
                    Some((h.trim_matches(['[', ']']).to_owned(), p.parse::<u16>().ok()?))
                })
                .filter(|(h, _)| !h.is_empty());
            let from = raw.email_from.clone().or_else(|| contact.map(str::to_owned));
            match (parsed, from) {
                (Some((host, port)), Some(from)) if to.contains('@') && from.contains('@') => {
                    owners.email = Some(EmailSettings { host, port, to: to.clone(), from });
                }
                (None, _) => problems.push(
                    Problem::at("owners.smtp_server", format!("`{server}` is not HOST:PORT"))
                        .hint("write the operator's SMTP relay, e.g. `127.0.0.1:25`"),
                ),
                _ => problems.push(
                    Problem::at("owners.email_to", "e-mail notices need a recipient and a sender address")
                        .hint("set `email_to`, and `email_from` or `[bot] contact`, to addresses like ops@example.org"),
                ),
            }
        }
        _ => problems.push(
            Problem::at("owners.smtp_server", "`smtp_server` and `email_to` go together")
                .hint("set both to send e-mail notices, or neither"),
        ),
    }
    if let Some(text) = &raw.webhook_url {
        match Url::parse(text) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => owners.webhook_url = Some(url),
            _ => problems.push(
                Problem::at("owners.webhook_url", format!("`{text}` is not an http(s) URL"))
                    .hint("write the full address the operator's webhook listens on, e.g. `https://ops.example/hooks/gleaner`"),
            ),
        }
    }
    if let Some(text) = &raw.dns_nameserver {
        match text.parse() {
            Ok(addr) => owners.dns_nameserver = Some(addr),
            Err(_) => problems.push(
                Problem::at("owners.dns_nameserver", format!("`{text}` is not an address"))
                    .hint("write `IP:PORT`, e.g. `9.9.9.9:53`, or remove the key to use the system's resolver"),
            ),
        }
    }
    if let Some(text) = &raw.max_form_bytes {
        match parse_size(text) {
            Ok(n) if (256..=1024 * 1024).contains(&n) => owners.max_form_bytes = n as usize,
            Ok(_) => problems.push(
                Problem::at("owners.max_form_bytes", format!("`{text}` is out of range"))
                    .hint("use a size between 256B and 1MiB; `8KiB` fits every form"),
            ),
            Err(e) => problems.push(Problem::at("owners.max_form_bytes", e)),
        }
    }
    if let Some(text) = &raw.unverified_lapse {
        match crate::units::parse_duration(text)
            .map_err(|e| Problem::at("owners.unverified_lapse", e))
            .and_then(|d| crate::bounds::check_duration("owners.unverified_lapse", d))
        {
            Ok(d) => owners.unverified_lapse = d,
            Err(problem) => problems.push(problem),
        }
    }
    if let Some(n) = raw.submissions_per_hour {
        if n == 0 {
            problems.push(
                Problem::at("owners.submissions_per_hour", "0 would close the forms")
                    .hint("use at least 1; owners must always be able to say no"),
            );
        } else {
            owners.submissions_per_hour = n;
        }
    }
    owners
}

/// Resolves `[dashboard]`.
pub fn resolve_dashboard(raw: &RawDashboard, problems: &mut Vec<Problem>) -> DashboardSettings {
    let token = raw.token.clone().filter(|t| !t.trim().is_empty());
    if let Some(t) = &token
        && t.chars().count() > crate::bounds::MAX_DASHBOARD_TOKEN
    {
        problems.push(
            Problem::at(
                "dashboard.token",
                format!(
                    "the dashboard token is longer than {} characters",
                    crate::bounds::MAX_DASHBOARD_TOKEN
                ),
            )
            .hint("use a long random token of a sane size, e.g. `openssl rand -hex 24`"),
        );
    }
    if let Some(t) = &token
        && t.len() < 16
    {
        problems.push(
            Problem::at("dashboard.token", "the dashboard token is shorter than 16 characters")
                .hint("use a long random token, e.g. `openssl rand -hex 24`"),
        );
    }
    DashboardSettings { enabled: raw.enabled.unwrap_or(false), token }
}

#[cfg(test)]
mod tests {
    fn problems(text: &str) -> String {
        match crate::parse(text, "t.toml") {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    const BOT: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n";

    #[test]
    fn owners_and_dashboard_keys_are_validated_with_hints() {
        let ok = crate::parse(
            &format!("{BOT}[owners]\nwebhook_url = \"http://127.0.0.1:9/h\"\ndns_nameserver = \"127.0.0.1:53\"\nmax_form_bytes = \"4KiB\"\nsubmissions_per_hour = 3\n[dashboard]\nenabled = true\ntoken = \"0123456789abcdef0123\"\n"),
            "t.toml",
        )
        .unwrap();
        assert_eq!(ok.owners.max_form_bytes, 4096);
        assert_eq!(ok.owners.submissions_per_hour, 3);
        assert_eq!(ok.owners.dns_nameserver, Some("127.0.0.1:53".parse().unwrap()));
        assert!(ok.dashboard.enabled);
        let mail = crate::parse(
            &format!("{BOT}contact = \"bot@t.example\"\n[owners]\nsmtp_server = \"127.0.0.1:2525\"\nemail_to = \"ops@t.example\"\n"),
            "t.toml",
        )
        .unwrap();
        let email = mail.owners.email.expect("e-mail notices");
        assert_eq!(
            (email.host.as_str(), email.port, email.from.as_str()),
            ("127.0.0.1", 2525, "bot@t.example")
        );
        let defaults = crate::parse(BOT, "t.toml").unwrap();
        assert!(!defaults.dashboard.enabled, "off unless asked for");
        assert_eq!(defaults.dashboard.token, None, "no default token");
        for (text, expected) in [
            ("[owners]\nwebhook_url = \"ftp://x\"", "owners.webhook_url"),
            ("[owners]\ndns_nameserver = \"nowhere\"", "owners.dns_nameserver"),
            ("[owners]\nmax_form_bytes = \"10MiB\"", "owners.max_form_bytes"),
            ("[owners]\nsubmissions_per_hour = 0", "owners must always be able to say no"),
            ("[dashboard]\ntoken = \"short\"", "openssl rand"),
            ("[owners]\nsmtp = \"x\"", "smtp"),
            ("[owners]\nsmtp_server = \"127.0.0.1:25\"", "go together"),
            ("[owners]\nsmtp_server = \"nowhere\"\nemail_to = \"ops@t.example\"", "HOST:PORT"),
        ] {
            let found = problems(&format!("{BOT}{text}\n"));
            assert!(found.contains(expected), "{text}: {found}");
        }
    }
}
