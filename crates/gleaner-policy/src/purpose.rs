//! Why a request is made. Every outbound request carries exactly one [`Purpose`]; a
//! profile lists the purposes it enables and the gate refuses the others (SPEC §1,
//! "Purposes").

use std::fmt;

/// The reason gleaner sends a request. Spacing and budgets are shared by all purposes;
/// the purpose decides which gap applies, which rights signals matter and what the audit
/// log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Purpose {
    /// Reading `/robots.txt` itself.
    Robots,
    /// An HTML listing page of a source (pagination included).
    Listing,
    /// An event page linked from a listing, sitemap or feed.
    EventPage,
    /// An RSS/Atom feed or an iCalendar file.
    Feed,
    /// A JSON API or open-data endpoint.
    Api,
    /// A sitemap or sitemap index.
    Sitemap,
    /// Re-reading a stored event to see whether it was cancelled or moved.
    CancellationCheck,
    /// Re-verifying that a stored page or image URL still answers.
    LinkCheck,
    /// Fetching an image on behalf of a visitor of the image relay.
    ImageRelay,
    /// `/.well-known/tdmrep.json`, `/ai.txt` and similar rights files.
    RightsSignal,
    /// A site's public terms page or press page, archived on change.
    TermsPage,
    /// An operator's manual check with `gleaner fetch`.
    ManualCheck,
    /// A verification token fetched once at a site owner's own request.
    OwnerVerification,
}

impl Purpose {
    /// Every purpose, in declaration order.
    pub const ALL: [Purpose; 13] = [
        Purpose::Robots,
        Purpose::Listing,
        Purpose::EventPage,
        Purpose::Feed,
        Purpose::Api,
        Purpose::Sitemap,
        Purpose::CancellationCheck,
        Purpose::LinkCheck,
        Purpose::ImageRelay,
        Purpose::RightsSignal,
        Purpose::TermsPage,
        Purpose::ManualCheck,
        Purpose::OwnerVerification,
    ];

    /// The stable kebab-case name used in config files, logs and the audit log.
    pub const fn as_str(self) -> &'static str {
        match self {
            Purpose::Robots => "robots",
            Purpose::Listing => "listing",
            Purpose::EventPage => "event-page",
            Purpose::Feed => "feed",
            Purpose::Api => "api",
            Purpose::Sitemap => "sitemap",
            Purpose::CancellationCheck => "cancellation-check",
            Purpose::LinkCheck => "link-check",
            Purpose::ImageRelay => "image-relay",
            Purpose::RightsSignal => "rights-signal",
            Purpose::TermsPage => "terms-page",
            Purpose::ManualCheck => "manual-check",
            Purpose::OwnerVerification => "owner-verification",
        }
    }

    /// Parses the kebab-case name written by [`Purpose::as_str`].
    pub fn from_name(name: &str) -> Option<Purpose> {
        Purpose::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl fmt::Display for Purpose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Purpose::ALL {
            assert_eq!(Purpose::from_name(p.as_str()), Some(p));
        }
        assert_eq!(Purpose::from_name("Listing"), None);
    }
}
