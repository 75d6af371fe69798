//! Prices written as text: `13.00`, `$35`, `13,50 €`, `EUR 1.234,50`, `150 TL`, `Free`,
//! and ranges and floors for whole price lines: `$10–$20`, `ab 15 €`, `Entrée libre`.

use rust_decimal::Decimal;

/// A price read from text: the amount and, when a symbol or code says so, the currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedPrice {
    pub amount: Decimal,
    pub currency: Option<&'static str>,
}

const FREE_WORDS: &[&str] = &[
    "free",
    "gratis",
    "gratuit",
    "gratuite",
    "kostenlos",
    "ücretsiz",
    "ucretsiz",
    "gratuito",
    "libre",
    "eintritt frei",
    "frei",
    "bedava",
];

/// A whole price line read from text: a single price, a range, a floor (`ab 15 €`, `from
/// $10`) or free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PriceText {
    /// The lowest price (zero when free).
    pub min: Decimal,
    /// The highest price; `None` for a floor (`ab 15 €`).
    pub max: Option<Decimal>,
    /// ISO 4217 code, when a symbol or code says so; a bare `$` is [`DOLLAR_SIGN`], whose
    /// code depends on the country.
    pub currency: Option<&'static str>,
    /// Whether the text says entry is free.
    pub is_free: bool,
}

/// Reads a price line: `12,50 €`, `€12.50`, `150 TL`, `CHF 20`, `£8`, `ab 15 €`, `from
/// $10`, `$10–$20`, `10 – 20 €`, and the free words (Free, Ücretsiz, Gratuit, Entrée
/// libre, Gratis, Entrada libre, Eintritt frei, Kostenlos). `None` when it holds no price.
///
/// An amount written in words before a currency word (`diez euros`, `drei Euro`) reads
/// as its digits ([`crate::amounts_in_words`]).
pub fn parse_price_text(text: &str) -> Option<PriceText> {
    let words = crate::price_words::amounts_in_words(text);
    let t = words.trim();
    if t.is_empty() || t.len() > 2048 {
        return None;
    }
    // A free tier (`Under 12s free, adults $35`): the lowest price is zero, and the ages
    // it names are no prices.
    if crate::free_tier::states_free_tier(t) {
        return tiered(t);
    }
    let t = past_leading_date(past_ages(t));
    let first = parse_price(t)?;
    let lower = t.to_lowercase();
    // `PAF libre (au chapeau)`, `a la gorra`: pay what you wish is neither a price nor free.
    if first.amount.is_zero() && pay_what_you_wish(t) {
        return None;
    }
    if first.amount.is_zero() && FREE_WORDS.iter().any(|w| lower.contains(w)) {
        return Some(PriceText {
            min: Decimal::ZERO,
            max: Some(Decimal::ZERO),
            currency: first.currency,
            is_free: true,
        });
    }
    let floor = ["ab ", "from ", "à partir de", "a partir de", "dès ", "desde ", "itibaren"]
        .iter()
        .any(|w| lower.contains(w))
        || lower.trim_end().ends_with('+');
    // A second amount after a dash or `to`/`bis`/`à`/`a`/`-`: a range.
    let start = t.find(|c: char| c.is_ascii_digit())?;
    let after_first = t[start..]
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '\'' | ' ')))
        .map(|i| start + i)
        .unwrap_or(t.len());
    let rest = &t[after_first..];
    let rest_lower = format!(" {}", rest.to_lowercase());
    // A reduced price after the full one (`14 € / ermäßigt 9 €`, `12 £, concessions 8 £`).
    let reduced = rest.contains('/')
        || [
            "ermäßigt",
            "ermässigt",
            "réduit",
            "reduced",
            "concession",
            "indirimli",
            "reducida",
            // Members' prices (`9 € (adhérents 6 €)`, `12 €, Mitglieder 8 €`).
            "adhérent",
            // `15 $ par famille membre, 25 $ non membre`, `socio 10 €, no miembro 15 €`.
            "member",
            "membre",
            "miembro",
            "mitglieder",
            "socios",
            "üye",
            // Children's and students' prices (`8 €, Kinder 5 €`, `$12, or $6 for students`).
            "kinder",
            "child",
            "enfant",
            "niño",
            "niños",
            "çocuk",
            "student",
            "étudiant",
            "estudiante",
            "schüler",
            "menores",
            "öğrenci",
        ]
        .iter()
        .any(|w| rest_lower.contains(w));
    let second = if rest.contains(['-', '–', '—'])
        || reduced
        || [" to ", " bis ", " à ", " a ", " y "].iter().any(|w| rest_lower.contains(w))
    {
        // The amount next to a currency sign when the text writes one (`4 €; menores de 12
        // años, 2 €`: 2, not the age 12), else the first.
        let runs: Vec<usize> = rest
            .char_indices()
            .filter(|(i, c)| {
                c.is_ascii_digit()
                    && !rest[..*i].ends_with(|p: char| p.is_ascii_digit() || p == '.' || p == ',')
            })
            .map(|(i, _)| i)
            .collect();
        let priced = |i: usize| {
            let before = rest[..i].trim_end();
            let after = rest[i..]
                .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ','))
                .trim_start();
            before.ends_with(['$', '€', '£', '₺']) || after.starts_with(['$', '€', '£', '₺'])
        };
        let signed = rest.contains(['$', '€', '£', '₺']);
        runs.iter()
            .copied()
            .find(|i| !signed || priced(*i))
            .or_else(|| runs.first().copied())
            .and_then(|i| parse_price(&rest[i..]))
    } else {
        None
    };
    let second_unmarked = second.as_ref().is_some_and(|s| s.currency.is_none());
    let currency = first.currency.or(second.as_ref().and_then(|s| s.currency));
    let (mut min, mut max) = match second {
        Some(s) if s.amount >= first.amount => (first.amount, Some(s.amount)),
        Some(s) if reduced => (s.amount, Some(first.amount)),
        _ if floor => (first.amount, None),
        _ => (first.amount, Some(first.amount)),
    };
    // Each tier written with its currency (`Kat. I € 42,–, Kat. II € 34,–, Stehplatz €
    // 18,–`, `Entry €5 (€3 juniors)`, `adultes CHF 35.–, enfants CHF 20.–`): the range
    // runs from the cheapest to the dearest, unless one amount is part of another
    // (`12 € inkl. 2 € Pfand`).
    // A dearer amount with something more (`15 € (25 € avec le bal de la veille)`) is
    // another ticket's.
    const PART_OF: [&str; 13] = [
        "incl",
        "inkl",
        "including",
        "dont ",
        "deposit",
        "pfand",
        "fee",
        "frais",
        "depozito",
        " avec ",
        " with ",
        " mit ",
        " con ",
    ];
    // A family's or a group's ticket (`Family (2+2) £40`) is no one's price.
    const GROUP_TICKETS: [&str; 8] =
        ["family", "famille", "familie", "familia", "aile", "group", "gruppe", "grupo"];
    let per_person: Vec<&str> = t
        .split(['·', '|', ';', '/'])
        .flat_map(|seg| seg.split(", "))
        .filter(|seg| {
            let seg = seg.to_lowercase();
            !seg.split(|c: char| !c.is_alphanumeric())
                .any(|w| GROUP_TICKETS.iter().any(|g| w.starts_with(g)))
        })
        .collect();
    let marked = marked_amounts(&per_person.join(" · "));
    // One amount written with its currency and another without, after it (`huit euros ;
    // billetterie à partir du 18 mai`): the other is no price.
    if let [only] = marked.as_slice()
        && only.amount == first.amount
        && second_unmarked
    {
        max = max.map(|_| first.amount);
        min = first.amount;
    }
    if marked.len() >= 2
        && !floor
        && !PART_OF.iter().any(|w| lower.contains(w))
        && let (Some(lo), Some(hi)) =
            (marked.iter().map(|a| a.amount).min(), marked.iter().map(|a| a.amount).max())
    {
        (min, max) = (lo, Some(hi));
    }
    Some(PriceText { min, max, currency, is_free: min.is_zero() && max == Some(Decimal::ZERO) })
}

