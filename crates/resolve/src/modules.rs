//! Module paths: normalising qualified names across separators, and turning an import source
//! (`..base`, `./util`, `crate::store`, `github.com/x/y/pkg`, `a.b.C`) into candidate modules.

/// Joins the segments of a qualified name with `.`, whatever the language's separators were
/// (`a::b`, `a\b`, `a/b.c` all become `a.b` / `a.b.c`).
pub fn normalize(qname: &str) -> String {
    let mut out = String::with_capacity(qname.len());
    for seg in segments(qname) {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(seg);
    }
    out
}

/// The segments [`normalize`] joins with dots.
pub(crate) fn segments(qname: &str) -> impl DoubleEndedIterator<Item = &str> {
    qname
        .split(['.', ':', '\\', '/', '#'])
        .filter(|s| !s.is_empty())
}

/// Whether `normalize(qname) == key`, without making the normalised name.
pub(crate) fn normalizes_to(qname: &str, key: &str) -> bool {
    !key.is_empty() && segments(qname).eq(key.split('.'))
}

/// Drops a known source extension from a path.
pub(crate) fn strip_extension(path: &str) -> &str {
    const EXTENSIONS: &[&str] = &[
        ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".py", ".pyi", ".rb", ".php",
        ".go", ".rs", ".h", ".hpp", ".c", ".cc", ".cpp", ".java", ".kt", ".cs", ".d.ts",
    ];
    for ext in EXTENSIONS {
        if let Some(stem) = path.strip_suffix(ext) {
            return stem;
        }
    }
    path
}

/// Joins a directory and a relative path (`./x`, `../y/z`), normalising `.` and `..`.
/// `None` if it climbs above the root.
pub(crate) fn join_relative(dir: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in relative.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// The directory of a repository path.
pub(crate) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_helpers() {
        assert_eq!(normalize("crate_a::store::Db"), "crate_a.store.Db");
        assert_eq!(normalize("App\\Models::User"), "App.Models.User");
        assert_eq!(normalize("src/util/fmt.pad"), "src.util.fmt.pad");
        assert_eq!(strip_extension("a/b.ts"), "a/b");
        assert_eq!(
            join_relative("src/app", "../util/x").as_deref(),
            Some("src/util/x")
        );
        assert_eq!(join_relative("src", "../../x"), None);
        assert_eq!(dir_of("a/b/c.py"), "a/b");
        assert_eq!(dir_of("c.py"), "");
    }
}
