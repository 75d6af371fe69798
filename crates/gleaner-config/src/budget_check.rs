//! The budget arithmetic of `gleaner config check` (SPEC §4, "Config check"): from the
//! sources' schedules, the checks and the robots.txt cache, the requests and visits per
//! site per day a configuration implies at most, and a [`Warning`] wherever that would
//! break a promise the same file makes (a site class's quotas, visits per day, the
//! global cap, quiet hours, the shortest interval between passes).
//!
//! Every figure is an upper bound: a pass reads at most `max_listing_pages` listing pages
//! per start URL and `max_event_pages` event pages; a cancellation cycle asks each
//! listing once and each event page in its window once (twice with `head-then-get`); a
//! link check asks each page and image once, within its daily cap. The gate keeps the
//! promises anyway (it defers what does not fit), so a warning means "this schedule
//! cannot be kept as written", not "this site will be overloaded".

use std::collections::BTreeMap;
use std::time::Duration;

use gleaner_policy::Purpose;

use crate::settings::Settings;
use crate::sources::{Keep, Schedule, SourceKind};

const DAY: u64 = 86_400;

/// What one site is asked for per day, at most.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteDay {
    /// The host.
    pub host: String,
    /// Its site class.
    pub class: String,
    /// Source passes per day.
    pub passes: u32,
    /// Requests of those passes.
    pub pass_requests: u32,
    /// Cancellation-check cycles per day.
    pub cancellation_cycles: u32,
    /// Requests of those cycles.
    pub cancellation_requests: u32,
    /// Link-check requests per day.
    pub link_check_requests: u32,
    /// robots.txt reads per day.
    pub robots_requests: u32,
    /// The largest pass, in requests.
    pub largest_pass: u32,
    /// Only licensed APIs are read there: no robots.txt, and the events' pages (what
    /// the checks ask) are on other sites.
    pub licensed_only: bool,
}

impl SiteDay {
    /// Requests per day, every purpose together.
    pub fn requests(&self) -> u32 {
        self.pass_requests
            + self.cancellation_requests
            + self.link_check_requests
            + self.robots_requests
    }

    /// Visits per day: passes and check cycles (each starts a visit to the site).
    pub fn visits(&self) -> u32 {
        self.passes + self.cancellation_cycles + u32::from(self.link_check_requests > 0)
    }
}

/// A promise the schedules would break.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The host concerned, when it is about one site.
    pub host: Option<String>,
    /// What would break.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

/// The arithmetic for a whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BudgetReport {
    /// Per site, by host.
    pub sites: Vec<SiteDay>,
    /// Requests per day, all sites together.
    pub total: u32,
    /// Promises that would break.
    pub warnings: Vec<Warning>,
}

impl BudgetReport {
    /// The global daily cap these schedules need at most: the requests of all sites
    /// together on a day, rounded up to a round figure.
    pub fn cap_needed(&self) -> u32 {
        report_cap(self.total)
    }
}

/// `total` rounded up to two significant figures (a cap a person writes).
fn report_cap(total: u32) -> u32 {
    let mut step = 1u32;
    while total / step >= 100 {
        step *= 10;
    }
    total.div_ceil(step).saturating_mul(step)
}

/// How many times a schedule fires in a day, at most.
pub fn runs_per_day(schedule: &Schedule) -> u32 {
    match schedule {
        Schedule::Every(every) => per_day(*every),
        Schedule::At(times) => times.len().max(1) as u32,
    }
}

fn per_day(every: Duration) -> u32 {
    let secs = every.as_secs().max(1);
    DAY.div_ceil(secs) as u32
}

