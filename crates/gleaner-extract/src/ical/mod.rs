//! iCalendar (RFC 5545) calendars: one [`IcalEvent`] per `VEVENT`, or the occurrences of
//! every series within a window (SPEC §2).
//!
//! Read here: line unfolding and text unescaping (also vCalendar 1.0's quoted-printable and
//! base64 values, see `encoding`); `VTIMEZONE`/`TZID` (also duplicated or
//! broken blocks, Mozilla paths and Outlook's Windows names, see [`zone`]); floating times
//! in the source's zone (the caller's [`IcalOptions::default_tz`], else the calendar's
//! `X-WR-TIMEZONE`); all-day events with their exclusive `DTEND`; `DURATION`;
//! `RRULE`/`RDATE`/`EXDATE` expanded in the `DTSTART` zone (see [`rrule`]);
//! `RECURRENCE-ID` overrides; `STATUS:CANCELLED` per instance and `METHOD:CANCEL`; `LOCATION` split into venue,
//! street and locality where it can be; `URL`, `DESCRIPTION`, `CATEGORIES`. The identity of
//! an event is its `UID` plus its `RECURRENCE-ID` ([`IcalEvent::identity`]).
//!
//! Why by hand: the `icalendar` crate maps floating times to the server's zone, errors on
//! non-IANA `TZID`s and leaves `RECURRENCE-ID` to the caller, and `rrule` (which it uses for
//! expansion) is not in the dependency set; what event calendars use of RFC 5545 is small
//! enough to read directly, and this way nothing can panic or run without bound.
//!
//! Caps: [`MAX_BYTES`] of input, [`MAX_EVENTS`] `VEVENT`s, [`MAX_LINE`] bytes per unfolded
//! line, [`IcalOptions::max_instances`] occurrences and [`MAX_PERIODS_TOTAL`] recurrence
//! periods when expanding.

mod encoding;
pub mod rrule;
pub mod zone;

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Duration, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use chrono_tz::Tz;
use gleaner_event::{EventTime, RawEvent};

use crate::{Diagnostic, Format, Severity};
use zone::Zone;

/// Input beyond this many bytes is not read (the fetcher's document cap is 8 MiB).
pub const MAX_BYTES: usize = 16 * 1024 * 1024;
/// `VEVENT`s beyond this many are dropped, with a diagnostic.
pub const MAX_EVENTS: usize = 20_000;
/// Recurrence periods (days, weeks, months, years) stepped through in all, per calendar.
pub const MAX_PERIODS_TOTAL: u32 = 2_000_000;
/// Unfolded lines longer than this are cut (a folded line can be made endless).
pub const MAX_LINE: usize = 256 * 1024;

/// How to read a calendar.
#[derive(Debug, Clone)]
pub struct IcalOptions {
    /// The source's zone, for floating times (`DTSTART:20240101T100000`). Without it the
    /// calendar's `X-WR-TIMEZONE` is used, and without that the time stays floating.
    pub default_tz: Option<Tz>,
    /// Expand series into their occurrences starting in `[from, to)`. `None`: one event per
    /// `VEVENT` (a series as its own `DTSTART`, each override separately).
    pub expand: Option<(DateTime<Utc>, DateTime<Utc>)>,
    /// The most occurrences produced in all, when expanding.
    pub max_instances: usize,
}

impl Default for IcalOptions {
    fn default() -> Self {
        IcalOptions { default_tz: None, expand: None, max_instances: 5_000 }
    }
}

/// One event of a calendar: a `VEVENT`, or one occurrence of a series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IcalEvent {
    /// The `UID`, unfolded and unescaped.
    pub uid: Option<String>,
    /// The `RECURRENCE-ID` of an override, or the original start of an expanded occurrence.
    pub recurrence_id: Option<EventTime>,
    /// Whether the `VEVENT` carries `RRULE` or `RDATE` (a series master).
    pub recurring: bool,
    /// The values, as a [`RawEvent`] for `normalise`; times are already ISO 8601, with the
    /// offset of their zone.
    pub raw: RawEvent,
}

impl IcalEvent {
    /// The stable source identity: `UID`, plus the `RECURRENCE-ID` of an instance.
    pub fn identity(&self) -> Option<String> {
        let uid = self.uid.as_deref()?;
        Some(match &self.recurrence_id {
            Some(r) => format!("{uid}#{}", r.to_iso()),
            None => uid.to_owned(),
        })
    }
}

/// What a calendar held.
#[derive(Debug, Clone, Default)]
pub struct Calendar {
    /// Events in file order (overrides and occurrences after their series).
    pub events: Vec<IcalEvent>,
    /// What was repaired, skipped or refused.
    pub diagnostics: Vec<Diagnostic>,
}

/// Reads a calendar. Never panics; what cannot be read is a diagnostic.
pub fn read(bytes: &[u8], opts: &IcalOptions) -> Calendar {
    let mut cal = Calendar::default();
    let bytes = if bytes.len() > MAX_BYTES {
        cal.diag(Severity::Error, format!("calendar cut at {MAX_BYTES} bytes"), "");
        &bytes[..MAX_BYTES]
    } else {
        bytes
    };
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}');
    let lines = unfold(text, &mut cal);
    let parsed = components(&lines, &mut cal);
    if !parsed.saw_calendar {
        cal.diag(Severity::Error, "no `BEGIN:VCALENDAR`: not an iCalendar document".into(), "");
        if parsed.events.is_empty() {
            return cal;
        }
    }
    let mut ctx = Ctx { zones: HashMap::new(), default: None };
    for tz in &parsed.timezones {
        let Some(id) = tz.first("TZID").map(|p| p.value.trim().to_owned()) else { continue };
        let named = tz.all("TZID").find_map(|p| zone::by_name(&p.value));
        let from_block = || {
            let std = tz.sub_offset("STANDARD");
            let dst = tz.sub_offset("DAYLIGHT");
            let southern = matches!(
                (tz.sub_month("STANDARD"), tz.sub_month("DAYLIGHT")),
                (Some(s), Some(d)) if d > s
            );
            zone::from_offsets(std, dst, southern)
        };
        match named.or_else(from_block) {
            Some(z) => {
                if named.is_none() && !ctx.zones.contains_key(&id) {
                    let what = match z {
                        Zone::Iana(tz) => format!("`{}`", tz.name()),
                        Zone::Fixed(off) => format!("the fixed offset `{off}`"),
                    };
                    cal.diag(
                        Severity::Info,
                        format!("zone `{id}` read as {what} from its VTIMEZONE offsets"),
                        "",
                    );
                }
                ctx.zones.entry(id).or_insert(z);
            }
            None => cal.diag(
                Severity::Warning,
                format!("zone `{id}` has neither a known name nor offsets; its times use the source's zone"),
                "",
            ),
        }
    }
    ctx.default = opts.default_tz.map(Zone::Iana).or_else(|| {
        parsed
            .calendar_props
            .iter()
            .find(|p| p.name == "X-WR-TIMEZONE")
            .and_then(|p| zone::by_name(&p.value))
            // Else the one zone the calendar defines (a `VTIMEZONE` for `Europe/Istanbul`
            // and no other): its floating times are that zone's.
            .or_else(|| match (ctx.zones.values().next(), ctx.zones.len()) {
                (Some(z), 1) => Some(*z),
                _ => None,
            })
    });

    let mut masters: Vec<Built> = Vec::new();
    let mut overrides: Vec<Built> = Vec::new();
    for (i, ev) in parsed.events.iter().enumerate() {
        let loc = format!("vevent #{}", i + 1);
        match build(i, ev, &ctx, &loc, &mut cal) {
            Some(b) if b.event.recurrence_id.is_some() => overrides.push(b),
            Some(b) => masters.push(b),
            None => {}
        }
    }
    // `METHOD:CANCEL` (RFC 5546 §3.2.5): every event the message carries is cancelled —
    // the events of that `VCALENDAR`, not of the others a file may append to it.
    for b in masters.iter_mut().chain(overrides.iter_mut()) {
        if parsed.event_calendar.get(b.index).is_some_and(|c| parsed.cancelling.contains(c)) {
            b.event.raw.status = Some("EventCancelled".to_owned());
        }
    }
    // An override often lists only what changed (Outlook, Exchange): the rest comes from
    // its series, so a cancelled instance still names its venue and page.
    for o in &mut overrides {
        let Some(m) = masters.iter().find(|m| m.event.uid.is_some() && m.event.uid == o.event.uid)
        else {
            continue;
        };
        let (r, mr) = (&mut o.event.raw, &m.event.raw);
        for (field, from) in [
            (&mut r.name, &mr.name),
            (&mut r.description, &mr.description),
            (&mut r.url, &mr.url),
            (&mut r.image, &mr.image),
        ] {
            if field.is_none() {
                field.clone_from(from);
            }
        }
        if r.location_name.is_none() && r.street.is_none() && r.locality.is_none() {
            r.location_name.clone_from(&mr.location_name);
            r.street.clone_from(&mr.street);
            r.locality.clone_from(&mr.locality);
        }
        if r.keywords.is_empty() {
            r.keywords.clone_from(&mr.keywords);
        }
    }
    match opts.expand {
        None => {
            // File order, as the labels count them: one event per VEVENT.
            let mut all: Vec<(usize, IcalEvent)> =
                masters.into_iter().chain(overrides).map(|b| (b.index, b.event)).collect();
            all.sort_by_key(|(i, _)| *i);
            cal.events = all.into_iter().map(|(_, e)| e).collect();
        }
        Some((from, to)) => {
            expand(masters, overrides, from, to, opts.max_instances, &ctx, &mut cal)
        }
    }
    let named: Vec<Zone> = parsed
        .events
        .iter()
        .take(2000)
        .filter_map(|ev| ev.first("DTSTART")?.param("TZID").and_then(zone::by_name))
        .chain(ctx.zones.values().copied())
        .chain(ctx.default)
        .collect();
    dollar_of_zones(&named, &mut cal.events);
    cal
}