/// A price text from after the ages that open it (`Over-18s only, £22` reads from `£22`,
/// `18+ welcome, 10 €` from `10 €`): a number glued to an `s` or a `+` is an age.
fn past_ages(t: &str) -> &str {
    let mut rest = t;
    for _ in 0..3 {
        let Some(i) = rest.find(|c: char| c.is_ascii_digit()) else { break };
        let end = rest[i..].find(|c: char| !c.is_ascii_digit()).map_or(rest.len(), |j| i + j);
        let glued = rest[end..].starts_with(['s', '+'])
            && !rest[end + 1..].starts_with(char::is_alphabetic)
            && !rest[..i].ends_with(['$', '€', '£', '₺']);
        if !glued || !rest[end..].contains(|c: char| c.is_ascii_digit()) {
            break;
        }
        rest = &rest[end + 1..];
    }
    rest
}

/// A price text from the first amount written with a currency sign, when a date or a
/// time opens it (`Sábado 4/4 a las 15 hs, cupo 12 personas, $18.000` reads from
/// `$18.000`, `19:30 Uhr, Eintritt 12 €` from `12 €`): a number written before a slash or
/// a colon and another number, neither with a currency sign of its own (`10/8 €` is a
/// full and a reduced price).
fn past_leading_date(t: &str) -> &str {
    const SIGNS: [char; 4] = ['$', '€', '£', '₺'];
    let runs: Vec<(usize, usize)> = t
        .char_indices()
        .filter(|(i, c)| c.is_ascii_digit() && !t[..*i].ends_with(|p: char| p.is_ascii_digit()))
        .take(40)
        .map(|(i, _)| (i, t[i..].find(|c: char| !c.is_ascii_digit()).map_or(t.len(), |j| i + j)))
        .collect();
    let signed_before = |i: usize| t[..i].trim_end().ends_with(SIGNS);
    let signed_after = |end: usize| {
        let after = t[end..]
            .trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ',' | '\''))
            .trim_start();
        // A sign or a currency code as a word (`900 TL`, `25 EUR`).
        after.starts_with(SIGNS)
            || ["tl", "eur", "euro", "chf", "usd", "gbp", "try"].iter().any(|code| {
                after.get(..code.len()).is_some_and(|w| w.eq_ignore_ascii_case(code))
                    && !after[code.len()..].starts_with(char::is_alphabetic)
            })
    };
    let Some(&(first, first_end)) = runs.first() else { return t };
    // Or a time written with a dot and followed by a time word or suffix (`19.30'da`,
    // `19.30 Uhr`, `9.30 h`).
    let dotted_time = t[first_end..].starts_with('.')
        && runs.get(1).is_some_and(|&(i, end)| {
            let rest = t[end..].to_lowercase();
            i == first_end + 1
                && end - i == 2
                && (rest.starts_with(['\'', '’'])
                    || rest.starts_with(" uhr")
                    || rest.starts_with(" h ")
                    || rest.starts_with(" h,")
                    || rest.starts_with("h "))
        });
    let dated = ((t[first_end..].starts_with('/') || t[first_end..].starts_with(':'))
        && runs.get(1).is_some_and(|&(i, end)| i == first_end + 1 && !signed_after(end)))
        || dotted_time;
    if !dated || signed_before(first) || signed_after(first_end) {
        return t;
    }
    match runs.iter().find(|(i, end)| signed_before(*i) || signed_after(*end)) {
        Some(&(i, _)) if signed_before(i) => {
            let sign = t[..i].trim_end();
            let width = sign.chars().next_back().map_or(0, char::len_utf8);
            &t[sign.len() - width..]
        }
        Some(&(i, _)) => &t[i..],
        None => t,
    }
}

