//! Resolution at the engine boundary: each `fixtures/*.txt` is a small multi-file repository
//! (`//- /path` starts a file), indexed for real (files on disk, a real SQLite database); the
//! edges and unresolved references are compared with `snapshots/`. Update with
//! `INSTA_UPDATE=always cargo test -p sextant-engine --test integration resolve::`.

use std::path::{Path, PathBuf};

use sextant_engine::{IndexOptions, Repo};

/// Writes a `//- /path` fixture into `dir`.
fn materialize(fixture: &str, dir: &Path) {
    let mut current: Option<(PathBuf, String)> = None;
    let flush = |current: &mut Option<(PathBuf, String)>| {
        if let Some((path, text)) = current.take() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    };
    for line in fixture.lines() {
        if let Some(path) = line.strip_prefix("//- /") {
            flush(&mut current);
            current = Some((dir.join(path.trim()), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(&mut current);
}

fn check(name: &str, fixture: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let repo_dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo_dir).unwrap();
    materialize(fixture, &repo_dir);
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&repo_dir, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, &repo_dir).unwrap();
    let mut out = String::from("edges:\n");
    for line in repo.edge_lines().unwrap() {
        out.push_str(&format!("  {line}\n"));
    }
    out.push_str("unresolved:\n");
    for line in repo.unresolved_lines().unwrap() {
        out.push_str(&format!("  {line}\n"));
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), out));
}

/// Regression: resolution once depended on the order files arrived from the worker threads
/// (a `.h` and a `.c` sharing a stem overwrote each other in the path index).
#[test]
fn resolution_does_not_depend_on_thread_count() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut fixture = String::new();
    for name in [
        "c_includes.txt",
        "python_imports.txt",
        "typescript_imports.txt",
    ] {
        fixture.push_str(&std::fs::read_to_string(dir.join(name)).unwrap());
    }
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        let tmp = tempfile::tempdir().unwrap();
        let repo_dir = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(&repo_dir).unwrap();
        materialize(&fixture, &repo_dir);
        let options = IndexOptions {
            home: Some(home.clone()),
            threads,
            ..IndexOptions::default()
        };
        sextant_engine::index(&repo_dir, &options, &|_| {}).unwrap();
        let repo = Repo::open_in(&home, &repo_dir).unwrap();
        runs.push((repo.edge_lines().unwrap(), repo.unresolved_lines().unwrap()));
    }
    assert!(!runs[0].0.is_empty());
    assert_eq!(runs[0], runs[1]);
    assert_eq!(runs[0], runs[2]);
}

#[test]
fn resolution_fixtures_match_their_snapshots() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        let name = file.file_stem().unwrap().to_string_lossy().into_owned();
        check(&name, &std::fs::read_to_string(&file).unwrap());
    }
}
