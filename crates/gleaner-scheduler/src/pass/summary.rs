//! What a pass over many sites tells people: totals, the sites with problems, and the
//! requests a cap or a quota left for later (never silently).

use gleaner_policy::budget::WaitReason;

use super::PassReport;

/// One site of a pass that did not go cleanly: requests that failed, were given up,
/// refused or left for the next pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteProblem {
    /// The site's key (scheme, host and port).
    pub site: String,
    /// Requests that got no response.
    pub failed: u32,
    /// URLs given up once their retries were spent.
    pub given_up: u32,
    /// Requests the gate or the pass refused.
    pub refused: u32,
    /// Requests left for the next pass.
    pub requeued: u32,
    /// Crawls of the site that ended in a panic (a bug; the log says more): what they
    /// had queued waits for the next pass.
    pub crashed: u32,
}

impl SiteProblem {
    /// A site with nothing to report yet.
    pub(super) fn none(site: &str) -> SiteProblem {
        SiteProblem { site: site.to_owned(), ..SiteProblem::default() }
    }

    /// The problems of one site's crawl, from its report.
    pub(super) fn of(site: &str, report: &PassReport) -> SiteProblem {
        SiteProblem {
            site: site.to_owned(),
            failed: report.failed,
            given_up: report.given_up,
            refused: report.refusals.values().sum(),
            requeued: report.requeued,
            crashed: 0,
        }
    }

    /// Whether anything went wrong.
    pub fn any(&self) -> bool {
        self.failed + self.given_up + self.refused + self.requeued + self.crashed > 0
    }

    pub(super) fn add(&mut self, other: &SiteProblem) {
        self.failed += other.failed;
        self.given_up += other.given_up;
        self.refused += other.refused;
        self.requeued += other.requeued;
        self.crashed += other.crashed;
    }
}

impl std::fmt::Display for SiteProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {} failed, {} given up, {} refused, {} re-queued",
            self.site, self.failed, self.given_up, self.refused, self.requeued
        )?;
        if self.crashed > 0 {
            write!(f, ", {} crawl(s) crashed", self.crashed)?;
        }
        Ok(())
    }
}

/// What held requests back for a later pass (the gate's reason for deferring).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HoldKind {
    /// The global daily cap (`politeness.global_daily_cap`) is used up.
    GlobalDailyCap,
    /// A site's daily quota is used up.
    DayQuota,
    /// A site's rolling-hour quota is used up.
    HourQuota,
    /// A site's visits for the day are used up.
    VisitsPerDay,
    /// Too soon after the site's last pass.
    PassInterval,
    /// Inside the site's quiet hours.
    QuietHours,
    /// Outside the visit times the site's robots.txt gives (`Visit-time`, `Request-rate`'s window).
    VisitTime,
    /// The site is suspended after a 429 or 503.
    Suspended,
    /// The site's gap or in-flight cap would start the request after the time limit.
    Spacing,
    /// Anything else (an owner's pause, robots.txt not yet known, the state unreadable).
    Other,
}

impl HoldKind {
    /// The kind of a gate's wait reason.
    pub fn of(reason: Option<&WaitReason>) -> HoldKind {
        match reason {
            Some(WaitReason::GlobalDailyCap { .. }) => HoldKind::GlobalDailyCap,
            Some(WaitReason::DayQuota { .. }) => HoldKind::DayQuota,
            Some(WaitReason::HourQuota { .. }) => HoldKind::HourQuota,
            Some(WaitReason::VisitsPerDay { .. }) => HoldKind::VisitsPerDay,
            Some(WaitReason::PassInterval) => HoldKind::PassInterval,
            Some(WaitReason::QuietHours) => HoldKind::QuietHours,
            Some(WaitReason::Suspended { .. }) => HoldKind::Suspended,
            Some(WaitReason::OutsideVisitTime { .. }) => HoldKind::VisitTime,
            Some(
                WaitReason::Spacing { .. }
                | WaitReason::RequestRate { .. }
                | WaitReason::InFlight { .. },
            ) => HoldKind::Spacing,
            None => HoldKind::Other,
        }
    }