/// A price text with a free tier: zero up to the dearest amount written next to a
/// currency (`£18 reserved / £12 unreserved / under-18s free` is 0–18 GBP); `None` when no
/// amount is (`Members free`: a group's price, not the event's).
fn tiered(t: &str) -> Option<PriceText> {
    let mut range = priced_range(t)?;
    range.min = Decimal::ZERO;
    range.is_free = range.max.is_some_and(|m| m.is_zero());
    Some(range)
}

/// The cheapest to the dearest of the amounts a text writes next to a currency sign or
/// code (`Luneta $850`, `Tam: 250 TL · Çocuk: 180 TL · gruplara %20 indirim` is 180–250
/// TRY; ages and group sizes are no prices); `None` when it writes none. For a page's
/// tariff of several lines.
pub fn priced_range(t: &str) -> Option<PriceText> {
    let amounts = marked_amounts(t);
    let max = amounts.iter().map(|a| a.amount).max()?;
    let min = amounts.iter().map(|a| a.amount).min()?;
    let currency =
        amounts.iter().find_map(|a| a.currency).or_else(|| currency_in(&t.to_lowercase()));
    Some(PriceText { min, max: Some(max), currency, is_free: false })
}

/// The amounts a text writes next to a currency sign or code, in order (at most 32).
fn marked_amounts(t: &str) -> Vec<ParsedPrice> {
    let mut amounts: Vec<ParsedPrice> = Vec::new();
    let mut at = 0;
    while let Some(i) = t[at..].find(|c: char| c.is_ascii_digit()).map(|i| at + i) {
        let len = t[i..]
            .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '\'')))
            .unwrap_or(t.len() - i);
        at = i + len;
        // Up to eight characters either side, where a sign or a code would be.
        let before: String =
            t[..i].chars().rev().take(8).collect::<Vec<_>>().into_iter().rev().collect();
        let before = before.to_lowercase();
        let before = before.trim_end();
        let after: String = t[at..].chars().take(8).collect::<String>().to_lowercase();
        let after = after.trim_start_matches(['–', '-', ' ']);
        // `R30` (rand): a capital R right before the amount, opening a word.
        let rand = t[..i].ends_with('R')
            && !t[..i - 1].ends_with(char::is_alphanumeric)
            && !t[at..].starts_with(char::is_alphabetic);
        // `Fr.` is also Friday in German: `Fr. 14.06.`, `Fr. 30.10.2026` and `Fr. 6. März`
        // are dates, and `Fr. 20 Uhr` a time.
        let franc = before.ends_with("fr.")
            && t[i..at].matches('.').count() < 2
            && !t[at..].trim_start().starts_with(char::is_alphabetic);
        let marked = rand
            || franc
            || before.ends_with(['$', '€', '£', '₺'])
            || ["chf", "eur", "s/", "tl"].iter().any(|m| before.ends_with(m))
            || after.starts_with(['$', '€', '£', '₺'])
            || ["tl", "eur", "euro", "euros", "chf", "try", "usd", "gbp"].iter().any(|m| {
                after.strip_prefix(m).is_some_and(|r| !r.starts_with(char::is_alphabetic))
            });
        if !marked {
            continue;
        }
        if let Some(amount) = parse_amount(t[i..at].trim_end_matches(['.', ','])) {
            let currency =
                if rand { Some("ZAR") } else { currency_in(before).or_else(|| currency_in(after)) };
            amounts.push(ParsedPrice { amount, currency });
            if amounts.len() >= 32 {
                break;
            }
        }
    }
    amounts
}

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
        // `7.000`, `1.500 TL`: one dot before exactly three digits is a thousands
        // separator (no price is written to a thousandth); `0.500` stays a decimal.
        (Some(d), None)
            if cleaned.len() - d - 1 == 3 && (1..=3).contains(&d) && !cleaned.starts_with('0') =>
        {
            cleaned.replace('.', "")
        }
        _ => cleaned,
    };
    normalised.parse::<Decimal>().ok().filter(|d| !d.is_sign_negative())
}

