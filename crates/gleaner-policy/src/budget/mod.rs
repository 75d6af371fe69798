//! The per-site budget: when may a request of purpose P start at a site, given
//! everything already sent there? Pure: the state, the rules and `now` come in, a
//! [`BudgetDecision`] with its reason comes out (SPEC §1, "The per-site budget").
//!
//! One [`SiteBudget`] per site is shared by every purpose, source, process and copy; the
//! gate keeps it behind a state trait and changes it only through [`reserve`] (before a
//! request is sent, so a crash can never spend it twice) and [`release`] (when it ends).
//!
//! Rules, in the order they are checked:
//! 1. purposes the profile does not enable are refused;
//! 2. a stored block (401/403, a challenge page) refuses until it ends;
//! 3. a suspension (429/503 `Retry-After`) holds every request until it ends;
//! 4. the in-flight caps (per site, per purpose);
//! 5. per-pass quotas (pagination included) and the pass interval and visits per day;
//! 6. spacing: a start no sooner than gap(P) after the last start of *any* purpose, where
//!    gap(P) = max(configured gap for P, Crawl-delay, T/n of every `Request-rate: n/T`)
//!    × owner slow-down + jitter;
//! 7. the rolling-hour quota, the calendar-day quota (in the site's zone) and the global
//!    daily cap;
//! 8. quiet hours: no request *starts* inside a local window; a start that would fall in
//!    one moves to its end (computed in the zone, so it stays right across DST changes);
//! 9. robots.txt windows: when the site states `Visit-time` (or a windowed
//!    `Request-rate`) windows, no request starts outside them; a start that would moves
//!    to the next window's opening (UTC), the line that says so named in the reason.
//!
//! Arithmetic on times and durations saturates at [`far_future`] (issue 26: a gap of
//! `18446744073709551615s` overflowed an addition), so no rule can make a decision panic;
//! the worst a huge setting does is make a site wait until the end of the calendar.

mod calendar;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::time::{Duration, SystemTime};

use chrono::{NaiveDate, NaiveTime};
use chrono_tz::Tz;

use crate::Purpose;
use crate::robots::{Pace, WindowLine};

pub use calendar::{local_date, next_local_midnight, quiet_window_end};

/// Seconds from the Unix epoch to 9999-12-31T23:59:59Z.
const FAR_FUTURE_SECS: u64 = 253_402_300_799;

/// The latest instant the budget computes with: 9999-12-31T23:59:59Z, the end of the
/// calendar the time-zone arithmetic works in. Every later time saturates to it.
pub fn far_future() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(FAR_FUTURE_SECS)
}

/// `t + d`, saturating at [`far_future`].
pub fn later_by(t: SystemTime, d: Duration) -> SystemTime {
    let end = far_future();
    t.checked_add(d).map_or(end, |sum| sum.min(end))
}

/// The numbers a site's budget obeys, resolved from the config for one site.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetRules {
    /// Gap between request starts when no purpose gap is set.
    pub gap: Duration,
    /// Per-purpose gaps that differ from `gap`.
    pub purpose_gaps: BTreeMap<Purpose, Duration>,
    /// The site's `Crawl-delay`, which only ever makes us slower.
    pub crawl_delay: Option<Duration>,
    /// The site's `Request-rate` and `Visit-time` lines, which only ever make us slower
    /// (empty for robots.txt itself and for sites that state none).
    pub robots_pace: Pace,
    /// An owner's slow-down factor (1 = none).
    pub slowdown: u32,
    /// Requests in flight at the site.
    pub max_in_flight: u32,
    /// Per-purpose in-flight caps (the image relay: 1).
    pub purpose_in_flight: BTreeMap<Purpose, u32>,
    /// Shortest time between two passes.
    pub min_pass_interval: Option<Duration>,
    /// Requests per pass, pagination included.
    pub requests_per_pass: Option<u32>,
    /// Requests per rolling hour.
    pub requests_per_hour: Option<u32>,
    /// Requests per calendar day in the site's zone.
    pub requests_per_day: Option<u32>,
    /// Passes per calendar day in the site's zone.
    pub visits_per_day: Option<u32>,
    /// Local windows `[start, end)` in which no request starts.
    pub quiet_hours: Vec<(NaiveTime, NaiveTime)>,
    /// The site's zone.
    pub time_zone: Tz,
    /// Requests per day across all sites.
    pub global_daily_cap: u32,
    /// Purposes the profile uses; others are refused.
    pub enabled: BTreeSet<Purpose>,
}

