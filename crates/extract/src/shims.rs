//! Rewrites of the source the parser sees (`shims` in a language's manifest), for syntax its
//! grammar lacks. Each keeps every byte's offset (bytes become spaces, or a space becomes `;`),
//! so the tree's spans are the file's: names, signatures and predicates still read the file as
//! written.

use std::borrow::Cow;

use sextant_lang::SourceShim;

/// The bytes to parse: `text` itself when no shim changes anything.
pub(crate) fn apply<'a>(shims: &[SourceShim], text: &'a str) -> Cow<'a, [u8]> {
    let bytes = text.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    for shim in shims {
        match shim {
            SourceShim::TypeParameterVariance => variance(bytes, &mut out),
            SourceShim::GenericSignatureLines => signature_lines(bytes, &mut out),
            SourceShim::LeadingMacros => leading_macros(bytes, &mut out),
            SourceShim::QualifierMacros => qualifier_macros(bytes, &mut out),
            SourceShim::LoneMacroLines => lone_macro_lines(bytes, &mut out),
            SourceShim::CplusplusGroups => cplusplus_groups(bytes, &mut out),
        }
    }
    out.map_or(Cow::Borrowed(bytes), Cow::Owned)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_ident(b[i]) {
        i += 1;
    }
    i
}

/// `<in A>`, `<out A>`, `<in out A>`, `, out B = never>`: after `<` or `,`, the modifiers, then a
/// name followed by `,`, `>`, `=` or `extends`. The modifiers become spaces.
fn variance(b: &[u8], out: &mut Option<Vec<u8>>) {
    for (i, &c) in b.iter().enumerate() {
        if c != b'<' && c != b',' {
            continue;
        }
        let start = skip_ws(b, i + 1);
        let mut at = start;
        let mut seen_in = false;
        loop {
            let end = word_end(b, at);
            let word = &b[at..end];
            let spaced = end < b.len() && b[end].is_ascii_whitespace();
            if spaced && word == b"in" && !seen_in && at == start {
                seen_in = true;
                at = skip_ws(b, end);
            } else if spaced && word == b"out" {
                at = skip_ws(b, end);
                break;
            } else {
                break;
            }
        }
        if at == start {
            continue;
        }
        let name_end = word_end(b, at);
        if name_end == at || b[at].is_ascii_digit() {
            continue;
        }
        let next = skip_ws(b, name_end);
        let follows = b
            .get(next)
            .is_some_and(|&c| matches!(c, b',' | b'>' | b'='))
            || (b[next..].starts_with(b"extends")
                && !b.get(next + 7).is_some_and(|&c| is_ident(c)));
        if follows {
            let buf = out.get_or_insert_with(|| b.to_vec());
            for x in &mut buf[start..at] {
                if !x.is_ascii_whitespace() {
                    *x = b' ';
                }
            }
        }
    }
}

/// A line that starts (after indentation) with type parameters (`<A>(self: A): B`, `<A, E>(`)
/// after a line ending in a type (a name, `>`, `]` or `)`): in a type member list that is a new
/// member, which TypeScript separates at the line break; the last space before `<` becomes `;`.
fn signature_lines(b: &[u8], out: &mut Option<Vec<u8>>) {
    let mut line = 0;
    while line < b.len() {
        let next_line = b[line..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| line + p + 1);
        let mut at = line;
        while at < next_line && (b[at] == b' ' || b[at] == b'\t') {
            at += 1;
        }
        if at > line && at < b.len() && b[at] == b'<' && line > 0 && ends_a_type(b, line - 1) {
            let name = skip_ws(b, at + 1);
            let name_end = word_end(b, name);
            if name_end > name && !b[name].is_ascii_digit() {
                let after = skip_ws(b, name_end);
                let follows = b
                    .get(after)
                    .is_some_and(|&c| matches!(c, b',' | b'>' | b'='))
                    || b[after..].starts_with(b"extends ");
                if follows {
                    out.get_or_insert_with(|| b.to_vec())[at - 1] = b';';
                }
            }
        }
        line = next_line;
    }
}

