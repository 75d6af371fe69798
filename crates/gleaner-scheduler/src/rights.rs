//! Site-level rights signals (issue 16; SPEC §1 "Rights signals"): a site's TDMRep file
//! (`/.well-known/tdmrep.json`) and `/ai.txt`, read through the gate (purpose
//! `rights-signal`: robots.txt first, so a site whose robots.txt disallows everything is
//! asked for nothing else), kept per site for `[rights] files_ttl`, archived like terms
//! pages, and applied per `[rights] on_reservation`.
//!
//! Fetching stays in `gleaner-fetch` (the gate) and decisions in `gleaner-policy`
//! ([`gleaner_policy::signals::reservation`]); this module puts them together, and is the
//! query other code asks: "may this page or site be used for purpose X?"
//! ([`RightsBook::may_use`], or the pure [`decide`] when the caller holds the response's
//! headers and meta tags).

use std::sync::Arc;
use std::time::SystemTime;

use gleaner_config::Settings;
use gleaner_config::relay::ImageTerms;
use gleaner_config::settings::OnReservation as ConfigOnReservation;
use gleaner_config::sources::{Keep, Source};
use gleaner_fetch::{Gate, GateOutcome, GateRequest};
use gleaner_policy::Purpose;
use gleaner_policy::robots::outcome::RobotsState;
use gleaner_policy::signals::prefs;
use gleaner_policy::signals::prefs::PrefRule;
use gleaner_policy::signals::reservation::{self, OnReservation, Reservation, RightsDecision};
use gleaner_policy::signals::{AiTxt, RightsSignals, RightsUse, TdmRepFile};
use gleaner_policy::state::RobotsMemory;
use url::Url;

use crate::sink::EventSink;

/// A site's rights files as read (`None`: missing, refused or unreadable), with when
/// they were read and how long they are trusted. Stored through
/// [`EventSink::put_site_rights`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RightsFiles {
    /// When they were read.
    pub read_at: SystemTime,
    /// Trusted until then.
    pub valid_until: SystemTime,
    /// The bytes of `/.well-known/tdmrep.json`.
    pub tdmrep: Option<Vec<u8>>,
    /// The bytes of `/ai.txt`.
    pub ai_txt: Option<Vec<u8>>,
}

/// A site's rights files, parsed.
#[derive(Debug, Clone, Default)]
pub struct SiteRights {
    /// The TDMRep file, when the site has a valid one.
    pub tdmrep: Option<TdmRepFile>,
    /// The ai.txt file, when the site has one.
    pub ai_txt: Option<AiTxt>,
    /// The `Content-Usage`/`Content-Signal` rules of the site's robots.txt group for us
    /// (issue 29), when the caller read them ([`SiteRights::with_prefs`]).
    pub prefs: Vec<PrefRule>,
}

impl SiteRights {
    /// Parses stored files; a file that does not parse counts as absent (TDMRep) or as
    /// what could be read of it (ai.txt never fails).
    pub fn parse(files: &RightsFiles) -> SiteRights {
        SiteRights {
            tdmrep: files.tdmrep.as_deref().and_then(|b| TdmRepFile::parse(b).ok()),
            ai_txt: files.ai_txt.as_deref().map(AiTxt::parse_bytes),
            prefs: Vec::new(),
        }
    }

    /// The same rights with the robots.txt AI-use preference rules of the site
    /// ([`gleaner_fetch::Gate::robots_preferences`], or `AgentRules::preferences`), so
    /// that [`decide`] combines them most restrictively with TDMRep, ai.txt and `noai`.
    pub fn with_prefs(mut self, prefs: Vec<PrefRule>) -> SiteRights {
        self.prefs = prefs;
        self
    }

    fn signals<'a>(&'a self, token: &'a str) -> RightsSignals<'a> {
        RightsSignals {
            token,
            tdmrep: self.tdmrep.as_ref(),
            ai_txt: self.ai_txt.as_ref(),
            prefs: &self.prefs,
        }
    }

