//! The manifest: which scenario each site plays, and the timings that scale the slow ones.
//!
//! A [`Manifest`] is plain data. It is built explicitly ([`Manifest::new`],
//! [`Manifest::uniform`]) or generated deterministically from a seed
//! ([`Manifest::generate`]); the server never draws random numbers of its own, so the same
//! manifest always produces the same web.

use std::time::Duration;

use chrono::{DateTime, Utc};
use gleaner_samplecity::City;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// The product token the generated robots.txt files name in their bot group.
pub const DEFAULT_TOKEN: &str = "gleaner";

/// How `/robots.txt` answers on one site (SPEC §1 "robots.txt (RFC 9309)").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RobotsScenario {
    /// 200 with the site's [`RobotsRules`] rendered (the common case).
    Rules,
    /// 200 with `User-agent: *` / `Disallow: /`: only robots.txt may be fetched.
    DisallowAll,
    /// 200 with this exact text; the disallow helper cannot know its rules.
    Custom(String),
    /// This status code with a short body (404, 401, 403, 429, 500, 503, …).
    Status(u16),
    /// Accept the request and never answer it (until [`Timings::hang`] passes).
    Timeout,
    /// Reset the connection (RST, `SO_LINGER` 0) without an answer.
    Reset,
    /// Answer with a redirect chain of `hops` 301s ending in the site's rules.
    ///
    /// With `cross_host`, the last hop points to the next site's `/robots-moved.txt`.
    /// More than 5 hops means the file is unreachable (fail closed, SPEC §1).
    Redirect {
        /// Number of redirect responses before the 200.
        hops: u8,
        /// Whether the last hop goes to another site (another host).
        cross_host: bool,
    },
    /// 200 with a file of about 600 KiB: comments, then a rule after the 550 KiB mark
    /// (`Disallow: /late-rule/` in the bot's group) that a parser reading 500 KiB must see.
    Large,
    /// 200 with 4 KiB of seeded random bytes.
    Garbage,
}

impl RobotsScenario {
    /// Whether a polite client must fetch nothing but robots.txt from this site.
    ///
    /// `block_on_401_403` follows the profile: RFC 9309 allows all on 401/403, but
    /// CIXTRA-Bot and FestroBot treat them as a block.
    pub fn forbids_crawling(&self, block_on_401_403: bool) -> bool {
        match self {
            RobotsScenario::DisallowAll | RobotsScenario::Timeout | RobotsScenario::Reset => true,
            RobotsScenario::Status(code) => {
                *code == 429 || *code >= 500 || (block_on_401_403 && matches!(code, 401 | 403))
            }
            RobotsScenario::Redirect { hops, .. } => *hops > 5,
            RobotsScenario::Rules
            | RobotsScenario::Custom(_)
            | RobotsScenario::Large
            | RobotsScenario::Garbage => false,
        }
    }

    /// A short stable name, used by the binary and in violation messages.
    pub fn name(&self) -> String {
        match self {
            RobotsScenario::Rules => "rules".into(),
            RobotsScenario::DisallowAll => "disallow-all".into(),
            RobotsScenario::Custom(_) => "custom".into(),
            RobotsScenario::Status(code) => format!("status-{code}"),
            RobotsScenario::Timeout => "timeout".into(),
            RobotsScenario::Reset => "reset".into(),
            RobotsScenario::Redirect { hops, cross_host } => {
                format!("redirect-{hops}{}", if *cross_host { "-cross-host" } else { "" })
            }
            RobotsScenario::Large => "large".into(),
            RobotsScenario::Garbage => "garbage".into(),
        }
    }
}

/// The rules a generated robots.txt carries: a group for the bot's token and a `*` group.
///
/// Paths are plain prefixes (no wildcards) so the ledger can judge them without a parser.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RobotsRules {
    /// `Crawl-delay` in the bot's group, in seconds; `None` leaves the line out.
    pub crawl_delay: Option<f64>,
    /// `Disallow` prefixes in the bot's group.
    pub disallow: Vec<String>,
    /// `Allow` prefixes in the bot's group (longest match wins, Allow wins a tie).
    pub allow: Vec<String>,
    /// `Disallow` prefixes in the `*` group, which must not apply to the bot.
    pub disallow_others: Vec<String>,
    /// `Request-rate` in the bot's group as `(requests, seconds)`, written `n/Ts`;
    /// `None` leaves the line out.
    #[serde(default)]
    pub request_rate: Option<(u32, u32)>,
    /// `Visit-time` in the bot's group as UTC `(start, end)` minutes of the day, written
    /// `HHMM-HHMM`; `None` leaves the line out.
    #[serde(default)]
    pub visit_time: Option<(u16, u16)>,
}

