//! The crate layering is checked by a machine: every workspace crate's dependencies (direct, and
//! transitively through other workspace crates) must be allowed by the table below, which mirrors
//! ARCHITECTURE.md. I/O rules are checked on the source text: only `sextant-vfs` reads source
//! files, only `sextant-store` names rusqlite, pure crates do no file system access at all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// crate folder → external dependencies it may name directly, and workspace crates it may use.
const ALLOWED: &[(&str, &[&str], &[&str])] = &[
    ("model", &[], &[]),
    (
        "lang",
        &["tree-sitter", "tree-sitter-*", "serde", "toml", "thiserror"],
        &["model"],
    ),
    (
        "extract",
        &["tree-sitter", "rustc-hash", "regex"],
        &["model", "lang"],
    ),
    ("resolve", &["rustc-hash", "hashbrown"], &["model"]),
    ("graph", &["rustc-hash", "regex"], &["model"]),
    ("search", &[], &[]),
    ("store", &["rusqlite", "thiserror", "tracing"], &["model"]),
    (
        "vfs",
        &[
            "ignore",
            "globset",
            "sha1",
            "memchr",
            "libc",
            "thiserror",
            "tracing",
        ],
        &["model"],
    ),
    ("git", &["gix", "thiserror"], &[]),
    ("scip", &["scip", "protobuf", "thiserror"], &[]),
    (
        "engine",
        &[
            "rayon",
            "regex",
            "globset",
            "serde",
            "serde_json",
            "toml",
            "crossbeam-channel",
            "rustc-hash",
            "thiserror",
            "tracing",
            "notify",
            // The resolver's binding pages while an index runs (`spill.rs`).
            "tempfile",
            // The resolver's definitions, mapped from such a file (`mapped.rs`).
            "memmap2",
        ],
        &[
            "model", "lang", "extract", "resolve", "graph", "search", "store", "vfs", "git", "scip",
        ],
    ),
    (
        "mcp",
        &[
            "rmcp",
            "tokio",
            "axum",
            "tokio-util",
            "serde",
            "serde_json",
            "schemars",
            "tracing",
            "anyhow",
            "thiserror",
        ],
        &["engine", "model"],
    ),
    (
        "cli",
        &[
            "clap",
            "mimalloc",
            "libmimalloc-sys",
            "indicatif",
            "tracing",
            "tracing-subscriber",
            "serde",
            "serde_json",
            "anyhow",
        ],
        &["engine", "model", "mcp"],
    ),
    (
        "bench",
        &[
            "serde_json",
            "anyhow",
            "clap",
            "serde",
            "regex",
            "tiktoken-rs",
            "mimalloc",
        ],
        &["engine", "model"],
    ),
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Names in the `[dependencies]` table of a Cargo.toml (dev-dependencies are not layering).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps && !line.is_empty() && !line.starts_with('#') {
            let name = line.split(['=', '.', ' ']).next().unwrap_or("").trim();
            if !name.is_empty() {
                out.push(name.to_string());
            }
        }
    }
    out
}

fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

#[test]
fn crate_dependencies_follow_the_layering() {
    let mut graph: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(crates_dir()).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        let Some((_, external, internal)) = ALLOWED.iter().find(|(f, _, _)| *f == folder) else {
            panic!(
                "crate folder {folder} is not in the layering table; add it (and to ARCHITECTURE.md)"
            );
        };
        let deps = dependencies(&manifest);
        for dep in &deps {
            if let Some(inner) = dep.strip_prefix("sextant-") {
                assert!(
                    internal.contains(&inner),
                    "sextant-{folder} may not depend on {dep} (allowed: {internal:?})"
                );
            } else {
                assert!(
                    external.iter().any(|p| matches(p, dep)),
                    "sextant-{folder} may not depend on {dep} (allowed: {external:?})"
                );
            }
        }
        graph.insert(
            folder,
            deps.iter()
                .filter_map(|d| d.strip_prefix("sextant-").map(str::to_string))
                .collect(),
        );
    }
    // Transitively: only the store reaches rusqlite; nothing but git reaches gix.
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_string()];
        while let Some(c) = stack.pop() {
            for d in graph.get(&c).into_iter().flatten() {
                if seen.insert(d.clone()) {
                    stack.push(d.clone());
                }
            }
        }
        seen
    };
    for pure in ["model", "lang", "extract", "resolve", "graph", "search"] {
        let r = reach(pure);
        assert!(
            !r.contains("store"),
            "{pure} reaches the store (rusqlite): {r:?}"
        );
        assert!(
            !r.contains("vfs"),
            "{pure} reaches the file system layer: {r:?}"
        );
        assert!(!r.contains("git"), "{pure} reaches git: {r:?}");
    }
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn io_lives_in_its_own_crates() {
    for (folder, forbidden) in [
        ("model", &["std::fs", "rusqlite", "std::process"][..]),
        ("lang", &["std::fs::", "rusqlite"][..]),
        ("extract", &["std::fs", "rusqlite", "std::process"][..]),
        ("resolve", &["std::fs", "rusqlite", "std::process"][..]),
        ("graph", &["std::fs", "rusqlite", "std::process"][..]),
        ("search", &["std::fs", "rusqlite"][..]),
        (
            "engine",
            &["rusqlite", "std::fs::read", "File::open", "read_to_string("][..],
        ),
        ("cli", &["rusqlite", "std::fs::read", "File::open"][..]),
        (
            "mcp",
            &["rusqlite", "std::fs", "File::open", "std::process"][..],
        ),
    ] {
        let mut files = Vec::new();
        rust_sources(&crates_dir().join(folder).join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for f in forbidden {
                assert!(
                    !text.contains(f),
                    "{} uses {f}: that I/O belongs to another crate (see ARCHITECTURE.md)",
                    file.display()
                );
            }
        }
    }
}
