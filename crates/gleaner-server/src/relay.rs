//! `/relay/{id}`: the image relay's public route (SPEC §5). The id is opaque (issued by
//! the store); the relay ([`gleaner_relay::Relay`]) decides everything else. Responses
//! carry the sniffed type, `X-Content-Type-Options: nosniff`, a sandboxing
//! Content-Security-Policy, no cookies, and a `Cache-Control` no longer than the relay
//! keeps the image itself (`no-store` for what it may not keep).

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use gleaner_relay::{Delivery, Relay};

/// The relay's route, to merge into the public router.
pub fn routes(relay: Arc<Relay>) -> Router {
    Router::new().route("/relay/{id}", get(relay_image)).with_state(relay)
}

fn text(status: StatusCode, body: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

async fn relay_image(State(relay): State<Arc<Relay>>, Path(id): Path<String>) -> Response {
    let mut response = match relay.deliver(&id).await {
        Delivery::Image { bytes, kind, max_age } => {
            let cache = if max_age.is_zero() {
                "no-store".to_owned()
            } else {
                format!("private, max-age={}", max_age.as_secs())
            };
            let mut r = (StatusCode::OK, bytes).into_response();
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind.mime()));
            if let Ok(v) = HeaderValue::from_str(&cache) {
                r.headers_mut().insert(header::CACHE_CONTROL, v);
            }
            r
        }
        Delivery::NotFound => text(StatusCode::NOT_FOUND, "no such image\n"),
        Delivery::Busy { retry_after } => {
            let mut r = text(StatusCode::SERVICE_UNAVAILABLE, "busy; try again shortly\n");
            r.headers_mut().insert(header::RETRY_AFTER, retry_after.as_secs().max(1).into());
            r
        }
        Delivery::Unavailable { retry_after, .. } => {
            let mut r = text(StatusCode::BAD_GATEWAY, "the image could not be fetched\n");
            r.headers_mut().insert(header::RETRY_AFTER, retry_after.as_secs().max(1).into());
            r
        }
    };
    let h = response.headers_mut();
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

/// The about page's words on rights files and the image relay, from the settings
/// (`[rights] files_ttl`, `[relay]`), in `lang`: empty when neither is in use.
pub fn about_paragraphs(
    settings: &gleaner_config::Settings,
    lang: crate::i18n::Lang,
) -> Vec<String> {
    use crate::about::{size, words_in};
    let m = lang.messages();
    let mut out = Vec::new();
    if settings.rights.honour_signals && settings.rights.read_files {
        out.push(m.rights_files.replace("{ttl}", &words_in(lang, settings.rights.files_ttl)));
    }
    if settings.purposes.enabled.contains(&gleaner_policy::Purpose::ImageRelay) {
        let r = &settings.relay;
        out.push(
            m.relay_rules
                .replace("{max_age}", &words_in(lang, r.max_age))
                .replace("{cap}", &size(r.memory_cap))
                .replace("{image_cap}", &size(r.max_image_bytes))
                .replace("{gap}", &words_in(lang, r.min_gap))
                .replace("{queue}", &r.queue_per_host.to_string())
                .replace("{backoff}", &words_in(lang, r.failure_backoff)),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::Lang;

    #[test]
    fn the_about_page_states_the_relay_rules_from_the_settings_in_every_language() {
        let text = "[bot]\ntoken = \"CIXTRA-Bot\"\nversion = \"1\"\ninfo_url = \"https://bot.example/\"\noperator = \"T\"\n\
                    [purposes]\nenabled = [\"robots\", \"image-relay\", \"rights-signal\"]\n\
                    [rights]\nfiles_ttl = \"12h\"\n[relay]\nmax_age = \"30m\"\nmemory_cap = \"32MiB\"\nqueue_per_host = 3\n";
        let settings = gleaner_config::parse(text, "t.toml").unwrap();
        for lang in [Lang::En, Lang::Tr, Lang::Fr, Lang::Es, Lang::De] {
            let words = about_paragraphs(&settings, lang);
            assert_eq!(words.len(), 2, "{lang:?}");
            assert!(
                words[0].contains("12 h") && words[0].contains("tdmrep.json"),
                "{lang:?}: {}",
                words[0]
            );
            for number in ["30 min", "32 MiB", "5 MiB", "3", "1 min", "1 s"] {
                assert!(words[1].contains(number), "{lang:?} says {number}: {}", words[1]);
            }
            assert!(!words[1].contains('{'), "every placeholder filled: {}", words[1]);
        }
        let off = gleaner_config::parse(
            "[bot]\ntoken = \"B\"\nversion = \"1\"\ninfo_url = \"https://bot.example/\"\noperator = \"T\"\n[purposes]\nenabled = [\"robots\", \"listing\"]\n",
            "t.toml",
        )
        .unwrap();
        assert!(
            about_paragraphs(&off, Lang::En).is_empty(),
            "no relay, no rights files: nothing said"
        );
    }
}
