//! When the daemon's work is due (SPEC §1 "Errors", §3, §4, §7): a source's pass under
//! its schedule, its failure streak and the operator's controls; the two checks on their
//! `[checks]` intervals; retention once a day. Both ways of running the daemon ask
//! here — `gleaner run` on SQLite (passes in the process) and the scheduler role on
//! PostgreSQL (items queued for workers) — so they cannot drift apart.
// A failed read or write of the schedule is reported and the loop goes on: stderr is the
// daemon's log.
#![allow(clippy::print_stderr)]

use std::time::{Duration, SystemTime};

use gleaner_config::Settings;
use gleaner_config::sources::{Schedule, Source};
use gleaner_policy::Purpose;
use gleaner_store::{Store, WorkItem};
use url::Url;

use crate::PassReport;
use crate::checks::{CANCELLATION_RUN, LINK_CHECK_RUN};
use crate::schedule::next_due;

/// The store key remembering when retention last ran.
pub const RETENTION_RUN: &str = "~retention";

/// How often retention runs.
pub const RETENTION_EVERY: Duration = Duration::from_secs(24 * 3600);

/// A failed run is restarted twice within minutes; after that the schedule applies, and
/// once a source has failed `limit` visits in a row it is tried at most once a day until
/// one succeeds (SPEC §1, "Errors").
pub fn due_with_failures(
    scheduled: SystemTime,
    last: Option<SystemTime>,
    streak: u32,
    limit: u32,
) -> SystemTime {
    let Some(last) = last else { return scheduled };
    match streak {
        0 => scheduled,
        1 | 2 => scheduled.min(last + Duration::from_secs(3 * 60)),
        n if n >= limit => scheduled.max(last + Duration::from_secs(24 * 3600)),
        _ => scheduled,
    }
}

/// A failed visit: the pass tried and got no successful response (SPEC §1, "Errors").
pub fn failed_visit(report: &PassReport) -> bool {
    use gleaner_policy::outcome::RefusalKind;
    let succeeded = report.listing_pages + report.event_pages + report.not_modified;
    let unreachable = report.refused.contains_key(&RefusalKind::RobotsUnreadable);
    succeeded == 0 && (report.failed > 0 || report.responses > 0 || unreachable)
}

/// The one-line summary of a pass, for the daemon's log.
pub fn pass_summary(report: &PassReport) -> String {
    format!(
        "gleaner: source `{}`: {} pages, {} new, {} updated, {} not modified, {} refused, {} retried, {} given up, {}",
        report.source,
        report.listing_pages + report.event_pages,
        report.events_new,
        report.events_updated,
        report.not_modified,
        report.refusals.values().sum::<u32>(),
        report.retried,
        report.given_up,
        report.left_for_next_pass()
    )
}

/// A source's due time under the operator's controls: `None` while the source is paused
/// (the scheduler skips it), `now` when the dashboard asked for a run (the request is
/// taken, so it starts one pass), else `due`.
pub async fn controlled_due(
    store: &Store,
    source: &str,
    due: SystemTime,
    now: SystemTime,
) -> Option<SystemTime> {
    let control = store.source_control(source).await.unwrap_or_default();
    if control.paused {
        return None;
    }
    if control.run_requested.is_some() {
        if let Err(error) = store.request_run(source, None, now).await {
            eprintln!("warning: failed to take the run request of `{source}`: {error}");
        }
        return Some(now);
    }
    Some(due)
}

/// When `source`'s next pass is due, from its last run and failure streak in the store
/// and the operator's controls; `None` while it is paused.
pub async fn source_due(
    store: &Store,
    settings: &Settings,
    source: &Source,
    now: SystemTime,
) -> Option<SystemTime> {
    let last = store.last_run(&source.id).await.ok().flatten();
    let zone = source.time_zone.unwrap_or(chrono_tz::UTC);
    let streak = store.failure_streak(&source.id).await.unwrap_or(0);
    let due = due_with_failures(
        next_due(&source.schedule, last, now, zone),
        last,
        streak,
        settings.politeness.failure_streak_limit,
    );
    controlled_due(store, &source.id, due, now).await
}

/// The enabled checks (SPEC §4): the store key of their runs, their interval, their
/// purpose.
pub fn checks(settings: &Settings) -> Vec<(&'static str, Duration, Purpose)> {
    [
        (CANCELLATION_RUN, settings.checks.cancellation_every, Purpose::CancellationCheck),
        (LINK_CHECK_RUN, settings.checks.link_check_every, Purpose::LinkCheck),
    ]
    .into_iter()
    .filter(|(_, _, purpose)| settings.purposes.enabled.contains(purpose))
    .collect()
}

/// When the work remembered under `run` (a check, retention) is next due, every `every`.
pub async fn every_due(store: &Store, run: &str, every: Duration, now: SystemTime) -> SystemTime {
    let last = store.last_run(run).await.ok().flatten();
    next_due(&Schedule::Every(every), last, now, chrono_tz::UTC)
}

/// The queue item of a source's pass: one per source (the URL names the source, so two
/// sources with the same start page are still two items).
pub fn pass_item(source: &Source) -> Option<WorkItem> {
    let url = Url::parse(&format!("gleaner:pass/{}", source.id)).ok()?;
    let site = source.start_urls.first().map_or_else(|| "~".to_owned(), gleaner_fetch::site_key);
    Some(WorkItem { site, url, purpose: Purpose::Listing, source: Some(source.id.clone()) })
}

/// The queue item of one cycle of a check.
pub fn check_item(purpose: Purpose) -> Option<WorkItem> {
    let url = Url::parse(&format!("gleaner:check/{purpose}")).ok()?;
    Some(WorkItem { site: "~checks".to_owned(), url, purpose, source: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_failed_runs_restart_twice_then_wait_then_daily() {
        let last = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let scheduled = last + Duration::from_secs(12 * 3600);
        assert_eq!(due_with_failures(scheduled, Some(last), 0, 5), scheduled);
        assert_eq!(due_with_failures(scheduled, Some(last), 1, 5), last + Duration::from_secs(180));
        assert_eq!(due_with_failures(scheduled, Some(last), 2, 5), last + Duration::from_secs(180));
        assert_eq!(due_with_failures(scheduled, Some(last), 3, 5), scheduled);
        assert_eq!(
            due_with_failures(scheduled, Some(last), 5, 5),
            last + Duration::from_secs(24 * 3600)
        );
        assert_eq!(
            due_with_failures(scheduled, None, 7, 5),
            scheduled,
            "never run: due as scheduled"
        );
    }
}