impl BudgetRules {
    /// The gap a request of `purpose` must keep after the last start at the site,
    /// before jitter.
    pub fn gap_for(&self, purpose: Purpose) -> Duration {
        let configured = self.purpose_gaps.get(&purpose).copied().unwrap_or(self.gap);
        let base = self.crawl_delay.map_or(configured, |delay| delay.max(configured));
        let base = self.robots_pace.rate_gap().map_or(base, |(rate, _)| rate.max(base));
        base.saturating_mul(self.slowdown.max(1))
    }

    /// The `Request-rate` line that sets the gap for `purpose`, when its `T/n` is longer
    /// than both the configured gap and the Crawl-delay.
    pub fn rate_line_for(&self, purpose: Purpose) -> Option<usize> {
        let configured = self.purpose_gaps.get(&purpose).copied().unwrap_or(self.gap);
        let base = self.crawl_delay.map_or(configured, |delay| delay.max(configured));
        self.robots_pace.rate_gap().filter(|(rate, _)| *rate > base).map(|(_, line)| line)
    }
}

/// Whether a request starts a new pass over the site, continues one, or is outside
/// passes (checks, the relay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassMark {
    /// Not part of a source's pass.
    None,
    /// The first request of a new pass.
    Start,
    /// A later request of the current pass (pagination, event pages).
    Continue,
}

/// The stored state of one site's budget.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteBudget {
    /// Start of the latest request of any purpose.
    pub last_start: Option<SystemTime>,
    /// Requests in flight, per purpose.
    pub in_flight: BTreeMap<Purpose, u32>,
    /// Starts within the last hour, oldest first.
    pub hour_starts: VecDeque<SystemTime>,
    /// The local day the day counters are for.
    pub day: Option<NaiveDate>,
    /// Requests started on `day`.
    pub day_requests: u32,
    /// Passes started on `day`.
    pub day_visits: u32,
    /// Start of the current pass.
    pub pass_started: Option<SystemTime>,
    /// Requests in the current pass.
    pub pass_requests: u32,
    /// No request until then (a 429/503 `Retry-After`), and why.
    pub suspended_until: Option<(SystemTime, String)>,
    /// Refused until then (401/403, challenge), and why.
    pub blocked_until: Option<(SystemTime, String)>,
}

impl SiteBudget {
    /// Requests in flight at the site, all purposes.
    pub fn total_in_flight(&self) -> u32 {
        self.in_flight.values().sum()
    }
}

/// The budget shared by all sites: the global daily cap.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalBudget {
    /// The day counted (in the zone the caller uses for the global cap).
    pub day: Option<NaiveDate>,
    /// Requests started that day.
    pub requests: u32,
}

