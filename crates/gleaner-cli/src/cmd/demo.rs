//! `gleaner demo`: the bundled sample city on loopback, crawled politely with real
//! spacing into SQLite under `./gleaner-demo/`, then served: `/bot` (the about page
//! generated from the demo's config) and `/api/events`. Nothing leaves 127.0.0.0/8.
//!
//! The demo writes the config it runs with to `gleaner-demo/gleaner.toml`, so what the
//! about page says can be read next to what produced it.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;
use gleaner_samplecity::demo::{DEMO_KEY_ENV, demo_config};
use gleaner_samplecity::{City, bind_city};
use gleaner_server::start;

use crate::cmd::crawl::{crawl_all, print_summary};
use crate::wiring::{app_state, crawler, open_store, proof_gate, server_part};

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
    let config_text =
        demo_config(&city, &origins, &db, listen, &args.gap, env!("CARGO_PKG_VERSION"));
    let config_path = args.dir.join("gleaner.toml");
    let key_path = args.dir.join("identity.pem");
    if !key_path.exists() {
        crate::cmd::identity::write_new_key(&key_path)?;
    }
    std::fs::write(&config_path, &config_text)
        .with_context(|| format!("failed to write `{}`", config_path.display()))?;
    let mut settings = gleaner_config::parse(&config_text, &config_path.display().to_string())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    settings.load_api_keys(|name| {
        std::env::var(name).ok().or_else(|| {
            (name == DEMO_KEY_ENV).then(|| gleaner_samplecity::DEFAULT_API_KEY.to_owned())
        })
    });
    crate::cmd::config::load_identity(&mut settings, &config_path)?;
    let settings = Arc::new(settings);
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
    let state = app_state(&settings, &store).await?;
    let gate = proof_gate(&settings, &store).await?;
    let (desk, desk_lines, stop_dashboard) =
        server_part(start::demo(&settings, &store, &state, gate, listen).await)?;
    {
        let mut out = std::io::stdout().lock();
        for line in &desk_lines {
            writeln!(out, "{line}")?;
        }
        writeln!(out, "config:      {}", config_path.display())?;
        writeln!(out, "press Ctrl-C to stop")?;
        out.flush()?;
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    start::serve_public(server_listener, state, desk, shutdown)
        .await
        .context("the server stopped")?;
    let _ = stop_dashboard.send(true);
    let _ = stop_city.send(());
    let _ = city_task.await;
    println!("stopped");
    Ok(())
}