/// A bare `$` of an event that names no country is the dollar or peso of the country
/// whose zone the calendar keeps its times in (`TZID=Australia/Sydney`: `Cost $14` is
/// AUD), when all its named zones are of that one country.
fn dollar_of_zones(zones: &[Zone], events: &mut [IcalEvent]) {
    let dollar =
        |o: &gleaner_event::RawOffer| o.currency.as_deref() == Some(gleaner_event::DOLLAR_SIGN);
    if !events.iter().any(|e| e.raw.country.is_none() && e.raw.offers.iter().any(dollar)) {
        return;
    }
    let mut countries = zones
        .iter()
        .filter(|z| {
            **z != Zone::utc() && !matches!(z, Zone::Iana(tz) if tz.name().ends_with("UTC"))
        })
        .map(|z| zone::dollar_country(*z));
    let Some(Some(country)) = countries.next() else { return };
    if !countries.all(|c| c == Some(country)) {
        return;
    }
    let Some(code) = gleaner_event::dollar_currency(country) else { return };
    for e in events.iter_mut().filter(|e| e.raw.country.is_none()) {
        for o in e.raw.offers.iter_mut().filter(|o| dollar(o)) {
            o.currency = Some(code.to_owned());
        }
    }
}

impl Calendar {
    fn diag(&mut self, severity: Severity, message: String, location: &str) {
        self.diagnostics.push(Diagnostic {
            severity,
            format: Format::ICalendar,
            message,
            location: location.to_owned(),
        });
    }
}

/// One content line: `NAME;PARAM=VALUE:value`.
#[derive(Debug, Clone)]
struct Prop {
    name: String,
    params: Vec<(String, String)>,
    value: String,
}

impl Prop {
    fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// The value as text: decoded when its `ENCODING` says quoted-printable or base64 (in
    /// its `CHARSET`), then unescaped (RFC 5545 §3.3.11) unless it was base64.
    fn text(&self) -> String {
        let value = self.value.trim();
        match encoding::ValueEncoding::of(self.param("ENCODING")) {
            Some(enc) => match encoding::decode(value, enc, self.param("CHARSET")) {
                Some(d) if enc == encoding::ValueEncoding::Base64 => d,
                Some(d) => unescape(&d),
                None => unescape(value),
            },
            None => unescape(value),
        }
    }
}

#[derive(Debug, Default)]
struct Component {
    props: Vec<Prop>,
    subs: Vec<(String, Component)>,
}

impl Component {
    fn first(&self, name: &str) -> Option<&Prop> {
        self.props.iter().find(|p| p.name == name)
    }
    fn all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Prop> + 'a {
        self.props.iter().filter(move |p| p.name == name)
    }
    /// The latest `STANDARD` or `DAYLIGHT` part of a `VTIMEZONE` (by its `DTSTART`) with
    /// a `TZOFFSETTO` we read, and that offset.
    fn latest_sub(&self, kind: &str) -> Option<(&Component, i32)> {
        self.subs
            .iter()
            .filter(|(k, _)| k == kind)
            .filter_map(|(_, c)| {
                let start = c.first("DTSTART").map(|p| p.value.as_str()).unwrap_or_default();
                Some((start, c, zone::parse_offset(&c.first("TZOFFSETTO")?.value)?))
            })
            .max_by(|a, b| a.0.cmp(b.0))
            .map(|(_, c, off)| (c, off))
    }
    /// `TZOFFSETTO` of the latest `STANDARD` or `DAYLIGHT` part of a `VTIMEZONE`.
    fn sub_offset(&self, kind: &str) -> Option<i32> {
        self.latest_sub(kind).map(|(_, off)| off)
    }
    /// The month the latest `STANDARD` or `DAYLIGHT` part begins in: its rule's `BYMONTH`,
    /// else its `DTSTART`'s month.
    fn sub_month(&self, kind: &str) -> Option<u32> {
        let (c, _) = self.latest_sub(kind)?;
        let by_month = c.first("RRULE").and_then(|r| {
            r.value.split(';').find_map(|part| {
                let (k, v) = part.split_once('=')?;
                k.trim().eq_ignore_ascii_case("BYMONTH").then(|| v.trim().parse().ok()).flatten()
            })
        });
        by_month.or_else(|| c.first("DTSTART")?.value.trim().get(4..6)?.parse().ok())
    }
}

fn unfold(text: &str, cal: &mut Calendar) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cut = false;
    for raw in text.split('\n') {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        // A quoted-printable soft line break: the value goes on, as written, on this line.
        if let Some(last) = lines.last_mut()
            && encoding::continues_soft(last)
        {
            last.pop();
            if last.len() + raw.len() <= MAX_LINE {
                last.push_str(raw);
            } else {
                cut = true;
            }
            continue;
        }
        if let Some(cont) = raw.strip_prefix([' ', '\t'])
            && let Some(last) = lines.last_mut()
        {
            if last.len() + cont.len() <= MAX_LINE {
                last.push_str(cont);
            } else {
                cut = true;
            }
            continue;
        }
        if raw.trim().is_empty() {
            continue;
        }
        let mut line = raw.to_owned();
        if line.len() > MAX_LINE {
            let mut at = MAX_LINE;
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            line.truncate(at);
            cut = true;
        }
        lines.push(line);
    }
    if cut {
        cal.diag(Severity::Warning, format!("lines longer than {MAX_LINE} bytes were cut"), "");
    }
    lines
}

fn parse_line(line: &str) -> Option<Prop> {
    // The name ends at the first `;` or `:`; parameter values may be quoted and hold `:`.
    let name_end = line.find([';', ':'])?;
    let name = line[..name_end].trim().to_ascii_uppercase();
    if name.is_empty() {
        return None;
    }
    let mut params = Vec::new();
    let mut rest = &line[name_end..];
    while let Some(after) = rest.strip_prefix(';') {
        let eq = after.find(['=', ':', ';'])?;
        if after.as_bytes()[eq] != b'=' {
            // A parameter with no value: skip it.
            rest = &after[eq..];
            continue;
        }
        let key = after[..eq].trim().to_ascii_uppercase();
        let mut v = &after[eq + 1..];
        let value;
        if let Some(q) = v.strip_prefix('"') {
            let close = q.find('"')?;
            value = q[..close].to_owned();
            v = &q[close + 1..];
            // Further values of a list (`"a","b"`) are dropped.
            let end = v.find([';', ':']).unwrap_or(v.len());
            v = &v[end..];
        } else {
            let end = v.find([';', ':']).unwrap_or(v.len());
            value = v[..end].to_owned();
            v = &v[end..];
        }
        params.push((key, value));
        rest = v;
    }
    let value = rest.strip_prefix(':')?.to_owned();
    Some(Prop { name, params, value })
}

struct Parsed {
    saw_calendar: bool,
    calendar_props: Vec<Prop>,
    timezones: Vec<Component>,
    events: Vec<Component>,
    /// The `VCALENDAR` each of `events` is in (0 before the first `BEGIN:VCALENDAR`): a
    /// file may hold several (an iTIP exchange, calendars appended to one another).
    event_calendar: Vec<usize>,
    /// The `VCALENDAR` being read.
    current: usize,
    /// The `VCALENDAR`s whose `METHOD` is `CANCEL`.
    cancelling: HashSet<usize>,
}

