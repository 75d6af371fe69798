//! Integration tests of the configuration: the reference file, and error messages
//! (snapshots, so a change in wording is reviewed like code).

use std::time::Duration;

use gleaner_config::settings::{BudgetKey, OnReservation};
use gleaner_policy::Purpose;

const MINIMAL: &str = r#"
[bot]
token = "UGYBot"
version = "1.0"
info_url = "https://ugy.example/bot"
contact = "bot@ugy.example"
operator = "UGY"
"#;

fn errors(text: &str) -> String {
    gleaner_config::parse(text, "gleaner.toml").unwrap_err().to_string()
}

#[test]
fn reference_example_parses_with_every_key() {
    let text = include_str!("../../../../examples/gleaner.toml");
    let s = gleaner_config::parse(text, "examples/gleaner.toml").unwrap();
    assert_eq!(s.bot.user_agent(), "ExampleBot/1.0 (+https://example.org/bot; bot@example.org)");
    assert_eq!(s.politeness.gap_for(Purpose::EventPage), Duration::from_secs(1));
    assert_eq!(
        s.politeness.purpose[&Purpose::EventPage].jitter,
        Some((Duration::from_millis(150), Duration::from_millis(450)))
    );
    let municipal = s.class_of("mairie.example.fr");
    assert_eq!(municipal.name, "municipal");
    assert_eq!(municipal.quiet_hours.len(), 2);
    assert_eq!(municipal.requests_per_day, Some(60));
    assert_eq!(municipal.gap, Duration::from_secs(2));
    assert_eq!(s.class_of("other.example").name, "default");
    assert_eq!(s.time_zone_of("mairie.example.fr"), chrono_tz::Europe::Paris);
    assert!(!s.purposes.enabled.contains(&Purpose::ImageRelay));
    assert!(s.network.secret_query_params.contains(&"apikey".to_owned()));
}

#[test]
fn defaults_are_the_strictest_seeds() {
    let s = gleaner_config::parse(MINIMAL, "gleaner.toml").unwrap();
    assert_eq!(s.politeness.gap, Duration::from_secs(1));
    assert_eq!(s.politeness.max_in_flight, 1);
    assert_eq!(s.politeness.global_daily_cap, 1500);
    assert_eq!(s.politeness.retry_after_default, Duration::from_secs(60));
    assert_eq!(s.politeness.retry_after_cap, Duration::from_secs(7200));
    assert_eq!(s.politeness.budget_key, BudgetKey::Origin);
    assert_eq!(s.limits.connect_timeout, Duration::from_secs(5));
    assert_eq!(s.limits.response_deadline, Duration::from_secs(15));
    assert_eq!(s.limits.max_body_bytes, 8 * 1024 * 1024);
    assert_eq!(s.limits.max_redirects, 5);
    assert_eq!(s.robots.ttl, Duration::from_secs(3600));
    assert_eq!(s.rights.on_reservation, OnReservation::StopSite);
    assert!(!s.purposes.head_allowed);
    assert!(s.network.allow.is_empty(), "production allows no private range");
    assert_eq!(s.network.max_open_requests, 512);
    assert_eq!(s.network.keep_idle, Some(Duration::from_secs(90)));
    assert_eq!(s.network.max_idle_connections, None, "no cap on idle connections by default");
    assert_eq!(s.retention.events_after_end, Duration::from_secs(30 * 86400));
}

