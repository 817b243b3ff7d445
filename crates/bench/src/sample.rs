//! Deterministic symbol sampling through the public engine API only.
//!
//! The source files under the repository root are listed and sorted by path, then split into N
//! equal strides. From each stride, the first file that has an unused candidate gives one symbol:
//! its functions, methods and types (members of top-level types and modules included, read with
//! `Repo::card`), one chosen by a hash of the path and the stride number. So the sample spreads
//! over the whole tree in proportion to the number of files, independent of name length or
//! ordering inside the database, and the same index always gives the same sample.

use std::collections::HashSet;
use std::path::Path;

use anyhow::Result;
use sextant_engine::{Repo, Symbol};

/// One sampled symbol.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: i64,
    pub name: String,
    pub qualified_name: String,
    pub stable_id: String,
    pub kind: String,
}

/// The sample and how it was drawn.
#[derive(Debug, Default)]
pub struct Sample {
    pub items: Vec<Item>,
    /// Source files found under the root.
    pub files_seen: usize,
    /// Files whose symbols were read.
    pub files_opened: usize,
}

/// Extensions of the languages Sextant ships (`languages/*/`); others are not listed.
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "pyi", "rs", "ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs", "go", "java", "c",
    "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cs", "rb", "php", "kt", "kts",
];

/// Kinds a user asks "who calls / where is" about.
const PREFERRED: &[&str] = &[
    "function",
    "method",
    "constructor",
    "macro",
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "record",
    "union",
    "type_alias",
];

/// Kinds whose members are listed too.
const CONTAINERS: &[&str] = &[
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "record",
    "union",
    "module",
    "namespace",
    "package",
];

/// Kinds never sampled.
const EXCLUDED: &[&str] = &[
    "file",
    "directory",
    "repository",
    "document",
    "doc_section",
    "decision",
    "parameter",
];

/// FNV-1a, for a stable choice inside a file.
pub fn fnv(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Source files under `root` (relative, `/`-separated, sorted); hidden directories and
/// `node_modules` are not entered and symlinks are not followed.
pub fn source_files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            if ft.is_dir() {
                if !name.starts_with('.') && name != "node_modules" {
                    stack.push(path);
                }
            } else if ft.is_file()
                && let Some(ext) = path.extension().and_then(|e| e.to_str())
                && SOURCE_EXTENSIONS.contains(&ext)
                && let Ok(rel) = path.strip_prefix(root)
            {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                out.push(parts.join("/"));
            }
        }
    }
    out.sort();
    out
}

/// The stride `[start, end)` of sample `j` of `n` over `len` files (never empty when len > 0).
pub fn stride(j: usize, n: usize, len: usize) -> (usize, usize) {
    let start = j * len / n;
    let end = ((j + 1) * len / n).max(start + 1).min(len.max(start + 1));
    (start, end)
}

/// The candidates of one file: preferred kinds first-level and one level into containers, or
/// any other non-excluded symbol when the file has none of those.
fn candidates(repo: &Repo, file: &Symbol) -> Result<Vec<Symbol>> {
    let mut preferred = Vec::new();
    let mut other = Vec::new();
    let push = |s: Symbol, preferred: &mut Vec<Symbol>, other: &mut Vec<Symbol>| {
        if PREFERRED.contains(&s.kind.as_str()) {
            preferred.push(s);
        } else if !EXCLUDED.contains(&s.kind.as_str()) {
            other.push(s);
        }
    };
    for member in repo.card(file)?.members {
        if CONTAINERS.contains(&member.kind.as_str()) {
            for inner in repo.card(&member)?.members {
                push(inner, &mut preferred, &mut other);
            }
        }
        push(member, &mut preferred, &mut other);
    }
    Ok(if preferred.is_empty() {
        other
    } else {
        preferred
    })
}

/// Picks up to `n` distinct symbols (see the module docs).
pub fn pick(repo: &Repo, n: usize) -> Result<Sample> {
    let files = source_files(&repo.root);
    let mut sample = Sample {
        files_seen: files.len(),
        ..Sample::default()
    };
    if files.is_empty() || n == 0 {
        return Ok(sample);
    }
    let mut cache: Vec<Option<Vec<Symbol>>> = vec![None; files.len()];
    let mut used: HashSet<i64> = HashSet::new();
    for j in 0..n {
        let (start, _) = stride(j, n, files.len());
        // The stride's files first, then onwards (wrapping) when they are all used up.
        'files: for step in 0..files.len() {
            let f = (start + step) % files.len();
            if cache[f].is_none() {
                cache[f] = Some(match repo.resolve_symbol(&files[f]) {
                    Ok(sym) if sym.kind == "file" && sym.path == files[f] => {
                        sample.files_opened += 1;
                        candidates(repo, &sym)?
                    }
                    // Not indexed (skipped, unsupported or ignored).
                    _ => Vec::new(),
                });
            }
            let list = cache[f].as_deref().unwrap_or_default();
            if list.is_empty() {
                continue;
            }
            let first = (fnv(&files[f]) as usize).wrapping_add(j) % list.len();
            for k in 0..list.len() {
                let s = &list[(first + k) % list.len()];
                if used.insert(s.id) {
                    sample.items.push(Item {
                        id: s.id,
                        name: s.name.clone(),
                        qualified_name: s.qualified_name.clone(),
                        stable_id: s.stable_id.clone(),
                        kind: s.kind.clone(),
                    });
                    break 'files;
                }
            }
        }
    }
    Ok(sample)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_cover_every_file_once_when_files_outnumber_samples() {
        let (n, len) = (7, 100);
        let mut next = 0;
        for j in 0..n {
            let (start, end) = stride(j, n, len);
            assert_eq!(start, next);
            assert!(end > start);
            next = end;
        }
        assert_eq!(next, len);
    }

    #[test]
    fn strides_stay_in_range_when_samples_outnumber_files() {
        for j in 0..10 {
            let (start, end) = stride(j, 10, 3);
            assert!(start < 3 && end <= 3 && end > start, "{j}: {start}..{end}");
        }
    }

    #[test]
    fn source_files_are_sorted_and_relative() {
        let dir = std::env::temp_dir().join(format!("sextant-bench-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("b/.hidden")).unwrap();
        std::fs::create_dir_all(dir.join("a")).unwrap();
        for f in [
            "b/z.py",
            "a/y.rs",
            "b/.hidden/x.py",
            "a/readme.txt",
            "top.c",
        ] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        assert_eq!(source_files(&dir), vec!["a/y.rs", "b/z.py", "top.c"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
