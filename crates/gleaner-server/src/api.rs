//! The handlers, the one [`ApiError`] type with stable codes and fixed messages, the
//! event filters and pagination, and the rule that applies `keep` and `publish` from the
//! running settings to everything served.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use chrono::NaiveDate;
use gleaner_config::sources::Keep;

use crate::i18n::Lang;
use crate::{ApiEvent, AppState, ServerOptions, about, encode, html, metrics};

/// What every handler shares.
#[derive(Clone)]
pub struct Shared {
    /// Settings and events.
    pub app: AppState,
    /// Options from outside the settings file.
    pub options: Arc<ServerOptions>,
    /// Responses served, for `/metrics`.
    pub counters: Arc<metrics::ServerCounters>,
    /// The owners' desk when it is served with these routes (overdue removals in
    /// `/metrics`).
    pub desk: Option<Arc<crate::desk::OwnerDesk>>,
}

/// An error a client sees: a stable code, a fixed message, a status. Nothing from the
/// request or from a crawled page is echoed back, and server-side causes are not shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    /// No such route or event (404).
    NotFound,
    /// A query parameter could not be read (400).
    BadQuery,
    /// The language is not one of the page's (404).
    UnknownLanguage,
    /// The operator token is missing or wrong (401).
    Unauthorized,
    /// Reading the store failed (500; the cause goes to the server log).
    Internal,
}

impl ApiError {
    /// The stable code in the JSON body.
    pub fn code(self) -> &'static str {
        match self {
            ApiError::NotFound => "not_found",
            ApiError::BadQuery => "bad_query",
            ApiError::UnknownLanguage => "unknown_language",
            ApiError::Unauthorized => "unauthorized",
            ApiError::Internal => "internal",
        }
    }

    /// The fixed message.
    pub fn message(self) -> &'static str {
        match self {
            ApiError::NotFound => "nothing is published at this address",
            ApiError::BadQuery => {
                "a query parameter could not be read; dates are YYYY-MM-DD, page and per_page are positive numbers"
            }
            ApiError::UnknownLanguage => "this page exists in en, tr, fr, es and de",
            ApiError::Unauthorized => "this route needs the operator token",
            ApiError::Internal => "the events could not be read; see the server log",
        }
    }

    /// The HTTP status.
    pub fn status(self) -> StatusCode {
        match self {
            ApiError::NotFound | ApiError::UnknownLanguage => StatusCode::NOT_FOUND,
            ApiError::BadQuery => StatusCode::BAD_REQUEST,
            ApiError::Unauthorized => StatusCode::UNAUTHORIZED,
            ApiError::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code(), "message": self.message() });
        let mut response = (self.status(), axum::Json(body)).into_response();
        if self == ApiError::Unauthorized {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

fn internal(cause: String) -> ApiError {
    // Logged by the server, never sent (STYLE.md: server errors are opaque).
    #[allow(clippy::print_stderr)] // The server has no logger of its own yet; stderr is the log.
    {
        eprintln!("gleaner-server: failed to read events: {cause}");
    }
    ApiError::Internal
}

/// The Content-Security-Policy of every response: no script at all, styles only inline
/// (the pages carry their own), forms only to this server. A second wall behind the
/// escaping: even an unescaped crawled `<script>` would not run.
pub const CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; \
                       form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// Counts every response by route and status for `/metrics`, and adds the security
/// headers (CSP, `nosniff`, no Referer to the sites we link to, and `X-Frame-Options:
/// DENY` beside `frame-ancestors` for browsers that do not read the CSP).
pub async fn count_responses(
    State(shared): State<Shared>,
    request: Request,
    next: Next,
) -> Response {
    let route = metrics::route_label(request.uri().path());
    let mut response = next.run(request).await;
    shared.counters.count(route, response.status().as_u16());
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// Fallback: a JSON 404 with a stable code.
pub async fn not_found() -> ApiError {
    ApiError::NotFound
}

// ---------------------------------------------------------------- about page

/// `/bot`: the page in the language the browser prefers.
pub async fn about_page(State(shared): State<Shared>, headers: HeaderMap) -> Response {
    let lang = Lang::negotiate(headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()));
    let mut response = Html(about::render_html(&shared.app.settings, lang)).into_response();
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept-Language"));
    response.headers_mut().insert(header::CONTENT_LANGUAGE, HeaderValue::from_static(lang.code()));
    response
}

/// `/bot/{lang}`: the page in one language.
pub async fn about_page_lang(
    State(shared): State<Shared>,
    Path(lang): Path<String>,
) -> Result<Response, ApiError> {
    let lang = Lang::ALL.into_iter().find(|l| l.code() == lang).ok_or(ApiError::UnknownLanguage)?;
    let mut response = Html(about::render_html(&shared.app.settings, lang)).into_response();
    response.headers_mut().insert(header::CONTENT_LANGUAGE, HeaderValue::from_static(lang.code()));
    Ok(response)
}

/// `/bot.json`: the same facts, machine-readable; `?lang=xx` or Accept-Language picks
/// the language of the text.
pub async fn about_json(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let lang = match query.get("lang") {
        Some(code) => {
            Lang::ALL.into_iter().find(|l| l.code() == code).ok_or(ApiError::UnknownLanguage)?
        }
        None => Lang::negotiate(headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok())),
    };
    Ok(axum::Json(about::json(&shared.app.settings, lang)).into_response())
}