/// Whether the last byte before `end` (inclusive) that is neither blank nor in a comment (a
/// block comment, or a line that is a `//` comment) closes a type.
fn ends_a_type(b: &[u8], end: usize) -> bool {
    let mut i = end + 1;
    loop {
        while i > 0 && b[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        if i >= 2 && &b[i - 2..i] == b"*/" {
            match b[..i - 2].windows(2).rposition(|w| w == b"/*") {
                Some(open) => {
                    i = open;
                    continue;
                }
                None => return false,
            }
        }
        let line_start = b[..i]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |p| p + 1);
        let first = skip_ws(b, line_start);
        if first < i && b[first..].starts_with(b"//") {
            i = line_start;
            continue;
        }
        break;
    }
    // (`=>` ends an arrow's parameters, not a type.)
    i > 0
        && (is_ident(b[i - 1])
            || matches!(b[i - 1], b']' | b')')
            || (b[i - 1] == b'>' && (i < 2 || b[i - 2] != b'=')))
}

/// The lines of `b`, as (start, end) byte offsets (end excludes the `\n`).
fn lines(b: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= b.len() {
            return None;
        }
        let end = b[start..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| start + p);
        let line = (start, end);
        start = end + 1;
        Some(line)
    })
}

/// The end of an all-caps macro name at `at` (letters, digits, `_`; a letter among them; at least
/// two bytes), or `None`.
fn macro_end(b: &[u8], at: usize) -> Option<usize> {
    let end = word_end(b, at);
    let name = &b[at..end];
    let caps = name.len() >= 2
        && !name[0].is_ascii_digit()
        && name.iter().any(u8::is_ascii_uppercase)
        && name
            .iter()
            .all(|&c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_');
    caps.then_some(end)
}

/// Type keywords, qualifiers and storage classes a declaration can start with.
const DECLARATION_KEYWORDS: &[&[u8]] = &[
    b"static",
    b"inline",
    b"extern",
    b"const",
    b"volatile",
    b"void",
    b"char",
    b"short",
    b"int",
    b"long",
    b"float",
    b"double",
    b"signed",
    b"unsigned",
    b"bool",
    b"_Bool",
    b"struct",
    b"union",
    b"enum",
    b"register",
    b"__inline",
    b"__inline__",
];

fn blank(out: &mut Option<Vec<u8>>, b: &[u8], from: usize, to: usize) {
    let buf = out.get_or_insert_with(|| b.to_vec());
    for x in &mut buf[from..to] {
        *x = b' ';
    }
}

/// Whether what follows a macro ending at `name_end` (after a space) starts a declaration: a type
/// keyword, or a type name followed by `*` or a space and then a declarator (`TYPE *name`,
/// `TYPE name`, `TYPE *(name)`).
fn declaration_follows(b: &[u8], name_end: usize) -> bool {
    if !b.get(name_end).is_some_and(|&c| c == b' ' || c == b'\t') {
        return false;
    }
    let word = skip_ws(b, name_end);
    let word_stop = word_end(b, word);
    if word_stop == word || b[word].is_ascii_digit() {
        return false;
    }
    if DECLARATION_KEYWORDS.contains(&&b[word..word_stop]) {
        return true;
    }
    let mut at = word_stop;
    let mut gap = false;
    while at < b.len() && (b[at].is_ascii_whitespace() || b[at] == b'*') {
        gap = true;
        at += 1;
    }
    gap && b
        .get(at)
        .is_some_and(|&c| c == b'(' || (is_ident(c) && !c.is_ascii_digit()))
}

fn leading_macros(b: &[u8], out: &mut Option<Vec<u8>>) {
    for (start, end) in lines(b) {
        let Some(name_end) = macro_end(b, start) else {
            continue;
        };
        if name_end < end && declaration_follows(b, name_end) {
            blank(out, b, start, name_end);
        }
    }
}

fn qualifier_macros(b: &[u8], out: &mut Option<Vec<u8>>) {
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_uppercase() || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let Some(name_end) = macro_end(b, i) else {
            i = word_end(b, i).max(i + 1);
            continue;
        };
        let mut before = i;
        while before > 0 && (b[before - 1] == b' ' || b[before - 1] == b'\t') {
            before -= 1;
        }
        let prev = before.checked_sub(1).map(|p| b[p]);
        let qualifies = match prev {
            Some(b'(' | b',') => declaration_follows(b, name_end),
            Some(b'*') => {
                let name = skip_ws(b, name_end);
                name > name_end
                    && word_end(b, name) > name
                    && !b[name].is_ascii_digit()
                    && b.get(skip_ws(b, word_end(b, name)))
                        .is_some_and(|&c| matches!(c, b';' | b'=' | b',' | b')' | b'[' | b'('))
            }
            _ => false,
        };
        if qualifies {
            blank(out, b, i, name_end);
        }
        i = name_end;
    }
}

