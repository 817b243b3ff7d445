//! Module prefixes of files, by the language's module style: Python packages (`__init__.py`),
//! Rust crates (`Cargo.toml` package names), Go package directories, JS/TS paths, declared
//! packages (Java, Kotlin, C#, PHP) and document paths.

use std::collections::{HashMap, HashSet};

use sextant_lang::ModuleStyle;

/// What the walk found that decides module names.
#[derive(Debug, Default)]
pub struct Layout {
    /// Directories containing `__init__.py`.
    python_packages: HashSet<String>,
    /// Crate root directory → crate name (`-` replaced by `_`).
    crates: HashMap<String, String>,
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split_once('.').map(|(s, _)| s).unwrap_or(name)
}

/// The `name = "..."` of a Cargo.toml `[package]` section (a line scan; no TOML parser needed).
/// The `name` of a `package.json` (the first `"name": "..."` pair, which is the top-level one in
/// every manifest npm writes).
pub fn npm_package_name(text: &str) -> Option<String> {
    let at = text.find("\"name\"")?;
    let rest = text[at + 6..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let name = &rest[..rest.find('"')?];
    (!name.is_empty()).then(|| name.to_string())
}

/// The `compilerOptions.paths` aliases of a `tsconfig*.json` in directory `dir` (JSON with
/// comments and trailing commas) as (import prefix, directory) pairs: `"@/*": ["./src/*"]` with
/// `baseUrl` `.` gives `("@", "<dir>/src")`. Only `prefix/*` → `target/*` mappings (the first
/// target) are kept; an import `@/a/b` then resolves as `<dir>/src/a/b` like one of the
/// repository's own packages.
pub fn tsconfig_aliases(text: &str, dir: &str) -> Vec<(String, String)> {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(&strip_jsonc(text)) else {
        return Vec::new();
    };
    let options = &json["compilerOptions"];
    let Some(paths) = options["paths"].as_object() else {
        return Vec::new();
    };
    let base = join_path(dir, options["baseUrl"].as_str().unwrap_or("."));
    let mut out = Vec::new();
    for (pattern, targets) in paths {
        let Some(prefix) = pattern.strip_suffix("/*").filter(|p| !p.is_empty()) else {
            continue;
        };
        let Some(target) = targets
            .as_array()
            .and_then(|t| t.first())
            .and_then(|t| t.as_str())
            .and_then(|t| t.strip_suffix("/*"))
        else {
            continue;
        };
        out.push((prefix.to_string(), join_path(&base, target)));
    }
    out
}

/// `dir` joined with a relative path (`.`, `..` and `./` resolved; never above the root).
fn join_path(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// JSON with comments (`//`, `/* */`) and trailing commas as plain JSON.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for n in chars.by_ref() {
                    if last == '*' && n == '/' {
                        break;
                    }
                    last = n;
                }
            }
            _ => out.push(c),
        }
    }
    // Trailing commas: a comma followed (past whitespace) by a closing bracket.
    let bytes: Vec<char> = out.chars().collect();
    let mut cleaned = String::with_capacity(out.len());
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            cleaned.push(c);
            if c == '\\' && i + 1 < bytes.len() {
                cleaned.push(bytes[i + 1]);
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            cleaned.push(c);
        } else if c == ',' {
            let next = bytes[i + 1..].iter().find(|c| !c.is_whitespace());
            if !matches!(next, Some('}') | Some(']')) {
                cleaned.push(c);
            }
        } else {
            cleaned.push(c);
        }
        i += 1;
    }
    cleaned
}

pub fn cargo_package_name(text: &str) -> Option<String> {
    let mut in_package = false;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if in_package && let Some(rest) = line.strip_prefix("name") {
            let value = rest.trim_start().strip_prefix('=')?.trim();
            return Some(value.trim_matches(['"', '\'']).to_string());
        }
    }
    None
}