// ---------------------------------------------------------------- events

/// The filters and page of `/api/events`, `/events`, `/events.ics` and `/events.rss`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventQuery {
    /// Events starting on or after this date.
    pub from: Option<NaiveDate>,
    /// Events starting on or before this date.
    pub to: Option<NaiveDate>,
    /// Category name.
    pub category: Option<String>,
    /// Town or city (compared without regard to ASCII case).
    pub locality: Option<String>,
    /// Source id.
    pub source: Option<String>,
    /// Site: the host of the page the event was read from, or a domain above it.
    pub site: Option<String>,
    /// Status (`scheduled`, `cancelled`, `postponed`, `rescheduled`, `moved_online`).
    pub status: Option<String>,
    /// Language of the title and description (ISO 639-1, detected as the translation
    /// step does); events whose language cannot be told do not match.
    pub lang: Option<String>,
    /// Page, from 1.
    pub page: usize,
    /// Events per page.
    pub per_page: usize,
}

/// The public statuses an event may have (`status` filters on one of them).
pub const STATUSES: [&str; 5] =
    ["scheduled", "cancelled", "postponed", "rescheduled", "moved_online"];

/// Largest page size.
pub const MAX_PER_PAGE: usize = 500;
/// Default page size.
pub const DEFAULT_PER_PAGE: usize = 50;

impl EventQuery {
    /// Reads the query string; unknown parameters are ignored.
    pub fn parse(query: &HashMap<String, String>) -> Result<EventQuery, ApiError> {
        let date = |key: &str| -> Result<Option<NaiveDate>, ApiError> {
            match query.get(key).map(|v| v.trim()).filter(|v| !v.is_empty()) {
                None => Ok(None),
                Some(v) => NaiveDate::parse_from_str(v, "%Y-%m-%d")
                    .map(Some)
                    .map_err(|_| ApiError::BadQuery),
            }
        };
        let number = |key: &str, default: usize| -> Result<usize, ApiError> {
            match query.get(key).map(|v| v.trim()).filter(|v| !v.is_empty()) {
                None => Ok(default),
                Some(v) => v.parse::<usize>().ok().filter(|n| *n > 0).ok_or(ApiError::BadQuery),
            }
        };
        let text =
            |key: &str| query.get(key).map(|v| v.trim().to_owned()).filter(|v| !v.is_empty());
        Ok(EventQuery {
            from: date("from")?,
            to: date("to")?,
            category: text("category"),
            locality: text("locality"),
            source: text("source"),
            site: text("site").map(|s| s.trim_end_matches('.').to_ascii_lowercase()),
            status: text("status"),
            lang: text("lang").map(|l| l.to_ascii_lowercase()),
            page: number("page", 1)?,
            per_page: number("per_page", DEFAULT_PER_PAGE)?.min(MAX_PER_PAGE),
        })
    }

    /// `gleaner export`'s filters by option name (`from`, `to`, `category`, `locality`,
    /// `source`, `site`, `status`, `lang`), read as [`EventQuery::parse`] reads a query
    /// string but strictly: an unknown status, a day or language code that is not one, or
    /// `to` before `from` is an error naming the option and what to write. Every event is
    /// on the one page.
    pub fn strict(filters: &HashMap<String, String>) -> Result<EventQuery, String> {
        let given = |key: &str| filters.get(key).map(|v| v.trim()).filter(|v| !v.is_empty());
        if let Some(status) = given("status")
            && !STATUSES.contains(&status)
        {
            let all = STATUSES.join(", ");
            return Err(format!("unknown status `{status}`\nhint: statuses are {all}"));
        }
        if let Some(lang) = given("lang")
            && !(2..=3).contains(&lang.len())
        {
            return Err(format!(
                "--lang `{lang}` is not a language code\nhint: use ISO 639-1, such as fr or tr"
            ));
        }
        for key in ["from", "to"] {
            if let Some(day) = given(key)
                && NaiveDate::parse_from_str(day, "%Y-%m-%d").is_err()
            {
                return Err(format!("--{key} `{day}` is not a day\nhint: write it as YYYY-MM-DD"));
            }
        }
        let query = EventQuery::parse(filters);
        let mut query =
            query.map_err(|_| "the filters cannot be read\nhint: see --help".to_owned())?;
        if let (Some(from), Some(to)) = (query.from, query.to)
            && to < from
        {
            return Err(format!("--to {to} is before --from {from}"));
        }
        (query.page, query.per_page) = (1, usize::MAX);
        Ok(query)
    }

