//! The operator dashboard (issue 15, item 4), served on its own listener (`[server]
//! dashboard_address`, 127.0.0.1 by default) and only with an operator token (`[dashboard]
//! token` or the variable `[server] dashboard_token_env` names; there is no default, and
//! [`router`] refuses to build without one).
//!
//! Pages: sources (last run, status, next run, events, errors), sites (suspensions,
//! blocks, robots.txt state, owners' overrides), recent requests, a chart of requests per
//! site and purpose over time (inline SVG, `chart.rs`), owners' submissions (an unproven
//! removal waiting longer than `[owners] removal_within` is marked overdue and listed
//! first, issue 25; `/metrics` counts them). Actions, all
//! POST forms with a CSRF token: pause or resume a source, run one now (the scheduler
//! starts the pass, through the gate as always), record a removal, a takedown or an
//! override, carry out or decline a queued removal. There is deliberately no way to clear
//! a suspension or a block: a site's "no" ends when the site says so.
//!
//! Login: the token in a form (or `Authorization: Bearer`), at most
//! [`crate::desk::LOGIN_FAILURES`] wrong ones per client per quarter hour; a session
//! (`HttpOnly`, `SameSite=Strict` cookie naming a session the desk holds) lasts 12 hours,
//! and signing out or a new operator token ends it everywhere.

pub mod chart;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use chrono::{DateTime, Utc};
use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_policy::robots::outcome::RobotsState;
use gleaner_store::{AuditEntry, OwnerSubmission};

use crate::about::escape;
use crate::desk::{OwnerDesk, same};
use crate::desk_store::SubmissionStatus;
use crate::owners::{csrf_for, read_scope, scope_text};
use crate::site_page::refused;

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "gleaner_dash";
/// How long a session lasts.
pub const SESSION: Duration = Duration::from_secs(12 * 3600);
/// Audit rows read for the requests, errors and chart.
const AUDIT_ROWS: u32 = 20_000;
/// Days in the chart.
pub const CHART_DAYS: u32 = 14;
/// Owners' submissions shown on their page.
const SUBMISSION_ROWS: usize = 500;
/// Owners' submissions read to find the overdue ones (the oldest are the overdue ones,
/// so the page's limit is not enough).
const SUBMISSIONS_READ: u32 = 100_000;

/// Whether `s` is a removal still waiting for the operator longer than the about page
/// promises (`[owners] removal_within`; never without that promise).
pub fn is_overdue(s: &OwnerSubmission, within: Option<Duration>, now: SystemTime) -> bool {
    s.kind == "removal"
        && s.status == "pending"
        && within.is_some_and(|w| now.duration_since(s.created).is_ok_and(|age| age > w))
}

/// How many removals wait longer than promised ([`is_overdue`]), for `/metrics`.
pub async fn overdue_removals(
    desk: &OwnerDesk,
    now: SystemTime,
) -> Result<u64, gleaner_store::StoreError> {
    let within = desk.settings.owners.removal_within;
    let list = desk.store.submissions(SUBMISSIONS_READ).await?;
    Ok(list.iter().filter(|s| is_overdue(s, within, now)).count() as u64)
}

/// The dashboard's routes. Fails with a message saying what to set when the desk has no
/// operator token (no default password).
pub fn router(desk: Arc<OwnerDesk>) -> Result<Router, String> {
    if desk.operator_token().is_none() {
        return Err(format!(
            "the dashboard needs an operator token and has none: set the environment variable `{}` \
             (or `[dashboard] token`) to a long random value, e.g. `openssl rand -hex 24`, or set \
             `[dashboard] enabled = false`",
            desk.settings.server.dashboard_token_env
        ));
    }
    let guarded = Router::new()
        .route("/", get(sources_page))
        .route("/sites", get(sites_page))
        .route("/requests", get(requests_page))
        .route("/chart", get(chart_page))
        .route("/submissions", get(submissions_page))
        .route("/sources/{id}/{action}", post(source_action))
        .route("/actions/{action}", post(record_action))
        .route("/submissions/{reference}/{action}", post(submission_action))
        .route("/logout", post(logout))
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&desk), require_session));
    Ok(Router::new()
        .route("/login", get(login_page).post(login))
        .merge(guarded)
        .layer(axum::extract::DefaultBodyLimit::max(16 * 1024))
        .layer(axum::middleware::from_fn(crate::owners::security_headers))
        .layer(axum::Extension(crate::desk::TrustedProxies(
            desk.settings.server.trusted_proxies.clone(),
        )))
        .with_state(desk))
}