    /// Whether this hold is a cap or a quota the operator configured (said in one line
    /// in the summary and the log).
    pub fn is_cap_or_quota(self) -> bool {
        matches!(
            self,
            HoldKind::GlobalDailyCap
                | HoldKind::DayQuota
                | HoldKind::HourQuota
                | HoldKind::VisitsPerDay
        )
    }
}

/// Requests held back by one [`HoldKind`] in a pass.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    /// Sites whose crawl it stopped.
    pub sites: u32,
    /// Requests left for later.
    pub requests: u32,
    /// The cap or quota, when it has one.
    pub cap: Option<u32>,
}

fn cap_of(reason: Option<&WaitReason>) -> Option<u32> {
    match reason {
        Some(
            WaitReason::GlobalDailyCap { cap }
            | WaitReason::DayQuota { cap }
            | WaitReason::HourQuota { cap }
            | WaitReason::VisitsPerDay { cap },
        ) => Some(*cap),
        _ => None,
    }
}

impl PassReport {
    /// Notes that the gate deferred a site's crawl for `reason`, leaving `left` requests.
    pub(super) fn note_hold(&mut self, reason: Option<&WaitReason>, left: u32) {
        let held = self.held.entry(HoldKind::of(reason)).or_default();
        held.sites += 1;
        held.requests += left;
        held.cap = held.cap.or(cap_of(reason));
    }

    /// Adds one site's crawl to the pass's totals.
    pub(super) fn absorb(&mut self, site: PassReport) {
        self.listing_pages += site.listing_pages;
        self.event_pages += site.event_pages;
        self.responses += site.responses;
        self.not_modified += site.not_modified;
        self.events_new += site.events_new;
        self.events_updated += site.events_updated;
        self.events_unchanged += site.events_unchanged;
        self.gone += site.gone;
        for (reason, n) in site.refusals {
            *self.refusals.entry(reason).or_default() += n;
        }
        for (kind, n) in site.refused {
            *self.refused.entry(kind).or_default() += n;
        }
        self.requeued += site.requeued;
        self.failed += site.failed;
        self.retried += site.retried;
        self.given_up += site.given_up;
        self.news += site.news;
        self.errors.extend(site.errors);
        for (kind, held) in site.held {
            let mine = self.held.entry(kind).or_default();
            mine.sites += held.sites;
            mine.requests += held.requests;
            mine.cap = mine.cap.or(held.cap);
        }
    }

    /// What the pass left for the next one, for the summary line: the requests
    /// re-queued, and the URLs among them kept in the store to be asked first.
    pub fn left_for_next_pass(&self) -> String {
        format!("{} re-queued ({} kept for next pass)", self.requeued, self.kept)
    }

    /// One line per cap or quota that stopped part of this pass, with the count left
    /// for later, for the crawl summary and the log. Empty when none did.
    pub fn hold_lines(&self) -> Vec<String> {
        self.held
            .iter()
            .filter(|(kind, _)| kind.is_cap_or_quota())
            .map(|(kind, held)| {
                let what = match kind {
                    HoldKind::GlobalDailyCap => "the global daily cap",
                    HoldKind::DayQuota => "the sites' daily quota",
                    HoldKind::HourQuota => "the sites' hourly quota",
                    _ => "the sites' visits per day",
                };
                let cap = held.cap.map(|c| format!(" ({c} requests)")).unwrap_or_default();
                let next = if *kind == HoldKind::GlobalDailyCap {
                    "; raise politeness.global_daily_cap (`gleaner config check` estimates it)"
                } else {
                    ""
                };
                format!(
                    "source `{}`: {what}{cap} was reached: {} requests at {} sites left for a later pass{next}",
                    self.source, held.requests, held.sites
                )
            })
            .collect()
    }
}
