//! Amounts written in words before a currency word, as small clubs and town halls write
//! fees in running text: `diez euros`, `drei Euro`, `Seven dollars`, `beş lira`,
//! `vingt-cinq euros`. Only 0–100, and only when a currency word follows the number
//! (a bare `one` or `drei` is no price).

use std::borrow::Cow;

/// Currency words and the sign a price line writes for them.
const CURRENCY_WORDS: &[(&str, &str)] = &[
    ("euro", "€"),
    ("euros", "€"),
    ("eur", "€"),
    ("€", "€"),
    ("dollar", "$"),
    ("dollars", "$"),
    ("dólar", "$"),
    ("dólares", "$"),
    ("pound", "£"),
    ("pounds", "£"),
    ("lira", "₺"),
    ("tl", "₺"),
];

/// One number word's value, in the five languages (lower case).
fn word_value(w: &str) -> Option<u32> {
    let v = match w {
        "zero" | "zéro" | "null" | "cero" | "sıfır" => 0,
        "one" | "un" | "une" | "ein" | "eins" | "eine" | "einen" | "uno" | "una" | "bir" => 1,
        "two" | "deux" | "zwei" | "dos" | "iki" => 2,
        "three" | "trois" | "drei" | "tres" | "üç" => 3,
        "four" | "quatre" | "vier" | "cuatro" | "dört" => 4,
        "five" | "cinq" | "fünf" | "cinco" | "beş" => 5,
        "six" | "sechs" | "seis" | "altı" => 6,
        "seven" | "sept" | "sieben" | "siete" | "yedi" => 7,
        "eight" | "huit" | "acht" | "ocho" | "sekiz" => 8,
        "nine" | "neuf" | "neun" | "nueve" | "dokuz" => 9,
        "ten" | "dix" | "zehn" | "diez" | "on" => 10,
        "eleven" | "onze" | "elf" | "once" => 11,
        "twelve" | "douze" | "zwölf" | "doce" => 12,
        "thirteen" | "treize" | "dreizehn" | "trece" => 13,
        "fourteen" | "quatorze" | "vierzehn" | "catorce" => 14,
        "fifteen" | "quinze" | "fünfzehn" | "quince" => 15,
        "sixteen" | "seize" | "sechzehn" | "dieciséis" => 16,
        "seventeen" | "siebzehn" | "diecisiete" => 17,
        "eighteen" | "achtzehn" | "dieciocho" => 18,
        "nineteen" | "neunzehn" | "diecinueve" => 19,
        "twenty" | "vingt" | "vingts" | "zwanzig" | "veinte" | "yirmi" => 20,
        "veintiuno" | "veintiún" | "veintiuna" => 21,
        "veintidós" => 22,
        "veintitrés" => 23,
        "veinticuatro" => 24,
        "veinticinco" => 25,
        "veintiséis" => 26,
        "veintisiete" => 27,
        "veintiocho" => 28,
        "veintinueve" => 29,
        "thirty" | "trente" | "dreißig" | "treinta" | "otuz" => 30,
        "forty" | "quarante" | "vierzig" | "cuarenta" | "kırk" => 40,
        "fifty" | "cinquante" | "fünfzig" | "cincuenta" | "elli" => 50,
        "sixty" | "soixante" | "sechzig" | "sesenta" | "altmış" => 60,
        "seventy" | "siebzig" | "setenta" | "yetmiş" => 70,
        "eighty" | "achtzig" | "ochenta" | "seksen" => 80,
        "ninety" | "neunzig" | "noventa" | "doksan" => 90,
        "hundred" | "cent" | "hundert" | "einhundert" | "cien" | "ciento" | "yüz" => 100,
        _ => return None,
    };
    Some(v)
}

/// Words that join a number's parts (`treinta y cinco`, `vingt et un`, `twenty-five`).
const JOINERS: &[&str] = &["y", "et", "and", "und"];

/// A German one-word compound (`fünfundzwanzig`): units, `und`, tens.
fn german_compound(w: &str) -> Option<u32> {
    let (units, tens) = w.split_once("und")?;
    let (u, t) = (word_value(units)?, word_value(tens)?);
    ((1..=9).contains(&u) && (20..=90).contains(&t) && t % 10 == 0).then_some(u + t)
}

