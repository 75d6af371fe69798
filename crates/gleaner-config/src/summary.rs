//! What `gleaner config check` says of a valid file: the promises it makes (who the
//! bot is, the politeness numbers, the checks, the store) and the requests per site per
//! day its schedules imply. Text only; the binary prints it.

use std::fmt::Write;
use std::path::Path;

use gleaner_policy::Purpose;

use crate::Settings;
use crate::budget_check::BudgetReport;
use crate::settings::StoreSettings;

/// The summary `gleaner config check` prints of a valid file at `path`: who the bot is
/// and the politeness numbers it promises.
pub fn summary(path: &Path, s: &Settings) -> String {
    let mut out = String::new();
    let secs = |d: std::time::Duration| humantime::format_duration(d).to_string();
    let _ = writeln!(out, "ok: `{}` is valid", path.display());
    let _ = writeln!(out, "user-agent:        {}", s.bot.user_agent());
    let _ = writeln!(out, "robots.txt token:  {}", s.bot.token);
    let _ = writeln!(out, "gap per site:      {}", secs(s.politeness.gap));
    for (purpose, p) in &s.politeness.purpose {
        if let Some(gap) = p.gap {
            let _ = writeln!(out, "  {purpose}: gap {}", secs(gap));
        }
        if let Some((min, max)) = p.jitter {
            let _ = writeln!(out, "  {purpose}: jitter {}..{}", secs(min), secs(max));
        }
        if let Some(n) = p.max_in_flight {
            let _ = writeln!(out, "  {purpose}: at most {n} in flight");
        }
    }
    let _ = writeln!(out, "in flight per site: {}", s.politeness.max_in_flight);
    let _ = writeln!(out, "daily cap (all):   {}", s.politeness.global_daily_cap);
    let _ = writeln!(
        out,
        "retry-after:       default {}, capped at {}",
        secs(s.politeness.retry_after_default),
        secs(s.politeness.retry_after_cap)
    );
    let _ = writeln!(
        out,
        "limits:            connect {}, response {}, body {} bytes, {} redirects",
        secs(s.limits.connect_timeout),
        secs(s.limits.response_deadline),
        s.limits.max_body_bytes,
        s.limits.max_redirects
    );
    let _ = writeln!(out, "robots.txt cache:  {}", secs(s.robots.ttl));
    let purposes: Vec<&str> = s.purposes.enabled.iter().map(|p| p.as_str()).collect();
    let _ = writeln!(out, "purposes:          {}", purposes.join(", "));
    let _ = writeln!(
        out,
        "methods:           GET{}",
        if s.purposes.head_allowed { ", HEAD" } else { "" }
    );
    for class in s.site_classes.values() {
        let quiet: Vec<String> = class
            .quiet_hours
            .iter()
            .map(|q| format!("{}-{}", q.start.format("%H:%M"), q.end.format("%H:%M")))
            .collect();
        let _ = writeln!(
            out,
            "class `{}`: zone {}, gap {}, quiet hours [{}], per pass {:?}, per hour {:?}, per day {:?}, visits per day {:?}",
            class.name,
            class.time_zone,
            secs(class.gap),
            quiet.join(", "),
            class.requests_per_pass,
            class.requests_per_hour,
            class.requests_per_day,
            class.visits_per_day
        );
    }
    out
}

/// The checks, the store and the requests and visits per site per day the schedules and
/// checks imply (SPEC §4, "Config check"); the warnings are `report.warnings`.
pub fn budget(s: &Settings, report: &BudgetReport) -> String {
    let mut out = String::new();
    let enabled = |p: Purpose| s.purposes.enabled.contains(&p);
    let cancellation = if enabled(Purpose::CancellationCheck) {
        format!(
            "every {}, today to +{} days{}",
            humantime::format_duration(s.checks.cancellation_every),
            s.checks.horizon_days,
            if s.checks.cancellation_head { ", HEAD first" } else { "" }
        )
    } else {
        "off".to_owned()
    };
    let link = if enabled(Purpose::LinkCheck) {
        format!(
            "every {}, at most {} per host per day",
            humantime::format_duration(s.checks.link_check_every),
            s.checks.link_checks_per_host_per_day
        )
    } else {
        "off".to_owned()
    };
    let _ = writeln!(out, "cancellation check: {cancellation}");
    let _ = writeln!(out, "link check:        {link}");
    let _ = writeln!(out, "store:             {}", store_line(&s.store));
    if !report.sites.is_empty() {
        let _ = writeln!(out, "per site per day (at most):");
    }
    for site in &report.sites {
        let _ = writeln!(
            out,
            "  {} (class `{}`): {} requests, {} visits: {} passes ({} requests), {} cancellation cycles ({} requests), {} link checks, {} robots.txt",
            site.host,
            site.class,
            site.requests(),
            site.visits(),
            site.passes,
            site.pass_requests,
            site.cancellation_cycles,
            site.cancellation_requests,
            site.link_check_requests,
            site.robots_requests
        );
    }
    if !report.sites.is_empty() {
        let _ = writeln!(
            out,
            "all sites per day: {} requests (global cap {}; these schedules need a cap of {})",
            report.total,
            s.politeness.global_daily_cap,
            report.cap_needed()
        );
    }
    out
}

/// Where the store is and, on PostgreSQL, who shares its budgets (the password left out).
fn store_line(store: &StoreSettings) -> String {
    let url = match url::Url::parse(&store.url) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            url.to_string()
        }
        _ => store.url.clone(),
    };
    if store.schema != store.politeness_namespace {
        format!(
            "{url}, copy `{}` sharing every site's budget with the copies of namespace `{}`",
            store.schema, store.politeness_namespace
        )
    } else if store.schema != "public" {
        format!("{url}, schema `{}`", store.schema)
    } else {
        url
    }
}
