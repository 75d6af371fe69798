//! When the daemon's work is due (SPEC §1 "Errors", §3, §4, §7): a source's pass under
//! its schedule, its failure streak and the operator's controls; the two checks on their
//! `[checks]` intervals; retention once a day. Both ways of running the daemon ask
//! here — `gleaner run` on SQLite (passes in the process) and the scheduler role on
//! PostgreSQL (items queued for workers) — so they cannot drift apart.
// A failed read or write of the schedule is reported and the loop goes on: stderr is the
// daemon's log.
#![allow(clippy::print_stderr)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use gleaner_config::Settings;
use gleaner_config::sources::{Schedule, Source};
use gleaner_policy::Purpose;
use gleaner_store::{RetentionPolicy, SourceControl, Store, WorkItem};
use url::Url;

use crate::checks::{
    CANCELLATION_RUN, DailyCap, LINK_CHECK_RUN, run_cancellation_check, run_link_check,
};
use crate::schedule::next_due;
use crate::{PassContext, PassReport};

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

/// What the store remembers of one kind of work (a source, a check, retention).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunRecord {
    /// When it last started, if ever.
    pub last: Option<SystemTime>,
    /// Failed visits in a row (sources only).
    pub streak: u32,
}

/// The daemon's memory, by store key ([`Work::run_key`]).
pub type Runs = HashMap<String, RunRecord>;

/// The operator's controls, by source id.
pub type Controls = HashMap<String, SourceControl>;

/// A piece of the daemon's work.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Work {
    /// A pass of the source with this id.
    Pass(String),
    /// One cycle of a check (cancellation or link check).
    Check(Purpose),
    /// Retention (SPEC §3): old bodies, ended events, old audit rows.
    Retention,
}

impl Work {
    /// The store key its runs are remembered under.
    pub fn run_key(&self) -> &str {
        match self {
            Work::Pass(source) => source,
            Work::Check(Purpose::LinkCheck) => LINK_CHECK_RUN,
            Work::Check(_) => CANCELLATION_RUN,
            Work::Retention => RETENTION_RUN,
        }
    }
}

/// Every piece of work the settings describe with its due time; paused sources are
/// left out, a source the operator asked to run is due `now`.
fn schedule(
    settings: &Settings,
    runs: &Runs,
    controls: &Controls,
    now: SystemTime,
) -> Vec<(Work, SystemTime)> {
    let run = |key: &str| runs.get(key).copied().unwrap_or_default();
    let mut all = Vec::new();
    for source in &settings.sources {
        let control = controls.get(&source.id).cloned().unwrap_or_default();
        if control.paused {
            continue;
        }
        let RunRecord { last, streak } = run(&source.id);
        let zone = source.time_zone.unwrap_or(chrono_tz::UTC);
        let due = if control.run_requested.is_some() {
            now
        } else {
            let scheduled = next_due(&source.schedule, last, now, zone);
            due_with_failures(scheduled, last, streak, settings.politeness.failure_streak_limit)
        };
        all.push((Work::Pass(source.id.clone()), due));
    }
    let every = |key: &str, every: Duration| {
        next_due(&Schedule::Every(every), run(key).last, now, chrono_tz::UTC)
    };
    for (key, interval, purpose) in checks(settings) {
        all.push((Work::Check(purpose), every(key, interval)));
    }
    all.push((Work::Retention, every(RETENTION_RUN, RETENTION_EVERY)));
    all
}

/// The work due at `now`, in order: sources' passes, the checks, retention. Both of
/// `gleaner run`'s loops ask here, so the due, check and retention rules are written once.
pub fn due_work(
    settings: &Settings,
    runs: &Runs,
    controls: &Controls,
    now: SystemTime,
) -> Vec<Work> {
    let all = schedule(settings, runs, controls, now);
    all.into_iter().filter(|(_, due)| *due <= now).map(|(work, _)| work).collect()
}

/// When to look again: the earliest due time after `now`, a minute away at the most.
pub fn next_wake(
    settings: &Settings,
    runs: &Runs,
    controls: &Controls,
    now: SystemTime,
) -> SystemTime {
    let all = schedule(settings, runs, controls, now);
    let later = all.into_iter().map(|(_, due)| due).filter(|due| *due > now);
    later.fold(now + Duration::from_secs(60), SystemTime::min)
}

