//! A forgiving JSON reader for JSON-LD as found in the wild.
//!
//! Real pages ship trailing commas, `//` and `/* */` comments, raw newlines and control
//! characters inside strings, single-quoted strings, several objects in one script and
//! duplicate keys. This reader accepts all of these, records each repair, and never panics
//! or recurses without bound. Numbers keep their written form (as strings), so `13.00`
//! stays `13.00`. Duplicate keys keep every value (as an array) instead of the last one.
//!
//! It knows nothing of schema.org; `crate::schema` reads the values.

use serde_json::{Map, Value};

/// Nesting deeper than this is refused, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 128;

/// The values read from one block, and what had to be repaired or given up on.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub values: Vec<Value>,
    /// Repairs made, as messages (`trailing comma at byte 120`).
    pub repairs: Vec<String>,
    /// The error that stopped reading, if any; values read before it are kept.
    pub error: Option<String>,
}

/// Reads every JSON value in `text`.
pub(crate) fn parse(text: &str) -> Parsed {
    let mut p = Parser { s: text.as_bytes(), text, i: 0, repairs: Vec::new(), truncated: false };
    let mut out = Parsed::default();
    loop {
        p.skip_ws();
        if p.i >= p.s.len() {
            break;
        }
        // Separators between several top-level values.
        if matches!(p.s[p.i], b',' | b';') {
            p.i += 1;
            continue;
        }
        match p.value(0) {
            Ok(v) => out.values.push(v),
            Err(e) => {
                out.error = Some(e);
                break;
            }
        }
    }
    out.repairs = p.repairs;
    out
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
    repairs: Vec<String>,
    /// The text ended inside a value: objects and arrays open at the end keep the members
    /// read whole before it.
    truncated: bool,
}

