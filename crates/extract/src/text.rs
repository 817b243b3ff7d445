//! Text helpers: whitespace collapsing, comment-marker stripping, type-name cleaning.

/// Number of lines (a trailing text without newline counts as a line).
pub(crate) fn line_count(text: &str) -> u32 {
    if text.is_empty() {
        return 0;
    }
    let newlines = memchr_count(text.as_bytes(), b'\n');
    (newlines + usize::from(!text.ends_with('\n'))) as u32
}

fn memchr_count(bytes: &[u8], needle: u8) -> usize {
    bytes.iter().filter(|&&b| b == needle).count()
}

/// Collapses runs of whitespace to one space, trims, and caps the length (on a char boundary).
pub(crate) fn collapse(text: &str, max: usize) -> String {
    // ASCII, byte by byte (stopping at `max` like the general path: a binding's value can be a
    // whole function); the general path from the start at the first other byte.
    let bytes = text.as_bytes();
    // Most texts (names) are short and have no whitespace: they come out as they are.
    if text.len() <= max && bytes.iter().all(|&b| b < 0x80 && !ascii_space(b)) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len().min(max + 4));
    let mut space = false;
    for &b in bytes {
        if b >= 0x80 {
            return collapse_chars(text, max);
        }
        if ascii_space(b) {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if out.len() >= max {
            out.push('…');
            return out;
        }
        out.push(char::from(b));
    }
    out
}

/// The ASCII characters `char::is_whitespace` accepts (vertical tab included, unlike
/// `u8::is_ascii_whitespace`).
fn ascii_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// [`collapse`] over chars: any text.
fn collapse_chars(text: &str, max: usize) -> String {
    if text.len() <= max && !text.chars().any(char::is_whitespace) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len().min(max + 4));
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if out.len() >= max {
            out.push('…');
            return out;
        }
        out.push(c);
    }
    out
}

/// Strips comment markers from a doc comment or docstring and trims common indentation.
pub(crate) fn clean_doc(raw: &str) -> String {
    let mut text = raw.trim();
    for quote in ["\"\"\"", "'''", "\"", "'"] {
        if text.len() >= 2 * quote.len() && text.starts_with(quote) && text.ends_with(quote) {
            text = &text[quote.len()..text.len() - quote.len()];
            break;
        }
    }
    // Python string prefixes (r"""...""").
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        let mut l = line.trim();
        for marker in ["/**", "/*!", "/*", "*/", "///", "//!", "//", "#"] {
            if let Some(rest) = l.strip_prefix(marker) {
                l = rest;
                break;
            }
        }
        if let Some(rest) = l.strip_suffix("*/") {
            l = rest;
        }
        let l = l.trim();
        let l = l
            .strip_prefix("* ")
            .unwrap_or(if l == "*" { "" } else { l });
        lines.push(l.trim_end().to_string());
    }
    while lines.first().is_some_and(|l| l.is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let joined = lines.join("\n");
    if joined.len() > 4000 {
        let mut end = 4000;
        while !joined.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &joined[..end])
    } else {
        joined
    }
}

/// Reduces a written type to its bare name: `&mut a::Foo<T>` → `a::Foo`, `*Server` → `Server`.
pub(crate) fn clean_type(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0u32;
    for c in text.chars() {
        match c {
            '<' | '[' | '(' => depth += 1,
            '>' | ']' | ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    let mut s = out.trim();
    loop {
        let before = s;
        for prefix in [
            "&", "*", "mut ", "dyn ", "impl ", "const ", "struct ", "class ",
        ] {
            if let Some(rest) = s.strip_prefix(prefix) {
                s = rest.trim_start();
            }
        }
        if s == before {
            break;
        }
    }
    s.trim_end_matches(['?', '!', '&', '*', ' ']).to_string()
}

/// Splits a qualified name on any of the usual separators (`::`, `.`, `\`, `/`, `#`).
pub fn split_qualified(text: &str) -> Vec<&str> {
    text.split(['.', ':', '\\', '/', '#'])
        .filter(|s| !s.is_empty())
        .collect()
}

/// Is the name written like a constant (`MAX_SIZE`, `HTTP2`)?
pub(crate) fn is_upper_case(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(collapse("fn  f(\n   a: u8)\t", 100), "fn f( a: u8)");
        assert_eq!(collapse("abcdef", 3), "abc…");
        assert_eq!(collapse("abc", 3), "abc");
        assert_eq!(collapse("ab\u{a0}c", 9), "ab c");
        // The ASCII path gives what the general one does, around every cut and whitespace kind.
        let pieces = [
            "a", "bc", " ", "\t\n", "\x0B", "\x0C\r", "é", "\u{a0}", "\u{2028}", "xyz",
        ];
        for i in 0..pieces.len() {
            for j in 0..pieces.len() {
                for k in 0..pieces.len() {
                    let text = format!("{}{}{}{}", pieces[i], pieces[j], pieces[k], pieces[i]);
                    for max in 0..12 {
                        assert_eq!(
                            collapse(&text, max),
                            collapse_chars(&text, max),
                            "{text:?} {max}"
                        );
                    }
                }
            }
        }
        assert_eq!(clean_doc("/// One.\n/// Two."), "One.\nTwo.");
        assert_eq!(clean_doc("/**\n * Hello\n * world\n */"), "Hello\nworld");
        assert_eq!(
            clean_doc("\"\"\"Doc.\n\n    More.\n    \"\"\""),
            "Doc.\n\nMore."
        );
        assert_eq!(clean_type("&mut a::Foo<T>"), "a::Foo");
        assert_eq!(clean_type("*Server"), "Server");
        assert_eq!(clean_type("List[T]"), "List");
        assert_eq!(split_qualified("a::b.c"), vec!["a", "b", "c"]);
        assert!(is_upper_case("MAX_2") && !is_upper_case("Max") && !is_upper_case("_"));
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count("a\nb\n"), 2);
    }
}
