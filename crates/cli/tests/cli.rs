//! End-to-end: the real `sextant` binary on a real git repository made in a temp dir, with its
//! data in a temp `SEXTANT_HOME`. Covers every command, `--json`, exit codes, skip reasons, broken
//! pipes, a kill -9 in the middle of indexing, and two indexers at once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assert_cmd::cargo::CommandCargoExt;
use serde_json::{Value, json};

struct Fixture {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
}

fn git(dir: &Path, args: &[&str]) {
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

fn write(root: &Path, path: &str, text: impl AsRef<[u8]>) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
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
        "src/lib.rs",
        "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn twice(a: i32) -> i32 {\n    add(a, a)\n}\n\npub fn create() -> i32 {\n    twice(1)\n}\n",
    );
    write(
        &repo,
        "README.md",
        "# Shop\n\nUses `create_store`.\n\n## Install\n\nRun it.\n",
    );
    write(&repo, "assets/blob.py", b"x = 1\0\x01\x02");
    write(&repo, ".env", "TOKEN=secret\n");
    write(&repo, "big/huge.py", "x = 1\n".repeat(300_000));
    write(
        &repo,
        "latin1.py",
        b"s = '\xe9t\xe9'\ndef caf\xe9():\n    pass\n",
    );
    write(
        &repo,
        "gen/min.py",
        format!("a = [{}]\n", "1,".repeat(20_000)),
    );
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc", repo.join("escape")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    Fixture {
        _tmp: tmp,
        repo,
        home,
    }
}

impl Fixture {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::cargo_bin("sextant").unwrap();
        c.args(args)
            .arg("--repo")
            .arg(&self.repo)
            .env("SEXTANT_HOME", &self.home)
            .env_remove("SEXTANT_LOG")
            .env_remove("SEXTANT_CACHE_DIR");
        c
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = self.cmd(args).output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let (code, stdout, stderr) = self.run(&all);
        assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
    }

    fn index(&self) -> Value {
        self.json(&["index", self.repo.to_str().unwrap()])
    }
}

#[test]
fn index_reports_files_skips_and_commit() {
    let f = fixture();
    let summary = f.index();
    assert_eq!(summary["files"]["indexed"], 6, "{summary:#}");
    let skipped = &summary["files"]["skipped"];
    for reason in ["binary", "too_large", "secret", "minified"] {
        assert_eq!(skipped[reason], 1, "{reason}: {summary:#}");
    }
    assert_eq!(summary["commit"].as_str().map(str::len), Some(40));
    assert_eq!(summary["dirty"], false);
    assert!(summary["symbols"].as_u64().unwrap() >= 10);
    assert!(
        summary["edges"]["calls/inferred"].as_u64().unwrap() >= 4,
        "{summary:#}"
    );

    let status = f.json(&["status"]);
    assert_eq!(status["indexed"], true);
    assert_eq!(status["stale"], false);
    assert_eq!(status["skipped"]["secret"], 1);
    let (code, human, _) = f.run(&["status"]);
    assert_eq!(code, 0);
    assert!(
        human.contains("secret") && human.contains(".env"),
        "{human}"
    );

    // A second index reuses every unchanged file version.
    let again = f.index();
    assert_eq!(again["files"]["reused"], 6, "{again:#}");
    assert_eq!(again["symbols"], summary["symbols"]);
    assert_eq!(again["edges"], summary["edges"]);

    // A new commit makes the index stale until re-indexed.
    write(&f.repo, "shop/extra.py", "def extra():\n    return 1\n");
    git(&f.repo, &["add", "-A"]);
    git(&f.repo, &["commit", "-q", "-m", "two"]);
    assert_eq!(f.json(&["status"])["stale"], true);
    f.index();
    assert_eq!(f.json(&["status"])["stale"], false);
}

