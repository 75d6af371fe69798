//! Page text for the model, and the evidence checks its answers must pass: every date,
//! time, price and place must be found in the page text, after normalising both sides
//! (case, accents, digits with or without leading zeros, month names in English,
//! Turkish, French, Spanish and German, currency symbols, codes and words).

use scraper::{Html, Node};

/// Elements whose text is never visible.
const HIDDEN: &[&str] = &["script", "style", "noscript", "template", "svg", "iframe", "head"];

/// The visible text of an HTML page (the `<title>` included), one block per line,
/// whitespace collapsed.
pub fn visible_text(html: &str) -> String {
    let doc = Html::parse_document(html);
    let mut out = String::new();
    if let Some(title) = doc
        .root_element()
        .descendants()
        .find(|n| matches!(n.value(), Node::Element(e) if e.name() == "title"))
    {
        for t in title.descendants().filter_map(|n| n.value().as_text()) {
            out.push_str(t.trim());
        }
        out.push('\n');
    }
    for node in doc.root_element().descendants() {
        let Some(text) = node.value().as_text() else { continue };
        let hidden = node
            .ancestors()
            .any(|a| a.value().as_element().is_some_and(|e| HIDDEN.contains(&e.name())));
        if hidden {
            continue;
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        out.push_str(&words.join(" "));
        out.push('\n');
    }
    out
}

/// Phrases (folded) by which a page addresses a language model instead of its readers.
const ADDRESSED_TO_MODEL: &[&str] = &[
    "ignore previous instructions",
    "ignore all previous",
    "ignore the previous",
    "ignore the above",
    "ignore your instructions",
    "disregard previous",
    "disregard all previous",
    "disregard the above",
    "new instructions",
    "system prompt",
    "you are now",
    "as an ai",
    "language model",
    "ignorez les instructions",
    "ignore les instructions",
    "onceki talimatlari",
    "talimatlari yok say",
    "ignora las instrucciones",
    "ignoriere alle vorherigen",
    "ignoriere die vorherigen",
];

/// The page text without the lines that address a language model ("ignore previous
/// instructions…"), and how many were removed: such a line is neither sent nor used as
/// evidence, so nothing it says can reach the store.
pub fn without_instructions(text: &str) -> (String, usize) {
    let mut removed = 0;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let folded = fold_words(line);
        if ADDRESSED_TO_MODEL.iter().any(|p| folded.contains(p)) {
            removed += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, removed)
}

/// The language a page declares on its `<html lang="…">` element (primary subtag, lower
/// case), read from its first few kilobytes.
pub fn declared_lang(html: &str) -> Option<String> {
    let head: String = html.chars().take(4096).collect::<String>().to_ascii_lowercase();
    let tag_start = head.find("<html")?;
    let tag = &head[tag_start..tag_start + head[tag_start..].find('>')?];
    let at = tag.find(" lang=")? + " lang=".len();
    let value = tag[at..].trim_start_matches(['"', '\'']);
    let primary: String = value.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    (2..=3).contains(&primary.len()).then_some(primary)
}

/// `text` cut to at most `max` characters, at a line end when one is near.
pub fn cap(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        None => text,
        Some((end, _)) => {
            let cut = &text[..end];
            match cut.rfind('\n') {
                Some(nl) if nl > end / 2 => &cut[..nl],
                _ => cut,
            }
        }
    }
}

/// Lower case without accents: `Aralık` → `aralik`, `Dézembre` → `dezembre`.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let mapped = match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => "a",
            'ç' | 'ć' | 'č' => "c",
            'è' | 'é' | 'ê' | 'ë' => "e",
            'ì' | 'í' | 'î' | 'ï' | 'ı' => "i",
            'ñ' => "n",
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' => "o",
            'ù' | 'ú' | 'û' | 'ü' => "u",
            'ş' | 'š' | 'ś' => "s",
            'ğ' => "g",
            'ý' | 'ÿ' => "y",
            'ß' => "ss",
            'œ' => "oe",
            'æ' => "ae",
            '\u{0300}'..='\u{036f}' => "",
            _ => {
                out.push(c);
                continue;
            }
        };
        out.push_str(mapped);
    }
    out
}

/// `fold`, with every run of characters that are not letters or digits made one space.
pub fn fold_words(text: &str) -> String {
    let folded = fold(text);
    let mut out = String::with_capacity(folded.len());
    for c in folded.chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with(' ') {
            out.push(' ');
        }
    }
    out.trim().to_owned()
}