impl Default for RobotsRules {
    fn default() -> Self {
        RobotsRules {
            crawl_delay: None,
            disallow: vec!["/private/".into(), "/events/hidden".into()],
            allow: vec!["/private/open.html".into()],
            disallow_others: vec!["/events/".into()],
            request_rate: None,
            visit_time: None,
        }
    }
}

impl RobotsRules {
    /// Whether the bot may fetch `path` under these rules (longest match, Allow wins ties).
    pub fn allows(&self, path: &str) -> bool {
        if path == "/robots.txt" {
            return true;
        }
        let longest = |list: &[String]| {
            list.iter().filter(|p| path.starts_with(p.as_str())).map(String::len).max()
        };
        match (longest(&self.allow), longest(&self.disallow)) {
            (_, None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(d)) => a >= d,
        }
    }
}

/// How the site answers pages (everything but robots files) once it has seen `after` of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SiteBehaviour {
    /// Pages answer normally.
    Normal,
    /// After `after` page requests, answer `status` (429 or 503) with `Retry-After` for
    /// `suspend_for`, then answer normally again. Happens once.
    Throttle {
        /// 429 or 503.
        status: u16,
        /// Page requests served normally before the throttle starts.
        after: u32,
        /// How long the site stays suspended.
        suspend_for: Duration,
        /// How `Retry-After` is written.
        retry_after: RetryAfterForm,
    },
    /// After `after` page requests, answer every page with 401 or 403, for good.
    Block {
        /// 401 or 403.
        status: u16,
        /// Page requests served normally before the block.
        after: u32,
    },
    /// After `after` page requests, answer a Cloudflare-style challenge
    /// (403, `cf-mitigated: challenge`).
    Challenge {
        /// Page requests served normally before the challenge.
        after: u32,
    },
    /// After `after` page requests, answer 200 with a login form instead of content.
    LoginWall {
        /// Page requests served normally before the wall.
        after: u32,
    },
}

/// How a `Retry-After` header is written (SPEC §1 "Errors").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum RetryAfterForm {
    /// delta-seconds, e.g. `Retry-After: 30`.
    Seconds,
    /// An HTTP-date, relative to the response's `Date` header.
    HttpDate,
    /// No header at all (the client must assume 1 min).
    Missing,
    /// A value that parses as neither form.
    Garbage,
}

/// One site's part in the web.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SiteSpec {
    /// How `/robots.txt` answers.
    pub robots: RobotsScenario,
    /// The rules served when robots.txt answers with rules (also after redirects).
    pub rules: RobotsRules,
    /// How pages answer over time.
    pub behaviour: SiteBehaviour,
    /// Number of event pages linked from the listing (`/events/1.html` …).
    pub events: u32,
    /// What the site's pages are: the synthetic test pages (the default) or one site of
    /// the sample city (see [`Manifest::with_city`]).
    #[serde(default)]
    pub content: SiteContent,
    /// An `X-Robots-Tag` value sent on the robots files' answers only (`noai`, say):
    /// a rights reservation stated nowhere but on robots.txt.
    #[serde(default)]
    pub robots_x_robots_tag: Option<String>,
    /// A `Robots-Tag` value (draft-illyes-repext) sent on the event pages' answers
    /// (`/events/N.html`): `TestBot: noindex`, say.
    #[serde(default)]
    pub page_robots_tag: Option<String>,
    /// A `Content-Usage` value sent on every answer of the site's synthetic pages (not
    /// robots.txt): an AI-use preference stated on the pages alone.
    #[serde(default)]
    pub page_content_usage: Option<String>,
}

/// What a site serves besides its robots.txt scenario.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SiteContent {
    /// The synthetic pages of the URL layout in the crate docs.
    #[default]
    Synthetic,
    /// Site `n` of the manifest's sample city ([`Manifest::city`]): its pages, feeds,
    /// calendar, APIs, images and rights files, routed by `gleaner_samplecity`.
    City(usize),
}

impl Default for SiteSpec {
    fn default() -> Self {
        SiteSpec {
            robots: RobotsScenario::Rules,
            rules: RobotsRules::default(),
            behaviour: SiteBehaviour::Normal,
            events: 8,
            content: SiteContent::Synthetic,
            robots_x_robots_tag: None,
            page_robots_tag: None,
            page_content_usage: None,
        }
    }
}

