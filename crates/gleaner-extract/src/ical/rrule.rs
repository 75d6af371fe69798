//! `RRULE` (RFC 5545 §3.3.10) expansion on wall-clock times, in the zone of `DTSTART`.
//!
//! Supported: `FREQ` `DAILY`, `WEEKLY`, `MONTHLY` and `YEARLY`; `INTERVAL`, `COUNT`,
//! `UNTIL`, `BYDAY` (with ordinals in monthly and yearly rules), `BYMONTHDAY`, `BYMONTH`,
//! `BYSETPOS` and `WKST`. Rules with `FREQ` below a day or with `BYWEEKNO`, `BYYEARDAY`,
//! `BYHOUR`, `BYMINUTE` or `BYSECOND` are refused (the caller keeps the first instance and
//! reports it): event calendars do not use them, and a wrong expansion is worse than none.
//!
//! Expansion always stops: at `COUNT`, at `UNTIL`, at the caller's `stop` time, after
//! `max` instances, and after [`MAX_PERIODS`] periods even when nothing matched.

use chrono::{Datelike, Duration, Months, NaiveDate, NaiveDateTime, Weekday};

/// The most periods (days, weeks, months or years) one rule is stepped through.
pub const MAX_PERIODS: u32 = 100_000;

/// A parsed recurrence rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    freq: Freq,
    interval: u32,
    count: Option<u32>,
    until: Option<Until>,
    by_day: Vec<(Option<i32>, Weekday)>,
    by_month_day: Vec<i32>,
    by_month: Vec<u32>,
    by_set_pos: Vec<i32>,
    week_start: Weekday,
}

/// `UNTIL` as written: a date, a wall-clock time in the `DTSTART` zone, or UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// `UNTIL=20200204`.
    Date(NaiveDate),
    /// `UNTIL=20200204T151459` (floating, read in the `DTSTART` zone).
    Local(NaiveDateTime),
    /// `UNTIL=20200204T151459Z`.
    Utc(NaiveDateTime),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Freq {
    Daily,
    Weekly,
    Monthly,
    Yearly,
}