/// Serves the dashboard under the `[server]` limits until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    desk: Arc<OwnerDesk>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    let limits = desk.settings.server.limits;
    let app = router(desk)?;
    crate::listen::serve(listener, app, limits, shutdown)
        .await
        .map_err(|e| format!("the dashboard stopped: {e}"))
}

fn authorised(desk: &OwnerDesk, headers: &HeaderMap) -> bool {
    crate::site_page::is_operator(desk, headers, desk.operator_token().as_deref())
}

async fn require_session(
    State(desk): State<Arc<OwnerDesk>>,
    request: Request,
    next: Next,
) -> Response {
    if authorised(&desk, request.headers()) {
        return next.run(request).await;
    }
    if request.method() == axum::http::Method::GET {
        Redirect::to("/login").into_response()
    } else {
        (
            StatusCode::UNAUTHORIZED,
            Html(page_shell(
                "Sign in again",
                "<p>Your session ended. <a href=\"/login\">Sign in</a>.</p>",
            )),
        )
            .into_response()
    }
}

fn page_shell(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t} · gleaner dashboard</title>\
         <style>{css}.ok{{color:#075}}.err{{color:#a00}}.warn{{color:#a60}}form.inline{{display:inline}}\
         figure.chart{{margin:.5rem 0 1.5rem}}.key{{margin-right:1rem}}</style></head><body>\n\
         <nav id=\"dash-nav\"><a href=\"/\">Sources</a> · <a href=\"/sites\">Sites</a> · <a href=\"/requests\">Requests</a> · \
         <a href=\"/chart\">Chart</a> · <a href=\"/submissions\">Owners' requests</a></nav>\n<h1>{t}</h1>\n{body}</body></html>\n",
        t = escape(title),
        css = crate::html::CSS
    )
}

fn with_cookie(mut response: Response, set: Option<HeaderValue>) -> Response {
    if let Some(set) = set {
        response.headers_mut().append(header::SET_COOKIE, set);
    }
    response
}

fn when(t: Option<SystemTime>) -> String {
    t.map_or("never".to_owned(), |t| {
        DateTime::<Utc>::from(t).format("%Y-%m-%d %H:%M:%S UTC").to_string()
    })
}

fn hidden(token: &str) -> String {
    format!("<input type=\"hidden\" name=\"csrf\" value=\"{}\">", escape(token))
}

async fn login_page(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap) -> Response {
    let (token, set) = csrf_for(&desk, &headers);
    let body = format!(
        "<form id=\"login\" method=\"post\" action=\"/login\">{}<label>Operator token<br>\
         <input type=\"password\" name=\"token\" autocomplete=\"current-password\" required></label> \
         <button type=\"submit\">Sign in</button></form>",
        hidden(&token)
    );
    with_cookie(Html(page_shell("Sign in", &body)).into_response(), set)
}

fn form(body: &[u8]) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for (k, v) in url::form_urlencoded::parse(body) {
        map.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    map
}