    /// The reservations the site files make anywhere on the site.
    pub fn site_wide(&self, token: &str) -> Vec<Reservation> {
        self.signals(token).site_wide()
    }
}

fn on_reservation(settings: &Settings) -> OnReservation {
    match settings.rights.on_reservation {
        ConfigOnReservation::StopSite => OnReservation::StopSite,
        ConfigOnReservation::PerPurpose => OnReservation::PerPurpose,
    }
}

pub(crate) fn path_and_query(url: &Url) -> String {
    match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_owned(),
    }
}

/// May `url` be used for `use_`? The pure decision: the site's files (`rights`, `None`
/// when unknown), and, when the caller fetched `url`, its response `headers` and HTML
/// `meta` pairs (empty slices otherwise). Under `stop-site` any reservation on the site
/// decides; under `per-purpose` only one covering `url` that names `use_`. With
/// `[rights] honour_signals = false` everything is allowed.
pub fn decide(
    settings: &Settings,
    rights: Option<&SiteRights>,
    url: &Url,
    use_: RightsUse,
    headers: &[(&str, &str)],
    meta: &[(&str, &str)],
) -> RightsDecision {
    if !settings.rights.honour_signals {
        return RightsDecision::Allowed;
    }
    let none = SiteRights::default();
    let rights = rights.unwrap_or(&none);
    let token = settings.bot.token.as_str();
    let on = on_reservation(settings);
    let mut found = rights.signals(token).for_url(&path_and_query(url), headers, meta);
    if on == OnReservation::StopSite {
        found.extend(rights.site_wide(token));
    }
    reservation::decide_use(on, &found, use_)
}

/// The AI-use preference rules of the robots.txt group selected for our token, from a
/// site's robots.txt memory (the last one read, even when expired: a preference seen is
/// honoured until the file is read again). Empty without rules.
pub fn robots_prefs(settings: &Settings, memory: Option<&RobotsMemory>) -> Vec<PrefRule> {
    match memory.map(|m| &m.state) {
        Some(RobotsState::Rules(robots)) => {
            robots.for_agent(&settings.bot.token).preferences().to_vec()
        }
        _ => Vec::new(),
    }
}

/// One line per use of [`prefs::TABLE`] saying what the site's AI-use preferences decide
/// for `url` (robots.txt rules only: a page's own headers are read when it is fetched),
/// for `gleaner explain`.
pub fn explain_prefs(prefs: &[PrefRule], url: &Url) -> Vec<String> {
    let path = path_and_query(url);
    prefs::TABLE
        .iter()
        .map(|row| {
            let decision = prefs::decide(prefs, &path, &[], row.use_);
            let effect = if row.done_by_gleaner { "" } else { "; gleaner never does this" };
            format!("AI-use preference: {} ({}): {decision}{effect}", row.use_, row.gleaner_does)
        })
        .collect()
}

/// Under `on_reservation = "stop-site"`, the reservation a response's own headers make
/// (`X-Robots-Tag: noai`, `noimageai`, `noml`, `tdm-reservation: 1`), whatever the
/// response was for: robots.txt, a rights file, a terms page, a listing, an event page,
/// an image, a 304 or a 404. `None` under `per-purpose` (the page's own uses are decided
/// where it is read) or when nothing is reserved.
pub fn header_reservation(
    settings: &Settings,
    headers: &[(String, String)],
) -> Option<Reservation> {
    if !settings.rights.honour_signals
        || settings.rights.on_reservation != ConfigOnReservation::StopSite
    {
        return None;
    }
    let headers: Vec<(&str, &str)> =
        headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let none = SiteRights::default();
    none.signals(&settings.bot.token).for_url("/", &headers, &[]).into_iter().next()
}

