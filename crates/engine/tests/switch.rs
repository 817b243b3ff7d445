//! Branch switches and the stat cache: a run trusts a file's content without reading it only when
//! its stat is unchanged since it was hashed and it was not racily clean then; switching between
//! indexed commits serves each commit's answers (equal to a full index of the tree).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use sextant_engine::{IndexOptions, IndexSummary, Repo, SearchOptions};

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(out.success(), "git {args:?}");
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn mtime(root: &Path, rel: &str) -> SystemTime {
    std::fs::metadata(root.join(rel))
        .unwrap()
        .modified()
        .unwrap()
}

/// Rewrites `rel` with `text` (the same length as before) and sets its modification time back
/// to what it was: only the change time (and the content) tell the edit apart.
fn rewrite_keeping_size_and_mtime(root: &Path, rel: &str, text: &str) {
    let before = std::fs::metadata(root.join(rel)).unwrap();
    assert_eq!(
        before.len(),
        text.len() as u64,
        "the edit must keep the size"
    );
    let modified = before.modified().unwrap();
    std::fs::write(root.join(rel), text).unwrap();
    let f = std::fs::File::options()
        .write(true)
        .open(root.join(rel))
        .unwrap();
    f.set_modified(modified).unwrap();
    drop(f);
    assert_eq!(mtime(root, rel), modified);
}

fn options(home: &Path) -> IndexOptions {
    IndexOptions {
        home: Some(home.to_path_buf()),
        threads: 1,
        ..IndexOptions::default()
    }
}

fn index(root: &Path, home: &Path) -> IndexSummary {
    sextant_engine::index(root, &options(home), &|_| {}).unwrap()
}

fn defines(home: &Path, root: &Path, name: &str) -> bool {
    let repo = Repo::open_in(home, root).unwrap();
    let options = SearchOptions {
        limit: 5,
        ..SearchOptions::default()
    };
    repo.search(name, &options)
        .unwrap()
        .iter()
        .any(|h| h.matched == "exact" && h.symbol.name == name)
}

/// Edges and unresolved references as comparable text (qualified names, not ids).
fn dump(home: &Path, root: &Path) -> (Vec<String>, Vec<String>) {
    let repo = Repo::open_in(home, root).unwrap();
    let mut edges = repo.edge_lines().unwrap();
    edges.sort();
    let mut unresolved = repo.unresolved_lines().unwrap();
    unresolved.sort();
    (edges, unresolved)
}

fn assert_full_index(home: &Path, root: &Path, when: &str) {
    let full_home = tempfile::tempdir().unwrap();
    let mut o = options(full_home.path());
    o.full = true;
    sextant_engine::index(root, &o, &|_| {}).unwrap();
    assert_eq!(
        dump(home, root),
        dump(full_home.path(), root),
        "{when}: differs from a full index"
    );
}

/// Waits until files written before now are out of the stat cache's racy window.
fn past_the_racy_window() {
    std::thread::sleep(Duration::from_nanos(
        sextant_vfs::RACY_WINDOW_NS as u64 + 200_000_000,
    ));
}

fn repo_with(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (rel, text) in files {
        write(&root, rel, text);
    }
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "one"]);
    (dir, root)
}

#[test]
fn an_edit_keeping_size_and_mtime_within_the_racy_window_is_noticed() {
    let (_dir, root) = repo_with(&[
        ("a.py", "def alpha():\n    pass\n"),
        ("b.py", "def other():\n    pass\n"),
    ]);
    let home = tempfile::tempdir().unwrap();
    let first = index(&root, home.path());
    assert_eq!(first.files_hashed, 2);
    // Right away (the file changed within the racy window of the run that hashed it): the same
    // size, the modification time set back.
    rewrite_keeping_size_and_mtime(&root, "a.py", "def omega():\n    pass\n");
    let second = index(&root, home.path());
    assert!(second.files_hashed >= 1, "{second:?}");
    assert!(defines(home.path(), &root, "omega"));
    assert!(!defines(home.path(), &root, "alpha"));
    assert!(second.dirty);
    assert_full_index(home.path(), &root, "racy edit");
}