async fn login(
    State(desk): State<Arc<OwnerDesk>>,
    ip: crate::desk::ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !desk.login_allowed(ip.0) {
        let mut response = (
            StatusCode::TOO_MANY_REQUESTS,
            Html(page_shell(
                "Sign in",
                &format!(
                    "<p id=\"login-error\" class=\"err\">Too many wrong tokens from your address: \
                     try again in {} minutes.</p>",
                    crate::desk::LOGIN_WINDOW.as_secs() / 60
                ),
            )),
        )
            .into_response();
        if let Ok(v) = HeaderValue::from_str(&crate::desk::LOGIN_WINDOW.as_secs().to_string()) {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    }
    let f = form(&body);
    let expected = desk.operator_token().unwrap_or_default();
    let given = f.get("token").map(|t| t.trim().to_owned()).unwrap_or_default();
    if !desk.csrf_ok(&headers, f.get("csrf").map(String::as_str)) {
        return csrf_failed();
    }
    if expected.is_empty() || !same(given.as_bytes(), expected.as_bytes()) {
        desk.login_failed(ip.0);
        return (
            StatusCode::UNAUTHORIZED,
            Html(page_shell("Sign in", "<p id=\"login-error\" class=\"err\">That token is not the operator token.</p><p><a href=\"/login\">Try again</a></p>")),
        )
            .into_response();
    }
    let now = SystemTime::now();
    let Some(value) = desk.open_session(now + SESSION, now) else {
        return failed("no operator token to open a session with");
    };
    let cookie = format!(
        "{SESSION_COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}",
        SESSION.as_secs()
    );
    let mut response = Redirect::to("/").into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, v);
    }
    response
}