fn currency_in(lower: &str) -> Option<&'static str> {
    // A prefixed dollar names its country's; a bare `$` stays the sign ([`DOLLAR_SIGN`]):
    // which dollar or peso it is depends on where the event is ([`currency_code`]).
    const SYMBOLS: &[(&str, &str)] = &[
        ("us$", "USD"),
        ("ca$", "CAD"),
        ("c$", "CAD"),
        ("au$", "AUD"),
        ("a$", "AUD"),
        ("nz$", "NZD"),
        ("mx$", "MXN"),
        ("r$", "BRL"),
        ("€", "EUR"),
        ("£", "GBP"),
        ("₺", "TRY"),
        ("¥", "JPY"),
        ("$", DOLLAR_SIGN),
    ];
    const CODES: &[&str] = &[
        "usd", "cad", "aud", "eur", "gbp", "chf", "try", "jpy", "sek", "nok", "dkk", "pln", "czk",
        "tl", "ytl", "euro", "euros",
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
            "tl" | "ytl" => "TRY",
            "euro" | "euros" => "EUR",
            _ => "CZK",
        });
    // `Fr. 20.–` (Swiss francs), `S/ 10.00` (Peruvian soles): a sign before an amount.
    let before_amount = |sign: &str| {
        lower.match_indices(sign).any(|(i, _)| {
            let starts = i == 0 || !lower[..i].ends_with(char::is_alphanumeric);
            starts && lower[i + sign.len()..].trim_start().starts_with(|c: char| c.is_ascii_digit())
        })
    };
    code.or_else(|| (before_amount("fr.") || before_amount("sfr")).then_some("CHF"))
        .or_else(|| before_amount("s/").then_some("PEN"))
        .or_else(|| SYMBOLS.iter().find(|(k, _)| lower.contains(k)).map(|(_, v)| *v))
        .or_else(|| rand_amount(lower).then_some("ZAR"))
}

/// Whether a text writes an amount in South African rand: `R30`, `R1 500`, an `R` that
/// opens a word and is followed at once by a number that no letter follows (not `R2D2`,
/// not `Raum 5`).
fn rand_amount(text: &str) -> bool {
    text.char_indices().filter(|(_, c)| matches!(c, 'r' | 'R')).take(200).any(|(i, _)| {
        let starts = !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '$');
        let rest = &text[i + 1..];
        let after_number =
            rest.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ','));
        starts
            && rest.starts_with(|c: char| c.is_ascii_digit())
            && !after_number.starts_with(char::is_alphabetic)
    })
}

/// What [`PriceText::currency`] holds for a bare `$`: the sign as written, since the
/// dollar or peso it means depends on the country ([`currency_code`] resolves it).
pub const DOLLAR_SIGN: &str = "$";

/// An ISO 4217 code from `priceCurrency` (upper-cased), or a symbol read as a code; a
/// bare `$` is the currency of the event's `country` that writes its prices with it (the
/// US dollar when no country is known).
pub(crate) fn currency_code(value: &str, country: Option<&str>) -> Option<String> {
    let v = value.trim();
    if v.len() == 3 && v.chars().all(|c| c.is_ascii_alphabetic()) {
        return Some(v.to_ascii_uppercase());
    }
    match currency_in(&v.to_lowercase())? {
        DOLLAR_SIGN => Some(country.and_then(dollar_of).unwrap_or("USD").to_owned()),
        code => Some(code.to_owned()),
    }
}

/// The currency a bare `$` means in a country (ISO 3166-1 alpha-2) that writes its
/// prices with it (`CA` is CAD, `AR` ARS); `None` for one that does not.
pub fn dollar_currency(country: &str) -> Option<&'static str> {
    dollar_of(country)
}

/// The currency a bare `$` means in a country (ISO 3166-1 alpha-2), where prices are
/// written with it: the dollars, and the pesos of the Americas that use the sign. Source:
/// ISO 4217's list of currencies by country and the countries' own price writing (the
/// Chilean, Argentine, Colombian, Mexican, Uruguayan, Cuban and Dominican pesos are
/// written `$`); countries that use the US dollar say so too.
fn dollar_of(country: &str) -> Option<&'static str> {
    Some(match country.trim().to_ascii_uppercase().as_str() {
        "US" | "EC" | "SV" | "PA" | "PR" | "TL" | "FM" | "MH" | "PW" | "ZW" => "USD",
        "CA" => "CAD",
        "AU" | "KI" | "NR" | "TV" => "AUD",
        "NZ" | "CK" | "NU" => "NZD",
        "MX" => "MXN",
        "CL" => "CLP",
        "AR" => "ARS",
        "CO" => "COP",
        "UY" => "UYU",
        "CU" => "CUP",
        "DO" => "DOP",
        "SG" => "SGD",
        "HK" => "HKD",
        "TW" => "TWD",
        "JM" => "JMD",
        "TT" => "TTD",
        "BS" => "BSD",
        "BB" => "BBD",
        "BZ" => "BZD",
        "BM" => "BMD",
        "KY" => "KYD",
        "GY" => "GYD",
        "SR" => "SRD",
        "LR" => "LRD",
        "NA" => "NAD",
        "FJ" => "FJD",
        "SB" => "SBD",
        "BN" => "BND",
        _ => return None,
    })
}

