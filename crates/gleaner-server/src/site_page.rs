//! `/site/{domain}` (issue 15, item 3): what gleaner did on a site, for anyone — requests
//! per day, purposes, statuses, refusals, the archived robots.txt versions with their
//! dates — read from the audit log and the archive. The list of URLs fetched is shown
//! only to the site's verified owner (the DNS TXT proof, checked when they ask) or to
//! the operator (`Authorization: Bearer` with the operator token, or a dashboard session).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;
use std::time::SystemTime;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use chrono::{DateTime, NaiveDate, Utc};
use gleaner_policy::registry::Scope;
use gleaner_store::{AuditEntry, DocumentKind};

use crate::about::escape;
use crate::desk::{ClientIp, OwnerDesk, cookie, same};
use crate::owners::{head, problem_page};
use crate::verify::{Proof, check_dns, txt_name, txt_value};

/// Audit rows read for one page (the latest ones).
pub const AUDIT_ROWS: u32 = 20_000;
/// Days shown in the per-day table.
pub const DAYS: usize = 30;

/// What the audit log says about a site.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SiteSummary {
    /// Per UTC day: requests sent, refused before sending.
    pub per_day: BTreeMap<NaiveDate, (u64, u64)>,
    /// Requests sent per purpose.
    pub purposes: BTreeMap<String, u64>,
    /// Requests per HTTP status (or `error`).
    pub statuses: BTreeMap<String, u64>,
    /// Refusals per reason.
    pub refusals: BTreeMap<String, u64>,
    /// Rows read.
    pub rows: usize,
}

/// Whether an audit row is a refusal (not sent).
pub fn refused(row: &AuditEntry) -> bool {
    row.outcome.refusal().is_some()
}

/// Adds up audit rows.
pub fn summarise(rows: &[AuditEntry]) -> SiteSummary {
    let mut s = SiteSummary { rows: rows.len(), ..SiteSummary::default() };
    for row in rows {
        let day = DateTime::<Utc>::from(row.time).date_naive();
        let entry = s.per_day.entry(day).or_default();
        if refused(row) {
            entry.1 += 1;
            *s.refusals.entry(row.reason.clone()).or_default() += 1;
        } else {
            entry.0 += 1;
            let purpose = row.purpose.map_or("unknown".to_owned(), |p| p.to_string());
            *s.purposes.entry(purpose).or_default() += 1;
            let status = row.outcome.status().map_or("error".to_owned(), |c| c.to_string());
            *s.statuses.entry(status).or_default() += 1;
        }
    }
    s
}

fn date(t: SystemTime) -> String {
    DateTime::<Utc>::from(t).format("%Y-%m-%d %H:%M UTC").to_string()
}

/// Whether the request carries the operator token or a dashboard session.
pub fn is_operator(desk: &OwnerDesk, headers: &HeaderMap, operator_token: Option<&str>) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if let (Some(given), Some(expected)) = (bearer, operator_token)
        && same(given.trim().as_bytes(), expected.as_bytes())
    {
        return true;
    }
    cookie(headers, crate::dashboard::SESSION_COOKIE)
        .is_some_and(|v| desk.session_ok(v, SystemTime::now()))
}

fn table(html: &mut String, id: &str, heading: &str, rows: &BTreeMap<String, u64>) {
    let _ = write!(html, "<h2>{}</h2><table id=\"{id}\">", escape(heading));
    if rows.is_empty() {
        html.push_str("<tr><td>none</td></tr>");
    }
    for (k, n) in rows {
        let _ = write!(html, "<tr><th>{}</th><td>{n}</td></tr>", escape(k));
    }
    html.push_str("</table>\n");
}