/// Month names (folded) in en, tr, fr, es, de, full and abbreviated.
const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("jan", 1),
    ("ocak", 1),
    ("janvier", 1),
    ("janv", 1),
    ("enero", 1),
    ("ene", 1),
    ("januar", 1),
    ("janner", 1),
    ("february", 2),
    ("feb", 2),
    ("subat", 2),
    ("fevrier", 2),
    ("fevr", 2),
    ("fev", 2),
    ("febrero", 2),
    ("februar", 2),
    ("march", 3),
    ("mar", 3),
    ("mart", 3),
    ("mars", 3),
    ("marzo", 3),
    ("marz", 3),
    ("maerz", 3),
    ("april", 4),
    ("apr", 4),
    ("nisan", 4),
    ("avril", 4),
    ("avr", 4),
    ("abril", 4),
    ("abr", 4),
    ("may", 5),
    ("mayis", 5),
    ("mai", 5),
    ("mayo", 5),
    ("june", 6),
    ("jun", 6),
    ("haziran", 6),
    ("juin", 6),
    ("junio", 6),
    ("juni", 6),
    ("july", 7),
    ("jul", 7),
    ("temmuz", 7),
    ("juillet", 7),
    ("juil", 7),
    ("julio", 7),
    ("juli", 7),
    ("august", 8),
    ("aug", 8),
    ("agustos", 8),
    ("aout", 8),
    ("agosto", 8),
    ("ago", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("eylul", 9),
    ("septembre", 9),
    ("septiembre", 9),
    ("setiembre", 9),
    ("october", 10),
    ("oct", 10),
    ("ekim", 10),
    ("octobre", 10),
    ("octubre", 10),
    ("oktober", 10),
    ("okt", 10),
    ("november", 11),
    ("nov", 11),
    ("kasim", 11),
    ("novembre", 11),
    ("noviembre", 11),
    ("december", 12),
    ("dec", 12),
    ("aralik", 12),
    ("decembre", 12),
    ("diciembre", 12),
    ("dic", 12),
    ("dezember", 12),
    ("dez", 12),
];

/// A token of folded page text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    /// Digits, their value and how many.
    Num(u32, usize),
    /// A month name.
    Month(u32),
    /// Any other word.
    Word(&'a str),
}

/// Page text prepared once for the evidence checks.
#[derive(Debug, Clone)]
pub struct Evidence {
    words: String,
    amounts: Vec<u64>,
    raw_lower: String,
}

impl Evidence {
    /// Prepares `text` (the page's visible text).
    pub fn new(text: &str) -> Evidence {
        Evidence { words: fold_words(text), amounts: amounts(text), raw_lower: text.to_lowercase() }
    }

