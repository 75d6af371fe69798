//! A manual check's own rules (`gleaner fetch`, `gleaner extract URL`, `gleaner
//! discover`), on top of the gate's: a daily cap per site (`[purposes]
//! manual_checks_per_site_per_day`), counted in the audit log in the site's zone, and,
//! under `rights.on_reservation = "stop-site"`, no check of a site whose rights files
//! reserve its rights.

use std::sync::Arc;
use std::time::SystemTime;

use gleaner_config::{Settings, redact_url};
use gleaner_fetch::{Gate, GateRequest, site_key};
use gleaner_policy::Purpose;
use gleaner_policy::budget::local_date;
use gleaner_store::Store;
use url::Url;

use crate::StoreSink;

/// Manual checks of `url`'s site recorded today (in the site's zone).
pub async fn checks_today(store: &Store, settings: &Settings, url: &Url) -> u32 {
    let Some(host) = url.host_str() else { return 0 };
    let Ok(scope) = gleaner_store::parse_scope(host) else { return 0 };
    let zone = settings.time_zone_of(&host.to_ascii_lowercase());
    let today = local_date(SystemTime::now(), zone);
    let site = site_key(url);
    let of_today = |r: &&gleaner_store::AuditEntry| {
        r.purpose == Some(Purpose::ManualCheck)
            && r.site == site
            && r.outcome.status().is_some()
            && local_date(r.time, zone) == today
    };
    let rows = store.audit_for(&scope, 10_000).await;
    rows.map(|rows| rows.iter().filter(of_today).count() as u32).unwrap_or(0)
}

/// Whether a manual check of `request` may go to the gate: `Err` with the refusal when
/// the site's daily cap is used up, or when the site is stopped on a reservation (its
/// rights files read through the gate as a pass would, and the refusal audited).
pub async fn may_check(
    gate: &Gate,
    store: &Store,
    settings: &Arc<Settings>,
    request: &GateRequest,
) -> Result<(), String> {
    let url = &request.url;
    let cap = settings.purposes.manual_checks_per_site_per_day;
    let done_today = checks_today(store, settings, url).await;
    if done_today >= cap {
        return Err(format!(
            "{done_today} manual checks of `{}` today already (the cap is {cap} a day)",
            site_key(url)
        ));
    }
    let sink = StoreSink::new(store.clone(), Arc::clone(settings));
    let now = gate.clock().now();
    let Some(stop) = crate::rights::site_stopped(gate, &sink, settings, url, now, None).await
    else {
        return Ok(());
    };
    let reason = format!("site stopped on reservation: {stop}");
    gate.record_refusal(request, reason.clone());
    let shown = redact_url(url, &settings.network.secret_query_params, &[]);
    Err(format!("not fetching `{shown}`: {reason} (`rights.on_reservation` is `stop-site`)"))
}
