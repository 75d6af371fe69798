//! The upsert plan for events, written once for both backends (issue 24 item 5): which
//! stored event a new reading belongs to, and what that event becomes.
//!
//! A backend finds the candidate rows (same identity, same own page, or same folded
//! title near the same start: [`lookup`]), loads their readings (one per provenance row)
//! and asks [`plan`]; the decisions themselves are `gleaner_event::merge`'s.

use gleaner_event::EventIdentity;
use gleaner_event::identity_parts::fold;
use gleaner_event::merge::{Extractor, Field, Reading, conflict, merge, same_event};
use gleaner_event::{Event, time::EventTime};
use url::Url;

use crate::StoreError;
use crate::codec;

/// How far apart the stored instants (`start_ms`) of one start can be: a floating time
/// is stored as if in UTC, so it differs from the same wall-clock time with an offset by
/// that offset (UTC−12 to UTC+14).
pub(crate) const START_WINDOW_MS: i64 = 14 * 3600 * 1000;

/// What a backend looks candidate rows up by.
pub(crate) struct Lookup {
    /// The reading's identity (the key rows had before merging).
    pub identity: String,
    /// The reading's own page, when it has one.
    pub url: Option<String>,
    /// The folded title.
    pub title_key: Option<String>,
    /// The stored instant of the start.
    pub start_ms: Option<i64>,
}

/// The lookup keys of a reading.
pub(crate) fn lookup(reading: &Reading) -> Lookup {
    Lookup {
        identity: EventIdentity::of(&reading.event).to_string(),
        url: reading.own_url().map(Url::to_string),
        title_key: title_key(&reading.event),
        start_ms: reading.event.start.as_ref().map(codec::instant_ms),
    }
}

/// The folded title, as stored in `events.title_key`.
pub(crate) fn title_key(e: &Event) -> Option<String> {
    e.title.as_deref().map(fold).filter(|k| !k.is_empty())
}

/// One provenance row as stored.
#[derive(Debug, Clone)]
pub(crate) struct StoredReading {
    /// The source (`''` for none).
    pub source: String,
    /// The document.
    pub fetch_url: String,
    /// When (ms).
    pub fetched_ms: i64,
    /// The extractor's code.
    pub extractor: Option<String>,
    /// The reading's facts JSON (`None` for rows from before readings were kept).
    pub facts: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its image.
    pub image_url: Option<String>,
}

/// A candidate row with its readings.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// Its id.
    pub id: i64,
    /// Its identity.
    pub identity: String,
    /// The stored (merged) facts JSON.
    pub facts: String,
    /// The stored description.
    pub description: Option<String>,
    /// The stored image.
    pub image_url: Option<String>,
    /// The stored status name.
    pub status: String,
    /// Its provenance rows.
    pub readings: Vec<StoredReading>,
}

/// The readings of a row, decoded, with the provenance row each stands for (`None` for
/// the row's own facts standing in for readings stored before readings were kept).
pub(crate) fn readings_of(
    row_facts: &str,
    row_description: Option<String>,
    row_image: Option<String>,
    stored: &[StoredReading],
) -> Result<Vec<(Reading, Option<usize>)>, StoreError> {
    let mut out = Vec::new();
    let mut legacy = None;
    for (i, s) in stored.iter().enumerate() {
        let Ok(fetched_url) = Url::parse(&s.fetch_url) else { continue };
        let source = Some(s.source.clone()).filter(|s| !s.is_empty());
        let extractor = s.extractor.as_deref().and_then(Extractor::from_code);
        match &s.facts {
            Some(json) => {
                let event = codec::decode_facts(json, s.description.clone(), s.image_url.clone())?;
                out.push((Reading { event, source, fetched_url, extractor }, Some(i)));
            }
            None if legacy.is_none() => legacy = Some((source, fetched_url, extractor)),
            None => {}
        }
    }
    if let Some((source, fetched_url, extractor)) = legacy {
        let event = codec::decode_facts(row_facts, row_description, row_image)?;
        out.push((Reading { event, source, fetched_url, extractor }, None));
    }
    Ok(out)
}

/// Where a reading goes.
#[derive(Debug)]
pub(crate) enum Target {
    /// A new row with this identity.
    New(String),
    /// Row `rows[i]`.
    Existing(usize),
}

/// The plan for one reading.
#[derive(Debug)]
pub(crate) struct Plan {
    /// New or which row.
    pub target: Target,
    /// The event after the merge (description and image included, as kept).
    pub event: Event,
    /// The document of the leading reading (its host names the event's site).
    pub lead_url: Url,
    /// The source of the leading reading.
    pub lead_source: Option<String>,
}