impl Parser<'_> {
    fn repair(&mut self, what: &str) {
        if self.repairs.len() < 16 {
            self.repairs.push(format!("{what} at byte {}", self.i));
        }
    }

    /// Skips whitespace, comments and HTML comment/CDATA markers.
    fn skip_ws(&mut self) {
        while self.i < self.s.len() {
            let rest = &self.s[self.i..];
            match rest[0] {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0c => self.i += 1,
                b'/' if rest.get(1) == Some(&b'/') => {
                    self.repair("line comment");
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'/' if rest.get(1) == Some(&b'*') => {
                    self.repair("block comment");
                    match memchr::memmem::find(&rest[2..], b"*/") {
                        Some(j) => self.i += 2 + j + 2,
                        None => self.i = self.s.len(),
                    }
                }
                b'<' if rest.starts_with(b"<!--") => self.i += 4,
                b'-' if rest.starts_with(b"-->") => self.i += 3,
                b'<' if rest.starts_with(b"<![CDATA[") => self.i += 9,
                b']' if rest.starts_with(b"]]>") => self.i += 3,
                _ => {
                    // Non-breaking and other Unicode spaces.
                    if let Some(c) = self.text[self.i..].chars().next()
                        && c.is_whitespace()
                    {
                        self.i += c.len_utf8();
                        continue;
                    }
                    break;
                }
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nesting deeper than {MAX_DEPTH} at byte {}", self.i));
        }
        self.skip_ws();
        let Some(&b) = self.s.get(self.i) else {
            self.truncated = true;
            return Err("unexpected end of input".to_owned());
        };
        match b {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            b'"' | b'\'' => self.string().map(Value::String),
            b'-' | b'+' | b'.' | b'0'..=b'9' => Ok(self.number()),
            _ if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                let word = self.word();
                Ok(match word {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => {
                        self.repair("bare word");
                        Value::Null
                    }
                })
            }
            _ => Err(format!("unexpected `{}` at byte {}", char_at(self.text, self.i), self.i)),
        }
    }

    /// A value, or `None` when the text ends right after a number or word (`13` may be
    /// the start of `130`: not read whole).
    fn whole_value(&mut self, depth: usize) -> Result<Option<Value>, String> {
        let at = self.s.get(self.i).copied();
        let v = self.value(depth)?;
        let scalar = at.is_some_and(|b| !matches!(b, b'{' | b'[' | b'"' | b'\''));
        if scalar && self.i >= self.s.len() {
            self.truncated = true;
            return Ok(None);
        }
        Ok(Some(v))
    }

    /// The text ended inside this object or array: keep what was read whole.
    fn cut(&mut self, partial: Value) -> Result<Value, String> {
        self.truncated = true;
        if !self.repairs.iter().any(|r| r.starts_with("truncated")) {
            self.i = self.s.len();
            self.repair("truncated text: kept the values read whole");
        }
        Ok(partial)
    }

    fn word(&mut self) -> &str {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_alphanumeric()
                || matches!(self.s[self.i], b'_' | b'$' | b'@' | b'-'))
        {
            self.i += 1;
        }
        &self.text[start..self.i]
    }

    fn number(&mut self) -> Value {
        let start = self.i;
        while self.i < self.s.len()
            && (self.s[self.i].is_ascii_digit()
                || matches!(self.s[self.i], b'-' | b'+' | b'.' | b'e' | b'E'))
        {
            self.i += 1;
        }
        Value::String(self.text[start..self.i].to_owned())
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = self.s[self.i];
        let start = self.i;
        self.i += 1;
        let mut out = String::new();
        let mut run_start = self.i;
        loop {
            let Some(&b) = self.s.get(self.i) else {
                self.truncated = true;
                return Err(format!("unterminated string starting at byte {start}"));
            };
            if b == quote {
                out.push_str(&self.text[run_start..self.i]);
                self.i += 1;
                return Ok(out);
            }
            if b < 0x20 {
                // Raw newlines and control characters: keep newlines and tabs, drop the rest.
                out.push_str(&self.text[run_start..self.i]);
                if matches!(b, b'\n' | b'\r' | b'\t') {
                    out.push(b as char);
                }
                if self.repairs.len() < 16
                    && !self.repairs.iter().any(|r| r.starts_with("raw control"))
                {
                    self.repair("raw control character in string");
                }
                self.i += 1;
                run_start = self.i;
                continue;
            }
            if b != b'\\' {
                self.i += 1;
                continue;
            }
            out.push_str(&self.text[run_start..self.i]);
            self.i += 1;
            let Some(&e) = self.s.get(self.i) else {
                self.truncated = true;
                return Err(format!("unterminated string starting at byte {start}"));
            };
            self.i += 1;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'b' | b'f' => {}
                b'u' => {
                    let c = self.unicode_escape();
                    out.push(c);
                }
                _ => {
                    // `\"`, `\\`, `\/`, and invalid escapes such as `\'` or `\-`: keep the character.
                    let c = char_at(self.text, self.i - 1);
                    self.i += c.len_utf8() - 1;
                    out.push(c);
                }
            }
            run_start = self.i;
        }
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.text.get(self.i..self.i + 4)?;
        let v = u32::from_str_radix(h, 16).ok()?;
        self.i += 4;
        Some(v)
    }

    fn unicode_escape(&mut self) -> char {
        let Some(hi) = self.hex4() else { return '\u{FFFD}' };
        if (0xD800..0xDC00).contains(&hi) && self.s[self.i..].starts_with(b"\\u") {
            let save = self.i;
            self.i += 2;
            if let Some(lo) = self.hex4()
                && (0xDC00..0xE000).contains(&lo)
            {
                return char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                    .unwrap_or('\u{FFFD}');
            }
            self.i = save;
        }
        char::from_u32(hi).unwrap_or('\u{FFFD}')
    }

    fn object(&mut self, depth: usize) -> Result<Value, String> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.skip_ws();
            let Some(&b) = self.s.get(self.i) else {
                return self.cut(Value::Object(map));
            };
            match b {
                b'}' => {
                    self.i += 1;
                    return Ok(Value::Object(map));
                }
                b',' => {
                    self.repair("extra comma");
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let key = match b {
                b'"' | b'\'' => match self.string() {
                    Ok(k) => k,
                    Err(_) if self.truncated => return self.cut(Value::Object(map)),
                    Err(e) => return Err(e),
                },
                _ if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'@') => {
                    self.repair("unquoted key");
                    self.word().to_owned()
                }
                _ => {
                    return Err(format!(
                        "unexpected `{}` in object at byte {}",
                        char_at(self.text, self.i),
                        self.i
                    ));
                }
            };
            self.skip_ws();
            if self.s.get(self.i) == Some(&b':') {
                self.i += 1;
            } else if self.i >= self.s.len() {
                return self.cut(Value::Object(map));
            } else {
                return Err(format!("expected `:` after key `{key}` at byte {}", self.i));
            }
            let v = match self.whole_value(depth + 1) {
                Ok(Some(v)) => v,
                Ok(None) => return self.cut(Value::Object(map)),
                Err(_) if self.truncated => return self.cut(Value::Object(map)),
                Err(e) => return Err(e),
            };
            match map.get_mut(&key) {
                None => {
                    map.insert(key, v);
                }
                Some(existing) => {
                    self.repair("duplicate key");
                    match existing {
                        Value::Array(a) => a.push(v),
                        other => {
                            let first = other.take();
                            *other = Value::Array(vec![first, v]);
                        }
                    }
                }
            }
            self.skip_ws();
            match self.s.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.skip_ws();
                    if self.s.get(self.i) == Some(&b'}') {
                        self.repair("trailing comma");
                    }
                }
                Some(b'}') => {}
                Some(b'"') => self.repair("missing comma"),
                None => return self.cut(Value::Object(map)),
                _ => return Err(format!("expected `,` or `}}` at byte {}", self.i)),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, String> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_ws();
            match self.s.get(self.i) {
                None => return self.cut(Value::Array(items)),
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                Some(b',') => {
                    self.repair("extra comma");
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            match self.whole_value(depth + 1) {
                Ok(Some(v)) => items.push(v),
                Ok(None) => return self.cut(Value::Array(items)),
                Err(_) if self.truncated => return self.cut(Value::Array(items)),
                Err(e) => return Err(e),
            }
            self.skip_ws();
            match self.s.get(self.i) {
                Some(b',') => {
                    self.i += 1;
                    self.skip_ws();
                    if self.s.get(self.i) == Some(&b']') {
                        self.repair("trailing comma");
                    }
                }
                Some(b']') => {}
                Some(b'{' | b'[' | b'"') => self.repair("missing comma"),
                None => return self.cut(Value::Array(items)),
                _ => return Err(format!("expected `,` or `]` at byte {}", self.i)),
            }
        }
    }
}