fn components(lines: &[String], cal: &mut Calendar) -> Parsed {
    let mut out = Parsed {
        saw_calendar: false,
        calendar_props: Vec::new(),
        timezones: Vec::new(),
        events: Vec::new(),
        event_calendar: Vec::new(),
        current: 0,
        cancelling: HashSet::new(),
    };
    let mut calendars = 0usize;
    // A stack of open components; the calendar itself is not kept on it.
    let mut stack: Vec<(String, Component)> = Vec::new();
    let mut unreadable = 0usize;
    let mut dropped = 0usize;
    for line in lines {
        let Some(p) = parse_line(line) else {
            unreadable += 1;
            continue;
        };
        match p.name.as_str() {
            "BEGIN" => {
                let kind = p.value.trim().to_ascii_uppercase();
                if kind == "VCALENDAR" {
                    out.saw_calendar = true;
                    out.current = calendars;
                    calendars += 1;
                    continue;
                }
                if stack.len() >= 8 {
                    unreadable += 1;
                    continue;
                }
                if kind == "VEVENT" && stack.iter().any(|(k, _)| k == "VEVENT") {
                    // A VEVENT inside a VEVENT: the outer one was never closed.
                    close_until(&mut stack, "VEVENT", &mut out, &mut dropped);
                }
                stack.push((kind, Component::default()));
            }
            "END" => {
                let kind = p.value.trim().to_ascii_uppercase();
                if kind == "VCALENDAR" {
                    while !stack.is_empty() {
                        let top = stack.last().map(|(k, _)| k.clone()).unwrap_or_default();
                        close_until(&mut stack, &top, &mut out, &mut dropped);
                    }
                    continue;
                }
                if stack.iter().any(|(k, _)| *k == kind) {
                    close_until(&mut stack, &kind, &mut out, &mut dropped);
                }
            }
            _ => match stack.last_mut() {
                Some((_, c)) => {
                    if c.props.len() < 1000 {
                        c.props.push(p);
                    }
                }
                None => {
                    if p.name == "METHOD" && p.value.trim().eq_ignore_ascii_case("CANCEL") {
                        out.cancelling.insert(out.current);
                    }
                    if out.calendar_props.len() < 1000 {
                        out.calendar_props.push(p);
                    }
                }
            },
        }
    }
    while let Some((top, _)) = stack.last() {
        let top = top.clone();
        close_until(&mut stack, &top, &mut out, &mut dropped);
    }
    if unreadable > 0 {
        cal.diag(Severity::Info, format!("skipped {unreadable} unreadable lines"), "");
    }
    if dropped > 0 {
        cal.diag(Severity::Error, format!("dropped {dropped} events beyond {MAX_EVENTS}"), "");
    }
    out
}

/// Closes open components down to and including the innermost `kind`.
fn close_until(
    stack: &mut Vec<(String, Component)>,
    kind: &str,
    out: &mut Parsed,
    dropped: &mut usize,
) {
    while let Some((k, c)) = stack.pop() {
        let done = k == kind;
        match stack.last_mut() {
            Some((_, parent)) if k != "VEVENT" && k != "VTIMEZONE" => {
                if parent.subs.len() < 100 {
                    parent.subs.push((k, c));
                }
            }
            _ => match k.as_str() {
                "VEVENT" => {
                    if out.events.len() < MAX_EVENTS {
                        out.events.push(c);
                        out.event_calendar.push(out.current);
                    } else {
                        *dropped += 1;
                    }
                }
                "VTIMEZONE" if out.timezones.len() < 1000 => {
                    out.timezones.push(c);
                }
                _ => {}
            },
        }
        if done {
            return;
        }
    }
}

/// Zones of the calendar and its default for floating times.
struct Ctx {
    zones: HashMap<String, Zone>,
    default: Option<Zone>,
}

/// A calendar time as written: a date, or a wall-clock time in a zone (`None`: floating
/// with no zone known).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    Date(NaiveDate),
    Local(NaiveDateTime, Option<Zone>),
}

impl When {
    fn to_event_time(self) -> EventTime {
        match self {
            When::Date(d) => EventTime::Date(d),
            When::Local(t, None) => EventTime::Floating(t),
            When::Local(t, Some(z)) => {
                z.resolve(t).map_or(EventTime::Floating(t), EventTime::Fixed)
            }
        }
    }

    fn naive(self) -> NaiveDateTime {
        match self {
            When::Date(d) => d.and_time(NaiveTime::MIN),
            When::Local(t, _) => t,
        }
    }

    fn zone(self) -> Option<Zone> {
        match self {
            When::Date(_) => None,
            When::Local(_, z) => z,
        }
    }

    /// The same kind of time at another wall-clock moment.
    fn with_naive(self, t: NaiveDateTime) -> When {
        match self {
            When::Date(_) => When::Date(t.date()),
            When::Local(_, z) => When::Local(t, z),
        }
    }

    /// This time as a wall-clock time in `other`'s zone (for matching EXDATE and
    /// RECURRENCE-ID against a series).
    fn naive_in(self, other: When) -> NaiveDateTime {
        match (self, other) {
            (When::Local(t, Some(z)), When::Local(_, Some(oz))) if z != oz => {
                z.resolve(t).map_or(t, |i| oz.local_of(i))
            }
            (When::Date(d), When::Local(o, _)) => d.and_time(o.time()),
            _ => self.naive(),
        }
    }

    /// An instant, for window checks; floating times and dates are read in `fallback`.
    fn instant(self, fallback: Zone) -> Option<DateTime<FixedOffset>> {
        match self {
            When::Date(d) => fallback.resolve(d.and_time(NaiveTime::MIN)),
            When::Local(t, z) => z.unwrap_or(fallback).resolve(t),
        }
    }
}

fn parse_when(p: &Prop, ctx: &Ctx) -> Result<When, String> {
    parse_value(p.value.split(',').next().unwrap_or(""), p, ctx)
}

fn parse_value(value: &str, p: &Prop, ctx: &Ctx) -> Result<When, String> {
    // `VALUE=PERIOD` values are `start/end`; the start is what counts.
    let v = value.split('/').next().unwrap_or("").trim();
    let bad = || format!("unreadable {} `{}`", p.name, p.value.trim());
    let date =
        NaiveDate::parse_from_str(v.get(..8).ok_or_else(bad)?, "%Y%m%d").map_err(|_| bad())?;
    if v.len() == 8 {
        return Ok(When::Date(date));
    }
    let rest = v.get(8..).ok_or_else(bad)?;
    let rest = rest.strip_prefix(['T', 't']).ok_or_else(bad)?;
    let (clock, utc) = match rest.strip_suffix(['Z', 'z']) {
        Some(c) => (c, true),
        None => (rest, false),
    };
    // `HHMMSS` exactly: a seventh digit (`T1100000Z`) is a typo whose time is unknown, and
    // a wrong time is worse than none.
    if clock.len() != 6 || !clock.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let t = NaiveTime::parse_from_str(clock, "%H%M%S")
        .or_else(|_| {
            // A leap second (`235960`) is read as the second before.
            let hm = clock.get(..4).unwrap_or("");
            NaiveTime::parse_from_str(&format!("{hm}59"), "%H%M%S")
        })
        .map_err(|_| bad())?;
    let local = date.and_time(t);
    if utc {
        return Ok(When::Local(local, Some(Zone::utc())));
    }
    let zone = match p.param("TZID") {
        Some(id) => {
            let id = id.trim();
            match ctx.zones.get(id).copied().or_else(|| zone::by_name(id)) {
                Some(z) => Some(z),
                None => {
                    return Err(format!(
                        "unknown TZID `{id}` on {}; read as the source's zone",
                        p.name
                    ));
                }
            }
        }
        None => ctx.default,
    };
    Ok(When::Local(local, zone))
}

/// Reads a time, falling back to the default zone (with a warning) for an unknown TZID.
fn when_of(p: &Prop, ctx: &Ctx, loc: &str, cal: &mut Calendar) -> Option<When> {
    match parse_when(p, ctx) {
        Ok(w) => Some(w),
        Err(msg) if msg.starts_with("unknown TZID") => {
            cal.diag(Severity::Warning, msg, loc);
            let bare = Prop { name: p.name.clone(), params: Vec::new(), value: p.value.clone() };
            parse_when(&bare, ctx).ok()
        }
        Err(msg) => {
            cal.diag(Severity::Warning, msg, loc);
            None
        }
    }
}

/// The end of an event starting at `start` and lasting `duration`: weeks, days, hours,
/// minutes and seconds (`PT1H30M`, `P2D`); a duration in months or years (`P1M`), whose
/// length depends on the calendar, and a date-only start give none.
pub(crate) fn end_after(start: &str, duration: &str) -> Option<String> {
    use gleaner_event::EventTime;
    let d = duration.trim();
    let date_part = d.split(['T', 't']).next().unwrap_or_default();
    if date_part.contains(['M', 'm', 'Y', 'y']) || d.starts_with('-') {
        return None;
    }
    let length = parse_duration(d).filter(|l| *l > chrono::Duration::zero())?;
    let end = match gleaner_event::time::parse_event_time(start)? {
        EventTime::Date(_) => return None,
        EventTime::Floating(t) => EventTime::Floating(t.checked_add_signed(length)?),
        EventTime::Fixed(t) => EventTime::Fixed(t.checked_add_signed(length)?),
    };
    Some(end.to_iso())
}

/// RFC 5545 §3.3.6 durations: `P1D`, `PT1H30M`, `-P1W`.
pub(crate) fn parse_duration(v: &str) -> Option<Duration> {
    let v = v.trim();
    let (neg, v) = match v.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, v.strip_prefix('+').unwrap_or(v)),
    };
    let v = v.strip_prefix(['P', 'p'])?;
    let mut total = Duration::zero();
    let mut num = String::new();
    let mut any = false;
    for c in v.chars() {
        match c {
            '0'..='9' => num.push(c),
            'T' | 't' => {}
            _ => {
                let n: i64 = num.parse().ok()?;
                if n > 100_000 {
                    return None;
                }
                num.clear();
                any = true;
                total += match c.to_ascii_uppercase() {
                    'W' => Duration::weeks(n),
                    'D' => Duration::days(n),
                    'H' => Duration::hours(n),
                    'M' => Duration::minutes(n),
                    'S' => Duration::seconds(n),
                    _ => return None,
                };
            }
        }
    }
    (any && num.is_empty()).then_some(if neg { -total } else { total })
}

