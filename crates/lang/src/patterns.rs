//! Reading a query source as a list of top-level patterns without compiling it, so a language's
//! query can be split into parts that run separately (see `sextant-extract`'s `cache.rs`).

use std::ops::Range;

/// The byte ranges of the top-level patterns of a query source, in the order tree-sitter numbers
/// them (pattern 0, 1, ...). A pattern starts at a top-level `(`, `[` or `"` and runs, with its
/// trailing captures and quantifiers, to the next one (comments and blank space trimmed).
/// Callers that compile the parts check the pattern counts, so a miscount cannot go unnoticed.
pub fn pattern_ranges(source: &str) -> Vec<Range<usize>> {
    let bytes = source.as_bytes();
    let mut starts = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                if depth == 0 {
                    starts.push(i);
                }
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'(' | b'[' => {
                if depth == 0 {
                    starts.push(i);
                }
                depth += 1;
            }
            b')' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    let mut ranges = Vec::with_capacity(starts.len());
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(source.len());
        ranges.push(start..start + trimmed_len(&source[start..end]));
    }
    ranges
}

/// The length of a pattern's text without the comments and blank space after it.
fn trimmed_len(text: &str) -> usize {
    let mut end = 0;
    let mut in_string = false;
    let mut escaped = false;
    let mut comment = false;
    for (i, c) in text.char_indices() {
        if comment {
            comment = c != '\n';
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            end = i + c.len_utf8();
            continue;
        }
        match c {
            ';' => comment = true,
            '"' => {
                in_string = true;
                end = i + 1;
            }
            c if c.is_whitespace() => {}
            c => end = i + c.len_utf8(),
        }
    }
    end
}

/// The names of the captures written in a pattern (`@name` → `name`), outside strings and comments.
pub fn capture_names(pattern: &str) -> Vec<&str> {
    let bytes = pattern.as_bytes();
    let mut names = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'@' => {
                let start = i + 1;
                let mut end = start;
                while end < bytes.len()
                    && (bytes[end].is_ascii_alphanumeric()
                        || matches!(bytes[end], b'_' | b'.' | b'-'))
                {
                    end += 1;
                }
                names.push(&pattern[start..end]);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    names
}

/// The node kind a pattern starts with (`(program (x) @y)` and `((program ...) (#eq? ...))` →
/// `program`); `None` for alternations, strings and wildcards.
pub fn root_node_kind(pattern: &str) -> Option<&str> {
    let rest = pattern.trim_start_matches(|c: char| c == '(' || c.is_whitespace());
    if rest.len() == pattern.len() {
        return None;
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let kind = &rest[..end];
    (!kind.is_empty() && kind != "_").then_some(kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_split_like_tree_sitter_numbers_them() {
        let source =
            "; c\n(a) @x ; after\n((b (c) @y) (#eq? @y \"(\"))\n[(d) (e)] @z\n\"+\" @op\n(f)*";
        let texts: Vec<&str> = pattern_ranges(source)
            .into_iter()
            .map(|r| &source[r])
            .collect();
        assert_eq!(
            texts,
            vec![
                "(a) @x",
                "((b (c) @y) (#eq? @y \"(\"))",
                "[(d) (e)] @z",
                "\"+\" @op",
                "(f)*"
            ]
        );
        assert_eq!(
            capture_names("((b (c) @y.z) (#eq? @_w \"@no\"))"),
            vec!["y.z", "_w"]
        );
        assert_eq!(
            root_node_kind("((program (x)) (#eq? @a \"b\"))"),
            Some("program")
        );
        assert_eq!(root_node_kind("(program_x)"), Some("program_x"));
        assert_eq!(root_node_kind("[(program)]"), None);
        assert_eq!(root_node_kind("(_ (x))"), None);
    }

    /// Every built-in language's query splits into exactly the patterns tree-sitter compiles.
    #[test]
    fn builtin_queries_split_into_their_patterns() {
        let registry = crate::Registry::builtin().unwrap();
        for language in registry.languages() {
            let compiled = language.compile().unwrap();
            let source = &language.query_source;
            let ranges = pattern_ranges(source);
            assert_eq!(
                ranges.len(),
                compiled.query.pattern_count(),
                "{}",
                language.id()
            );
            for (i, range) in ranges.iter().enumerate() {
                assert_eq!(
                    range.start,
                    compiled.query.start_byte_for_pattern(i),
                    "{} pattern {i}",
                    language.id()
                );
            }
            // The trimmed texts, joined, are the same query.
            let joined: Vec<&str> = ranges.iter().map(|r| &source[r.clone()]).collect();
            let again = language.compile_source(&joined.join("\n")).unwrap();
            assert_eq!(
                again.query.pattern_count(),
                compiled.query.pattern_count(),
                "{}",
                language.id()
            );
        }
    }
}
