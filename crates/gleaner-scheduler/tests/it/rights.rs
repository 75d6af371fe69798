//! Site rights files from the sites' side: read after robots.txt and before any page,
//! once per `[rights] files_ttl`, never from a site whose robots.txt disallows
//! everything. (A reservation stopping the site: the CIXTRA-Bot profile test in the CLI.)

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use gleaner_fetch::gate::audit::MemoryAudit;
use gleaner_fetch::gate::clock::WallClock;
use gleaner_fetch::gate::registry::MemoryRegistry;
use gleaner_fetch::gate::state::MemoryState;
use gleaner_fetch::{Client, ClientSettings, Gate};
use gleaner_scheduler::{MemorySink, PassContext, run_pass};
use gleaner_testweb::{Manifest, RobotsScenario, SiteSpec, TestWeb};

#[derive(Debug, Default)]
struct Clock(Mutex<Duration>);

impl WallClock for Clock {
    fn now(&self) -> SystemTime {
        SystemTime::now() + *self.0.lock().unwrap()
    }
}

#[tokio::test]
async fn rights_files_are_read_once_per_ttl_and_never_past_a_disallow_all() {
    let web = TestWeb::start(
        Manifest::new(vec![
            SiteSpec { events: 2, ..SiteSpec::default() },
            SiteSpec { events: 2, ..SiteSpec::with_robots(RobotsScenario::DisallowAll) },
        ])
        .with_token("TestBot"),
    )
    .await
    .unwrap();
    let mut text = String::from(
        "[bot]\ntoken = \"TestBot\"\nversion = \"1.0\"\ninfo_url = \"https://bot.example/about\"\noperator = \"Tests\"\n\n\
         [politeness]\ngap = \"50ms\"\n\n[network]\nallow = [\"127.0.0.0/8\"]\n\n\
         [robots]\nttl = \"24h\"\n\n[rights]\nfiles_ttl = \"1h\"\n\n\
         [purposes]\nenabled = [\"robots\", \"listing\", \"event-page\", \"rights-signal\"]\n",
    );
    for site in 0..2 {
        text.push_str(&format!(
            "\n[[sources]]\nid = \"site-{site}\"\nkind = \"listing\"\nstart_urls = [\"{}\"]\nevent_url_prefix = \"/events/\"\n",
            web.url(site, "/events/")
        ));
    }
    let settings = Arc::new(gleaner_config::parse(&text, "t.toml").unwrap());
    assert!(settings.rights.read_files, "listing rights-signal reads the files");
    let clock = Arc::new(Clock::default());
    let gate = Gate::new(
        Client::new(ClientSettings::from_settings(&settings)).unwrap(),
        Arc::clone(&settings),
        Arc::new(MemoryState::default()),
        Arc::new(MemoryRegistry::default()),
        Arc::new(MemoryAudit::default()),
        clock.clone(),
    );
    let sink = Arc::new(MemorySink::default());
    let ctx = PassContext {
        gate: Arc::new(gate),
        sink: sink.clone(),
        clock: clock.clone(),
        settings: Arc::clone(&settings),
        stop: Arc::default(),
    };
    let far = || SystemTime::now() + Duration::from_secs(7200);
    let pass = |ctx: &PassContext| {
        let (ctx, sources) = (ctx.clone(), settings.sources.clone());
        async move {
            for source in &sources {
                tokio::time::timeout(
                    Duration::from_secs(30),
                    run_pass(&ctx, source, far(), &|_| {}),
                )
                .await
                .unwrap();
            }
        }
    };
    pass(&ctx).await;
    pass(&ctx).await;
    let ledger = web.ledger();
    assert_eq!(ledger.count(0, "/.well-known/tdmrep.json"), 1, "two passes, one read");
    assert_eq!(ledger.count(0, "/ai.txt"), 1);
    assert!(ledger.fetched(0, "/events/1.html"), "positive control: pages read after them");
    let first_page = ledger.site(0).position(|e| e.path.starts_with("/events/")).unwrap();
    let rights_at = ledger.site(0).position(|e| e.path == "/ai.txt").unwrap();
    assert!(rights_at < first_page, "rights files before the first page");
    ledger.check_robots_first().unwrap();
    assert!(ledger.fetched(1, "/robots.txt"));
    assert_eq!(
        ledger.site(1).filter(|e| !e.is_robots()).count(),
        0,
        "disallow-all: robots.txt only"
    );

    *clock.0.lock().unwrap() += Duration::from_secs(3601);
    pass(&ctx).await;
    assert_eq!(web.ledger().count(0, "/ai.txt"), 2, "read again once the TTL ran out");
    web.shutdown().await;
}
