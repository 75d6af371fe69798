//! The gate's decision before the budget, written once: [`super::Gate::fetch`] acts on
//! it and [`super::Gate::explain`] prints it. In order: the owners' registry, then
//! robots.txt (or the licence of a licensed API), then the budget rules that apply.

use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_policy::budget::BudgetRules;
use gleaner_policy::registry::OwnerRules;
use gleaner_policy::robots::MatchReason;
use gleaner_policy::robots::outcome::RobotsState;
use gleaner_policy::state::RobotsMemory;

use super::{Gate, GateRequest, Refusal};
use crate::robots::path_and_query;

/// Where a request stands before its budget.
#[derive(Debug)]
pub(super) enum Stage {
    /// Not to be sent.
    Refused(Refusal),
    /// The owner paused crawling until then.
    Paused {
        /// The end of the pause.
        until: SystemTime,
        /// Which request paused it.
        why: String,
    },
    /// robots.txt is not known (or expired): it is read first, through the same budget,
    /// and the decision taken again. The rules are those without a Crawl-delay.
    RobotsUnknown(BudgetRules),
    /// On to the budget with these rules; `allowed_by` names the rule that let it pass.
    Budget {
        /// The budget rules of the site for this request.
        rules: BudgetRules,
        /// Why robots.txt (or the licence) allows it.
        allowed_by: String,
    },
}

/// The decision and the steps that led to it, in order, as `explain` prints them.
#[derive(Debug)]
pub(super) struct Decision {
    /// Each check and what it said (empty unless asked for: see [`Steps`]).
    pub(super) steps: Vec<String>,
    /// Where the request stands.
    pub(super) stage: Stage,
}

/// The steps of a decision, written only when they are wanted: `explain` prints them,
/// while a request's decision (every fetch) would only format them to drop them
/// (issue 27). Each step is a closure, called only when the steps are kept.
#[derive(Debug)]
pub(super) struct Steps(Option<Vec<String>>);

impl Steps {
    /// Steps that are written (`explain`) or not (`fetch`).
    pub(super) fn kept(kept: bool) -> Steps {
        Steps(kept.then(Vec::new))
    }

    /// Adds the step `step` makes, when the steps are kept.
    fn push(&mut self, step: impl FnOnce() -> String) {
        if let Some(steps) = &mut self.0 {
            steps.push(step());
        }
    }

    /// The decision at `stage` with these steps.
    fn decision(self, stage: Stage) -> Decision {
        Decision { steps: self.0.unwrap_or_default(), stage }
    }
}

impl Gate {
    /// Decides `request` (to `site`, its [`super::site_key`]) from what the registry says
    /// (`owner`) and the site's robots.txt memory (`robots`: `None` when unknown or
    /// expired), at `now`. Reads nothing. The steps are written only into kept `steps`
    /// ([`Steps::kept`]).
    pub(super) fn decide(
        &self,
        site: &str,
        request: &GateRequest,
        owner: &OwnerRules,
        robots: Option<&RobotsMemory>,
        now: SystemTime,
        mut steps: Steps,
    ) -> Decision {
        if let Some(reference) = &owner.opted_out {
            let refusal = Refusal::OptedOut(reference.clone());
            steps.push(|| format!("registry: {refusal}"));
            return steps.decision(Stage::Refused(refusal));
        }
        if let Some((until, reference)) = &owner.paused_until
            && *until > now
        {
            let why = format!("the owner paused crawling (request `{reference}`)");
            steps.push(|| format!("registry: {why}"));
            return steps.decision(Stage::Paused { until: *until, why });
        }
        steps.push(|| {
            if owner.slowdown > 1 {
                format!("registry: no opt-out; the owner asked to slow down {}x", owner.slowdown)
            } else {
                "registry: no opt-out, pause or slow-down".to_owned()
            }
        });
        let licensed = self.licensed(request);
        let mut crawl_delay = None;
        let mut pace = gleaner_policy::robots::Pace::default();
        let allowed_by = if request.purpose == Purpose::Robots {
            Some("robots.txt itself is always allowed".to_owned())
        } else if let Some((source, _)) = &licensed {
            steps.push(|| format!(
                "robots.txt: not consulted: a licensed API read by source `{source}` (the licence governs)"
            ));
            Some(format!(
                "licensed API (source `{source}`): robots.txt is not consulted, the licence governs"
            ))
        } else {
            match robots {
                None => {
                    steps.push(||
                        "robots.txt: not read yet (or expired); it is read first, through the same budget"
                            .to_owned(),
                    );
                    None
                }
                Some(memory) => match &memory.state {
                    RobotsState::Rules(robots) => {
                        let rules = self.local(site).agent_rules.rules(
                            &self.rules_book,
                            robots,
                            memory.body.as_deref(),
                            &self.settings.bot.token,
                        );
                        let verdict = rules.check(&path_and_query(&request.url));
                        steps.push(|| format!("robots.txt: {verdict} ({})", rules.selection()));
                        if !verdict.allowed {
                            let stage = Stage::Refused(Refusal::Disallowed(verdict));
                            return steps.decision(stage);
                        }
                        crawl_delay = rules
                            .crawl_delay()
                            .map(|(d, _)| Duration::from_secs_f64(d.clamp(0.0, 86_400.0)));
                        pace = rules.pace().clone();
                        for window in pace.windows() {
                            steps.push(|| format!(
                                "robots.txt: requests start only inside {window} (or another window it states)"
                            ));
                        }
                        Some(match &verdict.reason {
                            MatchReason::Rule { .. } => format!("robots.txt: {verdict}"),
                            _ => "robots.txt: no rule disallows it".to_owned(),
                        })
                    }
                    RobotsState::AllowAll => {
                        let why = format!("robots.txt: {}", memory.reason);
                        steps.push(|| why.clone());
                        Some(why)
                    }
                    RobotsState::Blocked | RobotsState::FetchNothing => {
                        steps.push(|| format!("robots.txt: {}", memory.reason));
                        let refusal = Refusal::RobotsUnreadable {
                            until: memory.valid_until,
                            reason: memory.reason.to_string(),
                        };
                        return steps.decision(Stage::Refused(refusal));
                    }
                },
            }
        };
        let mut rules = self.budget_rules(&request.url, crawl_delay, owner.slowdown.max(1));
        rules.robots_pace = pace;
        if let Some((_, gap)) = licensed {
            // The API's own rate limit is its spacing, for every purpose.
            rules.gap = gap;
            rules.purpose_gaps.clear();
        }
        let set_by = match rules.rate_line_for(request.purpose) {
            Some(line) => format!(" (robots.txt line {line} `request-rate`)"),
            None => String::new(),
        };
        steps.push(|| {
            format!(
                "budget: gap {} ms{set_by} for {}, {} in flight at most",
                rules.gap_for(request.purpose).as_millis(),
                request.purpose,
                rules.max_in_flight
            )
        });
        let stage = match allowed_by {
            Some(allowed_by) => Stage::Budget { rules, allowed_by },
            None => Stage::RobotsUnknown(rules),
        };
        steps.decision(stage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_not_kept_are_never_written() {
        let mut steps = Steps::kept(false);
        steps.push(|| unreachable!("a fetch's decision formats no step"));
        let decision = steps.decision(Stage::Refused(Refusal::OptedOut("r".into())));
        assert!(decision.steps.is_empty());
        let mut kept = Steps::kept(true);
        kept.push(|| "registry: no opt-out, pause or slow-down".to_owned());
        let decision = kept.decision(Stage::Refused(Refusal::OptedOut("r".into())));
        assert_eq!(decision.steps, ["registry: no opt-out, pause or slow-down"]);
    }
}
