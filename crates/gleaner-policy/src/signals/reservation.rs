//! The per-profile reservation policy: what a rights reservation found by TDMRep,
//! `/ai.txt` or `noai`/`noimageai`/`noml` stops (SPEC §1 "Rights signals"; the CIXTRA-Bot
//! seed: "Any of these stops CIXTRA-Bot for your site … We treat these as a reservation of
//! your rights").
//!
//! A profile says `on_reservation = "stop-site"` (CIXTRA-Bot) or `"per-purpose"`:
//! - **stop-site**: any reservation anywhere on the site stops gleaner for the whole site,
//!   every use and every request, except the requests needed to notice that the
//!   reservation was lifted (robots.txt, the rights files) and an owner's own
//!   verification request;
//! - **per-purpose**: a reservation stops the uses it names (keeping descriptions or
//!   images, relaying images, language-model use, translation) for the URLs it covers.
//!   Keeping the facts of an event (title, time, place, price) is never stopped by a
//!   content reservation: facts are not a work, which is why "keep facts only" is also
//!   the override an owner can ask for.
//!
//! Which uses each signal names is decided where the signal is read ([`super::tdmrep`],
//! [`super::ai_txt`], [`super::robots_meta`]) and recorded in the [`Reservation`], so the
//! audit log can say which file, header or tag stopped what.

use std::fmt;

use crate::Purpose;

use super::ai_txt::AiTxt;
use super::prefs::{self, PrefRefusal, PrefRule};
use super::robots_meta::PageRestrictions;
use super::tdmrep::{self, TdmRepFile};

/// What gleaner does with what it read, as far as rights reservations are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RightsUse {
    /// Keep the facts of an event (title, times, venue, price, links).
    KeepFacts,
    /// Keep the description text.
    KeepDescription,
    /// Keep the image URL.
    KeepImage,
    /// Fetch and pass the image through the image relay.
    RelayImage,
    /// Feed the content to a language model (the optional extractor or any model use).
    LanguageModel,
    /// Translate the text (gleaner translates with a language model).
    Translation,
}

impl RightsUse {
    /// Every use, in declaration order.
    pub const ALL: [RightsUse; 6] = [
        RightsUse::KeepFacts,
        RightsUse::KeepDescription,
        RightsUse::KeepImage,
        RightsUse::RelayImage,
        RightsUse::LanguageModel,
        RightsUse::Translation,
    ];

    /// The stable kebab-case name used in config files and the audit log.
    pub const fn as_str(self) -> &'static str {
        match self {
            RightsUse::KeepFacts => "keep-facts",
            RightsUse::KeepDescription => "keep-description",
            RightsUse::KeepImage => "keep-image",
            RightsUse::RelayImage => "relay-image",
            RightsUse::LanguageModel => "language-model",
            RightsUse::Translation => "translation",
        }
    }

    /// Parses the name written by [`RightsUse::as_str`].
    pub fn from_name(name: &str) -> Option<RightsUse> {
        RightsUse::ALL.into_iter().find(|u| u.as_str() == name)
    }

    /// The use a request of `purpose` serves when the rights of the fetched resource
    /// matter before the request is sent: fetching an image for the relay is itself the
    /// use. Other purposes read pages for facts, which reservations leave alone.
    pub const fn of_purpose(purpose: Purpose) -> Option<RightsUse> {
        match purpose {
            Purpose::ImageRelay => Some(RightsUse::RelayImage),
            _ => None,
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for RightsUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of [`RightsUse`]s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UseSet(u8);

impl UseSet {
    /// No use.
    pub const EMPTY: UseSet = UseSet(0);
    /// Everything beyond the facts: what a TDM reservation covers.
    pub const CONTENT: UseSet = UseSet::of(&[
        RightsUse::KeepDescription,
        RightsUse::KeepImage,
        RightsUse::RelayImage,
        RightsUse::LanguageModel,
        RightsUse::Translation,
    ]);
    /// Machine-learning uses: what `noai`, `noml` and ai.txt reserve.
    pub const AI: UseSet = UseSet::of(&[RightsUse::LanguageModel, RightsUse::Translation]);
    /// Image uses: what `noimageai` reserves.
    pub const IMAGES: UseSet = UseSet::of(&[RightsUse::KeepImage, RightsUse::RelayImage]);

    /// The set of the given uses.
    pub const fn of(uses: &[RightsUse]) -> UseSet {
        let mut bits = 0;
        let mut i = 0;
        while i < uses.len() {
            bits |= uses[i].bit();
            i += 1;
        }
        UseSet(bits)
    }

    /// Whether `u` is in the set.
    pub const fn contains(self, u: RightsUse) -> bool {
        self.0 & u.bit() != 0
    }

    /// The union of two sets.
    pub const fn union(self, other: UseSet) -> UseSet {
        UseSet(self.0 | other.0)
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The uses in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = RightsUse> {
        RightsUse::ALL.into_iter().filter(move |u| self.contains(*u))
    }
}

impl fmt::Display for UseSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("nothing");
        }
        for (i, u) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(u.as_str())?;
        }
        Ok(())
    }
}