#[test]
fn rights_files_are_read_whenever_the_rights_signal_purpose_is_enabled() {
    // No `[purposes]`: every purpose is enabled, `rights-signal` included, so the files
    // are read and a site reserving its rights in them is honoured.
    let s = gleaner_config::parse(MINIMAL, "gleaner.toml").unwrap();
    assert!(s.purposes.enabled.contains(&Purpose::RightsSignal));
    assert!(s.rights.read_files, "the every-purpose default reads the rights files");

    let off = format!("{MINIMAL}\n[rights]\nread_files = false\n");
    let s = gleaner_config::parse(&off, "gleaner.toml").unwrap();
    assert!(!s.rights.read_files, "`read_files = false` turns them off");

    let listed = format!(
        "{MINIMAL}\n[purposes]\nenabled = [\"robots\", \"event-page\", \"rights-signal\"]\n"
    );
    assert!(gleaner_config::parse(&listed, "gleaner.toml").unwrap().rights.read_files);

    let not_listed = format!("{MINIMAL}\n[purposes]\nenabled = [\"robots\", \"event-page\"]\n");
    let s = gleaner_config::parse(&not_listed, "gleaner.toml").unwrap();
    assert!(!s.rights.read_files, "a profile without `rights-signal` does not read them");

    let forced = format!("{not_listed}\n[rights]\nread_files = true\n");
    assert!(gleaner_config::parse(&forced, "gleaner.toml").unwrap().rights.read_files);
}

#[test]
fn store_copies_need_postgresql_and_plain_schema_names() {
    let pg = "[store]\nurl = \"postgres://gleaner@127.0.0.1/gleaner\"\n";
    let whole = gleaner_config::parse(&format!("{MINIMAL}{pg}"), "g.toml").unwrap();
    assert_eq!(
        (whole.store.schema.as_str(), whole.store.politeness_namespace.as_str()),
        ("public", "public"),
        "one whole store by default"
    );
    let copy = format!("{MINIMAL}{pg}schema = \"staging\"\npoliteness_namespace = \"public\"\n");
    let copy = gleaner_config::parse(&copy, "g.toml").unwrap();
    assert_eq!(copy.store.schema, "staging");
    assert_eq!(copy.store.politeness_namespace, "public");
    let alone = gleaner_config::parse(&format!("{MINIMAL}{pg}schema = \"live\"\n"), "g.toml");
    assert_eq!(alone.unwrap().store.politeness_namespace, "live", "the namespace defaults to it");

    let sqlite = errors(&format!("{MINIMAL}[store]\nschema = \"staging\"\n"));
    assert!(sqlite.contains("store.schema") && sqlite.contains("need PostgreSQL"), "{sqlite}");
    let bad = errors(&format!("{MINIMAL}{pg}politeness_namespace = \"Live; DROP\"\n"));
    assert!(bad.contains("cannot be a schema name") && bad.contains("hint"), "{bad}");
}

#[test]
fn festrobot_user_agent_has_no_contact() {
    let text = MINIMAL.replace("contact = \"bot@ugy.example\"\n", "");
    let s = gleaner_config::parse(&text, "gleaner.toml").unwrap();
    assert_eq!(s.bot.user_agent(), "UGYBot/1.0 (+https://ugy.example/bot)");
}

