//! Configuration errors that name the file, the line and the key, and say how to fix it.

use std::fmt;

/// One problem found in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Dotted key path (`politeness.gap`, `sites[1].class`), empty for file-level problems.
    pub key: String,
    /// 1-based line, when the key could be located.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is a useful suggestion.
    pub hint: Option<String>,
}

impl Problem {
    /// A problem at a key, to be located later.
    pub fn at(key: impl Into<String>, message: impl Into<String>) -> Problem {
        Problem { key: key.into(), line: None, column: None, message: message.into(), hint: None }
    }

    /// Adds a hint.
    pub fn hint(mut self, hint: impl Into<String>) -> Problem {
        self.hint = Some(hint.into());
        self
    }
}

/// Everything wrong with a configuration file; all problems are reported at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// The file name as given by the caller.
    pub file: String,
    /// The problems, in file order where known.
    pub problems: Vec<Problem>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let noun = if count == 1 { "problem" } else { "problems" };
        write!(f, "invalid configuration `{}` ({count} {noun})", self.file)?;
        for p in &self.problems {
            write!(f, "\n  {}", self.file)?;
            if let Some(line) = p.line {
                write!(f, ":{line}")?;
                if let Some(column) = p.column {
                    write!(f, ":{column}")?;
                }
            }
            f.write_str(": ")?;
            if !p.key.is_empty() {
                write!(f, "`{}`: ", p.key)?;
            }
            f.write_str(&p.message)?;
            if let Some(hint) = &p.hint {
                write!(f, "\n    hint: {hint}")?;
            }
        }
        Ok(())
    }
}