impl SiteSpec {
    /// A normal site whose robots.txt plays `robots`.
    pub fn with_robots(robots: RobotsScenario) -> Self {
        SiteSpec { robots, ..SiteSpec::default() }
    }

    /// A normal site with this page behaviour.
    pub fn with_behaviour(behaviour: SiteBehaviour) -> Self {
        SiteSpec { behaviour, ..SiteSpec::default() }
    }

    /// The rules that govern the bot on this site, when the test web knows them.
    ///
    /// `None` for custom and garbage files and for sites where robots.txt fails. A large
    /// file adds its late rule (`Disallow: /late-rule/`).
    pub fn effective_rules(&self) -> Option<RobotsRules> {
        match self.robots {
            RobotsScenario::Rules => Some(self.rules.clone()),
            RobotsScenario::Redirect { hops, .. } if hops <= 5 => Some(self.rules.clone()),
            RobotsScenario::Large => {
                let mut rules = self.rules.clone();
                rules.disallow.push("/late-rule/".into());
                Some(rules)
            }
            _ => None,
        }
    }

    /// The `Crawl-delay` the bot must honour on this site, when robots.txt gives one.
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.effective_rules()?.crawl_delay.map(Duration::from_secs_f64)
    }

    /// The least gap its `Request-rate: n/Ts` asks for (`T / n`), when robots.txt has one.
    pub fn request_rate_gap(&self) -> Option<Duration> {
        let (n, secs) = self.effective_rules()?.request_rate?;
        Some(Duration::from_secs(u64::from(secs)) / n.max(1))
    }

    /// The UTC window `[start, end)` of its `Visit-time`, when robots.txt has one.
    pub fn visit_time(&self) -> Option<(chrono::NaiveTime, chrono::NaiveTime)> {
        let (start, end) = self.effective_rules()?.visit_time?;
        let at =
            |m: u16| chrono::NaiveTime::from_hms_opt(u32::from(m / 60) % 24, u32::from(m % 60), 0);
        Some((at(start)?, at(end)?))
    }
}

/// Durations of the slow scenarios, so tests can scale them down.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timings {
    /// Delay before the first byte of `/slow/first-byte` (default 20 s).
    pub slow_first_byte: Duration,
    /// Gap between bytes of `/slow/trickle` (default 1 s).
    pub trickle_interval: Duration,
    /// Number of bytes `/slow/trickle` sends, one per interval (default 60).
    pub trickle_bytes: u32,
    /// How long a hanging robots.txt (`RobotsScenario::Timeout`) holds before closing
    /// without an answer (default 120 s).
    pub hang: Duration,
    /// `Retry-After` sent with a 429 or 503 robots.txt, rounded up to whole seconds
    /// (default 60 s).
    pub robots_retry_after: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Timings {
            slow_first_byte: Duration::from_secs(20),
            trickle_interval: Duration::from_secs(1),
            trickle_bytes: 60,
            hang: Duration::from_secs(120),
            robots_retry_after: Duration::from_secs(60),
        }
    }
}

/// The whole web: one [`SiteSpec`] per site, in site order, plus shared settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Seed for generated content (titles, garbage bytes); also records how it was made.
    pub seed: u64,
    /// The bot's product token, named in each generated robots.txt group.
    pub token: String,
    /// Site `i` plays `sites[i]`.
    pub sites: Vec<SiteSpec>,
    /// Durations of slow scenarios.
    pub timings: Timings,
    /// The sample city the [`SiteContent::City`] sites serve, when there are any.
    #[serde(default)]
    pub city: Option<CityConfig>,
    /// The first of the 28 days the synthetic event pages fall on (`None`: 1 December
    /// 2026, which the tests with an injected clock are written for). A test that runs
    /// the real binary on the real clock passes a day after today
    /// ([`Manifest::with_events_from`]), so its events stay upcoming whenever it runs.
    #[serde(default)]
    pub events_from: Option<chrono::NaiveDate>,
}

/// The first day of the synthetic events when the manifest names none.
pub const DEFAULT_EVENTS_FROM: chrono::NaiveDate =
    chrono::NaiveDate::from_ymd_opt(2026, 12, 1).expect("a valid date");

/// How the manifest's sample city is generated (see `gleaner_samplecity::City`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CityConfig {
    /// The city's content seed.
    pub seed: u64,
    /// The instant every date is relative to (tests pass a fixed one).
    pub now: DateTime<Utc>,
    /// How long the throttling venue answers 429 on event pages, from the web's start.
    pub throttle_for: Duration,
    /// The key the licensed API wants in `?apikey=`.
    pub api_key: String,
}

