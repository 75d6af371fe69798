//! The site owners' forms (`/owners`, issue 15 item 1): opt out (a domain or a URL
//! prefix), slow down (a factor), keep facts only, and ask for removal. The first three
//! go into the registry at once — the gate reads it before every request, so the next
//! request to the site already obeys — and every submission gets a receipt with a
//! reference, is stored, and is sent to the operator ([`crate::notify`]).
//!
//! Forms work without JavaScript (the pages carry none, and the CSP forbids it); every
//! text shown is escaped; bodies are capped (`[owners] max_form_bytes`); each form
//! carries a CSRF token (a signed double submit, [`crate::desk`]); each client address
//! may submit `[owners] submissions_per_hour` times an hour. Removal is carried out at
//! once on proof of control ([`crate::verify`]), otherwise queued for the operator.

use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;
use std::time::SystemTime;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use gleaner_policy::registry::{OwnerRequest, RegistryEntry, Scope};
use gleaner_store::OwnerSubmission;

use crate::about::escape;
use crate::desk::{ClientIp, FORM_COOKIE, OwnerDesk, TrustedProxies, cookie};
use crate::desk_store::SubmissionStatus;
use crate::i18n::Lang;
use crate::notify::Notice;
use crate::verify::{FILE_PATH, Proof, check_dns, check_file, txt_name, txt_value};

/// Largest slow-down factor an owner may ask for (beyond it, opt out).
pub const MAX_FACTOR: u32 = 100;

/// The status of a request applied at once but not yet proven or confirmed: it lapses
/// after `[owners] unverified_lapse`.
pub const UNVERIFIED: &str = SubmissionStatus::Unverified.as_str();

/// `t + d`, saturating far in the future.
fn later(t: SystemTime, d: std::time::Duration) -> SystemTime {
    gleaner_policy::budget::later_by(t, d)
}

/// The public routes of the owners' desk: the forms, receipts, verification and
/// `/site/{domain}`, with the body cap and the security headers.
pub fn routes(desk: Arc<OwnerDesk>) -> Router {
    let cap = desk.settings.owners.max_form_bytes;
    Router::new()
        .route("/owners", get(forms_page))
        .route("/owners/verify", post(verify))
        .route("/owners/receipt/{reference}", get(receipt_page))
        .route("/owners/{form}", post(submit))
        .route("/site/{domain}", get(crate::site_page::page))
        .route("/site/{domain}/urls", post(crate::site_page::urls))
        .layer(DefaultBodyLimit::max(cap))
        .layer(axum::middleware::from_fn(security_headers))
        .layer(axum::Extension(TrustedProxies(desk.settings.server.trusted_proxies.clone())))
        .with_state(desk)
}

/// The security headers of every owner and dashboard page (the same CSP as the rest of
/// the server: no script), and no caching of pages that carry tokens. Cookies are
/// marked `Secure` when a trusted reverse proxy says the client came over HTTPS.
pub async fn security_headers(request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|c| c.0.ip());
    let proxies = request.extensions().get::<TrustedProxies>().cloned().unwrap_or_default();
    let https = proxies.https(peer, request.headers());
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if https {
        let cookies: Vec<HeaderValue> =
            headers.get_all(header::SET_COOKIE).iter().cloned().collect();
        headers.remove(header::SET_COOKIE);
        for cookie in cookies {
            let text = cookie.to_str().unwrap_or_default();
            let secure = if text.contains("; Secure") {
                cookie.clone()
            } else {
                HeaderValue::from_str(&format!("{text}; Secure")).unwrap_or(cookie.clone())
            };
            headers.append(header::SET_COOKIE, secure);
        }
    }
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(crate::api::CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The link to the forms the about page shows, in its language.
pub fn about_link(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "Site owners: opt out, slow the bot down, keep facts only, or ask for removal",
        Lang::Tr => "Site sahipleri: çıkış, yavaşlatma, yalnızca olgular veya kaldırma talebi",
        Lang::Fr => {
            "Propriétaires de sites : refuser, ralentir le robot, garder les faits seuls ou demander la suppression"
        }
        Lang::Es => {
            "Propietarios de sitios: excluirse, ralentizar el robot, solo datos o pedir la eliminación"
        }
        Lang::De => {
            "Website-Betreiber: widersprechen, den Bot bremsen, nur Fakten behalten oder Löschung verlangen"
        }
    }
}

