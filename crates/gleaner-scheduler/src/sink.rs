//! Where a pass puts what it finds: the [`EventSink`] trait (the store implements it)
//! and [`MemorySink`] for tests and dry runs.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::SystemTime;

use gleaner_event::merge::Extractor;
use gleaner_event::{Event, EventIdentity, EventStatus, EventTime};
use gleaner_fetch::Validators;
use gleaner_policy::Purpose;
use gleaner_policy::state::BoxFuture;
use url::Url;

use crate::links::ListingLinks;

/// What storing an event changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upsert {
    /// First time seen.
    New,
    /// Seen before, some fact changed.
    Updated,
    /// Seen before, nothing changed (last-checked moves).
    Unchanged,
}

/// One event found by a pass, with where it came from.
#[derive(Debug, Clone)]
pub struct Found {
    /// The normalised event.
    pub event: Event,
    /// Its identity (for merging the same event from several places).
    pub identity: EventIdentity,
    /// The source that found it.
    pub source: String,
    /// The page it was read from.
    pub page: Url,
    /// When it was read.
    pub checked_at: SystemTime,
    /// The reader that read it, for its provenance (`None` when not known, as for an
    /// event handed back by [`EventSink::stored_events`]).
    pub extractor: Option<Extractor>,
}

/// The extractor recorded for an event an extraction format read (`None` for formats
/// that read no events: sitemaps, the document itself).
pub fn extractor_of(format: gleaner_extract::Format) -> Option<Extractor> {
    use gleaner_extract::Format;
    Some(match format {
        Format::Microdata => Extractor::Microdata,
        Format::Rdfa => Extractor::Rdfa,
        Format::JsonLd => Extractor::JsonLd,
        Format::Microformats => Extractor::Microformats,
        Format::Feed => Extractor::Feed,
        Format::ICalendar => Extractor::ICalendar,
        Format::Api => Extractor::Api,
        Format::OpenData => Extractor::OpenData,
        Format::Rules => Extractor::Rules,
        Format::Fallback => Extractor::Fallback,
        Format::Sitemap | Format::Document => return None,
    })
}

/// A news item for the newsroom pool: an open-data record (a weather warning, a fuel
/// price) or a feed item that is not an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct News {
    /// Its link (unique: records without their own link get the dataset URL with the
    /// record's id as fragment).
    pub url: Url,
    /// The source that found it.
    pub source: String,
    /// Its title.
    pub title: Option<String>,
    /// When it was published or is dated.
    pub published: Option<SystemTime>,
    /// A summary (the record's fields), kept only for `keep = "full"`.
    pub summary: Option<String>,
}

/// Storage for a pass: events, and validators for conditional requests.
pub trait EventSink: Send + Sync {
    /// Stores an event (new, updated or unchanged).
    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert>;
    /// A page answered 304: its events are still current; record the check.
    fn checked_unchanged<'a>(&'a self, page: &'a Url, at: SystemTime) -> BoxFuture<'a, ()>;
    /// Validators stored for a URL.
    fn validators<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Validators>;
    /// Stores validators for a URL.
    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()>;
    /// The links a listing page had when last read (used when it answers 304).
    fn listing_links<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Option<ListingLinks>>;
    /// Stores the links of a listing page.
    fn set_listing_links<'a>(&'a self, url: &'a Url, links: ListingLinks) -> BoxFuture<'a, ()>;