impl Rule {
    /// Parses an `RRULE` value; the error names what is not supported or not readable.
    pub fn parse(value: &str) -> Result<Rule, String> {
        let mut freq = None;
        let mut rule = Rule {
            freq: Freq::Daily,
            interval: 1,
            count: None,
            until: None,
            by_day: Vec::new(),
            by_month_day: Vec::new(),
            by_month: Vec::new(),
            by_set_pos: Vec::new(),
            week_start: Weekday::Mon,
        };
        for part in value.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(|| format!("`{part}` has no value"))?;
            let k = k.trim().to_ascii_uppercase();
            let v = v.trim();
            let bad = || format!("unreadable `{k}={v}`");
            match k.as_str() {
                "FREQ" => {
                    freq = Some(match v.to_ascii_uppercase().as_str() {
                        "DAILY" => Freq::Daily,
                        "WEEKLY" => Freq::Weekly,
                        "MONTHLY" => Freq::Monthly,
                        "YEARLY" => Freq::Yearly,
                        _ => return Err(format!("`FREQ={v}` is not supported")),
                    })
                }
                "INTERVAL" => rule.interval = v.parse::<u32>().map_err(|_| bad())?.max(1),
                "COUNT" => rule.count = Some(v.parse().map_err(|_| bad())?),
                "UNTIL" => rule.until = Some(parse_until(v).ok_or_else(bad)?),
                "BYDAY" => {
                    for d in v.split(',') {
                        rule.by_day.push(parse_by_day(d.trim()).ok_or_else(bad)?);
                    }
                }
                "BYMONTHDAY" => {
                    for d in v.split(',') {
                        let n: i32 = d.trim().parse().map_err(|_| bad())?;
                        if n == 0 || !(-31..=31).contains(&n) {
                            return Err(bad());
                        }
                        rule.by_month_day.push(n);
                    }
                }
                "BYMONTH" => {
                    for m in v.split(',') {
                        let n: u32 = m.trim().parse().map_err(|_| bad())?;
                        if !(1..=12).contains(&n) {
                            return Err(bad());
                        }
                        rule.by_month.push(n);
                    }
                }
                "BYSETPOS" => {
                    for p in v.split(',') {
                        let n: i32 = p.trim().parse().map_err(|_| bad())?;
                        if n == 0 || !(-366..=366).contains(&n) {
                            return Err(bad());
                        }
                        rule.by_set_pos.push(n);
                    }
                }
                "WKST" => rule.week_start = weekday(v).ok_or_else(bad)?,
                "BYWEEKNO" | "BYYEARDAY" | "BYHOUR" | "BYMINUTE" | "BYSECOND" => {
                    return Err(format!("`{k}` is not supported"));
                }
                _ => {} // X- parts and unknown ones are ignored, as RFC 5545 allows.
            }
        }
        rule.freq = freq.ok_or("no `FREQ`")?;
        Ok(rule)
    }

    /// The wall-clock start times of the rule's instances from `start` (the `DTSTART`,
    /// always the first instance), in order, that fall in `[from, stop]`: the rule is
    /// followed from `start` (so `COUNT` counts every instance), but only those at or after
    /// `from` are kept, at most `max` of them. `until_local` turns a UTC `UNTIL` into
    /// wall-clock time. Each period stepped through spends one unit of `budget`, shared
    /// by all the series of a calendar, so many rules cannot add up to an endless read.
    pub fn expand(
        &self,
        start: NaiveDateTime,
        from: NaiveDateTime,
        stop: NaiveDateTime,
        max: usize,
        budget: &mut u32,
        until_local: impl Fn(NaiveDateTime) -> NaiveDateTime,
    ) -> Vec<NaiveDateTime> {
        let until = self.until.map(|u| match u {
            Until::Date(d) => d.and_hms_opt(23, 59, 59).unwrap_or(start),
            Until::Local(t) => t,
            Until::Utc(t) => until_local(t),
        });
        let limit = until.map_or(stop, |u| u.min(stop));
        let count = self.count.map_or(usize::MAX, |c| c as usize);
        let mut out = Vec::new();
        if start >= from && start <= stop && max > 0 {
            out.push(start);
        }
        let mut seen = 1usize;
        if count <= 1 || out.len() >= max || start > limit {
            return out;
        }
        let time = start.time();
        let start_date = start.date();
        // Without COUNT nothing before `from` matters: start a period before it, so a daily
        // series begun decades ago costs the window's length, not its age.
        let skip =
            if self.count.is_none() { self.periods_before(start_date, from.date()) } else { 0 };
        for period in skip..skip.saturating_add(MAX_PERIODS) {
            if *budget == 0 {
                break;
            }
            *budget -= 1;
            let Some(first) = self.period_first(start_date, period) else { break };
            if first.and_time(time) > limit {
                break;
            }
            let Some(days) = self.period_days(start_date, period) else { break };
            for d in days {
                let t = d.and_time(time);
                if t <= start {
                    continue;
                }
                if t > limit {
                    return out;
                }
                seen += 1;
                if t >= from {
                    out.push(t);
                }
                if seen >= count || out.len() >= max {
                    return out;
                }
            }
        }
        out
    }

    /// How many whole periods lie between `start` and the period before `from`'s.
    fn periods_before(&self, start: NaiveDate, from: NaiveDate) -> u32 {
        if from <= start {
            return 0;
        }
        let units = match self.freq {
            Freq::Daily => (from - start).num_days(),
            Freq::Weekly => (from - start).num_days() / 7,
            Freq::Monthly => {
                i64::from(from.year() - start.year()) * 12 + i64::from(from.month())
                    - i64::from(start.month())
            }
            Freq::Yearly => i64::from(from.year() - start.year()),
        };
        let periods = units / i64::from(self.interval) - 1;
        u32::try_from(periods.max(0)).unwrap_or(0)
    }

    /// The first day of the `n`th period, to know when to stop stepping.
    fn period_first(&self, start: NaiveDate, n: u32) -> Option<NaiveDate> {
        let step = n.checked_mul(self.interval)?;
        match self.freq {
            Freq::Daily => start.checked_add_signed(Duration::days(i64::from(step))),
            Freq::Weekly => week_start(start, self.week_start)
                .checked_add_signed(Duration::weeks(i64::from(step))),
            Freq::Monthly => start.with_day(1)?.checked_add_months(Months::new(step)),
            Freq::Yearly => NaiveDate::from_ymd_opt(start.year().checked_add(step as i32)?, 1, 1),
        }
    }

    /// The days of the `n`th period that match the rule, sorted.
    fn period_days(&self, start: NaiveDate, n: u32) -> Option<Vec<NaiveDate>> {
        let first = self.period_first(start, n)?;
        let mut days: Vec<NaiveDate> = match self.freq {
            Freq::Daily => {
                let ok = (self.by_month.is_empty() || self.by_month.contains(&first.month()))
                    && (self.by_month_day.is_empty()
                        || month_day_matches(&self.by_month_day, first))
                    && (self.by_day.is_empty()
                        || self.by_day.iter().any(|(_, w)| *w == first.weekday()));
                if ok { vec![first] } else { Vec::new() }
            }
            Freq::Weekly => {
                let wanted: Vec<Weekday> = if self.by_day.is_empty() {
                    vec![start.weekday()]
                } else {
                    self.by_day.iter().map(|(_, w)| *w).collect()
                };
                (0..7)
                    .filter_map(|i| first.checked_add_signed(Duration::days(i)))
                    .filter(|d| wanted.contains(&d.weekday()))
                    .filter(|d| self.by_month.is_empty() || self.by_month.contains(&d.month()))
                    .collect()
            }
            Freq::Monthly => {
                if !self.by_month.is_empty() && !self.by_month.contains(&first.month()) {
                    Vec::new()
                } else {
                    self.month_days(first.year(), first.month(), start.day())
                }
            }
            Freq::Yearly => {
                let months: Vec<u32> = if self.by_month.is_empty() {
                    vec![start.month()]
                } else {
                    self.by_month.clone()
                };
                let mut all = Vec::new();
                if self.by_month.is_empty()
                    && self.by_month_day.is_empty()
                    && !self.by_day.is_empty()
                {
                    // `FREQ=YEARLY;BYDAY=20MO`: ordinals count through the whole year.
                    all = year_weekdays(first.year(), &self.by_day);
                } else {
                    for m in months {
                        all.extend(self.month_days(first.year(), m, start.day()));
                    }
                }
                all
            }
        };
        days.sort_unstable();
        days.dedup();
        if !self.by_set_pos.is_empty() {
            let len = days.len() as i32;
            let mut picked: Vec<NaiveDate> = self
                .by_set_pos
                .iter()
                .filter_map(|&p| {
                    let i = if p > 0 { p - 1 } else { len + p };
                    (0..len).contains(&i).then(|| days[i as usize])
                })
                .collect();
            picked.sort_unstable();
            picked.dedup();
            days = picked;
        }
        Some(days)
    }

    /// The matching days of one month (monthly rules, and yearly rules by month).
    fn month_days(&self, year: i32, month: u32, start_day: u32) -> Vec<NaiveDate> {
        let Some(first) = NaiveDate::from_ymd_opt(year, month, 1) else { return Vec::new() };
        let len = days_in_month(first);
        let all = (1..=len).filter_map(|d| NaiveDate::from_ymd_opt(year, month, d));
        if self.by_month_day.is_empty() && self.by_day.is_empty() {
            return NaiveDate::from_ymd_opt(year, month, start_day).into_iter().collect();
        }
        all.filter(|d| self.by_month_day.is_empty() || month_day_matches(&self.by_month_day, *d))
            .filter(|d| {
                self.by_day.is_empty()
                    || self.by_day.iter().any(|(ord, w)| {
                        d.weekday() == *w
                            && match ord {
                                None => true,
                                Some(o) => {
                                    let nth = (d.day() as i32 - 1) / 7 + 1;
                                    let nth_back = (len as i32 - d.day() as i32) / 7 + 1;
                                    *o == nth || *o == -nth_back
                                }
                            }
                    })
            })
            .collect()
    }
}