/// Starts a page (title escaped here).
pub fn head(title: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{t}</title>\
         <style>{css}.ok{{color:#075}}.err{{color:#a00}}fieldset{{margin:1rem 0}}\
         input[type=text],input[type=email],textarea{{width:100%;box-sizing:border-box}}</style></head><body>\n\
         <nav><a href=\"/bot\">About the bot</a> · <a href=\"/owners\">Site owners</a> · \
         <a href=\"/events\">Events</a></nav>\n<h1>{t}</h1>\n",
        t = escape(title),
        css = crate::html::CSS
    )
}

const FOOT: &str = "</body></html>\n";

/// The CSRF token for a page's forms, and the cookie to set when the browser has none.
pub fn csrf_for(desk: &OwnerDesk, headers: &HeaderMap) -> (String, Option<HeaderValue>) {
    // Keep the nonce the browser already has, so two open tabs both work.
    if let Some(nonce) = cookie(headers, FORM_COOKIE)
        .filter(|n| n.len() == 32 && n.bytes().all(|b| b.is_ascii_hexdigit()))
    {
        let token = desk.csrf_token_for(nonce);
        return (token, None);
    }
    let (nonce, token) = desk.csrf_pair();
    let cookie = format!("{FORM_COOKIE}={nonce}; Path=/; HttpOnly; SameSite=Strict; Max-Age=7200");
    (token, HeaderValue::from_str(&cookie).ok())
}

fn with_cookie(body: String, cookie: Option<HeaderValue>) -> Response {
    let mut response = Html(body).into_response();
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

/// `GET /owners`: the four forms.
pub async fn forms_page(State(desk): State<Arc<OwnerDesk>>, headers: HeaderMap) -> Response {
    let (token, set) = csrf_for(&desk, &headers);
    let bot = &desk.settings.bot;
    let mut html = head(&format!("Site owners: tell {} what you want", bot.token));
    let _ = writeln!(
        html,
        "<p id=\"intro\">Each request below takes effect before {token}'s next request to your site: \
         the registry is read before every request. You get a receipt with a reference; the operator \
         ({operator}) is told at once. Nothing here needs JavaScript or an account. You can also see \
         what {token} fetched from a site at <code>/site/&lt;domain&gt;</code>.</p>",
        token = escape(&bot.token),
        operator = escape(&bot.operator)
    );
    let hidden = format!("<input type=\"hidden\" name=\"csrf\" value=\"{}\">", escape(&token));
    let scope = "<label>Domain (covers its subdomains) or URL prefix<br>\
                 <input type=\"text\" name=\"scope\" required maxlength=\"2000\" placeholder=\"example.org or https://example.org/agenda/\"></label><br>";
    let contact = "<label>Your e-mail (optional, for the operator's reply)<br>\
                   <input type=\"email\" name=\"contact\" maxlength=\"200\"></label><br>";
    let _ = writeln!(
        html,
        "<form id=\"opt-out\" method=\"post\" action=\"/owners/opt-out\"><fieldset><legend>Opt out: never fetch here again</legend>\
         {hidden}{scope}{contact}<button type=\"submit\">Opt out</button></fieldset></form>\n\
         <form id=\"slow-down\" method=\"post\" action=\"/owners/slow-down\"><fieldset><legend>Slow down: multiply every gap between requests</legend>\
         {hidden}{scope}<label>Factor (2 to {MAX_FACTOR})<br><input type=\"number\" name=\"factor\" min=\"2\" max=\"{MAX_FACTOR}\" value=\"4\" required></label><br>\
         {contact}<button type=\"submit\">Slow down</button></fieldset></form>\n\
         <form id=\"facts-only\" method=\"post\" action=\"/owners/facts-only\"><fieldset><legend>Keep facts only: no descriptions, images or translations</legend>\
         {hidden}{scope}{contact}<button type=\"submit\">Keep facts only</button></fieldset></form>\n\
         <form id=\"removal\" method=\"post\" action=\"/owners/removal\"><fieldset><legend>Removal: delete what was collected from your site</legend>\
         {hidden}{scope}{contact}<label>Message (optional)<br><textarea name=\"message\" maxlength=\"2000\" rows=\"3\"></textarea></label><br>\
         <label><input type=\"checkbox\" name=\"stop\" value=\"yes\" checked> Also opt out now (then the proof must be a DNS record: an opted-out site is not fetched, not even for the proof file)</label><br>\
         <button type=\"submit\">Ask for removal</button></fieldset></form>",
    );
    html.push_str(FOOT);
    with_cookie(html, set)
}

/// A form's fields: the first value of each name.
fn fields(body: &[u8]) -> HashMap<String, String> {
    let mut map = HashMap::new();
    for (k, v) in url::form_urlencoded::parse(body) {
        map.entry(k.into_owned()).or_insert_with(|| v.into_owned());
    }
    map
}

/// An error page: the problems, escaped, and the way back.
pub fn problem_page(status: StatusCode, title: &str, problems: &[String], back: &str) -> Response {
    let mut html = head(title);
    html.push_str("<ul id=\"problems\" class=\"err\">\n");
    for p in problems {
        let _ = writeln!(html, "<li>{}</li>", escape(p));
    }
    let _ = write!(html, "</ul>\n<p><a href=\"{}\">Back</a></p>\n{FOOT}", escape(back));
    (status, Html(html)).into_response()
}

fn clean_text(
    name: &str,
    value: Option<&String>,
    max: usize,
    problems: &mut Vec<String>,
) -> Option<String> {
    let value = value.map(|v| v.trim()).filter(|v| !v.is_empty())?;
    if value.chars().count() > max {
        problems.push(format!("{name} is longer than {max} characters"));
        return None;
    }
    if value.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) {
        problems.push(format!("{name} contains control characters"));
        return None;
    }
    Some(value.to_owned())
}

/// Parses the scope field: a domain, or an http(s) URL prefix.
pub fn read_scope(value: Option<&String>, problems: &mut Vec<String>) -> Option<Scope> {
    let Some(text) = value.map(|v| v.trim()).filter(|v| !v.is_empty()) else {
        problems.push("give the domain or URL prefix the request is about".into());
        return None;
    };
    if text.len() > 2000 {
        problems.push("the domain or URL prefix is longer than 2000 characters".into());
        return None;
    }
    if text.contains("://") {
        let ok = url::Url::parse(text)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some());
        if ok.is_none() {
            problems.push("a URL prefix must be a full http:// or https:// address".into());
            return None;
        }
    } else if text.len() > 253 || text.chars().any(|c| c.is_whitespace() || "/?#@:".contains(c)) {
        problems.push("a domain is a host name like example.org (no path, port or spaces)".into());
        return None;
    }
    match gleaner_store::parse_scope(text) {
        Ok(scope) => Some(scope),
        Err(_) => {
            problems.push("this is not a domain or URL prefix gleaner can read".into());
            None
        }
    }
}