/// May the image at `image` be relayed for an event of `source`? Returns the answer and
/// the reason stored with the image (and shown by `gleaner explain`): the purpose must
/// be enabled, the source must keep images (`keep = "full"`), the operator must have
/// recorded `press_image_terms = "relay"`, and the image's site must not reserve relay.
pub fn may_relay(
    settings: &Settings,
    source: Option<&Source>,
    rights: Option<&SiteRights>,
    image: &Url,
) -> (bool, String) {
    if !settings.purposes.enabled.contains(&Purpose::ImageRelay) {
        return (false, "purpose image-relay is not enabled".to_owned());
    }
    let Some(source) = source else {
        return (false, "no configured source names this image".to_owned());
    };
    if source.keep != Keep::Full {
        return (false, format!("source `{}` keeps facts only", source.id));
    }
    if source.press_image_terms != ImageTerms::Relay {
        return (
            false,
            format!(
                "source `{}`: press_image_terms = \"{}\"",
                source.id,
                source.press_image_terms.as_str()
            ),
        );
    }
    match decide(settings, rights, image, RightsUse::RelayImage, &[], &[]) {
        RightsDecision::Allowed => {
            (true, format!("source `{}`: press_image_terms = \"relay\"; no reservation", source.id))
        }
        other => (false, other.to_string()),
    }
}

/// The query API over stored rights files: what other code (the language model,
/// translation, the relay's link check) asks before using a page.
#[derive(Clone)]
pub struct RightsBook {
    settings: Arc<Settings>,
    sink: Arc<dyn EventSink>,
}

impl RightsBook {
    /// A book reading the rights files `sink` stored.
    pub fn new(settings: Arc<Settings>, sink: Arc<dyn EventSink>) -> RightsBook {
        RightsBook { settings, sink }
    }

    /// The stored, parsed rights files of `url`'s site (`None` when never read).
    pub async fn site_rights(&self, url: &Url) -> Option<SiteRights> {
        let site = gleaner_fetch::site_key(url);
        self.sink.site_rights(&site).await.map(|f| SiteRights::parse(&f))
    }

    /// May `url` (a page or a whole site) be used for `use_` (language model,
    /// translation, relay, keeping descriptions or images)? Decided from the site's
    /// stored rights files; pass a page's own headers and meta tags to [`decide`] when
    /// you hold them. A site whose files were never read is judged on nothing, so read
    /// them first ([`read_site_rights`], which every pass does).
    pub async fn may_use(&self, url: &Url, use_: RightsUse) -> RightsDecision {
        let rights = self.site_rights(url).await;
        decide(&self.settings, rights.as_ref(), url, use_, &[], &[])
    }
}

/// Reads `site_url`'s rights files through the gate when the stored ones are missing or
/// expired (both files, purpose `rights-signal`, conditional on nothing: they are small),
/// archives a changed version, stores them, and returns them parsed. `deadline` bounds
/// the wait for the site's budget; a deferred read keeps the stored files, if any.
pub async fn read_site_rights(
    gate: &Gate,
    sink: &dyn EventSink,
    settings: &Settings,
    site_url: &Url,
    now: SystemTime,
    deadline: Option<SystemTime>,
) -> Option<SiteRights> {
    read_site_rights_seen(gate, sink, settings, site_url, now, deadline, &mut Vec::new()).await
}