/// Adds up what `settings` asks of each site per day and checks it against its promises.
pub fn budget_check(settings: &Settings) -> BudgetReport {
    let mut sites: BTreeMap<String, SiteDay> = BTreeMap::new();
    let enabled = |p: Purpose| settings.purposes.enabled.contains(&p);
    let checks = &settings.checks;
    let cancellation_cycles =
        if enabled(Purpose::CancellationCheck) { per_day(checks.cancellation_every) } else { 0 };
    let link_cycles =
        if enabled(Purpose::LinkCheck) { per_day(checks.link_check_every) } else { 0 };
    let mut warnings = Vec::new();
    for source in &settings.sources {
        let passes = runs_per_day(&source.schedule);
        // Each site of a source is crawled under its own page limits (one frontier per
        // site in a pass): its event pages are counted once, at its first start URL.
        let mut hosts_seen = std::collections::HashSet::new();
        for url in &source.start_urls {
            let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
            let first = hosts_seen.insert(host.clone());
            let class = settings.class_of(&host);
            let licensed = source.kind == SourceKind::LicensedApi;
            let site = sites.entry(host.clone()).or_insert_with(|| SiteDay {
                host: host.clone(),
                class: class.name.clone(),
                licensed_only: licensed,
                ..SiteDay::default()
            });
            site.licensed_only &= licensed;
            // A licensed API gives events whose pages are elsewhere: none are read here.
            let events = if first && !licensed { source.max_event_pages } else { 0 };
            let per_pass = source.max_listing_pages + events;
            site.passes += passes;
            site.pass_requests += passes * per_pass;
            site.largest_pass = site.largest_pass.max(per_pass);
            if !licensed {
                site.cancellation_cycles = site.cancellation_cycles.max(cancellation_cycles);
                let head = if checks.cancellation_head { 2 } else { 1 };
                site.cancellation_requests += cancellation_cycles * (1 + events * head);
            }
            let images = if source.keep == Keep::Full { events } else { 0 };
            site.link_check_requests = (site.link_check_requests + link_cycles * (events + images))
                .min(checks.link_checks_per_host_per_day * u32::from(link_cycles > 0));
            if let Some(min) = class.min_pass_interval
                && let Schedule::Every(every) = source.schedule
                && every < min
            {
                warnings.push(Warning {
                    host: Some(host.clone()),
                    message: format!(
                        "source `{}` runs every {}, more often than its class `{}` allows (one pass per {})",
                        source.id,
                        humantime::format_duration(every),
                        class.name,
                        humantime::format_duration(min)
                    ),
                    hint: format!("set `every` to at least `{}`", humantime::format_duration(min)),
                });
            }
            if let Schedule::At(times) = &source.schedule {
                for time in times {
                    if let Some(q) =
                        class.quiet_hours.iter().find(|q| q.start <= *time && *time < q.end)
                    {
                        warnings.push(Warning {
                            host: Some(host.clone()),
                            message: format!(
                                "source `{}` is scheduled at {}, inside the quiet hours {}-{} of class `{}`",
                                source.id,
                                time.format("%H:%M"),
                                q.start.format("%H:%M"),
                                q.end.format("%H:%M"),
                                class.name
                            ),
                            hint: format!(
                                "the pass would wait until {}; schedule it outside the quiet hours",
                                q.end.format("%H:%M")
                            ),
                        });
                    }
                }
            }
        }
    }
    for site in sites.values_mut() {
        let class = settings.class_of(&site.host);
        let visits = site.visits();
        // A licensed API is read under its contract, not robots.txt (SPEC §1).
        site.robots_requests =
            if site.licensed_only { 0 } else { per_day(class.robots.ttl).min(visits) };
        let requests = site.requests();
        if let Some(cap) = class.requests_per_day
            && requests > cap
        {
            let check_alone = site.cancellation_requests > cap;
            warnings.push(Warning {
                host: Some(site.host.clone()),
                message: if check_alone {
                    format!(
                        "a cancellation check every {} alone implies up to {} requests a day to `{}`, more than its class `{}` allows ({cap} a day)",
                        humantime::format_duration(checks.cancellation_every),
                        site.cancellation_requests,
                        site.host,
                        class.name
                    )
                } else {
                    format!(
                        "schedules and checks imply up to {requests} requests a day to `{}`, more than its class `{}` allows ({cap} a day)",
                        site.host, class.name
                    )
                },
                hint: "run the checks less often (`[checks] cancellation_every`), read fewer pages per pass (`max_event_pages`), or schedule fewer passes; the gate will defer what does not fit".to_owned(),
            });
        }
        if let Some(cap) = class.visits_per_day
            && visits > cap
        {
            warnings.push(Warning {
                host: Some(site.host.clone()),
                message: format!(
                    "schedules and checks imply up to {visits} visits a day to `{}` ({} passes, {} cancellation cycles), more than its class `{}` allows ({cap} a day)",
                    site.host, site.passes, site.cancellation_cycles, class.name
                ),
                hint: "schedule fewer passes, or run the cancellation check less often (`[checks] cancellation_every`)".to_owned(),
            });
        }
        if let Some(cap) = class.requests_per_pass
            && site.largest_pass > cap
        {
            warnings.push(Warning {
                host: Some(site.host.clone()),
                message: format!(
                    "a pass over `{}` may need {} requests, more than its class `{}` allows per pass ({cap}); the rest waits for the next pass",
                    site.host, site.largest_pass, class.name
                ),
                hint: "lower `max_listing_pages` and `max_event_pages` for its sources".to_owned(),
            });
        }
        if let Some(cap) = class.requests_per_hour
            && site.largest_pass > cap
        {
            warnings.push(Warning {
                host: Some(site.host.clone()),
                message: format!(
                    "a pass over `{}` may need {} requests, more than its class `{}` allows in an hour ({cap})",
                    site.host, site.largest_pass, class.name
                ),
                hint: "lower `max_event_pages` for its sources".to_owned(),
            });
        }
    }
    let total: u32 = sites.values().map(SiteDay::requests).sum();
    if total > settings.politeness.global_daily_cap {
        warnings.push(Warning {
            host: None,
            message: format!(
                "schedules and checks imply up to {total} requests a day in all, more than the global cap of {}",
                settings.politeness.global_daily_cap
            ),
            hint: format!(
                "set `[politeness] global_daily_cap = {}` (what these schedules need), or schedule fewer passes or read fewer pages; the gate stops at the cap and leaves the rest for later",
                report_cap(total)
            ),
        });
    }
    BudgetReport { sites: sites.into_values().collect(), total, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOT: &str =
        "[bot]\ntoken = \"TestBot\"\ninfo_url = \"https://bot.example/\"\noperator = \"T\"\n";

    fn check(extra: &str) -> BudgetReport {
        budget_check(&crate::parse(&format!("{BOT}{extra}"), "t.toml").unwrap())
    }

    fn source(id: &str, host: &str, schedule: &str, pages: u32) -> String {
        format!(
            "\n[[sources]]\nid = \"{id}\"\nkind = \"listing\"\nstart_urls = [\"https://{host}/agenda/\"]\n{schedule}\nmax_listing_pages = 1\nmax_event_pages = {pages}\n"
        )
    }

    #[test]
    fn seed_ugybot_a_licensed_api_asks_no_robots_txt_and_its_events_are_checked_elsewhere() {
        let r = check(
            "[purposes]\nenabled = [\"robots\", \"listing\", \"event-page\", \"api\", \"cancellation-check\"]\n\
             [[sources]]\nid = \"tickets\"\nkind = \"licensed-api\"\nstart_urls = [\"https://api.tickets.example/v2/events.json\"]\n\
             api_key_env = \"TICKETS_KEY\"\nevery = \"12h\"\nmax_listing_pages = 5\n[sources.api]\nevents = \"/events\"\ntitle = \"/name\"\nstart = \"/start\"\n",
        );
        let api = r.sites.iter().find(|s| s.host == "api.tickets.example").unwrap();
        assert_eq!((api.passes, api.pass_requests), (2, 10), "{api:?}");
        assert_eq!(api.robots_requests, 0, "a licensed API is not asked for robots.txt");
        assert_eq!(api.cancellation_requests, 0, "its events' pages are on other sites");
    }

    #[test]
    fn spec_requests_per_site_per_day_add_up() {
        let r = check(&format!(
            "[purposes]\nenabled = [\"robots\", \"listing\", \"event-page\", \"cancellation-check\"]\n{}",
            source("a", "a.example", "every = \"12h\"", 10)
        ));
        let a = &r.sites[0];
        assert_eq!((a.passes, a.pass_requests), (2, 22));
        assert_eq!((a.cancellation_cycles, a.cancellation_requests), (6, 66));
        assert_eq!(a.link_check_requests, 0, "link-check is not enabled");
        assert_eq!(a.robots_requests, 8, "1 h cache, at most one read per visit");
        assert_eq!(r.total, 96);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }

    #[test]
    fn seed_aubeactu_four_hourly_check_on_a_site_capped_at_60_a_day() {
        let r = check(&format!(
            "[site_classes.municipal]\nrequests_per_day = 60\nrequests_per_pass = 5\nrequests_per_hour = 12\n{}site_class = \"municipal\"\n",
            source("mairie", "mairie.example", "every = \"12h\"", 20)
        ));
        let text: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            text.iter().any(|m| m
                .contains("a cancellation check every 4h alone implies up to 126 requests a day")),
            "{text:#?}"
        );
        assert!(
            text.iter().any(|m| m.contains("more than its class `municipal` allows per pass (5)"))
        );
        assert!(text.iter().any(|m| m.contains("allows in an hour (12)")));
    }

    #[test]
    fn seed_festrobot_more_visits_than_a_few_times_a_day() {
        let r = check(&format!(
            "[site_classes.default]\nvisits_per_day = 4\n{}",
            source("salle", "salle.example", "at = [\"09:00\", \"18:00\"]", 5)
        ));
        let visits = r.warnings.iter().find(|w| w.message.contains("visits a day")).unwrap();
        assert!(visits.message.contains("up to 9 visits"), "{}", visits.message);
        let quiet = check(&format!(
            "[site_classes.default]\nvisits_per_day = 4\n[purposes]\nenabled = [\"robots\", \"listing\", \"event-page\"]\n{}",
            source("salle", "salle.example", "at = [\"09:00\", \"18:00\"]", 5)
        ));
        assert!(quiet.warnings.is_empty(), "two passes a day fit: {:?}", quiet.warnings);
    }

    #[test]
    fn seed_aubeactu_pass_in_quiet_hours_and_global_cap() {
        let r = check(&format!(
            "[politeness]\nglobal_daily_cap = 50\n[site_classes.default]\nquiet_hours = [\"08:00-09:00\"]\n{}",
            source("m", "m.example", "at = [\"08:30\"]", 5)
        ));
        let text: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
        assert!(
            text.iter()
                .any(|m| m.contains("scheduled at 08:30, inside the quiet hours 08:00-09:00")),
            "{text:#?}"
        );
        assert!(text.iter().any(|m| m.contains("more than the global cap of 50")), "{text:#?}");
        assert!(r.warnings.iter().any(|w| w.hint.contains("global_daily_cap = ")), "{r:#?}");
    }

    #[test]
    fn each_site_of_a_many_site_source_counts_its_own_event_pages_and_the_cap_needed() {
        let r = check(
            "[[sources]]\nid = \"venues\"\nkind = \"listing\"\nstart_urls = [\"https://a.example/\", \"https://b.example/\", \"https://a.example/more\"]\nevery = \"1d\"\nmax_listing_pages = 1\nmax_event_pages = 10\n",
        );
        let pass = |host: &str| r.sites.iter().find(|s| s.host == host).unwrap().pass_requests;
        assert_eq!((pass("a.example"), pass("b.example")), (12, 11), "{r:#?}");
        assert!(r.cap_needed() >= r.total && r.cap_needed() < r.total + r.total / 10 + 1);
        assert_eq!((report_cap(1234), report_cap(99), report_cap(100)), (1300, 99, 100));
    }
}
