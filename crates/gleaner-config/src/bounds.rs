//! Sane ranges for every duration, size and token the config takes (issue 26 item 6):
//! a value outside its range is a problem naming the key, never a panic or a hang later
//! (`gap = "18446744073709551615s"` once overflowed the budget, `gap = "10000000000d"`
//! chrono, and `max_body = "0B"` made every fetch fail). Ranges are keyed by the last
//! segment of the key path, so `politeness.gap`, `site_classes.X.gap` and
//! `politeness.purpose.P.gap` share one. Also: an outbound allow-list wider than
//! loopback or the private ranges needs `[network] allow_wide = true`.

use std::time::Duration;

use ipnet::IpNet;

use crate::Problem;

const SECOND: Duration = Duration::from_secs(1);
const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(86_400);

/// The longest duration any key takes (ten years): beyond it the calendar arithmetic of
/// the budget and the store has nothing sane to do.
pub const MAX_DURATION: Duration = Duration::from_secs(3650 * 86_400);

/// Longest product token (`[bot] token`) and operator token (`[dashboard] token`).
pub const MAX_BOT_TOKEN: usize = 64;
/// Longest dashboard token (`openssl rand -hex 64` still fits).
pub const MAX_DASHBOARD_TOKEN: usize = 128;

/// An inclusive range of durations, with a hint for values outside it.
#[derive(Debug, Clone, Copy)]
pub struct DurationRange {
    /// Shortest accepted.
    pub min: Duration,
    /// Longest accepted.
    pub max: Duration,
    /// What the value is for, to make the error say why.
    pub why: &'static str,
}

/// The range of the duration at `key` (a dotted path).
pub fn duration_range(key: &str) -> DurationRange {
    let last = key.rsplit('.').next().unwrap_or(key);
    let last = last.split('[').next().unwrap_or(last);
    let range = |min, max, why| DurationRange { min, max, why };
    match last {
        "gap" | "jitter" | "api_gap" => range(Duration::ZERO, DAY, "a gap between two requests"),
        "connect_timeout" | "response_deadline" | "timeout" => {
            range(Duration::from_millis(1), 10 * MINUTE, "a deadline of one request")
        }
        "run_time_limit" => range(SECOND, DAY, "the longest one pass may run"),
        "retry_after_default" | "retry_after_cap" | "max_retry_wait" => {
            range(SECOND, 30 * DAY, "a wait after a 429 or 503")
        }
        "block_duration" => range(MINUTE, 365 * DAY, "how long a 401/403 block holds"),
        "min_source_interval" | "cancellation_every" | "link_check_every" | "files_ttl" => {
            range(SECOND, 30 * DAY, "an interval between visits")
        }
        "header_read_timeout" | "idle_timeout" | "request_timeout" => {
            range(Duration::from_millis(100), 10 * MINUTE, "a limit on one client connection")
        }
        "keep_idle" => range(Duration::ZERO, HOUR, "how long an unused connection is kept"),
        "unverified_lapse" => range(HOUR, 365 * DAY, "how long an unproven owner request holds"),
        _ => range(Duration::ZERO, MAX_DURATION, "a duration"),
    }
}

/// Checks a parsed duration against its key's range.
pub fn check_duration(key: &str, value: Duration) -> Result<Duration, Problem> {
    let range = duration_range(key);
    if value < range.min || value > range.max {
        return Err(Problem::at(
            key,
            format!(
                "`{}` is out of range for {}: use {} to {}",
                humantime::format_duration(value),
                range.why,
                humantime::format_duration(range.min),
                humantime::format_duration(range.max)
            ),
        )
        .hint("durations are written like `2s`, `500ms`, `1h` or `7d`"));
    }
    Ok(value)
}

/// The inclusive range of the size at `key`, in bytes.
pub fn size_range(key: &str) -> (u64, u64) {
    let last = key.rsplit('.').next().unwrap_or(key);
    match last {
        // A robots.txt, a page or a calendar needs at least this much to say anything.
        "max_body" => (1024, 1 << 30),
        "max_request_body" => (1024, 16 << 20),
        _ => (0, 1 << 40),
    }
}

/// Checks a parsed size against its key's range.
pub fn check_size(key: &str, value: u64) -> Result<u64, Problem> {
    let (min, max) = size_range(key);
    if value < min || value > max {
        let show = |n: u64| bytesize::ByteSize::b(n).display().iec().to_string();
        return Err(Problem::at(
            key,
            format!("`{}` is out of range: use {} to {}", show(value), show(min), show(max)),
        )
        .hint("sizes are written like `8MiB` or `64KiB`"));
    }
    Ok(value)
}

/// The ranges an outbound allow-list may name without `allow_wide`: loopback and the
/// private ranges (RFC 1918, RFC 4193), each no wider than itself.
const NARROW: &[&str] =
    &["127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"];