fn char_at(text: &str, i: usize) -> char {
    text.get(i..).and_then(|s| s.chars().next()).unwrap_or('\u{FFFD}')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strict_json_reads_unchanged_except_numbers() {
        let p = parse(r#"{"a": [1, 2.50, true, null], "b": {"c": "d\u00e9\n"}}"#);
        assert_eq!(p.values, vec![json!({"a": ["1", "2.50", true, null], "b": {"c": "dé\n"}})]);
        assert!(p.repairs.is_empty() && p.error.is_none());
    }

    #[test]
    fn breakage_is_repaired() {
        let text = "{\n \"a\": \"line\nbreak\", // comment\n /* block */ 'b': 'x', c: 1,\n}\n{\"d\": 1}{\"d\": 2}";
        let p = parse(text);
        assert_eq!(p.values.len(), 3, "{p:?}");
        assert_eq!(p.values[0]["a"], "line\nbreak");
        assert_eq!(p.values[0]["b"], "x");
        assert!(p.error.is_none());
        assert!(!p.repairs.is_empty());
    }

    #[test]
    fn duplicate_keys_keep_every_value() {
        let p = parse(r#"{"subEvent": "a", "subEvent": "b", "subEvent": "c"}"#);
        assert_eq!(p.values[0]["subEvent"], json!(["a", "b", "c"]));
    }

    #[test]
    fn truncation_keeps_the_values_read_whole() {
        let p = parse(
            r#"{"@type":"Event","name":"Gig","startDate":"2026-05-01T20:00","offers":{"price":"13"#,
        );
        assert_eq!(
            p.values,
            vec![json!({"@type":"Event","name":"Gig","startDate":"2026-05-01T20:00","offers":{}})]
        );
        assert!(p.repairs.iter().any(|r| r.contains("truncated")), "{:?}", p.repairs);
        // A number cut at the end may be the start of a longer one: dropped.
        let p = parse(r#"[{"name":"A","price":13"#);
        assert_eq!(p.values, vec![json!([{"name":"A"}])]);
        let p = parse(r#"{"name":"A", "desc"#);
        assert_eq!(p.values, vec![json!({"name":"A"})]);
    }

    #[test]
    fn unquoted_keys_and_trailing_commas() {
        let p = parse("{name: 'Gig', startDate: \"2026-05-01\", location: {name: \"Hall\",},}");
        assert_eq!(
            p.values,
            vec![json!({"name":"Gig","startDate":"2026-05-01","location":{"name":"Hall"}})]
        );
    }

    #[test]
    fn errors_keep_earlier_values_and_depth_is_bounded() {
        let p = parse(r#"{"a": 1} {"b": 2 x"#);
        assert_eq!(p.values.len(), 1);
        assert!(p.error.is_some());
        let deep = "[".repeat(10_000);
        assert!(parse(&deep).error.unwrap().contains("nesting"));
    }
}