/// The scope in words.
pub fn scope_text(scope: &Scope) -> &str {
    match scope {
        Scope::Domain(d) => d,
        Scope::UrlPrefix(p) => p,
    }
}

fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Checks the CSRF token and the rate limit shared by every public form; `Err` is the
/// page to send.
pub fn admit_form(
    desk: &OwnerDesk,
    headers: &HeaderMap,
    form: &HashMap<String, String>,
    ip: ClientIp,
) -> Result<(), Box<Response>> {
    if !desk.csrf_ok(headers, form.get("csrf").map(String::as_str)) {
        return Err(Box::new(problem_page(
            StatusCode::FORBIDDEN,
            "This form has expired",
            &["the form was not sent from this site's own page, or its token expired; open the form again and resend it".into()],
            "/owners",
        )));
    }
    if !desk.allow(ip.0) {
        let mut page = problem_page(
            StatusCode::TOO_MANY_REQUESTS,
            "Too many requests from your address",
            &[format!(
                "at most {} requests an hour are accepted from one address; try again later, or write to {}",
                desk.settings.owners.submissions_per_hour,
                operator_contact(desk)
            )],
            "/owners",
        );
        page.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("3600"));
        return Err(Box::new(page));
    }
    Ok(())
}

/// `POST /owners/{form}`: opt-out, slow-down, facts-only or removal.
pub async fn submit(
    State(desk): State<Arc<OwnerDesk>>,
    Path(form_name): Path<String>,
    ip: ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let kind = match form_name.as_str() {
        "opt-out" | "slow-down" | "facts-only" | "removal" => form_name.clone(),
        _ => {
            return problem_page(
                StatusCode::NOT_FOUND,
                "No such form",
                &["see /owners for the forms".into()],
                "/owners",
            );
        }
    };
    let form = fields(&body);
    if let Err(page) = admit_form(&desk, &headers, &form, ip) {
        return *page;
    }
    let mut problems = Vec::new();
    let scope = read_scope(form.get("scope"), &mut problems);
    let contact = clean_text("the e-mail address", form.get("contact"), 200, &mut problems);
    if let Some(c) = &contact
        && (!c.contains('@') || c.chars().any(char::is_whitespace))
    {
        problems.push("the e-mail address should look like name@example.org".into());
    }
    let message = clean_text("the message", form.get("message"), 2000, &mut problems);
    let factor = if kind == "slow-down" {
        match form.get("factor").map(|f| f.trim().parse::<u32>()) {
            Some(Ok(f)) if (2..=MAX_FACTOR).contains(&f) => Some(f),
            _ => {
                problems.push(format!("the factor is a whole number from 2 to {MAX_FACTOR}"));
                None
            }
        }
    } else {
        None
    };
    let (Some(scope), true) = (scope, problems.is_empty()) else {
        return problem_page(
            StatusCode::BAD_REQUEST,
            "Please correct the form",
            &problems,
            "/owners",
        );
    };
    let now = SystemTime::now();
    let reference = desk.new_reference();
    let stop = kind == "removal" && form.get("stop").is_some_and(|v| v == "yes");
    let lapses = later(now, desk.settings.owners.unverified_lapse);
    let until =
        format!("until {} unless control is proven or the operator confirms it", rfc3339(lapses));
    // What a stranger may ask decides what applies before any proof (issue 26): doing
    // less applies at once but lapses; hiding or deleting data waits for the proof or
    // the operator.
    let (request, detail, status) = match kind.as_str() {
        "opt-out" => (
            Some(OwnerRequest::OptOut),
            format!("never fetch here again; unverified: holds {until}"),
            UNVERIFIED,
        ),
        "slow-down" => {
            let f = factor.unwrap_or(2);
            (
                Some(OwnerRequest::SlowDown(f)),
                format!("every gap multiplied by {f}; unverified: holds {until}"),
                UNVERIFIED,
            )
        }
        "facts-only" => (
            None,
            "facts only: no descriptions, images or translations; waits for proof of control or the operator, nothing hidden or deleted until then".to_owned(),
            "pending",
        ),
        _ => (
            stop.then_some(OwnerRequest::OptOut),
            format!(
                "removal of everything collected{}{}",
                if stop { format!("; opted out at once, unverified: holds {until}") } else { String::new() },
                message.as_deref().map(|m| format!("; message: {m}")).unwrap_or_default()
            ),
            "pending",
        ),
    };
    if let Some(request) = request {
        let entry = RegistryEntry { scope: scope.clone(), request, reference: reference.clone() };
        let note = Some(format!(
            "owner form ({kind}, unverified){}",
            contact.as_deref().map(|c| format!(", {c}")).unwrap_or_default()
        ));
        if let Err(error) = desk.store.add_unverified_request(entry, note, now, lapses).await {
            return store_failed(&desk, &error.to_string());
        }
    }
    let submission = OwnerSubmission {
        reference: reference.clone(),
        kind: kind.clone(),
        scope: scope_text(&scope).to_owned(),
        detail: detail.clone(),
        contact: contact.clone(),
        status: status.to_owned(),
        created: now,
        updated: now,
    };
    if let Err(error) = desk.store.add_submission(&submission).await {
        return store_failed(&desk, &error.to_string());
    }
    desk.notifier.notify(Notice {
        event: "owner-submission",
        reference: reference.clone(),
        kind: kind.clone(),
        scope: submission.scope.clone(),
        detail,
        status: status.to_owned(),
        contact,
        at: rfc3339(now),
    });
    let (token, set) = csrf_for(&desk, &headers);
    with_cookie(receipt_html(&desk, &submission, Some(&token), None), set)
}

