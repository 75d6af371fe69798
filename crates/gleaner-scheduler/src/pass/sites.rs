//! Many sites in one pass: one crawl per site, at most the source's `max_sites_at_once`
//! at a time, each site under its own budget in the gate.
//!
//! A source with thousands of start URLs on thousands of sites is crawled concurrently,
//! not one request at a time: the pass groups its start URLs by site, runs a crawl per
//! site ([`super::crawl_site`]) and hands each URL a site finds for another site to that
//! site's crawl (started later, or again after the first ended: the same pass, so its
//! requests continue the site's pass). Two crawls of one site never run at once.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::mem;

use futures_util::stream::{FuturesUnordered, StreamExt};
use url::Url;

use super::frontier::SiteFrontier;
use super::{Pass, PassReport, SiteProblem, Step, crawl_site};

/// Sites waiting for their crawl, in the order they were met.
struct Waiting {
    frontiers: HashMap<String, SiteFrontier>,
    order: VecDeque<String>,
}

impl Waiting {
    /// Queues `item` for its site: in the site's waiting frontier, or a new one (queued
    /// to start unless the site is being crawled now; it starts when that crawl ends).
    fn route(&mut self, pass: &Pass<'_>, item: (Url, Step), running: &HashSet<String>) {
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
/// (totals, and the sites with problems in [`PassReport::site_problems`]).
pub(super) async fn crawl_sites(pass: &Pass<'_>, start: Vec<(Url, Step)>, report: &mut PassReport) {
    let limit = usize::try_from(pass.source.max_sites_at_once.max(1)).unwrap_or(usize::MAX);
    let mut waiting = Waiting { frontiers: HashMap::new(), order: VecDeque::new() };
    let mut running_sites: HashSet<String> = HashSet::new();
    for item in start {
        waiting.route(pass, item, &running_sites);
    }
    let mut crawled: HashSet<String> = HashSet::new();
    let mut problems: BTreeMap<String, SiteProblem> = BTreeMap::new();
    let mut running = FuturesUnordered::new();
    loop {
        while running.len() < limit
            && let Some(frontier) = waiting.next(&running_sites)
        {
            running_sites.insert(frontier.site.clone());
            running.push(crawl_site(pass, frontier));
        }
        let Some((site_report, mut frontier)) = running.next().await else { break };
        let site = frontier.site.clone();
        frontier.abandon();
        running_sites.remove(&site);
        if waiting.frontiers.contains_key(&site) {
            waiting.order.push_front(site.clone());
        }
        for item in mem::take(&mut frontier.elsewhere) {
            waiting.route(pass, item, &running_sites);
        }
        let problem = SiteProblem::of(&site, &site_report);
        if problem.any() {
            problems.entry(site.clone()).or_insert_with(|| SiteProblem::none(&site)).add(&problem);
        }
        crawled.insert(site);
        report.absorb(site_report);
    }
    report.sites += crawled.len() as u32;
    report.site_problems.extend(problems.into_values());
}