/// Why a request must wait.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WaitReason {
    /// The site's gap since the last start.
    Spacing {
        /// The gap applied (jitter included).
        gap: Duration,
    },
    /// The in-flight cap is reached; wait for a request to end.
    InFlight {
        /// The cap.
        cap: u32,
    },
    /// The site is suspended after a 429/503.
    Suspended {
        /// Why.
        reason: String,
    },
    /// Inside quiet hours.
    QuietHours,
    /// The rolling-hour quota is used up.
    HourQuota {
        /// The cap.
        cap: u32,
    },
    /// The site's daily quota is used up until local midnight.
    DayQuota {
        /// The cap.
        cap: u32,
    },
    /// The global daily cap is used up.
    GlobalDailyCap {
        /// The cap.
        cap: u32,
    },
    /// Too soon after the last pass.
    PassInterval,
    /// The site's visits for the day are used up.
    VisitsPerDay {
        /// The cap.
        cap: u32,
    },
    /// The gap since the last start, set by the site's `Request-rate`.
    RequestRate {
        /// The gap applied (slow-down and jitter included).
        gap: Duration,
        /// The robots.txt line.
        line: usize,
    },
    /// Outside every window the site's robots.txt states (`Visit-time`, a windowed
    /// `Request-rate`): nothing starts until the next one opens.
    OutsideVisitTime {
        /// The window that opens next, and its line.
        next: WindowLine,
    },
}

impl WaitReason {
    /// A stable code for the reason (logs, `/metrics` labels, tests), never prose.
    pub fn code(&self) -> &'static str {
        match self {
            WaitReason::Spacing { .. } => "spacing",
            WaitReason::InFlight { .. } => "in-flight",
            WaitReason::Suspended { .. } => "suspended",
            WaitReason::QuietHours => "quiet-hours",
            WaitReason::HourQuota { .. } => "hour-quota",
            WaitReason::DayQuota { .. } => "day-quota",
            WaitReason::GlobalDailyCap { .. } => "global-daily-cap",
            WaitReason::PassInterval => "pass-interval",
            WaitReason::VisitsPerDay { .. } => "visits-per-day",
            WaitReason::RequestRate { .. } => "robots-request-rate",
            WaitReason::OutsideVisitTime { .. } => "robots-visit-time",
        }
    }
}

impl fmt::Display for WaitReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WaitReason::Spacing { gap } => {
                write!(f, "spacing: {} ms since the last request to this site", gap.as_millis())
            }
            WaitReason::InFlight { cap } => {
                write!(f, "{cap} request(s) already in flight to this site")
            }
            WaitReason::Suspended { reason } => write!(f, "site suspended: {reason}"),
            WaitReason::QuietHours => write!(f, "quiet hours in the site's time zone"),
            WaitReason::HourQuota { cap } => write!(f, "{cap} requests in the last hour"),
            WaitReason::DayQuota { cap } => write!(f, "{cap} requests today (site's time zone)"),
            WaitReason::GlobalDailyCap { cap } => {
                write!(f, "global daily cap of {cap} requests reached")
            }
            WaitReason::PassInterval => write!(f, "too soon after the last pass over this site"),
            WaitReason::VisitsPerDay { cap } => write!(f, "{cap} visits today"),
            WaitReason::RequestRate { gap, line } => write!(
                f,
                "spacing: {} ms since the last request to this site (robots.txt line {line} `request-rate`)",
                gap.as_millis()
            ),
            WaitReason::OutsideVisitTime { next } => {
                write!(f, "outside the site's visit times: robots.txt {next} opens next")
            }
        }
    }
}

/// Why a request is refused outright.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DenyReason {
    /// The profile does not use this purpose.
    PurposeNotEnabled(Purpose),
    /// The site blocked us.
    Blocked {
        /// Until when.
        until: SystemTime,
        /// Why.
        reason: String,
    },
    /// The pass used its requests; the rest waits for the next pass.
    PassQuota {
        /// The cap.
        cap: u32,
    },
}

impl DenyReason {
    /// The kind of refusal this is, for the audit log and `/metrics`.
    pub fn kind(&self) -> crate::outcome::RefusalKind {
        use crate::outcome::RefusalKind;
        match self {
            DenyReason::PurposeNotEnabled(_) => RefusalKind::PurposeDisabled,
            DenyReason::Blocked { .. } => RefusalKind::Blocked,
            DenyReason::PassQuota { .. } => RefusalKind::Quota,
        }
    }
}