impl CityConfig {
    /// The city this config describes, with robots.txt groups for `token`.
    pub fn build(&self, token: &str) -> City {
        City::generate(self.seed, self.now)
            .with_token(token)
            .with_throttle_for(self.throttle_for)
            .with_api_key(&self.api_key)
    }
}

impl Manifest {
    /// A manifest with these sites, seed 0, the default token and default timings.
    pub fn new(sites: Vec<SiteSpec>) -> Self {
        Manifest {
            seed: 0,
            token: DEFAULT_TOKEN.to_owned(),
            sites,
            timings: Timings::default(),
            city: None,
            events_from: None,
        }
    }

    /// The same manifest with its synthetic events on the 28 days from `day`.
    pub fn with_events_from(mut self, day: chrono::NaiveDate) -> Self {
        self.events_from = Some(day);
        self
    }

    /// The first of the 28 days the synthetic event pages fall on.
    pub fn events_from(&self) -> chrono::NaiveDate {
        self.events_from.unwrap_or(DEFAULT_EVENTS_FROM)
    }

    /// `count` sites that all play `spec`.
    pub fn uniform(count: usize, spec: SiteSpec) -> Self {
        Manifest::new(vec![spec; count])
    }

    /// `count` sites whose scenarios are drawn deterministically from `seed`.
    ///
    /// The first sites walk through [`Manifest::catalogue`] in order so every scenario is
    /// present when `count` is large enough; the rest are mostly well-behaved sites (about
    /// two in three) with the remaining third drawn from the catalogue.
    pub fn generate(count: usize, seed: u64) -> Self {
        let catalogue = Manifest::catalogue();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let sites = (0..count)
            .map(|i| {
                if i < catalogue.len() {
                    return catalogue[i].clone();
                }
                let mut spec = if rng.random_bool(2.0 / 3.0) {
                    SiteSpec::default()
                } else {
                    catalogue[rng.random_range(0..catalogue.len())].clone()
                };
                if rng.random_bool(0.25) {
                    spec.rules.crawl_delay = Some(f64::from(rng.random_range(1u8..=5)));
                }
                spec.events = rng.random_range(3..=12);
                spec
            })
            .collect();
        Manifest { seed, ..Manifest::new(sites) }
    }

    /// One site per scenario, in a fixed order (the head of every generated manifest).
    pub fn catalogue() -> Vec<SiteSpec> {
        let mut out = vec![SiteSpec::default()];
        let robots = [
            RobotsScenario::DisallowAll,
            RobotsScenario::Status(404),
            RobotsScenario::Status(401),
            RobotsScenario::Status(403),
            RobotsScenario::Status(429),
            RobotsScenario::Status(500),
            RobotsScenario::Status(503),
            RobotsScenario::Timeout,
            RobotsScenario::Reset,
            RobotsScenario::Redirect { hops: 3, cross_host: false },
            RobotsScenario::Redirect { hops: 7, cross_host: false },
            RobotsScenario::Redirect { hops: 1, cross_host: true },
            RobotsScenario::Large,
            RobotsScenario::Garbage,
        ];
        out.extend(robots.into_iter().map(SiteSpec::with_robots));
        out.push(SiteSpec {
            rules: RobotsRules { crawl_delay: Some(2.0), ..RobotsRules::default() },
            ..SiteSpec::default()
        });
        let behaviours = [
            SiteBehaviour::Throttle {
                status: 429,
                after: 3,
                suspend_for: Duration::from_secs(30),
                retry_after: RetryAfterForm::Seconds,
            },
            SiteBehaviour::Throttle {
                status: 503,
                after: 3,
                suspend_for: Duration::from_secs(30),
                retry_after: RetryAfterForm::HttpDate,
            },
            SiteBehaviour::Block { status: 401, after: 2 },
            SiteBehaviour::Block { status: 403, after: 2 },
            SiteBehaviour::Challenge { after: 2 },
            SiteBehaviour::LoginWall { after: 2 },
        ];
        out.extend(behaviours.into_iter().map(SiteSpec::with_behaviour));
        out
    }

    /// The same manifest with other timings.
    pub fn with_timings(mut self, timings: Timings) -> Self {
        self.timings = timings;
        self
    }

    /// The same manifest with another bot token.
    pub fn with_token(mut self, token: &str) -> Self {
        token.clone_into(&mut self.token);
        self
    }

    /// A web of the sample city alone: one site per city site, in the city's order, each
    /// with the city's robots.txt rules (so the ledger checks know them).
    pub fn city(seed: u64, now: DateTime<Utc>) -> Self {
        Manifest::new(Vec::new()).with_city(seed, now)
    }

