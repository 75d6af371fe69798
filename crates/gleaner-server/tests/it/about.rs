//! The about page: five languages, every number from the config, Accept-Language,
//! JSON, and the four seed profiles stating their seeds' facts.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use gleaner_server::about;
use gleaner_server::i18n::Lang;

use crate::{CONFIG, get, request, settings};

const LANGS: [&str; 5] = ["en", "tr", "fr", "es", "de"];

#[tokio::test]
async fn about_page_exists_in_five_languages_with_the_configured_numbers() {
    let headings = [
        ("en", "How to block it"),
        ("tr", "Nasıl engellersiniz"),
        ("fr", "Comment le bloquer"),
        ("es", "Cómo bloquearlo"),
        ("de", "Wie Sie ihn sperren"),
    ];
    for (lang, heading) in headings {
        let (status, html) = get(CONFIG, &format!("/bot/{lang}"), vec![]).await;
        assert_eq!(status, StatusCode::OK, "{lang}");
        assert!(html.contains(&format!("<html lang=\"{lang}\">")), "{lang}");
        assert!(html.contains(heading), "{lang}: {heading}");
        assert!(
            html.contains("AubeActuBot/2.1 (+https://aube.example/robot; robot@aube.example)"),
            "{lang}"
        );
        assert!(html.contains("User-agent: AubeActuBot\nDisallow: /"), "{lang}");
        assert!(html.contains("08:00–09:00") && html.contains("14:00–15:00"), "{lang}");
        assert!(html.contains("<td>1500</td>"), "{lang}");
        // The purposes of the config are named in the page's language.
        for section in [
            "who",
            "recognise",
            "reads",
            "never",
            "keeps",
            "crawl",
            "rights",
            "licensed",
            "models",
            "block",
            "ask",
        ] {
            assert!(html.contains(&format!("<section id=\"{section}\">")), "{lang}: {section}");
        }
    }
    // Turkish keeps its dotted capital İ (no ASCII case mapping anywhere).
    let (_, tr) = get(CONFIG, "/bot/tr", vec![]).await;
    assert!(tr.contains("İletişim: robot@aube.example"), "{tr}");
}

#[tokio::test]
async fn changing_the_config_changes_every_language() {
    let changed = CONFIG
        .replace("gap = \"2s\"", "gap = \"7s\"")
        .replace("global_daily_cap = 1500", "global_daily_cap = 1234")
        .replace("\"08:00-09:00\"", "\"07:00-09:30\"")
        .replace("requests_per_day = 60", "requests_per_day = 45")
        .replace("contact = \"robot@aube.example\"", "contact = \"ecrire@aube.example\"");
    for lang in LANGS {
        let path = format!("/bot/{lang}");
        let (_, before) = get(CONFIG, &path, vec![]).await;
        let (_, after) = get(&changed, &path, vec![]).await;
        for (old, new) in [
            ("<tr data-key=\"gap\">", "<tr data-key=\"gap\">"),
            ("<td>1500</td>", "<td>1234</td>"),
            ("08:00–09:00", "07:00–09:30"),
            ("robot@aube.example", "ecrire@aube.example"),
        ] {
            assert!(before.contains(old), "{lang}: {old}");
            assert!(after.contains(new), "{lang}: {new}");
        }
        assert!(!after.contains("<td>1500</td>") && !after.contains("08:00–09:00"), "{lang}");
        assert_eq!(row(&before, "gap"), "2 s", "{lang}");
        assert_eq!(row(&after, "gap"), "7 s", "{lang}");
        assert!(row(&before, "class.municipal").contains("60"), "{lang}");
        assert!(row(&after, "class.municipal").contains("45"), "{lang}");
        assert!(!after.contains("robot@aube.example"), "{lang}");
    }
}

#[tokio::test]
async fn accept_language_picks_the_page_language() {
    for (accept, lang) in [
        ("tr-TR,tr;q=0.9,en;q=0.5", "tr"),
        ("de;q=0.3, fr-CA;q=0.8", "fr"),
        ("ja, es;q=0.1", "es"),
        ("ja", "en"),
        ("fr;q=0, de", "de"),
    ] {
        let req = Request::get("/bot").header(header::ACCEPT_LANGUAGE, accept).body(Body::empty());
        let (status, headers, html) = request(CONFIG, req.unwrap(), vec![]).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(headers[header::CONTENT_LANGUAGE], lang, "{accept}");
        assert_eq!(headers[header::VARY], "Accept-Language");
        assert!(html.contains(&format!("<html lang=\"{lang}\">")), "{accept}");
    }
    let (status, html) = get(CONFIG, "/bot", vec![]).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("<html lang=\"en\">"));
    let (status, body) = get(CONFIG, "/bot/xx", vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("\"code\":\"unknown_language\""), "{body}");
}