fn year_weekdays(year: i32, by_day: &[(Option<i32>, Weekday)]) -> Vec<NaiveDate> {
    let Some(first) = NaiveDate::from_ymd_opt(year, 1, 1) else { return Vec::new() };
    let len: i32 = if NaiveDate::from_ymd_opt(year, 2, 29).is_some() { 366 } else { 365 };
    (0..len)
        .filter_map(|i| first.checked_add_signed(Duration::days(i64::from(i))))
        .filter(|d| {
            by_day.iter().any(|(ord, w)| {
                d.weekday() == *w
                    && match ord {
                        None => true,
                        Some(o) => {
                            let doy = d.ordinal0() as i32;
                            *o == doy / 7 + 1 || *o == -((len - 1 - doy) / 7 + 1)
                        }
                    }
            })
        })
        .collect()
}

fn month_day_matches(by: &[i32], d: NaiveDate) -> bool {
    let len = days_in_month(d) as i32;
    by.iter().any(|&n| if n > 0 { d.day() as i32 == n } else { d.day() as i32 == len + n + 1 })
}

fn days_in_month(d: NaiveDate) -> u32 {
    let (y, m) = (d.year(), d.month());
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)
    };
    next.and_then(|n| n.pred_opt()).map_or(28, |l| l.day())
}