fn lone_macro_lines(b: &[u8], out: &mut Option<Vec<u8>>) {
    for (start, end) in lines(b) {
        let Some(name_end) = macro_end(b, start) else {
            continue;
        };
        if b[name_end..end].iter().all(|c| c.is_ascii_whitespace()) {
            blank(out, b, start, name_end);
        }
    }
}

/// The directive of a preprocessor line (`ifdef`, `endif`) and the text after it.
fn directive(line: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = skip_ws(line, 0);
    if line.get(at) != Some(&b'#') {
        return None;
    }
    let name = skip_ws(line, at + 1);
    let end = word_end(line, name);
    Some((&line[name..end], &line[end..]))
}

fn cplusplus_groups(b: &[u8], out: &mut Option<Vec<u8>>) {
    // Open groups: whether each is being blanked.
    let mut open: Vec<bool> = Vec::new();
    for (start, end) in lines(b) {
        let line = &b[start..end];
        let blanking = open.last().copied().unwrap_or(false);
        match directive(line) {
            Some((name, rest)) if name == b"if" || name == b"ifdef" || name == b"ifndef" => {
                let cond: Vec<u8> = rest
                    .iter()
                    .copied()
                    .filter(|c| !c.is_ascii_whitespace())
                    .collect();
                let cplusplus = name != b"ifndef"
                    && matches!(
                        cond.as_slice(),
                        b"__cplusplus" | b"defined(__cplusplus)" | b"defined__cplusplus"
                    );
                if blanking {
                    blank(out, b, start, end);
                }
                open.push(blanking || cplusplus);
                continue;
            }
            Some((name, _)) if name == b"else" || name == b"elif" => {
                let outer = open.len() >= 2 && open[open.len() - 2];
                if let Some(top) = open.last_mut() {
                    *top = outer;
                }
                if outer {
                    blank(out, b, start, end);
                }
                continue;
            }
            Some((name, _)) if name == b"endif" => {
                open.pop();
                if open.last().copied().unwrap_or(false) {
                    blank(out, b, start, end);
                }
                continue;
            }
            _ => {}
        }
        if blanking {
            blank(out, b, start, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shim(shims: &[SourceShim], text: &str) -> String {
        let out = apply(shims, text);
        assert_eq!(out.len(), text.len());
        String::from_utf8(out.into_owned()).unwrap()
    }

    #[test]
    fn variance_modifiers_become_spaces() {
        let v = [SourceShim::TypeParameterVariance];
        assert_eq!(
            shim(
                &v,
                "interface I<in out A, out E = never, in R extends X> {}"
            ),
            "interface I<       A,     E = never,    R extends X> {}"
        );
        // A parameter named `out`, `extends` after `out`, and code that only looks alike.
        for same in [
            "type F<out> = out",
            "type G<out extends X> = X",
            "for (const k in obj) {}",
            "f(a, out, b)",
            "let i = 0, out = 1",
            "if (a < out) {}",
        ] {
            assert_eq!(shim(&v, same), same);
        }
    }

    #[test]
    fn generic_signature_lines_get_a_separator() {
        let s = [SourceShim::GenericSignatureLines];
        assert_eq!(
            shim(
                &s,
                "const f: {\n  <A>(a: A): E\n  <A, B>(a: A, b: B): Effect<void>\n  <C extends X>(c: C): C\n}"
            ),
            "const f: {\n  <A>(a: A): E\n ;<A, B>(a: A, b: B): Effect<void>\n ;<C extends X>(c: C): C\n}"
        );
        // Documented members: the comments between them do not count.
        assert_eq!(
            shim(
                &s,
                "type T = {\n  (n: number): A[]\n  /** Doc. */\n  // note\n  <A>(a: A): A\n}"
            ),
            "type T = {\n  (n: number): A[]\n  /** Doc. */\n  // note\n ;<A>(a: A): A\n}"
        );
        for same in [
            "const g = x =>\n  <A>(a: A) => a",
            "f(a,\n  <A>(a: A) => a)",
            "x = a\n  < b",
            "<A>(a: A): E",
        ] {
            assert_eq!(shim(&s, same), same);
        }
    }

    #[test]
    fn c_macros_before_declarations_and_on_their_own_lines_become_spaces() {
        let m = [SourceShim::LeadingMacros, SourceShim::LoneMacroLines];
        assert_eq!(
            shim(
                &m,
                "LUAI_FUNC void f (lua_State *L);\nLUA_API lua_State *(g) (void);\nJEMALLOC_ALWAYS_INLINE arena_t *\narena_get(void) {}\nTEST_END\nint\nmain(void) {}\n"
            ),
            "          void f (lua_State *L);\n        lua_State *(g) (void);\n                       arena_t *\narena_get(void) {}\n        \nint\nmain(void) {}\n"
        );
        for same in [
            "BOOL f(int x);",
            "BOOL x, y;",
            "FILE *f = fopen(p, \"r\");",
            "FOO bar = 1;",
            "UNUSED(x);",
            "enum e {\n  A,\n  B\n};",
            "x = a +\nB;",
            "int X;",
        ] {
            assert_eq!(shim(&m, same), same);
        }
    }

    #[test]
    fn cplusplus_groups_become_blank_in_c() {
        let g = [SourceShim::CplusplusGroups];
        let text = "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n#if defined(__cplusplus)\n}\n#else\nint g;\n#endif\n";
        let want = "#ifdef __cplusplus\n            \n#endif\nint f(void);\n#if defined(__cplusplus)\n \n#else\nint g;\n#endif\n";
        assert_eq!(shim(&g, text), want);
        // Nested groups inside are blank too; other conditions are left alone.
        let nested = "#ifdef __cplusplus\n#if X\nint a;\n#endif\n#endif\n#ifndef __cplusplus\nint c;\n#endif\n";
        let want = "#ifdef __cplusplus\n     \n      \n      \n#endif\n#ifndef __cplusplus\nint c;\n#endif\n";
        assert_eq!(shim(&g, nested), want);
    }

    #[test]
    fn c_qualifier_macros_become_spaces() {
        let q = [SourceShim::QualifierMacros];
        assert_eq!(
            shim(
                &q,
                "void f(UNUSED tsdn_t *tsdn, UNUSED bool x);\nextern hook_t *JET_MUTABLE hook;"
            ),
            "void f(       tsdn_t *tsdn,        bool x);\nextern hook_t *            hook;"
        );
        for same in [
            "f(MAX, n);",
            "f(BOOL flag);",
            "n = size * MAX_LEN;",
            "x = a * SCALE + b;",
            "g(FOO(x), y);",
        ] {
            assert_eq!(shim(&q, same), same);
        }
    }
}