/// Whether a description says entry is free, in one of the five languages: `free
/// admission`, `entrée libre`, `Gratuit, sur inscription`, `entrada libre`, `Eintritt
/// frei`, `Giriş ücretsiz`. A bare English "free" says nothing (`feel free`); a free word
/// about something else (`gratuit pour les moins de 12 ans`, `kostenlose Parkplätze`,
/// `ücretsiz otopark`) says nothing either.
pub fn says_free(text: &str) -> bool {
    if pay_what_you_wish(text) {
        return false;
    }
    let folded = crate::datetext::fold_diacritics(text).to_lowercase();
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != ':')
        .filter(|w| !w.is_empty())
        .collect();
    // `enfants gratuit`, `Kinder kostenlos`: one group's price, not free entry.
    states_free_entry(&words)
        || opens_free(&folded)
        // `CWAC waterbird count (free, counters welcome)`: a bracket that opens with it.
        || folded.match_indices('(').take(8).any(|(i, _)| opens_free(&folded[i + 1..]))
        || (says_free_in_words(&words) && !crate::free_tier::states_free_tier(text))
}

/// Whether a folded text opens with English "free" standing alone (`Free – all climbers
/// welcome`, `Free!`, `Free, no booking needed`) or as free to take part (`Free to play;
/// winners take home a $50 bar tab`), not as a thing's adjective (`Free parking`).
fn opens_free(folded: &str) -> bool {
    let Some(rest) = folded.trim_start().strip_prefix("free") else { return false };
    let rest = rest.trim_start();
    rest.is_empty()
        || rest.starts_with(['–', '—', '-', ',', ':', ';', '!', '.', '('])
        || [
            "to play",
            "to attend",
            "to join",
            "to enter",
            "to participate",
            "for all",
            "for everyone",
        ]
        .iter()
        .any(|p| rest.starts_with(p))
}

/// Whether a text asks visitors to pay what they wish (`participation libre`, `PAF libre
/// (au chapeau)`, `a la gorra`, `la voluntad`, `koha`, `pay what you can`) without saying
/// in so many words that entry is free (`Entrée libre, chapeau à la sortie` and `Free
/// entry – koha welcome` are free): neither a price nor free, by the labels' decisions.
pub fn pay_what_you_wish(text: &str) -> bool {
    const PHRASES: [&str; 9] = [
        "chapeau",
        "participation libre",
        "paf libre",
        "prix libre",
        "a la gorra",
        "la voluntad",
        "koha",
        "pay what you",
        "pay-what-you",
    ];
    let folded = crate::datetext::fold_diacritics(text).to_lowercase();
    if !PHRASES.iter().any(|p| folded.contains(p)) {
        return false;
    }
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != ':')
        .filter(|w| !w.is_empty())
        .collect();
    !states_free_entry(&words)
}

/// Whether a text states that entry is free in so many words (`Eintritt frei`, `entrée
/// libre`, `free admission`, `giriş ücretsiz`): the strict half of [`says_free`], for text
/// that is notes rather than a listing (a calendar's `DESCRIPTION`), where a bare `kostenlos`
/// may be about a course, a drink or the parking.
pub fn says_free_entry(text: &str) -> bool {
    let folded = crate::datetext::fold_diacritics(text).to_lowercase();
    let words: Vec<&str> = folded
        .split(|c: char| !c.is_alphanumeric() && c != ':')
        .filter(|w| !w.is_empty())
        .collect();
    states_free_entry(&words)
}

fn states_free_entry(words: &[&str]) -> bool {
    const PHRASES: [&str; 28] = [
        // Chile's `Entrada liberada`; English `Free, all welcome`, `Free, donations welcome`.
        "entrada liberada",
        "free all welcome",
        "free donations welcome",
        // Entry that is or will be free (`La entrada será libre`, `L'entrée est libre`).
        "entrada es libre",
        "entrada sera libre",
        "entrada es gratuita",
        "entree est libre",
        "entree sera libre",
        "giris serbesttir",
        "free admission",
        "admission is free",
        "admission free",
        "free entry",
        "entry is free",
        "free of charge",
        "free and open to the public",
        "entree libre",
        "entree gratuite",
        "entrada libre",
        "entrada gratuita",
        "eintritt frei",
        "eintritt ist frei",
        "freier eintritt",
        "eintritt: frei",
        "giris ucretsiz",
        "giris serbest",
        "katilim ucretsiz",
        "ucretsizdir",
    ];
    let joined = format!(" {} ", words.join(" "));
    PHRASES.iter().any(|p| joined.contains(&format!(" {p} ")))
}

