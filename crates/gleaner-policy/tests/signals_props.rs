//! Property tests for the site-signal parsers (`gleaner_policy::signals`): none of them
//! panics on arbitrary input, and a few invariants hold whatever the input (waits never
//! exceed the cap, freshness never exceeds its cap, ai.txt and tdmrep.json decisions are
//! deterministic).

use std::time::{Duration, SystemTime};

use gleaner_policy::Purpose;
use gleaner_policy::signals::reservation::{self, OnReservation, RightsUse};
use gleaner_policy::signals::{
    AiTxt, PageAction, PageRestrictions, RightsSignals, SignalSettings, TdmRepFile, cache_control,
    challenge, retry_after, tdmrep,
};
use proptest::prelude::*;

/// Header-ish text: mostly the characters these fields are made of, sometimes anything.
fn field() -> impl Strategy<Value = String> {
    prop_oneof!["[ -~]{0,80}", "[0-9 ,:=\"\\-a-zA-Z/*$%.]{0,40}", any::<String>(),]
}

fn header_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("Retry-After".to_owned()),
        Just("Date".to_owned()),
        Just("Cache-Control".to_owned()),
        Just("Age".to_owned()),
        Just("Expires".to_owned()),
        Just("ETag".to_owned()),
        Just("Last-Modified".to_owned()),
        Just("Vary".to_owned()),
        Just("X-Robots-Tag".to_owned()),
        Just("tdm-reservation".to_owned()),
        Just("tdm-policy".to_owned()),
        Just("cf-mitigated".to_owned()),
        Just("x-amzn-waf-action".to_owned()),
        "[a-zA-Z-]{0,12}",
    ]
}

fn headers() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec((header_name(), field()), 0..6)
}

fn borrow(h: &[(String, String)]) -> Vec<(&str, &str)> {
    h.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect()
}

fn instant() -> impl Strategy<Value = SystemTime> {
    (0u64..=4_102_444_800).prop_map(|s| SystemTime::UNIX_EPOCH + Duration::from_secs(s))
}