/// RFC 5545 §3.3.11 text: `\n`, `\,`, `\;`, `\\`.
fn unescape(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n' | 'N') => out.push('\n'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// A `VEVENT` read into times and values.
struct Built {
    index: usize,
    event: IcalEvent,
    start: Option<When>,
    /// `DTEND - DTSTART` (or `DURATION`), for each occurrence.
    length: Option<Duration>,
    end_is_date: bool,
    rule: Option<rrule::Rule>,
    rdates: Vec<When>,
    exdates: Vec<When>,
    rid: Option<When>,
}

fn build(index: usize, ev: &Component, ctx: &Ctx, loc: &str, cal: &mut Calendar) -> Option<Built> {
    let text = |name: &str| ev.first(name).map(Prop::text).filter(|s| !s.trim().is_empty());
    let start = ev.first("DTSTART").and_then(|p| when_of(p, ctx, loc, cal));
    let rid = ev.first("RECURRENCE-ID").and_then(|p| when_of(p, ctx, loc, cal));
    let start = start.or(rid);
    let mut end = ev.first("DTEND").and_then(|p| when_of(p, ctx, loc, cal));
    if end.is_none()
        && let (Some(s), Some(d)) =
            (start, ev.first("DURATION").and_then(|p| parse_duration(&p.value)))
    {
        end = Some(s.with_naive(s.naive() + d));
    }
    if let (Some(s), Some(e)) = (start, end)
        && e.naive() < s.naive()
    {
        cal.diag(Severity::Warning, "DTEND before DTSTART, dropped".into(), loc);
        end = None;
    }
    let length = match (start, end) {
        (Some(s), Some(e)) => Some(e.naive_in(s) - s.naive()),
        _ => None,
    };
    let mut rule = None;
    if let Some(p) = ev.first("RRULE") {
        match rrule::Rule::parse(&p.value) {
            Ok(r) => rule = Some(r),
            Err(e) => cal.diag(
                Severity::Warning,
                format!("RRULE `{}` not expanded: {e}", p.value.trim()),
                loc,
            ),
        }
    }
    let mut list = |name: &str| -> Vec<When> {
        let mut out = Vec::new();
        for p in ev.all(name) {
            for v in p.value.split(',').filter(|v| !v.trim().is_empty()).take(10_000) {
                match parse_value(v, p, ctx) {
                    Ok(w) => out.push(w),
                    Err(e) => cal.diag(Severity::Warning, e, loc),
                }
            }
        }
        out
    };
    let rdates = list("RDATE");
    let exdates = list("EXDATE");
    let recurring = ev.first("RRULE").is_some() || !rdates.is_empty();

    let mut raw = RawEvent {
        types: vec!["Event".to_owned()],
        name: text("SUMMARY"),
        description: text("DESCRIPTION"),
        url: text("URL").map(|u| u.trim().to_owned()),
        start: start.map(|s| s.to_event_time().to_iso()),
        end: end.map(|e| e.to_event_time().to_iso()),
        ..RawEvent::default()
    };
    raw.status = text("STATUS").and_then(|s| match s.trim().to_ascii_uppercase().as_str() {
        "CANCELLED" | "CANCELED" => Some("EventCancelled".to_owned()),
        "CONFIRMED" => Some("EventScheduled".to_owned()),
        // `TENTATIVE` is not yet confirmed: it states no status a visitor can rely on.
        _ => None,
    });
    if let Some((name, status)) = raw.name.as_deref().and_then(crate::feeds::split_status_badge) {
        // `SUMMARY:Abgesagt: Chorkonzert`: the name, and the status unless STATUS says one.
        // A cancellation badge beats `CONFIRMED` (Google Calendar confirms every event, and
        // a cancelled one cannot be); `Kammerkonzert (verschoben)` may be confirmed at its
        // new time, and STATUS decides.
        raw.name = Some(name);
        let confirmed = raw.status.as_deref() == Some("EventScheduled");
        if raw.status.is_none() || (confirmed && status == "cancelled") {
            raw.status = Some(status.to_owned());
        }
    }
    raw.keywords = ev
        .all("CATEGORIES")
        .flat_map(|p| split_list(&p.value))
        .filter(|s| !s.is_empty())
        .take(50)
        .collect();
    if let Some(location) = text("LOCATION") {
        let parts = split_location(&location);
        raw.location_name = parts.venue;
        raw.street = parts.street;
        raw.locality = parts.locality;
        raw.country = parts.country;
    }
    raw.image = ev
        .all("ATTACH")
        .chain(ev.all("IMAGE"))
        .find(|p| p.param("FMTTYPE").is_some_and(|t| t.starts_with("image/")) || p.name == "IMAGE")
        .map(|p| p.value.trim().to_owned());
    wordpress_extensions(&text, &mut raw);
    // `Tickets £12 / £8 concessions on the door.`: a price the DESCRIPTION states.
    if let Some(d) = raw.description.clone() {
        crate::feeds::price_from_text(&d, &mut raw);
        if !raw.has_price()
            && raw.is_accessible_for_free.is_none()
            && gleaner_event::says_free_entry(&d)
        {
            // Read from the whole text before the description keeps its lead paragraph.
            raw.is_accessible_for_free = Some("true".to_owned());
        }
        raw.description = Some(lead_paragraph(&d));
    }
    if raw.name.is_none() && raw.start.is_none() {
        cal.diag(Severity::Warning, "VEVENT with neither SUMMARY nor DTSTART, skipped".into(), loc);
        return None;
    }
    Some(Built {
        index,
        event: IcalEvent {
            uid: text("UID").map(|u| u.trim().to_owned()),
            recurrence_id: rid.map(When::to_event_time),
            recurring,
            raw,
        },
        start,
        length,
        end_is_date: matches!(end, Some(When::Date(_))),
        rule,
        rdates,
        exdates,
        rid,
    })
}

/// The lead paragraph of a `DESCRIPTION` written in paragraphs (a blank line, `\n\n`, or an
/// HTML `<br>` between them) when a later one is a price note (`Ücret: 3.500 TL`, `Sellers:
/// tables €15, book by 10 March`): the event's text, before the practical notes, which are
/// read as facts. A description without a price after its lead, in one paragraph, or in
/// lines without a blank one between them, is kept whole (the corpus calendars' notes run
/// on over paragraphs).
fn lead_paragraph(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let cut = [text.find("\n\n"), lower.find("<br")].into_iter().flatten().min();
    match cut {
        Some(at) if !text[..at].trim().is_empty() && crate::feeds::has_money(&text[at..]) => {
            text[..at].trim_end().to_owned()
        }
        _ => text.to_owned(),
    }
}

/// The properties WordPress calendar plugins add to their exports (All-in-One Event
/// Calendar, Events Manager): `X-COST:5 €` and `X-TICKETS-URL`. Their `X-COST-TYPE:free`
/// is the plugin's default for an empty cost field, and says nothing (the corpus's
/// FabLab calendar has it on every event, labelled not free); `X-WP-IMAGES-URL` is left
/// out as the corpus labels leave it out.
fn wordpress_extensions(text: &dyn Fn(&str) -> Option<String>, raw: &mut RawEvent) {
    if let Some(cost) = text("X-COST") {
        crate::feeds::price_from_text(&cost, raw);
    }
    if let Some(tickets) = text("X-TICKETS-URL").map(|t| t.trim().to_owned())
        && tickets.starts_with("http")
    {
        raw.set_ticket_url(tickets);
    }
}

/// A comma-separated text list with `\,` escapes.
fn split_list(v: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = v.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next()
                    && let Some(s) = out.last_mut()
                {
                    s.push(if n == 'n' || n == 'N' { '\n' } else { n })
                }
            }
            ',' => out.push(String::new()),
            _ => {
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    out.into_iter().map(|s| s.trim().to_owned()).collect()
}

/// `LOCATION` split by hand rules.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LocationParts {
    /// The venue's name.
    pub venue: Option<String>,
    /// Street and number.
    pub street: Option<String>,
    /// Town or city.
    pub locality: Option<String>,
    /// The country, as written (`UK`, `España`), when the last part names one.
    pub country: Option<String>,
}