/// [`read_site_rights`], adding the rights headers of every answer it got to `seen`.
async fn read_site_rights_seen(
    gate: &Gate,
    sink: &dyn EventSink,
    settings: &Settings,
    site_url: &Url,
    now: SystemTime,
    deadline: Option<SystemTime>,
    seen: &mut Vec<(String, String)>,
) -> Option<SiteRights> {
    if !settings.rights.honour_signals || !settings.rights.read_files {
        return None;
    }
    let site = gleaner_fetch::site_key(site_url);
    let stored = sink.site_rights(&site).await;
    if let Some(files) = stored.as_ref().filter(|f| f.valid_until > now) {
        return Some(SiteRights::parse(files));
    }
    if !settings.purposes.enabled.contains(&Purpose::RightsSignal) {
        return stored.map(|f| SiteRights::parse(&f));
    }
    let mut bodies = [None, None];
    for (slot, path) in bodies.iter_mut().zip(["/.well-known/tdmrep.json", "/ai.txt"]) {
        let Ok(url) = site_url.join(path) else { continue };
        let mut request = GateRequest::new(url.clone(), Purpose::RightsSignal);
        request.wait_until_at_most = deadline;
        let outcome = gate.fetch(&request).await;
        if let GateOutcome::Fetched(f) = &outcome {
            let rights =
                f.headers.iter().filter(|(n, _)| gleaner_policy::signals::is_rights_header(n));
            seen.extend(rights.cloned());
        }
        match outcome {
            GateOutcome::Fetched(f) if f.status == 200 => {
                sink.archive_terms(&url, f.body.to_vec(), now).await;
                *slot = Some(f.body.to_vec());
            }
            // Missing (4xx), or refused by robots.txt: no file.
            GateOutcome::Fetched(_) | GateOutcome::Refused(_) => {}
            // Not now: keep what we had, read again next time.
            GateOutcome::Deferred { .. } | GateOutcome::Failed(_) => {
                return stored.map(|f| SiteRights::parse(&f));
            }
        }
    }
    let files = RightsFiles {
        read_at: now,
        valid_until: now + settings.rights.files_ttl,
        tdmrep: bodies[0].take(),
        ai_txt: bodies[1].take(),
    };
    sink.put_site_rights(&site, files.clone()).await;
    Some(SiteRights::parse(&files))
}

/// Under `stop-site`, the reservation that stops the site of `url`, if any, after
/// reading its rights files ([`read_site_rights`]); `None` under `per-purpose` or when
/// nothing is reserved.
pub async fn site_stopped(
    gate: &Gate,
    sink: &dyn EventSink,
    settings: &Settings,
    url: &Url,
    now: SystemTime,
    deadline: Option<SystemTime>,
) -> Option<Reservation> {
    if settings.rights.on_reservation != ConfigOnReservation::StopSite {
        return None;
    }
    let rights = read_site_rights(gate, sink, settings, url, now, deadline).await?;
    rights.site_wide(&settings.bot.token).into_iter().next()
}

/// Before a pass's first request to a site: reads its rights files and, when a
/// reservation stops the site (`stop-site`), records the refusal in the audit log with
/// the signal that decided and returns the pass report's key for it.
pub(crate) async fn stop_before_site(
    ctx: &crate::PassContext,
    source: &Source,
    url: &Url,
    deadline: SystemTime,
) -> Option<String> {
    // A licensed API's own site is read under its licence: no robots.txt, so no rights
    // files either (reading them would ask for robots.txt first).
    if ctx.settings.licensed_api_for(&source.id, url).is_some() {
        return None;
    }
    if ctx.settings.rights.on_reservation != ConfigOnReservation::StopSite {
        return None;
    }
    let mut request = GateRequest::new(url.clone(), Purpose::Listing);
    request.source = Some(source.id.clone());
    request.wait_until_at_most = Some(deadline);
    // robots.txt first (read now if need be): a reservation in its headers stops the site
    // before anything else is asked of it.
    let robots = ctx.gate.robots_rights_headers(&request).await.unwrap_or_default();
    if let Some(stop) = header_reservation(&ctx.settings, &robots) {
        ctx.gate
            .record_refusal(&request, format!("site stopped on reservation: robots.txt: {stop}"));
        return Some("rights reserved (robots.txt headers): site stopped".to_owned());
    }
    // An AI-use preference in robots.txt refusing a use of gleaner's (`search=no`,
    // `ai-input=no`) anywhere in our group stops the site, like any reservation.
    let prefs = ctx.gate.robots_preferences(&request).await.unwrap_or_default();
    if ctx.settings.rights.honour_signals
        && let Some(stop) = prefs::site_wide_reservations(&prefs).into_iter().next()
    {
        ctx.gate.record_refusal(&request, format!("site stopped on reservation: {stop}"));
        return Some("AI-use preference (robots.txt): site stopped".to_owned());
    }
    let now = ctx.clock.now();
    let mut seen = Vec::new();
    let (gate, sink) = (&ctx.gate, ctx.sink.as_ref());
    let rights =
        read_site_rights_seen(gate, sink, &ctx.settings, url, now, Some(deadline), &mut seen).await;
    if let Some(stop) = header_reservation(&ctx.settings, &seen) {
        ctx.gate.record_refusal(
            &request,
            format!("site stopped on reservation: a rights file's headers: {stop}"),
        );
        return Some("rights reserved (rights files' headers): site stopped".to_owned());
    }
    let stop = rights?.site_wide(&ctx.settings.bot.token).into_iter().next()?;
    ctx.gate.record_refusal(&request, format!("site stopped on reservation: {stop}"));
    Some("rights reserved (site rights files): site stopped".to_owned())
}