/// How to reach the operator, in words.
fn operator_contact(desk: &OwnerDesk) -> &str {
    desk.settings.bot.contact.as_deref().unwrap_or("the operator (see the about page)")
}

fn store_failed(desk: &OwnerDesk, cause: &str) -> Response {
    #[allow(clippy::print_stderr)] // stderr is the server's log
    {
        eprintln!("gleaner-server: failed to record an owner's request: {cause}");
    }
    problem_page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Your request could not be recorded",
        &[format!(
            "nothing was recorded, so please send it again in a minute, or write to {}",
            operator_contact(desk)
        )],
        "/owners",
    )
}

/// Whether a submission can still be proven: an unverified opt-out or slow-down, or a
/// pending facts-only or removal.
pub fn awaits_proof(s: &OwnerSubmission) -> bool {
    matches!(
        (s.kind.as_str(), s.status.as_str()),
        ("opt-out" | "slow-down", UNVERIFIED) | ("facts-only" | "removal", "pending")
    )
}

/// The receipt: the reference, what was asked, its status; while it can be proven and
/// its scope is a domain, how to prove control (and the buttons to check the proof).
fn receipt_html(
    desk: &OwnerDesk,
    s: &OwnerSubmission,
    token: Option<&str>,
    note: Option<(&str, bool)>,
) -> String {
    let mut html = head("Receipt");
    if let Some((text, ok)) = note {
        let _ = writeln!(
            html,
            "<p id=\"note\" class=\"{}\">{}</p>",
            if ok { "ok" } else { "err" },
            escape(text)
        );
    }
    let effect = match s.status.as_str() {
        "applied" => "In the registry now, for good: the next request to this site obeys it.",
        UNVERIFIED => {
            "In the registry now: the next request to this site obeys it. Anyone can ask this, so it lapses unless you prove you control the site (below) or the operator confirms it."
        }
        "pending" if s.kind == "facts-only" => {
            "Waiting: nothing is hidden or deleted until you prove you control the site (below) or the operator approves it; then descriptions, images and translations are deleted at once."
        }
        "pending" => {
            "Waiting: nothing is deleted until you prove you control the site (below); otherwise the operator reviews it."
        }
        "undone" => "The operator undid this request; write to the operator for details.",
        "removed" => {
            "Done: everything collected from this site was deleted, and the site is opted out."
        }
        "rejected" => "The operator declined this request; write to the operator for details.",
        _ => "",
    };
    let _ = write!(
        html,
        "<table id=\"receipt\">\
         <tr><th>Reference</th><td id=\"reference\">{r}</td></tr>\
         <tr><th>Request</th><td id=\"kind\">{k}</td></tr>\
         <tr><th>Applies to</th><td id=\"scope\">{sc}</td></tr>\
         <tr><th>What</th><td>{d}</td></tr>\
         <tr><th>Status</th><td id=\"status\">{st}</td></tr>\
         <tr><th>Received</th><td>{at}</td></tr></table>\n<p id=\"effect\">{e}</p>\n\
         <p>Keep this address: <a id=\"receipt-link\" href=\"/owners/receipt/{r}\">/owners/receipt/{r}</a>. \
         The operator was told; you can also write to {c} quoting the reference.</p>\n",
        r = escape(&s.reference),
        k = escape(&s.kind),
        sc = escape(&s.scope),
        d = escape(&s.detail),
        st = escape(&s.status),
        at = rfc3339(s.created),
        e = escape(effect),
        c = escape(operator_contact(desk)),
    );
    if awaits_proof(s) {
        match (gleaner_store::parse_scope(&s.scope), token) {
            (Ok(Scope::Domain(domain)), Some(token)) => {
                let proof = desk.proof_token(&domain);
                let _ = writeln!(
                    html,
                    "<section id=\"proof\"><h2>Prove you control {d}</h2>\
                     <p>Either add this DNS TXT record:</p><pre id=\"txt-record\">{name} TXT \"{value}\"</pre>\
                     <p>or publish a file at <code>{path}</code> on the site holding:</p><pre id=\"proof-token\">{proof}</pre>\
                     <p>then press a button. {bot} reads the file once, through its usual rules (robots.txt first), and records why.</p>\
                     <form id=\"verify-dns\" method=\"post\" action=\"/owners/verify\"><input type=\"hidden\" name=\"csrf\" value=\"{t}\">\
                     <input type=\"hidden\" name=\"reference\" value=\"{r}\"><input type=\"hidden\" name=\"method\" value=\"dns\">\
                     <button type=\"submit\">Check the DNS record</button></form>\
                     <form id=\"verify-file\" method=\"post\" action=\"/owners/verify\"><input type=\"hidden\" name=\"csrf\" value=\"{t}\">\
                     <input type=\"hidden\" name=\"reference\" value=\"{r}\"><input type=\"hidden\" name=\"method\" value=\"file\">\
                     <button type=\"submit\">Fetch the file once</button></form></section>",
                    d = escape(&domain),
                    name = escape(&txt_name(&domain)),
                    value = escape(&txt_value(&proof)),
                    path = FILE_PATH,
                    proof = escape(&proof),
                    bot = escape(&desk.settings.bot.token),
                    t = escape(token),
                    r = escape(&s.reference),
                );
            }
            (Ok(Scope::UrlPrefix(_)), _) => {
                html.push_str(
                    "<p id=\"proof\">A request for a URL prefix is reviewed by the operator.</p>\n",
                );
            }
            _ => {
                let _ = writeln!(
                    html,
                    "<p id=\"proof\"><a href=\"/owners/receipt/{}\">Open the receipt</a> to prove control.</p>",
                    escape(&s.reference)
                );
            }
        }
    }
    html.push_str(FOOT);
    html
}