/// Splits a `LOCATION` text into venue, street and locality.
///
/// `Venue, Street 5, 14473 Town[, Country]`: the part with a postal code names the
/// locality, the part before it (when it has a number) the street, and what comes first the
/// venue. Without a postal code, `Venue, Street 5, Town` is read the same way when the
/// middle part has a number. Anything else is the venue's name as written.
pub fn split_location(text: &str) -> LocationParts {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // `Online`, `Zoom`, a meeting link: no place anyone goes to.
    if crate::schema::is_online(&one_line) {
        return LocationParts::default();
    }
    // `LOCATION:Russia`: a country alone is no venue.
    if one_line.chars().count() > 2 && gleaner_event::country_code(&one_line).is_some() {
        return LocationParts { country: Some(one_line), ..LocationParts::default() };
    }
    // `Club de Rodeo Lomas · Medialuna, Camino a Alhué km 4, Villa Quilamuta`: what comes
    // before a middle dot is who writes; the address after the last one is read, and the
    // name just before it is the venue when the address starts at its street.
    if let Some((head, tail)) = one_line.rsplit_once(" · ") {
        let mut parts = split_location(tail);
        if parts.street.is_some() || parts.locality.is_some() {
            if parts.venue.is_none() {
                let name = head.rsplit(" · ").next().unwrap_or(head).trim();
                parts.venue = (!name.is_empty() && !name.contains(|c: char| c.is_ascii_digit()))
                    .then(|| name.to_owned());
            }
            return parts;
        }
    }
    // `Venue @ Street 5, 03044 Town` (WordPress Events Manager).
    if let Some((venue, address)) = one_line.split_once(" @ ") {
        let (address, country) = peel_country(address);
        let mut parts = split_address_parts(address);
        parts.country = country;
        let venue = venue.trim();
        if parts.street.is_none() && parts.locality.is_none() {
            parts.venue = Some(one_line.clone());
            return parts;
        }
        parts.venue = (!venue.is_empty()).then(|| venue.to_owned());
        return parts;
    }
    // `…, Oxford OX4 1UH, UK`: a country named last is peeled off first.
    let (rest, country) = match one_line.rsplit_once(',') {
        Some((rest, _)) if rest.contains(',') => peel_country(&one_line),
        _ => (one_line.as_str(), None),
    };
    let rest = without_region_parts(rest);
    let mut parts = split_address_parts(rest);
    if parts.street.is_some() || parts.locality.is_some() {
        parts.country = country;
        parts.locality = parts.locality.map(|l| district_of(&l).unwrap_or(l));
        return parts;
    }
    // `Dunmore Botanic Garden, Kinnoull Road, Perth, Scotland`: with the country named
    // last, the part before it is the town and the one between the street, numbered or not.
    if country.is_some() {
        let pieces: Vec<&str> = rest.split(',').map(str::trim).collect();
        if let [venue, street, town] = pieces[..]
            && [venue, street, town].iter().all(|p| !p.is_empty() && p.chars().count() <= 60)
            && !is_room(street)
        {
            return LocationParts {
                venue: Some(venue.to_owned()),
                street: Some(street.to_owned()),
                locality: Some(town.to_owned()),
                country,
            };
        }
    }
    LocationParts {
        venue: (!one_line.is_empty()).then_some(one_line),
        street: None,
        locality: None,
        country: None,
    }
}

/// `address` without the country its last comma-separated part names, and that country as
/// written (`…, 28012 Madrid, España`).
fn peel_country(address: &str) -> (&str, Option<String>) {
    match address.rsplit_once(',') {
        Some((rest, last)) if gleaner_event::country_code(last).is_some() => {
            (rest.trim(), Some(last.trim().to_owned()))
        }
        _ => (address, None),
    }
}

/// A Turkish `District / Province` locality (`Nilüfer / Bursa`, `Kadıköy / İstanbul`,
/// `Talas/Kayseri`): the district, the town the address is in.
fn district_of(locality: &str) -> Option<String> {
    let (district, province) = locality.split_once('/')?;
    let name = |t: &str| {
        let t = t.trim();
        t.starts_with(char::is_uppercase)
            && t.split_whitespace().count() <= 2
            && !t.contains(|c: char| c.is_ascii_digit() || c == '/')
    };
    (name(district) && name(province)).then(|| district.trim().to_owned())
}

/// A UK postcode (`OX4 1UH`, `SW1A 1AA`) as the last two words of `part`: the words
/// before it, the town.
fn before_uk_postcode(part: &str) -> Option<&str> {
    let words: Vec<&str> = part.split_whitespace().collect();
    let [.., outward, inward] = words[..] else { return None };
    let b = outward.as_bytes();
    let outward_ok = (2..=4).contains(&b.len())
        && b[0].is_ascii_uppercase()
        && b.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && b.iter().any(u8::is_ascii_digit);
    let i = inward.as_bytes();
    let inward_ok = i.len() == 3
        && i[0].is_ascii_digit()
        && i[1].is_ascii_uppercase()
        && i[2].is_ascii_uppercase();
    if !(outward_ok && inward_ok && words.len() >= 3) {
        return None;
    }
    let end = part.rfind(outward)?;
    Some(part[..end].trim())
}

/// An Australian state and postcode as the last two words of `part` (`Gwynneville NSW
/// 2500`): the words before them, the town.
fn before_au_state(part: &str) -> Option<&str> {
    const STATES: [&str; 8] = ["NSW", "VIC", "QLD", "SA", "WA", "TAS", "NT", "ACT"];
    let words: Vec<&str> = part.split_whitespace().collect();
    let [.., state, code] = words[..] else { return None };
    let ok = words.len() >= 3
        && STATES.contains(&state)
        && code.len() == 4
        && code.bytes().all(|b| b.is_ascii_digit());
    let end = part.rfind(&format!("{state} {code}"))?;
    ok.then(|| part[..end].trim())
}

/// Whether a part of a `LOCATION` names a room, hall or floor inside a building (`Saal 2`,
/// `Vortragssaal`, `Room 204`, `3rd Floor`, `2. OG`, `Salle Molière`, `Sala 3`): it has
/// a number like a street does, but it is no street.
pub(crate) fn is_room(part: &str) -> bool {
    const ROOM_WORDS: [&str; 22] = [
        "saal", "raum", "zimmer", "room", "salle", "sala", "salon", "aula", "floor", "etage",
        "étage", "stock", "og", "ug", "geschoss", "planta", "piso", "suite", "salonu", "amfi",
        "amfisi", "derslik",
    ];
    part.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).any(|w| {
        let w = w.to_lowercase();
        ROOM_WORDS.contains(&w.as_str())
            || ["saal", "raum", "zimmer"].iter().any(|r| w.len() > r.len() + 2 && w.ends_with(r))
    })
}

/// The venue of the parts before the street: a room beside the building is dropped
/// (`Raum 4, Volkshochschule` and `Stadtbibliothek, Vortragssaal` are the building), and
/// of several names the first, which names the building (the written pages' convention).
fn venue_of(parts: &[&str]) -> Option<String> {
    // `Maison de quartier des Capucins (salle 2)`: the room in brackets is not the venue's.
    let parts: Vec<&str> = parts
        .iter()
        .map(|p| match p.strip_suffix(')').and_then(|q| q.rsplit_once(" (")) {
            Some((building, room)) if is_room(room) && !building.trim().is_empty() => {
                building.trim()
            }
            _ => p,
        })
        .collect();
    let parts = &parts[..];
    let named: Vec<&str> = parts.iter().copied().filter(|p| !is_room(p)).collect();
    match (named.first(), parts.len()) {
        (_, 0) => None,
        (_, 1) => Some(parts[0].to_owned()),
        (Some(first), _) => Some((*first).to_owned()),
        (None, _) => Some(parts.join(", ")),
    }
}

