//! Many sites in one pass: one crawl per site, at most the source's `max_sites_at_once`
//! at a time, each site under its own budget in the gate.
//!
//! A source with thousands of start URLs on thousands of sites is crawled concurrently,
//! not one request at a time: the pass groups its start URLs by site, runs a crawl per
//! site ([`super::crawl_site`]) and hands each URL a site finds for another site to that
//! site's crawl (started later, or again after the first ended: the same pass, so its
//! requests continue the site's pass). Two crawls of one site never run at once.
//!
//! Each site's crawl is its own `tokio` task (a [`JoinSet`]), so a multi-thread runtime
//! spreads the sites over its workers instead of polling them all on one (issue 27);
//! their reports come back through the set and are merged here, on the pass's task. A
//! crawl that panics is a site problem ([`SiteProblem::crashed`]), not a lost pass.
// A crashed crawl is reported and the pass goes on: stderr is the crawler's log.
#![allow(clippy::print_stderr)]

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::mem;
use std::sync::Arc;

use tokio::task::{Id, JoinSet};
use url::Url;

use super::frontier::SiteFrontier;
use super::progress::ProgressReader;
use super::{Pass, PassReport, Progress, SiteProblem, Step, crawl_site};

/// Sites waiting for their crawl, in the order they were met.
struct Waiting {
    frontiers: HashMap<String, SiteFrontier>,
    order: VecDeque<String>,
}

impl Waiting {
    /// Queues `item` for its site: in the site's waiting frontier, or a new one (queued
    /// to start unless the site is being crawled now; it starts when that crawl ends).
    fn route(&mut self, pass: &Pass, item: (Url, Step), running: &HashSet<String>) {
        let site = gleaner_fetch::site_key(&item.0);
        if let Some(frontier) = self.frontiers.get_mut(&site) {
            frontier.adopt(item);
            return;
        }
        let frontier = SiteFrontier::new(site.clone(), [item], pass.outstanding.clone());
        self.frontiers.insert(site.clone(), frontier);
        if !running.contains(&site) {
            self.order.push_back(site);
        }
    }

    /// The next site whose crawl may start (none of its crawls running).
    fn next(&mut self, running: &HashSet<String>) -> Option<SiteFrontier> {
        while let Some(site) = self.order.pop_front() {
            if running.contains(&site) {
                continue; // queued again when its crawl ends
            }
            if let Some(frontier) = self.frontiers.remove(&site) {
                return Some(frontier);
            }
        }
        None
    }
}

/// Crawls every site of the pass from `start`, adding each site's counts to `report`
/// (totals, and the sites with problems in [`PassReport::site_problems`]), and handing
/// each request's progress from the pass's feed to `progress` meanwhile.
pub(super) async fn crawl_sites(
    pass: Arc<Pass>,
    start: Vec<(Url, Step)>,
    report: &mut PassReport,
    progress: &(dyn Fn(Progress) + Sync),
) {
    let mut reader = ProgressReader::default();
    let limit = usize::try_from(pass.source.max_sites_at_once.max(1)).unwrap_or(usize::MAX);
    let mut waiting = Waiting { frontiers: HashMap::new(), order: VecDeque::new() };
    let mut running_sites: HashSet<String> = HashSet::new();
    for item in start {
        waiting.route(&pass, item, &running_sites);
    }
    let mut crawled: HashSet<String> = HashSet::new();
    let mut problems: BTreeMap<String, SiteProblem> = BTreeMap::new();
    // Dropped with the pass's future: the crawls still running are aborted then.
    let mut running: JoinSet<(PassReport, SiteFrontier)> = JoinSet::new();
    // The site of each running task, for a task that panics (its frontier is lost).
    let mut task_sites: HashMap<Id, String> = HashMap::new();
    loop {
        while running.len() < limit
            && let Some(frontier) = waiting.next(&running_sites)
        {
            running_sites.insert(frontier.site.clone());
            let site = frontier.site.clone();
            let pass = Arc::clone(&pass);
            let handle = running.spawn(async move { crawl_site(&pass, frontier).await });
            task_sites.insert(handle.id(), site);
        }
        let joined = tokio::select! {
            biased;
            steps = reader.next_batch(&pass.progress) => {
                steps.into_iter().for_each(progress);
                continue;
            }
            joined = running.join_next_with_id() => joined,
        };
        let Some(joined) = joined else { break };
        let (site, site_report) = match joined {
            Ok((id, (site_report, mut frontier))) => {
                task_sites.remove(&id);
                let site = frontier.site.clone();
                frontier.abandon();
                running_sites.remove(&site);
                if waiting.frontiers.contains_key(&site) {
                    waiting.order.push_front(site.clone());
                }
                for item in mem::take(&mut frontier.elsewhere) {
                    waiting.route(&pass, item, &running_sites);
                }
                (site, site_report)
            }
            Err(error) => {
                let site = task_sites.remove(&error.id()).unwrap_or_default();
                eprintln!(
                    "warning: the crawl of site {site} in pass `{}` ended early: {error}; this is a bug in gleaner (please report it with this line); the site's other URLs wait for the next pass",
                    pass.source.id
                );
                running_sites.remove(&site);
                if waiting.frontiers.contains_key(&site) {
                    waiting.order.push_front(site.clone());
                }
                let mut problem = SiteProblem::none(&site);
                problem.crashed = 1;
                problems
                    .entry(site.clone())
                    .or_insert_with(|| SiteProblem::none(&site))
                    .add(&problem);
                crawled.insert(site);
                continue;
            }
        };
        let problem = SiteProblem::of(&site, &site_report);
        if problem.any() {
            problems.entry(site.clone()).or_insert_with(|| SiteProblem::none(&site)).add(&problem);
        }
        crawled.insert(site);
        report.absorb(site_report);
    }
    pass.progress.take().into_iter().for_each(progress);
    report.sites += crawled.len() as u32;
    report.site_problems.extend(problems.into_values());
}
