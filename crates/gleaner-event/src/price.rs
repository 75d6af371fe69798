//! Prices written as text: `13.00`, `$35`, `13,50 €`, `EUR 1.234,50`, `Free`.

use rust_decimal::Decimal;

/// A price read from text: the amount and, when a symbol or code says so, the currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedPrice {
    pub amount: Decimal,
    pub currency: Option<&'static str>,
}

const FREE_WORDS: &[&str] =
    &["free", "gratis", "gratuit", "gratuite", "kostenlos", "ücretsiz", "gratuito", "libre"];

/// Reads a price. Words meaning "free" read as zero.
pub(crate) fn parse_price(text: &str) -> Option<ParsedPrice> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    let lower = t.to_lowercase();
    let currency = currency_in(&lower);
    if FREE_WORDS.iter().any(|w| lower.contains(w))
        && !lower.chars().any(|c| c.is_ascii_digit() && c != '0')
    {
        return Some(ParsedPrice { amount: Decimal::ZERO, currency });
    }
    // The first run of digits with separators.
    let start = t.find(|c: char| c.is_ascii_digit())?;
    let run: String = t[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '\'' | ' '))
        .collect();
    let run = run.trim_end_matches([' ', '.', ',', '\'']);
    let amount = parse_amount(run)?;
    Some(ParsedPrice { amount, currency })
}

fn parse_amount(run: &str) -> Option<Decimal> {
    let cleaned: String = run.chars().filter(|c| *c != ' ' && *c != '\'').collect();
    let last_dot = cleaned.rfind('.');
    let last_comma = cleaned.rfind(',');
    let normalised = match (last_dot, last_comma) {
        (Some(d), Some(c)) if c > d => cleaned.replace('.', "").replace(',', "."),
        (Some(_), Some(_)) => cleaned.replace(',', ""),
        (None, Some(c)) => {
            // `13,50` is a decimal comma; `1,234` is a thousands separator.
            if cleaned.len() - c - 1 == 3 && cleaned.matches(',').count() >= 1 && c > 0 {
                cleaned.replace(',', "")
            } else {
                cleaned.replace(',', ".")
            }
        }
        (Some(_), None) if cleaned.matches('.').count() > 1 => cleaned.replace('.', ""),
        _ => cleaned,
    };
    normalised.parse::<Decimal>().ok().filter(|d| !d.is_sign_negative())
}

fn currency_in(lower: &str) -> Option<&'static str> {
    const SYMBOLS: &[(&str, &str)] = &[
        ("us$", "USD"),
        ("ca$", "CAD"),
        ("a$", "AUD"),
        ("€", "EUR"),
        ("£", "GBP"),
        ("₺", "TRY"),
        ("¥", "JPY"),
        ("$", "USD"),
    ];
    const CODES: &[&str] = &[
        "usd", "cad", "aud", "eur", "gbp", "chf", "try", "jpy", "sek", "nok", "dkk", "pln", "czk",
    ];
    let code = lower
        .split(|c: char| !c.is_alphabetic())
        .find_map(|tok| CODES.iter().find(|c| **c == tok))
        .map(|c| match *c {
            "usd" => "USD",
            "cad" => "CAD",
            "aud" => "AUD",
            "eur" => "EUR",
            "gbp" => "GBP",
            "chf" => "CHF",
            "try" => "TRY",
            "jpy" => "JPY",
            "sek" => "SEK",
            "nok" => "NOK",
            "dkk" => "DKK",
            "pln" => "PLN",
            _ => "CZK",
        });
    code.or_else(|| SYMBOLS.iter().find(|(k, _)| lower.contains(k)).map(|(_, v)| *v))
}

/// An ISO 4217 code from `priceCurrency` (upper-cased), or a symbol read as a code.
pub(crate) fn currency_code(value: &str) -> Option<String> {
    let v = value.trim();
    if v.len() == 3 && v.chars().all(|c| c.is_ascii_alphabetic()) {
        return Some(v.to_ascii_uppercase());
    }
    currency_in(&v.to_lowercase()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<(String, Option<&'static str>)> {
        parse_price(s).map(|p| (p.amount.to_string(), p.currency))
    }

    #[test]
    fn prices() {
        assert_eq!(p("13.00"), Some(("13.00".into(), None)));
        assert_eq!(p("$35"), Some(("35".into(), Some("USD"))));
        assert_eq!(p("13,50 €"), Some(("13.50".into(), Some("EUR"))));
        assert_eq!(p("EUR 1.234,50"), Some(("1234.50".into(), Some("EUR"))));
        assert_eq!(p("1,234"), Some(("1234".into(), None)));
        assert_eq!(p("Free"), Some(("0".into(), None)));
        assert_eq!(p("£12.5"), Some(("12.5".into(), Some("GBP"))));
        assert_eq!(p("call us"), None);
        assert_eq!(currency_code("usd").as_deref(), Some("USD"));
    }
}
