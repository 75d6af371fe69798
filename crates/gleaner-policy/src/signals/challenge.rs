//! Bot challenges, WAF block pages and login walls: responses that are a block, never
//! content and never a retryable error (SPEC §1 "Identity": "A challenge or WAF page
//! (`cf-mitigated`, CAPTCHA interstitial, a login wall answering 200) is a block"; the
//! CIXTRA-Bot seed: "does not try to get around blocks").
//!
//! The classifier reads the status, the header fields and the first
//! [`SignalSettings::challenge_scan_limit`] bytes of the (decompressed) body, with
//! `memchr::memmem` searches over an ASCII-lower-cased copy of that prefix. Evidence, from
//! strongest to weakest:
//! 1. headers a vendor sets only on challenges (`cf-mitigated: challenge`,
//!    `x-amzn-waf-action: captcha|challenge`);
//! 2. markers that appear only on interstitial or block pages (Cloudflare's
//!    `_cf_chl_opt`, DataDome's `captcha-delivery.com`, PerimeterX's `px-captcha`,
//!    Imperva's incident id, Sucuri's and Akamai's denial pages, …);
//! 3. a CAPTCHA widget (reCAPTCHA, hCaptcha, Turnstile) together with a page title that
//!    asks whether we are human, or with an error status: a widget alone on a 200 page is
//!    just a contact form;
//! 4. a 2xx page with a password field whose title says "log in" in one of the seed
//!    languages: a login wall where content was expected.
//!
//! Classify before mapping the status: a 403 or 429 that is a challenge page is a block,
//! not a rate limit.

use std::fmt;

use memchr::memmem;

use super::{SignalSettings, header_values};

/// What kind of block a response is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// A JavaScript or proof-of-work bot challenge ("checking your browser").
    BotChallenge,
    /// A CAPTCHA interstitial.
    Captcha,
    /// A web application firewall's denial page.
    WafBlock,
    /// A login form answering where public content was expected.
    LoginWall,
}

impl fmt::Display for BlockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BlockKind::BotChallenge => "bot challenge",
            BlockKind::Captcha => "captcha",
            BlockKind::WafBlock => "firewall block page",
            BlockKind::LoginWall => "login wall",
        })
    }
}

/// Why a response was classified as a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockReason {
    /// The kind of block.
    pub kind: BlockKind,
    /// The vendor, when the evidence names one.
    pub vendor: Option<&'static str>,
    /// What was found, for the audit log.
    pub evidence: &'static str,
}

impl fmt::Display for BlockReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(v) = self.vendor {
            write!(f, " by {v}")?;
        }
        write!(f, " ({})", self.evidence)
    }
}

/// The classifier's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChallengeVerdict {
    /// Nothing marks the response as a challenge or block page.
    NotChallenge,
    /// The response is a block: stop, store the block, do not retry, do not parse.
    Block(BlockReason),
}

impl ChallengeVerdict {
    /// True for [`ChallengeVerdict::Block`].
    pub fn is_block(&self) -> bool {
        matches!(self, ChallengeVerdict::Block(_))
    }
}

impl fmt::Display for ChallengeVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChallengeVerdict::NotChallenge => f.write_str("not a challenge or block page"),
            ChallengeVerdict::Block(r) => write!(f, "blocked: {r}"),
        }
    }
}

/// Header fields only challenge responses carry: (name, value, kind, vendor, evidence).
const HEADER_MARKERS: &[(&str, &str, BlockKind, &str, &str)] = &[
    (
        "cf-mitigated",
        "challenge",
        BlockKind::BotChallenge,
        "cloudflare",
        "header `cf-mitigated: challenge`",
    ),
    (
        "x-amzn-waf-action",
        "captcha",
        BlockKind::Captcha,
        "aws waf",
        "header `x-amzn-waf-action: captcha`",
    ),
    (
        "x-amzn-waf-action",
        "challenge",
        BlockKind::BotChallenge,
        "aws waf",
        "header `x-amzn-waf-action: challenge`",
    ),
];

