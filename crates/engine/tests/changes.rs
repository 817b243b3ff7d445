//! `changes` and `grep` on a real git repository made in a temp dir and indexed for real.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use sextant_engine::{ChangeInput, ChangeSet, Error, GrepOptions, IndexOptions, IndexSide, Repo};

const SHOP: &str = r#"class Cart:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return len(self.items)

    def total(self):
        return sum(i.price for i in self.items)


def helper(x):
    return x * 2


def other(y):
    return y + 1
"#;

const UTIL: &str = r#"def double(x):
    return x * 2


def triple(x):
    return x * 3
"#;

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    home: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("repo");
        let home = tmp.path().join("home");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let f = Fixture {
            _tmp: tmp,
            dir,
            home,
        };
        git(&f.dir, &["init", "-q", "-b", "main"]);
        f.write("src/shop.py", SHOP);
        f.write("src/util.py", UTIL);
        git(&f.dir, &["add", "."]);
        git(&f.dir, &["commit", "-q", "-m", "one"]);
        f
    }

    fn write(&self, path: &str, text: &str) {
        std::fs::write(self.dir.join(path), text).unwrap();
    }

    fn index(&self) -> Repo {
        let options = IndexOptions {
            home: Some(self.home.clone()),
            threads: 1,
            ..IndexOptions::default()
        };
        sextant_engine::index(&self.dir, &options, &|_| {}).unwrap();
        Repo::open_in(&self.home, &self.dir).unwrap()
    }
}

fn working_tree() -> ChangeInput {
    ChangeInput::Git {
        base: None,
        head: None,
    }
}

/// `(qualified name, change, container)` of every changed symbol.
fn summary(set: &ChangeSet) -> Vec<(String, &'static str, bool)> {
    set.symbols
        .iter()
        .map(|s| (s.symbol.qualified_name.clone(), s.change, s.container))
        .collect()
}