#[test]
fn search_ranks_exact_then_prefix_then_words() {
    let f = fixture();
    f.index();
    let hits = f.json(&["search", "create"]);
    let results = hits["results"].as_array().unwrap();
    assert_eq!(results[0]["match"], "exact");
    assert_eq!(results[0]["name"], "create");
    assert!(
        results
            .iter()
            .any(|r| r["name"] == "create_store" && r["match"] == "prefix")
    );
    // Split identifiers: "user id" finds get_user_by_id.
    let words = f.json(&["search", "user id"]);
    assert!(
        words["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "get_user_by_id"),
        "{words:#}"
    );
    let filtered = f.json(&["search", "create", "--lang", "rust"]);
    assert!(
        filtered["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["language"] == "rust")
    );
    let kinds = f.json(&["search", "UserStore", "--kind", "class"]);
    assert_eq!(kinds["results"][0]["kind"], "class");
}

#[test]
fn symbols_resolve_or_fail_clearly() {
    let f = fixture();
    f.index();
    let card = f.json(&["show", "shop.users.UserStore"]);
    assert_eq!(card["symbol"]["doc"], "Keeps users.");
    assert_eq!(card["members"].as_array().unwrap().len(), 2);
    let by_id = f.json(&["show", card["symbol"]["id"].as_str().unwrap()]);
    assert_eq!(by_id["symbol"]["qualified_name"], "shop.users.UserStore");

    // Ambiguous plain name: exit 3 and the candidates.
    let (code, _, stderr) = f.run(&["show", "create"]);
    assert_eq!(code, 3);
    assert!(
        stderr.contains("ambiguous") && stderr.contains("shop.api.create"),
        "{stderr}"
    );
    // Unknown: exit 3 with suggestions, never another symbol's answer.
    let (code, stdout, _) = f.run(&["show", "get_usr_by_id", "--json"]);
    assert_eq!(code, 3);
    let err: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(err["error"]["kind"], "not_found");
    assert_eq!(err["error"]["details"]["suggestions"][0], "get_user_by_id");
}

#[test]
fn graph_queries_answer_with_completeness() {
    let f = fixture();
    f.index();
    let callers = f.json(&["callers", "get_user_by_id"]);
    assert_eq!(
        callers["results"][0]["symbol"]["qualified_name"],
        "shop.api.handler"
    );
    let deep = f.json(&["callers", "add", "--depth", "3"]);
    let names: Vec<&str> = deep["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["twice", "create"]);
    assert_eq!(deep["completeness"]["status"], "exact");
    let callees = f.json(&["callees", "handler"]);
    let callee_names: Vec<&str> = callees["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["symbol"]["name"].as_str().unwrap())
        .collect();
    assert!(callee_names.contains(&"create_store"), "{callees:#}");
    let refs = f.json(&["refs", "UserStore"]);
    assert!(refs["count"].as_u64().unwrap() >= 1);
    assert!(refs["references"][0]["site"]["line"].as_u64().is_some());

    let src = f.json(&["source", "add"]);
    assert_eq!(src["start_line"], 2);
    assert!(src["text"].as_str().unwrap().contains("a + b"));
    let range = f.json(&["source", "src/lib.rs:6-7"]);
    assert!(range["text"].as_str().unwrap().starts_with("pub fn twice"));
    // Paths outside the repository are refused.
    let (code, _, stderr) = f.run(&["source", "../../etc/passwd:1-2"]);
    assert_eq!(code, 2, "{stderr}");
    let stats = f.json(&["stats"]);
    assert!(stats["nodes"]["class"].as_u64().unwrap() >= 1);
    assert!(stats["edges"]["calls/inferred"].as_u64().is_some());
}

#[test]
fn errors_have_exit_codes() {
    let f = fixture();
    let (code, _, stderr) = f.run(&["search", "x"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("sextant index"), "{stderr}");
    let (code, _, _) = f.run(&["frobnicate"]);
    assert_eq!(code, 2);
    let (code, _, stderr) = f.run(&["index", "/definitely/not/here"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("not a directory"), "{stderr}");
}

#[test]
fn broken_pipe_is_not_an_error() {
    let f = fixture();
    f.index();
    let bin = assert_cmd::cargo::cargo_bin("sextant");
    let script = format!(
        "SEXTANT_HOME='{}' '{}' search e --limit 1000 --repo '{}' | head -c 1 >/dev/null; exit ${{PIPESTATUS[0]}}",
        f.home.display(),
        bin.display(),
        f.repo.display()
    );
    let status = Command::new("bash").arg("-c").arg(script).status().unwrap();
    assert!(status.success());
}

#[test]
fn killed_indexer_leaves_the_previous_generation_queryable() {
    let f = fixture();
    f.index();
    for i in 0..40 {
        write(
            &f.repo,
            &format!("gen/m{i}.py"),
            format!("def f{i}():\n    return {i}\n").repeat(200),
        );
    }
    for delay_ms in [5u64, 30, 80, 150] {
        let mut child = f
            .cmd(&["index", f.repo.to_str().unwrap(), "--full"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let hits = f.json(&["search", "get_user_by_id"]);
        assert_eq!(
            hits["results"][0]["name"], "get_user_by_id",
            "after kill at {delay_ms} ms"
        );
        assert_eq!(f.json(&["status"])["indexed"], true);
    }
    // The next index cleans up and publishes normally.
    let summary = f.index();
    assert!(summary["files"]["indexed"].as_u64().unwrap() >= 46);
}

#[test]
fn two_indexers_at_once_both_succeed() {
    let f = fixture();
    let spawn = || {
        f.cmd(&["index", f.repo.to_str().unwrap(), "--json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn();
    let b = spawn();
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(f.json(&["search", "add"])["results"][0]["name"], "add");
}

#[test]
fn baselines_list_kept_generations_and_an_unchanged_reindex_shares_one() {
    let f = fixture();
    let first = f.index();
    let again = f.index();
    assert_eq!(again["resolution_shared_with"], first["generation"]);
    write(&f.repo, "shop/more.py", "def more():\n    return 1\n");
    git(&f.repo, &["add", "-A"]);
    git(&f.repo, &["commit", "-q", "-m", "more"]);
    let second = f.index();
    assert!(second["resolution_shared_with"].is_null());
    let list = f.json(&["baselines", "list"]);
    let generations = list["generations"].as_array().unwrap();
    assert!(generations.len() >= 2, "{list}");
    assert_eq!(generations[0]["generation"], second["generation"]);
    assert_eq!(generations[0]["active"], true);
    assert!(generations.iter().all(|g| g["status"] == "published"));
    let (code, text, _) = f.run(&["baselines", "list"]);
    assert_eq!(code, 0);
    assert!(text.contains("active"), "{text}");
    let gc = f.json(&["baselines", "gc"]);
    assert!(gc["removed_generations"].is_u64(), "{gc}");
    // Back at the first commit: its baseline serves without resolving anything.
    git(&f.repo, &["checkout", "-q", "HEAD~1"]);
    let back = f.index();
    assert!(back["resolution_shared_with"].is_i64(), "{back}");
}

#[test]
fn workspace_commands_isolate_edits_and_answer_with_workspace() {
    let f = fixture();
    f.index();
    let created = f.json(&["workspace", "create", "w1"]);
    assert_eq!(created["created"], true, "{created}");
    assert_eq!(created["revision"], 0, "{created}");
    let again = f.json(&["workspace", "create", "w1"]);
    assert_eq!(again["created"], false, "{again}");
    // Nothing differs from HEAD yet.
    let r = f.json(&["workspace", "refresh", "w1"]);
    assert_eq!(
        (r["revision"].as_i64(), r["files_reindexed"].as_u64()),
        (Some(0), Some(0)),
        "{r}"
    );

    write(
        &f.repo,
        "shop/extra.py",
        "def only_in_w1():\n    return 1\n",
    );
    let r = f.json(&["workspace", "refresh", "w1", "shop/extra.py"]);
    assert_eq!(r["revision"], 1, "{r}");
    assert_eq!(r["files_reindexed"], 1, "{r}");
    assert_eq!(r["changed"], json!(["shop/extra.py"]), "{r}");
    // Found with --workspace only (the active index was not re-indexed).
    let hits = f.json(&["search", "only_in_w1", "--workspace", "w1"]);
    assert!(hits.to_string().contains("shop.extra.only_in_w1"), "{hits}");
    let (code, text, _) = f.run(&["search", "only_in_w1"]);
    assert_eq!(code, 0);
    assert!(!text.contains("shop.extra.only_in_w1"), "{text}");
    let (code, text, stderr) = f.run(&["source", "shop.extra.only_in_w1", "--workspace", "w1"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text.contains("def only_in_w1"), "{text}");
    let (code, _, stderr) = f.run(&["show", "shop.extra.only_in_w1", "--workspace", "nope"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no workspace named"), "{stderr}");

    let list = f.json(&["workspace", "list"]);
    let ws = list["workspaces"].as_array().unwrap();
    assert_eq!(ws.len(), 1, "{list}");
    assert_eq!(ws[0]["name"], "w1");
    assert_eq!(ws[0]["modified_files"], 1);
    assert_eq!(ws[0]["is_stale"], false);
    let (code, text, _) = f.run(&["workspace", "list"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("w1") && text.contains("revision   1"),
        "{text}"
    );
    let generation = ws[0]["generation"].clone();
    let gens = f.json(&["baselines", "list"]);
    assert!(
        gens["generations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["generation"] == generation && g["status"] == "workspace"),
        "{gens}"
    );

    let reset = f.json(&["workspace", "reset", "w1"]);
    assert_eq!(
        (
            reset["previous_revision"].as_i64(),
            reset["new_revision"].as_i64()
        ),
        (Some(1), Some(0))
    );
    let gens = f.json(&["baselines", "list"]);
    assert!(
        !gens["generations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["generation"] == generation),
        "{gens}"
    );
    let deleted = f.json(&["workspace", "delete", "w1"]);
    assert_eq!(deleted["deleted"], true);
    let deleted = f.json(&["workspace", "delete", "w1"]);
    assert_eq!(deleted["deleted"], false);
    let (code, text, _) = f.run(&["workspace", "list"]);
    assert_eq!(code, 0);
    assert!(text.contains("no workspaces"), "{text}");
}

/// `baselines push|pull|pin|unpin --json`: push from one home, pull into another (which then
/// indexes without resolving), pins shown by `list`, clear errors without a cache directory.
#[test]
fn baselines_push_pull_pin_and_unpin() {
    let f = fixture();
    let cache = f._tmp.path().join("cache");
    let (code, _, err) = f.run(&["baselines", "push"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("--cache-dir") && err.contains("SEXTANT_CACHE_DIR"),
        "{err}"
    );
    let first = f.index();
    assert!(first["cache"].is_null(), "no cache configured: {first}");
    let pushed = f.json(&["baselines", "push", "--cache-dir", cache.to_str().unwrap()]);
    let p = &pushed["pushed"];
    assert_eq!(p["commit"], first["commit"], "{pushed}");
    assert_eq!(p["generation"], first["generation"]);
    assert!(p["bytes"].as_u64().unwrap() > 0);
    assert!(std::path::Path::new(p["file"].as_str().unwrap()).is_file());

    // Another home, the cache named by the environment: pull, then an index that resolves nothing.
    let other = |args: &[&str]| -> Value {
        let out = Command::cargo_bin("sextant")
            .unwrap()
            .args(args)
            .arg("--json")
            .arg("--repo")
            .arg(&f.repo)
            .env("SEXTANT_HOME", f._tmp.path().join("home2"))
            .env("SEXTANT_CACHE_DIR", &cache)
            .env_remove("SEXTANT_LOG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let pulled = other(&["baselines", "pull"]);
    assert_eq!(pulled["pulled"]["already"], false, "{pulled}");
    assert_eq!(pulled["pulled"]["commit"], first["commit"]);
    let g = pulled["pulled"]["generation"].clone();
    let summary = other(&["index", f.repo.to_str().unwrap()]);
    assert_eq!(summary["resolution_shared_with"], g, "{summary}");
    assert_eq!(summary["symbols"], first["symbols"]);
    assert_eq!(summary["edges"], first["edges"]);
    assert!(summary["cache"]["pushed"].is_null() && summary["cache"]["pulled"].is_null());
    let again = other(&["baselines", "pull"]);
    assert_eq!(again["pulled"]["already"], true, "{again}");

    // Pins.
    let commit = first["commit"].as_str().unwrap();
    let pin = f.json(&["baselines", "pin", &commit[..12]]);
    assert_eq!(pin["pinned"]["kind"], "commit", "{pin}");
    assert_eq!(pin["pinned"]["target"], commit);
    assert_eq!(pin["pinned"]["generation"], first["generation"]);
    let list = f.json(&["baselines", "list"]);
    let gens = list["generations"].as_array().unwrap();
    assert!(
        gens.iter()
            .any(|g| g["generation"] == first["generation"] && g["pinned"] == true),
        "{list}"
    );
    let (code, text, _) = f.run(&["baselines", "list"]);
    assert!(code == 0 && text.contains("pinned"), "{text}");
    let by_id = f.json(&["baselines", "pin", &first["generation"].to_string()]);
    assert_eq!(by_id["pinned"]["kind"], "generation", "{by_id}");
    let unpin = f.json(&["baselines", "unpin", commit]);
    assert_eq!(unpin["unpinned"]["changed"], true, "{unpin}");
    let (code, _, err) = f.run(&["baselines", "unpin", commit]);
    assert_ne!(code, 0);
    assert!(err.contains("is not pinned"), "{err}");
    let (code, _, err) = f.run(&["baselines", "pin", "no-such-thing"]);
    assert_ne!(code, 0);
    assert!(err.contains("names neither"), "{err}");
}