impl fmt::Display for DenyReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DenyReason::PurposeNotEnabled(p) => {
                write!(f, "purpose `{p}` is not enabled in this profile")
            }
            DenyReason::Blocked { reason, .. } => write!(f, "site blocked: {reason}"),
            DenyReason::PassQuota { cap } => {
                write!(f, "this pass used its {cap} requests; the rest waits for the next pass")
            }
        }
    }
}

/// The budget's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BudgetDecision {
    /// Start now; call [`reserve`] before sending.
    Go,
    /// Not before `until` (`None`: until a request in flight ends).
    Wait {
        /// Earliest start, when known.
        until: Option<SystemTime>,
        /// Why.
        why: WaitReason,
    },
    /// Not at all, for now.
    Deny(DenyReason),
}

/// Decides whether a request of `purpose` may start at `now`. `jitter` is the random
/// extra gap drawn by the caller for this request (zero when the purpose has none).
pub fn decide(
    site: &SiteBudget,
    global: &GlobalBudget,
    rules: &BudgetRules,
    purpose: Purpose,
    pass: PassMark,
    now: SystemTime,
    jitter: Duration,
) -> BudgetDecision {
    if !rules.enabled.contains(&purpose) {
        return BudgetDecision::Deny(DenyReason::PurposeNotEnabled(purpose));
    }
    if let Some((until, reason)) = &site.blocked_until
        && *until > now
    {
        return BudgetDecision::Deny(DenyReason::Blocked { until: *until, reason: reason.clone() });
    }
    if let Some((until, reason)) = &site.suspended_until
        && *until > now
    {
        return BudgetDecision::Wait {
            until: Some(*until),
            why: WaitReason::Suspended { reason: reason.clone() },
        };
    }
    if site.total_in_flight() >= rules.max_in_flight {
        return BudgetDecision::Wait {
            until: None,
            why: WaitReason::InFlight { cap: rules.max_in_flight },
        };
    }
    if let Some(&cap) = rules.purpose_in_flight.get(&purpose)
        && site.in_flight.get(&purpose).copied().unwrap_or(0) >= cap
    {
        return BudgetDecision::Wait { until: None, why: WaitReason::InFlight { cap } };
    }
    let today = local_date(now, rules.time_zone);
    let same_day = site.day == Some(today);
    match pass {
        PassMark::Continue => {
            if let Some(cap) = rules.requests_per_pass
                && site.pass_requests >= cap
            {
                return BudgetDecision::Deny(DenyReason::PassQuota { cap });
            }
        }
        PassMark::Start => {
            if let (Some(interval), Some(started)) = (rules.min_pass_interval, site.pass_started) {
                let next = later_by(started, interval);
                if next > now {
                    return BudgetDecision::Wait {
                        until: Some(next),
                        why: WaitReason::PassInterval,
                    };
                }
            }
            if let Some(cap) = rules.visits_per_day
                && same_day
                && site.day_visits >= cap
            {
                let until = next_local_midnight(now, rules.time_zone);
                return BudgetDecision::Wait {
                    until: Some(until),
                    why: WaitReason::VisitsPerDay { cap },
                };
            }
        }
        PassMark::None => {}
    }

    // The earliest start that satisfies every time rule, and the rule that set it.
    let mut start = now;
    let mut why = None;
    let mut later = |candidate: SystemTime, reason: WaitReason, start: &mut SystemTime| {
        if candidate > *start {
            *start = candidate;
            why = Some(reason);
        }
    };
    if let Some(last) = site.last_start {
        let gap = rules.gap_for(purpose).saturating_add(jitter);
        let why = match rules.rate_line_for(purpose) {
            Some(line) => WaitReason::RequestRate { gap, line },
            None => WaitReason::Spacing { gap },
        };
        later(later_by(last, gap), why, &mut start);
    }
    if let Some(cap) = rules.requests_per_hour {
        let recent: Vec<&SystemTime> = site
            .hour_starts
            .iter()
            .filter(|t| now.duration_since(**t).is_ok_and(|d| d < Duration::from_secs(3600)))
            .collect();
        if recent.len() as u32 >= cap {
            // The oldest start still counted leaves the window an hour after it.
            let free_at = later_by(*recent[recent.len() - cap as usize], Duration::from_secs(3600));
            later(free_at, WaitReason::HourQuota { cap }, &mut start);
        }
    }
    if let Some(cap) = rules.requests_per_day
        && same_day
        && site.day_requests >= cap
    {
        later(next_local_midnight(now, rules.time_zone), WaitReason::DayQuota { cap }, &mut start);
    }
    if global.day == Some(local_date(now, Tz::UTC)) && global.requests >= rules.global_daily_cap {
        later(
            next_local_midnight(now, Tz::UTC),
            WaitReason::GlobalDailyCap { cap: rules.global_daily_cap },
            &mut start,
        );
    }
    // Quiet hours (ours, local) and the site's windows (UTC) each move the start later;
    // a few rounds settle any overlap. Unsettled, the wait ends at a time that is decided
    // again: no rule here ever lets a request start early.
    for _ in 0..4 {
        let before = start;
        if let Some(end) = quiet_window_end(start, rules.time_zone, &rules.quiet_hours) {
            later(end, WaitReason::QuietHours, &mut start);
        }
        if let Some((opens, next)) = rules.robots_pace.closed_until(start) {
            later(opens, WaitReason::OutsideVisitTime { next }, &mut start);
        }
        if start == before {
            break;
        }
    }
    match why {
        Some(why) if start > now => BudgetDecision::Wait { until: Some(start), why },
        _ => BudgetDecision::Go,
    }
}