/// `GET /owners/receipt/{reference}`.
pub async fn receipt_page(
    State(desk): State<Arc<OwnerDesk>>,
    Path(reference): Path<String>,
    headers: HeaderMap,
) -> Response {
    if reference.len() > 40 {
        return problem_page(
            StatusCode::NOT_FOUND,
            "No such receipt",
            &["check the reference".into()],
            "/owners",
        );
    }
    match desk.store.submission(&reference).await {
        Ok(Some(s)) => {
            let (token, set) = csrf_for(&desk, &headers);
            with_cookie(receipt_html(&desk, &s, Some(&token), None), set)
        }
        Ok(None) => problem_page(
            StatusCode::NOT_FOUND,
            "No such receipt",
            &["check the reference".into()],
            "/owners",
        ),
        Err(error) => store_failed(&desk, &error.to_string()),
    }
}

/// `POST /owners/verify`: checks the proof of a pending removal; on proof, removes the
/// site's content at once (the store's removal path, through
/// [`crate::desk_store::DeskStore::remove_site`]).
pub async fn verify(
    State(desk): State<Arc<OwnerDesk>>,
    ip: ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form = fields(&body);
    if let Err(page) = admit_form(&desk, &headers, &form, ip) {
        return *page;
    }
    let reference = form.get("reference").map(|r| r.trim()).unwrap_or_default();
    let submission = match desk.store.submission(reference).await {
        Ok(Some(s))
            if matches!(s.kind.as_str(), "opt-out" | "slow-down" | "facts-only" | "removal") =>
        {
            s
        }
        Ok(_) => {
            return problem_page(
                StatusCode::NOT_FOUND,
                "No such request",
                &["check the reference on your receipt".into()],
                "/owners",
            );
        }
        Err(error) => return store_failed(&desk, &error.to_string()),
    };
    let (token, set) = csrf_for(&desk, &headers);
    let back = |note: &str, ok: bool, s: &OwnerSubmission| {
        with_cookie(receipt_html(&desk, s, Some(&token), Some((note, ok))), set.clone())
    };
    if !awaits_proof(&submission) {
        return back("This request is no longer waiting for a proof.", false, &submission);
    }
    let Ok(Scope::Domain(domain)) = gleaner_store::parse_scope(&submission.scope) else {
        return back("A request for a URL prefix is reviewed by the operator.", false, &submission);
    };
    let proof = match form.get("method").map(String::as_str) {
        Some("dns") => check_dns(&desk, &domain).await,
        Some("file") => check_file(&desk, &domain).await,
        _ => return back("Choose the DNS record or the file.", false, &submission),
    };
    match proof {
        Proof::Proven if submission.kind != "removal" => {
            let method = form.get("method").cloned().unwrap_or_default();
            match carry_out(&desk, &submission, SystemTime::now()).await {
                Ok(done) => {
                    desk.notifier.notify(Notice {
                        event: "owner-submission",
                        reference: done.reference.clone(),
                        kind: format!("{}-verified", done.kind),
                        scope: done.scope.clone(),
                        detail: format!("control proven by {method}; the request holds for good"),
                        status: done.status.clone(),
                        contact: done.contact.clone(),
                        at: rfc3339(done.updated),
                    });
                    back("Control proven. Your request holds for good.", true, &done)
                }
                Err(error) => store_failed(&desk, &error.to_string()),
            }
        }
        Proof::Proven => {
            let now = SystemTime::now();
            let scope = Scope::Domain(domain.clone());
            match desk.store.remove_site(scope, &submission.reference, now).await {
                Ok(report) => {
                    let _ = desk
                        .store
                        .set_submission_status(
                            &submission.reference,
                            SubmissionStatus::Removed,
                            now,
                        )
                        .await;
                    // The opt-out asked for with the removal holds for good too.
                    let _ = desk.store.confirm_owner_request(&submission.reference).await;
                    let deleted: u64 = report.deleted.iter().map(|(_, n)| n).sum();
                    let method = form.get("method").cloned().unwrap_or_default();
                    desk.notifier.notify(Notice {
                        event: "owner-submission",
                        reference: submission.reference.clone(),
                        kind: "removal-verified".into(),
                        scope: submission.scope.clone(),
                        detail: format!("control proven by {method}; {deleted} rows deleted"),
                        status: "removed".into(),
                        contact: submission.contact.clone(),
                        at: rfc3339(now),
                    });
                    let mut done = submission.clone();
                    done.status = "removed".into();
                    back(
                        &format!(
                            "Control proven. Removed: {deleted} stored rows; the site is opted out."
                        ),
                        true,
                        &done,
                    )
                }
                Err(error) => store_failed(&desk, &error.to_string()),
            }
        }
        Proof::Missing(why) => back(
            &format!("Not proven yet: {why}. Your request stays as it is, for the operator."),
            false,
            &submission,
        ),
        Proof::Unavailable(why) => back(
            &format!("Could not check: {why}. Your request stays as it is, for the operator."),
            false,
            &submission,
        ),
    }
}

/// Makes a proven or operator-approved opt-out, slow-down or facts-only hold for good:
/// an unverified one stops lapsing; a pending facts-only goes into the registry and
/// purges what is stored beyond facts. Returns the submission with its new status
/// (`applied`). Removal has its own path
/// ([`crate::desk_store::DeskStore::remove_site`]).
pub async fn carry_out(
    desk: &OwnerDesk,
    submission: &OwnerSubmission,
    now: SystemTime,
) -> Result<OwnerSubmission, gleaner_store::StoreError> {
    if submission.kind == "facts-only" {
        let scope = gleaner_store::parse_scope(&submission.scope)?;
        let entry = RegistryEntry {
            scope,
            request: OwnerRequest::FactsOnly,
            reference: submission.reference.clone(),
        };
        desk.store
            .add_owner_request(entry, Some("owner form (facts-only), proven".into()), now)
            .await?;
    } else {
        desk.store.confirm_owner_request(&submission.reference).await?;
    }
    desk.store.set_submission_status(&submission.reference, SubmissionStatus::Applied, now).await?;
    let mut done = submission.clone();
    done.status = "applied".into();
    done.updated = now;
    Ok(done)
}