    /// Stored events that overlap `[from, to)` (by start, or end when they have one), for
    /// the checks of SPEC §4; `page` is the event's own page and `checked_at` its last
    /// check. The checks narrow the window per event zone themselves. Required, with no
    /// default: a sink that forgot it would leave the checks (and the 404/410 marking of
    /// a pass) silently idle.
    fn stored_events<'a>(&'a self, from: SystemTime, to: SystemTime) -> BoxFuture<'a, Vec<Found>>;

    /// A site's rights files as last stored ([`crate::rights`]). The default knows none.
    fn site_rights<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Option<crate::rights::RightsFiles>> {
        let _ = site;
        Box::pin(async { None })
    }

    /// Records whether an image may be relayed now and why (the link check re-deciding
    /// from terms and signals); `source` names the event's source when known. The
    /// default keeps nothing.
    fn set_relay_allowed<'a>(
        &'a self,
        image: &'a Url,
        source: Option<&'a str>,
        allowed: bool,
        reason: String,
    ) -> BoxFuture<'a, ()> {
        let _ = (image, source, allowed, reason);
        Box::pin(async {})
    }

    /// Stores a site's rights files as just read. The default keeps nothing.
    fn put_site_rights<'a>(
        &'a self,
        site: &'a str,
        files: crate::rights::RightsFiles,
    ) -> BoxFuture<'a, ()> {
        let _ = (site, files);
        Box::pin(async {})
    }

    /// Archives a site's public terms or press page when it changed (FestroBot: "a
    /// document, not a memory"). Returns whether a new version was stored. The default
    /// keeps nothing.
    fn archive_terms<'a>(
        &'a self,
        page: &'a Url,
        body: Vec<u8>,
        at: SystemTime,
    ) -> BoxFuture<'a, bool> {
        let _ = (page, body, at);
        Box::pin(async { false })
    }

    /// Stores a news item (by URL; a second sighting updates it). Returns whether it was
    /// stored. The default keeps nothing.
    fn upsert_news<'a>(&'a self, news: News, keep_summary: bool) -> BoxFuture<'a, bool> {
        let _ = (news, keep_summary);
        Box::pin(async { false })
    }

    /// The event's page answered 404 or 410: the event is *gone at source*, an internal
    /// status that is never published as cancelled (SPEC §2, §4). The default stores it
    /// through [`EventSink::upsert`], so the status change is recorded with its history.
    fn mark_gone<'a>(&'a self, found: Found, at: SystemTime) -> BoxFuture<'a, Upsert> {
        let mut found = found;
        found.event.status = EventStatus::GoneAtSource;
        found.event.status_stated = false;
        found.checked_at = at;
        self.upsert(found)
    }

    /// The language-model step (issue 18) for sources with `llm` or `translate`: the
    /// store-backed sink carries it, beside the storage it writes to. The default has none.
    fn language_model(&self) -> Option<std::sync::Arc<gleaner_llm::Llm>> {
        None
    }

    /// Keeps `url` (asked for `purpose`) for the next pass of `source`, committed before
    /// this returns: it answered 429 or 503, and is asked first next time unless it is
    /// asked again before (the retries of `retries.rs`). The default keeps nothing across
    /// passes.
    fn keep_for_next_pass<'a>(
        &'a self,
        source: &'a str,
        url: &'a Url,
        purpose: Purpose,
    ) -> BoxFuture<'a, ()> {
        let _ = (source, url, purpose);
        Box::pin(async {})
    }

    /// The requests kept for the next pass of `source`, oldest first.
    fn kept_for_next_pass<'a>(&'a self, source: &'a str) -> BoxFuture<'a, Vec<(Url, Purpose)>> {
        let _ = source;
        Box::pin(async { Vec::new() })
    }

    /// `url` was asked again: it is no longer kept for `source`.
    fn asked_again<'a>(&'a self, source: &'a str, url: &'a Url) -> BoxFuture<'a, ()> {
        let _ = (source, url);
        Box::pin(async {})
    }
}

/// An instant for an event time, for coarse windows: fixed times exactly, dates and
/// floating times as if in UTC (callers widen their windows by a day for them).
pub fn approximate_instant(time: &EventTime) -> SystemTime {
    let utc = match time {
        EventTime::Fixed(dt) => dt.with_timezone(&chrono::Utc),
        EventTime::Floating(dt) => dt.and_utc(),
        EventTime::Date(d) => d.and_time(chrono::NaiveTime::MIN).and_utc(),
    };
    SystemTime::from(utc)
}

/// An [`EventSink`] in memory.
#[derive(Debug, Default)]
pub struct MemorySink {
    events: Mutex<HashMap<EventIdentity, Found>>,
    history: Mutex<Vec<(EventIdentity, EventStatus, SystemTime)>>,
    validators: Mutex<HashMap<String, Validators>>,
    listings: Mutex<HashMap<String, ListingLinks>>,
    news: Mutex<Vec<News>>,
    rights: Mutex<HashMap<String, crate::rights::RightsFiles>>,
    /// Requests kept for a source's next pass: (source, URL, purpose), oldest first.
    kept: Mutex<Vec<(String, Url, Purpose)>>,
}