fn owned(v: &[(&str, &'static str, bool)]) -> Vec<(String, &'static str, bool)> {
    v.iter().map(|(q, c, k)| (q.to_string(), *c, *k)).collect()
}

#[test]
fn an_edited_body_is_its_function_and_not_its_neighbours() {
    let f = Fixture::new();
    f.write(
        "src/shop.py",
        &SHOP.replace("return len(self.items)", "return len(self.items) + 0"),
    );
    let repo = f.index();
    let set = repo.changes(&working_tree()).unwrap();
    assert_eq!(set.source, "working tree vs HEAD");
    assert!(set.base.is_some() && set.head.is_none());
    assert_eq!(set.files.len(), 1, "{:#?}", set.files);
    let file = &set.files[0];
    assert_eq!(
        (file.path.as_str(), file.status, file.index),
        ("src/shop.py", "modified", IndexSide::New)
    );
    assert_eq!((file.lines_added, file.lines_removed), (1, 1));
    assert!(!set.index_behind);
    assert_eq!(
        summary(&set),
        owned(&[
            ("shop.Cart", "modified", true),
            ("shop.Cart.add", "modified", false),
        ])
    );
    let add = &set.symbols[1];
    assert_eq!(add.lines_touched, 1);
    assert_eq!(add.ranges, vec![(7, 7)]);

    // The same change as `git diff` text gives the same answer.
    let diff = git(&f.dir, &["diff"]);
    let from_diff = repo.changes(&ChangeInput::Diff(diff)).unwrap();
    assert_eq!(from_diff.source, "diff");
    assert_eq!(summary(&from_diff), summary(&set));
    assert_eq!(from_diff.files[0].index, IndexSide::New);
}

#[test]
fn diff_text_without_index_lines_uses_the_working_tree() {
    let f = Fixture::new();
    f.write(
        "src/shop.py",
        &SHOP.replace("return x * 2", "return x * 2  # twice"),
    );
    let repo = f.index();
    let diff: String = git(&f.dir, &["diff"])
        .lines()
        .filter(|l| !l.starts_with("index "))
        .map(|l| format!("{l}\n"))
        .collect();
    let set = repo.changes(&ChangeInput::Diff(diff)).unwrap();
    assert_eq!(summary(&set), owned(&[("shop.helper", "modified", false)]));
    assert_eq!(set.files[0].index, IndexSide::New);
    assert!(
        repo.changes(&ChangeInput::Diff("not a diff\n".into()))
            .is_err()
    );
}

#[test]
fn added_and_deleted_definitions() {
    let f = Fixture::new();
    // Index the committed version, then change the working tree: the index holds the old side.
    let repo = f.index();
    f.write(
        "src/shop.py",
        &SHOP.replace("\n\ndef other(y):\n    return y + 1\n", ""),
    );
    let set = repo.changes(&working_tree()).unwrap();
    assert_eq!(summary(&set), owned(&[("shop.other", "deleted", false)]));
    assert_eq!(set.files[0].index, IndexSide::Old);
    assert!(set.index_behind, "the index is older than the working tree");
    assert!(set.notes.iter().any(|n| n.contains("sextant index")));

    // Re-indexed with a new function: it is added, the others are untouched.
    f.write(
        "src/shop.py",
        &format!("{SHOP}\n\ndef brand_new(z):\n    return z\n"),
    );
    let repo = f.index();
    let set = repo.changes(&working_tree()).unwrap();
    assert_eq!(summary(&set), owned(&[("shop.brand_new", "added", false)]));
    assert!(!set.index_behind);
}

#[test]
fn commit_ranges_new_and_deleted_files_and_file_lists() {
    let f = Fixture::new();
    f.write("src/shop.py", &SHOP.replace("return y + 1", "return y + 2"));
    f.write("src/fresh.py", "def fresh():\n    return 1\n");
    std::fs::remove_file(f.dir.join("src/util.py")).unwrap();
    git(&f.dir, &["add", "-A"]);
    git(&f.dir, &["commit", "-q", "-m", "two"]);
    let repo = f.index();
    let set = repo
        .changes(&ChangeInput::Git {
            base: Some("HEAD~1".into()),
            head: Some("HEAD".into()),
        })
        .unwrap();
    assert_eq!(set.source, "HEAD~1..HEAD");
    assert_eq!(set.head.as_deref(), repo.commit().unwrap().as_deref());
    let files: Vec<(&str, &str, IndexSide)> = set
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status, f.index))
        .collect();
    assert_eq!(
        files,
        vec![
            ("src/fresh.py", "added", IndexSide::New),
            ("src/shop.py", "modified", IndexSide::New),
            ("src/util.py", "deleted", IndexSide::NotIndexed),
        ]
    );
    assert_eq!(
        summary(&set),
        owned(&[
            ("fresh.fresh", "added", false),
            ("shop.other", "modified", false),
        ])
    );
    assert!(set.notes.iter().any(|n| n.contains("not in the index")));
    // `a..b` in the base alone means the same range.
    let ranged = repo
        .changes(&ChangeInput::Git {
            base: Some("HEAD~1..HEAD".into()),
            head: None,
        })
        .unwrap();
    assert_eq!(summary(&ranged), summary(&set));
    // Base alone: base against the working tree (clean, so the same as HEAD~1..HEAD).
    let base_only = repo
        .changes(&ChangeInput::Git {
            base: Some("HEAD~1".into()),
            head: None,
        })
        .unwrap();
    assert_eq!(summary(&base_only), summary(&set));
    assert!(
        repo.changes(&ChangeInput::Git {
            base: Some("no-such-ref".into()),
            head: None
        })
        .is_err()
    );

    // Whole files: every definition in them.
    let listed = repo
        .changes(&ChangeInput::Files(vec!["./src/fresh.py".into()]))
        .unwrap();
    assert_eq!(
        summary(&listed),
        owned(&[("fresh.fresh", "modified", false)])
    );
    assert!(
        repo.changes(&ChangeInput::Files(vec!["../outside.py".into()]))
            .is_err()
    );
}