async fn logout(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap, body: Bytes) -> Response {
    if !desk.csrf_ok(&headers, form(&body).get("csrf").map(String::as_str)) {
        return csrf_failed();
    }
    // The session ends here, not only in this browser: a copied cookie stops working too.
    if let Some(value) = crate::desk::cookie(&headers, SESSION_COOKIE) {
        desk.close_session(value);
    }
    let mut response = Redirect::to("/login").into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_static("gleaner_dash=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    );
    response
}

fn csrf_failed() -> Response {
    (
        StatusCode::FORBIDDEN,
        Html(page_shell(
            "Form expired",
            "<p class=\"err\">The form's token did not match; reload the page and try again.</p>",
        )),
    )
        .into_response()
}

async fn all_audit(desk: &OwnerDesk) -> Vec<AuditEntry> {
    // Every http(s) URL: the newest rows first are kept by the store's LIMIT.
    desk.store.audit_for(&Scope::UrlPrefix("h".into()), AUDIT_ROWS).await.unwrap_or_default()
}

async fn sources_page(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap) -> Response {
    let (token, set) = csrf_for(&desk, &headers);
    let now = SystemTime::now();
    let audit = all_audit(&desk).await;
    let mut errors: HashMap<&str, (u64, String)> = HashMap::new();
    let mut last_request: HashMap<&str, SystemTime> = HashMap::new();
    for row in audit.iter().filter(|r| !refused(r)) {
        if let Some(source) = row.source.as_deref() {
            let latest = last_request.entry(source).or_insert(row.time);
            *latest = (*latest).max(row.time);
        }
        let failed = row.error.is_some() || row.outcome.status().is_some_and(|s| s >= 400);
        if let (true, Some(source)) = (failed, row.source.as_deref()) {
            let entry = errors.entry(source).or_default();
            entry.0 += 1;
            entry.1 = format!(
                "{} {}",
                row.outcome
                    .status()
                    .map_or_else(|| row.error.clone().unwrap_or_default(), |s| s.to_string()),
                row.url
            );
        }
    }
    let mut events: HashMap<String, u64> = HashMap::new();
    if let Some(source) = &desk.events {
        for e in source.published_events(usize::MAX).await.unwrap_or_default() {
            *events.entry(e.source).or_default() += 1;
        }
        for e in source.newsroom(usize::MAX).await.unwrap_or_default() {
            *events.entry(e.source).or_default() += 1;
        }
    }
    let mut body = String::from(
        "<table id=\"sources\"><tr><th>Source</th><th>Kind</th><th>Last run</th><th>Status</th><th>Next run</th>\
         <th>Events</th><th>Errors (log)</th><th>Actions</th></tr>\n",
    );
    for source in &desk.settings.sources {
        let last = desk.store.last_run(&source.id).await.ok().flatten();
        let streak = desk.store.failure_streak(&source.id).await.unwrap_or(0);
        let control = desk.store.source_control(&source.id).await.unwrap_or_default();
        let zone = source.time_zone.unwrap_or(chrono_tz::UTC);
        let next = gleaner_scheduler::schedule::next_due(&source.schedule, last, now, zone);
        let status = if control.paused {
            "<span class=\"warn\">paused</span>".to_owned()
        } else if streak > 0 {
            format!("<span class=\"err\">{streak} failed visits in a row</span>")
        } else if last.is_some() {
            "<span class=\"ok\">ok</span>".to_owned()
        } else {
            "not run yet".to_owned()
        };
        let next = if control.paused {
            "paused".to_owned()
        } else if control.run_requested.is_some() {
            "now (requested)".to_owned()
        } else {
            when(Some(next.max(now)))
        };
        let (n_errors, last_error) = errors.get(source.id.as_str()).cloned().unwrap_or_default();
        let id = escape(&source.id);
        let toggle = if control.paused { "resume" } else { "pause" };
        let _ = writeln!(
            body,
            "<tr class=\"source\" data-source=\"{id}\"><td>{id}</td><td>{kind:?}</td><td>{last}</td><td class=\"status\">{status}</td>\
             <td class=\"next\">{next}</td><td>{ev}</td><td title=\"{le}\">{n_errors}</td><td>\
             <form class=\"inline\" method=\"post\" action=\"/sources/{id}/{toggle}\">{h}<button type=\"submit\" name=\"do\" value=\"{toggle}\">{toggle}</button></form> \
             <form class=\"inline\" method=\"post\" action=\"/sources/{id}/run\">{h}<button type=\"submit\" name=\"do\" value=\"run\">run now</button></form></td></tr>",
            kind = source.kind,
            last = match (last, last_request.get(source.id.as_str())) {
                (Some(t), _) => when(Some(t)),
                // A pass outside the scheduler (`gleaner crawl`, the demo) leaves no run
                // record; its requests are in the log.
                (None, Some(t)) => format!("{} (last request)", when(Some(*t))),
                (None, None) => when(None),
            },
            ev = events.get(&source.id).copied().unwrap_or(0),
            le = escape(&last_error),
            h = hidden(&token),
        );
    }
    body.push_str("</table>\n<p class=\"meta\">\"Run now\" asks the scheduler for a pass of a running source (it starts within a minute); every request still goes through the gate. A paused source runs only once resumed.</p>\n");
    let (sent, failed) = desk.notifier.counts();
    let _ = writeln!(
        body,
        "<p class=\"meta\">Operator notifications: {} ({sent} delivered, {failed} failed).</p>\
         <form method=\"post\" action=\"/logout\">{}<button type=\"submit\">Sign out</button></form>",
        if desk.notifier.configured() {
            "webhook or e-mail configured"
        } else {
            "no webhook or e-mail; submissions are listed here"
        },
        hidden(&token)
    );
    with_cookie(Html(page_shell("Sources", &body)).into_response(), set)
}

async fn source_action(
    State(desk): State<Arc<OwnerDesk>>,
    Path((id, action)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !desk.csrf_ok(&headers, form(&body).get("csrf").map(String::as_str)) {
        return csrf_failed();
    }
    if !desk.settings.sources.iter().any(|s| s.id == id) {
        return (
            StatusCode::NOT_FOUND,
            Html(page_shell("No such source", "<p>Check the configuration.</p>")),
        )
            .into_response();
    }
    let now = SystemTime::now();
    let result = match action.as_str() {
        "pause" => desk.store.set_source_paused(&id, true, now).await,
        "resume" => desk.store.set_source_paused(&id, false, now).await,
        "run" => desk.store.request_run(&id, Some(now), now).await,
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Html(page_shell("No such action", "<p>pause, resume or run.</p>")),
            )
                .into_response();
        }
    };
    match result {
        Ok(()) => {
            desk.scheduler_wake.notify_one();
            Redirect::to("/").into_response()
        }
        Err(e) => failed(&e.to_string()),
    }
}

fn failed(cause: &str) -> Response {
    #[allow(clippy::print_stderr)] // stderr is the server's log
    {
        eprintln!("gleaner-dashboard: {cause}");
    }
    (StatusCode::SERVICE_UNAVAILABLE, Html(page_shell("Not done", "<p class=\"err\">The store could not be written; see the server log and try again.</p>"))).into_response()
}