/// Which signal made a reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReservationSource {
    /// A rule of `/.well-known/tdmrep.json`.
    TdmRepFile {
        /// Index of the rule in the file's array (0-based).
        rule: usize,
        /// The rule's `location` pattern.
        location: String,
    },
    /// A `tdm-reservation: 1` response header.
    TdmRepHeader,
    /// A `<meta name="tdm-reservation" content="1">` tag.
    TdmRepMeta,
    /// A `Disallow` rule of `/ai.txt`.
    AiTxt {
        /// 1-based line number of the rule.
        line: usize,
        /// The rule's pattern as written.
        pattern: String,
    },
    /// A `noai`, `noimageai` or `noml` directive.
    RobotsDirective {
        /// The directive as written (lower-case).
        directive: &'static str,
        /// True for an `X-Robots-Tag` header, false for a meta tag.
        header: bool,
    },
    /// An AI-use preference (`Content-Usage`, `Content-Signal`) refusing a use gleaner
    /// makes, in robots.txt or a header ([`super::prefs`]).
    Preference(PrefRefusal),
}

impl fmt::Display for ReservationSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReservationSource::TdmRepFile { rule, location } => {
                write!(f, "tdmrep.json rule {} (location `{location}`)", rule + 1)
            }
            ReservationSource::TdmRepHeader => f.write_str("tdm-reservation header"),
            ReservationSource::TdmRepMeta => f.write_str("tdm-reservation meta tag"),
            ReservationSource::AiTxt { line, pattern } => {
                write!(f, "ai.txt line {line} (disallow `{pattern}`)")
            }
            ReservationSource::RobotsDirective { directive, header: true } => {
                write!(f, "{directive} in x-robots-tag")
            }
            ReservationSource::RobotsDirective { directive, header: false } => {
                write!(f, "{directive} in a robots meta tag")
            }
            ReservationSource::Preference(refusal) => refusal.where_written(f),
        }
    }
}

/// A reservation of rights found on a site: who made it, which uses it names, and the
/// licensing policy it points to, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    /// The signal that made it.
    pub source: ReservationSource,
    /// The uses it names.
    pub uses: UseSet,
    /// A `tdm-policy` URL, where the rights holder offers licences.
    pub policy: Option<String>,
}

impl fmt::Display for Reservation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} reserves {}", self.source, self.uses)?;
        if let Some(p) = &self.policy {
            write!(f, " (policy `{p}`)")?;
        }
        Ok(())
    }
}

/// What a profile does when it meets a reservation (`on_reservation` in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OnReservation {
    /// Any reservation stops the whole site (CIXTRA-Bot).
    StopSite,
    /// A reservation stops only the uses it names.
    PerPurpose,
}