/// Decides where `incoming` (read by `source` from its document) goes among `rows` and
/// what the event becomes. `rows` come in any order; the row with the reading's own
/// identity is tried first.
pub(crate) fn plan(incoming: &Reading, identity: &str, rows: &[Row]) -> Result<Plan, StoreError> {
    let key = (incoming.source.as_deref(), incoming.fetched_url.as_str());
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| rows[i].identity != identity);
    for i in order {
        let row = &rows[i];
        let readings =
            readings_of(&row.facts, row.description.clone(), row.image_url.clone(), &row.readings)?;
        let same_key = |r: &Reading| (r.source.as_deref(), r.fetched_url.as_str()) == key;
        // The same source saying the same identity again is the same event, even when it
        // changed a ticket address.
        let again = row.identity == identity && readings.iter().any(|(r, _)| same_key(r));
        let belongs = again
            || (readings.iter().any(|(r, _)| same_event(r, incoming))
                && !readings.iter().any(|(r, _)| !same_key(r) && conflict(r, incoming)));
        if !belongs {
            continue;
        }
        let mut all: Vec<Reading> =
            readings.into_iter().map(|(r, _)| r).filter(|r| !same_key(r)).collect();
        all.push(incoming.clone());
        let merged = merge(&all).expect("at least the incoming reading");
        let lead = &all[merged.lead];
        return Ok(Plan {
            target: Target::Existing(i),
            lead_url: lead.fetched_url.clone(),
            lead_source: lead.source.clone(),
            event: merged.event,
        });
    }
    // A new event. Its identity is taken when an event that must stay apart has it (two
    // dates of one festival written alike, another ticket address): tell them apart by
    // what differs.
    let identity = if rows.iter().any(|r| r.identity == identity) {
        let discriminator = format!(
            "{}#{}#{}",
            incoming.event.url.as_ref().map_or("", Url::as_str),
            incoming.event.ticket_url.as_ref().map_or("", Url::as_str),
            incoming.event.start.as_ref().map(EventTime::to_iso).unwrap_or_default(),
        );
        EventIdentity::of(&incoming.event).distinct(&discriminator).to_string()
    } else {
        identity.to_owned()
    };
    Ok(Plan {
        target: Target::New(identity),
        event: incoming.event.clone(),
        lead_url: incoming.fetched_url.clone(),
        lead_source: incoming.source.clone(),
    })
}

/// Which fields each provenance row gave the event (by index into `stored`), for the
/// event page's "where each field came from".
pub(crate) fn fields_by_reading(
    row_facts: &str,
    row_description: Option<String>,
    row_image: Option<String>,
    stored: &[StoredReading],
) -> Vec<Vec<Field>> {
    let mut out = vec![Vec::new(); stored.len()];
    let Ok(readings) = readings_of(row_facts, row_description, row_image, stored) else {
        return out;
    };
    let (readings, rows): (Vec<Reading>, Vec<Option<usize>>) = readings.into_iter().unzip();
    if let Some(merged) = merge(&readings) {
        for (field, i) in merged.from {
            if let Some(Some(row)) = rows.get(i) {
                out[*row].push(field);
            }
        }
    }
    out
}

/// The incoming reading of a write, with what `keep` does not allow dropped.
pub(crate) fn incoming(write: &crate::model::EventWrite<'_>) -> Reading {
    let mut event = write.event.clone();
    if write.keep != crate::model::Keep::Full {
        event.description = None;
        event.image_url = None;
    }
    Reading {
        event,
        source: write.source.map(str::to_owned),
        fetched_url: write.fetched_url.clone(),
        extractor: write.extractor,
    }
}

/// The `events` columns of a planned event.
pub(crate) struct Columns {
    pub host: String,
    pub url_host: Option<String>,
    pub source: Option<String>,
    pub url: Option<String>,
    pub title: Option<String>,
    pub title_key: Option<String>,
    pub category: &'static str,
    pub status: &'static str,
    pub stated: bool,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub last_day_end: i64,
    pub facts: String,
    pub description: Option<String>,
    pub image: Option<String>,
}

/// The columns of `plan`'s event, checked at `fetched_at`.
pub(crate) fn columns(plan: &Plan, fetched_at: std::time::SystemTime) -> Columns {
    let e = &plan.event;
    Columns {
        host: codec::host_of(plan.lead_url.as_str()),
        url_host: e.url.as_ref().map(|u| codec::host_of(u.as_str())),
        source: plan.lead_source.clone(),
        url: e.url.as_ref().map(Url::to_string),
        title: e.title.clone(),
        title_key: title_key(e),
        category: e.category.name(),
        status: codec::status_name(e.status),
        stated: e.status_stated,
        start: e.start.as_ref().map(codec::instant_ms),
        end: e.end.as_ref().map(codec::instant_ms),
        last_day_end: codec::last_day_end_ms(e, fetched_at),
        facts: codec::encode_facts(e),
        description: e.description.clone(),
        image: e.image_url.as_ref().map(Url::to_string),
    }
}

/// The provenance columns of a reading: source (`''` for none), document, extractor,
/// facts, description, image.
pub(crate) struct ReadingColumns {
    pub source: String,
    pub fetch_url: String,
    pub extractor: Option<&'static str>,
    pub facts: String,
    pub description: Option<String>,
    pub image: Option<String>,
}

/// The provenance columns of `reading`.
pub(crate) fn reading_columns(reading: &Reading) -> ReadingColumns {
    ReadingColumns {
        source: reading.source.clone().unwrap_or_default(),
        fetch_url: reading.fetched_url.to_string(),
        extractor: reading.extractor.map(Extractor::code),
        facts: codec::encode_facts(&reading.event),
        description: reading.event.description.clone(),
        image: reading.event.image_url.as_ref().map(Url::to_string),
    }
}

/// An event's provenance from its provenance rows (oldest first), with the fields each
/// reading gave the event.
pub(crate) fn provenance(
    row_facts: &str,
    row_description: Option<String>,
    row_image: Option<String>,
    stored: Vec<StoredReading>,
) -> Vec<crate::model::Provenance> {
    let fields = fields_by_reading(row_facts, row_description, row_image, &stored);
    stored
        .into_iter()
        .zip(fields)
        .map(|(s, fields)| crate::model::Provenance {
            source: Some(s.source).filter(|s| !s.is_empty()),
            fetch_url: s.fetch_url,
            fetched_at: codec::from_ms(s.fetched_ms),
            extractor: s.extractor.as_deref().and_then(Extractor::from_code),
            fields,
        })
        .collect()
}