/// Records a request as started, before it is sent: the next allowed start, in-flight
/// and quota counters all move now, so a crash after this point cannot spend them twice.
pub fn reserve(
    site: &mut SiteBudget,
    global: &mut GlobalBudget,
    rules: &BudgetRules,
    purpose: Purpose,
    pass: PassMark,
    now: SystemTime,
) {
    site.last_start = Some(site.last_start.map_or(now, |last| last.max(now)));
    *site.in_flight.entry(purpose).or_insert(0) += 1;
    while site
        .hour_starts
        .front()
        .is_some_and(|t| now.duration_since(*t).is_ok_and(|d| d >= Duration::from_secs(3600)))
    {
        site.hour_starts.pop_front();
    }
    site.hour_starts.push_back(now);
    let today = local_date(now, rules.time_zone);
    if site.day != Some(today) {
        site.day = Some(today);
        site.day_requests = 0;
        site.day_visits = 0;
    }
    site.day_requests += 1;
    match pass {
        PassMark::Start => {
            site.pass_started = Some(now);
            site.pass_requests = 1;
            site.day_visits += 1;
        }
        PassMark::Continue => site.pass_requests += 1,
        PassMark::None => {}
    }
    let utc_today = local_date(now, Tz::UTC);
    if global.day != Some(utc_today) {
        global.day = Some(utc_today);
        global.requests = 0;
    }
    global.requests += 1;
}

/// Records the end of a request started with [`reserve`] at `ended`: frees its in-flight
/// slot and measures the next gap from the later of its start and its end. The site
/// sees a request arrive some time after we reserve it (a slow connection, a busy
/// machine); anchoring the gap on the end as well means the site always sees at least
/// the configured gap, never less. It can only make us slower.
pub fn finish(site: &mut SiteBudget, purpose: Purpose, ended: SystemTime) {
    release(site, purpose);
    site.last_start = Some(site.last_start.map_or(ended, |last| last.max(ended)));
}

/// Frees the in-flight slot of a request started with [`reserve`] (see [`finish`]).
pub fn release(site: &mut SiteBudget, purpose: Purpose) {
    if let Some(count) = site.in_flight.get_mut(&purpose) {
        *count = count.saturating_sub(1);
        if *count == 0 {
            site.in_flight.remove(&purpose);
        }
    }
}

#[cfg(test)]
mod tests;
