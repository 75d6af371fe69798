//! Rate limits per client that a flood of addresses cannot reset (issue 26 item 3).
//!
//! The old limiter cleared its whole table past 10 000 addresses, so 10 050 posts from
//! distinct loopback addresses gave every address a fresh budget; IPv6 clients were
//! counted per /128. Here a client is counted in bounded buckets per prefix: an IPv4
//! address in its /32 and in its /24 (which gets [`PREFIX_FACTOR`] times the limit, for
//! a household or office behind several addresses), an IPv6 client in its /64. A bucket
//! leaves the table only once its newest entry is older than the window (eviction by
//! age, never all at once); when the table is full of live buckets, clients it does not
//! know yet share one overflow bucket, so a flood of new addresses throttles only
//! itself.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How many times the per-client limit an IPv4 /24 may use.
pub const PREFIX_FACTOR: u32 = 4;

/// Buckets kept at most (each a few dozen bytes plus its timestamps).
pub const CAPACITY: usize = 10_000;

/// A bucket's key: a prefix of the client's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Prefix {
    /// One IPv4 address.
    V4([u8; 4]),
    /// An IPv4 /24.
    V4Net([u8; 3]),
    /// An IPv6 /64.
    V6([u8; 8]),
    /// Clients the full table has no room for.
    Overflow,
}

/// The buckets that count `ip`, each with its share of `limit`.
fn prefixes(ip: IpAddr, limit: u32) -> Vec<(Prefix, u32)> {
    let ip = match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
        v4 => v4,
    };
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            vec![
                (Prefix::V4(o), limit),
                (Prefix::V4Net([o[0], o[1], o[2]]), limit.saturating_mul(PREFIX_FACTOR)),
            ]
        }
        IpAddr::V6(v6) => {
            let mut p = [0u8; 8];
            p.copy_from_slice(&v6.octets()[..8]);
            vec![(Prefix::V6(p), limit)]
        }
    }
}

#[derive(Debug, Default)]
struct Table {
    buckets: HashMap<Prefix, VecDeque<Instant>>,
    /// When expired buckets were last swept (at most once a second when full).
    swept: Option<Instant>,
}

impl Table {
    fn prune(times: &mut VecDeque<Instant>, now: Instant, window: Duration) {
        while times.front().is_some_and(|t| now.saturating_duration_since(*t) >= window) {
            times.pop_front();
        }
    }

    /// Makes room by dropping buckets whose newest entry left the window.
    fn sweep(&mut self, now: Instant, window: Duration) {
        if self.swept.is_some_and(|t| now.saturating_duration_since(t) < Duration::from_secs(1)) {
            return;
        }
        self.swept = Some(now);
        self.buckets.retain(|prefix, times| {
            *prefix == Prefix::Overflow
                || times.back().is_some_and(|t| now.saturating_duration_since(*t) < window)
        });
    }
}

/// Events (submissions, failed logins) per client in a sliding window.
#[derive(Debug)]
pub struct RateLimiter {
    limit: u32,
    window: Duration,
    capacity: usize,
    table: Mutex<Table>,
}

impl RateLimiter {
    /// `limit` events per `window` per client, in at most [`CAPACITY`] buckets.
    pub fn new(limit: u32, window: Duration) -> RateLimiter {
        RateLimiter::with_capacity(limit, window, CAPACITY)
    }

    /// [`RateLimiter::new`] with another table size (tests).
    pub fn with_capacity(limit: u32, window: Duration, capacity: usize) -> RateLimiter {
        RateLimiter {
            limit,
            window,
            capacity: capacity.max(2),
            table: Mutex::new(Table::default()),
        }
    }

    /// The window.
    pub fn window(&self) -> Duration {
        self.window
    }

    /// Counts one event from `ip` at `now`; false when one of its buckets is full (and
    /// then nothing is counted).
    pub fn allow(&self, ip: IpAddr, now: Instant) -> bool {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        let mut keys = prefixes(ip, self.limit);
        if keys.iter().any(|(k, _)| !table.buckets.contains_key(k))
            && table.buckets.len() + keys.len() > self.capacity
        {
            table.sweep(now, self.window);
        }
        // Buckets the table has no room for count in the shared overflow bucket.
        let mut room = self.capacity.saturating_sub(table.buckets.len());
        let mut overflowed = false;
        for (key, limit) in &mut keys {
            if table.buckets.contains_key(key) {
                continue;
            }
            if room > 0 {
                room -= 1;
            } else {
                *key = Prefix::Overflow;
                *limit = self.limit;
                overflowed = true;
            }
        }
        if overflowed {
            keys.dedup_by_key(|(k, _)| *k);
        }
        let window = self.window;
        let full = keys.iter().any(|(key, limit)| {
            table.buckets.get_mut(key).is_some_and(|times| {
                Table::prune(times, now, window);
                times.len() >= *limit as usize
            })
        });
        if full {
            return false;
        }
        for (key, _) in keys {
            table.buckets.entry(key).or_default().push_back(now);
        }
        true
    }