fn robots_state(state: &RobotsState) -> &'static str {
    match state {
        RobotsState::Rules(_) => "rules",
        RobotsState::AllowAll => "allow all",
        RobotsState::Blocked => "blocked (401/403)",
        RobotsState::FetchNothing => "unreadable: fetch nothing",
    }
}

async fn sites_page(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap) -> Response {
    let (token, set) = csrf_for(&desk, &headers);
    let now = SystemTime::now();
    let sites = desk.store.known_sites().await.unwrap_or_default();
    let owners = desk.store.owner_requests().await.unwrap_or_default();
    let mut body = String::from(
        "<table id=\"sites\"><tr><th>Site</th><th>Suspended</th><th>Blocked</th><th>robots.txt</th><th>Requests today</th><th>Owners' overrides</th></tr>\n",
    );
    for site in sites.iter().take(1000) {
        let state = desk.store.site_state(site).await.ok().flatten();
        let until = |v: &Option<(SystemTime, String)>| match v {
            Some((t, why)) if *t > now => {
                format!("<span class=\"err\">until {} ({})</span>", when(Some(*t)), escape(why))
            }
            _ => "no".to_owned(),
        };
        let (suspended, blocked, robots, today) = match &state {
            Some(s) => (
                until(&s.budget.suspended_until),
                until(&s.budget.blocked_until),
                s.robots.as_ref().map_or("not read yet".to_owned(), |r| {
                    format!("{} (until {})", robots_state(&r.state), when(Some(r.valid_until)))
                }),
                s.budget.day_requests,
            ),
            None => ("no".into(), "no".into(), "not read yet".into(), 0),
        };
        let overrides: Vec<String> = url::Url::parse(site)
            .map(|u| {
                owners
                    .iter()
                    .filter(|o| o.entry.scope.covers(&u))
                    .map(|o| format!("{} ({})", request_text(&o.entry.request), o.entry.reference))
                    .collect()
            })
            .unwrap_or_default();
        let _ = writeln!(
            body,
            "<tr class=\"site\" data-site=\"{s}\"><td><a href=\"/chart#{s}\">{s}</a></td><td>{suspended}</td><td>{blocked}</td><td>{robots}</td><td>{today}</td><td class=\"overrides\">{o}</td></tr>",
            s = escape(site),
            robots = escape(&robots),
            o = escape(&overrides.join("; ")),
        );
    }
    body.push_str("</table>\n<p class=\"meta\">Suspensions and blocks end when the site's answer says so; the dashboard cannot clear them.</p>\n");
    let h = hidden(&token);
    let _ = write!(
        body,
        "<h2>Record an action</h2>\
         <form id=\"record-removal\" method=\"post\" action=\"/actions/removal\">{h}<fieldset><legend>Removal: delete everything from a domain or URL prefix, and opt it out</legend>\
         <input type=\"text\" name=\"scope\" required placeholder=\"example.org\"> <input type=\"text\" name=\"note\" placeholder=\"who asked, how\"> <button type=\"submit\">Remove</button></fieldset></form>\
         <form id=\"record-takedown\" method=\"post\" action=\"/actions/takedown\">{h}<fieldset><legend>Takedown: delete what was collected under a URL prefix (an event page, an image address), never relay it, and opt it out</legend>\
         <input type=\"text\" name=\"scope\" required placeholder=\"https://example.org/agenda/42\"> <input type=\"text\" name=\"note\" placeholder=\"who asked, how\"> <button type=\"submit\">Take down</button></fieldset></form>\
         <form id=\"record-override\" method=\"post\" action=\"/actions/override\">{h}<fieldset><legend>Override, as an owner asked by other means</legend>\
         <input type=\"text\" name=\"scope\" required placeholder=\"example.org\"> \
         <select name=\"kind\"><option value=\"opt-out\">opt out</option><option value=\"slow-down\">slow down</option><option value=\"pause\">pause</option><option value=\"facts-only\">facts only</option></select> \
         <label>factor <input type=\"number\" name=\"factor\" min=\"2\" max=\"100\" value=\"4\"></label> <label>pause hours <input type=\"number\" name=\"hours\" min=\"1\" max=\"8760\" value=\"24\"></label> \
         <input type=\"text\" name=\"note\" placeholder=\"who asked, how\"> <button type=\"submit\">Record</button></fieldset></form>"
    );
    with_cookie(Html(page_shell("Sites", &body)).into_response(), set)
}