#[test]
fn error_unknown_key_names_line_and_key() {
    let text = format!("{MINIMAL}\n[politeness]\nmax_in_fligth = 3\n");
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_missing_bot_table() {
    insta::assert_snapshot!(errors("[politeness]\ngap = \"2s\"\n"));
}

#[test]
fn error_bad_values_are_all_reported_in_file_order() {
    let text = format!(
        "{MINIMAL}\n[politeness]\ngap = \"soon\"\nbudget_key = \"host\"\n\n[limits]\nmax_body = \"huge\"\n\n[robots]\nttl = \"48h\"\n\n[site_classes.municipal]\ntime_zone = \"Paris\"\nquiet_hours = [\"8-9\"]\n\n[[sites]]\nhost = \"mairie.example\"\nclass = \"municipale\"\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_bad_token_and_purposes() {
    let text = MINIMAL.replace("token = \"UGYBot\"", "token = \"UGY Bot/1.0\"")
        + "\n[purposes]\nenabled = [\"listing\", \"event_page\"]\nmethods = [\"GET\", \"POST\"]\n";
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_zero_gap_is_refused() {
    let text = format!("{MINIMAL}\n[politeness]\ngap = \"0s\"\n");
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_syntax() {
    insta::assert_snapshot!(errors("[bot\ntoken = \"x\"\n"));
}

#[test]
fn sources_resolve_with_defaults() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"salle-agenda\"\nkind = \"listing\"\nstart_urls = [\"https://salle.example/agenda/\"]\nevent_selector = \"a.event\"\nevery = \"6h\"\nkeep = \"full\"\ntime_zone = \"Europe/Paris\"\n"
    );
    let s = gleaner_config::parse(&text, "gleaner.toml").unwrap();
    let source = &s.sources[0];
    assert_eq!(source.id, "salle-agenda");
    assert_eq!(
        source.schedule,
        gleaner_config::sources::Schedule::Every(Duration::from_secs(6 * 3600))
    );
    assert_eq!(source.keep, gleaner_config::sources::Keep::Full);
    assert!(source.publish);
    assert_eq!(source.max_listing_pages, 5);
}

#[test]
fn the_generic_fallback_is_on_unless_a_source_turns_it_off() {
    let source = |extra: &str| {
        let text = format!(
            "{MINIMAL}\n[[sources]]\nid = \"salle\"\nkind = \"listing\"\nstart_urls = [\"https://salle.example/agenda/\"]\nevent_selector = \"a.event\"\n{extra}"
        );
        gleaner_config::parse(&text, "gleaner.toml").unwrap().sources[0].fallback
    };
    assert!(source(""), "on by default");
    assert!(!source("fallback = false\n"));
    assert!(source("fallback = true\n"));
}

#[test]
fn error_sources() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"a\"\nkind = \"listing\"\nstart_urls = [\"ftp://x.example/\"]\nevery = \"5m\"\n\n[[sources]]\nid = \"a\"\nkind = \"podcast\"\nstart_urls = []\nsite_class = \"nope\"\n\n[[sources]]\nid = \"f\"\nkind = \"open-data\"\nstart_urls = [\"https://x.example/api\"]\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn spec_checks_default_to_four_hours_and_seven_days() {
    let s = gleaner_config::parse(MINIMAL, "gleaner.toml").unwrap();
    assert_eq!(s.checks.cancellation_every, Duration::from_secs(4 * 3600));
    assert_eq!(s.checks.horizon_days, 7);
    assert!(!s.checks.cancellation_head);
    assert_eq!(s.checks.link_check_every, Duration::from_secs(24 * 3600));
    assert_eq!(s.checks.link_checks_per_host_per_day, 100);
}

#[test]
fn error_checks() {
    let text = format!(
        "{MINIMAL}\n[checks]\ncancellation_every = \"0s\"\nhorizon = \"36h\"\ncancellation_method = \"head-then-get\"\nlink_checks_per_host_per_day = 0\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_json_api_needs_a_mapping() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"api\"\nkind = \"json-api\"\nstart_urls = [\"https://x.example/api\"]\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_json_api_mapping_typo() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"api\"\nkind = \"json-api\"\nstart_urls = [\"https://x.example/api\"]\n[sources.api]\nevents = \"/events\"\ntitel = \"/title\"\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn error_licensed_and_open_data_sources_without_what_they_need() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"tickets\"\nkind = \"licensed-api\"\nstart_urls = [\"https://api.x.example/v1/events\"]\n\
         api_gap = \"soon\"\n[sources.api]\nevents = \"/events\"\n\n\
         [[sources]]\nid = \"data\"\nkind = \"open-data\"\nstart_urls = [\"https://data.x.example/a.csv\"]\n\n\
         [[sources]]\nid = \"agenda\"\nkind = \"listing\"\nstart_urls = [\"https://x.example/agenda/\"]\npage_param = \"page\"\napi_key_env = \"KEY\"\n"
    );
    insta::assert_snapshot!(errors(&text));
}

#[test]
fn a_licensed_api_key_parameter_is_a_secret_and_its_key_comes_from_the_lookup() {
    let text = format!(
        "{MINIMAL}\n[[sources]]\nid = \"tickets\"\nkind = \"licensed-api\"\nstart_urls = [\"https://api.x.example/v1/events\"]\n\
         api_key_env = \"TICKETS_KEY\"\napi_key_param = \"token\"\napi_gap = \"6s\"\npage_param = \"p\"\nfirst_page = 1\n[sources.api]\nevents = \"/events\"\n"
    );
    let mut s = gleaner_config::parse(&text, "t.toml").unwrap();
    assert!(s.network.secret_query_params.contains(&"token".to_owned()));
    let url = url::Url::parse("https://api.x.example/v1/events?p=2").unwrap();
    let other = url::Url::parse("https://elsewhere.example/v1/events").unwrap();
    let licensed = s.licensed_api_for("tickets", &url).expect("the API's own site");
    assert_eq!(licensed.gap, std::time::Duration::from_secs(6));
    assert!(s.licensed_api_for("tickets", &other).is_none(), "only the API's own site");
    assert!(s.licensed_api_for("someone-else", &url).is_none(), "only that source");
    assert_eq!(s.load_api_keys(|_| None), vec!["TICKETS_KEY".to_owned()]);
    assert!(s.load_api_keys(|name| (name == "TICKETS_KEY").then(|| "k".into())).is_empty());
    let key = s.sources[0].licensed.as_ref().unwrap().key.as_ref().unwrap();
    assert_eq!(key.expose(), "k");
    assert_eq!(
        format!("{:?}", s.sources[0].licensed),
        format!("{:?}", s.sources[0].licensed).replace("\"k\"", "REDACTED")
    );
}

/// `[llm]` and a source's `llm` (issue 18): the model server is an `[[infrastructure]]`
/// entry; sources that use a model need `[llm]`; every mistake names its key.
#[test]
fn llm_settings_resolve_and_their_mistakes_name_the_key() {
    let infra = "\n[[infrastructure]]\nname = \"local-llm\"\nurl = \"http://127.0.0.1:8080/v1/\"\nallow = [\"127.0.0.1/32\"]\n";
    let source = |llm: &str, translate: bool| {
        format!(
            "\n[[sources]]\nid = \"venue\"\nkind = \"listing\"\nstart_urls = [\"https://venue.example/\"]\nllm = \"{llm}\"\ntranslate = {translate}\n"
        )
    };
    let ok = format!(
        "{MINIMAL}{infra}\n[llm]\nendpoint = \"local-llm\"\nmodel = \"qwen\"\n{}",
        source("fallback", true)
    );
    let s = gleaner_config::parse(&ok, "gleaner.toml").unwrap();
    let llm = s.llm.as_ref().unwrap();
    assert_eq!((llm.endpoint.name.as_str(), llm.model.as_str()), ("local-llm", "qwen"));
    assert_eq!((llm.requests_per_minute, llm.max_retries, llm.max_page_chars), (30, 3, 12_000));
    assert_eq!(llm.max_retry_wait, Duration::from_secs(60));
    assert_eq!(s.sources[0].llm, gleaner_config::llm::LlmMode::Fallback);
    // Off by default, and no [llm] needed then.
    let plain = format!(
        "{MINIMAL}\n[[sources]]\nid = \"v\"\nkind = \"listing\"\nstart_urls = [\"https://v.example/\"]\n"
    );
    let s = gleaner_config::parse(&plain, "gleaner.toml").unwrap();
    assert_eq!(s.sources[0].llm, gleaner_config::llm::LlmMode::Off);
    assert!(s.llm.is_none());

    let cases = [
        (format!("{MINIMAL}{}", source("always", false)), "there is no `[llm]` table"),
        (format!("{MINIMAL}{}", source("off", true)), "there is no `[llm]` table"),
        (
            format!(
                "{MINIMAL}{infra}\n[llm]\nendpoint = \"local-llm\"\nmodel = \"q\"\n{}",
                source("sometimes", false)
            ),
            "sources[0].llm",
        ),
        (
            format!("{MINIMAL}{infra}\n[llm]\nendpoint = \"gpu-box\"\nmodel = \"q\"\n"),
            "no `[[infrastructure]]` entry is named `gpu-box`",
        ),
        (format!("{MINIMAL}{infra}\n[llm]\nendpoint = \"local-llm\"\n"), "llm.model"),
        (
            format!(
                "{MINIMAL}{infra}\n[llm]\nendpoint = \"local-llm\"\nmodel = \"q\"\nrequests_per_minute = 0\n"
            ),
            "llm.requests_per_minute",
        ),
        (
            format!(
                "{MINIMAL}{infra}\n[llm]\nendpoint = \"local-llm\"\nmodel = \"q\"\ntemperature = 1\n"
            ),
            "temperature",
        ),
    ];
    for (text, wanted) in cases {
        let e = errors(&text);
        assert!(e.contains(wanted), "`{wanted}` not in\n{e}");
    }
}

#[test]
fn bot_egress_ranges_and_domain_are_checked_with_their_key_path() {
    let base = "[bot]\ntoken = \"TestBot\"\nversion = \"1\"\ninfo_url = \"https://t.example/bot\"\noperator = \"T\"\n";
    let ok = gleaner_config::parse(
        &format!("{base}egress = [\"192.0.2.0/24\", \"2001:db8::/32\", \"198.51.100.7\"]\negress_domain = \"Crawl.T.example.\"\n"),
        "t.toml",
    )
    .unwrap();
    let ranges: Vec<String> = ok.bot.egress.iter().map(ToString::to_string).collect();
    assert_eq!(ranges, ["192.0.2.0/24", "2001:db8::/32", "198.51.100.7/32"]);
    assert_eq!(ok.bot.egress_domain.as_deref(), Some("crawl.t.example"));
    let e = errors(&format!("{base}egress = [\"192.0.2.0/24\", \"192.0.2.0/33\"]\n"));
    assert!(
        e.contains("bot.egress[1]") && e.contains("`192.0.2.0/33` is not an address range"),
        "{e}"
    );
    for bad in ["https://crawl.t.example/", "localhost", "192.0.2.1", "a..example"] {
        let e = errors(&format!("{base}egress_domain = \"{bad}\"\n"));
        assert!(e.contains("bot.egress_domain") && e.contains("not a domain name"), "{bad}: {e}");
    }
    // `address_ranges` was renamed to `egress` everywhere: the old key is refused by name.
    let e = errors(&format!("{base}address_ranges = [\"192.0.2.0/24\"]\n"));
    assert!(e.contains("address_ranges"), "{e}");
}

#[test]
fn max_open_requests_is_read_and_zero_is_refused_with_the_default_named() {
    let s =
        gleaner_config::parse(&format!("{MINIMAL}\n[network]\nmax_open_requests = 64\n"), "g.toml")
            .unwrap();
    assert_eq!(s.network.max_open_requests, 64);
    let error = errors(&format!("{MINIMAL}\n[network]\nmax_open_requests = 0\n"));
    assert!(error.contains("network.max_open_requests"), "{error}");
    assert!(error.contains("at least 1") && error.contains("512"), "{error}");
}

#[test]
fn max_idle_connections_is_read_and_zero_is_refused_with_keep_idle_named() {
    let parse = |v: &str| {
        gleaner_config::parse(
            &format!("{MINIMAL}\n[network]\nmax_idle_connections = {v}\n"),
            "g.toml",
        )
    };
    assert_eq!(parse("1024").unwrap().network.max_idle_connections, Some(1024));
    let error = errors(&format!("{MINIMAL}\n[network]\nmax_idle_connections = 0\n"));
    assert!(error.contains("network.max_idle_connections"), "{error}");
    assert!(error.contains("at least 1") && error.contains("keep_idle"), "{error}");
}

#[test]
fn keep_idle_is_read_zero_closes_each_connection_and_a_day_is_refused() {
    let parse = |v: &str| {
        gleaner_config::parse(&format!("{MINIMAL}\n[network]\nkeep_idle = \"{v}\"\n"), "g.toml")
    };
    assert_eq!(parse("2s").unwrap().network.keep_idle, Some(Duration::from_secs(2)));
    assert_eq!(parse("0s").unwrap().network.keep_idle, None);
    let error = errors(&format!("{MINIMAL}\n[network]\nkeep_idle = \"1d\"\n"));
    assert!(error.contains("network.keep_idle") && error.contains("1h"), "{error}");
}