/// The link check's re-decision for every stored image: the sites' rights files again
/// (re-read once expired) and the sources' image terms. Returns how many images are not
/// allowed now.
pub(crate) async fn recheck_relay(
    ctx: &crate::PassContext,
    images: &std::collections::BTreeMap<Url, String>,
    deadline: SystemTime,
) -> u32 {
    if !ctx.settings.purposes.enabled.contains(&Purpose::ImageRelay) {
        return 0;
    }
    let mut stopped = 0;
    let mut sites: std::collections::HashMap<String, Option<SiteRights>> = Default::default();
    for (image, source_id) in images {
        let site = gleaner_fetch::site_key(image);
        if !sites.contains_key(&site) {
            let now = ctx.clock.now();
            let read = read_site_rights(
                &ctx.gate,
                ctx.sink.as_ref(),
                &ctx.settings,
                image,
                now,
                Some(deadline),
            )
            .await;
            sites.insert(site.clone(), read);
        }
        let rights = sites.get(&site).and_then(Option::as_ref);
        let source = ctx.settings.sources.iter().find(|s| &s.id == source_id);
        let (allowed, reason) = may_relay(&ctx.settings, source, rights, image);
        if !allowed {
            stopped += 1;
        }
        ctx.sink.set_relay_allowed(image, Some(source_id), allowed, reason).await;
    }
    stopped
}

/// What an image's own answer says against relaying it: `noimageindex`, `noimageai`,
/// `noai` or a TDM reservation in its headers (X-Robots-Tag, tdm-reservation).
pub fn image_answer_forbids_relay(
    settings: &Settings,
    fetched: &gleaner_fetch::Fetched,
) -> Option<String> {
    use gleaner_policy::signals::robots_meta::{PageAction, PageRestrictions};
    let headers: Vec<(&str, &str)> =
        fetched.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
    let page = PageRestrictions::from_signals(&settings.bot.token, &headers, &[]);
    if let Some(reason) = Some(page.decide(PageAction::KeepImage)).filter(|d| !d.is_allowed()) {
        return Some(format!("the image's headers: {reason}"));
    }
    match decide(settings, None, &fetched.url, RightsUse::RelayImage, &headers, &[]) {
        RightsDecision::Allowed => None,
        other => Some(format!("the image's headers: {other}")),
    }
}