    fn tokens(&self) -> Vec<Tok<'_>> {
        let mut toks = Vec::new();
        for word in self.words.split(' ') {
            // Split digits from letters: `20h30` → 20, h, 30.
            let mut start = 0;
            let bytes = word.as_bytes();
            for i in 1..=bytes.len() {
                let boundary = i == bytes.len()
                    || (bytes[i].is_ascii_digit() != bytes[i - 1].is_ascii_digit());
                if boundary && word.is_char_boundary(i) && word.is_char_boundary(start) {
                    let part = &word[start..i];
                    start = i;
                    if part.bytes().all(|b| b.is_ascii_digit()) {
                        if part.len() <= 9 {
                            toks.push(Tok::Num(part.parse().unwrap_or(0), part.len()));
                        }
                    } else if let Some((_, m)) = MONTHS.iter().find(|(n, _)| *n == part) {
                        toks.push(Tok::Month(*m));
                    } else if !part.is_empty() {
                        toks.push(Tok::Word(part));
                    }
                }
            }
        }
        toks
    }

    /// Whether the page states this date: a day next to a month name (a year nearby must
    /// agree), or day, month and year in digits (`05/12/2026`, `2026-12-05`, `5.12.26`).
    pub fn has_date(&self, year: i32, month: u32, day: u32) -> bool {
        let toks = self.tokens();
        let is_year = |t: &Tok<'_>| match *t {
            Tok::Num(n, 4) => n as i32 == year,
            Tok::Num(n, 2) => n as i32 == year % 100,
            _ => false,
        };
        let other_year = |t: &Tok<'_>| matches!(*t, Tok::Num(n, 4) if (1900..2200).contains(&n) && n as i32 != year);
        for (i, t) in toks.iter().enumerate() {
            if *t != Tok::Num(day, 1) && *t != Tok::Num(day, 2) {
                continue;
            }
            // A month name right next to the day: `5 December`, `5. Dezember` (the dot is
            // dropped), `5 de diciembre`, `December 5`, `December 5th`.
            let month_at = |k: usize| toks.get(k) == Some(&Tok::Month(month));
            let after_month = if month_at(i + 1) {
                Some(i + 2)
            } else if toks.get(i + 1) == Some(&Tok::Word("de")) && month_at(i + 2) {
                Some(i + 3)
            } else if i >= 1 && month_at(i - 1) {
                let mut k = i + 1;
                if matches!(toks.get(k), Some(Tok::Word("st" | "nd" | "rd" | "th"))) {
                    k += 1;
                }
                Some(k)
            } else {
                None
            };
            if let Some(mut k) = after_month {
                // A year written just after must be this one (`de 2026` too).
                if toks.get(k) == Some(&Tok::Word("de")) {
                    k += 1;
                }
                if !toks.get(k).is_some_and(other_year) {
                    return true;
                }
            }
            // Digits: d m y, m d y (day first or second) and y m d.
            let num = |k: usize, v: u32| matches!(toks.get(k), Some(Tok::Num(n, l)) if *n == v && *l <= 2);
            if num(i + 1, month) && toks.get(i + 2).is_some_and(is_year) {
                return true;
            }
            if i >= 1 && num(i - 1, month) && toks.get(i + 1).is_some_and(is_year) {
                return true;
            }
            if i >= 2
                && num(i - 1, month)
                && toks.get(i - 2).is_some_and(|t| matches!(*t, Tok::Num(n, 4) if n as i32 == year))
            {
                return true;
            }
        }
        false
    }

    /// Whether the page states this time of day: `20:30`, `20.30`, `20h30`, `20 h 30`,
    /// `8:30 pm`; on the hour also `20h`, `20 Uhr`, `8 pm`.
    pub fn has_time(&self, hour: u32, minute: u32) -> bool {
        let toks = self.tokens();
        for (i, t) in toks.iter().enumerate() {
            let Tok::Num(h, len) = *t else { continue };
            if len > 2 || h > 23 {
                continue;
            }
            let mut k = i + 1;
            if matches!(toks.get(k), Some(Tok::Word("h"))) {
                k += 1;
            }
            let (m, next) = match toks.get(k) {
                Some(Tok::Num(m, 2)) if *m < 60 => (Some(*m), k + 1),
                _ => (None, k),
            };
            let marker = match toks.get(next) {
                Some(Tok::Word(w)) => Some(*w),
                _ => None,
            };
            let pm = matches!(marker, Some("pm" | "p"));
            let am = matches!(marker, Some("am" | "a"));
            let hour_ok = if pm {
                (h % 12) + 12 == hour
            } else if am {
                h % 12 == hour
            } else {
                h == hour
            };
            if !hour_ok {
                continue;
            }
            let stated_hour = toks.get(i + 1) == Some(&Tok::Word("h"))
                || matches!(
                    marker,
                    Some("uhr" | "saat" | "heures" | "horas" | "pm" | "am" | "p" | "a")
                );
            match m {
                Some(m) if m == minute => return true,
                None if minute == 0 && (stated_hour || pm || am) => return true,
                _ => {}
            }
        }
        false
    }

    /// Whether the page states this amount (in minor units) as a number: `12`, `12.50`,
    /// `12,50`, `12,5`.
    pub fn has_amount(&self, minor: u64) -> bool {
        self.amounts.contains(&minor)
    }

    /// Whether the page names this currency by symbol, ISO code or word.
    pub fn has_currency(&self, code: &str) -> bool {
        let code = code.trim().to_ascii_uppercase();
        let words: &[&str] = match code.as_str() {
            "EUR" => &["€", "eur", "euro"],
            "TRY" => &["₺", "tl", "try", "lira"],
            "USD" => &["$", "usd", "dollar"],
            "GBP" => &["£", "gbp", "pound"],
            "CHF" => &["chf", "fr."],
            "CAD" => &["$", "cad", "ca$"],
            "AUD" => &["$", "aud", "a$"],
            "MXN" => &["$", "mxn"],
            _ => &[],
        };
        let lower = code.to_ascii_lowercase();
        std::iter::once(lower.as_str()).chain(words.iter().copied()).any(|w| {
            if w.chars().all(|c| c.is_ascii_alphabetic()) {
                self.has_words(w)
            } else {
                self.raw_lower.contains(w)
            }
        })
    }

    /// Whether the page says the event is free.
    pub fn says_free(&self) -> bool {
        [
            "free",
            "gratuit",
            "gratuite",
            "entree libre",
            "ucretsiz",
            "gratis",
            "kostenlos",
            "eintritt frei",
            "entrada libre",
            "entrada gratuita",
            "free entry",
            "free admission",
        ]
        .iter()
        .any(|w| self.has_words(w))
    }

    /// Whether `phrase`, folded, appears in the page on word boundaries.
    pub fn has_words(&self, phrase: &str) -> bool {
        let needle = fold_words(phrase);
        if needle.is_empty() {
            return false;
        }
        let hay = format!(" {} ", self.words);
        hay.contains(&format!(" {needle} "))
    }
}