/// Body markers (lower-case) that appear only on interstitial or block pages.
const STRONG_MARKERS: &[(&str, BlockKind, &str, &str)] = &[
    (
        "_cf_chl_opt",
        BlockKind::BotChallenge,
        "cloudflare",
        "cloudflare challenge script `_cf_chl_opt`",
    ),
    (
        "cf-browser-verification",
        BlockKind::BotChallenge,
        "cloudflare",
        "cloudflare browser verification",
    ),
    (
        "<title>just a moment...</title>",
        BlockKind::BotChallenge,
        "cloudflare",
        "title `just a moment...`",
    ),
    (
        "attention required! | cloudflare",
        BlockKind::WafBlock,
        "cloudflare",
        "title `attention required! | cloudflare`",
    ),
    (
        "used cloudflare to restrict access",
        BlockKind::WafBlock,
        "cloudflare",
        "cloudflare access denied page",
    ),
    ("captcha-delivery.com", BlockKind::Captcha, "datadome", "datadome captcha frame"),
    ("id=\"px-captcha\"", BlockKind::Captcha, "perimeterx", "perimeterx `px-captcha` element"),
    ("incapsula incident id", BlockKind::WafBlock, "imperva", "imperva incident id"),
    (
        "<title>pardon our interruption",
        BlockKind::BotChallenge,
        "imperva",
        "title `pardon our interruption`",
    ),
    (
        "sucuri website firewall - access denied",
        BlockKind::WafBlock,
        "sucuri",
        "sucuri firewall page",
    ),
    ("errors.edgesuite.net", BlockKind::WafBlock, "akamai", "akamai reference page"),
    ("errors&#46;edgesuite&#46;net", BlockKind::WafBlock, "akamai", "akamai reference page"),
];

/// CAPTCHA widgets (lower-case): evidence only together with a human-check title or an
/// error status.
const WIDGET_MARKERS: &[(&str, &str)] = &[
    ("g-recaptcha", "recaptcha"),
    ("www.google.com/recaptcha/", "recaptcha"),
    ("www.recaptcha.net/recaptcha/", "recaptcha"),
    ("h-captcha", "hcaptcha"),
    ("hcaptcha.com/1/api.js", "hcaptcha"),
    ("cf-turnstile", "cloudflare"),
    ("challenges.cloudflare.com/turnstile", "cloudflare"),
];

/// Page titles (lower-case substrings) that ask whether the visitor is a human.
const HUMAN_CHECK_TITLES: &[&str] = &[
    "captcha",
    "are you a robot",
    "are you human",
    "are you a human",
    "human verification",
    "verify you are human",
    "security check",
    "bot verification",
    "checking your browser",
    "access denied",
    "robot check",
    "güvenlik doğrulaması",
    "sicherheitsüberprüfung",
    "vérification de sécurité",
];

/// Page titles (lower-case substrings) of login pages, in the seed languages.
const LOGIN_TITLES: &[&str] = &[
    "log in",
    "login",
    "sign in",
    "signin",
    "sign-in",
    "anmelden",
    "anmeldung",
    "connexion",
    "se connecter",
    "giriş yap",
    "oturum aç",
    "iniciar sesión",
    "inicio de sesión",
];

const PASSWORD_INPUTS: &[&str] = &["type=\"password\"", "type='password'", "type=password"];

fn contains(haystack: &[u8], needle: &str) -> bool {
    memmem::find(haystack, needle.as_bytes()).is_some()
}

/// The lower-cased text of the first `<title>` element, bounded to 512 bytes.
fn title(lower: &[u8]) -> Option<&[u8]> {
    let open = memmem::find(lower, b"<title")?;
    let after = &lower[open..];
    let gt = memchr::memchr(b'>', after)?;
    let body = &after[gt + 1..];
    let end = memmem::find(body, b"</title").unwrap_or(body.len()).min(512);
    Some(&body[..end])
}

