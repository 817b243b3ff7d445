//! The repository walk: `.gitignore` (even outside a git checkout), `.ignore`, `.sextantignore`;
//! `.git` and excluded folders pruned; symlinks and special files recorded, never followed or opened.
//! Walking looks at metadata only; contents are read later by [`crate::read_source`].

use std::path::{Path, PathBuf};

use sextant_model::RepoPath;

use crate::skip::{SkipReason, is_secret_path};

/// Walk settings.
#[derive(Debug, Clone)]
pub struct WalkConfig {
    /// Files larger than this are skipped as too large.
    pub max_file_size: u64,
    /// Absolute folders never walked (Sextant's own data directory when it sits in the repository).
    pub exclude: Vec<PathBuf>,
    /// Stop after this many candidate files (a guard against indexing `/` by mistake).
    pub max_files: usize,
    /// Exact file names reported in [`Walk::manifests`] whatever their language (`Cargo.toml`);
    /// TypeScript's `tsconfig*.json` are reported too.
    pub manifest_names: Vec<String>,
}

impl Default for WalkConfig {
    fn default() -> Self {
        WalkConfig {
            max_file_size: 1 << 20,
            exclude: Vec::new(),
            max_files: 2_000_000,
            manifest_names: vec!["Cargo.toml".into(), "go.mod".into(), "package.json".into()],
        }
    }
}

/// A file the caller wants, found by the walk.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub path: RepoPath,
    pub size: u64,
    /// The file's stat as the walk saw it (`None` for manifests and where unsupported).
    pub stat: Option<crate::FileStat>,
}

/// A file found but not indexed.
#[derive(Debug, Clone)]
pub struct Skipped {
    pub path: RepoPath,
    pub reason: SkipReason,
    pub size: u64,
}

/// The result of a walk, sorted by path.
#[derive(Debug, Default)]
pub struct Walk {
    /// The directory walked: a file is at `root/path` ([`Walk::abs`]).
    pub root: PathBuf,
    /// The wanted files, sorted by path (empty after [`walk_into`], which hands them out).
    pub files: Vec<WalkedFile>,
    /// How many wanted files the walk found.
    pub found: usize,
    pub skipped: Vec<Skipped>,
    /// Regular files the caller did not want (no known language).
    pub ignored_files: usize,
    /// The walk stopped at `max_files`.
    pub truncated: bool,
    /// Errors met while walking (unreadable directories), as text.
    pub errors: Vec<String>,
    /// Project manifests found (by `WalkConfig::manifest_names`), for module layout.
    pub manifests: Vec<WalkedFile>,
}

impl Walk {
    /// Where `file` (one of this walk's) is on disk. Made when asked for: kept for every file,
    /// the absolute paths were a third of the walk's memory (~100 bytes a file).
    pub fn abs(&self, file: &WalkedFile) -> PathBuf {
        self.root.join(file.path.as_str())
    }
}

/// Walks `root`. `wanted` says whether a path is a candidate (has a known language); only wanted
/// files are size-checked and returned, but secret-named files are always recorded as skipped.
pub fn walk(root: &Path, config: &WalkConfig, wanted: impl Fn(&str) -> bool + Sync) -> Walk {
    let mut files = Vec::new();
    let mut out = walk_into(root, config, wanted, &mut |f| files.push(f));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    // Kept for the whole read phase: no room for files that never came.
    files.shrink_to_fit();
    out.files = files;
    out
}

/// As [`walk`], but each wanted file goes to `found` as the walk finds it (one call at a time,
/// in no particular order) and [`Walk::files`] stays empty: a caller that keeps the files
/// elsewhere (the indexer, in a mapped temporary file) does not hold the list on the heap.
pub fn walk_into(
    root: &Path,
    config: &WalkConfig,
    wanted: impl Fn(&str) -> bool + Sync,
    found: &mut (dyn FnMut(WalkedFile) + Send),
) -> Walk {
    let out = Walk {
        root: root.to_path_buf(),
        ..Walk::default()
    };
    let exclude = config.exclude.clone();
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .hidden(false)
        .parents(false)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .ignore(true)
        .follow_links(false)
        .add_custom_ignore_filename(".sextantignore")
        .filter_entry(move |entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if is_dir && entry.depth() > 0 {
                if entry.file_name() == ".git" {
                    return false;
                }
                if exclude.iter().any(|x| entry.path().starts_with(x)) {
                    return false;
                }
            }
            true
        });
    // Directory reads and stats run on every core; each entry is classified into one shared
    // result (a short lock per file).
    let shared = std::sync::Mutex::new((out, found));
    let wanted = &wanted;
    builder.build_parallel().run(|| {
        let shared = &shared;
        Box::new(move |result| {
            let mut guard = match shared.lock() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
            let (out, found) = &mut *guard;
            classify(result, root, config, wanted, out, &mut **found)
        })
    });
    let (mut out, _) = match shared.into_inner() {
        Ok(out) => out,
        Err(poisoned) => poisoned.into_inner(),
    };
    out.manifests.sort_by(|a, b| a.path.cmp(&b.path));
    out.errors.sort();
    out.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The path a walk error is about, if it names one.
fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// Classifies one walk entry into `out`.
fn classify(
    result: Result<ignore::DirEntry, ignore::Error>,
    root: &Path,
    config: &WalkConfig,
    wanted: &(impl Fn(&str) -> bool + Sync),
    out: &mut Walk,
    found: &mut dyn FnMut(WalkedFile),
) -> ignore::WalkState {
    use ignore::WalkState::{Continue, Quit};
    let entry = match result {
        Ok(entry) => entry,
        Err(e) => {
            // An unreadable directory (or file) is recorded as skipped, so `status` shows what
            // is missing from the index and why.
            if let Some(path) = error_path(&e)
                && let Ok(relative) = path.strip_prefix(root)
                && let Some(text) = relative.to_str()
                && let Ok(path) = RepoPath::new(text)
            {
                out.skipped.push(Skipped {
                    path,
                    reason: SkipReason::Unreadable,
                    size: 0,
                });
            }
            out.errors.push(e.to_string());
            return Continue;
        }
    };
    if entry.depth() == 0 {
        return Continue;
    }
    let Some(file_type) = entry.file_type() else {
        return Continue;
    };
    if file_type.is_dir() {
        return Continue;
    }
    let Ok(relative) = entry.path().strip_prefix(root) else {
        return Continue;
    };
    let Some(text) = relative.to_str() else {
        out.errors.push(format!(
            "skipped a path that is not valid UTF-8: {}",
            relative.to_string_lossy()
        ));
        return Continue;
    };
    let Ok(path) = RepoPath::new(text) else {
        return Continue;
    };
    let record = |out: &mut Walk, reason, size| {
        out.skipped.push(Skipped {
            path: path.clone(),
            reason,
            size,
        });
    };
    if is_secret_path(path.as_str()) {
        record(out, SkipReason::Secret, 0);
        return Continue;
    }
    if !wanted(path.as_str()) {
        let name = path.file_name();
        let tsconfig = name.starts_with("tsconfig") && name.ends_with(".json");
        if file_type.is_file() && (tsconfig || config.manifest_names.iter().any(|n| n == name)) {
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            out.manifests.push(WalkedFile {
                path,
                size,
                stat: None,
            });
        } else {
            out.ignored_files += 1;
        }
        return Continue;
    }
    if file_type.is_symlink() {
        record(out, SkipReason::Symlink, 0);
        return Continue;
    }
    if !file_type.is_file() {
        record(out, SkipReason::Special, 0);
        return Continue;
    }
    let (size, stat) = match entry.metadata() {
        Ok(meta) => (meta.len(), crate::FileStat::of(&meta)),
        Err(_) => {
            record(out, SkipReason::Unreadable, 0);
            return Continue;
        }
    };
    if size > config.max_file_size {
        record(out, SkipReason::TooLarge, size);
        return Continue;
    }
    if out.found >= config.max_files {
        out.truncated = true;
        return Quit;
    }
    out.found += 1;
    found(WalkedFile { path, size, stat });
    Continue
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_respects_ignores_and_records_skips() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let w = |p: &str, text: &str| {
            let path = root.join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        w("src/a.py", "x = 1\n");
        w("src/b.py", &"y".repeat(5000));
        w("build/gen.py", "z = 1\n");
        w(".gitignore", "build/\n");
        w(".sextantignore", "vendor/\n");
        w("vendor/v.py", "v = 1\n");
        w(".env", "TOKEN=1\n");
        w("README.txt", "hi\n");
        w(".git/config", "[core]\n");
        w(".git/x.py", "no = 1\n");
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/passwd", root.join("src/link.py")).unwrap();
        let config = WalkConfig {
            max_file_size: 1000,
            ..WalkConfig::default()
        };
        let walk = walk(root, &config, |p| p.ends_with(".py"));
        let files: Vec<&str> = walk.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(files, vec!["src/a.py"]);
        // Each file is found again from the walk's root.
        assert_eq!(walk.abs(&walk.files[0]), root.join("src/a.py"));
        assert_eq!(
            std::fs::read_to_string(walk.abs(&walk.files[0])).unwrap(),
            "x = 1\n"
        );
        let skipped: Vec<(&str, &str)> = walk
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.as_str()))
            .collect();
        let mut expected = vec![(".env", "secret"), ("src/b.py", "too_large")];
        if cfg!(unix) {
            expected.push(("src/link.py", "symlink"));
        }
        assert_eq!(skipped, expected);
        assert!(walk.ignored_files >= 2);
    }
}