#[tokio::test]
async fn about_json_has_the_same_facts() {
    let (status, body) = get(CONFIG, "/bot.json?lang=de", vec![]).await;
    assert_eq!(status, StatusCode::OK);
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["token"], "AubeActuBot");
    assert_eq!(json["lang"], "de");
    assert_eq!(json["politeness"]["gap_seconds"], 2.0);
    assert_eq!(json["politeness"]["global_daily_cap"], 1500);
    assert_eq!(json["site_classes"]["municipal"]["requests_per_day"], 60);
    assert_eq!(json["site_classes"]["municipal"]["quiet_hours"][1], "14:00-15:00");
    assert_eq!(json["robots"]["block_site"], "User-agent: AubeActuBot\nDisallow: /");
    assert_eq!(
        json["page"]["sections"].as_array().unwrap().len(),
        12,
        "a promises section (issue 25)"
    );
    assert_eq!(json["page"]["title"], "Über AubeActuBot");
    let (status, body) = get(CONFIG, "/bot.json?lang=zz", vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(body.contains("unknown_language"));
}

#[tokio::test]
async fn about_page_escapes_config_text_in_every_language() {
    let config = CONFIG.replace("operator = \"AubeActu\"", "operator = \"<script>x</script>\"");
    for lang in LANGS {
        let (_, html) = get(&config, &format!("/bot/{lang}"), vec![]).await;
        assert!(!html.contains("<script>x"), "{lang}");
        assert!(html.contains("&lt;script&gt;x&lt;/script&gt;"), "{lang}");
    }
}

/// The value cell of the politeness row with this key.
fn row(html: &str, key: &str) -> String {
    let start =
        html.find(&format!("<tr data-key=\"{key}\">")).unwrap_or_else(|| panic!("no row {key}"));
    let rest = &html[start..];
    let td = rest.find("<td>").unwrap() + 4;
    let end = rest.find("</td>").unwrap();
    rest[td..end].to_owned()
}