/// The value of a run of number words (`twenty five`, `quatre vingt dix`, `yirmi beş`):
/// parts added from large to small, a part before `hundred` multiplying it, a `quatre`
/// before `vingt` making eighty. `None` unless every word is a number word or a joiner
/// between two, and the parts fall in value.
fn phrase_value(words: &[&str]) -> Option<u32> {
    let mut parts: Vec<u32> = Vec::new();
    let mut joined = false;
    for (i, w) in words.iter().enumerate() {
        if JOINERS.contains(w) {
            if i == 0 || i + 1 == words.len() || joined {
                return None;
            }
            joined = true;
            continue;
        }
        joined = false;
        let v = word_value(w).or_else(|| german_compound(w))?;
        match parts.last_mut() {
            Some(last) if v == 100 && *last < 10 => *last *= 100,
            Some(last) if v == 20 && *last == 4 => *last = 80,
            Some(last) if *last > v && (*last >= 20 || (*last == 10 && v < 10)) => {
                // `soixante-dix`, `quatre-vingt-dix`: a ten after sixty or eighty.
                parts.push(v);
            }
            Some(last) if (*last == 60 || *last == 80) && (10..20).contains(&v) => parts.push(v),
            Some(_) => return None,
            None => parts.push(v),
        }
    }
    let total: u32 = parts.iter().sum();
    (!parts.is_empty() && total <= 100).then_some(total)
}

/// The text with each amount written in words before a currency word rewritten as digits
/// and a sign (`Entrada: cinco euros` → `Entrada: 5 €`), so a price reader finds it;
/// unchanged (borrowed) when there is none.
pub fn amounts_in_words(text: &str) -> Cow<'_, str> {
    // Words with their byte spans; a word ends at whitespace, and `-` splits a number's
    // parts (`vingt-cinq`, `twenty-five`).
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let sep = c.is_whitespace() || c == '-' || c == '‑';
        match (sep, start) {
            (true, Some(s)) => {
                words.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        words.push((s, text.len()));
    }
    let lower: Vec<String> = words.iter().map(|&(s, e)| text[s..e].to_lowercase()).collect();
    // The number word's own text, without punctuation around it (`(cinq` stays out: a
    // number's first word must start the word).
    let bare = |w: &str| w.trim_end_matches(|c: char| !c.is_alphanumeric()).to_owned();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < words.len() {
        let cur = lower[i].trim_end_matches(['.', ',', ';', ':', ')', '!']);
        let Some(sign) = CURRENCY_WORDS.iter().find(|(w, _)| *w == cur).map(|(_, s)| *s) else {
            i += 1;
            continue;
        };
        // The whole run of number words before it (joined by spaces or dashes, none
        // ending in punctuation) must read as one number: `two hundred dollars` is no
        // hundred dollars.
        let mut from = i;
        while from > 0 && i - from < 6 {
            let w = &lower[from - 1];
            let number = word_value(w).is_some() || german_compound(w).is_some();
            if bare(w) != *w || !(number || JOINERS.contains(&w.as_str())) {
                break;
            }
            from -= 1;
        }
        while from < i && JOINERS.contains(&lower[from].as_str()) {
            from += 1;
        }
        let run: Vec<&str> = (from..i).map(|j| lower[j].as_str()).collect();
        let best = (!run.is_empty()).then(|| phrase_value(&run)).flatten().map(|v| (from, v));
        if let Some((from, v)) = best {
            out.push_str(&text[copied..words[from].0]);
            out.push_str(&format!("{v} {sign}"));
            // Keep what follows the currency word (`euros,` keeps its comma).
            let word_end = words[i].0 + cur.len();
            copied = word_end.min(words[i].1);
            while !text.is_char_boundary(copied) {
                copied += 1;
            }
        }
        i += 1;
    }
    if copied == 0 && out.is_empty() {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::amounts_in_words;

    #[test]
    fn amounts_written_in_words() {
        for (text, want) in [
            ("Inscripción: diez euros por pareja", "Inscripción: 10 € por pareja"),
            (
                "Entrada: cinco euros (gratis con la pañoleta)",
                "Entrada: 5 € (gratis con la pañoleta)",
            ),
            (
                "einen Kostenbeitrag von drei Euro pro Wanderung",
                "einen Kostenbeitrag von 3 € pro Wanderung",
            ),
            (
                "Seven dollars for adults, five dollars for children",
                "7 $ for adults, 5 $ for children",
            ),
            ("Katılım beş lira.", "Katılım 5 ₺."),
            ("Tarif : vingt-cinq euros", "Tarif : 25 €"),
            ("Tarif : quatre-vingt-dix euros", "Tarif : 90 €"),
            ("treinta y cinco euros", "35 €"),
            ("fünfundzwanzig Euro", "25 €"),
            ("yirmi beş lira", "25 ₺"),
            ("twenty-five pounds", "25 £"),
            ("one hundred dollars", "100 $"),
        ] {
            assert_eq!(amounts_in_words(text), want, "{text}");
        }
    }

    #[test]
    fn words_that_are_no_amount() {
        for text in [
            // No currency word after the number.
            "Drei Touren, zehn Kilometer",
            "Seven shows a week",
            // No number word before the currency word.
            "Preis in Euro",
            "a few dollars",
            // More than a hundred, or parts in the wrong order.
            "two hundred dollars",
            "five twenty",
            "El euro y el dólar",
        ] {
            assert_eq!(amounts_in_words(text), text, "{text}");
        }
    }
}
