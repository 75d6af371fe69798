//! APIs and open data in a pass: licensed-API keys added to the request only (never to
//! what is stored or logged), pages walked by a query parameter, and open-data records
//! turned into newsroom items.

use gleaner_config::sources::{Paging, Source};
use gleaner_extract::opendata::{self, Record};
use url::Url;

use crate::sink::{News, approximate_instant};

/// `url` with query parameter `name` set to `value` (replacing any earlier value).
pub(crate) fn with_param(url: &Url, name: &str, value: &str) -> Url {
    let kept: Vec<(String, String)> =
        url.query_pairs().filter(|(k, _)| k != name).map(|(k, v)| (k.into(), v.into())).collect();
    let mut out = url.clone();
    {
        let mut query = out.query_pairs_mut();
        query.clear();
        for (k, v) in &kept {
            query.append_pair(k, v);
        }
        query.append_pair(name, value);
    }
    out
}

/// `url` without query parameter `name` (case-insensitive), e.g. a licensed API's key.
pub(crate) fn without_param(url: &Url, name: &str) -> Url {
    let mut out = url.clone();
    gleaner_fetch::redirect::strip_params(&mut out, &[name.to_owned()]);
    out
}

/// The first page's URL of a paged API: the start URL with the page parameter set
/// unless it already names a page.
pub(crate) fn first_page(url: &Url, paging: &Paging) -> Url {
    if url.query_pairs().any(|(k, _)| k == paging.param.as_str()) {
        url.clone()
    } else {
        with_param(url, &paging.param, &paging.first.to_string())
    }
}

/// The next page's URL after reading `url`, or `None` at the end: past the page count
/// the API states (`total_pages`), or after a page without events when it states none.
pub(crate) fn next_page(
    url: &Url,
    body: &[u8],
    paging: &Paging,
    events_on_page: usize,
) -> Option<Url> {
    let current: u64 = url
        .query_pairs()
        .find(|(k, _)| k == paging.param.as_str())
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(u64::from(paging.first));
    let next = current.checked_add(1)?;
    match &paging.total_pointer {
        Some(pointer) => {
            let doc: serde_json::Value = serde_json::from_slice(body).ok()?;
            let total = doc.pointer(pointer).and_then(|v| {
                v.as_u64().or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            })?;
            // Pages are numbered first..first+total.
            (next < u64::from(paging.first) + total)
                .then(|| with_param(url, &paging.param, &next.to_string()))
        }
        None => (events_on_page > 0).then(|| with_param(url, &paging.param, &next.to_string())),
    }
}

/// Whether an open-data document is CSV rather than JSON (by content type, else by
/// path, else by its first non-blank byte).
pub(crate) fn is_csv(content_type: Option<&str>, url: &Url, body: &[u8]) -> bool {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    if ct.contains("csv") {
        return true;
    }
    if ct.contains("json") {
        return false;
    }
    if url.path().to_ascii_lowercase().ends_with(".csv") {
        return true;
    }
    !matches!(body.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'['))
}

/// Reads an open-data document into newsroom items. Records without a link of their own
/// get the dataset's URL with the record's id (or row number) as fragment, so each is
/// stored once and still links back to the data.
pub(crate) fn records_to_news(
    source: &Source,
    dataset: &Url,
    content_type: Option<&str>,
    body: &[u8],
) -> (Vec<News>, Vec<String>) {
    let Some(mapping) = &source.records else { return (Vec::new(), Vec::new()) };
    let read = if is_csv(content_type, dataset, body) {
        opendata::read_csv(body, mapping, dataset)
    } else {
        opendata::read_json(body, mapping, dataset)
    };
    let problems = read.diagnostics.iter().map(|d| format!("{dataset}: {}", d.message)).collect();
    let news = read
        .records
        .iter()
        .enumerate()
        .map(|(row, record)| news_of(source, dataset, row, record))
        .collect();
    (news, problems)
}

fn news_of(source: &Source, dataset: &Url, row: usize, record: &Record) -> News {
    let mut url = record.link.clone();
    if url == *dataset {
        let fragment = record.id.clone().unwrap_or_else(|| format!("row-{}", row + 1));
        url.set_fragment(Some(&fragment));
    }
    let summary =
        record.fields.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>().join("; ");
    News {
        url,
        source: source.id.clone(),
        title: record.title.clone(),
        published: record.date.as_ref().map(approximate_instant),
        summary: (!summary.is_empty()).then_some(summary),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paging(total: Option<&str>) -> Paging {
        Paging { param: "page".into(), first: 0, total_pointer: total.map(str::to_owned) }
    }

    #[test]
    fn keys_are_added_for_the_request_and_removed_from_what_is_kept() {
        let url = Url::parse("http://127.0.0.1/v1/events.json?page=2").unwrap();
        let keyed = with_param(&url, "apikey", "s3cret");
        assert_eq!(keyed.as_str(), "http://127.0.0.1/v1/events.json?page=2&apikey=s3cret");
        assert_eq!(without_param(&keyed, "APIKEY"), url);
        let only = Url::parse("http://127.0.0.1/x?apikey=k").unwrap();
        assert_eq!(without_param(&only, "apikey").as_str(), "http://127.0.0.1/x");
    }

    #[test]
    fn pages_stop_at_the_stated_count_or_at_an_empty_page() {
        let url = Url::parse("http://127.0.0.1/v1/events.json").unwrap();
        let first = first_page(&url, &paging(None));
        assert_eq!(first.as_str(), "http://127.0.0.1/v1/events.json?page=0");
        let body = br#"{"page":{"totalPages":2}}"#;
        let second = next_page(&first, body, &paging(Some("/page/totalPages")), 10).unwrap();
        assert_eq!(second.as_str(), "http://127.0.0.1/v1/events.json?page=1");
        assert_eq!(next_page(&second, body, &paging(Some("/page/totalPages")), 10), None);
        // No count stated: walk on while pages hold events.
        assert!(next_page(&first, b"{}", &paging(None), 3).is_some());
        assert_eq!(next_page(&first, b"{}", &paging(None), 0), None);
        // A count that cannot be read ends the walk rather than guessing.
        assert_eq!(next_page(&first, b"not json", &paging(Some("/page/totalPages")), 3), None);
    }

    #[test]
    fn csv_is_told_from_json() {
        let url = Url::parse("http://127.0.0.1/api/data").unwrap();
        assert!(is_csv(Some("text/csv; charset=utf-8"), &url, b"{"));
        assert!(!is_csv(None, &url, b"  [1]"));
        assert!(is_csv(None, &url, b"a;b\n1;2\n"));
    }
}