/// Reads the daemon's memory from the store: the runs of every source, check and
/// retention, and every source's controls. What cannot be read counts as never run and
/// uncontrolled.
pub async fn read_state(store: &Store, settings: &Settings) -> (Runs, Controls) {
    let mut runs = Runs::new();
    let mut controls = Controls::new();
    let keys = settings.sources.iter().map(|s| s.id.as_str());
    let keys = keys.chain([CANCELLATION_RUN, LINK_CHECK_RUN, RETENTION_RUN]);
    for key in keys {
        let last = store.last_run(key).await.ok().flatten();
        let streak = store.failure_streak(key).await.unwrap_or(0);
        runs.insert(key.to_owned(), RunRecord { last, streak });
    }
    for source in &settings.sources {
        let control = store.source_control(&source.id).await.unwrap_or_default();
        controls.insert(source.id.clone(), control);
    }
    (runs, controls)
}

/// Takes the operator's run request of a source whose pass starts or is queued, so the
/// request starts one pass.
async fn take_run_request(store: &Store, controls: &Controls, work: &Work, now: SystemTime) {
    if let Work::Pass(source) = work
        && controls.get(source).is_some_and(|c| c.run_requested.is_some())
        && let Err(error) = store.request_run(source, None, now).await
    {
        eprintln!("warning: failed to take the run request of `{source}`: {error}");
    }
}

/// Records that `work` starts at `now`, taking the operator's run request of a source.
pub async fn record_start(store: &Store, controls: &Controls, work: &Work, now: SystemTime) {
    let key = work.run_key();
    take_run_request(store, controls, work, now).await;
    if let Err(error) = store.record_run(key, now).await {
        eprintln!("warning: failed to record the run of `{key}`: {error}");
    }
}

/// Queues `work` for the workers (the scheduler role), once at a time: an item still
/// queued or claimed is not queued again. The run is recorded when it is queued, so the
/// schedule is the scheduler's alone.
pub async fn enqueue(
    store: &Store,
    settings: &Settings,
    controls: &Controls,
    work: &Work,
    now: SystemTime,
) {
    let item = match work {
        Work::Pass(id) => settings.sources.iter().find(|s| &s.id == id).and_then(pass_item),
        Work::Check(purpose) => check_item(*purpose),
        Work::Retention => None,
    };
    let Some(item) = item else { return };
    let run = work.run_key();
    take_run_request(store, controls, work, now).await;
    match store.enqueue_work(&item, now).await {
        Ok(true) => {
            if let Err(error) = store.record_run(run, now).await {
                eprintln!("warning: failed to record the run of `{run}`: {error}");
            }
            eprintln!("gleaner: queued `{run}`");
        }
        Ok(false) => {} // still queued or running: once at a time
        Err(error) => eprintln!("warning: failed to queue `{run}`: {error}"),
    }
}

/// Applies retention (SPEC §3) at `now` (its run recorded by the caller); with `prune_work`, also
/// deletes work items finished a day ago (the shared queue). No request is sent.
pub async fn retention(store: &Store, settings: &Settings, now: SystemTime, prune_work: bool) {
    match store.purge(RetentionPolicy::from_settings(settings), now).await {
        Ok(report) => eprintln!("gleaner: retention applied: {report:?}"),
        Err(error) => eprintln!("warning: retention failed: {error}"),
    }
    let day_ago = now - Duration::from_secs(24 * 3600);
    if prune_work && let Err(error) = store.prune_work(day_ago).await {
        eprintln!("warning: failed to delete finished work items: {error}");
    }
}

/// Records a pass's outcome (its failure streak) and logs its summary.
pub async fn record_pass(store: &Store, report: &PassReport) {
    let failed = failed_visit(report);
    match store.record_outcome(&report.source, failed).await {
        Ok(streak) if failed => {
            eprintln!("gleaner: source `{}`: failed visit ({streak} in a row)", report.source)
        }
        Ok(_) => {}
        Err(error) => {
            eprintln!("warning: failed to record the outcome of `{}`: {error}", report.source)
        }
    }
    eprintln!("{}", pass_summary(report));
}

/// Runs one pass of `source` in this process (`gleaner run` on SQLite), records its
/// outcome and logs it with the caps and quotas that held requests back.
pub async fn run_source_pass(ctx: &PassContext, store: &Store, source: &Source, now: SystemTime) {
    let deadline = now + ctx.settings.politeness.run_time_limit;
    let report = crate::run_pass(ctx, source, deadline, &|_| {}).await;
    record_pass(store, &report).await;
    report.hold_lines().iter().for_each(|line| eprintln!("gleaner: {line}"));
}