fn profile(name: &str) -> String {
    let path = format!("{}/../../examples/profiles/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap()
}

/// Each seed page's facts, as values the page must show in every language.
#[test]
fn seed_profiles_state_their_seed_facts_in_every_language() {
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "ugybot",
            &[
                "UGYBot/1.0 (+https://ugy.app/bot; bot@ugy.app)",
                "<tr data-key=\"gap\"><th>",
                "<td>1 s</td>",
                "<tr data-key=\"max_in_flight\"><th>",
                "<td>3</td>",
                "<td>1 h</td>", // robots.txt cache
                "<td>2 h</td>", // Retry-After cap
                "data-key=\"purpose.event-page.jitter\"",
                "data-key=\"purpose.manual-check.gap\"",
                "<td>2</td>", // retries
                "User-agent: UGYBot\nDisallow: /",
            ],
            &["90", "30"],
        ),
        (
            "aubeactubot",
            &[
                "AubeActuBot/1.0 (+https://aubeactu.fr/robot; contact@aubeactu.fr)",
                "<td>2 s</td>",
                "<td>1500</td>",
                "<td>24 h</td>",
                "<td>5 s</td>",
                "<td>15 s</td>",
                "8 MB",
                "<td>2 h</td>",
                "08:00–09:00",
                "14:00–15:00",
                "Europe/Paris",
                "User-agent: AubeActuBot\nDisallow: /",
            ],
            &["5 min", "12", "60", "1 min"],
        ),
        (
            "cixtra-bot",
            &[
                "CIXTRA-Bot/1.0 (+https://cixtra.example/bot; cixtra@superfrey.com)",
                "Liniengasse 2a, Top 4a, 1060 Vienna, Austria",
                "data-key=\"purpose.image-relay.gap\"",
                "data-key=\"purpose.link-check.gap\"",
                "<td>1 s</td>",
                "<td>2 s</td>",
                "User-agent: CIXTRA-Bot\nDisallow: /",
            ],
            &["TDMRep", "/ai.txt", "noai"],
        ),
        (
            "festrobot",
            &[
                "FestroBot/1.0 (+https://festro.com/crawler)",
                "<td>1 s</td>",
                "<td>23 h</td>",
                "America/Montreal",
                "User-agent: FestroBot\nDisallow: /",
                "https://festro.com/crawler",
            ],
            &["4"],
        ),
    ];
    for (name, exact, words) in cases {
        let settings = gleaner_config::parse(&profile(name), "profile.toml").unwrap();
        for lang in Lang::ALL {
            let html = about::render_html(&settings, lang);
            for fact in exact.iter().chain(words) {
                assert!(html.contains(fact), "{name} {}: missing `{fact}`", lang.code());
            }
        }
    }
    // Promises stated in words: FestroBot deletes pages at once and treats a 401/403
    // robots.txt as a no; CIXTRA-Bot stops at any reservation and uses GET only; UGYBot
    // uses HEAD for quick checks.
    let festro = gleaner_config::parse(&profile("festrobot"), "p.toml").unwrap();
    let es = about::render_html(&festro, Lang::Es);
    assert!(es.contains("Las páginas descargadas se borran en cuanto se han leído sus datos."));
    assert!(es.contains("se trata como una negativa: no se lee nada"));
    assert!(es.contains("4 visitas por día"));
    let cixtra = gleaner_config::parse(&profile("cixtra-bot"), "p.toml").unwrap();
    let de = about::render_html(&cixtra, Lang::De);
    assert!(de.contains("Jeder dieser Vorbehalte hält ihn davon ab, Ihre Website zu lesen."));
    assert!(de.contains("Er sendet nur GET-Anfragen."));
    let ugy = gleaner_config::parse(&profile("ugybot"), "p.toml").unwrap();
    let tr = about::render_html(&ugy, Lang::Tr);
    assert!(tr.contains("HEAD isteği de gönderir"));
    assert!(tr.contains("en geç 90 gün içinde silinir"));
    assert!(tr.contains("0,15 s ile 0,45 s arası"), "{tr}");
    assert_eq!(row(&tr, "unreachable_tries"), "3");
    assert_eq!(row(&tr, "failure_streak_limit"), "5");
    assert_eq!(row(&tr, "run_time_limit"), "9 min");
    assert_eq!(row(&tr, "min_source_interval"), "1 h içinde en fazla bir kez");
    let aube = gleaner_config::parse(&profile("aubeactubot"), "p.toml").unwrap();
    let fr = about::render_html(&aube, Lang::Fr);
    assert!(fr.contains(
        "au plus 5 requêtes par passage, pagination comprise; 12 par heure; 60 par jour"
    ));
    assert!(fr.contains("au plus un passage toutes les 5 min"));
    let _ = settings;
}

#[test]
fn sources_that_publish_nothing_are_named_as_the_newsroom_pool() {
    let s = gleaner_config::parse(CONFIG, "t.toml").unwrap();
    let fr = about::render_html(&s, Lang::Fr);
    assert!(
        fr.contains("ils alimentent un fonds privé où puise la rédaction : presse.example."),
        "{fr}"
    );
    assert!(fr.contains("Pour ces sources, il conserve aussi la description et l&#39;adresse de l&#39;image : salle.example."));
}

#[test]
fn markdown_states_the_same_rows() {
    let s = gleaner_config::parse(CONFIG, "t.toml").unwrap();
    let md = about::render_markdown(&s, Lang::Fr);
    assert!(md.starts_with("# À propos de AubeActuBot"));
    assert!(md.contains("| Requêtes par jour, tous sites confondus | 1500 |"), "{md}");
    assert!(md.contains("```\nUser-agent: AubeActuBot\nDisallow: /\n```"));
}

