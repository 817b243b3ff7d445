//! Search text processing, pure: identifier splitting for the full-text index (`getUserById` is
//! found by "user"), turning user queries into safe FTS5 expressions, and edit distance for
//! "did you mean" suggestions.

/// Splits an identifier into lower-case words: `getUserById` → `get user by id`,
/// `HTTPServer2` → `http server2`, `snake_case` → `snake case`.
pub fn split_identifier(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = match prev {
            Some(p) if c.is_uppercase() => {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            }
            _ => false,
        };
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The text indexed for a name: its words plus the whole lower-cased name, so both "user" and
/// "getuserbyid" match `getUserById`.
pub fn name_tokens(name: &str) -> String {
    if name.is_ascii() {
        return ascii_name_tokens(name.as_bytes());
    }
    general_name_tokens(name)
}

/// [`name_tokens`] of an ASCII name, in one pass and one allocation (indexing calls it for every
/// definition and every segment of its qualified name).
fn ascii_name_tokens(b: &[u8]) -> String {
    let mut out = String::with_capacity(2 * b.len() + 1);
    let mut words = 0usize;
    let mut in_word = false;
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            in_word = false;
            continue;
        }
        // As `split_identifier`: an upper-case letter after a lower-case one or a digit, or the
        // last of a run of capitals before a lower-case letter, starts a word.
        let boundary = i > 0
            && c.is_ascii_uppercase()
            && (b[i - 1].is_ascii_lowercase()
                || b[i - 1].is_ascii_digit()
                || (b[i - 1].is_ascii_uppercase()
                    && b.get(i + 1).is_some_and(u8::is_ascii_lowercase)));
        if !in_word || boundary {
            if words > 0 {
                out.push(' ');
            }
            words += 1;
            in_word = true;
        }
        out.push(char::from(c.to_ascii_lowercase()));
    }
    if words > 1 {
        out.push(' ');
        out.extend(
            b.iter()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| char::from(c.to_ascii_lowercase())),
        );
    }
    out
}

fn general_name_tokens(name: &str) -> String {
    let mut words = split_identifier(name);
    let whole: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if words.len() != 1 && !whole.is_empty() {
        words.push(whole);
    }
    words.join(" ")
}

/// A safe FTS5 match expression for a user query: every word (split like identifiers) must match
/// as a prefix. `None` when the query has no searchable characters.
pub fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split_whitespace()
        .flat_map(split_identifier)
        .map(|w| w.replace('"', ""))
        .collect();
    // Whole words match whole tokens; only the last word is a prefix (it may still be typed).
    let last = words.len().checked_sub(1)?;
    let terms: Vec<String> = words
        .iter()
        .enumerate()
        .map(|(i, w)| {
            if i == last {
                format!("\"{w}\"*")
            } else {
                format!("\"{w}\"")
            }
        })
        .collect();
    Some(terms.join(" AND "))
}

/// Levenshtein distance in chars, giving up (returning `limit + 1`) once it exceeds `limit`.
pub fn edit_distance(a: &str, b: &str, limit: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > limit {
        return limit + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        let mut row_min = cur[0];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            row_min = row_min.min(cur[j]);
        }
        if row_min > limit {
            return limit + 1;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words() {
        let s = |x: &str| split_identifier(x).join(" ");
        assert_eq!(s("getUserById"), "get user by id");
        assert_eq!(s("HTTPServer"), "http server");
        assert_eq!(s("parseHTTP2Request"), "parse http2 request");
        assert_eq!(s("snake_case_name"), "snake case name");
        assert_eq!(s("__init__"), "init");
        assert_eq!(s("Ünïcode_Straße"), "ünïcode straße");
        assert_eq!(name_tokens("getUserById"), "get user by id getuserbyid");
        assert_eq!(name_tokens("run"), "run");
        assert_eq!(name_tokens("HTTPServer2_x"), "http server2 x httpserver2x");
    }

    /// The ASCII path gives what the general one does: tricky names, and every string of up to
    /// four characters over an alphabet of each character class.
    #[test]
    fn ascii_names_tokenize_as_the_general_path() {
        let mut names: Vec<String> = [
            "",
            "_",
            "__init__",
            "getUserById",
            "HTTPServer2",
            "snake_case",
            "ABC",
            "aB",
            "Ab",
            "a1B",
            "ABc",
            "IOError",
            "x86_64",
            "a.b::C",
            "  ",
            "URLs",
            "getHTTP2Response",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet = ['a', 'B', '1', '_', 'Z', 'q'];
        let mut frontier = vec![String::new()];
        for _ in 0..4 {
            frontier = frontier
                .iter()
                .flat_map(|p| alphabet.iter().map(move |c| format!("{p}{c}")))
                .collect();
            names.extend(frontier.iter().cloned());
        }
        for name in &names {
            assert_eq!(
                ascii_name_tokens(name.as_bytes()),
                general_name_tokens(name),
                "{name:?}"
            );
        }
        assert_eq!(name_tokens("ÉtéBien"), general_name_tokens("ÉtéBien"));
    }

    #[test]
    fn queries_are_safe_fts() {
        assert_eq!(fts_query("user id").unwrap(), "\"user\" AND \"id\"*");
        assert_eq!(fts_query("getUser").unwrap(), "\"get\" AND \"user\"*");
        assert_eq!(
            fts_query("\" OR 1=1 --").unwrap(),
            "\"or\" AND \"1\" AND \"1\"*"
        );
        assert_eq!(fts_query("  ()  "), None);
    }

    #[test]
    fn edit_distance_is_bounded() {
        assert_eq!(edit_distance("parser", "parsr", 2), 1);
        assert_eq!(edit_distance("kitten", "sitting", 5), 3);
        assert_eq!(edit_distance("a", "abcdef", 2), 3);
    }
}