proptest! {
    #[test]
    fn retry_after_never_panics_and_respects_the_cap(h in headers(), v in field(), d in field(), at in instant()) {
        let s = SignalSettings::default();
        let h = borrow(&h);
        let a = retry_after::from_headers(&h, at, &s);
        prop_assert!(a.wait <= s.retry_after_cap);
        let b = retry_after::decide(Some(&v), Some(&d), at, &s);
        prop_assert!(b.wait <= s.retry_after_cap);
        let _ = (a.to_string(), b.to_string(), b.resume_at(at));
    }

    #[test]
    fn retry_after_delta_seconds_round_trip(secs in 1u64..=7200, at in instant()) {
        let d = retry_after::decide(Some(&secs.to_string()), None, at, &SignalSettings::default());
        prop_assert_eq!(d.wait, Duration::from_secs(secs));
    }

    #[test]
    fn cache_control_never_panics_and_respects_the_cap(h in headers(), at in instant()) {
        let s = SignalSettings::default();
        let d = cache_control::decide(&borrow(&h), at, &s);
        prop_assert!(d.verdict.fresh_for() <= s.freshness_cap);
        let _ = d.to_string();
    }

    #[test]
    fn robots_meta_never_panics(h in headers(), meta in prop::collection::vec((field(), field()), 0..4), token in field()) {
        let meta: Vec<(&str, &str)> = meta.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
        let r = PageRestrictions::from_signals(&token, &borrow(&h), &meta);
        for action in [PageAction::Publish, PageAction::FollowLinks, PageAction::StoreBody,
                       PageAction::KeepDescription, PageAction::KeepImage, PageAction::Translate] {
            let _ = r.decide(action).to_string();
        }
        let found = r.reservations();
        for on in [OnReservation::StopSite, OnReservation::PerPurpose] {
            for u in RightsUse::ALL {
                let _ = reservation::decide_use(on, &found, u).to_string();
            }
            for p in Purpose::ALL {
                let _ = reservation::decide_purpose(on, &found, p);
            }
        }
    }

    #[test]
    fn tdmrep_file_never_panics(body in prop::collection::vec(any::<u8>(), 0..512), path in field()) {
        if let Ok(f) = TdmRepFile::parse(&body) {
            let _ = tdmrep::decide(Some(&f), None, None, &path).to_string();
            let _ = f.first_reservation();
        }
    }

    #[test]
    fn tdmrep_json_shaped_never_panics(
        rules in prop::collection::vec((field(), prop_oneof![Just("1".to_owned()), Just("0".to_owned()), Just("\"1\"".to_owned()), Just("2".to_owned()), Just("null".to_owned())]), 0..6),
        path in field(),
        h in headers(),
        meta in prop::collection::vec((field(), field()), 0..3),
    ) {
        let body = format!(
            "[{}]",
            rules.iter()
                .map(|(loc, r)| format!("{{\"location\": {}, \"tdm-reservation\": {r}}}", serde_json_string(loc)))
                .collect::<Vec<_>>()
                .join(",")
        );
        let f = TdmRepFile::parse(body.as_bytes()).expect("well-formed json array");
        let h = borrow(&h);
        let meta: Vec<(&str, &str)> = meta.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
        let a = tdmrep::decide(Some(&f), tdmrep::from_headers(&h).as_ref(), tdmrep::from_meta(&meta).as_ref(), &path);
        let b = tdmrep::decide(Some(&f), tdmrep::from_headers(&h).as_ref(), tdmrep::from_meta(&meta).as_ref(), &path);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.is_reserved(), a.reservation().is_some());
    }

    #[test]
    fn ai_txt_never_panics(body in prop::collection::vec(any::<u8>(), 0..512), token in field(), path in field()) {
        let ai = AiTxt::parse_bytes(&body);
        let d = ai.check(&token, &path);
        prop_assert_eq!(d.is_disallowed(), d.reservation().is_some());
        let _ = (d.to_string(), ai.first_reservation(&token));
    }

    #[test]
    fn ai_txt_shaped_never_panics(
        lines in prop::collection::vec((prop_oneof![Just("User-Agent"), Just("Allow"), Just("Disallow"), Just("#"), Just("x")], field()), 0..12),
        path in field(),
    ) {
        let text: String = lines.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        let ai = AiTxt::parse(&text);
        let _ = ai.check("CIXTRA-Bot", &path).to_string();
    }

    #[test]
    fn rights_signals_never_panic(
        tdm in prop::collection::vec(any::<u8>(), 0..256),
        ai in field(),
        path in field(),
        h in headers(),
        meta in prop::collection::vec((field(), field()), 0..3),
    ) {
        let file = TdmRepFile::parse(&tdm).ok();
        let ai = AiTxt::parse(&ai);
        let signals = RightsSignals { token: "CIXTRA-Bot", tdmrep: file.as_ref(), ai_txt: Some(&ai), prefs: &[] };
        let meta: Vec<(&str, &str)> = meta.iter().map(|(n, c)| (n.as_str(), c.as_str())).collect();
        let found = signals.for_url(&path, &borrow(&h), &meta);
        let site = signals.site_wide();
        for u in RightsUse::ALL {
            // Stop-site is never more permissive than per-purpose.
            let per = reservation::decide_use(OnReservation::PerPurpose, &found, u).is_allowed();
            let stop = reservation::decide_use(OnReservation::StopSite, &found, u).is_allowed();
            prop_assert!(per || !stop);
        }
        let _ = reservation::decide_purpose(OnReservation::StopSite, &site, Purpose::EventPage).to_string();
    }

    #[test]
    fn challenge_never_panics(status in 0u16..1000, h in headers(), body in prop::collection::vec(any::<u8>(), 0..2048), limit in 0usize..4096) {
        let s = SignalSettings { challenge_scan_limit: limit, ..SignalSettings::default() };
        let _ = challenge::classify(status, &borrow(&h), &body, &s).to_string();
    }
}

/// A JSON string literal for `s` (quotes and escapes), without pulling serde_json into
/// the test's dependencies.
fn serde_json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