fn says_free_in_words(words: &[&str]) -> bool {
    // With their plurals (`Tous les concerts sont gratuits`, `actividades gratuitas`).
    const WORDS: [&str; 13] = [
        "gratuit",
        "gratuite",
        "gratuits",
        "gratuites",
        "gratuitos",
        "gratuitas",
        "gratis",
        "gratuito",
        "gratuita",
        "kostenlos",
        "kostenfrei",
        "gebuhrenfrei",
        "ucretsiz",
    ];
    const ABOUT_ELSE: [&str; 11] = [
        "pour", "jusqu", "para", "fur", "otopark", "servis", "ulasim", "park", "parking", "moins",
        "menores",
    ];
    // `a free workshop`, `this free, online info session`: English "free" after a
    // determiner and before (within three words) the kind of event it is.
    const DETERMINERS: [&str; 5] = ["a", "this", "our", "the", "these"];
    const EVENT_NOUNS: [&str; 20] = [
        "event",
        "events",
        "session",
        "sessions",
        "workshop",
        "workshops",
        "concert",
        "concerts",
        "talk",
        "talks",
        "class",
        "classes",
        "lecture",
        "screening",
        "webinar",
        "program",
        "programme",
        "tour",
        "performance",
        "seminar",
    ];
    let english = words.iter().enumerate().any(|(i, w)| {
        *w == "free"
            && i > 0
            && DETERMINERS.contains(&words[i - 1])
            && words[i + 1..].iter().take(3).any(|n| EVENT_NOUNS.contains(n))
    });
    english
        || words.iter().enumerate().any(|(i, w)| {
            WORDS.contains(w)
                && words
                    .get(i + 1)
                    .is_none_or(|next| !ABOUT_ELSE.iter().any(|a| next.starts_with(a)))
        })
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_date_or_time_before_the_price_is_no_price() {
        let read = |t: &str| {
            let p = super::parse_price_text(t).expect("a price");
            (p.min.to_string(), p.max.map(|m| m.to_string()))
        };
        let range = |a: &str, b: &str| (a.to_owned(), Some(b.to_owned()));
        for (text, want) in [
            ("Samedi 7/3 à 14 h, atelier de 8 places, 25 € matériel compris.", range("25", "25")),
            ("19:30 Uhr, Eintritt 12 €", range("12", "12")),
            ("Sat 3/14, doors 7pm, $15 at the door", range("15", "15")),
            (
                "Toplantı saat 19.30'da başlıyor, akşam yemeği kişi başı 900 TL.",
                range("900", "900"),
            ),
            ("Beginn 19.30 Uhr, Eintritt 8 €", range("8", "8")),
            // A full and a reduced price: no date.
            ("10/8 €", range("8", "10")),
        ] {
            assert_eq!(read(text), want, "{text}");
        }
    }

    #[test]
    fn a_members_price_is_a_reduced_tier() {
        let p = super::parse_price_text("12 $ par famille membre, 20 $ par famille non membre")
            .expect("a price");
        assert_eq!(
            (p.min.to_string(), p.max.map(|m| m.to_string())),
            ("12".into(), Some("20".into()))
        );
    }

    #[test]
    fn descriptions_that_say_entry_is_free() {
        for yes in [
            "Gratuit, sur inscription.",
            "Entrée libre, libre participation aux frais.",
            "Entrada libre hasta completar aforo.",
            "Über 60 Höfe öffnen ihre Tore. Eintritt frei.",
            "Giriş ücretsiz.",
            "Free admission; all ages.",
            "Join us at this free, online info session and learn more.",
            "A free workshop for beginners.",
            "Entgelt: kostenfrei",
            // Issue 24, batch 110–129: a programme's intro, in the plural.
            "Tous les concerts sont gratuits.",
            "Todas las actividades son gratuitas.",
            "La entrada será libre hasta completar el aforo.",
            "L'entrée est libre.",
            "Giriş serbesttir.",
            "Entrée libre, chapeau à la sortie.",
            "Free entry – koha welcome.",
            "Free – all women and non-binary climbers welcome",
            "Free to play; winners take home a $50 bar tab.",
            "FREE!",
            "CWAC waterbird count, Settlers Dam (free, counters welcome)",
        ] {
            assert!(says_free(yes), "{yes}");
        }
        for no in [
            "Feel free to bring a friend.",
            "Gratuit pour les moins de 12 ans.",
            "Gratuits pour les moins de 12 ans.",
            "Kostenlose Parkplätze am Haus.",
            "Ücretsiz otopark mevcuttur.",
            "Tickets 12 €.",
            "Enjoy a free parking space and a gluten free menu.",
            "The event is free of worries.",
            "Adultes 15 €, enfants gratuit.",
            "Mitglieder kostenlos, Gäste 5 €.",
            // Pay what you wish is not free.
            "PAF libre (au chapeau).",
            "Participation libre.",
            "La entrada es a la gorra.",
            "Free parking behind the hall.",
            "Freestyle session",
            "Free under-12s with an adult",
            "Swap meet (free parking on site)",
            "Open day (free for members)",
        ] {
            assert!(!says_free(no), "{no}");
        }
    }
    use super::*;

    fn p(s: &str) -> Option<(String, Option<&'static str>)> {
        parse_price(s).map(|p| (p.amount.to_string(), p.currency))
    }

    fn line(s: &str) -> Option<(String, Option<String>, Option<&'static str>, bool)> {
        parse_price_text(s)
            .map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency, p.is_free))
    }

    #[test]
    fn free_entry_in_chilean_and_english_phrases() {
        for yes in [
            "Entrada liberada.",
            "A talk on VHF drills. Free, all welcome.",
            "Free, donations welcome.",
        ] {
            assert!(says_free_entry(yes), "{yes}");
        }
        assert!(!says_free_entry("Free parking, all welcome"));
    }

    #[test]
    fn price_lines_in_five_languages() {
        let some = |min: &str, max: Option<&str>, cur: Option<&'static str>| {
            Some((min.to_owned(), max.map(str::to_owned), cur, false))
        };
        let free =
            |cur: Option<&'static str>| Some(("0".to_owned(), Some("0".to_owned()), cur, true));
        let cases = [
            ("12,50 €", some("12.50", Some("12.50"), Some("EUR"))),
            // Children's and students' prices are reduced ones; an age is no price.
            ("8 €, Kinder 5 €", some("5", Some("8"), Some("EUR"))),
            ("$12, or $6 for students", some("6", Some("12"), Some("$"))),
            ("Entrada: 4 €; menores de 12 años, 2 €.", some("2", Some("4"), Some("EUR"))),
            ("€12.50", some("12.50", Some("12.50"), Some("EUR"))),
            ("150 TL", some("150", Some("150"), Some("TRY"))),
            ("120,50 TL", some("120.50", Some("120.50"), Some("TRY"))),
            ("₺150", some("150", Some("150"), Some("TRY"))),
            ("ab 15 €", some("15", None, Some("EUR"))),
            ("à partir de 8 €", some("8", None, Some("EUR"))),
            ("desde 10 €", some("10", None, Some("EUR"))),
            ("from $10", some("10", None, Some("$"))),
            ("$10–$20", some("10", Some("20"), Some("$"))),
            ("$10 - $20", some("10", Some("20"), Some("$"))),
            ("US$10", some("10", Some("10"), Some("USD"))),
            ("NZ$145.00", some("145.00", Some("145.00"), Some("NZD"))),
            ("$7.000", some("7000", Some("7000"), Some("$"))),
            ("1.500 TL", some("1500", Some("1500"), Some("TRY"))),
            ("10 – 20 €", some("10", Some("20"), Some("EUR"))),
            ("12,00 € – 18,00 €", some("12.00", Some("18.00"), Some("EUR"))),
            ("$25.00 – $40.00", some("25.00", Some("40.00"), Some("$"))),
            ("CHF 20", some("20", Some("20"), Some("CHF"))),
            ("20 CHF", some("20", Some("20"), Some("CHF"))),
            ("£8", some("8", Some("8"), Some("GBP"))),
            ("Tarif : 12,50 €", some("12.50", Some("12.50"), Some("EUR"))),
            ("Preis: 9 Euro", some("9", Some("9"), Some("EUR"))),
            ("de 12 a 22 €", some("12", Some("22"), Some("EUR"))),
            ("Eintritt: 14 € / ermäßigt 9 €", some("9", Some("14"), Some("EUR"))),
            ("£12, concessions £8", some("8", Some("12"), Some("GBP"))),
            ("Free", free(None)),
            ("Ücretsiz", free(None)),
            ("Gratuit", free(None)),
            ("Entrée libre", free(None)),
            ("Gratis", free(None)),
            ("Entrada libre", free(None)),
            ("Eintritt frei", free(None)),
            ("Kostenlos", free(None)),
            ("Free drop in", free(None)),
            // A free tier: the lowest price is zero, an age is no price, the event is not
            // free for everyone.
            ("Under 12s free, adults $35", some("0", Some("35"), Some("$"))),
            ("$45 with under-14s free", some("0", Some("45"), Some("$"))),
            ("£18 reserved / £12 unreserved / under-18s free", some("0", Some("18"), Some("GBP"))),
            ("Adultes Fr. 15.–, enfants gratuit", some("0", Some("15"), Some("CHF"))),
            ("kişi başı 300 TL, 12 yaş altı ücretsiz", some("0", Some("300"), Some("TRY"))),
            ("150 TL, free for members", some("0", Some("150"), Some("TRY"))),
            ("Kinder frei, Erwachsene € 3,–", some("0", Some("3"), Some("EUR"))),
            ("Members free", None),
            (
                "Tarifs : 15 euros, réduit 10 euros (étudiants), gratuit pour les moins de 12 ans.",
                some("0", Some("15"), Some("EUR")),
            ),
            ("Mujeres: adhesión liberada", None),
            // Swiss francs and Peruvian soles written as a sign.
            ("Fr. 20.–", some("20", Some("20"), Some("CHF"))),
            // Every tier written with its currency: the cheapest to the dearest.
            (
                "Karten: Kat. I € 42,–, Kat. II € 34,–, Stehplatz € 18,–",
                some("18", Some("42"), Some("EUR")),
            ),
            ("Entry €5 (€3 juniors)", some("3", Some("5"), Some("EUR"))),
            ("Entry €25, €15 under-18s", some("15", Some("25"), Some("EUR"))),
            (
                "Inscription : adultes CHF 35.–, enfants jusqu'à 16 ans CHF 20.–",
                some("20", Some("35"), Some("CHF")),
            ),
            ("£25 / £15 / £10 restricted view", some("10", Some("25"), Some("GBP"))),
            ("12 € inkl. 2 € Pfand", some("12", Some("12"), Some("EUR"))),
            // An age glued to `s` or `+` is no price.
            ("Over-18s only, £22 including a glass", some("22", Some("22"), Some("GBP"))),
            ("18+ welcome, 10 €", some("10", Some("10"), Some("EUR"))),
            ("PAF : 15 € (25 € avec le bal de la veille)", some("15", Some("15"), Some("EUR"))),
            (
                "Tarif unique : 8 euros ; billetterie à partir du 18 mai",
                some("8", Some("8"), Some("EUR")),
            ),
            (
                "Adults £14 · Concessions £12 · Children (under 16) £9 · Family (2+2) £40",
                some("9", Some("14"), Some("GBP")),
            ),
            ("General S/ 10.00", some("10.00", Some("10.00"), Some("PEN"))),
            ("R150 incl. notes", some("150", Some("150"), Some("ZAR"))),
            ("Members free, visitors R30", some("0", Some("30"), Some("ZAR"))),
            ("Price: to be announced", None),
            ("PAF libre (au chapeau)", None),
            ("Entrée libre, chapeau à la sortie", free(None)),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(line(text), want, "`{text}`");
        }
    }

    #[test]
    fn amounts_next_to_a_currency_make_a_range() {
        let r = |s: &str| {
            priced_range(s).map(|p| (p.min.to_string(), p.max.map(|m| m.to_string()), p.currency))
        };
        let range = |a: &str, b: &str, c: &'static str| Some((a.into(), Some(b.into()), Some(c)));
        assert_eq!(
            r("Tam: 250 TL · Çocuk ve öğrenci: 180 TL · 10 kişi ve üzeri gruplara %20 indirim."),
            range("180", "250", "TRY")
        );
        assert_eq!(r("Niños de 6 a 12 años: 20 € / adultos 35 €"), range("20", "35", "EUR"));
        assert_eq!(r("Luneta $850 Galería $350"), range("350", "850", "$"));
        assert_eq!(r("10 kişi ve üzeri gruplara indirim"), None);
        // Rand written `R30`; not a room.
        assert_eq!(r("Members free, visitors R30 per outing"), range("30", "30", "ZAR"));
        assert_eq!(r("Visitors R20, members free"), range("20", "20", "ZAR"));
        assert_eq!(r("Room R2D2, Raum 5"), None);
        // `Fr.` before a date is Friday, before an amount francs.
        assert_eq!(r("Fr. 30.10.2026, 20 Uhr"), None);
        assert_eq!(r("Fr. 14.06. Offene Bühne"), None);
        assert_eq!(r("Fr. 6. März, 20:30 Uhr"), None);
        assert_eq!(r("Eintritt Fr. 20.–"), range("20", "20", "CHF"));
    }

    #[test]
    fn prices() {
        assert_eq!(p("13.00"), Some(("13.00".into(), None)));
        assert_eq!(p("$35"), Some(("35".into(), Some("$"))));
        assert_eq!(p("$ 8.000"), Some(("8000".into(), Some("$"))));
        assert_eq!(p("0.500"), Some(("0.500".into(), None)));
        assert_eq!(p("12.5"), Some(("12.5".into(), None)));
        assert_eq!(p("13,50 €"), Some(("13.50".into(), Some("EUR"))));
        assert_eq!(p("EUR 1.234,50"), Some(("1234.50".into(), Some("EUR"))));
        assert_eq!(p("1,234"), Some(("1234".into(), None)));
        assert_eq!(p("Free"), Some(("0".into(), None)));
        assert_eq!(p("£12.5"), Some(("12.5".into(), Some("GBP"))));
        assert_eq!(p("call us"), None);
        assert_eq!(currency_code("usd", None).as_deref(), Some("USD"));
    }

    #[test]
    fn a_bare_dollar_sign_is_the_dollar_or_peso_of_the_events_country() {
        let code = |v: &str, c: Option<&str>| currency_code(v, c);
        assert_eq!(code("$", None).as_deref(), Some("USD"));
        assert_eq!(code("$", Some("US")).as_deref(), Some("USD"));
        assert_eq!(code("$", Some("nz")).as_deref(), Some("NZD"));
        assert_eq!(code("$", Some("CL")).as_deref(), Some("CLP"));
        assert_eq!(code("$", Some("MX")).as_deref(), Some("MXN"));
        assert_eq!(code("$", Some("CA")).as_deref(), Some("CAD"));
        // A country that does not write `$` leaves the sign its usual reading.
        assert_eq!(code("$", Some("FR")).as_deref(), Some("USD"));
        // A prefixed dollar or a code is what it says, wherever the event is.
        assert_eq!(code("US$", Some("MX")).as_deref(), Some("USD"));
        assert_eq!(code("usd", Some("CA")).as_deref(), Some("USD"));
        assert_eq!(dollar_currency("ar"), Some("ARS"));
        assert_eq!(dollar_currency("ES"), None);
    }
}
