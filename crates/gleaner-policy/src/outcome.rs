//! What happened to one audited request, as a type: sent (with its status), refused
//! before sending (and which rule refused it), or sent without a response (and how it
//! failed). Each value has a stable [`Outcome::code`] that the store keeps and
//! `/metrics` uses as a label, so nothing downstream reads the prose of a refusal.

use std::fmt;

/// Why a request was refused before it was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RefusalKind {
    /// An owner opted out (the registry).
    OptedOut,
    /// robots.txt disallows the path.
    RobotsDisallowed,
    /// robots.txt could not be read, or refused us: nothing else until it can be.
    RobotsUnreadable,
    /// The site blocked us (401/403, a challenge page).
    Blocked,
    /// The profile does not use this purpose.
    PurposeDisabled,
    /// A quota is used up (the pass's requests).
    Quota,
    /// gleaner itself would not send it: the address guard, the URL or the method.
    Address,
    /// The site reserved its rights against this use (TDMRep, ai.txt, `noai`).
    RightsReserved,
    /// Refused for a reason recorded before refusals had kinds.
    Other,
}

impl RefusalKind {
    /// Every kind, in code order.
    pub const ALL: [RefusalKind; 9] = [
        RefusalKind::OptedOut,
        RefusalKind::RobotsDisallowed,
        RefusalKind::RobotsUnreadable,
        RefusalKind::Blocked,
        RefusalKind::PurposeDisabled,
        RefusalKind::Quota,
        RefusalKind::Address,
        RefusalKind::RightsReserved,
        RefusalKind::Other,
    ];

    /// The stable code: a `/metrics` label and part of the stored outcome.
    pub fn code(self) -> &'static str {
        match self {
            RefusalKind::OptedOut => "opt-out",
            RefusalKind::RobotsDisallowed => "robots-disallowed",
            RefusalKind::RobotsUnreadable => "robots-unreadable",
            RefusalKind::Blocked => "blocked",
            RefusalKind::PurposeDisabled => "purpose-disabled",
            RefusalKind::Quota => "quota",
            RefusalKind::Address => "address",
            RefusalKind::RightsReserved => "rights-reserved",
            RefusalKind::Other => "other",
        }
    }

    /// The kind with this code.
    pub fn from_code(code: &str) -> Option<RefusalKind> {
        RefusalKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// A short phrase for reports ("disallowed by robots.txt").
    pub fn describe(self) -> &'static str {
        match self {
            RefusalKind::OptedOut => "opted out",
            RefusalKind::RobotsDisallowed => "disallowed by robots.txt",
            RefusalKind::RobotsUnreadable => "robots.txt unreadable or refused",
            RefusalKind::Blocked => "site blocked us",
            RefusalKind::PurposeDisabled => "purpose not enabled",
            RefusalKind::Quota => "pass quota used",
            RefusalKind::Address => "refused locally (address or URL)",
            RefusalKind::RightsReserved => "rights reserved by the site",
            RefusalKind::Other => "refused",
        }
    }
}

impl fmt::Display for RefusalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// How a sent request failed to bring a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FailureKind {
    /// No complete response within the deadline.
    Timeout,
    /// Could not connect (refused, reset, TLS).
    Connect,
    /// The body was larger than the cap.
    TooLarge,
    /// The body broke off.
    Body,
    /// Failed for a reason recorded before failures had kinds.
    Other,
}

impl FailureKind {
    /// Every kind, in code order.
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Timeout,
        FailureKind::Connect,
        FailureKind::TooLarge,
        FailureKind::Body,
        FailureKind::Other,
    ];

    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Connect => "connect",
            FailureKind::TooLarge => "too-large",
            FailureKind::Body => "body",
            FailureKind::Other => "other",
        }
    }

    /// The kind with this code.
    pub fn from_code(code: &str) -> Option<FailureKind> {
        FailureKind::ALL.into_iter().find(|k| k.code() == code)
    }
}

/// What happened to one request the gate was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Sent, and a response came with this status.
    Sent {
        /// The HTTP status.
        status: u16,
    },
    /// Not sent.
    Refused(RefusalKind),
    /// Sent, but no response came.
    Failed(FailureKind),
}

impl Outcome {
    /// How the audit log shows it to the operator (`gleaner audit`): `HTTP 200`,
    /// `not sent (code)`, a failure's recorded `error`, else `failed (code)`.
    pub fn answer(&self, error: Option<&str>) -> String {
        match (self, error) {
            (Outcome::Sent { status }, _) => format!("HTTP {status}"),
            (Outcome::Refused(kind), _) => format!("not sent ({})", kind.code()),
            (Outcome::Failed(_), Some(error)) => error.to_owned(),
            (Outcome::Failed(kind), None) => format!("failed ({})", kind.code()),
        }
    }

    /// The stable code of the outcome, without the status: `sent`, `refused:opt-out`,
    /// `failed:timeout`. The store keeps it beside the status.
    pub fn code(&self) -> String {
        match self {
            Outcome::Sent { .. } => "sent".to_owned(),
            Outcome::Refused(kind) => format!("refused:{}", kind.code()),
            Outcome::Failed(kind) => format!("failed:{}", kind.code()),
        }
    }

    /// The outcome a stored code and status stand for; `None` for a code this version
    /// does not know (or `sent` without a status).
    pub fn from_code(code: &str, status: Option<u16>) -> Option<Outcome> {
        match code.split_once(':') {
            None if code == "sent" => status.map(|status| Outcome::Sent { status }),
            Some(("refused", kind)) => RefusalKind::from_code(kind).map(Outcome::Refused),
            Some(("failed", kind)) => FailureKind::from_code(kind).map(Outcome::Failed),
            _ => None,
        }
    }

    /// The status, when a response came.
    pub fn status(&self) -> Option<u16> {
        match self {
            Outcome::Sent { status } => Some(*status),
            _ => None,
        }
    }

    /// The refusal, when it was not sent.
    pub fn refusal(&self) -> Option<RefusalKind> {
        match self {
            Outcome::Refused(kind) => Some(*kind),
            _ => None,
        }
    }

    /// Whether the request went out (with or without a response).
    pub fn was_sent(&self) -> bool {
        !matches!(self, Outcome::Refused(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_reads_back_as_its_outcome() {
        let mut all = vec![Outcome::Sent { status: 404 }];
        all.extend(RefusalKind::ALL.map(Outcome::Refused));
        all.extend(FailureKind::ALL.map(Outcome::Failed));
        for outcome in all {
            assert_eq!(Outcome::from_code(&outcome.code(), outcome.status()), Some(outcome));
        }
        assert_eq!(Outcome::from_code("refused:quiet-hours", None), None, "an unknown kind");
        assert_eq!(Outcome::from_code("sent", None), None, "sent without a status");
    }
}