/// Runs one cycle of the check of `purpose` in this process and logs what it did.
pub async fn run_check(ctx: &PassContext, cap: &Arc<DailyCap>, purpose: Purpose, now: SystemTime) {
    let deadline = now + ctx.settings.politeness.run_time_limit;
    let report = if purpose == Purpose::LinkCheck {
        run_link_check(ctx, cap, deadline).await
    } else {
        run_cancellation_check(ctx, deadline).await
    };
    eprintln!("gleaner: {purpose}: {}", report.summary());
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

    /// Two sources every 12 h, the cancellation check every 4 h (the link check off).
    fn settings() -> Settings {
        let text = "[bot]\ntoken = \"T\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n\
            [purposes]\nenabled = [\"robots\", \"listing\", \"event-page\", \"cancellation-check\"]\n\
            [checks]\ncancellation_every = \"4h\"\n\
            [[sources]]\nid = \"a\"\nkind = \"listing\"\nstart_urls = [\"https://a.example/\"]\nevery = \"12h\"\n\
            [[sources]]\nid = \"b\"\nkind = \"listing\"\nstart_urls = [\"https://b.example/\"]\nevery = \"12h\"\n";
        gleaner_config::parse(text, "t.toml").unwrap()
    }

    fn at(hours: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + hours * 3600)
    }

    fn ran(keys: &[(&str, u64, u32)]) -> Runs {
        let run = |&(key, hour, streak): &(&str, u64, u32)| {
            (key.to_owned(), RunRecord { last: Some(at(hour)), streak })
        };
        keys.iter().map(run).collect()
    }

    #[test]
    fn spec_never_run_work_is_all_due_in_order() {
        let due = due_work(&settings(), &Runs::new(), &Controls::new(), at(0));
        let expected = [
            Work::Pass("a".into()),
            Work::Pass("b".into()),
            Work::Check(Purpose::CancellationCheck),
            Work::Retention,
        ];
        assert_eq!(due, expected, "the link check is off, so never due");
    }

    #[test]
    fn spec_schedules_checks_and_retention_fall_due_on_their_intervals() {
        let runs =
            ran(&[("a", 0, 0), ("b", 6, 0), (CANCELLATION_RUN, 0, 0), (RETENTION_RUN, 0, 0)]);
        let s = settings();
        let none = Controls::new();
        assert_eq!(due_work(&s, &runs, &none, at(3)), []);
        assert_eq!(next_wake(&s, &runs, &none, at(3)), at(3) + Duration::from_secs(60));
        assert_eq!(next_wake(&s, &runs, &none, at(4) - Duration::from_secs(30)), at(4));
        assert_eq!(due_work(&s, &runs, &none, at(4)), [Work::Check(Purpose::CancellationCheck)]);
        assert_eq!(
            due_work(&s, &runs, &none, at(12)),
            [Work::Pass("a".into()), Work::Check(Purpose::CancellationCheck)]
        );
        let day = due_work(&s, &runs, &none, at(24));
        assert!(day.contains(&Work::Pass("b".into())) && day.contains(&Work::Retention));
    }

    #[test]
    fn spec_a_failed_visit_restarts_within_minutes() {
        let runs =
            ran(&[("a", 0, 1), ("b", 0, 0), (CANCELLATION_RUN, 0, 0), (RETENTION_RUN, 0, 0)]);
        let s = settings();
        let soon = at(0) + Duration::from_secs(180);
        assert_eq!(due_work(&s, &runs, &Controls::new(), soon), [Work::Pass("a".into())]);
    }

    #[test]
    fn dashboard_pause_skips_a_source_and_run_now_makes_it_due() {
        let runs =
            ran(&[("a", 0, 0), ("b", 0, 0), (CANCELLATION_RUN, 0, 0), (RETENTION_RUN, 0, 0)]);
        let s = settings();
        let mut controls = Controls::new();
        controls.insert("a".into(), SourceControl { paused: true, run_requested: None });
        controls.insert("b".into(), SourceControl { paused: false, run_requested: Some(at(1)) });
        assert_eq!(due_work(&s, &runs, &controls, at(1)), [Work::Pass("b".into())]);
        assert_eq!(
            due_work(&s, &runs, &controls, at(12)),
            [Work::Pass("b".into()), Work::Check(Purpose::CancellationCheck)]
        );
    }
}