#[test]
fn grep_finds_lines_with_their_enclosing_definitions() {
    let f = Fixture::new();
    let repo = f.index();
    let found = repo.grep(r"self\.items", &GrepOptions::default()).unwrap();
    let hits: Vec<(&str, u32, u32, Option<&str>)> = found
        .hits
        .iter()
        .map(|h| {
            (
                h.path.as_str(),
                h.line,
                h.column,
                h.symbol.as_ref().map(|s| s.qualified_name.as_str()),
            )
        })
        .collect();
    assert_eq!(
        hits,
        vec![
            ("src/shop.py", 3, 9, Some("shop.Cart.__init__")),
            ("src/shop.py", 6, 9, Some("shop.Cart.add")),
            ("src/shop.py", 7, 20, Some("shop.Cart.add")),
            ("src/shop.py", 10, 37, Some("shop.Cart.total")),
        ]
    );
    assert_eq!(found.hits[1].text, "        self.items.append(item)");
    assert!(!found.truncated);
    assert_eq!(found.files_searched, 2);
    assert_eq!(found.files.len(), 1);
    assert_eq!(found.files[0].hits, 4);

    // Options: fixed strings, words, case, path and language filters, limits, files only.
    let opts = |f: &dyn Fn(&mut GrepOptions)| {
        let mut o = GrepOptions::default();
        f(&mut o);
        o
    };
    let fixed = repo
        .grep("x * 2", &opts(&|o| o.fixed_strings = true))
        .unwrap();
    assert_eq!(fixed.files.len(), 2);
    assert_eq!(
        fixed.hits[0].symbol.as_ref().unwrap().qualified_name,
        "shop.helper"
    );
    let word = repo.grep("item", &opts(&|o| o.word = true)).unwrap();
    assert_eq!(word.hits.len(), 2, "`item` but not `items`");
    let upper = repo.grep("CART", &opts(&|o| o.ignore_case = true)).unwrap();
    assert_eq!(upper.hits.len(), 1);
    let in_util = repo
        .grep("return", &opts(&|o| o.path = Some("src/util.py".into())))
        .unwrap();
    assert_eq!(in_util.hits.len(), 2);
    assert_eq!(in_util.files_eligible, 1);
    let globbed = repo
        .grep("return", &opts(&|o| o.path = Some("*/u*.py".into())))
        .unwrap();
    assert_eq!(globbed.hits.len(), 2);
    let rust_only = repo
        .grep("return", &opts(&|o| o.language = Some("rust".into())))
        .unwrap();
    assert!(rust_only.hits.is_empty() && rust_only.files_searched == 0);
    let limited = repo.grep("return", &opts(&|o| o.max_hits = 2)).unwrap();
    assert_eq!(limited.hits.len(), 2);
    assert!(limited.truncated);
    let files_only = repo
        .grep(
            "return",
            &opts(&|o| {
                o.files_only = true;
                o.max_hits = 1
            }),
        )
        .unwrap();
    assert!(files_only.hits.is_empty());
    assert_eq!(files_only.files.len(), 1);
    assert!(files_only.truncated);
    let top = repo.grep("^class", &GrepOptions::default()).unwrap();
    assert_eq!(top.hits[0].line, 1);
    assert_eq!(
        top.hits[0].symbol.as_ref().unwrap().qualified_name,
        "shop.Cart"
    );

    // An invalid regular expression is an argument error that names the problem.
    let err = repo.grep("def (", &GrepOptions::default()).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument(_)), "{err:?}");
    assert!(err.to_string().contains("unclosed group"), "{err}");
}

#[test]
fn grep_reads_current_files_and_never_leaves_the_repository() {
    let f = Fixture::new();
    let repo = f.index();
    // Changed after indexing: the line is current, the hit says the file changed.
    f.write("src/shop.py", &format!("# a new first line\n{SHOP}"));
    let found = repo.grep("def helper", &GrepOptions::default()).unwrap();
    assert_eq!(found.hits.len(), 1);
    assert_eq!(found.hits[0].line, 14);
    assert!(found.hits[0].file_changed);
    // An indexed file replaced by a symlink to a file outside: not followed.
    let outside = f.dir.parent().unwrap().join("outside.py");
    std::fs::write(&outside, "def double(x):\n    return 'outside'\n").unwrap();
    std::fs::remove_file(f.dir.join("src/util.py")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&outside, f.dir.join("src/util.py")).unwrap();
        let found = repo.grep("outside", &GrepOptions::default()).unwrap();
        assert!(found.hits.is_empty(), "{:?}", found.hits);
        assert_eq!(found.unreadable.len(), 1);
        assert_eq!(found.unreadable[0].0, "src/util.py");
    }
}
