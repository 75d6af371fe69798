//! Property tests of the word-date and price-line readers: any text, in any of the five
//! languages' words, never panics, and text without a digit never yields a date.

use chrono::NaiveDate;
use gleaner_event::datetext::{DateOrder, parse_text_date, parse_text_time};
use gleaner_event::parse_price_text;
use proptest::prelude::*;

/// Words and marks the readers look for, so random text reaches every branch.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("5".to_owned()),
        Just("31".to_owned()),
        Just("2026".to_owned()),
        Just("décembre".to_owned()),
        Just("Aralık".to_owned()),
        Just("Dez.".to_owned()),
        Just("de".to_owned()),
        Just("Sa.,".to_owned()),
        Just("sábado".to_owned()),
        Just("Dec".to_owned()),
        Just("mar.".to_owned()),
        Just("20h".to_owned()),
        Just("20:00".to_owned()),
        Just("–".to_owned()),
        Just("8pm".to_owned()),
        Just("p.m.".to_owned()),
        Just("Uhr".to_owned()),
        Just("12,50 €".to_owned()),
        Just("$10–$20".to_owned()),
        Just("ab".to_owned()),
        Just("Entrée libre".to_owned()),
        Just("/".to_owned()),
        Just(".".to_owned()),
        "[ -~]{0,6}",
        "\\PC{0,4}",
    ]
}

proptest! {
    #[test]
    fn never_panics(parts in proptest::collection::vec(fragment(), 0..24), seps in "[ ,.]{0,24}") {
        let mut text = String::new();
        for (i, p) in parts.iter().enumerate() {
            text.push_str(p);
            text.push(seps.chars().nth(i).unwrap_or(' '));
        }
        let reference = NaiveDate::from_ymd_opt(2026, 11, 30);
        let _ = parse_text_date(&text, reference, DateOrder::DayFirst);
        let _ = parse_text_date(&text, None, DateOrder::MonthFirst);
        let _ = parse_text_time(&text);
        let _ = parse_price_text(&text);
    }

    #[test]
    fn never_invents_a_date_from_digit_free_text(text in "\\PC{0,80}") {
        let digit_free: String = text.chars().filter(|c| !c.is_ascii_digit()).collect();
        let reference = NaiveDate::from_ymd_opt(2026, 11, 30);
        prop_assert_eq!(parse_text_date(&digit_free, reference, DateOrder::DayFirst), None);
    }

    #[test]
    fn a_written_date_reads_back(day in 1u32..=28, month in 1u32..=12, year in 2000i32..2100) {
        const NAMES: [&str; 12] = ["janvier", "Februar", "marzo", "Nisan", "May", "juin",
            "Temmuz", "agosto", "Sept.", "Okt.", "noviembre", "Aralık"];
        let text = format!("{day} {} {year}", NAMES[month as usize - 1]);
        let got = parse_text_date(&text, None, DateOrder::DayFirst).map(|d| d.start.date());
        prop_assert_eq!(got, NaiveDate::from_ymd_opt(year, month, day));
    }
}