impl OnReservation {
    /// The config name: `stop-site` or `per-purpose`.
    pub const fn as_str(self) -> &'static str {
        match self {
            OnReservation::StopSite => "stop-site",
            OnReservation::PerPurpose => "per-purpose",
        }
    }

    /// Parses the config name.
    pub fn from_name(name: &str) -> Option<OnReservation> {
        match name {
            "stop-site" => Some(OnReservation::StopSite),
            "per-purpose" => Some(OnReservation::PerPurpose),
            _ => None,
        }
    }
}

impl fmt::Display for OnReservation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The answer to "may gleaner do this?", with the reservation that says no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RightsDecision {
    /// No reservation stands in the way.
    Allowed,
    /// Per-purpose: this reservation names the use.
    Reserved(Reservation),
    /// Stop-site: this reservation stops everything on the site.
    SiteStopped(Reservation),
}

impl RightsDecision {
    /// True unless a reservation says no.
    pub fn is_allowed(&self) -> bool {
        matches!(self, RightsDecision::Allowed)
    }

    /// The reservation that said no, if any.
    pub fn reservation(&self) -> Option<&Reservation> {
        match self {
            RightsDecision::Allowed => None,
            RightsDecision::Reserved(r) | RightsDecision::SiteStopped(r) => Some(r),
        }
    }
}

impl fmt::Display for RightsDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RightsDecision::Allowed => f.write_str("no rights reservation applies"),
            RightsDecision::Reserved(r) => write!(f, "reserved: {r}"),
            RightsDecision::SiteStopped(r) => write!(f, "site stopped on reservation: {r}"),
        }
    }
}

/// Decides whether gleaner may make `use_` of a resource, given the reservations that
/// cover it (per-purpose) or that were found anywhere on its site (stop-site).
///
/// Callers pass the reservations for the resource's URL; under stop-site, passing every
/// reservation seen on the site is what makes "any of these stops" hold.
pub fn decide_use(on: OnReservation, found: &[Reservation], use_: RightsUse) -> RightsDecision {
    match on {
        OnReservation::StopSite => match found.first() {
            Some(r) => RightsDecision::SiteStopped(r.clone()),
            None => RightsDecision::Allowed,
        },
        OnReservation::PerPurpose => match found.iter().find(|r| r.uses.contains(use_)) {
            Some(r) => RightsDecision::Reserved(r.clone()),
            None => RightsDecision::Allowed,
        },
    }
}

/// The purposes a stop-site reservation still lets through: robots.txt and the rights
/// files (so that a lifted reservation is noticed; both obey robots.txt, SPEC §1), and a
/// verification token fetched at the owner's own request.
pub const fn survives_site_stop(purpose: Purpose) -> bool {
    matches!(purpose, Purpose::Robots | Purpose::RightsSignal | Purpose::OwnerVerification)
}

/// Decides whether a request of `purpose` may be sent, for the gate.
///
/// Stop-site refuses every purpose except those of [`survives_site_stop`]. Per-purpose
/// refuses a request only when the request itself is a reserved use (an image relay fetch
/// of a reserved image, see [`RightsUse::of_purpose`]); what is done with a page after it
/// is read is decided with [`decide_use`].
pub fn decide_purpose(
    on: OnReservation,
    found: &[Reservation],
    purpose: Purpose,
) -> RightsDecision {
    match on {
        OnReservation::StopSite if survives_site_stop(purpose) => RightsDecision::Allowed,
        OnReservation::StopSite => decide_use(on, found, RightsUse::KeepFacts),
        OnReservation::PerPurpose => match RightsUse::of_purpose(purpose) {
            Some(u) => decide_use(on, found, u),
            None => RightsDecision::Allowed,
        },
    }
}

