//! `gleaner demo`: the bundled sample city on loopback, crawled politely with real
//! spacing into SQLite under `./gleaner-demo/`, then served: `/bot` (the about page
//! generated from the demo's config) and `/api/events`. Nothing leaves 127.0.0.0/8.
//!
//! The demo writes the config it runs with to `gleaner-demo/gleaner.toml`, so what the
//! about page says can be read next to what produced it.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_samplecity::{City, SeedKind, bind_city};
use gleaner_server::AppState;

use crate::cmd::crawl::{crawl_all, print_summary};
use crate::wiring::{StoreEvents, crawler, open_store};

/// Arguments of `gleaner demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Where the demo keeps its database and config.
    #[arg(long, value_name = "DIR", default_value = "gleaner-demo")]
    dir: PathBuf,
    /// Address of the demo's server (port 0 picks a free one).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Gap between two requests to one sample site, as in a real deployment.
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    gap: String,
    /// Crawl, print the summary, and exit without serving.
    #[arg(long)]
    no_serve: bool,
}

/// The demo's configuration: the sample city's listings as sources, loopback allowed.
fn demo_config(
    city: &City,
    origins: &gleaner_samplecity::Origins,
    db: &Path,
    listen: SocketAddr,
    gap: &str,
) -> String {
    let mut text = format!(
        "# Written by `gleaner demo`: the configuration the demo crawled and served with.\n\
         [bot]\ntoken = \"{token}\"\nversion = \"{version}\"\ninfo_url = \"http://{listen}/bot\"\n\
         operator = \"the gleaner demo\"\nlanguages = [\"en\"]\n\n\
         [politeness]\ngap = \"{gap}\"\nmax_in_flight = 1\n\n\
         [politeness.purpose.event-page]\njitter = [\"0ms\", \"150ms\"]\n\n\
         [network]\n# The sample city lives on loopback; a real deployment allows no private range.\nallow = [\"127.0.0.0/8\"]\n\n\
         [store]\nurl = \"sqlite://{db}\"\n",
        token = city.token(),
        version = env!("CARGO_PKG_VERSION"),
        db = db.display(),
    );
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::JsonApi) {
        let site = city.site(seed.site);
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}-api\"\nkind = \"json-api\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\n\
             [sources.api]\nevents = \"/events\"\nid = \"/id\"\ntitle = \"/title\"\nstart = \"/start\"\nend = \"/end\"\n\
             url = \"/url\"\nimage = \"/image\"\nstatus = \"/status\"\nvenue = \"/venue\"\nvenue_name = \"/name\"\n\
             street = \"/address\"\npostal_code = \"/postal_code\"\nlocality = \"/city\"\ncountry = \"/country\"\n",
            key = site.key,
            url = seed.url,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::ICalendar) {
        let site = city.site(seed.site);
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}-agenda\"\nkind = \"ical\"\nstart_urls = [\"{url}\"]\nkeep = \"full\"\ntime_zone = \"{zone}\"\n",
            key = site.key,
            url = seed.url,
            zone = site.zone,
        ));
    }
    for seed in city.seeds(origins).into_iter().filter(|s| s.kind == SeedKind::Listing) {
        let site = city.site(seed.site);
        let prefix = url::Url::parse(&seed.url).map(|u| u.path().to_owned()).unwrap_or_default();
        text.push_str(&format!(
            "\n[[sources]]\nid = \"{key}\"\nkind = \"listing\"\nstart_urls = [\"{url}\"]\nevent_url_prefix = \"{prefix}\"\n\
             keep = \"full\"\ntime_zone = \"{zone}\"\nmax_event_pages = 30\n",
            key = site.key,
            url = seed.url,
            zone = site.zone,
        ));
    }
    // Venues without structured data are read with per-site rules (issue 10).
    text.push_str(&crate::cmd::extract::sample_city_rules(city, origins));
    text
}

/// Runs `gleaner demo`.
pub fn run(args: &DemoArgs) -> Result<()> {
    let runtime = tokio::runtime::Runtime::new().context("failed to start the async runtime")?;
    runtime.block_on(demo(args))
}

async fn demo(args: &DemoArgs) -> Result<()> {
    std::fs::create_dir_all(&args.dir)
        .with_context(|| format!("failed to create `{}`", args.dir.display()))?;
    let started = Instant::now();
    let city = City::generate(7, chrono::Utc::now()).with_token(gleaner_samplecity::DEFAULT_TOKEN);
    let listeners = bind_city(&city)
        .await
        .context("failed to bind the sample city on 127.0.60.x (is the loopback range usable?)")?;
    let origins = listeners.origins();
    let server_listener = tokio::net::TcpListener::bind(args.listen).await.with_context(|| {
        format!(
            "failed to listen on `{}`\nhint: pass --listen 127.0.0.1:0 to pick a free port",
            args.listen
        )
    })?;
    let listen = server_listener.local_addr()?;
    let db = args.dir.join("gleaner.db");
    let config_text = demo_config(&city, &origins, &db, listen, &args.gap);
    let config_path = args.dir.join("gleaner.toml");
    std::fs::write(&config_path, &config_text)
        .with_context(|| format!("failed to write `{}`", config_path.display()))?;
    let settings = Arc::new(
        gleaner_config::parse(&config_text, &config_path.display().to_string())
            .map_err(|e| anyhow::anyhow!("{e}"))?,
    );
    let city = Arc::new(city);
    let (stop_city, city_stopped) = tokio::sync::oneshot::channel::<()>();
    let city_task =
        tokio::spawn(gleaner_samplecity::serve(listeners, Arc::clone(&city), async move {
            let _ = city_stopped.await;
        }));

    println!(
        "sample city: {} sites on 127.0.60.x, crawled as `{}` with a {} gap per site",
        city.len(),
        settings.bot.token,
        args.gap
    );
    let store = open_store(&settings)?;
    let reports = {
        let crawler = crawler(Arc::clone(&settings), store.clone()).await?;
        let reports = crawl_all(&crawler, &settings.sources, true).await;
        crawler.store.flush_audit().await.map_err(|e| anyhow::anyhow!("{e}"))?;
        reports
    };
    print_summary(&reports, started.elapsed())?;
    if args.no_serve {
        let _ = stop_city.send(());
        let _ = city_task.await;
        return Ok(());
    }
    let state = AppState {
        settings: Arc::clone(&settings),
        events: crate::relay_wiring::relayed(
            StoreEvents { store: store.clone(), settings: Arc::clone(&settings) },
            &store,
            &settings,
        )
        .await?,
    };
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "about page:  http://{listen}/bot")?;
        writeln!(out, "events page: http://{listen}/events")?;
        writeln!(out, "calendar:    http://{listen}/events.ics")?;
        writeln!(out, "metrics:     http://{listen}/metrics")?;
        writeln!(out, "events:      http://{listen}/api/events")?;
        writeln!(out, "config:      {}", config_path.display())?;
        writeln!(out, "press Ctrl-C to stop")?;
        out.flush()?;
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    gleaner_server::serve(server_listener, state, shutdown).await.context("the server stopped")?;
    let _ = stop_city.send(());
    let _ = city_task.await;
    println!("stopped");
    Ok(())
}
