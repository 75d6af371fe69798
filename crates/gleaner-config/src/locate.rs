//! Finds the line and column of a dotted key path (`sites[1].class`) in TOML text, so
//! validation errors can point at the line to fix.

use toml::de::{DeTable, DeValue};

/// One step of a key path.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(end) = rest.find(']') {
            if let Ok(index) = rest[1..end].parse() {
                out.push(Step::Index(index));
            }
            rest = &rest[end + 1..];
        }
    }
    out
}

/// Byte offset → 1-based (line, column).
pub fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rfind('\n').map_or(offset, |nl| offset - nl - 1) + 1;
    (line, column)
}

/// The (line, column) of the deepest part of `path` that exists in `text` (the table
/// a missing key belongs in, for instance).
pub fn locate(text: &str, path: &str) -> Option<(usize, usize)> {
    let root = DeTable::parse(text).ok()?;
    let mut best: Option<usize> = None;
    let mut walk = || -> Option<()> {
        let mut table: Option<&DeTable<'_>> = Some(root.get_ref());
        let mut value: Option<&DeValue<'_>> = None;
        for step in steps(path) {
            match step {
                Step::Key(name) => {
                    let (key, found) =
                        table.take()?.iter().find(|(k, _)| k.get_ref().as_ref() == name)?;
                    // Point at the value when it is a scalar, else at the key.
                    best = Some(match found.get_ref() {
                        DeValue::Table(_) | DeValue::Array(_) => key.span().start,
                        _ => found.span().start,
                    });
                    value = Some(found.get_ref());
                }
                Step::Index(index) => {
                    let Some(DeValue::Array(items)) = value.take() else { return None };
                    let item = items.get(index)?;
                    best = Some(item.span().start);
                    value = Some(item.get_ref());
                }
            }
            table = match value {
                Some(DeValue::Table(t)) => Some(t),
                _ => None,
            };
        }
        Some(())
    };
    let _ = walk();
    best.map(|offset| line_column(text, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_keys_and_array_items() {
        let text = "[bot]\ntoken = \"x\"\n\n[[sites]]\nhost = \"a\"\n\n[[sites]]\nhost = \"b\"\nclass = \"nope\"\n";
        assert_eq!(locate(text, "bot.token"), Some((2, 9)));
        assert_eq!(locate(text, "sites[1].class"), Some((9, 9)));
        assert_eq!(
            locate(text, "sites[1].missing").map(|p| p.0),
            Some(7),
            "the item the key belongs in"
        );
        assert_eq!(locate(text, "nothing.here"), None);
    }
}