#[test]
fn unchanged_files_are_not_read_again_and_an_edit_keeping_size_and_mtime_still_is() {
    let (_dir, root) = repo_with(&[
        ("a.py", "def alpha():\n    pass\n"),
        ("b.py", "def other():\n    pass\n"),
        (
            "pkg/c.py",
            "from a import alpha\n\ndef gamma():\n    alpha()\n",
        ),
    ]);
    let home = tempfile::tempdir().unwrap();
    past_the_racy_window();
    assert_eq!(index(&root, home.path()).files_hashed, 3);
    // Nothing changed: every file is known from the stat cache.
    let again = index(&root, home.path());
    assert_eq!(again.files_hashed, 0, "{again:?}");
    assert_eq!(again.files_indexed, 3);
    assert!(again.reused_generation.is_some());
    // The same size and modification time, another content: the change time gives it away.
    rewrite_keeping_size_and_mtime(&root, "a.py", "def omega():\n    pass\n");
    let edited = index(&root, home.path());
    assert_eq!(edited.files_hashed, 1, "{edited:?}");
    assert!(defines(home.path(), &root, "omega"));
    assert!(!defines(home.path(), &root, "alpha"));
    assert_eq!(edited.files_uncommitted, 1);
    assert_full_index(home.path(), &root, "edit keeping size and mtime");
    // A file that turns binary with the same size is skipped, not trusted from the cache.
    rewrite_keeping_size_and_mtime(&root, "b.py", "def other():\0    pass\n");
    let binary = index(&root, home.path());
    assert!(
        binary.skipped.iter().any(|(r, n)| r == "binary" && *n == 1),
        "{binary:?}"
    );
    assert!(!defines(home.path(), &root, "other"));
    // A file deleted and one ignored leave the index whatever the cache says.
    std::fs::remove_file(root.join("b.py")).unwrap();
    write(&root, ".gitignore", "pkg/\n");
    let pruned = index(&root, home.path());
    assert_eq!(pruned.files_indexed, 1, "{pruned:?}");
    assert!(!defines(home.path(), &root, "gamma"));
    assert_full_index(home.path(), &root, "deleted and ignored");
}

#[test]
fn switching_between_indexed_commits_serves_each_commits_answers() {
    let (_dir, root) = repo_with(&[
        (
            "app/a.py",
            "def first_only():\n    pass\n\ndef shared():\n    pass\n",
        ),
        (
            "app/b.py",
            "from app.a import shared\n\ndef use():\n    shared()\n",
        ),
        ("app/c.py", "def untouched():\n    pass\n"),
    ]);
    let home = tempfile::tempdir().unwrap();
    let one = index(&root, home.path());
    // A second commit: one file edited, one added, one deleted.
    write(
        &root,
        "app/a.py",
        "def second_only():\n    pass\n\ndef shared():\n    pass\n",
    );
    write(
        &root,
        "app/d.py",
        "from app.a import second_only\n\ndef more():\n    second_only()\n",
    );
    std::fs::remove_file(root.join("app/c.py")).unwrap();
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-qm", "two"]);
    let two = index(&root, home.path());
    assert_eq!(two.reused_generation, None);
    for round in 0..3 {
        git(&root, &["checkout", "-q", "HEAD~1"]);
        let back = index(&root, home.path());
        assert!(back.reused_generation.is_some(), "round {round}: {back:?}");
        assert!(!back.dirty && back.files_uncommitted == 0, "{back:?}");
        assert_eq!(back.edges, one.edges);
        assert!(defines(home.path(), &root, "first_only"));
        assert!(defines(home.path(), &root, "untouched"));
        assert!(!defines(home.path(), &root, "second_only"));
        assert_full_index(home.path(), &root, &format!("round {round}, first commit"));
        git(&root, &["checkout", "-q", "main"]);
        let forth = index(&root, home.path());
        assert!(
            forth.reused_generation.is_some(),
            "round {round}: {forth:?}"
        );
        assert!(!forth.dirty && forth.files_uncommitted == 0, "{forth:?}");
        assert_eq!(forth.edges, two.edges);
        assert!(defines(home.path(), &root, "second_only"));
        assert!(defines(home.path(), &root, "more"));
        assert!(!defines(home.path(), &root, "untouched"));
        assert_full_index(home.path(), &root, &format!("round {round}, second commit"));
    }
    // An uncommitted edit on top of a switch is still seen as one.
    git(&root, &["checkout", "-q", "HEAD~1"]);
    write(&root, "app/c.py", "def untouched():\n    return 1\n");
    let dirty = index(&root, home.path());
    assert_eq!(dirty.files_uncommitted, 1, "{dirty:?}");
    assert!(dirty.dirty);
}