fn request_text(request: &OwnerRequest) -> String {
    match request {
        OwnerRequest::OptOut => "opted out".into(),
        OwnerRequest::SlowDown(f) => format!("slowed down ×{f}"),
        OwnerRequest::PauseUntil(t) => format!("paused until {}", when(Some(*t))),
        OwnerRequest::FactsOnly => "facts only".into(),
    }
}

async fn record_action(
    State(desk): State<Arc<OwnerDesk>>,
    Path(action): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let f = form(&body);
    if !desk.csrf_ok(&headers, f.get("csrf").map(String::as_str)) {
        return csrf_failed();
    }
    let mut problems = Vec::new();
    let scope = read_scope(f.get("scope"), &mut problems);
    let note = f
        .get("note")
        .map(|n| n.trim().chars().take(500).collect::<String>())
        .filter(|n| !n.is_empty());
    let Some(scope) = scope else {
        let list: String = problems.iter().map(|p| format!("<li>{}</li>", escape(p))).collect();
        return (
            StatusCode::BAD_REQUEST,
            Html(page_shell(
                "Not recorded",
                &format!("<ul class=\"err\">{list}</ul><p><a href=\"/sites\">Back</a></p>"),
            )),
        )
            .into_response();
    };
    let now = SystemTime::now();
    let reference = desk.new_reference().replacen("OWN-", "OPS-", 1);
    let (kind, detail) = match action.as_str() {
        "removal" | "takedown" => {
            if action == "takedown" && !matches!(scope, Scope::UrlPrefix(_)) {
                return (StatusCode::BAD_REQUEST, Html(page_shell("Not recorded", "<p class=\"err\">A takedown is for a URL prefix; use a removal for a whole domain.</p><p><a href=\"/sites\">Back</a></p>"))).into_response();
            }
            if action == "takedown" {
                // An image address is also never relayed again (the relay reads this).
                let why = note.clone().unwrap_or_else(|| format!("dashboard takedown {reference}"));
                if let Err(e) = desk.store.take_down(scope_text(&scope), &why, now).await {
                    return failed(&e.to_string());
                }
            }
            match desk.store.remove_site(scope.clone(), &reference, now).await {
                Ok(report) => {
                    let n: u64 = report.deleted.iter().map(|(_, n)| n).sum();
                    (action.clone(), format!("operator {action}: {n} rows deleted, opted out"))
                }
                Err(e) => return failed(&e.to_string()),
            }
        }
        "override" => {
            let request = match f.get("kind").map(String::as_str) {
                Some("opt-out") => OwnerRequest::OptOut,
                Some("facts-only") => OwnerRequest::FactsOnly,
                Some("slow-down") => {
                    match f.get("factor").and_then(|v| v.trim().parse::<u32>().ok()) {
                        Some(x) if (2..=100).contains(&x) => OwnerRequest::SlowDown(x),
                        _ => return (
                            StatusCode::BAD_REQUEST,
                            Html(page_shell(
                                "Not recorded",
                                "<p class=\"err\">The factor is a whole number from 2 to 100.</p>",
                            )),
                        )
                            .into_response(),
                    }
                }
                Some("pause") => match f.get("hours").and_then(|v| v.trim().parse::<u64>().ok()) {
                    Some(h) if (1..=8760).contains(&h) => {
                        OwnerRequest::PauseUntil(now + Duration::from_secs(h * 3600))
                    }
                    _ => {
                        return (
                            StatusCode::BAD_REQUEST,
                            Html(page_shell(
                                "Not recorded",
                                "<p class=\"err\">Pause for 1 to 8760 hours.</p>",
                            )),
                        )
                            .into_response();
                    }
                },
                _ => {
                    return (
                        StatusCode::BAD_REQUEST,
                        Html(page_shell(
                            "Not recorded",
                            "<p class=\"err\">Choose an override.</p>",
                        )),
                    )
                        .into_response();
                }
            };
            let detail = format!("operator override: {}", request_text(&request));
            let entry =
                RegistryEntry { scope: scope.clone(), request, reference: reference.clone() };
            if let Err(e) = desk
                .store
                .add_owner_request(entry, note.clone().or(Some("dashboard".into())), now)
                .await
            {
                return failed(&e.to_string());
            }
            ("override".to_owned(), detail)
        }
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Html(page_shell("No such action", "<p>removal, takedown or override.</p>")),
            )
                .into_response();
        }
    };
    let submission = OwnerSubmission {
        reference,
        kind,
        scope: scope_text(&scope).to_owned(),
        detail: match &note {
            Some(n) => format!("{detail}; {n}"),
            None => detail,
        },
        contact: None,
        status: if action == "override" { "applied".into() } else { "removed".into() },
        created: now,
        updated: now,
    };
    if let Err(e) = desk.store.add_submission(&submission).await {
        return failed(&e.to_string());
    }
    Redirect::to("/submissions").into_response()
}

