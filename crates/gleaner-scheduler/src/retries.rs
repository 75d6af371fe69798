//! Retries within a pass, as the about page promises them (SPEC §1, "Errors"):
//!
//! - a 429 or 503 is asked again once the suspension the gate stored for the site has
//!   ended (the gate waits for it, or defers past the run's time limit), at most
//!   `[politeness] max_retries` times; the URL is kept in the store from the answer
//!   until it is asked again, so a retry the time limit or a crash cut is asked first
//!   in the source's next pass;
//! - another 5xx is asked again after the rest of the site's queued pages, at most
//!   `max_retries` times;
//! - a site that does not answer (timeout, connection or body error) is tried
//!   `[politeness] unreachable_tries` times in all, spread over about a minute; while it
//!   is down, its other pages wait with it rather than each failing on their own.
//!
//! Every retry is a new request through the gate (robots.txt, budget, registry, audit).

use std::collections::HashMap;
use std::time::{Duration, SystemTime};

use gleaner_config::settings::Politeness;
use url::Url;

/// Over how long the tries of an unreachable site are spread.
pub(crate) const UNREACHABLE_SPAN: Duration = Duration::from_secs(60);

/// What to do with a URL whose answer was not usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Ask again: at once (the gate waits out any suspension), or not before this time.
    Retry(Option<SystemTime>),
    /// No tries left.
    GiveUp,
}

/// The retry bookkeeping of one pass.
#[derive(Debug)]
pub(crate) struct Retries {
    max_retries: u32,
    unreachable_tries: u32,
    /// Retries already spent per URL (429/5xx).
    spent: HashMap<Url, u32>,
    /// Sites that did not answer: tries so far, and when the next may start.
    down: HashMap<String, (u32, SystemTime)>,
}

impl Retries {
    /// Bookkeeping for the profile's limits.
    pub(crate) fn new(politeness: &Politeness) -> Retries {
        Retries {
            max_retries: politeness.max_retries,
            unreachable_tries: politeness.unreachable_tries.max(1),
            spent: HashMap::new(),
            down: HashMap::new(),
        }
    }

    /// `url` answered 429 or a 5xx: ask again, or give up once `max_retries` are spent.
    pub(crate) fn after_status(&mut self, url: &Url) -> Verdict {
        let spent = self.spent.entry(url.clone()).or_default();
        if *spent >= self.max_retries {
            return Verdict::GiveUp;
        }
        *spent += 1;
        Verdict::Retry(None)
    }

    /// A request to `site` got no answer at `now`: the time of the next try, or give up
    /// once `unreachable_tries` were made.
    pub(crate) fn after_no_answer(&mut self, site: &str, now: SystemTime) -> Verdict {
        let tries = self.down.get(site).map_or(0, |(t, _)| *t) + 1;
        if tries >= self.unreachable_tries {
            self.down.remove(site);
            return Verdict::GiveUp;
        }
        let spacing = UNREACHABLE_SPAN / (self.unreachable_tries - 1);
        let next = now + spacing;
        self.down.insert(site.to_owned(), (tries, next));
        Verdict::Retry(Some(next))
    }

    /// The site's robots.txt got no answer and is read again at `reread` (the gate's own
    /// backoff): the next try is then, as long as that is within about a minute.
    pub(crate) fn after_robots_unanswered(
        &mut self,
        site: &str,
        now: SystemTime,
        reread: SystemTime,
    ) -> Verdict {
        match self.after_no_answer(site, now) {
            Verdict::Retry(_) if reread > now + UNREACHABLE_SPAN => {
                self.down.remove(site);
                Verdict::GiveUp
            }
            Verdict::Retry(Some(next)) => {
                let next = next.max(reread);
                self.down.insert(site.to_owned(), (self.down[site].0, next));
                Verdict::Retry(Some(next))
            }
            other => other,
        }
    }

    /// The site answered: it is no longer down.
    pub(crate) fn answered(&mut self, site: &str) {
        self.down.remove(site);
    }

    /// When the next request to `site` may start, while it is down.
    pub(crate) fn down_until(&self, site: &str) -> Option<SystemTime> {
        self.down.get(site).map(|(_, next)| *next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn politeness(max_retries: u32, unreachable_tries: u32) -> Politeness {
        let text = format!(
            "[bot]\ntoken = \"T\"\nversion = \"1\"\ninfo_url = \"https://bot.example/\"\noperator = \"O\"\n\n\
             [politeness]\nmax_retries = {max_retries}\nunreachable_tries = {unreachable_tries}\n"
        );
        gleaner_config::parse(&text, "t.toml").unwrap().politeness
    }

    #[test]
    fn statuses_are_retried_max_retries_times_per_url() {
        let mut r = Retries::new(&politeness(2, 3));
        let a = Url::parse("http://127.0.0.1/a").unwrap();
        let b = Url::parse("http://127.0.0.1/b").unwrap();
        assert_eq!(r.after_status(&a), Verdict::Retry(None));
        assert_eq!(r.after_status(&a), Verdict::Retry(None));
        assert_eq!(r.after_status(&a), Verdict::GiveUp);
        assert_eq!(r.after_status(&b), Verdict::Retry(None), "counted per URL");
        let mut none = Retries::new(&politeness(0, 3));
        assert_eq!(none.after_status(&a), Verdict::GiveUp);
    }

    #[test]
    fn an_unreachable_site_gets_its_tries_over_about_a_minute() {
        let mut r = Retries::new(&politeness(2, 3));
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        assert_eq!(r.after_no_answer("s", t0), Verdict::Retry(Some(t0 + Duration::from_secs(30))));
        assert_eq!(r.down_until("s"), Some(t0 + Duration::from_secs(30)));
        let t1 = t0 + Duration::from_secs(30);
        assert_eq!(r.after_no_answer("s", t1), Verdict::Retry(Some(t1 + Duration::from_secs(30))));
        assert_eq!(r.after_no_answer("s", t1 + Duration::from_secs(30)), Verdict::GiveUp);
        assert_eq!(r.down_until("s"), None);
        r.after_no_answer("t", t0);
        r.answered("t");
        assert_eq!(r.down_until("t"), None, "an answer ends the outage");
        // robots.txt unanswered: the gate re-reads it after its own backoff, if soon enough.
        let reread = t0 + Duration::from_secs(60);
        assert_eq!(r.after_robots_unanswered("u", t0, reread), Verdict::Retry(Some(reread)));
        let late = reread + Duration::from_secs(180);
        assert_eq!(r.after_robots_unanswered("u", reread, late), Verdict::GiveUp);
        let mut once = Retries::new(&politeness(2, 1));
        assert_eq!(once.after_no_answer("s", t0), Verdict::GiveUp);
    }
}
