//! Tokens. One pass over the text, no backtracking: linear in the input.

use super::error::CypherError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A bare identifier; keywords are identifiers too (the parser compares case-insensitively).
    Ident(String),
    /// A backtick-quoted identifier (never a keyword).
    Quoted(String),
    Str(String),
    Int(i64),
    Float(f64),
    /// `$name`
    Param(String),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Dot,
    DotDot,
    Colon,
    Pipe,
    Semicolon,
    Eq,
    /// `<>` or `!=`
    Neq,
    Lt,
    Le,
    Gt,
    Ge,
    /// `=~`
    RegexMatch,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{}`", shorten(s)),
            Tok::Quoted(s) => format!("`{}`", shorten(s)),
            Tok::Str(_) => "a string".into(),
            Tok::Int(_) | Tok::Float(_) => "a number".into(),
            Tok::Param(p) => format!("${}", shorten(p)),
            Tok::Eof => "the end of the query".into(),
            other => format!("`{}`", other.symbol()),
        }
    }

    fn symbol(&self) -> &'static str {
        match self {
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::LBracket => "[",
            Tok::RBracket => "]",
            Tok::LBrace => "{",
            Tok::RBrace => "}",
            Tok::Comma => ",",
            Tok::Dot => ".",
            Tok::DotDot => "..",
            Tok::Colon => ":",
            Tok::Pipe => "|",
            Tok::Semicolon => ";",
            Tok::Eq => "=",
            Tok::Neq => "<>",
            Tok::Lt => "<",
            Tok::Le => "<=",
            Tok::Gt => ">",
            Tok::Ge => ">=",
            Tok::RegexMatch => "=~",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Star => "*",
            Tok::Slash => "/",
            Tok::Percent => "%",
            Tok::Caret => "^",
            _ => "?",
        }
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() > 40 {
        let mut t: String = s.chars().take(40).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    /// Byte offsets of the token in the query text.
    pub start: usize,
    pub end: usize,
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Splits `text` into tokens, ending with [`Tok::Eof`].
pub fn lex(text: &str) -> Result<Vec<Token>, CypherError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < text.len() {
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let start = i;
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        // comments
        if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(text.len(), |n| i + n);
            continue;
        }
        if text[i..].starts_with("/*") {
            match text[i + 2..].find("*/") {
                Some(n) => i = i + 2 + n + 2,
                None => return Err(CypherError::syntax(start, "unterminated comment `/*`")),
            }
            continue;
        }
        let single = |t: Tok| (t, 1usize);
        let next = bytes.get(i + 1).copied();
        let (tok, len) = match c {
            '(' => single(Tok::LParen),
            ')' => single(Tok::RParen),
            '[' => single(Tok::LBracket),
            ']' => single(Tok::RBracket),
            '{' => single(Tok::LBrace),
            '}' => single(Tok::RBrace),
            ',' => single(Tok::Comma),
            ':' => single(Tok::Colon),
            '|' => single(Tok::Pipe),
            ';' => single(Tok::Semicolon),
            '+' => single(Tok::Plus),
            '-' => single(Tok::Minus),
            '*' => single(Tok::Star),
            '/' => single(Tok::Slash),
            '%' => single(Tok::Percent),
            '^' => single(Tok::Caret),
            '.' if next == Some(b'.') => (Tok::DotDot, 2),
            '.' if next.is_some_and(|b| b.is_ascii_digit()) => {
                return Err(CypherError::syntax(
                    start,
                    "a number cannot start with `.` (write 0.5)",
                ));
            }
            '.' => single(Tok::Dot),
            '=' if next == Some(b'~') => (Tok::RegexMatch, 2),
            '=' => single(Tok::Eq),
            '!' if next == Some(b'=') => (Tok::Neq, 2),
            '<' if next == Some(b'>') => (Tok::Neq, 2),
            '<' if next == Some(b'=') => (Tok::Le, 2),
            '<' => single(Tok::Lt),
            '>' if next == Some(b'=') => (Tok::Ge, 2),
            '>' => single(Tok::Gt),
            '\'' | '"' => {
                let (s, end) = lex_string(text, i, c)?;
                out.push(Token {
                    tok: Tok::Str(s),
                    start,
                    end,
                });
                i = end;
                continue;
            }
            '`' => {
                let mut s = String::new();
                let mut j = i + 1;
                loop {
                    match text[j..].find('`') {
                        None => {
                            return Err(CypherError::syntax(
                                start,
                                "unterminated quoted name (missing closing backtick)",
                            ));
                        }
                        Some(n) => {
                            s.push_str(&text[j..j + n]);
                            j += n + 1;
                            if bytes.get(j) == Some(&b'`') {
                                s.push('`');
                                j += 1;
                            } else {
                                break;
                            }
                        }
                    }
                }
                if s.is_empty() {
                    return Err(CypherError::syntax(start, "empty quoted name"));
                }
                out.push(Token {
                    tok: Tok::Quoted(s),
                    start,
                    end: j,
                });
                i = j;
                continue;
            }
            '$' => {
                let rest = &text[i + 1..];
                let n = rest
                    .char_indices()
                    .find(|&(_, c)| !is_ident_continue(c))
                    .map_or(rest.len(), |(n, _)| n);
                if n == 0 {
                    return Err(CypherError::syntax(
                        start,
                        "expected a parameter name after `$`",
                    ));
                }
                out.push(Token {
                    tok: Tok::Param(rest[..n].to_string()),
                    start,
                    end: i + 1 + n,
                });
                i += 1 + n;
                continue;
            }
            c if c.is_ascii_digit() => {
                let (tok, end) = lex_number(text, i)?;
                out.push(Token { tok, start, end });
                i = end;
                continue;
            }
            c if is_ident_start(c) => {
                let rest = &text[i..];
                let n = rest
                    .char_indices()
                    .find(|&(_, c)| !is_ident_continue(c))
                    .map_or(rest.len(), |(n, _)| n);
                out.push(Token {
                    tok: Tok::Ident(rest[..n].to_string()),
                    start,
                    end: i + n,
                });
                i += n;
                continue;
            }
            other => {
                let shown = if other.is_control() {
                    format!("U+{:04X}", other as u32)
                } else {
                    format!("`{other}`")
                };
                return Err(CypherError::syntax(
                    start,
                    format!("unexpected character {shown}"),
                ));
            }
        };
        out.push(Token {
            tok,
            start,
            end: i + len,
        });
        i += len;
    }
    out.push(Token {
        tok: Tok::Eof,
        start: text.len(),
        end: text.len(),
    });
    Ok(out)
}

/// A string literal starting at `start` (the quote). Known escapes are decoded; an unknown
/// escape such as `\.` is kept as written, so regular expressions need no doubled backslashes.
fn lex_string(text: &str, start: usize, quote: char) -> Result<(String, usize), CypherError> {
    let mut s = String::new();
    let mut chars = text[start + 1..].char_indices();
    while let Some((n, c)) = chars.next() {
        let at = start + 1 + n;
        if c == quote {
            return Ok((s, at + 1));
        }
        if c != '\\' {
            s.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            break;
        };
        match e {
            '\\' => s.push('\\'),
            '\'' => s.push('\''),
            '"' => s.push('"'),
            'n' => s.push('\n'),
            't' => s.push('\t'),
            'r' => s.push('\r'),
            'b' => s.push('\u{8}'),
            'f' => s.push('\u{c}'),
            'u' | 'U' => {
                let digits = if e == 'u' { 4 } else { 8 };
                let mut code = 0u32;
                for _ in 0..digits {
                    let d = chars.next().and_then(|(_, h)| h.to_digit(16));
                    match d {
                        Some(d) => code = code * 16 + d,
                        None => {
                            return Err(CypherError::syntax(
                                at,
                                format!("invalid escape: `\\{e}` needs {digits} hex digits"),
                            ));
                        }
                    }
                }
                match char::from_u32(code) {
                    Some(ch) => s.push(ch),
                    None => {
                        return Err(CypherError::syntax(
                            at,
                            format!("invalid escape: U+{code:X} is not a character"),
                        ));
                    }
                }
            }
            other => {
                s.push('\\');
                s.push(other);
            }
        }
    }
    Err(CypherError::syntax(
        start,
        format!("unterminated string (missing closing {quote})"),
    ))
}

fn lex_number(text: &str, start: usize) -> Result<(Tok, usize), CypherError> {
    let bytes = text.as_bytes();
    let mut i = start;
    let digits = |mut i: usize, hex: bool| {
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_digit() || (hex && b.is_ascii_hexdigit()))
        {
            i += 1;
        }
        i
    };
    let too_large = || CypherError::syntax(start, "integer literal too large (64-bit)");
    if bytes[i] == b'0' && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
        let end = digits(i + 2, true);
        if end == i + 2 {
            return Err(CypherError::syntax(start, "invalid hexadecimal literal"));
        }
        check_number_end(text, end, start)?;
        let v = i64::from_str_radix(&text[i + 2..end], 16).map_err(|_| too_large())?;
        return Ok((Tok::Int(v), end));
    }
    i = digits(i, false);
    let mut float = false;
    if bytes.get(i) == Some(&b'.') && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit()) {
        float = true;
        i = digits(i + 1, false);
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(bytes.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if bytes.get(j).is_some_and(|b| b.is_ascii_digit()) {
            float = true;
            i = digits(j, false);
        }
    }
    check_number_end(text, i, start)?;
    let slice = &text[start..i];
    if float {
        let v: f64 = slice
            .parse()
            .map_err(|_| CypherError::syntax(start, "invalid number"))?;
        if !v.is_finite() {
            return Err(CypherError::syntax(start, "float literal out of range"));
        }
        Ok((Tok::Float(v), i))
    } else {
        let v: i64 = slice.parse().map_err(|_| too_large())?;
        Ok((Tok::Int(v), i))
    }
}

fn check_number_end(text: &str, end: usize, start: usize) -> Result<(), CypherError> {
    if text[end..].chars().next().is_some_and(is_ident_continue) {
        return Err(CypherError::syntax(
            start,
            "invalid number (letters directly after digits)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn arrows_ranges_and_numbers() {
        assert_eq!(
            toks("(a)<-[:X*1..3]->(b)"),
            vec![
                Tok::LParen,
                Tok::Ident("a".into()),
                Tok::RParen,
                Tok::Lt,
                Tok::Minus,
                Tok::LBracket,
                Tok::Colon,
                Tok::Ident("X".into()),
                Tok::Star,
                Tok::Int(1),
                Tok::DotDot,
                Tok::Int(3),
                Tok::RBracket,
                Tok::Minus,
                Tok::Gt,
                Tok::LParen,
                Tok::Ident("b".into()),
                Tok::RParen,
                Tok::Eof
            ]
        );
        assert_eq!(
            toks("1.5 2e3 0x1F <> != =~ <= >="),
            vec![
                Tok::Float(1.5),
                Tok::Float(2000.0),
                Tok::Int(31),
                Tok::Neq,
                Tok::Neq,
                Tok::RegexMatch,
                Tok::Le,
                Tok::Ge,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn strings_escapes_comments_and_quoted_names() {
        assert_eq!(
            toks(
                r#"'a\'b' "c\n\u0041" '\.py' `we``ird` // x
            /* y */ $p"#
            ),
            vec![
                Tok::Str("a'b".into()),
                Tok::Str("c\nA".into()),
                Tok::Str("\\.py".into()),
                Tok::Quoted("we`ird".into()),
                Tok::Param("p".into()),
                Tok::Eof
            ]
        );
        assert!(lex("'abc").is_err());
        assert!(lex("/* abc").is_err());
        assert!(lex("`abc").is_err());
        assert!(lex("99999999999999999999").is_err());
        assert!(lex("'\\u12'").is_err());
        assert_eq!(lex("a ~ b").unwrap_err().offset, 2);
    }
}