    /// The same manifest with the sample city's sites appended after its own.
    ///
    /// Site `offset + j` plays city site `j`, where `offset` is the number of sites before
    /// the call; robots.txt follows the city's rules, pages answer with the city's content,
    /// and [`SiteBehaviour`]s set on those sites still apply around it.
    pub fn with_city(mut self, seed: u64, now: DateTime<Utc>) -> Self {
        let config = CityConfig {
            seed,
            now,
            throttle_for: Duration::from_secs(30),
            api_key: gleaner_samplecity::DEFAULT_API_KEY.to_owned(),
        };
        let city = config.build(&self.token);
        for (j, site) in city.sites().iter().enumerate() {
            let plan = gleaner_samplecity::rights::robots_plan(site);
            self.sites.push(SiteSpec {
                robots: RobotsScenario::Rules,
                rules: RobotsRules {
                    crawl_delay: plan.crawl_delay,
                    disallow: plan.disallow,
                    allow: plan.allow,
                    disallow_others: plan.disallow_others,
                    request_rate: None,
                    visit_time: None,
                },
                behaviour: SiteBehaviour::Normal,
                events: 0,
                content: SiteContent::City(j),
                robots_x_robots_tag: None,
                page_robots_tag: None,
                page_content_usage: None,
            });
        }
        self.city = Some(config);
        self
    }

    /// The same manifest with the city's throttling venue answering 429 for `d` (default
    /// 30 s) from the web's start; no effect without a city.
    pub fn with_city_throttle(mut self, d: Duration) -> Self {
        if let Some(c) = &mut self.city {
            c.throttle_for = d;
        }
        self
    }

    /// Index of the site playing city site `j`, if the manifest has it.
    pub fn city_site(&self, j: usize) -> Option<usize> {
        self.sites.iter().position(|s| s.content == SiteContent::City(j))
    }

    /// The same manifest with another content seed.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc9309_longest_match_and_allow_wins_ties() {
        let rules = RobotsRules {
            allow: vec!["/private/open.html".into(), "/tie/".into()],
            disallow: vec!["/private/".into(), "/tie/".into(), "/".into()],
            ..RobotsRules::default()
        };
        assert!(!rules.allows("/private/secret.html"));
        assert!(rules.allows("/private/open.html"));
        assert!(rules.allows("/tie/x"));
        assert!(!rules.allows("/anything"));
        assert!(rules.allows("/robots.txt"), "robots.txt is always allowed");
        let default = RobotsRules::default();
        assert!(default.allows("/events/1.html"), "the `*` group does not bind the bot");
        assert!(!default.allows("/events/hidden.html"));
    }

    #[test]
    fn which_robots_outcomes_forbid_crawling() {
        use RobotsScenario as R;
        let forbids = |s: R, block| s.forbids_crawling(block);
        for code in [429, 500, 503] {
            assert!(forbids(R::Status(code), false), "{code}");
        }
        assert!(!forbids(R::Status(404), true));
        assert!(!forbids(R::Status(401), false));
        assert!(forbids(R::Status(403), true));
        assert!(forbids(R::Timeout, false) && forbids(R::Reset, false));
        assert!(forbids(R::DisallowAll, false));
        let hops = |hops| R::Redirect { hops, cross_host: false };
        assert!(!forbids(hops(5), false));
        assert!(forbids(hops(6), false));
        assert!(!forbids(R::Garbage, false) && !forbids(R::Large, false));
    }

    #[test]
    fn effective_rules_and_crawl_delay() {
        let mut spec = SiteSpec::with_robots(RobotsScenario::Large);
        spec.rules.crawl_delay = Some(1.5);
        let rules = spec.effective_rules().unwrap();
        assert!(!rules.allows("/late-rule/x"));
        assert_eq!(spec.crawl_delay(), Some(Duration::from_millis(1500)));
        assert_eq!(SiteSpec::with_robots(RobotsScenario::Status(503)).crawl_delay(), None);
    }

    #[test]
    fn generated_manifest_covers_the_catalogue_and_is_seeded() {
        let m = Manifest::generate(100, 3);
        assert_eq!(m.sites.len(), 100);
        assert_eq!(m.seed, 3);
        assert_eq!(m.sites[..Manifest::catalogue().len()], Manifest::catalogue()[..]);
        assert_eq!(m, Manifest::generate(100, 3));
    }

    #[test]
    fn manifests_round_trip_through_json() {
        let m = Manifest::generate(40, 9).with_token("FestroBot");
        let json = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Manifest>(&json).unwrap(), m);
    }
}