fn week_start(d: NaiveDate, wkst: Weekday) -> NaiveDate {
    let back = (7 + d.weekday().num_days_from_monday() - wkst.num_days_from_monday()) % 7;
    d.checked_sub_signed(Duration::days(i64::from(back))).unwrap_or(d)
}

fn weekday(s: &str) -> Option<Weekday> {
    Some(match s.to_ascii_uppercase().as_str() {
        "MO" => Weekday::Mon,
        "TU" => Weekday::Tue,
        "WE" => Weekday::Wed,
        "TH" => Weekday::Thu,
        "FR" => Weekday::Fri,
        "SA" => Weekday::Sat,
        "SU" => Weekday::Sun,
        _ => return None,
    })
}

fn parse_by_day(s: &str) -> Option<(Option<i32>, Weekday)> {
    if s.len() < 2 || !s.is_ascii() {
        return None;
    }
    let (ord, day) = s.split_at(s.len() - 2);
    let w = weekday(day)?;
    if ord.is_empty() {
        return Some((None, w));
    }
    let n: i32 = ord.trim_start_matches('+').parse().ok()?;
    (n != 0 && (-53..=53).contains(&n)).then_some((Some(n), w))
}

fn parse_until(v: &str) -> Option<Until> {
    let v = v.trim();
    let date = NaiveDate::parse_from_str(v.get(..8)?, "%Y%m%d").ok()?;
    if v.len() == 8 {
        return Some(Until::Date(date));
    }
    let rest = v.get(8..)?;
    let (clock, utc) = match rest.strip_suffix(['Z', 'z']) {
        Some(c) => (c, true),
        None => (rest, false),
    };
    let clock = clock.strip_prefix(['T', 't'])?;
    let t = chrono::NaiveTime::parse_from_str(clock, "%H%M%S").ok()?;
    let dt = date.and_time(t);
    Some(if utc { Until::Utc(dt) } else { Until::Local(dt) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unlimited() -> u32 {
        u32::MAX
    }

    fn dt(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, "%Y%m%dT%H%M%S").unwrap()
    }

    fn run(rule: &str, start: &str, n: usize) -> Vec<String> {
        Rule::parse(rule)
            .unwrap()
            .expand(dt(start), dt(start), dt("21000101T000000"), n, &mut unlimited(), |t| t)
            .iter()
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .collect()
    }

    #[test]
    fn rfc5545_examples() {
        let cases: [(&str, &str, usize, &[&str]); 8] = [
            (
                "FREQ=DAILY;COUNT=3",
                "20200128T220000",
                10,
                &["2020-01-28 22:00", "2020-01-29 22:00", "2020-01-30 22:00"],
            ),
            (
                "FREQ=WEEKLY;COUNT=4;BYDAY=MO,WE",
                "20170823T180000",
                10,
                &["2017-08-23 18:00", "2017-08-28 18:00", "2017-08-30 18:00", "2017-09-04 18:00"],
            ),
            (
                "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20170904T215959Z",
                "20170822T190000",
                10,
                &["2017-08-22 19:00"],
            ),
            (
                "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU;UNTIL=20170906T215959Z",
                "20170822T190000",
                10,
                &["2017-08-22 19:00", "2017-09-05 19:00"],
            ),
            (
                "FREQ=MONTHLY;BYDAY=1SA;COUNT=3",
                "20180106T140000",
                10,
                &["2018-01-06 14:00", "2018-02-03 14:00", "2018-03-03 14:00"],
            ),
            (
                "FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3;COUNT=2",
                "20190331T030000",
                10,
                &["2019-03-31 03:00", "2020-03-29 03:00"],
            ),
            (
                "FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=3",
                "20200131T100000",
                10,
                &["2020-01-31 10:00", "2020-02-29 10:00", "2020-03-31 10:00"],
            ),
            (
                "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1;COUNT=2",
                "20200131T100000",
                10,
                &["2020-01-31 10:00", "2020-02-28 10:00"],
            ),
        ];
        for (rule, start, n, want) in cases {
            assert_eq!(run(rule, start, n), want, "{rule}");
        }
    }

    #[test]
    fn counts_from_the_start_but_keeps_only_the_window() {
        let rule = Rule::parse("FREQ=DAILY;COUNT=10").unwrap();
        let got = rule.expand(
            dt("20200101T100000"),
            dt("20200108T000000"),
            dt("20300101T000000"),
            5,
            &mut unlimited(),
            |t| t,
        );
        assert_eq!(got.len(), 3, "{got:?}");
        let rule = Rule::parse("FREQ=DAILY").unwrap();
        let got = rule.expand(
            dt("20000101T100000"),
            dt("20260101T000000"),
            dt("20260103T000000"),
            5,
            &mut unlimited(),
            |t| t,
        );
        assert_eq!(got.len(), 2, "{got:?}");
    }

    #[test]
    fn skipping_ahead_keeps_the_phase_of_the_interval() {
        for rule in [
            "FREQ=WEEKLY;INTERVAL=3;BYDAY=TU,FR",
            "FREQ=DAILY;INTERVAL=5",
            "FREQ=MONTHLY;INTERVAL=7;BYDAY=2WE",
            "FREQ=YEARLY;INTERVAL=3;BYMONTH=3;BYDAY=-1SU",
        ] {
            let r = Rule::parse(rule).unwrap();
            let all = r.expand(
                dt("19900102T080000"),
                dt("19900102T080000"),
                dt("20300101T000000"),
                100_000,
                &mut unlimited(),
                |t| t,
            );
            let from = dt("20200101T000000");
            let want: Vec<_> = all.iter().copied().filter(|t| *t >= from).collect();
            let got = r.expand(
                dt("19900102T080000"),
                from,
                dt("20300101T000000"),
                100_000,
                &mut unlimited(),
                |t| t,
            );
            assert_eq!(got, want, "{rule}");
        }
    }

    #[test]
    fn the_budget_is_shared_and_ends_expansion() {
        let rule = Rule::parse("FREQ=DAILY").unwrap();
        let mut budget = 10;
        let a = rule.expand(
            dt("20200101T100000"),
            dt("20200101T000000"),
            dt("20300101T000000"),
            1000,
            &mut budget,
            |t| t,
        );
        let b = rule.expand(
            dt("20200101T100000"),
            dt("20200101T000000"),
            dt("20300101T000000"),
            1000,
            &mut budget,
            |t| t,
        );
        assert_eq!((a.len(), b.len(), budget), (10, 1, 0));
    }

    #[test]
    fn never_matching_rules_stop() {
        // February never has a 30th: the period cap ends the search.
        assert_eq!(run("FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30", "20200101T100000", 5).len(), 1);
        assert_eq!(run("FREQ=DAILY", "20200101T100000", 7).len(), 7);
    }

    #[test]
    fn refused() {
        for r in ["FREQ=HOURLY", "FREQ=DAILY;BYHOUR=3", "COUNT=3", "FREQ=DAILY;BYDAY=XX"] {
            assert!(Rule::parse(r).is_err(), "{r}");
        }
    }
}