/// Stops relaying `image` (the link check found it gone or forbidden). Returns 1.
pub(crate) async fn stop_relay(ctx: &crate::PassContext, image: &Url, why: &str) -> u32 {
    ctx.sink.set_relay_allowed(image, None, false, why.to_owned()).await;
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(rights: &str, terms: &str) -> Settings {
        gleaner_config::parse(
            &format!(
                "[bot]\ntoken = \"CIXTRA-Bot\"\nversion = \"1\"\ninfo_url = \"https://bot.example/\"\noperator = \"T\"\n\
                 [rights]\n{rights}\n\
                 [[sources]]\nid = \"s\"\nkind = \"listing\"\nstart_urls = [\"https://venue.example/\"]\nkeep = \"full\"\n{terms}\n"
            ),
            "t.toml",
        )
        .unwrap()
    }

    fn files(tdmrep: Option<&str>, ai: Option<&str>) -> SiteRights {
        SiteRights::parse(&RightsFiles {
            read_at: SystemTime::UNIX_EPOCH,
            valid_until: SystemTime::UNIX_EPOCH,
            tdmrep: tdmrep.map(|t| t.as_bytes().to_vec()),
            ai_txt: ai.map(|t| t.as_bytes().to_vec()),
        })
    }

    #[test]
    fn cixtra_any_reservation_anywhere_stops_every_use() {
        let s = settings("on_reservation = \"stop-site\"", "press_image_terms = \"relay\"");
        let archives = files(Some(r#"[{"location":"/archives/*","tdm-reservation":1}]"#), None);
        let page = Url::parse("https://venue.example/events/1.html").unwrap();
        for use_ in [RightsUse::KeepFacts, RightsUse::LanguageModel, RightsUse::RelayImage] {
            let d = decide(&s, Some(&archives), &page, use_, &[], &[]);
            assert!(matches!(d, RightsDecision::SiteStopped(_)), "{use_}: {d}");
            assert!(d.to_string().contains("tdmrep.json rule 1"), "the signal is named: {d}");
        }
        let noai = files(None, Some("User-Agent: *\nDisallow: /\n"));
        assert!(!decide(&s, Some(&noai), &page, RightsUse::KeepFacts, &[], &[]).is_allowed());
        assert!(
            decide(&s, Some(&files(None, None)), &page, RightsUse::RelayImage, &[], &[])
                .is_allowed()
        );
        let header = [("tdm-reservation", "1")];
        assert!(!decide(&s, None, &page, RightsUse::KeepFacts, &header, &[]).is_allowed());
    }

    #[test]
    fn per_purpose_stops_only_the_named_uses_where_they_apply() {
        let s = settings("on_reservation = \"per-purpose\"", "press_image_terms = \"relay\"");
        let archives = files(Some(r#"[{"location":"/archives/*","tdm-reservation":1}]"#), None);
        let inside = Url::parse("https://venue.example/archives/photo.jpg").unwrap();
        let outside = Url::parse("https://venue.example/img/poster-3.jpg").unwrap();
        assert!(
            !decide(&s, Some(&archives), &inside, RightsUse::LanguageModel, &[], &[]).is_allowed()
        );
        assert!(decide(&s, Some(&archives), &inside, RightsUse::KeepFacts, &[], &[]).is_allowed());
        assert!(
            decide(&s, Some(&archives), &outside, RightsUse::LanguageModel, &[], &[]).is_allowed()
        );
        let source = s.sources.first();
        assert!(may_relay(&s, source, Some(&archives), &outside).0);
        let (allowed, why) = may_relay(&s, source, Some(&archives), &inside);
        assert!(!allowed && why.contains("tdmrep.json"), "{why}");
    }

    #[test]
    fn relay_needs_the_terms_the_operator_recorded() {
        let image = Url::parse("https://venue.example/img/poster-3.jpg").unwrap();
        let link_only = settings("", "");
        let (allowed, why) = may_relay(&link_only, link_only.sources.first(), None, &image);
        assert!(!allowed && why.contains("link-only"), "{why}");
        let relay = settings("", "press_image_terms = \"relay\"");
        assert!(may_relay(&relay, relay.sources.first(), None, &image).0);
        assert!(!may_relay(&relay, None, None, &image).0, "no source, no relay");
        let off = settings("honour_signals = false", "press_image_terms = \"relay\"");
        let noai = files(None, Some("User-Agent: *\nDisallow: /\n"));
        assert!(may_relay(&off, off.sources.first(), Some(&noai), &image).0);
    }
}
