//! Ground truth: the events a perfect, polite crawler keeps from the city at one pass, with
//! the facts the pages state, and the pages it must leave alone (and why).
//!
//! A perfect crawler reads every venue's listing, sitemap, feeds and event pages and the
//! town hall's calendar, honours robots.txt (a venue that disallows the bot, a private
//! path), rights reservations (TDMRep) and `noindex`, and waits out a 429. Free events
//! state no price range: `is_free` is true and the prices are `None`.

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use crate::city::{City, Origins};
use crate::events::{Price, Status, decimal};
use crate::ical;
use crate::venues::{Markup, Refusal, Role};

/// One event as the pages state it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TruthEvent {
    /// The site index.
    pub site: usize,
    /// The page it is read from (the `.ics` URL for calendar instances).
    pub url: String,
    /// For calendar instances: the UID of the series.
    pub uid: Option<String>,
    /// For instances of a recurring series: the `RECURRENCE-ID` (original start).
    pub recurrence_id: Option<DateTime<FixedOffset>>,
    /// The title.
    pub title: String,
    /// Start, with the offset the page states.
    pub start: DateTime<FixedOffset>,
    /// End, with its offset (which differs from the start's across a DST change).
    pub end: Option<DateTime<FixedOffset>>,
    /// For rescheduled events: the start before the change (`previousStartDate`).
    pub previous_start: Option<DateTime<FixedOffset>>,
    /// The IANA zone of the venue.
    pub time_zone: String,
    /// Venue name (the calendar's `LOCATION` for calendar instances).
    pub venue: String,
    /// Town or city.
    pub locality: String,
    /// ISO 3166-1 alpha-2 country.
    pub country: String,
    /// Lowest price as a decimal string (`"12.50"`), `None` when free or unstated.
    pub price_min: Option<String>,
    /// Highest price as a decimal string, `None` when free or unstated.
    pub price_max: Option<String>,
    /// ISO 4217 currency of the prices.
    pub currency: Option<String>,
    /// Whether entry is free.
    pub is_free: bool,
    /// The status the page states.
    pub status: Status,
    /// How the page states its facts (`plain` needs per-site rules).
    pub markup: Markup,
}

/// Why a perfect crawler keeps nothing from a page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exclusion {
    /// robots.txt disallows the whole site for the bot.
    RobotsDisallowAll,
    /// robots.txt disallows this path for the bot.
    RobotsDisallowPath,
    /// The site reserves text and data mining (TDMRep).
    TdmReservation,
    /// The page says `noindex`: its events are not published.
    Noindex,
}

/// A page whose event a perfect crawler leaves out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Excluded {
    /// The site index.
    pub site: usize,
    /// The page.
    pub url: String,
    /// The event's title, for messages.
    pub title: String,
    /// Why.
    pub reason: Exclusion,
}

/// What a perfect crawler keeps at one pass, and what it leaves out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroundTruth {
    /// The pass.
    pub pass: u32,
    /// Kept events, venue by venue in date order, then the calendar's instances.
    pub events: Vec<TruthEvent>,
    /// Pages left out, with the reason.
    pub excluded: Vec<Excluded>,
}

impl GroundTruth {
    /// The kept event read from `url`, if any (not for calendar instances, which share one).
    pub fn by_url(&self, url: &str) -> Option<&TruthEvent> {
        self.events.iter().find(|e| e.url == url)
    }

    /// Kept events of site `site`.
    pub fn of_site(&self, site: usize) -> impl Iterator<Item = &TruthEvent> {
        self.events.iter().filter(move |e| e.site == site)
    }
}

impl City {
    /// The ground truth at `pass` (see the module docs).
    pub fn ground_truth(&self, origins: &Origins, pass: u32) -> GroundTruth {
        let mut events = Vec::new();
        let mut excluded = Vec::new();
        for (i, site) in self.sites().iter().enumerate() {
            match site.role {
                Role::Venue => {
                    for e in self.venue_events(i, pass) {
                        let url = origins.url(i, &e.path);
                        let reason = match site.refusal {
                            Some(Refusal::RobotsDisallowAll) => Some(Exclusion::RobotsDisallowAll),
                            Some(Refusal::TdmReservation) => Some(Exclusion::TdmReservation),
                            _ if e.private => Some(Exclusion::RobotsDisallowPath),
                            _ if e.noindex => Some(Exclusion::Noindex),
                            _ => None,
                        };
                        if let Some(reason) = reason {
                            excluded.push(Excluded { site: i, url, title: e.title, reason });
                            continue;
                        }
                        let priced = e.price != Price::Free;
                        events.push(TruthEvent {
                            site: i,
                            url,
                            uid: None,
                            recurrence_id: None,
                            title: e.title,
                            start: e.start.fixed_offset(),
                            end: e.end.map(|t| t.fixed_offset()),
                            previous_start: e.previous_start.map(|t| t.fixed_offset()),
                            time_zone: site.zone.name().to_owned(),
                            venue: site.name.to_owned(),
                            locality: site.locality.to_owned(),
                            country: site.country.to_owned(),
                            price_min: priced.then(|| decimal(e.price.min_minor())),
                            price_max: priced.then(|| decimal(e.price.max_minor())),
                            currency: priced.then(|| site.currency.to_owned()),
                            is_free: !priced,
                            status: e.status,
                            markup: site.markup,
                        });
                    }
                }
                Role::TownHall => {
                    for inst in ical::instances(self.now(), site.zone) {
                        events.push(TruthEvent {
                            site: i,
                            url: origins.url(i, "/agenda.ics"),
                            uid: Some(inst.uid),
                            recurrence_id: inst.recurrence_id.map(|t| t.fixed_offset()),
                            title: inst.title.to_owned(),
                            start: inst.start.fixed_offset(),
                            end: Some(inst.end.fixed_offset()),
                            previous_start: None,
                            time_zone: site.zone.name().to_owned(),
                            venue: inst.location.to_owned(),
                            locality: "Sainte-Aube".to_owned(),
                            country: site.country.to_owned(),
                            price_min: None,
                            price_max: None,
                            currency: None,
                            is_free: false,
                            status: inst.status,
                            markup: Markup::ICalendar,
                        });
                    }
                }
                _ => {}
            }
        }
        GroundTruth { pass, events, excluded }
    }
}