    /// Whether an event passes the filters.
    pub fn matches(&self, event: &ApiEvent) -> bool {
        let start = event
            .facts
            .start
            .as_deref()
            .and_then(|s| s.get(..10))
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok());
        if let Some(from) = self.from
            && start.is_none_or(|s| s < from)
        {
            return false;
        }
        if let Some(to) = self.to
            && start.is_none_or(|s| s > to)
        {
            return false;
        }
        if let Some(category) = &self.category
            && &event.category != category
        {
            return false;
        }
        if let Some(locality) = &self.locality
            && !event.facts.locality.as_deref().is_some_and(|l| l.eq_ignore_ascii_case(locality))
        {
            return false;
        }
        if let Some(source) = &self.source
            && &event.source != source
        {
            return false;
        }
        if let Some(site) = &self.site
            && !site_of(event).is_some_and(|host| {
                host == *site
                    || host.strip_suffix(site.as_str()).is_some_and(|rest| rest.ends_with('.'))
            })
        {
            return false;
        }
        if let Some(status) = &self.status
            && event.facts.status != Some(status.as_str())
        {
            return false;
        }
        if let Some(lang) = &self.lang
            && language_of(event).as_deref() != Some(lang.as_str())
        {
            return false;
        }
        true
    }

    /// The query string of another page of the same filters.
    pub fn to_query_string(&self, page: usize) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.from {
            parts.push(format!("from={d}"));
        }
        if let Some(d) = self.to {
            parts.push(format!("to={d}"));
        }
        for (key, value) in [
            ("category", &self.category),
            ("locality", &self.locality),
            ("source", &self.source),
            ("site", &self.site),
            ("status", &self.status),
            ("lang", &self.lang),
        ] {
            if let Some(v) = value {
                parts.push(format!("{key}={}", url_encode(v)));
            }
        }
        parts.push(format!("page={page}"));
        if self.per_page != DEFAULT_PER_PAGE {
            parts.push(format!("per_page={}", self.per_page));
        }
        parts.join("&")
    }
}

/// The site an event was read from: the lower-case host of its page.
pub fn site_of(event: &ApiEvent) -> Option<String> {
    url::Url::parse(&event.source_url).ok()?.host_str().map(str::to_ascii_lowercase)
}

