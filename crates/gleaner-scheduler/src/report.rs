//! How passes are told to the operator: `gleaner crawl`'s progress line, summary table
//! and dry run (what each source would request first, and why). Text only, written once here; the
//! binary prints it.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use gleaner_config::sources::{Source, SourceKind};
use gleaner_fetch::gate::ExplainVerdict;
use gleaner_fetch::{Gate, GateRequest};
use gleaner_policy::Purpose;

use crate::{PassContext, PassReport, Written};

/// What `gleaner crawl`'s progress line counts while passes run.
pub struct Tally {
    /// Each source's sites (budget keys of its start URLs).
    sites_of: Vec<BTreeSet<String>>,
    /// Which sources' passes are over.
    done: Mutex<Vec<bool>>,
    /// Requests the passes handled (the progress callback adds them).
    pub requests: AtomicU64,
    started: Instant,
}

impl Tally {
    /// A tally of passes of `sources`, none done yet.
    pub fn new(sources: &[Source]) -> Tally {
        let sites_of: Vec<BTreeSet<String>> = sources
            .iter()
            .map(|s| s.start_urls.iter().map(gleaner_fetch::site_key).collect())
            .collect();
        Tally {
            done: Mutex::new(vec![false; sites_of.len()]),
            sites_of,
            requests: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    /// Marks the pass of the `source`-th source done.
    pub fn finish(&self, source: usize) {
        if let Some(done) = self.done.lock().unwrap_or_else(|p| p.into_inner()).get_mut(source) {
            *done = true;
        }
    }

    /// Sites whose every source is done, and all sites.
    fn sites(&self) -> (usize, usize) {
        let done = self.done.lock().unwrap_or_else(|p| p.into_inner());
        let all: BTreeSet<&String> = self.sites_of.iter().flatten().collect();
        let finished = all
            .iter()
            .filter(|site| {
                self.sites_of
                    .iter()
                    .zip(done.iter())
                    .all(|(sites, d)| *d || !sites.contains(**site))
            })
            .count();
        (finished, all.len())
    }

    /// "3/12 sites done, 141 requests, 96 events, 2 waiting for their site's turn, 12 s".
    pub fn line(&self, ctx: &PassContext, written: &Written) -> String {
        let (done, total) = self.sites();
        format!(
            "{done}/{total} sites done, {} requests, {} events, {} waiting for their site's turn, {} s",
            self.requests.load(Ordering::Relaxed),
            written.events(),
            ctx.gate.waiting(),
            self.started.elapsed().as_secs()
        )
    }
}

/// Sites with problems listed under a source's line (the rest are counted).
const SITE_PROBLEMS_SHOWN: usize = 10;

/// The summary table of a crawl: one line per pass, then its refusals, errors, sites
/// with problems and held requests, and the time it took.
pub fn crawl_table(reports: &[PassReport], elapsed: Duration) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<27} {:>6} {:>6} {:>5} {:>5} {:>5} {:>6} {:>5} {:>7} {:>7} {:>8} {:>6}",
        "source",
        "pages",
        "resp",
        "304",
        "new",
        "upd",
        "same",
        "gone",
        "refused",
        "retried",
        "given up",
        "later"
    );
    for r in reports {
        let refused: u32 = r.refusals.values().sum();
        let _ = writeln!(
            out,
            "{:<27} {:>6} {:>6} {:>5} {:>5} {:>5} {:>6} {:>5} {:>7} {:>7} {:>8} {:>6}",
            r.source,
            r.listing_pages + r.event_pages,
            r.responses,
            r.not_modified,
            r.events_new,
            r.events_updated,
            r.events_unchanged,
            r.gone,
            refused,
            r.retried,
            r.given_up,
            r.requeued
        );
        let mut more = Vec::new();
        if r.news > 0 {
            more.push(format!("news items stored: {}", r.news));
        }
        if r.kept > 0 {
            more.push(format!("later: {}", r.left_for_next_pass()));
        }
        more.extend(r.refusals.iter().map(|(reason, count)| format!("refused {count}: {reason}")));
        more.extend(r.errors.iter().map(|error| format!("error: {error}")));
        if r.sites > 1 {
            let problems = &r.site_problems;
            more.push(format!("{} sites, {} with problems", r.sites, problems.len()));
            let shown = problems.iter().take(SITE_PROBLEMS_SHOWN);
            more.extend(shown.map(|problem| format!("site {problem}")));
            if problems.len() > SITE_PROBLEMS_SHOWN {
                let hidden = problems.len() - SITE_PROBLEMS_SHOWN;
                more.push(format!("... and {hidden} more sites with problems"));
            }
        }
        more.extend(r.hold_lines());
        for line in more {
            let _ = writeln!(out, "{:<27}   {line}", "");
        }
    }
    let _ = writeln!(out, "done in {:.1} s", elapsed.as_secs_f64());
    out
}

/// The purpose of a source's start URLs.
pub fn start_purpose(kind: SourceKind) -> Purpose {
    match kind {
        SourceKind::Listing => Purpose::Listing,
        SourceKind::Sitemap => Purpose::Sitemap,
        SourceKind::Feed | SourceKind::Ical => Purpose::Feed,
        SourceKind::JsonApi | SourceKind::LicensedApi | SourceKind::OpenData => Purpose::Api,
    }
}

/// `gleaner crawl --dry-run`: what each source's pass would request first and why, from
/// the gate's own decision (nothing is sent). Fails when a site's state cannot be read.
pub async fn dry_run(gate: &Gate, sources: &[Source]) -> Result<String, String> {
    let mut out = String::new();
    for source in sources {
        let _ = writeln!(out, "source `{}` ({}):", source.id, source.kind.name());
        let purpose = start_purpose(source.kind);
        for url in &source.start_urls {
            let mut request = GateRequest::new(url.clone(), purpose);
            request.source = Some(source.id.clone());
            let explanation = gate.explain(&request).await.map_err(|e| e.to_string())?;
            let verdict = match explanation.verdict {
                ExplainVerdict::Now => "would request now".to_owned(),
                ExplainVerdict::NotBefore(t) => format!(
                    "would wait until {}",
                    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339()
                ),
                ExplainVerdict::WhenARequestEnds => "would wait for a request to end".to_owned(),
                ExplainVerdict::Refused => "would not request it".to_owned(),
            };
            let _ = writeln!(out, "  GET {url} ({purpose}): {verdict}");
            for step in &explanation.steps {
                let _ = writeln!(out, "    - {step}");
            }
        }
        let then = match source.kind {
            SourceKind::Listing | SourceKind::Sitemap | SourceKind::Feed => {
                "then the event pages it links to, each through the same checks"
            }
            SourceKind::JsonApi | SourceKind::LicensedApi if source.paging.is_some() => {
                "then its further pages, each through the same checks"
            }
            _ => "its events or records are read from the document itself",
        };
        let _ = writeln!(out, "  {then}");
    }
    Ok(out)
}