/// Every number in `text` as minor units (hundredths): `12` → 1200, `12,50` and `12.50`
/// → 1250, `1.200,00` → 120000.
fn amounts(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len()
            && (chars[i].is_ascii_digit() || matches!(chars[i], '.' | ',' | '\u{a0}' | '\''))
        {
            i += 1;
        }
        let run: String = chars[start..i].iter().collect();
        let run = run.trim_end_matches(['.', ',', '\u{a0}', '\'']);
        // The last separator followed by one or two digits is the decimal mark.
        let (int, frac) = match run.rfind(['.', ',']) {
            Some(p) if (1..=2).contains(&(run.len() - p - 1)) => (&run[..p], &run[p + 1..]),
            _ => (run, ""),
        };
        let int: String = int.chars().filter(char::is_ascii_digit).collect();
        if let Ok(units) = int.parse::<u64>() {
            let cents = match frac.len() {
                1 => frac.parse::<u64>().unwrap_or(0) * 10,
                2 => frac.parse::<u64>().unwrap_or(0),
                _ => 0,
            };
            out.push(units.saturating_mul(100).saturating_add(cents));
            // `12.50` may also be read as two numbers by a careless page: keep the parts.
            if !frac.is_empty() {
                out.push(units.saturating_mul(100));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_five_languages_and_digits() {
        let cases = [
            ("Saturday 5 December 2026, 20:30", 2026, 12, 5, true),
            ("Cumartesi 5 Aralık 2026", 2026, 12, 5, true),
            ("samedi 5 décembre 2026 à 20h30", 2026, 12, 5, true),
            ("sábado, 5 de diciembre de 2026", 2026, 12, 5, true),
            ("Samstag, 5. Dezember 2026, 20 Uhr", 2026, 12, 5, true),
            ("December 5th", 2026, 12, 5, true),
            ("05/12/2026", 2026, 12, 5, true),
            ("2026-12-05", 2026, 12, 5, true),
            ("5 December 2025", 2026, 12, 5, false),
            ("samedi 27 décembre 2026 à 11h00", 2026, 12, 11, false),
            ("samedi 27 décembre 2026 à 11h00", 2026, 12, 27, true),
            ("December 5th, 2026", 2026, 12, 5, true),
            ("6 December 2026", 2026, 12, 5, false),
            ("Tickets 12 €, doors 5", 2026, 12, 5, false),
        ];
        for (text, y, m, d, want) in cases {
            assert_eq!(Evidence::new(text).has_date(y, m, d), want, "{text}");
        }
    }

    #[test]
    fn times_in_common_spellings() {
        let cases = [
            ("20:30", 20, 30, true),
            ("20h30", 20, 30, true),
            ("à 20 h 30", 20, 30, true),
            ("8:30 pm", 20, 30, true),
            ("20 Uhr", 20, 0, true),
            ("saat 20.00", 20, 0, true),
            ("8 pm", 20, 0, true),
            ("20:30", 19, 30, false),
            ("Room 20", 20, 0, false),
        ];
        for (text, h, m, want) in cases {
            assert_eq!(Evidence::new(text).has_time(h, m), want, "{text}");
        }
    }

    #[test]
    fn prices_and_currencies() {
        let e = Evidence::new("Billets : 12,50 € — tarif réduit 8 €");
        assert!(e.has_amount(1250) && e.has_amount(800) && e.has_currency("EUR"));
        assert!(!e.has_amount(1500));
        assert!(!e.has_currency("USD"));
        assert!(Evidence::new("Giriş 150 TL").has_currency("TRY"));
        assert!(Evidence::new("Tickets $70–$160").has_currency("CAD"));
        assert!(Evidence::new("Eintritt frei").says_free());
        assert!(!Evidence::new("Freitag").says_free());
    }

    #[test]
    fn visible_text_skips_scripts_and_keeps_title() {
        let t = visible_text(
            "<html><head><title>T</title><script>var x = 'hidden';</script></head>\
             <body><p>Hello   <b>world</b></p><style>.a{}</style></body></html>",
        );
        assert!(t.contains("T\n") && t.contains("Hello") && t.contains("world"));
        assert!(!t.contains("hidden") && !t.contains(".a{}"));
        assert_eq!(cap("abcdef", 3), "abc");
        assert_eq!(
            declared_lang("<!doctype html><html lang=\"tr-TR\"><head>").as_deref(),
            Some("tr")
        );
        assert_eq!(declared_lang("<html><body lang=fr>"), None);
    }
}