/// The language of an event's title and description, as the translation step detects it.
pub fn language_of(event: &ApiEvent) -> Option<String> {
    let text = [event.facts.title.as_deref(), event.facts.description.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(". ");
    gleaner_llm::translate::language_of(&text, None).map(|d| d.lang)
}

fn url_encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Applies the running settings to an event: hidden when its source does not publish,
/// description and image removed when its source keeps facts only.
pub fn visible(settings: &gleaner_config::Settings, mut event: ApiEvent) -> Option<ApiEvent> {
    let source = settings.sources.iter().find(|s| s.id == event.source);
    if source.is_some_and(|s| !s.publish) {
        return None;
    }
    if source.is_none_or(|s| s.keep == Keep::Facts) {
        event.facts.description = None;
        event.facts.image_url = None;
    }
    Some(event)
}

/// The published events that pass the filters (all pages).
pub async fn filtered(shared: &Shared, query: &EventQuery) -> Result<Vec<ApiEvent>, ApiError> {
    let events = shared.app.events.published_events(100_000).await.map_err(internal)?;
    Ok(events
        .into_iter()
        .filter_map(|e| visible(&shared.app.settings, e))
        .filter(|e| query.matches(e))
        .collect())
}

/// One page of events with its paging facts.
pub struct EventPage {
    /// The events on this page.
    pub events: Vec<ApiEvent>,
    /// Events matching the filters, all pages.
    pub total: usize,
    /// Whether there is a next page.
    pub has_next: bool,
}

/// One page of the filtered events.
pub async fn paged(shared: &Shared, query: &EventQuery) -> Result<EventPage, ApiError> {
    let all = filtered(shared, query).await?;
    let total = all.len();
    let skip = (query.page - 1).saturating_mul(query.per_page);
    let events: Vec<ApiEvent> = all.into_iter().skip(skip).take(query.per_page).collect();
    let has_next = skip.saturating_add(events.len()) < total;
    Ok(EventPage { events, total, has_next })
}

/// `/api/events`.
pub async fn events(
    State(shared): State<Shared>,
    Query(raw): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let query = EventQuery::parse(&raw)?;
    let page = paged(&shared, &query).await?;
    let next =
        page.has_next.then(|| format!("/api/events?{}", query.to_query_string(query.page + 1)));
    Ok(axum::Json(serde_json::json!({
        "events": page.events,
        "page": query.page,
        "per_page": query.per_page,
        "total": page.total,
        "next": next,
    }))
    .into_response())
}

async fn detail(shared: &Shared, id: &str) -> Result<crate::EventDetail, ApiError> {
    let id: i64 = id.parse().map_err(|_| ApiError::NotFound)?;
    let mut detail =
        shared.app.events.event(id).await.map_err(internal)?.ok_or(ApiError::NotFound)?;
    detail.event = visible(&shared.app.settings, detail.event).ok_or(ApiError::NotFound)?;
    Ok(detail)
}

/// `/api/events/{id}`: one event with "how this event got here".
pub async fn event(
    State(shared): State<Shared>,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    Ok(axum::Json(detail(&shared, &id).await?).into_response())
}

/// The visitor's language from `Accept-Language`, for the dates on the event pages.
fn visitor_lang(headers: &HeaderMap) -> Lang {
    Lang::negotiate(headers.get(header::ACCEPT_LANGUAGE).and_then(|v| v.to_str().ok()))
}

/// An HTML page whose dates follow `Accept-Language`.
fn localised_page(html: String) -> Response {
    let mut response = Html(html).into_response();
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept-Language"));
    response
}

/// `/events`: the HTML list, grouped by day, dates in the visitor's language.
pub async fn events_html(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Query(raw): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let query = EventQuery::parse(&raw)?;
    let page = paged(&shared, &query).await?;
    let lang = visitor_lang(&headers);
    Ok(localised_page(html::list(&shared.app.settings, lang, &query, &page)))
}

/// `/events/{id}`: the HTML event view, dates in the visitor's language.
pub async fn event_html(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let detail = detail(&shared, &id).await?;
    let lang = visitor_lang(&headers);
    Ok(localised_page(html::view(&shared.app.settings, lang, &detail)))
}

/// `/events.ics`: every matching event (no paging).
pub async fn events_ics(
    State(shared): State<Shared>,
    Query(raw): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let query = EventQuery::parse(&raw)?;
    let events = filtered(&shared, &query).await?;
    let body = encode::encode(encode::Format::Ical, &shared.app.settings, &events);
    Ok(([(header::CONTENT_TYPE, encode::Format::Ical.media_type())], body).into_response())
}

/// `/events.rss`: one page of matching events.
pub async fn events_rss(
    State(shared): State<Shared>,
    Query(raw): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let query = EventQuery::parse(&raw)?;
    let page = paged(&shared, &query).await?;
    let body = encode::encode(encode::Format::Rss, &shared.app.settings, &page.events);
    Ok(([(header::CONTENT_TYPE, encode::Format::Rss.media_type())], body).into_response())
}

/// Compares two byte strings in time independent of where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// `/api/news`: the newsroom pool, behind the operator token.
pub async fn news(State(shared): State<Shared>, headers: HeaderMap) -> Result<Response, ApiError> {
    let expected = shared.options.operator_token.as_deref().ok_or(ApiError::Unauthorized)?;
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .ok_or(ApiError::Unauthorized)?;
    if !same_secret(given.trim().as_bytes(), expected.as_bytes()) {
        return Err(ApiError::Unauthorized);
    }
    let items = shared.app.events.newsroom(MAX_PER_PAGE).await.map_err(internal)?;
    let items: Vec<ApiEvent> = items
        .into_iter()
        .map(|mut e| {
            // Private does not mean full: keep = "facts" holds in the pool too.
            let keep =
                shared.app.settings.sources.iter().find(|s| s.id == e.source).map(|s| s.keep);
            if keep != Some(Keep::Full) {
                e.facts.description = None;
                e.facts.image_url = None;
            }
            e
        })
        .collect();
    let mut response = axum::Json(serde_json::json!({ "items": items })).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("private, no-store"));
    Ok(response)
}

/// `/metrics`: Prometheus text.
pub async fn metrics(State(shared): State<Shared>) -> Response {
    let crawl = shared.app.events.metrics().await;
    let overdue = match &shared.desk {
        Some(desk) => {
            crate::dashboard::overdue_removals(desk, std::time::SystemTime::now()).await.ok()
        }
        None => None,
    };
    let body =
        metrics::render(&shared.app.settings, crawl.as_ref().ok(), overdue, &shared.counters);
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], body).into_response()
}