async fn requests_page(State(desk): State<Arc<OwnerDesk>>) -> Response {
    let audit = all_audit(&desk).await;
    let mut body = String::from(
        "<table id=\"requests\"><tr><th>When</th><th>Site</th><th>Purpose</th><th>Source</th><th>Status</th><th>Why</th><th>URL</th></tr>\n",
    );
    for row in audit.iter().rev().take(200) {
        let status = if refused(row) {
            "refused".to_owned()
        } else {
            row.outcome
                .status()
                .map_or_else(|| row.error.clone().unwrap_or_default(), |s| s.to_string())
        };
        let _ = writeln!(
            body,
            "<tr class=\"request\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            when(Some(row.time)),
            escape(&row.site),
            row.purpose.map(|p| p.to_string()).unwrap_or_default(),
            escape(row.source.as_deref().unwrap_or("")),
            escape(&status),
            escape(&row.reason),
            escape(&row.url)
        );
    }
    body.push_str("</table>\n");
    Html(page_shell("Recent requests", &body)).into_response()
}

async fn chart_page(State(desk): State<Arc<OwnerDesk>>) -> Response {
    let audit = all_audit(&desk).await;
    let today = Utc::now().date_naive();
    let counts = chart::count(&audit, today, CHART_DAYS);
    let body = format!(
        "<p class=\"meta\">Requests sent per day (UTC), last {CHART_DAYS} days, per site and purpose.</p>\n{}",
        chart::render(&counts, today, CHART_DAYS)
    );
    Html(page_shell("Requests over time", &body)).into_response()
}