/// `[Venue, ]Street 5, 14473 Town[, Country]`, `Street 5 14473 Town`, or
/// `Venue, Street 5, Town`; the venue is what comes before the street.
fn split_address_parts(text: &str) -> LocationParts {
    // `Oxford OX4 1UH`: a town before a UK postcode is the town.
    // `Maison de quartier (salle 2); 12 rue des Capucins, …`: a semicolon (`\;` in the
    // file) parts a building from its street as a comma does.
    let split: Vec<&str> =
        text.split([',', ';']).map(str::trim).filter(|p| !p.is_empty()).collect();
    // `Gwynneville NSW 2500`: a town before an Australian state and postcode likewise.
    fn coded_town(p: &str) -> Option<&str> {
        before_uk_postcode(p).or_else(|| before_au_state(p))
    }
    let uk_town = split.iter().position(|p| coded_town(p).is_some());
    let all: Vec<&str> = split.iter().map(|p| coded_town(p).unwrap_or(p)).collect();
    // A US state and ZIP code last (`…, Springfield, IL 62701`): the town is before it.
    let us_state = |s: &str| {
        let mut w = s.split_whitespace();
        let state =
            w.next().is_some_and(|st| st.len() == 2 && st.bytes().all(|b| b.is_ascii_uppercase()));
        let zip = w.next().is_none_or(|z| {
            let (five, plus) = z.split_once('-').unwrap_or((z, ""));
            five.len() == 5 && five.bytes().chain(plus.bytes()).all(|b| b.is_ascii_digit())
        });
        state && zip && w.next().is_none()
    };
    let parts: &[&str] = match &all[..] {
        [rest @ .., last] if rest.len() >= 2 && us_state(last) => rest,
        _ => &all,
    };
    let has_digit = |s: &str| s.chars().any(|c| c.is_ascii_digit());
    let is_code = |w: &str| (4..=5).contains(&w.len()) && w.chars().all(|c| c.is_ascii_digit());
    let postal = |s: &str| {
        let mut w = s.split_whitespace();
        matches!((w.next(), w.next()), (Some(code), Some(_)) if is_code(code))
    };
    // `16142 Las Majadas (Cuenca)`: the town, without its province in brackets.
    let strip_postal = |s: &str| -> String {
        let town = s.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
        match town.strip_suffix(')').and_then(|t| t.rsplit_once(" (")) {
            Some((name, _)) if !name.trim().is_empty() => name.trim().to_owned(),
            _ => town,
        }
    };
    let streetlike = |s: &str| has_digit(s) && !is_room(s);
    // The town part: the one with a postal code before the town, or the one a UK
    // postcode followed (`Durham DH1 3RL`, read as `Durham`).
    let town_at = parts.iter().position(|s| postal(s)).or(uk_town.filter(|&i| i < parts.len()));
    if let Some(p) = town_at {
        let locality = if postal(parts[p]) { strip_postal(parts[p]) } else { parts[p].to_owned() };
        let locality = Some(locality).filter(|l| !l.is_empty());
        if p >= 1 && streetlike(parts[p - 1]) {
            return LocationParts {
                venue: venue_of(&parts[..p - 1]),
                street: Some(parts[p - 1].to_owned()),
                locality,
                country: None,
            };
        }
        if p >= 1 {
            // `Venue, Street, 03046 Town`: a street without a number.
            if looks_street(parts[p - 1]) {
                return LocationParts {
                    venue: venue_of(&parts[..p - 1]),
                    street: Some(parts[p - 1].to_owned()),
                    locality,
                    country: None,
                };
            }
        }
        return LocationParts {
            venue: venue_of(&parts[..p]),
            street: None,
            locality,
            country: None,
        };
    }
    // `Venue, Hükümet Caddesi No: 14, Kaş, Antalya`, `Venue, Ctra. de Almagro km 3,
    // Valdecañas del Campo, Ciudad Real`: a numbered street, then the town and its province
    // (Turkish, Spanish and Chilean addresses write both): the town, unless the province is
    // a city of districts (`Bahariye Cad. No: 40, Kadıköy, İstanbul`, see [`metropolis`]).
    if let [before @ .., street, district, town] = parts
        && streetlike(street)
        && place_name(district)
        && place_name(town)
        && before.iter().all(|b| !has_digit(b) || is_room(b))
    {
        let locality = if metropolis(town) { town } else { district };
        return LocationParts {
            venue: venue_of(before),
            street: Some((*street).to_owned()),
            locality: Some((*locality).to_owned()),
            country: None,
        };
    }
    // `Venue, Mithatpaşa Cad. No: 12, Karataş, Konak, İzmir`: a Turkish street, then its
    // quarter, district and city; the town as above.
    if let [before @ .., street, quarter, district, town] = parts
        && streetlike(street)
        && place_name(quarter)
        && place_name(district)
        && place_name(town)
        && !before.is_empty()
        && before.iter().all(|b| !has_digit(b) || is_room(b))
    {
        let locality = if metropolis(town) { town } else { district };
        return LocationParts {
            venue: venue_of(before),
            street: Some((*street).to_owned()),
            locality: Some((*locality).to_owned()),
            country: None,
        };
    }
    // `Venue[, Room], Street 5, Town` and `Venue, Room 204, Town`.
    if let [before @ .., middle, town] = parts
        && !before.is_empty()
        && has_digit(middle)
        && !has_digit(town)
    {
        if !is_room(middle) {
            return LocationParts {
                venue: venue_of(before),
                street: Some((*middle).to_owned()),
                locality: Some((*town).to_owned()),
                country: None,
            };
        }
        if before.len() == 1 && !is_room(before[0]) {
            return LocationParts {
                venue: Some(before[0].to_owned()),
                street: None,
                locality: Some((*town).to_owned()),
                country: None,
            };
        }
    }
    // `12 Mill Lane, Leeds`, `Mühlweg 1,Leipzig`: a numbered street and its town alone.
    if let [street, town] = parts
        && has_digit(street)
        && !is_room(street)
        && looks_street(street)
        && place_name(town)
    {
        return LocationParts {
            venue: None,
            street: Some((*street).to_owned()),
            locality: Some((*town).to_owned()),
            country: None,
        };
    }
    // `Street 5 03044 Town` in one part.
    if let Some(last) = parts.last() {
        let words: Vec<&str> = last.split_whitespace().collect();
        if let Some(i) =
            words.iter().position(|w| is_code(w)).filter(|&i| i >= 2 && i + 1 < words.len())
            && has_digit(words[i - 1])
        {
            return LocationParts {
                venue: venue_of(&parts[..parts.len() - 1]),
                street: Some(words[..i].join(" ")),
                locality: Some(words[i + 1..].join(" ")),
                country: None,
            };
        }
    }
    named_parts(parts)
}

/// The places of a `LOCATION` whose street has no number or which names no street:
/// `Marina, Pier Road, Kilbrannagh` (a street word), `Emli Vadisi, Aladağlar, Çamardı/Niğde`
/// (a district and its province), `Kaş Limanı, Kaş, Antalya` (a venue, its town and the
/// province: the town, see [`metropolis`]) and `Erciyes Dağı, Tekir Yaylası çıkışı,
/// Kayseri` (a note in lower case between the venue and the town). Rooms before the venue
/// are dropped as [`venue_of`] does; anything else is no split.
fn named_parts(parts: &[&str]) -> LocationParts {
    let has_digit = |s: &str| s.chars().any(|c| c.is_ascii_digit());
    let names_only =
        |before: &[&str]| !before.is_empty() && before.iter().all(|b| !has_digit(b) || is_room(b));
    let found = |before: &[&str], street: Option<&str>, town: &str| LocationParts {
        venue: venue_of(before),
        street: street.map(str::to_owned),
        locality: Some(town.to_owned()),
        country: None,
    };
    match parts {
        [before @ .., street, town]
            if names_only(before) && looks_street(street) && place_name(town) =>
        {
            found(before, Some(street), town)
        }
        // `Iglesia de San Juan el Real, plaza de San Juan s/n`: a venue and its street.
        [venue, street] if !has_digit(venue) && !looks_street(venue) && looks_street(street) => {
            LocationParts {
                venue: Some((*venue).to_owned()),
                street: Some((*street).to_owned()),
                locality: None,
                country: None,
            }
        }
        // `Fuar Merkezi, A Salonu, Gaziemir, İzmir`, `Bornova Spor Salonu, Bornova,
        // İzmir`: a venue (a room after it) in a district of a city of districts.
        [before @ .., district, town]
            if names_only(before)
                && before.iter().any(|b| !is_room(b))
                && place_name(district)
                && metropolis(town) =>
        {
            found(before, None, town)
        }
        [before @ .., last] if names_only(before) && last.contains('/') => {
            match district_of(last) {
                Some(d) => found(before, None, &d),
                None => LocationParts::default(),
            }
        }
        [venue, middle, town]
            if !is_room(venue)
                && !has_digit(venue)
                && !has_digit(middle)
                && !looks_street(middle)
                && !is_room(middle)
                && place_name(town) =>
        {
            let town = if place_name(middle) && !metropolis(town) { middle } else { town };
            found(&[venue], None, town)
        }
        _ => LocationParts::default(),
    }
}

/// Whether a part of an address is a street without its number (`Pier Road`,
/// `Karl-Marx-Straße`, `Avda. del Ejército s/n`, `chemin du Lac`): a street word in it.
fn looks_street(s: &str) -> bool {
    let l = format!("{} ", s.to_lowercase());
    [
        "straße",
        "strasse",
        "str.",
        "weg ",
        "platz ",
        "allee ",
        "street ",
        "road ",
        "avenue ",
        "lane ",
        "crescent ",
        "rue ",
        "calle ",
        "avenida ",
        "avda. ",
        "av. ",
        "plaza ",
        "paseo ",
        "s/n",
        "ctra. ",
        "carretera ",
        "camino ",
        "chemin ",
        "cad. ",
        "caddesi ",
        "sokak ",
        "sok. ",
        "bulvarı ",
    ]
    .iter()
    .any(|w| l.contains(w) || l.starts_with(w.trim_start()))
}

/// Whether a part of an address is a place's name as towns and provinces are written: one
/// to four words, no digits, opening with a capital; a word in lower case only a short
/// joining word (`Valdecañas del Campo`, `Saint-Donat`, `Los Ríos`, `Alcalá de Henares`),
/// so `Tekir Yaylası çıkışı` (`the exit of …`) is a note, not a place. Streets and rooms
/// are not towns.
fn place_name(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    (1..=4).contains(&words.len())
        && s.chars().next().is_some_and(char::is_uppercase)
        && !s.chars().any(|c| c.is_ascii_digit())
        && words.iter().all(|w| w.starts_with(char::is_uppercase) || w.chars().count() <= 4)
        && !looks_street(s)
        && !is_room(s)
}

/// Cities so large that an address names the district before them (`Kadıköy, İstanbul`,
/// `Chamberí, Madrid`): the city is the locality, where elsewhere the part before the
/// province is the town (`Kaş, Antalya`).
fn metropolis(town: &str) -> bool {
    const CITIES: [&str; 12] = [
        "istanbul",
        "ankara",
        "izmir",
        "madrid",
        "barcelona",
        "paris",
        "berlin",
        "hamburg",
        "münchen",
        "wien",
        "london",
        "buenos aires",
    ];
    let t = town.trim().to_lowercase().replace("i\u{307}", "i");
    CITIES.contains(&t.as_str())
}

