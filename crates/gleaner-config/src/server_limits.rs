//! `[server]` limits on clients, for both listeners (the public server and the
//! dashboard; issue 26 item 2): how long a client may take to send a request head, how
//! long a connection may stay silent, how long one request may take, how many
//! connections may be open at once overall and per client address, and how big a body
//! may be. The defaults let a browser or a feed reader through untouched and close what
//! only holds a socket.

use std::time::Duration;

use crate::Problem;
use crate::raw::RawServer;

/// The resolved limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Longest a client may take to send a complete request head, timed from the
    /// connection's start or the end of the previous response (so it also closes a
    /// kept-alive connection idle that long).
    pub header_read_timeout: Duration,
    /// Longest a connection may go without one byte read or written (a stalled body, a
    /// client that stopped reading).
    pub idle_timeout: Duration,
    /// Longest one request may take, its body and the handler included (408 after).
    pub request_timeout: Duration,
    /// Connections open at once per listener; past it new ones are closed at once.
    pub max_connections: u32,
    /// Connections open at once per client address (an IPv6 client by its /64).
    pub max_connections_per_client: u32,
    /// Largest request body, in bytes (413 beyond).
    pub max_request_body: u64,
}

impl Default for ServerLimits {
    fn default() -> Self {
        ServerLimits {
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_connections_per_client: 32,
            max_request_body: 64 * 1024,
        }
    }
}

/// Resolves the limits of `[server]`, reporting values out of range.
pub fn resolve(raw: &RawServer, problems: &mut Vec<Problem>) -> ServerLimits {
    let mut limits = ServerLimits::default();
    let mut duration = |key: &str, value: &Option<String>, slot: &mut Duration| {
        let Some(text) = value else { return };
        match crate::units::parse_duration(text)
            .map_err(|e| Problem::at(key, e))
            .and_then(|d| crate::bounds::check_duration(key, d))
        {
            Ok(d) => *slot = d,
            Err(problem) => problems.push(problem),
        }
    };
    duration(
        "server.header_read_timeout",
        &raw.header_read_timeout,
        &mut limits.header_read_timeout,
    );
    duration("server.idle_timeout", &raw.idle_timeout, &mut limits.idle_timeout);
    duration("server.request_timeout", &raw.request_timeout, &mut limits.request_timeout);
    if let Some(text) = &raw.max_request_body {
        match crate::units::parse_size(text)
            .map_err(|e| Problem::at("server.max_request_body", e))
            .and_then(|n| crate::bounds::check_size("server.max_request_body", n))
        {
            Ok(n) => limits.max_request_body = n,
            Err(problem) => problems.push(problem),
        }
    }
    match raw.max_connections {
        Some(n) if !(16..=1_000_000).contains(&n) => problems.push(
            Problem::at(
                "server.max_connections",
                format!("{n} is out of range: use 16 to 1000000"),
            )
            .hint("keep it below the process's open-file limit; the default is 1024"),
        ),
        Some(n) => limits.max_connections = n,
        None => {}
    }
    match raw.max_connections_per_client {
        Some(n) if n == 0 || n > limits.max_connections => problems.push(
            Problem::at(
                "server.max_connections_per_client",
                format!(
                    "{n} is out of range: use 1 to `max_connections` ({})",
                    limits.max_connections
                ),
            )
            .hint("a browser opens about 6 connections; the default is 32"),
        ),
        Some(n) => limits.max_connections_per_client = n,
        None => {}
    }
    limits
}

#[cfg(test)]
mod tests {
    fn parse(server: &str) -> Result<super::ServerLimits, String> {
        let text = format!(
            "[bot]\ntoken = \"TestBot\"\nversion = \"1\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n[server]\n{server}\n"
        );
        crate::parse(&text, "t.toml").map(|s| s.server.limits).map_err(|e| e.to_string())
    }

    #[test]
    fn limits_have_defaults_and_ranges() {
        let defaults = parse("").unwrap();
        assert_eq!(defaults, super::ServerLimits::default());
        let set = parse("header_read_timeout = \"2s\"\nidle_timeout = \"500ms\"\nmax_connections = 64\nmax_connections_per_client = 8\nmax_request_body = \"16KiB\"").unwrap();
        assert_eq!(set.header_read_timeout, std::time::Duration::from_secs(2));
        assert_eq!((set.max_connections, set.max_connections_per_client), (64, 8));
        assert_eq!(set.max_request_body, 16 * 1024);
        for (line, key) in [
            ("header_read_timeout = \"1h\"", "server.header_read_timeout"),
            ("idle_timeout = \"1ms\"", "server.idle_timeout"),
            ("max_connections = 0", "server.max_connections"),
            ("max_connections_per_client = 5000", "server.max_connections_per_client"),
            ("max_request_body = \"0B\"", "server.max_request_body"),
        ] {
            let error = parse(line).unwrap_err();
            assert!(error.contains(key), "{line}: {error}");
        }
    }
}