/// Whether `net` lies inside loopback or one private range.
pub fn is_narrow(net: &IpNet) -> bool {
    NARROW.iter().filter_map(|n| n.parse::<IpNet>().ok()).any(|range| range.contains(net))
}

/// Problems for allow-list entries wider than loopback or a private range, unless the
/// operator said `allow_wide = true`. `key` is the list's key (`network.allow`).
pub fn check_allow(key: &str, nets: &[(usize, IpNet)], allow_wide: bool) -> Vec<Problem> {
    if allow_wide {
        return Vec::new();
    }
    nets.iter()
        .filter(|(_, net)| !is_narrow(net))
        .map(|(i, net)| {
            Problem::at(
                format!("{key}[{i}]"),
                format!("`{net}` reaches beyond loopback and the private ranges"),
            )
            .hint(
                "the address guard exists to keep gleaner off addresses it must not reach: narrow it \
                 (e.g. `127.0.0.0/8`), or set `allow_wide = true` in `[network]` to say you mean it",
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_by_the_last_key_segment() {
        assert!(check_duration("politeness.gap", DAY).is_ok());
        assert!(check_duration("site_classes.city.gap", DAY + SECOND).is_err());
        assert!(check_duration("politeness.purpose.event-page.gap", Duration::MAX).is_err());
        assert!(check_duration("politeness.purpose.x.jitter[1]", 2 * DAY).is_err());
        assert!(check_duration("limits.response_deadline", 11 * MINUTE).is_err());
        assert!(check_duration("retention.audit", 400 * DAY).is_ok());
        assert!(check_duration("retention.audit", MAX_DURATION + SECOND).is_err());
        assert!(check_size("limits.max_body", 0).is_err());
        assert!(check_size("limits.max_body", 1024).is_ok());
        assert!(check_size("site_classes.x.max_body", 2 << 30).is_err());
    }

    #[test]
    fn allow_lists_stay_inside_loopback_and_private_ranges() {
        let net = |s: &str| s.parse::<IpNet>().unwrap();
        for ok in ["127.0.0.0/8", "127.0.0.1/32", "::1/128", "10.0.0.0/8", "192.168.1.0/24"] {
            assert!(is_narrow(&net(ok)), "{ok}");
        }
        for wide in ["0.0.0.0/0", "::/0", "126.0.0.0/7", "8.8.8.8/32", "172.0.0.0/8"] {
            assert!(!is_narrow(&net(wide)), "{wide}");
        }
        let list = [(0, net("0.0.0.0/0"))];
        let problems = check_allow("network.allow", &list, false);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].key, "network.allow[0]");
        assert!(check_allow("network.allow", &list, true).is_empty());
    }
}

#[cfg(test)]
mod issue26 {
    const BOT: &str = "[bot]\ntoken = \"TestBot\"\nversion = \"1\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n";

    fn check(text: &str) -> String {
        match crate::parse(&format!("{BOT}{text}\n"), "t.toml") {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        }
    }

    /// The configs issue 26 found accepted: each is now refused with the key named.
    #[test]
    fn issue26_configs_that_broke_the_crawler_are_refused_with_the_key() {
        let huge_token = "A".repeat(10 * 1024 * 1024);
        let cases: Vec<(String, &str)> = vec![
            ("[politeness]\ngap = \"18446744073709551615s\"".into(), "politeness.gap"),
            ("[politeness]\ngap = \"10000000000d\"".into(), "politeness.gap"),
            ("[politeness]\ngap = \"2d\"".into(), "a gap between two requests"),
            ("[limits]\nresponse_deadline = \"1h\"".into(), "limits.response_deadline"),
            ("[limits]\nmax_body = \"0B\"".into(), "limits.max_body"),
            ("[network]\nallow = [\"0.0.0.0/0\"]".into(), "network.allow[0]"),
            ("[network]\nallow = [\"127.0.0.0/8\", \"::/0\"]".into(), "network.allow[1]"),
            ("[dashboard]\ntoken = \"".to_owned() + &huge_token + "\"", "dashboard.token"),
            ("[owners]\nunverified_lapse = \"1s\"".into(), "owners.unverified_lapse"),
        ];
        for (text, expected) in &cases {
            let found = check(text);
            assert!(found.contains(expected), "{}: {found}", &text[..text.len().min(60)]);
        }
        let long_bot = BOT.replace("TestBot", &"B".repeat(65));
        let found = match crate::parse(&long_bot, "t.toml") {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        assert!(found.contains("bot.token") && found.contains("64"), "{found}");
        // Positive controls: sane values and an explicit wide allow-list pass.
        for ok in [
            "[politeness]\ngap = \"1d\"",
            "[limits]\nmax_body = \"1KiB\"",
            "[network]\nallow = [\"0.0.0.0/0\"]\nallow_wide = true",
            "[network]\nallow = [\"127.0.0.0/8\", \"10.1.0.0/16\"]",
        ] {
            assert_eq!(check(ok), "", "{ok}");
        }
    }
}