impl MemorySink {
    /// The news items stored so far, in order.
    pub fn news(&self) -> Vec<News> {
        self.news.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The events stored so far.
    pub fn events(&self) -> Vec<Found> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).values().cloned().collect()
    }

    /// Every status an event was stored with, in order: the first one, then each change
    /// (the store keeps the same history).
    pub fn history(&self) -> Vec<(EventIdentity, EventStatus, SystemTime)> {
        self.history.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl EventSink for MemorySink {
    fn keep_for_next_pass<'a>(
        &'a self,
        source: &'a str,
        url: &'a Url,
        purpose: Purpose,
    ) -> BoxFuture<'a, ()> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|(s, u, _)| (s.as_str(), u) != (source, url));
        kept.push((source.to_owned(), url.clone(), purpose));
        Box::pin(async {})
    }

    fn kept_for_next_pass<'a>(&'a self, source: &'a str) -> BoxFuture<'a, Vec<(Url, Purpose)>> {
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        let mine = kept.iter().filter(|(s, _, _)| s == source).map(|(_, u, p)| (u.clone(), *p));
        let mine: Vec<_> = mine.collect();
        Box::pin(async move { mine })
    }

    fn asked_again<'a>(&'a self, source: &'a str, url: &'a Url) -> BoxFuture<'a, ()> {
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        kept.retain(|(s, u, _)| (s.as_str(), u) != (source, url));
        Box::pin(async {})
    }

    fn site_rights<'a>(
        &'a self,
        site: &'a str,
    ) -> BoxFuture<'a, Option<crate::rights::RightsFiles>> {
        let files = self.rights.lock().unwrap_or_else(|p| p.into_inner()).get(site).cloned();
        Box::pin(async move { files })
    }

    fn put_site_rights<'a>(
        &'a self,
        site: &'a str,
        files: crate::rights::RightsFiles,
    ) -> BoxFuture<'a, ()> {
        self.rights.lock().unwrap_or_else(|p| p.into_inner()).insert(site.to_owned(), files);
        Box::pin(async {})
    }

    fn upsert_news<'a>(&'a self, news: News, keep_summary: bool) -> BoxFuture<'a, bool> {
        let mut stored = self.news.lock().unwrap_or_else(|p| p.into_inner());
        let news = News { summary: news.summary.filter(|_| keep_summary), ..news };
        match stored.iter_mut().find(|n| n.url == news.url) {
            Some(old) => *old = news,
            None => stored.push(news),
        }
        Box::pin(async { true })
    }

    fn upsert<'a>(&'a self, found: Found) -> BoxFuture<'a, Upsert> {
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let outcome = match events.get(&found.identity) {
            None => Upsert::New,
            Some(old) if old.event == found.event => Upsert::Unchanged,
            Some(_) => Upsert::Updated,
        };
        let status_changed =
            events.get(&found.identity).is_none_or(|old| old.event.status != found.event.status);
        if status_changed {
            self.history.lock().unwrap_or_else(|p| p.into_inner()).push((
                found.identity,
                found.event.status,
                found.checked_at,
            ));
        }
        events.insert(found.identity, found);
        Box::pin(async move { outcome })
    }

    fn checked_unchanged<'a>(&'a self, page: &'a Url, at: SystemTime) -> BoxFuture<'a, ()> {
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        for found in events.values_mut().filter(|f| f.page == *page) {
            found.checked_at = at;
        }
        Box::pin(async {})
    }

    fn validators<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Validators> {
        let v = self
            .validators
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(url.as_str())
            .cloned()
            .unwrap_or_default();
        Box::pin(async move { v })
    }

    fn set_validators<'a>(&'a self, url: &'a Url, validators: Validators) -> BoxFuture<'a, ()> {
        self.validators
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(url.to_string(), validators);
        Box::pin(async {})
    }

    fn listing_links<'a>(&'a self, url: &'a Url) -> BoxFuture<'a, Option<ListingLinks>> {
        let links =
            self.listings.lock().unwrap_or_else(|p| p.into_inner()).get(url.as_str()).cloned();
        Box::pin(async move { links })
    }

    fn set_listing_links<'a>(&'a self, url: &'a Url, links: ListingLinks) -> BoxFuture<'a, ()> {
        self.listings.lock().unwrap_or_else(|p| p.into_inner()).insert(url.to_string(), links);
        Box::pin(async {})
    }

    fn stored_events<'a>(&'a self, from: SystemTime, to: SystemTime) -> BoxFuture<'a, Vec<Found>> {
        let events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let found = events
            .values()
            .filter(|f| {
                let Some(start) = f.event.start.as_ref().map(approximate_instant) else {
                    return false;
                };
                let end = f.event.end.as_ref().map_or(start, approximate_instant);
                start < to && end >= from
            })
            .cloned()
            .collect();
        Box::pin(async move { found })
    }
}