/// `address` without the parts after its town that name no place of their own: a postal
/// code alone (`…, Ciudad Real, 13270`, `…, QC, J0T 2C0`) and an Irish county (`…,
/// Kilbrannagh, Co. Clare`). A US or Canadian state code left last is read as the state.
fn without_region_parts(address: &str) -> &str {
    let mut rest = address.trim();
    while let Some((head, last)) = rest.rsplit_once(',') {
        let last = last.trim();
        let code = last.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let digits = (4..=5).contains(&code.len()) && code.bytes().all(|b| b.is_ascii_digit());
        // Canada's `A9A 9A9`.
        let canadian = code.len() == 6
            && code
                .bytes()
                .enumerate()
                .all(|(i, b)| if i % 2 == 0 { b.is_ascii_uppercase() } else { b.is_ascii_digit() });
        let county = last.starts_with("Co. ") || last.starts_with("County ");
        if !(digits || canadian || county) || !head.contains(',') {
            break;
        }
        rest = head.trim();
    }
    rest
}

/// Expands every series into its occurrences starting in `[from, to)`.
fn expand(
    masters: Vec<Built>,
    overrides: Vec<Built>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    max: usize,
    ctx: &Ctx,
    cal: &mut Calendar,
) {
    let fallback = ctx.default.unwrap_or_else(Zone::utc);
    let in_window = |w: When| {
        w.instant(fallback).is_some_and(|i| i >= from.fixed_offset() && i < to.fixed_offset())
    };
    let mut by_uid: HashMap<String, Vec<Built>> = HashMap::new();
    let mut loose = Vec::new();
    for o in overrides {
        match o.event.uid.clone() {
            Some(uid) => by_uid.entry(uid).or_default().push(o),
            None => loose.push(o),
        }
    }
    let mut out: Vec<IcalEvent> = Vec::new();
    let mut capped = false;
    let mut budget = MAX_PERIODS_TOTAL;
    for m in masters {
        let Some(start) = m.start else { continue };
        let mut ovs = m.event.uid.as_ref().and_then(|u| by_uid.remove(u)).unwrap_or_default();
        ovs.sort_by_key(|o| o.index);
        let mut instants: Vec<NaiveDateTime> = match &m.rule {
            Some(rule) => {
                // Stop a day past the window's end in wall-clock time, whatever the zone.
                let stop = to.naive_utc() + Duration::days(2);
                let first = from.naive_utc() - Duration::days(2);
                let zone = start.zone();
                rule.expand(
                    start.naive(),
                    first,
                    stop,
                    max.saturating_add(1000),
                    &mut budget,
                    |utc| {
                        zone.and_then(|z| Zone::utc().resolve(utc).map(|i| z.local_of(i)))
                            .unwrap_or(utc)
                    },
                )
            }
            None => vec![start.naive()],
        };
        instants.extend(m.rdates.iter().map(|r| r.naive_in(start)));
        instants.sort_unstable();
        instants.dedup();
        let excluded: HashSet<NaiveDateTime> =
            m.exdates.iter().map(|x| x.naive_in(start)).collect();
        let excluded_dates: HashSet<NaiveDate> = m
            .exdates
            .iter()
            .filter_map(|x| if let When::Date(d) = x { Some(*d) } else { None })
            .collect();
        // Overrides by the instance they replace; of two for one instance, the later wins.
        let mut by_instance: HashMap<NaiveDateTime, Built> = HashMap::new();
        for o in ovs.drain(..) {
            if let Some(r) = o.rid {
                by_instance.insert(r.naive_in(start), o);
            }
        }
        for t in instants {
            if excluded.contains(&t) || excluded_dates.contains(&t.date()) {
                continue;
            }
            let occ = start.with_naive(t);
            if let Some(o) = by_instance.remove(&t) {
                if o.start.is_some_and(in_window) {
                    out.push(o.event);
                }
                continue;
            }
            if !in_window(occ) {
                continue;
            }
            if out.len() >= max {
                capped = true;
                break;
            }
            let mut e = m.event.clone();
            e.recurrence_id = m.event.recurring.then(|| occ.to_event_time());
            e.raw.start = Some(occ.to_event_time().to_iso());
            e.raw.end = m.length.map(|len| {
                let end = start.with_naive(t + len);
                let end = if m.end_is_date { When::Date(end.naive().date()) } else { end };
                end.to_event_time().to_iso()
            });
            out.push(e);
        }
        // Overrides that moved an instance the series did not produce here.
        let mut moved: Vec<Built> = by_instance.into_values().collect();
        moved.sort_by_key(|o| o.index);
        for o in moved {
            if o.start.is_some_and(in_window) {
                out.push(o.event);
            }
        }
    }
    let mut orphans: Vec<Built> = by_uid.into_values().flatten().chain(loose).collect();
    orphans.sort_by_key(|o| o.index);
    for o in orphans {
        if o.start.is_some_and(in_window) {
            out.push(o.event);
        }
    }
    if budget == 0 {
        cal.diag(
            Severity::Warning,
            format!("expansion stopped after {MAX_PERIODS_TOTAL} recurrence periods in all"),
            "",
        );
    }
    if capped || out.len() > max {
        out.truncate(max);
        cal.diag(Severity::Warning, format!("expansion stopped at {max} occurrences"), "");
    }
    cal.events = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numbered_street_and_its_town() {
        let split = |s: &str| {
            let p = split_location(s);
            (p.venue, p.street, p.locality)
        };
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(
            split("4 Harbour Crescent,Westcliff"),
            (None, some("4 Harbour Crescent"), some("Westcliff"))
        );
        assert_eq!(
            split("Lindenweg 12, Greifswald"),
            (None, some("Lindenweg 12"), some("Greifswald"))
        );
        // No street word, or a room: no split.
        assert_eq!(split("Stage 2, Arena"), (some("Stage 2, Arena"), None, None));
        assert_eq!(split("Room 4 Lane, Leeds").1, None);
    }

    #[test]
    fn locations_with_a_state_or_quarter() {
        let split = |s: &str| {
            let p = split_location(s);
            (p.venue, p.street, p.locality)
        };
        let o = |s: &str| Some(s.to_owned());
        // An Australian town with its state and postcode (`Wollongong NSW 2500`).
        assert_eq!(
            split("Beaton Park Leisure Centre, 5 Foley Street, Gwynneville NSW 2500"),
            (o("Beaton Park Leisure Centre"), o("5 Foley Street"), o("Gwynneville"))
        );
        assert_eq!(
            split("Civic Oval, Cnr King Street & Bay Road, Mornington VIC 3931"),
            (o("Civic Oval"), o("Cnr King Street & Bay Road"), o("Mornington"))
        );
        // A Turkish street, then its quarter, district and city.
        assert_eq!(
            split("Gençlik Evi, Mithatpaşa Cad. No: 12, Karataş, Konak, İzmir"),
            (o("Gençlik Evi"), o("Mithatpaşa Cad. No: 12"), o("İzmir"))
        );
        assert_eq!(
            split("Gençlik Evi, Mithatpaşa Cad. No: 12, Karataş, Seferihisar, Aydın"),
            (o("Gençlik Evi"), o("Mithatpaşa Cad. No: 12"), o("Seferihisar"))
        );
        // A venue (a room after it) in a district of a city of districts.
        assert_eq!(
            split("Bornova Gençlik Merkezi, Bornova, İzmir"),
            (o("Bornova Gençlik Merkezi"), None, o("İzmir"))
        );
        assert_eq!(
            split("Fuar Merkezi, A Salonu, Gaziemir, İzmir"),
            (o("Fuar Merkezi"), None, o("İzmir"))
        );
    }

    #[test]
    fn locations() {
        let cases = [
            (
                "Haus 5, Friedrich-Engels-Str. 22, 14473 Potsdam",
                ("Haus 5", "Friedrich-Engels-Str. 22", "Potsdam"),
            ),
            (
                "freiLand Potsdam, Friedrich-Engels-Straße 22, 14473 Potsdam, Deutschland",
                ("freiLand Potsdam", "Friedrich-Engels-Straße 22", "Potsdam"),
            ),
            ("Zorlu PSM, Levazım Mh. 1, İstanbul", ("Zorlu PSM", "Levazım Mh. 1", "İstanbul")),
            (
                "Saal 2, Stadtbibliothek, Hauptstr. 5, 70173 Stuttgart",
                ("Stadtbibliothek", "Hauptstr. 5", "Stuttgart"),
            ),
            (
                "Stadtbibliothek, Vortragssaal, Hauptstr. 5, 70173 Stuttgart",
                ("Stadtbibliothek", "Hauptstr. 5", "Stuttgart"),
            ),
            ("Town Hall, 2nd Floor, 5 Main St, Ely", ("Town Hall", "5 Main St", "Ely")),
            (
                "Kelda Rowing Club, Boathouse Lane, Durham DH1 3RL, United Kingdom",
                ("Kelda Rowing Club", "Boathouse Lane", "Durham"),
            ),
            (
                "Kadıköy Halk Kütüphanesi, Bahariye Cad. No: 40, Kadıköy, İstanbul",
                ("Kadıköy Halk Kütüphanesi", "Bahariye Cad. No: 40", "İstanbul"),
            ),
            (
                "Maison de quartier des Capucins (salle 2); 12 rue des Capucins, 49100 Angers, France",
                ("Maison de quartier des Capucins", "12 rue des Capucins", "Angers"),
            ),
            (
                "Elm Library, 12 Elm St, Springfield, IL 62701",
                ("Elm Library", "12 Elm St", "Springfield"),
            ),
        ];
        for (input, (v, s, l)) in cases {
            let p = split_location(input);
            assert_eq!(
                (p.venue.as_deref(), p.street.as_deref(), p.locality.as_deref()),
                (Some(v), Some(s), Some(l)),
                "{input}"
            );
        }
        assert_eq!(split_location("machBar Haus5").venue.as_deref(), Some("machBar Haus5"));
        // A country alone (libical's `LOCATION:Russia`) is no venue.
        let p = split_location("Russia");
        assert_eq!((p.venue, p.country.as_deref()), (None, Some("Russia")));
        let p = split_location("FabLab Cottbus @ Walther-Pauer-Straße 5 03044 Cottbus");
        assert_eq!(
            (p.venue.as_deref(), p.street.as_deref(), p.locality.as_deref()),
            (Some("FabLab Cottbus"), Some("Walther-Pauer-Straße 5"), Some("Cottbus"))
        );
        let p = split_location("Spreegallerie Cottbus @ Karl-Marx-Straße, 03046 Cottbus");
        assert_eq!(
            (p.venue.as_deref(), p.street.as_deref(), p.locality.as_deref()),
            (Some("Spreegallerie Cottbus"), Some("Karl-Marx-Straße"), Some("Cottbus"))
        );
    }

    #[test]
    fn locations_with_provinces_codes_and_counties() {
        let cases = [
            // A Canadian province and postal code, each a part of its own.
            (
                "Relais du Lac-Brûlé, 450 chemin du Lac-Brûlé, Saint-Donat, QC, J0T 2C0, Canada",
                (Some("Relais du Lac-Brûlé"), Some("450 chemin du Lac-Brûlé"), "Saint-Donat"),
            ),
            // An Irish county after the town, a street without a number.
            (
                "Children's Room, Ballinore Library, Main Street, Ballinore, Co. Kildare",
                (Some("Ballinore Library"), Some("Main Street"), "Ballinore"),
            ),
            // A Spanish town, its province and a postal code alone.
            (
                "Sala de catas, Bodega San Isidro, Ctra. de Almagro km 3, Valdecañas del Campo, Ciudad Real, 13270, España",
                (Some("Bodega San Isidro"), Some("Ctra. de Almagro km 3"), "Valdecañas del Campo"),
            ),
            // A town and its province: the town; a city of districts: the city.
            (
                "Mavi Dalış Okulu, Hükümet Caddesi No: 14, Kaş, Antalya",
                (Some("Mavi Dalış Okulu"), Some("Hükümet Caddesi No: 14"), "Kaş"),
            ),
            ("Kaş Limanı, Kaş, Antalya", (Some("Kaş Limanı"), None, "Kaş")),
            (
                "Plaza de la República, Valdivia, Los Ríos, Chile",
                (Some("Plaza de la República"), None, "Valdivia"),
            ),
            (
                "Erciyes Dağı, Tekir Yaylası çıkışı, Kayseri",
                (Some("Erciyes Dağı"), None, "Kayseri"),
            ),
            ("Emli Vadisi, Aladağlar, Çamardı/Niğde", (Some("Emli Vadisi"), None, "Çamardı")),
            (
                "Kültür Merkezi Sinema Salonu, Anadolu Üniversitesi, Talas/Kayseri",
                (Some("Anadolu Üniversitesi"), None, "Talas"),
            ),
            // Who writes, a middle dot, then the venue's address.
            (
                "Club de Rodeo Lomas · Medialuna, Camino a Alhué km 4, Villa Quilamuta, Región Metropolitana, Chile",
                (Some("Medialuna"), Some("Camino a Alhué km 4"), "Villa Quilamuta"),
            ),
            (
                "Ateneo de Calatayud · Calle Dato 12, 50300 Calatayud (Zaragoza)",
                (Some("Ateneo de Calatayud"), Some("Calle Dato 12"), "Calatayud"),
            ),
        ];
        for (input, (v, s, l)) in cases {
            let p = split_location(input);
            assert_eq!(
                (p.venue.as_deref(), p.street.as_deref(), p.locality.as_deref()),
                (v, s, Some(l)),
                "{input}"
            );
        }
        assert_eq!(split_location("Ege Salonu, Kordon, İstanbul").locality.as_deref(), None);
        assert_eq!(
            split_location("Zorlu PSM, Beşiktaş, İstanbul").locality.as_deref(),
            Some("İstanbul")
        );
        assert_eq!(
            split_location("Relais, 450 chemin du Lac, Saint-Donat, QC, J0T 2C0, Canada")
                .country
                .as_deref(),
            Some("Canada")
        );
    }

    #[test]
    fn badges_beat_confirmed_and_a_price_note_is_no_description() {
        let text = "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART;VALUE=DATE:20260509\r\n\
                    DTEND;VALUE=DATE:20260510\r\nSUMMARY:İPTAL - Feria\r\nSTATUS:CONFIRMED\r\n\
                    DESCRIPTION:Gran feria. Entrada libre.\\n\\nPuestos: 10 €.\r\nEND:VEVENT\r\n\
                    BEGIN:VEVENT\r\nUID:2\r\nDTSTART;VALUE=DATE:20260509\r\n\
                    DTEND;VALUE=DATE:20260511\r\nSUMMARY:Two days\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
        let cal = read(text.as_bytes(), &IcalOptions::default());
        let one = &cal.events[0].raw;
        assert_eq!(one.end.as_deref(), Some("2026-05-10"));
        assert_eq!(one.status.as_deref(), Some("cancelled"));
        assert_eq!(one.name.as_deref(), Some("Feria"));
        // The lead paragraph is the description; the later one is read for its price.
        assert_eq!(one.description.as_deref(), Some("Gran feria. Entrada libre."));
        assert!(one.has_price());
        // A later paragraph without a price is the description's too.
        let notes = "Erstes Treffen.\n\nWird es einen neuen Erfa geben?";
        assert_eq!(lead_paragraph(notes), notes);
    }

    #[test]
    fn a_bare_dollar_is_the_currency_of_the_calendars_zone() {
        let currency = |tzid: &str| {
            let text = format!(
                "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART;TZID={tzid}:20260613T100000\r\n\
                 SUMMARY:Excursion\r\nDESCRIPTION:Cost $14 (bus and entry).\r\nEND:VEVENT\r\n\
                 END:VCALENDAR\r\n"
            );
            let cal = read(text.as_bytes(), &IcalOptions::default());
            cal.events[0].raw.offers.first().and_then(|o| o.currency.clone())
        };
        for (tzid, want) in [
            ("Australia/Melbourne", "AUD"),
            ("America/Edmonton", "CAD"),
            ("America/Santiago", "CLP"),
            // Not a dollar country's zone: the sign as written.
            ("Europe/London", "$"),
        ] {
            assert_eq!(currency(tzid).as_deref(), Some(want), "{tzid}");
        }
    }

    #[test]
    fn a_floating_time_takes_the_calendars_one_zone() {
        // Issue 24, page 328: one VTIMEZONE, no X-WR-TIMEZONE, one DTSTART without TZID.
        let zone = "BEGIN:VTIMEZONE\r\nTZID:Europe/Istanbul\r\nBEGIN:STANDARD\r\n\
                    TZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nDTSTART:19700101T000000\r\n\
                    END:STANDARD\r\nEND:VTIMEZONE\r\n";
        let event = "BEGIN:VEVENT\r\nUID:1\r\nDTSTART:20260319T190000\r\nSUMMARY:Söyleşi\r\n\
                     END:VEVENT\r\n";
        let start = |zones: &str| {
            let text = format!("BEGIN:VCALENDAR\r\n{zones}{event}END:VCALENDAR\r\n");
            read(text.as_bytes(), &IcalOptions::default()).events[0].raw.start.clone()
        };
        assert_eq!(start(zone).as_deref(), Some("2026-03-19T19:00:00+03:00"));
        // Without a zone the time stays floating.
        assert_eq!(start("").as_deref(), Some("2026-03-19T19:00:00"));
    }

    #[test]
    fn status_confirmed_is_stated_tentative_is_not() {
        let cal = |status: &str| {
            let text = format!(
                "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20260613T100000\r\n\
                 SUMMARY:Open day\r\nSTATUS:{status}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
            );
            read(text.as_bytes(), &IcalOptions::default()).events[0].raw.status.clone()
        };
        assert_eq!(cal("CONFIRMED").as_deref(), Some("EventScheduled"));
        assert_eq!(cal("CANCELLED").as_deref(), Some("EventCancelled"));
        assert_eq!(cal("TENTATIVE"), None);
    }

    #[test]
    fn text_and_lines() {
        assert_eq!(unescape(r"a\, b\; c\nd\\e"), "a, b; c\nd\\e");
        let p =
            parse_line(r#"DTSTART;TZID="Europe/Berlin";VALUE=DATE-TIME:20240101T100000"#).unwrap();
        assert_eq!(p.param("TZID"), Some("Europe/Berlin"));
        assert_eq!(p.value, "20240101T100000");
        assert_eq!(parse_duration("PT1H30M"), Some(Duration::minutes(90)));
        assert_eq!(parse_duration("P1W"), Some(Duration::weeks(1)));
        assert_eq!(parse_duration("P"), None);
    }
}
