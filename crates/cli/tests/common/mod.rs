//! What the end-to-end server tests share: a small committed git repository (Python + Rust),
//! indexed by the real binary into a private data home.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Fixture {
    pub _tmp: tempfile::TempDir,
    pub repo: PathBuf,
    pub home: PathBuf,
    pub scratch: PathBuf,
}

pub fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .stdout(Stdio::null())
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

pub fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sextant"))
}

/// A small Python + Rust repository, committed; indexed when `index` is true.
pub fn fixture(index: bool) -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    let home = tmp.path().join("home");
    let scratch = tmp.path().join("scratch");
    std::fs::create_dir_all(&repo).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    write(&repo, "shop/__init__.py", "");
    write(
        &repo,
        "shop/users.py",
        r#""""Users."""


class UserStore:
    """Keeps users."""

    def get_user_by_id(self, user_id):
        return self.load(user_id)

    def load(self, user_id):
        return {"id": user_id}


def create_store():
    return UserStore()
"#,
    );
    write(
        &repo,
        "shop/api.py",
        r#"from .users import create_store


def handler(request):
    store = create_store()
    return store.get_user_by_id(request)


def create():
    return handler(1)
"#,
    );
    write(
        &repo,
        "shop/models.py",
        r#"class Base:
    def save(self):
        return 1


class Item(Base):
    def save(self):
        return super().save() + 1
"#,
    );
    write(
        &repo,
        "tests/test_users.py",
        r#"from shop.users import create_store


def test_store():
    assert create_store() is not None
"#,
    );
    let mut lib = String::from(
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn twice(a: i32) -> i32 {\n    add(a, a)\n}\n\npub fn create() -> i32 {\n    twice(1)\n}\n",
    );
    // A long function, for max_lines and head_tail.
    lib.push_str("\npub fn long() -> i32 {\n");
    for i in 0..300 {
        lib.push_str(&format!("    let v{i} = {i};\n"));
    }
    lib.push_str("    0\n}\n");
    write(&repo, "src/lib.rs", &lib);
    write(&repo, ".env", "TOKEN=secret\n");
    write(
        &repo,
        "notes/wide.txt",
        &format!("{}\n", "x\"".repeat(20_000)).repeat(3),
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let f = Fixture {
        _tmp: tmp,
        repo: repo.canonicalize().unwrap(),
        home,
        scratch,
    };
    if index {
        let out = Command::new(bin())
            .args(["index", "--json"])
            .arg(&f.repo)
            .env("SEXTANT_HOME", &f.home)
            .env_remove("SEXTANT_LOG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    f
}