    /// Forgets `ip`'s own bucket (a successful sign-in clears its failures); its /24
    /// keeps counting.
    pub fn forget(&self, ip: IpAddr) {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((own, _)) = prefixes(ip, self.limit).first() {
            table.buckets.remove(own);
        }
    }

    /// Whether `ip` may have one more event now, without counting one.
    pub fn would_allow(&self, ip: IpAddr, now: Instant) -> bool {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        let window = self.window;
        !prefixes(ip, self.limit).into_iter().any(|(key, limit)| {
            table.buckets.get_mut(&key).is_some_and(|times| {
                Table::prune(times, now, window);
                times.len() >= limit as usize
            })
        })
    }

    /// Buckets held (tests and metrics).
    pub fn buckets(&self) -> usize {
        self.table.lock().unwrap_or_else(|p| p.into_inner()).buckets.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_rate_limit_counts_per_address_in_a_window() {
        let limiter = RateLimiter::new(2, Duration::from_secs(60));
        let (a, b) = (ip("127.0.0.1"), ip("127.0.0.2"));
        let t = Instant::now();
        assert!(limiter.allow(a, t));
        assert!(limiter.allow(a, t));
        assert!(!limiter.allow(a, t), "third in the window");
        assert!(limiter.allow(b, t), "another address has its own count");
        assert!(limiter.allow(a, t + Duration::from_secs(61)), "the window moved on");
    }

    /// Issue 26: 10 050 posts from distinct addresses cleared the table and every
    /// address, the spent one included, had a fresh budget.
    #[test]
    fn issue26_a_flood_of_addresses_does_not_reset_anyone() {
        let limiter = RateLimiter::new(2, Duration::from_secs(3600));
        let t = Instant::now();
        let victim = ip("127.0.0.1");
        assert!(limiter.allow(victim, t) && limiter.allow(victim, t));
        assert!(!limiter.allow(victim, t), "spent");
        let mut accepted = 0;
        for i in 0..10_050u32 {
            let flood = IpAddr::from([10, (i >> 8) as u8, (i & 255) as u8, 1]);
            accepted += u32::from(limiter.allow(flood, t));
        }
        assert!(!limiter.allow(victim, t), "still spent after the flood");
        assert!(
            limiter.buckets() <= CAPACITY + 1,
            "bounded (and one overflow bucket): {}",
            limiter.buckets()
        );
        assert!(accepted < 10_050, "past the table's room the flood shares one bucket");
        // Positive control: the window passing frees everyone, the victim included.
        assert!(limiter.allow(victim, t + Duration::from_secs(3601)));
    }

    #[test]
    fn ipv6_counts_by_64_and_ipv4_by_24_too() {
        let limiter = RateLimiter::new(2, Duration::from_secs(60));
        let t = Instant::now();
        assert!(limiter.allow(ip("2001:db8:1:2::1"), t));
        assert!(limiter.allow(ip("2001:db8:1:2::2"), t));
        assert!(!limiter.allow(ip("2001:db8:1:2:ffff::3"), t), "one /64");
        assert!(limiter.allow(ip("2001:db8:1:3::1"), t), "the next /64 is another client");
        // A /24 gets four times the limit, however many addresses it spreads over.
        for n in 1..=8 {
            assert!(limiter.allow(IpAddr::from([192, 0, 2, n]), t), "address {n}");
        }
        assert!(!limiter.allow(ip("192.0.2.9"), t), "the /24 is spent");
        assert!(limiter.allow(ip("192.0.3.9"), t), "another /24");
    }

    #[test]
    fn expired_buckets_make_room_by_age_and_live_ones_stay() {
        let limiter = RateLimiter::with_capacity(1, Duration::from_secs(60), 4);
        let t = Instant::now();
        let net = |n: u16| IpAddr::from([0x2001, 0xdb8, 0, n, 0, 0, 0, 1]);
        assert!(limiter.allow(net(0), t));
        assert!(limiter.allow(net(1), t + Duration::from_secs(30)));
        let later = t + Duration::from_secs(70);
        assert!(limiter.allow(net(2), later) && limiter.allow(net(3), later), "room for two");
        // Full: the bucket whose window passed leaves, and the newcomer takes its place.
        assert!(limiter.allow(net(4), later), "an expired bucket made room");
        assert!(!limiter.allow(net(4), later), "with a bucket of its own");
        assert!(!limiter.allow(net(1), later), "the live bucket stayed");
        // No room and nothing expired: newcomers share one overflow bucket.
        assert!(limiter.allow(net(5), later));
        assert!(!limiter.allow(net(6), later), "the overflow bucket is spent");
        assert!(limiter.buckets() <= 5, "the table plus the overflow bucket");
    }
}