async fn render(
    desk: &OwnerDesk,
    domain: &str,
    show_urls: bool,
    note: Option<(String, bool)>,
    token: &str,
) -> Response {
    let Some(scope) =
        Scope::domain(domain).filter(|_| domain.len() <= 253 && !domain.contains('/'))
    else {
        return problem_page(
            StatusCode::NOT_FOUND,
            "No such site",
            &["give a domain like example.org".into()],
            "/owners",
        );
    };
    let Scope::Domain(host) = &scope else { unreachable!("a domain scope") };
    let rows = match desk.store.audit_for(&scope, AUDIT_ROWS).await {
        Ok(rows) => rows,
        Err(_) => {
            return problem_page(
                StatusCode::SERVICE_UNAVAILABLE,
                "The log could not be read",
                &["try again in a minute".into()],
                "/owners",
            );
        }
    };
    let robots = desk.store.archive_history(&scope, DocumentKind::Robots).await.unwrap_or_default();
    let summary = summarise(&rows);
    let mut html = head(&format!("What {} did on {host}", desk.settings.bot.token));
    if let Some((text, ok)) = note {
        let _ = writeln!(
            html,
            "<p id=\"note\" class=\"{}\">{}</p>",
            if ok { "ok" } else { "err" },
            escape(&text)
        );
    }
    let sent: u64 = summary.per_day.values().map(|d| d.0).sum();
    let refusals: u64 = summary.per_day.values().map(|d| d.1).sum();
    let _ = write!(
        html,
        "<p id=\"totals\">{sent} requests sent and {refusals} refused before sending, from the latest {rows} log rows \
         (the log keeps {keep} days). Subdomains are included.</p>\n<h2>Requests per day (UTC)</h2><table id=\"per-day\">\
         <tr><th>Day</th><th>Sent</th><th>Refused</th></tr>",
        rows = summary.rows,
        keep = desk.settings.retention.audit.as_secs() / 86_400
    );
    for (day, (s, r)) in summary.per_day.iter().rev().take(DAYS) {
        let _ = write!(html, "<tr><td>{day}</td><td>{s}</td><td>{r}</td></tr>");
    }
    html.push_str("</table>\n");
    table(&mut html, "purposes", "Purposes", &summary.purposes);
    table(&mut html, "statuses", "Statuses", &summary.statuses);
    table(&mut html, "refusals", "Refusals (not sent)", &summary.refusals);
    html.push_str("<h2>robots.txt versions archived</h2><table id=\"robots\"><tr><th>Site</th><th>First seen</th><th>Last seen</th><th>Bytes</th></tr>");
    for doc in &robots {
        let _ = write!(
            html,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&doc.site),
            date(doc.first_seen),
            date(doc.last_seen),
            doc.body.len()
        );
    }
    html.push_str("</table>\n");
    if show_urls {
        html.push_str("<h2>URLs fetched</h2><table id=\"urls\"><tr><th>When</th><th>Purpose</th><th>Status</th><th>URL</th></tr>");
        for row in rows.iter().rev().filter(|r| !refused(r)).take(1000) {
            let _ = write!(
                html,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                date(row.time),
                row.purpose.map(|p| p.to_string()).unwrap_or_default(),
                row.outcome.status().map_or("error".to_owned(), |c| c.to_string()),
                escape(&row.url)
            );
        }
        html.push_str("</table>\n");
    } else {
        let proof = desk.proof_token(host);
        let _ = writeln!(
            html,
            "<section id=\"owner-urls\"><h2>The URLs fetched</h2><p>Shown to the site's owner: add the DNS TXT record \
             <code>{name}</code> with the value <code>{value}</code>, then press the button.</p>\
             <form method=\"post\" action=\"/site/{d}/urls\"><input type=\"hidden\" name=\"csrf\" value=\"{t}\">\
             <button type=\"submit\">Show the URLs</button></form></section>",
            name = escape(&txt_name(host)),
            value = escape(&txt_value(&proof)),
            d = escape(host),
            t = escape(token)
        );
    }
    html.push_str("</body></html>\n");
    Html(html).into_response()
}

/// `GET /site/{domain}`.
pub async fn page(
    State(desk): State<Arc<OwnerDesk>>,
    Path(domain): Path<String>,
    headers: HeaderMap,
) -> Response {
    let operator = is_operator(&desk, &headers, desk.operator_token().as_deref());
    let (token, set) = crate::owners::csrf_for(&desk, &headers);
    let mut response = render(&desk, &domain, operator, None, &token).await;
    if let Some(set) = set {
        response.headers_mut().insert(header::SET_COOKIE, set);
    }
    response
}

/// `POST /site/{domain}/urls`: the owner asks for the URL list; shown when the DNS TXT
/// proof is in place.
pub async fn urls(
    State(desk): State<Arc<OwnerDesk>>,
    Path(domain): Path<String>,
    ip: ClientIp,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let form: std::collections::HashMap<String, String> =
        url::form_urlencoded::parse(&body).into_owned().collect();
    if let Err(page) = crate::owners::admit_form(&desk, &headers, &form, ip) {
        return *page;
    }
    let Some(Scope::Domain(host)) = Scope::domain(&domain) else {
        return problem_page(
            StatusCode::NOT_FOUND,
            "No such site",
            &["give a domain like example.org".into()],
            "/owners",
        );
    };
    let (token, _) = crate::owners::csrf_for(&desk, &headers);
    match check_dns(&desk, &host).await {
        Proof::Proven => {
            render(&desk, &host, true, Some(("Control proven by DNS.".into(), true)), &token).await
        }
        Proof::Missing(why) | Proof::Unavailable(why) => {
            render(&desk, &host, false, Some((format!("Not shown: {why}."), false)), &token).await
        }
    }
}