#[test]
fn sources_read_by_a_language_model_and_translated_ones_are_named_in_every_language() {
    let with_model = format!(
        "{CONFIG}\n[[infrastructure]]\nname = \"local-llm\"\nurl = \"http://127.0.0.1:8080/v1/\"\n\
         allow = [\"127.0.0.1/32\"]\n\n[llm]\nendpoint = \"local-llm\"\nmodel = \"qwen2.5-7b-instruct\"\n\n\
         [[sources]]\nid = \"plainvenue\"\nkind = \"listing\"\nstart_urls = [\"https://venue.example/agenda/\"]\n\
         llm = \"fallback\"\ntranslate = true\n"
    );
    let s = gleaner_config::parse(&with_model, "t.toml").unwrap();
    let plain = gleaner_config::parse(CONFIG, "t.toml").unwrap();
    for (lang, marker) in [
        (Lang::En, "A language model reads the pages of these sources"),
        (Lang::Tr, "bir dil modeli tarafından okunur"),
        (Lang::Fr, "Un modèle de langage lit les pages de ces sources"),
        (Lang::Es, "Un modelo de lenguaje lee las páginas de estas fuentes"),
        (Lang::De, "Ein Sprachmodell liest die Seiten dieser Quellen"),
    ] {
        let html = about::render_html(&s, lang);
        let models = &html[html.find("<section id=\"models\">").unwrap()..];
        let models = &models[..models.find("</section>").unwrap()];
        assert!(models.contains(marker) && models.contains("venue.example"), "{lang:?}: {models}");
        assert!(models.contains("local-llm"), "{lang:?}: the endpoint is named");
        assert!(models.contains("noai, TDMRep, ai.txt"), "{lang:?}");
        // Positive control: without a model, the sentence is absent.
        let html = about::render_html(&plain, lang);
        assert!(!html.contains(marker), "{lang:?}");
    }
    let json = about::json(&s, Lang::En);
    let source =
        json["sources"].as_array().unwrap().iter().find(|v| v["id"] == "plainvenue").unwrap();
    assert_eq!(
        (source["llm"].as_str(), source["translate"].as_bool()),
        (Some("fallback"), Some(true))
    );
}

#[tokio::test]
async fn a_copy_sharing_a_politeness_namespace_says_so_in_every_language() {
    let store = "[store]\nurl = \"postgres://gleaner@127.0.0.1:5432/gleaner\"\n";
    let staging =
        format!("{CONFIG}\n{store}schema = \"staging\"\npoliteness_namespace = \"public\"\n");
    let whole = format!("{CONFIG}\n{store}");
    for lang in LANGS {
        let path = format!("/bot/{lang}");
        let (_, alone) = get(&whole, &path, vec![]).await;
        let (_, copy) = get(&staging, &path, vec![]).await;
        let (alone, copy) = (row(&alone, "shared_by"), row(&copy, "shared_by"));
        assert!(!alone.is_empty() && !copy.is_empty(), "{lang}");
        assert_ne!(alone, copy, "{lang}: a copy says more than a lone deployment");
    }
    let (_, en) = get(&staging, "/bot/en", vec![]).await;
    assert!(row(&en, "shared_by").contains("other copies of this bot"));
}