/// Classifies a response. `headers` are its header fields and `body` its decompressed
/// body (only the first `settings.challenge_scan_limit` bytes are read).
pub fn classify(
    status: u16,
    headers: &[(&str, &str)],
    body: &[u8],
    settings: &SignalSettings,
) -> ChallengeVerdict {
    for &(name, value, kind, vendor, evidence) in HEADER_MARKERS {
        if header_values(headers, name).any(|v| v.eq_ignore_ascii_case(value)) {
            return ChallengeVerdict::Block(BlockReason { kind, vendor: Some(vendor), evidence });
        }
    }

    let lower = body[..body.len().min(settings.challenge_scan_limit)].to_ascii_lowercase();
    for &(marker, kind, vendor, evidence) in STRONG_MARKERS {
        if contains(&lower, marker) {
            return ChallengeVerdict::Block(BlockReason { kind, vendor: Some(vendor), evidence });
        }
    }

    let title = title(&lower).unwrap_or(b"");
    let success = (200..300).contains(&status);
    if let Some(&(_, vendor)) = WIDGET_MARKERS.iter().find(|(m, _)| contains(&lower, m)) {
        if !success {
            let evidence = "captcha widget on an error response";
            return ChallengeVerdict::Block(BlockReason {
                kind: BlockKind::Captcha,
                vendor: Some(vendor),
                evidence,
            });
        }
        if HUMAN_CHECK_TITLES.iter().any(|t| contains(title, t)) {
            let evidence = "captcha widget under a human-check title";
            return ChallengeVerdict::Block(BlockReason {
                kind: BlockKind::Captcha,
                vendor: Some(vendor),
                evidence,
            });
        }
    }

    if success
        && PASSWORD_INPUTS.iter().any(|p| contains(&lower, p))
        && LOGIN_TITLES.iter().any(|t| contains(title, t))
    {
        let evidence = "password form under a login title";
        return ChallengeVerdict::Block(BlockReason {
            kind: BlockKind::LoginWall,
            vendor: None,
            evidence,
        });
    }
    ChallengeVerdict::NotChallenge
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cloudflare's managed challenge as served in 2024–2025, trimmed.
    const CLOUDFLARE_CHALLENGE: &str = r#"<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta http-equiv="X-UA-Compatible" content="IE=Edge"><meta name="robots" content="noindex,nofollow"><meta name="viewport" content="width=device-width,initial-scale=1"><style>*{box-sizing:border-box;margin:0;padding:0}</style></head><body><div class="main-wrapper" role="main"><div class="main-content"><noscript><div class="h2"><span id="challenge-error-text">Enable JavaScript and cookies to continue</span></div></noscript></div></div><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "example.org",cType: 'managed',cRay: '8c1d2e3f4a5b6c7d',cH: 'abc',cUPMDTk: "\/?__cf_chl_tk=xyz"};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8c1d2e3f4a5b6c7d';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script></body></html>"#;

    /// Cloudflare's "Sorry, you have been blocked" page (firewall rule), trimmed.
    const CLOUDFLARE_BLOCKED: &str = r#"<!DOCTYPE html><html class="no-js" lang="en-US"><head><title>Attention Required! | Cloudflare</title><meta charset="UTF-8" /></head><body><div id="cf-wrapper"><div id="cf-error-details" class="cf-error-details-wrapper"><h1 data-translate="block_headline">Sorry, you have been blocked</h1><h2 class="cf-subheadline"><span data-translate="unable_to_access">You are unable to access</span> example.org</h2></div></div></body></html>"#;

    /// DataDome's interstitial, trimmed.
    const DATADOME: &str = r#"<html><head><title>example.fr</title><style>#cmsg{animation: A 1.5s;}</style></head><body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p><script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'ABC','t':'bv','s':12345,'e':'xyz','host':'geo.captcha-delivery.com'}</script><script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>"#;

    /// PerimeterX (HUMAN) "Press & Hold" page, trimmed.
    const PERIMETERX: &str = r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Access to this page has been denied</title></head><body><div class="px-captcha-container"><div class="px-captcha-header">Before we continue...</div><div class="px-captcha-message">Press &amp; Hold to confirm you are a human (and not a bot).</div><div id="px-captcha"></div></div><script>window._pxAppId = 'PXabc123';</script></body></html>"#;

    /// Imperva (Incapsula) block, trimmed.
    const IMPERVA: &str = r#"<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"><meta name="format-detection" content="telephone=no"></head><body style="margin:0px;height:100%"><iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=9&xinfo=1-2-3&incident_id=123-456&edet=12&cinfo=04000000" frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful. Incapsula incident ID: 123000456000789-1234567890</iframe></body></html>"#;

    /// Akamai "Access Denied", as sent.
    const AKAMAI: &str = "<HTML><HEAD>\n<TITLE>Access Denied</TITLE>\n</HEAD><BODY>\n<H1>Access Denied</H1>\n \nYou don't have permission to access \"http&#58;&#47;&#47;www&#46;example&#46;com&#47;events&#47;\" on this server.<P>\nReference&#32;&#35;18&#46;2f3c1002&#46;1732932000&#46;1a2b3c4d\n<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;2f3c1002&#46;1732932000&#46;1a2b3c4d</P>\n</BODY>\n</HTML>\n";

    /// Sucuri firewall, trimmed.
    const SUCURI: &str = r#"<!DOCTYPE html><html lang="en"><head><title>Sucuri WebSite Firewall - Access Denied</title></head><body><div id="main-container"><h1>Access Denied - Sucuri Website Firewall</h1></div></body></html>"#;

    /// A generic hCaptcha interstitial on a small site.
    const HCAPTCHA_GATE: &str = r#"<html><head><title>Security check</title><script src="https://hcaptcha.com/1/api.js" async defer></script></head><body><form method="post"><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div><button>Continue</button></form></body></html>"#;

    /// An ordinary event page whose newsletter form carries reCAPTCHA: content.
    const EVENT_WITH_RECAPTCHA: &str = r#"<html><head><title>Jazz im Hof – Sa 12. Dez 2026 – Kulturhaus</title><script type="application/ld+json">{"@type":"MusicEvent","name":"Jazz im Hof"}</script></head><body><h1>Jazz im Hof</h1><form action="/newsletter"><input type="email"><div class="g-recaptcha" data-sitekey="x"></div></form></body></html>"#;

    /// An event page with a login modal in its header: content.
    const EVENT_WITH_LOGIN_MODAL: &str = r#"<html><head><title>Tiyatro: Hamlet – 5 Aralık 2026</title></head><body><div id="login-modal"><form action="/giris"><input type="text" name="user"><input type="password" name="pw"></form></div><h1>Hamlet</h1></body></html>"#;

    /// A login wall answering 200 where an event page was expected.
    const LOGIN_WALL: &str = r#"<!doctype html><html><head><title>Log in – Ticket Portal</title></head><body><form method="post" action="/session"><label>E-mail <input type="email" name="email"></label><label>Password <input type="password" name="password"></label><button>Log in</button></form></body></html>"#;

    /// The same in French.
    const LOGIN_WALL_FR: &str = r#"<html><head><title>Connexion | Espace pro</title></head><body><form><input name=login><input type=password name=pass></form></body></html>"#;

    /// One case: status, headers, body, and the expected verdict (kind and vendor).
    #[track_caller]
    fn check(
        status: u16,
        headers: &[(&str, &str)],
        body: &str,
        expect: Option<(BlockKind, Option<&str>)>,
    ) {
        let v = classify(status, headers, body.as_bytes(), &SignalSettings::default());
        let got = match v {
            ChallengeVerdict::NotChallenge => None,
            ChallengeVerdict::Block(r) => Some((r.kind, r.vendor)),
        };
        assert_eq!(got, expect, "{v}");
    }

    use BlockKind::*;

    #[test]
    fn spec_challenge_headers() {
        check(403, &[("cf-mitigated", "challenge")], "", Some((BotChallenge, Some("cloudflare"))));
        check(
            200,
            &[("CF-Mitigated", "Challenge")],
            "<html></html>",
            Some((BotChallenge, Some("cloudflare"))),
        );
        check(405, &[("x-amzn-waf-action", "captcha")], "", Some((Captcha, Some("aws waf"))));
        check(
            202,
            &[("x-amzn-waf-action", "challenge")],
            "",
            Some((BotChallenge, Some("aws waf"))),
        );
        check(
            200,
            &[("server", "cloudflare"), ("cf-ray", "8c1d2e3f4a5b6c7d-VIE")],
            "<html>ok</html>",
            None,
        );
    }

    #[test]
    fn vendor_interstitials() {
        check(403, &[], CLOUDFLARE_CHALLENGE, Some((BotChallenge, Some("cloudflare"))));
        check(403, &[], CLOUDFLARE_BLOCKED, Some((WafBlock, Some("cloudflare"))));
        check(403, &[], DATADOME, Some((Captcha, Some("datadome"))));
        check(403, &[], PERIMETERX, Some((Captcha, Some("perimeterx"))));
        check(200, &[], IMPERVA, Some((WafBlock, Some("imperva"))));
        check(403, &[], AKAMAI, Some((WafBlock, Some("akamai"))));
        check(403, &[], SUCURI, Some((WafBlock, Some("sucuri"))));
        // A challenge on a 429 or 503 is still a block, not a rate limit.
        check(503, &[], CLOUDFLARE_CHALLENGE, Some((BotChallenge, Some("cloudflare"))));
    }

    #[test]
    fn captcha_widgets_need_more_evidence() {
        check(200, &[], HCAPTCHA_GATE, Some((Captcha, Some("hcaptcha"))));
        check(200, &[], EVENT_WITH_RECAPTCHA, None);
        check(403, &[], EVENT_WITH_RECAPTCHA, Some((Captcha, Some("recaptcha"))));
    }

    #[test]
    fn spec_login_wall_answering_200() {
        check(200, &[], LOGIN_WALL, Some((LoginWall, None)));
        check(200, &[], LOGIN_WALL_FR, Some((LoginWall, None)));
        check(200, &[], EVENT_WITH_LOGIN_MODAL, None);
        check(
            200,
            &[],
            "<html><head><title>Login</title></head><body>No form here</body></html>",
            None,
        );
    }

    #[test]
    fn ordinary_responses_are_not_blocks() {
        check(200, &[], "", None);
        check(404, &[], "<html><head><title>Not found</title></head></html>", None);
        check(200, &[("content-type", "image/jpeg")], "\u{ff}\u{d8}\u{ff}\u{e0}JFIF", None);
    }

    #[test]
    fn scan_is_bounded() {
        let mut body = "x".repeat(70 * 1024);
        body.push_str(CLOUDFLARE_CHALLENGE);
        check(200, &[], &body, None);
        let settings =
            SignalSettings { challenge_scan_limit: 1 << 20, ..SignalSettings::default() };
        assert!(classify(200, &[], body.as_bytes(), &settings).is_block());
    }

    #[test]
    fn reasons_read_as_plain_english() {
        let v = classify(403, &[("cf-mitigated", "challenge")], b"", &SignalSettings::default());
        assert_eq!(
            v.to_string(),
            "blocked: bot challenge by cloudflare (header `cf-mitigated: challenge`)"
        );
        let v = classify(200, &[], LOGIN_WALL.as_bytes(), &SignalSettings::default());
        assert_eq!(v.to_string(), "blocked: login wall (password form under a login title)");
        assert_eq!(ChallengeVerdict::NotChallenge.to_string(), "not a challenge or block page");
    }
}