/// The site-level rights files read for one site, and our product token: the inputs of
/// "is use U reserved for this URL, and by what?".
#[derive(Debug, Clone, Copy)]
pub struct RightsSignals<'a> {
    /// Our product token, for ai.txt groups and robots meta names.
    pub token: &'a str,
    /// The site's `/.well-known/tdmrep.json`, when it was read and parsed.
    pub tdmrep: Option<&'a TdmRepFile>,
    /// The site's `/ai.txt`, when it was read.
    pub ai_txt: Option<&'a AiTxt>,
    /// The `Content-Usage`/`Content-Signal` rules of the robots.txt group selected for
    /// us (empty when unknown).
    pub prefs: &'a [PrefRule],
}

impl RightsSignals<'_> {
    /// Every reservation covering the resource at `path` (URL path with query), from the
    /// site files and, when the resource was fetched, its response `headers` and HTML
    /// `meta` pairs (pass empty slices before fetching).
    pub fn for_url(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        meta: &[(&str, &str)],
    ) -> Vec<Reservation> {
        let mut out = Vec::new();
        let tdm = tdmrep::decide(
            self.tdmrep,
            tdmrep::from_headers(headers).as_ref(),
            tdmrep::from_meta(meta).as_ref(),
            path,
        );
        out.extend(tdm.reservation());
        if let Some(ai) = self.ai_txt {
            out.extend(ai.check(self.token, path).reservation());
        }
        out.extend(PageRestrictions::from_signals(self.token, headers, meta).reservations());
        out.extend(prefs::reservations(self.prefs, path, headers));
        out
    }

    /// The reservations the site files make anywhere on the site, which stop a
    /// stop-site profile before any page is read.
    pub fn site_wide(&self) -> Vec<Reservation> {
        let mut out = Vec::new();
        out.extend(self.tdmrep.and_then(TdmRepFile::first_reservation));
        out.extend(self.ai_txt.and_then(|a| a.first_reservation(self.token)));
        out.extend(prefs::site_wide_reservations(self.prefs));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tdm_header() -> Reservation {
        Reservation { source: ReservationSource::TdmRepHeader, uses: UseSet::CONTENT, policy: None }
    }

    fn noimageai() -> Reservation {
        Reservation {
            source: ReservationSource::RobotsDirective { directive: "noimageai", header: false },
            uses: UseSet::IMAGES,
            policy: None,
        }
    }

    fn ai_txt() -> Reservation {
        Reservation {
            source: ReservationSource::AiTxt { line: 3, pattern: "*.jpg".into() },
            uses: UseSet::AI,
            policy: None,
        }
    }

    /// One case: policy, reservations, use, and whether it is allowed.
    #[track_caller]
    fn check(on: OnReservation, found: &[Reservation], use_: RightsUse, allowed: bool) {
        let d = decide_use(on, found, use_);
        assert_eq!(d.is_allowed(), allowed, "{on} {use_}: {d}");
        if !allowed {
            let stop = matches!(d, RightsDecision::SiteStopped(_));
            assert_eq!(stop, on == OnReservation::StopSite);
        }
    }

    use OnReservation::*;
    use RightsUse::*;

    #[test]
    fn seed_cixtra_any_reservation_stops_the_site() {
        for u in RightsUse::ALL {
            check(StopSite, &[tdm_header()], u, false);
            check(StopSite, &[noimageai()], u, false);
            check(StopSite, &[ai_txt()], u, false);
            check(StopSite, &[], u, true);
        }
    }

    #[test]
    fn spec_per_purpose_stops_named_uses_only() {
        check(PerPurpose, &[tdm_header()], KeepFacts, true);
        check(PerPurpose, &[tdm_header()], KeepDescription, false);
        check(PerPurpose, &[tdm_header()], RelayImage, false);
        check(PerPurpose, &[tdm_header()], Translation, false);
        check(PerPurpose, &[noimageai()], KeepImage, false);
        check(PerPurpose, &[noimageai()], RelayImage, false);
        check(PerPurpose, &[noimageai()], KeepDescription, true);
        check(PerPurpose, &[ai_txt()], LanguageModel, false);
        check(PerPurpose, &[ai_txt()], Translation, false);
        check(PerPurpose, &[ai_txt()], KeepImage, true);
        check(PerPurpose, &[ai_txt(), noimageai()], RelayImage, false);
        check(PerPurpose, &[], LanguageModel, true);
    }

    #[test]
    fn seed_cixtra_purposes_under_a_stop() {
        let found = [noimageai()];
        for p in Purpose::ALL {
            let d = decide_purpose(StopSite, &found, p);
            assert_eq!(d.is_allowed(), survives_site_stop(p), "{p}");
        }
        assert!(decide_purpose(StopSite, &[], Purpose::EventPage).is_allowed());
        assert!(!decide_purpose(PerPurpose, &found, Purpose::ImageRelay).is_allowed());
        assert!(decide_purpose(PerPurpose, &found, Purpose::EventPage).is_allowed());
        assert!(decide_purpose(PerPurpose, &[ai_txt()], Purpose::ImageRelay).is_allowed());
    }

    #[test]
    fn names_round_trip_and_reasons_read() {
        for u in RightsUse::ALL {
            assert_eq!(RightsUse::from_name(u.as_str()), Some(u));
        }
        assert_eq!(OnReservation::from_name("stop-site"), Some(StopSite));
        assert_eq!(OnReservation::from_name("per-purpose"), Some(PerPurpose));
        assert_eq!(OnReservation::from_name("stop"), None);
        assert_eq!(UseSet::AI.to_string(), "language-model, translation");
        assert_eq!(UseSet::EMPTY.to_string(), "nothing");
        assert!(!UseSet::CONTENT.contains(KeepFacts));
        let r = Reservation { policy: Some("https://example.org/tdm".into()), ..tdm_header() };
        assert_eq!(
            decide_use(PerPurpose, &[r], Translation).to_string(),
            "reserved: tdm-reservation header reserves keep-description, keep-image, relay-image, \
             language-model, translation (policy `https://example.org/tdm`)"
        );
        assert_eq!(
            decide_use(StopSite, &[ai_txt()], KeepFacts).to_string(),
            "site stopped on reservation: ai.txt line 3 (disallow `*.jpg`) reserves language-model, translation"
        );
    }

    #[test]
    fn seed_cixtra_signals_for_one_url() {
        let file =
            TdmRepFile::parse(br#"[{"location": "/images/", "tdm-reservation": 1}]"#).unwrap();
        let ai = AiTxt::parse("User-agent: *\nDisallow: *.pdf\n");
        let signals = RightsSignals {
            token: "CIXTRA-Bot",
            tdmrep: Some(&file),
            ai_txt: Some(&ai),
            prefs: &[],
        };
        assert!(signals.for_url("/events/1", &[], &[]).is_empty());
        let img = signals.for_url("/images/a.jpg", &[], &[]);
        assert_eq!(img.len(), 1);
        assert!(!decide_use(PerPurpose, &img, RelayImage).is_allowed());
        let page = signals.for_url(
            "/events/1",
            &[("X-Robots-Tag", "noimageai")],
            &[("tdm-reservation", "0")],
        );
        assert_eq!(page.len(), 1);
        assert!(decide_use(PerPurpose, &page, KeepDescription).is_allowed());
        assert!(!decide_use(PerPurpose, &page, KeepImage).is_allowed());
        assert_eq!(signals.for_url("/doc.PDF", &[], &[]).len(), 1);
        let site = signals.site_wide();
        assert_eq!(site.len(), 2);
        assert!(!decide_purpose(StopSite, &site, Purpose::EventPage).is_allowed());
        let none = RightsSignals { token: "CIXTRA-Bot", tdmrep: None, ai_txt: None, prefs: &[] };
        assert!(none.site_wide().is_empty());
    }
}