async fn submissions_page(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap) -> Response {
    let (token, set) = csrf_for(&desk, &headers);
    let now = SystemTime::now();
    let within = desk.settings.owners.removal_within;
    let mut list = desk.store.submissions(SUBMISSIONS_READ).await.unwrap_or_default();
    // Overdue removals first (stable: newest first within each group).
    list.sort_by_key(|s| !is_overdue(s, within, now));
    list.truncate(SUBMISSION_ROWS);
    let mut by_status: BTreeMap<&str, u32> = BTreeMap::new();
    for s in &list {
        *by_status.entry(s.status.as_str()).or_default() += 1;
    }
    let mut body = format!(
        "<p class=\"meta\">{}</p><table id=\"submissions\"><tr><th>Reference</th><th>Received</th><th>Request</th><th>Scope</th><th>What</th><th>Contact</th><th>Status</th><th></th></tr>\n",
        by_status.iter().map(|(s, n)| format!("{n} {s}")).collect::<Vec<_>>().join(", ")
    );
    for s in &list {
        let overdue = is_overdue(s, within, now);
        let actions = if s.status == crate::owners::UNVERIFIED {
            format!(
                "<form class=\"inline\" method=\"post\" action=\"/submissions/{r}/undo\">{h}<button type=\"submit\">undo</button></form> \
                 <form class=\"inline\" method=\"post\" action=\"/submissions/{r}/confirm\">{h}<button type=\"submit\">confirm for good</button></form>",
                r = escape(&s.reference),
                h = hidden(&token)
            )
        } else if s.status == "pending" && s.kind == "facts-only" {
            format!(
                "<form class=\"inline\" method=\"post\" action=\"/submissions/{r}/confirm\">{h}<button type=\"submit\">approve facts only</button></form> \
                 <form class=\"inline\" method=\"post\" action=\"/submissions/{r}/reject\">{h}<button type=\"submit\">decline</button></form>",
                r = escape(&s.reference),
                h = hidden(&token)
            )
        } else if s.status == "pending" {
            format!(
                "<form class=\"inline\" method=\"post\" action=\"/submissions/{r}/approve\">{h}<button type=\"submit\">carry out removal</button></form> \
                 <form class=\"inline\" method=\"post\" action=\"/submissions/{r}/reject\">{h}<button type=\"submit\">decline</button></form>",
                r = escape(&s.reference),
                h = hidden(&token)
            )
        } else {
            String::new()
        };
        let _ = writeln!(
            body,
            "<tr class=\"submission{oc}\" data-reference=\"{r}\"><td>{r}</td><td>{at}</td><td>{k}</td><td>{sc}</td><td>{d}</td><td>{c}</td><td class=\"status\">{st}{ov}</td><td>{actions}</td></tr>",
            oc = if overdue { " overdue" } else { "" },
            ov = if overdue { " <span class=\"err overdue\">overdue</span>" } else { "" },
            r = escape(&s.reference),
            at = when(Some(s.created)),
            k = escape(&s.kind),
            sc = escape(&s.scope),
            d = escape(&s.detail),
            c = escape(s.contact.as_deref().unwrap_or("")),
            st = escape(&s.status),
        );
    }
    body.push_str("</table>\n");
    with_cookie(Html(page_shell("Owners' requests", &body)).into_response(), set)
}

async fn submission_action(
    State(desk): State<Arc<OwnerDesk>>,
    Path((reference, action)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if !desk.csrf_ok(&headers, form(&body).get("csrf").map(String::as_str)) {
        return csrf_failed();
    }
    let Ok(Some(s)) = desk.store.submission(&reference).await else {
        return (
            StatusCode::NOT_FOUND,
            Html(page_shell("No such request", "<p><a href=\"/submissions\">Back</a></p>")),
        )
            .into_response();
    };
    if s.status != "pending" && s.status != crate::owners::UNVERIFIED {
        return Redirect::to("/submissions").into_response();
    }
    let now = SystemTime::now();
    match action.as_str() {
        // An unverified opt-out or slow-down, undone in one click: it stops applying.
        "undo" if s.status == crate::owners::UNVERIFIED => {
            if let Err(e) = desk.store.remove_owner_request(&s.reference).await {
                return failed(&e.to_string());
            }
            let _ =
                desk.store.set_submission_status(&s.reference, SubmissionStatus::Undone, now).await;
        }
        // Confirmed by the operator: holds for good (a facts-only then purges).
        "confirm" if s.status == crate::owners::UNVERIFIED || s.kind == "facts-only" => {
            if let Err(e) = crate::owners::carry_out(&desk, &s, now).await {
                return failed(&e.to_string());
            }
        }
        "approve" if s.kind == "removal" => {
            let Ok(scope) = gleaner_store::parse_scope(&s.scope) else {
                return failed("a stored scope does not parse");
            };
            if let Err(e) = desk.store.remove_site(scope, &s.reference, now).await {
                return failed(&e.to_string());
            }
            let _ = desk
                .store
                .set_submission_status(&s.reference, SubmissionStatus::Removed, now)
                .await;
        }
        "reject" if s.status == "pending" => {
            let _ = desk
                .store
                .set_submission_status(&s.reference, SubmissionStatus::Rejected, now)
                .await;
        }
        _ => {
            return (
                StatusCode::NOT_FOUND,
                Html(page_shell(
                    "No such action",
                    "<p>undo or confirm an unverified request; approve or decline a pending one.</p>",
                )),
            )
                .into_response();
        }
    }
    Redirect::to("/submissions").into_response()
}
