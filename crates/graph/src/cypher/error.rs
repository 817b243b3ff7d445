//! Errors with a position in the query text.

use std::fmt;

/// What went wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not a query of the supported grammar.
    Syntax,
    /// Valid openCypher, but outside the supported subset (writes, procedures, map literals, ...).
    Unsupported,
    /// An unknown label, relationship type, property, variable, function or parameter.
    Unknown,
    /// A deadline, work or size cap was reached.
    Limit,
    /// A value of the wrong type at run time (`'a' * 2`, a property of a number, ...).
    Type,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::Unknown => "unknown",
            ErrorKind::Limit => "limit",
            ErrorKind::Type => "type",
        }
    }
}

/// An error and where in the query it is. `offset` is a byte offset into the query text (never
/// past its end, always on a character boundary); `line` and `column` count from 1, the column
/// in characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CypherError {
    pub kind: ErrorKind,
    pub message: String,
    pub offset: usize,
    pub line: u32,
    pub column: u32,
    /// The query line the position is on (a window of it for long lines, control characters
    /// shown as spaces) and the caret's character index within it; used by `Display`.
    pub excerpt: String,
    pub caret: usize,
}

impl CypherError {
    /// An error at `offset`; [`CypherError::locate`] fills in line, column and excerpt.
    pub(crate) fn new(kind: ErrorKind, offset: usize, message: impl Into<String>) -> CypherError {
        CypherError {
            kind,
            message: message.into(),
            offset,
            line: 0,
            column: 0,
            excerpt: String::new(),
            caret: 0,
        }
    }

    pub(crate) fn syntax(offset: usize, message: impl Into<String>) -> CypherError {
        CypherError::new(ErrorKind::Syntax, offset, message)
    }

    pub(crate) fn unsupported(offset: usize, message: impl Into<String>) -> CypherError {
        CypherError::new(ErrorKind::Unsupported, offset, message)
    }

    pub(crate) fn unknown(offset: usize, message: impl Into<String>) -> CypherError {
        CypherError::new(ErrorKind::Unknown, offset, message)
    }

    pub(crate) fn limit(offset: usize, message: impl Into<String>) -> CypherError {
        CypherError::new(ErrorKind::Limit, offset, message)
    }

    pub(crate) fn type_error(offset: usize, message: impl Into<String>) -> CypherError {
        CypherError::new(ErrorKind::Type, offset, message)
    }

    /// Clamps the offset into `text` and computes line, column and the excerpt.
    pub(crate) fn locate(mut self, text: &str) -> CypherError {
        let mut offset = self.offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        self.offset = offset;
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        self.line = (before.matches('\n').count() + 1).min(u32::MAX as usize) as u32;
        let col_chars = text[line_start..offset].chars().count();
        self.column = (col_chars + 1).min(u32::MAX as usize) as u32;
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line: Vec<char> = text[line_start..line_end]
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        const WIDTH: usize = 100;
        const BEFORE: usize = 40;
        if line.len() <= WIDTH {
            self.excerpt = line.into_iter().collect();
            self.caret = col_chars;
        } else {
            let start = col_chars.saturating_sub(BEFORE);
            let end = (start + WIDTH).min(line.len());
            let mut excerpt = String::new();
            let mut caret = col_chars - start;
            if start > 0 {
                excerpt.push('…');
                caret += 1;
            }
            excerpt.extend(&line[start..end]);
            if end < line.len() {
                excerpt.push('…');
            }
            self.excerpt = excerpt;
            self.caret = caret;
        }
        self
    }
}

impl fmt::Display for CypherError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )?;
        if !self.excerpt.is_empty() || self.caret > 0 {
            write!(
                f,
                "\n  {}\n  {}^",
                self.excerpt,
                " ".repeat(self.caret.min(200))
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for CypherError {}