impl Layout {
    pub fn new<'p>(
        paths: impl IntoIterator<Item = &'p str>,
        cargo_manifests: &[(String, Option<String>)],
    ) -> Layout {
        let mut layout = Layout::default();
        for p in paths {
            if p.ends_with("__init__.py") || p.ends_with("__init__.pyi") {
                layout.python_packages.insert(dir_of(p).to_string());
            }
        }
        for (path, name) in cargo_manifests {
            let dir = dir_of(path).to_string();
            let name = name.clone().unwrap_or_else(|| {
                dir.rsplit('/')
                    .next()
                    .filter(|s| !s.is_empty())
                    .unwrap_or("crate")
                    .to_string()
            });
            layout.crates.insert(dir, name.replace('-', "_"));
        }
        layout
    }

    /// A directory with `__init__.py`, or a namespace package (no `__init__.py`) nested in one
    /// (`flask/sansio/` inside `flask/`).
    fn in_python_package(&self, dir: &str) -> bool {
        let mut d = dir;
        while !d.is_empty() {
            if self.python_packages.contains(d) {
                return true;
            }
            d = dir_of(d);
        }
        false
    }

    /// The module prefix of a file.
    pub fn module(&self, style: ModuleStyle, path: &str, package: Option<&str>) -> String {
        match style {
            ModuleStyle::None => String::new(),
            ModuleStyle::Declared => package.unwrap_or("").to_string(),
            ModuleStyle::Document => path.to_string(),
            ModuleStyle::Go => dir_of(path).to_string(),
            ModuleStyle::Path => {
                let without = path.rsplit_once('.').map(|(s, _)| s).unwrap_or(path);
                match without.rsplit_once('/') {
                    Some((dir, "index")) => dir.to_string(),
                    _ => without.to_string(),
                }
            }
            ModuleStyle::Python => {
                let mut segs = Vec::new();
                let s = stem(path);
                if s != "__init__" {
                    segs.push(s.to_string());
                }
                let mut dir = dir_of(path);
                while !dir.is_empty() && self.in_python_package(dir) {
                    segs.push(dir.rsplit('/').next().unwrap_or(dir).to_string());
                    dir = dir_of(dir);
                }
                segs.reverse();
                segs.join(".")
            }
            ModuleStyle::Rust => {
                let mut dir = dir_of(path);
                let (root, krate) = loop {
                    if let Some(name) = self.crates.get(dir) {
                        break (dir, name.clone());
                    }
                    if dir.is_empty() {
                        break ("", "crate".to_string());
                    }
                    dir = dir_of(dir);
                };
                let rel = if root.is_empty() {
                    path
                } else {
                    path.strip_prefix(root)
                        .unwrap_or(path)
                        .trim_start_matches('/')
                };
                // Integration tests, benches and examples are crates of their own: a file
                // directly under `tests/` is a crate root, a directory there is a module of it.
                for dir in ["tests/", "benches/", "examples/"] {
                    if let Some(inner) = rel.strip_prefix(dir) {
                        let mut segs: Vec<&str> = inner.split('/').collect();
                        let last = segs.pop().unwrap_or("");
                        let s = stem(last);
                        let mut out: Vec<&str> =
                            segs.into_iter().filter(|s| !s.is_empty()).collect();
                        if !matches!(s, "lib" | "main" | "mod") || out.is_empty() {
                            out.push(s);
                        }
                        return out.join("::");
                    }
                }
                let rel = rel.strip_prefix("src/").unwrap_or(rel);
                let mut segs: Vec<&str> = rel.split('/').collect();
                let last = segs.pop().unwrap_or("");
                let s = stem(last);
                let mut out = vec![krate.as_str()];
                out.extend(segs.iter().copied().filter(|s| !s.is_empty()));
                if !matches!(s, "lib" | "main" | "mod") {
                    out.push(s);
                }
                out.join("::")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsconfig_paths_become_prefixes_of_directories() {
        let text = r#"{
  // comments and trailing commas, as tsc allows
  "compilerOptions": {
    "baseUrl": ".", /* the project */
    "paths": {
      "src/*": ["src/*"],
      "@/*": ["./app/*", "./other/*"],
      "openapi/*": ["openapi-gen/*",],
      "exact": ["src/exact.ts"],
      "url": ["http://x/*"],
    },
  },
}"#;
        assert_eq!(
            tsconfig_aliases(text, "web/ui"),
            vec![
                ("@".to_string(), "web/ui/app".to_string()),
                ("openapi".to_string(), "web/ui/openapi-gen".to_string()),
                ("src".to_string(), "web/ui/src".to_string()),
            ]
        );
        assert_eq!(
            tsconfig_aliases(
                r#"{"compilerOptions": {"baseUrl": "../lib", "paths": {"~/*": ["*"]}}}"#,
                "a/b"
            ),
            Vec::<(String, String)>::new()
        );
        assert!(tsconfig_aliases("not json", "").is_empty());
    }

    #[test]
    fn module_prefixes() {
        let layout = Layout::new(
            ["src/pkg/__init__.py", "src/pkg/sub/__init__.py"],
            &[(
                "crates/store/Cargo.toml".into(),
                Some("sextant-store".into()),
            )],
        );
        let m = |style, p| layout.module(style, p, Some("com.x"));
        assert_eq!(m(ModuleStyle::Python, "src/pkg/sub/mod.py"), "pkg.sub.mod");
        assert_eq!(m(ModuleStyle::Python, "src/pkg/__init__.py"), "pkg");
        assert_eq!(m(ModuleStyle::Python, "tests/test_x.py"), "test_x");
        assert_eq!(
            npm_package_name("{\n  \"name\": \"@scope/pkg\",\n  \"version\": \"1.0.0\"\n}")
                .as_deref(),
            Some("@scope/pkg")
        );
        assert_eq!(npm_package_name("{}"), None);
        assert_eq!(
            m(ModuleStyle::Python, "src/pkg/nspkg/mod.py"),
            "pkg.nspkg.mod",
            "a namespace package inside a package"
        );
        assert_eq!(
            m(ModuleStyle::Rust, "crates/store/src/lib.rs"),
            "sextant_store"
        );
        assert_eq!(
            m(ModuleStyle::Rust, "crates/store/src/read/mod.rs"),
            "sextant_store::read"
        );
        assert_eq!(
            m(ModuleStyle::Rust, "crates/store/src/a/b.rs"),
            "sextant_store::a::b"
        );
        assert_eq!(m(ModuleStyle::Rust, "x.rs"), "crate::x");
        // Integration tests are crates of their own; `tests/util/mod.rs` is their `util`.
        assert_eq!(m(ModuleStyle::Rust, "crates/store/tests/gen.rs"), "gen");
        assert_eq!(
            m(ModuleStyle::Rust, "crates/store/tests/util/mod.rs"),
            "util"
        );
        assert_eq!(m(ModuleStyle::Go, "internal/store/db.go"), "internal/store");
        assert_eq!(m(ModuleStyle::Path, "src/util/index.ts"), "src/util");
        assert_eq!(m(ModuleStyle::Path, "src/util/fmt.ts"), "src/util/fmt");
        assert_eq!(m(ModuleStyle::Declared, "A.java"), "com.x");
        assert_eq!(
            cargo_package_name("[package]\nname = \"sextant-store\"\n").as_deref(),
            Some("sextant-store")
        );
        assert_eq!(cargo_package_name("[workspace]\nmembers = []\n"), None);
    }
}