/// Issue 25: each seed profile's page, in each language, states every behaviour its
/// config sets beyond the politeness table — the cancellation check (cadence, horizon,
/// methods, how many at once), 404/410, other 4xx, robots.txt 4xx, how often sources are
/// read, the sites read (domains, never source ids), who is responsible, where requests
/// come from and how soon a removal is carried out — read from the rendered Markdown,
/// with the numbers taken from `Settings`.
#[test]
fn seed_profiles_state_every_promise_in_every_language() {
    use gleaner_server::promises;
    for name in ["ugybot", "aubeactubot", "cixtra-bot", "festrobot"] {
        let s = gleaner_config::parse(&profile(name), "p.toml").unwrap();
        for lang in Lang::ALL {
            // Markdown escapes its active characters; compare the text as read.
            let md = about::render_markdown(&s, lang).replace('\\', "");
            let words = promises::words(lang);
            let w = |d| about::words_in(lang, d);
            let rows = promises::facts_in(&s, lang);
            for row in &rows {
                let line = format!("| {} | {} |", row.label, row.value);
                assert!(md.contains(&line), "{name} {lang:?}: `{}` not stated:\n{md}", row.key);
            }
            let value = |key: &str| {
                rows.iter()
                    .find(|r| r.key == key)
                    .map(|r| r.value.clone())
                    .unwrap_or_else(|| panic!("{name} {lang:?}: no `{key}` row"))
            };
            let checks = value("checks.cancellation");
            if s.purposes.enabled.contains(&gleaner_policy::Purpose::CancellationCheck) {
                assert!(
                    checks.contains(&w(s.checks.cancellation_every)),
                    "{name} {lang:?}: {checks}"
                );
                assert!(checks.contains(&s.checks.horizon_days.to_string()), "{checks}");
                assert!(
                    checks.contains(&promises::checks_in_flight(&s).to_string()),
                    "{name} {lang:?}: {checks}"
                );
                let head = s.checks.cancellation_head && s.purposes.head_allowed;
                let methods = if head { words.head_then_get } else { words.get_only };
                assert!(checks.contains(methods), "{name} {lang:?}: {checks}");
            } else {
                assert_eq!(checks, words.checks_off);
            }
            assert!(md.contains(words.gone_value) && md.contains(words.other_4xx_value));
            assert!(md.contains(words.robots_4xx_value), "{name} {lang:?}");
            let (most, _, _, min) = promises::cadence(&s).unwrap();
            let cadence = value("sources.cadence");
            assert!(cadence.contains(&w(most)) && cadence.contains(&w(min)), "{cadence}");
            let sites = value("sources.sites");
            for source in &s.sources {
                assert!(!sites.contains(&source.id) || sites.contains('.'), "{sites}");
                for url in &source.start_urls {
                    assert!(sites.contains(url.host_str().unwrap()), "{name}: {sites}");
                }
            }
            if let Some(director) = &s.bot.publication_director {
                assert!(value("bot.publication_director").contains(director.as_str()));
            }
            if let Some(entity) = &s.bot.legal_entity {
                assert!(value("bot.legal_entity").contains(entity.as_str()));
            }
            if let Some(origin) = &s.bot.origin {
                assert!(value("bot.origin").contains(origin.as_str()));
            }
            if let Some(within) = s.owners.removal_within {
                assert!(value("owners.removal_within").contains(&w(within)));
            }
        }
    }
    // The seeds' own facts: AubeActu's publication director, FestroBot's origin and
    // same-day removal, UGYBot's seven days.
    let aube = gleaner_config::parse(&profile("aubeactubot"), "p.toml").unwrap();
    assert_eq!(aube.bot.publication_director.as_deref(), Some("Adnan TOURAK"));
    let festro = gleaner_config::parse(&profile("festrobot"), "p.toml").unwrap();
    let md = about::render_markdown(&festro, Lang::Es);
    assert!(
        md.contains("Google Cloud infrastructure in North America; no se publica ningún rango"),
        "{md}"
    );
    assert!(md.contains("se atienden en 24 h como máximo"), "{md}");
    let ugy = gleaner_config::parse(&profile("ugybot"), "p.toml").unwrap();
    let md = about::render_markdown(&ugy, Lang::En);
    assert!(md.contains("carried out within 7 days"), "{md}");
    assert!(md.contains("most sources every 12 h"), "{md}");
}

/// `[bot] egress` is published at `/bot/ranges.json` in the large crawlers' schema and
/// stated on the about page, with the reverse-DNS check for `egress_domain`, in every
/// language; without egress ranges there is no list (404), and the page says none is
/// published.
#[tokio::test]
async fn bot_ranges_json_publishes_the_egress_ranges() {
    let config = CONFIG.replace(
        "operator = \"AubeActu\"",
        "operator = \"AubeActu\"\negress = [\"192.0.2.0/24\", \"2001:db8::/32\"]\negress_domain = \"crawl.aube.example\"",
    );
    let (status, headers, body) =
        request(&config, Request::get("/bot/ranges.json").body(Body::empty()).unwrap(), vec![])
            .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    let json: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        json["prefixes"],
        serde_json::json!([{"ipv4Prefix": "192.0.2.0/24"}, {"ipv6Prefix": "2001:db8::/32"}])
    );
    let created = json["creationTime"].as_str().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(created).is_ok(), "{created}");
    for lang in LANGS {
        let (_, html) = get(&config, &format!("/bot/{lang}"), vec![]).await;
        assert!(html.contains("192.0.2.0/24, 2001:db8::/32"), "{lang}");
        assert!(html.contains("https://aube.example/bot/ranges.json"), "{lang}");
        assert!(html.contains("crawl.aube.example") && html.contains("PTR"), "{lang}");
    }
    let (_, json) = get(&config, "/bot.json", vec![]).await;
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let promises = &json["promises"];
    assert_eq!(promises["egress"], serde_json::json!(["192.0.2.0/24", "2001:db8::/32"]));
    assert_eq!(promises["egress_ranges_url"], "https://aube.example/bot/ranges.json");
    assert_eq!(promises["egress_domain"], "crawl.aube.example");
    // Negative control: no egress, no list, and the page names no list.
    let (status, _) = get(CONFIG, "/bot/ranges.json", vec![]).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, html) = get(CONFIG, "/bot/en", vec![]).await;
    assert!(!html.contains("ranges.json"));
}
